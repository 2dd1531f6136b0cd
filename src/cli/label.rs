//! `fixdex label`: writes a root cause into every row of a corpus (repair::label), with a
//! model (`--llm-url`/`--llm-model`, `--replay`, `--record`) or `--mechanical` (from the fix's
//! repair actions, no model).
//!
//! Resumable: every labelled row goes into the cache (`--cache`, default `OUTPUT.cache`) at
//! once, and a rerun asks only for rows not there. The output is written at the end, through
//! a temporary file renamed over it. The summary goes to stderr (with `--json`, one JSON
//! object on stdout). Exit codes: 0 every row got a root cause; 4 some rows did not (model
//! errors, unusable answers, a budget or the wall-clock limit stopped the run: the summary
//! says which and why); the output is written in both cases, and a rerun resumes. 1 an
//! error (a bad input line, I/O, unusable cache, no model configured): the output is left
//! as it was.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use repair::label::{LabelConfig, LabelSummary, Labeller, RequestOptions};
use repair::llm::Budget;

use super::llm_args::{Client, LlmArgs};

/// Arguments of `fixdex label`.
#[derive(Debug, clap::Args)]
#[command(
    mut_arg("max_calls", |a| a.help("Most LLM calls of this run [default: no limit]")),
    mut_arg("max_wall_s", |a| a
        .default_value("0")
        .value_parser(clap::value_parser!(u64))
        .help("Wall-clock limit of the run, seconds; 0: none. No request starts after it, one in flight is cut off")),
    mut_arg("temperature", |a| a.default_value("0").help("Sampling temperature (0 for reproducible labels)")),
    mut_arg("llm_context", |a| a.hide(true)),
)]
pub struct Args {
    /// Corpus to label: JSONL rows of the corpus schema (`buggy_code` and `fixed_code`
    /// required; `id`, `language`, `description`, `diff`, `meta` read when present).
    input: PathBuf,
    /// Where to write the labelled corpus (may be the input: it is replaced only at the end).
    #[arg(short, long)]
    output: PathBuf,
    /// Cache of labelled rows, for resuming [default: OUTPUT.cache].
    #[arg(long)]
    cache: Option<PathBuf>,
    /// No model: the root cause is written from the fix's repair actions (Java and Python
    /// rows; rows in other languages fail). The model options are ignored.
    #[arg(long)]
    mechanical: bool,
    /// Rows labelled at the same time (worker threads).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=256))]
    concurrency: u16,
    /// Most model requests started per minute, all workers together [default: no limit].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    rpm: Option<u32>,
    /// Print the summary as one JSON object on stdout.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    llm: LlmArgs,
}

/// Exit code when some rows got no root cause.
pub const INCOMPLETE: u8 = 4;

/// Failed rows named in the summary on stderr (all are in `--json`).
const SHOWN_FAILURES: usize = 10;

/// Runs `fixdex label`.
pub fn run(a: &Args) -> anyhow::Result<ExitCode> {
    let (output, cache) = check_paths(a)?;
    // Two runs on one output (or one cache) would ask every row twice: the second is refused.
    let _locks = (super::lock_output("--output", &output)?, super::lock_output("--cache", &cache)?);
    let client = if a.mechanical { None } else { Some(a.llm.client()?) };
    let summary = label(a, client.as_ref(), &output, &cache)?;
    finish(client.as_ref(), &summary)?;
    let synthetic = client.as_ref().is_some_and(|c| c.get().is_synthetic());
    print_summary(a, &summary, &cache, synthetic)?;
    Ok(if summary.failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(INCOMPLETE) })
}

/// Labels `--input` into `output` through `cache` ([`repair::label::label_file`]), with
/// `client`'s model, or mechanically without one.
fn label(a: &Args, client: Option<&Client>, output: &Path, cache: &Path) -> anyhow::Result<LabelSummary> {
    let model = client.map(model_name).transpose()?.unwrap_or_default();
    let labeller = match client {
        Some(c) => Labeller::Model { client: c.get(), model: &model },
        None => Labeller::Mechanical,
    };
    Ok(repair::label::label_file(&a.input, output, cache, labeller, &config(a, &model), &Bar::default())?)
}

/// The strict replay check ([`Client::finish`]) of a run that asked the model for every row
/// (none came from the cache, so every recording should have been used).
fn finish(client: Option<&Client>, s: &LabelSummary) -> anyhow::Result<()> {
    client.filter(|_| s.from_cache == 0).map_or(Ok(()), |c| c.finish(s.failed == 0))
}

/// `OUTPUT` with `.cache` appended to its file name.
fn default_cache(output: &Path) -> PathBuf {
    let mut name = output.file_name().unwrap_or_default().to_os_string();
    name.push(".cache");
    output.with_file_name(name)
}

