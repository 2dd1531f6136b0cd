//! An OpenAI-compatible chat-completions client with tool calling, and its test doubles
//! (DESIGN.md decision 8).
//!
//! | file | responsibility |
//! | --- | --- |
//! | [`choice`] | [`ClientChoice`]: no model, replay, endpoint or recorded endpoint; the [`RunClient`] it builds |
//! | [`types`] | the wire format: [`ChatRequest`], [`ChatResponse`], [`Message`], [`Tool`], [`ToolCall`] |
//! | [`http`] | [`OpenAiClient`]: blocking HTTP (ureq), timeouts and deadlines, [`RetryPolicy`], the model list |
//! | [`context`] | [`context::fit`]: estimated prompt tokens, history kept within the context window |
//! | [`turn`] | [`next_turn`]: validated tool calls or a final answer, text fallback, bounded re-asks |
//! | [`complete`] | [`complete_n`]: `n` choices from servers that ignore `n`, bounded by the budget |
//! | [`ledger`] | [`CallRecord`], [`Ledger`]: tokens, latency, cost, budgets |
//! | [`scripted`] | [`ScriptedClient`]: a queue of responses and injected faults |
//! | [`replay`] | [`ReplayClient`], [`RecordingClient`]: strict record/replay keyed on the canonical request |
//!
//! Every client implements [`ChatClient`], so the workflow runs the same code against a real
//! endpoint (OpenAI, vLLM, Ollama, llama.cpp server), a replay file or a script; only the
//! client differs. Results record [`ChatClient::describe`], and a client whose answers were
//! written by hand reports [`ChatClient::is_synthetic`] so they are never counted as repair
//! results.
//!
//! ```
//! use repair::llm::{next_turn, Action, ChatRequest, Ledger, Message, ScriptedClient, Script, Tool, TurnOptions};
//! use serde_json::json;
//!
//! let client = ScriptedClient::new(vec![Script::text(
//!     "<tool_call>{\"name\": \"get_imports\", \"arguments\": {\"file\": \"A.java\"}}</tool_call>",
//! )]);
//! let mut req = ChatRequest::new("any-model", vec![Message::user("Why does A fail?")]);
//! req.tools.push(Tool::function("get_imports", "List imports", json!({"type": "object"})));
//! let mut ledger = Ledger::default();
//! let turn = next_turn(&client, &req, &TurnOptions::default(), &mut ledger)?;
//! let Action::ToolCalls(calls) = &turn.action else { panic!("expected a tool call") };
//! assert_eq!(calls[0].name, "get_imports");
//! assert!(turn.from_text);
//! assert_eq!(ledger.totals().calls, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod canonical;
pub mod choice;
pub mod complete;
pub mod context;
pub mod http;
pub mod ledger;
pub mod none;
pub mod replay;
pub mod scripted;
pub mod text;
pub mod turn;
pub mod types;

pub use canonical::{canonical_request, request_key};
pub use choice::{ChoiceError, ClientChoice, RunClient};
pub use complete::complete_n;
pub use http::{MAX_REPLY_BYTES, OpenAiClient, OpenAiConfig, RetryPolicy, context_length_from_models};
pub use ledger::{Budget, CallRecord, Ledger, LedgerTotals, Price, PriceTable};
pub use none::NoModel;
pub use replay::{Recording, RecordingClient, ReplayClient, write_recordings};
pub use scripted::{Fault, Script, ScriptedClient};
pub use turn::{Action, Turn, TurnOptions, ValidToolCall, next_turn};
pub use types::{
    ChatRequest, ChatResponse, Choice, FunctionCall, FunctionDef, Message, Role, Tool, ToolCall, ToolChoice, Transport,
    Usage,
};

use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Instant;

/// Result of the LLM client layer.
pub type Result<T> = std::result::Result<T, LlmError>;

