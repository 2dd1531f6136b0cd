//! [`OpenAiClient`]: blocking HTTP to any OpenAI-compatible `/chat/completions` endpoint,
//! with a per-request timeout and [`RetryPolicy`] (exponential back-off with jitter,
//! `Retry-After` honoured).

use super::{
    BODY_EXCERPT_CHARS, ChatClient, ChatRequest, ChatResponse, ClientInfo, LlmError, Result, ServerInfo, excerpt,
};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tracing::{debug, warn};

/// Environment variable with the endpoint's base URL, e.g. `http://localhost:8000/v1`.
pub const ENV_URL: &str = "FIXDEX_LLM_URL";
/// Environment variable with the model name.
pub const ENV_MODEL: &str = "FIXDEX_LLM_MODEL";
/// Environment variable with the API key (optional: local servers need none).
pub const ENV_API_KEY: &str = "OPENAI_API_KEY";

/// When and how long to wait before trying a failed call again.
///
/// Retried: HTTP 429 and 5xx, timeouts, connection errors ([`LlmError::is_retryable`]);
/// a timed-out request is retried at most once ([`TIMEOUT_RETRIES`]): a server too slow
/// for the per-request timeout (`--llm-timeout`) is usually as slow the next time.
/// The wait before retry `k` (1-based) is the server's `Retry-After` (seconds, capped at
/// `max_retry_after_ms`) when it sent one, otherwise `min(base_delay_ms * 2^(k-1),
/// max_delay_ms)`, of which a random half is dropped when `jitter` is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in total, the first included; 1 disables retries (0 is read as 1).
    pub max_attempts: u32,
    /// Back-off before the first retry, in milliseconds.
    pub base_delay_ms: u64,
    /// Upper bound of the exponential back-off, in milliseconds.
    pub max_delay_ms: u64,
    /// Upper bound on a server's `Retry-After`, in milliseconds.
    pub max_retry_after_ms: u64,
    /// Randomise each back-off to between half and all of it (spreads out clients).
    pub jitter: bool,
}

impl Default for RetryPolicy {
    /// 5 attempts, 1 s doubling to at most 30 s, `Retry-After` up to 120 s, with jitter.
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 5,
            base_delay_ms: 1_000,
            max_delay_ms: 30_000,
            max_retry_after_ms: 120_000,
            jitter: true,
        }
    }
}

impl RetryPolicy {
    /// One attempt, no retries.
    pub fn none() -> Self {
        RetryPolicy { max_attempts: 1, ..Self::default() }
    }

    /// The wait before retry number `retry` (1-based), in milliseconds.
    pub fn delay_ms(&self, retry: u32, retry_after_ms: Option<u64>) -> u64 {
        if let Some(ms) = retry_after_ms {
            return ms.min(self.max_retry_after_ms);
        }
        let doubling = 1u64.checked_shl(retry.saturating_sub(1)).unwrap_or(u64::MAX);
        let full = self.base_delay_ms.saturating_mul(doubling).min(self.max_delay_ms);
        if self.jitter { full - fastrand::u64(0..=full / 2) } else { full }
    }

