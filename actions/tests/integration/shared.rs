//! The shared corpus (FIXDEX_SHARED=../shared): every record of a sample classifies without
//! a panic, and a non-trivial share gets a label other than OTHER. Fails (never skips) when
//! FIXDEX_SHARED is unset or the data is missing.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use actions::{ActionKind, Language, classify};
use serde_json::Value;

/// `rel` under the shared folder; panics with what to set when it is missing.
fn shared_path(rel: &str) -> PathBuf {
    let dir = std::env::var_os("FIXDEX_SHARED")
        .map(PathBuf::from)
        .expect("set FIXDEX_SHARED=../shared to run the tests on shared data");
    let from_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(&dir);
    let dir = if dir.is_dir() { dir } else { from_root };
    let path = dir.join(rel);
    assert!(path.exists(), "{} is missing: FIXDEX_SHARED must name the shared folder holding {rel}", path.display());
    path
}

/// Every `step`-th record of a data file: (language, buggy, fixed).
fn sample(file: &str, step: usize) -> Vec<(Language, String, String)> {
    let f = std::fs::File::open(shared_path(&format!("data/{file}"))).expect("readable data file");
    let lines = std::io::BufReader::new(f).lines().map(|l| l.expect("utf-8 line"));
    let rec = |l: String| {
        let v: Value = serde_json::from_str(&l).expect("a JSON record");
        let s = |k: &str| v[k].as_str().unwrap_or("").to_string();
        (Language::from_str(&s("language")).expect("java or python"), s("buggy_code"), s("fixed_code"))
    };
    lines.step_by(step).map(rec).collect()
}

#[test]
fn shared_corpus_sample_classifies_with_many_labels() {
    let mut recs = sample("defects4j.jsonl", 2);
    recs.extend(sample("bugsinpy.jsonl", 2));
    recs.extend(sample("mined_git_history.jsonl", 20));
    assert!(recs.len() > 1000, "only {} records sampled", recs.len());
    let labelled = recs.iter().filter(|(lang, a, b)| classify(a, b, *lang).label != ActionKind::Other).count();
    let share = labelled as f64 / recs.len() as f64;
    // About half the harness corpus is OTHER by the independent labeller too.
    assert!(share > 0.3, "only {labelled} of {} records labelled", recs.len());
    for lang in [Language::Java, Language::Python] {
        assert!(recs.iter().any(|r| r.0 == lang), "no {lang:?} record in the sample");
    }
}
