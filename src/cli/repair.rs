//! `fixdex repair`: the ReinFix workflow on one bug of a project (repair::agent).
//!
//! Prints the first plausible patch as a unified diff (or the whole report with `--json`)
//! and always writes the JSON report (`--report`). Exit codes: 0 a plausible patch was
//! found; 4 no plausible patch (search space, budget or time exhausted); 1 an error,
//! including a failed pre-flight (the buggy version does not build, or its tests pass).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use engine::Space;
use repair::agent::{AgentConfig, Bug, Location, Outcome, Workflow};
use repair::llm::{Budget, ChatClient, OpenAiClient, OpenAiConfig, Price, PriceTable, RecordingClient, ReplayClient};
use repair::retrieve::{Exclusion, RetrieveParams, Retriever};
use repair::validate::{CommandSpec, Validator};

/// Arguments of `fixdex repair`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Project root (never modified: patches are tested in scratch copies).
    #[arg(long)]
    project: PathBuf,
    /// Test command, run with `sh -c` in the project copy; exit 0 = all tests pass.
    #[arg(long)]
    test_cmd: String,
    /// Build command run before the tests; a failure is a compile error (optional).
    #[arg(long)]
    build_cmd: Option<String>,
    /// Buggy file, relative to the project root (perfect fault localization).
    #[arg(long)]
    file: PathBuf,
    /// Buggy method or function in --file.
    #[arg(long, conflicts_with = "lines")]
    method: Option<String>,
    /// Buggy line range in --file, `START-END` (1-based, inclusive).
    #[arg(long)]
    lines: Option<String>,
    /// Index or manifest of similar fixes (external ingredients); without it the workflow runs
    /// without retrieval.
    #[arg(long)]
    index: Option<PathBuf>,
    /// Embedding model folder; must be the index's model [default: data/models/all-MiniLM-L6-v2].
    #[arg(long, env = "FIXDEX_MODEL")]
    model: Option<PathBuf>,
    /// Corpus id of this bug: never retrieved (leakage control).
    #[arg(long)]
    bug_id: Option<String>,
    /// Projects never retrieved (repeatable).
    #[arg(long)]
    exclude_project: Vec<String>,
    /// Retrieval space: code+cause (ReinFix), code (RAP-Gen style), cause.
    #[arg(long, default_value = "code+cause")]
    space: String,
    /// Similar fixes given to the model (top n).
    #[arg(long, default_value_t = 3)]
    top_n: usize,
    /// Minimum cosine similarity of a similar fix, in [-1, 1].
    #[arg(long)]
    threshold: Option<f32>,
    /// OpenAI-compatible base URL, e.g. http://localhost:8000/v1.
    #[arg(long, env = "FIXDEX_LLM_URL")]
    llm_url: Option<String>,
    /// Model name at the endpoint.
    #[arg(long, env = "FIXDEX_LLM_MODEL")]
    llm_model: Option<String>,
    /// Replay recorded answers from this JSONL file instead of calling an endpoint.
    #[arg(long, conflicts_with = "record")]
    replay: Option<PathBuf>,
    /// Record every exchange with the endpoint into this JSONL file (for --replay).
    #[arg(long)]
    record: Option<PathBuf>,
    /// Sampling temperature (ReinFix: 1).
    #[arg(long, default_value_t = 1.0)]
    temperature: f64,
    /// Sampling seed, for endpoints that honour it.
    #[arg(long)]
    seed: Option<u64>,
    /// Repair attempts.
    #[arg(long, default_value_t = 3)]
    attempts: usize,
    /// Repair suggestions per attempt.
    #[arg(long, default_value_t = 3)]
    suggestions: usize,
    /// Candidate patches per suggestion.
    #[arg(long, default_value_t = 5)]
    patches: usize,
    /// Collect every plausible patch instead of stopping at the first.
    #[arg(long)]
    all: bool,
    /// Most LLM calls.
    #[arg(long, default_value_t = 60)]
    max_calls: u64,
    /// Most LLM tokens (prompt + completion).
    #[arg(long)]
    max_tokens: Option<u64>,
    /// Wall-clock limit of the whole run, seconds.
    #[arg(long, default_value_t = 1800)]
    max_wall_s: u64,
    /// Limit per build or test run, seconds.
    #[arg(long, default_value_t = 300)]
    test_timeout_s: u64,
    /// Price of input tokens, USD per 1M (for the cost in the report).
    #[arg(long)]
    price_in: Option<f64>,
    /// Price of output tokens, USD per 1M.
    #[arg(long)]
    price_out: Option<f64>,
    /// Where to write the JSON report.
    #[arg(long, default_value = "fixdex-repair-report.json")]
    report: PathBuf,
    /// Print the report as JSON on stdout instead of the patch.
    #[arg(long)]
    json: bool,
}

/// Exit code when no plausible patch was found.
pub const NO_PATCH: u8 = 4;

