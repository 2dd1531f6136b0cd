//! Integration tests of the repair crate.

/// Patches from model answers applied to project trees: formats, refusals, all-or-nothing.
mod patch;
/// Tests on ../shared data (run by CI with FIXDEX_SHARED set; they fail when it is unset).
mod shared;
