//! The summary of the repair workflow run over many bugs (`fixdex eval quixbugs`,
//! any strategy): per bug the outcome and, when the run ended in an error, the error's message; and
//! counts that keep errors apart from "no plausible patch" (issue 9, fault 8: a benchmark whose
//! every run failed on a broken endpoint must not read like one the model could not fix).
//!
//! Each bug falls in one [`Class`]:
//!
//! | class | outcomes |
//! | --- | --- |
//! | `plausible` | [`Outcome::Plausible`] |
//! | `no_plausible` | [`Outcome::NoPlausiblePatch`], [`Outcome::BudgetExhausted`], [`Outcome::Timeout`] |
//! | `error` | [`Outcome::Error`], [`Outcome::PreflightFailed`], and a bug whose localization failed (no outcome) |
//! | `trace_only` | [`Outcome::TraceOnly`]: no patch was sought (a strategy that only collects, e.g. a trace) |
//!
//! Each strategy adds its own part per bug and its totals
//! ([`crate::strategies::Strategy::eval_bug`], [`crate::strategies::Strategy::eval_totals`]).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::run::report::{Outcome, RepairReport};
use crate::strategies::EvalTotals;

/// What a bug's run amounts to in the summary (module docs: the table of outcomes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// A plausible patch was found.
    Plausible,
    /// The workflow ran and found none (search space, budget or wall time exhausted).
    NoPlausible,
    /// The run could not do its work: an error of the machinery or the endpoint, a failed
    /// pre-flight, or no location to repair.
    Error,
    /// No patch was sought ([`Outcome::TraceOnly`]).
    TraceOnly,
}

/// One bug of an evaluation; serialized as one entry of `programs` in the `--json` summary.
#[derive(Debug, Default, Clone, Serialize)]
pub struct BugResult {
    /// Program (bug) name.
    pub program: String,
    /// How the workflow ended (snake_case); `None` when it did not run (localization failed).
    pub outcome: Option<Outcome>,
    /// Why the run ended in [`Class::Error`]: the report's error, or the localization error;
    /// `None` for the other classes.
    pub error: Option<String>,
    /// The method given to the workflow.
    pub localization: Option<String>,
    /// Why no method could be given (SBFL failed or ranked nothing, no ground-truth method).
    pub localization_error: Option<String>,
    /// The root cause the model gave, if any.
    pub root_cause: Option<String>,
    /// Candidate patches validated.
    pub candidates: usize,
    /// LLM calls made.
    pub calls: u64,
    /// LLM tokens used (prompt + completion).
    pub tokens: u64,
    /// Cost in USD, when prices were given.
    pub cost_usd: Option<f64>,
    /// Wall time of the run, seconds.
    pub wall_s: f64,
    /// The first plausible patch (unified diff).
    pub patch: Option<String>,
    /// The strategy's own part, by key (e.g. `probes`, `levels`;
    /// [`BugResult::with_section`]), serialized beside the fields above.
    #[serde(flatten)]
    pub sections: BTreeMap<&'static str, serde_json::Value>,
}

impl BugResult {
    /// The result of a workflow run on `program`, localized at `method`.
    pub fn from_report(program: &str, method: &str, report: &RepairReport) -> Self {
        let mut bug = BugResult {
            program: program.to_string(),
            outcome: Some(report.outcome),
            localization: Some(method.to_string()),
            root_cause: report.root_cause.clone(),
            candidates: report.candidates.len(),
            calls: report.llm.calls,
            tokens: report.llm.tokens(),
            cost_usd: report.llm.cost_usd,
            wall_s: report.wall_s,
            patch: report.patch.clone(),
            ..BugResult::default()
        };
        if bug.class() == Class::Error {
            bug.error = Some(report.error.clone().unwrap_or_else(|| format!("the run ended as {:?}", report.outcome)));
        }
        bug
    }

