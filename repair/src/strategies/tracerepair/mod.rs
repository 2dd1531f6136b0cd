//! TraceRepair (issue 13; the seed paper's Algorithm 1): runtime probes, a three-strategy
//! debate and a judge.
//!
//! In progress: this module holds Phase 1's instrumentation ([`probe`]: tree-sitter
//! injection of logging statements into the localized method, the deterministic
//! `--probe auto` sites, bounded value rendering). The strategy itself (trace collection
//! with its 10 MB guard, the debate, the judge) is not registered in
//! [`super::NAMES`] yet.

pub mod probe;
