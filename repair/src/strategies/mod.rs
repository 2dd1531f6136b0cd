//! Repair strategies: the published workflows a user picks per bug (`--strategy NAME`).
//!
//! A strategy gets the bug after the pre-flight ([`Problem`]: immutable) and the run's
//! [`Session`] (client, ledger, clock, budgets, the report), and produces candidate patches
//! through the session's shared services: model requests within the context window
//! ([`Session::sample_or_degrade`], [`Session::send`]), candidate validation
//! ([`Session::validate_candidate`], [`Session::push_candidate`]), retrieval
//! ([`Session::retriever`]) and the internal-ingredient tools ([`Session::toolbox`]).
//! It fills the report's shared fields that apply to it and its own section
//! ([`RepairReport::details`](crate::run::report::RepairReport::details)). Pre-flight, the
//! report's frame and every exit path belong to [`crate::run::workflow::Workflow`].
//!
//! | name | method | module |
//! |---|---|---|
//! | `reinfix` | ReinFix (../shared/papers/reinfix.txt, Algorithm 1): root cause with internal ingredients, retrieval, suggestions, patches | [`reinfix`] |
//! | `patterns` | no model: fix templates on the localized method (TBar-style), validated in a fixed order | [`patterns`] |
//! | `tracerepair` | TraceRepair (../shared/papers/tracerepair.txt, Algorithm 1): runtime probes, a three-strategy debate, a judge | [`tracerepair`] |
//! | `unidebugger` | UniDebugger (../shared/papers/unidebugger.txt, Knowl 2): L1 → L2 → L3 escalation and reflection, fixdex as the Helper's patch database | [`unidebugger`] |
//!
//! A new strategy goes in its own folder here, implements [`Strategy`], and is added to
//! [`NAMES`] and [`by_name`]; ARCHITECTURE.md says what it may use.

use crate::run::bug::Problem;
use crate::run::session::{Session, Stop};

pub mod patterns;
pub mod reinfix;
pub mod tracerepair;
pub mod unidebugger;

/// A repair workflow over the shared session services.
pub trait Strategy: Send + Sync {
    /// The name `--strategy` takes and the report records.
    fn name(&self) -> &'static str;

    /// Whether the strategy talks to a model; one that does not runs without an endpoint
    /// ([`crate::llm::NoModel`]).
    fn needs_model(&self) -> bool {
        true
    }

    /// Whether the run seeks a patch; `false` (TraceRepair's `--trace-only`) ends a run that
    /// went through as [`crate::run::report::Outcome::TraceOnly`].
    fn seeks_patch(&self) -> bool {
        true
    }

    /// LLM calls per bug when the user sets no `--max-calls`: 60, or the method's own
    /// budget (TraceRepair: 40, [`tracerepair::DEFAULT_MAX_CALLS`]).
    fn default_max_calls(&self) -> u64 {
        60
    }

    /// Searches for a plausible patch of `problem`: samples candidates and validates each
    /// through `session`, stopping when [`Session::push_candidate`] says so. `Ok(())` when
    /// the search ended (with or without a plausible patch; the workflow reads the report).
    ///
    /// # Errors
    /// [`Stop`] for the budget, the wall clock and errors of the machinery or the endpoint;
    /// an unusable reply must be degraded ([`Session::degrade`]), not returned.
    fn repair(&self, problem: &Problem, session: &mut Session<'_>) -> Result<(), Stop>;
}

/// The strategies `--strategy` accepts; the first is the default.
pub const NAMES: &[&str] = &["reinfix", "patterns", "tracerepair", "unidebugger"];

/// The strategy called `name` ([`NAMES`]).
///
/// # Errors
/// An unknown name, with the known ones listed.
pub fn by_name(name: &str) -> Result<Box<dyn Strategy>, UnknownStrategy> {
    match name {
        "reinfix" => Ok(Box::new(reinfix::ReinFix)),
        "patterns" => Ok(Box::new(patterns::Patterns::default())),
        "tracerepair" => Ok(Box::new(tracerepair::TraceRepair::default())),
        "unidebugger" => Ok(Box::new(unidebugger::UniDebugger::default())),
        other => Err(UnknownStrategy(other.to_string())),
    }
}

/// A `--strategy` name that is not in [`NAMES`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown strategy {0:?} (known: {known})", known = NAMES.join(", "))]
pub struct UnknownStrategy(pub String);
