use crate::common::{Scratch, records, stdout_json};

#[test]
fn index_search_inspect_verify_round_trip() {
    let s = Scratch::new();
    let corpus = s.corpus("c.jsonl", &records(120));
    let idx = s.path("idx.fdx");
    let stats = s.index(&corpus, &idx, &["--spaces", "code+cause,code"]);
    assert_eq!(stats["indexed"], 120);
    assert_eq!(stats["embedded"], 240);
    assert!(stats["snippets_per_second"].as_f64().unwrap() > 0.0);

    let docs = engine::testing::sample_records(120);
    let code = s.path("q.java");
    std::fs::write(&code, &docs[17].buggy_code).unwrap();
    let o = s.run(&[
        "search",
        idx.to_str().unwrap(),
        "--code",
        code.to_str().unwrap(),
        "--cause",
        &docs[17].root_cause,
        "-k",
        "3",
        "--json",
    ]);
    let out = stdout_json(&o);
    let hits = out["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 3);
    assert_eq!(hits[0]["id"], "test:17");
    assert_eq!(hits[0]["rank"], 1);
    assert!(hits[0]["diff"].as_str().unwrap().contains("+++ fixed"));

    // text output: rank, score, id, root cause and the diff
    let o = s.run(&[
        "search",
        idx.to_str().unwrap(),
        "--code",
        code.to_str().unwrap(),
        "--cause",
        &docs[17].root_cause,
        "-k",
        "1",
    ]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.starts_with("#1 score ")
            && text.contains("test:17")
            && text.contains("root cause:")
            && text.contains("@@"),
        "{text}"
    );

    let o = s.run(&[
        "search",
        idx.to_str().unwrap(),
        "--code",
        code.to_str().unwrap(),
        "--space",
        "code",
        "--exact",
        "--json",
    ]);
    assert_eq!(stdout_json(&o)["hits"][0]["id"], "test:17");

    let info = stdout_json(&s.run(&["inspect", idx.to_str().unwrap(), "--json"]));
    assert_eq!(info["documents"], 120);
    assert_eq!(info["spaces"].as_array().unwrap().len(), 2);
    assert_eq!(info["model"]["name"], "model");
    let v = stdout_json(&s.run(&["verify", idx.to_str().unwrap(), "--json"]));
    assert_eq!(v["ok"], true);
    assert_eq!(v["report"]["documents"], 120);
}

#[test]
fn filters_and_exclusions_from_the_cli() {
    let s = Scratch::new();
    let corpus = s.corpus("c.jsonl", &records(60));
    let idx = s.path("idx.fdx");
    let ex = s.path("exclude.txt");
    // `Proj2` is `proj2` (names compare case-insensitively); `project:proj9` and `test:999`
    // match nothing: each is warned about (a misspelt benchmark project would leak).
    std::fs::write(&ex, "# leakage control\ntest:5\nproject:Proj2\nproject:proj9\ntest:999\n").unwrap();
    let stats = s.index(&corpus, &idx, &["--exclude", ex.to_str().unwrap()]);
    assert_eq!(stats["excluded"], 20); // 20 in proj2, test:5 is in proj2 too
    assert_eq!(stats["unmatched_exclusions"], serde_json::json!(["project:proj9", "test:999"]));
    let o = s.run(&["index", corpus.to_str().unwrap(), "-o", idx.to_str().unwrap(), "--exclude", ex.to_str().unwrap()]);
    assert!(o.status.success(), "{}", crate::common::stderr(&o));
    for entry in ["project:proj9", "test:999"] {
        let warning = format!("warning: --exclude entry `{entry}` matches no row read: it excludes nothing");
        assert!(crate::common::stderr(&o).contains(&warning), "{}", crate::common::stderr(&o));
    }
    assert!(!crate::common::stderr(&o).contains("`test:5`"), "test:5 matched a row (excluded by its project too)");
    assert_eq!(stats["indexed"], 40);
    let report = std::fs::read_to_string(s.path("idx.fdx.report.jsonl")).unwrap();
    assert_eq!(report.lines().filter(|l| l.contains("\"excluded\"")).count(), 20);

    let code = s.path("q.py");
    std::fs::write(&code, "int f3(int[] a, int n) { return a - b; }").unwrap();
    let o = s.run(&[
        "search",
        idx.to_str().unwrap(),
        "--code",
        code.to_str().unwrap(),
        "--cause",
        "swapped",
        "--lang",
        "python",
        "--exclude-id",
        "test:3",
        "-k",
        "10",
        "--json",
    ]);
    let hits = stdout_json(&o)["hits"].as_array().unwrap().clone();
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|h| h["language"] == "python" && h["id"] != "test:3" && h["project"] != "proj2"));
    // the id in another form would exclude nothing: refused, naming the stored form
    let search = |id: &str| {
        let (idx, code) = (idx.to_str().unwrap(), code.to_str().unwrap());
        s.run(&["search", idx, "--code", code, "--cause", "swapped", "--exclude-id", id, "--json"])
    };
    let o = search("TEST:3");
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--exclude-id `TEST:3` matches no record id") && err.contains("`test:3`"), "{err}");
    // no record in any form: a warning, and the search goes on
    let o = search("nowhere:77");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("warning: --exclude-id nowhere:77 names no record"));
}

