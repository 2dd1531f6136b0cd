//! Repair strategies: the published workflows a user picks per bug (`--strategy NAME`).
//!
//! A strategy gets the bug after the pre-flight ([`Problem`]: immutable) and the run's
//! [`Session`] (client, ledger, clock, budgets, the report), and produces candidate patches
//! through the session's shared services: model requests within the context window
//! ([`Session::sample_or_degrade`], [`Session::send`]), candidate validation
//! ([`Session::validate_candidate`], [`Session::push_candidate`]), retrieval
//! ([`Session::search_similar`], which records in the report what was searched) and the
//! internal-ingredient tools ([`Session::toolbox`]).
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
//! | `a,b` (e.g. `patterns,reinfix`) | a chain: the named strategies in order, each only on a bug the ones before it left without a plausible patch ("free before paid"), with each stage's cost in the report | [`chain`] |
//!
//! A new strategy goes in its own folder here (or in any crate), implements [`Strategy`] and
//! its option group (`#[derive(clap::Args)]` under its own help heading), and is one line of
//! [`Registry::builtin`] (or [`Registry::with`] outside this crate): the registry is the only
//! constructor, and gives the binary `--strategy` and every strategy's options. Its report
//! section ([`RepairReport::details`]) and its evaluation summary ([`Strategy::eval_bug`],
//! [`Strategy::eval_totals`]) come from the strategy; shared code names none (except
//! [`crate::bench::keep`], which reads a chain's [`chain::ChainRecord`] into a run folder's
//! `result.json`). The registry builds a [`chain::Chain`] for a `--strategy` with commas:
//! nothing more is needed for a new strategy to be a stage.

use serde_json::Value;

use crate::run::bug::Problem;
use crate::run::config::SearchSpace;
use crate::run::report::RepairReport;
use crate::run::session::{Session, Stop};

pub mod chain;
pub mod patterns;
pub mod registry;
pub mod reinfix;
pub mod tracerepair;
pub mod unidebugger;

pub use registry::{Entry, Registry, UnknownStrategy, entry};

/// A repair workflow over the shared session services.
pub trait Strategy: Send + Sync {
    /// The name `--strategy` takes and the report records.
    fn name(&self) -> &'static str;

    /// Whether the strategy talks to a model; one that does not runs without an endpoint
    /// ([`crate::llm::NoModel`]).
    fn needs_model(&self) -> bool {
        true
    }

    /// The vector space this strategy searches the index in, given the configured one
    /// (`--space`, [`crate::run::config::RunConfig::retrieval`]): the configured one by
    /// default; a strategy whose ranking was fitted on one space returns that one. Callers
    /// refuse an index that lacks it before any bug runs, instead of every bug warning that
    /// retrieval failed.
    fn retrieval_space(&self, configured: engine::Space) -> engine::Space {
        configured
    }

    /// Whether the strategy, as configured, searches the index at all when one is given:
    /// `true` by default; `patterns --no-retrieval` does not; a chain does when any stage
    /// does. Callers refuse the options that only change what is searched (`eval defects4j
    /// --own-history`) when it does not.
    fn searches(&self) -> bool {
        true
    }

    /// Every vector space this strategy may search, given the configured one: its
    /// [`Strategy::retrieval_space`] by default, none when it does not search
    /// ([`Strategy::searches`]); a chain ([`chain::Chain`]) gives each stage's, without
    /// repeats. Callers check the index against all of them.
    fn retrieval_spaces(&self, configured: engine::Space) -> Vec<engine::Space> {
        if self.searches() { vec![self.retrieval_space(configured)] } else { Vec::new() }
    }

    /// Why this strategy, as configured, still needs a model although one might think it
    /// does not (TraceRepair's `--trace-only` with `--probe model`): the context of the error
    /// when no endpoint is given; `None` (the default) for none.
    fn model_note(&self) -> Option<&'static str> {
        None
    }

    /// Whether the strategy reads nothing of a candidate's validation but its verdict (no
    /// failing tests, no output fed back): then its candidates run the validator's
    /// fail-fast test command ([`crate::validate::Validator::fail_fast`]) where the runner
    /// has one and the buggy version has no pre-existing failures. `false` by default.
    fn verdict_only(&self) -> bool {
        false
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

    /// The search space the report's `config` records (ReinFix's attempts × suggestions ×
    /// patches and ReAct turns; [`SearchSpace::default`] for a strategy that maps its own
    /// rounds onto none of them).
    fn search_space(&self) -> SearchSpace {
        SearchSpace::default()
    }

    /// Searches for a plausible patch of `problem`: samples candidates and validates each
    /// through `session`, stopping when [`Session::push_candidate`] says so. `Ok(())` when
    /// the search ended (with or without a plausible patch; the workflow reads the report).
    ///
    /// # Errors
    /// [`Stop`] for the budget, the wall clock and errors of the machinery or the endpoint;
    /// an unusable reply must be degraded ([`Session::degrade`]), not returned.
    fn repair(&self, problem: &Problem, session: &mut Session<'_>) -> Result<(), Stop>;

    /// A line for `fixdex repair`'s stderr on what this run did (TraceRepair: the probes;
    /// UniDebugger: the level reached), from its report; `None` (the default) for none.
    fn report_line(&self, _report: &RepairReport) -> Option<String> {
        None
    }

    /// This strategy's part of one bug's entry in an evaluation (`fixdex eval quixbugs
    /// --json`: `programs[i].KEY`), from the bug's report, as `(KEY, value)`; `None` (the
    /// default) adds nothing.
    fn eval_bug(&self, _report: &RepairReport) -> Option<(&'static str, Value)> {
        None
    }

    /// This strategy's totals over an evaluation of `bugs` bugs, of which `reports` ran
    /// (the others failed localization): the summary's `KEY` and the table's line; `None`
    /// (the default) for none.
    fn eval_totals(&self, _bugs: usize, _reports: &[&RepairReport]) -> Option<EvalTotals> {
        None
    }
}

/// A strategy's totals over an evaluation ([`Strategy::eval_totals`]).
#[derive(Debug, Clone, PartialEq)]
pub struct EvalTotals {
    /// The key of the `--json` summary that holds them (`probes`, `levels`).
    pub key: &'static str,
    /// The totals.
    pub totals: Value,
    /// One line for the text table.
    pub line: String,
}
