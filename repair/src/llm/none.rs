//! The client of a run that needs no model ([`NoModel`]): a strategy such as `patterns`
//! (repair/src/strategies/patterns) never calls it; a call is an error, not an answer.

use super::{ChatClient, ChatRequest, ChatResponse, ClientInfo, LlmError, Result};

/// A chat client that answers nothing: every call fails with [`LlmError::Config`]. Its
/// report entry is `{"kind": "none"}`, not synthetic (no answer was written by hand).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoModel;

impl ChatClient for NoModel {
    fn chat(&self, _req: &ChatRequest) -> Result<ChatResponse> {
        Err(LlmError::Config(
            "this run has no model (the strategy needs none); give --llm-url and --llm-model, or --replay, for a \
             strategy that does"
                .into(),
        ))
    }

    fn describe(&self) -> ClientInfo {
        ClientInfo { kind: "none", endpoint: None, model: None, synthetic: false }
    }
}
