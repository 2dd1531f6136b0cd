//! A chain of strategies (`--strategy patterns,reinfix`): "free before paid". The stages
//! run in the order given, on the same [`Session`], and each one only when the stages before
//! it left the bug without a plausible patch; the first stage that makes it plausible ends the
//! chain. The [`Registry`](super::Registry) builds a [`Chain`] when `--strategy` holds a
//! comma: every name must be registered and named once, every stage is built from the
//! command line exactly as it would be alone, and the options of every stage are accepted
//! (another strategy's are still refused).
//!
//! # When the next stage runs
//! - a stage that searched to its end without a plausible patch: the next one runs;
//! - a stage that stopped at its *own* budget (`patterns`' or `unidebugger`'s
//!   `--max-validations`, `patterns`' 10 minutes: a [`Stop::Budget`] while the session's
//!   call, token and USD budget still allows a call, or a [`Stop::Timeout`] before the run's
//!   wall clock): the next one runs (the last stage's stop ends the run as it would alone);
//! - the run's own limits (the session's call, token or USD budget, the run's wall clock)
//!   and errors end the chain, as they end a strategy run alone.
//!
//! The budgets of the run are shared: `--max-calls` counts the calls of every stage (its
//! default is the largest of the stages' defaults), and so do `--max-total-tokens`,
//! `--max-usd` and `--max-wall-s`.
//!
//! # A model is needed from the start
//! A chain needs a model when any stage does ([`Strategy::needs_model`]): `fixdex repair
//! --strategy patterns,reinfix` without `--llm-url`/`--replay` is refused before anything
//! runs, with the usual "no LLM configured" error and a note naming the stage that calls
//! the model, because a run cannot know in advance whether the free stages will fix the bug.
//! A bug the first stage fixes makes no model call.
//!
//! # Report
//! The report's `strategy` is the chain as written (`patterns,reinfix`); the shared fields
//! (candidates, retrieved, suggestions, root cause, LLM totals) hold what every stage that
//! ran put there, in order. Its `details` ([`ChainRecord`]):
//! `{"stages": [{"strategy", "outcome" ("plausible", "exhausted" or "stopped"), "why" (what
//! stopped it: the error's message; `null` otherwise), "validations" (candidates built and
//! tested), "calls", "tokens" (prompt + completion), "usd" (`null` when a call of the stage
//! had no price; 0 for a stage without calls), "wall_s", "details" (the stage's own section,
//! as the stage writes it alone; `null` for none)}], "fixed_by": <the stage that made the bug
//! plausible, or null>, "not_run": [<the stages after one that ended the chain with an error
//! or the run's limit>] (absent when empty)}`, one `stages` entry per stage that ran.

use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Instant;

use serde::Serialize;
use serde_json::{Value, json};

use super::{EvalTotals, Strategy};
use crate::run::bug::Problem;
use crate::run::config::SearchSpace;
use crate::run::report::{Details, RepairReport};
use crate::run::session::{Session, Stop};

/// Strategies run in order until one makes the bug plausible (module docs).
pub struct Chain {
    /// The chain as written: the stages' names joined by commas.
    name: &'static str,
    /// The stages, in order.
    stages: Vec<Box<dyn Strategy>>,
    /// [`Strategy::model_note`] of the chain.
    note: Option<&'static str>,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chain").field("name", &self.name).finish_non_exhaustive()
    }
}

/// Why `names` cannot be the stages of a chain: fewer than two, or a name given twice;
/// `Ok` otherwise.
///
/// # Errors
/// The reason, in words for the user.
pub fn check_names(names: &[&str]) -> Result<(), String> {
    if names.len() < 2 {
        return Err("a chain needs two strategies or more, separated by commas".into());
    }
    for (i, name) in names.iter().enumerate() {
        if names[..i].contains(name) {
            return Err(format!("{name} is named twice: a chain runs each strategy once"));
        }
    }
    Ok(())
}

