//! The options of `fixdex eval defects4j`.

use std::path::PathBuf;

use repair::bench::defects4j::Localization;

use crate::cli::llm_args::LlmArgs;
use crate::cli::workflow_args::{RetrievalArgs, RunArgs, StrategyArgs};

/// Arguments of `fixdex eval defects4j`.
#[derive(Debug, clap::Args)]
pub struct Defects4jArgs {
    // First: it keeps the whole command's matches, which clap's derive empties field by
    // field (`StrategyArgs::options` records every option in run.json).
    #[command(flatten)]
    pub(super) strategy: StrategyArgs,
    /// Defects4J's metadata: the folder of project folders (`framework/projects`, or
    /// `benchmarks/defects4j/projects` in fixdex's shared data), each with active-bugs.csv,
    /// dir-layout.csv, patches/, trigger_tests/, relevant_tests/, modified_classes/.
    /// Required unless --d4j-home gives it (`<home>/framework/projects`).
    #[arg(long, env = "FIXDEX_D4J_META", value_name = "DIR", required_unless_present = "d4j_home")]
    pub(super) d4j_meta: Option<PathBuf>,
    /// An installed Defects4J (the folder holding `framework/bin/defects4j`, its `init.sh`
    /// run): its `defects4j checkout`, `compile` and `export` set each bug up instead of
    /// --repo, fixdex's javac build and its jar table; the gold check and validation stay
    /// fixdex's own runner. The metadata defaults to its `framework/projects`.
    #[arg(long, env = "FIXDEX_D4J_HOME", value_name = "DIR", conflicts_with_all = ["repos", "jars"])]
    pub(super) d4j_home: Option<PathBuf>,
    /// A project's upstream repository, `Project=PATH` (repeatable): a work tree, a bare
    /// repository or a git bundle holding the bugs' fixed revisions.
    #[arg(long = "repo", value_name = "PROJECT=PATH", value_parser = parse_repo)]
    pub(super) repos: Vec<(String, PathBuf)>,
    /// A folder of jars that add to or replace (same file name) the jars fixdex's table names
    /// (repeatable). Defects4J's own `lib/` jars are looked for beside the metadata folder.
    #[arg(long, value_name = "DIR")]
    pub(super) jars: Vec<PathBuf>,
    /// Where checkouts, classes and gold checks are kept between runs [default:
    /// ~/.cache/fixdex/defects4j].
    #[arg(long, value_name = "DIR")]
    pub(super) work_dir: Option<PathBuf>,
    /// The bugs: `Cli-1,Cli-5..9,JxPath` (bugs, number ranges, whole projects) [default:
    /// every bug of every project given a --repo].
    #[arg(long, conflicts_with = "bugs_file")]
    pub(super) bugs: Option<String>,
    /// The bugs, one item of the `--bugs` form per line (`#` comments).
    #[arg(long, value_name = "FILE")]
    pub(super) bugs_file: Option<PathBuf>,
    /// Only the gold check (no model, no run folder): the fixed version compiles and passes
    /// its trigger tests, the buggy one fails at least one. Cached per bug.
    #[arg(long)]
    pub(super) check: bool,
    /// Bugs run at once.
    #[arg(long, short = 'j', default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub(super) jobs: u64,
    /// The run folder: run.json and one folder per bug (result.json, report.json, patches).
    /// Required without --check.
    #[arg(long, value_name = "DIR", required_unless_present = "check")]
    pub(super) run_dir: Option<PathBuf>,
    /// Finish the run in --run-dir: skip every bug whose result.json says it finished (or
    /// could not be set up), redo the others. The settings must be the run's.
    #[arg(long)]
    pub(super) resume: bool,
    /// As --resume (which redoes the bugs that ended in error), and also redo the bugs that
    /// could not be set up (`infra`).
    #[arg(long)]
    pub(super) retry_failed: bool,
    /// Run one shard of the bugs: `i/n` (0-based) or `auto/n` (the index from
    /// JOB_COMPLETION_INDEX, a Kubernetes Indexed Job, or SLURM_ARRAY_TASK_ID); merge the run
    /// folders with `fixdex eval merge`.
    #[arg(long, value_name = "i/n", value_parser = crate::cli::index::shard_flag)]
    pub(super) shard: Option<String>,
    /// Fault localization given to the repair: `perfect` (the lines the developer's patch
    /// touches), `method` (their enclosing method), `file` (the whole file), `sbfl` (the top
    /// method of Ochiai over JaCoCo coverage of the relevant tests, with its line scores).
    #[arg(long, value_enum, default_value = "perfect")]
    pub(super) localization: Localization,
    /// Keep the bug's own project in retrieval (it is excluded by default, with the bug's
    /// own record).
    #[arg(long)]
    pub(super) own_project: bool,
    /// Keep the bug's project's fixes from before the bug in retrieval: the index's
    /// documents of the project whose `meta.commit` (a full commit hash) is an ancestor of the
    /// fix in --repo (what the developer's own history held; later fixes, the bug's own among
    /// them, stay out). Needs --repo with the full history (not --d4j-home, whose checkouts
    /// hold none) and an index in use. With --check, the check also lists each bug's
    /// history (a shallow clone fails it).
    #[arg(long, conflicts_with_all = ["own_project", "d4j_home"])]
    pub(super) own_history: bool,
    /// Wall-clock limit of one build or test command, seconds (the gold check's test runs;
    /// a candidate's limit is scaled down from the fixed version's run, see
    /// --candidate-timeout-factor).
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    pub(super) timeout_s: u64,
    /// One JSON object on stdout.
    #[arg(long)]
    pub(super) json: bool,
    #[command(flatten)]
    pub(super) run: RunArgs,
    #[command(flatten)]
    pub(super) retrieval: RetrievalArgs,
    #[command(flatten)]
    pub(super) llm: LlmArgs,
}

/// `Project=PATH`.
fn parse_repo(s: &str) -> Result<(String, PathBuf), String> {
    let (project, path) =
        s.split_once('=').ok_or_else(|| format!("`{s}`: write PROJECT=PATH, e.g. Cli=commons-cli.bundle"))?;
    if project.is_empty() || path.is_empty() {
        return Err(format!("`{s}`: write PROJECT=PATH, e.g. Cli=commons-cli.bundle"));
    }
    Ok((project.to_string(), PathBuf::from(path)))
}
