//! `fixdex repair`: the ReinFix workflow on one bug of a project (repair::agent).
//!
//! Prints the first plausible patch as a unified diff (or the whole report with `--json`)
//! and always writes the JSON report (`--report`); the report's warnings (tolerated failing
//! tests, model replies that were unusable and skipped) go to stderr. Exit codes: 0 a
//! plausible patch was found; 4 no plausible patch (search space, budget or time exhausted,
//! also after unusable model replies); 1 an error, including a failed pre-flight (the buggy
//! version does not build, or its tests pass) and a run in which no model reply was usable.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use engine::Space;
use repair::agent::{AgentConfig, Bug, DEFAULT_CONTEXT_TOKENS, Location, Outcome, Workflow};
use repair::llm::{Budget, ChatClient, OpenAiClient, OpenAiConfig, Price, PriceTable, RecordingClient, ReplayClient};
use repair::retrieve::{Exclusion, RetrieveParams};
use repair::validate::{CommandSpec, Validator};

/// Arguments of `fixdex repair`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Project root (never modified: patches are tested in scratch copies).
    #[arg(long)]
    project: PathBuf,
    /// Test command, run with `sh -c` in the project copy; exit 0 = all tests pass.
    #[arg(long, allow_hyphen_values = true)]
    test_cmd: String,
    /// A test that fails on the buggy version (repeatable; a substring of the failing test
    /// names, e.g. `GCD_TEST#test_1`): the pre-flight checks that it fails. With named tests,
    /// a patch is plausible when they pass and no test that passed before fails; other tests
    /// failing on the buggy version may keep failing (listed in the report, warned about).
    #[arg(long, allow_hyphen_values = true)]
    failing_test: Vec<String>,
    /// Build command run before the tests; a failure is a compile error (optional).
    #[arg(long, allow_hyphen_values = true)]
    build_cmd: Option<String>,
    /// Buggy file, relative to the project root (perfect fault localization; with --sbfl,
    /// restricts the SBFL ranking to this file).
    #[arg(long, required_unless_present = "sbfl")]
    file: Option<PathBuf>,
    /// Buggy method or function in --file.
    #[arg(long, conflicts_with_all = ["lines", "sbfl"])]
    method: Option<String>,
    /// Buggy line range in --file, `START-END` (1-based, inclusive).
    #[arg(long, conflicts_with = "sbfl")]
    lines: Option<String>,
    /// Localize the fault with SBFL (Ochiai over per-test coverage, repair::fl): the top
    /// method becomes the buggy code. Python: `coverage run -m pytest` (see --sbfl-pytest-args);
    /// Java: the JaCoCo agent over --sbfl-tests after --build-cmd.
    #[arg(long)]
    sbfl: bool,
    /// SBFL, Python: pytest arguments (one shell-quoted string), e.g. `tests/test_x.py`.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    sbfl_pytest_args: String,
    /// SBFL: Python source folders measured, or Java source roots (repeatable) [default: .].
    #[arg(long)]
    sbfl_source: Vec<PathBuf>,
    /// SBFL, Java: JUnit 4 test classes, comma-separated (selects Java).
    #[arg(long, value_delimiter = ',')]
    sbfl_tests: Vec<String>,
    /// SBFL, Java: class-file folder the build command writes, relative to the project.
    #[arg(long)]
    sbfl_classes: Option<PathBuf>,
    /// SBFL, Java: runtime class path besides the classes (`:`-separated jars: JUnit, libraries).
    #[arg(long, default_value = "/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar")]
    sbfl_classpath: String,
    /// SBFL, Java: JaCoCo includes patterns of the classes under analysis (comma-separated).
    #[arg(long, value_delimiter = ',')]
    sbfl_includes: Vec<String>,
    /// Index or manifest of similar fixes (external ingredients); without it the workflow runs
    /// without retrieval.
    #[arg(long)]
    index: Option<PathBuf>,
    /// Embedding model folder; must be the index's model [default: data/models/all-MiniLM-L6-v2].
    #[arg(long, env = "FIXDEX_MODEL")]
    model: Option<PathBuf>,
    /// Corpus id of this bug: never retrieved (leakage control).
    #[arg(long, allow_hyphen_values = true)]
    bug_id: Option<String>,
    /// Projects never retrieved (repeatable), by identity: `Closure` also excludes
    /// `google/closure-compiler` (the report's `retrieval.excluded_projects` lists the matches).
    #[arg(long, allow_hyphen_values = true)]
    exclude_project: Vec<String>,
    /// Limit per build or test run, seconds.
    #[arg(long, default_value_t = 300)]
    test_timeout_s: u64,
    #[command(flatten)]
    llm: LlmArgs,
    /// Where to write the JSON report (its folder must exist and be writable; checked
    /// before the run).
    #[arg(long, default_value = "fixdex-repair-report.json")]
    report: PathBuf,
    /// Print the report as JSON on stdout instead of the patch.
    #[arg(long)]
    json: bool,
}

