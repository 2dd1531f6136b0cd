//! One repair run, whatever the strategy: what a bug *is* ([`bug`]: the [`bug::Bug`] as given,
//! the [`bug::Problem`] after the [`preflight`]), what a run *has* ([`session`]: client,
//! ledger, clock, budgets, the report being built, and the services strategies use), its
//! knobs ([`config`]), its [`report`] (one format for every strategy, the strategy's own
//! section typed, [`report::Details`]), the normal form of a root cause ([`cause`], shared
//! with the corpus labeller) and the [`workflow`] that ties them together and owns
//! every exit path.
//!
//! Strategies ([`crate::strategies`]) depend on this folder; nothing here names one.

pub mod bug;
pub mod cause;
pub mod config;
pub mod preflight;
pub mod report;
pub mod session;
pub mod workflow;
