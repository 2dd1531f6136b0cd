//! Process supervision: run one command in its own process group under a wall-clock
//! timeout, with bounded output, and report how it ended ([`run_command`]).
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
//! # Every line is scanned
//! The reader threads hand every complete line (cut at [`MAX_SCAN_LINE_BYTES`]) to a
//! per-line hook, so what matters is found even when it falls before the tail: failing test
//! names and the runner's summary counts ([`crate::validate::test_output`]), and the key lines of the
//! failure ([`crate::validate::condense::is_key_line`]; [`RunOutput::cut_key_lines`]).
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
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::validate::condense::{self, MAX_KEY_LINE_CHARS};
use crate::validate::test_output::{TestCounts, failing_test_in_line, test_counts_in_line};

/// Bytes of stdout and of stderr kept per command (the tail; earlier bytes are counted only).
pub const TAIL_BYTES: usize = 64 * 1024;

/// Most failing test names kept per command.
pub const MAX_FAILING_TESTS: usize = 1000;

/// Most key lines ([`crate::validate::condense::is_key_line`]) kept per stream from the part of the
/// output that falls before the tail ([`RunOutput::cut_key_lines`]).
pub const MAX_CUT_KEY_LINES: usize = 64;

/// Bytes of one output line that the per-line scan sees (module docs); the rest of a longer
/// line is still counted and kept in the tail.
pub const MAX_SCAN_LINE_BYTES: usize = 4096;

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
    /// The key lines ([`crate::validate::condense::is_key_line`]: exceptions, assertion messages,
    /// failing-test headers) of the output that came before the tails and so is not in them,
    /// stdout's first, each cut to [`crate::validate::condense::MAX_KEY_LINE_CHARS`], at most
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

/// The process groups (their leaders' pids) of the commands [`run_command`] is running now,
/// for [`kill_running`].
static RUNNING: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Kills (`SIGKILL`) the process group of every command [`run_command`] is running now, in
/// any thread. Each command runs in a process group of its own (module docs), which a
/// terminal's Ctrl-C or a `SIGTERM` sent to fixdex does not reach: the binary calls this from
/// its signal handler before it exits, so that no JVM or pytest (a candidate looping forever,
/// say) outlives an interrupted run.
///
/// From then on a command started by another thread is killed as soon as it is registered
/// (a flag checked under the same lock), so none started during the shutdown outlives
/// it either.
pub fn kill_running() {
    let running = lock(&RUNNING);
    STOPPING.store(true, std::sync::atomic::Ordering::SeqCst);
    for &pgid in running.iter() {
        kill_group(nix::unistd::Pid::from_raw(pgid));
    }
}

/// Set by [`kill_running`]: the process is shutting down.
static STOPPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Run `spec` in `dir` with extra environment `env`, killing its whole process group after
/// `timeout`. Errors only when the command cannot be started or waited for; a failing or
/// timed-out command is an `Ok` with the matching [`Exit`].
pub fn run_command(
    spec: &CommandSpec,
    dir: &Path,
    env: &[(OsString, OsString)],
    timeout: Duration,
) -> Result<RunOutput, ValidateError> {
    let display = spec.display();
    let start = Instant::now();
    let mut child = spawn(spec, dir, env, &display)?;
    let pgid = nix::unistd::Pid::from_raw(child.id() as i32);
    {
        let mut running = lock(&RUNNING);
        running.push(pgid.as_raw());
        // Started while the process shuts down (`kill_running` already ran): stop it now.
        if STOPPING.load(std::sync::atomic::Ordering::SeqCst) {
            kill_group(pgid);
        }
    }
    let total = Arc::new(Mutex::new(0u64));
    let scan = Arc::new(Mutex::new(Scan::default()));
    let out = drain(child.stdout.take().expect("piped stdout"), Arc::clone(&total), StreamScan::new(&scan));
    let err = drain(child.stderr.take().expect("piped stderr"), Arc::clone(&total), StreamScan::new(&scan));
    let waited = wait_until(&mut child, pgid, start + timeout);
    // Kill the group in every case: on timeout to stop it, after an exit to take down any
    // background child that still holds the pipes.
    kill_group(pgid);
    lock(&RUNNING).retain(|&g| g != pgid.as_raw());
    let status = waited.map_err(|source| ValidateError::Wait { command: display.clone(), source })?;
    let exit = exit_of(status, &mut child);
    let (stdout_tail, mut cut_key_lines) = finish(out);
    let (stderr_tail, stderr_cut) = finish(err);
    cut_key_lines.extend(stderr_cut);
    let output_bytes = *lock(&total);
    let scan = std::mem::take(&mut *lock(&scan));
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

/// Start `spec` in `dir`, in a process group of its own, with [`STABLE_ENV`] and then `env`,
/// stdin closed and both outputs piped.
fn spawn(spec: &CommandSpec, dir: &Path, env: &[(OsString, OsString)], display: &str) -> Result<Child, ValidateError> {
    use std::os::unix::process::CommandExt;

    let mut cmd = spec.to_command()?;
    stabilise_env(&mut cmd);
    cmd.current_dir(dir)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    cmd.spawn().map_err(|source| ValidateError::Spawn { command: display.to_string(), dir: dir.to_path_buf(), source })
}

/// Poll `child` until it exits (`Some(status)`) or `deadline` passes (`None`), sleeping 2 ms
/// at first and doubling up to 50 ms. When waiting fails, the group is killed first.
fn wait_until(
    child: &mut Child,
    pgid: nix::unistd::Pid,
    deadline: Instant,
) -> Result<Option<ExitStatus>, std::io::Error> {
    let mut poll = Duration::from_millis(2);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(Some(status)),
            Ok(None) => {}
            Err(e) => {
                kill_group(pgid);
                return Err(e);
            }
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(None);
        }
        std::thread::sleep(poll.min(deadline - now));
        poll = (poll * 2).min(Duration::from_millis(50));
    }
}

