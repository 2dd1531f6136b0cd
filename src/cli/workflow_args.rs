//! The repair workflow's options beside [`LlmArgs`], shared by `fixdex repair` and `fixdex
//! eval quixbugs`: the strategy with its own options ([`StrategyArgs`], from the repair
//! crate's registry), the options every run shares ([`RunArgs`]) and retrieval of similar
//! fixes ([`RetrievalArgs`]).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use engine::Space;
use repair::llm::Budget;
use repair::retrieve::RetrieveParams;
use repair::run::config::RunConfig;
use repair::strategies::{Registry, Strategy};

use super::llm_args::{Client, LlmArgs};

/// `--strategy NAME` and every strategy's option group, each under its own heading
/// ([`Registry::augment`]); the strategy is built when asked for ([`Self::strategy`]), so
/// that options which do not go together are an error of the run (exit 1).
#[derive(Clone)]
pub struct StrategyArgs {
    matches: clap::ArgMatches,
}

impl std::fmt::Debug for StrategyArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StrategyArgs").field("name", &self.name()).finish_non_exhaustive()
    }
}

impl clap::FromArgMatches for StrategyArgs {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(StrategyArgs { matches: matches.clone() })
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.matches = matches.clone();
        Ok(())
    }
}

impl clap::Args for StrategyArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        Registry::builtin().augment(cmd)
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl StrategyArgs {
    /// The strategy's name as `--strategy` spells it.
    pub fn name(&self) -> &str {
        self.matches.get_one::<String>("strategy").map_or("", String::as_str)
    }

    /// Every option of the command line these matches came from (the whole `eval` command:
    /// the strategy's own, the model's, retrieval's and the run's), as given or defaulted,
    /// except the ids in `skip` (options that change no number: where files are, how many
    /// jobs, resume): `{id: value}` with a string value, an array for a repeated option, and
    /// `true`/`false` for flags. What `run.json` keeps, so that `--resume` refuses another
    /// `--max-validations`, `--all` or `--no-retrieval`. The option groups clap derives for
    /// each flattened `Args` struct (`RetrievalArgs`, whose value is the ids of its options
    /// given) are not options and are left out ([`repair::bench::batch::is_group_id`]).
    #[must_use]
    pub fn options(&self, skip: &[&str]) -> serde_json::Value {
        let mut out = serde_json::Map::new();
        for id in self.matches.ids().map(clap::Id::as_str) {
            let Ok(Some(raw)) = self.matches.try_get_raw(id) else { continue };
            if skip.contains(&id) || repair::bench::batch::is_group_id(id) {
                continue;
            }
            let values: Vec<String> = raw.map(|v| v.to_string_lossy().into_owned()).collect();
            let value = match values.as_slice() {
                [one] => serde_json::Value::String(one.clone()),
                many => serde_json::Value::from(many.to_vec()),
            };
            out.insert(id.to_string(), value);
        }
        serde_json::Value::Object(out)
    }

    /// The strategy, built by the registry from its options.
    ///
    /// # Errors
    /// An option of another strategy; options the strategy refuses together.
    pub fn strategy(&self) -> anyhow::Result<Box<dyn Strategy>> {
        Ok(Registry::builtin().build(&self.matches)?)
    }
}

/// The options of `eval defects4j` and `eval quixbugs` that change no number of a run, left
/// out of `run.json`'s `options` ([`StrategyArgs::options`]): where the inputs and outputs
/// are, parallelism, resuming, selection (recorded as the run's bug list), output form, the
/// endpoint's address (the model id is recorded), the embedding model's folder (`--model` or
/// `FIXDEX_MODEL`: an index opens only with its own model, and `settings.index_content`
/// records the index).
pub const NOT_SETTINGS: &[&str] = &[
    "model",
    "run_dir",
    "resume",
    "retry_failed",
    "jobs",
    "json",
    "shard",
    "work_dir",
    "bugs",
    "bugs_file",
    "check",
    "report_dir",
    "programs",
    "sample",
    "sample_seed",
    "reruns",
    "repos",
    "d4j_meta",
    "d4j_home",
    "root",
    "ground_truth",
    "llm_url",
    "verbose",
    "quiet",
];

/// Options of the run, whatever the strategy.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// A candidate's build or test command may take this many times a reference time: the
    /// fixed version's measured test run where the benchmark knows it (`eval defects4j`),
    /// else the buggy version's slower command in the pre-flight (at least 10 s, at most the
    /// command limit), so that a
    /// candidate with an endless loop costs seconds, not the whole limit; 0: always the
    /// command limit.
    #[arg(long, default_value_t = repair::validate::DEFAULT_TIMEOUT_FACTOR)]
    pub(crate) candidate_timeout_factor: f64,
    /// Collect every plausible patch instead of stopping at the first.
    #[arg(long)]
    pub(crate) all: bool,
}

