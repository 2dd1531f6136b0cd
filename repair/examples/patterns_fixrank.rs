//! Where the developer's fix lies in the patterns strategy's whole candidate list, with no
//! test run: every candidate of `--strategy patterns --no-retrieval` under perfect
//! localization (`repair::strategies::patterns::perfect_localization_candidates`: the order
//! `Patterns::repair` validates them in at a 200-validation budget, the single edits past it
//! included), applied to the buggy file and graded against the developer's fixed file ([`repair::bench::grade`]).
//! Prints one JSON line: how many candidates there are and the 1-based ranks of those graded
//! `exact` or `ast` (empty when no candidate is the fix). Issue 32: which unfixed Defects4J
//! bugs miss their fix by the budget (a rank past it) and which by the templates (no rank).
//!
//! `cargo run --release --workspace --example patterns_fixrank -- BUGGY FIXED FIRST LAST [PROJECT]`
//!
//! `PROJECT` is the buggy checkout's root (the project's classes, as the strategy scans
//! them). Java only. An insertion point (lines holding no statement) is widened to the
//! statement after it, as the strategy does. A rank counts candidates, not validations: the
//! strategy skips, unvalidated, those javac would refuse where the syntax tree tells.
use repair::Language;
use repair::bench::grade::grade;
use repair::strategies::patterns::{perfect_localization_candidates, templates};

/// The budget the pairs are made for (`--max-validations 200`, the issue's).
const BUDGET: usize = 200;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, buggy, fixed, first, last, rest @ ..] = args.as_slice() else {
        eprintln!("usage: patterns_fixrank BUGGY FIXED FIRST LAST [PROJECT]");
        std::process::exit(2);
    };
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{p}: {e}"));
    let (text, developer) = (read(buggy), read(fixed));
    let lang = Language::Java;
    let lines: (usize, usize) = (first.parse().expect("FIRST"), last.parse().expect("LAST"));
    let project =
        rest.first().map(|root| templates::ProjectTypes::scan(std::path::Path::new(root))).unwrap_or_default();
    let candidates = perfect_localization_candidates(&text, lang, lines, &project, BUDGET);
    let mut fixes = Vec::new();
    for (rank, e) in candidates.iter().enumerate() {
        let patched = e.applied(&text);
        let tier = grade(&patched, &developer, Some(lang));
        if tier.correct() {
            fixes.push(
                serde_json::json!({"rank": rank + 1, "tier": tier, "template": e.template, "summary": e.summary}),
            );
        }
    }
    let widened = templates::insertion_point(&text, lang, lines);
    println!(
        "{}",
        serde_json::json!({"lines": widened.unwrap_or(lines), "widened": widened.is_some(), "candidates": candidates.len(), "fixes": fixes})
    );
}