/// How the command ended: its status, or [`Exit::TimedOut`] (`None`) after reaping the
/// killed child.
fn exit_of(status: Option<ExitStatus>, child: &mut Child) -> Exit {
    use std::os::unix::process::ExitStatusExt;

    match status {
        Some(s) => match (s.code(), s.signal()) {
            (Some(code), _) => Exit::Code(code),
            (None, Some(sig)) => Exit::Signal(sig),
            (None, None) => Exit::Signal(0),
        },
        None => {
            let _ = child.wait();
            Exit::TimedOut
        }
    }
}

fn kill_group(pgid: nix::unistd::Pid) {
    // ESRCH (group already gone) is the normal case after a clean exit.
    let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
}

/// `m` locked; a poisoned lock still holds usable counts and names.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The per-line hook of a reader thread (module docs, "Every line is scanned").
trait LineHook: Send + 'static {
    /// One complete line (lossy UTF-8, at most [`MAX_SCAN_LINE_BYTES`] bytes of it) and the
    /// byte offset in its stream where it starts.
    fn line(&mut self, line: &str, start: u64);
}

/// What the line scan of a command's output found: failing test names and summary counts.
/// Shared by the stdout and stderr readers.
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

/// The hook [`run_command`] gives each stream: the shared [`Scan`], and this stream's first
/// [`MAX_CUT_KEY_LINES`] key lines with their offsets.
struct StreamScan {
    shared: Arc<Mutex<Scan>>,
    keys: Vec<(u64, String)>,
}

impl StreamScan {
    fn new(shared: &Arc<Mutex<Scan>>) -> StreamScan {
        StreamScan { shared: Arc::clone(shared), keys: Vec::new() }
    }

    /// The key lines that start before `tail_start`, i.e. that the tail does not hold.
    fn cut_before(self, tail_start: u64) -> Vec<String> {
        self.keys.into_iter().filter(|(start, _)| *start < tail_start).map(|(_, l)| l).collect()
    }
}

impl LineHook for StreamScan {
    fn line(&mut self, line: &str, start: u64) {
        if self.keys.len() < MAX_CUT_KEY_LINES && condense::is_key_line(line) {
            self.keys.push((start, condense::cut(line, MAX_KEY_LINE_CHARS).to_string()));
        }
        lock(&self.shared).line(line);
    }
}

/// Splits a byte stream into lines for a [`LineHook`], counting byte offsets.
struct Lines<H> {
    hook: H,
    line: Vec<u8>,
    pos: u64,
    line_start: u64,
}

impl<H: LineHook> Lines<H> {
    fn new(hook: H) -> Lines<H> {
        Lines { hook, line: Vec::new(), pos: 0, line_start: 0 }
    }

    fn feed(&mut self, chunk: &[u8]) {
        for &b in chunk {
            self.pos += 1;
            if b == b'\n' {
                self.emit();
                self.line_start = self.pos;
            } else if self.line.len() < MAX_SCAN_LINE_BYTES {
                self.line.push(b);
            }
        }
    }

    fn emit(&mut self) {
        self.hook.line(&String::from_utf8_lossy(&self.line), self.line_start);
        self.line.clear();
    }

    /// The hook, after it saw the last (unterminated) line, and the stream's length in bytes.
    fn finish(mut self) -> (H, u64) {
        self.emit();
        (self.hook, self.pos)
    }
}

/// The last bytes of a stream: at most 2 × [`TAIL_BYTES`] while reading, [`TAIL_BYTES`] once
/// finished.
#[derive(Debug, Default)]
struct Tail {
    bytes: Vec<u8>,
}

impl Tail {
    fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        if self.bytes.len() > 2 * TAIL_BYTES {
            self.bytes.drain(..self.bytes.len() - TAIL_BYTES);
        }
    }

    /// The last [`TAIL_BYTES`] as lossy UTF-8, and the offset where they start in a stream
    /// of `len` bytes.
    fn finish(mut self, len: u64) -> (String, u64) {
        if self.bytes.len() > TAIL_BYTES {
            self.bytes.drain(..self.bytes.len() - TAIL_BYTES);
        }
        let start = len - self.bytes.len() as u64;
        (String::from_utf8_lossy(&self.bytes).into_owned(), start)
    }
}

/// Read a pipe to its end on a thread, counting its bytes into `total`, keeping the last
/// [`TAIL_BYTES`] and handing every line to `hook`; returns the tail, the offset where it
/// starts, and the hook.
fn drain<H: LineHook>(
    mut pipe: impl Read + Send + 'static,
    total: Arc<Mutex<u64>>,
    hook: H,
) -> JoinHandle<(String, u64, H)> {
    std::thread::spawn(move || {
        let (mut lines, mut tail) = (Lines::new(hook), Tail::default());
        let mut buf = [0u8; 8192];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    *lock(&total) += n as u64;
                    lines.feed(&buf[..n]);
                    tail.push(&buf[..n]);
                }
            }
        }
        let (hook, len) = lines.finish();
        let (tail, start) = tail.finish(len);
        (tail, start, hook)
    })
}

/// A reader thread's tail and the key lines cut before it; empty when the thread panicked.
fn finish(reader: JoinHandle<(String, u64, StreamScan)>) -> (String, Vec<String>) {
    match reader.join() {
        Ok((tail, start, scan)) => (tail, scan.cut_before(start)),
        Err(_) => (String::new(), Vec::new()),
    }
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
}
