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
//! no plausible patch and errors apart ([`repair::bench::evaluation`]); `--report-dir` keeps each
//! bug's full report. Exit 1 when any bug ended in error (outcome `error` or
//! `preflight_failed`, or localization failed), after the summary is printed; 0 otherwise.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use repair::bench::evaluation::{self, BugResult};
use repair::bench::quixbugs::{self, GroundTruth, Lang, OracleSummary, Program, ProgramCheck, RunSummary, Runner};
use repair::fl::LineWeights;
use repair::retrieve::{Exclusion, Retriever};
use repair::run::bug::{Bug, Location};
use repair::run::config::RunConfig;
use repair::run::report::RepairReport;
use repair::run::workflow::Workflow;
use repair::strategies::{EvalTotals, Strategy};
use repair::validate::Verdict;

use super::llm_args::{Client, LlmArgs};
use super::workflow_args::{RetrievalArgs, RunArgs, StrategyArgs, run_config};

/// Arguments of `fixdex eval quixbugs`.
#[derive(Debug, clap::Args)]
pub struct QuixbugsArgs {
    /// QuixBugs root (with java_programs/, python_programs/, java_testcases/, python_testcases/).
    #[arg(long)]
    root: PathBuf,
    /// Language.
    #[arg(long, value_enum)]
    lang: LangArg,
    /// Check the benchmark instead of repairing (no model needed): every buggy program fails
    /// its tests, and the developer fix, applied through the patch path, makes it plausible.
    #[arg(long)]
    check: bool,
    /// quixbugs.jsonl with the ground-truth diffs [default: ROOT/../../data/quixbugs.jsonl].
    #[arg(long)]
    ground_truth: Option<PathBuf>,
    /// Only these programs (comma-separated names, case-insensitive).
    #[arg(long, value_delimiter = ',')]
    programs: Vec<String>,
    /// Only a seeded sample of N of the programs (after `--programs`), kept in name order:
    /// a cheap check of the harness or of a strategy. The same N and `--sample-seed` give
    /// the same programs on every machine.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    sample: Option<u64>,
    /// Seed of `--sample`.
    #[arg(long, default_value_t = 0, requires = "sample", value_name = "SEED")]
    sample_seed: u64,
    /// `--check`: programs checked in parallel.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Wall-clock limit per build or test command, seconds.
    #[arg(long, default_value_t = 120)]
    timeout_s: u64,
    /// `--check`: extra runs of a version whose outcome was unexpected, to detect flaky tests.
    #[arg(long, default_value_t = 2)]
    reruns: usize,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    strategy: StrategyArgs,
    #[command(flatten)]
    run: RunArgs,
    /// Fault localization given to the repair strategy.
    #[arg(long, value_enum, default_value = "perfect")]
    localization: Localization,
    /// Write each bug's repair report here as `<program>.json` (created when missing;
    /// checked before any program runs).
    #[arg(long)]
    report_dir: Option<PathBuf>,
    #[command(flatten)]
    retrieval: RetrievalArgs,
    #[command(flatten)]
    llm: LlmArgs,
}

/// Arguments of the deprecated `fixdex bench quixbugs`: `--oracle` instead of `--check`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// What produces the patches. `ground-truth`: the developer fix (checks the harness).
    #[arg(long, value_enum, default_value = "ground-truth")]
    oracle: Oracle,
    #[command(flatten)]
    args: QuixbugsArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Localization {
    /// The buggy function from quixbugs.jsonl (`meta.function`).
    Perfect,
    /// The top method of SBFL (Ochiai over per-test coverage).
    Sbfl,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum LangArg {
    Java,
    Python,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Oracle {
    /// The developer fix from quixbugs.jsonl.
    GroundTruth,
    /// The ReinFix workflow with a model (an endpoint or --replay).
    Llm,
}

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
        super::check_output_dir("--report-dir", dir)?;
    }
    a.llm.check_outputs(&[])?;
    let lang = match a.lang {
        LangArg::Java => Lang::Java,
        LangArg::Python => Lang::Python,
    };
    let truth_path = a.ground_truth.clone().unwrap_or_else(|| a.root.join("../../data/quixbugs.jsonl"));
    let truth =
        GroundTruth::load(&truth_path).context("loading the ground truth (give its path with --ground-truth)")?;
    let mut programs = quixbugs::select(quixbugs::discover(&a.root, lang)?, &a.programs)?;
    if let Some(n) = a.sample {
        programs = quixbugs::sample(programs, usize::try_from(n).unwrap_or(usize::MAX), a.sample_seed);
    }
    let runner = Runner::new(&a.root, lang, Duration::from_secs(a.timeout_s))?;
    if check { check_programs(a, &runner, &truth, &programs) } else { evaluate(a, &runner, &truth, &programs) }
}

