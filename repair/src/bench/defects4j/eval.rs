//! One Defects4J bug repaired into its folder of a run ([`Repairer::repair`]): set-up and
//! gold check ([`super::Harness::prepare`]; a bug that fails either is `infra`), the
//! location at the chosen [`Localization`], the repair workflow with the bug's own record
//! and project kept out of retrieval, then the folder: `report.json` (the repair report),
//! `fixed/` (the developer's versions of the modified files), `patches/<n>/` (each plausible
//! patch's versions of them, and `patch.diff`), each plausible patch graded
//! ([`crate::bench::grade`]) into the [`BugRecord`] the caller writes last.

use std::path::Path;
use std::time::{Duration, Instant};

use super::validation::{Localization, Prepared};
use super::{BugId, Harness};
use crate::bench::grade;
use crate::bench::record::{BugRecord, FIXED_DIR, PatchRecord, Status, Tier};
use crate::llm::{ChatClient, PriceTable};
use crate::retrieve::{Exclusion, Retriever};
use crate::run::config::RunConfig;
use crate::run::report::{Outcome, RepairReport};
use crate::run::workflow::Workflow;
use crate::strategies::Strategy;
use crate::validate::Verdict;

/// What every bug of a run shares.
pub struct Repairer<'a> {
    /// The harness (inputs, work folder).
    pub harness: &'a Harness,
    /// The chat client (`llm::NoModel` for a strategy without a model).
    pub client: &'a dyn ChatClient,
    /// The retriever, without exclusions (each bug adds its own).
    pub retriever: Option<Retriever>,
    /// The run's knobs (budgets, limits).
    pub config: RunConfig,
    /// Prices for the cost accounting.
    pub prices: PriceTable,
    /// Builds the strategy for one bug.
    pub strategy: &'a (dyn Fn() -> Box<dyn Strategy> + Sync),
    /// The fault localization every bug gets.
    pub localization: Localization,
    /// Wall-clock limit of one candidate command before it is adapted
    /// ([`crate::validate::Validator::adapted`]).
    pub timeout: Duration,
    /// Keep the bug's own project in retrieval (default: excluded, with the bug's record).
    pub own_project: bool,
}

impl std::fmt::Debug for Repairer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repairer")
            .field("harness", self.harness)
            .field("client", &self.client.describe())
            .field("localization", &self.localization)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Repairer<'_> {
    /// Repairs `id` into `folder` (made and empty) and returns its record; never fails: a
    /// set-up failure is an `infra` record, a failed run an `error` one.
    pub fn repair(&self, id: &BugId, folder: &Path) -> BugRecord {
        let started = Instant::now();
        let mut rec = blank(id, self.localization);
        let prepared = match self.harness.prepare(id) {
            Ok(p) => p,
            Err(e) => return infra(rec, e.to_string(), started),
        };
        rec.modified_files = prepared.touched.keys().cloned().collect();
        if !prepared.check.passed {
            let why = prepared.check.reason.clone().unwrap_or_default();
            return infra(rec, format!("gold check failed: {why}"), started);
        }
        if let Err(e) = keep_fixed(&prepared, folder) {
            return infra(rec, e, started);
        }
        let (bug, weights, located) = match prepared.bug(self.localization, self.timeout) {
            Ok(found) => found,
            Err(e) => return infra(rec, format!("localization failed: {e}"), started),
        };
        rec.localization = located;
        let mut exclusion = Exclusion { ids: bug.id.iter().cloned().collect(), projects: Vec::new() };
        if !self.own_project {
            exclusion.projects.push(id.project.clone());
        }
        let report = Workflow::new(
            self.client,
            self.retriever.as_ref().map(|r| r.with_exclusion(exclusion)),
            prepared.validator(self.timeout),
            self.config.clone(),
        )
        .with_strategy((self.strategy)())
        .with_weights(weights)
        .with_prices(self.prices.clone())
        .with_scratch_filter(prepared.scratch_filter())
        .run(&bug);
        let _ = std::fs::write(folder.join("report.json"), serde_json::to_string_pretty(&report).unwrap_or_default());
        fill(&mut rec, &report, &prepared, folder);
        rec.wall_s = started.elapsed().as_secs_f64();
        rec
    }
}

