//! `fixdex search --batch`: many queries with one model and index load. Each line of the
//! input is a JSON object of flags ([`BatchQuery`]) put over the command line's; each gets
//! one output line: the `--json` answer, or the error and, outside the JSON, the exit status
//! it would have had alone.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use anyhow::Context;
use engine::Space;
use rayon::prelude::*;
use repair::retrieve::{RetrieveError, Retriever};
use repair::serve::lines::{TooLong, read_line};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Answer, Args, parse_language};

/// Lines answered together (in parallel) before their answers are printed.
const BATCH_CHUNK: usize = 64;

/// The longest input line read (a 1 MiB snippet with JSON escapes fits).
const MAX_BATCH_LINE: usize = 8 << 20;

/// One line of a `--batch` file: the query and the flags it overrides (see `--batch`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BatchQuery {
    id: Option<Value>,
    code: Option<String>,
    /// `root_cause` too: a `fixdex serve` request line is a batch line as it is.
    #[serde(alias = "root_cause")]
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
#[derive(Debug, Deserialize)]
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
        (a.code, a.cause, a.lines) = (self.code, self.cause.unwrap_or_default(), self.lines);
        a.k = self.k.unwrap_or(a.k);
        a.threshold = self.threshold.or(a.threshold);
        a.space = self.space.unwrap_or(a.space);
        a.ef = self.ef.unwrap_or(a.ef);
        a.exact = self.exact.unwrap_or(a.exact);
        a.no_int8 = self.no_int8.unwrap_or(a.no_int8);
        let many = |v: Option<OneOrMany>, flag: Vec<String>| v.map_or(flag, OneOrMany::into_vec);
        a.languages = many(self.lang, a.languages);
        a.projects = many(self.project, a.projects);
        a.exclude_id = many(self.exclude_id, a.exclude_id);
        a.exclude_project = many(self.exclude_project, a.exclude_project);
        if let Some(r) = self.rank {
            a.rank = r.parse::<repair::retrieve::Rank>().map_err(|e| anyhow::anyhow!("\"rank\": {e}"))?;
        }
        if let Some(l) = self.query_lang {
            a.query_lang = Some(parse_language(&l).map_err(|e| anyhow::anyhow!("\"query_lang\": {e}"))?);
        }
        Ok(a)
    }
}

/// The output line of one input line: `line`, the line's `id`, and the answer or the error.
#[derive(Debug, Serialize)]
struct LineAnswer {
    line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<Value>,
    #[serde(flatten)]
    answer: Option<Answer>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// The exit status the failed line would have had alone (not printed).
    #[serde(skip)]
    status: Option<u8>,
}

/// A failed line: the message and the exit status it stands for.
struct LineError {
    message: String,
    status: u8,
}

impl LineError {
    fn usage(message: String) -> LineError {
        LineError { message, status: crate::cli::exit::USAGE }
    }
}

impl From<anyhow::Error> for LineError {
    fn from(e: anyhow::Error) -> LineError {
        LineError { message: format!("{e:#}"), status: crate::cli::exit::code_for(&e) }
    }
}

/// Opens `queries` (`-`: standard input), then the index and the model once, and answers
/// the lines in chunks of [`BATCH_CHUNK`] (in parallel), printing each chunk's answers in
/// input order before reading on. Exit status: 0 when every line answered, else the
/// highest status of the failed lines.
pub(super) fn run(base: &Args, queries: &str) -> anyhow::Result<ExitCode> {
    let name = if queries == "-" { "- (standard input)" } else { queries };
    let mut reader = open(queries).with_context(|| format!("reading --batch {name}"))?;
    // A UTF-16 file is refused whole, not line by line.
    let head = reader.fill_buf().with_context(|| format!("reading --batch {name}"))?;
    if let Some(why) = engine::text::utf16_reason(head) {
        return Err(crate::cli::exit::Usage(format!("--batch {name}: {why}")).into());
    }
    let retriever = super::open(base, repair::retrieve::Exclusion::default())?;
    let (mut line_no, mut failed) = (0usize, Vec::new());
    loop {
        let chunk = next_chunk(&mut reader, &mut line_no).with_context(|| format!("reading --batch {name}"))?;
        if chunk.is_empty() {
            break;
        }
        let answers: Vec<LineAnswer> =
            chunk.into_par_iter().map(|(n, line)| answer_line(base, &retriever, n, line)).collect();
        print_chunk(&answers, &mut failed)?;
    }
    Ok(exit_status(&failed, name))
}

/// The input `queries` (`-`: standard input).
fn open(queries: &str) -> std::io::Result<Box<dyn BufRead>> {
    if queries == "-" {
        return Ok(Box::new(std::io::stdin().lock()));
    }
    Ok(Box::new(std::io::BufReader::new(std::fs::File::open(queries)?)))
}

/// Prints `answers`, one line each, and notes each failed line and its status in `failed`.
fn print_chunk(answers: &[LineAnswer], failed: &mut Vec<(usize, u8)>) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    crate::cli::STDOUT_WRITTEN.store(true, std::sync::atomic::Ordering::Relaxed);
    for a in answers {
        failed.extend(a.status.map(|s| (a.line, s)));
        writeln!(stdout, "{}", serde_json::to_string(a)?)?;
    }
    Ok(stdout.flush()?)
}

/// Success when no line failed; else says which did, on stderr, and exits with the highest
/// status.
fn exit_status(failed: &[(usize, u8)], name: &str) -> ExitCode {
    let Some(status) = failed.iter().map(|f| f.1).max() else { return ExitCode::SUCCESS };
    let shown: Vec<String> = failed.iter().take(10).map(|f| f.0.to_string()).collect();
    let more = if failed.len() > 10 { ", ..." } else { "" };
    let lines = if failed.len() == 1 { "line" } else { "lines" };
    eprintln!("error: {} of the queries in --batch {name} failed ({lines} {}{more})", failed.len(), shown.join(", "));
    ExitCode::from(status)
}

