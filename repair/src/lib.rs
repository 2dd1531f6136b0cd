//! fixdex repair: the repair front end.
//!
//! [`agent`] runs the ReinFix workflow (../shared/papers/reinfix.txt, Algorithm 1) over
//! [`llm`] (OpenAI-compatible client, scripted and record/replay doubles), [`tools`] (the nine
//! internal-ingredient tools), [`retrieve`] (similar fixes from the engine), [`patch`]
//! (applying model patches), [`validate`] and [`scratch`] (testing them), [`condense`] (test
//! output cut to the failure text a prompt holds), [`baseline`] (which failures were there
//! before the patch); [`fl`] is SBFL fault localization, [`quixbugs`] the
//! benchmark harness and [`evaluation`] its summary of workflow runs, [`serve`] the MCP/HTTP
//! server, [`reload`] follows an index replaced on disk.

pub mod agent;
pub mod baseline;
pub mod condense;
pub mod evaluation;
pub mod fl;
pub mod language;
pub mod llm;
pub mod patch;
pub mod process;
pub mod quixbugs;
pub mod reload;
pub mod retrieve;
pub mod scratch;
pub mod serve;
pub mod test_output;
pub mod toolchain;
pub mod tools;
pub mod validate;
pub mod verdict;
