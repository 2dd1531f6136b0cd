//! Integration tests of the actions crate.

/// `root_cause`: one sentence per action kind, the line-diff fallback, never empty.
mod cause;
/// Arbitrary input never panics.
mod fuzz;
/// Hand-written pairs, one or more per action kind, in Java and Python.
mod kinds;
/// The shared corpus (FIXDEX_SHARED): no panic, a non-trivial share of labelled pairs.
mod shared;