/// Up to [`BATCH_CHUNK`] non-blank lines of `reader` with their 1-based numbers (`line_no`
/// counts every line read, blank ones too); empty at the end of the input.
fn next_chunk(reader: &mut dyn BufRead, line_no: &mut usize) -> std::io::Result<Vec<(usize, Result<String, String>)>> {
    let mut chunk = Vec::with_capacity(BATCH_CHUNK);
    while chunk.len() < BATCH_CHUNK {
        let Some(line) = read_line(reader, MAX_BATCH_LINE)? else { break };
        *line_no += 1;
        // A byte-order mark opening the file (Windows editors write one), as `fixdex index`
        // reads JSONL.
        let line = text(line).map(|t| if *line_no == 1 { engine::text::strip_bom(&t).to_string() } else { t });
        if !matches!(&line, Ok(t) if t.trim().is_empty()) {
            chunk.push((*line_no, line));
        }
    }
    Ok(chunk)
}

/// The text of a line read, or why it has none: too long, or not UTF-8 (a UTF-16 file is
/// refused before its first line, [`run`]).
fn text(line: Result<Vec<u8>, TooLong>) -> Result<String, String> {
    let bytes = line.map_err(|_| format!("the line is longer than {MAX_BATCH_LINE} bytes (8 MiB)"))?;
    String::from_utf8(bytes).map_err(|e| engine::text::invalid_utf8_in_line(e.utf8_error().valid_up_to()))
}

/// The output of batch line `n`.
fn answer_line(base: &Args, retriever: &Retriever, n: usize, line: Result<String, String>) -> LineAnswer {
    let (id, result) = match line {
        Ok(text) => batch_answer(base, retriever, n, &text),
        Err(message) => (None, Err(LineError::usage(message))),
    };
    match result {
        Ok(answer) => LineAnswer { line: n, id, answer: Some(answer), error: None, status: None },
        Err(e) => LineAnswer { line: n, id, answer: None, error: Some(e.message), status: Some(e.status) },
    }
}

/// The answer to `--batch` line `n` (its text `text`), with the line's `id` when it has one.
fn batch_answer(
    base: &Args,
    retriever: &Retriever,
    n: usize,
    text: &str,
) -> (Option<Value>, Result<Answer, LineError>) {
    let query: BatchQuery = match serde_json::from_str(text) {
        Ok(q) => q,
        Err(e) => {
            // The id of a line that is a JSON object with a bad field is still echoed.
            let value = serde_json::from_str::<Value>(text).ok();
            let id = value.as_ref().and_then(|v| v.get("id").cloned());
            let why = match &value {
                Some(v) if !v.is_object() => {
                    "expected a JSON object (one query per line, e.g. {\"code\": \"...\", \"cause\": \"...\"})"
                        .to_string()
                }
                // Not JSON at all (`expected ident`): say so before serde's words.
                None => format!("not valid JSON: {}", json_error(&e)),
                _ => json_error(&e),
            };
            return (id, Err(LineError::usage(format!("invalid query: {why}"))));
        }
    };
    let id = query.id.clone();
    let args = query.args(base).map_err(|e| LineError::usage(format!("{e:#}")));
    (id, args.and_then(|args| Ok(one_query(&args, retriever, n)?)))
}

/// serde's message for a line that is no query, placed by column only: its "at line 1" is
/// the line within the line, which the answer's `line` (the file's) would contradict.
fn json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) if e.column() > 0 => format!("{} at column {}", &text[..i], e.column()),
        _ => text,
    }
}

/// Answers one `--batch` query whose flags are `args` (`code` holds the snippet itself).
fn one_query(args: &Args, retriever: &Retriever, n: usize) -> anyhow::Result<Answer> {
    let params = super::params(args)?;
    let code = code(args, params.space)?;
    let lines = super::input::buggy_lines(args.lines.as_deref(), &code)?;
    engine::query::check_query_text(params.space, &code, &args.cause).context("the query")?;
    let answer = super::answer(&retriever.with_exclusion(super::exclusion(args)), args, &params, (&code, lines))
        .map_err(field_names)?;
    for m in answer.exclude_projects.iter().filter(|m| m.matched.is_empty()) {
        eprintln!(
            "warning: line {n}: exclude_project {} matches no project in the index; it excludes nothing",
            m.given
        );
    }
    Ok(answer)
}

/// `e` with a filter that matched nothing named by the line's JSON field (`"project"`,
/// `"lang"`), not by the command line's flag (`--project`), which the line did not use.
fn field_names(e: anyhow::Error) -> anyhow::Error {
    match e.downcast::<RetrieveError>() {
        Ok(RetrieveError::Engine(engine::Error::NoMatch { flag, value, what, suggestions, all })) => {
            let field = match flag {
                "--project" => "\"project\"",
                "--lang" => "\"lang\"",
                other => other,
            };
            RetrieveError::Engine(engine::Error::NoMatch { flag: field, value, what, suggestions, all }).into()
        }
        Ok(other) => other.into(),
        Err(e) => e,
    }
}

/// The snippet of a `--batch` line: its `code`, which only the `cause` space may lack.
fn code(args: &Args, space: Space) -> anyhow::Result<String> {
    match &args.code {
        Some(c) => Ok(c.clone()),
        None if space == Space::Cause => Ok(String::new()),
        None => anyhow::bail!("\"code\" is required for the {space} space"),
    }
}
