//! `classify` and `explain` never panic: on arbitrary strings, and on real code with random
//! byte-level damage (where parse errors, odd Unicode and half tokens meet the matcher).
//! Seeds are fixed; `FIXDEX_FUZZ_CASES=N` runs more cases.

use actions::{ActionKind, Language, classify, explain};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};

pub(crate) fn runner(default_cases: u32) -> TestRunner {
    let cases = std::env::var("FIXDEX_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(default_cases);
    TestRunner::new(Config { cases, rng_seed: RngSeed::Fixed(11), failure_persistence: None, ..Config::default() })
}

fn language() -> impl Strategy<Value = Language> {
    prop_oneof![Just(Language::Java), Just(Language::Python)]
}

pub(crate) const JAVA: &str = "public int f(int[] xs, String s) {\n  int n = 0;\n  for (int i = 0; i < xs.length; i++) {\n    if (s != null && xs[i] > 0) { n += xs[i]; }\n  }\n  try { g(s.trim(), n); } catch (Exception e) { return -1; }\n  return n;\n}\n";
pub(crate) const PYTHON: &str = "def f(xs, s=None):\n    n = 0\n    for i in range(len(xs)):\n        if s is not None and xs[i] > 0:\n            n += xs[i]\n    try:\n        g(s.strip(), n)\n    except ValueError:\n        return -1\n    return n\n";

/// `base` with a few random byte ranges replaced by random text.
pub(crate) fn damaged(base: &'static str) -> impl Strategy<Value = String> {
    let edit = (0..base.len(), 0usize..6, "[ -~\\n\\t{}();é\u{200b}]{0,8}");
    proptest::collection::vec(edit, 0..4).prop_map(move |edits| {
        let mut s = base.to_string();
        for (at, len, with) in edits {
            let at = (0..=at.min(s.len())).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
            let end = (at + len).min(s.len());
            let end = (end..=s.len()).find(|&i| s.is_char_boundary(i)).unwrap_or(s.len());
            s.replace_range(at..end, &with);
        }
        s
    })
}

#[test]
fn arbitrary_strings_never_panic() {
    runner(256)
        .run(&(any::<String>(), any::<String>(), language()), |(a, b, lang)| {
            let c = classify(&a, &b, lang);
            prop_assert!(c.label == ActionKind::Other || !c.actions.is_empty());
            let _ = explain(&a, &b, lang);
            Ok(())
        })
        .unwrap();
}

#[test]
fn damaged_code_never_panics() {
    let pairs = prop_oneof![
        (damaged(JAVA), damaged(JAVA), Just(Language::Java)),
        (damaged(PYTHON), damaged(PYTHON), Just(Language::Python)),
    ];
    runner(256)
        .run(&pairs, |(a, b, lang)| {
            let c = classify(&a, &b, lang);
            for action in &c.actions {
                prop_assert!(action.buggy_lines.0 <= action.buggy_lines.1, "{action:?}");
                prop_assert!(action.fixed_lines.0 <= action.fixed_lines.1, "{action:?}");
                prop_assert!(action.before.chars().count() <= actions::Action::MAX_TOKENS_CHARS);
                let _ = action.to_string();
            }
            Ok(())
        })
        .unwrap();
}
