//! fixdex repair: the repair front end.
//!
//! A [`workflow::Workflow`] runs one repair [`strategies`] strategy (ReinFix,
//! ../shared/papers/reinfix.txt, Algorithm 1, by default) on a [`bug::Bug`]: the shared
//! [`preflight`] turns it into a [`bug::Problem`], the strategy works through a
//! [`session::Session`] (model requests, candidate validation, budgets, the [`report`]),
//! with [`config`] its knobs and [`Error`] what can end it. Below them: [`llm`]
//! (OpenAI-compatible client, scripted and record/replay doubles), [`tools`] (the nine
//! internal-ingredient tools), [`retrieve`] (the one retrieval pipeline: similar fixes from the engine,
//! ranked, with what each fix did and the likely repair actions), [`patch`]
//! (applying model patches), [`validate`] and [`scratch`] (testing them: [`verdict`] the
//! typed outcome, [`process`] one supervised command, [`test_output`] JUnit/pytest output
//! read), [`condense`] (test output cut to the failure text a prompt holds), [`baseline`] (which failures were there
//! before the patch), [`language`] (Java or Python) and [`toolchain`] (javac, JUnit, Python
//! found); [`fl`] is SBFL fault localization, [`label`] writes root causes into a corpus (`fixdex
//! label`), [`quixbugs`] the benchmark harness
//! and [`evaluation`] its summary of workflow runs, [`serve`] the MCP/HTTP server.
//! [`agent`] keeps the first names of the
//! workflow's API for one release.

pub mod agent;
pub mod baseline;
pub mod bug;
pub mod condense;
pub mod config;
pub mod error;
pub mod evaluation;
pub mod fl;
pub mod label;
pub mod language;
pub mod llm;
pub mod patch;
pub mod preflight;
pub mod process;
pub mod quixbugs;
pub mod report;
pub mod retrieve;
pub mod scratch;
pub mod serve;
pub mod session;
pub mod strategies;
pub mod test_output;
pub mod toolchain;
pub mod tools;
pub mod validate;
pub mod verdict;
pub mod workflow;

pub use error::{Error, Result};
