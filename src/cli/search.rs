//! `fixdex search`: the most similar bug-fix pairs for a buggy snippet and its root cause.

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::Context;
use engine::embed::LineRange;
use engine::{Filter, ProjectMatch, Record, SearchParams, SegmentHit, Segments, Space};
use rayon::prelude::*;
use repair::fix_actions::FixActions;
use repair::rank::{CorpusStats, Features, Rank, Weights};
use repair::suggest::{LabelPrior, Suggestion, Voter};

/// Arguments of `fixdex search`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The index file, or a manifest of segments (`fixdex manifest`).
    index: PathBuf,
    /// Buggy code: a file, or `-` for standard input (at most 1 MiB). Required unless
    /// --space cause.
    #[arg(long)]
    code: Option<String>,
    /// Root cause of the bug, in words (ReinFix: the inferred root cause).
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    cause: String,
    /// Number of hits.
    #[arg(short, default_value_t = 5)]
    k: usize,
    /// Keep only hits with cosine similarity ≥ this value, in [-1, 1].
    #[arg(long, allow_negative_numbers = true)]
    threshold: Option<f32>,
    /// Vector space to search: code+cause, code or cause.
    #[arg(long, default_value = "code+cause")]
    space: String,
    /// HNSW beam width (higher: better recall, slower).
    #[arg(long, default_value_t = engine::hnsw::DEFAULT_EF_SEARCH)]
    ef: usize,
    /// Exact brute-force search (the oracle; fine for small indexes).
    #[arg(long)]
    exact: bool,
    /// Traverse the graph with f32 vectors even when the index has int8 codes.
    #[arg(long)]
    no_int8: bool,
    /// Only hits in this language (repeatable).
    #[arg(long = "lang", allow_hyphen_values = true)]
    languages: Vec<String>,
    /// Only hits from this project (repeatable).
    #[arg(long = "project", allow_hyphen_values = true)]
    projects: Vec<String>,
    /// Never return this id, e.g. the bug under repair (repeatable).
    #[arg(long, allow_hyphen_values = true)]
    exclude_id: Vec<String>,
    /// Never return hits from this project (repeatable). Matched by identity: a benchmark
    /// project and its upstream repository are one (`Closure` = `google/closure-compiler`),
    /// case-insensitively, with or without `https://github.com/` or `.git`.
    #[arg(long, allow_hyphen_values = true)]
    exclude_project: Vec<String>,
    /// Embedding model folder; must be the index's model [default: data/models/all-MiniLM-L6-v2].
    #[arg(long, env = "FIXDEX_MODEL")]
    model: Option<PathBuf>,
    /// Ranking of the hits: `dense` (cosine), `hybrid` (cosine + BM25 over code terms) or
    /// `action` (hybrid + whether each hit's repair action fits the query code, the top
    /// hits' action vote and the action prior); each reranks at least 100 dense candidates,
    /// and under each a hit whose buggy code is the query's (up to whitespace), then a
    /// near-duplicate of it by code alone, comes first.
    #[arg(long, default_value = "action", value_parser = parse_rank)]
    rank: Rank,
    /// First print the likely repair actions for the query: the hits' actions aggregated
    /// (kind, vote share, supporting hits, an example). The JSON answer always has them.
    #[arg(long)]
    actions: bool,
    /// Language of the query code, for the action fit [default: the single --lang, else the
    /// best dense hit's language].
    #[arg(long, value_parser = parse_language)]
    query_lang: Option<repair::Language>,
    /// The buggy lines of --code, `A-B` or `A` (1-based, inclusive): an index built with
    /// rule cause-first-window-v1 then embeds a long snippet as its signature plus the
    /// lines around these (as it embedded its documents). Without it, the snippet's first
    /// tokens are embedded.
    #[arg(long)]
    lines: Option<String>,
    /// Print hits as one JSON object.
    #[arg(long)]
    json: bool,
    /// Answer many queries with one model and index load: QUERIES.jsonl (`-`: standard
    /// input) holds one JSON object per line, `{"code": TEXT, "cause": TEXT}` plus any of
    /// `id` (echoed back), `k`, `threshold`, `space`, `ef`, `exact`, `no_int8`, `lang`,
    /// `project`, `exclude_id`, `exclude_project` (a string or an array of strings),
    /// `rank`, `query_lang` and `lines`, named as the flags with `_` for `-`; a field a line
    /// omits takes the flag's value. `code` is the snippet itself, not a file. Prints one
    /// JSON line per non-blank input line, in order: the `--json` answer plus `line` (1-based
    /// input line number) and `id`, or `{"line": N, "id": ..., "error": "..."}` for a line
    /// that fails (bad JSON, unknown field, wrong type, a filter matching nothing, ...);
    /// the other lines still answer. Exit status: 0 when every line answered, else the
    /// highest status the failed lines would have had as single searches (2 for bad JSON).
    #[arg(long, value_name = "QUERIES.jsonl", conflicts_with_all = ["code", "cause", "lines"])]
    batch: Option<String>,
}

