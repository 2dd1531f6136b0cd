//! `fixdex repair` and `fixdex eval quixbugs` (and its deprecated spelling `fixdex bench
//! quixbugs`) as real processes on the minibugs fixture
//! (javac / JUnit 4 from Debian, pytest from scripts/setup-test-tools.sh).

use crate::common::{Scratch, fixdex, repo, stderr, stdout_json};

fn minibugs() -> std::path::PathBuf {
    repo().join("repair/tests/fixtures/minibugs")
}

/// The three recordings of one minibugs session (root cause, suggestion, two candidates)
/// from the library's replay fixture, starting at line `skip` (0: Java SUM_TO, 3: Python
/// sum_to), written to `dir/session.jsonl`.
fn recordings(dir: &std::path::Path, skip: usize) -> std::path::PathBuf {
    let all = std::fs::read_to_string(repo().join("repair/tests/fixtures/replay/minibugs.jsonl")).unwrap();
    let rec = dir.join("session.jsonl");
    std::fs::write(&rec, all.lines().skip(skip).take(3).map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    rec
}

const BUILD: &str = "javac -nowarn -encoding UTF-8 -d .fixdex-classes -cp /usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar -sourcepath . java_testcases/junit/SUM_TO_TEST.java";
const TEST: &str = "java -cp .fixdex-classes:/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar org.junit.runner.JUnitCore java_testcases.junit.SUM_TO_TEST";

/// The replayed SUM_TO session (the first three recordings of the library's minibugs
/// replay: root cause, suggestion, two candidates) through the CLI with shell commands:
/// the plausible patch on stdout, the report on disk, exit 0.
#[test]
fn repair_replay_prints_the_plausible_patch_and_writes_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let rec = recordings(dir.path(), 0);
    let report = dir.path().join("report.json");
    let root = minibugs();
    let args = [
        "repair",
        "--project",
        root.to_str().unwrap(),
        "--file",
        "java_programs/SUM_TO.java",
        "--method",
        "sum_to",
        "--build-cmd",
        BUILD,
        "--test-cmd",
        TEST,
        "--replay",
        rec.to_str().unwrap(),
        "--llm-model",
        "replayed-model",
        "--patches",
        "2",
        "--suggestions",
        "1",
        "--report",
        report.to_str().unwrap(),
        "--failing-test",
        "SUM_TO_TEST#test_1",
    ];
    let out = fixdex(&args, None);
    assert!(out.status.success(), "{}", stderr(&out));
    let diff = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(diff.contains("+        for (int i = 1; i <= n; i++) {"), "{diff}");
    assert!(stderr(&out).contains("SYNTHETIC"), "{}", stderr(&out));
    // test_2 fails on the buggy version too but was not named: tolerated, and said so.
    assert!(
        stderr(&out).contains("not among the named failing tests: java_testcases.junit.SUM_TO_TEST#test_2"),
        "{}",
        stderr(&out)
    );
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["outcome"], "plausible");
    assert_eq!(r["synthetic"], true);
    assert_eq!(r["client"]["kind"], "replay");
    assert_eq!(r["llm"]["calls"], 3);
    assert_eq!(r["candidates"].as_array().unwrap().len(), 2);
    assert!(r["fixdex_version"].is_string() && r["config"]["temperature"] == 1.0);

    // Budget of one call: no plausible patch, exit 4, and the report still written.
    let mut args = args.to_vec();
    args.extend(["--max-calls", "1", "--json"]);
    let out = fixdex(&args, None);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["outcome"], "budget_exhausted");
    assert!(stderr(&out).contains("the run ended early"), "{}", stderr(&out));
}

#[test]
fn repair_usage_errors() {
    let root = minibugs();
    let base = ["repair", "--project", root.to_str().unwrap(), "--test-cmd", "true", "--file"];
    let out = fixdex(&[&base[..], &["java_programs/SUM_TO.java"]].concat(), None);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--method NAME or --lines START-END"), "{}", stderr(&out));
    // A malformed --lines is a usage error too, naming what is wrong.
    for (lines, says) in [("abc", "must be START-END"), ("a-3", "START `a` is not a line number"), ("0-0", "1-based")] {
        let out = fixdex(&[&base[..], &["java_programs/SUM_TO.java", "--lines", lines]].concat(), None);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("--lines {lines}: ")) && stderr(&out).contains(says),
            "{}",
            stderr(&out)
        );
    }
    let out = fixdex(&[&base[..], &["nope.java", "--method", "x"]].concat(), None);
    assert!(stderr(&out).contains("nope.java is not a file"), "{}", stderr(&out));
    let out = fixdex(&[&base[..], &["java_programs/SUM_TO.java", "--method", "sum_to"]].concat(), None);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no LLM configured"), "{}", stderr(&out));
    // No location at all: every way to give one is named (clap only said `--file`).
    let out = fixdex(&base[..base.len() - 1], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--method NAME or --lines START-END") && stderr(&out).contains("--sbfl"),
        "{}",
        stderr(&out)
    );
}

/// `repair --strategy patterns` on minibugs' `file` at `lines` with a test that always fails
/// (exit 4): its stderr and its report.
fn patterns_on_lines(file: &str, lines: &str) -> (String, serde_json::Value) {
    let root = minibugs();
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let mut a = vec!["repair", "--strategy", "patterns", "--project", root.to_str().unwrap()];
    a.extend(["--file", file, "--lines", lines, "--test-cmd", "false"]);
    a.extend(["--report", report.to_str().unwrap()]);
    let out = fixdex(&a, None);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    (stderr(&out), r)
}

/// Issue 32: `--lines` on a method's header line is an insertion point: the templates edit up
/// to the first statement (a guard goes there), and the report says so; lines outside any
/// method give no candidate, and the report says why.
#[test]
fn patterns_widen_an_insertion_point_and_say_when_nothing_applies() {
    let run = |lines: &str| patterns_on_lines("java_programs/SUM_TO.java", lines);
    let (err, r) = run("4-4");
    assert!(
        err.contains("lines 4-4 of java_programs/SUM_TO.java hold no whole statement (a header, brace, blank line or comment: an insertion point): the templates edit lines 4-5, up to the statement after it"),
        "{err}"
    );
    assert!(r["details"]["generated"]["ADD_GUARD"].as_u64().unwrap_or(0) >= 1, "{}", r["details"]);
    let (err, r) = run("1-2");
    assert!(err.contains("no template applies to lines 1-2 of java_programs/SUM_TO.java"), "{err}");
    assert_eq!(r["details"]["generated"], serde_json::json!({}));
}

/// Issue 32: with `--lines` over two or more lines (perfect localization: the first to the
/// last line the fix changes) the candidates that change both lead (`details.covering`); a
/// loop's header line alone is an insertion point widened to the body's statement, and those
/// widened lines are not the fix's, so nothing leads for them (Defects4J Cli-11 lost its
/// single-edit patch to 200 such pairs).
#[test]
fn patterns_put_nothing_first_for_the_ends_of_widened_lines() {
    let covering = |lines: &str| {
        let (err, r) = patterns_on_lines("java_programs/SPIN.java", lines);
        (err.contains("the templates edit lines 6-7"), r["details"]["covering"].as_u64().unwrap())
    };
    let (widened, given) = (covering("6-6"), covering("6-7"));
    assert!(widened.0, "line 6 alone is an insertion point");
    assert!(given.1 > 0, "lines 6-7 as given: the candidates changing both lead");
    assert_eq!(widened.1, 0, "lines 6-7 widened from 6: none leads");
}

