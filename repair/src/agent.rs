//! The repair API under its first name, kept for one release: everything here lives in
//! [`crate::workflow`] (the run), [`crate::session`] (what a run has), [`crate::bug`] (what a
//! bug is), [`crate::report`], [`crate::config`] and [`crate::strategies::reinfix`] (ReinFix's
//! Algorithm 1, its prompts and parsers). New code uses those paths.

pub use crate::bug::{Bug, Location};
pub use crate::config::{DEFAULT_CONTEXT_TOKENS, RunConfig as AgentConfig};
pub use crate::report::{CandidateRecord, ContextRecord, Degraded, Outcome, Preflight, RepairReport, ToolCallRecord};
pub use crate::strategies::reinfix::{
    CAUSE_QUESTION, CUT_OFF_PATCH, NUDGE_PROMPT, REACT_PROMPT, SWITCH_AFTER_MISSES, SYSTEM_PROMPT, TEXT_CALL_REMINDER,
    ToolProtocol, complete_patch_text, echoes_prompt, normalize_cause, parse_root_cause, parse_suggestions,
    text_tools_prompt,
};
pub use crate::workflow::Workflow;
