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

/// The file a command that replaces its output by rename (`mine -o`, `label -o`) should
/// write: `path`, or the file a symbolic link at `path` points to (the link is kept).
///
/// # Errors
/// One line naming the flag and the path when `path` is `-` (these outputs are files,
/// replaced atomically), exists but is not a regular file (a device, a folder), is one of
/// `inputs`, or lies inside a folder among `inputs` (a repository being read); and as
/// [`check_output`] when its folder does not accept a new file.
pub(crate) fn replaceable_output(
    flag: &str,
    path: &Path,
    inputs: &[std::path::PathBuf],
) -> anyhow::Result<std::path::PathBuf> {
    if path.as_os_str() == "-" {
        anyhow::bail!(
            "{flag} -: give a file path (the output is written to a temporary file and renamed, not streamed)"
        );
    }
    let target = match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => anyhow::bail!("{flag} {}: exists and is not a regular file", path.display()),
        Ok(_) => std::fs::canonicalize(path)?,
        Err(_) => path.to_path_buf(),
    };
    check_output(flag, path)?;
    let absolute = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let parent_abs = target.parent().filter(|p| !p.as_os_str().is_empty()).map(absolute);
    let full = match (parent_abs, target.file_name()) {
        (Some(dir), Some(name)) => dir.join(name),
        _ => absolute(&target),
    };
    for input in inputs {
        let input = absolute(input);
        if full == input || (input.is_dir() && full.starts_with(&input)) {
            anyhow::bail!(
                "{flag} {}: is (or is inside) the input {}; write the output elsewhere",
                path.display(),
                input.display()
            );
        }
    }
    Ok(target)
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
