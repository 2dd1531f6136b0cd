//! TraceRepair (issue 13; the seed paper's Algorithm 1): runtime probes, a three-strategy
//! debate and a judge.
//!
//! In progress: this module holds Phase 1 ([`probe`]: tree-sitter injection of logging
//! statements into the localized method, the deterministic `--probe auto` sites, bounded
//! value rendering, the 10 MB output guard and the 20 KB trace kept for prompts; [`trace`]:
//! building and running the instrumented copy with a bounded rollback on compile errors and
//! the static fallback). The strategy itself (its wiring to the session's validation, the
//! debate, the judge) is not registered in [`super::NAMES`] yet.

pub mod probe;
pub mod trace;
