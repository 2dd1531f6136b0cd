//! Patch validation: run a project's build and test commands in a scratch copy, each in its
//! own process group under a wall-clock timeout, and classify the outcome.
//!
//! DESIGN.md decision 11: *run the project's test command in the scratch copy with a timeout,
//! killing the whole process group; plausible = compiles and passes all tests.* A patch is
//! **plausible** when the build command (if any) exits 0 and the test command exits 0; whether
//! it is **correct** (semantically equivalent to the developer's fix) is a separate, human or
//! oracle judgement that this module does not make.
//!
//! The folder is everything between a patched file and its verdict: this module holds the
//! verdict rules ([`Validator`], [`Validation`]); [`scratch`] makes the copy a candidate is
//! built in, [`process`] runs one supervised command, [`test_output`] reads JUnit, pytest and
//! unittest output (both re-exported here), [`verdict`] is the typed outcome and its one
//! order, [`baseline`] the failures that were there before the patch, [`condense`] the
//! failure text a prompt holds, and [`toolchain`] finds javac, JUnit and Python. Validation produces only four of the [`Verdict`]s: [`Verdict::Plausible`],
//! [`Verdict::TestFailure`], [`Verdict::CompileError`] and [`Verdict::Timeout`].
//!
//! # Compile error or test failure
//! With a separate build command the answer is exact: a failing build is
//! [`Verdict::CompileError`] and the tests are not run. With a test command only (e.g.
//! `mvn test`, `pytest`), a failing run is classified as a compile error when its output shows
//! one of the signatures of [`looks_like_compile_error`] (javac, Maven, Gradle, Python syntax
//! and import errors at collection), else as a test failure.
//!
//! # Failing tests
//! Failing test names ([`failing_test_in_line`]) and the runner's summary counts
//! ([`test_counts_in_line`]) are read from every output line (JUnit 4 and pytest). The names
//! are the complete list only when the summary counts as many failures
//! ([`Validation::failing_tests_known`]); [`crate::validate::baseline`] relies on that to tolerate tests
//! that already failed before the patch.

pub mod baseline;
pub mod condense;
pub mod process;
pub mod scratch;
pub mod test_output;
pub mod toolchain;
pub mod verdict;

use std::ffi::OsString;
use std::path::Path;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

pub use crate::validate::process::{
    CommandSpec, Exit, MAX_CUT_KEY_LINES, MAX_FAILING_TESTS, RunOutput, STABLE_ENV, TAIL_BYTES, ValidateError,
    kill_running, run_command,
};
pub use crate::validate::test_output::{
    COMPILE_ERROR_SIGNATURES, TestCounts, failing_test_in_line, failing_tests, looks_like_compile_error, stabilize,
    test_counts_in_line,
};
pub use crate::validate::verdict::Verdict;

/// A validation: verdict, the runs behind it, and the failing tests that could be read from
/// the output (JUnit 4 `JUnitCore` and pytest formats).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Validation {
    /// The outcome class: one of the four that validation produces (module docs).
    pub verdict: Verdict,
    /// The build run, when there is a build command.
    pub build: Option<RunOutput>,
    /// The test run, unless the build failed.
    pub test: Option<RunOutput>,
    /// Failing test names parsed from the output (may be empty when the format is unknown).
    pub failing_tests: Vec<String>,
    /// Total wall time, milliseconds.
    pub wall_ms: u64,
}

impl Validation {
    /// True when the verdict is [`Verdict::Plausible`].
    pub fn plausible(&self) -> bool {
        self.verdict == Verdict::Plausible
    }

    /// Whether [`Validation::failing_tests`] is known to be the complete set of failing tests:
    /// a plausible run (none fail), or a test failure whose runner printed a summary
    /// ([`RunOutput::test_counts`]) counting exactly as many failures (and errors) as names
    /// were read. A compile error, a timeout, an unknown runner or a run that died before its
    /// summary (a crash, `os._exit`, a killed JVM) gives `false`.
    pub fn failing_tests_known(&self) -> bool {
        match self.verdict {
            Verdict::Plausible => true,
            Verdict::TestFailure => self
                .test
                .as_ref()
                .and_then(|t| t.test_counts)
                .is_some_and(|c| c.failed > 0 && c.failed == self.failing_tests.len()),
            Verdict::CompileError | Verdict::Timeout | Verdict::PatchRefused | Verdict::Duplicate => false,
        }
    }