/// Model, sampling, search-space, budget and retrieval options, shared by `fixdex repair`
/// and `fixdex bench quixbugs --oracle llm`.
#[derive(Debug, clap::Args)]
pub struct LlmArgs {
    /// Retrieval space: code+cause (ReinFix), code (RAP-Gen style), cause.
    #[arg(long, default_value = "code+cause")]
    pub(crate) space: String,
    /// Similar fixes given to the model (top n).
    #[arg(long, default_value_t = 3)]
    pub(crate) top_n: usize,
    /// Minimum cosine similarity of a similar fix, in [-1, 1].
    #[arg(long)]
    pub(crate) threshold: Option<f32>,
    /// OpenAI-compatible base URL, e.g. http://localhost:8000/v1.
    #[arg(long, env = "FIXDEX_LLM_URL")]
    pub(crate) llm_url: Option<String>,
    /// Model name at the endpoint.
    #[arg(long, env = "FIXDEX_LLM_MODEL")]
    pub(crate) llm_model: Option<String>,
    /// Replay recorded answers from this JSONL file instead of calling an endpoint.
    #[arg(long, conflicts_with = "record")]
    pub(crate) replay: Option<PathBuf>,
    /// Record every exchange with the endpoint into this JSONL file (for --replay).
    #[arg(long)]
    pub(crate) record: Option<PathBuf>,
    /// Sampling temperature (ReinFix: 1).
    #[arg(long, default_value_t = 1.0)]
    pub(crate) temperature: f64,
    /// Sampling seed, for endpoints that honour it.
    #[arg(long)]
    pub(crate) seed: Option<u64>,
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
    /// Most LLM calls.
    #[arg(long, default_value_t = 60)]
    pub(crate) max_calls: u64,
    /// Most LLM tokens over the whole run (prompt + completion, as the server reports them);
    /// `--max-tokens` is an old name for it.
    #[arg(long, alias = "max-tokens")]
    pub(crate) max_total_tokens: Option<u64>,
    /// Most tokens of one model reply (the `max_tokens` of each request).
    #[arg(long, default_value_t = 2048, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_reply_tokens: u32,
    /// Limit on one model request, seconds; a timed-out request is retried once.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) llm_timeout: u64,
    /// The model's context window in tokens (prompt plus reply), e.g. the server's
    /// `--n_ctx`: every request's history is kept within it less the reply budget (old tool
    /// outputs cut, old exchanges dropped; see the README) [default: what the server's model
    /// list says (`GET /models`), else 8192].
    #[arg(long, value_parser = clap::value_parser!(u64).range(256..))]
    pub(crate) llm_context: Option<u64>,
    /// Wall-clock limit of the whole run, seconds; a model request in flight is cut off at it.
    #[arg(long, default_value_t = 1800)]
    pub(crate) max_wall_s: u64,
    /// Price of input tokens, USD per 1M (for the cost in the report).
    #[arg(long)]
    pub(crate) price_in: Option<f64>,
    /// Price of output tokens, USD per 1M.
    #[arg(long)]
    pub(crate) price_out: Option<f64>,
}

/// The chat client chosen by [`LlmArgs`]: a replay file, an endpoint, or an endpoint whose
/// exchanges are recorded.
pub struct Client {
    replay: Option<ReplayClient>,
    http: Option<OpenAiClient>,
    recording: Option<RecordingClient<OpenAiClient>>,
    /// Model name sent in the requests.
    pub model: String,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("info", &self.get().describe()).finish()
    }
}

impl Client {
    /// The client to use.
    pub fn get(&self) -> &dyn ChatClient {
        match (&self.replay, &self.recording, &self.http) {
            (Some(r), _, _) => r,
            (None, Some(r), _) => r,
            (None, None, Some(h)) => h,
            (None, None, None) => unreachable!("LlmArgs::client always sets one"),
        }
    }

    /// Strict replay check: a complete run must have used every recording; a run cut short
    /// (budget, time, error) leaves the rest unused by design and only gets a note.
    pub fn finish(&self, complete: bool) -> anyhow::Result<()> {
        if let Some(r) = &self.replay {
            match r.finish() {
                Err(e) if complete => {
                    return Err(anyhow::Error::new(e)
                        .context("replay: recordings left unused (the run took another path than recorded)"));
                }
                Err(e) => eprintln!("note: the run ended early; {e}"),
                Ok(()) => {}
            }
        }
        Ok(())
    }
}

