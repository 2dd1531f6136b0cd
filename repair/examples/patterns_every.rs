//! Offline measurement for the every-occurrence edits (`templates::every_occurrence`, issue
//! 32): on the bug-fix pairs of a corpus (benchmarks skipped), how many fixes are one
//! template edit made at one place, and how many are one template's same change made at
//! every place it applies (two or more), per template; and, of the fixes made at one place,
//! how many had other places with the same change (where the every-occurrence edit competes
//! with the single one). It decides whether every-occurrence edits are worth a validation
//! and whether they go before or after the single edits of their template. No test run.
//!
//! `cargo run --release -p fixdex-repair --example patterns_every -- [--localized] [--split K/M]
//!  DATA.jsonl...`
//! A record is in the split when FNV-1a(id) mod M = K. Prints one JSON object of counts.
//! `--localized`: only the edits within the lines the fix changes (Defects4J's perfect
//! localization), and `ends_*`: the every-occurrence edits that change the span's first and
//! last lines (`pairs::covers`, the strategy's rule), and what trying them first would gain
//! and cost. Split 0/4, with the 27 templates of 56cd623: 14 fixes no single edit makes, 6
//! single-edit fixes delayed by 36 candidates in all (with 26 templates and the start and
//! end lines as the rule: 14, and 29); the shipped rule is the more general one of
//! `pairs.rs` (any two edits).
//!
//! Result (session 41, split 0/4 of mined_git_history, gitbug_java, manysstubs4j and
//! condefects: 8,157 pairs): 616 fixes are one template edit at one place, 22 more are one
//! change at every place (11 of them operators, 0 different methods); of the 616, 181 had
//! other places with the same change, so the single edit is the developers' choice 8 times
//! in 9; and the every-occurrence edits would add 295,105 candidates (36 a pair). So they
//! are not shipped: the function stays here, with the measurement that decided it.
use std::collections::{BTreeMap, HashMap, HashSet};

use repair::strategies::patterns::pairs;
use repair::strategies::patterns::templates::{self, Template};
use serde_json::json;
use templates::{Edit, squash};

#[path = "shared/split.rs"]
mod split;

/// Every-occurrence edits of `edits` (of `text`): for each set of two or more
/// non-overlapping edits of one template that make the same change (`original` →
/// `replacement`, whitespace aside) at different places, one edit that makes it at all of
/// them, spanning the first to the last (`start..end` of `text`), at the first one's line,
/// with `summary` "… (every occurrence, ×k)". A developer who fixes a wrong call or name
/// fixes each use of it (Defects4J Cli-27: `getOpt()` → `getKey()` in the condition and in
/// the assignment below it); the templates make one change at a time. In the input order of
/// each set's first member; sets whose members overlap give nothing.
fn every_occurrence(text: &str, edits: &[Edit]) -> Vec<Edit> {
    let mut sets: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut at: HashMap<(Template, String, String), usize> = HashMap::new();
    for (i, e) in edits.iter().enumerate() {
        if e.template == Template::Transplant || e.original.is_empty() {
            continue;
        }
        let key = (e.template, squash(&e.original), squash(&e.replacement));
        let slot = *at.entry(key).or_insert_with(|| {
            sets.push((i, Vec::new()));
            sets.len() - 1
        });
        sets[slot].1.push(i);
    }
    let mut out = Vec::new();
    for (_, mut members) in sets {
        members.sort_by_key(|&i| edits[i].start);
        members.dedup_by_key(|i| edits[*i].start);
        if members.len() < 2 || members.windows(2).any(|w| edits[w[0]].end > edits[w[1]].start) {
            continue;
        }
        let (first, last) = (&edits[members[0]], &edits[members[members.len() - 1]]);
        let mut replacement = String::new();
        let mut pos = first.start;
        for &i in &members {
            let e = &edits[i];
            let Some(between) = text.get(pos..e.start) else { break };
            replacement.push_str(between);
            replacement.push_str(&e.replacement);
            pos = e.end;
        }
        if pos != last.end {
            continue;
        }
        let Some(original) = text.get(first.start..last.end) else { continue };
        let summary = format!("{} (every occurrence, ×{})", first.summary, members.len());
        out.push(Edit {
            template: first.template,
            start: first.start,
            end: last.end,
            original: original.to_string(),
            replacement,
            line: first.line,
            summary,
            from: None,
        });
    }
    out
}