    /// Runs `attempt` until it succeeds, fails with a non-retryable error, or the attempts
    /// are used up. Returns the value and the number of retries made.
    ///
    /// A timeout is retried at most [`TIMEOUT_RETRIES`] times.
    ///
    /// # Errors
    /// A non-retryable error as is; a retryable one that persisted through more than one
    /// attempt as [`LlmError::RetriesExhausted`].
    pub fn run<T>(&self, mut attempt: impl FnMut() -> Result<T>) -> Result<(T, u32)> {
        let max = self.max_attempts.max(1);
        let (mut made, mut timeouts) = (1, 0);
        loop {
            match attempt() {
                Ok(value) => return Ok((value, made - 1)),
                Err(e) if e.is_retryable() && made < max && !(is_timeout(&e) && timeouts >= TIMEOUT_RETRIES) => {
                    timeouts += u32::from(is_timeout(&e));
                    let wait = self.delay_ms(made, e.retry_after_ms());
                    warn!(attempt = made, wait_ms = wait, error = %e, "LLM call failed; retrying");
                    std::thread::sleep(Duration::from_millis(wait));
                    made += 1;
                }
                Err(e) if e.is_retryable() && made > 1 => {
                    return Err(LlmError::RetriesExhausted { attempts: made, last: Box::new(e) });
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// Retries after a timeout, at most, within one call (the other retryable errors use all of
/// [`RetryPolicy::max_attempts`]).
pub const TIMEOUT_RETRIES: u32 = 1;

/// Limit on the model-list request of [`OpenAiClient::context_length`], in milliseconds.
const MODELS_TIMEOUT_MS: u64 = 10_000;

fn is_timeout(e: &LlmError) -> bool {
    matches!(e, LlmError::Timeout { .. } | LlmError::StalledBody { .. })
}

/// The largest reply body read, in bytes (10 MiB, as ureq's own default): a longer 2xx
/// reply is a [`LlmError::MalformedResponse`], never read to its end.
pub const MAX_REPLY_BYTES: u64 = 10 << 20;

/// Configuration of an [`OpenAiClient`]. `Debug` never shows the API key.
#[derive(Clone, PartialEq, Eq)]
pub struct OpenAiConfig {
    /// Base URL up to and including the API version, e.g. `https://api.openai.com/v1` or
    /// `http://localhost:11434/v1`; `/chat/completions` is appended.
    pub base_url: String,
    /// Model name sent in every request that names none.
    pub model: String,
    /// Bearer token; `None` sends no `Authorization` header.
    pub api_key: Option<String>,
    /// Limit on one HTTP exchange (connect, send, wait, read the body), in milliseconds
    /// (`--llm-timeout` seconds); a call given a deadline waits at most until it.
    pub timeout_ms: u64,
    /// Limit on reading a reply's body once its headers arrived, in milliseconds (a server
    /// sends a complete reply's body at once; one that stalls mid-body is cut off here,
    /// [`LlmError::StalledBody`], instead of holding the connection for `timeout_ms`).
    pub body_timeout_ms: u64,
    /// Retries of failed exchanges.
    pub retry: RetryPolicy,
}

impl fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("timeout_ms", &self.timeout_ms)
            .field("body_timeout_ms", &self.body_timeout_ms)
            .field("retry", &self.retry)
            .finish()
    }
}

impl OpenAiConfig {
    /// Default per-request timeout: 5 minutes (local models on a CPU are slow).
    pub const DEFAULT_TIMEOUT_MS: u64 = 300_000;

    /// Default limit on reading a reply's body after its headers: 30 seconds.
    pub const DEFAULT_BODY_TIMEOUT_MS: u64 = 30_000;

    /// A configuration with the default timeout and retry policy.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>, api_key: Option<String>) -> Self {
        OpenAiConfig {
            base_url: base_url.into(),
            model: model.into(),
            api_key,
            timeout_ms: Self::DEFAULT_TIMEOUT_MS,
            body_timeout_ms: Self::DEFAULT_BODY_TIMEOUT_MS,
            retry: RetryPolicy::default(),
        }
    }

    /// Resolves flags, falling back to the process environment ([`ENV_URL`],
    /// [`ENV_MODEL`], [`ENV_API_KEY`]); see [`OpenAiConfig::resolve`].
    ///
    /// # Errors
    /// [`LlmError::Config`] when the URL or model is given by neither.
    pub fn from_env(url: Option<String>, model: Option<String>, api_key: Option<String>) -> Result<Self> {
        Self::resolve(url, model, api_key, |name| std::env::var(name).ok())
    }

    /// Resolves each setting from its flag, else from `env(NAME)`; empty strings count as
    /// unset. The API key is optional.
    ///
    /// # Errors
    /// [`LlmError::Config`] when the URL or model is given by neither, or the URL is not
    /// `http://` or `https://`.
    pub fn resolve(
        url: Option<String>,
        model: Option<String>,
        api_key: Option<String>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self> {
        let pick = |flag: Option<String>, name: &str| flag.or_else(|| env(name)).filter(|v| !v.trim().is_empty());
        let url = pick(url, ENV_URL)
            .ok_or_else(|| LlmError::Config(format!("no endpoint: pass --llm-url or set {ENV_URL}")))?;
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(LlmError::Config(format!("{ENV_URL} must start with http:// or https://, got {url:?}")));
        }
        let model = pick(model, ENV_MODEL)
            .ok_or_else(|| LlmError::Config(format!("no model: pass --llm-model or set {ENV_MODEL}")))?;
        Ok(Self::new(url, model, pick(api_key, ENV_API_KEY)))
    }

    /// The full chat-completions URL.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }

    /// The model-list URL, `{base}/models`.
    pub fn models_url(&self) -> String {
        format!("{}/models", self.base_url.trim_end_matches('/'))
    }
}

/// A blocking client for an OpenAI-compatible chat-completions endpoint.
///
/// A request whose `model` is empty is sent with the configured model.
pub struct OpenAiClient {
    config: OpenAiConfig,
    agent: ureq::Agent,
    /// HTTP requests sent so far ([`ChatClient::requests_sent`]).
    sent: AtomicU64,
}

impl fmt::Debug for OpenAiClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiClient").field("config", &self.config).finish_non_exhaustive()
    }
}

