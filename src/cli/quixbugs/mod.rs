//! `fixdex eval quixbugs`: the repair workflow on every QuixBugs program, and with `--check`
//! the benchmark check (repair::bench::quixbugs). `fixdex bench quixbugs --oracle ground-truth|llm`
//! is the deprecated spelling of `--check` and of the evaluation (hidden, kept one release).
//!
//! `--check` checks the machinery without a model: for every program, the buggy version must
//! fail its tests and the developer fix from `quixbugs.jsonl`, applied through the patch path,
//! must make it plausible. Exit 0 when every program passes that check (flaky ones
//! excepted), 1 otherwise.
//!
//! Without `--check` it runs the repair strategy (`--strategy`: `reinfix`, the ReinFix
//! workflow, or `patterns`, no model; [`repair::run::workflow`]) on every program with the model
//! options of `fixdex repair` (an endpoint, or `--replay`; none for `patterns`), the bug's own record and the QuixBugs project
//! excluded from retrieval, and perfect function-level localization (ReinFix's setting) or
//! `--localization sbfl` (the top Ochiai method of the program's file). It reports per bug the outcome, the error
//! message of a run that ended in error, LLM calls, tokens and time, and counts plausible,
//! no plausible patch and errors apart, with the calls, tokens and USD in all, per bug and per
//! plausible bug ([`repair::bench::evaluation`]; a chain, `--strategy patterns,reinfix`, adds
//! the bugs each stage fixed and what each stage cost); `--report-dir` keeps each
//! bug's full report; `--run-dir` runs into a resumable, graded run folder instead
//! ([`run_folder`]). Exit 1 when any bug ended in error (outcome `error` or
//! `preflight_failed`, or localization failed), after the summary is printed; 0 otherwise.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use repair::bench::evaluation::{self, BugResult};
use repair::bench::quixbugs::{self, GroundTruth, Lang, Program, Runner};
use repair::fl::LineWeights;
use repair::retrieve::{Exclusion, Retriever};
use repair::run::bug::{Bug, Location};
use repair::run::config::RunConfig;
use repair::run::report::RepairReport;
use repair::run::workflow::Workflow;
use repair::strategies::Strategy;

mod args;
mod run_folder;
mod tables;

pub use args::{BenchArgs, QuixbugsArgs};
use args::{LangArg, Localization, Oracle};

use crate::cli::llm_args::Client;
use crate::cli::workflow_args::run_config;
/// Runs the deprecated `fixdex bench quixbugs`, after a note naming the new spelling.
pub fn run_deprecated(b: &BenchArgs) -> anyhow::Result<ExitCode> {
    let check = b.args.check || b.oracle == Oracle::GroundTruth;
    let new = if check { "fixdex eval quixbugs --check" } else { "fixdex eval quixbugs" };
    eprintln!("note: `fixdex bench quixbugs` is deprecated and will be removed; use `{new}`");
    run_as(&b.args, check)
}

/// Runs `fixdex eval quixbugs`.
pub fn run(a: &QuixbugsArgs) -> anyhow::Result<ExitCode> {
    run_as(a, a.check)
}

/// The benchmark check (`check`) or the evaluation, on the selected programs.
fn run_as(a: &QuixbugsArgs, check: bool) -> anyhow::Result<ExitCode> {
    if let Some(dir) = &a.report_dir {
        crate::cli::check_output_dir("--report-dir", dir)?;
    }
    a.llm.check_outputs(&[])?;
    let lang = match a.lang {
        LangArg::Java => Lang::Java,
        LangArg::Python => Lang::Python,
    };
    // The checkout first: a wrong --root is named as such, not as a missing ground truth
    // beside it.
    let found = quixbugs::discover(&a.root, lang)?;
    let truth_path = a.ground_truth.clone().unwrap_or_else(|| a.root.join("../../data/quixbugs.jsonl"));
    let truth =
        GroundTruth::load(&truth_path).context("loading the ground truth (give its path with --ground-truth)")?;
    let mut programs = quixbugs::select(found, &a.programs)?;
    if let Some(n) = a.sample {
        programs = quixbugs::sample(programs, usize::try_from(n).unwrap_or(usize::MAX), a.sample_seed);
    }
    let runner = Runner::new(&a.root, lang, Duration::from_secs(a.timeout_s))?;
    if check {
        tables::check_programs(&runner, &truth, &programs, a.jobs, a.reruns, a.json)
    } else {
        evaluate(a, &runner, &truth, &programs)
    }
}

/// What every bug of one evaluation shares.
pub(super) struct Evaluation<'a> {
    a: &'a QuixbugsArgs,
    runner: &'a Runner,
    truth: &'a GroundTruth,
    client: Client,
    config: RunConfig,
    retriever: Option<Retriever>,
    strategy: Box<dyn Strategy>,
}

