//! Issue 8, indexer side: outputs are checked before any work (item 3), rows whose code is
//! invisible (item 5) or whose fix changes nothing (item 7) are invalid, a shard that
//! receives no rows is a valid empty segment (item 8), and dedup memory follows distinct
//! rows, not input rows (item 15).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::{Scratch, fixdex, record, records, stderr, stdout_json};

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

/// Whether this process can write into read-only folders (root can).
fn ignores_permissions() -> bool {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o555)).unwrap();
    let writable = std::fs::write(dir.path().join("probe"), b"").is_ok();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    writable
}

/// Output paths that cannot be created: a missing folder, a folder that is a regular file,
/// and (when permissions hold for this user) a read-only folder.
fn unwritable_outputs(s: &Scratch, name: &str) -> Vec<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let file = s.path("a-file");
    std::fs::write(&file, b"not a folder").unwrap();
    let mut out = vec![s.path("missing-dir").join(name), file.join(name)];
    if !ignores_permissions() {
        let ro = s.path("read-only");
        std::fs::create_dir_all(&ro).unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        out.push(ro.join(name));
    }
    out
}

/// The failure names the path the user gave, no temporary file, and nothing was written.
fn assert_refused_naming(o: &Output, path: &Path) {
    let err = stderr(o);
    assert_eq!(code(o), 1, "{err}");
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(!err.contains(".tmp-"), "names an internal temporary file: {err}");
    assert!(!path.exists());
}

/// `fixdex index -o UNWRITABLE`: refused before the model is loaded or a row is read. The
/// corpus's first row is invalid and the model folder does not exist, so any error about
/// those would mean the output was checked after them.
#[test]
fn issue_8_index_output_is_checked_before_any_work() {
    let s = Scratch::new();
    let mut lines = vec![record("bad", "java", "", "x", "c")];
    lines.extend(records(5));
    let corpus = s.corpus("c.jsonl", &lines);
    let no_model = s.path("no-model");
    for out in unwritable_outputs(&s, "x.fdx") {
        let o = fixdex(&["index", corpus.to_str().unwrap(), "-o", out.to_str().unwrap()], Some(&no_model));
        assert_refused_naming(&o, &out);
        assert!(!stderr(&o).contains("c.jsonl:1"), "{}", stderr(&o));
    }
}

/// `--report` and `{shard}` output names are checked up front too; `{shard}` without
/// `--shard` is refused rather than written as a literal file name.
#[test]
fn issue_8_index_report_and_shard_outputs_are_checked_before_any_work() {
    let s = Scratch::new();
    let corpus = s.corpus("c.jsonl", &records(5));
    let no_model = s.path("no-model");
    let idx = s.path("idx.fdx");
    for report in unwritable_outputs(&s, "r.jsonl") {
        let args =
            ["index", corpus.to_str().unwrap(), "-o", idx.to_str().unwrap(), "--report", report.to_str().unwrap()];
        assert_refused_naming(&fixdex(&args, Some(&no_model)), &report);
    }
    let template = s.path("seg-{shard}").join("x.fdx");
    let o = fixdex(
        &["index", corpus.to_str().unwrap(), "-o", template.to_str().unwrap(), "--shard", "1/2"],
        Some(&no_model),
    );
    assert_refused_naming(&o, &s.path("seg-1").join("x.fdx"));
    let o = fixdex(&["index", corpus.to_str().unwrap(), "-o", s.path("seg-{shard}.fdx").to_str().unwrap()], None);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("{shard}") && stderr(&o).contains("--shard"), "{}", stderr(&o));
    assert!(!s.path("seg-{shard}.fdx").exists());
}

