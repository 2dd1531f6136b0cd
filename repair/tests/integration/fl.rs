//! Spectrum-based fault localization on `tests/fixtures/minibugs`: real JaCoCo + JUnit 4 and
//! coverage.py + pytest runs, in scratch copies. Needs a JDK, Debian's junit4,
//! libhamcrest-java and libjacoco-java (or `FIXDEX_JACOCO_DIR`), and a Python with pytest,
//! pytest-timeout and coverage (`FIXDEX_PYTHON`; scripts/setup-test-tools.sh sets one up).

use std::path::{Path, PathBuf};
use std::time::Duration;

use repair::bench::quixbugs::{self, Lang, Program, Runner};
use repair::fl::{self, CoverageSpec, FlError, FlReport, Outcome, Target};

fn minibugs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/minibugs")
}

fn runner(lang: Lang) -> Runner {
    let mut r = Runner::new(&minibugs(), lang, Duration::from_secs(120)).unwrap_or_else(|e| panic!("{e}"));
    r.per_test_timeout_s = 3;
    r
}

fn program(lang: Lang, name: &str) -> Program {
    quixbugs::select(quixbugs::discover(&minibugs(), lang).unwrap(), &[name.to_string()]).unwrap().remove(0)
}

/// `(line, ef, ep, nf, np, rank, ties)` of every ranked line.
fn line_table(r: &FlReport) -> Vec<(u32, u32, u32, u32, u32, usize, usize)> {
    r.lines.iter().map(|l| (l.line, l.ef, l.ep, l.nf, l.np, l.rank, l.ties)).collect()
}

/// sum_to(0) passes, sum_to(1) and sum_to(10) fail. The loop header and the lines around it
/// run in all three tests (ef 2, ep 1: 2/sqrt(6) ≈ 0.816); the loop body runs only for
/// sum_to(10) (ef 1, ep 0, nf 1: 1/sqrt(2) ≈ 0.707). The buggy loop line is in the top tie
/// group, and the method is first.
#[test]
fn java_sum_to_loop_line_in_top_group() {
    let r = quixbugs::sbfl(&runner(Lang::Java), &program(Lang::Java, "SUM_TO")).unwrap_or_else(|e| panic!("{e}"));
    let outcomes: Vec<_> = r.tests.iter().map(|t| (t.name.as_str(), t.outcome)).collect();
    assert_eq!(
        outcomes,
        [
            ("java_testcases.junit.SUM_TO_TEST#test_0", Outcome::Passed),
            ("java_testcases.junit.SUM_TO_TEST#test_1", Outcome::Failed),
            ("java_testcases.junit.SUM_TO_TEST#test_2", Outcome::Failed),
        ]
    );
    assert!(r.lines.iter().all(|l| l.file == "java_programs/SUM_TO.java"), "{r:#?}");
    // 5 `int total = 0;`, 6 the loop (buggy), 9 `return total;`, 7 the body.
    assert_eq!(
        line_table(&r),
        [(5, 2, 1, 0, 0, 1, 3), (6, 2, 1, 0, 0, 1, 3), (9, 2, 1, 0, 0, 1, 3), (7, 1, 0, 1, 1, 4, 1)]
    );
    assert!((r.lines[0].score - 2.0 / 6f64.sqrt()).abs() < 1e-12);
    let m = &r.methods[0];
    assert_eq!((m.name.as_str(), m.start_line, m.end_line, m.rank, m.line), ("SUM_TO.sum_to", 4, 10, 1, 5));
    assert_eq!(r.methods.len(), 1);
}

#[test]
fn python_sum_to_loop_line_in_top_group() {
    let r = quixbugs::sbfl(&runner(Lang::Python), &program(Lang::Python, "sum_to")).unwrap_or_else(|e| panic!("{e}"));
    let outcomes: Vec<_> = r.tests.iter().map(|t| (t.name.as_str(), t.outcome)).collect();
    assert_eq!(
        outcomes,
        [
            ("python_testcases/test_sum_to.py::test_sum_to[input_data0-0]", Outcome::Passed),
            ("python_testcases/test_sum_to.py::test_sum_to[input_data1-1]", Outcome::Failed),
            ("python_testcases/test_sum_to.py::test_sum_to[input_data2-55]", Outcome::Failed),
        ]
    );
    assert!(r.lines.iter().all(|l| l.file == "python_programs/sum_to.py"), "{r:#?}");
    // 2 `total = 0`, 3 the loop (buggy), 5 `return total`, 4 the body; the `def` line runs at
    // import time, outside any test, and is not ranked.
    assert_eq!(
        line_table(&r),
        [(2, 2, 1, 0, 0, 1, 3), (3, 2, 1, 0, 0, 1, 3), (5, 2, 1, 0, 0, 1, 3), (4, 1, 0, 1, 1, 4, 1)]
    );
    let m = &r.methods[0];
    assert_eq!((m.name.as_str(), m.start_line, m.end_line, m.rank), ("sum_to", 1, 5, 1));
}

