//! The build pipeline: read → validate → dedup/exclude → label repair actions (rayon) →
//! tokenize → compose → embed in token-budget batches → HNSW per space → write (temporary
//! file + rename).

use std::path::{Path, PathBuf};
use std::time::Instant;

use engine::embed::{CAUSE_MAX_TOKENS, Embedder, LineRange, Rule, compose, window};
use engine::format::TextMeta;
use engine::hnsw::{self, HnswConfig};
use engine::{IndexBuilder, Record, Space};
use rayon::prelude::*;
use serde::Serialize;

use crate::batch::{self, BatchConfig};
use crate::corpus::{self, Format, ReadOptions};
use crate::dedup::{Dedup, Duplicate, Origin};
use crate::exclude::Exclusions;
use crate::report::Report;
use crate::shard::Shard;
use crate::{Error, Result};

/// What to do with a record that fails validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnError {
    /// Stop the build at the first bad record (the default); nothing is written.
    #[default]
    Abort,
    /// Skip it, count it, and list it in the report file.
    Skip,
}

/// A stage of the build, for progress display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Reading and validating corpus files (total = bytes of all inputs).
    Read,
    /// Classifying each pair's repair actions (total = records; advanced once at the end).
    Label,
    /// Tokenizing code and root causes (total = records).
    Tokenize,
    /// Embedding one space (total = records).
    Embed(Space),
    /// Building one space's HNSW graph (total = records; advanced once at the end).
    Graph(Space),
    /// Writing the index file.
    Write,
}

/// Receives progress from a build. Implementations must not fail the build: progress is
/// a non-critical feature (qdrant `progress_tracker.rs`).
pub trait Progress: Sync {
    /// A stage starts; `total` is in the stage's unit (0 when unknown).
    fn start(&self, stage: Stage, total: u64);
    /// `n` more units of the current stage are done.
    fn advance(&self, n: u64);
    /// The current stage is done.
    fn finish(&self);
}

/// A [`Progress`] that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _: Stage, _: u64) {}
    fn advance(&self, _: u64) {}
    fn finish(&self) {}
}

/// Everything a build needs besides the model.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Corpus files, read in order.
    pub inputs: Vec<PathBuf>,
    /// Where the index file goes (replaced atomically on success).
    pub output: PathBuf,
    /// Input format; `None` detects it from each file's extension.
    pub format: Option<Format>,
    /// Reader settings (root-cause field).
    pub read: ReadOptions,
    /// Abort or skip on bad records.
    pub on_error: OnError,
    /// Where skipped, duplicate and excluded rows are listed; `None` = `<output>.report.jsonl`.
    pub report: Option<PathBuf>,
    /// Records to leave out.
    pub exclusions: Exclusions,
    /// Vector spaces to build (non-empty).
    pub spaces: Vec<Space>,
    /// Graph parameters.
    pub hnsw: HnswConfig,
    /// Embedding batch limits.
    pub batch: BatchConfig,
    /// Root-cause token cap in the `code+cause` space.
    pub cause_max_tokens: usize,
    /// How the embedded text is composed ([`engine::embed::compose`]); the default,
    /// `cause-first-window-v1`, embeds a long method's window around the lines its fix
    /// changes ([`crate::buggy_lines`]).
    pub rule: Rule,
    /// Index only the records of this shard (sharded builds); `None` = all.
    pub shard: Option<Shard>,
    /// Also store int8 codes for graph traversal ([`engine::quant`]).
    pub int8: bool,
    /// An existing index (or manifest) whose ids are skipped: a record whose id it already
    /// holds is counted in [`BuildStats::already_indexed`] and listed in the report, not
    /// embedded (`fixdex index --append`, [`crate::append`]). `None` = skip nothing.
    pub known: Option<std::sync::Arc<engine::Segments>>,
}