fn main() -> anyhow::Result<()> {
    let a = split::args()?;
    let (mut single, mut every) = (BTreeMap::<Template, usize>::new(), BTreeMap::<Template, usize>::new());
    let mut contested = BTreeMap::<Template, usize>::new();
    let mut offered = BTreeMap::<Template, usize>::new();
    // With `--localized`: the every-occurrence edits whose first and last places lie on the
    // first and last lines of a span of two or more lines (`ends`), and what putting them
    // first would gain (`ends_fixes`) and cost (`ends_before_single`: single-edit fixes
    // delayed, by `ends_delay` candidates in all).
    let (mut ends_offered, mut ends_fixes, mut ends_before_single, mut ends_delay) = (0usize, 0usize, 0usize, 0usize);
    let mut spans = 0usize;
    let seen = split::for_each_pair(&a, |p| {
        let (buggy, fixed) = (p.buggy, p.fixed);
        let mut edits = templates::snippet_edits(buggy, p.lang);
        let mut span = None;
        if a.localized {
            let Some(s) = split::changed_span(buggy, fixed) else { return Ok(false) };
            edits.retain(|e| split::within(buggy, e, s));
            span = Some(s);
            spans += 1;
        }
        let all = every_occurrence(buggy, &edits);
        let ends: Vec<usize> = match span {
            // The strategy's own rule (`pairs::covers`: the first and last changed lines).
            Some((first, last)) if last > first => {
                (0..all.len()).filter(|&i| pairs::covers(buggy, &all[i], (first, last))).collect()
            }
            _ => Vec::new(),
        };
        ends_offered += ends.len();
        let single_fix = templates::fixing_edit(buggy, fixed, &edits);
        if !ends.is_empty() {
            if single_fix.is_some() {
                ends_before_single += 1;
                ends_delay += ends.len();
            }
            let chosen: Vec<Edit> = ends.iter().map(|&i| all[i].clone()).collect();
            if single_fix.is_none() && templates::fixing_edit(buggy, fixed, &chosen).is_some() {
                ends_fixes += 1;
            }
        }
        for e in &all {
            *offered.entry(e.template).or_default() += 1;
        }
        if let Some(i) = single_fix {
            let e = &edits[i];
            *single.entry(e.template).or_default() += 1;
            let key = |t: Template, o: &str, r: &str| (t, templates::squash(o), templates::squash(r));
            let multi: HashSet<_> = all
                .iter()
                .filter_map(|a| edits.iter().find(|x| x.start == a.start && x.template == a.template))
                .map(|x| key(x.template, &x.original, &x.replacement))
                .collect();
            if multi.contains(&key(e.template, &e.original, &e.replacement)) {
                *contested.entry(e.template).or_default() += 1;
            }
        } else if let Some(j) = templates::fixing_edit(buggy, fixed, &all) {
            *every.entry(all[j].template).or_default() += 1;
        }
        Ok(true)
    })?;
    let total = |m: &BTreeMap<Template, usize>| m.values().sum::<usize>();
    println!(
        "{}",
        json!({
            "records": seen, "localized": a.localized, "with_span": spans,
            "ends_offered": ends_offered, "ends_fixes": ends_fixes,
            "ends_before_single": ends_before_single, "ends_delay": ends_delay,
            "single_edit_fixes": total(&single), "every_occurrence_fixes": total(&every),
            "single_with_other_places": total(&contested),
            "every_occurrence_edits_offered": total(&offered),
            "by_template": {
                "single": single, "every": every, "single_with_other_places": contested, "offered": offered,
            },
        })
    );
    Ok(())
}