/// The general entry point copies the project: the fixture is left untouched.
#[test]
fn sbfl_runs_in_a_scratch_copy() {
    let r = runner(Lang::Python);
    let spec = quixbugs::sbfl_spec(&r, &program(Lang::Python, "spin"));
    let report = fl::sbfl(&minibugs(), &spec).unwrap_or_else(|e| panic!("{e}"));
    assert!(!minibugs().join(fl::WORK_DIR).exists());
    // The endless loop is killed by pytest-timeout: one failing test, every line it ran ranks 1.
    assert_eq!((report.failed, report.passed), (1, 0));
    assert!(report.lines.iter().all(|l| l.score == 1.0 && l.rank == 1), "{report:#?}");
    assert_eq!(report.methods[0].name, "spin");
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["formula"], "ochiai");
    assert_eq!(json["tests"][0]["outcome"], "failed");
}

/// Measuring the whole project (`--sbfl-source .`) never ranks fixdex's own pytest plugin,
/// which it writes into the project's `.fixdex-fl` folder (helper-25: it ranked first).
#[test]
fn the_whole_project_as_source_leaves_the_plugin_out() {
    let r = runner(Lang::Python);
    let mut spec = quixbugs::sbfl_spec(&r, &program(Lang::Python, "sum_to"));
    let Target::Python(t) = &mut spec.target else { panic!("python spec") };
    t.sources = vec![PathBuf::from(".")];
    let report = fl::sbfl(&minibugs(), &spec).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.lines.iter().all(|l| !l.file.contains(fl::WORK_DIR)), "{report:#?}");
    assert_eq!(report.methods[0].name, "sum_to", "{report:#?}");
}

#[test]
fn missing_jacoco_jars_are_named() {
    let r = runner(Lang::Java);
    let mut spec = quixbugs::sbfl_spec(&r, &program(Lang::Java, "SUM_TO"));
    let empty = tempfile::tempdir().unwrap();
    let Target::Java(t) = &mut spec.target else { panic!("java spec") };
    t.jacoco_dir = empty.path().to_path_buf();
    let e = fl::sbfl(&minibugs(), &spec).unwrap_err();
    assert!(matches!(&e, FlError::MissingJar { jar } if jar.ends_with("org.jacoco.agent.jar")), "{e}");
    let msg = e.to_string();
    assert!(msg.contains("apt-get install libjacoco-java libasm-java") && msg.contains("FIXDEX_JACOCO_DIR"), "{msg}");
}

/// An interpreter whose `import coverage` fails (a shadowing package that raises, in front of
/// the real interpreter) is reported with the pip command.
#[test]
fn python_without_coverage_is_named() {
    let r = runner(Lang::Python);
    let shadow = tempfile::tempdir().unwrap();
    std::fs::create_dir(shadow.path().join("coverage")).unwrap();
    std::fs::write(shadow.path().join("coverage/__init__.py"), "raise ImportError('No module named coverage')\n")
        .unwrap();
    let python = shadow.path().join("python");
    let script = format!("#!/bin/sh\nPYTHONPATH={} exec {} \"$@\"\n", shadow.path().display(), r.python.display());
    std::fs::write(&python, script).unwrap();
    std::fs::set_permissions(&python, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut spec = quixbugs::sbfl_spec(&r, &program(Lang::Python, "sum_to"));
    let Target::Python(t) = &mut spec.target else { panic!("python spec") };
    t.python = python;
    let e = fl::sbfl(&minibugs(), &spec).unwrap_err();
    assert!(matches!(&e, FlError::MissingPythonModule { .. }), "{e}");
    let msg = e.to_string();
    assert!(msg.contains("-m pip install coverage==7.17.5") && msg.contains("No module named coverage"), "{msg}");
}

/// A build that fails is reported with its output; a spec with no test class fails cleanly.
#[test]
fn build_failure_and_no_tests() {
    let r = runner(Lang::Java);
    let mut spec: CoverageSpec = quixbugs::sbfl_spec(&r, &program(Lang::Java, "SUM_TO"));
    let Target::Java(t) = &mut spec.target else { panic!("java spec") };
    t.build = Some(repair::validate::CommandSpec::Shell("echo broken >&2; exit 3".into()));
    let e = fl::sbfl(&minibugs(), &spec).unwrap_err();
    assert!(matches!(&e, FlError::Command { exit, tail, .. } if exit == "exited with 3" && tail == "broken"), "{e}");
    let mut spec = quixbugs::sbfl_spec(&runner(Lang::Python), &program(Lang::Python, "sum_to"));
    let Target::Python(t) = &mut spec.target else { panic!("python spec") };
    t.pytest_args.push("-k".into());
    t.pytest_args.push("no_such_test".into());
    let e = fl::sbfl(&minibugs(), &spec).unwrap_err();
    assert!(matches!(e, FlError::NoTests), "{e}");
}
