//! The gold check of a Defects4J bug, run before any repair (issue 31, point 2): the fixed
//! version compiles and passes its trigger tests, the buggy version compiles and fails at
//! least one. Relevant tests that fail on the fixed version too (the JDK, the platform, a
//! flaky test) are recorded and left out of every later run, as Defects4J's own lists of
//! broken tests do. A bug that fails the check is `infra`, never unfixed.
//!
//! The result is cached as `check.json` in the bug's work folder, with a fingerprint of
//! everything it depends on (revision, patch, test lists, jars, JDK and runner).

use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::validation::Prepared;
use super::{D4jError, Harness};
use crate::validate::{Exit, run_command};

/// The cached check's file name in a bug's work folder.
pub const CHECK_FILE: &str = "check.json";

/// The gold check's result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// What the check depends on, hashed (a changed input redoes it).
    pub fingerprint: String,
    /// Whether the bug passed: the fixed version passes every trigger test and the buggy one
    /// fails at least one.
    pub passed: bool,
    /// Why it did not pass.
    pub reason: Option<String>,
    /// The source encoding javac accepted.
    pub encoding: String,
    /// The trigger tests that fail on the buggy version (`Class::method`): what a candidate
    /// must make pass.
    pub failing_triggers: Vec<String>,
    /// Relevant tests that fail on the fixed version (`Class::method`), left out of candidate
    /// runs.
    pub excluded: Vec<String>,
    /// Test sources left out because they do not compile and hold no test the bug runs
    /// (relative to the test folder; a test of a jar nothing ships).
    #[serde(default)]
    pub dropped_tests: Vec<String>,
    /// Wall time of the fixed version's run of the trigger and relevant tests, ms: the
    /// reference a candidate's time limit is scaled from.
    pub fixed_test_ms: u64,
    /// Wall time of the fixed version's trigger tests alone (the runner's first phase), ms:
    /// the reference of a candidate's first-phase limit ([`Prepared::validator`]); 0 in a
    /// check made before it was measured (no such limit then).
    ///
    /// [`Prepared::validator`]: super::validation::Prepared::validator
    #[serde(default)]
    pub fixed_trigger_ms: u64,
    /// Wall time of the whole check (checkout and builds included when it made them), s.
    pub seconds: f64,
}

impl Check {
    /// A check that failed before any test ran (a build failed).
    pub(super) fn failed(fingerprint: &str, reason: String) -> Check {
        Check { fingerprint: fingerprint.to_string(), reason: Some(reason), ..Check::default() }
    }
}

/// The check cached in `dir` when its fingerprint is `fingerprint` and the checkouts are
/// there.
pub(super) fn cached(dir: &Path, fingerprint: &str) -> Option<Check> {
    let text = std::fs::read_to_string(dir.join(CHECK_FILE)).ok()?;
    let check: Check = serde_json::from_str(&text).ok()?;
    (check.fingerprint == fingerprint && dir.join("buggy").is_dir() && dir.join("classes").is_dir()).then_some(check)
}

/// Writes `check` into `dir` (temporary file + rename), with the excluded tests as
/// `excluded.txt` for the runner.
pub(super) fn save(dir: &Path, check: &Check) -> Result<(), D4jError> {
    let excluded = dir.join("excluded.txt");
    std::fs::write(&excluded, check.excluded.join("\n") + "\n").map_err(D4jError::io(&excluded))?;
    let tmp = dir.join(".check.json.tmp");
    let json = serde_json::to_string_pretty(check).expect("a Check serializes");
    std::fs::write(&tmp, json).map_err(D4jError::io(&tmp))?;
    std::fs::rename(&tmp, dir.join(CHECK_FILE)).map_err(D4jError::io(dir))
}

