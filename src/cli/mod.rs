//! One module per subcommand, plus shared helpers.

pub mod bench;
pub mod eval;
pub mod exit;
pub mod index;
pub mod inspect;
pub mod logging;
pub mod manifest;
pub mod model;
pub mod progress;
pub mod search;
pub mod verify;
