//! `fixdex eval quixbugs --run-dir DIR`: QuixBugs on the run-folder machinery of
//! `fixdex eval defects4j` ([`repair::bench::batch`], [`repair::bench::keep`]): one folder
//! per program with result.json, report.json, the developer's version under `fixed/` and
//! each plausible patch under `patches/<n>/`, graded exact / AST / needs review; `--resume`,
//! `--retry-failed`, `--jobs`; the summary of [`repair::bench::summary`]; the folder read by
//! `fixdex eval report|compare|merge`. A program is `infra` when it has no developer fix or
//! no buggy method to localize, `error` when its run broke.

use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use repair::bench::quixbugs::{self, GroundTruth, Program, Runner};
use repair::bench::record::{BugRecord, FIXED_DIR, RunRecord, Status};
use repair::bench::{batch, keep};
use repair::retrieve::Exclusion;
use repair::run::bug::{Bug, Location};
use repair::run::workflow::Workflow;

use super::Evaluation;
use super::args::QuixbugsArgs;

/// Runs every program into run folder `dir`; the summary; exit 1 when any ended in error.
pub(super) fn evaluate(
    a: &QuixbugsArgs,
    runner: &Runner,
    truth: &GroundTruth,
    programs: &[Program],
    dir: &Path,
) -> anyhow::Result<ExitCode> {
    let eval = Evaluation::new(a, runner, truth)?;
    let record = run_record(a, &eval, programs, crate::cli::workflow_args::index_content(eval.retriever.as_ref())?);
    let todo = batch::open(dir, &record, a.resume, a.retry_failed)?;
    let skipped = programs.len() - todo.len();
    if skipped > 0 {
        eprintln!("resuming {}: {skipped} of {} programs done, {} to run", dir.display(), programs.len(), todo.len());
    }
    let by_name: HashMap<&str, &Program> = programs.iter().map(|p| (p.name.as_str(), p)).collect();
    let count = AtomicUsize::new(skipped);
    let job = |name: &str, folder: &Path| {
        eprintln!("{name}: started");
        repair_into(&eval, by_name[name], folder)
    };
    let line = |r: &BugRecord| {
        let n = count.fetch_add(1, Ordering::SeqCst) + 1;
        eprintln!("[{n}/{}] {}", programs.len(), crate::cli::defects4j::progress_line(r));
    };
    batch::run_bugs(dir, &todo, a.jobs, job, line)?;
    eval.client.finish(true)?;
    let all = batch::results(dir, &record);
    crate::cli::defects4j::print_summary(a.json, dir, &all)?;
    let errors = all.iter().filter(|r| r.status == Status::Error).count();
    Ok(if errors > 0 { ExitCode::from(crate::cli::exit::ERROR) } else { ExitCode::SUCCESS })
}

/// `run.json` of this run: every setting that changes a number, and what the index holds
/// (`index_content`, [`crate::cli::workflow_args::index_content`]).
fn run_record(a: &QuixbugsArgs, eval: &Evaluation<'_>, programs: &[Program], index: Option<String>) -> RunRecord {
    let mut settings = a.strategy.options(crate::cli::workflow_args::NOT_SETTINGS);
    if let Some(content) = index {
        settings["index_content"] = content.into();
    }
    RunRecord {
        benchmark: "quixbugs".into(),
        fixdex_version: env!("CARGO_PKG_VERSION").into(),
        started_unix: SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()),
        strategy: eval.strategy.name().into(),
        localization: a.localization.name().into(),
        model: eval.strategy.needs_model().then(|| eval.client.model.clone()),
        seed: a.llm.seed.unwrap_or(0),
        shard: None,
        bugs: programs.iter().map(|p| p.name.clone()).collect(),
        settings,
    }
}

/// One program repaired into `folder`: the developer's version kept, localization, the
/// workflow, the report and the graded patches. Never fails: see the module's classes.
fn repair_into(eval: &Evaluation<'_>, p: &Program, folder: &Path) -> BugRecord {
    let started = Instant::now();
    let lang = eval.runner.lang.as_str();
    let mut rec = BugRecord::blank(&p.name, lang, eval.a.localization.name());
    rec.modified_files = vec![p.source.to_string_lossy().into_owned()];
    let infra = |mut rec: BugRecord, why: String| {
        rec.reason = Some(why);
        rec.wall_s = started.elapsed().as_secs_f64();
        rec
    };
    if let Err(e) = quixbugs::keep_developer_version(eval.truth, p, &eval.a.root, &folder.join(FIXED_DIR)) {
        return infra(rec, e);
    }
    let (method, weights) = match eval.localize(p) {
        Ok(found) => found,
        Err(why) => return infra(rec, format!("localization failed: {why}")),
    };
    let id = eval.truth.id(p).map(str::to_string);
    let exclusion =
        Exclusion { ids: id.iter().cloned().collect(), projects: vec!["QuixBugs".into()], keep_ids: Vec::new() };
    let bug = Bug {
        id,
        root: eval.a.root.clone(),
        file: p.source.clone(),
        location: Location::Method(method),
        failing_tests: Vec::new(),
    };
    let strategy = match eval.a.strategy.strategy() {
        Ok(s) => s,
        Err(e) => return BugRecord { status: Status::Error, ..infra(rec, e.to_string()) },
    };
    let report = Workflow::new(
        eval.client.get(),
        eval.retriever.as_ref().map(|r| r.with_exclusion(exclusion)),
        eval.runner.repair_validator(p, eval.config.candidate_timeout_factor),
        eval.config.clone(),
    )
    .with_strategy(strategy)
    .with_weights(weights)
    .with_prices(eval.a.llm.prices(&eval.client.model))
    .with_scratch_filter(quixbugs::scratch_filter(eval.runner.lang))
    .run(&bug);
    let _ = std::fs::write(folder.join("report.json"), serde_json::to_string_pretty(&report).unwrap_or_default());
    keep::fill(&mut rec, &report, &eval.a.root, folder);
    rec.wall_s = started.elapsed().as_secs_f64();
    rec
}