impl LlmArgs {
    /// Checks, before any work, that the `--record` file can be created.
    pub fn check_outputs(&self) -> anyhow::Result<()> {
        self.record.as_deref().map_or(Ok(()), |p| super::check_output("--record", p))
    }

    /// Opens the replay file, or configures the endpoint (recording when asked).
    pub fn client(&self) -> anyhow::Result<Client> {
        if let Some(path) = &self.replay {
            let replay = ReplayClient::open(path).with_context(|| format!("reading recordings {}", path.display()))?;
            return Ok(Client {
                replay: Some(replay),
                http: None,
                recording: None,
                model: self.llm_model.clone().unwrap_or_default(),
            });
        }
        let cfg = OpenAiConfig::from_env(self.llm_url.clone(), self.llm_model.clone(), None).context(
            "no LLM configured: pass --llm-url and --llm-model (or set FIXDEX_LLM_URL, FIXDEX_LLM_MODEL, \
             OPENAI_API_KEY), or --replay FILE",
        )?;
        let cfg = OpenAiConfig { timeout_ms: self.llm_timeout.saturating_mul(1000), ..cfg };
        let model = cfg.model.clone();
        Ok(match &self.record {
            Some(rec) => Client {
                replay: None,
                http: None,
                recording: Some(
                    RecordingClient::create(OpenAiClient::new(cfg), rec)
                        .with_context(|| format!("creating {}", rec.display()))?,
                ),
                model,
            },
            None => Client { replay: None, http: Some(OpenAiClient::new(cfg)), recording: None, model },
        })
    }

    /// The workflow configuration for `client`: its model; the context window from
    /// `--llm-context`, else from the server's model list ([`ChatClient::context_length`],
    /// one `GET /models`), else [`DEFAULT_CONTEXT_TOKENS`].
    pub fn config(&self, client: &Client) -> anyhow::Result<AgentConfig> {
        let model = client.model.clone();
        let space = Space::ALL
            .into_iter()
            .find(|s| s.name() == self.space)
            .with_context(|| format!("unknown --space {:?} (code+cause, code, cause)", self.space))?;
        Ok(AgentConfig {
            model,
            temperature: Some(self.temperature),
            seed: self.seed,
            attempts: self.attempts,
            suggestions: self.suggestions,
            patches: self.patches,
            collect_all: self.all,
            retrieval: RetrieveParams { space, k: self.top_n, threshold: self.threshold },
            max_tokens: Some(self.max_reply_tokens),
            budget: Budget { max_calls: Some(self.max_calls), max_tokens: self.max_total_tokens },
            context_tokens: self
                .llm_context
                .or_else(|| client.get().context_length().map(u64::from))
                .unwrap_or(DEFAULT_CONTEXT_TOKENS),
            wall: Some(Duration::from_secs(self.max_wall_s)),
            ..AgentConfig::default()
        })
    }

    /// The price table (one entry for `model` when both prices are given).
    pub fn prices(&self, model: &str) -> PriceTable {
        let mut prices = PriceTable::default();
        if let (Some(i), Some(o)) = (self.price_in, self.price_out) {
            prices.0.insert(model.to_string(), Price { input_usd_per_mtok: i, output_usd_per_mtok: o });
        }
        prices
    }
}

/// Exit code when no plausible patch was found.
pub const NO_PATCH: u8 = 4;

