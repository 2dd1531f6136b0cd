//! fixdex repair: the repair front end.
//!
//! A [`run::workflow::Workflow`] runs one repair strategy ([`strategies`], picked from the
//! [`strategies::Registry`]; ReinFix, ../shared/papers/reinfix.txt, Algorithm 1, by default)
//! on a [`run::bug::Bug`]: the shared [`run::preflight`] turns it into a
//! [`run::bug::Problem`], the strategy works through a [`run::session::Session`] (model
//! requests, candidate validation, budgets, the [`run::report`]), with [`run::config`] its
//! knobs and [`Error`] what can end it. Below them: [`llm`] (OpenAI-compatible client,
//! scripted and record/replay doubles), [`tools`] (the nine internal-ingredient tools),
//! [`retrieve`] (the one retrieval pipeline: similar fixes from the engine, ranked, with what
//! each fix did and the likely repair actions),
//! [`patch`] (applying patches), [`validate`] and [`scratch`] (testing them: [`verdict`] the
//! typed outcome, [`process`] one supervised command, [`test_output`] JUnit/pytest output
//! read), [`condense`] (test output cut to the failure text a prompt holds), [`baseline`]
//! (which failures were there before the patch), [`Language`] (Java or Python, the actions crate's) and
//! [`toolchain`] (javac, JUnit, Python found); [`fl`] is SBFL fault localization, [`label`]
//! writes root causes into a corpus (`fixdex label`), [`bench`](mod@bench) the QuixBugs harness and the
//! summary of workflow runs, [`serve`] the MCP/HTTP server.

#![warn(missing_docs)]

pub mod baseline;
pub mod bench;
pub mod condense;
pub mod error;
pub mod fl;
pub mod label;
pub mod llm;
pub mod patch;
pub mod process;
pub mod retrieve;
pub mod run;
pub mod scratch;
pub mod serve;
pub mod strategies;
pub mod test_output;
pub mod toolchain;
pub mod tools;
pub mod validate;
pub mod verdict;

pub use actions::Language;
pub use error::{Error, Result};