    /// The result with the strategy's part `section` (`(key, value)`, from
    /// [`crate::strategies::Strategy::eval_bug`]), when it has one.
    #[must_use]
    pub fn with_section(mut self, section: Option<(&'static str, serde_json::Value)>) -> Self {
        self.sections.extend(section);
        self
    }

    /// A bug the workflow was not run on because localization failed with `why`.
    pub fn localization_failed(program: &str, why: String) -> Self {
        BugResult {
            program: program.to_string(),
            error: Some(format!("localization failed: {why}")),
            localization_error: Some(why),
            ..BugResult::default()
        }
    }

    /// The bug's class (module docs).
    pub fn class(&self) -> Class {
        match self.outcome {
            Some(Outcome::Plausible) => Class::Plausible,
            Some(Outcome::NoPlausiblePatch | Outcome::BudgetExhausted | Outcome::Timeout) => Class::NoPlausible,
            Some(Outcome::Error | Outcome::PreflightFailed) | None => Class::Error,
            Some(Outcome::TraceOnly) => Class::TraceOnly,
        }
    }
}

/// Counts over the bugs of an evaluation; serialized into the `--json` summary.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Bugs in the evaluation.
    pub total: usize,
    /// Bugs of [`Class::Plausible`].
    pub plausible: usize,
    /// Bugs of [`Class::NoPlausible`].
    pub no_plausible: usize,
    /// Bugs of [`Class::Error`].
    pub errors: usize,
    /// Bugs of [`Class::TraceOnly`].
    pub trace_only: usize,
    /// Bugs per outcome (`plausible`, `no_plausible_patch`, `budget_exhausted`, `timeout`,
    /// `preflight_failed`, `error`, and `localization_failed` for bugs never run).
    pub outcomes: BTreeMap<String, usize>,
}

/// What an evaluation ran with, for its summary ([`summary`]).
#[derive(Debug, Clone)]
pub struct RunInfo {
    /// The benchmark's language.
    pub lang: crate::Language,
    /// The strategy's name.
    pub strategy: &'static str,
    /// How the bugs were localized (`perfect`, `sbfl`).
    pub localization: &'static str,
    /// The chat client.
    pub client: crate::llm::ClientInfo,
    /// Whether the client's answers are synthetic (not repair results).
    pub synthetic: bool,
    /// Wall time of the whole evaluation, seconds.
    pub wall_s: f64,
}

/// What the LLM calls of an evaluation cost ([`Costs::of`]): in all, per bug that ran and
/// per plausible bug (the calls of the bugs left unfixed included).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Costs {
    /// LLM calls over all bugs.
    pub calls: u64,
    /// LLM tokens (prompt + completion) over all bugs.
    pub tokens: u64,
    /// Cost in USD over all bugs, when every bug that ran had a known cost (a bug without
    /// calls costs 0); `None` otherwise.
    pub cost_usd: Option<f64>,
    /// `calls / bugs that ran`; `None` when none ran.
    pub calls_per_bug: Option<f64>,
    /// `tokens / bugs that ran`.
    pub tokens_per_bug: Option<f64>,
    /// `cost_usd / bugs that ran`.
    pub cost_usd_per_bug: Option<f64>,
    /// `calls / plausible bugs`; `None` without a plausible bug.
    pub calls_per_plausible: Option<f64>,
    /// `tokens / plausible bugs`.
    pub tokens_per_plausible: Option<f64>,
    /// `cost_usd / plausible bugs`.
    pub cost_usd_per_plausible: Option<f64>,
}

impl Costs {
    /// The costs of `bugs` (a bug ran when it has an outcome: localization succeeded).
    #[must_use]
    pub fn of(bugs: &[BugResult]) -> Costs {
        let ran: Vec<&BugResult> = bugs.iter().filter(|b| b.outcome.is_some()).collect();
        let plausible = bugs.iter().filter(|b| b.class() == Class::Plausible).count();
        let calls: u64 = bugs.iter().map(|b| b.calls).sum();
        let tokens: u64 = bugs.iter().map(|b| b.tokens).sum();
        let cost_usd = ran
            .iter()
            .map(|b| b.cost_usd.or((b.calls == 0).then_some(0.0)))
            .try_fold(0.0, |total, c| Some(total + c?))
            .filter(|_| !ran.is_empty());
        let per = |total: f64, n: usize| (n > 0).then(|| total / n as f64);
        Costs {
            calls,
            tokens,
            cost_usd,
            calls_per_bug: per(calls as f64, ran.len()),
            tokens_per_bug: per(tokens as f64, ran.len()),
            cost_usd_per_bug: cost_usd.and_then(|c| per(c, ran.len())),
            calls_per_plausible: per(calls as f64, plausible),
            tokens_per_plausible: per(tokens as f64, plausible),
            cost_usd_per_plausible: cost_usd.and_then(|c| per(c, plausible)),
        }
    }

    /// `LLM: 12 calls, 3400 tokens, $0.0123 ($0.0062 per plausible bug)`.
    #[must_use]
    pub fn line(&self) -> String {
        let cost = self.cost_usd.map_or_else(|| "cost unknown".into(), |c| format!("${c:.4}"));
        let per = self.cost_usd_per_plausible.map(|c| format!(" (${c:.4} per plausible bug)")).unwrap_or_default();
        format!("LLM: {}, {} tokens, {cost}{per}", super::summary::count(self.calls, "call"), self.tokens)
    }
}