#[test]
fn bench_quixbugs_ground_truth_on_minibugs() {
    let root = minibugs();
    let out = fixdex(
        &[
            "bench",
            "quixbugs",
            "--root",
            root.to_str().unwrap(),
            "--lang",
            "java",
            "--ground-truth",
            root.join("quixbugs.jsonl").to_str().unwrap(),
            "--json",
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let s = stdout_json(&out);
    assert_eq!(
        (s["total"].as_u64(), s["buggy_failed"].as_u64(), s["fixed_plausible"].as_u64()),
        (Some(2), Some(2), Some(2))
    );
    assert_eq!(s["flaky"], serde_json::json!([]));
}

/// `--oracle llm` with the replayed SUM_TO session: the workflow runs per program through the
/// harness (perfect localization from quixbugs.jsonl) and the summary counts it.
#[test]
fn bench_quixbugs_llm_oracle_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let rec = recordings(dir.path(), 0);
    let root = minibugs();
    let reports = dir.path().join("reports");
    let out = fixdex(
        &[
            "bench",
            "quixbugs",
            "--root",
            root.to_str().unwrap(),
            "--lang",
            "java",
            "--ground-truth",
            root.join("quixbugs.jsonl").to_str().unwrap(),
            "--oracle",
            "llm",
            "--programs",
            "SUM_TO",
            "--replay",
            rec.to_str().unwrap(),
            "--llm-model",
            "replayed-model",
            "--patches",
            "2",
            "--suggestions",
            "1",
            "--report-dir",
            reports.to_str().unwrap(),
            "--json",
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let s = stdout_json(&out);
    assert_eq!((s["total"].as_u64(), s["plausible"].as_u64(), s["calls"].as_u64()), (Some(1), Some(1), Some(3)), "{s}");
    assert_eq!(s["synthetic"], true);
    // the ground truth's method with its parameter types (`SUM_TO.sum_to(int)`), which names
    // one overload
    assert_eq!(s["programs"][0]["localization"], "sum_to(int)");
    assert!(reports.join("SUM_TO.json").is_file());
}

/// Issue 9, fault 8: a bug whose run ends in error (the replayed answers are the Python
/// session's, so SUM_TO's first request finds no recording) is reported with its outcome and
/// error message, counted under `errors` and not as "no plausible patch", in the table and in
/// `--json`, and the bench exits 1.
#[test]
fn issue_9_bench_llm_oracle_reports_errors() {
    let dir = tempfile::tempdir().unwrap();
    let rec = recordings(dir.path(), 3);
    let root = minibugs();
    let truth = root.join("quixbugs.jsonl");
    let run = |json: bool| {
        let mut args = vec!["bench", "quixbugs", "--root", root.to_str().unwrap(), "--lang", "java"];
        args.extend(["--ground-truth", truth.to_str().unwrap(), "--oracle", "llm", "--programs", "SUM_TO"]);
        args.extend(["--replay", rec.to_str().unwrap(), "--llm-model", "replayed-model"]);
        if json {
            args.push("--json");
        }
        fixdex(&args, None)
    };
    let out = run(true);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the summary on stdout");
    assert_eq!(
        (s["total"].as_u64(), s["errors"].as_u64(), s["no_plausible"].as_u64()),
        (Some(1), Some(1), Some(0)),
        "{s}"
    );
    assert_eq!(s["outcomes"]["error"], 1, "{s}");
    assert_eq!(s["programs"][0]["outcome"], "error", "{s}");
    let error = s["programs"][0]["error"].as_str().unwrap_or_default();
    assert!(!error.is_empty(), "no error message: {s}");
    let table = run(false);
    assert_eq!(table.status.code(), Some(1), "{}", stderr(&table));
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("1 java program: 0 plausible, 0 no plausible patch, 1 error"), "{text}");
    assert!(text.contains(&format!("error: SUM_TO: {error}")), "{text}");
}

/// `--sbfl` instead of `--file/--method`: Ochiai over coverage.py per-test coverage picks
/// `sum_to` (lines 1-5 of python_programs/sum_to.py), and the replayed Python session (the
/// library replay's last three recordings) repairs it.
#[test]
fn repair_sbfl_python_replay() {
    let python = std::env::var("FIXDEX_PYTHON").expect("FIXDEX_PYTHON (scripts/test.sh sets it)");
    let dir = tempfile::tempdir().unwrap();
    let rec = recordings(dir.path(), 3);
    let report = dir.path().join("report.json");
    let root = minibugs();
    let build = format!("{python} -m py_compile python_programs/sum_to.py");
    let test = format!("{python} -m pytest -q -p no:cacheprovider --timeout=3 python_testcases/test_sum_to.py");
    let out = fixdex(
        &[
            "repair",
            "--project",
            root.to_str().unwrap(),
            "--sbfl",
            "--sbfl-pytest-args",
            "python_testcases/test_sum_to.py",
            "--sbfl-source",
            "python_programs",
            "--build-cmd",
            &build,
            "--test-cmd",
            &test,
            "--replay",
            rec.to_str().unwrap(),
            "--llm-model",
            "replayed-model",
            "--patches",
            "2",
            "--suggestions",
            "1",
            "--report",
            report.to_str().unwrap(),
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("SBFL (Ochiai): sum_to 1-5 in python_programs/sum_to.py"), "{}", stderr(&out));
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["outcome"], "plausible");
    assert_eq!(r["fault_localization"]["chosen"]["name"], "sum_to");
    assert_eq!(r["bug"]["file"], "python_programs/sum_to.py");
    // --sbfl and --method exclude each other; no location at all is a usage error.
    let out =
        fixdex(&["repair", "--project", root.to_str().unwrap(), "--test-cmd", "true", "--sbfl", "--method", "x"], None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = fixdex(&["repair", "--project", root.to_str().unwrap(), "--test-cmd", "true"], None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// Records a scripted session on `bug` into `rec` with the settings `fixdex repair` uses for
/// `--llm-model replayed-model --attempts 1 --suggestions 1 --patches 1 --test-cmd TEST`
/// (the recordings key on the requests, and the prompts do not depend on `--failing-test`).
fn record_session(rec: &std::path::Path, bug: &repair::run::bug::Bug, test: &str, scripts: Vec<repair::llm::Script>) {
    record_session_with(rec, bug, test, scripts, repair::run::config::RunConfig::default().max_tokens);
}

/// [`record_session`] with `max_tokens` as each request's reply limit (`--max-reply-tokens`).
fn record_session_with(
    rec: &std::path::Path,
    bug: &repair::run::bug::Bug,
    test: &str,
    scripts: Vec<repair::llm::Script>,
    max_tokens: Option<u32>,
) {
    use repair::run::config::RunConfig;
    use repair::run::workflow::Workflow;
    use repair::strategies::reinfix::ReinFix;
    use repair::validate::{CommandSpec, Validator};
    let client = repair::llm::RecordingClient::create(repair::llm::ScriptedClient::new(scripts), rec).unwrap();
    let config = RunConfig { model: "replayed-model".into(), max_tokens, ..RunConfig::default() };
    let reinfix = ReinFix { attempts: 1, suggestions: 1, patches: 1, ..ReinFix::default() };
    let validator = Validator {
        build: None,
        test: CommandSpec::Shell(test.into()),
        timeout: std::time::Duration::from_secs(300),
        env: Vec::new(),
        reference: None,
        fail_fast: None,
    };
    Workflow::new(&client, None, validator, config).with_strategy(Box::new(reinfix)).run(bug);
}

fn brokentest() -> std::path::PathBuf {
    repo().join("repair/tests/fixtures/brokentest")
}

/// `fixdex repair` on the brokentest fixture (`add` subtracts; `test_needs_service` fails on
/// any version) with a replayed session.
fn repair_brokentest(rec: &std::path::Path, test: &str, extra: &[&str]) -> std::process::Output {
    let root = brokentest();
    let mut args = vec!["repair", "--project", root.to_str().unwrap(), "--file", "calc.py", "--method", "add"];
    args.extend(["--test-cmd", test, "--replay", rec.to_str().unwrap(), "--llm-model", "replayed-model"]);
    args.extend(["--attempts", "1", "--suggestions", "1", "--patches", "1", "--json"]);
    args.extend(extra);
    fixdex(&args, None)
}

fn brokentest_bug() -> repair::run::bug::Bug {
    repair::run::bug::Bug {
        id: None,
        root: brokentest(),
        file: "calc.py".into(),
        location: repair::run::bug::Location::Method("add".into()),
        failing_tests: Vec::new(),
    }
}

/// Issue 8, item 12 through the CLI: with `--failing-test test_add` the fix is plausible
/// (exit 0) although an unrelated test still fails, and stderr warns about that test;
/// without it every test must pass (exit 4), and stderr says how to tolerate the test.
#[test]
fn issue_8_repair_cli_tolerates_a_named_bugs_unrelated_failing_test() {
    use repair::llm::Script;
    let python = std::env::var("FIXDEX_PYTHON").expect("FIXDEX_PYTHON (scripts/test.sh sets it)");
    let test = format!("{python} -m pytest -q -p no:cacheprovider tests");
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("session.jsonl");
    let fix = "<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE";
    let scripts =
        vec![Script::text("ROOT CAUSE: `add` subtracts."), Script::text("SUGGESTION 1: add."), Script::text(fix)];
    record_session(&rec, &brokentest_bug(), &test, scripts);

    let report = dir.path().join("named.json");
    let out = repair_brokentest(&rec, &test, &["--failing-test", "test_add", "--report", report.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = stdout_json(&out);
    assert_eq!(r["outcome"], "plausible");
    assert_eq!(
        r["plausibility"]["preexisting_failures"],
        serde_json::json!(["tests/test_service.py::test_needs_service"])
    );
    assert!(
        stderr(&out).contains(
            "warning: 1 test(s) fail on the buggy version but are not among the named failing tests: \
                               tests/test_service.py::test_needs_service"
        ),
        "{}",
        stderr(&out)
    );

    let report = dir.path().join("unnamed.json");
    let out = repair_brokentest(&rec, &test, &["--report", report.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["plausibility"]["rule"], "all_tests_pass");
    assert!(stderr(&out).contains("name the bug's failing tests (--failing-test)"), "{}", stderr(&out));
}

/// Issue 8, item 9 through the CLI: tool calls that stay malformed after the re-asks leave
/// the root cause undetermined; the solution phase runs, and with no plausible patch the exit
/// code is 4 (no plausible patch), not 1.
#[test]
fn issue_8_repair_cli_malformed_tool_calls_exit_4() {
    use repair::llm::Script;
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("session.jsonl");
    let test = "grep -q 'a + b' calc.py";
    let wrong = "<<<<<<< SEARCH\n    return a - b\n=======\n    return b - a\n>>>>>>> REPLACE";
    let scripts = vec![
        Script::text("ROOT CAUSE: NONE"),
        Script::tool_call("read_whole_repo", &serde_json::json!({})),
        Script::raw_tool_call("find_method_in_file", "{\"file\": "),
        Script::raw_tool_call("find_method_in_file", "{\"file\": "),
        Script::text("SUGGESTION 1: swap the operands."),
        Script::text(wrong),
    ];
    record_session(&rec, &brokentest_bug(), test, scripts);
    let report = dir.path().join("report.json");
    let out = repair_brokentest(&rec, test, &["--report", report.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["outcome"], "no_plausible_patch");
    assert_eq!(r["root_cause_source"], "undetermined");
    assert_eq!(r["degraded"][0]["phase"], "react");
    assert!(
        stderr(&out).contains("warning: the model's reply to the react request (turn 1) was unusable"),
        "{}",
        stderr(&out)
    );
}

/// Issue 9, fault 5 through the CLI: `--max-reply-tokens` sets each request's `max_tokens`
/// (the replayed session was recorded with 512, so any other value would miss the
/// recordings), `--max-total-tokens` is the run's token budget (`--max-tokens` still works as
/// its old name), and `--llm-timeout` is a real flag that `--help` lists.
#[test]
fn issue_9_repair_cli_reply_total_token_and_timeout_flags() {
    use repair::llm::Script;
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("session.jsonl");
    let test = "grep -q 'a + b' calc.py";
    let fix = "<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE";
    let scripts =
        vec![Script::text("ROOT CAUSE: `add` subtracts."), Script::text("SUGGESTION 1: add."), Script::text(fix)];
    record_session_with(&rec, &brokentest_bug(), test, scripts, Some(512));

    let report = dir.path().join("report.json");
    let report = report.to_str().unwrap();
    for total in ["--max-total-tokens", "--max-tokens"] {
        let extra = ["--max-reply-tokens", "512", total, "100000", "--llm-timeout", "30", "--report", report];
        let out = repair_brokentest(&rec, test, &extra);
        assert_eq!(out.status.code(), Some(0), "{total}: {}", stderr(&out));
        let r = stdout_json(&out);
        assert_eq!(
            (r["config"]["max_tokens"].as_u64(), r["config"]["budget"]["max_tokens"].as_u64()),
            (Some(512), Some(100_000))
        );
    }
    let out = repair_brokentest(&rec, test, &["--report", report]);
    assert_ne!(out.status.code(), Some(0), "the default reply limit (2048) is not what was recorded");
    let help = String::from_utf8(fixdex(&["repair", "--help"], None).stdout).unwrap();
    for flag in ["--llm-timeout", "--max-reply-tokens", "--max-total-tokens"] {
        assert!(help.contains(flag), "{flag} missing from --help:\n{help}");
    }
    assert!(!help.contains("--max-tokens "), "the old name is a hidden alias:\n{help}");
    // A zero budget is refused up front (a run with no model is `--strategy patterns`).
    for zero in ["--max-calls", "--max-total-tokens"] {
        let out = repair_brokentest(&rec, test, &[zero, "0", "--report", report]);
        assert_eq!(out.status.code(), Some(2), "{zero} 0: {}", stderr(&out));
        assert!(stderr(&out).contains(zero) && stderr(&out).contains("0 is not in 1.."), "{}", stderr(&out));
    }
}

/// Issue 9, fault 5 through the CLI: with `--max-wall-s 4` and a server that would answer
/// the first request only after 60 s, the call is cut off at the wall limit and `fixdex
/// repair` ends at once with exit 4 (`timeout`), not after the server's 60 s and not as an
/// error (exit 1).
#[test]
fn issue_9_repair_cli_wall_limit_cuts_a_slow_server() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let Ok((mut stream, _)) = listener.accept() else { return };
        let _ = stream.read(&mut [0; 65536]);
        std::thread::sleep(std::time::Duration::from_secs(60));
        let _ = stream.write_all(b"HTTP/1.1 500 X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    });
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let root = brokentest();
    let started = std::time::Instant::now();
    let out = fixdex(
        &[
            "repair",
            "--project",
            root.to_str().unwrap(),
            "--file",
            "calc.py",
            "--method",
            "add",
            "--test-cmd",
            "grep -q 'a + b' calc.py",
            "--llm-url",
            &url,
            "--llm-model",
            "m",
            "--max-wall-s",
            "4",
            "--report",
            report.to_str().unwrap(),
            "--json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "{:?}", started.elapsed());
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["outcome"], "timeout");
    assert_eq!(r["server"]["endpoint"], url.as_str());
}

/// Issue 10: `fixdex eval quixbugs --check` is the benchmark check (`bench quixbugs --oracle
/// ground-truth` before): every buggy program fails and every developer fix is plausible.
#[test]
fn issue_10_eval_quixbugs_check_on_minibugs() {
    let root = minibugs();
    let truth = root.join("quixbugs.jsonl");
    for lang in ["java", "python"] {
        let args = ["eval", "quixbugs", "--check", "--root", root.to_str().unwrap(), "--lang", lang];
        let out = fixdex(&[&args[..], &["--ground-truth", truth.to_str().unwrap(), "--json"]].concat(), None);
        assert!(out.status.success(), "{lang}: {}", stderr(&out));
        assert!(!stderr(&out).contains("deprecated"), "{}", stderr(&out));
        let s = stdout_json(&out);
        assert_eq!(
            (s["total"].as_u64(), s["buggy_failed"].as_u64(), s["fixed_plausible"].as_u64()),
            (Some(2), Some(2), Some(2)),
            "{lang}: {s}"
        );
    }
}

/// Issue 10: `fixdex eval quixbugs` runs the repair strategy (the replayed SUM_TO session)
/// and names the strategy in the summary; `--strategy` takes only known names.
#[test]
fn issue_10_eval_quixbugs_runs_the_strategy() {
    let dir = tempfile::tempdir().unwrap();
    let rec = recordings(dir.path(), 0);
    let root = minibugs();
    let truth = root.join("quixbugs.jsonl");
    let mut args = vec!["eval", "quixbugs", "--root", root.to_str().unwrap(), "--lang", "java", "--programs", "SUM_TO"];
    args.extend(["--ground-truth", truth.to_str().unwrap(), "--replay", rec.to_str().unwrap()]);
    args.extend(["--llm-model", "replayed-model", "--patches", "2", "--suggestions", "1", "--json"]);
    let out = fixdex(&[&args[..], &["--strategy", "reinfix"]].concat(), None);
    assert!(out.status.success(), "{}", stderr(&out));
    let s = stdout_json(&out);
    assert_eq!((s["total"].as_u64(), s["plausible"].as_u64(), s["calls"].as_u64()), (Some(1), Some(1), Some(3)), "{s}");
    assert_eq!(s["strategy"], "reinfix", "{s}");
    let out = fixdex(&[&args[..], &["--strategy", "nope"]].concat(), None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("[possible values: reinfix, patterns, tracerepair, unidebugger]"),
        "{}",
        stderr(&out)
    );
}

/// Issue 10: `fixdex bench quixbugs` still works for one release, hidden from `bench --help`,
/// with a one-line note on stderr naming the new spelling.
#[test]
fn issue_10_bench_quixbugs_is_a_hidden_deprecated_alias() {
    let help = fixdex(&["bench", "--help"], None);
    assert!(help.status.success());
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(text.contains("ann") && !text.contains("quixbugs"), "{text}");
    let root = minibugs();
    let truth = root.join("quixbugs.jsonl");
    let args = ["bench", "quixbugs", "--root", root.to_str().unwrap(), "--lang", "java", "--programs", "SUM_TO"];
    let out = fixdex(&[&args[..], &["--ground-truth", truth.to_str().unwrap(), "--json"]].concat(), None);
    assert!(out.status.success(), "{}", stderr(&out));
    let notes: Vec<String> = stderr(&out).lines().filter(|l| l.contains("deprecated")).map(String::from).collect();
    assert_eq!(notes.len(), 1, "{}", stderr(&out));
    assert!(notes[0].contains("`fixdex eval quixbugs --check`"), "{}", notes[0]);
    assert_eq!(stdout_json(&out)["fixed_plausible"], 1);
}

/// Issue 10: `fixdex repair --strategy` takes only known strategies and lists them.
#[test]
fn issue_10_repair_refuses_an_unknown_strategy() {
    let root = minibugs();
    let args = ["repair", "--project", root.to_str().unwrap(), "--test-cmd", "true"];
    let location = ["--file", "java_programs/SUM_TO.java", "--method", "sum_to"];
    let out = fixdex(&[&args[..], &location, &["--strategy", "nope"]].concat(), None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("invalid value 'nope' for '--strategy")
            && err.contains("[possible values: reinfix, patterns, tracerepair, unidebugger]"),
        "{err}"
    );
    // The known one gets past argument parsing (to the missing model).
    let out = fixdex(&[&args[..], &location, &["--strategy", "reinfix"]].concat(), None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("no LLM configured"), "{}", stderr(&out));
}

/// Issue 11, item 5 (first part): `fixdex repair --strategy patterns` repairs SUM_TO with no
/// model and no model options: a fix template (the loop bound `<` → `<=`) validated by the
/// project's tests; the report names the strategy, the `none` client and no LLM call; bad
/// `--lines` and a `--file` outside the project are refused before anything runs, and so is
/// `--no-retrieval` with another strategy.
#[test]
fn issue_11_repair_with_patterns_needs_no_model() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let root = minibugs();
    let mut args = vec!["repair", "--strategy", "patterns", "--project", root.to_str().unwrap()];
    args.extend(["--file", "java_programs/SUM_TO.java", "--method", "sum_to", "--build-cmd", BUILD]);
    args.extend(["--test-cmd", TEST, "--failing-test", "SUM_TO_TEST#test_1", "--report", report.to_str().unwrap()]);
    let out = fixdex(&args, None);
    assert!(out.status.success(), "{}", stderr(&out));
    let diff = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(diff.contains("+        for (int i = 1; i <= n; i++) {"), "{diff}");
    assert!(stderr(&out).contains("plausible: "), "{}", stderr(&out));
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!((r["strategy"].as_str(), r["outcome"].as_str()), (Some("patterns"), Some("plausible")), "{r:#}");
    assert_eq!((r["client"]["kind"].as_str(), r["synthetic"].as_bool()), (Some("none"), Some(false)));
    assert_eq!(r["llm"]["calls"], 0);
    assert_eq!(r["details"]["order"], "prior");
    assert!(r["details"]["first_plausible_at"].as_u64().is_some_and(|k| k >= 1), "{r:#}");
    // Every plausible patch's diff is in the report, to judge overfitting.
    let first = r["details"]["plausible"][0]["diff"].as_str().unwrap_or_default();
    assert!(first.contains("+        for (int i = 1; i <= n; i++) {"), "{r:#}");
    // A replay file given to a strategy that calls no model is said to be unused.
    let out = fixdex(&[&args[..], &["--replay", "/nonexistent/session.jsonl"]].concat(), None);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("warning: --strategy patterns calls no model: --replay /nonexistent/session.jsonl is not used"),
        "{}",
        stderr(&out)
    );
    // So are budgets and prices, and retrieval options without --index.
    let extra = ["--max-calls", "5", "--price-in", "0.5", "--space", "code", "--threshold", "0.3"];
    let out = fixdex(&[&args[..], &extra].concat(), None);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("calls no model: --max-calls 5, --price-in 0.5 are not used"), "{err}");
    assert!(err.contains("warning: --space and --threshold without --index: no similar fix is searched"), "{err}");
    let plain = stderr(&fixdex(&args, None));
    assert!(!plain.contains("not used"), "no such warning without such options: {plain}");
    // --no-retrieval is the patterns strategy's ablation; ReinFix refuses it.
    let mut reinfix: Vec<&str> = args.iter().map(|a| if *a == "patterns" { "reinfix" } else { a }).collect();
    reinfix.push("--no-retrieval");
    let out = fixdex(&reinfix, None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--no-retrieval applies to --strategy patterns"), "{}", stderr(&out));

    let bad = |code: i32, extra: &[&str]| {
        let mut a = vec!["repair", "--strategy", "patterns", "--project", root.to_str().unwrap()];
        a.extend(["--test-cmd", "false", "--report", report.to_str().unwrap()]);
        a.extend(extra);
        let out = fixdex(&a, None);
        assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
        stderr(&out)
    };
    let reversed = bad(2, &["--file", "java_programs/SUM_TO.java", "--lines", "5-3"]);
    assert!(reversed.contains("--lines 5-3: lines are 1-based and START must not be after END"), "{reversed}");
    let past = bad(2, &["--file", "java_programs/SUM_TO.java", "--lines", "1000-1001"]);
    assert!(past.contains("--lines 1000-1001: java_programs/SUM_TO.java has "), "{past}");
    assert!(!past.contains("candidates tried"), "refused before any run: {past}");
    let outside = bad(1, &["--file", "../../../../README.md", "--lines", "1-3"]);
    assert!(outside.contains("is not a file under --project"), "{outside}");
}

/// Issue 32, item 3: `--strategy patterns,reinfix` runs the templates first and ReinFix
/// only when they find no plausible patch. A model must be given up front (a run cannot know
/// in advance whether the templates fix the bug): without one the run is refused before
/// anything runs, naming the stage that needs it. With a replay that holds no recording, SUM_TO
/// is fixed by `patterns` and the model is never asked; `fixdex repair` says which stage fixed
/// it, and `fixdex eval quixbugs` counts the bugs each stage fixed and the cost per plausible
/// bug.
#[test]
fn issue_32_repair_chain_patterns_then_reinfix() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let root = minibugs();
    let mut args = vec!["repair", "--strategy", "patterns,reinfix", "--project", root.to_str().unwrap()];
    args.extend(["--file", "java_programs/SUM_TO.java", "--method", "sum_to", "--build-cmd", BUILD]);
    args.extend(["--test-cmd", TEST, "--failing-test", "SUM_TO_TEST#test_1", "--report", report.to_str().unwrap()]);
    let out = fixdex(&args, None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("stage 2 (reinfix) calls a model") && err.contains("no LLM configured"), "{err}");
    assert!(!report.exists(), "refused before anything ran");

    args.extend(["--replay", empty.to_str().unwrap(), "--llm-model", "replayed-model"]);
    let out = fixdex(&args, None);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("+        for (int i = 1; i <= n; i++) {"));
    let err = stderr(&out);
    assert!(err.contains("chain patterns,reinfix: fixed by patterns (stage 1 of 2)\n  patterns: plausible, "), "{err}");
    assert!(err.contains(", 0 LLM calls, 0 tokens, $0.0000, "), "{err}");
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!((r["strategy"].as_str(), r["outcome"].as_str()), (Some("patterns,reinfix"), Some("plausible")));
    assert_eq!((r["llm"]["calls"].as_u64(), r["details"]["fixed_by"].as_str()), (Some(0), Some("patterns")), "{r:#}");
    assert_eq!(r["details"]["stages"].as_array().map(Vec::len), Some(1), "ReinFix never ran: {r:#}");
    // A replay recorded for ReinFix alone: the templates fix the bug first and its recordings
    // are not needed, which is no error (the patch is printed, exit 0, a note).
    let session = recordings(dir.path(), 0);
    let with_session: Vec<&str> =
        args.iter().map(|a| if *a == empty.to_str().unwrap() { session.to_str().unwrap() } else { a }).collect();
    let out = fixdex(&with_session, None);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("+        for (int i = 1; i <= n; i++) {"));
    assert!(stderr(&out).contains("note: the run ended early; 3 recording(s)"), "{}", stderr(&out));

    let truth = root.join("quixbugs.jsonl");
    let mut eval = vec!["eval", "quixbugs", "--root", root.to_str().unwrap(), "--lang", "java", "--programs", "SUM_TO"];
    eval.extend(["--ground-truth", truth.to_str().unwrap(), "--strategy", "patterns,reinfix"]);
    eval.extend(["--replay", empty.to_str().unwrap(), "--llm-model", "replayed-model", "--json"]);
    let out = fixdex(&eval, None);
    assert!(out.status.success(), "{}", stderr(&out));
    let s = stdout_json(&out);
    assert_eq!(
        (s["strategy"].as_str(), s["plausible"].as_u64(), s["calls"].as_u64()),
        (Some("patterns,reinfix"), Some(1), Some(0)),
        "{s}"
    );
    assert_eq!((s["cost_usd"].as_f64(), s["cost_usd_per_plausible"].as_f64()), (Some(0.0), Some(0.0)), "{s}");
    assert_eq!(s["chain"]["fixed_by"], serde_json::json!({"patterns": 1, "reinfix": 0}), "{s}");
    assert_eq!(s["programs"][0]["chain"]["fixed_by"], "patterns", "{s}");
}

/// Issue 13: `fixdex repair --strategy tracerepair --replay` end to end on the replayed Java
/// SUM_TO session (the library's TraceRepair recordings: probe request with a rolled-back
/// probe, three proposals, two debate rounds): exit 0 with the patch; then with a budget
/// that runs out mid-debate (five calls): exit 4, and the report is complete as far as the
/// run got (probes with the rolled-back one, the trace, the three first hypotheses).
#[test]
fn issue_13_tracerepair_budget_exhausted_mid_debate_exit_4() {
    let dir = tempfile::tempdir().unwrap();
    let all = std::fs::read_to_string(repo().join("repair/tests/fixtures/replay/tracerepair-minibugs.jsonl")).unwrap();
    let rec = dir.path().join("session.jsonl");
    std::fs::write(&rec, all.lines().take(21).map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let report = dir.path().join("report.json");
    let root = minibugs();
    let args = [
        "repair",
        "--strategy",
        "tracerepair",
        "--project",
        root.to_str().unwrap(),
        "--file",
        "java_programs/SUM_TO.java",
        "--method",
        "sum_to",
        "--build-cmd",
        BUILD,
        "--test-cmd",
        TEST,
        "--replay",
        rec.to_str().unwrap(),
        "--llm-model",
        "replayed-model",
        "--llm-context",
        "32768",
        "--report",
        report.to_str().unwrap(),
    ];
    // The whole recorded session: the causal agent's round-2 update is plausible, exit 0.
    let out = fixdex(&args, None);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("+        for (int i = 1; i <= n; i++) {"));
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!((r["details"]["ended"].as_str(), r["llm"]["calls"].as_u64()), (Some("round_2"), Some(21)), "{r:#}");
    assert!(stderr(&out).contains("SYNTHETIC"), "{}", stderr(&out));

    // A budget of five calls runs out in round 1's critiques.
    let args = [&args[..], &["--max-calls", "5"]].concat();
    let out = fixdex(&args, None);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!((r["outcome"].as_str(), r["strategy"].as_str()), (Some("budget_exhausted"), Some("tracerepair")));
    assert_eq!(r["llm"]["calls"], 5);
    let d = &r["details"];
    assert_eq!(d["ended"], "running", "{d:#}");
    assert_eq!(d["probe"]["collected"]["rolled_back"], 1, "{d:#}");
    assert!(d["probe"]["collected"]["trace"]["text"].as_str().unwrap().contains("L7 total=45"));
    assert_eq!(d["rounds"][0]["hypotheses"].as_array().unwrap().len(), 3, "{d:#}");
    assert_eq!(d["rounds"][1]["critiques"].as_array().unwrap().len(), 1, "the one critique made: {d:#}");
    assert!(stderr(&out).contains("the run ended early"), "{}", stderr(&out));
}

/// Issue 13: `fixdex eval quixbugs --strategy tracerepair --probe auto --trace-only` needs
/// no model, instruments every program and reports the probe reliability; TraceRepair's
/// flags are refused with another strategy.
#[test]
fn issue_13_eval_quixbugs_trace_only_reports_probe_reliability() {
    let root = minibugs();
    let truth = root.join("quixbugs.jsonl");
    let mut args = vec!["eval", "quixbugs", "--root", root.to_str().unwrap(), "--lang", "java"];
    args.extend(["--ground-truth", truth.to_str().unwrap(), "--strategy", "tracerepair"]);
    args.extend(["--probe", "auto", "--trace-only", "--json"]);
    let out = fixdex(&args, None);
    assert!(out.status.success(), "{}", stderr(&out));
    let s = stdout_json(&out);
    let p = &s["probes"];
    assert_eq!((p["programs"].as_u64(), p["instrumented"].as_u64()), (Some(2), Some(2)), "{s:#}");
    assert_eq!(p["nonempty_traces"].as_u64(), Some(2), "{s:#}");
    assert_eq!(
        (s["calls"].as_u64(), s["trace_only"].as_u64(), s["no_plausible"].as_u64()),
        (Some(0), Some(2), Some(0))
    );
    for b in s["programs"].as_array().unwrap() {
        assert!(b["probes"]["trace_lines"].as_u64().unwrap() > 0, "{b:#}");
    }

    // One bug: exit 0, outcome `trace_only`, the trace summarised on stderr.
    let mut one = vec!["repair", "--strategy", "tracerepair", "--probe", "auto", "--trace-only", "--json"];
    one.extend(["--project", root.to_str().unwrap(), "--file", "java_programs/SUM_TO.java", "--method", "sum_to"]);
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("trace.json");
    one.extend(["--build-cmd", BUILD, "--test-cmd", TEST, "--report", report.to_str().unwrap()]);
    let out = fixdex(&one, None);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout_json(&out)["outcome"], "trace_only");
    assert!(stderr(&out).contains("trace: ") && stderr(&out).contains("2 of 2 probes injected"), "{}", stderr(&out));
    // Model probes without a model: the error says that auto probes need none.
    let model_probes: Vec<&str> = one.iter().filter(|a| !matches!(**a, "--probe" | "auto")).copied().collect();
    let out = fixdex(&model_probes, None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("--probe auto needs no model"), "{}", stderr(&out));

    // Another strategy's option is a usage error (exit 2), as an unknown option is.
    let wrong = ["repair", "--project", root.to_str().unwrap(), "--test-cmd", "true", "--file"];
    let out =
        fixdex(&[&wrong[..], &["java_programs/SUM_TO.java", "--method", "sum_to", "--probe", "auto"]].concat(), None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--probe applies to --strategy tracerepair"), "{}", stderr(&out));
    let out = fixdex(&[&args[..], &["--rounds", "2"]].concat(), None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("which --trace-only skips"), "{}", stderr(&out));
}

/// The library's UniDebugger recordings (`repair/tests/fixtures/replay/unidebugger-minibugs.jsonl`),
/// lines `from..to`, written to `dir/session.jsonl`.
fn unidebugger_session(dir: &std::path::Path, from: usize, to: usize) -> std::path::PathBuf {
    let all = std::fs::read_to_string(repo().join("repair/tests/fixtures/replay/unidebugger-minibugs.jsonl")).unwrap();
    let lines: Vec<&str> = all.lines().filter(|l| !l.trim().is_empty()).collect();
    let to = if to == usize::MAX { lines.len() } else { to };
    let rec = dir.join("session.jsonl");
    std::fs::write(&rec, lines[from..to].iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    rec
}

/// Issue 14: `fixdex repair --strategy unidebugger --replay` on Java SUM_TO. The library's
/// first scenario (three recordings: a Locator answer refused, the re-asked marks, the
/// Fixer's patch) is fixed at L1: exit 0 with the patch. The last scenario (fifteen
/// recordings, `--passes 1`, no index) exhausts L1, L2, L3 and the reflection: exit 4 and a
/// complete report.
#[test]
fn issue_14_unidebugger_fixed_at_l1_and_exhausted_exit_4() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let root = minibugs();
    let base = |rec: &std::path::Path| -> Vec<String> {
        let mut a: Vec<String> = ["repair", "--strategy", "unidebugger", "--project"].map(String::from).to_vec();
        a.push(root.display().to_string());
        for (k, v) in [
            ("--file", "java_programs/SUM_TO.java"),
            ("--method", "sum_to"),
            ("--build-cmd", BUILD),
            ("--test-cmd", TEST),
            ("--llm-model", "replayed-model"),
            ("--llm-context", "32768"),
        ] {
            a.extend([k.to_string(), v.to_string()]);
        }
        a.extend(["--replay".into(), rec.display().to_string(), "--report".into(), report.display().to_string()]);
        a
    };
    let rec = unidebugger_session(dir.path(), 0, 3);
    let args = base(&rec);
    let out = fixdex(&args.iter().map(String::as_str).collect::<Vec<_>>(), None);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("+        for (int i = 1; i <= n; i++) {"));
    assert!(
        stderr(&out).contains("escalation: reached L1, plausible at L1, 1 candidates validated"),
        "{}",
        stderr(&out)
    );
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!((r["strategy"].as_str(), r["details"]["ended"].as_str()), (Some("unidebugger"), Some("plausible")));
    assert!(r["details"]["marks"][0]["marked"]["refused"][0].as_str().unwrap().contains("not a line"), "{r:#}");
    // `--ignore`: an ignored folder is left out of the copies (the run is the same); a path
    // that is not in the project, or one holding the buggy file, is refused.
    let ignoring = |p: &str| [&args[..], &["--ignore".to_string(), p.to_string()]].concat();
    let out = fixdex(&ignoring("python_programs").iter().map(String::as_str).collect::<Vec<_>>(), None);
    assert!(out.status.success(), "{}", stderr(&out));
    for (p, why) in [("nope", "is not a path under --project"), ("java_programs", "holds the buggy --file")] {
        let out = fixdex(&ignoring(p).iter().map(String::as_str).collect::<Vec<_>>(), None);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(stderr(&out).contains(why), "{}", stderr(&out));
    }

    let all = std::fs::read_to_string(repo().join("repair/tests/fixtures/replay/unidebugger-minibugs.jsonl")).unwrap();
    let total = all.lines().filter(|l| !l.trim().is_empty()).count();
    let rec = unidebugger_session(dir.path(), total - 15, usize::MAX);
    let mut args = base(&rec);
    args.extend(["--passes".into(), "1".into()]);
    let out = fixdex(&args.iter().map(String::as_str).collect::<Vec<_>>(), None);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).contains("escalation: reached reflection, 8 candidates validated"), "{}", stderr(&out));
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["outcome"], "no_plausible_patch", "{r:#}");
    let d = &r["details"];
    assert_eq!(
        (d["ended"].as_str(), d["level"].as_str(), d["validations"].as_u64()),
        (Some("exhausted"), Some("reflection"), Some(8))
    );
    assert_eq!(d["agents"].as_array().unwrap().len(), 15, "{d:#}");
    assert_eq!(r["candidates"].as_array().unwrap().len(), 8);
    assert!(d["repofocus"]["chosen"].as_array().is_some_and(|c| !c.is_empty()), "{d:#}");

    // UniDebugger's flags are refused with another strategy, and TraceRepair's with it.
    let mut wrong = base(&rec);
    wrong[2] = "reinfix".into();
    wrong.extend(["--passes".into(), "1".into()]);
    let out = fixdex(&wrong.iter().map(String::as_str).collect::<Vec<_>>(), None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--passes applies to --strategy unidebugger"), "{}", stderr(&out));
    let mut wrong = base(&rec);
    wrong.extend(["--rounds".into(), "2".into()]);
    let out = fixdex(&wrong.iter().map(String::as_str).collect::<Vec<_>>(), None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// Issue 14: `fixdex eval quixbugs --strategy unidebugger --json` reports per level the
/// programs that ended there, with calls, tokens and time per bug (SUM_TO, replayed: fixed
/// at L1).
#[test]
fn issue_14_eval_quixbugs_reports_levels() {
    let dir = tempfile::tempdir().unwrap();
    let rec = unidebugger_session(dir.path(), 0, 3);
    let root = minibugs();
    let truth = root.join("quixbugs.jsonl");
    let mut args = vec!["eval", "quixbugs", "--root", root.to_str().unwrap(), "--lang", "java"];
    args.extend(["--ground-truth", truth.to_str().unwrap(), "--strategy", "unidebugger", "--programs", "SUM_TO"]);
    args.extend([
        "--replay",
        rec.to_str().unwrap(),
        "--llm-model",
        "replayed-model",
        "--llm-context",
        "32768",
        "--json",
    ]);
    let out = fixdex(&args, None);
    assert!(out.status.success(), "{}", stderr(&out));
    let s = stdout_json(&out);
    assert_eq!((s["plausible"].as_u64(), s["strategy"].as_str()), (Some(1), Some("unidebugger")), "{s:#}");
    let l1 = &s["levels"]["L1"];
    assert_eq!((l1["ended"].as_u64(), l1["plausible"].as_u64()), (Some(1), Some(1)), "{s:#}");
    assert_eq!(l1["calls_per_bug"].as_f64(), Some(3.0));
    assert!(l1["wall_s_per_bug"].as_f64().unwrap() > 0.0);
    assert_eq!(s["levels"]["L2"]["ended"].as_u64(), Some(0));
    assert!(s["levels"]["L2"]["calls_per_bug"].is_null(), "no mean over no bug: {s:#}");
    assert_eq!(s["programs"][0]["levels"]["plausible_at"], "L1", "{s:#}");
}

/// Issue 29 item 10: a test command that hangs on the buggy version is warned about at
/// once, while the run goes on (a hang can be the bug), and the warning says what each
/// candidate will cost. The child is killed as soon as the warning is read.
#[test]
fn issue_29_repair_warns_at_once_when_the_buggy_tests_hang() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("calc.py"), "def add(a, b):\n    return a - b\n").unwrap();
    let report = dir.path().join("report.json");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_fixdex"))
        .args(["repair", "--strategy", "patterns", "--project", dir.path().to_str().unwrap()])
        .args(["--file", "calc.py", "--method", "add", "--test-cmd", "sleep 30", "--test-timeout-s", "2"])
        .args(["--report", report.to_str().unwrap()])
        .env_remove("RUST_LOG")
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let started = std::time::Instant::now();
    let mut seen = Vec::new();
    let warning = loop {
        let Ok(line) = rx.recv_timeout(std::time::Duration::from_secs(20)) else { break None };
        if line.contains("did not finish within 2 s") {
            break Some(line);
        }
        seen.push(line);
    };
    let took = started.elapsed();
    let still_running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    let warning = warning.unwrap_or_else(|| panic!("no hang warning on stderr:\n{}", seen.join("\n")));
    assert!(warning.contains("the repair goes on") && warning.contains("costs 2 s"), "{warning}");
    assert!(still_running, "the warning comes at once, while the run goes on");
    assert!(took < std::time::Duration::from_secs(15), "{took:?}");
}

/// Issue 29: `python3 -m unittest -v` output is read for `--failing-test`: the named test's
/// failure is checked, an unrelated test that already fails is tolerated (Defects4J's
/// plausibility), so the operator fix of `add` is plausible although `test_other` still
/// fails. Before, no name could be read and every test had to pass.
#[test]
fn issue_29_repair_reads_unittest_output_for_failing_tests() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("calc.py"), "def add(a, b):\n    return a - b\n").unwrap();
    let tests = "import unittest\nfrom calc import add\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        \
                 self.assertEqual(add(2, 3), 5)\n\n    def test_other(self):\n        self.assertEqual(1, 2)\n";
    std::fs::write(root.join("test_calc.py"), tests).unwrap();
    let report = dir.path().join("report.json");
    let out = fixdex(
        &[
            "repair",
            "--strategy",
            "patterns",
            "--project",
            root.to_str().unwrap(),
            "--file",
            "calc.py",
            "--method",
            "add",
            "--test-cmd",
            "python3 -m unittest -v",
            "--failing-test",
            "T.test_add",
            "--report",
            report.to_str().unwrap(),
        ],
        None,
    );
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert!(out.status.success(), "{}\n{r:#}", stderr(&out));
    assert_eq!(r["preflight"]["failing_tests"], serde_json::json!(["test_calc.T.test_add", "test_calc.T.test_other"]));
    assert_eq!(r["preflight"]["failing_tests_known"], true, "{r:#}");
    assert_eq!(r["plausibility"]["rule"], "no_new_failures", "{r:#}");
    assert_eq!(r["plausibility"]["preexisting_failures"], serde_json::json!(["test_calc.T.test_other"]));
    assert!(String::from_utf8_lossy(&out.stdout).contains("+    return a + b"), "{}", stderr(&out));
}