/// Something that answers chat-completions requests.
///
/// Implementations: [`OpenAiClient`] (HTTP), [`ReplayClient`], [`RecordingClient`],
/// [`ScriptedClient`]. `chat` blocks until the response is complete.
pub trait ChatClient: Send + Sync {
    /// Sends `req` and returns the complete response, with [`ChatResponse::transport`]
    /// filled in.
    ///
    /// # Errors
    /// Transport failures ([`LlmError::Timeout`], [`LlmError::StalledBody`],
    /// [`LlmError::Connection`], [`LlmError::Http`], [`LlmError::RetriesExhausted`]), an
    /// unparsable body ([`LlmError::MalformedResponse`]: not JSON, not UTF-8, or over
    /// [`http::MAX_REPLY_BYTES`]),
    /// and double-specific errors (replay miss, script exhausted).
    fn chat(&self, req: &ChatRequest) -> Result<ChatResponse>;

    /// [`ChatClient::chat`], cut off at `deadline` (the run's wall-clock limit) when one is
    /// given: a client that talks to a server ([`OpenAiClient`]) waits at most until then and
    /// fails with [`LlmError::Deadline`]. The default ignores the deadline (doubles answer at
    /// once).
    ///
    /// # Errors
    /// As [`ChatClient::chat`], plus [`LlmError::Deadline`].
    fn chat_within(&self, req: &ChatRequest, deadline: Option<Instant>) -> Result<ChatResponse> {
        let _ = deadline;
        self.chat(req)
    }

    /// The model's context window in tokens, when the server says (its model list,
    /// `GET {base}/models`; see [`context_length_from_models`]); `None` when it does not or
    /// cannot be asked. Never fails.
    fn context_length(&self) -> Option<u32> {
        None
    }

    /// HTTP requests this client has sent so far, every attempt counted (retries, failed
    /// exchanges, replies that were refused); `None` for a client that talks to no server
    /// (replay, scripted). Never fails.
    fn requests_sent(&self) -> Option<u64> {
        None
    }

    /// Which server answers: its endpoint (never the API key) and the model requested;
    /// `None` for doubles that talk to no server.
    fn server(&self) -> Option<ServerInfo> {
        None
    }

    /// Which client this is, for result records.
    fn describe(&self) -> ClientInfo;

    /// `true` when the responses were written by hand (scripted, or a replay file with a
    /// `synthetic` recording): such results must never be counted as repair results.
    fn is_synthetic(&self) -> bool {
        self.describe().synthetic
    }
}

/// The identity of a [`ChatClient`], recorded with results.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClientInfo {
    /// `"openai"` (any OpenAI-compatible HTTP endpoint), `"replay"`, `"recording"` or `"scripted"`.
    pub kind: &'static str,
    /// Base URL for HTTP clients, the recordings path for replay/recording clients.
    pub endpoint: Option<String>,
    /// The configured model name, when the client has one.
    pub model: Option<String>,
    /// Whether answers were written by hand (see [`ChatClient::is_synthetic`]).
    pub synthetic: bool,
}

/// Which server answered a run (issue 9): written into `--record` files and repair reports.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerInfo {
    /// The base URL requests went to, e.g. `http://127.0.0.1:8080/v1` (no credentials).
    pub endpoint: String,
    /// The model name requested.
    pub model: String,
    /// The model name the server reported in its responses (`model` of the response body),
    /// when it named one; may differ from `model` (a dated variant, or a local server that
    /// serves whatever it loaded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub served_model: Option<String>,
}