fn parse_rank(s: &str) -> Result<Rank, String> {
    s.parse()
}

fn parse_language(s: &str) -> Result<repair::Language, String> {
    s.parse().map_err(|e: actions::Error| e.to_string())
}

/// Suggestions kept in an answer.
const SUGGESTIONS: usize = 5;

/// Runs `fixdex search`: one query from the flags, or `--batch`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    if let Some(queries) = &args.batch {
        return run_batch(args, queries);
    }
    let params = params(args)?;
    let code = read_code(args.code.as_deref(), params.space)?;
    let lines = buggy_lines(args.lines.as_deref(), &code)?;
    engine::query::check_query_text(params.space, &code, &args.cause).with_context(|| match &args.code {
        Some(path) if params.space != Space::Cause => format!("the query from --code {path}"),
        _ => "the query from --cause".to_string(),
    })?;
    let index = Segments::open(&args.index).with_context(|| format!("opening index {}", args.index.display()))?;
    index.indexes()[0].vectors(params.space)?;
    let excluded = index.resolve_filter(&params.filter)?;
    warn_unmatched(&excluded);
    let model = super::model::load(&super::model::resolve(args.model.as_deref()))?;
    let corpus = Corpus::new(&index, &model);
    let t = Instant::now();
    let answer = ranked_answer(args, &corpus, (&code, lines), params.clone())?;
    let seconds = t.elapsed().as_secs_f64();
    let prior = corpus.prior(&answer)?;
    let suggestions = answer.suggestions(&prior);
    if args.json {
        let report = full_report(args, &params, &answer, &suggestions, &excluded, seconds)?;
        out!("{}", serde_json::to_string(&report)?)?;
    } else {
        if args.actions {
            print_suggestions(&suggestions)?;
        }
        print_hits(&params, &answer)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The `--json` answer: [`json_report`] plus the ranking, suggestions and exclusions.
fn full_report(
    args: &Args,
    params: &SearchParams,
    answer: &Answer,
    suggestions: &[Suggestion],
    excluded: &[ProjectMatch],
    seconds: f64,
) -> anyhow::Result<serde_json::Value> {
    let mut report = json_report(params, answer, seconds);
    report["rank"] = args.rank.name().into();
    report["suggestions"] = serde_json::to_value(suggestions)?;
    report["exclude_projects"] = serde_json::to_value(excluded)?;
    Ok(report)
}

/// The opened index and model, and what the rankings read from the whole index, computed
/// on first use and shared by every query of a run.
struct Corpus<'a> {
    index: &'a Segments,
    model: &'a dyn engine::embed::Embedder,
    stats: Mutex<Option<Arc<CorpusStats>>>,
    prior: Mutex<Option<Arc<LabelPrior>>>,
}

impl<'a> Corpus<'a> {
    fn new(index: &'a Segments, model: &'a dyn engine::embed::Embedder) -> Corpus<'a> {
        Corpus { index, model, stats: Mutex::new(None), prior: Mutex::new(None) }
    }

    /// The ranking statistics ([`CorpusStats::of`]), read once.
    fn stats(&self) -> anyhow::Result<Arc<CorpusStats>> {
        let mut slot = self.stats.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(s) = slot.as_ref() {
            return Ok(Arc::clone(s));
        }
        let s = Arc::new(CorpusStats::of(self.index).context("reading the index's documents for the ranking")?);
        *slot = Some(Arc::clone(&s));
        Ok(s)
    }

    /// The label prior of the suggestions: the ranking's when it read one, else
    /// [`LabelPrior::of`], read once.
    fn prior(&self, answer: &Answer) -> anyhow::Result<Arc<LabelPrior>> {
        if let Some(stats) = &answer.stats {
            return Ok(Arc::new(stats.label_prior().clone()));
        }
        let mut slot = self.prior.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(p) = slot.as_ref() {
            return Ok(Arc::clone(p));
        }
        let p = Arc::new(LabelPrior::of(self.index).context("reading the index's action labels for the suggestions")?);
        *slot = Some(Arc::clone(&p));
        Ok(p)
    }
}

