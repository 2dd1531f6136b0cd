//! Logging setup: `tracing` to stderr, level from `-v` flags or `RUST_LOG`.

use tracing_subscriber::EnvFilter;

/// Installs the subscriber. `verbose` 0 = warnings, 1 = info, 2 = debug, 3+ = trace.
pub fn init(verbose: u8) {
    let level = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    // hnsw_rs logs every build at info level; keep it quiet unless asked for debug.
    let default = format!("{level},hnsw_rs={}", if verbose >= 2 { level } else { "warn" });
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}
