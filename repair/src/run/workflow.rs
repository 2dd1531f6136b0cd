//! One repair run of any strategy: the report's frame, the shared pre-flight, the strategy,
//! and every exit path (plausible patch, search space exhausted, budget, timeout,
//! pre-flight failure, error), each of which returns a [`RepairReport`];
//! [`Workflow::run`] never fails.

use std::time::Instant;

use crate::fl::LineWeights;
use crate::llm::{ChatClient, LedgerTotals, PriceTable, ServerInfo};
use crate::retrieve::Retriever;
use crate::run::bug::{Bug, Problem};
use crate::run::config::{ConfigRecord, RunConfig};
use crate::run::report::{ContextRecord, Details, Outcome, RepairReport, RetrievalSettings};
use crate::run::session::{Parts, Session, Stop};
use crate::strategies::{Registry, Strategy};
use crate::validate::Validator;
use crate::validate::scratch::ScratchFilter;

/// A workflow over a client, the internal tools, an optional retriever, a validator and a
/// strategy (the registry's default, [`Registry::default_strategy`], unless
/// [`Workflow::with_strategy`] says otherwise).
pub struct Workflow<'a> {
    client: &'a dyn ChatClient,
    retriever: Option<Retriever>,
    validator: Validator,
    config: RunConfig,
    prices: PriceTable,
    skip: ScratchFilter,
    strategy: Box<dyn Strategy>,
    weights: LineWeights,
}

impl std::fmt::Debug for Workflow<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workflow")
            .field("strategy", &self.strategy.name())
            .field("client", &self.client.describe())
            .field("retriever", &self.retriever)
            .field("validator", &self.validator)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl<'a> Workflow<'a> {
    /// A workflow of the default strategy; `retriever` = `None` runs without external
    /// ingredients (the ReinFix ablation "w/o external").
    pub fn new(
        client: &'a dyn ChatClient,
        retriever: Option<Retriever>,
        validator: Validator,
        config: RunConfig,
    ) -> Workflow<'a> {
        Workflow {
            client,
            retriever,
            validator,
            config,
            prices: PriceTable::default(),
            skip: std::sync::Arc::new(|_, _| false),
            strategy: Registry::builtin().default_strategy(),
            weights: LineWeights::Uniform,
        }
    }

    /// Runs `strategy` instead of the default ([`Registry::build`]).
    #[must_use]
    pub fn with_strategy(mut self, strategy: Box<dyn Strategy>) -> Self {
        self.strategy = strategy;
        self
    }

    /// The line weights fault localization gave the bug's file ([`Problem::weights`];
    /// uniform unless set).
    #[must_use]
    pub fn with_weights(mut self, weights: LineWeights) -> Self {
        self.weights = weights;
        self
    }

    /// Leave these entries out of the scratch copies (e.g. build outputs, other languages);
    /// [`crate::validate::scratch::SKIP_DIRS`] and build output
    /// ([`crate::validate::scratch::is_build_output`]) are always left out.
    #[must_use]
    pub fn with_scratch_filter(mut self, skip: ScratchFilter) -> Self {
        self.skip = skip;
        self
    }

    /// Prices (USD per 1M tokens) for the cost accounting.
    #[must_use]
    pub fn with_prices(mut self, prices: PriceTable) -> Self {
        self.prices = prices;
        self
    }

    /// Runs the whole workflow on `bug`. Never fails: errors end up in the report.
    pub fn run(&self, bug: &Bug) -> RepairReport {
        let start = Instant::now();
        let parts = Parts {
            client: self.client,
            config: &self.config,
            retriever: self.retriever.as_ref(),
            validator: &self.validator,
            skip: std::sync::Arc::clone(&self.skip),
            prices: self.prices.clone(),
        };
        let mut session = Session::new(parts, bug, start, self.frame(bug));
        let ended = self.drive(bug, &mut session);
        self.finish(session, ended, start)
    }

    /// Pre-flight, then the strategy, then the shared conclusion.
    fn drive(&self, bug: &Bug, session: &mut Session<'_>) -> Result<Outcome, Stop> {
        let problem = match session.preflight(bug)? {
            Ok(problem) => Problem { weights: self.weights.clone(), ..problem },
            Err(refused) => return Ok(refused),
        };
        if self.strategy.verdict_only() {
            session.fail_fast();
        }
        self.strategy.repair(&problem, session)?;
        session.conclude()?;
        if !self.strategy.seeks_patch() {
            return Ok(Outcome::TraceOnly);
        }
        Ok(if session.report.patch.is_some() { Outcome::Plausible } else { Outcome::NoPlausiblePatch })
    }

    /// The report before the run: everything known from the configuration.
    fn frame(&self, bug: &Bug) -> RepairReport {
        let client = self.client.describe();
        RepairReport {
            fixdex_version: env!("CARGO_PKG_VERSION").to_string(),
            strategy: self.strategy.name().to_string(),
            bug: bug.clone(),
            synthetic: client.synthetic,
            client,
            config: ConfigRecord::new(&self.config, self.strategy.search_space()),
            retrieval: self.retrieval_settings(),
            outcome: Outcome::Error,
            error: None,
            preflight: None,
            buggy_lines: None,
            root_cause: None,
            root_cause_source: None,
            root_cause_note: None,
            tool_calls: Vec::new(),
            retrieved: Vec::new(),
            retrieved_dropped_exact: 0,
            suggestions: Vec::new(),
            candidates: Vec::new(),
            plausibility: None,
            degraded: Vec::new(),
            tool_protocol: None,
            context: ContextRecord { context_tokens: self.config.context_tokens, ..ContextRecord::default() },
            warnings: Vec::new(),
            patch: None,
            llm: LedgerTotals::default(),
            calls: Vec::new(),
            wall_s: 0.0,
            fault_localization: None,
            server: None,
            details: Details::default(),
        }
    }

    /// The report's `retrieval` block before any search; `None` without an index.
    fn retrieval_settings(&self) -> Option<RetrievalSettings> {
        Some(RetrievalSettings::configured(&self.config.retrieval, self.retriever.as_ref()?))
    }

    /// The report at the end of the run, whichever way it ended.
    fn finish(&self, session: Session<'_>, ended: Result<Outcome, Stop>, start: Instant) -> RepairReport {
        let (outcome, error) = match ended {
            Ok(o) => (o, None),
            Err(Stop::Budget(e)) => (Outcome::BudgetExhausted, Some(e.to_string())),
            Err(Stop::Timeout(e)) => (Outcome::Timeout, Some(e.to_string())),
            Err(Stop::Failed(e)) => (Outcome::Error, Some(e.to_string())),
            Err(Stop::ToolsRefused(e)) => (Outcome::Error, Some(e.to_string())),
            Err(Stop::Unusable(reason)) => (Outcome::Error, Some(reason)),
        };
        let ledger = session.ledger;
        let mut report = session.report;
        report.outcome = if report.patch.is_some() { Outcome::Plausible } else { outcome };
        report.error = error.or(report.error);
        report.warnings.extend(ledger.choices_warning());
        report.server = self
            .client
            .server()
            .map(|s| ServerInfo { served_model: ledger.served_model.clone().or(s.served_model), ..s });
        report.llm = ledger.totals();
        report.calls = ledger.calls;
        report.wall_s = start.elapsed().as_secs_f64();
        report
    }
}
