//! Root-cause labelling of a bug-fix corpus (`fixdex label`, issue 15).
//!
//! ReinFix retrieves similar fixes by buggy code **and root cause** (eq. 1-2), so every
//! corpus row needs a `root_cause`. [`label_file`] reads a JSONL corpus ([`read_rows`]),
//! labels each row with a [`Labeller`] (a model asked through [`crate::llm`] with the prompt
//! of [`prompt`], or `actions::root_cause` from the fix's repair actions), and writes the
//! corpus again ([`write_rows`]) with `root_cause` set and `meta.root_cause_source` =
//! `model:<name>` or `mechanical`; every other field is kept, rows stay in input order.
//!
//! | file | responsibility |
//! | --- | --- |
//! | [`rows`] | [`Row`]: fields in order, validation, cache key, the label written in; [`read_rows`], [`write_rows`] |
//! | [`prompt`] | the prompt ([`PROMPT_VERSION`]), [`clean_answer`] |
//! | [`cache`] | [`Cache`]: labels of earlier runs, appended and synced row by row |
//! | [`run`] | [`label_rows`]: worker threads, the request rate, budgets, the summary |
//!
//! **Resuming.** Each labelled row is appended to the cache (synced) at once, keyed on the
//! row's content, the labeller and [`PROMPT_VERSION`]; a later run asks only for rows whose
//! key is not there, so a run stopped by a budget, the wall-clock limit or `kill -9` loses
//! at most the rows in flight. The output is written only at the end, through a temporary
//! file renamed over it.
//!
//! **Failures.** A row whose call fails, whose answer is unusable ([`clean_answer`]), that
//! was not asked because a budget or the wall-clock limit stopped the run, or (mechanical)
//! whose language is neither Java nor Python is *failed*: written unchanged (its old
//! `root_cause`, if any, stays, and no `root_cause_source` is added) and listed in
//! [`LabelSummary::failures`]; rows are never dropped. Rerunning asks for the failed rows
//! again.

pub mod cache;
pub mod prompt;
pub mod rows;
pub mod run;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::llm::{Budget, ChatClient, PriceTable};

pub use cache::{Cache, CacheEntry};
pub use prompt::{MAX_ROOT_CAUSE_CHARS, PROMPT_VERSION, RequestOptions, clean_answer};
pub use rows::{Row, read_rows, write_rows};
pub use run::{MAX_ERRORS_IN_A_ROW, label_rows};

/// Errors that stop labelling before any output is written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LabelError {
    /// An input line that is not a corpus row.
    #[error("{}:{line}: {}{message}", path.display(), field.map(|f| format!("field `{f}` ")).unwrap_or_default())]
    BadRow {
        /// The input file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The field at fault; `None` when the line is not a JSON object.
        field: Option<&'static str>,
        /// What is wrong.
        message: String,
    },
    /// A cache line, other than the last, that is not a cache entry.
    #[error("{}:{line}: {message}", path.display())]
    BadCache {
        /// The cache file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Who writes the root causes.
#[derive(Clone, Copy)]
pub enum Labeller<'a> {
    /// A model, asked once per row with [`prompt::request`].
    Model {
        /// The client that answers.
        client: &'a dyn ChatClient,
        /// The model name sent in the requests, in the cache key and in
        /// `meta.root_cause_source` (`model:<name>`).
        model: &'a str,
    },
    /// No model: `actions::root_cause` from the fix's repair actions (Java and Python rows
    /// only; rows in other languages fail).
    Mechanical,
}

impl std::fmt::Debug for Labeller<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.source())
    }
}

impl Labeller<'_> {
    /// The model name, or `mechanical`: the labeller part of the cache key.
    pub fn name(&self) -> &str {
        match self {
            Labeller::Model { model, .. } => model,
            Labeller::Mechanical => "mechanical",
        }
    }

    /// The client's [`ChatClient::requests_sent`]; `None` for the mechanical labeller.
    pub fn requests_sent(&self) -> Option<u64> {
        match self {
            Labeller::Model { client, .. } => client.requests_sent(),
            Labeller::Mechanical => None,
        }
    }

    /// What `meta.root_cause_source` gets: `model:<name>` or `mechanical`.
    pub fn source(&self) -> String {
        match self {
            Labeller::Model { model, .. } => format!("model:{model}"),
            Labeller::Mechanical => "mechanical".to_owned(),
        }
    }
}

