//! fixdex repair: the repair front end.
//!
//! A [`workflow::Workflow`] runs one repair [`strategies`] strategy (ReinFix,
//! ../shared/papers/reinfix.txt, Algorithm 1, by default) on a [`bug::Bug`]: the shared
//! [`preflight`] turns it into a [`bug::Problem`], the strategy works through a
//! [`session::Session`] (model requests, candidate validation, budgets, the [`report`]),
//! with [`config`] its knobs and [`Error`] what can end it. Below them: [`llm`]
//! (OpenAI-compatible client, scripted and record/replay doubles), [`tools`] (the nine
//! internal-ingredient tools), [`retrieve`] (similar fixes from the engine), [`patch`]
//! (applying model patches), [`validate`] and [`scratch`] (testing them), [`condense`] (test
//! output cut to the failure text a prompt holds), [`baseline`] (which failures were there
//! before the patch); [`fl`] is SBFL fault localization, [`quixbugs`] the benchmark harness
//! and [`evaluation`] its summary of workflow runs, [`serve`] the MCP/HTTP server,
//! [`reload`] follows an index replaced on disk. [`agent`] keeps the first names of the
//! workflow's API for one release.

pub mod agent;
pub mod baseline;
pub mod bug;
pub mod condense;
pub mod config;
pub mod error;
pub mod evaluation;
pub mod fl;
pub mod llm;
pub mod patch;
pub mod preflight;
pub mod quixbugs;
pub mod reload;
pub mod report;
pub mod retrieve;
pub mod scratch;
pub mod serve;
pub mod session;
pub mod strategies;
pub mod tools;
pub mod validate;
pub mod workflow;

pub use error::{Error, Result};
