//! UniDebugger (`--strategy unidebugger`; ../shared/papers/unidebugger.txt, "Knowl 2":
//! Hierarchical Multi-Level Program Debugging): effort escalates with the bug's difficulty,
//! L1 → L2 → L3, then a reflection in reverse order, with seven agents ([`prompts::Role`]).
//!
//! 1. **L1, direct repair.** The Locator marks the suspicious lines of the located code
//!    (`// buggy line`, `// missing code: ...`), placed on the original source by context
//!    match, never by line number ([`marks`]); marks that cannot be placed are refused with
//!    their reasons and the Locator is asked again: [`UniDebugger::resamples`] answers at
//!    most (the paper's `m`, 2: one re-ask). The Fixer writes a unified diff from the marked code.
//! 2. **L2, single-file semantic repair**, when L1 has no plausible patch. The Summarizer
//!    summarises the buggy file (`class ~~~ function ~~~ parameters ~~~ return type ~~~
//!    description`, [`summary`]; without a usable answer, fixdex's own signatures), the
//!    Slicer picks a 20-100-line window by quoting its first and last lines ([`mod@slice`];
//!    refused and re-asked when the text is not in the file), then Locator, Fixer and
//!    FixerPro run on the slice with the summary and the testing feedback. FixerPro
//!    simplifies a plausible patch (kept only when it stays plausible) or corrects a failing
//!    one from the failing tests' output.
//! 3. **L3, multi-file and external reference repair**, when L2 fails. The Helper turns the
//!    bug into a query of at most 100 words, retrieves similar fixes from the fixdex index
//!    (`--index`; ReinFix's exclusions: `--bug-id`, `--exclude-project`, exact matches) and
//!    writes a reference guide; RepoFocus ranks the project's files deterministically by
//!    stack frames, tests, imports and packages ([`repofocus`]) and the model picks 2-6 of
//!    the top 12; the Summarizer summarises each; then L2 runs again with all of it.
//! 4. **Reflection**, when L3 fails: FixerPro diagnoses the failure and refines the patch;
//!    if that fails the Fixer revises its patch with the diagnosis and FixerPro reviews the
//!    revision once more (bounded: three candidates).
//!
//! Every request after the first candidate shows the last validated candidate's patch and
//! test result (the paper's testing feedback), so a later pass does not repeat the first.
//! The whole escalation runs at most [`UniDebugger::passes`] times (the paper's `k`), while
//! the candidate validations last ([`UniDebugger::max_validations`], 20 by default: the
//! paper's bound; a duplicate, not tested again, does not count). When the budget cuts a
//! pass short the run ends as `budget_exhausted`. Summaries, the Helper's guide and RepoFocus's files are computed once per
//! run and reused by later passes (a saving the paper's algorithm does not spell out).
//! Without a location (`--sbfl`), the SBFL ranking's top method is the located code and its
//! most suspicious lines seed the Locator ([`Problem::weights`]), in the role GZoltar plays
//! in the paper. The run stops at the first plausible patch (`--all` does not apply).
//!
//! # Report
//! `candidates`: attempt = `4 × (pass − 1) + level` (L1 = 1, L2 = 2, L3 = 3, reflection =
//! 4), suggestion = 1 for the Fixer and 2 for FixerPro. `details` is [`Details`], written
//! after every step, so a budget or the clock leaves it complete up to that point.

pub mod marks;
pub mod prompts;
pub mod record;
pub mod repofocus;
pub mod slice;
pub mod summary;

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use self::marks::Mark;
use self::prompts::{Extra, Role};
pub use self::record::{AgentRecord, Details, FocusRecord, HelperRecord, LevelSummary, MarksRecord, SliceRecord};
use self::repofocus::{FocusQuery, Ranked};
use crate::llm::Message;
use crate::patch::complete_patch_text;
use crate::retrieve::{FixStyle, render_as};
use crate::run::bug::Problem;
use crate::run::report::{CandidateRecord, Degraded};
use crate::run::session::{Place, Reply, Session, Stop};
use crate::validate::Verdict;
use crate::validate::condense::shorten;

/// Candidate validations per bug by default (the paper's bound).
pub const DEFAULT_MAX_VALIDATIONS: usize = 20;

/// Files RepoFocus's model chooses from (the pre-ranking's top).
pub const FOCUS_CANDIDATES: usize = 12;

