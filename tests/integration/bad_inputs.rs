//! Issue 2's list of bad inputs: each gets a clear error, and no data is lost.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{Scratch, fixdex, record, records, repo, stderr, stdout_json};

fn code(o: &std::process::Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

#[test]
fn empty_corpus_file_is_an_error_and_writes_nothing() {
    let s = Scratch::new();
    let corpus = s.corpus("empty.jsonl", &[]);
    let idx = s.path("idx.fdx");
    let o = s.run(&["index", corpus.to_str().unwrap(), "-o", idx.to_str().unwrap()]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("no valid records") && stderr(&o).contains("empty.jsonl"), "{}", stderr(&o));
    assert!(!idx.exists());
}

fn mixed_corpus(s: &Scratch) -> std::path::PathBuf {
    let mut lines = records(6);
    lines.insert(2, "{\"id\": \"broken\", \"buggy_code\": ".to_string()); // line 3
    lines.insert(4, record("nobug", "java", "", "x", "c").replace("\"buggy_code\":\"\",", "")); // line 5: missing
    lines.insert(5, record("emptybug", "java", "", "int x;", "c")); // line 6: empty
    s.corpus("mixed.jsonl", &lines)
}

#[test]
fn malformed_line_aborts_naming_the_row() {
    let s = Scratch::new();
    let corpus = mixed_corpus(&s);
    let idx = s.path("idx.fdx");
    let o = s.run(&["index", corpus.to_str().unwrap(), "-o", idx.to_str().unwrap()]);
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert!(err.contains("mixed.jsonl:3") && err.contains("--on-error skip"), "{err}");
    assert!(!idx.exists());
}

#[test]
fn skip_reports_every_bad_row_and_indexes_the_rest() {
    let s = Scratch::new();
    let corpus = mixed_corpus(&s);
    let idx = s.path("idx.fdx");
    let stats = s.index(&corpus, &idx, &["--on-error", "skip"]);
    assert_eq!(stats["records_read"], 9);
    assert_eq!(stats["skipped"], 3);
    assert_eq!(stats["indexed"], 6);
    let report: Vec<serde_json::Value> = std::fs::read_to_string(s.path("idx.fdx.report.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let rows: Vec<(u64, String)> =
        report.iter().map(|r| (r["row"].as_u64().unwrap(), r["field"].as_str().unwrap().to_string())).collect();
    assert_eq!(rows, vec![(3, "<json>".into()), (5, "buggy_code".into()), (6, "buggy_code".into())]);
}

#[test]
fn non_utf8_bytes_name_the_row() {
    let s = Scratch::new();
    let p = s.path("latin1.jsonl");
    let mut bytes = records(2).join("\n").into_bytes();
    bytes.extend_from_slice(
        b"\n{\"id\": \"caf\xe9\", \"language\": \"java\", \"buggy_code\": \"x\", \"fixed_code\": \"y\"}\n",
    );
    std::fs::write(&p, bytes).unwrap();
    let idx = s.path("idx.fdx");
    let o = s.run(&["index", p.to_str().unwrap(), "-o", idx.to_str().unwrap()]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("latin1.jsonl:3") && stderr(&o).contains("UTF-8"), "{}", stderr(&o));
    let stats = s.index(&p, &idx, &["--on-error", "skip"]);
    assert_eq!((stats["indexed"].as_u64(), stats["skipped"].as_u64()), (Some(2), Some(1)));
}

#[test]
fn huge_function_and_huge_root_cause_are_truncated_not_rejected() {
    let s = Scratch::new();
    let mut big = String::from("void f() {\n");
    while big.len() < 200_000 {
        big.push_str("  a = a + 1;\n");
    }
    let cause = "word ".repeat(10_000);
    let mut lines = records(5);
    lines.push(record("big", "java", &big, "void f() {}", &cause));
    let idx = s.path("idx.fdx");
    let stats = s.index(&s.corpus("big.jsonl", &lines), &idx, &[]);
    assert_eq!(stats["indexed"], 6);
    assert!(stats["truncated"].as_u64().unwrap() >= 1);
    let q = s.path("q.java");
    std::fs::write(&q, &big).unwrap();
    let hits = stdout_json(&s.run(&[
        "search",
        idx.to_str().unwrap(),
        "--code",
        q.to_str().unwrap(),
        "--cause",
        &cause,
        "--json",
    ]));
    let top = &hits["hits"][0];
    assert_eq!(top["id"], "big");
    assert_eq!(top["buggy_code"].as_str().unwrap().len(), big.len(), "the stored record keeps the full text");
}

#[test]
fn duplicate_ids_and_pairs_are_dropped_and_counted() {
    let s = Scratch::new();
    let mut lines = records(4);
    lines.push(records(4)[1].clone()); // same id, same pair
    lines.push(record(
        "other-id",
        "java",
        &engine::testing::sample_records(3)[2].buggy_code,
        &engine::testing::sample_records(3)[2].fixed_code,
        "x",
    ));
    let stats = s.index(&s.corpus("dups.jsonl", &lines), &s.path("idx.fdx"), &[]);
    assert_eq!(stats["indexed"], 4);
    assert_eq!(stats["duplicate_ids"], 1);
    assert_eq!(stats["duplicate_pairs"], 1);
    let report = std::fs::read_to_string(s.path("idx.fdx.report.jsonl")).unwrap();
    assert!(report.contains("duplicate-id") && report.contains("dups.jsonl:2, which was kept"), "{report}");
}

/// Issue 29 (partial): a row whose id an earlier row had, with other content, was reported
/// like a harmless repeat (`duplicate-id`, counted in `duplicate_ids`). It is a conflict: a
/// pair is lost. It is counted apart (`conflicting_ids`), listed as `conflicting-id` with
/// the fields that differ, and warned about on stderr.
#[test]
fn issue_29_a_duplicate_id_with_other_content_is_a_conflict() {
    let s = Scratch::new();
    let mut lines = records(4);
    lines.push(records(4)[1].clone()); // row 5: a repeat
    lines.push(record("test:2", "java", "int changed() { return 1; }", "int changed() { return 2; }", "c")); // row 6
    let corpus = s.corpus("ids.jsonl", &lines);
    let idx = s.path("idx.fdx");
    let o = s.run(&["index", corpus.to_str().unwrap(), "-o", idx.to_str().unwrap(), "--json"]);
    let stats = stdout_json(&o);
    assert_eq!((stats["duplicate_ids"].as_u64(), stats["conflicting_ids"].as_u64()), (Some(1), Some(1)), "{stats}");
    assert_eq!(stats["indexed"], 4);
    let report = std::fs::read_to_string(s.path("idx.fdx.report.jsonl")).unwrap();
    let kinds: Vec<(u64, String, String)> = report
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|v| (v["row"].as_u64().unwrap(), v["kind"].as_str().unwrap().into(), v["reason"].as_str().unwrap().into()))
        .collect();
    assert_eq!((kinds[0].0, kinds[0].1.as_str()), (5, "duplicate-id"), "{kinds:?}");
    assert_eq!((kinds[1].0, kinds[1].1.as_str()), (6, "conflicting-id"), "{kinds:?}");
    assert!(kinds[1].2.contains("buggy_code, fixed_code") && kinds[1].2.contains("ids.jsonl:3"), "{kinds:?}");
    assert!(stderr(&o).contains("warning: 1 rows reuse the id"), "{}", stderr(&o));
}

#[test]
fn bad_parameters_are_refused() {
    let s = Scratch::new();
    let idx = s.path("idx.fdx");
    let corpus = s.corpus("c.jsonl", &records(20));
    let o = s.run(&["index", corpus.to_str().unwrap(), "-o", idx.to_str().unwrap(), "--spaces", "code+cause,tokens"]);
    assert_eq!(code(&o), 2, "an unknown space name is a usage error");
    assert!(stderr(&o).contains("unknown vector space `tokens`"), "{}", stderr(&o));
    // So are the build's numbers out of range, refused before any reading.
    for (flag, value) in [
        ("--m", "0"),
        ("--m", "1000"),
        ("--ef-construction", "0"),
        ("--max-batch-tokens", "0"),
        ("--max-batch-items", "0"),
        ("--cause-max-tokens", "0"),
        ("--shard", "3/2"),
    ] {
        let o = s.run(&["index", corpus.to_str().unwrap(), "-o", idx.to_str().unwrap(), flag, value]);
        assert_eq!(code(&o), 2, "{flag} {value}: {}", stderr(&o));
        assert!(stderr(&o).contains(&format!("invalid value '{value}' for '{flag}")), "{flag}: {}", stderr(&o));
    }
    // A root-cause budget longer than the model's sequence is refused once the model is read
    // (the bound is its sequence length), before any record is read.
    let o = s.run(&["index", corpus.to_str().unwrap(), "-o", idx.to_str().unwrap(), "--cause-max-tokens", "100000"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("--cause-max-tokens 100000 is longer than the model's sequence"), "{}", stderr(&o));
    assert!(!idx.exists());
    let o =
        s.run(&["mine", s.path("").to_str().unwrap(), "-o", s.path("m.jsonl").to_str().unwrap(), "--max-files", "0"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    s.index(&corpus, &idx, &[]);
    let q = s.path("q.java");
    std::fs::write(&q, "int x;").unwrap();
    let (i, qs) = (idx.to_str().unwrap(), q.to_str().unwrap());
    // A value out of range or unknown is a usage error, as clap's own `-k abc` is; a space
    // the index lacks is the index's, not the flag's.
    for (args, msg, exit) in [
        (vec!["-k", "0"], "-k: must be at least 1", 2),
        (vec!["-k", "abc"], "invalid value 'abc' for '-k", 2),
        (vec!["--threshold", "1.5"], "--threshold: 1.5 is outside [-1, 1]", 2),
        (vec!["--threshold", "-2"], "--threshold: -2 is outside [-1, 1]", 2),
        (vec!["--space", "nope"], "unknown vector space `nope`", 2),
        (vec!["--lines", "5-2"], "--lines", 2),
        (vec!["--lines", "1-9"], "--lines 1-9 is outside the --code snippet (1 lines)", 2),
        (vec!["--space", "code"], "the index has no vector space `code`; it has: code+cause", 1),
    ] {
        let mut a = vec!["search", i, "--code", qs, "--cause", "c"];
        a.extend(args);
        let o = s.run(&a);
        assert_eq!(code(&o), exit, "{a:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(msg), "{a:?}: {}", stderr(&o));
    }
    // An empty filter value is a usage error of its own, not a name to suggest others for.
    for flag in ["--project", "--lang", "--exclude-project", "--exclude-id"] {
        let o = s.run(&["search", i, "--code", qs, flag, ""]);
        assert_eq!(code(&o), 2, "{flag}");
        assert!(stderr(&o).contains(&format!("a value is required for '{flag}")), "{flag}: {}", stderr(&o));
    }
    // A `k` or `ef` beyond the index's size answers with every document it can, never by
    // allocating that many (a new user's `-k 99999999999` aborted the process).
    for args in [vec!["-k", "18446744073709551615"], vec!["-k", "99999999999", "--ef", "4294967296"]] {
        let mut a = vec!["search", i, "--code", qs, "--cause", "c", "--json"];
        a.extend(args);
        let o = s.run(&a);
        assert_eq!(code(&o), 0, "{a:?}: {}", stderr(&o));
        let hits = stdout_json(&o)["hits"].as_array().map_or(0, Vec::len);
        assert!((1..=20).contains(&hits), "{a:?}: {hits} hits");
    }
    // So is an empty or blank test command (it used to fail only at pre-flight, after copying
    // the project), and a limit of 0 s (every command timed out, 200 times).
    let project = s.path("");
    let project = project.to_str().unwrap();
    for (flag, value) in [("--test-cmd", ""), ("--test-cmd", "   "), ("--test-timeout-s", "0"), ("--max-wall-s", "0")] {
        let mut a = vec!["repair", "--project", project, "--test-cmd", "true", "--file", qs, "--strategy", "patterns"];
        if flag == "--test-cmd" {
            a.truncate(3);
            a.extend(["--test-cmd", value, "--file", qs]);
        } else {
            a.extend([flag, value]);
        }
        let o = s.run(&a);
        assert_eq!(code(&o), 2, "{flag} {value:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(&format!("invalid value '{value}' for '{flag}")), "{flag}: {}", stderr(&o));
    }
    for (flag, value) in [("--jobs", "0"), ("--timeout-s", "0")] {
        let o = s.run(&["eval", "quixbugs", "--root", project, "--lang", "java", flag, value]);
        assert_eq!(code(&o), 2, "{flag} {value}: {}", stderr(&o));
        assert!(stderr(&o).contains(&format!("invalid value '{value}' for '{flag}")), "{flag}: {}", stderr(&o));
    }
}

#[test]
fn damaged_index_files_are_refused() {
    let s = Scratch::new();
    let idx = s.path("idx.fdx");
    s.index(&s.corpus("c.jsonl", &records(50)), &idx, &[]);
    let good = std::fs::read(&idx).unwrap();
    let i = idx.to_str().unwrap();

    std::fs::write(&idx, &good[..good.len() - 1]).unwrap();
    let o = s.run(&["inspect", i]);
    assert_eq!(code(&o), 3);
    assert!(stderr(&o).contains("truncated"), "{}", stderr(&o));

    let info = stdout_json(&{
        std::fs::write(&idx, &good).unwrap();
        s.run(&["inspect", i, "--json"])
    });
    let vectors = info["sections"].as_array().unwrap().iter().find(|x| x["kind"] == "vectors").unwrap().clone();
    let mut bad = good;
    bad[vectors["offset"].as_u64().unwrap() as usize + 77] ^= 0x40;
    std::fs::write(&idx, &bad).unwrap();
    assert!(s.run(&["inspect", i]).status.success(), "open is O(1) and does not read vectors");
    let o = s.run(&["verify", i]);
    assert_eq!(code(&o), 3);
    assert!(stderr(&o).contains("checksum mismatch in the vectors section"), "{}", stderr(&o));
    // With --json the verdict is on stdout too, as one object; the exit code is the same.
    let o = s.run(&["verify", i, "--json"]);
    assert_eq!(code(&o), 3);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ok"], false, "{v}");
    assert!(v["error"].as_str().unwrap().contains("checksum mismatch in the vectors section"), "{v}");
}

#[test]
fn index_built_with_another_model_is_refused() {
    let s = Scratch::new();
    let idx = s.path("idx.fdx");
    s.index(&s.corpus("c.jsonl", &records(20)), &idx, &[]);
    let real = repo().join("data/models/all-MiniLM-L6-v2");
    assert!(real.is_dir(), "run scripts/fetch-model.sh first");
    let q = s.path("q.java");
    std::fs::write(&q, "int x;").unwrap();
    let o = fixdex(&["search", idx.to_str().unwrap(), "--code", q.to_str().unwrap(), "--cause", "c"], Some(&real));
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("model mismatch") && stderr(&o).contains("--model"), "{}", stderr(&o));
}

/// A build killed midway (SIGKILL, at several moments) never damages the index already
/// at the output path, nor replaces its build report with the killed build's (the report is
/// published with the index it describes).
#[test]
fn killed_build_leaves_existing_index_intact() {
    let s = Scratch::new();
    let idx = s.path("idx.fdx");
    s.index(&s.corpus("small.jsonl", &records(40)), &idx, &[]);
    let good = std::fs::read(&idx).unwrap();
    let report = s.path("idx.fdx.report.jsonl");
    assert!(!report.exists(), "40 distinct rows: nothing to report");
    // A duplicate row: the big build's report has a line as soon as it has read its rows.
    let mut rows = records(6000);
    rows.push(rows[0].clone());
    let big = s.corpus("big.jsonl", &rows);
    for delay_ms in [50u64, 400, 1500, 3000] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fixdex"))
            .args(["index", big.to_str().unwrap(), "-o", idx.to_str().unwrap(), "--quiet"])
            .env("FIXDEX_MODEL", s.model())
            .spawn()
            .unwrap();
        let start = Instant::now();
        // Kill either after the delay or as soon as the temporary file appears.
        while start.elapsed() < Duration::from_millis(delay_ms) && !has_temp(&s) {
            std::thread::sleep(Duration::from_millis(2));
        }
        let _ = child.kill();
        let status = child.wait().unwrap();
        let now = std::fs::read(&idx).unwrap();
        if status.success() {
            break; // the build finished first: the new index is complete, nothing to check
        }
        assert_eq!(now, good, "the old index changed after a kill at {delay_ms} ms");
        assert!(!report.exists(), "the killed build's report was published at {delay_ms} ms");
        let v = stdout_json(&s.run(&["verify", idx.to_str().unwrap(), "--json"]));
        assert_eq!(v["report"]["documents"], 40);
    }
}

/// Whether the index's temporary file is there (the build is writing it; the report's own
/// temporary file, written while the rows are read, does not count).
fn has_temp(s: &Scratch) -> bool {
    std::fs::read_dir(s.dir.path()).unwrap().any(|e| {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        name.contains(".tmp-") && !name.contains(".report.jsonl")
    })
}

/// Issue 29 (partial): `index --help` named only some corpus formats' extensions (no
/// `.pq`), and `--format` did not say what its values are. Every format and every
/// extension the reader recognises is listed.
#[test]
fn issue_29_index_help_lists_every_input_format() {
    let o = fixdex(&["index", "--help"], None);
    let help = String::from_utf8(o.stdout).unwrap();
    for name in ["JSONL", "Parquet", "Arrow IPC", "JSON Lines"] {
        assert!(help.contains(name), "{name} missing from index --help:\n{help}");
    }
    for ext in [".jsonl", ".ndjson", ".json", ".parquet", ".pq", ".arrow", ".ipc", ".feather"] {
        assert!(help.contains(&format!("{ext},")) || help.contains(&format!("{ext})")), "{ext} missing:\n{help}");
    }
}

/// Found by a fresh user: `eval INDEX --n 0` exited 0 with a self-rank and recall of 0 and a
/// meaningless QPS. A sample of no record is a usage error (exit 2) naming `--n`.
#[test]
fn eval_with_no_record_to_sample_is_a_usage_error() {
    let o = fixdex(&["eval", "any.fdx", "--n", "0"], None);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("--n"), "{}", stderr(&o));
}

/// Found by a fresh user: a missing `--exclude` file was reported by its path alone, with
/// nothing saying which flag named it. The error names the flag and the file, and nothing
/// is written.
#[test]
fn a_missing_exclude_file_names_the_flag() {
    let s = Scratch::new();
    let corpus = s.corpus("c.jsonl", &records(2));
    let out = s.path("x.fdx");
    let missing = s.path("no-such-list.txt");
    let o = s.run(&[
        "index",
        corpus.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--exclude",
        missing.to_str().unwrap(),
    ]);
    assert_ne!(code(&o), 0);
    assert!(stderr(&o).contains(&format!("--exclude {}", missing.display())), "{}", stderr(&o));
    assert!(!out.exists());
}

/// Found by a fresh user: when `--on-error skip` drops every row, the error said "check
/// the build report" without saying where it is. It names the report, which lists the rows.
#[test]
fn no_valid_record_names_the_build_report() {
    let s = Scratch::new();
    let corpus = s.corpus("bad.jsonl", &[r#"{"id": "a", "language": "java"}"#.to_string()]);
    let idx = s.path("idx.fdx");
    let o = s.run(&["index", corpus.to_str().unwrap(), "-o", idx.to_str().unwrap(), "--on-error", "skip"]);
    assert_eq!(code(&o), 1);
    let report = s.path("idx.fdx.report.jsonl");
    assert!(stderr(&o).contains(&format!("the build report {}", report.display())), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&report).unwrap().contains("buggy_code"), "the report lists the row");
    assert!(!idx.exists());
}

/// Found by a fresh user: a missing corpus file printed its OS error twice (once with the
/// path, once alone as the cause's cause). Each message is said once, and the path is named.
#[test]
fn a_missing_corpus_says_its_os_error_once() {
    let s = Scratch::new();
    let missing = s.path("nope.jsonl");
    let o = s.run(&["index", missing.to_str().unwrap(), "-o", s.path("x.fdx").to_str().unwrap()]);
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert!(err.contains(&format!("{}: No such file or directory", missing.display())), "{err}");
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
}

/// `fixdex eval defects4j` refuses, before any bug runs (exit 2, no run folder written), a
/// `--repo` that is no git repository or bundle, and `--own-history` where nothing would be
/// searched: without `--index`, or with `patterns --no-retrieval`; a missing `--bugs-file`
/// (exit 2, naming the flag) and a `--run-dir` that is a file (named as the run folder, kept).
#[test]
fn eval_defects4j_refuses_a_repo_that_is_not_git_and_own_history_without_a_search() {
    let s = Scratch::new();
    let meta = s.path("meta");
    std::fs::create_dir_all(meta.join("Demo")).unwrap();
    std::fs::write(
        meta.join("Demo/active-bugs.csv"),
        "bug.id,revision.id.buggy,revision.id.fixed,report.id,report.url\n1,aaaa,bbbb,DEMO-1,https://example.org/1\n",
    )
    .unwrap();
    std::fs::write(meta.join("Demo/dir-layout.csv"), "bbbb,src/java,src/test\n").unwrap();
    for (file, text) in [
        ("patches/1.src.patch", ""),
        ("trigger_tests/1", "--- demo.CalcTest::testMax\n"),
        ("relevant_tests/1", "demo.CalcTest\n"),
        ("modified_classes/1.src", "demo.Calc\n"),
    ] {
        let path = meta.join("Demo").join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let plain = s.path("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let text = s.path("notes.txt");
    std::fs::write(&text, "not a bundle\n").unwrap();
    let git = s.path("git");
    std::fs::create_dir_all(&git).unwrap();
    let init = Command::new("git").arg("-C").arg(&git).args(["init", "-q"]).output().unwrap();
    assert!(init.status.success());
    let run_dir = s.path("run");
    let eval = |repo: &std::path::Path, extra: &[&str]| {
        let repo = format!("Demo={}", repo.display());
        let mut a = vec!["eval", "defects4j", "--strategy", "patterns", "--d4j-meta", meta.to_str().unwrap()];
        a.extend(["--repo", &repo, "--bugs", "Demo-1", "--run-dir", run_dir.to_str().unwrap()]);
        a.extend(extra);
        s.run(&a)
    };
    for (repo, said) in [(&plain, "is a folder but not a git repository"), (&text, "is a file but not a git bundle")] {
        let o = eval(repo, &[]);
        assert_eq!(code(&o), 2, "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(&format!("--repo Demo={}: {} {said}", repo.display(), repo.display())), "{err}");
    }
    // A `--bugs-file` that is missing is a usage error naming the flag.
    let nope = s.path("nope.txt");
    let repo = format!("Demo={}", git.display());
    let mut a = vec!["eval", "defects4j", "--strategy", "patterns", "--d4j-meta", meta.to_str().unwrap()];
    a.extend(["--repo", &repo, "--bugs-file", nope.to_str().unwrap(), "--run-dir", run_dir.to_str().unwrap()]);
    let o = s.run(&a);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains(&format!("--bugs-file {}: ", nope.display())), "{}", stderr(&o));
    // A `--run-dir` that is a file is named as the run folder, and kept.
    let file = s.path("a-file");
    std::fs::write(&file, "keep").unwrap();
    let mut a = vec!["eval", "defects4j", "--strategy", "patterns", "--d4j-meta", meta.to_str().unwrap()];
    a.extend(["--repo", &repo, "--bugs", "Demo-1", "--run-dir", file.to_str().unwrap()]);
    let o = s.run(&a);
    assert_ne!(code(&o), 0);
    assert!(stderr(&o).contains("cannot be the run folder (--run-dir): a file, not a folder"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep");
    // A metadata folder without any project.
    let empty = s.path("empty-meta");
    std::fs::create_dir_all(&empty).unwrap();
    let o = s.run(&["eval", "defects4j", "--check", "--d4j-meta", empty.to_str().unwrap(), "--bugs", "Demo-1"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("holds no project folder with an active-bugs.csv"), "{}", stderr(&o));
    // A shard out of range is a usage error, as `index --shard 3/2` is.
    let o = eval(&git, &["--shard", "3/2"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("invalid value '3/2' for '--shard"), "{}", stderr(&o));
    let o = eval(&git, &["--own-history"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--own-history keeps documents of an index in retrieval: give --index"),
        "{}",
        stderr(&o)
    );
    // A record of a project named like Demo that Demo's exclusion keeps.
    let mut rows = records(3);
    rows.push(record("fork:1", "java", "int a = b - 1;", "int a = b + 1;", "off by one").replace("\"p\"", "\"demo_\""));
    let corpus = s.corpus("c.jsonl", &rows);
    let idx = s.path("c.fdx");
    s.index(&corpus, &idx, &["--spaces", "code"]);
    let o = eval(&git, &["--own-history", "--index", idx.to_str().unwrap(), "--no-retrieval"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("(without --no-retrieval)"), "{}", stderr(&o));
    assert!(!run_dir.exists(), "refused before the run");
    // An index with no document of the bug's project: excluding it drops nothing, which is
    // said before the run (the bug itself then fails its set-up: `infra`).
    let o = eval(&git, &["--index", idx.to_str().unwrap()]);
    let err = stderr(&o);
    assert!(err.contains("warning: the index holds no document of project Demo (by project identity)"), "{err}");
    assert!(
        err.contains("warning: the index holds projects named like Demo that are not Demo by project identity, so they stay in retrieval: \"demo_\""),
        "{err}"
    );
    assert!(err.contains("infra"), "{err}");
    // Every bug `infra`: nothing was repaired, which is a failed run.
    assert_eq!(code(&o), 1, "{err}");
    assert!(err.contains("error: every bug is infra (set-up or gold check failed): nothing was repaired"), "{err}");
}

/// With `--json`, a failed command prints its error on stdout as one JSON object (usage
/// errors too, exit 2), once, and without `--json` nothing there.
#[test]
fn json_errors_are_one_object_on_stdout() {
    let s = Scratch::new();
    let missing = s.path("missing.fdx");
    let q = s.path("q.java");
    std::fs::write(&q, "int x;").unwrap();
    let search = |extra: &[&str]| {
        let mut a = vec!["search", missing.to_str().unwrap(), "--code", q.to_str().unwrap(), "--cause", "c"];
        a.extend(extra);
        s.run(&a)
    };
    let o = search(&["--json"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let answer: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((answer["ok"].as_bool(), answer["exit"].as_u64()), (Some(false), Some(1)), "{answer}");
    assert!(answer["error"].as_str().unwrap().contains("missing.fdx"), "{answer}");
    assert!(stderr(&o).contains("missing.fdx"), "stderr still says it");
    assert!(search(&[]).stdout.is_empty());
    let o = search(&["--json", "--no-such-flag"]);
    assert_eq!(code(&o), 2);
    let answer: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(answer["exit"], 2, "{answer}");
    assert!(answer["error"].as_str().unwrap().contains("--no-such-flag"), "{answer}");
    // An empty file is said to be one.
    let empty = s.path("empty.fdx");
    std::fs::write(&empty, "").unwrap();
    let o = s.run(&["search", empty.to_str().unwrap(), "--code", q.to_str().unwrap(), "--cause", "c", "--json"]);
    assert_eq!(code(&o), 3);
    let answer: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(answer["error"].as_str().unwrap().contains("the file is empty (0 bytes)"), "{answer}");
}
