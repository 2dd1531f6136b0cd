//! Pre-flight, before any LLM call and for every strategy: in a scratch copy, the buggy
//! version must build and its tests must fail (the named failing tests among them); the
//! failure output becomes the `failureInfo` of ReinFix's Algorithm 1 ([`Problem::failure`])
//! and the buggy version's failing tests set the plausibility rule ([`crate::validate::baseline`]).

use crate::Language;
use crate::run::bug::{Bug, Problem, locate};
use crate::run::report::{Outcome, Preflight};
use crate::run::session::{Session, Stop};
use crate::validate::baseline::Plausibility;
use crate::validate::{Validation, Verdict};

impl Session<'_> {
    /// Locates the buggy code of `bug` and validates the buggy version: the [`Problem`] to
    /// repair, or `Err(outcome)` when there is nothing to repair (it does not build, its
    /// tests pass, or a named test does not fail; the report's `error` says which).
    ///
    /// # Errors
    /// [`Stop::Failed`] when the file, the location or the commands cannot be read or run.
    pub fn preflight(&mut self, bug: &Bug) -> Result<Result<Problem, Outcome>, Stop> {
        let (start_line, end_line, text, ambiguous) = locate(bug)?;
        self.report.warnings.extend(ambiguous);
        self.report.buggy_lines = Some((start_line, end_line));
        let (code, numbered) = Problem::excerpt(&text, start_line, end_line);
        let pre = self.validate_buggy(bug)?;
        let candidates = self.adapt_validator(&pre);
        self.report.preflight = Some(Preflight {
            verdict: pre.verdict,
            failing_tests: pre.failing_tests.clone(),
            failing_tests_known: pre.failing_tests_known(),
            wall_ms: pre.wall_ms,
            candidate_timeout_ms: u64::try_from(candidates.as_millis()).unwrap_or(u64::MAX),
            fail_fast: false,
            candidate_test_command: self.candidate_test_command(),
        });
        if let Some(why) = nothing_to_repair(bug, &pre) {
            self.report.error = Some(why);
            return Ok(Err(Outcome::PreflightFailed));
        }
        self.warn_hang(&pre, candidates);
        self.warn_unchecked_names(bug, &pre);
        let plausibility = Plausibility::from_preflight(&bug.failing_tests, &pre);
        if !plausibility.preexisting_failures.is_empty() {
            self.report.warnings.push(format!(
                "{} test(s) fail on the buggy version but are not among the named failing tests: {}; they are \
                 taken as failing before the bug and may keep failing in a plausible patch",
                plausibility.preexisting_failures.len(),
                plausibility.preexisting_failures.join(", ")
            ));
        }
        self.report.plausibility = Some(plausibility.clone());
        self.plausibility = Some(plausibility.clone());
        Ok(Ok(Problem {
            bug: bug.clone(),
            language: Language::from_path(&bug.file),
            source: text,
            code,
            numbered,
            lines: (start_line, end_line),
            failure: pre.feedback(3000),
            plausibility,
            weights: crate::fl::LineWeights::Uniform,
        }))
    }

    /// Warns, at once (a log line on stderr, and in the report), when the buggy version's
    /// tests hung past the command limit: a hang can be the bug, so the run goes on, but
    /// every candidate that hangs as well costs the whole candidate `limit` (the command
    /// limit itself: nothing learnt from the pre-flight cuts it shorter).
    fn warn_hang(&mut self, pre: &Validation, limit: std::time::Duration) {
        if pre.verdict != Verdict::Timeout {
            return;
        }
        let (s, what) = (limit.as_secs_f64(), if pre.test.is_some() { "tests" } else { "build" });
        let warning = format!(
            "the buggy version's {what} did not finish within {s} s (the command limit, then killed): a hang may be \
             the bug, so the repair goes on, but each candidate that hangs too costs {s} s; if the {what} should \
             finish, check the command or raise the limit (`repair --test-timeout-s`, `eval --timeout-s`)"
        );
        tracing::warn!("{warning}");
        self.report.warnings.push(warning);
    }

    /// Warns when the named failing tests could not be checked: no failing test name could
    /// be read from the output (an unknown runner).
    fn warn_unchecked_names(&mut self, bug: &Bug, pre: &Validation) {
        if !bug.failing_tests.is_empty() && !names_readable(pre) {
            self.report.warnings.push(format!(
                "the failing tests named ({}) could not be checked: no failing test name could be read from the \
                 output of the buggy version's tests; a candidate must pass every test",
                bug.failing_tests.join(", ")
            ));
        }
    }
}

/// Whether failing test names could be read from the buggy version's output.
fn names_readable(pre: &Validation) -> bool {
    pre.verdict != Verdict::Timeout && (pre.failing_tests_known() || !pre.failing_tests.is_empty())
}