/// The score of a file with a single package or mention signal ([`repofocus`]'s weights).
const WEAK_SCORE: f64 = 1.0;

/// Characters of a file shown to the Summarizer or the Slicer.
const FILE_CHARS: usize = 30_000;

/// Characters of an agent's answer kept in the report.
const OUTPUT_CHARS: usize = 4_000;

/// The UniDebugger strategy (module docs).
#[derive(Debug, Clone)]
pub struct UniDebugger {
    /// Most candidate validations per bug (default [`DEFAULT_MAX_VALIDATIONS`]).
    pub max_validations: usize,
    /// Escalations L1 → reflection at most (the paper's `k`; default 2).
    pub passes: usize,
    /// Answers of the Locator and the Slicer asked for a valid one (the paper's `m`; default
    /// 2: the first and one re-ask).
    pub resamples: usize,
}

impl Default for UniDebugger {
    fn default() -> Self {
        UniDebugger { max_validations: DEFAULT_MAX_VALIDATIONS, passes: 2, resamples: 2 }
    }
}

/// UniDebugger's options.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Strategy unidebugger")]
pub struct UniDebuggerArgs {
    /// `patterns` and `unidebugger`: most candidates validated per bug [default: 200 for
    /// patterns, 20 for unidebugger (the paper's bound)].
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_validations: Option<usize>,
    /// Escalations L1 → reflection at most (the paper's k; 1-10), while validations last
    /// [default: 2].
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=10))]
    pub passes: Option<usize>,
}

/// The registry's entry of UniDebugger ([`super::Registry::builtin`]).
#[must_use]
pub fn entry() -> Box<dyn super::Entry> {
    super::entry::<UniDebuggerArgs>(
        "unidebugger",
        "escalation L1 → L2 → L3 and reflection, its Helper retrieving similar fixes from `--index` (UniDebugger)",
        |a| {
            let d = UniDebugger::default();
            let max_validations = a.max_validations.unwrap_or(d.max_validations);
            Ok(Box::new(UniDebugger { max_validations, passes: a.passes.unwrap_or(d.passes), ..d }))
        },
    )
}

/// An escalation level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Level {
    /// Direct repair: Locator, Fixer.
    L1,
    /// Single-file semantic repair: Summarizer, Slicer, Locator, Fixer, FixerPro.
    L2,
    /// Multi-file and external reference repair: Helper, RepoFocus, Summarizer, then L2.
    L3,
    /// Reverse-order reflection: FixerPro, Fixer, FixerPro.
    #[serde(rename = "reflection")]
    Reflection,
}

impl Level {
    /// `L1`, `L2`, `L3` or `reflection`, as the report writes it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Level::L1 => "L1",
            Level::L2 => "L2",
            Level::L3 => "L3",
            Level::Reflection => "reflection",
        }
    }

    /// 1-4, the candidates' attempt within a pass.
    fn number(self) -> usize {
        match self {
            Level::L1 => 1,
            Level::L2 => 2,
            Level::L3 => 3,
            Level::Reflection => 4,
        }
    }

    /// Every level in escalation order.
    pub const ALL: [Level; 4] = [Level::L1, Level::L2, Level::L3, Level::Reflection];
}

impl super::Strategy for UniDebugger {
    fn name(&self) -> &'static str {
        "unidebugger"
    }

    fn report_line(&self, report: &crate::run::report::RepairReport) -> Option<String> {
        LevelSummary::of(&report.details).map(|l| l.line())
    }

    fn eval_bug(&self, report: &crate::run::report::RepairReport) -> Option<(&'static str, serde_json::Value)> {
        Some(("levels", serde_json::to_value(LevelSummary::of(&report.details)?).ok()?))
    }

    fn eval_totals(&self, _bugs: usize, reports: &[&crate::run::report::RepairReport]) -> Option<super::EvalTotals> {
        record::level_totals(reports)
    }

    fn repair(&self, problem: &Problem, session: &mut Session<'_>) -> Result<(), Stop> {
        let mut run = Run {
            strategy: self,
            problem,
            text: &problem.source,
            details: Details { ended: "running".into(), max_validations: self.max_validations, ..Details::default() },
            summaries: HashMap::new(),
            guide: None,
            related: None,
            pass: 1,
            last: None,
            cut: false,
        };
        run.details.sbfl_seed = seed(&problem.weights.scores());
        if problem.language.is_none() {
            session.report.warnings.push(format!(
                "{} is not Java or Python: the marks are written as `//` comments and the Summarizer has no \
                 signature fallback",
                problem.bug.file.display()
            ));
        }
        let result = run.go(session);
        run.save(session);
        result
    }
}

