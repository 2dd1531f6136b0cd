//! The repair workflow's options beside [`LlmArgs`], shared by
//! `fixdex repair` and `fixdex eval quixbugs`: the strategy, retrieval of similar fixes
//! ([`RetrievalArgs`]) and the ReinFix search space ([`ReinfixArgs`]).

use std::path::PathBuf;
use std::time::Duration;

use engine::Space;
use repair::config::RunConfig as AgentConfig;
use repair::llm::Budget;
use repair::retrieve::RetrieveParams;
use repair::strategies::patterns::{Patterns, Suspiciousness};
use repair::strategies::tracerepair::{ProbeMode, TraceRepair};
use repair::strategies::unidebugger::UniDebugger;

use super::llm_args::{Client, LlmArgs};

/// The repair strategy (`--strategy NAME`): one of the repair crate's registry
/// ([`repair::strategies::NAMES`]; the first is the default).
#[derive(Debug, Clone, clap::Args)]
pub struct StrategyArgs {
    /// Repair strategy: `reinfix` (root cause with the internal tools, similar fixes, repair
    /// suggestions, candidate patches; ReinFix, Algorithm 1), `patterns` (no model: fix
    /// templates on the localized method, ordered by the actions of similar fixes when there
    /// is an `--index`, up to `--max-validations` or 10 minutes), `tracerepair` (runtime
    /// probes, a debate of three agents over the trace, a judge; TraceRepair, Algorithm 1) or
    /// `unidebugger` (escalation L1 → L2 → L3 and reflection, its Helper retrieving similar
    /// fixes from `--index`; UniDebugger).
    #[arg(long = "strategy", default_value = repair::strategies::NAMES[0],
          value_parser = clap::builder::PossibleValuesParser::new(repair::strategies::NAMES))]
    pub(crate) name: String,
    /// `patterns`: order the templates by their fitted prior alone even with `--index` (the
    /// ablation of the retrieval-guided order: no similar fixes are searched).
    #[arg(long)]
    pub(crate) no_retrieval: bool,
    /// `patterns` and `unidebugger`: most candidates validated per bug [default: 200 for
    /// patterns, 20 for unidebugger (the paper's bound)].
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub(crate) max_validations: Option<usize>,
    /// `unidebugger`: escalations L1 → reflection at most (the paper's k; 1-10), while
    /// validations last [default: 2].
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=10))]
    pub(crate) passes: Option<usize>,
    /// A candidate's build or test command may take this many times the buggy version's
    /// slower command in the pre-flight (at least 10 s, at most the command limit), so that a
    /// candidate with an endless loop costs seconds, not the whole limit; 0: always the
    /// command limit.
    #[arg(long, default_value_t = repair::validate::DEFAULT_TIMEOUT_FACTOR)]
    pub(crate) candidate_timeout_factor: f64,
    /// `tracerepair`: how the probes are chosen: `model` (the probe agent names the critical
    /// variables and lines) or `auto` (every assignment and `if` arm of the localized method;
    /// no model call) [default: model].
    #[arg(long, value_parser = |s: &str| s.parse::<ProbeMode>())]
    pub(crate) probe: Option<ProbeMode>,
    /// `tracerepair`: candidates each agent samples for its first hypothesis [default: 3].
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=20))]
    pub(crate) samples: Option<usize>,
    /// `tracerepair`: debate rounds at most before the judge [default: 3].
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=20))]
    pub(crate) rounds: Option<usize>,
    /// `tracerepair`: stop after the probes: the report records the probes and the trace,
    /// no patch is sought (with `--probe auto`, no model is needed).
    #[arg(long)]
    pub(crate) trace_only: bool,
}

impl StrategyArgs {
    /// `config` with this group's validation options (`--candidate-timeout-factor`).
    ///
    /// # Errors
    /// A negative or non-finite factor.
    pub fn configure(&self, config: &mut AgentConfig) -> anyhow::Result<()> {
        let f = self.candidate_timeout_factor;
        if !(f.is_finite() && f >= 0.0) {
            anyhow::bail!("--candidate-timeout-factor must be a finite number ≥ 0 (0: off), got {f}");
        }
        config.candidate_timeout_factor = f;
        Ok(())
    }

    /// The strategy's name as `--strategy` spells it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The strategy from the repair crate's registry.
    ///
    /// # Errors
    /// An unknown name (clap refuses those first).
    pub fn strategy(&self) -> anyhow::Result<Box<dyn repair::strategies::Strategy>> {
        self.strategy_with(Suspiciousness::Uniform)
    }

