//! `fixdex bench quixbugs`: the QuixBugs harness (repair::quixbugs).
//!
//! `--oracle ground-truth` checks the machinery without a model: for every program, the buggy
//! version must fail its tests and the developer fix from `quixbugs.jsonl`, applied through the
//! patch path, must make it plausible. Exit 0 when every program passes that check (flaky
//! ones excepted), 1 otherwise.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
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
}

/// Runs `fixdex bench quixbugs`.
pub fn run(a: &QuixbugsArgs) -> anyhow::Result<ExitCode> {
    let lang = match a.lang {
        LangArg::Java => Lang::Java,
        LangArg::Python => Lang::Python,
    };
    let Oracle::GroundTruth = a.oracle;
    let truth_path = a.ground_truth.clone().unwrap_or_else(|| a.root.join("../../data/quixbugs.jsonl"));
    let truth =
        GroundTruth::load(&truth_path).context("loading the ground truth (give its path with --ground-truth)")?;
    let programs = quixbugs::select(quixbugs::discover(&a.root, lang)?, &a.programs)?;
    let runner = Runner::new(&a.root, lang, Duration::from_secs(a.timeout_s))?;

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
        let v = |s: &quixbugs::RunSummary| match s.verdict {
            None => "patch-refused".to_string(),
            Some(Verdict::Plausible) => "plausible".to_string(),
            Some(Verdict::TestFailure) => format!("test-failure({})", s.failing_tests),
            Some(Verdict::CompileError) => "compile-error".to_string(),
            Some(Verdict::Timeout) => "timeout".to_string(),
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
    }
    Ok(if summary.failed_checks.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(crate::cli::exit::ERROR) })
}