/// The SBFL lines given to the Locator: the five best with a positive score.
fn seed(scores: &[(usize, f64)]) -> Vec<(usize, f64)> {
    let mut s: Vec<(usize, f64)> = scores.iter().copied().filter(|(_, v)| *v > 0.0).collect();
    s.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    s.truncate(5);
    s
}

/// A validated candidate.
#[derive(Debug, Clone)]
struct Cand {
    rec: CandidateRecord,
    /// The FixerPro diagnosis or Fixer root cause it states.
    stated: Option<String>,
}

impl Cand {
    fn plausible(&self) -> bool {
        self.rec.verdict == Verdict::Plausible
    }

    /// The patch as later agents see it: the applied diff, else the answer.
    fn diff(&self) -> &str {
        self.rec.applied_diff.as_deref().unwrap_or(&self.rec.answer)
    }

    /// The verdict and test output as later agents see them.
    fn result(&self) -> String {
        let r = &self.rec;
        let text = match r.verdict {
            Verdict::Plausible => "plausible: every test passes".to_string(),
            v => format!("{}: {}", v.as_str(), r.feedback.as_deref().unwrap_or("")),
        };
        shorten(&text, prompts::FEEDBACK_CHARS)
    }
}

/// What one level's repair produced: the code the Fixer saw (marked) and its best candidate.
struct Attempt {
    /// The region the Locator marked, 1-based inclusive.
    region: (usize, usize),
    /// The marked code the Fixer saw.
    marked: String,
    /// The level's final candidate (FixerPro's when it ran and did better).
    cand: Option<Cand>,
    /// The Fixer's own candidate.
    fixer: Option<Cand>,
    /// FixerPro's own candidate, when it ran.
    pro: Option<Cand>,
}

/// One UniDebugger run.
struct Run<'p> {
    strategy: &'p UniDebugger,
    problem: &'p Problem,
    /// The buggy file's text ([`Problem::source`]).
    text: &'p str,
    details: Details,
    /// Summaries by file (relative path).
    summaries: HashMap<String, String>,
    /// The Helper's guide, once computed.
    guide: Option<String>,
    /// The related files' summaries, once computed.
    related: Option<String>,
    pass: usize,
    /// The last validated candidate (the testing feedback).
    last: Option<Cand>,
    /// Whether the validation budget cut the search short.
    cut: bool,
}

