//! `fixdex repair` and `fixdex bench quixbugs` as real processes on the minibugs fixture
//! (javac / JUnit 4 from Debian, pytest from scripts/setup-test-tools.sh).

use crate::common::{fixdex, repo, stderr, stdout_json};

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
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--method NAME or --lines START-END"), "{}", stderr(&out));
    let out = fixdex(&[&base[..], &["nope.java", "--method", "x"]].concat(), None);
    assert!(stderr(&out).contains("nope.java is not a file"), "{}", stderr(&out));
    let out = fixdex(&[&base[..], &["java_programs/SUM_TO.java", "--method", "sum_to"]].concat(), None);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no LLM configured"), "{}", stderr(&out));
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
    assert_eq!(s["programs"][0]["localization"], "sum_to");
    assert!(reports.join("SUM_TO.json").is_file());
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