    /// The strategy, with `patterns` given the line weights `suspiciousness` and the
    /// `--no-retrieval` and `--max-validations` options.
    ///
    /// # Errors
    /// An unknown name; `--no-retrieval` or `--max-validations` with another strategy.
    pub fn strategy_with(
        &self,
        suspiciousness: Suspiciousness,
    ) -> anyhow::Result<Box<dyn repair::strategies::Strategy>> {
        let trace_flags = self.probe.is_some() || self.samples.is_some() || self.rounds.is_some() || self.trace_only;
        if self.name != "tracerepair" && trace_flags {
            anyhow::bail!("--probe, --samples, --rounds and --trace-only apply to --strategy tracerepair");
        }
        if self.trace_only && (self.samples.is_some() || self.rounds.is_some()) {
            anyhow::bail!("--samples and --rounds shape the debate, which --trace-only skips");
        }
        if self.name != "unidebugger" && self.passes.is_some() {
            anyhow::bail!("--passes applies to --strategy unidebugger");
        }
        match self.name.as_str() {
            "patterns" => Ok(Box::new(Patterns {
                retrieval: !self.no_retrieval,
                max_validations: self.max_validations.unwrap_or(200),
                suspiciousness,
                ..Patterns::default()
            })),
            _ if self.no_retrieval => anyhow::bail!(
                "--no-retrieval applies to --strategy patterns; {} retrieves only with --index",
                self.name
            ),
            "unidebugger" => Ok(Box::new(self.unidebugger(suspiciousness))),
            _ if self.max_validations.is_some() => {
                anyhow::bail!("--max-validations applies to --strategy patterns and unidebugger")
            }
            "tracerepair" => Ok(Box::new(self.tracerepair())),
            _ => Ok(repair::strategies::by_name(&self.name)?),
        }
    }
}

impl StrategyArgs {
    /// UniDebugger with `--max-validations` and `--passes`; SBFL's line scores seed its
    /// Locator.
    fn unidebugger(&self, suspiciousness: Suspiciousness) -> UniDebugger {
        let d = UniDebugger::default();
        let sbfl = match suspiciousness {
            Suspiciousness::Sbfl(lines) => lines.into_iter().collect(),
            Suspiciousness::Uniform => Vec::new(),
        };
        UniDebugger {
            max_validations: self.max_validations.unwrap_or(d.max_validations),
            passes: self.passes.unwrap_or(d.passes),
            sbfl,
            ..d
        }
    }

    /// TraceRepair with `--probe`, `--samples`, `--rounds` and `--trace-only`.
    fn tracerepair(&self) -> TraceRepair {
        let d = TraceRepair::default();
        TraceRepair {
            probe: self.probe.unwrap_or(d.probe),
            samples: self.samples.unwrap_or(d.samples),
            rounds: self.rounds.unwrap_or(d.rounds),
            trace_only: self.trace_only,
        }
    }
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
    /// Retrieval space: code+cause (ReinFix), code (RAP-Gen style), cause.
    #[arg(long, default_value = "code+cause")]
    pub(crate) space: String,
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

/// The ReinFix search space: attempts × suggestions × patches.
#[derive(Debug, clap::Args)]
#[command(next_help_heading = "ReinFix search space")]
pub struct ReinfixArgs {
    /// Repair attempts.
    #[arg(long, default_value_t = 3)]
    pub(crate) attempts: usize,
    /// Repair suggestions per attempt.
    #[arg(long, default_value_t = 3)]
    pub(crate) suggestions: usize,
    /// Candidate patches per suggestion.
    #[arg(long, default_value_t = 5)]
    pub(crate) patches: usize,
    /// Collect every plausible patch instead of stopping at the first.
    #[arg(long)]
    pub(crate) all: bool,
}

impl RetrievalArgs {
    /// The retrieval parameters.
    ///
    /// # Errors
    /// An unknown `--space` name ([`engine::Error::UnknownSpace`]).
    pub fn params(&self) -> anyhow::Result<RetrieveParams> {
        let space: Space = self.space.parse()?;
        Ok(RetrieveParams {
            space,
            k: self.top_n,
            threshold: self.threshold,
            rank: self.rank,
            ..RetrieveParams::default()
        })
    }
}

/// The workflow configuration for `client` from the three option groups; `default_calls`
/// is the strategy's call budget when `--max-calls` is not given
/// ([`repair::strategies::Strategy::default_max_calls`]).
///
/// # Errors
/// An unknown `--space` name.
pub fn agent_config(
    llm: &LlmArgs,
    retrieval: &RetrievalArgs,
    reinfix: &ReinfixArgs,
    client: &Client,
    default_calls: u64,
) -> anyhow::Result<AgentConfig> {
    Ok(AgentConfig {
        model: client.model.clone(),
        temperature: Some(llm.temperature),
        seed: llm.seed,
        attempts: reinfix.attempts,
        suggestions: reinfix.suggestions,
        patches: reinfix.patches,
        collect_all: reinfix.all,
        retrieval: retrieval.params()?,
        max_tokens: Some(llm.max_reply_tokens),
        budget: Budget { max_calls: Some(llm.max_calls.unwrap_or(default_calls)), max_tokens: llm.max_total_tokens },
        context_tokens: client.context_tokens(llm.llm_context),
        wall: Some(Duration::from_secs(llm.max_wall_s)),
        ..AgentConfig::default()
    })
}
