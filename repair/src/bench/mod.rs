//! Benchmarks of the repair workflow: the QuixBugs harness ([`quixbugs`]: programs, their
//! tests, the ground truth, the benchmark check), the Defects4J harness ([`defects4j`]: bugs
//! from git, javac builds, the gold check, fast validation), what a run keeps on disk
//! ([`record`]) and how its bugs are run, resumed and merged ([`batch`]), what is kept of a
//! bug's repair ([`keep`]), the grading of
//! plausible patches against the developer's fix ([`grade`]), the numbers of a run
//! ([`summary`]), its pages ([`report`]) and the paired comparison of two runs
//! ([`compare`]), and the summary of workflow runs over many bugs ([`evaluation`]), to which
//! each strategy adds its own section ([`crate::strategies::Strategy::eval_bug`]).

pub mod batch;
pub mod compare;
pub mod defects4j;
pub mod evaluation;
pub mod grade;
pub mod keep;
pub mod quixbugs;
pub mod record;
pub mod report;
pub mod summary;
