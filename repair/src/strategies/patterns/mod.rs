//! The `patterns` strategy: repair with no model. Fix templates ([`templates`]: operator,
//! operand ±1, numeral, negation, swapped arguments or operands, a different method,
//! deleted statement, unwrapped call, early-return guard, null check, try/catch,
//! identifier, and TBar's other families: literal, sub-condition, return expression,
//! argument count, constructor arguments, missed call, data type, integer division, cast and
//! range checkers, moved statement) are instantiated on the localized method's syntax
//! tree and validated one by one through the session until a plausible patch (every
//! plausible one with `collect_all`, `--all`) or the budget: [`Patterns::max_validations`]
//! tested candidates (default 200) or [`Patterns::max_wall`] (default 10 minutes), whichever
//! comes first. The design follows template-based APR (TBar, Liu et al., ISSTA 2019; PAR, Kim
//! et al., ICSE 2013) with ManySStuBs4J's single-statement patterns as the templates
//! (Karampatsis & Sutton, MSR 2020).
//!
//! # Order
//! [`order`]: each template's probability per instance × the line's suspiciousness, the
//! probability from a prior fitted on a corpus split. With an index in the session and
//! [`Patterns::retrieval`] set (the default; `--no-retrieval` clears it), the localized code
//! is first searched in the `code` space (no model gives a root cause; with SBFL, around the
//! most suspicious line) for the top [`Patterns::k`] similar fixes (the bug's own id and
//! excluded projects never come back, [`crate::retrieve`]); those whose fix one template
//! edit reproduces vote for their template, and their own edits (`<` → `<=`) are tried
//! first. Then come the transplants ([`transplant`]), before every other template edit:
//! each hit whose fix is a small token edit, applied where it fits the method with its names
//! mapped, by similarity × fit (an edit with an earlier one's result is dropped). Without
//! retrieval, or when it fails, the prior's order alone and no transplant. After every
//! single edit come the two-edit candidates ([`pairs`]: two of the best-scored edits made
//! together, [`Template::TwoEdits`]), so they spend only the budget the single edits leave;
//! a pair one of whose edits did not compile alone is skipped unvalidated
//! ([`pairs::Uncompiled`]).
//! Under perfect localization (uniform weights) over two or more lines, which run from the
//! first to the last line the fix changes, the candidates (single edits, then pairs) that
//! change both that first and that last line go first: one that leaves either as it is
//! cannot be the developer's fix. The report's `details.covering` counts them.
//!
//! # Report
//! Shared fields: `retrieved` (the similar fixes), `suggestions` (one list: the action
//! suggestions of the top 10 hits' labels, [`crate::retrieve::suggest`], for the reader), `candidates`
//! (attempt 1; `suggestion` is the template's 1-based place in [`Template::ALL`]; `choice`
//! the candidate's rank in the order), `patch`. Its `details`:
//! `order` (`retrieval` when hits voted or were transplanted, else `prior`), `suspiciousness`
//! (`uniform` or `sbfl`), `project_classes` (the Java classes read from the project for the
//! method template, [`templates::ProjectTypes`]), `retrieval` (`null` without an index or with `--no-retrieval`; else
//! `hits`, `error`, `hit_edits`: each hit a template reproduces, with `id`, `score`,
//! `template`, `before`, `after`, `summary`), `transplants` (each hit considered for a
//! transplant: `id`, `score`, `before`/`after` (its changed tokens, whitespace removed),
//! `matched` (places of the method it was applied to) and `why` it made none: too large,
//! another language, unparsable, no fit, unknown identifier...; empty without retrieval),
//! `probabilities` (template → `p(t)`), `max_validations`, `max_wall_s`,
//! `generated` (edits per template, `TRANSPLANT` the transplants, `TWO_EDITS` the pairs),
//! `covering` (candidates tried first for changing both ends of the localized lines),
//! `validated` (candidates whose tests ran), `skipped_uncompiled` (two-edit candidates
//! skipped unvalidated because one of their edits did not compile alone,
//! [`pairs::Uncompiled`]), `first_plausible_at` (1-based rank of the first plausible candidate
//! among those validated, `null` when none), and `plausible`: every plausible candidate
//! (`validated_at`, `template`, `summary`, `line`, `diff`, and `from`, the hit's id, for a
//! transplant), for judging overfitting.

