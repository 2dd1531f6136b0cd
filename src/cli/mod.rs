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
pub mod eval;
pub mod exit;
pub mod index;
pub mod inspect;
pub mod logging;
pub mod manifest;
pub mod model;
pub mod progress;
pub mod quixbugs;
pub mod repair;
pub mod search;
pub mod serve;
pub mod verify;