/// `fixdex eval quixbugs` of minibugs' SUM_TO (Java, its ground truth) with `patterns` into
/// run folder `run`: the arguments, for a test to add its own.
fn eval_sum_to(root: &std::path::Path, run: &std::path::Path) -> Vec<String> {
    let truth = root.join("quixbugs.jsonl");
    let (root, truth, run) = (root.display().to_string(), truth.display().to_string(), run.display().to_string());
    ["eval", "quixbugs", "--root", &root, "--lang", "java", "--programs", "SUM_TO", "--ground-truth", &truth]
        .into_iter()
        .chain(["--strategy", "patterns", "--run-dir", &run])
        .map(String::from)
        .collect()
}

/// Issue 31 item 8: `fixdex eval quixbugs --run-dir` joins the run-folder machinery: one
/// folder per program with the developer's version and the graded patches, `--resume`
/// redoes nothing finished, `fixdex eval report` reads the folder.
#[test]
fn issue_31_eval_quixbugs_into_a_run_folder_graded_and_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let root = minibugs();
    let owned = eval_sum_to(&root, &run);
    let mut args: Vec<&str> = owned.iter().map(String::as_str).collect();
    args.push("--json");
    let out = fixdex(&args, None);
    assert!(out.status.success(), "{}", stderr(&out));
    let s = stdout_json(&out);
    assert_eq!((s["summary"]["plausible"].as_u64(), s["summary"]["exact"].as_u64()), (Some(1), Some(1)), "{s}");
    let bug = run.join("bugs/SUM_TO");
    let result: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(bug.join("result.json")).unwrap()).unwrap();
    assert_eq!(
        (result["status"].as_str(), result["best_tier"].as_str()),
        (Some("finished"), Some("exact")),
        "{result}"
    );
    // The kept patch is the developer's fix, token for token.
    let kept = std::fs::read_to_string(bug.join("patches/1/java_programs/SUM_TO.java")).unwrap();
    let fixed = std::fs::read_to_string(bug.join("fixed/java_programs/SUM_TO.java")).unwrap();
    let words = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    assert_eq!(words(&kept), words(&fixed));
    assert_ne!(words(&fixed), words(&std::fs::read_to_string(root.join("java_programs/SUM_TO.java")).unwrap()));
    // Without --resume the folder is refused; with it nothing is redone.
    let again = fixdex(&args, None);
    assert!(!again.status.success() && stderr(&again).contains("--resume"), "{}", stderr(&again));
    let before = std::fs::read_to_string(bug.join("result.json")).unwrap();
    let resumed = fixdex(&[&args[..], &["--resume"]].concat(), None);
    assert!(stderr(&resumed).contains("1 of 1 programs done, 0 to run"), "{}", stderr(&resumed));
    assert_eq!(std::fs::read_to_string(bug.join("result.json")).unwrap(), before, "a finished program was redone");
    // Every option that changes a number is in run.json, as given or defaulted: a budget the
    // first run left to the strategy's default is not given again by name; where the inputs
    // are is not a setting (-j, the run folder).
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
    assert_eq!(record["settings"]["strategy"], "patterns", "{record}");
    assert!(record["settings"].get("max_validations").is_none(), "{record}");
    assert!(record["settings"].get("run_dir").is_none() && record["settings"].get("jobs").is_none(), "{record}");
    let other = fixdex(&[&args[..], &["--resume", "--max-validations", "7"]].concat(), None);
    assert!(
        !other.status.success()
            && stderr(&other).contains("settings.max_validations = (not given: the default), not \"7\""),
        "{}",
        stderr(&other)
    );
    let report = fixdex(&["eval", "report", run.to_str().unwrap(), "--json"], None);
    assert!(report.status.success(), "{}", stderr(&report));
    assert_eq!(stdout_json(&report)["regraded_patches_changed"], 0);
}