impl BuildOptions {
    /// Defaults for indexing `inputs` into `output`: auto format and cause field, abort on
    /// error, the `code+cause` space, default HNSW and batch settings.
    pub fn new(inputs: Vec<PathBuf>, output: PathBuf) -> BuildOptions {
        BuildOptions {
            inputs,
            output,
            format: None,
            read: ReadOptions::default(),
            on_error: OnError::Abort,
            report: None,
            exclusions: Exclusions::default(),
            spaces: vec![Space::CodeCause],
            hnsw: HnswConfig::default(),
            batch: BatchConfig::default(),
            cause_max_tokens: CAUSE_MAX_TOKENS,
            rule: Rule::default(),
            shard: None,
            int8: false,
            known: None,
        }
    }

    /// The report path: [`BuildOptions::report`] or `<output>.report.jsonl`.
    pub fn report_path(&self) -> PathBuf {
        self.report.clone().unwrap_or_else(|| {
            let mut s = self.output.clone().into_os_string();
            s.push(".report.jsonl");
            PathBuf::from(s)
        })
    }
}

/// Per-file counts.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FileStats {
    /// The file.
    pub path: PathBuf,
    /// Rows read (valid or not).
    pub rows: u64,
    /// Rows that failed validation and were skipped.
    pub skipped: u64,
}

/// What a build did, in counts and seconds.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BuildStats {
    /// Per input file.
    pub files: Vec<FileStats>,
    /// Rows read over all files.
    pub records_read: u64,
    /// Rows that failed validation (skipped with `--on-error skip`).
    pub skipped: u64,
    /// Records dropped because an earlier record had their id and the same content (a
    /// repeated row: nothing is lost).
    pub duplicate_ids: u64,
    /// Records dropped because an earlier record had their id with other content (the
    /// corpus gives one id to two pairs: the later one is lost; the report names the
    /// fields that differ).
    pub conflicting_ids: u64,
    /// Records dropped because the same (buggy_code, fixed_code) pair was already kept.
    pub duplicate_pairs: u64,
    /// Records left out by `--exclude`.
    pub excluded: u64,
    /// The `--exclude` entries (`defects4j:Lang-1`, `project:Math`) that no row read
    /// matched, in any shard: each excludes nothing, which a misspelt benchmark project
    /// name would do silently (the CLI warns about each).
    pub unmatched_exclusions: Vec<String>,
    /// Valid records that belong to other shards (sharded builds).
    pub other_shards: u64,
    /// Records skipped because the index appended to already holds their id
    /// ([`BuildOptions::known`]).
    pub already_indexed: u64,
    /// Documents in the index.
    pub indexed: u64,
    /// The index has no documents: a shard that received no record of a corpus whose
    /// other shards did (only a sharded build can be empty; see [`build_index`]).
    pub empty: bool,
    /// Documents with an empty root cause (embedded as code only).
    pub without_cause: u64,
    /// Composed sequences whose code was cut to fit the window, over all spaces.
    pub truncated: u64,
    /// Composed sequences whose code is a window around the buggy lines rather than the
    /// code's first tokens (rule `cause-first-window-v1`), over all spaces.
    pub windowed: u64,
    /// Tokens fed to the model (sum of sequence lengths over all spaces).
    pub tokens: u64,
    /// Embeddings computed (documents × spaces).
    pub embedded: u64,
    /// Seconds spent reading and validating.
    pub read_seconds: f64,
    /// Seconds spent labelling repair actions ([`crate::classify`]).
    pub label_seconds: f64,
    /// Seconds spent tokenizing (and, for the window rule, diffing each pair for its
    /// buggy lines).
    pub tokenize_seconds: f64,
    /// Seconds spent in the model.
    pub embed_seconds: f64,
    /// Embeddings per second of model time.
    pub snippets_per_second: f64,
    /// Tokens per second of model time.
    pub tokens_per_second: f64,
    /// Seconds spent building graphs.
    pub graph_seconds: f64,
    /// Seconds spent writing the file.
    pub write_seconds: f64,
    /// Wall time of the whole build.
    pub wall_seconds: f64,
    /// Size of the index file in bytes.
    pub index_bytes: u64,
    /// The report file, when rows were skipped, deduplicated or excluded (by this run or,
    /// for an append, by an earlier one: its lines stay).
    pub report: Option<PathBuf>,
    /// Lines this run added to [`BuildStats::report`] (0: an append's report holds only
    /// earlier runs' rows).
    pub report_lines: u64,
}

