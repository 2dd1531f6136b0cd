//! Issue 12 item 2 through the binary: `fixdex index --append`, killed or not, and
//! `fixdex compact`.

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common::{Scratch, records, stdout_json};

/// Documents the index at `idx` answers for, through `verify --json` (which also checks
/// every checksum).
fn documents(s: &Scratch, idx: &std::path::Path) -> u64 {
    stdout_json(&s.run(&["verify", idx.to_str().unwrap(), "--json"]))["report"]["documents"].as_u64().unwrap()
}

#[test]
fn a_killed_append_leaves_the_previous_state_searchable_and_a_rerun_completes() {
    let s = Scratch::new();
    let all = records(6000);
    let base = s.corpus("base.jsonl", &all[..200]);
    let second = s.corpus("second.jsonl", &all[200..300]);
    let big = s.corpus("big.jsonl", &all[300..]);
    let idx = s.path("idx.fdx");
    s.index(&base, &idx, &[]);
    let o = stdout_json(&s.run(&["index", "--append", idx.to_str().unwrap(), second.to_str().unwrap(), "--json"]));
    assert_eq!(
        (o["indexed"].as_u64(), o["documents"].as_u64(), o["segments"].as_u64()),
        (Some(100), Some(300), Some(2))
    );
    let manifest = std::fs::read(&idx).unwrap();

    // Kill -9 the next append at several points; each time the manifest is the old one (or,
    // if the kill came after the publishing rename, the complete new one) and searchable.
    let code = s.path("q.java");
    std::fs::write(&code, "for (int i = 0; i <= n; i++) sum += a[i];").unwrap();
    let (mut killed_before_publish, mut published) = (0, false);
    for delay_ms in [30u64, 120, 400, 1000] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fixdex"))
            .args(["index", "--append", idx.to_str().unwrap(), big.to_str().unwrap(), "-q"])
            .env("FIXDEX_MODEL", s.model())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let running = child.try_wait().unwrap().is_none();
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let docs = documents(&s, &idx);
        if docs == 300 {
            assert_eq!(std::fs::read(&idx).unwrap(), manifest, "killed at {delay_ms} ms: the manifest changed");
            killed_before_publish += usize::from(running);
        } else {
            assert_eq!(docs, 6000, "killed at {delay_ms} ms: a half state");
            published = true; // the kill came after the publishing rename: later kills prove nothing
            break;
        }
        let hits = stdout_json(&s.run(&[
            "search",
            idx.to_str().unwrap(),
            "--code",
            code.to_str().unwrap(),
            "--cause",
            "off by one",
            "--json",
        ]));
        assert!(!hits["hits"].as_array().unwrap().is_empty());
    }
    assert!(killed_before_publish > 0, "no kill landed while the append was running");

    // The files the killed appends left behind do not disturb a complete append.
    let o = stdout_json(&s.run(&["index", "--append", idx.to_str().unwrap(), big.to_str().unwrap(), "--json"]));
    let (new, known) = if published { (0, 5700) } else { (5700, 0) };
    assert_eq!(
        (o["indexed"].as_u64(), o["already_indexed"].as_u64(), o["documents"].as_u64()),
        (Some(new), Some(known), Some(6000))
    );
    assert_eq!(documents(&s, &idx), 6000);
    // Appending the same file again embeds nothing.
    let o = stdout_json(&s.run(&["index", "--append", idx.to_str().unwrap(), big.to_str().unwrap(), "--json"]));
    assert_eq!((o["indexed"].as_u64(), o["already_indexed"].as_u64()), (Some(0), Some(5700)));

    // Compact in place: one index file, the same documents, the segments removed.
    let o = stdout_json(&s.run(&[
        "compact",
        idx.to_str().unwrap(),
        "-o",
        idx.to_str().unwrap(),
        "--remove-segments",
        "--json",
    ]));
    assert_eq!(o["documents"].as_u64(), Some(6000));
    assert_eq!(documents(&s, &idx), 6000);
    assert!(!s.path("idx.fdx.segments").exists(), "the emptied segment folder is removed");
    let inspect = stdout_json(&s.run(&["inspect", idx.to_str().unwrap(), "--json"]));
    assert_eq!(inspect["documents"].as_u64(), Some(6000));
}

#[test]
fn append_refuses_output_and_shard_and_reports_a_missing_corpus() {
    let s = Scratch::new();
    let c = s.corpus("c.jsonl", &records(10));
    let idx = s.path("i.fdx");
    let (cs, is) = (c.to_str().unwrap(), idx.to_str().unwrap());
    for extra in [&["-o", is][..], &["--shard", "0/2"][..]] {
        let mut args = vec!["index", "--append", is, cs];
        args.extend_from_slice(extra);
        let o = s.run(&args);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: clap usage error");
        assert!(String::from_utf8_lossy(&o.stderr).contains("cannot be used with"), "{extra:?}");
    }
    s.index(&c, &idx, &[]);
    let before = std::fs::read(&idx).unwrap();
    let o = s.run(&["index", "--append", is, s.path("missing.jsonl").to_str().unwrap()]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("missing.jsonl") && err.contains("index is unchanged"), "{err}");
    assert_eq!(std::fs::read(&idx).unwrap(), before);
}

