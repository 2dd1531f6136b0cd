//! Patch validation: run a project's build and test commands in a scratch copy, each in its
//! own process group under a wall-clock timeout, and classify the outcome.
//!
//! DESIGN.md decision 11: *run the project's test command in the scratch copy with a timeout,
//! killing the whole process group; plausible = compiles and passes all tests.* A patch is
//! **plausible** when the build command (if any) exits 0 and the test command exits 0; whether
//! it is **correct** (semantically equivalent to the developer's fix) is a separate, human or
//! oracle judgement that this module does not make.
//!
//! # Process handling
//! Every command is started with `setpgid(0, 0)` (`std::os::unix::process::CommandExt::
//! process_group(0)`), so the command and everything it spawns (a JVM, pytest workers, a
//! shell pipeline) share one process group. On timeout the whole group gets `SIGKILL`; after a
//! normal exit the group is killed too, so that a stray background child can neither keep the
//! output pipes open nor outlive the validation. Output is drained by two reader threads into
//! bounded tail buffers ([`TAIL_BYTES`] each), so a chatty test cannot exhaust memory or
//! deadlock on a full pipe.
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
//! ([`Validation::failing_tests_known`]); [`crate::baseline`] relies on that to tolerate tests
//! that already failed before the patch.
//!
//! # A fixed environment
//! Test output goes into prompts, so it must not depend on where fixdex runs. pytest (≥ 8)
//! stops truncating its short summary and assertion explanations when `CI` or `BUILD_NUMBER`
//! is set, and truncates at the width in `COLUMNS`; so every command runs with `CI` and
//! `BUILD_NUMBER` removed and `COLUMNS=80` (the width a pipe gets anyway), see
//! [`STABLE_ENV`]. Environment given by the caller is applied afterwards and wins.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// Bytes of stdout and of stderr kept per command (the tail; earlier bytes are counted only).
pub const TAIL_BYTES: usize = 64 * 1024;

/// Most failing test names kept per command.
pub const MAX_FAILING_TESTS: usize = 1000;

/// Most key lines ([`crate::condense::is_key_line`]) kept per stream from the part of the
/// output that falls before the tail ([`RunOutput::cut_key_lines`]).
pub const MAX_CUT_KEY_LINES: usize = 64;

/// Environment every command runs with, before the caller's own: `(name, None)` removes the
/// variable, `(name, Some(value))` sets it. pytest's output depends on these (module docs,
/// "A fixed environment"); without this a replayed session recorded on a laptop does not
/// match the same run on a CI machine.
pub const STABLE_ENV: &[(&str, Option<&str>)] = &[("CI", None), ("BUILD_NUMBER", None), ("COLUMNS", Some("80"))];

/// Apply [`STABLE_ENV`] to `cmd`.
fn stabilise_env(cmd: &mut Command) {
    for &(name, value) in STABLE_ENV {
        match value {
            Some(v) => cmd.env(name, v),
            None => cmd.env_remove(name),
        };
    }
}

/// Output fragments that mark a failed run of a test-only command as a compile error, besides
/// javac's `File.java:12: error:` lines (see [`looks_like_compile_error`]): Maven
/// (`COMPILATION ERROR`), Gradle (`Compilation failed`), and Python errors raised while
/// pytest collects or imports a module (`SyntaxError`, `IndentationError`, `ERROR collecting`).
pub const COMPILE_ERROR_SIGNATURES: &[&str] =
    &["COMPILATION ERROR", "Compilation failed", "SyntaxError", "IndentationError", "ERROR collecting"];