/// Checks that the index and the report can be written at their paths
/// ([`engine::output::check`]: not a device or folder, not a corpus file being read, not
/// each other, in a folder that accepts new files), and that what they would replace is
/// an index (or manifest) and a build report ([`engine::output::check_replaces`]): `-o b.jsonl` meant as a second
/// input, or `--report notes.txt`, must not destroy the file there. Runs before any
/// reading or embedding. [`build_index`] calls it first; callers that load a model before
/// building call it earlier still.
///
/// # Errors
/// [`Error::Engine`] wrapping [`engine::Error::Output`], naming the output or report path.
pub fn check_outputs(opts: &BuildOptions) -> Result<()> {
    let report = opts.report_path();
    if engine::output::same_place(&opts.output, &report) {
        return Err(engine::Error::output(report, "is the index file too; give the report another path").into());
    }
    let inputs: Vec<&Path> = opts.inputs.iter().map(PathBuf::as_path).collect();
    engine::output::check(&opts.output, &inputs)?;
    engine::output::check(&report, &inputs)?;
    engine::output::check_replaces(&opts.output, engine::output::Kind::Index, "the build")?;
    engine::output::check_replaces(&report, engine::output::Kind::BuildReport, "the build")?;
    Ok(())
}

/// Runs the whole build and writes the index to `opts.output`.
///
/// With [`BuildOptions::shard`], a shard that receives no record while other shards do
/// (the corpus has valid records, none of which hashes here) is written as a valid empty
/// index and [`BuildStats::empty`] is set: a manifest accepts it and a search over it
/// finds nothing. The same holds with [`BuildOptions::known`] when every record is
/// already indexed ([`crate::append`] then discards the empty file). Any other build with
/// no surviving record is [`Error::Empty`].
///
/// # Errors
/// [`Error::Engine`] wrapping [`engine::Error::Output`] when the index or report cannot be
/// created (checked before any work); [`Error::Row`] for the first bad record under
/// [`OnError::Abort`]; [`Error::Empty`] when no record survives (but for an empty shard);
/// file-level reader errors; [`Error::Engine`] for model, graph or write failures. On
/// error no index is written and an existing one is untouched.
pub fn build_index(opts: &BuildOptions, model: &dyn Embedder, progress: &dyn Progress) -> Result<BuildStats> {
    let wall = Instant::now();
    if opts.spaces.is_empty() {
        return Err(engine::Error::InvalidParameter { name: "--spaces", reason: "no space given".into() }.into());
    }
    check_outputs(opts)?;
    let mut stats = BuildStats::default();
    let (mut docs, report) = read_all(opts, &mut stats, progress)?;
    stats.empty = docs.is_empty();
    let t = Instant::now();
    progress.start(Stage::Label, docs.len() as u64);
    crate::classify::classify_all(&mut docs);
    progress.advance(docs.len() as u64);
    progress.finish();
    stats.label_seconds = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let tokens = tokenize(model, &docs, progress)?;
    let lines = match opts.rule {
        Rule::CauseFirst => vec![None; docs.len()],
        Rule::CauseFirstWindow => {
            docs.par_iter().map(|d| crate::buggy_lines::buggy_lines(&d.buggy_code, &d.fixed_code)).collect()
        }
    };
    stats.tokenize_seconds = t.elapsed().as_secs_f64();
    stats.without_cause = tokens.iter().filter(|(_, c)| c.is_empty()).count() as u64;
    let texts = Texts { docs: &docs, tokens, lines };
    let text = TextMeta {
        rule: opts.rule.name().into(),
        cause_max_tokens: opts.cause_max_tokens,
        cause_field: opts.read.cause_field.clone().unwrap_or_else(|| "auto".into()),
    };
    let mut builder = IndexBuilder::new(model.identity().to_meta(), text).with_int8(opts.int8).allow_empty(stats.empty);
    for &space in &opts.spaces {
        let vectors = embed_space(model, space, &texts, opts, &mut stats, progress)?;
        let t = Instant::now();
        progress.start(Stage::Graph(space), docs.len() as u64);
        let graph = hnsw::build(&vectors, model.dim(), &opts.hnsw)?;
        progress.advance(docs.len() as u64);
        progress.finish();
        stats.graph_seconds += t.elapsed().as_secs_f64();
        builder.add_space(space, vectors, graph, &opts.hnsw)?;
    }
    stats.indexed = docs.len() as u64;
    stats.snippets_per_second = stats.embedded as f64 / stats.embed_seconds.max(1e-9);
    stats.tokens_per_second = stats.tokens as f64 / stats.embed_seconds.max(1e-9);
    let t = Instant::now();
    progress.start(Stage::Write, 0);
    builder.write(&opts.output, &docs, build_meta(&stats, opts.shard))?;
    // The report is published with the index it describes: a build killed or failed before
    // this leaves the old index and its old report together.
    stats.report = report.finish()?;
    progress.finish();
    stats.write_seconds = t.elapsed().as_secs_f64();
    stats.index_bytes = std::fs::metadata(&opts.output).map_or(0, |m| m.len());
    stats.wall_seconds = wall.elapsed().as_secs_f64();
    Ok(stats)
}