/// `eval quixbugs --index`: `run.json` records what the index holds, so `--resume` refuses
/// another index copied to the same path (a run folder an earlier version wrote, without the
/// record, still resumes); a damaged index is refused before any program runs (exit 3), not
/// degraded around by each program.
#[test]
fn eval_resume_refuses_another_index_at_the_same_path_and_a_damaged_index_before_the_run() {
    let s = Scratch::new();
    let idx = s.path("idx.fdx");
    let first = s.corpus("a.jsonl", &crate::common::records(4));
    s.index(&first, &idx, &["--spaces", "code"]);
    let root = minibugs();
    let run = s.path("run");
    let owned = eval_sum_to(&root, &run);
    let mut args: Vec<&str> = owned.iter().map(String::as_str).collect();
    args.extend(["--index", idx.to_str().unwrap()]);
    let out = s.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    // Each program says when it starts, and when it ends.
    assert!(stderr(&out).contains("SUM_TO: started\n[1/1] SUM_TO: "), "{}", stderr(&out));
    let record = || -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap()
    };
    let content = record()["settings"]["index_content"].as_str().unwrap().to_string();
    assert_eq!(content.len(), 16, "{content}");
    // Options only: no option group clap derives (`"RetrievalArgs": "index"`).
    let settings = record()["settings"].as_object().unwrap().clone();
    assert!(settings.keys().all(|k| k.starts_with(|c: char| c.is_ascii_lowercase())), "{settings:?}");
    let resume = [&args[..], &["--resume"]].concat();
    let same = s.run(&resume);
    assert!(same.status.success() && stderr(&same).contains("1 of 1 programs done"), "{}", stderr(&same));
    // The same index at another path: resumes (the path is not compared, the content is).
    let moved = s.path("moved.fdx");
    std::fs::copy(&idx, &moved).unwrap();
    let mut elsewhere = resume.clone();
    let at = elsewhere.iter().position(|a| *a == idx.to_str().unwrap()).unwrap();
    elsewhere[at] = moved.to_str().unwrap();
    let ok = s.run(&elsewhere);
    assert!(ok.status.success(), "{}", stderr(&ok));
    // Without --index: refused.
    let at = resume.iter().position(|a| *a == "--index").unwrap();
    let without = [&resume[..at], &resume[at + 2..]].concat();
    assert!(!s.run(&without).status.success());
    // Another corpus's index copied over the same path.
    let other = s.path("other.fdx");
    s.index(&s.corpus("b.jsonl", &crate::common::records(5)), &other, &["--spaces", "code"]);
    std::fs::copy(&other, &idx).unwrap();
    let refused = s.run(&resume);
    assert!(!refused.status.success(), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("settings.index_content"), "{}", stderr(&refused));
    // A folder without the record (an earlier version's) resumes.
    let mut old = record();
    old["settings"].as_object_mut().unwrap().remove("index_content");
    std::fs::write(run.join("run.json"), old.to_string()).unwrap();
    let resumed = s.run(&resume);
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    // A damaged index: exit 3 before any program runs.
    let mut bytes = std::fs::read(&other).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0xff;
    std::fs::write(&idx, &bytes).unwrap();
    let fresh = s.path("fresh");
    let mut damaged = args.to_vec();
    let at_run = damaged.iter().position(|a| *a == run.to_str().unwrap()).unwrap();
    damaged[at_run] = fresh.to_str().unwrap();
    let out = s.run(&damaged);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(!fresh.join("bugs/SUM_TO/result.json").exists(), "refused before the run");
}

