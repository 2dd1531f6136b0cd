//! UniDebugger's report section ([`Details`], the report's `details`) and the evaluation's
//! per-bug summary of it ([`LevelSummary`]).

use serde::Serialize;

use super::prompts::Role;
use super::repofocus::Ranked;
use super::{Level, marks, slice};
use crate::run::report::{Outcome, RepairReport};
use crate::strategies::EvalTotals;

/// The report's `details` for UniDebugger.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Details {
    /// The highest level reached.
    pub level: Option<Level>,
    /// The level whose candidate was plausible.
    pub plausible_at: Option<Level>,
    /// The pass (1-based) the run was in when it ended.
    pub pass: usize,
    /// How the run ended: `plausible`, `exhausted` (every level and the reflection of every
    /// pass failed), `validations` (the validation budget ran out: the outcome is
    /// `budget_exhausted`), or `running` when the call budget or the clock cut it.
    pub ended: String,
    /// Candidates validated, and the bound.
    pub validations: usize,
    /// The bound on validations.
    pub max_validations: usize,
    /// The SBFL lines that seeded the Locator, `(line, score)`, best first.
    pub sbfl_seed: Vec<(usize, f64)>,
    /// Every agent request, in order.
    pub agents: Vec<AgentRecord>,
    /// Every Locator answer's marks.
    pub marks: Vec<MarksRecord>,
    /// Every window the Slicer's answers gave (or the default window).
    pub slices: Vec<SliceRecord>,
    /// The Helper's retrieval (L3).
    pub helper: Option<HelperRecord>,
    /// RepoFocus's files (L3).
    pub repofocus: Option<FocusRecord>,
}

/// One agent request.
#[derive(Debug, Clone, Serialize)]
pub struct AgentRecord {
    /// Pass, 1-based.
    pub pass: usize,
    /// Level.
    pub level: Level,
    /// The agent.
    pub role: Role,
    /// Characters of the request's messages.
    pub input_chars: usize,
    /// The answer (first choice), cut to 4,000 characters; `None` when the reply was unusable.
    pub output: Option<String>,
    /// The candidate this answer became (index into the report's `candidates`).
    pub candidate: Option<usize>,
}

/// One Locator answer's marks.
#[derive(Debug, Clone, Serialize)]
pub struct MarksRecord {
    /// Pass.
    pub pass: usize,
    /// Level.
    pub level: Level,
    /// Region of the file shown, 1-based inclusive lines.
    pub region: (usize, usize),
    /// The marks placed and the refused ones with their reasons.
    pub marked: marks::Marked,
    /// Whether the marks were used (valid: at least one placed, none refused).
    pub accepted: bool,
}

/// One window of the buggy file for L2/L3.
#[derive(Debug, Clone, Serialize)]
pub struct SliceRecord {
    /// Pass.
    pub pass: usize,
    /// Level.
    pub level: Level,
    /// The window, when one was accepted.
    pub slice: Option<slice::Slice>,
    /// Why the Slicer's answer was refused, or `default window` when none was valid.
    pub note: Option<String>,
}

/// The Helper's retrieval.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HelperRecord {
    /// The query (≤ 100 words).
    pub query: Option<String>,
    /// Ids of the similar fixes found.
    pub hits: Vec<String>,
    /// The reference guide.
    pub guide: Option<String>,
    /// Why there is no guide (no index, no usable query, no hit above the threshold).
    pub note: Option<String>,
}

/// RepoFocus's choice.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FocusRecord {
    /// The deterministic pre-ranking's top ([`super::FOCUS_CANDIDATES`]).
    pub pre_ranked: Vec<Ranked>,
    /// The files chosen, summarised for L3.
    pub chosen: Vec<String>,
    /// `model` (the model named at least two of the candidates), `model+pre_ranking` (it
    /// named one; the pre-ranking's best filled in), `pre_ranking` (two or fewer candidates,
    /// taken without asking the model, or a model answer naming none), or `none` (no
    /// candidate: no file had a signal).
    pub source: String,
    /// Why fewer than two files were chosen, when so.
    pub note: Option<String>,
}

/// One bug's escalation in an evaluation (`fixdex eval quixbugs --strategy unidebugger`),
/// from the report's [`Details`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LevelSummary {
    /// The highest level reached (`L1`, `L2`, `L3`, `reflection`).
    pub level: String,
    /// The level whose candidate was plausible.
    pub plausible_at: Option<String>,
    /// Candidates validated.
    pub validations: usize,
}

impl LevelSummary {
    /// The summary of a UniDebugger report's section; `None` for other sections and for a
    /// run that reached no level.
    #[must_use]
    pub fn of(details: &crate::run::report::Details) -> Option<LevelSummary> {
        let d = details.get::<Details>()?;
        Some(LevelSummary {
            level: d.level?.as_str().to_string(),
            plausible_at: d.plausible_at.map(|l| l.as_str().to_string()),
            validations: d.validations,
        })
    }

    /// `fixdex repair`'s stderr line on the escalation.
    #[must_use]
    pub fn line(&self) -> String {
        format!(
            "escalation: reached {}{}, {} candidates validated",
            self.level,
            self.plausible_at.as_ref().map(|p| format!(", plausible at {p}")).unwrap_or_default(),
            self.validations
        )
    }
}

/// UniDebugger's escalation over an evaluation's `reports` (`None` when none has a
/// [`LevelSummary`]): per level (`L1`, `L2`, `L3`, `reflection`), the bugs that ended there
/// (the highest level they reached, with or without a plausible patch), how many of them
/// have a plausible patch, and their mean LLM calls, tokens and wall seconds per bug (`null`
/// when none ended there); and the table's line.
#[must_use]
pub fn level_totals(reports: &[&RepairReport]) -> Option<EvalTotals> {
    let reached: Vec<(&RepairReport, LevelSummary)> =
        reports.iter().filter_map(|r| Some((*r, LevelSummary::of(&r.details)?))).collect();
    if reached.is_empty() {
        return None;
    }
    let mut out = serde_json::Map::new();
    let mut per = Vec::new();
    for level in Level::ALL {
        let there: Vec<&RepairReport> =
            reached.iter().filter(|(_, l)| l.level == level.as_str()).map(|(r, _)| *r).collect();
        let n = there.len();
        let mean =
            |f: &dyn Fn(&RepairReport) -> f64| (n > 0).then(|| there.iter().map(|r| f(r)).sum::<f64>() / n as f64);
        let plausible = there.iter().filter(|r| r.outcome == Outcome::Plausible).count();
        per.push(format!("{} {n} ({plausible} plausible)", level.as_str()));
        out.insert(
            level.as_str().to_string(),
            serde_json::json!({
                "ended": n, "plausible": plausible,
                "calls_per_bug": mean(&|r| r.llm.calls as f64), "tokens_per_bug": mean(&|r| r.llm.tokens() as f64),
                "wall_s_per_bug": mean(&|r| r.wall_s),
            }),
        );
    }
    let line = format!("levels reached: {}", per.join(", "));
    Some(EvalTotals { key: "levels", totals: serde_json::Value::Object(out), line })
}