/// The subset of the statistics stored in the index metadata.
fn build_meta(s: &BuildStats, shard: Option<Shard>) -> serde_json::Value {
    serde_json::json!({
        "shard": shard.map(|s| format!("{}/{}", s.index, s.count)),
        "inputs": s.files.iter().map(|f| f.path.display().to_string()).collect::<Vec<_>>(),
        "records_read": s.records_read, "skipped": s.skipped, "duplicate_ids": s.duplicate_ids,
        "conflicting_ids": s.conflicting_ids, "duplicate_pairs": s.duplicate_pairs, "excluded": s.excluded, "unmatched_exclusions": s.unmatched_exclusions, "other_shards": s.other_shards,
        "already_indexed": s.already_indexed,
        "indexed": s.indexed,
        "without_cause": s.without_cause, "truncated": s.truncated, "windowed": s.windowed, "tokens": s.tokens,
    })
}

/// Reads every input, applying validation policy, exclusions and dedup; writes the report's
/// lines, and returns it unpublished with the records ([`build_index`] publishes it with the
/// index), but when no record survives: then the report is published, and the error names it.
fn read_all(opts: &BuildOptions, stats: &mut BuildStats, progress: &dyn Progress) -> Result<(Vec<Record>, Report)> {
    let t = Instant::now();
    let total: u64 = opts.inputs.iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum();
    progress.start(Stage::Read, total);
    let mut acc = Accumulator::new(opts);
    for (file, path) in opts.inputs.iter().enumerate() {
        let format = opts.format.map_or_else(|| Format::detect(path), Ok)?;
        stats.files.push(FileStats { path: path.clone(), ..FileStats::default() });
        corpus::read_corpus(path, Some(format), &opts.read, &mut |row| acc.take(file, path, row, stats))?;
        progress.advance(std::fs::metadata(path).map_or(0, |m| m.len()));
    }
    progress.finish();
    stats.read_seconds = t.elapsed().as_secs_f64();
    stats.report_lines = acc.report.lines();
    stats.unmatched_exclusions =
        opts.exclusions.entries().into_iter().filter(|e| !acc.excluded_by.contains(e)).collect();
    let empty_shard = opts.shard.is_some() && stats.other_shards > 0;
    let nothing_new = opts.known.is_some() && stats.already_indexed > 0;
    if acc.docs.is_empty() && !empty_shard && !nothing_new {
        stats.report = acc.report.finish()?;
        let report = Some(opts.report_path()).filter(|r| r.is_file());
        return Err(Error::Empty {
            inputs: opts.inputs.clone(),
            report,
            rows: stats.records_read,
            skipped: stats.skipped,
        });
    }
    Ok((acc.docs, acc.report))
}

/// Collects kept records while reading, and writes report lines as rows are dropped.
/// Memory follows the kept (distinct) records, never the rows read.
struct Accumulator<'a> {
    opts: &'a BuildOptions,
    docs: Vec<Record>,
    origins: Vec<Origin>,
    dedup: Dedup,
    report: Report,
    /// The `--exclude` entries some row matched (in any shard).
    excluded_by: std::collections::HashSet<String>,
}