impl Chain {
    /// The chain of `stages`, in order. Its name (`a,b`) is leaked once per distinct chain
    /// for the `&'static str` of [`Strategy::name`].
    ///
    /// # Errors
    /// Fewer than two stages, a name twice ([`check_names`]), or a stage that seeks no patch
    /// ([`Strategy::seeks_patch`] false, TraceRepair's `--trace-only`): it could never end
    /// the chain.
    pub fn new(stages: Vec<Box<dyn Strategy>>) -> Result<Chain, String> {
        let names: Vec<&str> = stages.iter().map(|s| s.name()).collect();
        check_names(&names)?;
        if let Some(s) = stages.iter().find(|s| !s.seeks_patch()) {
            return Err(format!("{} seeks no patch as configured, so it cannot be a stage of a chain", s.name()));
        }
        let name = intern(names.join(","));
        let note = stages.iter().filter(|s| s.needs_model()).find_map(|s| s.model_note()).or_else(|| {
            let paid = stages.iter().position(|s| s.needs_model()).filter(|&i| i > 0)?;
            Some(intern(format!(
                "--strategy {name}: stage {} ({}) calls a model when the stages before it find no plausible patch, \
                 and a run cannot know in advance whether they will, so the model is needed from the start",
                paid + 1,
                stages[paid].name()
            )))
        });
        Ok(Chain { name, stages, note })
    }

    /// The stages, in order.
    pub fn stages(&self) -> impl Iterator<Item = &dyn Strategy> {
        self.stages.iter().map(AsRef::as_ref)
    }

    /// The stage called `name`.
    fn stage(&self, name: &str) -> Option<&dyn Strategy> {
        self.stages().find(|s| s.name() == name)
    }
}

/// `s` as a `&'static str`, leaked once per distinct text (a chain is built once per bug
/// by `eval defects4j`).
fn intern(s: String) -> &'static str {
    static TEXTS: OnceLock<Mutex<Vec<&'static str>>> = OnceLock::new();
    let mut texts = TEXTS.get_or_init(Mutex::default).lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(t) = texts.iter().find(|t| **t == s) {
        return t;
    }
    let leaked: &'static str = Box::leak(s.into_boxed_str());
    texts.push(leaked);
    leaked
}

/// The chain's report section ([`RepairReport::details`]; the module docs give its JSON).
#[derive(Debug, Clone, Default, Serialize)]
pub struct ChainRecord {
    /// Every stage that ran, in order.
    pub stages: Vec<StageRecord>,
    /// The stage that made the bug plausible; `None` when none did.
    pub fixed_by: Option<&'static str>,
    /// The stages that did not run because an earlier one ended the chain with an error or
    /// the run's own limit (in order; empty when every stage ran or one made the bug
    /// plausible).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_run: Vec<&'static str>,
}

/// How one stage of a chain ended ([`StageRecord::outcome`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StageOutcome {
    /// The stage made the bug plausible: the chain ended.
    Plausible,
    /// The stage searched to its end without a plausible patch.
    Exhausted,
    /// The stage was stopped ([`StageRecord::why`]): by its own budget (the next stage ran)
    /// or by the run's limits or an error (the chain ended).
    Stopped,
}

/// What one stage of a chain did and cost ([`ChainRecord::stages`]).
#[derive(Debug, Clone, Serialize)]
pub struct StageRecord {
    /// The stage's strategy name.
    pub strategy: &'static str,
    /// How it ended.
    pub outcome: StageOutcome,
    /// What stopped it (the error's message); `None` when it went through.
    pub why: Option<String>,
    /// Candidates it built and tested ([`crate::validate::Verdict::validated`]).
    pub validations: usize,
    /// LLM calls it made.
    pub calls: u64,
    /// LLM tokens of those calls (prompt + completion).
    pub tokens: u64,
    /// Cost of those calls in USD; `None` when one of them had no price, 0 for no calls.
    pub usd: Option<f64>,
    /// Its wall time, seconds.
    pub wall_s: f64,
    /// Its own report section, as it writes it when it runs alone (empty for none).
    pub details: Details,
}