/// Lines answered together (in parallel) before their answers are printed.
const BATCH_CHUNK: usize = 64;

/// The longest input line `--batch` reads (a 1 MiB snippet with JSON escapes fits).
const MAX_BATCH_LINE: usize = 8 << 20;

/// One line of a `--batch` file: the query and the flags it overrides (see `--batch`).
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct BatchQuery {
    id: Option<serde_json::Value>,
    code: Option<String>,
    cause: Option<String>,
    k: Option<usize>,
    threshold: Option<f32>,
    space: Option<String>,
    ef: Option<usize>,
    exact: Option<bool>,
    no_int8: Option<bool>,
    lang: Option<OneOrMany>,
    project: Option<OneOrMany>,
    exclude_id: Option<OneOrMany>,
    exclude_project: Option<OneOrMany>,
    rank: Option<String>,
    query_lang: Option<String>,
    lines: Option<String>,
}

/// A repeatable flag's value in a `--batch` line: one string or an array of them.
#[derive(Debug, serde::Deserialize)]
#[serde(untagged, expecting = "a string or an array of strings")]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

impl BatchQuery {
    /// The flags `base` with this line's fields put over them.
    fn args(self, base: &Args) -> anyhow::Result<Args> {
        let mut a = base.clone();
        a.code = self.code;
        a.cause = self.cause.unwrap_or_default();
        a.lines = self.lines;
        a.k = self.k.unwrap_or(a.k);
        a.threshold = self.threshold.or(a.threshold);
        a.space = self.space.unwrap_or(a.space);
        a.ef = self.ef.unwrap_or(a.ef);
        a.exact = self.exact.unwrap_or(a.exact);
        a.no_int8 = self.no_int8.unwrap_or(a.no_int8);
        a.languages = self.lang.map_or(a.languages, OneOrMany::into_vec);
        a.projects = self.project.map_or(a.projects, OneOrMany::into_vec);
        a.exclude_id = self.exclude_id.map_or(a.exclude_id, OneOrMany::into_vec);
        a.exclude_project = self.exclude_project.map_or(a.exclude_project, OneOrMany::into_vec);
        if let Some(r) = self.rank {
            a.rank = parse_rank(&r).map_err(|e| anyhow::anyhow!("\"rank\": {e}"))?;
        }
        if let Some(l) = self.query_lang {
            a.query_lang = Some(parse_language(&l).map_err(|e| anyhow::anyhow!("\"query_lang\": {e}"))?);
        }
        Ok(a)
    }
}

/// A failed `--batch` line: the message and the exit status it stands for.
struct LineError {
    message: String,
    status: u8,
}

impl From<anyhow::Error> for LineError {
    fn from(e: anyhow::Error) -> LineError {
        LineError { message: format!("{e:#}"), status: super::exit::code_for(&e) }
    }
}

/// `fixdex search --batch`: opens the index and the model once, then answers the lines of
/// `queries` in chunks of [`BATCH_CHUNK`] (in parallel), printing each chunk's answers in
/// input order before reading on.
fn run_batch(base: &Args, queries: &str) -> anyhow::Result<ExitCode> {
    let name = if queries == "-" { "- (standard input)" } else { queries };
    let mut reader: Box<dyn std::io::BufRead> = if queries == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let f = std::fs::File::open(queries).with_context(|| format!("reading --batch {name}"))?;
        Box::new(std::io::BufReader::new(f))
    };
    let index = Segments::open(&base.index).with_context(|| format!("opening index {}", base.index.display()))?;
    let model = super::model::load(&super::model::resolve(base.model.as_deref()))?;
    let corpus = Corpus::new(&index, &model);
    let (mut line_no, mut failed, mut status) = (0usize, Vec::new(), 0u8);
    loop {
        let chunk = next_chunk(&mut reader, &mut line_no).with_context(|| format!("reading --batch {name}"))?;
        if chunk.is_empty() {
            break;
        }
        let answers: Vec<serde_json::Value> =
            chunk.into_par_iter().map(|(n, line)| answer_line(base, &corpus, n, line)).collect();
        let mut stdout = std::io::stdout().lock();
        for v in &answers {
            if let Some(s) = v.get("status").and_then(serde_json::Value::as_u64) {
                failed.push(v["line"].as_u64().unwrap_or(0));
                status = status.max(u8::try_from(s).unwrap_or(super::exit::ERROR));
            }
            let mut v = v.clone();
            if let Some(o) = v.as_object_mut() {
                o.remove("status");
            }
            writeln!(stdout, "{}", serde_json::to_string(&v)?)?;
        }
        stdout.flush()?;
    }
    if failed.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let shown: Vec<String> = failed.iter().take(10).map(u64::to_string).collect();
    let more = if failed.len() > 10 { ", ..." } else { "" };
    eprintln!("error: {} of the queries in --batch {name} failed (line {}{more})", failed.len(), shown.join(", "));
    Ok(ExitCode::from(status))
}

