//! What a test runner's output says: failing test names, summary counts, compile errors.
//!
//! Line by line, for JUnit 4 (`JUnitCore`), pytest and Python's `unittest` (`python3 -m
//! unittest [-v]`), the formats the harnesses and users run:
//! [`failing_test_in_line`] names the failing test a line reports, and
//! [`test_counts_in_line`] reads a runner's summary line. The names are the complete list of
//! failing tests only when the summary counts as many failures; [`crate::validate`] decides
//! that ([`crate::validate::Validation::failing_tests_known`]) and [`crate::validate::condense`] keeps
//! these lines when it cuts output.
//!
//! [`looks_like_compile_error`] tells a compile error from a test failure in the output of a
//! test-only command (javac, Maven, Gradle, Python syntax and import errors at collection),
//! and [`stabilize`] removes what depends on where and how fast a run happened (paths,
//! durations), so that the same failure always gives the same text.
//!
//! A leaf module: it uses no other module of the crate.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// Output fragments that mark a failed run of a test-only command as a compile error, besides
/// javac's `File.java:12: error:` lines (see [`looks_like_compile_error`]): Maven
/// (`COMPILATION ERROR`), Gradle (`Compilation failed`), and Python errors raised while
/// pytest collects or imports a module (`SyntaxError`, `IndentationError`, `ERROR collecting`).
pub const COMPILE_ERROR_SIGNATURES: &[&str] =
    &["COMPILATION ERROR", "Compilation failed", "SyntaxError", "IndentationError", "ERROR collecting"];

/// Makes test output independent of where and how fast it ran, so that the same failure
/// gives the same text (and the same LLM prompt, which record/replay keys on): the scratch
/// directory's path (also canonicalized) becomes `.`, JUnit's `Time: 0.123` lines are dropped,
/// and pytest's ` in 0.12s` durations are cut from its summary lines.
pub fn stabilize(output: &str, dir: &Path) -> String {
    let mut text = output.to_string();
    let mut roots = vec![dir.to_path_buf()];
    if let Ok(c) = dir.canonicalize() {
        roots.push(c);
    }
    for root in roots {
        let r = root.to_string_lossy().into_owned();
        if !r.is_empty() && r != "/" {
            text = text.replace(&r, ".");
        }
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        if body
            .strip_prefix("Time: ")
            .is_some_and(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit() || c == '.' || c == ','))
        {
            continue;
        }
        if let Some(i) = body.rfind(" in ") {
            let tail = &body[i + 4..];
            let secs = tail.trim_end_matches(['=', ' ']);
            let num = secs.strip_suffix('s').unwrap_or("");
            let num = num.split_once(" (").map_or(num, |(n, _)| n);
            if !num.is_empty()
                && num.chars().all(|c| c.is_ascii_digit() || c == '.')
                && (body.contains("passed") || body.contains("failed") || body.contains("error"))
            {
                out.push_str(&body[..i]);
                out.push_str(&tail[secs.len()..]);
                out.push_str(&line[body.len()..]);
                continue;
            }
        }
        out.push_str(line);
    }
    out
}

/// True when test output shows a compile error: a javac diagnostic line
/// (`path/File.java:12: error: ...`; a stack-trace frame `(File.java:12)` is not one) or one
/// of [`COMPILE_ERROR_SIGNATURES`].
pub fn looks_like_compile_error(output: &str) -> bool {
    let javac = output.lines().any(|line| {
        line.split_once(".java:").is_some_and(|(_, rest)| {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            digits > 0 && rest[digits..].starts_with(": error:")
        })
    });
    javac || COMPILE_ERROR_SIGNATURES.iter().any(|s| output.contains(s))
}

/// Test counts from a test runner's summary line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestCounts {
    /// Tests that failed or errored (JUnit `Failures`; pytest `failed` + `error(s)`).
    pub failed: usize,
    /// Tests that passed.
    pub passed: usize,
}

/// pytest's outcome words in its final summary line; `failed` and `error(s)` count as failed.
const PYTEST_OUTCOMES: &[&str] = &[
    "failed",
    "passed",
    "error",
    "errors",
    "skipped",
    "xfailed",
    "xpassed",
    "deselected",
    "warning",
    "warnings",
    "rerun",
    "reruns",
];

/// The counts a test runner's summary line states, if `line` is one: JUnit 4 `JUnitCore`
/// (`OK (3 tests)`, `Tests run: 3,  Failures: 2`), pytest's last line, with or without
/// `=` padding (`2 failed, 1 passed, 1 error in 0.12s`, `no tests ran in 0.01s`), and
/// `unittest`'s `FAILED (failures=2, errors=1, skipped=1)` (failures and errors count as
/// failed; that line does not say how many passed, so `passed` is 0). pytest lines must end
/// in their duration, so a program printing `1 passed` is not mistaken for one.
pub fn test_counts_in_line(line: &str) -> Option<TestCounts> {
    let line = line.trim();
    junit_counts(line).or_else(|| pytest_counts(line)).or_else(|| unittest_counts(line))
}

