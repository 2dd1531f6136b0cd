//! What a benchmark run keeps of one bug's repair, whatever the benchmark: the repair
//! report's numbers in the bug's [`BugRecord`] ([`fill`]), and every plausible patch as the
//! patched versions of the bug's modified files under `patches/<n>/` (with `patch.diff`),
//! graded against the developer's versions the harness put under `fixed/`
//! ([`crate::bench::grade::grade_folder`]). Defects4J and QuixBugs runs both end here.

use std::path::Path;

use crate::bench::grade;
use crate::bench::record::{BugRecord, PatchRecord, StageCost, Status, Tier};
use crate::run::report::{Outcome, RepairReport};
use crate::validate::Verdict;

/// Copies file `from` to `to`, making `to`'s folder.
///
/// # Errors
/// What failed, naming both paths.
pub fn copy(from: &Path, to: &Path) -> Result<(), String> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::copy(from, to).map(|_| ()).map_err(|e| format!("copying {} to {}: {e}", from.display(), to.display()))
}

/// Sets `rec` from the repair `report`: outcome and status (`preflight_failed`, the buggy
/// version not failing in a scratch copy, is `infra`; `error` is `error`; anything else
/// finished), LLM calls, tokens and cost (per stage, and the stage that fixed it, for a
/// chain, [`crate::strategies::chain::ChainRecord`]), validations and their median time, and every
/// plausible patch kept under `folder/patches/<n>/` (from the buggy files under
/// `buggy_root`, `rec.modified_files` relative to it) and graded; with `--all` and a model,
/// the sampled counts of plausible@k. `rec.modified_files` must
/// be set and their developer versions be under `folder/fixed/`.
pub fn fill(rec: &mut BugRecord, report: &RepairReport, buggy_root: &Path, folder: &Path) {
    rec.outcome = Some(crate::bench::evaluation::outcome_name(Some(report.outcome)));
    rec.status = match report.outcome {
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
    if let Some(chain) = report.details.get::<crate::strategies::chain::ChainRecord>() {
        rec.fixed_by = chain.fixed_by.map(str::to_string);
        rec.stages = chain.stages.iter().map(StageCost::of).collect();
    }
    let validated: Vec<_> = report.candidates.iter().filter(|c| c.verdict.validated()).collect();
    rec.validations = validated.len();
    rec.validation_median_s =
        crate::bench::summary::median(validated.iter().map(|c| c.wall_ms as f64 / 1000.0).collect());
    for (i, c) in validated.iter().enumerate() {
        let (Verdict::Plausible, Some(diff)) = (c.verdict, &c.applied_diff) else { continue };
        let n = rec.patches.len() + 1;
        let dir = format!("patches/{n}");
        let tier = keep_patch(&rec.modified_files, buggy_root, diff, folder, &dir).ok();
        rec.patches.push(PatchRecord {
            diff: diff.clone(),
            tier,
            validation: i + 1,
            at_s: c.at_ms as f64 / 1000.0,
            files: dir,
        });
    }
    rec.plausible = !rec.patches.is_empty();
    rec.best_tier = grade::best(rec.patches.iter().filter_map(|p| p.tier));
    if rec.plausible && rec.best_tier.is_none() {
        rec.best_tier = Some(Tier::NeedsReview);
    }
    // plausible@k / correct@k: a model's patches validated to the end (`--all`) are a sample
    // of its distribution; stopping at the first plausible one, or a deterministic
    // enumeration (no model calls), is not.
    if report.config.collect_all && report.llm.calls > 0 {
        rec.sampled = rec.validations;
        rec.sampled_plausible = rec.patches.len();
        rec.sampled_correct = rec.patches.iter().filter(|p| p.tier.is_some_and(Tier::correct)).count();
    }
    if let Some(first) = rec.patches.first() {
        rec.first_plausible_validation = Some(first.validation);
        rec.first_plausible_s = Some(first.at_s);
    }
}

/// Writes the patched versions of `modified` into `folder/dir` (and `patch.diff`), and
/// grades them against the developer's versions in `folder/fixed/`.
fn keep_patch(modified: &[String], buggy_root: &Path, diff: &str, folder: &Path, dir: &str) -> Result<Tier, String> {
    let out = folder.join(dir);
    for file in modified {
        copy(&buggy_root.join(file), &out.join(file))?;
    }
    let patch = crate::patch::Patch::parse(diff, None).map_err(|e| e.to_string())?;
    patch.apply(&out).map_err(|e| e.to_string())?;
    std::fs::write(out.join("patch.diff"), diff).map_err(|e| e.to_string())?;
    grade::grade_folder(folder, dir, modified)
}
