//! One Defects4J bug repaired into its folder of a run ([`Repairer::repair`]): set-up and
//! gold check ([`super::Harness::prepare`]; a bug that fails either is `infra`), the
//! location at the chosen [`Localization`], the repair workflow with the bug's own record
//! and project kept out of retrieval, then the folder: `report.json` (the repair report),
//! `fixed/` (the developer's versions of the modified files), `patches/<n>/` (each plausible
//! patch's versions of them, and `patch.diff`), each plausible patch graded
//! ([`crate::bench::keep`]) into the [`BugRecord`] the caller writes last.

use std::path::Path;
use std::time::{Duration, Instant};

use super::validation::{Localization, Prepared};
use super::{BugId, Harness};
use crate::bench::keep;
use crate::bench::record::{BugRecord, FIXED_DIR, Status};
use crate::llm::{ChatClient, PriceTable};
use crate::retrieve::{Exclusion, Retriever};
use crate::run::config::RunConfig;
use crate::run::workflow::Workflow;
use crate::strategies::Strategy;

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
    /// Keep the bug's project's fixes from before the bug in retrieval
    /// ([`super::Harness::history`], [`super::history_ids`]); the rest of the project stays
    /// excluded. Ignored with `own_project`.
    pub own_history: bool,
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
            Err(e) => return infra(rec, e.detail(), started),
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
        let mut exclusion =
            Exclusion { ids: bug.id.iter().cloned().collect(), projects: Vec::new(), keep_ids: Vec::new() };
        if !self.own_project {
            exclusion.projects.push(id.project.clone());
            if self.own_history
                && let Some(r) = &self.retriever
            {
                match own_history(self.harness, &prepared, r) {
                    Ok(ids) => exclusion.keep_ids = ids,
                    Err(e) => return infra(rec, format!("own history: {e}"), started),
                }
            }
        }
        let report = Workflow::new(
            self.client,
            self.retriever.as_ref().map(|r| r.with_exclusion(exclusion)),
            prepared.validator(self.timeout, self.config.candidate_timeout_factor),
            self.config.clone(),
        )
        .with_strategy((self.strategy)())
        .with_weights(weights)
        .with_prices(self.prices.clone())
        .with_scratch_filter(prepared.scratch_filter())
        .run(&bug);
        let _ = std::fs::write(folder.join("report.json"), serde_json::to_string_pretty(&report).unwrap_or_default());
        keep::fill(&mut rec, &report, &prepared.buggy, folder);
        rec.wall_s = started.elapsed().as_secs_f64();
        rec
    }
}

/// The ids of the index's fixes of `p`'s project made before its fix.
fn own_history(harness: &Harness, p: &Prepared, retriever: &Retriever) -> Result<Vec<String>, String> {
    let history = harness.history(&p.meta).map_err(|e| e.detail())?;
    let docs = retriever.project_docs(&p.meta.id.project).map_err(|e| e.to_string())?;
    Ok(super::history_ids(&docs, &history))
}

/// A record of `id` with nothing done yet.
fn blank(id: &BugId, localization: Localization) -> BugRecord {
    BugRecord::blank(&id.to_string(), &id.project, localization.name())
}

fn infra(rec: BugRecord, reason: String, started: Instant) -> BugRecord {
    BugRecord { status: Status::Infra, reason: Some(reason), wall_s: started.elapsed().as_secs_f64(), ..rec }
}

/// Copies the developer's versions of the modified files into `folder/fixed/`.
fn keep_fixed(p: &Prepared, folder: &Path) -> Result<(), String> {
    for file in p.touched.keys() {
        keep::copy(&p.fixed.join(file), &folder.join(FIXED_DIR).join(file))?;
    }
    Ok(())
}
