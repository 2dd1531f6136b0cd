//! [`LlmArgs`]: the options of every command that talks to a model (endpoint or replay
//! file, sampling, budget, limits, prices), and the [`Client`] they choose.

use std::path::PathBuf;

use anyhow::Context;
use repair::llm::{ChatClient, NoModel, OpenAiClient, OpenAiConfig, Price, PriceTable, RecordingClient, ReplayClient};
use repair::run::config::DEFAULT_CONTEXT_TOKENS;

/// Model, sampling, budget and limit options, shared by `fixdex repair` and
/// `fixdex eval quixbugs`.
#[derive(Debug, clap::Args)]
#[command(next_help_heading = "Model")]
pub struct LlmArgs {
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
    /// Most LLM calls [default: 60; 40 for `--strategy tracerepair`, the paper's budget].
    #[arg(long)]
    pub(crate) max_calls: Option<u64>,
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
    /// Set for a strategy that needs no model: nothing is ever sent.
    none: Option<NoModel>,
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
        if let Some(none) = &self.none {
            return none;
        }
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
        let Some(Err(e)) = self.replay.as_ref().map(ReplayClient::finish) else { return Ok(()) };
        if complete {
            return Err(anyhow::Error::new(e)
                .context("replay: recordings left unused (the run took another path than recorded)"));
        }
        eprintln!("note: the run ended early; {e}");
        Ok(())
    }

    /// The context window in tokens: `--llm-context`, else the server's model list
    /// ([`ChatClient::context_length`], one `GET /models`), else [`DEFAULT_CONTEXT_TOKENS`].
    pub fn context_tokens(&self, llm_context: Option<u64>) -> u64 {
        llm_context.or_else(|| self.get().context_length().map(u64::from)).unwrap_or(DEFAULT_CONTEXT_TOKENS)
    }
}

impl LlmArgs {
    /// Checks, before any work, that the `--record` file may be written and is none of
    /// `inputs` ([`super::check_output`]).
    ///
    /// # Errors
    /// One line naming `--record`, the path and what is wrong.
    pub fn check_outputs(&self, inputs: &[&std::path::Path]) -> anyhow::Result<()> {
        self.record.as_deref().map_or(Ok(()), |p| super::check_output("--record", p, inputs).map(drop))
    }

    /// The client for `strategy`: [`NoModel`] when it needs no model (the model options
    /// are then ignored), else [`Self::client`].
    pub fn client_for(&self, strategy: &dyn repair::strategies::Strategy) -> anyhow::Result<Client> {
        if strategy.needs_model() {
            let client = self.client();
            return match strategy.model_note() {
                Some(note) => client.context(note),
                None => client,
            };
        }
        Ok(Client { none: Some(NoModel), replay: None, http: None, recording: None, model: String::new() })
    }

    /// Opens the replay file, or configures the endpoint (recording when asked).
    pub fn client(&self) -> anyhow::Result<Client> {
        if let Some(path) = &self.replay {
            return self.replay_client(path);
        }
        let cfg = self.endpoint()?;
        let model = cfg.model.clone();
        let Some(rec) = &self.record else {
            return Ok(Client { none: None, replay: None, http: Some(OpenAiClient::new(cfg)), recording: None, model });
        };
        let recording = RecordingClient::create(OpenAiClient::new(cfg), rec)
            .with_context(|| format!("creating {}", rec.display()))?;
        Ok(Client { none: None, replay: None, http: None, recording: Some(recording), model })
    }

    /// The client replaying the recordings in `path`.
    fn replay_client(&self, path: &std::path::Path) -> anyhow::Result<Client> {
        let replay = ReplayClient::open(path).with_context(|| format!("reading recordings {}", path.display()))?;
        let model = self.llm_model.clone().unwrap_or_default();
        Ok(Client { none: None, replay: Some(replay), http: None, recording: None, model })
    }

    /// The endpoint's configuration from the flags and the environment.
    fn endpoint(&self) -> anyhow::Result<OpenAiConfig> {
        let cfg = OpenAiConfig::from_env(self.llm_url.clone(), self.llm_model.clone(), None).context(
            "no LLM configured: pass --llm-url and --llm-model (or set FIXDEX_LLM_URL, FIXDEX_LLM_MODEL, \
             OPENAI_API_KEY), or --replay FILE",
        )?;
        Ok(OpenAiConfig { timeout_ms: self.llm_timeout.saturating_mul(1000), ..cfg })
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
