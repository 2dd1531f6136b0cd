//! Integration tests of the engine.

/// Shared helpers: building small indexes with the tiny model or random vectors.
mod common;
/// Corrupt, truncated and foreign files are refused; verify catches flipped bytes.
mod corruption;
/// Format round trips, the RAM twin, atomic publication.
mod format;
/// Fuzz tests: damaged indexes never panic open, verify or search (issue 8).
mod fuzz;
/// The committed format fixtures: v2 opens and answers, v1 is refused with the rebuild
/// message.
mod golden;
/// Issue 8, search side: blank queries, scores past ±1, damaged vectors, the index's cause
/// budget, filters that match nothing, project identity.
mod hardening;
/// The real all-MiniLM-L6-v2 model (fetched by scripts/fetch-model.sh).
mod real_model;
/// HNSW recall against the exact oracle, filters, thresholds, parameters.
mod search;
/// Tests on ../shared data (run by CI with FIXDEX_SHARED set).
mod shared;