/// Retrieval of similar fixes (external repair ingredients).
#[derive(Debug, clap::Args)]
#[command(next_help_heading = "Retrieval")]
pub struct RetrievalArgs {
    /// Index or manifest of similar fixes (external ingredients); without it the workflow runs
    /// without retrieval.
    #[arg(long)]
    pub(crate) index: Option<PathBuf>,
    /// Embedding model folder; must be the index's model [default: data/models/all-MiniLM-L6-v2].
    #[arg(long, env = "FIXDEX_MODEL")]
    pub(crate) model: Option<PathBuf>,
    /// Retrieval space: code+cause (ReinFix), code (RAP-Gen style), cause [default:
    /// code+cause; a strategy with its own space, `patterns`' code, uses that one].
    #[arg(long)]
    pub(crate) space: Option<String>,
    /// Similar fixes given to the model (top n).
    #[arg(long, default_value_t = 3)]
    pub(crate) top_n: usize,
    /// Minimum cosine similarity of a similar fix, in [-1, 1].
    #[arg(long)]
    pub(crate) threshold: Option<f32>,
    /// Ranking of the similar fixes: `dense`, `hybrid` or `action` (see `fixdex search
    /// --help`). The workflow keeps `dense`, the order its recorded sessions were made with.
    #[arg(long, default_value = "dense", value_parser = |s: &str| s.parse::<repair::retrieve::rank::Rank>())]
    pub(crate) rank: repair::retrieve::rank::Rank,
}

impl RetrievalArgs {
    /// The retriever of `--index` without exclusions (each bug adds its own), for the
    /// benchmark runs; `None` without `--index`. An index that lacks the space `strategy`
    /// searches is refused ([`crate::cli::model::check_space`]), and a damaged one
    /// ([`crate::cli::verify::check_opened`]: every byte checked before any bug runs).
    ///
    /// # Errors
    /// The model or index cannot be opened, an unknown `--space`, the missing space, a
    /// damaged index (exit 3).
    pub fn eval_retriever(
        &self,
        strategy: &dyn repair::strategies::Strategy,
    ) -> anyhow::Result<Option<repair::retrieve::Retriever>> {
        let Some(path) = self.index.as_deref() else {
            self.warn_without_index();
            return Ok(None);
        };
        let r = crate::cli::model::open_retriever(path, self.model.as_deref(), repair::retrieve::Exclusion::default())?;
        crate::cli::model::check_space(&r, path, strategy, self.params()?.space, self.space.is_some())?;
        // Every bug searches it: damage found later would only degrade each bug to a run
        // without retrieval (a warning in its report) and skew the arm. The files checked
        // are the ones the retriever opened (the path is opened once).
        let segments = r.segments().with_context(|| format!("opening index {}", path.display()))?;
        crate::cli::verify::check_opened(&segments, path)?;
        Ok(Some(r))
    }
}

/// What the `--index` of `retriever` holds, as `run.json` records it
/// (`settings.index_content`, [`engine::Segments::content_id`]), so that `--resume` refuses
/// another index at the same path. `None` without a retriever.
///
/// # Errors
/// The files now at the index's path cannot be opened.
pub fn index_content(retriever: Option<&repair::retrieve::Retriever>) -> anyhow::Result<Option<String>> {
    let Some(r) = retriever else { return Ok(None) };
    Ok(Some(r.segments()?.content_id()))
}

impl RetrievalArgs {
    /// The retrieval options given that do nothing without `--index` (`--space`,
    /// `--threshold`), as flags; empty with `--index`.
    pub fn unused_without_index(&self) -> Vec<&'static str> {
        if self.index.is_some() {
            return Vec::new();
        }
        [("--space", self.space.is_some()), ("--threshold", self.threshold.is_some())]
            .into_iter()
            .filter_map(|(flag, given)| given.then_some(flag))
            .collect()
    }

    /// Warns on stderr of [`Self::unused_without_index`], if any.
    pub fn warn_without_index(&self) {
        let unused = self.unused_without_index();
        if !unused.is_empty() {
            eprintln!(
                "warning: {} without --index: no similar fix is searched, so {} not used",
                unused.join(" and "),
                if unused.len() == 1 { "it is" } else { "they are" }
            );
        }
    }

    /// The retrieval parameters.
    ///
    /// # Errors
    /// An unknown `--space` name ([`engine::Error::UnknownSpace`]).
    pub fn params(&self) -> anyhow::Result<RetrieveParams> {
        let space: Space = self.space.as_deref().unwrap_or("code+cause").parse()?;
        Ok(RetrieveParams {
            space,
            k: self.top_n,
            threshold: self.threshold,
            rank: self.rank,
            ..RetrieveParams::default()
        })
    }
}

/// The workflow configuration for `client` and `strategy` from the option groups.
///
/// # Errors
/// An unknown `--space` name; a negative or non-finite `--candidate-timeout-factor`.
pub fn run_config(
    llm: &LlmArgs,
    retrieval: &RetrievalArgs,
    run: &RunArgs,
    client: &Client,
    strategy: &dyn Strategy,
) -> anyhow::Result<RunConfig> {
    let f = run.candidate_timeout_factor;
    if !(f.is_finite() && f >= 0.0) {
        anyhow::bail!("--candidate-timeout-factor must be a finite number ≥ 0 (0: off), got {f}");
    }
    let max_calls = llm.max_calls.unwrap_or(strategy.default_max_calls());
    Ok(RunConfig {
        model: client.model.clone(),
        temperature: Some(llm.temperature),
        seed: llm.seed,
        collect_all: run.all,
        retrieval: retrieval.params()?,
        max_tokens: Some(llm.max_reply_tokens),
        budget: Budget {
            max_calls: Some(max_calls),
            max_tokens: llm.max_total_tokens,
            max_micro_usd: llm.max_usd.map(|usd| (usd * 1e6).round() as u64),
        },
        context_tokens: client.context_tokens(llm.llm_context),
        wall: Some(Duration::from_secs(llm.max_wall_s)),
        candidate_timeout_factor: f,
        ..RunConfig::default()
    })
}
