//! The repair tools served to outside agents (DESIGN.md decision 12): the external-ingredient
//! tool `search_similar_fixes` and the nine internal-ingredient tools of [`crate::tools`],
//! over the Model Context Protocol on stdio ([`mcp`]) and a small local JSON HTTP API
//! ([`http`]).
//!
//! A [`ToolHost`] owns the [`Retriever`] and the [`Toolbox`] and dispatches calls by name;
//! both transports share it. Calls are synchronous and CPU-bound (an embedding, a
//! tree-sitter parse), so the transports run each one on tokio's blocking pool.
//!
//! Before a tool runs, its arguments are checked against its JSON schema
//! ([`crate::tools::check_arguments`]: unknown names and wrong types are refused with the
//! reason) and every string argument against [`HostConfig::max_argument_bytes`].
//!
//! | transport | tool error | unknown tool | bad request | index unavailable |
//! |---|---|---|---|---|
//! | MCP | `isError: true` result with the model-facing message | JSON-RPC error -32602 (as the MCP spec asks) | JSON-RPC error: -32700 for a line that is not UTF-8 JSON, -32600 for one that is not a message or is over 16 MiB ([`lines`]) | `isError: true` result |
//! | HTTP | 422 `{"error": msg}` (500 for an internal failure) | 404 `{"error": msg}` | 400 (not a JSON object), 413 (body too large) | 503 `{"error": msg}` |
//!
//! The index behind `search_similar_fixes` follows its path ([`crate::retrieve::reload`]): a new file
//! published there is served from the next call on; files that cannot be opened make the
//! calls fail with [`CallError::Unavailable`] until a good one is published.
//!
//! ```
//! use repair::serve::ToolHost;
//! use repair::tools::Toolbox;
//! use serde_json::json;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("inc.py"), "def inc(x):\n    return x + 2\n")?;
//! let host = ToolHost::new(None, Some(Toolbox::new(dir.path())));
//! assert_eq!(host.specs().len(), 9);
//! let out = host.call("find_method_in_file", &json!({"file": "inc.py", "method": "inc"}))?;
//! assert!(out.text.contains("2:     return x + 2"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod http;
pub mod lines;
pub mod mcp;

use serde::Serialize;
use serde_json::Value;

use crate::retrieve::reload::IndexStatus;
use crate::retrieve::{self, RetrieveError, Retriever};
use crate::tools::{ToolError, ToolSpec, Toolbox, check_arguments};

/// The name of the external-ingredient tool.
pub const SEARCH_TOOL: &str = crate::retrieve::tool::NAME;

/// Knobs of a [`ToolHost`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostConfig {
    /// Most characters (bytes of UTF-8 text) of the text answer of `search_similar_fixes`;
    /// whole fixes are dropped from the end first (see [`retrieve::render`]). The internal
    /// tools have their own cap ([`crate::tools::ToolConfig::max_output_chars`]).
    pub max_search_chars: usize,
    /// Most bytes of any one string argument (the buggy code, a root cause, a path); longer
    /// ones are refused as invalid. The embedding reads only the first
    /// [`engine::embed::MAX_FIELD_CHARS`] characters of a field anyway.
    pub max_argument_bytes: usize,
}

/// Default of [`HostConfig::max_argument_bytes`]: 1 MiB, the HTTP body limit's default.
pub const DEFAULT_MAX_ARGUMENT_BYTES: usize = 1 << 20;

impl Default for HostConfig {
    /// 12,000 characters (about 3,000 tokens) of search answer; 1 MiB per argument.
    fn default() -> Self {
        HostConfig { max_search_chars: 12_000, max_argument_bytes: DEFAULT_MAX_ARGUMENT_BYTES }
    }
}

/// The answer of one tool call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolOutput {
    /// Model-facing plain text.
    pub text: String,
    /// The same answer as data, for tools that have one: `search_similar_fixes` gives its
    /// [`retrieve::Retrieval`] (`space`, `fixes`, `dropped_exact`). `None` for the
    /// internal tools, whose answer is text only.
    pub structured: Option<Value>,
}

