//! fixdex repair: the repair front end (issue 4, in progress).
//!
//! Modules land one capability at a time: patch application, test validation, the LLM
//! client, the internal-ingredient tools and the QuixBugs harness, then the ReinFix
//! workflow (../shared/papers/reinfix.txt, Algorithm 1) that ties them to the engine.

pub mod fl;
pub mod llm;
pub mod patch;
pub mod quixbugs;
pub mod scratch;
pub mod tools;
pub mod validate;
