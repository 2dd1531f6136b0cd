//! The quickstart path: the real model over the bundled sample corpus.

use crate::common::{fixdex, repo, stdout_json};

#[test]
fn sample_corpus_indexes_and_answers_its_own_bugs() {
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("sample.fdx");
    let model = repo().join("data/models/all-MiniLM-L6-v2");
    assert!(model.is_dir(), "run scripts/fetch-model.sh first (CI does)");
    let sample = repo().join("data/sample/sample.jsonl");
    let o = fixdex(
        &["index", sample.to_str().unwrap(), "-o", idx.to_str().unwrap(), "--spaces", "code+cause,code", "--json"],
        Some(&model),
    );
    let stats = stdout_json(&o);
    assert!(stats["indexed"].as_u64().unwrap() >= 100);
    assert_eq!(stats["skipped"], 0);

    // Self-retrieval: each record's own code and root cause finds it at rank 1.
    let text = std::fs::read_to_string(&sample).unwrap();
    let recs: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for r in recs.iter().step_by(9) {
        let q = dir.path().join("q.txt");
        std::fs::write(&q, r["buggy_code"].as_str().unwrap()).unwrap();
        let o = fixdex(
            &[
                "search",
                idx.to_str().unwrap(),
                "--code",
                q.to_str().unwrap(),
                "--cause",
                r["root_cause"].as_str().unwrap(),
                "-k",
                "1",
                "--json",
            ],
            Some(&model),
        );
        assert_eq!(stdout_json(&o)["hits"][0]["id"], r["id"]);
    }
}

#[test]
fn sample_queries_find_a_fix_of_the_same_kind() {
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("sample.fdx");
    let model = repo().join("data/models/all-MiniLM-L6-v2");
    let sample = repo().join("data/sample/sample.jsonl");
    stdout_json(&fixdex(&["index", sample.to_str().unwrap(), "-o", idx.to_str().unwrap(), "--json"], Some(&model)));
    let q = repo().join("data/sample/queries/ResourceLeak.java");
    let o = fixdex(
        &[
            "search",
            idx.to_str().unwrap(),
            "--code",
            q.to_str().unwrap(),
            "--cause",
            "The BufferedReader is never closed, so every call leaks a file handle until the process runs out of descriptors.",
            "-k",
            "5",
            "--json",
        ],
        Some(&model),
    );
    let hits = stdout_json(&o)["hits"].as_array().unwrap().clone();
    assert_eq!(hits.len(), 5);
    let same_kind = hits.iter().filter(|h| h["meta"]["category"] == "resource-leak").count();
    assert!(same_kind >= 3, "{hits:#?}");
}

/// Issue 31: `fixdex index` with stderr redirected to a file (a batch job's log) writes
/// plain progress lines there, every `FIXDEX_PROGRESS_INTERVAL_MS` (10 s by default; short
/// here); `--quiet` writes none.
#[test]
fn issue_31_index_prints_progress_lines_when_stderr_is_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let model = repo().join("data/models/all-MiniLM-L6-v2");
    assert!(model.is_dir(), "run scripts/fetch-model.sh first (CI does)");
    let sample = repo().join("data/sample/sample.jsonl");
    let run = |name: &str, quiet: bool| {
        let log = dir.path().join(format!("{name}.log"));
        let idx = dir.path().join(format!("{name}.fdx"));
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_fixdex"));
        c.args(["index", sample.to_str().unwrap(), "-o", idx.to_str().unwrap()]).args(quiet.then_some("--quiet"));
        c.env_remove("RUST_LOG").env("FIXDEX_MODEL", &model).env("FIXDEX_PROGRESS_INTERVAL_MS", "20");
        let status = c.stdout(std::process::Stdio::null()).stderr(std::fs::File::create(&log).unwrap()).status();
        assert!(status.unwrap().success(), "{}", std::fs::read_to_string(&log).unwrap());
        std::fs::read_to_string(&log).unwrap()
    };
    let log = run("lines", false);
    let progress: Vec<&str> = log.lines().filter(|l| l.starts_with("indexing: ")).collect();
    assert!(!progress.is_empty(), "no progress line in:\n{log}");
    let embedding = progress.iter().find(|l| l.starts_with("indexing: embedding code+cause ")).expect(&log);
    assert!(embedding.contains(" records (") && embedding.contains(" rec/s"), "{embedding}");
    assert!(!log.contains('\r') && !log.contains('\u{1b}'), "no bar drawing in a file: {log:?}");
    assert!(!run("quiet", true).contains("indexing: "));
}
