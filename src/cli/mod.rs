//! One module per subcommand, plus shared helpers.

/// `println!` that returns an `io::Result` instead of panicking when stdout is closed
/// (`fixdex search ... | head`); `main` exits quietly on a broken pipe.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)
    }};
}

pub mod bench;
pub mod compact;
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
pub mod search;
pub mod serve;
pub mod verify;
pub mod workflow_args;

use std::path::Path;

/// Checks, before any work, that the output file `path` given with `flag` can be created
/// ([`engine::format::check_output`]: its folder exists and accepts a new file).
///
/// # Errors
/// One line naming the flag, the path and what is wrong.
pub(crate) fn check_output(flag: &str, path: &Path) -> anyhow::Result<()> {
    engine::format::check_output(path).map_err(|e| anyhow::anyhow!("{flag}: {e}"))
}

/// Creates the output folder `dir` given with `flag` when it is missing, and checks that
/// files can be created in it, before any work.
///
/// # Errors
/// One line naming the flag, the folder and what is wrong.
pub(crate) fn check_output_dir(flag: &str, dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("{flag}: cannot create the folder {}: {e}", dir.display()))?;
    match engine::format::check_output(&dir.join(".fixdex-probe")) {
        Err(engine::Error::Output { reason, .. }) => anyhow::bail!("{flag} {}: {reason}", dir.display()),
        other => Ok(other?),
    }
}