/// Checks, before any work, the input, the output, the cache and `--record`
/// ([`super::check_output`]); the files to write the output and the cache to. The output
/// may be the input (it is replaced at the end), else a new file or JSON lines
/// ([`super::check_replaces`]: never notes or sources); the cache (`--cache`, else
/// [`default_cache`]) is neither.
fn check_paths(a: &Args) -> anyhow::Result<(PathBuf, PathBuf)> {
    if !a.input.is_file() {
        bail!("{} is not a file", a.input.display());
    }
    let cache = a.cache.clone().unwrap_or_else(|| default_cache(&a.output));
    let output = super::check_output("--output", &a.output, &[&cache])?;
    if !engine::output::same_place(&a.input, &a.output) {
        super::check_replaces("--output", &a.output, engine::output::Kind::JsonLines, "the labelled corpus")?;
    }
    let cache = super::check_output("--cache", &cache, &[&a.input, &a.output])?;
    if !a.mechanical {
        a.llm.check_outputs(&[&a.input, &a.output, &cache])?;
    }
    Ok((output, cache))
}

/// The model name: `--llm-model` (or the endpoint's), else, when replaying, the one model
/// all recordings name ([`repair::llm::RunClient::model_name`]).
fn model_name(client: &Client) -> anyhow::Result<String> {
    client.model_name().context(
        "give --llm-model: the model name goes into the cache key and into meta.root_cause_source (model:<name>)",
    )
}

/// The run's configuration from the flags.
fn config(a: &Args, model: &str) -> LabelConfig {
    let llm = &a.llm;
    LabelConfig {
        concurrency: usize::from(a.concurrency),
        rpm: a.rpm,
        budget: Budget { max_calls: llm.max_calls, max_tokens: llm.max_total_tokens, max_micro_usd: None },
        prices: llm.prices(model),
        wall: (llm.max_wall_s > 0).then(|| Duration::from_secs(llm.max_wall_s)),
        request: request(llm),
    }
}

/// The options of every model request: temperature, seed and reply limit.
fn request(llm: &LlmArgs) -> RequestOptions {
    RequestOptions { temperature: Some(llm.temperature), seed: llm.seed, max_tokens: Some(llm.max_reply_tokens) }
}

/// The summary: one JSON object on stdout with `--json` ([`LabelSummary`] plus `output`,
/// `cache` and `synthetic`: whether the answers were hand-written), lines on stderr
/// otherwise.
fn print_summary(a: &Args, s: &LabelSummary, cache: &Path, synthetic: bool) -> anyhow::Result<()> {
    if a.json {
        return print_json(a, s, cache, synthetic);
    }
    print_counts(a, s, cache, synthetic);
    print_failures(s);
    Ok(())
}

/// The summary as one JSON object on stdout: [`LabelSummary`] plus `output`, `cache` and
/// `synthetic`.
fn print_json(a: &Args, s: &LabelSummary, cache: &Path, synthetic: bool) -> anyhow::Result<()> {
    let mut v = serde_json::to_value(s)?;
    v["output"] = a.output.display().to_string().into();
    v["cache"] = cache.display().to_string().into();
    v["synthetic"] = synthetic.into();
    out!("{v}")?;
    Ok(())
}

/// The summary's first line on stderr: rows, calls, tokens, cost and the files written.
fn print_counts(a: &Args, s: &LabelSummary, cache: &Path, synthetic: bool) {
    let cost = s.cost_usd.map(|c| format!(", ${c:.4}")).unwrap_or_default();
    let note = if synthetic { " (SYNTHETIC answers: hand-written, not a model's)" } else { "" };
    let requests = s.requests.map(|r| format!(" ({r} requests)")).unwrap_or_default();
    eprintln!(
        "{} rows: {} labelled now, {} from the cache, {} failed ({}, prompt {}); {} calls{requests}, {} tokens in, {} \
         out{cost}; wrote {} (cache {}){note}",
        s.rows,
        s.labelled,
        s.from_cache,
        s.failed,
        s.source,
        s.prompt_version,
        s.calls,
        s.prompt_tokens,
        s.completion_tokens,
        a.output.display(),
        cache.display()
    );
}

/// Why the run stopped early, and the first [`SHOWN_FAILURES`] failed rows, on stderr.
fn print_failures(s: &LabelSummary) {
    if let Some(why) = &s.stopped {
        eprintln!("stopped: {why}; rerun to label the rest");
    }
    for f in s.failures.iter().take(SHOWN_FAILURES) {
        eprintln!("failed: {} (line {}): {}", f.id, f.line, f.reason);
    }
    if s.failed > SHOWN_FAILURES {
        eprintln!("failed: {} more (all in --json)", s.failed - SHOWN_FAILURES);
    }
}

/// The label bar's style: position, rate and ETA.
fn bar_style() -> ProgressStyle {
    let template = "{msg} [{bar:30}] {pos}/{len} {per_sec} ETA {eta}";
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("=> ")
}

/// The progress bar on stderr (drawn only on a terminal), with the rate and ETA.
#[derive(Debug, Default)]
struct Bar(std::sync::OnceLock<ProgressBar>);

impl repair::label::Progress for Bar {
    fn start(&self, total: u64) {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        bar.set_style(bar_style());
        bar.set_message("labelling");
        let _ = self.0.set(bar);
    }

    fn advance(&self) {
        if let Some(b) = self.0.get() {
            b.inc(1);
        }
    }

    fn finish(&self) {
        if let Some(b) = self.0.get() {
            b.finish_and_clear();
        }
    }
}
