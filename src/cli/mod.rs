//! One module per subcommand, plus shared helpers.

/// `println!` that returns an `io::Result` instead of panicking when stdout is closed
/// (`fixdex search ... | head`); `main` exits quietly on a broken pipe. Notes that stdout
/// was written ([`STDOUT_WRITTEN`]).
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        $crate::cli::STDOUT_WRITTEN.store(true, std::sync::atomic::Ordering::Relaxed);
        writeln!(std::io::stdout().lock(), $($arg)*)
    }};
}

/// Whether the command wrote anything to stdout: a failed `--json` command prints its error
/// as one JSON object on stdout only when it wrote nothing else there
/// ([`exit::report_json`]).
pub static STDOUT_WRITTEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

pub mod bench;
pub mod compact;
pub mod defects4j;
pub mod eval;
pub mod exit;
pub mod index;
pub mod inspect;
pub mod label;
pub mod llm_args;
pub mod logging;
pub mod manifest;
pub mod mine;
pub mod model;
pub mod progress;
pub mod quixbugs;
pub mod repair;
pub mod runs;
pub mod sbfl_args;
pub mod search;
pub mod serve;
pub mod verify;
pub mod workflow_args;

/// `1 bug`, `2 bugs`: a count with its noun in agreement.
pub(crate) use ::repair::bench::summary::count;
use std::path::{Path, PathBuf};

/// Checks, before any work, that the output file `path` given with `flag` may be written,
/// by the one check every writing command makes ([`engine::output::check`]: `-`, a folder,
/// a device or pipe, one of `inputs` or a file inside an input folder are refused; the
/// folder must accept a new file). Returns the file to write: `path`, or the file a
/// symbolic link at `path` points to (the link is kept).
///
/// # Errors
/// One line naming the flag, the path and what is wrong.
pub(crate) fn check_output(flag: &str, path: &Path, inputs: &[&Path]) -> anyhow::Result<PathBuf> {
    engine::output::check(path, inputs).map_err(|e| anyhow::anyhow!("{flag}: {e}"))
}

/// Refuses to replace an existing file at the output `path` given with `flag` that is not
/// of `kind` ([`engine::output::check_replaces`]; `by`: what would replace it).
///
/// # Errors
/// One line naming the flag, the path and what is there.
pub(crate) fn check_replaces(flag: &str, path: &Path, kind: engine::output::Kind, by: &str) -> anyhow::Result<()> {
    engine::output::check_replaces(path, kind, by).map_err(|e| anyhow::anyhow!("{flag}: {e}"))
}

/// Takes the lock of the output `target` (from [`check_output`]) for this run
/// ([`engine::output::Lock`]): a second run on the same output is refused at once.
///
/// # Errors
/// One line naming the flag, the output, the lock file and the other run's pid.
pub(crate) fn lock_output(flag: &str, target: &Path) -> anyhow::Result<engine::output::Lock> {
    engine::output::Lock::acquire(target).map_err(|e| anyhow::anyhow!("{flag}: {e}"))
}

/// Creates the output folder `dir` given with `flag` when it is missing, and checks that
/// files can be created in it, before any work.
///
/// # Errors
/// One line naming the flag, the folder and what is wrong.
pub(crate) fn check_output_dir(flag: &str, dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("{flag}: cannot create the folder {}: {e}", dir.display()))?;
    match engine::output::check(&dir.join(".fixdex-probe"), &[]).map(drop) {
        Err(engine::Error::Output { reason, .. }) => anyhow::bail!("{flag} {}: {reason}", dir.display()),
        other => Ok(other?),
    }
}

/// The parser of a limit in seconds (`--timeout-s`, `--test-timeout-s`, `--max-wall-s`): a
/// positive whole number. 0 is a usage error (exit 2): a limit of 0 s would stop every
/// command, or the whole repair, before it starts.
pub(crate) fn positive_seconds(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(0) => Err("a limit of 0 s stops everything at once; give at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// The parser of a shell command (`--test-cmd`): not empty and not only whitespace (exit 2),
/// as such a command runs nothing.
pub(crate) fn shell_command(s: &str) -> Result<String, String> {
    if s.trim().is_empty() { Err("a value is required: the command is empty".into()) } else { Ok(s.to_string()) }
}
