//! The QuixBugs harness on `tests/fixtures/minibugs` (a QuixBugs-shaped benchmark written by
//! this project): real javac + JUnit 4 and real pytest runs, in scratch copies.
//! Needs a JDK, Debian's junit4 + libhamcrest-java, and a Python with pytest and
//! pytest-timeout (`FIXDEX_PYTHON`; scripts/test.sh sets one up).

use crate::common::{minibugs, runner};
use std::path::Path;
use std::time::Duration;

use repair::bench::quixbugs::{self, GroundTruth, Lang, Runner};
use repair::patch::Patch;
use repair::validate::Verdict;

#[test]
fn discovers_programs_and_tests() {
    let java = quixbugs::discover(&minibugs(), Lang::Java).unwrap();
    assert_eq!(java.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["SPIN", "SUM_TO"]);
    assert_eq!(java[1].source, Path::new("java_programs/SUM_TO.java"));
    assert_eq!(java[1].test, Path::new("java_testcases/junit/SUM_TO_TEST.java"));
    let py = quixbugs::discover(&minibugs(), Lang::Python).unwrap();
    assert_eq!(py.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["spin", "sum_to"]);
    let e = quixbugs::discover(Path::new(env!("CARGO_MANIFEST_DIR")), Lang::Java).unwrap_err();
    assert!(e.to_string().contains("java_programs not found"), "{e}");
    // In the order named, each once (`SUM_TO,spin,sum_to` used to run SUM_TO twice).
    let names = ["SUM_TO", "spin", "sum_to"].map(String::from);
    let picked = quixbugs::select(java.clone(), &names).unwrap();
    assert_eq!(picked.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["SUM_TO", "SPIN"]);
    let e = quixbugs::select(java, &["NOPE".to_string()]).unwrap_err();
    assert!(e.to_string().contains("unknown java program `NOPE` (known: SPIN, SUM_TO)"), "{e}");
}

/// A Python repair's per-test limit comes from the correct version (QuixBugs' `--correct`):
/// its tests take milliseconds, so the limit is the 2 s floor, and the buggy `spin` loops into
/// it (pytest-timeout's own words name the limit); a root whose `conftest.py` has no
/// `--correct` keeps the configured limit (3 s here). The root is left as it was.
#[test]
fn python_repairs_limit_each_test_from_the_correct_versions_time() {
    let r = runner(Lang::Python);
    let spin = quixbugs::discover(&minibugs(), Lang::Python).unwrap().remove(0);
    assert_eq!(spin.name, "spin");
    let factor = repair::validate::DEFAULT_TIMEOUT_FACTOR;
    assert_eq!(r.per_test_limit(&spin, factor), quixbugs::PER_TEST_FLOOR);
    // `--candidate-timeout-factor 0`: the configured limit.
    assert_eq!(r.per_test_limit(&spin, 0.0), Duration::from_secs(3));
    let scratch = r.scratch().unwrap();
    let v = r.repair_validator(&spin, factor).validate(scratch.root()).unwrap();
    assert_eq!(v.verdict, Verdict::TestFailure, "{}", v.feedback(2000));
    assert!(
        v.feedback(4000).contains("Timeout (>2.0s)") || v.feedback(4000).contains("Timeout >2.0s"),
        "{}",
        v.feedback(4000)
    );
    // The plain validator keeps the configured limit.
    let plain = r.validator(&spin).validate(scratch.root()).unwrap();
    assert!(plain.feedback(4000).contains(">3.0s"), "{}", plain.feedback(4000));
    // No `--correct` in the root's conftest: the configured limit.
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("minibugs");
    let status = std::process::Command::new("cp").arg("-R").arg(minibugs()).arg(&copy).status().unwrap();
    assert!(status.success());
    std::fs::write(copy.join("conftest.py"), "# no --correct here\n").unwrap();
    let mut other = runner(Lang::Python);
    other.root = copy;
    assert_eq!(other.per_test_limit(&spin, factor), Duration::from_secs(3));
    let left: Vec<_> =
        walk(&minibugs()).into_iter().filter(|p| p.contains("__pycache__") || p.ends_with(".xml")).collect();
    assert!(left.is_empty(), "the calibration wrote into the root: {left:?}");
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        out.push(p.display().to_string());
        if p.is_dir() {
            out.extend(walk(&p));
        }
    }
    out
}