/// A record of `id` with nothing done yet.
fn blank(id: &BugId, localization: Localization) -> BugRecord {
    BugRecord {
        bug: id.to_string(),
        project: id.project.clone(),
        status: Status::Infra,
        modified_files: Vec::new(),
        outcome: None,
        reason: None,
        localization: localization.name().to_string(),
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
    }
}

fn infra(rec: BugRecord, reason: String, started: Instant) -> BugRecord {
    BugRecord { status: Status::Infra, reason: Some(reason), wall_s: started.elapsed().as_secs_f64(), ..rec }
}

/// Copies the developer's versions of the modified files into `folder/fixed/`.
fn keep_fixed(p: &Prepared, folder: &Path) -> Result<(), String> {
    for file in p.touched.keys() {
        copy(&p.fixed.join(file), &folder.join(FIXED_DIR).join(file))?;
    }
    Ok(())
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::copy(from, to).map(|_| ()).map_err(|e| format!("copying {} to {}: {e}", from.display(), to.display()))
}

/// The report's outcome, counts, costs and plausible patches (kept and graded) in `rec`.
fn fill(rec: &mut BugRecord, report: &RepairReport, p: &Prepared, folder: &Path) {
    rec.outcome = Some(crate::bench::evaluation::outcome_name(Some(report.outcome)));
    rec.status = match report.outcome {
        // The buggy version did not fail in a scratch copy as in the gold check: set-up.
        Outcome::PreflightFailed => Status::Infra,
        Outcome::Error => Status::Error,
        _ => Status::Finished,
    };
    if rec.status != Status::Finished {
        rec.reason = Some(report.error.clone().unwrap_or_else(|| format!("the run ended as {:?}", report.outcome)));
    }
    rec.calls = report.llm.calls;
    rec.tokens = report.llm.tokens();
    rec.cost_usd = report.llm.cost_usd;
    let validated: Vec<_> = report.candidates.iter().filter(|c| is_validation(c.verdict)).collect();
    rec.validations = validated.len();
    let mut times: Vec<f64> = validated.iter().map(|c| c.wall_ms as f64 / 1000.0).collect();
    times.sort_by(f64::total_cmp);
    rec.validation_median_s = (!times.is_empty()).then(|| times[times.len() / 2]);
    for (i, c) in validated.iter().enumerate() {
        let (Verdict::Plausible, Some(diff)) = (c.verdict, &c.applied_diff) else { continue };
        let n = rec.patches.len() + 1;
        let dir = format!("patches/{n}");
        let tier = keep_patch(p, diff, &folder.join(&dir)).ok();
        rec.patches.push(PatchRecord {
            diff: diff.clone(),
            tier,
            validation: i + 1,
            at_s: c.at_ms as f64 / 1000.0,
            files: dir,
        });
    }
    rec.plausible = !rec.patches.is_empty();
    rec.best_tier = rec.patches.iter().filter_map(|p| p.tier).min();
    if let Some(first) = rec.patches.first() {
        rec.first_plausible_validation = Some(first.validation);
        rec.first_plausible_s = Some(first.at_s);
    }
}

/// Whether a candidate of this verdict cost a validation (was compiled and tested).
fn is_validation(v: Verdict) -> bool {
    matches!(v, Verdict::Plausible | Verdict::TestFailure | Verdict::CompileError | Verdict::Timeout)
}

/// Writes the patched versions of `p`'s modified files into `dir` (and `patch.diff`), and
/// grades them against the developer's versions.
fn keep_patch(p: &Prepared, diff: &str, dir: &Path) -> Result<Tier, String> {
    for file in p.touched.keys() {
        copy(&p.buggy.join(file), &dir.join(file))?;
    }
    let patch = crate::patch::Patch::parse(diff, None).map_err(|e| e.to_string())?;
    patch.apply(dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("patch.diff"), diff).map_err(|e| e.to_string())?;
    let bug = dir.parent().and_then(Path::parent).ok_or("a patch folder is bug/patches/<n>")?;
    let rel = dir.strip_prefix(bug).map_err(|e| e.to_string())?.to_string_lossy().into_owned();
    grade::grade_folder(bug, &rel, &p.touched.keys().cloned().collect::<Vec<_>>())
}
