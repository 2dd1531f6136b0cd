//! The knobs of a repair run ([`RunConfig`]): the model and its sampling, the context window,
//! budgets and the wall clock (every strategy), retrieval, and the search space that
//! ReinFix names (attempts × suggestions × patches; other strategies map their own rounds
//! and samples onto it, as their docs say).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::llm::Budget;
use crate::retrieve::RetrieveParams;

/// Knobs of the workflow. Defaults follow ReinFix §4.5 (temperature 1; 3 × 3 × 5).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunConfig {
    /// Model name sent to the endpoint.
    pub model: String,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Sampling seed, for endpoints that honour it.
    pub seed: Option<u64>,
    /// Completion length limit per call, tokens.
    pub max_tokens: Option<u32>,
    /// The model's context window (prompt plus reply), tokens: the history of every
    /// request is kept within it less `max_tokens` ([`crate::llm::context`]).
    #[serde(default = "default_context_tokens")]
    pub context_tokens: u64,
    /// Most ReAct turns in the reasoning phase.
    pub react_steps: usize,
    /// Repair attempts.
    pub attempts: usize,
    /// Repair suggestions per attempt.
    pub suggestions: usize,
    /// Candidate patches per suggestion (the `n` of one request).
    pub patches: usize,
    /// Keep validating after the first plausible patch.
    pub collect_all: bool,
    /// Retrieval parameters (space, top `n`, threshold).
    #[serde(skip)]
    pub retrieval: RetrieveParams,
    /// Character budget of one tool result and of the similar-fixes block.
    pub tool_output_chars: usize,
    /// Re-asks after malformed tool calls, per turn.
    pub max_reasks: u32,
    /// LLM call and token limits.
    pub budget: Budget,
    /// Wall-clock limit of the whole run.
    pub wall: Option<Duration>,
    /// A candidate's build or test command may take this many times the buggy version's
    /// slower command in the pre-flight, at least 10 s and at most the validator's own
    /// limit ([`crate::validate::Validator::adapted`]); 0 keeps the validator's limit.
    #[serde(default = "default_timeout_factor")]
    pub candidate_timeout_factor: f64,
}

fn default_timeout_factor() -> f64 {
    crate::validate::DEFAULT_TIMEOUT_FACTOR
}

/// The context window assumed when none is given: 8,192 tokens.
pub const DEFAULT_CONTEXT_TOKENS: u64 = 8_192;

fn default_context_tokens() -> u64 {
    DEFAULT_CONTEXT_TOKENS
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            model: String::new(),
            temperature: Some(1.0),
            seed: None,
            max_tokens: Some(2048),
            context_tokens: DEFAULT_CONTEXT_TOKENS,
            react_steps: 8,
            attempts: 3,
            suggestions: 3,
            patches: 5,
            collect_all: false,
            retrieval: RetrieveParams::default(),
            tool_output_chars: 4000,
            max_reasks: 2,
            budget: Budget { max_calls: Some(60), max_tokens: None },
            wall: Some(Duration::from_secs(1800)),
            candidate_timeout_factor: crate::validate::DEFAULT_TIMEOUT_FACTOR,
        }
    }
}