/// Up to [`BATCH_CHUNK`] non-blank lines of `reader` with their 1-based numbers (`line_no`
/// counts every line read, blank ones too); empty at the end of the input.
fn next_chunk(
    reader: &mut dyn std::io::BufRead,
    line_no: &mut usize,
) -> std::io::Result<Vec<(usize, Result<String, String>)>> {
    let mut chunk = Vec::with_capacity(BATCH_CHUNK);
    while chunk.len() < BATCH_CHUNK {
        let Some(line) = read_line(reader)? else { break };
        *line_no += 1;
        if !matches!(&line, Ok(t) if t.trim().is_empty()) {
            chunk.push((*line_no, line));
        }
    }
    Ok(chunk)
}

/// The output object of batch line `n`: the answer, or `error` and the exit `status` it
/// would have had alone; with `line` and the line's `id`.
fn answer_line(base: &Args, corpus: &Corpus<'_>, n: usize, line: Result<String, String>) -> serde_json::Value {
    let (id, result) = match line {
        Ok(text) => batch_answer(base, corpus, n, &text),
        Err(message) => (None, Err(LineError { message, status: super::exit::USAGE })),
    };
    let mut v = match result {
        Ok(report) => report,
        Err(e) => serde_json::json!({ "error": e.message, "status": e.status }),
    };
    v["line"] = n.into();
    if let Some(id) = id {
        v["id"] = id;
    }
    v
}

