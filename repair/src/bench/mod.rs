//! Benchmarks of the repair workflow: the QuixBugs harness ([`quixbugs`]: programs, their
//! tests, the ground truth, the benchmark check) and the summary of workflow runs over many
//! bugs ([`evaluation`]), to which each strategy adds its own section
//! ([`crate::strategies::Strategy::eval_bug`]).

pub mod evaluation;
pub mod quixbugs;