/// The repair strategy on every program; a table or JSON.
fn evaluate(a: &QuixbugsArgs, runner: &Runner, truth: &GroundTruth, programs: &[Program]) -> anyhow::Result<ExitCode> {
    if let Some(dir) = &a.run_dir {
        return run_folder::evaluate(a, runner, truth, programs, dir);
    }
    let start = Instant::now();
    let eval = Evaluation::new(a, runner, truth)?;
    let (bugs, reports) = eval.repair_all(programs)?;
    let counts = evaluation::count(&bugs);
    let totals = eval.strategy.eval_totals(bugs.len(), &reports.iter().collect::<Vec<_>>());
    if a.json {
        let run = eval.info(start);
        out!("{}", evaluation::summary(&run, &bugs, &counts, totals.as_ref()))?;
    } else {
        tables::print_llm_table(&bugs, &counts, totals.as_ref(), runner.lang, eval.client.get().is_synthetic())?;
    }
    Ok(if counts.errors > 0 { ExitCode::from(crate::cli::exit::ERROR) } else { ExitCode::SUCCESS })
}

impl<'a> Evaluation<'a> {
    /// The strategy, client, run configuration and index of `a`.
    pub(super) fn new(a: &'a QuixbugsArgs, runner: &'a Runner, truth: &'a GroundTruth) -> anyhow::Result<Self> {
        let strategy = a.strategy.strategy()?;
        let client = a.llm.client_for(strategy.as_ref())?;
        let config = run_config(&a.llm, &a.retrieval, &a.run, &client, strategy.as_ref())?;
        let retriever = a.retrieval.eval_retriever(strategy.as_ref())?;
        Ok(Evaluation { a, runner, truth, client, config, retriever, strategy })
    }

    /// Every program repaired in turn: each bug's result, and the reports of those
    /// localized; the client finished (a recording kept only when every run went through).
    fn repair_all(&self, programs: &[Program]) -> anyhow::Result<(Vec<BugResult>, Vec<RepairReport>)> {
        let (mut bugs, mut reports, mut complete) = (Vec::new(), Vec::new(), true);
        for (i, p) in programs.iter().enumerate() {
            eprintln!("[{}/{}] {}", i + 1, programs.len(), p.name);
            let (bug, report) = self.repair(p)?;
            complete &= report.as_ref().is_none_or(|r| r.outcome.went_through());
            bugs.push(bug);
            reports.extend(report);
        }
        self.client.finish(complete)?;
        Ok((bugs, reports))
    }

    /// What the evaluation ran with, for the `--json` summary.
    fn info(&self, start: Instant) -> evaluation::RunInfo {
        evaluation::RunInfo {
            lang: self.runner.lang,
            strategy: self.strategy.name(),
            localization: self.a.localization.name(),
            client: self.client.get().describe(),
            synthetic: self.client.get().is_synthetic(),
            wall_s: start.elapsed().as_secs_f64(),
        }
    }
}

impl Evaluation<'_> {
    /// One program: localize, repair, keep the report; the report, unless localization
    /// failed.
    fn repair(&self, p: &Program) -> anyhow::Result<(BugResult, Option<RepairReport>)> {
        let (method, weights) = match self.localize(p) {
            Ok(found) => found,
            Err(why) => return Ok((BugResult::localization_failed(&p.name, why), None)),
        };
        let id = self.truth.id(p).map(str::to_string);
        let exclusion =
            Exclusion { ids: id.iter().cloned().collect(), projects: vec!["QuixBugs".into()], keep_ids: Vec::new() };
        let bug = Bug {
            id,
            root: self.a.root.clone(),
            file: p.source.clone(),
            location: Location::Method(method.clone()),
            failing_tests: Vec::new(),
        };
        let report = Workflow::new(
            self.client.get(),
            self.retriever.as_ref().map(|r| r.with_exclusion(exclusion)),
            self.runner.repair_validator(p, self.config.candidate_timeout_factor),
            self.config.clone(),
        )
        .with_strategy(self.a.strategy.strategy()?)
        .with_weights(weights)
        .with_prices(self.a.llm.prices(&self.client.model))
        .with_scratch_filter(quixbugs::scratch_filter(self.runner.lang))
        .run(&bug);
        self.keep_report(p, &report)?;
        let result = BugResult::from_report(&p.name, &method, &report).with_section(self.strategy.eval_bug(&report));
        Ok((result, Some(report)))
    }

    /// The buggy method, from quixbugs.jsonl (every line equally suspicious) or SBFL's top
    /// method in the program's file (with the SBFL scores of its lines); else why none.
    pub(super) fn localize(&self, p: &Program) -> Result<(String, LineWeights), String> {
        match self.a.localization {
            Localization::Perfect => self
                .truth
                .method(p)
                .map(|m| (m.to_string(), LineWeights::Uniform))
                .ok_or_else(|| "no buggy method known (quixbugs.jsonl `meta.function`)".to_string()),
            Localization::Sbfl => quixbugs::localize(self.runner, p),
        }
    }

    /// Writes the bug's report into `--report-dir`, when given.
    fn keep_report(&self, p: &Program, report: &repair::run::report::RepairReport) -> anyhow::Result<()> {
        let Some(dir) = &self.a.report_dir else { return Ok(()) };
        let path = dir.join(format!("{}.json", p.name));
        std::fs::write(&path, serde_json::to_string_pretty(report)?)
            .with_context(|| format!("writing {}", path.display()))
    }
}
