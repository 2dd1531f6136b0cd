//! `fixdex search`: the most similar bug-fix pairs for a buggy snippet and its root cause.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use engine::embed::LineRange;
use engine::{Filter, ProjectMatch, Record, SearchParams, SegmentHit, Segments, Space};
use repair::fix_actions::FixActions;
use repair::rank::{CorpusStats, Features, Rank, Weights};
use repair::suggest::{LabelPrior, Suggestion, Voter};

/// Arguments of `fixdex search`.
#[derive(Debug, clap::Args)]
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
    /// hits' action vote and the action prior; reranks at least 100 dense candidates).
    #[arg(long, default_value = "action", value_parser = parse_rank)]
    rank: Rank,
    /// First print the likely repair actions for the query: the hits' actions aggregated
    /// (kind, vote share, supporting hits, an example). The JSON answer always has them.
    #[arg(long)]
    actions: bool,
    /// Language of the query code, for the action fit [default: the single --lang, else the
    /// best dense hit's language].
    #[arg(long, value_parser = parse_language)]
    query_lang: Option<actions::Language>,
    /// The buggy lines of --code, `A-B` or `A` (1-based, inclusive): an index built with
    /// rule cause-first-window-v1 then embeds a long snippet as its signature plus the
    /// lines around these (as it embedded its documents). Without it, the snippet's first
    /// tokens are embedded.
    #[arg(long)]
    lines: Option<String>,
    /// Print hits as one JSON object.
    #[arg(long)]
    json: bool,
}

fn parse_rank(s: &str) -> Result<Rank, String> {
    s.parse()
}

fn parse_language(s: &str) -> Result<actions::Language, String> {
    s.parse().map_err(|e: actions::Error| e.to_string())
}

/// Suggestions kept in an answer.
const SUGGESTIONS: usize = 5;

/// Runs `fixdex search`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
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
    let t = Instant::now();
    let answer = ranked_answer(args, &index, &model, (&code, lines), params.clone())?;
    let seconds = t.elapsed().as_secs_f64();
    let prior = match &answer.prior {
        Some(p) => p.clone(),
        None => LabelPrior::of(&index).context("reading the index's action labels for the suggestions")?,
    };
    let suggestions = answer.suggestions(&prior);
    if args.json {
        let mut report = json_report(&params, &answer, seconds);
        report["rank"] = args.rank.name().into();
        report["suggestions"] = serde_json::to_value(&suggestions)?;
        report["exclude_projects"] = serde_json::to_value(&excluded)?;
        out!("{}", serde_json::to_string(&report)?)?;
    } else {
        if args.actions {
            print_suggestions(&suggestions)?;
        }
        print_hits(&params, &answer)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The hits of one query, in the ranking's order, with what their fixes did.
struct Answer {
    hits: Vec<SegmentHit>,
    docs: Vec<Record>,
    actions: Vec<FixActions>,
    /// Per hit, for rankings other than `dense`.
    features: Vec<Option<Features>>,
    /// The index's label shares, when the ranking already read them ([`CorpusStats`]).
    prior: Option<LabelPrior>,
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
    index: &Segments,
    model: &dyn engine::embed::Embedder,
    (code, lines): (&str, Option<LineRange>),
    mut params: SearchParams,
) -> anyhow::Result<Answer> {
    let k = params.k;
    params.k = repair::rank::pool_size(args.rank, k);
    let hits = index.query_lines(model, (code, &args.cause), lines, &params)?;
    let mut a = Answer { hits: Vec::new(), docs: Vec::new(), actions: Vec::new(), features: Vec::new(), prior: None };
    if args.rank == Rank::Dense || hits.is_empty() {
        for (h, d, actions) in repair::rank::with_docs(index, hits.into_iter().take(k).collect())? {
            a.push(h, d, actions, None);
        }
        return Ok(a);
    }
    let stats = CorpusStats::of(index).context("reading the index's documents for the ranking")?;
    a.prior = Some(stats.label_prior().clone());
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
