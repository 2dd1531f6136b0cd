//! Which tests a candidate patch may leave failing.
//!
//! The pre-flight runs the tests of the buggy version and reads their failing tests. A test
//! that fails there for a reason of its own (a missing service, a flaky clock, a broken
//! fixture) fails on the fixed version too, so "every test passes" can never hold. With the
//! bug's tests named ([`crate::run::bug::Bug::failing_tests`]), a candidate is plausible in the
//! sense of Defects4J: **the bug's failing tests pass and no test that passed before fails**;
//! the other tests that already failed may keep failing ([`Rule::NoNewFailures`]).
//!
//! That needs the complete list of failing tests, before and after the patch
//! ([`Validation::failing_tests_known`]: the runner's summary counts as many failures as names
//! were read). When the pre-flight's list is not known (an unknown test runner), or no test is
//! named, the rule stays "every test passes" ([`Rule::AllTestsPass`]) and
//! [`Plausibility::reason`] says why. A candidate whose own list is not known (a crash, a
//! timeout, a compile error) is never plausible unless its tests all pass.

use serde::Serialize;

use crate::validate::{Validation, Verdict};

/// The rule a candidate's test run is judged by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The test command exits 0: every test passes.
    AllTestsPass,
    /// The bug's tests pass, and every failing test already failed on the buggy version
    /// without being one of the bug's tests.
    NoNewFailures,
}

/// How candidates are judged, derived from the pre-flight (recorded in the repair report).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Plausibility {
    /// The rule.
    pub rule: Rule,
    /// Why this rule applies, in words.
    pub reason: String,
    /// Failing tests of the buggy version that are the bug's: a plausible patch makes them pass.
    pub bug_tests: Vec<String>,
    /// Failing tests of the buggy version that were not named as the bug's: they may keep
    /// failing (empty under [`Rule::AllTestsPass`]).
    pub preexisting_failures: Vec<String>,
}

impl Plausibility {
    /// The rule for a bug whose named failing tests are `named` (substrings of test names)
    /// and whose buggy version validated as `pre`. O(failing tests × named tests).
    pub fn from_preflight(named: &[String], pre: &Validation) -> Plausibility {
        if !pre.failing_tests_known() {
            return Plausibility {
                rule: Rule::AllTestsPass,
                reason: "the failing tests of the buggy version could not be read completely from the test \
                         output (unknown test runner, or no summary line): a candidate must pass every test"
                    .into(),
                bug_tests: pre.failing_tests.clone(),
                preexisting_failures: Vec::new(),
            };
        }
        if named.is_empty() {
            return Plausibility {
                rule: Rule::AllTestsPass,
                reason: "no failing test was named (--failing-test): every test that fails on the buggy version \
                         counts as the bug's, and a candidate must pass every test"
                    .into(),
                bug_tests: pre.failing_tests.clone(),
                preexisting_failures: Vec::new(),
            };
        }
        let (bug_tests, preexisting_failures): (Vec<String>, Vec<String>) =
            pre.failing_tests.iter().cloned().partition(|t| named.iter().any(|n| t.contains(n.as_str())));
        Plausibility {
            rule: Rule::NoNewFailures,
            reason: format!(
                "the named failing tests must pass and no test that passed on the buggy version may fail; {} other \
                 failing test(s) of the buggy version may keep failing",
                preexisting_failures.len()
            ),
            bug_tests,
            preexisting_failures,
        }
    }

    /// Whether a candidate's validation `v` is plausible under this rule: all tests pass, or
    /// (under [`Rule::NoNewFailures`]) its complete list of failing tests holds only
    /// pre-existing failures.
    pub fn judge(&self, v: &Validation) -> bool {
        match self.rule {
            _ if v.plausible() => true,
            Rule::AllTestsPass => false,
            Rule::NoNewFailures => {
                v.verdict == Verdict::TestFailure
                    && v.failing_tests_known()
                    && v.failing_tests.iter().all(|t| self.preexisting_failures.contains(t))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::{Exit, RunOutput, TestCounts};

    fn validation(verdict: Verdict, failing: &[&str], counted: Option<usize>) -> Validation {
        let test = RunOutput {
            command: "t".into(),
            exit: if verdict == Verdict::Plausible { Exit::Code(0) } else { Exit::Code(1) },
            wall_ms: 0,
            stdout_tail: String::new(),
            stderr_tail: String::new(),
            output_bytes: 0,
            failing_tests: failing.iter().map(|s| (*s).to_string()).collect(),
            test_counts: counted.map(|failed| TestCounts { failed, passed: 3 }),
            cut_key_lines: Vec::new(),
        };
        Validation { verdict, build: None, failing_tests: test.failing_tests.clone(), test: Some(test), wall_ms: 0 }
    }

    #[test]
    fn named_tests_split_the_preflight_failures() {
        let pre = validation(Verdict::TestFailure, &["t.py::test_add", "t.py::test_net"], Some(2));
        let p = Plausibility::from_preflight(&["test_add".into()], &pre);
        assert_eq!(p.rule, Rule::NoNewFailures);
        assert_eq!(
            (p.bug_tests, p.preexisting_failures),
            (vec!["t.py::test_add".into()], vec!["t.py::test_net".into()])
        );
        let p = Plausibility::from_preflight(&["test_add".into()], &pre);
        assert!(p.judge(&validation(Verdict::TestFailure, &["t.py::test_net"], Some(1))));
        assert!(p.judge(&validation(Verdict::Plausible, &[], None)));
        // The bug's test still fails; a new failure; a list that is not complete.
        assert!(!p.judge(&validation(Verdict::TestFailure, &["t.py::test_add", "t.py::test_net"], Some(2))));
        assert!(!p.judge(&validation(Verdict::TestFailure, &["t.py::test_net", "t.py::test_mul"], Some(2))));
        assert!(!p.judge(&validation(Verdict::TestFailure, &["t.py::test_net"], Some(2))));
        assert!(!p.judge(&validation(Verdict::TestFailure, &[], None)));
        assert!(!p.judge(&validation(Verdict::Timeout, &["t.py::test_net"], Some(1))));
    }

    #[test]
    fn unknown_lists_and_unnamed_bugs_keep_every_test_passing() {
        let unknown = validation(Verdict::TestFailure, &[], None);
        let p = Plausibility::from_preflight(&["test_add".into()], &unknown);
        assert_eq!(p.rule, Rule::AllTestsPass);
        assert!(p.reason.contains("could not be read"), "{}", p.reason);
        let pre = validation(Verdict::TestFailure, &["t.py::test_add", "t.py::test_net"], Some(2));
        let p = Plausibility::from_preflight(&[], &pre);
        assert_eq!(p.rule, Rule::AllTestsPass);
        assert!(!p.judge(&validation(Verdict::TestFailure, &["t.py::test_net"], Some(1))));
        assert!(p.judge(&validation(Verdict::Plausible, &[], None)));
    }
}