/// `--check`: the developer fix on every program, with a progress bar; a table or JSON.
fn check_programs(
    a: &QuixbugsArgs,
    runner: &Runner,
    truth: &GroundTruth,
    programs: &[Program],
) -> anyhow::Result<ExitCode> {
    let bar = check_bar(programs.len(), runner.lang);
    let progress = |_: usize, _: usize, c: &ProgramCheck| {
        bar.set_message(c.program.clone());
        bar.inc(1);
    };
    let summary = quixbugs::oracle(runner, truth, programs, a.jobs, a.reruns, &progress)?;
    bar.finish_and_clear();
    if a.json {
        out!("{}", serde_json::to_string(&summary)?)?;
    } else {
        print_check_table(&summary, runner.lang)?;
        print_check_details(&summary);
    }
    Ok(if summary.failed_checks.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(crate::cli::exit::ERROR) })
}

/// The `--check` progress bar on stderr.
fn check_bar(len: usize, lang: Lang) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {msg} ({elapsed}, ETA {eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix(format!("quixbugs {lang}"));
    bar
}

/// The `--check` table: one row per program, then the summary line.
fn print_check_table(summary: &OracleSummary, lang: Lang) -> anyhow::Result<()> {
    out!("{:<28} {:<18} {:<18} {:>8}  check", "program", "buggy", "fixed (truth)", "time s")?;
    for c in &summary.programs {
        let secs = (c.buggy.wall_ms + c.fixed.wall_ms) as f64 / 1e3;
        let (buggy, fixed) = (verdict_name(&c.buggy), verdict_name(&c.fixed));
        out!("{:<28} {:<18} {:<18} {:>8.1}  {}", c.program, buggy, fixed, secs, check_name(c))?;
    }
    out!(
        "{} {lang} programs: buggy failed {}, fixed plausible {}, flaky {:?}, failed checks {:?}, wall {:.0} s",
        summary.total,
        summary.buggy_failed,
        summary.fixed_plausible,
        summary.flaky,
        summary.failed_checks,
        summary.wall_s
    )?;
    Ok(())
}

/// A run's verdict as the `--check` table shows it.
fn verdict_name(s: &RunSummary) -> String {
    match s.verdict {
        None => "patch-refused".to_string(),
        Some(Verdict::Plausible) => "plausible".to_string(),
        Some(Verdict::TestFailure) => format!("test-failure({})", s.failing_tests),
        Some(Verdict::CompileError) => "compile-error".to_string(),
        Some(Verdict::Timeout) => "timeout".to_string(),
        Some(v @ (Verdict::PatchRefused | Verdict::Duplicate)) => v.as_str().replace('_', "-"),
    }
}

/// A program's check as the `--check` table shows it.
fn check_name(c: &ProgramCheck) -> &'static str {
    match (c.flaky, c.ok) {
        (true, _) => "FLAKY",
        (false, true) => "ok",
        (false, false) => "FAILED",
    }
}

/// The details of every failed check, on stderr.
fn print_check_details(summary: &OracleSummary) {
    for c in summary.programs.iter().filter(|c| !c.ok) {
        for (what, r) in [("buggy", &c.buggy), ("fixed", &c.fixed)] {
            if let Some(d) = &r.detail {
                eprintln!("--- {} ({what}):\n{d}", c.program);
            }
        }
    }
}