/// Errors of the validation machinery itself (not of the code under test).
#[derive(Debug, thiserror::Error)]
pub enum ValidateError {
    /// The command could not be started (program missing, not executable, bad directory).
    #[error("cannot start `{command}` in {dir}: {source}")]
    Spawn {
        /// The command as the user wrote it.
        command: String,
        /// Working directory.
        dir: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Waiting for the command failed.
    #[error("waiting for `{command}`: {source}")]
    Wait {
        /// The command as the user wrote it.
        command: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// An empty command.
    #[error("empty command")]
    EmptyCommand,
}

/// A command: a shell line run with `sh -c` (what a user types for `--test-cmd`), or an
/// argument vector run directly (what the harnesses build, no quoting involved).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CommandSpec {
    /// `sh -c LINE`.
    Shell(String),
    /// `argv[0] argv[1..]`, looked up on `PATH`.
    Argv(Vec<String>),
}

impl CommandSpec {
    /// The command as one display line (argv elements quoted where needed).
    pub fn display(&self) -> String {
        match self {
            CommandSpec::Shell(line) => line.clone(),
            CommandSpec::Argv(argv) => argv
                .iter()
                .map(|a| shlex::try_quote(a).map_or_else(|_| a.clone(), |q| q.into_owned()))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    fn to_command(&self) -> Result<Command, ValidateError> {
        match self {
            CommandSpec::Shell(line) if line.trim().is_empty() => Err(ValidateError::EmptyCommand),
            CommandSpec::Shell(line) => {
                let mut c = Command::new("sh");
                c.arg("-c").arg(line);
                Ok(c)
            }
            CommandSpec::Argv(argv) => {
                let (first, rest) = argv.split_first().ok_or(ValidateError::EmptyCommand)?;
                let mut c = Command::new(first);
                c.args(rest);
                Ok(c)
            }
        }
    }
}

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "value")]
pub enum Exit {
    /// Exited with this status code.
    Code(i32),
    /// Killed by this signal (not by us).
    Signal(i32),
    /// Ran past the timeout; its process group was killed.
    TimedOut,
}

impl Exit {
    /// True for `Code(0)`.
    pub fn success(self) -> bool {
        self == Exit::Code(0)
    }
}

/// The record of one command run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunOutput {
    /// The command line.
    pub command: String,
    /// How it ended.
    pub exit: Exit,
    /// Wall time, milliseconds.
    pub wall_ms: u64,
    /// The last [`TAIL_BYTES`] of stdout (lossy UTF-8).
    pub stdout_tail: String,
    /// The last [`TAIL_BYTES`] of stderr (lossy UTF-8).
    pub stderr_tail: String,
    /// Total bytes written to stdout and stderr.
    pub output_bytes: u64,
    /// Failing test names seen anywhere in the output (not only in the tails), in order,
    /// without duplicates, at most [`MAX_FAILING_TESTS`]; see [`failing_test_in_line`].
    pub failing_tests: Vec<String>,
    /// The test runner's own counts, summed over every summary line in the output (see
    /// [`test_counts_in_line`]); `None` when no summary line was seen (an unknown runner, or
    /// a run that crashed or was killed before its summary).
    #[serde(default)]
    pub test_counts: Option<TestCounts>,
    /// The key lines ([`crate::condense::is_key_line`]: exceptions, assertion messages,
    /// failing-test headers) of the output that came before the tails and so is not in them,
    /// stdout's first, each cut to [`crate::condense::MAX_KEY_LINE_CHARS`], at most
    /// [`MAX_CUT_KEY_LINES`] per stream; empty when nothing was cut.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cut_key_lines: Vec<String>,
}

impl RunOutput {
    /// stdout tail followed by stderr tail.
    pub fn combined(&self) -> String {
        format!("{}{}", self.stdout_tail, self.stderr_tail)
    }

    /// The failure text of the run before condensing: [`RunOutput::cut_key_lines`] (when the
    /// output was longer than the tails), a marker line, then [`RunOutput::combined`].
    pub fn failure_text(&self) -> String {
        if self.cut_key_lines.is_empty() {
            return self.combined();
        }
        format!(
            "{}\n... [output cut; the key lines above came before it]\n{}",
            self.cut_key_lines.join("\n"),
            self.combined()
        )
    }
}

