//! Strict record/replay (DESIGN.md decision 8).
//!
//! A recordings file is JSON Lines, one [`Recording`] per line:
//! `{"key": <hex sha256 of the canonical request>, "note": <string, optional>,
//! "request": <canonical request>, "response": <ChatResponse>,
//! "server": {"endpoint", "model", "served_model"?} (optional), "synthetic": <bool>}`
//! (see [`super::canonical`]). Blank lines are skipped. `server` ([`ServerInfo`]) says
//! which server answered (issue 9); files written before it existed still load.
//!
//! [`ReplayClient`] answers a request only from an unused recording with the request's
//! key (recordings with equal keys are served in file order), fails a request with no
//! such recording, and [`ReplayClient::finish`] fails when a recording was never used.
//! Recordings with `"synthetic": true` were written by hand; a client holding any of them
//! reports [`ChatClient::is_synthetic`]. [`RecordingClient`] writes such files from a
//! live client.

use super::canonical::{canonical_json, canonical_request, request_key};
use super::{ChatClient, ChatRequest, ChatResponse, ClientInfo, LlmError, Message, Result, ServerInfo, excerpt};
use serde::Deserialize;
use serde_json::Value;
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

/// One line of a recordings file.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Recording {
    /// Hex SHA-256 of the canonical request. When reading, a missing or empty key is
    /// computed (convenient for hand-written recordings); a wrong one is an error.
    #[serde(default)]
    pub key: String,
    /// The request (any key order or spacing when reading; written canonical).
    pub request: ChatRequest,
    /// The response to play back.
    pub response: ChatResponse,
    /// Whether the response was written by hand rather than recorded from a model.
    #[serde(default)]
    pub synthetic: bool,
    /// Free text, e.g. why a synthetic recording exists.
    #[serde(default)]
    pub note: Option<String>,
    /// The server that answered (endpoint, model requested, model it reported); `None` in
    /// hand-written recordings and in files written before this field existed.
    #[serde(default)]
    pub server: Option<ServerInfo>,
}

impl Recording {
    /// A recording of `response` to `request`, with its key computed and no server.
    pub fn new(request: ChatRequest, response: ChatResponse, synthetic: bool, note: Option<String>) -> Self {
        Recording { key: request_key(&request), request, response, synthetic, note, server: None }
    }

    /// This recording saying that `server` answered it.
    pub fn with_server(mut self, server: Option<ServerInfo>) -> Self {
        self.server = server;
        self
    }

    /// The recording as one JSONL line (no trailing newline), keys sorted, the request in
    /// canonical form.
    pub fn to_line(&self) -> String {
        let mut line = format!("{{\"key\":\"{}\"", request_key(&self.request));
        if let Some(note) = &self.note {
            let _ = write!(line, ",\"note\":{}", Value::String(note.clone()));
        }
        let response = serde_json::to_value(&self.response).expect("a ChatResponse always serializes");
        let _ = write!(
            line,
            ",\"request\":{},\"response\":{}",
            canonical_request(&self.request),
            canonical_json(&response)
        );
        if let Some(server) = &self.server {
            let server = serde_json::to_value(server).expect("a ServerInfo always serializes");
            let _ = write!(line, ",\"server\":{}", canonical_json(&server));
        }
        let _ = write!(line, ",\"synthetic\":{}}}", self.synthetic);
        line
    }
}

/// Writes `recordings` to `path` as a recordings file, replacing it.
///
/// # Errors
/// [`LlmError::Io`] when the file cannot be written.
pub fn write_recordings(path: &Path, recordings: &[Recording]) -> Result<()> {
    let text: String = recordings.iter().map(|r| r.to_line() + "\n").collect();
    std::fs::write(path, text).map_err(|source| LlmError::Io { path: path.to_owned(), source })
}

#[derive(Debug)]
struct Entry {
    line: usize,
    key: String,
    request: ChatRequest,
    response: ChatResponse,
}

/// A [`ChatClient`] that answers only from a recordings file (see the module docs).
#[derive(Debug)]
pub struct ReplayClient {
    path: PathBuf,
    entries: Vec<Entry>,
    used: Mutex<Vec<bool>>,
    synthetic: bool,
    server: Option<ServerInfo>,
}

