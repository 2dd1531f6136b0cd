//! Offline measurement for two-edit candidates (issue 32, "multi-edit candidates"): on the
//! bug-fix pairs of a corpus split (benchmarks skipped), how many fixes no single template
//! edit makes but two non-overlapping template edits of the buggy snippet make together
//! (whitespace aside), which templates, whether on one line, and where the two stand in the
//! prior's order (`order::order` without hits). It decides whether two-edit candidates are
//! worth validations and how to rank them against the single edits. No test run.
//!
//! `cargo run --release -p fixdex-repair --example patterns_pairs -- [--localized]
//!  [--split K/M] [--max N] DATA.jsonl... > out.jsonl`: one JSON line per pair that one or two
//! edits fix (`kind`, the templates, their ranks; `base.rank_shipped`, the fix's rank in the
//! order `Patterns` ships, pairs included), a summary on stderr. A record is in the split
//! when FNV-1a(id) mod M = K. `--localized`: only the edits within the lines the fix changes
//! (Defects4J's perfect localization; `ends`, the pairs that change its first and last line).
//!
//! Result (whole methods, split 1/5 of mined_git_history, gitbug_java and condefects, 4,757
//! pairs): 356 single-edit fixes and 44 two-edit ones, 11 of them within 200 pairs by the
//! product of scores. Localized (the pairs' module docs, `pairs.rs`): 432 and 36 on split 1/5
//! with ManySStuBs4J, and the shipped order fixes 459 within 200 candidates.
//!
//! A single-edit fix's `twin_on_line` says whether the same change could be made at a second
//! place on its line: 43 such fixes against 12 fixes that make it at both places on split 0/4
//! (`--localized`), 19 against 2 on split 1/5, so the pair stays after the single edits
//! (`pairs.rs`).
//!
//! All pairs of edits are checked, not only the top-ranked: with `P(a)` the squashed text
//! up to and including `a`'s replacement and `S(b)` the squashed text from `b`'s replacement
//! on, `a` then `b` make the fix exactly when `P(a)` is a prefix of the squashed fix, `S(b)` a
//! suffix, and the squashed text between them fills the rest (squashing commutes with
//! concatenation). O(edits² ) comparisons of lengths, O(edits × length) string work.

use std::io::Write;

use repair::fl::LineWeights;
use repair::strategies::patterns::templates::{self, Edit, squash};
use repair::strategies::patterns::{order, pairs};
use serde_json::json;

#[path = "shared/split.rs"]
mod split;

/// The two-edit fixes of `buggy` → `fixed` among `edits`: `(a, b)` indexes with
/// `edits[a].end <= edits[b].start`.
fn fixing_pairs(buggy: &str, fixed: &str, edits: &[Edit]) -> Vec<(usize, usize)> {
    let want = squash(fixed);
    let pre: Vec<Option<usize>> = edits
        .iter()
        .map(|e| {
            let p = squash(&format!("{}{}", buggy.get(..e.start)?, e.replacement));
            want.starts_with(&p).then_some(p.len())
        })
        .collect();
    let suf: Vec<Option<usize>> = edits
        .iter()
        .map(|e| {
            let s = squash(&format!("{}{}", e.replacement, buggy.get(e.end..)?));
            want.ends_with(&s).then_some(s.len())
        })
        .collect();
    let mut out = Vec::new();
    for (a, ea) in edits.iter().enumerate() {
        let Some(pa) = pre[a] else { continue };
        for (b, eb) in edits.iter().enumerate() {
            let Some(sb) = suf[b] else { continue };
            if ea.end > eb.start || (a == b) || pa + sb > want.len() {
                continue;
            }
            let Some(mid) = buggy.get(ea.end..eb.start) else { continue };
            if squash(mid) == want[pa..want.len() - sb] {
                out.push((a, b));
            }
        }
    }
    out
}

/// Pairs `(i < j)` of `scores` whose product exceeds `t`: how many two-edit candidates
/// ranked by the product of their edits' prior scores come before one of product `t`.
/// O(n log n).
fn pairs_above(scores: &[f64], t: f64) -> usize {
    let mut s = scores.to_vec();
    s.sort_by(|a, b| b.total_cmp(a));
    let mut n = 0usize;
    for i in 0..s.len() {
        // j > i with s[i] * s[j] > t: s is descending, so a prefix of s[i + 1..].
        let rest = &s[i + 1..];
        n += rest.partition_point(|&x| s[i] * x > t);
    }
    n
}