/// Errors of the LLM layer. Messages never contain the API key.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LlmError {
    /// The client is not configured well enough to send anything.
    #[error("LLM client configuration: {0}")]
    Config(String),
    /// The endpoint answered with a non-success status that was not (or no longer) retried.
    #[error("HTTP {status} from {url}: {body}{}", status_hint(*status))]
    Http {
        /// HTTP status code.
        status: u16,
        /// The request URL.
        url: String,
        /// The start of the response body (at most about 500 characters).
        body: String,
        /// The `Retry-After` header in milliseconds, when the server sent one in seconds.
        retry_after_ms: Option<u64>,
    },
    /// No complete response within the per-request timeout.
    #[error("no response from {url} within {timeout_ms} ms (raise --llm-timeout, in seconds, or check the server)")]
    Timeout {
        /// The request URL.
        url: String,
        /// The per-request timeout, in milliseconds.
        timeout_ms: u64,
    },
    /// The reply's headers arrived but its body stopped arriving: cut off after
    /// [`OpenAiConfig::body_timeout_ms`] instead of holding the connection until the
    /// per-request timeout. Retried like [`LlmError::Timeout`].
    #[error("the reply from {url} stalled: its body did not arrive within {timeout_ms} ms of its headers")]
    StalledBody {
        /// The request URL.
        url: String,
        /// The body timeout, in milliseconds.
        timeout_ms: u64,
    },
    /// The call was cut off at the run's wall-clock limit (`--max-wall-s`), or the limit had
    /// passed before it was sent. Never retried.
    #[error("the wall-clock limit was reached while waiting for {url} (raise --max-wall-s)")]
    Deadline {
        /// The request URL.
        url: String,
    },
    /// Connecting or talking to the endpoint failed below HTTP.
    #[error("cannot reach {url}: {message} (is the server running and FIXDEX_LLM_URL right?)")]
    Connection {
        /// The request URL.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The endpoint answered 2xx but the body is not a chat-completions response.
    #[error("malformed response from {url}: {reason}; body starts: {body}")]
    MalformedResponse {
        /// The request URL (or the double's name).
        url: String,
        /// What is wrong with it.
        reason: String,
        /// The start of the body.
        body: String,
    },
    /// A retryable failure persisted through every attempt.
    #[error("gave up after {attempts} attempts: {last}")]
    RetriesExhausted {
        /// Attempts made, the first included.
        attempts: u32,
        /// The error of the last attempt.
        last: Box<LlmError>,
    },
    /// The model kept answering with broken or missing tool calls after all re-asks.
    #[error("model output still unusable after {reasks} re-asks: {problem}")]
    ReaskLimit {
        /// Re-asks made.
        reasks: u32,
        /// The problem with the last answer, as told to the model.
        problem: String,
        /// Whether any of the unusable replies held native `tool_calls` (bad ones): when none
        /// did, the server may not pass `tools` on at all (see `strategies::reinfix::react`'s protocols).
        native_calls_seen: bool,
    },
    /// A [`Budget`] limit was reached before a call.
    #[error("LLM budget exceeded: {used} {} used, the limit is {limit}", if *.used == 1 { .what.trim_end_matches('s') } else { .what })]
    BudgetExceeded {
        /// `"calls"`, `"tokens"` or `"micro-USD"` (millionths of a dollar).
        what: &'static str,
        /// Amount used so far.
        used: u64,
        /// The configured limit.
        limit: u64,
    },
    /// [`ReplayClient`] has no (unused) recording for a request.
    #[error("no recording for request {key}: {detail}")]
    ReplayMiss {
        /// Hex SHA-256 of the canonical request.
        key: String,
        /// Request summary and the nearest recording's first difference.
        detail: String,
    },
    /// [`ReplayClient::finish`] found recordings that were never requested.
    #[error("{count} recording(s) in {path} were never used (stale recordings?): {keys}")]
    ReplayUnused {
        /// The recordings file.
        path: PathBuf,
        /// How many were unused.
        count: usize,
        /// The first few unused keys with line numbers.
        keys: String,
    },
    /// A recordings file line is not a valid recording.
    #[error("{path}:{line}: {message}")]
    BadRecording {
        /// The recordings file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Reading or writing a recordings file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The server refused the request because prompt plus reply do not fit the model's
    /// context window (HTTP 400 with `error.code` `context_length_exceeded`, or a message
    /// about the "maximum context length", as OpenAI, vLLM and llama.cpp send it). Never
    /// retried as is: the caller must shorten the conversation (or lower `max_tokens`).
    #[error(
        "the request does not fit the model's context window: {message} (shorten the prompt or lower --max-reply-tokens)"
    )]
    ContextLengthExceeded {
        /// The server's error message (or the start of its body).
        message: String,
    },
    /// [`ScriptedClient`] was asked more often than it has scripted answers.
    #[error("scripted client exhausted after {served} responses (script more answers)")]
    ScriptExhausted {
        /// Responses served.
        served: usize,
    },
}

