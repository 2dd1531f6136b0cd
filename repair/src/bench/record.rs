//! What a benchmark run keeps on disk, and how it is read back: a run folder (`--run-dir`)
//! holds `run.json` ([`RunRecord`]: every setting, the fixdex version, the model, the seed)
//! and one folder per bug, `bugs/<id>/`, with `result.json` ([`BugRecord`]), the repair
//! report, the patches and the logs.
//!
//! A bug is *done* when its `result.json` says so ([`BugRecord::done`]), never because a log
//! or folder exists: `--resume` redoes every other bug, and `result.json` is written last, by
//! rename, so a run killed mid-bug leaves that bug not done (the practice SWE-bench's and
//! OpenHands' harnesses converged on after runs were judged from log files).
//!
//! The classes keep infrastructure apart from repair (issue 31): `infra` is a bug the
//! benchmark could not set up or whose gold check failed (never counted as unfixed), `error`
//! a repair run the machinery or the endpoint broke (retried by `--retry-failed`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The name of a run's settings file inside a run folder.
pub const RUN_FILE: &str = "run.json";
/// The name of a bug's result file inside its folder.
pub const RESULT_FILE: &str = "result.json";
/// The folder of the bug folders inside a run folder.
pub const BUGS_DIR: &str = "bugs";
/// The folder, inside a bug's folder, of the developer's versions of the modified files.
pub const FIXED_DIR: &str = "fixed";

/// A run's settings (`run.json`): what a reader needs to know the numbers came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The benchmark: `defects4j` or `quixbugs`.
    pub benchmark: String,
    /// fixdex's version (`CARGO_PKG_VERSION`) that made the run.
    pub fixdex_version: String,
    /// When the run was started, seconds since the Unix epoch.
    pub started_unix: u64,
    /// The strategy's registered name.
    pub strategy: String,
    /// The fault localization every bug was given: `perfect`, `method`, `file` or `sbfl`.
    pub localization: String,
    /// The model id, `None` for a strategy that needs none.
    pub model: Option<String>,
    /// The seed of every sampled choice of the run.
    pub seed: u64,
    /// This folder's shard, `(index, count)` 0-based, when the run was sharded.
    pub shard: Option<(u32, u32)>,
    /// The bugs of the run (this shard's), in order.
    pub bugs: Vec<String>,
    /// Every other setting, by flag name (budgets, retrieval, jars, ...).
    pub settings: serde_json::Value,
}

/// How far a bug got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The repair workflow went through: a plausible patch, or none within the budget.
    Finished,
    /// The benchmark could not set the bug up (checkout, build, gold check, localization):
    /// not a repair failure; `--resume` does not retry it (the same inputs fail the same way),
    /// `--retry-failed` does.
    Infra,
    /// The repair run broke (endpoint, machinery); retried by `--resume` and `--retry-failed`.
    Error,
}

/// How close a plausible patch is to the developer's fix (RepairBench's tiers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Equal to the developer's fix after whitespace and comment normalisation: correct.
    Exact,
    /// Equal syntax trees (tree-sitter), not equal text: correct.
    Ast,
    /// Plausible and matching neither: a human must judge it.
    NeedsReview,
}

impl Tier {
    /// Whether patches of this tier count as correct (exact and AST matches only).
    #[must_use]
    pub fn correct(self) -> bool {
        matches!(self, Tier::Exact | Tier::Ast)
    }

    /// The name in files and tables: `exact`, `ast`, `needs_review`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Exact => "exact",
            Tier::Ast => "ast",
            Tier::NeedsReview => "needs_review",
        }
    }
}

/// One plausible patch of a bug.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PatchRecord {
    /// The patch as a unified diff against the buggy version.
    pub diff: String,
    /// Its grade; `None` until graded (a developer fix that could not be read).
    pub tier: Option<Tier>,
    /// Which validation of the bug found it, 1-based.
    pub validation: usize,
    /// Seconds from the bug's start to this patch's verdict.
    pub at_s: f64,
    /// The folder, relative to the bug's folder, holding the patched versions of the
    /// bug's modified files (`patches/1/src/java/...`), what grading compares.
    pub files: String,
}