/// With a span of two or more lines: `[pairs, rank]`, the pairs of one edit changing its
/// first line and one changing its last (`pairs::changed_lines`) (the candidates a rule "cover both ends of the span"
/// would make) and the rank of `(x, y)` among them by the product of prior scores
/// (`null` when it is not one of them).
fn ends_rank(
    text: &str,
    edits: &[Edit],
    score: &[f64],
    span: Option<(usize, usize)>,
    (x, y): (usize, usize),
) -> Option<(usize, Option<usize>)> {
    let (first, last) = span.filter(|s| s.1 > s.0)?;
    let a: Vec<usize> = (0..edits.len()).filter(|&i| pairs::changed_lines(text, &edits[i]).0 == first).collect();
    let b: Vec<usize> = (0..edits.len()).filter(|&i| pairs::changed_lines(text, &edits[i]).1 == last).collect();
    let mut products: Vec<f64> = Vec::new();
    for &i in &a {
        for &j in &b {
            if edits[i].end <= edits[j].start {
                products.push(score[i] * score[j]);
            }
        }
    }
    let is_ends = pairs::changed_lines(text, &edits[x]).0 == first && pairs::changed_lines(text, &edits[y]).1 == last;
    let t = score[x] * score[y];
    Some((products.len(), is_ends.then(|| products.iter().filter(|&&p| p > t).count() + 1)))
}

fn main() -> anyhow::Result<()> {
    let a = split::args()?;
    let out = std::io::stdout();
    let mut out = out.lock();
    let (mut single, mut double) = (0usize, 0usize);
    let seen = split::for_each_pair(&a, |p| {
        let mut edits = templates::snippet_edits(p.buggy, p.lang);
        let mut span = None;
        if a.localized {
            let Some(s) = split::changed_span(p.buggy, p.fixed) else { return Ok(false) };
            edits.retain(|e| split::within(p.buggy, e, s));
            span = Some(s);
        }
        if edits.is_empty() || squash(p.buggy) == squash(p.fixed) {
            return Ok(false);
        }
        let prior = order::order(&edits, &[], &LineWeights::Uniform);
        let mut rank = vec![0usize; edits.len()];
        for (r, &i) in prior.iter().enumerate() {
            rank[i] = r + 1;
        }
        let score = order::scores(&edits, &[], &LineWeights::Uniform);
        // The shipped order (`Patterns::repair`: the single edits, the pairs after them, with
        // a span of two or more lines the candidates that cover it first) and the fix's rank
        // in it.
        let ends = span.filter(|s| s.1 > s.0);
        let (two, covering) = pairs::two_edits(p.buggy, &edits, &score, 200, ends);
        let singles: Vec<&Edit> = prior.iter().map(|&i| &edits[i]).collect();
        let (shipped, _) = pairs::ends_first(singles, &two, covering, p.buggy, ends);
        let owned: Vec<Edit> = shipped.iter().map(|e| (*e).clone()).collect();
        let rank_shipped = templates::fixing_edit(p.buggy, p.fixed, &owned).map(|i| i + 1);
        let base = json!({"id": p.field("id"), "source": p.field("source"), "language": p.lang.as_str(),
            "edits": edits.len(), "lines": p.buggy.lines().count(), "rank_shipped": rank_shipped,
            "covering": covering});
        if let Some(i) = templates::fixing_edit(p.buggy, p.fixed, &edits) {
            single += 1;
            // Whether the same change could be made at another place on the fix's line (a
            // "twin"): how often a fix makes it once where it could make it twice.
            let e = &edits[i];
            let twin = edits
                .iter()
                .any(|o| o.line == e.line && (o.end <= e.start || e.end <= o.start) && pairs::same_change(o, e));
            let o = json!({"base": base, "kind": "single", "template": edits[i].template, "rank": rank[i],
                "twin_on_line": twin});
            writeln!(out, "{o}")?;
            return Ok(true);
        }
        let pairs = fixing_pairs(p.buggy, p.fixed, &edits);
        let Some(&(x, y)) = pairs.iter().min_by(|&&(a, b), &&(c, d)| {
            (score[c] * score[d])
                .total_cmp(&(score[a] * score[b]))
                .then((rank[a].max(rank[b])).cmp(&rank[c].max(rank[d])))
        }) else {
            return Ok(false);
        };
        double += 1;
        let (ex, ey) = (&edits[x], &edits[y]);
        let same_change = pairs::same_change(ex, ey);
        let o = json!({
            "base": base, "kind": "double", "fixing_pairs": pairs.len(),
            "templates": [ex.template, ey.template], "summaries": [ex.summary, ey.summary],
            "ranks": [rank[x], rank[y]], "same_line": ex.line == ey.line, "same_change": same_change,
            "line_gap": ey.line - ex.line,
            "rank_product": pairs_above(&score, score[x] * score[y]) + 1,
            "span": span, "ends": ends_rank(p.buggy, &edits, &score, span, (x, y)),
        });
        writeln!(out, "{o}")?;
        Ok(true)
    })?;
    eprintln!("records in split: {seen}; one edit fixes {single}; two edits fix {double} more");
    Ok(())
}