/// Runs `fixdex repair`.
pub fn run(a: &Args) -> anyhow::Result<ExitCode> {
    super::check_output("--report", &a.report)?;
    a.llm.check_outputs()?;
    if let Some(file) = &a.file
        && !a.project.join(file).is_file()
    {
        bail!("--file {} is not a file under --project {}", file.display(), a.project.display());
    }
    let (file, location, fault_localization) = fault_location(a)?;
    let exclusion = Exclusion { ids: a.bug_id.iter().cloned().collect(), projects: a.exclude_project.clone() };
    let retriever =
        a.index.as_deref().map(|path| super::model::open_retriever(path, a.model.as_deref(), exclusion)).transpose()?;
    if let Some(r) = &retriever {
        super::search::warn_unmatched(&r.excluded_projects());
    }
    let client = a.llm.client()?;
    let config = a.llm.config(&client)?;
    let validator = Validator {
        build: a.build_cmd.clone().map(CommandSpec::Shell),
        test: CommandSpec::Shell(a.test_cmd.clone()),
        timeout: Duration::from_secs(a.test_timeout_s),
        env: Vec::new(),
    };
    let prices = a.llm.prices(&client.model);
    let bug =
        Bug { id: a.bug_id.clone(), root: a.project.clone(), file, location, failing_tests: a.failing_test.clone() };
    let mut report = Workflow::new(client.get(), retriever, validator, config).with_prices(prices).run(&bug);
    report.fault_localization = fault_localization;
    let json = serde_json::to_string_pretty(&report)?;
    std::fs::write(&a.report, &json).with_context(|| format!("writing the report {}", a.report.display()))?;
    client.finish(matches!(report.outcome, Outcome::Plausible | Outcome::NoPlausiblePatch))?;

    if a.json {
        out!("{json}")?;
    } else if let Some(p) = &report.patch {
        out!("{p}")?;
    }
    for warning in &report.warnings {
        eprintln!("warning: {warning}");
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

/// The fault location: `--method` or `--lines` in `--file`, or SBFL's top method (with its
/// summary for the report).
fn fault_location(a: &Args) -> anyhow::Result<(PathBuf, Location, Option<serde_json::Value>)> {
    Ok(match (&a.method, &a.lines, a.sbfl) {
        (Some(m), None, false) => (a.file.clone().expect("clap: --file required"), Location::Method(m.clone()), None),
        (None, Some(l), false) => {
            let (s, e) = l.split_once('-').context("--lines must be START-END, e.g. 12-30")?;
            let loc =
                Location::Lines(s.trim().parse().context("--lines START")?, e.trim().parse().context("--lines END")?);
            (a.file.clone().expect("clap: --file required"), loc, None)
        }
        (None, None, true) => {
            let (file, loc, summary) = sbfl(a)?;
            (file, loc, Some(summary))
        }
        _ => bail!("give the fault location: --method NAME or --lines START-END (with --file), or --sbfl"),
    })
}

/// SBFL on the project (in a scratch copy): the top-ranked method (in `--file` when given)
/// as `(file, line range, summary for the report)`.
fn sbfl(a: &Args) -> anyhow::Result<(PathBuf, Location, serde_json::Value)> {
    use repair::fl::{CoverageSpec, JavaTarget, PythonTarget, Target};
    let sources = if a.sbfl_source.is_empty() { vec![PathBuf::from(".")] } else { a.sbfl_source.clone() };
    let target = if a.sbfl_tests.is_empty() {
        let python = repair::toolchain::python_from_env()
            .map_err(|(p, e)| anyhow::Error::new(e).context(format!("FIXDEX_PYTHON {}", p.display())))?;
        let pytest_args = shlex::split(&a.sbfl_pytest_args)
            .with_context(|| format!("--sbfl-pytest-args {:?}", a.sbfl_pytest_args))?;
        let sources = if a.sbfl_source.is_empty() { Vec::new() } else { sources };
        Target::Python(PythonTarget { python, pytest_args, sources })
    } else {
        let classes = a.sbfl_classes.clone().context("--sbfl with --sbfl-tests (Java) needs --sbfl-classes DIR")?;
        Target::Java(JavaTarget {
            build: a.build_cmd.clone().map(CommandSpec::Shell),
            classes_dir: classes,
            class_path: a.sbfl_classpath.split(':').filter(|s| !s.is_empty()).map(PathBuf::from).collect(),
            test_classes: a.sbfl_tests.clone(),
            includes: a.sbfl_includes.clone(),
            source_roots: sources,
            jacoco_dir: repair::toolchain::jacoco_dir_from_env(),
        })
    };
    let spec = CoverageSpec { target, timeout: Duration::from_secs(a.test_timeout_s) };
    let fl = repair::fl::sbfl(&a.project, &spec).context("SBFL fault localization")?;
    let want = a.file.as_ref().map(|f| f.to_string_lossy().replace('\\', "/"));
    let top =
        fl.methods.iter().find(|m| want.as_deref().is_none_or(|w| m.file == w.trim_start_matches("./"))).with_context(
            || {
                format!(
                    "SBFL ranked no method{} ({} failing, {} passing tests)",
                    want.as_deref().map(|w| format!(" in {w}")).unwrap_or_default(),
                    fl.failed,
                    fl.passed
                )
            },
        )?;
    eprintln!(
        "SBFL (Ochiai): {} {}-{} in {} (score {:.3}, rank {}, {} tied)",
        top.name, top.start_line, top.end_line, top.file, top.score, top.rank, top.ties
    );
    let summary = serde_json::json!({"method": "sbfl-ochiai", "chosen": top,
        "top_methods": fl.methods.iter().take(5).collect::<Vec<_>>(), "failed": fl.failed, "passed": fl.passed});
    Ok((PathBuf::from(&top.file), Location::Lines(top.start_line as usize, top.end_line as usize), summary))
}
