//! Tests of `repair::llm`.

/// The real HTTP client against a local HTTP/1.1 server, and the contract shared with the
/// scripted client.
mod http;
/// Issue 29: replies that arrived malformed (not UTF-8, over 10 MiB), a stalled body, and
/// `label` against a closed port, with the real client.
mod issue29;
/// Issue 9: what real model servers send (context-length errors, `tool_choice`, `n`,
/// timeouts and the wall limit, which server answered).
mod issue9;
/// Strict record/replay.
mod replay;
/// Injected faults of the scripted client.
mod scripted;
/// A minimal local HTTP/1.1 server.
mod server;
/// Tool-call validation, text fallback and re-asks.
pub(crate) mod turn;
