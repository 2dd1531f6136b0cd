//! Offline measurement of transplanted fixes (issue 32 item 2,
//! `repair/src/strategies/patterns/transplant.rs`) against the template edits, on a split of
//! a bug-fix corpus, with no test run: for every pair, which of its transplanted candidates
//! (from its retrieved neighbours, own id and project left out) make the fix (whitespace
//! aside), and where the fixing template edit ranks in the prior's order. This says how often
//! a transplant at position `j` is the fix, against a template edit's `p(t) / n(t)`, which is
//! what placing the transplants among the templates needs. QuixBugs, Defects4J and BugsInPy
//! are never read; `scripts/patterns-transplant.py` reads the output.
//!
//! Usage (from the project root):
//! `cargo run --release -p fixdex-repair --example patterns_transplant -- --index I.fdx
//!  --model DIR --split K/M [--max N] DATA.jsonl... > out.jsonl`
//! (`FIXDEX_TRANSPLANT_TOKENS=N`, `FIXDEX_TRANSPLANT_REGIONS=N`: other size limits than the
//! shipped `transplant::Limits::DEFAULT`; `REGIONS=1` is the single-region rule before
//! multi-region fixes transplanted)
//!
//! One line per pair whose snippet has at most `SNIPPET_MAX_LINES` lines: `template_scores`,
//! the template edits' `p(t) / n(t)` in the prior's order (descending); `template_fix`, the
//! 0-based position there of the first edit that makes the fix (`null`: none); `transplant_fix`,
//! the 0-based positions among the transplants (in their shipped order) of those that make
//! the fix; `transplants`, how many were made; `top_score`, the best neighbour's cosine.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;

use anyhow::bail;
use engine::Space;
use engine::embed::BertEmbedder;
use repair::Language;
use repair::retrieve::{Exclusion, RetrieveParams, Retriever};
use repair::strategies::patterns::templates::{self, Edit, Template};
use repair::strategies::patterns::{DEFAULT_K, order, transplant};
use serde_json::json;

const JAVA_HEAD: &str = "class Fix {\n";

#[path = "shared/split.rs"]
mod split;

/// The snippet as the strategy reads a file: Java inside a class, and its lines.
fn wrap(code: &str, lang: Language) -> (String, (usize, usize)) {
    let n = code.lines().count().max(1);
    match lang {
        Language::Java => (format!("{JAVA_HEAD}{code}\n}}\n"), (2, n + 1)),
        Language::Python => (format!("{code}\n"), (1, n)),
    }
}

fn applied(text: &str, e: &Edit) -> Option<String> {
    Some(format!("{}{}{}", text.get(..e.start)?, e.replacement, text.get(e.end..)?))
}

/// The transplant's size limits: `transplant::Limits::DEFAULT`, or `FIXDEX_TRANSPLANT_TOKENS`
/// and `FIXDEX_TRANSPLANT_REGIONS` where set (to compare limits on the same split).
fn limits() -> anyhow::Result<transplant::Limits> {
    let mut l = transplant::Limits::DEFAULT;
    if let Ok(v) = std::env::var("FIXDEX_TRANSPLANT_TOKENS") {
        l.tokens = v.parse()?;
    }
    if let Ok(v) = std::env::var("FIXDEX_TRANSPLANT_REGIONS") {
        l.regions = v.parse()?;
    }
    eprintln!("transplant limits: {l:?}");
    Ok(l)
}

fn main() -> anyhow::Result<()> {
    let a = split::args()?;
    let Some((index, model)) = &a.index else { bail!("--index I.fdx and --model DIR are needed") };
    let embedder = BertEmbedder::load_with(model, engine::embed::Backend::Fast)?;
    let retriever = Retriever::open(index, Arc::new(embedder), Exclusion::default())?;
    let params = RetrieveParams { space: Space::Code, k: DEFAULT_K, ..RetrieveParams::default() };
    let limits = limits()?;
    let out = std::io::stdout();
    let mut out = out.lock();
    let seen = split::for_each_pair(&a, |p| {
        let (id, project, lang) = (p.field("id"), p.field("project"), p.lang);
        let (text, lines) = wrap(p.buggy, lang);
        let want = templates::squash(&wrap(p.fixed, lang).0);
        let fixes_it = |e: &Edit| applied(&text, e).is_some_and(|t| templates::squash(&t) == want);
        // The templates in the prior's order (no retrieval), with their p(t) / n(t).
        let edits = templates::edits(&text, lang, lines);
        let mut n: BTreeMap<Template, usize> = BTreeMap::new();
        for e in &edits {
            *n.entry(e.template).or_default() += 1;
        }
        let score = |e: &Edit| order::prior(e.template) / n[&e.template] as f32;
        let mut ranked: Vec<&Edit> = edits.iter().collect();
        ranked.sort_by(|a, b| score(b).total_cmp(&score(a)));
        let template_fix = ranked.iter().position(|e| fixes_it(e));
        let scores: Vec<f32> = ranked.iter().map(|e| score(e)).collect();
        let exclusion = Exclusion {
            ids: vec![id.to_string()],
            projects: if project.is_empty() || project == "unknown" { vec![] } else { vec![project.to_string()] },
            keep_ids: Vec::new(),
        };
        let fixes = retriever.with_exclusion(exclusion).search(p.buggy, "", &params)?.fixes;
        let (made, _) = transplant::transplants_with(&fixes, &text, lang, lines, limits);
        let transplant_fix: Vec<usize> = made.iter().enumerate().filter(|(_, e)| fixes_it(e)).map(|(j, _)| j).collect();
        writeln!(
            out,
            "{}",
            json!({
                "id": id, "source": p.field("source"), "language": lang.as_str(),
                "template_scores": scores, "template_fix": template_fix,
                "transplants": made.len(), "transplant_fix": transplant_fix,
                "top_score": fixes.first().map(|f| f.score),
            })
        )?;
        Ok(true)
    })?;
    eprintln!("pairs measured: {seen}");
    Ok(())
}