/// What every bug of one evaluation shares.
struct Evaluation<'a> {
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
    let start = Instant::now();
    let strategy = a.strategy.strategy()?;
    let client = a.llm.client_for(strategy.as_ref())?;
    let config = run_config(&a.llm, &a.retrieval, &a.run, &client, strategy.as_ref())?;
    let retriever = a
        .retrieval
        .index
        .as_deref()
        .map(|path| super::model::open_retriever(path, a.retrieval.model.as_deref(), Exclusion::default()))
        .transpose()?;
    let eval = Evaluation { a, runner, truth, client, config, retriever, strategy };
    let (mut bugs, mut reports, mut complete) = (Vec::new(), Vec::new(), true);
    for (i, p) in programs.iter().enumerate() {
        eprintln!("[{}/{}] {}", i + 1, programs.len(), p.name);
        let (bug, report) = eval.repair(p)?;
        complete &= report.as_ref().is_none_or(|r| r.outcome.went_through());
        bugs.push(bug);
        reports.extend(report);
    }
    eval.client.finish(complete)?;
    let counts = evaluation::count(&bugs);
    let totals = eval.strategy.eval_totals(bugs.len(), &reports.iter().collect::<Vec<_>>());
    if a.json {
        out!("{}", eval.summary(&bugs, &counts, totals.as_ref(), start))?;
    } else {
        print_llm_table(&bugs, &counts, totals.as_ref(), runner.lang, eval.client.get().is_synthetic())?;
    }
    Ok(if counts.errors > 0 { ExitCode::from(crate::cli::exit::ERROR) } else { ExitCode::SUCCESS })
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
        let exclusion = Exclusion { ids: id.iter().cloned().collect(), projects: vec!["QuixBugs".into()] };
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
            self.runner.validator(p),
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
    fn localize(&self, p: &Program) -> Result<(String, LineWeights), String> {
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

    /// The `--json` summary.
    fn summary(
        &self,
        bugs: &[BugResult],
        counts: &evaluation::Counts,
        totals: Option<&EvalTotals>,
        start: Instant,
    ) -> serde_json::Value {
        let mut summary = serde_json::json!({
            "lang": self.runner.lang, "oracle": "llm", "strategy": self.a.strategy.name(),
            "total": counts.total, "plausible": counts.plausible,
            "no_plausible": counts.no_plausible, "errors": counts.errors, "trace_only": counts.trace_only,
            "outcomes": counts.outcomes,
            "calls": bugs.iter().map(|b| b.calls).sum::<u64>(), "tokens": bugs.iter().map(|b| b.tokens).sum::<u64>(),
            "wall_s": start.elapsed().as_secs_f64(), "synthetic": self.client.get().is_synthetic(),
            "client": self.client.get().describe(),
            "localization": format!("{:?}", self.a.localization).to_lowercase(),
            "programs": bugs,
        });
        if let Some(t) = totals {
            summary[t.key] = t.totals.clone();
        }
        summary
    }
}

/// The evaluation table: one row per bug, the summary line, then each error's message.
fn print_llm_table(
    bugs: &[BugResult],
    counts: &evaluation::Counts,
    totals: Option<&EvalTotals>,
    lang: Lang,
    synthetic: bool,
) -> anyhow::Result<()> {
    out!("{:<28} {:<20} {:>6} {:>6} {:>9} {:>8}", "program", "outcome", "cands", "calls", "tokens", "time s")?;
    for b in bugs {
        let outcome = evaluation::outcome_name(b.outcome);
        out!("{:<28} {:<20} {:>6} {:>6} {:>9} {:>8.1}", b.program, outcome, b.candidates, b.calls, b.tokens, b.wall_s)?;
    }
    out!(
        "{} {lang} programs: {} plausible, {} no plausible patch, {} errors{}{}",
        counts.total,
        counts.plausible,
        counts.no_plausible,
        counts.errors,
        if counts.trace_only > 0 {
            format!(", {} trace only (no patch sought)", counts.trace_only)
        } else {
            String::new()
        },
        if synthetic { " (SYNTHETIC answers: not repair results)" } else { "" }
    )?;
    if let Some(t) = totals {
        out!("{}", t.line)?;
    }
    for b in bugs {
        if let Some(e) = &b.error {
            out!("error: {}: {e}", b.program)?;
        }
    }
    Ok(())
}
