//! Benchmarks of the repair workflow: the QuixBugs harness ([`quixbugs`]: programs, their
//! tests, the ground truth, the benchmark check), the Defects4J harness ([`defects4j`]: bugs
//! from git, javac builds, the gold check, fast validation), what a run keeps on disk
//! ([`record`]), the grading of plausible patches against the developer's fix ([`grade`]),
//! and the summary of workflow runs over many bugs ([`evaluation`]), to which each strategy
//! adds its own section ([`crate::strategies::Strategy::eval_bug`]).

pub mod evaluation;
pub mod quixbugs;
pub mod record;