/// Buggy programs fail (a failing assertion; an endless loop killed by the test timeout), and
/// the ground-truth diffs applied through the patch path make both plausible.
#[test]
fn ground_truth_oracle_java_and_python() {
    let truth = GroundTruth::load(&minibugs().join("quixbugs.jsonl")).unwrap();
    for lang in [Lang::Java, Lang::Python] {
        let r = runner(lang);
        let programs = quixbugs::discover(&minibugs(), lang).unwrap();
        let s = quixbugs::oracle(&r, &truth, &programs, 2, 1, &|_, _, _| {}).unwrap();
        assert_eq!((s.total, s.buggy_failed, s.fixed_plausible), (2, 2, 2), "{lang}: {s:#?}");
        assert!(s.flaky.is_empty() && s.failed_checks.is_empty(), "{s:#?}");
        let sum = s.programs.iter().find(|c| c.program.eq_ignore_ascii_case("sum_to")).unwrap();
        assert_eq!(sum.buggy.verdict, Some(Verdict::TestFailure));
        // sum_to(1) and sum_to(10) fail; sum_to(0) passes.
        assert_eq!(sum.buggy.failing_tests, 2, "{lang}: {sum:#?}");
    }
}

/// The ground truth's buggy lines are found by content: `sum_to`'s removed loop header (line
/// 6 of the Java file, though the method-relative hunk says 3; line 3 in Python), none for
/// `spin` (its fix only adds a line), none when the file no longer holds the hunk.
#[test]
fn ground_truth_buggy_lines_by_content() {
    let truth = GroundTruth::load(&minibugs().join("quixbugs.jsonl")).unwrap();
    for (lang, want) in [(Lang::Java, 6), (Lang::Python, 3)] {
        let programs = quixbugs::discover(&minibugs(), lang).unwrap();
        let sum = programs.iter().find(|p| p.name.eq_ignore_ascii_case("sum_to")).unwrap();
        let text = std::fs::read_to_string(minibugs().join(&sum.source)).unwrap();
        assert_eq!(
            text.lines().nth(want - 1).map(|l| l.contains("for (int i = 1; i < n") || l.contains("range(1, n)")),
            Some(true)
        );
        assert_eq!(truth.buggy_lines(sum, &text), Some(vec![u32::try_from(want).unwrap()]), "{lang}");
        let spin = programs.iter().find(|p| p.name.eq_ignore_ascii_case("spin")).unwrap();
        let spin_text = std::fs::read_to_string(minibugs().join(&spin.source)).unwrap();
        assert_eq!(truth.buggy_lines(spin, &spin_text), Some(vec![]), "{lang}");
        assert_eq!(truth.buggy_lines(sum, "nothing here\n"), None);
    }
}

#[test]
fn patched_compile_error_and_refused_patch() {
    let r = runner(Lang::Java);
    let programs = quixbugs::discover(&minibugs(), Lang::Java).unwrap();
    let sum = programs.iter().find(|p| p.name == "SUM_TO").unwrap();
    let broken = Patch::parse(
        "<<<<<<< SEARCH\n        return total;\n=======\n        return total\n>>>>>>> REPLACE\n",
        Some(&sum.source),
    )
    .unwrap();
    let v = r.run(sum, Some(&broken)).unwrap().unwrap();
    assert_eq!(v.verdict, Verdict::CompileError);
    assert!(v.feedback(2000).contains("';' expected"), "{}", v.feedback(2000));
    let stale = Patch::parse(
        "<<<<<<< SEARCH\n        return total * 2;\n=======\n        return total;\n>>>>>>> REPLACE\n",
        Some(&sum.source),
    )
    .unwrap();
    let refused = r.run(sum, Some(&stale)).unwrap().unwrap_err();
    assert!(refused.contains("SUM_TO.java"), "{refused}");
    // The benchmark itself is never modified.
    let src = std::fs::read_to_string(minibugs().join(&sum.source)).unwrap();
    assert!(src.contains("i < n;") && src.contains("return total;"));
    assert!(!minibugs().join(".fixdex-classes").exists());

    let py = runner(Lang::Python);
    let programs = quixbugs::discover(&minibugs(), Lang::Python).unwrap();
    let sum = programs.iter().find(|p| p.name == "sum_to").unwrap();
    let broken = Patch::parse(
        "<<<<<<< SEARCH\n    return total\n=======\n    return total +\n>>>>>>> REPLACE\n",
        Some(&sum.source),
    )
    .unwrap();
    let v = py.run(sum, Some(&broken)).unwrap().unwrap();
    assert_eq!(v.verdict, Verdict::CompileError, "{}", v.feedback(2000));
    assert!(v.feedback(2000).contains("SyntaxError"), "{}", v.feedback(2000));
}

#[test]
fn missing_toolchain_is_named() {
    let t = Duration::from_secs(5);
    let e = Runner::with_toolchain(&minibugs(), Lang::Java, t, "/nonexistent/junit4.jar".into(), "python3".into())
        .unwrap_err();
    assert!(
        e.to_string().contains("/nonexistent/junit4.jar") && e.to_string().contains("apt-get install junit4"),
        "{e}"
    );
    let e =
        Runner::with_toolchain(&minibugs(), Lang::Python, t, String::new(), "/nonexistent/python3".into()).unwrap_err();
    assert!(e.to_string().contains("cannot import pytest"), "{e}");
}
