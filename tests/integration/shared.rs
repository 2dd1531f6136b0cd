//! On ../shared data (CI sets FIXDEX_SHARED=../shared; these fail, never skip, without it).

use std::path::PathBuf;

use crate::common::{fixdex, repo, stdout_json};

fn shared_dir() -> PathBuf {
    let dir = PathBuf::from(
        std::env::var_os("FIXDEX_SHARED").expect("set FIXDEX_SHARED=../shared to run the tests on shared data"),
    );
    let dir = if dir.is_relative() { repo().join(dir) } else { dir };
    assert!(dir.join("data").is_dir(), "FIXDEX_SHARED={} has no data/ folder", dir.display());
    dir
}

/// Defects4J (854 real bugs) with the real model: index, verify, self-retrieval at rank 1
/// for ≥ 99% of 200 sampled records, HNSW recall@10 ≥ 0.95 against exact search.
#[test]
fn shared_defects4j_index_verify_and_self_retrieval() {
    let data = shared_dir().join("data/defects4j.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("d4j.fdx");
    let model = repo().join("data/models/all-MiniLM-L6-v2");
    let stats =
        stdout_json(&fixdex(&["index", data.to_str().unwrap(), "-o", idx.to_str().unwrap(), "--json"], Some(&model)));
    assert_eq!(stats["records_read"], 854);
    assert_eq!(stats["skipped"], 0);
    let indexed = stats["indexed"].as_u64().unwrap();
    assert!(indexed > 800, "{stats}");
    let v = stdout_json(&fixdex(&["verify", idx.to_str().unwrap(), "--json"], None));
    assert_eq!(v["report"]["documents"], indexed);
    let e = stdout_json(&fixdex(&["eval", idx.to_str().unwrap(), "--n", "200", "--json"], Some(&model)));
    assert!(e["self_rank1_or_tie"].as_f64().unwrap() >= 0.99, "{e}");
    assert!(e["recall10"].as_f64().unwrap() >= 0.95, "{e}");
}
