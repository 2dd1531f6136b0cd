//! Integration tests of the repair crate.

/// The internal-ingredient tools on the fixture project, QuixBugs and error cases.
mod tools;