/// `unittest`'s outcome words in its `FAILED (...)` line; `failures` and `errors` count as
/// failed.
const UNITTEST_OUTCOMES: &[&str] = &["failures", "errors", "skipped", "expected failures", "unexpected successes"];

fn unittest_counts(line: &str) -> Option<TestCounts> {
    let items = line.strip_prefix("FAILED (")?.strip_suffix(')')?;
    let mut failed = 0;
    for item in items.split(", ") {
        let (word, n) = item.split_once('=')?;
        let n: usize = n.parse().ok()?;
        match word {
            "failures" | "errors" => failed += n,
            w if UNITTEST_OUTCOMES.contains(&w) => {}
            _ => return None,
        }
    }
    Some(TestCounts { failed, passed: 0 })
}

fn junit_counts(line: &str) -> Option<TestCounts> {
    if let Some(n) = line.strip_prefix("OK (").and_then(|r| r.strip_suffix(" tests)").or(r.strip_suffix(" test)"))) {
        return Some(TestCounts { failed: 0, passed: n.parse().ok()? });
    }
    let rest = line.strip_prefix("Tests run: ")?;
    let (run, rest) = rest.split_once(',')?;
    let failed = rest.trim_start().strip_prefix("Failures: ")?;
    let (run, failed): (usize, usize) = (run.trim().parse().ok()?, failed.trim().parse().ok()?);
    Some(TestCounts { failed, passed: run.checked_sub(failed)? })
}

fn pytest_counts(line: &str) -> Option<TestCounts> {
    let line = line.trim_matches(|c: char| c == '=' || c.is_whitespace());
    let (items, duration) = line.rsplit_once(" in ")?;
    let secs = duration.split(" (").next().unwrap_or(duration).strip_suffix('s')?;
    if secs.is_empty() || !secs.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    if items == "no tests ran" {
        return Some(TestCounts::default());
    }
    let mut counts = TestCounts::default();
    for item in items.split(", ") {
        let (n, word) = item.split_once(' ')?;
        let n: usize = n.parse().ok()?;
        match word {
            "failed" | "error" | "errors" => counts.failed += n,
            "passed" => counts.passed += n,
            w if PYTEST_OUTCOMES.contains(&w) => {}
            _ => return None,
        }
    }
    Some(counts)
}

