//! Issue 8, search side: free text that starts with `-`, empty and invisible queries,
//! damaged indexes at search time, unbounded inputs, the index's embedding rule on the
//! query side, `eval` output, filters that match nothing, and project identity in
//! `--exclude-project`.

use crate::common::{Scratch, record, records, stderr, stdout_json};

fn code(o: &std::process::Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

/// A scratch folder with a 30-record index and a query file holding record 7's code.
fn indexed() -> (Scratch, std::path::PathBuf, std::path::PathBuf) {
    let s = Scratch::new();
    let idx = s.path("idx.fdx");
    s.index(&s.corpus("c.jsonl", &records(30)), &idx, &[]);
    let q = s.path("q.java");
    std::fs::write(&q, &engine::testing::sample_records(30)[7].buggy_code).unwrap();
    (s, idx, q)
}

/// Issue 8 item 1: a root cause that starts with a markdown bullet is a value, not a flag.
#[test]
fn issue_8_cause_starting_with_a_hyphen_is_accepted() {
    let (s, idx, q) = indexed();
    for cause in ["- Fix issue #19", "-x", "--not-a-flag"] {
        let o = s.run(&["search", idx.to_str().unwrap(), "--code", q.to_str().unwrap(), "--cause", cause, "--json"]);
        assert_eq!(stdout_json(&o)["hits"].as_array().unwrap().len(), 5, "{cause}");
    }
    let o =
        s.run(&["search", idx.to_str().unwrap(), "--code", q.to_str().unwrap(), "--exclude-project", "-p", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Issue 8 item 1: commands and test names that start with `-` reach `repair` (which then
/// fails for another reason: the project does not exist).
#[test]
fn issue_8_repair_commands_starting_with_a_hyphen_are_accepted() {
    let s = Scratch::new();
    let missing = s.path("no-such-project");
    let o = s.run(&[
        "repair",
        "--project",
        missing.to_str().unwrap(),
        "--file",
        "A.java",
        "--test-cmd",
        "-x",
        "--build-cmd",
        "--weird build",
        "--failing-test",
        "-t",
        "--sbfl-pytest-args",
        "-k test_x",
        "--replay",
        s.path("none.jsonl").to_str().unwrap(),
    ]);
    let err = stderr(&o);
    assert_ne!(code(&o), 2, "refused as a usage error: {err}");
    assert!(!err.contains("unexpected argument"), "{err}");
}

/// `fixdex search IDX --code FILE --cause CAUSE EXTRA...` with the tiny model.
fn search(
    s: &Scratch,
    idx: &std::path::Path,
    code: &std::path::Path,
    cause: &str,
    extra: &[&str],
) -> std::process::Output {
    let mut args = vec!["search", idx.to_str().unwrap(), "--code", code.to_str().unwrap(), "--cause", cause];
    args.extend_from_slice(extra);
    s.run(&args)
}

/// Issue 8 item 5: `--code /dev/null --cause ""`, whitespace-only code and code made only
/// of zero-width, control or combining characters are refused with a clear error; so is a
/// blank cause in the cause space.
#[test]
fn issue_8_empty_and_invisible_queries_are_refused() {
    let (s, idx, _) = indexed();
    let blank = s.path("blank.java");
    for (text, cause) in [
        ("", ""),
        ("   \n\t\n", "a cause"),
        ("\u{200B}\u{200B}\u{200B}", "a cause"),
        ("\u{0007}\u{0001}\u{007F}", ""),
        ("\u{0301}\u{0301}\u{20DD}", "a cause"),
        ("\u{FEFF}\u{2060}\u{200D}", "a cause"),
    ] {
        std::fs::write(&blank, text).unwrap();
        let o = search(&s, &idx, &blank, cause, &["--json"]);
        assert_eq!(code(&o), 1, "{text:?}: {}", String::from_utf8_lossy(&o.stdout));
        let err = stderr(&o);
        assert!(err.contains("--code") && err.contains("empty query: the code+cause space needs code"), "{err}");
        // `--json`: no hits, the error as one object.
        let answer: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(answer.get("hits").is_none() && answer["ok"] == false && answer["exit"] == 1, "{text:?}: {answer}");
    }
    let o = s.run(&["search", idx.to_str().unwrap(), "--code", "/dev/null", "--cause", ""]);
    assert_eq!(code(&o), 1);
    let o = s.run(&["search", idx.to_str().unwrap(), "--space", "cause", "--cause", " \u{200B} "]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("the cause space needs root cause"), "{}", stderr(&o));
}

/// Issue 8 item 5: a record searched with its own code and cause scores at most 1.
#[test]
fn issue_8_exact_duplicate_scores_at_most_one() {
    let (s, idx, q) = indexed();
    let docs = engine::testing::sample_records(30);
    for extra in [&["--exact"][..], &[], &["--no-int8"]] {
        let mut args = vec!["--json"];
        args.extend_from_slice(extra);
        let hits = stdout_json(&search(&s, &idx, &q, &docs[7].root_cause, &args))["hits"].clone();
        assert_eq!(hits[0]["id"], "test:7");
        let top = hits[0]["score"].as_f64().unwrap();
        assert!(top > 0.9999 && top <= 1.0, "{extra:?}: {top}");
    }
}

/// Replaces each component `x` of vector `row` in the first vectors section of `idx` by
/// `f(x)`.
fn damage(s: &Scratch, idx: &std::path::Path, row: usize, f: impl Fn(f32) -> f32) {
    let info = stdout_json(&s.run(&["inspect", idx.to_str().unwrap(), "--json"]));
    let dim = info["model"]["dim"].as_u64().unwrap() as usize;
    let sections = info["sections"].as_array().unwrap();
    let vectors = sections.iter().find(|x| x["kind"] == "vectors").unwrap();
    let start = vectors["offset"].as_u64().unwrap() as usize + row * dim * 4;
    let mut bytes = std::fs::read(idx).unwrap();
    for c in bytes[start..start + dim * 4].chunks_exact_mut(4) {
        let x = f32::from_le_bytes(c.try_into().unwrap());
        c.copy_from_slice(&f(x).to_le_bytes());
    }
    std::fs::write(idx, bytes).unwrap();
}

/// Issue 8 item 6: a vector set to NaN, or scaled by 1e30, inside the index: `search`
/// exits 3 (as `verify` does) naming the file and `fixdex verify`, on the int8 (rerank),
/// f32 and exact paths and through a manifest, instead of ranking the document with a
/// score of null or 1e29.
#[test]
fn issue_8_damaged_vector_at_search_time_exits_3() {
    let docs = engine::testing::sample_records(30);
    for value in [f32::NAN, 1e30] {
        let (s, idx, q) = indexed();
        let manifest = s.path("m.json");
        assert!(s.run(&["manifest", idx.to_str().unwrap(), "-o", manifest.to_str().unwrap()]).status.success());
        damage(&s, &idx, 7, |x| x * value);
        assert_eq!(code(&s.run(&["verify", idx.to_str().unwrap()])), 3);
        for (target, extra) in
            [(&idx, &[][..]), (&idx, &["--no-int8"]), (&idx, &["--exact"]), (&manifest, &["--exact"])]
        {
            let mut args = vec!["--json", "--threshold", "0.2"];
            args.extend_from_slice(extra);
            let o = search(&s, target, &q, &docs[7].root_cause, &args);
            let err = stderr(&o);
            if value.is_nan() && extra == ["--no-int8"] && o.status.success() {
                // f32 graph traversal never steps onto a NaN node: nothing damaged is ranked.
                let hits = stdout_json(&o)["hits"].clone();
                assert!(hits.as_array().unwrap().iter().all(|h| h["id"] != "test:7" && h["score"].is_f64()));
                continue;
            }
            assert_eq!(code(&o), 3, "{value} {extra:?}: {}", String::from_utf8_lossy(&o.stdout));
            assert!(err.contains("damaged index") && err.contains("idx.fdx") && err.contains("fixdex verify"), "{err}");
        }
    }
}

/// Issue 8 item 14: code from `/dev/zero`, or more than 1 MiB on stdin or in a file, is
/// refused at the limit (naming the input and the limit), never read to the end.
#[test]
fn issue_8_query_input_is_capped() {
    let (s, idx, _) = indexed();
    let t = std::time::Instant::now();
    let o = s.run(&["search", idx.to_str().unwrap(), "--code", "/dev/zero", "--cause", "c"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("--code /dev/zero is longer than 1048576 bytes (1 MiB)"), "{}", stderr(&o));
    assert!(t.elapsed() < std::time::Duration::from_secs(60));
    let big = s.path("big.java");
    std::fs::write(&big, "x".repeat((1 << 20) + 1)).unwrap();
    let o = search(&s, &idx, &big, "c", &[]);
    assert!(stderr(&o).contains("big.java is longer than 1048576 bytes"), "{}", stderr(&o));
    let just = s.path("just.java");
    std::fs::write(&just, format!("int f() {{ {} }}", " ".repeat((1 << 20) - 12))).unwrap();
    assert!(search(&s, &idx, &just, "c", &[]).status.success(), "exactly 1 MiB is accepted");

    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_fixdex"))
        .args(["search", idx.to_str().unwrap(), "--code", "-", "--cause", "c"])
        .env("FIXDEX_MODEL", s.model())
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // The reader stops at the limit, so this write may end with a broken pipe.
    let _ = std::io::Write::write_all(&mut stdin, &vec![b'a'; 3 << 20]);
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("--code - (standard input) is longer than 1048576 bytes"), "{}", stderr(&o));
}

/// Issue 8 item 16: an index built with `--cause-max-tokens 32` composes queries with 32
/// too, so a record's own code and long cause find it at rank 1 with score ~1.
#[test]
fn issue_8_query_uses_the_index_cause_budget() {
    let s = Scratch::new();
    let long = "the loop bound is off by one for the last index of the array ".repeat(4);
    let lines: Vec<String> = engine::testing::sample_records(24)
        .iter()
        .map(|r| record(&r.id, "java", &r.buggy_code, &r.fixed_code, &format!("{} {long}", r.root_cause)))
        .collect();
    let idx = s.path("c32.fdx");
    s.index(&s.corpus("c.jsonl", &lines), &idx, &["--cause-max-tokens", "32"]);
    let docs = engine::testing::sample_records(24);
    let q = s.path("q.java");
    for d in [2, 9, 21] {
        std::fs::write(&q, &docs[d].buggy_code).unwrap();
        let hits = s.exact_hits(&idx, &q, &format!("{} {long}", docs[d].root_cause), 3);
        assert_eq!(hits[0].0, docs[d].id);
        assert!(hits[0].1 > 0.9999, "{} scores {}", docs[d].id, hits[0].1);
    }
}

/// Issue 8 item 17: `eval` prints a table by default and one JSON object with `--json`.
#[test]
fn issue_8_eval_prints_a_table_unless_json() {
    let (s, idx, _) = indexed();
    let o = s.run(&["eval", idx.to_str().unwrap(), "--n", "10"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(serde_json::from_str::<serde_json::Value>(&text).is_err(), "{text}");
    assert!(text.contains("self rank 1") && text.contains("recall@10") && text.contains("queries/s"), "{text}");
    let j = stdout_json(&s.run(&["eval", idx.to_str().unwrap(), "--n", "10", "--json"]));
    assert_eq!(j["n"], 10);
    assert_eq!(j["self_rank1"], 1.0);
}

/// Issue 10: `fixdex eval retrieval INDEX` is the same check as `fixdex eval INDEX` (the
/// older spelling, kept): the same report for the same sample.
#[test]
fn issue_10_eval_retrieval_is_eval_index() {
    let (s, idx, _) = indexed();
    let run = |args: &[&str]| {
        let mut j = stdout_json(&s.run(&[args, &[idx.to_str().unwrap(), "--n", "10", "--json"]].concat()));
        for speed in ["hnsw_qps", "exact_qps", "embed_queries_per_s"] {
            j.as_object_mut().unwrap().remove(speed);
        }
        j
    };
    let new = run(&["eval", "retrieval"]);
    assert_eq!(new, run(&["eval"]));
    assert_eq!((new["n"].as_u64(), new["self_rank1"].as_f64()), (Some(10), Some(1.0)), "{new}");
    // Without INDEX and without a subcommand: a usage error naming the index.
    let o = s.run(&["eval"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("<INDEX>"), "{}", stderr(&o));
}

/// A 24-record index over the given projects (record i in `projects[i % len]`).
fn project_index(s: &Scratch, projects: &[&str]) -> std::path::PathBuf {
    let lines: Vec<String> = records(24)
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["project"] = projects[i % projects.len()].into();
            v.to_string()
        })
        .collect();
    let idx = s.path("p.fdx");
    s.index(&s.corpus("p.jsonl", &lines), &idx, &[]);
    idx
}

/// Issue 8 item 17: `--project lang` on an index whose project is `Lang` (or `--lang` with a
/// language it lacks) is a usage error (exit 2) naming the closest names; an
/// `--exclude-project` that matches nothing is a warning.
#[test]
fn issue_8_filters_that_match_nothing_say_so() {
    let s = Scratch::new();
    let idx = project_index(&s, &["Lang", "Math", "netty/netty"]);
    let q = s.path("q.java");
    std::fs::write(&q, "int f() { return a - b; }").unwrap();
    let o = search(&s, &idx, &q, "c", &["--project", "lang"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("--project `lang` matches no project in the index; did you mean `Lang`?"),
        "{}",
        stderr(&o)
    );
    let o = search(&s, &idx, &q, "c", &["--lang", "jaba"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("did you mean `java`?"), "{}", stderr(&o));
    let o = search(&s, &idx, &q, "c", &["--exclude-project", "Closure", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning: --exclude-project Closure matches no project in the index"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stdout_json(&o)["exclude_projects"], serde_json::json!([{"given": "Closure", "matched": []}]));
}

/// Issue 8 item 18: `--exclude-project Closure` also drops `google/closure-compiler` (and
/// the other way round, in any case or as a GitHub URL); `--json` lists what it matched.
#[test]
fn issue_8_exclude_project_drops_the_upstream_repository() {
    let s = Scratch::new();
    let idx = project_index(&s, &["Closure", "google/closure-compiler", "netty/netty"]);
    let q = s.path("q.java");
    std::fs::write(&q, "int f3(int[] a, int n) { return a - b; }").unwrap();
    let all = stdout_json(&search(&s, &idx, &q, "swapped", &["--exact", "-k", "24", "--json"]));
    assert_eq!(all["hits"].as_array().unwrap().len(), 24);
    for given in ["Closure", "google/closure-compiler", "https://github.com/google/closure-compiler.git", "closure"] {
        let o = stdout_json(&search(
            &s,
            &idx,
            &q,
            "swapped",
            &["--exact", "-k", "24", "--json", "--exclude-project", given],
        ));
        let hits = o["hits"].as_array().unwrap();
        assert_eq!(hits.len(), 8, "{given}");
        assert!(hits.iter().all(|h| h["project"] == "netty/netty"), "{given}: {hits:?}");
        let want = serde_json::json!([{"given": given, "matched": ["Closure", "google/closure-compiler"]}]);
        assert_eq!(o["exclude_projects"], want);
    }
}

/// Overwrites the bytes of the first section of kind `kind` (on `level`) of `idx` with
/// `f(i, old)` for each 4-byte little-endian word `i` (or each byte, for `width` 1).
fn damage_section(
    s: &Scratch,
    idx: &std::path::Path,
    kind: &str,
    level: u64,
    width: usize,
    f: impl Fn(usize, u64) -> u64,
) {
    let info = stdout_json(&s.run(&["inspect", idx.to_str().unwrap(), "--json"]));
    let sections = info["sections"].as_array().unwrap();
    let sec = sections.iter().find(|x| x["kind"] == kind && x["level"] == level).unwrap_or_else(|| panic!("{info:#}"));
    let (start, len) = (sec["offset"].as_u64().unwrap() as usize, sec["len"].as_u64().unwrap() as usize);
    let mut bytes = std::fs::read(idx).unwrap();
    for (i, w) in bytes[start..start + len].chunks_exact_mut(width).enumerate() {
        let mut old = [0u8; 8];
        old[..width].copy_from_slice(w);
        let new = f(i, u64::from_le_bytes(old)).to_le_bytes();
        w.copy_from_slice(&new[..width]);
    }
    std::fs::write(idx, bytes).unwrap();
}

/// Issue 29: damage a search can detect cheaply is an error (exit 3, naming the index and
/// `fixdex verify`), never an answer that silently lacks hits: neighbour ids out of range
/// or decreasing offsets in the graph the search walks, and a damaged language or project
/// table under a filter (before: 1 of 5 hits, or 0 hits with `--lang java`, exit 0).
#[test]
fn issue_29_damaged_graph_or_tables_at_search_time_exit_3() {
    let cause = engine::testing::sample_records(30)[7].root_cause.clone();
    type Damage = (&'static str, usize, fn(usize, u64) -> u64, &'static [&'static str]);
    let cases: [Damage; 4] = [
        ("graph-neighbors", 4, |_, _| 0xFFFF_FF00, &["--no-int8"]),
        ("graph-offsets", 8, |i, old| if i == 1 { 1 << 40 } else { old }, &[]),
        ("doc-language", 1, |_, _| 7, &["--lang", "java"]),
        ("doc-project", 4, |_, old| old ^ 1, &["--exclude-project", "p0"]),
    ];
    for (kind, width, f, extra) in cases {
        let (s, idx, q) = indexed();
        assert!(search(&s, &idx, &q, &cause, extra).status.success(), "{kind}: intact first");
        damage_section(&s, &idx, kind, 0, width, f);
        assert_eq!(code(&s.run(&["verify", idx.to_str().unwrap()])), 3, "{kind}");
        let o = search(&s, &idx, &q, &cause, &[&["--json"], extra].concat());
        let err = stderr(&o);
        assert_eq!(code(&o), 3, "{kind}: {}", String::from_utf8_lossy(&o.stdout));
        assert!(err.contains("damaged index") && err.contains("idx.fdx") && err.contains("fixdex verify"), "{err}");
    }
}