/// The next line of `reader` without its line end: `None` at the end, `Some(Err)` for a
/// line longer than [`MAX_BATCH_LINE`] (skipped to its end) or not UTF-8.
fn read_line(reader: &mut dyn std::io::BufRead) -> std::io::Result<Option<Result<String, String>>> {
    let mut buf = Vec::new();
    let n = (&mut *reader).take(MAX_BATCH_LINE as u64 + 1).read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.len() > MAX_BATCH_LINE && buf.last() != Some(&b'\n') {
        loop {
            let mut rest = Vec::new();
            let m = (&mut *reader).take(1 << 20).read_until(b'\n', &mut rest)?;
            if m == 0 || rest.last() == Some(&b'\n') {
                break;
            }
        }
        return Ok(Some(Err(format!("the line is longer than {MAX_BATCH_LINE} bytes (8 MiB)"))));
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
    }
    Ok(Some(
        String::from_utf8(buf).map_err(|e| {
            format!("the line is not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to())
        }),
    ))
}

/// The answer to `--batch` line `n` (its text `text`), with the line's `id` when it parsed.
fn batch_answer(
    base: &Args,
    corpus: &Corpus<'_>,
    n: usize,
    text: &str,
) -> (Option<serde_json::Value>, Result<serde_json::Value, LineError>) {
    let query: BatchQuery = match serde_json::from_str(text) {
        Ok(q) => q,
        Err(e) => {
            // The id of a line that is a JSON object with a bad field is still echoed.
            let id = serde_json::from_str::<serde_json::Value>(text).ok().and_then(|v| v.get("id").cloned());
            let message = format!("invalid query: {e}");
            return (id, Err(LineError { message, status: super::exit::USAGE }));
        }
    };
    let id = query.id.clone();
    let result = query.args(base).map_err(|e| LineError { message: format!("{e:#}"), status: super::exit::USAGE });
    (id, result.and_then(|args| Ok(one_query(&args, corpus, n)?)))
}

/// Answers one `--batch` query whose flags are `args` (`code` holds the snippet itself).
fn one_query(args: &Args, corpus: &Corpus<'_>, n: usize) -> anyhow::Result<serde_json::Value> {
    let params = params(args)?;
    let code = match &args.code {
        Some(c) => c.clone(),
        None if params.space == Space::Cause => String::new(),
        None => anyhow::bail!("\"code\" is required for the {} space", params.space),
    };
    let lines = buggy_lines(args.lines.as_deref(), &code)?;
    engine::query::check_query_text(params.space, &code, &args.cause).context("the query")?;
    corpus.index.indexes()[0].vectors(params.space)?;
    let excluded = corpus.index.resolve_filter(&params.filter)?;
    for m in excluded.iter().filter(|m| m.matched.is_empty()) {
        eprintln!(
            "warning: line {n}: exclude_project {} matches no project in the index; it excludes nothing",
            m.given
        );
    }
    let t = Instant::now();
    let answer = ranked_answer(args, corpus, (&code, lines), params.clone())?;
    let seconds = t.elapsed().as_secs_f64();
    let prior = corpus.prior(&answer)?;
    let suggestions = answer.suggestions(&prior);
    full_report(args, &params, &answer, &suggestions, &excluded, seconds)
}

/// The hits of one query, in the ranking's order, with what their fixes did.
struct Answer {
    hits: Vec<SegmentHit>,
    docs: Vec<Record>,
    actions: Vec<FixActions>,
    /// Per hit, for rankings other than `dense`.
    features: Vec<Option<Features>>,
    /// The ranking statistics, when the ranking read them (their label shares are the
    /// suggestions' prior).
    stats: Option<Arc<CorpusStats>>,
}

impl Answer {
    fn push(&mut self, hit: SegmentHit, doc: Record, actions: FixActions, features: Option<Features>) {
        self.hits.push(hit);
        self.docs.push(doc);
        self.actions.push(actions);
        self.features.push(features);
    }

    fn suggestions(&self, prior: &LabelPrior) -> Vec<Suggestion> {
        let voters: Vec<Voter<'_>> = (0..self.hits.len())
            .map(|i| Voter { id: &self.docs[i].id, score: self.hits[i].score, actions: &self.actions[i] })
            .collect();
        repair::suggest::suggest_with_prior(&voters, prior, SUGGESTIONS)
    }
}

/// Searches (a pool of [`repair::rank::pool_size`] dense candidates) and reranks by `--rank`.
fn ranked_answer(
    args: &Args,
    corpus: &Corpus<'_>,
    (code, lines): (&str, Option<LineRange>),
    mut params: SearchParams,
) -> anyhow::Result<Answer> {
    let index = corpus.index;
    let k = params.k;
    params.k = repair::rank::pool_size(args.rank, k);
    let hits = index.query_lines(corpus.model, (code, &args.cause), lines, &params)?;
    let mut a = Answer { hits: Vec::new(), docs: Vec::new(), actions: Vec::new(), features: Vec::new(), stats: None };
    if args.rank == Rank::Dense || hits.is_empty() {
        for (h, d, actions) in repair::rank::dense_order(index, code, hits)?.into_iter().take(k) {
            a.push(h, d, actions, None);
        }
        return Ok(a);
    }
    let stats = corpus.stats()?;
    a.stats = Some(Arc::clone(&stats));
    let lang = match (args.query_lang, args.languages.as_slice()) {
        (Some(l), _) => Some(l),
        (None, [one]) => one.parse().ok(),
        (None, _) => None,
    };
    let ranked = repair::rank::rerank(index, &stats, code, lang, &hits, args.rank, &Weights::FITTED)?;
    for r in ranked.into_iter().take(k) {
        a.push(r.hit, r.doc, r.actions, Some(r.features));
    }
    Ok(a)
}

fn print_suggestions(suggestions: &[Suggestion]) -> std::io::Result<()> {
    if suggestions.is_empty() {
        return out!("likely repair actions: none (no hit names an action)\n");
    }
    out!("likely repair actions:")?;
    for (i, s) in suggestions.iter().enumerate() {
        out!("  {}. {}", i + 1, s.line())?;
    }
    out!()
}

fn params(args: &Args) -> anyhow::Result<SearchParams> {
    let p = SearchParams {
        space: args.space.parse()?,
        k: args.k,
        ef_search: args.ef,
        threshold: args.threshold,
        exact: args.exact,
        int8: !args.no_int8,
        filter: Filter {
            languages: args.languages.clone(),
            projects: args.projects.clone(),
            exclude_ids: args.exclude_id.clone(),
            exclude_projects: args.exclude_project.clone(),
        },
    };
    p.validate()?;
    Ok(p)
}

/// Warns, on stderr, about each `--exclude-project` that excludes nothing in the index.
pub fn warn_unmatched(excluded: &[ProjectMatch]) {
    for m in excluded.iter().filter(|m| m.matched.is_empty()) {
        eprintln!("warning: --exclude-project {} matches no project in the index; it excludes nothing", m.given);
    }
}

/// The `--lines` range, checked against the snippet's line count.
fn buggy_lines(arg: Option<&str>, code: &str) -> anyhow::Result<Option<LineRange>> {
    let Some(arg) = arg else { return Ok(None) };
    let r: LineRange = arg.parse()?;
    let n = code.lines().count();
    if r.last > n {
        anyhow::bail!("--lines {r} is outside the --code snippet ({n} lines)");
    }
    Ok(Some(r))
}

fn read_code(arg: Option<&str>, space: Space) -> anyhow::Result<String> {
    match arg {
        None if space == Space::Cause => Ok(String::new()),
        None => anyhow::bail!("--code FILE (or - for stdin) is required for the {space} space"),
        Some(path) => read_query_text(path, "--code"),
    }
}

/// Reads query text from the file `path` given with `flag` (`-`: standard input), at most
/// [`engine::text::MAX_QUERY_BYTES`]: a longer input is refused, never read to the end.
///
/// # Errors
/// The file cannot be read, is longer than the limit, or is not UTF-8; the message names
/// the flag and the path.
pub fn read_query_text(path: &str, flag: &str) -> anyhow::Result<String> {
    let limit = engine::text::MAX_QUERY_BYTES;
    let name = if path == "-" { "- (standard input)" } else { path };
    let reader: Box<dyn Read> = if path == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(Path::new(path)).with_context(|| format!("reading {flag} {name}"))?)
    };
    let mut bytes = Vec::new();
    reader.take(limit as u64 + 1).read_to_end(&mut bytes).with_context(|| format!("reading {flag} {name}"))?;
    if bytes.len() > limit {
        anyhow::bail!(
            "{flag} {name} is longer than {limit} bytes (1 MiB), the most fixdex reads for one query; \
             pass the buggy function or hunk, not a whole file or a device"
        );
    }
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!("{flag} {name} is not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to())
    })
}