/// How a run goes.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelConfig {
    /// Worker threads (at least 1), each labelling one row at a time.
    pub concurrency: usize,
    /// Most model requests started per minute over all workers (evenly spaced); `None`: no
    /// limit.
    pub rpm: Option<u32>,
    /// Most successful model calls and tokens of this run; `None` fields: no limit.
    pub budget: Budget,
    /// Prices for the cost in the summary and the cache.
    pub prices: PriceTable,
    /// Wall-clock limit of the run: no request starts after it and one in flight is cut off
    /// at it; `None`: no limit.
    pub wall: Option<Duration>,
    /// Sampling options of each request.
    pub request: RequestOptions,
}

impl Default for LabelConfig {
    /// 4 workers, no rate limit, no budget, no prices, no wall-clock limit, default
    /// sampling.
    fn default() -> Self {
        LabelConfig {
            concurrency: 4,
            rpm: None,
            budget: Budget::default(),
            prices: PriceTable::default(),
            wall: None,
            request: RequestOptions::default(),
        }
    }
}

/// Receives progress: [`Progress::start`] with the number of rows to label now (rows found
/// in the cache are not counted), [`Progress::advance`] after each, [`Progress::finish`].
/// Called from the worker threads.
pub trait Progress: Sync {
    /// Labelling starts; `total` rows (distinct keys not in the cache) will be labelled.
    fn start(&self, total: u64) {
        let _ = total;
    }
    /// One more row is done (labelled or failed).
    fn advance(&self) {}
    /// All rows are done.
    fn finish(&self) {}
}

/// A [`Progress`] that shows nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}

/// A row that got no new root cause.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// The row's id (`line N` when it has none).
    pub id: String,
    /// Its 1-based line in the input.
    pub line: usize,
    /// Why: the call's error, `unusable answer: ...`, `not asked: <why the run stopped>`,
    /// or (mechanical) the unsupported language.
    pub reason: String,
}

/// What a run did. Serialized as one JSON object (`fixdex label --json`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LabelSummary {
    /// `model:<name>` or `mechanical`.
    pub source: String,
    /// [`PROMPT_VERSION`].
    pub prompt_version: &'static str,
    /// Rows in the input (blank lines not counted).
    pub rows: usize,
    /// Rows labelled by this run.
    pub labelled: usize,
    /// Rows whose label came from the cache.
    pub from_cache: usize,
    /// Rows that got no new root cause (`failures.len()`).
    pub failed: usize,
    /// The failed rows, in input order.
    pub failures: Vec<Failure>,
    /// Why the run stopped asking before every row was done (a budget, the wall-clock
    /// limit, [`MAX_ERRORS_IN_A_ROW`] failed calls, an unwritable cache); `None` when it did
    /// not.
    pub stopped: Option<String>,
    /// Successful model calls of this run.
    pub calls: u64,
    /// HTTP requests this run sent to the model endpoint, every attempt counted (retries,
    /// failed calls, replies refused as malformed); `None` for a labeller that talks to no
    /// server (`--replay`, `--mechanical`).
    pub requests: Option<u64>,
    /// Prompt tokens of this run's calls (as the server reported them).
    pub prompt_tokens: u64,
    /// Completion tokens of this run's calls.
    pub completion_tokens: u64,
    /// Cost of this run's priced calls, USD; `None` when no call was priced.
    pub cost_usd: Option<f64>,
    /// Whether the cache's torn last line (a killed run's) was dropped.
    pub cache_torn_line: bool,
    /// Wall time of the labelling, seconds.
    pub wall_s: f64,
}

/// Labels the corpus `input` into `output` with `labeller`, resuming from (and appending
/// to) the cache at `cache` (see the module docs). `output` may be `input`.
///
/// # Errors
/// A bad input line or cache line, or an I/O error on any of the files; `output` is then
/// left as it was. Rows that fail are not errors (see [`LabelSummary::failures`]).
pub fn label_file(
    input: &Path,
    output: &Path,
    cache: &Path,
    labeller: Labeller<'_>,
    cfg: &LabelConfig,
    progress: &dyn Progress,
) -> Result<LabelSummary, LabelError> {
    let mut rows = read_rows(input)?;
    let cache = Cache::open(cache)?;
    let summary = label_rows(&mut rows, labeller, &cache, cfg, progress);
    write_rows(output, &rows)?;
    Ok(summary)
}