/// Where the session stood when a stage started.
struct Mark {
    calls: usize,
    candidates: usize,
    at: Instant,
}

impl Mark {
    fn of(session: &Session<'_>) -> Mark {
        Mark { calls: session.ledger.calls.len(), candidates: session.report.candidates.len(), at: Instant::now() }
    }

    /// The record of `stage`, which ran since this mark.
    fn record(&self, session: &Session<'_>, stage: &'static str, ended: (StageOutcome, Option<String>)) -> StageRecord {
        let calls = session.ledger.calls.get(self.calls..).unwrap_or_default();
        let candidates = session.report.candidates.get(self.candidates..).unwrap_or_default();
        StageRecord {
            strategy: stage,
            outcome: ended.0,
            why: ended.1,
            validations: candidates.iter().filter(|c| c.verdict.validated()).count(),
            calls: calls.len() as u64,
            tokens: calls.iter().map(|c| c.prompt_tokens + c.completion_tokens).sum(),
            usd: sum(calls.iter().map(|c| c.cost_usd)),
            wall_s: self.at.elapsed().as_secs_f64(),
            details: Details::default(),
        }
    }
}

/// The message of `stop`.
fn why(stop: &Stop) -> String {
    match stop {
        Stop::Budget(e) | Stop::Timeout(e) | Stop::Failed(e) => e.to_string(),
        Stop::Unusable(reason) => reason.clone(),
        Stop::ToolsRefused(e) => e.to_string(),
    }
}

/// Whether `stop` is a stage's own limit, after which the next stage may run: a budget
/// stop while the session's ledger still allows a call, or a timeout before the run's wall
/// clock.
fn own_limit(stop: &Stop, session: &Session<'_>) -> bool {
    match stop {
        Stop::Budget(_) => session.ledger.check().is_ok(),
        Stop::Timeout(_) => session.check_time().is_ok(),
        Stop::Failed(_) | Stop::Unusable(_) | Stop::ToolsRefused(_) => false,
    }
}

/// `report` as stage `stage` sees it: its own section in `details`.
fn view(report: &RepairReport, stage: &StageRecord) -> RepairReport {
    let mut view = report.clone();
    view.details = stage.details.clone();
    view
}

/// The sum of `costs`, 0 for none; `None` when one is unknown.
fn sum(mut costs: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    costs.try_fold(0.0, |total, c| Some(total + c?))
}

