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