impl OpenAiClient {
    /// A client for `config`. Cheap; connections are opened per request and pooled.
    pub fn new(config: OpenAiConfig) -> Self {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_millis(config.timeout_ms)))
            .user_agent(concat!("fixdex/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        OpenAiClient { config, agent, sent: AtomicU64::new(0) }
    }

    /// The configuration in use.
    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    fn body_of(&self, req: &ChatRequest) -> String {
        let mut wire = req.for_wire();
        if wire.model.is_empty() {
            wire.model.clone_from(&self.config.model);
        }
        serde_json::to_string(&wire).expect("a ChatRequest always serializes")
    }

    /// The limit of an exchange starting now: the configured timeout, or the time left to
    /// `deadline` when that is shorter (`true`: the deadline is the limit).
    ///
    /// # Errors
    /// [`LlmError::Deadline`] when the deadline has passed.
    fn limit(&self, url: &str, deadline: Option<Instant>) -> Result<(Duration, bool)> {
        let timeout = Duration::from_millis(self.config.timeout_ms);
        let Some(deadline) = deadline else { return Ok((timeout, false)) };
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(LlmError::Deadline { url: url.to_owned() });
        }
        Ok(if left < timeout { (left, true) } else { (timeout, false) })
    }

    /// One HTTP exchange, no retries, cut off at `deadline`.
    fn attempt(&self, url: &str, body: &str, deadline: Option<Instant>) -> Result<ChatResponse> {
        let (limit, by_deadline) = self.limit(url, deadline)?;
        let body_limit = limit.min(Duration::from_millis(self.config.body_timeout_ms));
        let mut request = self
            .agent
            .post(url)
            .config()
            .timeout_global(Some(limit))
            .timeout_recv_body(Some(body_limit))
            .build()
            .header("Content-Type", "application/json");
        if let Some(key) = &self.config.api_key {
            request = request.header("Authorization", format!("Bearer {key}"));
        }
        let cut = |e: LlmError| match e {
            LlmError::Timeout { url, .. } if by_deadline => LlmError::Deadline { url },
            other => other,
        };
        self.sent.fetch_add(1, Ordering::Relaxed);
        let mut response = request.send(body).map_err(|e| cut(self.transport_error(url, e)))?;
        let status = response.status().as_u16();
        let retry_after_ms =
            response.headers().get("retry-after").and_then(|v| v.to_str().ok()).and_then(parse_retry_after);
        let bytes = self.read_reply(url, response.body_mut()).map_err(cut)?;
        if !(200..300).contains(&status) {
            let text = bytes.map_or_else(|| format!("[a body over {MAX_REPLY_BYTES} bytes]"), lossy);
            return Err(LlmError::from_http(status, url, &self.scrub(&text), retry_after_ms));
        }
        let Some(bytes) = bytes else {
            return Err(malformed(url, format!("the reply is longer than {MAX_REPLY_BYTES} bytes (10 MiB)"), ""));
        };
        let text = String::from_utf8(bytes).map_err(|e| {
            let at = e.utf8_error().valid_up_to();
            let start = String::from_utf8_lossy(&e.as_bytes()[..at]).into_owned();
            self.scrub_error(malformed(
                url,
                format!("the reply is not UTF-8 text (invalid byte at offset {at})"),
                &start,
            ))
        })?;
        parse_body(&text, url).map_err(|e| self.scrub_error(e))
    }

    /// A reply's body, at most [`MAX_REPLY_BYTES`] (`None`: it is longer; the rest is not
    /// read), within the body timeout.
    ///
    /// # Errors
    /// [`LlmError::StalledBody`] when the body stops arriving; [`LlmError::Connection`] when
    /// the connection fails while it is read.
    fn read_reply(&self, url: &str, body: &mut ureq::Body) -> Result<Option<Vec<u8>>> {
        match body.with_config().limit(MAX_REPLY_BYTES).read_to_vec() {
            Ok(bytes) => Ok(Some(bytes)),
            Err(ureq::Error::BodyExceedsLimit(_)) => Ok(None),
            Err(ureq::Error::Timeout(ureq::Timeout::RecvBody)) => {
                Err(LlmError::StalledBody { url: url.to_owned(), timeout_ms: self.config.body_timeout_ms })
            }
            Err(e) => Err(self.transport_error(url, e)),
        }
    }

    fn transport_error(&self, url: &str, e: ureq::Error) -> LlmError {
        match e {
            ureq::Error::Timeout(_) => LlmError::Timeout { url: url.to_owned(), timeout_ms: self.config.timeout_ms },
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
                LlmError::Timeout { url: url.to_owned(), timeout_ms: self.config.timeout_ms }
            }
            other => LlmError::Connection { url: url.to_owned(), message: self.scrub(&other.to_string()) },
        }
    }

    /// Removes the API key from text that may echo it (error bodies).
    fn scrub(&self, text: &str) -> String {
        match &self.config.api_key {
            Some(key) if !key.is_empty() => text.replace(key.as_str(), "[redacted]"),
            _ => text.to_owned(),
        }
    }

    fn scrub_error(&self, e: LlmError) -> LlmError {
        match e {
            LlmError::MalformedResponse { url, reason, body } => {
                LlmError::MalformedResponse { url, reason, body: self.scrub(&body) }
            }
            other => other,
        }
    }
}

