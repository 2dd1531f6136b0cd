//! The ReinFix workflow (../shared/papers/reinfix.txt, §3.3 and Algorithm 1), after the
//! shared pre-flight ([`crate::run::preflight`]):
//!
//! 1. **Reasoning phase**: `CauseAnalyzewithoutDonor`: one call with the buggy code and the
//!    failure asks for `ROOT CAUSE: ...` or `ROOT CAUSE: NONE`. On `NONE` (or no parsable
//!    answer), a ReAct loop offers the nine internal-ingredient tools ([`crate::tools`]) until
//!    the model states a root cause, for at most [`ReinFix::react_steps`] turns
//!    ([`react`]).
//! 2. **Solution phase**: the external-ingredient tool ([`crate::retrieve`]) is queried with
//!    `buggy code ⊕ root cause` (eq. 2); the model gives up to [`ReinFix::suggestions`]
//!    repair suggestions, and for each, [`ReinFix::patches`] candidate patches are sampled
//!    (`n` choices of one request); up to [`ReinFix::attempts`] attempts, each told why the
//!    previous candidates failed. ReinFix's space is 3 attempts × 3 suggestions × 5 patches.
//! 3. **Validation**: every distinct candidate is applied ([`crate::patch`], context matching,
//!    all or nothing) to a fresh scratch copy and tested ([`Session::validate_candidate`]);
//!    the run stops at the first plausible patch unless [`RunConfig::collect_all`](crate::run::config::RunConfig::collect_all). When no
//!    candidate of a suggestion applies, the refusal reason goes back to the model once for a
//!    corrected patch.
//!
//! # Unusable replies
//! As every strategy ([`crate::run::session`]): no direct root cause leads to the ReAct loop; a
//! ReAct turn that fails ends the loop like running out of turns (the root cause is
//! `undetermined`, [`RepairReport::root_cause_note`](crate::run::report::RepairReport::root_cause_note)
//! says why); a failed suggestion request skips its attempt; a failed patch or correction
//! request skips its suggestion. A reply cut off at the token limit is used for its complete
//! part (the ReAct loop: [`crate::run::report::ToolProtocol`]; complete suggestion lines; patch edits up to the
//! last closed one, [`complete_patch_text`]).
//!
//! # Report
//! ReinFix fills every shared field of the report: `root_cause`, `root_cause_source`,
//! `root_cause_note`, `tool_calls`, `tool_protocol`, `retrieved`, `retrieved_dropped_exact`,
//! `suggestions` and `candidates` (attempt, suggestion, choice). It has no `details`.

mod prompts;
pub mod react;

use crate::llm::Message;
use crate::llm::text::complete_part;
use crate::retrieve::{FixStyle, render_as};
use crate::run::bug::Problem;
use crate::run::config::SearchSpace;
use crate::run::report::Degraded;
use crate::run::session::{Place, Reply, Session, Stop};
use crate::validate::Verdict;

pub use prompts::{
    CAUSE_QUESTION, CUT_OFF_PATCH, NUDGE_PROMPT, REACT_PROMPT, SYSTEM_PROMPT, TEXT_CALL_REMINDER, complete_patch_text,
    echoes_prompt, normalize_cause, parse_root_cause, parse_suggestions,
};
pub use react::{SWITCH_AFTER_MISSES, text_tools_prompt};

/// The ReinFix strategy (`--strategy reinfix`, the default) and its search space; defaults
/// follow ReinFix §4.5 (8 ReAct turns; 3 attempts × 3 suggestions × 5 patches).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReinFix {
    /// Most ReAct turns in the reasoning phase.
    pub react_steps: usize,
    /// Repair attempts.
    pub attempts: usize,
    /// Repair suggestions per attempt.
    pub suggestions: usize,
    /// Candidate patches per suggestion (the `n` of one request).
    pub patches: usize,
}