#[test]
fn append_takes_a_bare_file_name_refuses_conflicting_settings_and_inspect_reads_the_manifest() {
    let s = Scratch::new();
    let all = records(60);
    let (a, b) = (s.corpus("a.jsonl", &all[..40]), s.corpus("b.jsonl", &all[40..]));
    let run_in_dir = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_fixdex"))
            .args(args)
            .current_dir(s.dir.path())
            .env("FIXDEX_MODEL", s.model())
            .output()
            .unwrap()
    };
    // A bare file name in the current folder: the manifest's folder is ".".
    assert!(run_in_dir(&["index", "a.jsonl", "-o", "idx.fdx", "-q"]).status.success());
    // A failed first append leaves no segments folder behind.
    std::fs::write(s.path("bad.jsonl"), "{\"id\": \"x\", \"buggy_code\": 3}\n").unwrap();
    let o = run_in_dir(&["index", "--append", "idx.fdx", "bad.jsonl"]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("bad.jsonl:1"), "{o:?}");
    assert!(!s.path("idx.fdx.segments").exists() && !s.path("idx.fdx.lock").exists());
    let o = run_in_dir(&["index", "--append", "idx.fdx", "b.jsonl", "--json"]);
    assert_eq!(stdout_json(&o)["documents"].as_u64(), Some(60));
    let idx = s.path("idx.fdx");
    assert_eq!(documents(&s, &idx), 60);
    assert!(!s.path("idx.fdx.lock").exists(), "the append's lock file is removed when it ends");

    // Settings that differ from the index's are refused, naming the flag; the index is unchanged.
    let before = std::fs::read(&idx).unwrap();
    for extra in [&["--spaces", "code"][..], &["--m", "8"], &["--quantize", "none"], &["--embed-rule", "v1"]] {
        let mut args = vec!["index", "--append", idx.to_str().unwrap(), a.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = s.run(&args);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: a flag that does not fit the index is a usage error");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(extra[0]) && err.contains("conflicts with"), "{extra:?}: {err}");
    }
    assert_eq!(std::fs::read(&idx).unwrap(), before);
    // The index's own settings given explicitly are fine.
    let o =
        s.run(&["index", "--append", idx.to_str().unwrap(), b.to_str().unwrap(), "--spaces", "code+cause", "--json"]);
    assert_eq!(stdout_json(&o)["already_indexed"].as_u64(), Some(20));

    // inspect describes a manifest as its segments.
    let v = stdout_json(&s.run(&["inspect", idx.to_str().unwrap(), "--json"]));
    assert_eq!(v["documents"].as_u64(), Some(60));
    let segs = v["segments"].as_array().unwrap();
    assert_eq!(segs.iter().map(|x| x["index"]["documents"].as_u64().unwrap()).collect::<Vec<_>>(), vec![40, 20]);
    let text = String::from_utf8_lossy(&s.run(&["inspect", idx.to_str().unwrap()]).stdout).into_owned();
    assert!(text.contains("manifest (v1) of 2 segments, 60 documents"), "{text}");
}

/// An append keeps the build report already there (`INDEX.report.jsonl`); the summary says
/// how many of its rows this run added, so an append that dropped no row does not pass the
/// earlier runs' rows off as its own.
#[test]
fn an_append_says_how_many_report_rows_are_its_own() {
    let s = Scratch::new();
    let all = records(30);
    let mut first = all[..20].to_vec();
    first.push(all[0].clone()); // a repeated row: listed in the report
    let idx = s.path("idx.fdx");
    let o = s.index(&s.corpus("base.jsonl", &first), &idx, &[]);
    assert_eq!(o["report_lines"].as_u64(), Some(1), "{o}");
    let more = s.corpus("more.jsonl", &all[20..]);
    let out = s.run(&["index", "--append", idx.to_str().unwrap(), more.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", crate::common::stderr(&out));
    assert!(text.contains("idx.fdx.report.jsonl (none from this run: it holds earlier runs' rows)"), "{text}");
    // Rows already indexed are this run's report rows, after the old one.
    let again = s.corpus("again.jsonl", &all[..2]);
    let o = stdout_json(&s.run(&["index", "--append", idx.to_str().unwrap(), again.to_str().unwrap(), "--json"]));
    assert_eq!((o["already_indexed"].as_u64(), o["report_lines"].as_u64()), (Some(2), Some(2)), "{o}");
    let report = std::fs::read_to_string(s.path("idx.fdx.report.jsonl")).unwrap();
    assert_eq!(report.lines().count(), 3);
}