/// Issue 31: a `--bug-id` in the wrong form (`Jsoup-41` when the index stores
/// `defects4j:Jsoup-41`) is refused as soon as the index is opened, exit 2, naming the form
/// the index has; an id no record has in any form is warned about (nothing is excluded) and
/// the run goes on; the right id says nothing.
#[test]
fn issue_31_repair_refuses_a_bug_id_in_the_wrong_form() {
    let s = crate::common::Scratch::new();
    let lines = [
        crate::common::record("defects4j:Jsoup-41", "java", "int a = b - 1;", "int a = b + 1;", "off by one"),
        crate::common::record("defects4j:Lang-1", "java", "if (x > 0) {}", "if (x >= 0) {}", "wrong bound"),
    ];
    let idx = s.path("d4j.fdx");
    let corpus = s.corpus("d4j.jsonl", &lines);
    // the patterns strategy searches the code space
    s.index(&corpus, &idx, &["--spaces", "code"]);
    let root = minibugs();
    let report = s.path("report.json");
    let repair_space = |index: &std::path::Path, bug_id: Option<&str>, space: &[&'static str]| {
        let mut a = vec!["repair", "--strategy", "patterns", "--project", root.to_str().unwrap()];
        a.extend(space);
        a.extend(["--file", "java_programs/SUM_TO.java", "--method", "sum_to", "--build-cmd", "false"]);
        a.extend(["--test-cmd", "false", "--report", report.to_str().unwrap(), "--index", index.to_str().unwrap()]);
        a.extend(bug_id.iter().flat_map(|id| ["--bug-id", id]));
        s.run(&a)
    };
    let repair_with = |index: &std::path::Path, bug_id: Option<&str>| repair_space(index, bug_id, &[]);
    let repair = |bug_id: &str| repair_with(&idx, Some(bug_id));
    for wrong in ["Jsoup-41", "d4j:Jsoup-41", "defects4j:jsoup-41"] {
        let out = repair(wrong);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(&format!(
                "--bug-id `{wrong}` matches no record id in the index; did you mean `defects4j:Jsoup-41`?"
            )),
            "{err}"
        );
        assert!(!report.exists(), "refused before the run");
    }
    // No record in any form: warned about, and the run goes on (here to a failed pre-flight).
    let out = repair("bears:Other-7");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("warning: --bug-id bears:Other-7 names no record of the index; nothing is excluded"));
    assert!(report.exists());
    let out = repair("defects4j:Jsoup-41");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(!stderr(&out).contains("--bug-id"), "{}", stderr(&out));
    // `--space` given to patterns: a space it does not search is said, even the default's
    // name; its own space, or none given, says nothing.
    let said = "warning: --strategy patterns searches the code space: --space code+cause is not used";
    assert!(stderr(&repair_space(&idx, None, &["--space", "code+cause"])).contains(said));
    assert!(!stderr(&repair_space(&idx, None, &["--space", "code"])).contains("--space"));
    assert!(!stderr(&out).contains("--space"));

    // An index without the code space is refused before the run, not warned about per bug.
    std::fs::remove_file(&report).unwrap();
    let cause_only = s.path("cause-only.fdx");
    s.index(&corpus, &cause_only, &[]);
    let out = repair_with(&cause_only, None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("has the space code+cause but --strategy patterns searches the code space")
            && err.contains("--spaces code+cause,code"),
        "{err}"
    );
    assert!(!report.exists(), "refused before the run");
    // With `--no-retrieval` nothing is searched: that index is not refused, and a `--space`
    // is said to be unused.
    let out = repair_space(&cause_only, None, &["--no-retrieval", "--space", "code+cause"]);
    let err = stderr(&out);
    assert!(!err.contains("has the space"), "{err}");
    assert!(err.contains("warning: --strategy patterns searches no space: --space code+cause is not used"), "{err}");
    assert!(report.exists(), "the run went on to its pre-flight");
}

