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
//!
//! One line per pair whose snippet has at most `SNIPPET_MAX_LINES` lines: `template_scores`,
//! the template edits' `p(t) / n(t)` in the prior's order (descending); `template_fix`, the
//! 0-based position there of the first edit that makes the fix (`null`: none); `transplant_fix`,
//! the 0-based positions among the transplants (in their shipped order) of those that make
//! the fix; `transplants`, how many were made; `top_score`, the best neighbour's cosine.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, bail};
use engine::Space;
use engine::embed::BertEmbedder;
use repair::Language;
use repair::retrieve::{Exclusion, RetrieveParams, Retriever};
use repair::strategies::patterns::templates::{self, Edit, Template};
use repair::strategies::patterns::{DEFAULT_K, order, transplant};
use serde_json::{Value, json};

const SKIP_SOURCES: [&str; 3] = ["quixbugs", "defects4j", "bugsinpy"];
const JAVA_HEAD: &str = "class Fix {\n";

fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

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

fn main() -> anyhow::Result<()> {
    let mut it = std::env::args().skip(1);
    let (mut index, mut model, mut split, mut max, mut data) = (None, None, (0u64, 1u64), usize::MAX, Vec::new());
    while let Some(a) = it.next() {
        match a.as_str() {
            "--index" => index = it.next().map(PathBuf::from),
            "--model" => model = it.next().map(PathBuf::from),
            "--split" => {
                let v = it.next().context("--split K/M")?;
                let (k, m) = v.split_once('/').context("--split K/M")?;
                split = (k.parse()?, m.parse()?);
            }
            "--max" => max = it.next().context("--max N")?.parse()?,
            _ => data.push(PathBuf::from(a)),
        }
    }
    let (Some(index), Some(model)) = (index, model) else { bail!("--index I.fdx and --model DIR are needed") };
    let embedder = BertEmbedder::load_with(&model, engine::embed::Backend::Fast)?;
    let retriever = Retriever::open(&index, Arc::new(embedder), Exclusion::default())?;
    let params = RetrieveParams { space: Space::Code, k: DEFAULT_K, ..RetrieveParams::default() };
    let out = std::io::stdout();
    let mut out = out.lock();
    let mut seen = 0usize;
    'files: for path in &data {
        let file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
        for (row, line) in std::io::BufReader::new(file).lines().enumerate() {
            if seen >= max {
                break 'files;
            }
            let line = line?;
            let rec: Value = serde_json::from_str(&line).with_context(|| format!("{}:{}", path.display(), row + 1))?;
            let field = |k: &str| rec.get(k).and_then(Value::as_str).unwrap_or("");
            let (id, project) = (field("id"), field("project"));
            if SKIP_SOURCES.contains(&field("source")) || fnv(id) % split.1 != split.0 {
                continue;
            }
            let Some(lang) = Language::from_name(field("language")) else { continue };
            let (buggy, fixed) = (field("buggy_code"), field("fixed_code"));
            if buggy.lines().count() > templates::SNIPPET_MAX_LINES || buggy.contains("\n...\n") {
                continue;
            }
            seen += 1;
            let (text, lines) = wrap(buggy, lang);
            let want = templates::squash(&wrap(fixed, lang).0);
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
            };
            let fixes = retriever.with_exclusion(exclusion).search(buggy, "", &params)?.fixes;
            let (made, _) = transplant::transplants(&fixes, &text, lang, lines);
            let transplant_fix: Vec<usize> =
                made.iter().enumerate().filter(|(_, e)| fixes_it(e)).map(|(j, _)| j).collect();
            writeln!(
                out,
                "{}",
                json!({
                    "id": id, "source": field("source"), "language": lang.as_str(),
                    "template_scores": scores, "template_fix": template_fix,
                    "transplants": made.len(), "transplant_fix": transplant_fix,
                    "top_score": fixes.first().map(|f| f.score),
                })
            )?;
        }
    }
    eprintln!("pairs measured: {seen}");
    Ok(())
}
