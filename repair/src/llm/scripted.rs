//! [`ScriptedClient`]: a queue of hand-written answers and injected faults, for unit tests
//! of the agent loop. It is synthetic: its results never count as repair results.

use super::http::parse_body;
use super::{ChatClient, ChatRequest, ChatResponse, ClientInfo, LlmError, Message, Result, RetryPolicy, ToolCall};
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Instant;

/// The name used as the "URL" in errors raised by a [`ScriptedClient`].
const SOURCE: &str = "scripted";

/// A transport failure to inject.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// An HTTP error status (429, 500, 503, 400, ...) with an optional `Retry-After` in
    /// seconds and a body.
    Http {
        /// The status code.
        status: u16,
        /// `Retry-After`, in seconds.
        retry_after_s: Option<u64>,
        /// The response body.
        body: String,
    },
    /// The request timed out.
    Timeout,
    /// The connection failed (refused, reset).
    Connection,
}

impl Fault {
    fn into_error(self) -> LlmError {
        let url = SOURCE.to_owned();
        match self {
            Fault::Http { status, retry_after_s, body } => {
                LlmError::from_http(status, &url, &body, retry_after_s.map(|s| s * 1000))
            }
            Fault::Timeout => LlmError::Timeout { url, timeout_ms: 0 },
            Fault::Connection => LlmError::Connection { url, message: "connection refused (scripted)".to_owned() },
        }
    }
}

/// One scripted answer, consumed by one attempt.
///
/// Model-output faults are ordinary responses: a missing tool call is [`Script::text`], an
/// unknown tool is [`Script::tool_call`] with a name the request does not offer, invalid
/// JSON arguments are [`Script::raw_tool_call`], a cut-off reply is [`Script::truncated`].
#[derive(Clone, Debug, PartialEq)]
pub enum Script {
    /// Answer with this response.
    Respond(ChatResponse),
    /// Answer with this raw body, parsed like an HTTP 200 body (so a malformed one fails
    /// with [`LlmError::MalformedResponse`]).
    Body(String),
    /// Fail with this fault.
    Fail(Fault),
}

impl Script {
    /// An assistant text reply (`finish_reason: "stop"`).
    pub fn text(content: impl Into<String>) -> Self {
        Script::Respond(ChatResponse::from_message(SOURCE, Message::assistant(content), "stop"))
    }

    /// A native tool call of `name` with `arguments` (`finish_reason: "tool_calls"`).
    pub fn tool_call(name: &str, arguments: &Value) -> Self {
        Self::raw_tool_call(name, &arguments.to_string())
    }

    /// A native tool call whose `arguments` text is taken as is (may be invalid JSON).
    pub fn raw_tool_call(name: &str, arguments: &str) -> Self {
        let message = Message {
            content: None,
            tool_calls: vec![ToolCall::new("call_0", name, arguments)],
            ..Message::assistant("")
        };
        Script::Respond(ChatResponse::from_message(SOURCE, message, "tool_calls"))
    }

    /// A text reply cut off at the token limit (`finish_reason: "length"`).
    pub fn truncated(content: impl Into<String>) -> Self {
        Script::Respond(ChatResponse::from_message(SOURCE, Message::assistant(content), "length"))
    }

    /// HTTP 429 with an optional `Retry-After` in seconds.
    pub fn rate_limited(retry_after_s: Option<u64>) -> Self {
        Script::Fail(Fault::Http { status: 429, retry_after_s, body: "rate limited (scripted)".to_owned() })
    }

    /// An HTTP error `status` with `body`.
    pub fn http_error(status: u16, body: impl Into<String>) -> Self {
        Script::Fail(Fault::Http { status, retry_after_s: None, body: body.into() })
    }

    /// A timeout.
    pub fn timeout() -> Self {
        Script::Fail(Fault::Timeout)
    }

    /// A 200 response whose body is `body` verbatim (e.g. not JSON).
    pub fn malformed_body(body: impl Into<String>) -> Self {
        Script::Body(body.into())
    }

    /// This script with usage `prompt_tokens`/`completion_tokens` when it is a response.
    pub fn with_usage(self, prompt_tokens: u64, completion_tokens: u64) -> Self {
        match self {
            Script::Respond(r) => Script::Respond(r.with_usage(prompt_tokens, completion_tokens)),
            other => other,
        }
    }
}

/// A [`ChatClient`] that answers from a queue of [`Script`]s, one per attempt, and records
/// every request it got.
///
/// With a [`RetryPolicy`] ([`ScriptedClient::with_retry`]) it retries injected faults like
/// [`super::OpenAiClient`] does, so "429 then success" is one successful call with one
/// retry; without one (the default) each fault is returned to the caller.
#[derive(Debug)]
pub struct ScriptedClient {
    queue: Mutex<VecDeque<Script>>,
    requests: Mutex<Vec<ChatRequest>>,
    retry: RetryPolicy,
}

impl ScriptedClient {
    /// A client that plays `scripts` in order.
    pub fn new(scripts: Vec<Script>) -> Self {
        ScriptedClient {
            queue: Mutex::new(scripts.into()),
            requests: Mutex::new(Vec::new()),
            retry: RetryPolicy::none(),
        }
    }

    /// This client retrying faults under `retry`.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Every request received so far, one per attempt, oldest first.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.requests.lock().expect("not poisoned").clone()
    }

    /// Scripts not yet played.
    pub fn remaining(&self) -> usize {
        self.queue.lock().expect("not poisoned").len()
    }

    fn attempt(&self, req: &ChatRequest) -> Result<ChatResponse> {
        let served = {
            let mut requests = self.requests.lock().expect("not poisoned");
            requests.push(req.clone());
            requests.len() - 1
        };
        match self.queue.lock().expect("not poisoned").pop_front() {
            Some(Script::Respond(response)) => Ok(response),
            Some(Script::Body(body)) => parse_body(&body, SOURCE),
            Some(Script::Fail(fault)) => Err(fault.into_error()),
            None => Err(LlmError::ScriptExhausted { served }),
        }
    }
}

impl ChatClient for ScriptedClient {
    fn chat(&self, req: &ChatRequest) -> Result<ChatResponse> {
        let started = Instant::now();
        let (mut response, retries) = self.retry.run(|| self.attempt(req))?;
        response.transport.retries = retries;
        response.transport.latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        Ok(response)
    }

    fn describe(&self) -> ClientInfo {
        ClientInfo { kind: "scripted", endpoint: None, model: None, synthetic: true }
    }
}