/// Run `spec` in `dir` with extra environment `env`, killing its whole process group after
/// `timeout`. Errors only when the command cannot be started or waited for; a failing or
/// timed-out command is an `Ok` with the matching [`Exit`].
pub fn run_command(
    spec: &CommandSpec,
    dir: &Path,
    env: &[(OsString, OsString)],
    timeout: Duration,
) -> Result<RunOutput, ValidateError> {
    use std::os::unix::process::{CommandExt, ExitStatusExt};

    let display = spec.display();
    let mut cmd = spec.to_command()?;
    stabilise_env(&mut cmd);
    cmd.current_dir(dir)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|source| ValidateError::Spawn {
        command: display.clone(),
        dir: dir.to_path_buf(),
        source,
    })?;
    let pgid = nix::unistd::Pid::from_raw(child.id() as i32);
    let total = Arc::new(Mutex::new(0u64));
    let names = Arc::new(Mutex::new(Scan::default()));
    let out = drain(child.stdout.take().expect("piped stdout"), Arc::clone(&total), Arc::clone(&names));
    let err = drain(child.stderr.take().expect("piped stderr"), Arc::clone(&total), Arc::clone(&names));

    let deadline = start + timeout;
    let mut poll = Duration::from_millis(2);
    let status: Option<ExitStatus> = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(source) => {
                kill_group(pgid);
                return Err(ValidateError::Wait { command: display, source });
            }
        }
        let now = Instant::now();
        if now >= deadline {
            break None;
        }
        std::thread::sleep(poll.min(deadline - now));
        poll = (poll * 2).min(Duration::from_millis(50));
    };
    // Kill the group in both cases: on timeout to stop it, after an exit to take down any
    // background child that still holds the pipes.
    kill_group(pgid);
    let exit = match status {
        Some(s) => match (s.code(), s.signal()) {
            (Some(code), _) => Exit::Code(code),
            (None, Some(sig)) => Exit::Signal(sig),
            (None, None) => Exit::Signal(0),
        },
        None => {
            let _ = child.wait();
            Exit::TimedOut
        }
    };
    let (stdout_tail, mut cut_key_lines) = out.join().unwrap_or_default();
    let (stderr_tail, stderr_cut) = err.join().unwrap_or_default();
    cut_key_lines.extend(stderr_cut);
    let output_bytes = *total.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let scan = std::mem::take(&mut *names.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
    Ok(RunOutput {
        command: display,
        exit,
        wall_ms: u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
        stdout_tail,
        stderr_tail,
        output_bytes,
        failing_tests: scan.names,
        test_counts: scan.counts,
        cut_key_lines,
    })
}

fn kill_group(pgid: nix::unistd::Pid) {
    // ESRCH (group already gone) is the normal case after a clean exit.
    let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
}

/// What the line scan of a command's output found: failing test names and summary counts.
#[derive(Debug, Default)]
struct Scan {
    names: Vec<String>,
    counts: Option<TestCounts>,
}

impl Scan {
    fn line(&mut self, line: &str) {
        if let Some(name) = failing_test_in_line(line)
            && self.names.len() < MAX_FAILING_TESTS
            && !self.names.contains(&name)
        {
            self.names.push(name);
        }
        if let Some(c) = test_counts_in_line(line) {
            let sum = self.counts.unwrap_or_default();
            self.counts = Some(TestCounts { failed: sum.failed + c.failed, passed: sum.passed + c.passed });
        }
    }
}