    /// A short model-facing summary: verdict, failing tests and the run's
    /// [`RunOutput::failure_text`] condensed by [`crate::validate::condense::condense`] (repeated frames
    /// folded, exception and assertion lines kept, then the end of the output), at most
    /// `max_chars` characters in all.
    pub fn feedback(&self, max_chars: usize) -> String {
        let mut s = format!("verdict: {:?}\n", self.verdict);
        if !self.failing_tests.is_empty() {
            s.push_str(&format!("failing tests: {}\n", self.failing_tests.join(", ")));
        }
        let run = if self.verdict == Verdict::CompileError && self.test.is_none() { &self.build } else { &self.test };
        if let Some(run) = run {
            let budget = max_chars.saturating_sub(s.chars().count());
            s.push_str(&crate::validate::condense::condense(&run.failure_text(), budget));
        }
        s
    }
}

/// Build and test commands with a timeout per command.
#[derive(Debug, Clone)]
pub struct Validator {
    /// Optional build (compile) command, run first.
    pub build: Option<CommandSpec>,
    /// The test command; exit 0 means every test passed.
    pub test: CommandSpec,
    /// Wall-clock limit per command.
    pub timeout: Duration,
    /// Extra environment for both commands.
    pub env: Vec<(OsString, OsString)>,
    /// The wall time of a run known to be correct (the fixed version's tests, which the
    /// Defects4J gold check measures), when there is one: [`Validator::adapted`] scales the
    /// candidate limit from it too, so that a correct candidate whose tests run longer than
    /// the buggy version's quickly failing ones is not killed.
    pub reference: Option<Duration>,
    /// The test command stopped at the first failing test (pytest's `-x`), when the runner
    /// has one: the candidates of a strategy that reads nothing but the verdict
    /// ([`crate::strategies::Strategy::verdict_only`]) run it instead of `test`
    /// ([`Validator::failing_fast`]), so that a candidate that keeps the bug costs one failing
    /// (or hanging) test instead of all of them. Its verdict is the same wherever a failing
    /// test means an implausible candidate; a passing run ran every test.
    pub fail_fast: Option<CommandSpec>,
}

/// The exit code of a test command that timed out by itself (`timeout(1)`'s, and the Defects4J
/// runner's past its first phase's limit): the verdict is [`Verdict::Timeout`], as when
/// fixdex's own limit kills it.
pub const TIMED_OUT_CODE: i32 = 124;

/// The lower bound of an adapted candidate timeout ([`Validator::adapted`]): 10 s, so that a
/// slow start (a JVM under load) is never taken for a hang.
pub const ADAPTED_TIMEOUT_FLOOR: Duration = Duration::from_secs(10);

/// The default factor of [`Validator::adapted`]: a candidate command may take 10× the
/// buggy version's slower command.
pub const DEFAULT_TIMEOUT_FACTOR: f64 = 10.0;

/// Whether `factor` scales a limit ([`scaled_limit`]): a positive finite number. 0 (or a
/// negative or non-finite number) turns the scaling off: `--candidate-timeout-factor 0`.
#[must_use]
pub fn scales(factor: f64) -> bool {
    factor.is_finite() && factor > 0.0
}

/// A candidate's limit scaled from what a reference run needed: `max(floor, factor ×
/// reference)`, `Duration::MAX` past its range; `None` when `factor` does not [`scales`].
/// The one rule of every scaled limit: the candidate timeout ([`Validator::adapted`]), the
/// Defects4J trigger tests' first phase
/// ([`crate::bench::defects4j::Prepared::first_phase_limit`]) and QuixBugs Python's per-test
/// limit ([`crate::bench::quixbugs::Runner::per_test_limit`]).
#[must_use]
pub fn scaled_limit(reference: Duration, factor: f64, floor: Duration) -> Option<Duration> {
    scales(factor)
        .then(|| Duration::try_from_secs_f64(reference.as_secs_f64() * factor).unwrap_or(Duration::MAX).max(floor))
}