/// Issue 31: `fixdex repair --method 'name(Types)'` locates the overload named (the report's
/// `buggy_lines`), not the first; a bare name that several methods have is refused before
/// the run, listing them with their parameters and lines.
#[test]
fn issue_31_repair_method_picks_the_overload_and_refuses_an_ambiguous_name() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(root.join("src")).unwrap();
    let java = "public class Factory {\n    public Object createArchiveInputStream(final String name, final InputStream in) {\n        return name;\n    }\n\n    public Object createArchiveInputStream(final InputStream in) {\n        return in;\n    }\n}\n";
    std::fs::write(root.join("src/Factory.java"), java).unwrap();
    let report = dir.path().join("report.json");
    let repair = |method: &str| {
        let mut a = vec!["repair", "--strategy", "patterns", "--project", root.to_str().unwrap()];
        a.extend(["--file", "src/Factory.java", "--method", method, "--build-cmd", "false", "--test-cmd", "false"]);
        a.extend(["--report", report.to_str().unwrap()]);
        fixdex(&a, None)
    };
    // The build fails (a pre-flight failure, exit 1) after the location was read.
    let out = repair("createArchiveInputStream(InputStream)");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!((r["outcome"].as_str(), &r["buggy_lines"]), (Some("preflight_failed"), &serde_json::json!([6, 8])));
    std::fs::remove_file(&report).unwrap();

    let out = repair("createArchiveInputStream");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "--method createArchiveInputStream is ambiguous in src/Factory.java: createArchiveInputStream(String, \
             InputStream) line 2, createArchiveInputStream(InputStream) line 6; give one as --method \
             'createArchiveInputStream(InputStream)'"
        ),
        "{}",
        stderr(&out)
    );
    assert!(!report.exists(), "refused before the run");
    let out = repair("createArchiveInputStream(int)");
    assert!(stderr(&out).contains("not found in src/Factory.java"), "{}", stderr(&out));
}