impl ChatClient for OpenAiClient {
    fn chat(&self, req: &ChatRequest) -> Result<ChatResponse> {
        self.chat_within(req, None)
    }

    /// Every request sent to the chat-completions endpoint (retries and failed ones
    /// included; not the model-list request).
    fn requests_sent(&self) -> Option<u64> {
        Some(self.sent.load(Ordering::Relaxed))
    }

    fn chat_within(&self, req: &ChatRequest, deadline: Option<Instant>) -> Result<ChatResponse> {
        let url = self.config.endpoint();
        let body = self.body_of(req);
        let started = Instant::now();
        let (mut response, retries) = self.config.retry.run(|| self.attempt(&url, &body, deadline))?;
        response.transport.latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        response.transport.retries = retries;
        debug!(url, retries, latency_ms = response.transport.latency_ms, "LLM call done");
        Ok(response)
    }

    /// Asks `GET {base}/models` once (at most 10 s, no retries, the API key sent as for chat
    /// calls) and reads the context window with [`context_length_from_models`].
    fn context_length(&self) -> Option<u32> {
        let timeout = Duration::from_millis(self.config.timeout_ms.min(MODELS_TIMEOUT_MS));
        let url = self.config.models_url();
        let mut request = self.agent.get(url.as_str()).config().timeout_global(Some(timeout)).build();
        if let Some(key) = &self.config.api_key {
            request = request.header("Authorization", format!("Bearer {key}"));
        }
        let mut response = request.call().ok()?;
        if !response.status().is_success() {
            return None;
        }
        let body: serde_json::Value = serde_json::from_str(&response.body_mut().read_to_string().ok()?).ok()?;
        context_length_from_models(&body, &self.config.model)
    }

    fn server(&self) -> Option<ServerInfo> {
        Some(ServerInfo {
            endpoint: self.config.base_url.clone(),
            model: self.config.model.clone(),
            served_model: None,
        })
    }

    fn describe(&self) -> ClientInfo {
        ClientInfo {
            kind: "openai",
            endpoint: Some(self.config.base_url.clone()),
            model: Some(self.config.model.clone()),
            synthetic: false,
        }
    }
}

/// A [`LlmError::MalformedResponse`] from `url` for `reason`, with the start of `body`.
fn malformed(url: &str, reason: String, body: &str) -> LlmError {
    LlmError::MalformedResponse { url: url.to_owned(), reason, body: excerpt(body, BODY_EXCERPT_CHARS) }
}

