//! Tests of `repair::llm`.

/// The real HTTP client against a local HTTP/1.1 server, and the contract shared with the
/// scripted client.
mod http;
/// Strict record/replay.
mod replay;
/// Injected faults of the scripted client.
mod scripted;
/// A minimal local HTTP/1.1 server.
mod server;
/// Tool-call validation, text fallback and re-asks.
mod turn;