/// `index --precision bf16`: on a CPU with AVX512_BF16 the index answers like the f32 one
/// (same top hits for a stored record's own code and cause); elsewhere it fails with a
/// clear error and writes nothing.
#[test]
fn bf16_precision_index_answers_like_f32() {
    let s = Scratch::new();
    let corpus = s.corpus("c.jsonl", &records(60));
    let (f32_idx, bf16_idx) = (s.path("f32.fdx"), s.path("bf16.fdx"));
    s.index(&corpus, &f32_idx, &[]);
    let args = ["index", corpus.to_str().unwrap(), "-o", bf16_idx.to_str().unwrap(), "--precision", "bf16", "--json"];
    let o = s.run(&args);
    if !engine::embed::bf16::available() {
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains("AVX512_BF16"), "{err}");
        assert!(!bf16_idx.exists());
        return;
    }
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let docs = engine::testing::sample_records(60);
    let code = s.path("q.java");
    for row in [3usize, 17, 42] {
        std::fs::write(&code, &docs[row].buggy_code).unwrap();
        let ids = |idx: &std::path::Path| -> Vec<String> {
            s.exact_hits(idx, &code, &docs[row].root_cause, 3).into_iter().map(|h| h.0).collect()
        };
        let (a, b) = (ids(&f32_idx), ids(&bf16_idx));
        assert_eq!(a[0], format!("test:{row}"));
        assert_eq!(a[0], b[0], "row {row}: f32 {a:?} vs bf16 {b:?}");
    }
}

#[test]
fn rebuilding_replaces_the_index_atomically() {
    let s = Scratch::new();
    let idx = s.path("idx.fdx");
    s.index(&s.corpus("a.jsonl", &records(30)), &idx, &[]);
    s.index(&s.corpus("b.jsonl", &records(45)), &idx, &[]);
    assert_eq!(stdout_json(&s.run(&["inspect", idx.to_str().unwrap(), "--json"]))["documents"], 45);
    let names: Vec<String> = std::fs::read_dir(s.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.contains(".tmp-")), "{names:?}");
}

/// A reader that stops early (`fixdex inspect ... | head -1`) is not an error.
#[test]
fn closed_stdout_exits_quietly() {
    let s = Scratch::new();
    let idx = s.path("idx.fdx");
    s.index(&s.corpus("c.jsonl", &records(30)), &idx, &[]);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_fixdex"))
        .args(["inspect", idx.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // close the read end before fixdex writes
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !err.contains("panicked"), "{:?} {err}", out.status);
}