/// A failed tool call. Every message is meant for the caller (a model or an agent).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// No tool by that name is served.
    #[error("unknown tool `{name}`; available tools: {available}")]
    UnknownTool {
        /// The name called.
        name: String,
        /// The names served, comma-separated.
        available: String,
    },
    /// The arguments are missing or invalid (an unknown name, a wrong type, a value out of
    /// range, an empty query, a space the index lacks), or name something that does not
    /// exist (a file, method, class or variable). The message says what to fix.
    #[error("{0}")]
    Invalid(String),
    /// The index changed on disk and the files now at its path cannot be served; a later
    /// call may succeed (see [`crate::retrieve::reload`]).
    #[error("{0}")]
    Unavailable(String),
    /// The tool failed for a reason the caller cannot fix (e.g. a corrupt index document).
    #[error("{0}")]
    Internal(String),
}

/// Errors starting or running a server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The HTTP address is not a loopback address and remote access was not allowed.
    #[error("refusing to serve on {addr}: not a loopback address; bind 127.0.0.1 or pass --allow-remote")]
    NotLoopback {
        /// The address asked for.
        addr: String,
    },
    /// The address could not be resolved or bound.
    #[error("cannot bind {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The async runtime or the transport failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: &'static str,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The MCP session could not start (for example, the client's `initialize` was invalid).
    #[error("MCP session failed: {0}")]
    Mcp(String),
}

/// The tools served: `search_similar_fixes` when a [`Retriever`] is given, and the nine
/// internal-ingredient tools when a [`Toolbox`] is given. `Send + Sync`; calls take `&self`.
#[derive(Debug)]
pub struct ToolHost {
    retriever: Option<Retriever>,
    toolbox: Option<Toolbox>,
    config: HostConfig,
}

impl ToolHost {
    /// A host with the default [`HostConfig`]. Cost: O(1).
    pub fn new(retriever: Option<Retriever>, toolbox: Option<Toolbox>) -> ToolHost {
        ToolHost::with_config(retriever, toolbox, HostConfig::default())
    }

    /// A host with `config`.
    pub fn with_config(retriever: Option<Retriever>, toolbox: Option<Toolbox>, config: HostConfig) -> ToolHost {
        ToolHost { retriever, toolbox, config }
    }

    /// The specifications of every tool served: `search_similar_fixes` first, then the
    /// internal tools in ReinFix Table 1 order.
    pub fn specs(&self) -> Vec<ToolSpec> {
        let search = self.retriever.as_ref().map(Retriever::spec);
        search.into_iter().chain(self.toolbox.iter().flat_map(Toolbox::specs)).collect()
    }

    /// Whether a tool named `name` is served.
    pub fn has(&self, name: &str) -> bool {
        self.specs().iter().any(|s| s.name == name)
    }

    /// Runs tool `name` on JSON `args` (an object).
    ///
    /// Cost: `search_similar_fixes` embeds one query and searches the index; the internal
    /// tools parse one or all project files (cached).
    ///
    /// # Errors
    /// [`CallError::UnknownTool`] for a name not served, [`CallError::Invalid`] for bad
    /// arguments (unknown names, wrong types, strings over
    /// [`HostConfig::max_argument_bytes`], values the tool refuses),
    /// [`CallError::Unavailable`] when the index cannot be served now,
    /// [`CallError::Internal`] otherwise.
    pub fn call(&self, name: &str, args: &Value) -> Result<ToolOutput, CallError> {
        let Some(spec) = self.specs().into_iter().find(|s| s.name == name) else {
            return Err(self.unknown(name));
        };
        check_arguments(&spec, args).map_err(CallError::Invalid)?;
        self.check_sizes(name, args)?;
        tracing::debug!(tool = name, "tool call");
        match (name, &self.retriever, &self.toolbox) {
            (SEARCH_TOOL, Some(r), _) => self.search(r, args),
            (_, _, Some(t)) => t.call(name, args).map(|text| ToolOutput { text, structured: None }).map_err(tool_error),
            _ => Err(self.unknown(name)),
        }
    }

    /// The index behind `search_similar_fixes` (reloaded first if its files changed), or
    /// `None` when that tool is not served. Cost: a `stat` per index file, or a reload.
    pub fn index_status(&self) -> Option<IndexStatus> {
        self.retriever.as_ref().map(Retriever::status)
    }

    fn check_sizes(&self, tool: &str, args: &Value) -> Result<(), CallError> {
        let max = self.config.max_argument_bytes;
        let mut strings = args.as_object().into_iter().flatten().filter_map(|(k, v)| Some((k, v.as_str()?)));
        match strings.find(|(_, v)| v.len() > max) {
            Some((name, v)) => Err(CallError::Invalid(format!(
                "argument `{name}` of tool `{tool}` is {} bytes; the most accepted is {max}",
                v.len()
            ))),
            None => Ok(()),
        }
    }

