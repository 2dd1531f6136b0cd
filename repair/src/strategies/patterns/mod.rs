//! The `patterns` strategy: repair with no model. Fix templates ([`templates`]: operator,
//! operand ±1, numeral, negation, swapped arguments, deleted statement, identifier) are
//! instantiated on the localized method's syntax tree and validated one by one through the
//! session, in a fixed default order (template, then source position), until a plausible
//! patch or the budget: [`Patterns::max_validations`] tested candidates (default 200) or
//! [`Patterns::max_wall`] (default 10 minutes), whichever comes first. The design follows
//! template-based APR (TBar, Liu et al., ISSTA 2019; PAR, Kim et al., ICSE 2013) with
//! ManySStuBs4J's single-statement patterns as the templates (Karampatsis & Sutton, MSR 2020).
//!
//! # Report
//! Shared fields: `candidates` (attempt 1; `suggestion` is the template's 1-based place in
//! [`Template::ALL`]; `choice` the candidate's rank in the order), `patch`. Its `details`:
//! `order` (`default`), `max_validations`, `max_wall_s`, `generated` (edits per template),
//! `validated` (candidates whose tests ran), `first_plausible_at` (1-based rank of the first
//! plausible candidate among those validated, `null` when none).

pub mod templates;

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::json;

use crate::bug::Problem;
use crate::error::Error;
use crate::session::{Place, Reply, Session, Stop};
use crate::validate::Verdict;
pub use templates::{Edit, Template};

/// The model-free template strategy (`--strategy patterns`).
#[derive(Debug, Clone, Copy)]
pub struct Patterns {
    /// Most candidates validated (tests run; duplicates and refusals do not count).
    pub max_validations: usize,
    /// Wall-clock limit of the search, from the start of the run.
    pub max_wall: Duration,
}

impl Default for Patterns {
    fn default() -> Self {
        Patterns { max_validations: 200, max_wall: Duration::from_secs(600) }
    }
}

impl super::Strategy for Patterns {
    fn name(&self) -> &'static str {
        "patterns"
    }

    fn needs_model(&self) -> bool {
        false
    }

    fn repair(&self, problem: &Problem, session: &mut Session<'_>) -> Result<(), Stop> {
        let path = problem.bug.root.join(&problem.bug.file);
        let text = std::fs::read_to_string(&path).map_err(|source| Error::Read { path, source })?;
        let edits = problem.language.map(|l| templates::edits(&text, l, problem.lines)).unwrap_or_default();
        let mut generated: BTreeMap<Template, usize> = BTreeMap::new();
        for e in &edits {
            *generated.entry(e.template).or_default() += 1;
        }
        let mut search = Search { validated: 0, first_plausible_at: None };
        let ended = self.search(problem, session, &text, &edits, &mut search);
        session.report.details = json!({
            "order": "default",
            "max_validations": self.max_validations,
            "max_wall_s": self.max_wall.as_secs(),
            "generated": generated,
            "validated": search.validated,
            "first_plausible_at": search.first_plausible_at,
        });
        ended
    }
}

/// Progress of the search.
struct Search {
    validated: usize,
    first_plausible_at: Option<usize>,
}

impl Patterns {
    /// Validates `edits` in order until a plausible patch (unless collecting all) or the budget.
    fn search(
        &self,
        problem: &Problem,
        session: &mut Session<'_>,
        text: &str,
        edits: &[Edit],
        search: &mut Search,
    ) -> Result<(), Stop> {
        for (rank, edit) in edits.iter().enumerate() {
            if search.validated >= self.max_validations {
                return Err(Stop::Budget(Error::ValidationBudget { limit: self.max_validations }));
            }
            if session.started().elapsed() >= self.max_wall {
                return Err(Stop::Timeout(Error::WallClock { limit_s: self.max_wall.as_secs() }));
            }
            let Some(answer) = search_replace(text, problem, edit) else { continue };
            let suggestion = Template::ALL.iter().position(|t| *t == edit.template).map_or(0, |i| i + 1);
            let place = Place { attempt: 1, suggestion, choice: rank };
            let reply = Reply { text: answer, cut_off: false };
            let rec = session.validate_candidate(problem, place, &reply, &reply.text, "")?;
            if !matches!(rec.verdict, Verdict::Duplicate | Verdict::PatchRefused) {
                search.validated += 1;
            }
            if rec.verdict == Verdict::Plausible && search.first_plausible_at.is_none() {
                search.first_plausible_at = Some(search.validated);
            }
            if session.push_candidate(rec) {
                return Ok(());
            }
        }
        Ok(())
    }
}

/// The edit as a SEARCH/REPLACE block of the whole localized code (lines
/// `problem.lines`), so that it applies by context whatever else the file holds; `None`
/// when it changes nothing there.
fn search_replace(text: &str, problem: &Problem, edit: &Edit) -> Option<String> {
    let line_start = |line: usize| -> usize {
        if line <= 1 {
            return 0;
        }
        text.match_indices('\n').nth(line - 2).map_or(text.len(), |(i, _)| i + 1)
    };
    let (a, b) = problem.lines;
    let (from, to) = (line_start(a), line_start(b + 1));
    if edit.start < from || edit.end > to {
        return None;
    }
    let after = format!("{}{}{}", &text[from..edit.start], edit.replacement, &text[edit.end..to]);
    let before = &text[from..to];
    if after == before {
        return None;
    }
    let end_nl = |s: &str| if s.ends_with('\n') { s.to_string() } else { format!("{s}\n") };
    Some(format!("<<<<<<< SEARCH\n{}=======\n{}>>>>>>> REPLACE\n", end_nl(before), end_nl(&after)))
}