impl Validator {
    /// This validator with its timeout cut to what the buggy version needed, for candidate
    /// patches: `min(timeout, max(ADAPTED_TIMEOUT_FLOOR, factor × t))`, `t` the wall time of
    /// the pre-flight's slower command (build or test) or the [`Validator::reference`] run,
    /// whichever is longer, so that a mutant with an endless loop costs seconds instead of
    /// the whole `timeout`. Unchanged when `factor` is not a positive
    /// finite number or the pre-flight itself timed out (its wall time says nothing).
    #[must_use]
    pub fn adapted(&self, pre: &Validation, factor: f64) -> Validator {
        let mut v = self.clone();
        if pre.verdict == Verdict::Timeout {
            return v;
        }
        let reference = self.reference.unwrap_or_default();
        let slowest = [&pre.build, &pre.test].into_iter().flatten().map(|r| r.wall_ms).max().unwrap_or(0);
        if let Some(scaled) = scaled_limit(Duration::from_millis(slowest).max(reference), factor, ADAPTED_TIMEOUT_FLOOR)
        {
            v.timeout = self.timeout.min(scaled);
        }
        v
    }

    /// This validator with [`Validator::fail_fast`] as its test command; `None` when it has
    /// none.
    #[must_use]
    pub fn failing_fast(&self) -> Option<Validator> {
        let test = self.fail_fast.clone()?;
        Some(Validator { test, fail_fast: None, ..self.clone() })
    }

    /// Run the build (if any) and the tests in `dir` and classify the outcome.
    pub fn validate(&self, dir: &Path) -> Result<Validation, ValidateError> {
        let start = Instant::now();
        let elapsed = |s: Instant| u64::try_from(s.elapsed().as_millis()).unwrap_or(u64::MAX);
        let mut build_run = None;
        if let Some(build) = &self.build {
            let mut run = run_command(build, dir, &self.env, self.timeout)?;
            stabilize_run(&mut run, dir);
            let verdict = match run.exit {
                Exit::Code(0) => None,
                Exit::TimedOut => Some(Verdict::Timeout),
                _ => Some(Verdict::CompileError),
            };
            if let Some(verdict) = verdict {
                return Ok(Validation {
                    verdict,
                    build: Some(run),
                    test: None,
                    failing_tests: Vec::new(),
                    wall_ms: elapsed(start),
                });
            }
            build_run = Some(run);
        }
        let mut run = run_command(&self.test, dir, &self.env, self.timeout)?;
        stabilize_run(&mut run, dir);
        let combined = run.combined();
        let verdict = match run.exit {
            Exit::Code(0) => Verdict::Plausible,
            // 124: timeout(1)'s code, which the Defects4J runner exits with past its first
            // phase's limit.
            Exit::TimedOut | Exit::Code(TIMED_OUT_CODE) => Verdict::Timeout,
            _ if self.build.is_none() && looks_like_compile_error(&combined) => Verdict::CompileError,
            _ => Verdict::TestFailure,
        };
        let failing_tests =
            if verdict == Verdict::Plausible { Vec::new() } else { std::mem::take(&mut run.failing_tests) };
        Ok(Validation { verdict, build: build_run, test: Some(run), failing_tests, wall_ms: elapsed(start) })
    }
}

fn stabilize_run(run: &mut RunOutput, dir: &Path) {
    run.stdout_tail = stabilize(&run.stdout_tail, dir);
    run.stderr_tail = stabilize(&run.stderr_tail, dir);
    for line in &mut run.cut_key_lines {
        *line = stabilize(line, dir);
    }
}