/// A build replaces only an index at `-o` and only a build report at `--report`: a file
/// that is neither (a corpus meant as a second input, notes, a file a link points to) is
/// refused before any work, byte for byte as it was; an index and a report are replaced.
#[test]
fn index_outputs_replace_only_an_index_and_a_report() {
    let s = Scratch::new();
    let corpus = s.corpus("c.jsonl", &records(5));
    let other = s.corpus("b.jsonl", &records(3));
    let notes = s.path("notes.txt");
    std::fs::write(&notes, "my notes\n").unwrap();
    let idx = s.path("idx.fdx");
    let run = |out: &Path, report: Option<&Path>| {
        let mut args = vec!["index", corpus.to_str().unwrap(), "-o", out.to_str().unwrap()];
        if let Some(r) = report {
            args.extend(["--report", r.to_str().unwrap()]);
        }
        s.run(&args)
    };
    for out in [&other, &notes] {
        let before = std::fs::read(out).unwrap();
        let o = run(out, None);
        assert_eq!(code(&o), 1, "{}", stderr(&o));
        assert!(stderr(&o).contains("is not a fixdex index"), "{}", stderr(&o));
        assert_eq!(std::fs::read(out).unwrap(), before);
    }
    // The report: refused over notes, also through a symbolic link, which stays.
    let link = s.path("r.link");
    std::os::unix::fs::symlink(&notes, &link).unwrap();
    for report in [&notes, &link] {
        let o = run(&idx, Some(report));
        assert_eq!(code(&o), 1, "{}", stderr(&o));
        assert!(stderr(&o).contains("is not a fixdex build report"), "{}", stderr(&o));
        assert_eq!(std::fs::read_to_string(&notes).unwrap(), "my notes\n");
        assert!(!idx.exists());
    }
    // An index and a report (an empty file too) are replaced.
    let empty = s.path("empty.fdx");
    std::fs::write(&empty, "").unwrap();
    for out in [&idx, &idx, &empty] {
        let o = run(out, None);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    let dup = s.corpus("dup.jsonl", &[records(2)[0].clone(), records(2)[0].clone(), records(2)[1].clone()]);
    let report = s.path("r.jsonl");
    for _ in 0..2 {
        let o =
            s.run(&["index", dup.to_str().unwrap(), "-o", idx.to_str().unwrap(), "--report", report.to_str().unwrap()]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert_eq!(std::fs::read_to_string(&report).unwrap().lines().count(), 1);
    }
}

/// `fixdex manifest -o UNWRITABLE` names the manifest path, not its temporary file.
#[test]
fn issue_8_manifest_output_names_the_path_given() {
    let s = Scratch::new();
    let seg = s.path("seg.fdx");
    s.index(&s.corpus("c.jsonl", &records(20)), &seg, &[]);
    for out in unwritable_outputs(&s, "m.fdxm") {
        let o = s.run(&["manifest", "-o", out.to_str().unwrap(), seg.to_str().unwrap()]);
        assert_refused_naming(&o, &out);
    }
}

/// `fixdex repair --report UNWRITABLE` is refused before the recordings are read or any
/// command runs (the recordings file does not exist; the test command would leave a mark).
#[test]
fn issue_8_repair_report_is_checked_before_the_run() {
    let s = Scratch::new();
    let project = s.path("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("a.py"), "def f():\n    return 1\n").unwrap();
    let mark = s.path("ran");
    let test_cmd = format!("touch {}; exit 1", mark.display());
    let recordings = s.path("no-recordings.jsonl");
    for report in unwritable_outputs(&s, "report.json") {
        let args = [
            "repair",
            "--project",
            project.to_str().unwrap(),
            "--file",
            "a.py",
            "--method",
            "f",
            "--test-cmd",
            &test_cmd,
            "--replay",
            recordings.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ];
        let o = fixdex(&args, None);
        assert_refused_naming(&o, &report);
        assert!(!mark.exists(), "the test command ran before the report path was checked");
    }
}

/// `fixdex bench quixbugs --report-dir` and `fixdex bench ann --index` are checked before
/// their inputs are read (the inputs here do not exist).
#[test]
fn issue_8_bench_outputs_are_checked_before_reading_inputs() {
    let s = Scratch::new();
    let file = s.path("a-file");
    std::fs::write(&file, b"x").unwrap();
    let report_dir = file.join("reports");
    let o = fixdex(
        &[
            "bench",
            "quixbugs",
            "--root",
            s.path("no-root").to_str().unwrap(),
            "--lang",
            "python",
            "--oracle",
            "llm",
            "--replay",
            s.path("no-recordings.jsonl").to_str().unwrap(),
            "--report-dir",
            report_dir.to_str().unwrap(),
        ],
        None,
    );
    assert_refused_naming(&o, &report_dir);
    for out in unwritable_outputs(&s, "ann.fdx") {
        let none = s.path("none.fvecs");
        let o = fixdex(
            &["bench", "ann", "--base", none.to_str().unwrap(), "--queries", none.to_str().unwrap(), "--index"]
                .into_iter()
                .chain([out.to_str().unwrap()])
                .collect::<Vec<_>>(),
            None,
        );
        assert_refused_naming(&o, &out);
    }
}

/// Rows whose code is only zero-width, control or combining characters are invalid, named by
/// file, row and field (they would embed exactly like an empty string).
#[test]
fn issue_8_invisible_code_is_an_invalid_row() {
    let s = Scratch::new();
    let mut lines = records(4);
    lines.push(record("zw", "java", "\u{200B}\u{200B}", "int x;", "c")); // row 5
    lines.push(record("ctl", "java", " \u{7}\u{301}\u{feff}\n", "int x;", "c")); // row 6
    lines.push(record("\u{200D}", "java", "int y;", "int x;", "c")); // row 7: invisible id
    let corpus = s.corpus("inv.jsonl", &lines);
    let idx = s.path("idx.fdx");
    let o = s.run(&["index", corpus.to_str().unwrap(), "-o", idx.to_str().unwrap()]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("inv.jsonl:5: field `buggy_code`"), "{}", stderr(&o));
    assert!(!idx.exists());
    let stats = s.index(&corpus, &idx, &["--on-error", "skip"]);
    assert_eq!((stats["indexed"].as_u64(), stats["skipped"].as_u64()), (Some(4), Some(3)));
    let report = report_lines(&s.path("idx.fdx.report.jsonl"));
    let rows: Vec<(u64, &str)> =
        report.iter().map(|r| (r["row"].as_u64().unwrap(), r["field"].as_str().unwrap())).collect();
    assert_eq!(rows, [(5, "buggy_code"), (6, "buggy_code"), (7, "id")]);
    assert!(report[0]["reason"].as_str().unwrap().contains("invisible"), "{:?}", report[0]);
}

/// A row whose fixed code equals its buggy code (byte for byte, or but for line endings
/// and trailing whitespace) is a no-op fix: invalid, named, listed in the report.
#[test]
fn issue_8_noop_fix_is_an_invalid_row() {
    let s = Scratch::new();
    let mut lines = records(4);
    lines.push(record("same", "java", "int x = 1;\nreturn x;\n", "int x = 1;\nreturn x;\n", "c")); // row 5
    lines.push(record("eol", "java", "int x = 1;\nreturn x;\n", "int x = 1;  \r\nreturn x;\r\n\r\n", "c")); // row 6
    lines.push(record("indent", "python", "if a:\n  b()\n", "if a:\nb()\n", "c")); // row 7: a real fix
    let corpus = s.corpus("noop.jsonl", &lines);
    let idx = s.path("idx.fdx");
    let o = s.run(&["index", corpus.to_str().unwrap(), "-o", idx.to_str().unwrap()]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("noop.jsonl:5: field `fixed_code`"), "{}", stderr(&o));
    assert!(stderr(&o).contains("no-op"), "{}", stderr(&o));
    let stats = s.index(&corpus, &idx, &["--on-error", "skip"]);
    assert_eq!((stats["indexed"].as_u64(), stats["skipped"].as_u64()), (Some(5), Some(2)));
    let report = report_lines(&s.path("idx.fdx.report.jsonl"));
    let rows: Vec<(u64, &str, &str)> = report
        .iter()
        .map(|r| (r["row"].as_u64().unwrap(), r["field"].as_str().unwrap(), r["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(rows, [(5, "fixed_code", "invalid"), (6, "fixed_code", "invalid")]);
}

fn report_lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The first shard of `count` that none of `ids` hashes to.
fn empty_shard(ids: &[&str], count: u64) -> u64 {
    (0..count).find(|i| ids.iter().all(|id| engine::id_hash(id) % count != *i)).expect("some shard is empty")
}

/// `--shard i/n` where no row hashes to shard i writes a valid empty segment (exit 0, said
/// on stderr and in the JSON stats); inspect, verify, search and manifest accept it.
#[test]
fn issue_8_empty_shard_is_a_valid_empty_segment() {
    let s = Scratch::new();
    let recs = engine::testing::sample_records(2);
    let corpus = s.corpus("two-rows.jsonl", &records(2));
    let ids: Vec<&str> = recs.iter().map(|r| r.id.as_str()).collect();
    let empty = empty_shard(&ids, 4);
    let template = s.path("seg-{shard}.fdx");
    let spec = format!("{empty}/4");
    let args = ["index", corpus.to_str().unwrap(), "-o", template.to_str().unwrap(), "--shard", &spec, "--json"];
    let o = s.run(&args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("empty"), "{}", stderr(&o));
    let stats = stdout_json(&o);
    assert_eq!((stats["indexed"].as_u64(), stats["empty"].as_bool()), (Some(0), Some(true)));
    assert_eq!(stats["other_shards"], 2);
    let seg = s.path(&format!("seg-{empty}.fdx"));
    let seg_s = seg.to_str().unwrap();
    assert_eq!(stdout_json(&s.run(&["inspect", seg_s, "--json"]))["documents"], 0);
    assert!(s.run(&["inspect", seg_s]).status.success());
    assert_eq!(stdout_json(&s.run(&["verify", seg_s, "--json"]))["report"]["documents"], 0);
    let q = s.path("q.java");
    std::fs::write(&q, &recs[0].buggy_code).unwrap();
    assert!(s.exact_hits(&seg, &q, &recs[0].root_cause, 3).is_empty());
    let hnsw = stdout_json(&s.run(&["search", seg_s, "--code", q.to_str().unwrap(), "--cause", "c", "--json"]));
    assert_eq!(hnsw["hits"].as_array().map(Vec::len), Some(0));

    let mut segs = vec![seg_s.to_string()];
    for i in (0..4).filter(|&i| i != empty) {
        let spec = format!("{i}/4");
        let o = s.run(&["index", corpus.to_str().unwrap(), "-o", template.to_str().unwrap(), "--shard", &spec]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        segs.push(s.path(&format!("seg-{i}.fdx")).display().to_string());
    }
    let manifest = s.path("all.fdxm");
    let mut args = vec!["manifest", "-o", manifest.to_str().unwrap(), "--json"];
    args.extend(segs.iter().map(String::as_str));
    assert_eq!(stdout_json(&s.run(&args))["documents"], 2);
    let hits = s.exact_hits(&manifest, &q, &recs[0].root_cause, 3);
    assert_eq!(hits.iter().map(|h| h.0.as_str()).collect::<Vec<_>>()[0], recs[0].id);
    assert_eq!(hits.len(), 2);
}

/// Outside an empty shard, no surviving record is still an error: an empty corpus with
/// `--shard`, and a shard whose corpus has no valid record at all.
#[test]
fn a_corpus_without_valid_rows_is_still_an_error_when_sharded() {
    let s = Scratch::new();
    let corpus = s.corpus("bad.jsonl", &[record("a", "java", "", "x", "c")]);
    let out = s.path("seg-{shard}.fdx");
    let o = s.run(&[
        "index",
        corpus.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--shard",
        "0/2",
        "--on-error",
        "skip",
    ]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("no valid records"), "{}", stderr(&o));
    assert!(!s.path("seg-0.fdx").exists());
}

/// Peak resident memory of a child process, in KiB: `ru_maxrss` of the children waited for
/// so far. Each test runs in its own process under nextest, so the children are ours.
fn children_max_rss_kib() -> i64 {
    nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN).unwrap().max_rss()
}

/// Runs `fixdex index` on `rows` rows cycling through the same 10 records (same ids); returns
/// its peak RSS in KiB (see [`children_max_rss_kib`]: the maximum over this test's children).
///
/// The corpus is written line by line: a child's `ru_maxrss` starts from this process's
/// own peak (Linux carries the parent's high-water mark across the vfork + exec of
/// `Command`), so this process must not grow with `rows` either.
fn index_repeated(s: &Scratch, rows: usize) -> i64 {
    use std::io::Write;
    let distinct = records(10);
    let corpus = s.path(&format!("rep-{rows}.jsonl"));
    let mut w = std::io::BufWriter::new(std::fs::File::create(&corpus).unwrap());
    for i in 0..rows {
        writeln!(w, "{}", distinct[i % 10]).unwrap();
    }
    w.flush().unwrap();
    drop(w);
    let out = s.path(&format!("rep-{rows}.fdx"));
    let status = Command::new(env!("CARGO_BIN_EXE_fixdex"))
        .args(["index", corpus.to_str().unwrap(), "-o", out.to_str().unwrap(), "--quiet"])
        .env("FIXDEX_MODEL", s.model())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let report = std::fs::File::open(s.path(&format!("rep-{rows}.fdx.report.jsonl"))).unwrap();
    let listed = std::io::BufRead::lines(std::io::BufReader::new(report)).count();
    assert_eq!(listed, rows - 10, "every duplicate is listed");
    std::fs::remove_file(&corpus).unwrap();
    children_max_rss_kib()
}

/// 20k and 200k rows of the same 10 records: the peak RSS of the larger build stays within
/// 30 MB of the smaller one (the duplicates are listed in the report as they are found, not
/// held).
#[test]
fn issue_8_dedup_memory_follows_distinct_rows() {
    let s = Scratch::new();
    let small = index_repeated(&s, 20_000);
    let large = index_repeated(&s, 200_000);
    let growth_mib = (large - small) as f64 / 1024.0;
    eprintln!("peak RSS: {small} KiB at 20k rows, {large} KiB at 200k rows");
    assert!(growth_mib < 30.0, "peak RSS grew by {growth_mib:.1} MiB from 20k to 200k rows ({small} → {large} KiB)");
}