/// `bytes` as text, invalid UTF-8 replaced.
fn lossy(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Parses a 2xx body into a [`ChatResponse`] with at least one choice.
///
/// # Errors
/// [`LlmError::MalformedResponse`] naming `source` (a URL or a double's name).
pub(crate) fn parse_body(text: &str, source: &str) -> Result<ChatResponse> {
    let malformed = |reason: String| LlmError::MalformedResponse {
        url: source.to_owned(),
        reason,
        body: excerpt(text, BODY_EXCERPT_CHARS),
    };
    let response: ChatResponse =
        serde_json::from_str(text).map_err(|e| malformed(format!("not a chat-completions JSON body: {e}")))?;
    if response.choices.is_empty() {
        return Err(malformed("no choices".to_owned()));
    }
    Ok(response)
}

/// The context window, in tokens, that a model-list body (`GET {base}/models`) states for
/// `model` (else for its only or first entry): the first of vLLM's `max_model_len`, a
/// top-level `n_ctx` / `context_length` / `context_window`, llama.cpp server's `meta.n_ctx`
/// or `meta.n_ctx_train`, or Ollama-style `details.context_length`. `None` when no entry
/// carries one (OpenAI's list, llama-cpp-python's). Pure; O(entries).
pub fn context_length_from_models(body: &serde_json::Value, model: &str) -> Option<u32> {
    let entries = body.get("data").or_else(|| body.get("models"))?.as_array()?;
    let want = serde_json::Value::from(model);
    let named = entries.iter().find(|e| ["id", "name", "model"].iter().any(|k| e.get(k) == Some(&want)));
    let entry = named.or_else(|| entries.first())?;
    const PATHS: [&str; 7] = [
        "/max_model_len",
        "/n_ctx",
        "/context_length",
        "/context_window",
        "/meta/n_ctx",
        "/meta/n_ctx_train",
        "/details/context_length",
    ];
    PATHS.iter().find_map(|p| entry.pointer(p)?.as_u64()).and_then(|n| u32::try_from(n).ok()).filter(|&n| n > 0)
}

/// `Retry-After` in seconds (integer or decimal) as milliseconds; HTTP dates are ignored.
fn parse_retry_after(value: &str) -> Option<u64> {
    let seconds: f64 = value.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_caps_and_honours_retry_after() {
        let p = RetryPolicy { jitter: false, base_delay_ms: 100, max_delay_ms: 350, ..RetryPolicy::default() };
        assert_eq!([1, 2, 3, 40].map(|k| p.delay_ms(k, None)), [100, 200, 350, 350]);
        assert_eq!(p.delay_ms(1, Some(2_000)), 2_000);
        assert_eq!(p.delay_ms(1, Some(10_000_000)), p.max_retry_after_ms);
        let jittered = RetryPolicy { jitter: true, ..p };
        assert!((50..=100).contains(&jittered.delay_ms(1, None)));
    }

    #[test]
    fn retry_after_parses_seconds_only() {
        assert_eq!(parse_retry_after("2"), Some(2_000));
        assert_eq!(parse_retry_after(" 0.05 "), Some(50));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
    }

    #[test]
    fn config_prefers_flags_then_env_and_hides_key() {
        let env = |name: &str| match name {
            ENV_URL => Some("http://env/v1".to_owned()),
            ENV_MODEL => Some("env-model".to_owned()),
            ENV_API_KEY => Some("sk-secret".to_owned()),
            _ => None,
        };
        let c = OpenAiConfig::resolve(None, Some("flag-model".into()), None, env).unwrap();
        assert_eq!((c.base_url.as_str(), c.model.as_str()), ("http://env/v1", "flag-model"));
        assert_eq!(c.endpoint(), "http://env/v1/chat/completions");
        assert!(!format!("{c:?}").contains("sk-secret"));
        let err = OpenAiConfig::resolve(None, None, None, |_| None).unwrap_err();
        assert!(err.to_string().contains(ENV_URL), "{err}");
    }

    #[test]
    fn retries_exhausted_reports_attempts() {
        let p = RetryPolicy { max_attempts: 3, base_delay_ms: 1, jitter: false, ..RetryPolicy::default() };
        let mut calls = 0;
        let err = p
            .run(|| -> Result<()> {
                calls += 1;
                Err(LlmError::Connection { url: "u".into(), message: "refused".into() })
            })
            .unwrap_err();
        assert_eq!(calls, 3);
        assert!(matches!(err, LlmError::RetriesExhausted { attempts: 3, .. }), "{err}");
    }
}
