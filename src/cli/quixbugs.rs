//! `fixdex bench quixbugs`: the QuixBugs harness (repair::quixbugs).
//!
//! `--oracle ground-truth` checks the machinery without a model: for every program, the buggy
//! version must fail its tests and the developer fix from `quixbugs.jsonl`, applied through the
//! patch path, must make it plausible. Exit 0 when every program passes that check (flaky
//! ones excepted), 1 otherwise.
//!
//! `--oracle llm` runs the ReinFix workflow ([`repair::agent`]) on every program with the
//! model options of `fixdex repair` (an endpoint, or `--replay`), the bug's own record and
//! the QuixBugs project excluded from retrieval, and perfect function-level localization
//! (ReinFix's setting) or `--localization sbfl` (the top Ochiai method). It reports per bug
//! the outcome, the error message of a run that ended in error, LLM calls, tokens and time,
//! and counts plausible, no plausible patch and errors apart ([`repair::evaluation`]);
//! `--report-dir` keeps each bug's full report. Exit 1 when any bug ended in error
//! (outcome `error` or `preflight_failed`, or localization failed), after the summary is
//! printed; 0 otherwise.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use repair::evaluation::{self, BugResult};
use repair::quixbugs::{self, GroundTruth, Lang, ProgramCheck, Runner};
use repair::validate::Verdict;

