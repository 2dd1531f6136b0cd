//! [`LlmArgs`]: the options of every command that talks to a model (endpoint or replay
//! file, sampling, budget, limits, prices), the [`ClientChoice`] they make and the
//! [`Client`] it builds.

use std::path::PathBuf;

use anyhow::Context;
use repair::llm::{ClientChoice, OpenAiConfig, Price, PriceTable, RunClient};

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
    /// Most LLM calls [default: 60; 40 for `--strategy tracerepair`, the paper's budget]; at
    /// least 1 (a run with no model is `--strategy patterns`).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_calls: Option<u64>,
    /// Most LLM tokens over the whole run (prompt + completion, as the server reports them);
    /// `--max-tokens` is an old name for it.
    #[arg(long, alias = "max-tokens", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_total_tokens: Option<u64>,
    /// Cost budget of a run (of each bug in an evaluation), USD, from --price-in/--price-out:
    /// no model call is made once the calls so far cost this much.
    #[arg(long, value_name = "USD", value_parser = parse_usd)]
    pub(crate) max_usd: Option<f64>,
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
    /// Wall-clock limit of the whole repair of one bug (in `eval`, of each bug), seconds; a
    /// model request in flight is cut off at it (at least 1).
    #[arg(long, default_value_t = 1800, value_parser = super::positive_seconds)]
    pub(crate) max_wall_s: u64,
    /// Price of input tokens, USD per 1M (for the cost in the report).
    #[arg(long)]
    pub(crate) price_in: Option<f64>,
    /// Price of output tokens, USD per 1M.
    #[arg(long)]
    pub(crate) price_out: Option<f64>,
}

/// The chat client chosen by [`LlmArgs`] ([`RunClient`], built from a [`ClientChoice`]),
/// with the binary's policy for recordings a replay left unused ([`Client::finish`]).
#[derive(Debug)]
pub struct Client(RunClient);

impl std::ops::Deref for Client {
    type Target = RunClient;

    fn deref(&self) -> &RunClient {
        &self.0
    }
}

impl Client {
    /// Strict replay check: a complete run must have used every recording; a run cut short
    /// (budget, time, error) leaves the rest unused by design and only gets a note.
    ///
    /// # Errors
    /// A complete run that left recordings unused ([`RunClient::unused_recordings`]).
    pub fn finish(&self, complete: bool) -> anyhow::Result<()> {
        let Err(e) = self.unused_recordings() else { return Ok(()) };
        if complete {
            return Err(anyhow::Error::new(e)
                .context("replay: recordings left unused (the run took another path than recorded)"));
        }
        eprintln!("note: the run ended early; {e}");
        Ok(())
    }
}

/// Builds the client `choice` names ([`ClientChoice::build`]).
fn build(choice: ClientChoice) -> anyhow::Result<Client> {
    Ok(Client(choice.build()?))
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

    /// The client for `strategy`: [`ClientChoice::NoModel`] when it needs no model (the
    /// model options are then ignored, with a warning on stderr naming those given that have
    /// no default: `--replay`, `--record`, `--seed`, the budgets, `--llm-context`, the
    /// prices), else [`Self::client`], its error headed by the strategy's
    /// [`model_note`](repair::strategies::Strategy::model_note) when no model was given.
    pub fn client_for(&self, strategy: &dyn repair::strategies::Strategy) -> anyhow::Result<Client> {
        if !strategy.needs_model() {
            let unused = self.given_model_options();
            if !unused.is_empty() {
                eprintln!(
                    "warning: --strategy {} calls no model: {} not used",
                    strategy.name(),
                    if unused.len() == 1 { format!("{} is", unused[0]) } else { format!("{} are", unused.join(", ")) }
                );
            }
            return build(ClientChoice::NoModel);
        }
        let client = self.client();
        // The note says why a model is needed at all; when one was given (an endpoint or a
        // replay file) and fails to open, the failure itself is the message.
        match strategy.model_note() {
            Some(note) if self.llm_url.is_none() && self.replay.is_none() => client.context(note),
            _ => client,
        }
    }

    /// The model options given that have no default, as `--flag VALUE` (the endpoint's URL
    /// and model also come from the environment, and are left out: an exported variable is
    /// no mistake).
    fn given_model_options(&self) -> Vec<String> {
        let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
        let num = |n: Option<u64>| n.map(|n| n.to_string());
        let usd = |x: Option<f64>| x.map(|x| x.to_string());
        [
            ("--replay", path(&self.replay)),
            ("--record", path(&self.record)),
            ("--seed", num(self.seed)),
            ("--max-calls", num(self.max_calls)),
            ("--max-total-tokens", num(self.max_total_tokens)),
            ("--max-usd", usd(self.max_usd)),
            ("--llm-context", num(self.llm_context)),
            ("--price-in", usd(self.price_in)),
            ("--price-out", usd(self.price_out)),
        ]
        .into_iter()
        .filter_map(|(flag, v)| v.map(|v| format!("{flag} {v}")))
        .collect()
    }

    /// Opens the replay file, or configures the endpoint (recording when asked).
    ///
    /// # Errors
    /// No endpoint configured, or a replay or recordings file that cannot be opened.
    pub fn client(&self) -> anyhow::Result<Client> {
        build(self.choice()?)
    }

    /// The [`ClientChoice`] the flags make: `--replay` (with `--llm-model` when given), else
    /// the endpoint, recorded into `--record` when given.
    fn choice(&self) -> anyhow::Result<ClientChoice> {
        if let Some(path) = &self.replay {
            return Ok(ClientChoice::Replay { path: path.clone(), model: self.llm_model.clone() });
        }
        let endpoint = self.endpoint()?;
        Ok(match &self.record {
            Some(path) => ClientChoice::Record { endpoint, path: path.clone() },
            None => ClientChoice::Endpoint(endpoint),
        })
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

/// A cost budget in USD: a finite number ≥ 0.
fn parse_usd(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("`{s}` is not an amount in USD (a number ≥ 0)")),
    }
}