impl Run<'_> {
    fn save(&self, session: &mut Session<'_>) {
        session.report.details = crate::run::report::Details::new(self.details.clone());
    }

    fn go(&mut self, session: &mut Session<'_>) -> Result<(), Stop> {
        for pass in 1..=self.strategy.passes.max(1) {
            self.pass = pass;
            self.details.pass = pass;
            if self.escalate(session)? {
                self.details.ended = "plausible".into();
                return Ok(());
            }
            if self.cut || (self.spent() && pass < self.strategy.passes) {
                self.details.ended = "validations".into();
                let limit = self.strategy.max_validations;
                return Err(Stop::Budget(crate::Error::ValidationBudget { limit }));
            }
        }
        self.details.ended = "exhausted".into();
        Ok(())
    }

    /// One pass: L1, L2, L3, reflection; `true` at the first plausible candidate.
    fn escalate(&mut self, session: &mut Session<'_>) -> Result<bool, Stop> {
        let mut extra = Extra { sbfl: self.sbfl_text(), feedback: self.feedback(), ..Extra::default() };
        let l1 = self.fix(session, Level::L1, self.problem.lines, &extra)?;
        if self.stops(Level::L1, l1.cand.as_ref()) {
            return Ok(self.details.plausible_at.is_some());
        }
        extra.feedback = self.feedback();
        extra.summary = self.summary_of(session, Level::L2, &self.problem.bug.file.to_string_lossy())?;
        let l2 = self.semantic(session, Level::L2, &extra)?;
        if self.stops(Level::L2, l2.cand.as_ref()) {
            return Ok(self.details.plausible_at.is_some());
        }
        extra.feedback = self.feedback();
        extra.guide = self.helper(session)?;
        extra.related = self.focus(session)?;
        let l3 = self.semantic(session, Level::L3, &extra)?;
        if self.stops(Level::L3, l3.cand.as_ref()) {
            return Ok(self.details.plausible_at.is_some());
        }
        let last = self.reflect(session, extra, &l3)?;
        Ok(self.ended_at(Level::Reflection, last.as_ref()))
    }

    /// Whether the pass stops after `level`: its candidate is plausible, or the validation
    /// budget is spent (the rest of the pass is cut).
    fn stops(&mut self, level: Level, cand: Option<&Cand>) -> bool {
        if self.ended_at(level, cand) {
            return true;
        }
        self.cut |= self.spent();
        self.cut
    }

    /// The testing feedback for the next agents: the last validated candidate's patch and
    /// result (empty before the first).
    fn feedback(&self) -> String {
        self.last.as_ref().map(|c| format!("```diff\n{}\n```\n{}", c.diff().trim_end(), c.result())).unwrap_or_default()
    }

    /// Records `level` as reached; `true` (and `plausible_at`) when `cand` is plausible.
    fn ended_at(&mut self, level: Level, cand: Option<&Cand>) -> bool {
        self.details.level = self.details.level.max(Some(level));
        let plausible = cand.is_some_and(Cand::plausible);
        if plausible {
            self.details.plausible_at = Some(level);
        }
        plausible
    }

    /// Whether the validation budget is spent.
    fn spent(&self) -> bool {
        self.details.validations >= self.strategy.max_validations
    }

    /// The SBFL seed as the Locator reads it.
    fn sbfl_text(&self) -> String {
        let lines: Vec<&str> = self.text.lines().collect();
        self.details
            .sbfl_seed
            .iter()
            .map(|(l, s)| format!("line {l} (score {s:.2}): `{}`\n", lines.get(l - 1).map_or("", |t| t.trim())))
            .collect()
    }

    /// The code of `region` (1-based inclusive lines of the buggy file).
    fn code(&self, region: (usize, usize)) -> String {
        let end = region.1.min(self.text.lines().count());
        Problem::excerpt(self.text, region.0.clamp(1, end.max(1)), end).0
    }

    /// L1's core (also run inside L2 and L3): Locator, then Fixer on `region`.
    fn fix(
        &mut self,
        session: &mut Session<'_>,
        level: Level,
        region: (usize, usize),
        extra: &Extra,
    ) -> Result<Attempt, Stop> {
        self.details.level = self.details.level.max(Some(level));
        let marks = self.locate(session, level, region, extra)?;
        let marked = marks::render(self.text, region, &marks, self.problem.language);
        let prompt = prompts::fixer_prompt(self.problem, &marked, extra);
        let cand = self.candidate(session, level, Role::Fixer, vec![Message::user(prompt)])?;
        Ok(Attempt { region, marked, fixer: cand.clone(), cand, pro: None })
    }

    /// The Locator's marks on `region`, re-asked with the refusals at most `resamples`
    /// times; none when no answer was valid.
    fn locate(
        &mut self,
        session: &mut Session<'_>,
        level: Level,
        region: (usize, usize),
        extra: &Extra,
    ) -> Result<Vec<Mark>, Stop> {
        let mut messages = vec![Message::user(prompts::locator_prompt(self.problem, &self.code(region), extra))];
        for _ in 0..self.strategy.resamples.max(1) {
            let Some(answer) = self.ask(session, level, Role::Locator, messages.clone())? else { break };
            let marked = marks::apply(self.text, region, &answer);
            let accepted = marked.valid();
            let refused = marked.refused.clone();
            let placed = marked.marks.clone();
            self.details.marks.push(MarksRecord { pass: self.pass, level, region, marked, accepted });
            self.save(session);
            if accepted {
                return Ok(placed);
            }
            messages.push(Message::assistant(answer));
            messages.push(Message::user(prompts::locator_retry(&refused)));
        }
        Ok(Vec::new())
    }

    /// L2 (and L3 with more `extra`): the slice, Locator and Fixer on it, FixerPro.
    fn semantic(&mut self, session: &mut Session<'_>, level: Level, extra: &Extra) -> Result<Attempt, Stop> {
        self.details.level = self.details.level.max(Some(level));
        let window = self.slice(session, level, extra)?;
        let mut attempt = self.fix(session, level, (window.start, window.end), extra)?;
        if self.spent() {
            return Ok(attempt);
        }
        attempt.cand = match attempt.cand.take() {
            Some(c) if c.plausible() => Some(self.simplify(session, level, &attempt, c)?),
            other => {
                let extra = Extra { feedback: self.feedback(), ..extra.clone() };
                let pro = self.correct(session, level, &attempt, other.as_ref(), &extra)?;
                attempt.pro.clone_from(&pro);
                best(other, pro)
            }
        };
        Ok(attempt)
    }

    /// The Slicer's window (re-asked when refused); the default window around the located
    /// code when no answer is valid.
    fn slice(&mut self, session: &mut Session<'_>, level: Level, extra: &Extra) -> Result<slice::Slice, Stop> {
        let shown = shorten(self.text, FILE_CHARS);
        let mut messages = vec![Message::user(prompts::slicer_prompt(self.problem, &shown, extra))];
        for _ in 0..self.strategy.resamples.max(1) {
            let Some(answer) = self.ask(session, level, Role::Slicer, messages.clone())? else { break };
            match slice::locate(self.text, &answer, self.problem.lines) {
                Ok(s) => {
                    self.details.slices.push(SliceRecord { pass: self.pass, level, slice: Some(s), note: None });
                    return Ok(s);
                }
                Err(reason) => {
                    self.details.slices.push(SliceRecord {
                        pass: self.pass,
                        level,
                        slice: None,
                        note: Some(reason.clone()),
                    });
                    messages.push(Message::assistant(answer));
                    messages.push(Message::user(prompts::slicer_retry(&reason)));
                }
            }
        }
        let s = slice::around(self.text, self.problem.lines);
        self.details.slices.push(SliceRecord {
            pass: self.pass,
            level,
            slice: Some(s),
            note: Some("default window: no valid Slicer answer".into()),
        });
        Ok(s)
    }

    /// FixerPro on a plausible candidate: the simplification when it stays plausible (it
    /// becomes the report's patch), else the original.
    fn simplify(&mut self, session: &mut Session<'_>, level: Level, at: &Attempt, c: Cand) -> Result<Cand, Stop> {
        let prompt = prompts::simplify_prompt(self.problem, &self.code(at.region), c.diff());
        let messages = vec![Message::user(prompt)];
        let Some(reply) = self.sample(session, level, Role::FixerPro, messages)? else { return Ok(c) };
        if prompts::keeps(&reply.text) {
            return Ok(c);
        }
        let Some(simpler) = self.validate(session, level, Role::FixerPro, &reply)? else { return Ok(c) };
        if simpler.plausible() && simpler.rec.applied_diff.is_some() {
            session.report.patch.clone_from(&simpler.rec.applied_diff);
            return Ok(simpler);
        }
        Ok(c)
    }

    /// FixerPro on a failing candidate (or none): a corrected patch from the test output.
    fn correct(
        &mut self,
        session: &mut Session<'_>,
        level: Level,
        at: &Attempt,
        c: Option<&Cand>,
        extra: &Extra,
    ) -> Result<Option<Cand>, Stop> {
        let (diff, result) = match c {
            Some(c) => (c.diff().to_string(), c.result()),
            None => ("(none: the Fixer gave no usable patch)".to_string(), "no patch".to_string()),
        };
        let prompt = prompts::correct_prompt(self.problem, &self.code(at.region), &diff, &result, extra);
        self.candidate(session, level, Role::FixerPro, vec![Message::user(prompt)])
    }

    /// Reflection in reverse order: FixerPro refines its own L3 patch (the Fixer's when it
    /// gave none); if that fails, the Fixer revises its own L3 patch with FixerPro's
    /// diagnosis, and FixerPro reviews the revision. Every request sees the last candidate's
    /// test result.
    fn reflect(&mut self, session: &mut Session<'_>, mut extra: Extra, l3: &Attempt) -> Result<Option<Cand>, Stop> {
        let level = Level::Reflection;
        self.details.level = Some(level);
        extra.feedback = self.feedback();
        let own = l3.pro.as_ref().or(l3.fixer.as_ref());
        let first = self.correct(session, level, l3, own, &extra)?;
        if first.as_ref().is_some_and(Cand::plausible) || self.spent() {
            self.cut |= self.spent() && !first.as_ref().is_some_and(Cand::plausible);
            return Ok(first);
        }
        let diagnosis = first.as_ref().or(own).and_then(|c| c.stated.clone()).unwrap_or_else(|| "(none given)".into());
        let diff = l3.fixer.as_ref().map_or("(none: you gave no usable patch)", Cand::diff).to_string();
        extra.feedback = self.feedback();
        let prompt = prompts::revise_prompt(self.problem, &l3.marked, &diff, &diagnosis, &extra);
        let revised = self.candidate(session, level, Role::Fixer, vec![Message::user(prompt)])?;
        if revised.as_ref().is_some_and(Cand::plausible) || self.spent() {
            self.cut |= self.spent() && !revised.as_ref().is_some_and(Cand::plausible);
            return Ok(revised);
        }
        extra.feedback = self.feedback();
        let last = self.correct(session, level, l3, revised.as_ref().or(first.as_ref()), &extra)?;
        Ok(best(best(first, revised), last))
    }

    /// The Helper (L3): query, retrieval from the index, guide; computed once per run.
    fn helper(&mut self, session: &mut Session<'_>) -> Result<String, Stop> {
        if let Some(g) = &self.guide {
            return Ok(g.clone());
        }
        let mut rec = HelperRecord::default();
        let guide = self.helper_guide(session, &mut rec)?;
        self.details.helper = Some(rec);
        self.guide = Some(guide.clone());
        self.save(session);
        Ok(guide)
    }

    fn helper_guide(&mut self, session: &mut Session<'_>, rec: &mut HelperRecord) -> Result<String, Stop> {
        if session.retriever().is_none() {
            rec.note = Some("no --index: the Helper has no patch database to search".into());
            return Ok(String::new());
        }
        let messages = vec![Message::user(prompts::query_prompt(self.problem))];
        let Some(answer) = self.ask(session, Level::L3, Role::Helper, messages)? else {
            rec.note = Some("the Helper's query reply was unusable".into());
            return Ok(String::new());
        };
        let Some(query) = prompts::parse_query(&answer) else {
            rec.note = Some("the Helper wrote no query".into());
            return Ok(String::new());
        };
        rec.query = Some(query.clone());
        let config = session.config();
        let Some(got) = session.search_similar(&self.problem.code, &query, None, &config.retrieval) else {
            return Ok(String::new());
        };
        let got = got.map_err(crate::Error::from)?;
        rec.hits = got.fixes.iter().map(|f| f.id.clone()).collect();
        session.report.retrieved_dropped_exact += got.dropped_exact;
        for f in &got.fixes {
            if !session.report.retrieved.iter().any(|x| x.id == f.id) {
                session.report.retrieved.push(f.clone());
            }
        }
        if got.fixes.is_empty() {
            rec.note = Some("no similar fix above the threshold".into());
            return Ok(String::new());
        }
        let similar = render_as(&got, config.tool_output_chars, FixStyle::Prompt);
        let messages = vec![Message::user(prompts::guide_prompt(self.problem, &similar))];
        let guide = self.ask(session, Level::L3, Role::Helper, messages)?.map(|g| shorten(g.trim(), 2_000));
        rec.guide.clone_from(&guide);
        Ok(match guide {
            Some(g) => format!("{g}\n\nThe similar fixes found:\n{similar}"),
            None => format!("The similar fixes found:\n{similar}"),
        })
    }

    /// RepoFocus (L3): the related files' summaries; computed once per run.
    fn focus(&mut self, session: &mut Session<'_>) -> Result<String, Stop> {
        if let Some(r) = &self.related {
            return Ok(r.clone());
        }
        let chosen = self.choose_files(session)?;
        let mut out = String::new();
        for file in chosen {
            let s = self.summary_of(session, Level::L3, &file)?;
            out.push_str(&format!("### {file}\n{s}\n"));
        }
        self.related = Some(out.clone());
        Ok(out)
    }

    /// The pre-ranking's top, and the model's choice of 2-6 of them.
    fn choose_files(&mut self, session: &mut Session<'_>) -> Result<Vec<String>, Stop> {
        let p = self.problem;
        let q = FocusQuery {
            root: &p.bug.root,
            buggy_file: Some(&p.bug.file),
            failure: &p.failure,
            failing_tests: &p.bug.failing_tests,
            skip: Some(&|rel: &Path, is_dir: bool| session.skips(rel, is_dir)),
        };
        let top = candidates(repofocus::pre_rank(&q));
        let names: Vec<String> = top.iter().map(|r| r.file.clone()).collect();
        let mut rec = FocusRecord { pre_ranked: top.clone(), ..FocusRecord::default() };
        rec.source = "pre_ranking".into();
        let mut chosen = Vec::new();
        if names.len() > 2 {
            let listing: String = top
                .iter()
                .map(|r| format!("- {} (score {:.1}: {})\n", r.file, r.score, r.signals.join("; ")))
                .collect();
            let messages = vec![Message::user(prompts::focus_prompt(p, &listing))];
            if let Some(answer) = self.ask(session, Level::L3, Role::RepoFocus, messages)? {
                chosen = prompts::parse_files(&answer, &names);
            }
            rec.source = match chosen.len() {
                0 => "pre_ranking",
                1 => "model+pre_ranking",
                _ => "model",
            }
            .into();
        }
        for n in &names {
            if chosen.len() >= 2 {
                break;
            }
            if !chosen.contains(n) {
                chosen.push(n.clone());
            }
        }
        if chosen.is_empty() {
            rec.source = "none".into();
        }
        if chosen.len() < 2 {
            rec.note = Some(format!(
                "only {} project file(s) besides the buggy one had a signal (stack frame, test, import, package)",
                chosen.len()
            ));
        }
        rec.chosen.clone_from(&chosen);
        self.details.repofocus = Some(rec);
        self.save(session);
        Ok(chosen)
    }

    /// The Summarizer's summary of `file` (relative), or fixdex's signatures when the answer
    /// has no summary line; once per file and run.
    fn summary_of(&mut self, session: &mut Session<'_>, level: Level, file: &str) -> Result<String, Stop> {
        if let Some(s) = self.summaries.get(file) {
            return Ok(s.clone());
        }
        let path = self.problem.bug.root.join(file);
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let lang = crate::Language::from_path(Path::new(file)).map_or("", |l| l.as_str());
        let messages = vec![Message::user(prompts::summarizer_prompt(file, lang, &shorten(&text, FILE_CHARS)))];
        let answer = self.ask(session, level, Role::Summarizer, messages)?.unwrap_or_default();
        let mut lines = summary::parse(&answer);
        if lines.is_empty() {
            lines = summary::signatures(&path);
        }
        let s = summary::render(&lines);
        self.summaries.insert(file.to_string(), s.clone());
        Ok(s)
    }

    /// One request of `role` (the role's system prompt, then `messages`); the first
    /// choice's text, `None` when the reply was unusable (degraded). Recorded.
    fn ask(
        &mut self,
        session: &mut Session<'_>,
        level: Level,
        role: Role,
        messages: Vec<Message>,
    ) -> Result<Option<String>, Stop> {
        Ok(self.sample(session, level, role, messages)?.map(|r| r.text))
    }

    /// As [`Self::ask`], the whole first choice.
    fn sample(
        &mut self,
        session: &mut Session<'_>,
        level: Level,
        role: Role,
        messages: Vec<Message>,
    ) -> Result<Option<Reply>, Stop> {
        let mut all = vec![Message::system(role.system_prompt())];
        all.extend(messages);
        let input_chars = all.iter().map(|m| m.text().len()).sum();
        let req = session.request(all);
        let phase = role_phase(role);
        let at = Degraded::at(phase, Some(self.attempt(level)), None);
        let reply = session.sample_or_degrade(req, &at)?.and_then(|r| r.into_iter().next());
        self.details.agents.push(AgentRecord {
            pass: self.pass,
            level,
            role,
            input_chars,
            output: reply.as_ref().map(|r| shorten(&r.text, OUTPUT_CHARS)),
            candidate: None,
        });
        self.save(session);
        Ok(reply)
    }

    /// A request whose answer is a patch, validated.
    fn candidate(
        &mut self,
        session: &mut Session<'_>,
        level: Level,
        role: Role,
        messages: Vec<Message>,
    ) -> Result<Option<Cand>, Stop> {
        if self.spent() {
            self.cut = true;
            return Ok(None);
        }
        let Some(reply) = self.sample(session, level, role, messages)? else { return Ok(None) };
        self.validate(session, level, role, &reply)
    }

    /// Validates the patch in `reply` as a candidate of `role` at `level`; `None` when the
    /// validation budget is spent.
    fn validate(
        &mut self,
        session: &mut Session<'_>,
        level: Level,
        role: Role,
        reply: &Reply,
    ) -> Result<Option<Cand>, Stop> {
        if self.spent() {
            self.cut = true;
            return Ok(None);
        }
        let had_patch = session.report.patch.is_some();
        let answer = if reply.cut_off { complete_patch_text(&reply.text) } else { &reply.text };
        let slot = if role == Role::FixerPro { 2 } else { 1 };
        let place = Place { attempt: self.attempt(level), suggestion: slot, choice: 0 };
        let rec = session.validate_candidate(self.problem, place, reply, answer, prompts::CUT_OFF_PATCH)?;
        // A duplicate was not tested again: it does not count against the budget.
        if rec.verdict != Verdict::Duplicate {
            self.details.validations += 1;
        }
        let index = session.report.candidates.len();
        session.push_candidate(rec.clone());
        let rec = session.as_repeated(rec);
        if let Some(a) = self.details.agents.last_mut() {
            a.candidate = Some(index);
        }
        let tag = if role == Role::FixerPro { "DIAGNOSIS" } else { "ROOT CAUSE" };
        let stated = prompts::stated(&reply.text, tag);
        // The report's root cause: the first plausible patch's, else the latest stated one.
        if stated.is_some() && !had_patch {
            session.report.root_cause.clone_from(&stated);
        }
        self.save(session);
        let cand = Cand { rec, stated };
        self.last = Some(cand.clone());
        Ok(Some(cand))
    }

    /// The candidates' attempt number of `level` in this pass.
    fn attempt(&self, level: Level) -> usize {
        4 * (self.pass - 1) + level.number()
    }
}