    fn search(&self, retriever: &Retriever, args: &Value) -> Result<ToolOutput, CallError> {
        let r = retriever.call(args).map_err(retrieve_error)?;
        let structured = serde_json::to_value(&r).map_err(|e| CallError::Internal(e.to_string()))?;
        Ok(ToolOutput { text: retrieve::render(&r, self.config.max_search_chars), structured: Some(structured) })
    }

    fn unknown(&self, name: &str) -> CallError {
        let available = self.specs().into_iter().map(|s| s.name).collect::<Vec<_>>().join(", ");
        CallError::UnknownTool { name: name.to_string(), available }
    }
}

fn tool_error(e: ToolError) -> CallError {
    match e {
        ToolError::UnknownTool { name, available } => CallError::UnknownTool { name, available },
        other => CallError::Invalid(other.to_string()),
    }
}

fn retrieve_error(e: RetrieveError) -> CallError {
    match e {
        RetrieveError::Arguments(msg) => CallError::Invalid(msg),
        RetrieveError::Engine(
            e @ (engine::Error::InvalidParameter { .. }
            | engine::Error::NoSuchSpace { .. }
            | engine::Error::UnknownSpace(_)),
        ) => CallError::Invalid(e.to_string()),
        e @ RetrieveError::Unavailable { .. } => CallError::Unavailable(e.to_string()),
        RetrieveError::Engine(e) => CallError::Internal(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn host() -> (tempfile::TempDir, ToolHost) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "def f(x):\n    return x\n").unwrap();
        let host = ToolHost::new(None, Some(Toolbox::new(dir.path())));
        (dir, host)
    }

    #[test]
    fn without_a_retriever_the_search_tool_is_not_served() {
        let (_dir, host) = host();
        assert!(!host.has(SEARCH_TOOL));
        let err = host.call(SEARCH_TOOL, &json!({})).unwrap_err();
        assert!(matches!(err, CallError::UnknownTool { .. }), "{err}");
        assert!(err.to_string().contains("find_method_in_file"));
    }

    #[test]
    fn tool_errors_are_invalid_with_the_model_facing_message() {
        let (_dir, host) = host();
        let err = host.call("find_method_in_file", &json!({"file": "a.py"})).unwrap_err();
        assert!(matches!(err, CallError::Invalid(_)));
        assert_eq!(err.to_string(), "tool `find_method_in_file` needs the string argument `method`");
        let err = host.call("get_imports", &json!({"file": "../x.py"})).unwrap_err();
        assert!(err.to_string().contains("outside the project"), "{err}");
    }

    /// Issue 8 item 13 (both transports call this): unknown argument names, wrong types and
    /// oversized strings are refused with the reason, before the tool runs.
    #[test]
    fn issue_8_arguments_are_checked_against_the_schema() {
        let (_dir, host) = host();
        let err = host.call("find_method_in_file", &json!({"file": "a.py", "method": "f", "lines": 3})).unwrap_err();
        assert!(matches!(err, CallError::Invalid(_)), "{err}");
        assert_eq!(
            err.to_string(),
            "unknown argument `lines` for tool `find_method_in_file`; its arguments are: file, method"
        );
        let err = host.call("find_method_in_file", &json!({"file": 3, "method": "f"})).unwrap_err();
        assert_eq!(err.to_string(), "argument `file` of tool `find_method_in_file` must be a string, got a number 3");
        let big = "x".repeat(DEFAULT_MAX_ARGUMENT_BYTES + 1);
        let err = host.call("find_method_in_file", &json!({"file": "a.py", "method": big})).unwrap_err();
        assert!(matches!(err, CallError::Invalid(_)), "{err}");
        assert!(err.to_string().ends_with("is 1048577 bytes; the most accepted is 1048576"), "{err}");
    }

    #[test]
    fn internal_tools_answer_text_only() {
        let (_dir, host) = host();
        let out = host.call("find_method_in_file", &json!({"file": "a.py", "method": "f"})).unwrap();
        assert!(out.text.contains("a.py"), "{}", out.text);
        assert_eq!(out.structured, None);
    }
}