fn json_report(p: &SearchParams, answer: &Answer, seconds: f64) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = answer
        .hits
        .iter()
        .zip(answer.docs.iter().zip(&answer.actions))
        .zip(&answer.features)
        .enumerate()
        .map(|(i, ((h, (d, a)), f))| {
            serde_json::json!({
                "rank": i + 1, "score": h.score, "id": d.id, "source": d.source, "project": d.project,
                "language": d.language, "root_cause": d.root_cause, "description": d.description,
                "buggy_code": d.buggy_code, "fixed_code": d.fixed_code, "diff": diff(d),
                "license": d.license, "meta": serde_json::from_str::<serde_json::Value>(&d.meta).unwrap_or(serde_json::Value::Null),
                "action_label": a.action_label, "action_reason": a.action_reason, "actions": a.actions,
                "action": a.line(), "features": f,
            })
        })
        .collect();
    serde_json::json!({
        "space": p.space.name(), "k": p.k, "ef_search": p.ef_search, "exact": p.exact,
        "threshold": p.threshold, "seconds": seconds, "hits": rows,
    })
}

fn print_hits(p: &SearchParams, answer: &Answer) -> std::io::Result<()> {
    if answer.hits.is_empty() {
        let why = p.threshold.map_or(String::new(), |t| format!(" with score ≥ {t}"));
        out!("no hits{why}")?;
    }
    for (i, (h, (d, a))) in answer.hits.iter().zip(answer.docs.iter().zip(&answer.actions)).enumerate() {
        out!("#{} score {:.4}  {}  [{}, {}]", i + 1, h.score, d.id, d.project, d.language)?;
        let cause = if d.root_cause.is_empty() { "(none recorded)" } else { d.root_cause.trim() };
        out!("   root cause: {}", one_line(cause, 200))?;
        if let Some(line) = a.line() {
            out!("   action: {line}")?;
        }
        for line in diff(d).lines() {
            out!("   {line}")?;
        }
        out!()?;
    }
    Ok(())
}

/// Unified diff buggy → fixed (3 lines of context).
fn diff(d: &Record) -> String {
    repair::patch::labelled_diff("buggy", "fixed", &d.buggy_code, &d.fixed_code)
}

fn one_line(s: &str, max: usize) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}