/// How good a validated candidate is, larger is better (TraceRepair §3.3, "Best
/// of N Selection"; also UniDebugger's choice between the Fixer's and FixerPro's patch): the
/// one candidate order of [`Verdict`]'s `Ord` (plausible, test failure, timeout, compile
/// error, a patch that did not apply), then test failures by fewer failing tests (an unknown
/// count after the known ones). A duplicate ranks with a refused patch; callers rank it as
/// the candidate it repeats (`seen`).
#[must_use]
pub fn rank(verdict: Verdict, failing: usize) -> (u8, std::cmp::Reverse<usize>) {
    let class = verdict.rank().max(Verdict::PatchRefused.rank());
    let failing = if verdict == Verdict::TestFailure && failing == 0 { usize::MAX } else { failing };
    (class, std::cmp::Reverse(failing))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(line: &str) -> CommandSpec {
        CommandSpec::Shell(line.to_string())
    }

    #[test]
    fn rank_follows_the_verdict_order() {
        use crate::validate::verdict::VERDICTS_BEST_FIRST;
        for (i, a) in VERDICTS_BEST_FIRST.iter().enumerate() {
            for b in &VERDICTS_BEST_FIRST[i + 1..] {
                let tie = matches!((a, b), (Verdict::PatchRefused, Verdict::Duplicate));
                assert!(rank(*a, 1) > rank(*b, 1) || tie, "{a} ranks above {b}");
            }
        }
        assert_eq!(rank(Verdict::Duplicate, 0), rank(Verdict::PatchRefused, 0));
        assert!(rank(Verdict::TestFailure, 1) > rank(Verdict::TestFailure, 2));
        assert!(rank(Verdict::TestFailure, 2) > rank(Verdict::TestFailure, 0), "an unknown count ranks last");
    }

    #[test]
    fn verdicts() {
        let dir = tempfile::tempdir().unwrap();
        let v = |build: Option<&str>, test: &str| Validator {
            build: build.map(sh),
            test: sh(test),
            timeout: Duration::from_millis(1500),
            env: Vec::new(),
            reference: None,
            fail_fast: None,
        };
        assert_eq!(v(Some("true"), "true").validate(dir.path()).unwrap().verdict, Verdict::Plausible);
        let c = v(Some("echo 'A.java:3: error: ; expected' >&2; exit 1"), "true").validate(dir.path()).unwrap();
        assert_eq!(c.verdict, Verdict::CompileError);
        assert!(c.test.is_none());
        assert!(c.feedback(200).contains("error: ; expected"), "{}", c.feedback(200));
        assert_eq!(v(Some("true"), "exit 1").validate(dir.path()).unwrap().verdict, Verdict::TestFailure);
        assert_eq!(v(None, "sleep 5").validate(dir.path()).unwrap().verdict, Verdict::Timeout);
        assert_eq!(v(Some("sleep 5"), "true").validate(dir.path()).unwrap().verdict, Verdict::Timeout);
        // A test command that timed out by itself (timeout(1), the Defects4J runner's limit).
        let own = v(None, "echo '1) loops(T)'; exit 124").validate(dir.path()).unwrap();
        assert_eq!((own.verdict, own.test.unwrap().exit), (Verdict::Timeout, Exit::Code(TIMED_OUT_CODE)));
        // Test-only commands: compile errors recognised from the output.
        let py = v(None, "echo 'E   SyntaxError: invalid syntax'; exit 2").validate(dir.path()).unwrap();
        assert_eq!(py.verdict, Verdict::CompileError);
        assert_eq!(v(None, "echo 'assert 1 == 2'; exit 1").validate(dir.path()).unwrap().verdict, Verdict::TestFailure);
        let javac = v(None, "echo 'src/A.java:3: error: cannot find symbol'; exit 1").validate(dir.path()).unwrap();
        assert_eq!(javac.verdict, Verdict::CompileError);
        // A runtime stack frame names a .java line too, but is not a compile error.
        let trace = v(None, "echo '    at pkg.A.f(A.java:21)'; exit 1").validate(dir.path()).unwrap();
        assert_eq!(trace.verdict, Verdict::TestFailure);
    }

    #[test]
    fn failing_fast_swaps_in_the_fail_fast_test_command_and_keeps_the_rest() {
        let tmp = tempfile::tempdir().unwrap();
        let plain = Validator {
            build: Some(sh("true")),
            test: sh("exit 1"),
            timeout: Duration::from_secs(7),
            env: Vec::new(),
            reference: None,
            fail_fast: None,
        };
        assert!(plain.failing_fast().is_none());
        let fast = Validator { fail_fast: Some(sh("exit 0")), ..plain.clone() }.failing_fast().unwrap();
        assert_eq!((fast.timeout, fast.fail_fast.is_none()), (Duration::from_secs(7), true));
        assert_eq!(plain.validate(tmp.path()).unwrap().verdict, Verdict::TestFailure);
        assert_eq!(fast.validate(tmp.path()).unwrap().verdict, Verdict::Plausible);
    }

    #[test]
    fn a_scaled_limit_is_factor_times_the_reference_at_least_the_floor() {
        let (s, floor) = (Duration::from_secs, Duration::from_secs(5));
        assert_eq!(scaled_limit(Duration::from_millis(1_500), 10.0, floor), Some(s(15)));
        assert_eq!(scaled_limit(Duration::from_millis(200), 10.0, floor), Some(floor));
        assert_eq!(scaled_limit(s(u64::MAX / 2), 10.0, floor), Some(Duration::MAX));
        for off in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(!scales(off));
            assert_eq!(scaled_limit(s(3), off, floor), None, "{off}");
        }
    }

    #[test]
    fn adapted_timeout_scales_the_slower_preflight_command() {
        let base = Validator {
            build: None,
            test: sh("true"),
            timeout: Duration::from_secs(300),
            env: Vec::new(),
            reference: None,
            fail_fast: None,
        };
        let run = |ms: u64, exit: Exit| RunOutput {
            command: "t".into(),
            exit,
            wall_ms: ms,
            stdout_tail: String::new(),
            stderr_tail: String::new(),
            output_bytes: 0,
            failing_tests: Vec::new(),
            test_counts: None,
            cut_key_lines: Vec::new(),
        };
        let pre = |build: u64, test: u64, verdict: Verdict| Validation {
            verdict,
            build: Some(run(build, Exit::Code(0))),
            test: Some(run(test, Exit::Code(1))),
            failing_tests: Vec::new(),
            wall_ms: build + test,
        };
        let fail = Verdict::TestFailure;
        // The slower command (here the build, 4 s) times the factor.
        assert_eq!(base.adapted(&pre(4_000, 1_500, fail), 10.0).timeout, Duration::from_secs(40));
        // Never under the floor, never over the configured limit.
        assert_eq!(base.adapted(&pre(100, 200, fail), 10.0).timeout, ADAPTED_TIMEOUT_FLOOR);
        assert_eq!(base.adapted(&pre(100, 60_000, fail), 10.0).timeout, Duration::from_secs(300));
        // Off, or nothing learnt from a pre-flight that timed out.
        assert_eq!(base.adapted(&pre(4_000, 1_500, fail), 0.0).timeout, Duration::from_secs(300));
        assert_eq!(base.adapted(&pre(4_000, 1_500, Verdict::Timeout), 10.0).timeout, Duration::from_secs(300));
        // A factor too large for a Duration is the command limit, not a panic.
        assert_eq!(base.adapted(&pre(4_000, 1_500, fail), 1e300).timeout, Duration::from_secs(300));
    }

    /// A failure header followed by 200 KB of stack trace is still found (it is out of the
    /// tail: JUnit prints a StackOverflowError's whole trace).
    #[test]
    fn failing_tests_are_found_beyond_the_tail() {
        let dir = tempfile::tempdir().unwrap();
        let line = "echo 'There was 1 failure:'; echo '1) test5(pkg.DFS_TEST)'; \
                    i=0; while [ $i -lt 5000 ]; do echo '        at pkg.DFS.search(DFS.java:21) padding padding'; \
                    i=$((i+1)); done; exit 1";
        let v = Validator {
            build: None,
            test: sh(line),
            timeout: Duration::from_secs(30),
            env: Vec::new(),
            reference: None,
            fail_fast: None,
        };
        let r = v.validate(dir.path()).unwrap();
        assert_eq!(r.verdict, Verdict::TestFailure);
        assert!(!r.test.as_ref().unwrap().stdout_tail.contains("1) test5"));
        assert_eq!(r.failing_tests, ["pkg.DFS_TEST#test5"]);
    }

    /// The failing set is known only when the runner's summary counts as many failures as
    /// names were read: not for an unknown runner, nor for a run that died before its summary.
    #[test]
    fn failing_tests_known_needs_a_matching_summary() {
        let dir = tempfile::tempdir().unwrap();
        let v = |test: &str| {
            let validator = Validator {
                build: None,
                test: sh(test),
                timeout: Duration::from_secs(10),
                env: Vec::new(),
                reference: None,
                fail_fast: None,
            };
            validator.validate(dir.path()).unwrap()
        };
        let pytest = v("echo 'FAILED t.py::test_a - assert 0'; echo '1 failed, 2 passed in 0.01s'; exit 1");
        assert!(pytest.failing_tests_known(), "{pytest:?}");
        assert_eq!(pytest.failing_tests, ["t.py::test_a"]);
        let crashed = v("echo 'FAILED t.py::test_a - assert 0'; exit 1");
        assert!(!crashed.failing_tests_known());
        let unknown = v("echo 'something broke'; exit 1");
        assert!(!unknown.failing_tests_known());
        let short = v("echo 'FAILED t.py::test_a'; echo '2 failed in 0.01s'; exit 1");
        assert!(!short.failing_tests_known());
        assert!(v("true").failing_tests_known());
    }
}