/// A bug's result (`bugs/<id>/result.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BugRecord {
    /// The bug's id, `Project-N` (Defects4J) or the program's name (QuixBugs).
    pub bug: String,
    /// The project (`Cli`), or the benchmark's language for QuixBugs (`java`).
    pub project: String,
    /// How far it got.
    pub status: Status,
    /// The source files the developer's fix modifies, relative to the project root; their
    /// fixed versions are kept under [`FIXED_DIR`] in the bug's folder (what grading
    /// compares a patch with, [`crate::bench::grade`]).
    pub modified_files: Vec<String>,
    /// The repair report's outcome (snake_case), when the workflow ran.
    pub outcome: Option<String>,
    /// Why the bug is `infra` or `error`: the failed step and what to do.
    pub reason: Option<String>,
    /// The fault localization it was given and what it located (`perfect: Foo.java:10-12`).
    pub localization: String,
    /// Whether any patch was plausible.
    pub plausible: bool,
    /// The best tier among the plausible patches (`Exact` best).
    pub best_tier: Option<Tier>,
    /// The plausible patches, in the order found.
    pub patches: Vec<PatchRecord>,
    /// Candidate validations run (compiles and test runs of candidates).
    pub validations: usize,
    /// Median wall time of one validation, seconds.
    pub validation_median_s: Option<f64>,
    /// Validations up to and including the first plausible patch.
    pub first_plausible_validation: Option<usize>,
    /// Seconds from the bug's start to its first plausible patch.
    pub first_plausible_s: Option<f64>,
    /// Patches sampled (for plausible@k; 0 when the strategy samples none).
    pub sampled: usize,
    /// Of those, how many were plausible.
    pub sampled_plausible: usize,
    /// Of those, how many were correct (exact or AST).
    pub sampled_correct: usize,
    /// LLM calls.
    pub calls: u64,
    /// LLM tokens (prompt + completion).
    pub tokens: u64,
    /// Cost in USD, when prices were given (`null` also for a bug without LLM calls:
    /// [`crate::bench::summary::Summary`] counts those as 0).
    pub cost_usd: Option<f64>,
    /// Wall time of the bug, seconds (set-up and repair).
    pub wall_s: f64,
    /// The stage of a chain (`--strategy patterns,reinfix`, [`crate::strategies::chain`])
    /// that made the bug plausible; absent for a single strategy and when no stage did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed_by: Option<String>,
    /// What each stage of a chain that ran did and cost, in order; absent for a single
    /// strategy.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stages: Vec<StageCost>,
}

/// One stage of a chain on one bug ([`BugRecord::stages`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageCost {
    /// The stage's strategy name.
    pub strategy: String,
    /// `plausible`, `exhausted` or `stopped` ([`crate::strategies::chain::StageOutcome`]).
    pub outcome: String,
    /// Candidates it built and tested.
    pub validations: usize,
    /// LLM calls it made.
    pub calls: u64,
    /// LLM tokens of those calls (prompt + completion).
    pub tokens: u64,
    /// Their cost in USD: 0 for no calls, `None` when one had no price.
    pub cost_usd: Option<f64>,
    /// Its wall time, seconds.
    pub wall_s: f64,
}

impl StageCost {
    /// The record of `stage`, a stage of a chain's report.
    #[must_use]
    pub fn of(stage: &crate::strategies::chain::StageRecord) -> StageCost {
        StageCost {
            strategy: stage.strategy.to_string(),
            outcome: serde_json::to_value(stage.outcome)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            validations: stage.validations,
            calls: stage.calls,
            tokens: stage.tokens,
            cost_usd: stage.usd,
            wall_s: stage.wall_s,
        }
    }
}

impl BugRecord {
    /// A record of bug `bug` of `project` with nothing done yet (status `infra` until the
    /// repair runs: a bug that stops before that could not be set up), localization named
    /// `localization`.
    #[must_use]
    pub fn blank(bug: &str, project: &str, localization: &str) -> BugRecord {
        BugRecord {
            bug: bug.to_string(),
            project: project.to_string(),
            status: Status::Infra,
            modified_files: Vec::new(),
            outcome: None,
            reason: None,
            localization: localization.to_string(),
            plausible: false,
            best_tier: None,
            patches: Vec::new(),
            validations: 0,
            validation_median_s: None,
            first_plausible_validation: None,
            first_plausible_s: None,
            sampled: 0,
            sampled_plausible: 0,
            sampled_correct: 0,
            calls: 0,
            tokens: 0,
            cost_usd: None,
            wall_s: 0.0,
            fixed_by: None,
            stages: Vec::new(),
        }
    }

    /// Whether `--resume` leaves this bug alone: finished, or `infra` (whose inputs would
    /// fail the same way; `--retry-failed` retries both `infra` and `error`).
    #[must_use]
    pub fn done(&self, retry_failed: bool) -> bool {
        match self.status {
            Status::Finished => true,
            Status::Infra => !retry_failed,
            Status::Error => false,
        }
    }
}

/// The folder of bug `id` inside run folder `run`.
#[must_use]
pub fn bug_dir(run: &Path, id: &str) -> PathBuf {
    run.join(BUGS_DIR).join(id)
}