pub mod order;
pub mod pairs;
pub mod templates;
pub mod transplant;

use std::collections::BTreeMap;
use std::time::Duration;

use engine::Space;
use engine::embed::LineRange;
use serde::Serialize;

use crate::error::Error;
use crate::patch::{Change, Splice};
use crate::retrieve::suggest::{Suggestion, Voter, suggest_with_prior};
use crate::retrieve::{RetrieveParams, Retriever, SimilarFix};
use crate::run::bug::{Location, Problem};
use crate::run::report::Details;
use crate::run::session::{Place, Session, Stop};
use crate::validate::Verdict;
pub use order::HitEdit;
pub use templates::{Edit, Template};
pub use transplant::TransplantRecord;

/// Similar fixes retrieved to order the templates (the number [`order`]'s weights were
/// fitted with).
pub const DEFAULT_K: usize = 50;

/// Hits whose action labels make the report's suggestions (as `fixdex search --actions`).
const SUGGESTION_HITS: usize = 10;

/// The model-free template strategy (`--strategy patterns`).
#[derive(Debug, Clone)]
pub struct Patterns {
    /// Most candidates validated (tests run; duplicates and refusals do not count).
    pub max_validations: usize,
    /// Wall-clock limit of the search, from the start of the run.
    pub max_wall: Duration,
    /// Order by the similar fixes when the session has an index (`false`:
    /// `--no-retrieval`, the prior's fixed order; [`order`]).
    pub retrieval: bool,
    /// Similar fixes retrieved (top k, space `code`).
    pub k: usize,
    /// Transplant the retrieved neighbours' own small edits before the templates
    /// (`false`: `--no-transplant`, retrieval only orders the templates; [`transplant`]).
    pub transplant: bool,
}

impl Default for Patterns {
    fn default() -> Self {
        Patterns {
            max_validations: 200,
            max_wall: Duration::from_secs(600),
            retrieval: true,
            k: DEFAULT_K,
            transplant: true,
        }
    }
}

/// The patterns strategy's options.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Strategy patterns")]
pub struct PatternsArgs {
    /// Order the templates by their fitted prior alone even with `--index` (the ablation of
    /// the retrieval-guided order: no similar fixes are searched).
    #[arg(long)]
    pub no_retrieval: bool,
    /// With `--index`, do not transplant the similar fixes' own edits: retrieval only orders
    /// the templates (the ablation of issue 32's transplants; `--no-retrieval` implies it).
    #[arg(long)]
    pub no_transplant: bool,
    /// `patterns` and `unidebugger`: most candidates validated per bug [default: 200 for
    /// patterns, 20 for unidebugger (the paper's bound)].
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_validations: Option<usize>,
}

/// The registry's entry of the patterns strategy ([`super::Registry::builtin`]).
#[must_use]
pub fn entry() -> Box<dyn super::Entry> {
    super::entry::<PatternsArgs>(
        "patterns",
        "no model: fix templates on the localized method, ordered by the actions of similar fixes when there is \
         an `--index`, up to `--max-validations` or 10 minutes",
        |a| {
            let d = Patterns::default();
            let max_validations = a.max_validations.unwrap_or(d.max_validations);
            Ok(Box::new(Patterns { retrieval: !a.no_retrieval, transplant: !a.no_transplant, max_validations, ..d }))
        },
    )
}

