//! `fixdex search`: the most similar bug-fix pairs for a buggy snippet and its root cause.
//! Parses the flags into the retrieval pipeline's options ([`RetrieveParams`]), asks the
//! pipeline ([`repair::retrieve::Retriever`]) and renders its answer: the hits as text, or
//! as one JSON object whose `hits` are the pipeline's hits
//! ([`repair::retrieve::SimilarFix`], the repair report's schema). `--batch` is [`batch`].

mod batch;
mod input;
mod render;

use std::process::ExitCode;
use std::time::Instant;

use engine::ProjectMatch;
use engine::embed::LineRange;
use render::Answer;
use repair::retrieve::{Exclusion, Rank, RetrieveParams, Retriever};

/// Arguments of `fixdex search`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The index file, or a manifest of segments (`fixdex manifest`).
    index: std::path::PathBuf,
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
    #[arg(long = "lang", allow_hyphen_values = true, value_parser = clap::builder::NonEmptyStringValueParser::new())]
    languages: Vec<String>,
    /// Only hits from this project (repeatable).
    #[arg(long = "project", allow_hyphen_values = true, value_parser = clap::builder::NonEmptyStringValueParser::new())]
    projects: Vec<String>,
    /// Never return this id, e.g. the bug under repair (repeatable).
    #[arg(long, allow_hyphen_values = true, value_parser = clap::builder::NonEmptyStringValueParser::new())]
    exclude_id: Vec<String>,
    /// Never return hits from this project (repeatable). Matched by identity: a benchmark
    /// project and its upstream repository are one (`Closure` = `google/closure-compiler`),
    /// case-insensitively, with or without `https://github.com/` or `.git`.
    #[arg(long, allow_hyphen_values = true, value_parser = clap::builder::NonEmptyStringValueParser::new())]
    exclude_project: Vec<String>,
    /// Embedding model folder; must be the index's model [default: data/models/all-MiniLM-L6-v2].
    #[arg(long, env = "FIXDEX_MODEL")]
    model: Option<std::path::PathBuf>,
    /// Ranking of the hits: `dense` (cosine), `hybrid` (cosine + BM25 over code terms) or
    /// `action` (hybrid + whether each hit's repair action fits the query code, the top
    /// hits' action vote and the action prior); each reranks at least 100 dense candidates,
    /// and under each a hit whose buggy code is the query's (up to whitespace), then a
    /// near-duplicate of it by code alone, comes first.
    #[arg(long, default_value = "action", value_parser = |s: &str| s.parse::<Rank>())]
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
    /// input) holds one JSON object per line, `{"code": TEXT, "cause": TEXT}` (`root_cause`,
    /// as `fixdex serve`'s `search_similar_fixes` names it, is taken for `cause`) plus any of
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

fn parse_language(s: &str) -> Result<repair::Language, String> {
    s.parse().map_err(|e: actions::Error| e.to_string())
}

/// Runs `fixdex search`: one query from the flags, or `--batch`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    if let Some(queries) = &args.batch {
        return batch::run(args, queries);
    }
    let params = params(args)?;
    let code = input::read_code(args.code.as_deref(), params.space)?;
    let lines = input::buggy_lines(args.lines.as_deref(), &code)?;
    input::check_text(args, params.space, &code)?;
    let retriever = open(args, exclusion(args))?;
    check_ids(&retriever, "--exclude-id")?;
    let answer = answer(&retriever, args, &params, (&code, lines))?;
    warn_unmatched(&answer.exclude_projects);
    if args.json {
        out!("{}", serde_json::to_string(&answer)?)?;
    } else {
        render::text(&answer, args.actions)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses an excluded id (`flag`: `--exclude-id`, `repair --bug-id`) that no record of the
/// index has when a record has it in another form (`Jsoup-41` for `defects4j:Jsoup-41`: the
/// record meant would be retrieved), a usage error naming the form
/// ([`repair::retrieve::ids`]); warns when no record has it in any form (nothing is excluded
/// by id).
///
/// # Errors
/// [`engine::Error::NoMatch`] (exit 2) for an id in the wrong form; a document batch that
/// cannot be decoded.
pub fn check_ids(r: &Retriever, flag: &'static str) -> anyhow::Result<()> {
    for m in r.excluded_ids()?.into_iter().filter(|m| !m.found) {
        if m.similar.is_empty() {
            eprintln!("warning: {flag} {} names no record of the index; nothing is excluded by id", m.given);
            continue;
        }
        return Err(
            engine::Error::NoMatch { flag, value: m.given, what: "record id", suggestions: m.similar, all: 0 }.into()
        );
    }
    Ok(())
}

/// The retriever of `args.index` with `args.model` and `exclusion`.
fn open(args: &Args, exclusion: Exclusion) -> anyhow::Result<Retriever> {
    super::model::open_retriever(&args.index, args.model.as_deref(), exclusion)
}

/// Answers the query `code` (with its buggy `lines`) and `args.cause` with `retriever`.
fn answer(
    retriever: &Retriever,
    args: &Args,
    p: &RetrieveParams,
    (code, lines): (&str, Option<LineRange>),
) -> anyhow::Result<Answer> {
    let t = Instant::now();
    let found = retriever.search_lines(code, &args.cause, lines, p)?;
    Ok(Answer {
        space: p.space.name(),
        k: p.k,
        ef_search: p.ef_search,
        exact: p.exact.unwrap_or_default(),
        threshold: p.threshold,
        seconds: t.elapsed().as_secs_f64(),
        hits: found.fixes,
        rank: p.rank.name(),
        suggestions: found.suggestions,
        exclude_projects: retriever.excluded_projects(),
    })
}

/// The pipeline's options from the flags: the hits with their detail fields, duplicates of
/// the query kept (first), the graph searched unless `--exact`.
///
/// # Errors
/// An unknown `--space`, or `-k`, `--ef` or `--threshold` out of range.
fn params(args: &Args) -> anyhow::Result<RetrieveParams> {
    let p = RetrieveParams {
        space: args.space.parse()?,
        k: args.k,
        threshold: args.threshold,
        rank: args.rank,
        language: args.query_lang.or_else(|| single_language(&args.languages)),
        languages: args.languages.clone(),
        projects: args.projects.clone(),
        ef_search: args.ef,
        exact: Some(args.exact),
        int8: !args.no_int8,
        drop_exact: false,
        detail: true,
    };
    p.validate()?;
    Ok(p)
}

/// The one `--lang` given, as the query's language.
fn single_language(languages: &[String]) -> Option<repair::Language> {
    match languages {
        [one] => one.parse().ok(),
        _ => None,
    }
}

/// What the pipeline never returns: `--exclude-id` and `--exclude-project`.
fn exclusion(args: &Args) -> Exclusion {
    Exclusion { ids: args.exclude_id.clone(), projects: args.exclude_project.clone(), keep_ids: Vec::new() }
}

/// Warns, on stderr, about each `--exclude-project` that excludes nothing in the index.
pub fn warn_unmatched(excluded: &[ProjectMatch]) {
    for m in excluded.iter().filter(|m| m.matched.is_empty()) {
        eprintln!("warning: --exclude-project {} matches no project in the index; it excludes nothing", m.given);
    }
}