/// Read a pipe to its end on a thread, keeping the last [`TAIL_BYTES`] and collecting the
/// failing test names and summary counts of every complete line (lines are cut at 4 KiB for
/// this scan); returns the tail and the key lines that came before it
/// ([`RunOutput::cut_key_lines`]).
fn drain(
    mut pipe: impl Read + Send + 'static,
    total: Arc<Mutex<u64>>,
    found: Arc<Mutex<Scan>>,
) -> std::thread::JoinHandle<(String, Vec<String>)> {
    std::thread::spawn(move || {
        let mut tail: Vec<u8> = Vec::new();
        let mut line: Vec<u8> = Vec::new();
        let (mut pos, mut line_start) = (0u64, 0u64);
        let mut keys: Vec<(u64, String)> = Vec::new();
        let mut scan = |line: &[u8], start: u64| {
            let text = String::from_utf8_lossy(line);
            if keys.len() < MAX_CUT_KEY_LINES && crate::condense::is_key_line(&text) {
                keys.push((start, crate::condense::cut(&text, crate::condense::MAX_KEY_LINE_CHARS).to_string()));
            }
            found.lock().unwrap_or_else(std::sync::PoisonError::into_inner).line(&text);
        };
        let mut buf = [0u8; 8192];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    *total.lock().unwrap_or_else(std::sync::PoisonError::into_inner) += n as u64;
                    for &b in &buf[..n] {
                        pos += 1;
                        if b == b'\n' {
                            scan(&line, line_start);
                            line.clear();
                            line_start = pos;
                        } else if line.len() < 4096 {
                            line.push(b);
                        }
                    }
                    tail.extend_from_slice(&buf[..n]);
                    if tail.len() > 2 * TAIL_BYTES {
                        tail.drain(..tail.len() - TAIL_BYTES);
                    }
                }
            }
        }
        scan(&line, line_start);
        if tail.len() > TAIL_BYTES {
            tail.drain(..tail.len() - TAIL_BYTES);
        }
        let tail_start = pos - tail.len() as u64;
        let cut = keys.into_iter().filter(|(start, _)| *start < tail_start).map(|(_, l)| l).collect();
        (String::from_utf8_lossy(&tail).into_owned(), cut)
    })
}

/// The outcome class of a validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Built and every test passed.
    Plausible,
    /// The build failed (or a test-only run shows a compile error signature).
    CompileError,
    /// Built, and the test command failed.
    TestFailure,
    /// The build or the tests ran past the timeout.
    Timeout,
    /// TEMPORARY (lead, until the verdict module lands): a candidate that did not apply.
    PatchRefused,
    /// TEMPORARY: the same change as an earlier candidate.
    Duplicate,
}

impl Verdict {
    /// TEMPORARY: the serde name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Plausible => "plausible",
            Verdict::CompileError => "compile_error",
            Verdict::TestFailure => "test_failure",
            Verdict::Timeout => "timeout",
            Verdict::PatchRefused => "patch_refused",
            Verdict::Duplicate => "duplicate",
        }
    }
}

/// A validation: verdict, the runs behind it, and the failing tests that could be read from
/// the output (JUnit 4 `JUnitCore` and pytest formats).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Validation {
    /// The outcome class.
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
    /// [`RunOutput::failure_text`] condensed by [`crate::condense::condense`] (repeated frames
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
            s.push_str(&crate::condense::condense(&run.failure_text(), budget));
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
}

