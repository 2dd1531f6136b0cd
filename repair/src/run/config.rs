//! The knobs of a repair run ([`RunConfig`]): the model and its sampling, the context window,
//! budgets and the wall clock, retrieval, and whether to collect every plausible patch; the
//! same for every strategy. A strategy's own knobs live on the strategy; the search space
//! it reports ([`SearchSpace`]) goes with the run's knobs into the report's `config`
//! ([`ConfigRecord`]).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::llm::Budget;
use crate::retrieve::RetrieveParams;

/// Knobs of the workflow. Defaults follow ReinFix §4.5 (temperature 1).
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
            collect_all: false,
            retrieval: RetrieveParams::default(),
            tool_output_chars: 4000,
            max_reasks: 2,
            budget: Budget { max_calls: Some(60), max_tokens: None, max_micro_usd: None },
            wall: Some(Duration::from_secs(1800)),
            candidate_timeout_factor: crate::validate::DEFAULT_TIMEOUT_FACTOR,
        }
    }
}

/// The search space a strategy reports in the report's `config`
/// ([`crate::strategies::Strategy::search_space`]): ReinFix's, by the names ReinFix gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchSpace {
    /// Most ReAct turns in the reasoning phase.
    pub react_steps: usize,
    /// Repair attempts.
    pub attempts: usize,
    /// Repair suggestions per attempt.
    pub suggestions: usize,
    /// Candidate patches per suggestion.
    pub patches: usize,
}

impl Default for SearchSpace {
    /// ReinFix §4.5: 8 ReAct turns; 3 attempts × 3 suggestions × 5 patches.
    fn default() -> Self {
        SearchSpace { react_steps: 8, attempts: 3, suggestions: 3, patches: 5 }
    }
}

/// The report's `config`: the run's knobs ([`RunConfig`]) with the strategy's
/// [`SearchSpace`], each field in the place the report has always given it.
#[derive(Debug, Clone, Serialize)]
pub struct ConfigRecord {
    /// [`RunConfig::model`].
    pub model: String,
    /// [`RunConfig::temperature`].
    pub temperature: Option<f64>,
    /// [`RunConfig::seed`].
    pub seed: Option<u64>,
    /// [`RunConfig::max_tokens`].
    pub max_tokens: Option<u32>,
    /// [`RunConfig::context_tokens`].
    pub context_tokens: u64,
    /// The strategy's search space.
    #[serde(flatten)]
    pub search: SearchSpace,
    /// [`RunConfig::collect_all`].
    pub collect_all: bool,
    /// [`RunConfig::tool_output_chars`].
    pub tool_output_chars: usize,
    /// [`RunConfig::max_reasks`].
    pub max_reasks: u32,
    /// [`RunConfig::budget`].
    pub budget: Budget,
    /// [`RunConfig::wall`].
    pub wall: Option<Duration>,
    /// [`RunConfig::candidate_timeout_factor`].
    pub candidate_timeout_factor: f64,
}

impl ConfigRecord {
    /// The record of `config` run with a strategy whose search space is `search`.
    #[must_use]
    pub fn new(config: &RunConfig, search: SearchSpace) -> ConfigRecord {
        ConfigRecord {
            model: config.model.clone(),
            temperature: config.temperature,
            seed: config.seed,
            max_tokens: config.max_tokens,
            context_tokens: config.context_tokens,
            search,
            collect_all: config.collect_all,
            tool_output_chars: config.tool_output_chars,
            max_reasks: config.max_reasks,
            budget: config.budget,
            wall: config.wall,
            candidate_timeout_factor: config.candidate_timeout_factor,
        }
    }
}
