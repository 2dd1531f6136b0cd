//! Exit codes and error reporting.
//!
//! | code | meaning |
//! | --- | --- |
//! | 0 | success (a search with no hit above the threshold is a success) |
//! | 1 | error: bad input, I/O, model mismatch, an index without the `--space` asked for; `eval quixbugs` (without `--check`): a program ended in error (outcome `error` or `preflight_failed`, or localization failed), after the summary is printed |
//! | 2 | usage error (unknown flag, missing argument, a value of the wrong type) from clap; a flag's value out of range or unknown (`-k 0`, `--threshold 2`, `--space bogus`, `--lines 5-2`, `mine --since yesterday`), as clap's own `-k abc` is; a `--project` or `--lang` filter that matches nothing in the index; an `eval defects4j --bugs` or `eval quixbugs --programs` selection that names an unknown bug, project or program; a `repair --bug-id` that names no record but is one's id in another form; a `repair` with no fault location or a malformed `--lines`; an `index --append` build setting that conflicts with the index's |
//! | 3 | the index is corrupt or not an index (open or `verify` failed, or a search met a damaged vector) |
//! | 4 | `repair`: no plausible patch (search space, budget or time exhausted); `label`: some rows got no root cause (model errors, unusable answers, a budget or time stop; the output is written, a rerun resumes); `eval quixbugs`: not used |

use std::process::ExitCode;

/// A usage error found after parsing (options that parse but do not fit the inputs, such as
/// a `--repo` path that does not exist): exit [`USAGE`].
#[derive(Debug)]
pub struct Usage(pub String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// Any error other than usage and corruption.
pub const ERROR: u8 = 1;
/// A usage error: clap's own, or a filter value that matches nothing.
pub const USAGE: u8 = 2;
/// The index file is damaged, of another version, or not an index.
pub const CORRUPT: u8 = 3;

/// Prints `err` with its causes to stderr and returns the exit code for it. A closed stdout
/// (a reader such as `head` that stopped early) is not an error: exit 0, print nothing.
pub fn report(err: &anyhow::Error) -> ExitCode {
    if is_broken_pipe(err) {
        return ExitCode::SUCCESS;
    }
    print(err);
    ExitCode::from(code_for(err))
}

/// [`report`], and for a command given `--json` that wrote nothing on stdout
/// ([`super::STDOUT_WRITTEN`]) the error as one JSON object there too, `{"ok": false,
/// "error": MESSAGE, "exit": CODE}` (MESSAGE: [`message`]), so that a script reads every
/// answer, good or bad, from stdout.
pub fn report_json(err: &anyhow::Error, json: bool) -> ExitCode {
    if json && !is_broken_pipe(err) && !super::STDOUT_WRITTEN.load(std::sync::atomic::Ordering::Relaxed) {
        let _ = print_json_error(&message(err), i32::from(code_for(err)));
    }
    report(err)
}

/// Prints the JSON error object of a `--json` command, `{"ok": false, "error": error,
/// "exit": exit}`, as one line on stdout ([`report_json`]; `main` for clap's usage errors).
///
/// # Errors
/// Writing to stdout fails.
pub fn print_json_error(error: &str, exit: i32) -> std::io::Result<()> {
    out!("{}", serde_json::json!({"ok": false, "error": error, "exit": exit}))
}

/// Whether `err` comes from writing to a closed stdout.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().filter_map(|e| e.downcast_ref::<std::io::Error>()).any(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}

/// `err` and its [`causes`] on one line, `: `-separated (what stderr says, for a JSON
/// answer).
pub fn message(err: &anyhow::Error) -> String {
    std::iter::once(err.to_string()).chain(causes(err)).collect::<Vec<_>>().join(": ")
}

/// Prints `err` and its [`causes`] to stderr.
fn print(err: &anyhow::Error) {
    eprintln!("error: {err}");
    for cause in causes(err) {
        eprintln!("  caused by: {cause}");
    }
}

/// The causes of `err` to print after it: a cause whose text the cause before it already
/// ends with (an error type that prints `{path}: {source}` and also returns `source`) is left
/// out, so no message is said twice.
fn causes(err: &anyhow::Error) -> Vec<String> {
    let mut shown: Vec<String> = Vec::new();
    let mut previous = err.to_string();
    for cause in err.chain().skip(1) {
        let text = cause.to_string();
        if !previous.ends_with(&text) {
            shown.push(text.clone());
        }
        previous = text;
    }
    shown
}

/// The exit code for `err`: [`CORRUPT`] for a damaged, foreign or other-version index,
/// [`USAGE`] for a filter that matches nothing, a flag's value out of range or an unknown
/// space name, strategy options that do not go together
/// (another strategy's option), a [`Usage`] error, a malformed or unknown bug selection or
/// an unknown QuixBugs program, else
/// [`ERROR`].
pub(crate) fn code_for(err: &anyhow::Error) -> u8 {
    let selection = |e: &(dyn std::error::Error + 'static)| {
        matches!(
            e.downcast_ref::<repair::bench::defects4j::D4jError>(),
            Some(repair::bench::defects4j::D4jError::Selection { .. })
        )
    };
    let program = |e: &(dyn std::error::Error + 'static)| {
        matches!(
            e.downcast_ref::<repair::bench::quixbugs::QuixbugsError>(),
            Some(repair::bench::quixbugs::QuixbugsError::UnknownProgram { .. })
        )
    };
    if err
        .chain()
        .any(|e| e.is::<repair::strategies::UnknownStrategy>() || e.is::<Usage>() || selection(e) || program(e))
    {
        return USAGE;
    }
    match engine_error(err) {
        Some(e) if is_corrupt(e) => CORRUPT,
        Some(engine::Error::NoMatch { .. } | engine::Error::UnknownSpace(_)) => USAGE,
        // A flag's value (the name as the CLI spells it) or `manifest`'s segment list (one
        // listed twice); not an internal check such as a query vector that is not finite.
        Some(engine::Error::InvalidParameter { name, .. }) if name.starts_with('-') || *name == "segments" => USAGE,
        _ => ERROR,
    }
}

/// Whether `e` says the index is damaged, foreign or of another version.
fn is_corrupt(e: &engine::Error) -> bool {
    matches!(
        e,
        engine::Error::Corrupt(_)
            | engine::Error::NotAnIndex
            | engine::Error::Version { .. }
            | engine::Error::DamagedVector { .. }
            | engine::Error::DamagedIndex { .. }
            | engine::Error::UnknownRule { .. }
    )
}

/// The first engine error among `err`'s causes; else the first one an indexer error
/// wraps; else the first one a retriever error wraps.
fn engine_error(err: &anyhow::Error) -> Option<&engine::Error> {
    let direct = err.chain().find_map(|e| e.downcast_ref::<engine::Error>());
    direct.or_else(|| from_indexer(err)).or_else(|| from_retriever(err))
}

/// The first engine error an indexer error among `err`'s causes wraps.
fn from_indexer(err: &anyhow::Error) -> Option<&engine::Error> {
    err.chain().find_map(|e| match e.downcast_ref::<indexer::Error>() {
        Some(indexer::Error::Engine(inner)) => Some(inner),
        _ => None,
    })
}

/// The first engine error a retriever error among `err`'s causes wraps.
fn from_retriever(err: &anyhow::Error) -> Option<&engine::Error> {
    err.chain().find_map(|e| match e.downcast_ref::<repair::retrieve::RetrieveError>() {
        Some(repair::retrieve::RetrieveError::Engine(inner)) => Some(inner),
        _ => None,
    })
}
