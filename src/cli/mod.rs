//! One module per subcommand, plus shared helpers.

pub mod eval;
pub mod exit;
pub mod index;
pub mod inspect;
pub mod logging;
pub mod model;
pub mod progress;
pub mod search;
pub mod verify;