impl Default for ReinFix {
    fn default() -> Self {
        let s = SearchSpace::default();
        ReinFix { react_steps: s.react_steps, attempts: s.attempts, suggestions: s.suggestions, patches: s.patches }
    }
}

/// ReinFix's options (`--attempts`, `--suggestions`, `--patches`).
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Strategy reinfix: the search space")]
pub struct ReinfixArgs {
    /// Repair attempts.
    #[arg(long, default_value_t = 3)]
    pub attempts: usize,
    /// Repair suggestions per attempt.
    #[arg(long, default_value_t = 3)]
    pub suggestions: usize,
    /// Candidate patches per suggestion.
    #[arg(long, default_value_t = 5)]
    pub patches: usize,
}

/// The registry's entry of ReinFix ([`super::Registry::builtin`]).
#[must_use]
pub fn entry() -> Box<dyn super::Entry> {
    super::entry::<ReinfixArgs>(
        "reinfix",
        "root cause with the internal tools, similar fixes, repair suggestions, candidate patches (ReinFix, \
         Algorithm 1)",
        |a| {
            let r =
                ReinFix { attempts: a.attempts, suggestions: a.suggestions, patches: a.patches, ..ReinFix::default() };
            Ok(Box::new(r))
        },
    )
}

impl super::Strategy for ReinFix {
    fn name(&self) -> &'static str {
        "reinfix"
    }

    fn search_space(&self) -> SearchSpace {
        SearchSpace {
            react_steps: self.react_steps,
            attempts: self.attempts,
            suggestions: self.suggestions,
            patches: self.patches,
        }
    }

    fn repair(&self, problem: &Problem, session: &mut Session<'_>) -> Result<(), Stop> {
        // Reasoning phase.
        let cause = react::reason(problem, session, self.react_steps)?;
        session.report.root_cause = Some(cause.clone());
        // Solution phase: external ingredients.
        let similar = retrieve(problem, session, &cause)?;
        let mut failures: Vec<String> = Vec::new();
        for attempt in 1..=self.attempts.max(1) {
            let Some(suggestions) = self.suggest(problem, session, attempt, &cause, &similar, &failures)? else {
                session.report.suggestions.push(Vec::new());
                continue;
            };
            session.report.suggestions.push(suggestions.clone());
            for (si, suggestion) in suggestions.iter().enumerate() {
                let at = (attempt, si + 1);
                if self.try_suggestion(problem, session, at, &cause, suggestion, &mut failures)? {
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}

/// The similar fixes for the suggestion prompt (`""` without an index), recorded in the
/// report.
fn retrieve(problem: &Problem, session: &mut Session<'_>, cause: &str) -> Result<String, Stop> {
    let config = session.config();
    // No buggy lines: `problem.code` is the located method (or the user's line range, all
    // buggy), and no suspicious line inside it reaches the strategy, so the index embeds
    // the code's first tokens, as it did before the window rule.
    let Some(got) = session.search_similar(&problem.code, cause, None, &config.retrieval) else {
        return Ok(String::new());
    };
    let got = got.map_err(crate::Error::from)?;
    let similar = render_as(&got, config.tool_output_chars, FixStyle::Prompt);
    session.report.retrieved = got.fixes;
    session.report.retrieved_dropped_exact = got.dropped_exact;
    Ok(similar)
}

impl ReinFix {
    /// `giveRepairSuggestions`: up to `suggestions` suggestions for this attempt; `None` when
    /// the reply is unusable or empty (recorded as degraded: the attempt is skipped).
    fn suggest(
        &self,
        problem: &Problem,
        session: &mut Session<'_>,
        attempt: usize,
        cause: &str,
        similar: &str,
        failures: &[String],
    ) -> Result<Option<Vec<String>>, Stop> {
        let n = self.suggestions;
        let req = session.request(vec![
            Message::system(SYSTEM_PROMPT),
            Message::user(prompts::suggest_prompt(problem, cause, similar, failures, n)),
        ]);
        let at = Degraded::at("suggestions", Some(attempt), None);
        let Some(replies) = session.sample_or_degrade(req, &at)? else { return Ok(None) };
        let reply = replies.into_iter().next().unwrap_or_default();
        // A cut-off reply counts for its complete lines only.
        let text = if reply.cut_off { complete_part(&reply.text) } else { &reply.text };
        if text.trim().is_empty() {
            let reason = if reply.cut_off {
                "the reply was cut off at the token limit before a complete suggestion"
            } else {
                "the reply was empty"
            };
            session.degrade(Degraded { reason: reason.into(), ..at });
            return Ok(None);
        }
        let mut out = parse_suggestions(text);
        out.truncate(n.max(1));
        if out.is_empty() {
            out.push(text.trim().to_string());
        }
        Ok(Some(out))
    }

    /// Samples the candidates of one suggestion (and one corrected patch when none applied)
    /// and validates them; `true` when the run should stop at a plausible patch.
    fn try_suggestion(
        &self,
        problem: &Problem,
        session: &mut Session<'_>,
        (attempt, suggestion_no): (usize, usize),
        cause: &str,
        suggestion: &str,
        failures: &mut Vec<String>,
    ) -> Result<bool, Stop> {
        let mut req = session.request(vec![
            Message::system(SYSTEM_PROMPT),
            Message::user(prompts::patch_prompt(problem, cause, suggestion)),
        ]);
        req.n = Some(u32::try_from(self.patches.max(1)).unwrap_or(1));
        let at = Degraded::at("patches", Some(attempt), Some(suggestion_no));
        let Some(answers) = session.sample_or_degrade(req.clone(), &at)? else { return Ok(false) };
        let mut applied_any = false;
        let mut first_refusal = None;
        for (choice, answer) in answers.iter().enumerate() {
            let place = Place { attempt, suggestion: suggestion_no, choice };
            let rec = candidate(problem, session, place, answer)?;
            applied_any |= rec.verdict != Verdict::PatchRefused;
            if rec.verdict == Verdict::PatchRefused && first_refusal.is_none() {
                first_refusal = rec.feedback.clone();
            }
            if !matches!(rec.verdict, Verdict::Plausible | Verdict::Duplicate | Verdict::PatchRefused) {
                failures.push(format!(
                    "Patch:\n{}\nResult: {}\n",
                    rec.applied_diff.clone().unwrap_or_default(),
                    rec.feedback.clone().unwrap_or_default()
                ));
            }
            if session.push_candidate(rec) {
                return Ok(true);
            }
        }
        // No candidate applied: tell the model why, once, and take one corrected patch.
        let Some(reason) = first_refusal.filter(|_| !applied_any) else { return Ok(false) };
        req.n = None;
        if let Some(first) = answers.first() {
            req.messages.push(Message::assistant(first.text.clone()));
        }
        req.messages.push(Message::user(format!(
            "Your patch could not be applied: {reason}\nSend a corrected patch that quotes the current code exactly."
        )));
        let at = Degraded::at("correction", Some(attempt), Some(suggestion_no));
        let again = session.sample_or_degrade(req, &at)?.unwrap_or_default();
        let Some(answer) = again.first() else { return Ok(false) };
        let place = Place { attempt, suggestion: suggestion_no, choice: answers.len() };
        let rec = candidate(problem, session, place, answer)?;
        Ok(session.push_candidate(rec))
    }
}

/// Validates one patch answer; a cut-off answer counts for its complete edits only.
fn candidate(
    problem: &Problem,
    session: &mut Session<'_>,
    place: Place,
    reply: &Reply,
) -> Result<crate::run::report::CandidateRecord, Stop> {
    let answer = if reply.cut_off { complete_patch_text(&reply.text) } else { &reply.text };
    session.validate_candidate(problem, place, reply, answer, CUT_OFF_PATCH)
}