/// Runs `fixdex repair`.
pub fn run(a: &Args) -> anyhow::Result<ExitCode> {
    let location = match (&a.method, &a.lines) {
        (Some(m), None) => Location::Method(m.clone()),
        (None, Some(l)) => {
            let (s, e) = l.split_once('-').context("--lines must be START-END, e.g. 12-30")?;
            Location::Lines(s.trim().parse().context("--lines START")?, e.trim().parse().context("--lines END")?)
        }
        _ => bail!("give the fault location: --method NAME or --lines START-END (with --file)"),
    };
    if !a.project.join(&a.file).is_file() {
        bail!("--file {} is not a file under --project {}", a.file.display(), a.project.display());
    }
    let space = Space::ALL
        .into_iter()
        .find(|s| s.name() == a.space)
        .with_context(|| format!("unknown --space {:?} (code+cause, code, cause)", a.space))?;
    let retriever = match &a.index {
        None => None,
        Some(path) => {
            let model = super::model::load(&super::model::resolve(a.model.as_deref()))?;
            let exclusion = Exclusion { ids: a.bug_id.iter().cloned().collect(), projects: a.exclude_project.clone() };
            Some(
                Retriever::open(path, Arc::new(model), exclusion)
                    .with_context(|| format!("opening index {}", path.display()))?,
            )
        }
    };

    let replay = match &a.replay {
        Some(path) => Some(ReplayClient::open(path).with_context(|| format!("reading recordings {}", path.display()))?),
        None => None,
    };
    let http;
    let recording;
    let (client, model_name): (&dyn ChatClient, String) = if let Some(r) = &replay {
        (r, a.llm_model.clone().unwrap_or_default())
    } else {
        let cfg = OpenAiConfig::from_env(a.llm_url.clone(), a.llm_model.clone(), None).context(
            "no LLM configured: pass --llm-url and --llm-model (or set FIXDEX_LLM_URL, FIXDEX_LLM_MODEL, \
             OPENAI_API_KEY), or --replay FILE",
        )?;
        let name = cfg.model.clone();
        if let Some(rec) = &a.record {
            recording = RecordingClient::create(OpenAiClient::new(cfg), rec)
                .with_context(|| format!("creating {}", rec.display()))?;
            (&recording, name)
        } else {
            http = OpenAiClient::new(cfg);
            (&http, name)
        }
    };

    let config = AgentConfig {
        model: model_name.clone(),
        temperature: Some(a.temperature),
        seed: a.seed,
        attempts: a.attempts,
        suggestions: a.suggestions,
        patches: a.patches,
        collect_all: a.all,
        retrieval: RetrieveParams { space, k: a.top_n, threshold: a.threshold },
        budget: Budget { max_calls: Some(a.max_calls), max_tokens: a.max_tokens },
        wall: Some(Duration::from_secs(a.max_wall_s)),
        ..AgentConfig::default()
    };
    let validator = Validator {
        build: a.build_cmd.clone().map(CommandSpec::Shell),
        test: CommandSpec::Shell(a.test_cmd.clone()),
        timeout: Duration::from_secs(a.test_timeout_s),
        env: Vec::new(),
    };
    let mut prices = PriceTable::default();
    if let (Some(i), Some(o)) = (a.price_in, a.price_out) {
        prices.0.insert(model_name, Price { input_usd_per_mtok: i, output_usd_per_mtok: o });
    }
    let bug = Bug { id: a.bug_id.clone(), root: a.project.clone(), file: a.file.clone(), location };
    let report = Workflow::new(client, retriever, validator, config).with_prices(prices).run(&bug);
    let json = serde_json::to_string_pretty(&report)?;
    std::fs::write(&a.report, &json).with_context(|| format!("writing the report {}", a.report.display()))?;
    // Strict replay: a complete run must use every recording. A run cut short by a budget,
    // the wall clock or an error leaves the rest unused by design: say so, do not fail.
    if let Some(r) = &replay {
        let complete = matches!(report.outcome, Outcome::Plausible | Outcome::NoPlausiblePatch);
        match r.finish() {
            Err(e) if complete => {
                return Err(anyhow::Error::new(e)
                    .context("replay: recordings left unused (the run took another path than recorded)"));
            }
            Err(e) => eprintln!("note: the run ended early ({:?}); {e}", report.outcome),
            Ok(()) => {}
        }
    }

    if a.json {
        out!("{json}")?;
    } else if let Some(p) = &report.patch {
        out!("{p}")?;
    }
    let tried = report.candidates.len();
    eprintln!(
        "{:?}: {tried} candidates, {} LLM calls, {} tokens, {:.1} s{}{} (report: {})",
        report.outcome,
        report.llm.calls,
        report.llm.tokens(),
        report.wall_s,
        report.error.as_ref().map(|e| format!("; {e}")).unwrap_or_default(),
        if report.synthetic { "; SYNTHETIC answers: not a repair result" } else { "" },
        a.report.display()
    );
    Ok(match report.outcome {
        Outcome::Plausible => ExitCode::SUCCESS,
        Outcome::NoPlausiblePatch | Outcome::BudgetExhausted | Outcome::Timeout => ExitCode::from(NO_PATCH),
        Outcome::PreflightFailed | Outcome::Error => ExitCode::from(super::exit::ERROR),
    })
}