/// RepoFocus's candidates: the pre-ranking's top [`FOCUS_CANDIDATES`], without the weak
/// files (a score of at most [`WEAK_SCORE`]: one package or mention signal) when more than
/// [`FOCUS_CANDIDATES`] of them tie there: a signal shared by that many files tells nothing
/// (QuixBugs: every program of a folder shares its package and nothing else).
fn candidates(ranked: Vec<Ranked>) -> Vec<Ranked> {
    let weak = ranked.iter().filter(|r| r.score <= WEAK_SCORE).count();
    let keep = |r: &Ranked| weak <= FOCUS_CANDIDATES || r.score > WEAK_SCORE;
    ranked.into_iter().filter(keep).take(FOCUS_CANDIDATES).collect()
}

/// The report's degraded-phase name of a role.
fn role_phase(role: Role) -> &'static str {
    match role {
        Role::Locator => "locator",
        Role::Fixer => "fixer",
        Role::FixerPro => "fixer_pro",
        Role::Slicer => "slicer",
        Role::Summarizer => "summarizer",
        Role::Helper => "helper",
        Role::RepoFocus => "repofocus",
    }
}

/// The better of two candidates ([`crate::validate::rank`]: plausible, then fewer failing
/// tests, ...); `b` on ties (the later review).
fn best(a: Option<Cand>, b: Option<Cand>) -> Option<Cand> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if rank(&a) > rank(&b) { a } else { b }),
        (a, b) => b.or(a),
    }
}