impl ReplayClient {
    /// Reads the recordings file at `path`.
    ///
    /// # Errors
    /// [`LlmError::Io`] when it cannot be read; [`LlmError::BadRecording`] for a line that
    /// is not a recording or whose key does not match its request.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_owned();
        let text = std::fs::read_to_string(&path).map_err(|source| LlmError::Io { path: path.clone(), source })?;
        let mut entries = Vec::new();
        let mut synthetic = false;
        let mut server = None;
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let bad = |message: String| LlmError::BadRecording { path: path.clone(), line: i + 1, message };
            let rec: Recording = serde_json::from_str(line).map_err(|e| bad(format!("not a recording: {e}")))?;
            let key = request_key(&rec.request);
            if !rec.key.is_empty() && rec.key != key {
                return Err(bad(format!("key {} does not match the request, whose key is {key}", rec.key)));
            }
            synthetic |= rec.synthetic;
            server = server.or(rec.server);
            entries.push(Entry { line: i + 1, key, request: rec.request, response: rec.response });
        }
        let used = Mutex::new(vec![false; entries.len()]);
        Ok(ReplayClient { path, entries, used, synthetic, server })
    }

    /// Number of recordings.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the file holds no recording.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Checks that every recording was used.
    ///
    /// # Errors
    /// [`LlmError::ReplayUnused`] naming the first unused recordings by line and key.
    pub fn finish(&self) -> Result<()> {
        let used = self.used.lock().expect("not poisoned");
        let unused: Vec<_> = self.entries.iter().zip(used.iter()).filter(|(_, u)| !**u).map(|(e, _)| e).collect();
        if unused.is_empty() {
            return Ok(());
        }
        let keys: Vec<_> = unused.iter().take(5).map(|e| format!("line {} key {}", e.line, e.key)).collect();
        Err(LlmError::ReplayUnused { path: self.path.clone(), count: unused.len(), keys: keys.join("; ") })
    }

    fn miss(&self, req: &ChatRequest, key: String) -> LlmError {
        let same_key = self.entries.iter().filter(|e| e.key == key).count();
        let detail = if same_key > 0 {
            format!("all {same_key} recording(s) with this key were used already (the request was repeated)")
        } else {
            format!("request {}; {}", summary(req), self.nearest(req))
        };
        LlmError::ReplayMiss { key, detail }
    }

    /// Describes the recording whose messages share the longest prefix with `req`'s.
    fn nearest(&self, req: &ChatRequest) -> String {
        let common = |e: &Entry| e.request.messages.iter().zip(&req.messages).take_while(|(a, b)| a == b).count();
        let Some((entry, prefix)) = self.entries.iter().map(|e| (e, common(e))).rev().max_by_key(|(_, n)| *n) else {
            return format!("{} holds no recordings", self.path.display());
        };
        let head = format!("nearest recording ({}:{})", self.path.display(), entry.line);
        let (recorded, asked) = (entry.request.messages.get(prefix), req.messages.get(prefix));
        match (recorded, asked) {
            (Some(r), Some(a)) => format!("{head} first differs at message {prefix}: {}", first_difference(r, a)),
            (None, None) => {
                format!("{head} has the same messages but differs in {}", differing_fields(&entry.request, req))
            }
            _ => format!("{head} has {} messages, the request {}", entry.request.messages.len(), req.messages.len()),
        }
    }
}

impl ChatClient for ReplayClient {
    fn chat(&self, req: &ChatRequest) -> Result<ChatResponse> {
        let key = request_key(req);
        let mut used = self.used.lock().expect("not poisoned");
        let hit = self.entries.iter().enumerate().position(|(i, e)| e.key == key && !used[i]);
        let Some(i) = hit else { return Err(self.miss(req, key)) };
        used[i] = true;
        Ok(self.entries[i].response.clone())
    }

    /// The server of the first recording that names one.
    fn server(&self) -> Option<ServerInfo> {
        self.server.clone()
    }

    fn describe(&self) -> ClientInfo {
        let mut models = self.entries.iter().map(|e| e.request.model.as_str());
        let first = models.next();
        let model = first.filter(|m| models.all(|other| other == *m)).map(str::to_owned);
        ClientInfo { kind: "replay", endpoint: Some(self.path.display().to_string()), model, synthetic: self.synthetic }
    }

    fn is_synthetic(&self) -> bool {
        self.synthetic
    }
}

/// A short description of a request for error messages.
fn summary(req: &ChatRequest) -> String {
    let last = req.messages.last().map_or("none".to_owned(), |m| format!("{:?} {:?}", m.role, excerpt(m.text(), 80)));
    let tools: Vec<_> = req.tools.iter().map(|t| t.name()).collect();
    format!(
        "(model {:?}, {} messages, last {last}, tools [{}], temperature {:?}, seed {:?})",
        req.model,
        req.messages.len(),
        tools.join(", "),
        req.temperature,
        req.seed
    )
}

