//! The options of `fixdex eval quixbugs` and of its deprecated spelling `fixdex bench
//! quixbugs`.

use std::path::PathBuf;

use crate::cli::llm_args::LlmArgs;
use crate::cli::workflow_args::{RetrievalArgs, RunArgs, StrategyArgs};

/// Arguments of `fixdex eval quixbugs`.
#[derive(Debug, clap::Args)]
pub struct QuixbugsArgs {
    // First: it keeps the whole command's matches, which clap's derive empties field by
    // field (`StrategyArgs::options` records every option in run.json).
    #[command(flatten)]
    pub(super) strategy: StrategyArgs,
    /// QuixBugs root (with java_programs/, python_programs/, java_testcases/, python_testcases/).
    #[arg(long)]
    pub(super) root: PathBuf,
    /// Language.
    #[arg(long, value_enum)]
    pub(super) lang: LangArg,
    /// Check the benchmark instead of repairing (no model needed): every buggy program fails
    /// its tests, and the developer fix, applied through the patch path, makes it plausible.
    #[arg(long)]
    pub(super) check: bool,
    /// quixbugs.jsonl with the ground-truth diffs [default: ROOT/../../data/quixbugs.jsonl].
    #[arg(long)]
    pub(super) ground_truth: Option<PathBuf>,
    /// Only these programs (comma-separated names, case-insensitive).
    #[arg(long, value_delimiter = ',')]
    pub(super) programs: Vec<String>,
    /// Only a seeded sample of N of the programs (after `--programs`), kept in name order:
    /// a cheap check of the harness or of a strategy. The same N and `--sample-seed` give
    /// the same programs on every machine.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(super) sample: Option<u64>,
    /// Seed of `--sample`.
    #[arg(long, default_value_t = 0, requires = "sample", value_name = "SEED")]
    pub(super) sample_seed: u64,
    /// Programs checked (`--check`) or repaired (with `--run-dir`) in parallel.
    #[arg(long, short = 'j', default_value_t = 2, value_parser = crate::cli::index::at_least(1))]
    pub(super) jobs: usize,
    /// Wall-clock limit per build or test command, seconds (at least 1).
    #[arg(long, default_value_t = 120, value_parser = crate::cli::positive_seconds)]
    pub(super) timeout_s: u64,
    /// `--check`: extra runs of a version whose outcome was unexpected, to detect flaky tests.
    #[arg(long, default_value_t = 2)]
    pub(super) reruns: usize,
    /// One JSON object on stdout.
    #[arg(long)]
    pub(super) json: bool,
    #[command(flatten)]
    pub(super) run: RunArgs,
    /// Fault localization given to the repair strategy.
    #[arg(long, value_enum, default_value = "perfect")]
    pub(super) localization: Localization,
    /// Write each bug's repair report here as `<program>.json` (created when missing;
    /// checked before any program runs).
    #[arg(long)]
    pub(super) report_dir: Option<PathBuf>,
    /// The run folder, as `fixdex eval defects4j`'s: run.json and one folder per program
    /// (result.json, report.json, fixed/, patches/ graded against the developer fix);
    /// `--jobs` programs at once; `fixdex eval report|compare|merge` read it.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["check", "report_dir"])]
    pub(super) run_dir: Option<PathBuf>,
    /// Finish the run in --run-dir: skip every program whose result.json says it finished.
    #[arg(long, requires = "run_dir")]
    pub(super) resume: bool,
    /// As --resume, and redo the programs that ended in error or could not be set up.
    #[arg(long, requires = "run_dir")]
    pub(super) retry_failed: bool,
    #[command(flatten)]
    pub(super) retrieval: RetrievalArgs,
    #[command(flatten)]
    pub(super) llm: LlmArgs,
}

/// Arguments of the deprecated `fixdex bench quixbugs`: `--oracle` instead of `--check`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// What produces the patches. `ground-truth`: the developer fix (checks the harness).
    #[arg(long, value_enum, default_value = "ground-truth")]
    pub(super) oracle: Oracle,
    #[command(flatten)]
    pub(super) args: QuixbugsArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Localization {
    /// The buggy function from quixbugs.jsonl (`meta.function`).
    Perfect,
    /// The top method of SBFL (Ochiai over per-test coverage).
    Sbfl,
}

impl Localization {
    /// The name the `--json` summary gives.
    pub(super) fn name(self) -> &'static str {
        match self {
            Localization::Perfect => "perfect",
            Localization::Sbfl => "sbfl",
        }
    }
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(super) enum LangArg {
    Java,
    Python,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Oracle {
    /// The developer fix from quixbugs.jsonl.
    GroundTruth,
    /// The ReinFix workflow with a model (an endpoint or --replay).
    Llm,
}