impl super::Strategy for Patterns {
    fn name(&self) -> &'static str {
        "patterns"
    }

    fn needs_model(&self) -> bool {
        false
    }

    /// The search reads only whether a candidate is plausible.
    fn verdict_only(&self) -> bool {
        true
    }

    /// Unless `--no-retrieval` ([`Patterns::retrieval`]).
    fn searches(&self) -> bool {
        self.retrieval
    }

    /// The code space, always: the order's weights were fitted on code-space neighbours
    /// (`Patterns::hit_edits`).
    fn retrieval_space(&self, _configured: Space) -> Space {
        Space::Code
    }

    fn repair(&self, problem: &Problem, session: &mut Session<'_>) -> Result<(), Stop> {
        // An insertion point (lines holding no statement) is widened to the statement that
        // follows it, and said in the report.
        let widened = widen(problem, &mut session.report.warnings);
        let problem = widened.as_ref().unwrap_or(problem);
        let text = &problem.source;
        // The project's own classes (Java): what the receiver of a call can call instead.
        let project = match problem.language {
            Some(crate::Language::Java) => {
                templates::ProjectTypes::scan_skipping(&problem.bug.root, session.scratch_filter())
            }
            _ => templates::ProjectTypes::default(),
        };
        let edits = problem.language.map(|l| templates::edits_in(text, l, problem.lines, &project)).unwrap_or_default();
        // Bad input is said in the report, and the search goes on with what applies.
        warn_unparsed(problem, edits.len(), &mut session.report.warnings);
        let (hits, retrieval, fixes) = match session.retriever().filter(|_| self.retrieval) {
            Some(r) => self.hit_edits(r, problem, session),
            None => (Vec::new(), None, Vec::new()),
        };
        // The neighbours' own small edits, transplanted, after the template edits that make a
        // neighbour's edit exactly and before the others.
        let (transplants, transplant_records) = match problem.language {
            Some(l) if self.transplant && !fixes.is_empty() => transplant::transplants(&fixes, text, l, problem.lines),
            _ => (Vec::new(), Vec::new()),
        };
        // Two edits together ([`pairs`]), after every single one; with perfect localization
        // over two or more lines, the candidates that change its first and last line first.
        let ends = ends(problem, widened.is_some());
        let scores = order::scores(&edits, &hits, &problem.weights);
        let two = pairs::two_edits_with_parts(text, &edits, &scores, self.max_validations, ends);
        let mut generated: BTreeMap<Template, usize> = BTreeMap::new();
        for e in edits.iter().chain(&transplants).chain(&two.edits) {
            *generated.entry(e.template).or_default() += 1;
        }
        let place = (text.as_str(), problem.lines, &problem.weights);
        let (ordered, covering) =
            validation_order(place, (&edits, &hits), &transplants, (&two.edits, two.covering), ends);
        let mut search = Search::default();
        // A pair one of whose edits did not compile alone is skipped ([`pairs::Uncompiled`]).
        let mut uncompiled = pairs::Uncompiled::new(&edits, &two);
        let ended = self.search(problem, session, &ordered, &mut search, &mut uncompiled);
        session.report.details = Details::new(PatternsRecord {
            order: if hits.is_empty() && transplants.is_empty() { "prior" } else { "retrieval" },
            suspiciousness: problem.weights.name(),
            project_classes: project.len(),
            probabilities: order::template_probabilities(&hits),
            retrieval,
            transplants: transplant_records,
            max_validations: self.max_validations,
            max_wall_s: self.max_wall.as_secs(),
            generated,
            covering,
            validated: search.validated,
            skipped_uncompiled: search.skipped_uncompiled,
            first_plausible_at: search.first_plausible_at,
            plausible: search.plausible,
        });
        ended
    }
}

/// The span whose ends a fix must touch: `problem.lines` when the bug is located by lines
/// ([`Location::Lines`]), two or more of them, under uniform weights (perfect localization,
/// which runs from the first to the last line the fix changes, so a candidate that leaves
/// either end as it is cannot be the fix); `None` for a method (`--method`, QuixBugs), one
/// line or SBFL weights. A span that is a whole method or file (`eval defects4j
/// --localization method|file`) holds almost no candidate that changes its first and last
/// lines, so there the order stays as it is. Not when `widened`: an insertion point widened to
/// the next statement (`widen`) is not the first to the last line the fix changes; the fix changes no line of that statement's (Defects4J Cli-11, whose
/// single-edit patch its covering pairs pushed past the budget).
fn ends(problem: &Problem, widened: bool) -> Option<(usize, usize)> {
    let by_lines = matches!(problem.bug.location, Location::Lines(..));
    let uniform = matches!(problem.weights, crate::fl::LineWeights::Uniform);
    ends_of(problem.lines, by_lines && uniform, widened)
}