/// Arguments of `fixdex bench quixbugs`.
#[derive(Debug, clap::Args)]
pub struct QuixbugsArgs {
    /// QuixBugs root (with java_programs/, python_programs/, java_testcases/, python_testcases/).
    #[arg(long)]
    root: PathBuf,
    /// Language.
    #[arg(long, value_enum)]
    lang: LangArg,
    /// What produces the patches. `ground-truth`: the developer fix (checks the harness).
    #[arg(long, value_enum, default_value = "ground-truth")]
    oracle: Oracle,
    /// quixbugs.jsonl with the ground-truth diffs [default: ROOT/../../data/quixbugs.jsonl].
    #[arg(long)]
    ground_truth: Option<PathBuf>,
    /// Only these programs (comma-separated names, case-insensitive).
    #[arg(long, value_delimiter = ',')]
    programs: Vec<String>,
    /// Programs checked in parallel.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Wall-clock limit per build or test command, seconds.
    #[arg(long, default_value_t = 120)]
    timeout_s: u64,
    /// Extra runs of a version whose outcome was unexpected, to detect flaky tests.
    #[arg(long, default_value_t = 2)]
    reruns: usize,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
    /// `--oracle llm`: index or manifest of similar fixes (none: no external ingredients).
    #[arg(long)]
    index: Option<PathBuf>,
    /// `--oracle llm`: embedding model folder of the index.
    #[arg(long, env = "FIXDEX_MODEL")]
    model: Option<PathBuf>,
    /// `--oracle llm`: fault localization given to the workflow.
    #[arg(long, value_enum, default_value = "perfect")]
    localization: Localization,
    /// `--oracle llm`: write each bug's repair report here as `<program>.json` (created
    /// when missing; checked before any program runs).
    #[arg(long)]
    report_dir: Option<PathBuf>,
    #[command(flatten)]
    llm: super::repair::LlmArgs,
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

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Oracle {
    /// The developer fix from quixbugs.jsonl.
    GroundTruth,
    /// The ReinFix workflow with a model (an endpoint or --replay).
    Llm,
}

/// Runs `fixdex bench quixbugs`.
pub fn run(a: &QuixbugsArgs) -> anyhow::Result<ExitCode> {
    if let Some(dir) = &a.report_dir {
        super::check_output_dir("--report-dir", dir)?;
    }
    a.llm.check_outputs()?;
    let lang = match a.lang {
        LangArg::Java => Lang::Java,
        LangArg::Python => Lang::Python,
    };
    let truth_path = a.ground_truth.clone().unwrap_or_else(|| a.root.join("../../data/quixbugs.jsonl"));
    let truth =
        GroundTruth::load(&truth_path).context("loading the ground truth (give its path with --ground-truth)")?;
    let programs = quixbugs::select(quixbugs::discover(&a.root, lang)?, &a.programs)?;
    let runner = Runner::new(&a.root, lang, Duration::from_secs(a.timeout_s))?;
    if let Oracle::Llm = a.oracle {
        return llm_oracle(a, &runner, &truth, &programs);
    }

    let bar = ProgressBar::with_draw_target(Some(programs.len() as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {msg} ({elapsed}, ETA {eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix(format!("quixbugs {lang}"));
    let progress = |_: usize, _: usize, c: &ProgramCheck| {
        bar.set_message(c.program.clone());
        bar.inc(1);
    };
    let summary = quixbugs::oracle(&runner, &truth, &programs, a.jobs, a.reruns, &progress)?;
    bar.finish_and_clear();

    if a.json {
        out!("{}", serde_json::to_string(&summary)?)?;
    } else {
        print_oracle_table(&summary, lang)?;
    }
    Ok(if summary.failed_checks.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(crate::cli::exit::ERROR) })
}

/// The `--oracle ground-truth` table: one row per program, the summary line, then the
/// output of each check that failed.
fn print_oracle_table(summary: &quixbugs::OracleSummary, lang: Lang) -> anyhow::Result<()> {
    let v = |s: &quixbugs::RunSummary| match s.verdict {
        None => "patch-refused".to_string(),
        Some(Verdict::Plausible) => "plausible".to_string(),
        Some(Verdict::TestFailure) => format!("test-failure({})", s.failing_tests),
        Some(Verdict::CompileError) => "compile-error".to_string(),
        Some(Verdict::Timeout) => "timeout".to_string(),
        Some(v @ (Verdict::PatchRefused | Verdict::Duplicate)) => v.as_str().replace('_', "-"),
    };
    out!("{:<28} {:<18} {:<18} {:>8}  check", "program", "buggy", "fixed (truth)", "time s")?;
    for c in &summary.programs {
        let check = if c.flaky {
            "FLAKY"
        } else if c.ok {
            "ok"
        } else {
            "FAILED"
        };
        let secs = (c.buggy.wall_ms + c.fixed.wall_ms) as f64 / 1e3;
        out!("{:<28} {:<18} {:<18} {:>8.1}  {check}", c.program, v(&c.buggy), v(&c.fixed), secs)?;
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
    for c in summary.programs.iter().filter(|c| !c.ok) {
        for (what, r) in [("buggy", &c.buggy), ("fixed", &c.fixed)] {
            if let Some(d) = &r.detail {
                eprintln!("--- {} ({what}):\n{d}", c.program);
            }
        }
    }
    Ok(())
}

/// `--oracle llm`: the ReinFix workflow on each program, then the table or JSON summary.
// Over 60 lines: one loop that shares the client, config and retriever across programs and
// writes each report as it goes; the pieces that stand alone (`localize`, the table) are out.
fn llm_oracle(
    a: &QuixbugsArgs,
    runner: &Runner,
    truth: &GroundTruth,
    programs: &[quixbugs::Program],
) -> anyhow::Result<ExitCode> {
    use repair::agent::{Bug, Location, Outcome, Workflow};
    use repair::retrieve::Exclusion;
    let start = std::time::Instant::now();
    let client = a.llm.client()?;
    let config = a.llm.config(&client)?;
    let retriever = a
        .index
        .as_deref()
        .map(|path| super::model::open_retriever(path, a.model.as_deref(), Exclusion::default()))
        .transpose()?;
    let mut bugs = Vec::new();
    let mut complete = true;
    for (i, p) in programs.iter().enumerate() {
        eprintln!("[{}/{}] {}", i + 1, programs.len(), p.name);
        let (method, loc_error) = localize(a.localization, runner, truth, p);
        let Some(method) = method else {
            let why = loc_error.unwrap_or_else(|| "no buggy method known (quixbugs.jsonl `meta.function`)".into());
            bugs.push(BugResult::localization_failed(&p.name, why));
            continue;
        };
        let id = truth.id(p).map(str::to_string);
        let exclusion = Exclusion { ids: id.iter().cloned().collect(), projects: vec!["QuixBugs".into()] };
        let bug = Bug {
            id,
            root: a.root.clone(),
            file: p.source.clone(),
            location: Location::Method(method.clone()),
            failing_tests: Vec::new(),
        };
        let report = Workflow::new(
            client.get(),
            retriever.as_ref().map(|r| r.with_exclusion(exclusion)),
            runner.validator(p),
            config.clone(),
        )
        .with_prices(a.llm.prices(&client.model))
        .with_scratch_filter(quixbugs::scratch_filter(lang_of(runner)))
        .run(&bug);
        complete &= matches!(report.outcome, Outcome::Plausible | Outcome::NoPlausiblePatch);
        if let Some(dir) = &a.report_dir {
            let path = dir.join(format!("{}.json", p.name));
            std::fs::write(&path, serde_json::to_string_pretty(&report)?)
                .with_context(|| format!("writing {}", path.display()))?;
        }
        bugs.push(BugResult::from_report(&p.name, &method, &report));
    }
    client.finish(complete)?;
    let counts = evaluation::count(&bugs);
    let synthetic = client.get().is_synthetic();
    let summary = serde_json::json!({
        "lang": lang_of(runner), "oracle": "llm", "total": counts.total, "plausible": counts.plausible,
        "no_plausible": counts.no_plausible, "errors": counts.errors, "outcomes": counts.outcomes,
        "calls": bugs.iter().map(|b| b.calls).sum::<u64>(), "tokens": bugs.iter().map(|b| b.tokens).sum::<u64>(),
        "wall_s": start.elapsed().as_secs_f64(), "synthetic": synthetic, "client": client.get().describe(),
        "localization": format!("{:?}", a.localization).to_lowercase(), "programs": bugs,
    });
    if a.json {
        out!("{summary}")?;
    } else {
        print_llm_table(&bugs, &counts, lang_of(runner), synthetic)?;
    }
    Ok(if counts.errors > 0 { ExitCode::from(crate::cli::exit::ERROR) } else { ExitCode::SUCCESS })
}

/// The buggy method of `p` by `localization` (its simple name), or why there is none.
fn localize(
    localization: Localization,
    runner: &Runner,
    truth: &GroundTruth,
    p: &quixbugs::Program,
) -> (Option<String>, Option<String>) {
    match localization {
        Localization::Perfect => (truth.method(p).map(str::to_string), None),
        Localization::Sbfl => match quixbugs::sbfl(runner, p) {
            Ok(fl) => match fl.methods.first() {
                Some(m) => (Some(m.name.rsplit('.').next().unwrap_or(&m.name).to_string()), None),
                None => (None, Some("SBFL ranked no method".to_string())),
            },
            Err(e) => (None, Some(e.to_string())),
        },
    }
}

/// The `--oracle llm` table: one row per bug, the summary line, then each error's message.
fn print_llm_table(bugs: &[BugResult], counts: &evaluation::Counts, lang: Lang, synthetic: bool) -> anyhow::Result<()> {
    out!("{:<28} {:<20} {:>6} {:>6} {:>9} {:>8}", "program", "outcome", "cands", "calls", "tokens", "time s")?;
    for b in bugs {
        let outcome = evaluation::outcome_name(b.outcome);
        out!("{:<28} {:<20} {:>6} {:>6} {:>9} {:>8.1}", b.program, outcome, b.candidates, b.calls, b.tokens, b.wall_s)?;
    }
    out!(
        "{} {lang} programs: {} plausible, {} no plausible patch, {} errors{}",
        counts.total,
        counts.plausible,
        counts.no_plausible,
        counts.errors,
        if synthetic { " (SYNTHETIC answers: not repair results)" } else { "" }
    )?;
    for b in bugs {
        if let Some(e) = &b.error {
            out!("error: {}: {e}", b.program)?;
        }
    }
    Ok(())
}

fn lang_of(runner: &Runner) -> Lang {
    runner.lang
}
