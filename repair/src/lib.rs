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
//! [`patch`] (applying patches), [`validate`] (testing them in scratch copies: the typed
//! verdict and its order, supervised commands, test output read and condensed for prompts,
//! the failures there before the patch, the toolchain found), [`Language`] (Java or Python,
//! the actions crate's); [`fl`] is SBFL fault localization, [`label`]
//! writes root causes into a corpus (`fixdex label`), [`bench`](mod@bench) the QuixBugs harness and the
//! summary of workflow runs, [`serve`] the MCP/HTTP server.

#![warn(missing_docs)]

pub mod bench;
pub mod error;
pub mod fl;
pub mod label;
pub mod llm;
pub mod patch;
pub mod retrieve;
pub mod run;
pub mod serve;
pub mod strategies;
pub mod tools;
pub mod validate;

pub use actions::Language;
pub use error::{Error, Result};
