//! The pipeline's answer: [`SimilarFix`], the one hit schema that the repair report's
//! `retrieved` list, the served tool's structured answer (`fixes`) and `fixdex search
//! --json` (`hits`) all write, and [`Retrieval`], one query's answer; and how a list of hits
//! is written for a model ([`render_as`]).
//!
//! A hit's fields up to `actions` are always there (the report's bytes, which replay
//! recordings compare, are exactly those); the fields after them are optional, filled only
//! when the query asked for them ([`super::RetrieveParams::detail`]) and skipped when
//! absent.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::actions::FixActions;
use super::rank::Features;
use super::suggest::Suggestion;

/// One similar fix, as given to the model, written to the repair report and printed by
/// `fixdex search --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimilarFix {
    /// 1-based rank.
    pub rank: usize,
    /// Cosine similarity to the query, in [-1, 1].
    pub score: f32,
    /// Document id.
    pub id: String,
    /// Upstream project.
    pub project: String,
    /// Language.
    pub language: String,
    /// Root cause stored with the pair, or when there is none its proxy, the description
    /// (e.g. the commit message).
    pub root_cause: String,
    /// The buggy code.
    pub buggy_code: String,
    /// The fixed code.
    pub fixed_code: String,
    /// Unified diff from buggy to fixed code (3 lines of context).
    pub diff: String,
    /// What the fix did: `action_label`, `action_reason` and `actions` (flattened into the
    /// fix's JSON; empty for a document that was never classified).
    #[serde(flatten)]
    pub fix_actions: FixActions,
    /// Detail: where the pair comes from (`mined:javafix`, `defects4j`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Detail: the stored description (e.g. the commit message), whatever `root_cause` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Detail: the license of the source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// Detail: the stored metadata object (`null` when the stored text is not JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// Detail: the repair actions as one line ([`FixActions::line`]); absent for a document
    /// never classified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// Detail: the ranking's features of the hit; absent under the `dense` ranking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub features: Option<Features>,
}

/// The answer of one query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Retrieval {
    /// Vector space searched.
    pub space: String,
    /// Hits, best first, at most `k`, all at or above the threshold.
    pub fixes: Vec<SimilarFix>,
    /// Hits dropped because their buggy code equals the query code (leakage control; 0
    /// when [`super::RetrieveParams::drop_exact`] is off).
    pub dropped_exact: usize,
    /// The ranking used (`dense`, `hybrid`, `action`; [`super::rank`]).
    #[serde(default = "default_rank_name")]
    pub rank: String,
    /// Likely repair actions for the query: the fixes' actions aggregated under the index's
    /// label prior ([`super::suggest`]), at most [`SUGGESTIONS`].
    #[serde(default)]
    pub suggestions: Vec<Suggestion>,
    /// The HNSW beam width (`ef_search`) when the graph was asked; `None` for exact (brute
    /// force) search. The engine may still answer a very selective filter exactly. Not
    /// serialized (the answers of `search --json` and the served tool are unchanged); the
    /// repair report records it ([`crate::run::report::RetrievalSettings::ef`]).
    #[serde(skip)]
    pub ef: Option<usize>,
}

fn default_rank_name() -> String {
    "dense".into()
}

/// Most action suggestions in a [`Retrieval`].
pub const SUGGESTIONS: usize = 5;

/// How a list of similar fixes is written for a model ([`render_as`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixStyle {
    /// The answer of the `search_similar_fixes` tool: each fix with its score (3
    /// decimals), id and project; "No similar fix above the threshold." for none; when the
    /// budget runs out after the first fix, a note says how many were left out.
    Tool,
    /// The similar-fix section of a repair prompt (ReinFix's suggestion prompt): each fix
    /// with its score (2 decimals: replays stay stable under tiny floating-point
    /// differences between machines); `""` for none; whole fixes that do not fit are left
    /// out silently.
    Prompt,
}

/// Model-facing text of a retrieval: each fix with its score, root cause, repair actions
/// (`Action: change operator < → <= in for condition`, [`FixActions::line`]; no line for a
/// document never classified) and diff (buggy → fixed), cut to `max_chars` characters (whole fixes are dropped from the end;
/// `style` says what else is written).
#[must_use]
pub fn render_as(r: &Retrieval, max_chars: usize, style: FixStyle) -> String {
    if r.fixes.is_empty() {
        return match style {
            FixStyle::Tool => "No similar fix above the threshold.".into(),
            FixStyle::Prompt => String::new(),
        };
    }
    let mut out = String::new();
    for (i, f) in r.fixes.iter().enumerate() {
        let block = block(f, style);
        if out.len() + block.len() > max_chars {
            if style == FixStyle::Tool && i > 0 {
                out.push_str(&format!("[{} more similar fixes left out for length]\n", r.fixes.len() - i));
                break;
            }
            if style == FixStyle::Prompt {
                break;
            }
        }
        out.push_str(&block);
    }
    out
}

/// One fix as `style` writes it: its head, root cause, action line and diff.
fn block(f: &SimilarFix, style: FixStyle) -> String {
    let cause = if f.root_cause.trim().is_empty() { "(none recorded)" } else { f.root_cause.trim() };
    let head = match style {
        FixStyle::Tool => {
            format!("Similar fix {} (similarity {:.3}, {}, project {})", f.rank, f.score, f.id, f.project)
        }
        FixStyle::Prompt => format!("Fix {} (similarity {:.2})", f.rank, f.score),
    };
    let action = f.fix_actions.line().map_or(String::new(), |a| format!("Action: {a}\n"));
    format!("### {head}\nRoot cause: {cause}\n{action}```diff\n{}```\n", f.diff)
}

/// [`render_as`] in the tool's style ([`FixStyle::Tool`]).
#[must_use]
pub fn render(r: &Retrieval, max_chars: usize) -> String {
    render_as(r, max_chars, FixStyle::Tool)
}