/// Failing test names in `output`: [`failing_test_in_line`] over every line, in order,
/// without duplicates.
pub fn failing_tests(output: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for name in output.lines().filter_map(failing_test_in_line) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The failing test a line of test output names, if any: JUnit 4 `JUnitCore`
/// (`1) test_1(pkg.KNAPSACK_TEST)` → `pkg.KNAPSACK_TEST#test_1`), pytest's short summary
/// (`FAILED path::test[id] - msg` → `path::test[id]`; `ERROR path.py` for collection errors)
/// and `unittest`'s failure headers (`FAIL: test_b (mod.Case.test_b)`, Python ≥ 3.11, and
/// `FAIL: test_b (mod.Case)`, older: both → `mod.Case.test_b`, the id `python -m unittest`
/// takes; `ERROR: ...` alike; a subtest's `(i=1)` suffix is dropped).
pub fn failing_test_in_line(line: &str) -> Option<String> {
    let line = line.trim_end();
    if let Some(rest) = line.strip_prefix("FAIL: ").or_else(|| line.strip_prefix("ERROR: ")) {
        return unittest_name(rest);
    }
    if let Some(rest) = line.strip_prefix("FAILED ").or_else(|| line.strip_prefix("ERROR ")) {
        let name = rest.split(" - ").next().unwrap_or(rest).trim();
        return (name.contains("::") || name.ends_with(".py")).then(|| name.to_string());
    }
    let (num, rest) = line.split_once(") ")?;
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (method, class) = rest.strip_suffix(')').and_then(|r| r.split_once('('))?;
    (!method.is_empty() && !class.is_empty() && !class.contains(' ') && !method.contains(' '))
        .then(|| format!("{class}#{method}"))
}

/// `test_b (mod.Case.test_b)` or `test_b (mod.Case)` (then maybe ` (i=1)`) →
/// `mod.Case.test_b`.
fn unittest_name(header: &str) -> Option<String> {
    let (method, rest) = header.split_once(" (")?;
    let (owner, _) = rest.split_once(')')?;
    let word = |s: &str| !s.is_empty() && !s.contains(char::is_whitespace);
    if !word(method) || !word(owner) {
        return None;
    }
    Some(if owner.ends_with(&format!(".{method}")) { owner.to_string() } else { format!("{owner}.{method}") })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_stabilized() {
        let dir = Path::new("/tmp/fixdex-scratch-abc/project");
        let junit = "JUnit version 4.13.2\n.E\nTime: 0.012\nThere was 1 failure:\n";
        assert_eq!(stabilize(junit, dir), "JUnit version 4.13.2\n.E\nThere was 1 failure:\n");
        let py = "/tmp/fixdex-scratch-abc/project/python_programs/gcd.py:5: RecursionError\n\
                  ===== 1 failed, 2 passed in 0.35s =====\n2 failed in 1.20s\n";
        assert_eq!(
            stabilize(py, dir),
            "./python_programs/gcd.py:5: RecursionError\n===== 1 failed, 2 passed =====\n2 failed\n"
        );
        // Other text with " in " is kept.
        assert_eq!(stabilize("x in 3 places\n", dir), "x in 3 places\n");
    }

    #[test]
    fn summary_counts_from_junit_and_pytest() {
        let c = |failed, passed| Some(TestCounts { failed, passed });
        assert_eq!(test_counts_in_line("OK (3 tests)"), c(0, 3));
        assert_eq!(test_counts_in_line("OK (1 test)"), c(0, 1));
        assert_eq!(test_counts_in_line("Tests run: 5,  Failures: 2"), c(2, 3));
        assert_eq!(test_counts_in_line("2 failed, 4 passed in 0.05s"), c(2, 4));
        assert_eq!(
            test_counts_in_line("==== 1 failed, 2 passed, 1 error, 1 warning in 62.10s (0:01:02) ===="),
            c(2, 2)
        );
        assert_eq!(test_counts_in_line("no tests ran in 0.01s"), c(0, 0));
        assert_eq!(test_counts_in_line("3 errors in 0.2s"), c(3, 0));
        assert_eq!(test_counts_in_line("FAILED (failures=2, errors=1)"), c(3, 0));
        assert_eq!(test_counts_in_line("FAILED (errors=1, skipped=2, expected failures=1)"), c(1, 0));
        for other in [
            "1 passed",
            "found 2 failed in 3 places",
            "Tests run: x, Failures: 1",
            "OK (many tests)",
            "",
            "FAILED (oops=1)",
            "FAILED (failures=x)",
        ] {
            assert_eq!(test_counts_in_line(other), None, "{other:?}");
        }
    }

    #[test]
    fn failing_test_names_from_junit_and_pytest() {
        let junit = "JUnit version 4.13.2\n..E.E\nTime: 0.01\nThere were 2 failures:\n\
                     1) test_1(java_testcases.junit.KNAPSACK_TEST)\njava.lang.AssertionError: expected:<1> but was:<2>\n\
                     2) test_3(java_testcases.junit.KNAPSACK_TEST)\n\nFAILURES!!!\nTests run: 5,  Failures: 2\n";
        assert_eq!(
            failing_tests(junit),
            ["java_testcases.junit.KNAPSACK_TEST#test_1", "java_testcases.junit.KNAPSACK_TEST#test_3"]
        );
        let pytest = "=== short test summary info ===\nFAILED python_testcases/test_gcd.py::test_gcd[input_data0-1] - assert 0 == 1\n\
                      FAILED python_testcases/test_gcd.py::test_gcd[input_data1-3]\n2 failed, 4 passed in 0.05s\n";
        assert_eq!(
            failing_tests(pytest),
            [
                "python_testcases/test_gcd.py::test_gcd[input_data0-1]",
                "python_testcases/test_gcd.py::test_gcd[input_data1-3]"
            ]
        );
    }

    /// `python3 -m unittest -v` output of Python 3.11 (names in the headers and the verbose
    /// lines) and the older header form.
    #[test]
    fn failing_test_names_and_counts_from_unittest() {
        let out = "test_bad (test_m.T.test_bad)\nDocstring line. ... FAIL\ntest_err (test_m.T.test_err) ... ERROR\n\
                   test_ok (test_m.T.test_ok) ... ok\n\n======\nERROR: test_err (test_m.T.test_err)\n------\n\
                   Traceback (most recent call last):\nValueError: x\n\n======\nFAIL: test_bad (test_m.T.test_bad)\n\
                   Docstring line.\n------\nAssertionError: 1 != 2\n\n======\nFAIL: test_sub (test_m.T.test_sub) (i=1)\n\
                   ------\nRan 4 tests in 0.001s\n\nFAILED (failures=2, errors=1)\n";
        assert_eq!(failing_tests(out), ["test_m.T.test_err", "test_m.T.test_bad", "test_m.T.test_sub"]);
        let counts: Vec<TestCounts> = out.lines().filter_map(test_counts_in_line).collect();
        assert_eq!(counts, [TestCounts { failed: 3, passed: 0 }]);
        assert_eq!(failing_test_in_line("FAIL: test_b (test_m.T)"), Some("test_m.T.test_b".into()));
        assert_eq!(failing_test_in_line("ERROR: the server said no (code 7)"), None);
    }
}