impl Validator {
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
            Exit::TimedOut => Verdict::Timeout,
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
/// (`OK (3 tests)`, `Tests run: 3,  Failures: 2`) and pytest's last line, with or without
/// `=` padding (`2 failed, 1 passed, 1 error in 0.12s`, `no tests ran in 0.01s`). pytest
/// lines must end in their duration, so a program printing `1 passed` is not mistaken for one.
pub fn test_counts_in_line(line: &str) -> Option<TestCounts> {
    let line = line.trim();
    junit_counts(line).or_else(|| pytest_counts(line))
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
/// (`1) test_1(pkg.KNAPSACK_TEST)` → `pkg.KNAPSACK_TEST#test_1`) and pytest's short summary
/// (`FAILED path::test[id] - msg` → `path::test[id]`; `ERROR path.py` for collection errors).
pub fn failing_test_in_line(line: &str) -> Option<String> {
    let line = line.trim_end();
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

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(line: &str) -> CommandSpec {
        CommandSpec::Shell(line.to_string())
    }

    #[test]
    fn commands_get_the_stable_environment_and_the_caller_env_wins() {
        let mut cmd = Command::new("true");
        stabilise_env(&mut cmd);
        let envs: Vec<(String, Option<String>)> = cmd
            .get_envs()
            .map(|(k, v)| (k.to_string_lossy().into_owned(), v.map(|v| v.to_string_lossy().into_owned())))
            .collect();
        assert!(envs.contains(&("CI".into(), None)), "{envs:?}");
        assert!(envs.contains(&("BUILD_NUMBER".into(), None)), "{envs:?}");
        assert!(envs.contains(&("COLUMNS".into(), Some("80".into()))), "{envs:?}");
        // End to end: the child sees COLUMNS=80 and no CI unless the caller passes it.
        let dir = tempfile::tempdir().unwrap();
        let probe = sh("printf '%s|%s' \"${CI-unset}\" \"$COLUMNS\"");
        let r = run_command(&probe, dir.path(), &[], Duration::from_secs(10)).unwrap();
        assert_eq!(r.stdout_tail, "unset|80");
        let env = [(OsString::from("CI"), OsString::from("1"))];
        let r = run_command(&probe, dir.path(), &env, Duration::from_secs(10)).unwrap();
        assert_eq!(r.stdout_tail, "1|80");
    }

    #[test]
    fn exit_codes_and_output_are_captured() {
        let dir = tempfile::tempdir().unwrap();
        let r = run_command(&sh("echo out; echo err >&2; exit 3"), dir.path(), &[], Duration::from_secs(10)).unwrap();
        assert_eq!(r.exit, Exit::Code(3));
        assert_eq!(r.stdout_tail, "out\n");
        assert_eq!(r.stderr_tail, "err\n");
        assert_eq!(r.output_bytes, 8);
        let argv = CommandSpec::Argv(vec!["sh".into(), "-c".into(), "pwd".into()]);
        let r = run_command(&argv, dir.path(), &[], Duration::from_secs(10)).unwrap();
        assert!(r.exit.success());
        assert_eq!(Path::new(r.stdout_tail.trim()).canonicalize().unwrap(), dir.path().canonicalize().unwrap());
    }

    #[test]
    fn environment_is_passed() {
        let dir = tempfile::tempdir().unwrap();
        let env = vec![(OsString::from("FIXDEX_T"), OsString::from("v42"))];
        let r = run_command(&sh("printf %s \"$FIXDEX_T\""), dir.path(), &env, Duration::from_secs(10)).unwrap();
        assert_eq!(r.stdout_tail, "v42");
    }

    /// An endless test and its children are killed as a group at the timeout: the
    /// grandchild that would write a marker file after 3 s never gets to.
    #[test]
    fn timeout_kills_the_whole_process_group() {
        let dir = tempfile::tempdir().unwrap();
        let line = "(sleep 3; touch grandchild_survived) & while true; do sleep 0.05; done";
        let t = Instant::now();
        let r = run_command(&sh(line), dir.path(), &[], Duration::from_millis(400)).unwrap();
        assert_eq!(r.exit, Exit::TimedOut);
        assert!(t.elapsed() < Duration::from_secs(3), "returned after {:?}", t.elapsed());
        std::thread::sleep(Duration::from_millis(3500));
        assert!(!dir.path().join("grandchild_survived").exists(), "a process of the group survived the kill");
    }

    /// A background child that keeps stdout open does not make a finished command hang.
    #[test]
    fn background_child_holding_the_pipe_does_not_block() {
        let dir = tempfile::tempdir().unwrap();
        let t = Instant::now();
        let r = run_command(&sh("sleep 30 & echo done"), dir.path(), &[], Duration::from_secs(20)).unwrap();
        assert_eq!(r.exit, Exit::Code(0));
        assert_eq!(r.stdout_tail, "done\n");
        assert!(t.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn output_is_bounded_to_the_tail() {
        let dir = tempfile::tempdir().unwrap();
        let r = run_command(&sh("seq 1 200000; echo LAST"), dir.path(), &[], Duration::from_secs(30)).unwrap();
        assert!(r.stdout_tail.len() <= TAIL_BYTES);
        assert!(r.stdout_tail.ends_with("200000\nLAST\n"));
        assert!(r.output_bytes > 1_000_000);
    }

    #[test]
    fn missing_program_is_a_spawn_error() {
        let dir = tempfile::tempdir().unwrap();
        let spec = CommandSpec::Argv(vec!["fixdex-no-such-program".into()]);
        let e = run_command(&spec, dir.path(), &[], Duration::from_secs(5)).unwrap_err();
        assert!(e.to_string().contains("fixdex-no-such-program"), "{e}");
        assert!(matches!(
            run_command(&sh("  "), dir.path(), &[], Duration::from_secs(5)),
            Err(ValidateError::EmptyCommand)
        ));
    }

    #[test]
    fn verdicts() {
        let dir = tempfile::tempdir().unwrap();
        let v = |build: Option<&str>, test: &str| Validator {
            build: build.map(sh),
            test: sh(test),
            timeout: Duration::from_millis(1500),
            env: Vec::new(),
        };
        assert_eq!(v(Some("true"), "true").validate(dir.path()).unwrap().verdict, Verdict::Plausible);
        let c = v(Some("echo 'A.java:3: error: ; expected' >&2; exit 1"), "true").validate(dir.path()).unwrap();
        assert_eq!(c.verdict, Verdict::CompileError);
        assert!(c.test.is_none());
        assert!(c.feedback(200).contains("error: ; expected"), "{}", c.feedback(200));
        assert_eq!(v(Some("true"), "exit 1").validate(dir.path()).unwrap().verdict, Verdict::TestFailure);
        assert_eq!(v(None, "sleep 5").validate(dir.path()).unwrap().verdict, Verdict::Timeout);
        assert_eq!(v(Some("sleep 5"), "true").validate(dir.path()).unwrap().verdict, Verdict::Timeout);
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

    /// A failure header followed by 200 KB of stack trace is still found (it is out of the
    /// tail: JUnit prints a StackOverflowError's whole trace).
    #[test]
    fn failing_tests_are_found_beyond_the_tail() {
        let dir = tempfile::tempdir().unwrap();
        let line = "echo 'There was 1 failure:'; echo '1) test5(pkg.DFS_TEST)'; \
                    i=0; while [ $i -lt 5000 ]; do echo '        at pkg.DFS.search(DFS.java:21) padding padding'; \
                    i=$((i+1)); done; exit 1";
        let v = Validator { build: None, test: sh(line), timeout: Duration::from_secs(30), env: Vec::new() };
        let r = v.validate(dir.path()).unwrap();
        assert_eq!(r.verdict, Verdict::TestFailure);
        assert!(!r.test.as_ref().unwrap().stdout_tail.contains("1) test5"));
        assert_eq!(r.failing_tests, ["pkg.DFS_TEST#test5"]);
    }

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
        for other in ["1 passed", "found 2 failed in 3 places", "Tests run: x, Failures: 1", "OK (many tests)", ""] {
            assert_eq!(test_counts_in_line(other), None, "{other:?}");
        }
    }

    /// The failing set is known only when the runner's summary counts as many failures as
    /// names were read: not for an unknown runner, nor for a run that died before its summary.
    #[test]
    fn failing_tests_known_needs_a_matching_summary() {
        let dir = tempfile::tempdir().unwrap();
        let v = |test: &str| {
            let validator =
                Validator { build: None, test: sh(test), timeout: Duration::from_secs(10), env: Vec::new() };
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
}