/// A candidate's [`crate::validate::rank`].
fn rank(c: &Cand) -> (u8, std::cmp::Reverse<usize>) {
    crate::validate::rank(c.rec.verdict, c.rec.failing_tests.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranked(file: &str, score: f64) -> Ranked {
        Ranked { file: file.into(), score, signals: Vec::new() }
    }

    /// Weak files are RepoFocus candidates only while they are few enough to choose from.
    #[test]
    fn weak_files_are_dropped_only_when_too_many_tie() {
        let few: Vec<Ranked> = (0..5).map(|i| ranked(&format!("p/F{i}.java"), 1.0)).collect();
        assert_eq!(candidates(few).len(), 5);
        let mut many: Vec<Ranked> = vec![ranked("p/Frame.java", 16.0), ranked("p/Used.java", 2.0)];
        many.extend((0..40).map(|i| ranked(&format!("p/F{i}.java"), 1.0)));
        let kept: Vec<String> = candidates(many).into_iter().map(|r| r.file).collect();
        assert_eq!(kept, ["p/Frame.java", "p/Used.java"]);
        let only_weak: Vec<Ranked> = (0..40).map(|i| ranked(&format!("p/F{i}.py"), 1.0)).collect();
        assert!(candidates(only_weak).is_empty());
    }
}
