//! How `fixdex search` writes an answer: one JSON object ([`Answer`]) or text for people.

use engine::ProjectMatch;
use repair::retrieve::SimilarFix;
use repair::retrieve::suggest::Suggestion;
use serde::Serialize;

/// The `--json` answer to one query: the options searched with, the time the pipeline took,
/// its hits and suggestions, and what each `--exclude-project` matched.
#[derive(Debug, Serialize)]
pub(super) struct Answer {
    /// Vector space searched.
    pub(super) space: &'static str,
    /// Hits asked for.
    pub(super) k: usize,
    /// HNSW beam width.
    pub(super) ef_search: usize,
    /// Whether the search was brute force.
    pub(super) exact: bool,
    /// Minimum cosine similarity, when given.
    pub(super) threshold: Option<f32>,
    /// Seconds the pipeline took (embedding, search, ranking, suggestions).
    pub(super) seconds: f64,
    /// The hits, best first: the pipeline's hit schema with its detail fields.
    pub(super) hits: Vec<SimilarFix>,
    /// The ranking used.
    pub(super) rank: &'static str,
    /// Likely repair actions for the query.
    pub(super) suggestions: Vec<Suggestion>,
    /// What each `--exclude-project` matched in the index.
    pub(super) exclude_projects: Vec<ProjectMatch>,
}

/// The answer for people: with `actions` the suggestions first, then each hit.
pub(super) fn text(answer: &Answer, actions: bool) -> std::io::Result<()> {
    if actions {
        print_suggestions(&answer.suggestions)?;
    }
    if answer.hits.is_empty() {
        let why = answer.threshold.map_or(String::new(), |t| format!(" with score ≥ {t}"));
        out!("no hits{why}")?;
    }
    answer.hits.iter().try_for_each(print_hit)
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

/// One hit: rank, score, id, project and language; root cause; action; diff.
fn print_hit(h: &SimilarFix) -> std::io::Result<()> {
    out!("#{} score {:.4}  {}  [{}, {}]", h.rank, h.score, h.id, h.project, h.language)?;
    let cause = if h.root_cause.is_empty() { "(none recorded)" } else { h.root_cause.trim() };
    out!("   root cause: {}", one_line(cause, 200))?;
    if let Some(line) = &h.action {
        out!("   action: {line}")?;
    }
    for line in h.diff.lines() {
        out!("   {line}")?;
    }
    out!()
}

fn one_line(s: &str, max: usize) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}
