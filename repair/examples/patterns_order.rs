//! Offline measurement of the patterns strategy's candidate order (issue 11 item 5,
//! `repair/src/strategies/patterns/order.rs`) on a split of a bug-fix corpus, with no test
//! run: for every pair whose fix is exactly one template edit of its buggy snippet
//! (whitespace aside), the rank of that edit among the snippet's candidates in the default
//! order, in the prior's order (`rank_prior`, no hits) and in the shipped order (`rank`;
//! `top_score`, the best hit's cosine), and what another rule needs to rank it (per template: its
//! instances `n`, the instances that make a hit's own edit `c`, the hits' template vote).
//! `scripts/patterns-order.py` fits and compares rules on the output; QuixBugs (never read
//! here) stays the measurement.
//!
//! Usage (from the project root):
//! `cargo run --workspace --example patterns_order -- [--index I.fdx --model DIR] --split K/M
//!  [--max N] DATA.jsonl... > out.jsonl`
//! Without `--index`, no similar fix is searched (every `vote` empty): enough to count the
//! prior (`order::TEMPLATE_FIXES`) in minutes instead of an hour of embedding.
//! A record is in the split when FNV-1a(id) mod M = K. Retrieval (top
//! `patterns::DEFAULT_K`, `code` space) excludes the record's id and its project (unless
//! `unknown`), QuixBugs' rule. Sources `quixbugs`, `defects4j` and `bugsinpy` (benchmarks)
//! and hunk records are skipped.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;

use engine::Space;
use engine::embed::BertEmbedder;
use repair::Language;
use repair::fl::LineWeights;
use repair::retrieve::{Exclusion, RetrieveParams, Retriever};
use repair::strategies::patterns::DEFAULT_K;
use repair::strategies::patterns::order;
use repair::strategies::patterns::templates::{self, Edit, Template};
use serde_json::{Value, json};

#[path = "shared/split.rs"]
mod split;

/// The line of one pair a template edit fixes: `edits` of its buggy code, `truth` the
/// fixing one's index.
fn measure(
    retriever: Option<&Retriever>,
    rec: &Value,
    lang: Language,
    edits: &[Edit],
    truth: usize,
) -> anyhow::Result<Value> {
    let field = |k: &str| rec.get(k).and_then(Value::as_str).unwrap_or("");
    let (id, project) = (field("id"), field("project"));
    let exclusion = Exclusion {
        ids: vec![id.to_string()],
        projects: if project.is_empty() || project == "unknown" { vec![] } else { vec![project.to_string()] },
        keep_ids: Vec::new(),
    };
    let params = RetrieveParams { space: Space::Code, k: DEFAULT_K, ..RetrieveParams::default() };
    let fixes = match retriever {
        Some(r) => r.with_exclusion(exclusion).search(field("buggy_code"), "", &params)?.fixes,
        None => Vec::new(),
    };
    let hits = order::hit_edits(&fixes);
    let te = &edits[truth];
    let (mut n, mut c) = (BTreeMap::<Template, usize>::new(), BTreeMap::<Template, usize>::new());
    let mut before = [0usize; 2];
    for (i, e) in edits.iter().enumerate() {
        let conc = order::concrete(e, &hits);
        *n.entry(e.template).or_default() += 1;
        if conc {
            *c.entry(e.template).or_default() += 1;
        }
        if i < truth && e.template == te.template {
            before[usize::from(!conc)] += 1;
        }
    }
    let shipped = order::order(edits, &hits, &LineWeights::Uniform);
    let rank = shipped.iter().position(|&i| i == truth).unwrap_or(0) + 1;
    let prior = order::order(edits, &[], &LineWeights::Uniform);
    let rank_prior = prior.iter().position(|&i| i == truth).unwrap_or(0) + 1;
    Ok(json!({
        "id": id, "source": field("source"), "language": lang.as_str(),
        "template": te.template, "summary": te.summary,
        "n": n, "c": c, "vote": order::template_vote(&hits), "concrete": order::concrete(te, &hits),
        "before_concrete": before[0], "before_nonconcrete": before[1],
        "hits": fixes.len(), "voting_hits": hits.len(), "edits": edits.len(),
        "rank_default": truth + 1, "rank": rank, "rank_prior": rank_prior,
        "top_score": fixes.first().map(|f| f.score),
    }))
}

fn main() -> anyhow::Result<()> {
    let a = split::args()?;
    let retriever = match &a.index {
        Some((index, model)) => {
            let model = BertEmbedder::load_with(model, engine::embed::Backend::Fast)?;
            Some(Retriever::open(index, Arc::new(model), Exclusion::default())?)
        }
        None => None,
    };
    let out = std::io::stdout();
    let mut out = out.lock();
    let mut fixable = 0usize;
    let seen = split::for_each_pair(&a, |p| {
        let edits = templates::snippet_edits(p.buggy, p.lang);
        let Some(truth) = templates::fixing_edit(p.buggy, p.fixed, &edits) else { return Ok(false) };
        fixable += 1;
        let o = measure(retriever.as_ref(), p.rec, p.lang, &edits, truth)?;
        writeln!(out, "{o}")?;
        Ok(true)
    })?;
    eprintln!("records in split: {seen}; fixed by one template edit: {fixable}");
    Ok(())
}