impl<'a> Accumulator<'a> {
    fn new(opts: &'a BuildOptions) -> Accumulator<'a> {
        let report = if opts.known.is_some() {
            Report::appending(&opts.report_path())
        } else {
            Report::new(&opts.report_path())
        };
        let excluded_by = std::collections::HashSet::new();
        Accumulator { opts, docs: Vec::new(), origins: Vec::new(), dedup: Dedup::new(), report, excluded_by }
    }

    /// Handles one row from a reader.
    fn take(&mut self, file: usize, path: &Path, row: corpus::RowResult, stats: &mut BuildStats) -> Result<()> {
        stats.records_read += 1;
        stats.files[file].rows += 1;
        let (row, rec) = match row {
            Ok(ok) => ok,
            Err(e @ Error::Row { .. }) if self.opts.on_error == OnError::Skip => {
                stats.skipped += 1;
                stats.files[file].skipped += 1;
                return self.note_invalid(&e);
            }
            Err(e) => return Err(e),
        };
        let origin = Origin { file, row };
        // Matched before the shard and append checks, so that an entry matching only rows
        // of other shards is not reported unmatched; one lookup serves both.
        let mut excluded = false;
        for entry in self.opts.exclusions.matches(&rec) {
            excluded = true;
            self.excluded_by.insert(entry);
        }
        if self.opts.shard.is_some_and(|s| !s.owns(&rec.id)) {
            stats.other_shards += 1;
            return Ok(());
        }
        if let Some(known) = &self.opts.known
            && known.contains_id(&rec.id)?
        {
            stats.already_indexed += 1;
            return self.note(path, row, &rec.id, "already-indexed", "the index appended to already holds this id");
        }
        if excluded {
            stats.excluded += 1;
            return self.note(path, row, &rec.id, "excluded", "listed in --exclude (by id or project)");
        }
        match self.dedup.check(&rec, &self.docs, &self.origins) {
            None => {
                self.docs.push(rec);
                self.origins.push(origin);
                Ok(())
            }
            Some(d) => self.note_duplicate(path, row, &rec.id, d, stats),
        }
    }

    fn note_duplicate(&mut self, path: &Path, row: u64, id: &str, d: Duplicate, stats: &mut BuildStats) -> Result<()> {
        let (kind, first, what) = match d {
            Duplicate::Id(o) => {
                stats.duplicate_ids += 1;
                ("duplicate-id", o, "the same id and content".to_string())
            }
            Duplicate::IdConflict { first, fields } => {
                stats.conflicting_ids += 1;
                let what =
                    format!("the same id but other content (differs in {}; this row is lost)", fields.join(", "));
                ("conflicting-id", first, what)
            }
            Duplicate::Pair(o) => {
                stats.duplicate_pairs += 1;
                ("duplicate-pair", o, "the same buggy_code and fixed_code".to_string())
            }
        };
        let first_path = self.opts.inputs[first.file].display();
        self.note(path, row, id, kind, &format!("{what} as {first_path}:{}, which was kept", first.row))
    }

    fn note_invalid(&mut self, e: &Error) -> Result<()> {
        let Error::Row { path, row, field, reason } = e else {
            return Ok(());
        };
        self.report.line(&serde_json::json!({
            "file": path.display().to_string(), "row": row, "kind": "invalid",
            "field": field, "reason": reason,
        }))
    }

    fn note(&mut self, path: &Path, row: u64, id: &str, kind: &str, reason: &str) -> Result<()> {
        self.report.line(&serde_json::json!({
            "file": path.display().to_string(), "row": row, "kind": kind, "id": id, "reason": reason,
        }))
    }
}

/// Token ids (no special tokens) of each document's code and root cause.
type Tokens = Vec<(Vec<u32>, Vec<u32>)>;

/// The documents with their tokens and, for the window rule, their buggy lines.
struct Texts<'a> {
    docs: &'a [Record],
    tokens: Tokens,
    /// Per document; all `None` under `cause-first-v1`.
    lines: Vec<Option<LineRange>>,
}