/// `n` and `noun`, plural unless `n` is 1 (`1 validation`, `3 LLM calls`).
fn count(n: impl Into<u64>, noun: &str) -> String {
    match n.into() {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

/// `$0.0123`, or `cost unknown`.
fn usd(usd: Option<f64>) -> String {
    usd.map_or_else(|| "cost unknown".into(), |c| format!("${c:.4}"))
}

impl Strategy for Chain {
    fn name(&self) -> &'static str {
        self.name
    }

    /// Whether any stage needs one.
    fn needs_model(&self) -> bool {
        self.stages.iter().any(|s| s.needs_model())
    }

    /// Only when every stage is: a later stage may read the feedback of the candidates.
    fn verdict_only(&self) -> bool {
        self.stages.iter().all(|s| s.verdict_only())
    }

    /// Whether any stage searches.
    fn searches(&self) -> bool {
        self.stages.iter().any(|s| s.searches())
    }

    /// The first stage's; [`Strategy::retrieval_spaces`] gives every stage's.
    fn retrieval_space(&self, configured: engine::Space) -> engine::Space {
        self.stages.first().map_or(configured, |s| s.retrieval_space(configured))
    }

    fn retrieval_spaces(&self, configured: engine::Space) -> Vec<engine::Space> {
        let mut spaces = Vec::new();
        for space in self.stages.iter().flat_map(|s| s.retrieval_spaces(configured)) {
            if !spaces.contains(&space) {
                spaces.push(space);
            }
        }
        spaces
    }

    /// The first model stage's own note, else (a model stage after a model-free one) why
    /// the model is needed from the start.
    fn model_note(&self) -> Option<&'static str> {
        self.note
    }

    fn default_max_calls(&self) -> u64 {
        self.stages.iter().map(|s| s.default_max_calls()).max().unwrap_or(60)
    }

    /// The search space of the first stage that calls a model (ReinFix's is the one the
    /// report's `config` describes), else the first stage's.
    fn search_space(&self) -> SearchSpace {
        let first = self.stages.iter().find(|s| s.needs_model()).or(self.stages.first());
        first.map(|s| s.search_space()).unwrap_or_default()
    }

    fn repair(&self, problem: &Problem, session: &mut Session<'_>) -> Result<(), Stop> {
        let mut record = ChainRecord::default();
        for (i, stage) in self.stages.iter().enumerate() {
            let mark = Mark::of(session);
            session.report.details = Details::default();
            let ended = stage.repair(problem, session);
            let plausible = session.report.patch.is_some();
            let outcome = match (&ended, plausible) {
                (_, true) => (StageOutcome::Plausible, ended.as_ref().err().map(why)),
                (Ok(()), false) => (StageOutcome::Exhausted, None),
                (Err(stop), false) => (StageOutcome::Stopped, Some(why(stop))),
            };
            let mut stage_record = mark.record(session, stage.name(), outcome);
            stage_record.details = std::mem::take(&mut session.report.details);
            record.stages.push(stage_record);
            if plausible {
                record.fixed_by = Some(stage.name());
            }
            session.report.details = Details::new(record.clone());
            let last = i + 1 == self.stages.len();
            match ended {
                _ if plausible => return ended,
                Ok(()) => {}
                Err(stop) if !last && own_limit(&stop, session) => {
                    tracing::info!(stage = stage.name(), why = %why(&stop), "the stage stopped at its own limit; the next stage runs");
                }
                Err(stop) => {
                    record.not_run = self.stages[i + 1..].iter().map(|s| s.name()).collect();
                    session.report.details = Details::new(record);
                    return Err(stop);
                }
            }
        }
        Ok(())
    }

    /// `chain a,b: fixed by b (stage 2 of 2)`, then a line per stage that ran (outcome,
    /// validations, calls, tokens, USD, time), each followed by the stage's own line.
    fn report_line(&self, report: &RepairReport) -> Option<String> {
        let record = report.details.get::<ChainRecord>()?;
        let head = match record.fixed_by {
            Some(name) => {
                let at = record.stages.iter().position(|s| s.strategy == name).map_or(0, |i| i + 1);
                format!("chain {}: fixed by {name} (stage {at} of {})", self.name, self.stages.len())
            }
            None => format!("chain {}: no stage made the bug plausible", self.name),
        };
        let mut lines = vec![head];
        for s in &record.stages {
            let ended = match (&s.outcome, &s.why) {
                (StageOutcome::Stopped, Some(why)) => format!("stopped ({why})"),
                (o, _) => serde_json::to_value(o).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
            };
            lines.push(format!(
                "  {}: {ended}, {}, {}, {}, {}, {:.1} s",
                s.strategy,
                count(s.validations as u64, "validation"),
                count(s.calls, "LLM call"),
                count(s.tokens, "token"),
                usd(s.usd),
                s.wall_s
            ));
            if let Some(own) = self.stage(s.strategy).and_then(|st| st.report_line(&view(report, s))) {
                lines.push(format!("    {own}"));
            }
        }
        if !record.not_run.is_empty() {
            lines.push(format!("  not run: {} (the chain ended at the stop above)", record.not_run.join(", ")));
        }
        Some(lines.join("\n"))
    }

    /// `("chain", {"fixed_by", "stages": [{"strategy", "outcome", "why", "validations",
    /// "calls", "tokens", "usd", "wall_s", and the stage's own part under its key}]})`.
    fn eval_bug(&self, report: &RepairReport) -> Option<(&'static str, Value)> {
        let record = report.details.get::<ChainRecord>()?;
        let stages: Vec<Value> = record
            .stages
            .iter()
            .map(|s| {
                let mut v = json!({
                    "strategy": s.strategy, "outcome": s.outcome, "why": s.why, "validations": s.validations,
                    "calls": s.calls, "tokens": s.tokens, "usd": s.usd, "wall_s": s.wall_s,
                });
                if let Some((key, own)) = self.stage(s.strategy).and_then(|st| st.eval_bug(&view(report, s))) {
                    v[key] = own;
                }
                v
            })
            .collect();
        let mut v = json!({"fixed_by": record.fixed_by, "stages": stages});
        if !record.not_run.is_empty() {
            v["not_run"] = json!(record.not_run);
        }
        Some(("chain", v))
    }

    /// `chain`: `{"bugs", "fixed_by": {stage: bugs}, "stages": [{"strategy", "ran" (bugs it
    /// ran on), "fixed", "validations", "calls", "tokens", "usd" (`null` when a call had no
    /// price), "usd_per_fix" (`null` without a fix), "wall_s", and the stage's own totals
    /// under its key}]}`; the line: `chain a,b: fixed by a 3, b 1 of 10 bugs; a ran on 10
    /// (...), b on 7 (...)`.
    fn eval_totals(&self, bugs: usize, reports: &[&RepairReport]) -> Option<EvalTotals> {
        let records: Vec<(&RepairReport, &ChainRecord)> =
            reports.iter().filter_map(|r| Some((*r, r.details.get::<ChainRecord>()?))).collect();
        let mut fixed_by = serde_json::Map::new();
        let mut stages = Vec::new();
        let mut parts = Vec::new();
        let mut own_lines = Vec::new();
        for stage in self.stages() {
            let ran: Vec<(&RepairReport, &StageRecord)> = records
                .iter()
                .filter_map(|(r, c)| Some((*r, c.stages.iter().find(|s| s.strategy == stage.name())?)))
                .collect();
            let fixed = records.iter().filter(|(_, c)| c.fixed_by == Some(stage.name())).count();
            fixed_by.insert(stage.name().into(), fixed.into());
            let calls: u64 = ran.iter().map(|(_, s)| s.calls).sum();
            let tokens: u64 = ran.iter().map(|(_, s)| s.tokens).sum();
            let cost = sum(ran.iter().map(|(_, s)| s.usd));
            let mut v = json!({
                "strategy": stage.name(), "ran": ran.len(), "fixed": fixed,
                "validations": ran.iter().map(|(_, s)| s.validations).sum::<usize>(),
                "calls": calls, "tokens": tokens, "usd": cost,
                "usd_per_fix": cost.filter(|_| fixed > 0).map(|c| c / fixed as f64),
                "wall_s": ran.iter().map(|(_, s)| s.wall_s).sum::<f64>() + 0.0, // an empty f64 sum is -0.0
            });
            let views: Vec<RepairReport> = ran.iter().map(|(r, s)| view(r, s)).collect();
            if let Some(own) = stage.eval_totals(bugs, &views.iter().collect::<Vec<_>>()) {
                v[own.key] = own.totals;
                own_lines.push(format!("  {}: {}", stage.name(), own.line));
            }
            stages.push(v);
            parts.push(format!(
                "{} on {} ({}, {}, {})",
                stage.name(),
                count(ran.len() as u64, "bug"),
                count(calls, "LLM call"),
                count(tokens, "token"),
                usd(cost)
            ));
        }
        let fixes: Vec<String> =
            self.stages().map(|s| format!("{} {}", s.name(), fixed_by.get(s.name()).unwrap_or(&Value::Null))).collect();
        let mut line =
            format!("chain {}: fixed by {} of {bugs} bugs; ran {}", self.name, fixes.join(", "), parts.join(", "));
        for own in own_lines {
            line.push('\n');
            line.push_str(&own);
        }
        Some(EvalTotals { key: "chain", totals: json!({"bugs": bugs, "fixed_by": fixed_by, "stages": stages}), line })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::error::Error;
    use crate::llm::{Budget, Message, Price, PriceTable, Script, ScriptedClient};
    use crate::patch::{Change, Splice};
    use crate::run::bug::{Bug, Location};
    use crate::run::config::RunConfig;
    use crate::run::report::Outcome;
    use crate::run::session::Place;
    use crate::run::workflow::Workflow;
    use crate::validate::{CommandSpec, Validator};

    /// A stage: `calls` model calls, then the buggy `1` made `to` (`2` fixes the bug), then
    /// `stop` when given; its section names it.
    struct Try {
        name: &'static str,
        to: &'static str,
        calls: usize,
        stop: Option<fn() -> Stop>,
        model: bool,
    }

    fn stage(name: &'static str, to: &'static str) -> Box<dyn Strategy> {
        Box::new(Try { name, to, calls: 0, stop: None, model: false })
    }

    impl Strategy for Try {
        fn name(&self) -> &'static str {
            self.name
        }

        fn needs_model(&self) -> bool {
            self.model
        }

        fn default_max_calls(&self) -> u64 {
            if self.model { 40 } else { 60 }
        }

        fn retrieval_space(&self, configured: engine::Space) -> engine::Space {
            if self.model { configured } else { engine::Space::Code }
        }

        fn repair(&self, problem: &Problem, session: &mut Session<'_>) -> Result<(), Stop> {
            session.report.details = Details::new(json!({"stage": self.name}));
            for _ in 0..self.calls {
                session.sample(session.request(vec![Message::user("fix it")]))?;
            }
            let at = problem.source.find('1').expect("the buggy value");
            let change = Change::Splices(vec![Splice { span: at..at + 1, text: self.to.into() }]);
            let place = Place { attempt: 1, suggestion: 1, choice: 0 };
            let rec = session.validate_patch(problem, place, self.to, &change)?;
            if session.push_candidate(rec) {
                return Ok(());
            }
            self.stop.map_or(Ok(()), |stop| Err(stop()))
        }

        fn report_line(&self, report: &RepairReport) -> Option<String> {
            Some(format!("own line of {}", report.details["stage"].as_str()?))
        }

        fn eval_bug(&self, report: &RepairReport) -> Option<(&'static str, Value)> {
            Some(("own", report.details["stage"].clone()))
        }
    }

    /// A project whose `app.txt` holds `value = 1`; its test wants `value = 2`.
    fn project() -> (tempfile::TempDir, Bug, Validator) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("app.txt"), "value = 1\n").unwrap();
        let bug = Bug {
            id: None,
            root: dir.path().to_path_buf(),
            file: "app.txt".into(),
            location: Location::Lines(1, 1),
            failing_tests: Vec::new(),
        };
        let validator = Validator {
            build: None,
            test: CommandSpec::Shell("grep -q 'value = 2' app.txt".into()),
            timeout: Duration::from_secs(20),
            env: Vec::new(),
            reference: None,
            fail_fast: None,
        };
        (dir, bug, validator)
    }

    /// `stages` chained on the project, with `scripts` as the model's answers and `config`.
    fn run(stages: Vec<Box<dyn Strategy>>, scripts: Vec<Script>, config: RunConfig) -> (RepairReport, usize) {
        let (_dir, bug, validator) = project();
        let client = ScriptedClient::new(scripts);
        let price = Price { input_usd_per_mtok: 1.0, output_usd_per_mtok: 10.0 };
        let prices = PriceTable([("scripted".to_string(), price)].into());
        let report = Workflow::new(&client, None, validator, config)
            .with_strategy(Box::new(Chain::new(stages).unwrap()))
            .with_prices(prices)
            .run(&bug);
        (report, client.requests().len())
    }

    fn answer() -> Script {
        Script::text("an answer").with_usage(1000, 100)
    }

    #[test]
    fn the_first_stage_that_fixes_the_bug_ends_the_chain() {
        let paid = Box::new(Try { name: "paid", to: "2", calls: 1, stop: None, model: true });
        let (report, asked) = run(vec![stage("free", "2"), paid], vec![answer()], RunConfig::default());
        assert_eq!((report.outcome, report.strategy.as_str(), asked), (Outcome::Plausible, "free,paid", 0));
        let d = report.details.json();
        assert_eq!(d["fixed_by"], "free", "{d:#}");
        assert_eq!(d["stages"].as_array().unwrap().len(), 1, "the paid stage never ran: {d:#}");
        let free = &d["stages"][0];
        assert_eq!((free["outcome"].as_str(), free["validations"].as_u64()), (Some("plausible"), Some(1)));
        assert_eq!((free["calls"].as_u64(), free["usd"].as_f64()), (Some(0), Some(0.0)));
        assert_eq!(free["details"], json!({"stage": "free"}), "the stage's own section is kept");
    }

    #[test]
    fn the_next_stage_runs_when_one_finds_nothing_and_each_stage_has_its_cost() {
        let paid = Box::new(Try { name: "paid", to: "2", calls: 1, stop: None, model: true });
        let chain = Chain::new(vec![stage("free", "3"), paid]).unwrap();
        let (report, asked) = run(
            vec![stage("free", "3"), Box::new(Try { name: "paid", to: "2", calls: 1, stop: None, model: true })],
            vec![answer()],
            RunConfig::default(),
        );
        assert_eq!((report.outcome, asked), (Outcome::Plausible, 1), "{report:#?}");
        let d = report.details.json();
        assert_eq!(d["fixed_by"], "paid");
        let (free, paid) = (&d["stages"][0], &d["stages"][1]);
        assert_eq!((free["outcome"].as_str(), free["why"].as_str()), (Some("exhausted"), None));
        assert_eq!((free["validations"].as_u64(), free["calls"].as_u64()), (Some(1), Some(0)));
        assert_eq!(
            (paid["outcome"].as_str(), paid["calls"].as_u64(), paid["tokens"].as_u64()),
            (Some("plausible"), Some(1), Some(1100))
        );
        let usd = paid["usd"].as_f64().unwrap();
        assert!((usd - (1000.0 * 1.0 + 100.0 * 10.0) / 1e6).abs() < 1e-12, "{usd}");
        assert_eq!(paid["details"], json!({"stage": "paid"}));
        assert_eq!(report.llm.calls, 1, "the run's totals are the sum of the stages'");

        let line = chain.report_line(&report).unwrap();
        assert!(line.starts_with("chain free,paid: fixed by paid (stage 2 of 2)\n"), "{line}");
        assert!(line.contains("  free: exhausted, 1 validation, 0 LLM calls, 0 tokens, $0.0000,"), "{line}");
        assert!(line.contains("  paid: plausible, 1 validation, 1 LLM call, 1100 tokens, $0.0020,"), "{line}");
        assert!(line.contains("    own line of paid"), "each stage's own line, from its own section: {line}");
        let (key, bug) = chain.eval_bug(&report).unwrap();
        assert_eq!((key, &bug["fixed_by"], &bug["stages"][1]["own"]), ("chain", &json!("paid"), &json!("paid")));
        let totals = chain.eval_totals(2, &[&report]).unwrap();
        assert_eq!(totals.totals["fixed_by"], json!({"free": 0, "paid": 1}));
        assert_eq!(totals.totals["stages"][1]["usd_per_fix"].as_f64(), Some(usd));
        assert!(
            totals
                .line
                .starts_with("chain free,paid: fixed by free 0, paid 1 of 2 bugs; ran free on 1 bug (0 LLM calls"),
            "{}",
            totals.line
        );
    }

    #[test]
    fn a_stage_stopped_by_its_own_budget_or_clock_passes_on() {
        let budget: fn() -> Stop = || Stop::Budget(Error::ValidationBudget { limit: 1 });
        let clock: fn() -> Stop = || Stop::Timeout(Error::WallClock { limit_s: 600 });
        for stop in [budget, clock] {
            let first = Box::new(Try { name: "first", to: "3", calls: 0, stop: Some(stop), model: false });
            let (report, _) = run(vec![first, stage("second", "2")], Vec::new(), RunConfig::default());
            assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
            let d = report.details.json();
            assert_eq!((d["stages"][0]["outcome"].as_str(), d["fixed_by"].as_str()), (Some("stopped"), Some("second")));
            assert!(d["stages"][0]["why"].as_str().is_some_and(|w| !w.is_empty()), "{d:#}");
        }
        // The last stage's own stop ends the run as it would alone.
        let last = Box::new(Try { name: "last", to: "4", calls: 0, stop: Some(budget), model: false });
        let (report, _) = run(vec![stage("first", "3"), last], Vec::new(), RunConfig::default());
        assert_eq!(report.outcome, Outcome::BudgetExhausted, "{report:#?}");
        assert_eq!(report.details["stages"][1]["outcome"], "stopped");
    }

    #[test]
    fn the_runs_own_budget_ends_the_chain() {
        let config = RunConfig { budget: Budget { max_calls: Some(1), ..Budget::default() }, ..RunConfig::default() };
        let paid = Box::new(Try { name: "paid", to: "3", calls: 2, stop: None, model: true });
        let (report, asked) = run(vec![paid, stage("free", "2")], vec![answer(), answer()], config);
        assert_eq!((report.outcome, asked), (Outcome::BudgetExhausted, 1), "{report:#?}");
        let d = report.details.json();
        assert_eq!(d["stages"].as_array().unwrap().len(), 1, "the next stage did not run: {d:#}");
        assert_eq!((d["stages"][0]["outcome"].as_str(), d["stages"][0]["calls"].as_u64()), (Some("stopped"), Some(1)));
        assert!(d["fixed_by"].is_null());
        // ... and the report says which stage it left unrun.
        assert_eq!(d["not_run"], json!(["free"]), "{d:#}");
        let chain = Chain::new(vec![
            Box::new(Try { name: "paid", to: "3", calls: 2, stop: None, model: true }),
            stage("free", "2"),
        ])
        .unwrap();
        let line = chain.report_line(&report).unwrap();
        assert!(line.ends_with("  not run: free (the chain ended at the stop above)"), "{line}");
    }

    #[test]
    fn a_chain_names_each_stage_once_and_delegates() {
        assert!(Chain::new(vec![stage("a", "2")]).unwrap_err().contains("two strategies or more"));
        let twice = Chain::new(vec![stage("a", "2"), stage("b", "2"), stage("a", "3")]).unwrap_err();
        assert_eq!(twice, "a is named twice: a chain runs each strategy once");
        let paid = Box::new(Try { name: "paid", to: "2", calls: 0, stop: None, model: true });
        let chain = Chain::new(vec![stage("free", "2"), paid]).unwrap();
        assert_eq!(chain.name(), "free,paid");
        assert!(std::ptr::eq(chain.name(), Chain::new(vec![stage("free", "2"), stage("paid", "2")]).unwrap().name()));
        assert!(chain.needs_model());
        assert!(chain.model_note().unwrap().contains("stage 2 (paid) calls a model"), "{:?}", chain.model_note());
        assert_eq!(chain.default_max_calls(), 60);
        assert_eq!(chain.retrieval_spaces(engine::Space::CodeCause), [engine::Space::Code, engine::Space::CodeCause]);
        assert_eq!(chain.retrieval_spaces(engine::Space::Code), [engine::Space::Code]);
        let free = Chain::new(vec![stage("a", "2"), stage("b", "2")]).unwrap();
        assert!(!free.needs_model() && free.model_note().is_none());
    }
}