/// The evaluation's summary (`fixdex eval quixbugs --json`): the run, the [`Counts`], the
/// calls, tokens and USD of all `bugs` with their means per bug and per plausible bug
/// ([`Costs`]), every bug, and the strategy's `totals` under its key.
#[must_use]
pub fn summary(run: &RunInfo, bugs: &[BugResult], counts: &Counts, totals: Option<&EvalTotals>) -> serde_json::Value {
    let costs = Costs::of(bugs);
    let mut summary = serde_json::json!({
        "lang": run.lang, "strategy": run.strategy,
        "total": counts.total, "plausible": counts.plausible,
        "no_plausible": counts.no_plausible, "errors": counts.errors, "trace_only": counts.trace_only,
        "outcomes": counts.outcomes,
        "calls": costs.calls, "tokens": costs.tokens, "cost_usd": costs.cost_usd,
        "calls_per_bug": costs.calls_per_bug, "tokens_per_bug": costs.tokens_per_bug,
        "cost_usd_per_bug": costs.cost_usd_per_bug, "calls_per_plausible": costs.calls_per_plausible,
        "tokens_per_plausible": costs.tokens_per_plausible, "cost_usd_per_plausible": costs.cost_usd_per_plausible,
        "wall_s": run.wall_s, "synthetic": run.synthetic,
        "client": run.client,
        "localization": run.localization,
        "programs": bugs,
    });
    if let Some(t) = totals {
        summary[t.key] = t.totals.clone();
    }
    summary
}

/// The [`Counts`] of `bugs`.
pub fn count(bugs: &[BugResult]) -> Counts {
    let mut c = Counts { total: bugs.len(), ..Counts::default() };
    for bug in bugs {
        match bug.class() {
            Class::Plausible => c.plausible += 1,
            Class::NoPlausible => c.no_plausible += 1,
            Class::Error => c.errors += 1,
            Class::TraceOnly => c.trace_only += 1,
        }
        *c.outcomes.entry(outcome_name(bug.outcome)).or_default() += 1;
    }
    c
}

/// `outcome` as its snake_case name; `localization_failed` for `None`.
pub fn outcome_name(outcome: Option<Outcome>) -> String {
    outcome.map_or_else(
        || "localization_failed".to_string(),
        |o| serde_json::to_value(o).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bug(outcome: Option<Outcome>) -> BugResult {
        BugResult { outcome, ..BugResult::default() }
    }

    #[test]
    fn errors_are_counted_apart_from_no_plausible_patch() {
        let bugs = [
            bug(Some(Outcome::Plausible)),
            bug(Some(Outcome::NoPlausiblePatch)),
            bug(Some(Outcome::BudgetExhausted)),
            bug(Some(Outcome::Error)),
            bug(Some(Outcome::PreflightFailed)),
            BugResult::localization_failed("X", "SBFL ranked no method".into()),
        ];
        let c = count(&bugs);
        assert_eq!((c.total, c.plausible, c.no_plausible, c.errors), (6, 1, 2, 3));
        assert_eq!(c.outcomes["localization_failed"], 1);
        assert_eq!(c.outcomes["budget_exhausted"], 1);
        assert_eq!(bugs[5].error.as_deref(), Some("localization failed: SBFL ranked no method"));
    }

    #[test]
    fn costs_per_bug_and_per_plausible_bug() {
        let priced =
            |outcome, calls, cost| BugResult { calls, tokens: calls * 10, cost_usd: cost, ..bug(Some(outcome)) };
        let bugs = [
            priced(Outcome::Plausible, 0, None),
            priced(Outcome::Plausible, 2, Some(0.02)),
            priced(Outcome::NoPlausiblePatch, 4, Some(0.04)),
            BugResult::localization_failed("X", "none".into()),
        ];
        let c = Costs::of(&bugs);
        assert_eq!((c.calls, c.tokens, c.calls_per_bug, c.calls_per_plausible), (6, 60, Some(2.0), Some(3.0)));
        assert!((c.cost_usd.unwrap() - 0.06).abs() < 1e-12, "a bug without calls costs 0: {c:?}");
        assert!((c.cost_usd_per_plausible.unwrap() - 0.03).abs() < 1e-12);
        assert_eq!(c.line(), "LLM: 6 calls, 60 tokens, $0.0600 ($0.0300 per plausible bug)");
        let unpriced = Costs::of(&[priced(Outcome::Plausible, 1, None)]);
        assert_eq!((unpriced.cost_usd, unpriced.line().as_str()), (None, "LLM: 1 call, 10 tokens, cost unknown"));
    }
}
