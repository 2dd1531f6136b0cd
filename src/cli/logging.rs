//! Logging setup: `tracing` to stderr, level from `-v` flags or `RUST_LOG`.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

/// Installs the subscriber. `verbose` 0 = warnings, 1 = info, 2 = debug, 3+ = trace.
/// Colours only when stderr is a terminal and `NO_COLOR` is unset (<https://no-color.org>):
/// a log file or a pipe gets plain text.
pub fn init(verbose: u8) {
    let level = level(verbose);
    // hnsw_rs logs every build at info level; keep it quiet unless asked for debug.
    let default = format!("{level},hnsw_rs={}", if verbose >= 2 { level } else { "warn" });
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(ansi()).try_init();
}

/// The level `verbose` `-v` flags ask for: warn, info, debug, then trace.
fn level(verbose: u8) -> &'static str {
    ["warn", "info", "debug", "trace"][usize::from(verbose.min(3))]
}

/// Whether to colour the log: stderr is a terminal and `NO_COLOR` is unset or empty.
fn ansi() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}