/// Runs the check on the built bug `p` (its folder made); `started` when the set-up began.
pub(super) fn run(harness: &Harness, p: &Prepared, fingerprint: &str, started: Instant) -> Result<Check, D4jError> {
    let mut check = Check {
        fingerprint: fingerprint.to_string(),
        encoding: p.encoding.clone(),
        dropped_tests: p.check.dropped_tests.clone(),
        ..Check::default()
    };
    // Two phases, as a candidate's run: the first one's time is the trigger tests' own.
    let mut tests = p.meta.triggers.clone();
    tests.push("--".into());
    tests.extend(p.relevant());
    let (fixed_failing, fixed_ms, phases) = match run_tests(harness, p, "fixed", &tests)? {
        Ok(found) => found,
        Err(why) => return Ok(Check { reason: Some(format!("fixed version: {why}")), ..check }),
    };
    check.fixed_test_ms = fixed_ms;
    check.fixed_trigger_ms = phases.first().copied().unwrap_or(0);
    let broken: Vec<&String> = p.meta.triggers.iter().filter(|t| fixed_failing.contains(t)).collect();
    check.excluded = fixed_failing.iter().filter(|t| !p.meta.triggers.contains(t)).cloned().collect();
    let buggy_failing = match run_tests(harness, p, "buggy", &p.meta.triggers)? {
        Ok((failing, ..)) => failing,
        Err(why) => return Ok(Check { reason: Some(format!("buggy version: {why}")), ..check }),
    };
    check.failing_triggers = p.meta.triggers.iter().filter(|t| buggy_failing.contains(t)).cloned().collect();
    check.reason = if !broken.is_empty() {
        Some(format!("trigger test{} fail on the fixed version: {}", plural(broken.len()), join(&broken)))
    } else if check.failing_triggers.is_empty() {
        Some(format!("no trigger test fails on the buggy version (ran {})", p.meta.triggers.join(", ")))
    } else {
        None
    };
    check.passed = check.reason.is_none();
    check.seconds = started.elapsed().as_secs_f64();
    Ok(check)
}

/// A test run's failing tests (`Class::method`), wall time and each phase's that ran, ms.
type TestRun = (Vec<String>, u64, Vec<u64>);

/// The failing tests (`Class::method`) of `tests` (phases split by `--`) on `version`, the
/// run's wall time and each phase's that ran (the runner's `--timings`), ms; `Err(why)` when
/// the run timed out or died without a result.
fn run_tests(
    harness: &Harness,
    p: &Prepared,
    version: &str,
    tests: &[String],
) -> Result<Result<TestRun, String>, D4jError> {
    let failures = p.dir.join(format!("{version}-failures.txt"));
    let timings = p.dir.join(format!("{version}-timings.txt"));
    let _ = std::fs::remove_file(&failures);
    let _ = std::fs::remove_file(&timings);
    let mut args = vec!["--failures".to_string(), failures.display().to_string()];
    args.extend(["--timings".to_string(), timings.display().to_string()]);
    args.extend(tests.iter().cloned());
    let dir = p.dir.join(version);
    let run =
        run_command(&p.java(version, false, &args), &dir, &Prepared::env(), harness.test_timeout).map_err(|e| {
            D4jError::Tool {
                bug: p.id(),
                step: format!("running the {version} version's tests"),
                detail: e.to_string(),
            }
        })?;
    match run.exit {
        Exit::TimedOut => return Ok(Err(format!("the tests ran past {} s", harness.test_timeout.as_secs()))),
        Exit::Code(0 | 1) => {}
        _ => {
            return Ok(Err(format!(
                "the test runner died: {}",
                run.failure_text().lines().take(5).collect::<Vec<_>>().join(" | ")
            )));
        }
    }
    let failing = match std::fs::read_to_string(&failures) {
        Ok(text) => text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_string).collect(),
        Err(_) if run.exit == Exit::Code(0) => Vec::new(),
        Err(e) => return Ok(Err(format!("the runner wrote no failure list ({e})"))),
    };
    let _ = std::fs::remove_file(&failures);
    let phases = std::fs::read_to_string(&timings)
        .map(|text| text.lines().filter_map(|l| l.trim().parse().ok()).collect())
        .unwrap_or_default();
    let _ = std::fs::remove_file(&timings);
    Ok(Ok((failing, run.wall_ms, phases)))
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn join(items: &[&String]) -> String {
    items.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}