/// Ctrl-C (SIGINT) or a SIGTERM during a validation: fixdex exits 130 / 143 and the test command,
/// which runs in a process group of its own that the signal does not reach, does not outlive
/// it (it used to run on: a candidate looping forever held a core for an hour), nor does the
/// scratch copy of the project it ran in.
#[test]
fn an_interrupted_repair_leaves_no_test_command_behind() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;

    let dir = tempfile::tempdir().unwrap();
    let root = minibugs();
    let pid_file = dir.path().join("pid");
    let cwd_file = dir.path().join("cwd");
    // The pre-flight's test command records where it runs and its pid, and hangs.
    let test = format!("sh -c 'pwd > {}; echo $$ > {}; exec sleep 600'", cwd_file.display(), pid_file.display());
    // Alive: its /proc entry exists and is not a zombie (an orphan's reaper may be slow).
    let alive = |pid: i32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|s| s.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')))
    };
    for signal in [Signal::SIGINT, Signal::SIGTERM] {
        let _ = std::fs::remove_file(&pid_file);
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_fixdex"))
            .args(["repair", "--project", root.to_str().unwrap(), "--file", "java_programs/SUM_TO.java"])
            .args(["--method", "sum_to", "--strategy", "patterns", "--test-cmd", &test])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        let pid = loop {
            if let Some(pid) = std::fs::read_to_string(&pid_file).ok().and_then(|s| s.trim().parse::<i32>().ok()) {
                break pid;
            }
            assert!(started.elapsed().as_secs() < 120, "the test command never started");
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        assert!(alive(pid));
        // The test command can itself be interrupted: fixdex blocks no signal it inherits.
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let blocked = status.lines().find_map(|l| l.strip_prefix("SigBlk:")).unwrap().trim();
        let blocked = u64::from_str_radix(blocked, 16).unwrap();
        assert_eq!(blocked & (1 << (Signal::SIGINT as u64 - 1) | 1 << (Signal::SIGTERM as u64 - 1)), 0, "{status}");
        let scratch = std::path::PathBuf::from(std::fs::read_to_string(&cwd_file).unwrap().trim());
        assert!(scratch.is_dir() && scratch.to_string_lossy().contains("fixdex-scratch-"), "{}", scratch.display());
        kill(Pid::from_raw(child.id() as i32), signal).unwrap();
        let out = child.wait_with_output().unwrap();
        let status = out.status;
        // 128 + the signal, as a shell reports it: 130 for Ctrl-C, 143 for SIGTERM.
        assert_eq!(status.code(), Some(128 + signal as i32), "{signal}: {status:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("fixdex: interrupted ({signal})")), "{signal}");
        assert!(!scratch.parent().unwrap().exists(), "{signal}: the scratch copy {} is left", scratch.display());
        let gone = std::time::Instant::now();
        while alive(pid) && gone.elapsed().as_secs() < 10 {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert!(!alive(pid), "{signal}: the test command {pid} outlived fixdex");
    }
}