/// Records tokenized per chunk (the tokenizer parallelises within a chunk).
const TOKENIZE_CHUNK: usize = 2048;

fn tokenize(model: &dyn Embedder, docs: &[Record], progress: &dyn Progress) -> Result<Tokens> {
    progress.start(Stage::Tokenize, docs.len() as u64);
    let mut out = Vec::with_capacity(docs.len());
    for chunk in docs.chunks(TOKENIZE_CHUNK) {
        let code: Vec<&str> = chunk.iter().map(|d| d.buggy_code.as_str()).collect();
        let cause: Vec<&str> = chunk.iter().map(|d| d.root_cause.as_str()).collect();
        let (code, cause) = (model.tokenize_batch(&code)?, model.tokenize_batch(&cause)?);
        out.extend(code.into_iter().zip(cause));
        progress.advance(chunk.len() as u64);
    }
    progress.finish();
    Ok(out)
}

/// Embeds every document for `space`; returns `[n, dim]` in document order.
fn embed_space(
    model: &dyn Embedder,
    space: Space,
    texts: &Texts<'_>,
    opts: &BuildOptions,
    stats: &mut BuildStats,
    progress: &dyn Progress,
) -> Result<Vec<f32>> {
    let tokens = &texts.tokens;
    let seqs = compose_space(model, space, texts, opts.cause_max_tokens)?;
    stats.windowed += seqs.iter().filter(|(_, w)| *w).count() as u64;
    let seqs: Vec<Vec<u32>> = seqs.into_iter().map(|(s, _)| s).collect();
    stats.truncated +=
        tokens.iter().zip(&seqs).filter(|((code, cause), s)| is_truncated(space, code, cause, s)).count() as u64;
    stats.tokens += seqs.iter().map(|s| s.len() as u64).sum::<u64>();
    let lengths: Vec<usize> = seqs.iter().map(Vec::len).collect();
    let dim = model.dim();
    let mut out = vec![0f32; seqs.len() * dim];
    progress.start(Stage::Embed(space), seqs.len() as u64);
    let t = Instant::now();
    for b in batch::plan(&lengths, &opts.batch) {
        let refs: Vec<&[u32]> = b.iter().map(|&i| seqs[i].as_slice()).collect();
        for (&i, v) in b.iter().zip(model.embed_tokens(&refs)?) {
            out[i * dim..(i + 1) * dim].copy_from_slice(&v);
        }
        progress.advance(b.len() as u64);
    }
    stats.embed_seconds += t.elapsed().as_secs_f64();
    stats.embedded += seqs.len() as u64;
    progress.finish();
    Ok(out)
}

/// Each document's sequence for `space` (in parallel), and whether its code was windowed
/// ([`window::window_code`], only for documents with buggy lines whose code overflows).
fn compose_space(
    model: &dyn Embedder,
    space: Space,
    texts: &Texts<'_>,
    cause_max_tokens: usize,
) -> Result<Vec<(Vec<u32>, bool)>> {
    let id = model.identity();
    let tokenize = |t: &str| model.tokenize(t);
    (0..texts.docs.len())
        .into_par_iter()
        .map(|i| {
            let (code, cause) = &texts.tokens[i];
            let budget = window::code_budget(space, cause.len(), id.max_seq_length, cause_max_tokens);
            let seq = match texts.lines[i] {
                Some(l) if space != Space::Cause && code.len() > budget => {
                    let cut = window::window_code(&texts.docs[i].buggy_code, code, l, budget, &tokenize)?;
                    (compose(space, &cut, cause, id, cause_max_tokens), cut != *code)
                }
                _ => (compose(space, code, cause, id, cause_max_tokens), false),
            };
            Ok(seq)
        })
        .collect()
}

/// Whether the composed sequence dropped part of the code or cause it was built from.
fn is_truncated(space: Space, code: &[u32], cause: &[u32], seq: &[u32]) -> bool {
    let body = seq.len().saturating_sub(2);
    match space {
        Space::Code => body < code.len(),
        Space::Cause => body < cause.len(),
        Space::CodeCause => body < code.len() + cause.len() + usize::from(!cause.is_empty() && !code.is_empty()),
    }
}
