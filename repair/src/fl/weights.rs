//! Line weights from fault localization ([`LineWeights`]: how suspicious each line of the
//! buggy file is) and the choice of the method a repair starts from ([`top_method`]): what
//! `fixdex repair --sbfl` and `fixdex eval quixbugs --localization sbfl` give the run
//! ([`crate::run::bug::Problem::weights`]).

use std::collections::BTreeMap;

use super::{FlReport, MethodScore};

/// How suspicious each line of the localized code is, a weight in (0, 1].
#[derive(Debug, Clone, PartialEq, Default)]
pub enum LineWeights {
    /// Perfect localization: every line of the method weighs 1 (the fault is somewhere in
    /// it, and nothing says where).
    #[default]
    Uniform,
    /// SBFL line scores (Ochiai, [`super::sbfl`]) of the buggy file, by 1-based line: a line
    /// weighs `0.1 + 0.9 · score / max`, `max` the highest score among the given lines; a
    /// line without a score weighs 0.1 (SBFL cannot see a missing statement).
    Sbfl(BTreeMap<usize, f64>),
}

impl LineWeights {
    /// The weight of 1-based `line`.
    #[must_use]
    pub fn weight(&self, line: usize) -> f32 {
        match self {
            LineWeights::Uniform => 1.0,
            LineWeights::Sbfl(scores) => {
                let max = scores.values().copied().fold(0.0f64, f64::max);
                let s = scores.get(&line).copied().unwrap_or(0.0);
                if max > 0.0 { (0.1 + 0.9 * s / max) as f32 } else { 1.0 }
            }
        }
    }

    /// The most suspicious line within `lines` (1-based, inclusive), the first of equals;
    /// `None` for uniform suspiciousness or when no line there has a score.
    #[must_use]
    pub fn top_line(&self, lines: (usize, usize)) -> Option<usize> {
        let LineWeights::Sbfl(scores) = self else { return None };
        let mut best: Option<(usize, f64)> = None;
        for (line, s) in scores.range(lines.0..=lines.1) {
            if *s > 0.0 && best.is_none_or(|(_, b)| *s > b) {
                best = Some((*line, *s));
            }
        }
        best.map(|(line, _)| line)
    }

    /// The name the report gives: `uniform` or `sbfl`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            LineWeights::Uniform => "uniform",
            LineWeights::Sbfl(_) => "sbfl",
        }
    }
}

impl LineWeights {
    /// The SBFL scores of `report`'s lines in `file` (relative, `/`-separated).
    #[must_use]
    pub fn of_file(report: &FlReport, file: &str) -> LineWeights {
        LineWeights::Sbfl(report.lines.iter().filter(|l| l.file == file).map(|l| (l.line as usize, l.score)).collect())
    }

    /// The scored lines, `(1-based line, score)` in line order; none when uniform.
    #[must_use]
    pub fn scores(&self) -> Vec<(usize, f64)> {
        match self {
            LineWeights::Uniform => Vec::new(),
            LineWeights::Sbfl(scores) => scores.iter().map(|(l, s)| (*l, *s)).collect(),
        }
    }
}

/// The top-ranked method of `report`, in `file` when given (a relative path; `\\` and a
/// leading `./` are read as `/` and nothing).
///
/// # Errors
/// [`NoMethod`] when SBFL ranked no method (there).
pub fn top_method<'a>(report: &'a FlReport, file: Option<&str>) -> Result<&'a MethodScore, NoMethod> {
    let want = file.map(|f| f.replace('\\', "/").trim_start_matches("./").to_string());
    let found = report.methods.iter().find(|m| want.as_deref().is_none_or(|w| m.file == w));
    found.ok_or(NoMethod { file: want, failed: report.failed, passed: report.passed })
}

/// Where SBFL puts the bug: the top-ranked method ([`top_method`]) as the repair location,
/// the summary the repair report records as `fault_localization`, and the line weights of
/// its file.
#[derive(Debug, Clone)]
pub struct Localized {
    /// The chosen method's file, relative to the project root.
    pub file: String,
    /// The chosen method (its score, rank, ties and lines).
    pub top: MethodScore,
    /// `{"method": "sbfl-ochiai", "chosen", "top_methods" (the first five), "failed",
    /// "passed"}`: the report's `fault_localization`.
    pub summary: serde_json::Value,
    /// The SBFL scores of the lines of `file` ([`LineWeights::of_file`]).
    pub weights: LineWeights,
}

impl Localized {
    /// The top method of `report` (in `file` when given) and what a repair run needs of it.
    ///
    /// # Errors
    /// [`NoMethod`] as [`top_method`].
    pub fn of(report: &FlReport, file: Option<&str>) -> Result<Localized, NoMethod> {
        let top = top_method(report, file)?.clone();
        let summary = serde_json::json!({"method": "sbfl-ochiai", "chosen": top,
            "top_methods": report.methods.iter().take(5).collect::<Vec<_>>(),
            "failed": report.failed, "passed": report.passed});
        let weights = LineWeights::of_file(report, &top.file);
        Ok(Localized { file: top.file.clone(), top, summary, weights })
    }

    /// The chosen method's lines, 1-based and inclusive.
    pub fn lines(&self) -> (usize, usize) {
        (self.top.start_line as usize, self.top.end_line as usize)
    }

    /// One line for people: `SBFL (Ochiai): NAME A-B in FILE (score S, rank R, T tied)`.
    pub fn line(&self) -> String {
        let t = &self.top;
        format!(
            "SBFL (Ochiai): {} {}-{} in {} (score {:.3}, rank {}, {} tied)",
            t.name, t.start_line, t.end_line, t.file, t.score, t.rank, t.ties
        )
    }
}

/// SBFL ranked no method ([`top_method`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("SBFL ranked no method{} ({failed} failing, {passed} passing tests)", file.as_deref().map(|f| format!(" in {f}")).unwrap_or_default())]
pub struct NoMethod {
    /// The file the method was sought in, if one was given.
    pub file: Option<String>,
    /// Failing tests.
    pub failed: usize,
    /// Passing tests.
    pub passed: usize,
}
