//! Integration tests of the repair crate, one module per area.

/// `repair::llm`: HTTP client against a local server, scripted faults, tool-call
/// validation and text fallback, record/replay.
mod llm;