/// Both messages' canonical JSON around their first differing character.
fn first_difference(recorded: &Message, asked: &Message) -> String {
    let json = |m: &Message| canonical_json(&serde_json::to_value(m).expect("a Message always serializes"));
    let (r, a) = (json(recorded), json(asked));
    let at = r.chars().zip(a.chars()).take_while(|(x, y)| x == y).count();
    let around = |s: &str| excerpt(&s.chars().skip(at.saturating_sub(40)).collect::<String>(), 160);
    format!("recorded …{} vs requested …{}", around(&r), around(&a))
}

/// The top-level request fields (other than messages) whose values differ.
fn differing_fields(recorded: &ChatRequest, asked: &ChatRequest) -> String {
    let (r, a) = (serde_json::to_value(recorded).unwrap_or_default(), serde_json::to_value(asked).unwrap_or_default());
    let fields = ["model", "tools", "tool_choice", "temperature", "n", "max_tokens", "seed"];
    let differing: Vec<_> = fields.into_iter().filter(|f| r.get(f) != a.get(f)).collect();
    differing.join(", ")
}

/// A [`ChatClient`] that passes requests to `inner` and appends each successful exchange
/// to a recordings file, for later [`ReplayClient`] runs.
///
/// Recordings are marked synthetic exactly when `inner` is synthetic, so recording a
/// scripted client never yields "real" recordings. Failed calls are not recorded.
#[derive(Debug)]
pub struct RecordingClient<C> {
    inner: C,
    path: PathBuf,
    file: Mutex<File>,
}

impl<C: ChatClient> RecordingClient<C> {
    /// Records `inner`'s exchanges into `path`, replacing the file.
    ///
    /// # Errors
    /// [`LlmError::Io`] when the file cannot be created.
    pub fn create(inner: C, path: impl AsRef<Path>) -> Result<Self> {
        Self::with_options(inner, path.as_ref(), OpenOptions::new().write(true).create(true).truncate(true))
    }

    /// Records `inner`'s exchanges at the end of `path`, creating it if needed.
    ///
    /// # Errors
    /// [`LlmError::Io`] when the file cannot be opened.
    pub fn append(inner: C, path: impl AsRef<Path>) -> Result<Self> {
        Self::with_options(inner, path.as_ref(), OpenOptions::new().append(true).create(true))
    }

    fn with_options(inner: C, path: &Path, options: &OpenOptions) -> Result<Self> {
        let file = options.open(path).map_err(|source| LlmError::Io { path: path.to_owned(), source })?;
        Ok(RecordingClient { inner, path: path.to_owned(), file: Mutex::new(file) })
    }

    /// The wrapped client.
    pub fn into_inner(self) -> C {
        self.inner
    }
}

impl<C: ChatClient> ChatClient for RecordingClient<C> {
    fn chat(&self, req: &ChatRequest) -> Result<ChatResponse> {
        self.chat_within(req, None)
    }

    /// Passes the call on to the inner client and records the exchange with the inner
    /// client's [`ChatClient::server`] and the model the response names.
    fn chat_within(&self, req: &ChatRequest, deadline: Option<Instant>) -> Result<ChatResponse> {
        let response = self.inner.chat_within(req, deadline)?;
        let server = self
            .inner
            .server()
            .map(|s| ServerInfo { served_model: Some(response.model.clone()).filter(|m| !m.is_empty()), ..s });
        let recording = Recording::new(req.clone(), response.clone(), self.inner.is_synthetic(), None);
        let line = recording.with_server(server).to_line() + "\n";
        let mut file = self.file.lock().expect("not poisoned");
        file.write_all(line.as_bytes())
            .and_then(|()| file.flush())
            .map_err(|source| LlmError::Io { path: self.path.clone(), source })?;
        Ok(response)
    }

    fn context_length(&self) -> Option<u32> {
        self.inner.context_length()
    }

    fn requests_sent(&self) -> Option<u64> {
        self.inner.requests_sent()
    }

    fn server(&self) -> Option<ServerInfo> {
        self.inner.server()
    }

    fn describe(&self) -> ClientInfo {
        ClientInfo { kind: "recording", endpoint: Some(self.path.display().to_string()), ..self.inner.describe() }
    }

    fn is_synthetic(&self) -> bool {
        self.inner.is_synthetic()
    }
}