/// [`ends`]' rule: `lines` when they are perfect localization's (`perfect`: located by lines,
/// uniform weights), two or more, and not `widened`.
fn ends_of((first, last): (usize, usize), perfect: bool, widened: bool) -> Option<(usize, usize)> {
    (perfect && !widened && last > first).then_some((first, last))
}

/// The validation order of `edits` (ordered by `hits`, [`order`]), the `transplants` and
/// the `pairs` (the first `covering` of which cover `ends`), and how many candidates lead
/// it for covering `ends` ([`pairs::ends_first`]). `place` is the file's text, the localized
/// lines and their suspiciousness.
fn validation_order<'e>(
    (text, lines, weights): (&str, (usize, usize), &crate::fl::LineWeights),
    (edits, hits): (&'e [Edit], &[HitEdit]),
    transplants: &'e [Edit],
    (pairs, covering): (&'e [Edit], usize),
    ends: Option<(usize, usize)>,
) -> (Vec<&'e Edit>, usize) {
    let lead = edits.iter().filter(|e| order::concrete(e, hits)).count();
    let singles = transplant::then_templates(
        transplants,
        order::order(edits, hits, weights).into_iter().map(|i| &edits[i]),
        lead,
        text,
        lines,
    );
    pairs::ends_first(singles, pairs, covering, text, ends)
}

/// Every candidate `--strategy patterns --no-retrieval` makes for lines `lines` (1-based,
/// inclusive) of `text` under perfect localization (a bug located by those lines, uniform
/// suspiciousness), in the order [`Patterns`]' `repair` validates them at a budget of
/// `max_validations`: the lines widened from an insertion point to its statement
/// ([`templates::insertion_point`]), the single template edits by the prior ([`order`]) and
/// then the two-edit candidates ([`pairs`], at most `max_validations` of them), those that
/// change both ends of the lines first. No budget cut: the single edits past it are listed
/// too. What the search skips unvalidated (a result already tried, a candidate javac would
/// refuse where the syntax tree tells, a pair one of whose edits did not compile alone) is
/// still in, so a candidate's 1-based position is an
/// upper bound on the validations the search spends to reach it. Measures where the
/// developer's fix lies without running a test (`repair/examples/patterns_fixrank.rs`,
/// `scripts/d4j-fixrank.py`).
#[must_use]
pub fn perfect_localization_candidates(
    text: &str,
    language: crate::Language,
    lines: (usize, usize),
    project: &templates::ProjectTypes,
    max_validations: usize,
) -> Vec<Edit> {
    let widened = templates::insertion_point(text, language, lines);
    let lines = widened.unwrap_or(lines);
    let edits = templates::edits_in(text, language, lines, project);
    let weights = crate::fl::LineWeights::Uniform;
    let ends = ends_of(lines, true, widened.is_some());
    let scores = order::scores(&edits, &[], &weights);
    let (pairs, covering) = pairs::two_edits(text, &edits, &scores, max_validations, ends);
    let (ordered, _) = validation_order((text, lines, &weights), (&edits, &[]), &[], (&pairs, covering), ends);
    ordered.into_iter().cloned().collect()
}

/// `problem` with its lines widened to the statement an insertion point precedes (or
/// follows; [`templates::insertion_point`]), said in `warnings`; `None` when the lines hold
/// a statement (or the language is not parsed).
fn widen(problem: &Problem, warnings: &mut Vec<String>) -> Option<Problem> {
    let (a, b) = problem.language.and_then(|l| templates::insertion_point(&problem.source, l, problem.lines))?;
    let (way, side) = if b > problem.lines.1 { ("up to", "after") } else { ("back to", "before") };
    warnings.push(format!(
        "patterns: lines {}-{} of {} hold no whole statement (a header, brace, blank line or comment: an insertion point): the templates edit lines {a}-{b}, \
         {way} the statement {side} it",
        problem.lines.0,
        problem.lines.1,
        problem.bug.file.display(),
    ));
    let (code, numbered) = Problem::excerpt(&problem.source, a, b);
    Some(Problem { lines: (a, b), code, numbered, ..problem.clone() })
}

/// Says in `warnings` why the templates made few or no candidates (`edits` of them) on
/// `problem`'s lines: a language they do not parse, syntax errors, or nothing to edit there.
fn warn_unparsed(problem: &Problem, edits: usize, warnings: &mut Vec<String>) {
    let (from, to) = problem.lines;
    let file = problem.bug.file.display();
    let Some(l) = problem.language else {
        warnings.push(format!(
            "patterns: no template applies: {file} is in a language the templates do not parse (Java and Python)"
        ));
        return;
    };
    if let Some(n) = templates::syntax_errors(&problem.source, l, problem.lines).filter(|n| *n > 0) {
        warnings.push(format!(
            "patterns: lines {from}-{to} of {file} have {} as {}: the templates apply to the rest ({edits} candidates)",
            crate::bench::summary::count(n, "syntax error"),
            l.as_str(),
        ));
    } else if edits == 0 {
        warnings.push(format!(
            "patterns: no template applies to lines {from}-{to} of {file}: nothing there is a statement of a method \
             or function that a template edits; give the buggy statement's lines, or --method"
        ));
    }
}

/// The patterns strategy's report section (`details`; the fields as the module docs give
/// them).
#[derive(Debug, Clone, Serialize)]
pub struct PatternsRecord {
    /// `retrieval` when similar fixes voted for the templates or were transplanted, else
    /// `prior`.
    pub order: &'static str,
    /// `uniform` or `sbfl` ([`crate::fl::LineWeights::name`]).
    pub suspiciousness: &'static str,
    /// Java classes (interfaces, enums, records) read from the project root for the
    /// method template ([`templates::ProjectTypes`]); 0 for Python.
    pub project_classes: usize,
    /// The similar fixes searched; `None` without an index or with `--no-retrieval`.
    pub retrieval: Option<RetrievalRecord>,
    /// What became of each similar fix as a transplant ([`transplant`]); empty without
    /// retrieval or with [`Patterns::transplant`] off (`--no-transplant`).
    pub transplants: Vec<TransplantRecord>,
    /// Each template's probability `p(t)`.
    pub probabilities: BTreeMap<Template, f32>,
    /// [`Patterns::max_validations`].
    pub max_validations: usize,
    /// [`Patterns::max_wall`], seconds.
    pub max_wall_s: u64,
    /// Edits generated per template.
    pub generated: BTreeMap<Template, usize>,
    /// Candidates (single edits and pairs) tried first for changing both the first and the
    /// last localized line; 0 for one line or SBFL weights.
    pub covering: usize,
    /// Candidates whose tests ran.
    pub validated: usize,
    /// Two-edit candidates skipped unvalidated because one of their edits did not compile
    /// alone ([`pairs::Uncompiled`]).
    pub skipped_uncompiled: usize,
    /// 1-based rank of the first plausible candidate among those validated.
    pub first_plausible_at: Option<usize>,
    /// Every plausible candidate, for judging overfitting.
    pub plausible: Vec<PlausibleEdit>,
}

/// The similar fixes the templates were ordered by ([`PatternsRecord::retrieval`]).
#[derive(Debug, Clone, Serialize)]
pub struct RetrievalRecord {
    /// Similar fixes found.
    pub hits: usize,
    /// Why retrieval failed (the prior's order was kept); `None` when it worked.
    pub error: Option<String>,
    /// Each hit a template edit reproduces.
    pub hit_edits: Vec<HitEdit>,
}

/// A plausible candidate ([`PatternsRecord::plausible`]).
#[derive(Debug, Clone, Serialize)]
pub struct PlausibleEdit {
    /// Its 1-based rank among the candidates validated.
    pub validated_at: usize,
    /// The template.
    pub template: Template,
    /// `<` → `<=`.
    pub summary: String,
    /// 1-based line of the edit.
    pub line: usize,
    /// The applied diff.
    pub diff: Option<String>,
    /// The similar fix (document id) a transplant came from; absent for a template edit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

/// Progress of the search.
#[derive(Default)]
struct Search {
    validated: usize,
    skipped_uncompiled: usize,
    first_plausible_at: Option<usize>,
    plausible: Vec<PlausibleEdit>,
}

impl Patterns {
    /// The top [`Patterns::k`] fixes similar to the localized code that one template edit
    /// reproduces ([`order::hit_edits`]), and the report's `details.retrieval`; none when
    /// retrieval fails (the error is reported and warned about, and the run goes on in the
    /// prior's order), and the hits themselves (to transplant, [`transplant`]). The report's
    /// `retrieved` and `suggestions` get the hits.
    fn hit_edits(
        &self,
        r: &Retriever,
        problem: &Problem,
        session: &mut Session<'_>,
    ) -> (Vec<HitEdit>, Option<RetrievalRecord>, Vec<SimilarFix>) {
        // Dense: the order the weights were fitted with.
        let params = RetrieveParams { space: Space::Code, k: self.k.max(1), ..RetrieveParams::default() };
        // With SBFL, the most suspicious line is the buggy line a long method is embedded
        // around (index rule `cause-first-window-v1`; `problem.code` starts at line
        // `problem.lines.0`).
        let top = problem.weights.top_line(problem.lines).map(|l| l + 1 - problem.lines.0);
        let lines = top.and_then(|l| LineRange::new(l, l).ok());
        let found = match session.search_similar(&problem.code, "", lines, &params) {
            Some(Ok(found)) => found,
            None => return (Vec::new(), None, Vec::new()),
            Some(Err(e)) => {
                session.report.warnings.push(format!("retrieval failed, so the templates keep the prior's order: {e}"));
                return (
                    Vec::new(),
                    Some(RetrievalRecord { hits: 0, error: Some(e.to_string()), hit_edits: Vec::new() }),
                    Vec::new(),
                );
            }
        };
        let hits = order::hit_edits(&found.fixes);
        let voters: Vec<Voter<'_>> = found
            .fixes
            .iter()
            .take(SUGGESTION_HITS)
            .map(|f| Voter { id: &f.id, score: f.score, actions: &f.fix_actions })
            .collect();
        // The prior was read by the search above; without it (an unreadable index) the raw vote.
        let prior = r.action_prior().unwrap_or_default();
        let suggestions = suggest_with_prior(&voters, &prior, actions::ActionKind::ALL.len());
        let details = RetrievalRecord { hits: found.fixes.len(), error: None, hit_edits: hits.clone() };
        session.report.suggestions = vec![suggestions.iter().map(Suggestion::line).collect()];
        session.report.retrieved_dropped_exact = found.dropped_exact;
        session.report.retrieved = found.fixes.clone();
        (hits, Some(details), found.fixes)
    }

    /// Validates `edits` in order until a plausible patch (unless collecting all) or the
    /// budget, skipping the pairs `uncompiled` knows will not compile.
    fn search<'e>(
        &self,
        problem: &Problem,
        session: &mut Session<'_>,
        edits: &[&'e Edit],
        search: &mut Search,
        uncompiled: &mut pairs::Uncompiled<'e>,
    ) -> Result<(), Stop> {
        for (rank, &edit) in edits.iter().enumerate() {
            self.check_budget(session, search)?;
            if uncompiled.skips(edit) {
                search.skipped_uncompiled += 1;
                continue;
            }
            let Some(candidate) = Candidate::of(problem, edit) else { continue };
            let suggestion = Template::ALL.iter().position(|t| *t == edit.template).map_or(0, |i| i + 1);
            let place = Place { attempt: 1, suggestion, choice: rank };
            let mut rec = session.validate_patch(problem, place, &candidate.answer, &candidate.change)?;
            rec.origin = Some(origin(edit, &problem.source));
            uncompiled.record(edit, rec.verdict);
            if !matches!(rec.verdict, Verdict::Duplicate | Verdict::PatchRefused) {
                search.validated += 1;
            }
            if rec.verdict == Verdict::Plausible {
                search.first_plausible_at.get_or_insert(search.validated);
                search.plausible.push(PlausibleEdit {
                    validated_at: search.validated,
                    template: edit.template,
                    summary: edit.summary.clone(),
                    line: edit.line,
                    diff: rec.applied_diff.clone(),
                    from: edit.from.clone(),
                });
            }
            if session.push_candidate(rec) {
                return Ok(());
            }
        }
        Ok(())
    }

    /// [`Stop::Budget`] after [`Patterns::max_validations`] validations, [`Stop::Timeout`]
    /// after [`Patterns::max_wall`].
    fn check_budget(&self, session: &Session<'_>, search: &Search) -> Result<(), Stop> {
        if search.validated >= self.max_validations {
            return Err(Stop::Budget(Error::ValidationBudget { limit: self.max_validations }));
        }
        if session.started().elapsed() >= self.max_wall {
            return Err(Stop::Timeout(Error::WallClock { limit_s: self.max_wall.as_secs() }));
        }
        Ok(())
    }
}

/// What made `edit` (of the file `text`), for its candidate's record
/// ([`crate::run::report::CandidateRecord::origin`]): the template's JSON name, the edit's
/// summary and its line (a two-edit candidate's first and last lines), and the similar fix a
/// transplant comes from where its summary does not already name it.
fn origin(edit: &Edit, text: &str) -> String {
    let name = serde_json::to_value(edit.template).ok();
    let name = name.as_ref().and_then(serde_json::Value::as_str).unwrap_or("TEMPLATE");
    let last = text.get(..edit.end.max(edit.start + 1) - 1).map_or(edit.line, |t| t.matches('\n').count() + 1);
    let lines = if last > edit.line { format!("lines {}–{last}", edit.line) } else { format!("line {}", edit.line) };
    match &edit.from {
        Some(id) if !edit.summary.contains(id.as_str()) => format!("{name}: {} ({lines}) from {id}", edit.summary),
        _ => format!("{name}: {} ({lines})", edit.summary),
    }
}

/// A template edit as a candidate: the typed change the session validates, and the text
/// the report's record keeps.
struct Candidate {
    /// The edit as one splice of the buggy file's text.
    change: Change,
    /// The edit as a SEARCH/REPLACE block of the whole localized code, for the reader of
    /// the report (never parsed).
    answer: String,
}

impl Candidate {
    /// The edit of the buggy file's text (the localized lines `problem.lines`); `None`
    /// when it reaches outside them or changes nothing there.
    fn of(problem: &Problem, edit: &Edit) -> Option<Candidate> {
        let text = problem.source.as_str();
        let (from, to) = (line_start(text, problem.lines.0), line_start(text, problem.lines.1 + 1));
        if edit.start < from || edit.end > to {
            return None;
        }
        let after = format!("{}{}{}", &text[from..edit.start], edit.replacement, &text[edit.end..to]);
        let before = &text[from..to];
        if after == before {
            return None;
        }
        let end_nl = |s: &str| if s.ends_with('\n') { s.to_string() } else { format!("{s}\n") };
        let answer = format!("<<<<<<< SEARCH\n{}=======\n{}>>>>>>> REPLACE\n", end_nl(before), end_nl(&after));
        let splice = Splice { span: edit.start..edit.end, text: edit.replacement.clone() };
        Some(Candidate { change: Change::Splices(vec![splice]), answer })
    }
}

/// Byte offset of 1-based `line` in `text` (its length past the last line).
fn line_start(text: &str, line: usize) -> usize {
    if line <= 1 {
        return 0;
    }
    text.match_indices('\n').nth(line - 2).map_or(text.len(), |(i, _)| i + 1)
}