/// Why there is nothing to repair, if so: the tests pass, the buggy version does not build,
/// or a named failing test does not fail (checked against the names read from the output;
/// when none could be read, they cannot be checked).
fn nothing_to_repair(bug: &Bug, pre: &Validation) -> Option<String> {
    match pre.verdict {
        Verdict::Plausible => return Some("the tests pass on the buggy version: nothing to repair".into()),
        // With no build command (Python), the compile error is read from the test output: a
        // syntax or import error that stops pytest collecting the tests.
        Verdict::CompileError if pre.build.is_none() => {
            return Some(format!(
                "the buggy version's tests could not be collected (a syntax or import error in the test output):\n{}",
                pre.feedback(2000)
            ));
        }
        Verdict::CompileError => {
            return Some(format!("the buggy version does not build:\n{}", pre.feedback(2000)));
        }
        _ => {}
    }
    if let Some(why) = pre.test.as_ref().and_then(runner_missing) {
        return Some(format!("the test command could not run: {why}; every candidate would fail the same way"));
    }
    let readable = names_readable(pre);
    let missing: Vec<&String> = bug
        .failing_tests
        .iter()
        .filter(|t| readable && !pre.failing_tests.iter().any(|f| f.contains(t.as_str())))
        .collect();
    (!missing.is_empty())
        .then(|| format!("the buggy version does not fail {missing:?} (its failing tests: {:?})", pre.failing_tests))
}

/// Why the test command itself could not run, when its output says so with no test counted:
/// the shell could not find or execute it (exit 127 / 126), or the test runner is missing
/// (`No module named pytest`, JUnit's `JUnitCore` not on the class path). A new user's
/// finding (session 41): without pytest, the pre-flight took `No module named pytest` for
/// the bug's failure and 30 validations failed the same way.
fn runner_missing(run: &crate::validate::RunOutput) -> Option<String> {
    use crate::validate::Exit;
    if run.test_counts.is_some() || !run.failing_tests.is_empty() {
        return None;
    }
    let text = format!("{}\n{}", run.stdout_tail, run.stderr_tail);
    if text.contains("No module named pytest") || text.contains("No module named 'pytest'") {
        return Some("python cannot import pytest (pip install pytest)".into());
    }
    let class_missing = |l: &str| {
        ["Could not find or load main class", "ClassNotFoundException", "NoClassDefFoundError", "does not exist"]
            .iter()
            .any(|m| l.contains(m))
    };
    if text.lines().any(|l| (l.contains("org.junit.runner.JUnitCore") || l.contains("org/junit/")) && class_missing(l))
    {
        return Some("JUnit 4 is not on the class path (scripts/setup-test-tools.sh installs it)".into());
    }
    match run.exit {
        Exit::Code(127) => Some(format!("`{}` exited 127 (command not found)", run.command)),
        Exit::Code(126) => Some(format!("`{}` exited 126 (not executable)", run.command)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::{Exit, RunOutput};

    fn run(exit: i32, stderr: &str) -> RunOutput {
        RunOutput {
            command: "python3 -m pytest t.py".into(),
            exit: Exit::Code(exit),
            wall_ms: 10,
            stdout_tail: String::new(),
            stderr_tail: stderr.into(),
            output_bytes: stderr.len() as u64,
            failing_tests: Vec::new(),
            test_counts: None,
            cut_key_lines: Vec::new(),
        }
    }

    #[test]
    fn a_missing_runner_is_not_the_bug() {
        let why = runner_missing(&run(1, "/usr/bin/python3: No module named pytest\n")).unwrap();
        assert!(why.contains("pip install pytest"), "{why}");
        let java = "Error: Could not find or load main class org.junit.runner.JUnitCore\n";
        assert!(runner_missing(&run(1, java)).unwrap().contains("JUnit 4"));
        assert!(runner_missing(&run(127, "sh: 1: mvn: not found\n")).unwrap().contains("127"));
        // A project's own missing module, or a real test failure, is a failure to repair.
        assert_eq!(runner_missing(&run(1, "ModuleNotFoundError: No module named 'mypkg.util'\n")), None);
        assert_eq!(runner_missing(&run(1, "java.lang.NoClassDefFoundError: org/apache/Foo\n")), None);
    }

    /// A new user's finding: a pytest collection error was worded "does not build".
    #[test]
    fn a_compile_error_without_a_build_command_is_a_collection_error() {
        let bug = Bug {
            id: None,
            root: "p".into(),
            file: "m.py".into(),
            location: crate::run::bug::Location::Lines(1, 1),
            failing_tests: Vec::new(),
        };
        let collect = run(2, "E   SyntaxError: invalid syntax\nERROR collecting t.py\n");
        let pre = |build: Option<RunOutput>| Validation {
            verdict: Verdict::CompileError,
            build,
            test: Some(collect.clone()),
            failing_tests: Vec::new(),
            wall_ms: 10,
        };
        let python = nothing_to_repair(&bug, &pre(None)).unwrap();
        assert!(python.starts_with("the buggy version's tests could not be collected"), "{python}");
        assert!(python.contains("SyntaxError"), "{python}");
        let javac = nothing_to_repair(&bug, &pre(Some(run(1, "A.java:3: error: ';' expected\n")))).unwrap();
        assert!(javac.starts_with("the buggy version does not build"), "{javac}");
    }
}