impl LlmError {
    /// Whether another attempt may succeed: HTTP 429 and 5xx, timeouts and stalled bodies
    /// (retried at most once, see [`RetryPolicy::run`]), connection errors. Never a
    /// context-length error, a [`LlmError::Deadline`] or a reply that arrived malformed (not
    /// JSON, not UTF-8, over [`http::MAX_REPLY_BYTES`]).
    pub fn is_retryable(&self) -> bool {
        match self {
            LlmError::Http { status, .. } => *status == 429 || (500..=599).contains(status),
            LlmError::Timeout { .. } | LlmError::StalledBody { .. } | LlmError::Connection { .. } => true,
            _ => false,
        }
    }

    /// The error for a non-success HTTP `status` with response `body` (the full text):
    /// [`LlmError::ContextLengthExceeded`] when a 400 says the context window is too small
    /// (see [`is_context_length_error`]), else [`LlmError::Http`] carrying the start of the
    /// body.
    pub fn from_http(status: u16, url: &str, body: &str, retry_after_ms: Option<u64>) -> LlmError {
        if status == 400 && is_context_length_error(body) {
            return LlmError::ContextLengthExceeded { message: error_message(body) };
        }
        LlmError::Http { status, url: url.to_owned(), body: excerpt(body, BODY_EXCERPT_CHARS), retry_after_ms }
    }

    /// Whether the endpoint could not be reached at all: a connection failure, bare or as the
    /// last error of exhausted retries (never a reply that arrived, a timeout or a stall).
    pub fn is_unreachable(&self) -> bool {
        match self {
            LlmError::Connection { .. } => true,
            LlmError::RetriesExhausted { last, .. } => last.is_unreachable(),
            _ => false,
        }
    }

    /// Whether a reply arrived (the server answered, with an error status or a body that is
    /// not a chat completion).
    pub fn reply_arrived(&self) -> bool {
        matches!(
            self,
            LlmError::Http { .. } | LlmError::MalformedResponse { .. } | LlmError::ContextLengthExceeded { .. }
        )
    }

    /// The server's `Retry-After`, in milliseconds, when it sent one.
    pub fn retry_after_ms(&self) -> Option<u64> {
        match self {
            LlmError::Http { retry_after_ms, .. } => *retry_after_ms,
            _ => None,
        }
    }
}

/// Characters of a response body kept in error messages.
pub(crate) const BODY_EXCERPT_CHARS: usize = 500;

/// Whether an HTTP 400 body says the prompt does not fit the context window: an
/// `error.code` (or `error.type`) of `context_length_exceeded` (OpenAI, vLLM), or a message
/// containing "context length", "context window" or "maximum context length" in any case
/// (vLLM: "This model's maximum context length is 8192 tokens...", llama.cpp: "the request
/// exceeds the available context size"). Matching is on the raw text, so a body that is not
/// JSON is judged too.
pub fn is_context_length_error(body: &str) -> bool {
    let lower = body.to_lowercase();
    ["context_length_exceeded", "context length", "context window", "context size", "exceed_context_size"]
        .iter()
        .any(|needle| lower.contains(needle))
}

/// `error.message` of an OpenAI-style error body, else the start of the body.
fn error_message(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.pointer("/error/message").and_then(|m| m.as_str()).map(str::to_owned))
        .unwrap_or_else(|| excerpt(body, BODY_EXCERPT_CHARS))
}

fn status_hint(status: u16) -> &'static str {
    match status {
        401 | 403 => " (check OPENAI_API_KEY)",
        404 => " (check FIXDEX_LLM_URL, which should end in /v1, and FIXDEX_LLM_MODEL)",
        429 => " (rate limited)",
        _ => "",
    }
}

/// The first `max_chars` characters of `s`, with `…` appended when cut.
pub(crate) fn excerpt(s: &str, max_chars: usize) -> String {
    match s.char_indices().nth(max_chars) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}
