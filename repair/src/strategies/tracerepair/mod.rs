//! TraceRepair (issue 13; the seed paper's Algorithm 1): runtime probes, a three-strategy
//! debate and a judge.
//!
//! In progress: this module holds Phase 1 ([`probe`]: tree-sitter injection of logging
//! statements into the localized method, the deterministic `--probe auto` sites, bounded
//! value rendering, the 10 MB output guard and the 20 KB trace kept for prompts; [`trace`]:
//! building and running the instrumented copy with a bounded rollback on compile errors and
//! the static fallback, through the session's validation in a scratch copy:
//! [`trace::collect_in_session`]). The strategy itself (model-named probes, the debate, the
//! judge, budgets, its report section) is not registered in [`super::NAMES`] yet.

pub mod probe;
pub mod trace;
