//! What a repair run *has*: the chat client, the ledger (calls, tokens, cost), the clock,
//! the budgets and the report being built ([`Session`]), and the services every strategy
//! uses through it: model requests kept within the context window, candidate validation,
//! and the records of unusable replies.
//!
//! # Unusable replies cost their request, not the run
//! A reply that stays unusable (tool calls still malformed after the re-asks,
//! [`LlmError::ReaskLimit`]; a response that is not a chat completion,
//! [`LlmError::MalformedResponse`]; an empty answer) is recorded in
//! [`RepairReport::degraded`] ([`Session::degrade`]) and the strategy goes on as if that
//! request had given nothing. Only when no reply of the whole run was usable does it end as
//! [`Outcome::Error`](crate::run::report::Outcome::Error) ([`Session::conclude`]). Transport
//! errors, budgets and the wall clock still end the run ([`Stop`]).
//!
//! A reply cut off at the token limit is used for its complete part and never re-asked
//! ([`Reply::cut_off`]; the strategy decides what its complete part is). Every request is
//! kept within the model's context window ([`RunConfig::context_tokens`],
//! [`crate::llm::context`]); one the server still refuses as too long is shrunk and sent
//! once more, then degraded like an unusable reply ([`Session::send`]).
//!
//! Budgets (LLM calls, tokens, wall time) are checked before every call and every
//! validation.

use std::collections::HashSet;
use std::time::Instant;

use engine::embed::LineRange;

use crate::error::{Error, Refusal};
use crate::llm::context::{self, ContextBudget, Estimator};
use crate::llm::{ChatClient, ChatRequest, Ledger, LlmError, Message, PriceTable, complete_n};
use crate::patch::{Change, Patch};
use crate::retrieve::{Retrieval, RetrieveError, RetrieveParams, Retriever};
use crate::run::bug::{Bug, Problem};
use crate::run::config::RunConfig;
use crate::run::report::{CandidateRecord, Degraded, RepairReport};
use crate::tools::Toolbox;
use crate::validate::baseline::{Plausibility, Rule};
use crate::validate::scratch::{Scratch, ScratchFilter};
use crate::validate::{Validation, Validator, Verdict};

/// Why a run (or one request of it) stopped early.
#[derive(Debug)]
pub enum Stop {
    /// The call or token budget ran out.
    Budget(Error),
    /// The wall-clock limit ran out.
    Timeout(Error),
    /// An error of the machinery or the endpoint.
    Failed(Error),
    /// The model's reply to one request is unusable (the reason): the strategy degrades
    /// ([`Session::degrade`]) and goes on.
    Unusable(String),
    /// The server refused a request with tools (an HTTP 4xx naming `tool`): a ReAct loop
    /// switches to the text protocol; elsewhere an error.
    ToolsRefused(LlmError),
}

impl From<LlmError> for Stop {
    fn from(e: LlmError) -> Self {
        match e {
            LlmError::BudgetExceeded { .. } => Stop::Budget(e.into()),
            LlmError::Deadline { .. } => Stop::Timeout(e.into()),
            LlmError::ReaskLimit { .. } | LlmError::MalformedResponse { .. } => Stop::Unusable(e.to_string()),
            LlmError::Http { status, ref body, .. } if refuses_tools(status, body) => Stop::ToolsRefused(e),
            other => Stop::Failed(other.into()),
        }
    }
}

impl From<Error> for Stop {
    fn from(e: Error) -> Self {
        match e {
            Error::Llm(e) => e.into(),
            other => Stop::Failed(other),
        }
    }
}

/// An HTTP 4xx (other than 401, 403, 404, 429) whose body names `tool`: `tools` or
/// `tool_choice` are not supported.
fn refuses_tools(status: u16, body: &str) -> bool {
    (400..500).contains(&status) && ![401, 403, 404, 429].contains(&status) && body.to_lowercase().contains("tool")
}

/// One choice of a reply: its text and whether it was cut off at the token limit
/// (`finish_reason: "length"`).
#[derive(Debug, Clone, Default)]
pub struct Reply {
    /// The choice's text.
    pub text: String,
    /// Whether the server cut it off at the token limit.
    pub cut_off: bool,
}

/// Where a candidate comes from in the strategy's search: the report's
/// [`CandidateRecord::attempt`], `suggestion` and `choice`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// Attempt, round or level (1-based).
    pub attempt: usize,
    /// Suggestion, hypothesis or agent within it (1-based).
    pub suggestion: usize,
    /// Choice within its request (0-based).
    pub choice: usize,
}

/// The mutable state of one run, shared by the workflow and its strategy.
pub struct Session<'a> {
    client: &'a dyn ChatClient,
    config: &'a RunConfig,
    retriever: Option<&'a Retriever>,
    validator: &'a Validator,
    /// The validator of candidate patches: `validator` with its timeout adapted to the
    /// pre-flight ([`Session::adapt_validator`]); `None` before the pre-flight.
    candidate_validator: Option<Validator>,
    skip: ScratchFilter,
    /// The internal-ingredient tools over the project.
    pub toolbox: Toolbox,
    /// Calls, tokens, cost and the budget.
    pub ledger: Ledger,
    start: Instant,
    estimator: Estimator,
    /// Model replies that were usable.
    usable: usize,
    /// Applied diffs already validated (a repeat is a [`Verdict::Duplicate`]).
    seen: HashSet<String>,
    /// The buggy version's failing tests that also failed in every candidate whose complete
    /// failing list is known; `None` before the first such candidate.
    persistent: Option<Vec<String>>,
    /// The rule candidates are judged by, once the pre-flight has run.
    pub(crate) plausibility: Option<Plausibility>,
    /// The report being built.
    pub report: RepairReport,
}

impl std::fmt::Debug for Session<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("client", &self.client.describe())
            .field("config", &self.config)
            .field("usable", &self.usable)
            .finish_non_exhaustive()
    }
}

/// What a [`Session`] is made of ([`Session::new`]).
pub(crate) struct Parts<'a> {
    pub(crate) client: &'a dyn ChatClient,
    pub(crate) config: &'a RunConfig,
    pub(crate) retriever: Option<&'a Retriever>,
    pub(crate) validator: &'a Validator,
    pub(crate) skip: ScratchFilter,
    pub(crate) prices: PriceTable,
}

impl<'a> Session<'a> {
    /// A session for `bug` started at `start`, its report initialised by `report`.
    pub(crate) fn new(parts: Parts<'a>, bug: &Bug, start: Instant, report: RepairReport) -> Session<'a> {
        let Parts { client, config, retriever, validator, skip, prices } = parts;
        let toolbox = Toolbox::new(&bug.root).with_skip(std::sync::Arc::clone(&skip));
        Session {
            client,
            config,
            retriever,
            validator,
            candidate_validator: None,
            skip,
            toolbox,
            ledger: Ledger::new(config.budget, prices).with_deadline(config.wall.map(|wall| start + wall)),
            start,
            estimator: Estimator::default(),
            usable: 0,
            seen: HashSet::new(),
            persistent: None,
            plausibility: None,
            report,
        }
    }

    /// The run's configuration.
    #[must_use]
    pub fn config(&self) -> &'a RunConfig {
        self.config
    }

    /// The chat client.
    #[must_use]
    pub fn client(&self) -> &'a dyn ChatClient {
        self.client
    }

    /// The index of similar fixes, when the run has one. Search it through
    /// [`Session::search_similar`], which records in the report what was searched.
    #[must_use]
    pub fn retriever(&self) -> Option<&'a Retriever> {
        self.retriever
    }

    /// Similar fixes for `code` and `cause` ([`Retriever::search_lines`], with the buggy
    /// `lines` when known) under `p`, recorded in the report's `retrieval` block (space, k,
    /// threshold, ef, [`crate::run::report::RetrievalSettings::record`]): what this run
    /// actually searched. `None` without an index.
    ///
    /// # Errors
    /// As [`Retriever::search_lines`], inside the `Some`.
    pub fn search_similar(
        &mut self,
        code: &str,
        cause: &str,
        lines: Option<LineRange>,
        p: &RetrieveParams,
    ) -> Option<Result<Retrieval, RetrieveError>> {
        let found = self.retriever?.search_lines(code, cause, lines, p);
        if let Some(settings) = self.report.retrieval.as_mut() {
            settings.record(p, found.as_ref().ok());
        }
        Some(found)
    }

    /// Whether the run leaves the entry `rel` (relative to the project root; `is_dir`) out
    /// of its scratch copies ([`crate::run::workflow::Workflow::with_scratch_filter`]): a
    /// strategy that reads the project tree itself skips what the copies skip.
    #[must_use]
    pub fn skips(&self, rel: &std::path::Path, is_dir: bool) -> bool {
        (self.skip)(rel, is_dir)
    }

    /// The filter behind [`Session::skips`], for a reader of the project tree that takes one
    /// (`patterns`' project classes, [`crate::strategies::patterns::templates::ProjectTypes`]).
    #[must_use]
    pub fn scratch_filter(&self) -> ScratchFilter {
        std::sync::Arc::clone(&self.skip)
    }

    /// When the run started.
    #[must_use]
    pub fn started(&self) -> Instant {
        self.start
    }

    /// Counts one usable model reply (a strategy that reads replies outside
    /// [`Self::sample_or_degrade`] calls it).
    pub fn count_usable(&mut self) {
        self.usable += 1;
    }

    /// A request with the run's model and sampling parameters.
    #[must_use]
    pub fn request(&self, messages: Vec<Message>) -> ChatRequest {
        let mut req = ChatRequest::new(self.config.model.clone(), messages);
        req.temperature = self.config.temperature;
        req.seed = self.config.seed;
        req.max_tokens = self.config.max_tokens;
        req
    }

    /// [`Stop::Timeout`] once the run's wall-clock limit is reached.
    ///
    /// # Errors
    /// [`Stop::Timeout`] with [`Error::WallClock`].
    pub fn check_time(&self) -> Result<(), Stop> {
        match self.config.wall {
            Some(limit) if self.start.elapsed() >= limit => {
                Err(Stop::Timeout(Error::WallClock { limit_s: limit.as_secs() }))
            }
            _ => Ok(()),
        }
    }

    /// Records an unusable reply: the request is skipped, the run goes on.
    pub fn degrade(&mut self, degraded: Degraded) {
        let place = match (degraded.turn, degraded.attempt, degraded.suggestion) {
            (Some(t), _, _) => format!(" (turn {t})"),
            (None, Some(a), Some(s)) => format!(" (attempt {a}, suggestion {s})"),
            (None, Some(a), None) => format!(" (attempt {a})"),
            _ => String::new(),
        };
        self.report.warnings.push(format!(
            "the model's reply to the {} request{place} was unusable, so the run went on without it: {}",
            degraded.phase, degraded.reason
        ));
        self.report.degraded.push(degraded);
    }

    /// [`Self::sample`], except that an unusable reply is recorded as `at` and gives `None`.
    ///
    /// # Errors
    /// As [`Self::sample`], [`Stop::Unusable`] excepted.
    pub fn sample_or_degrade(&mut self, req: ChatRequest, at: &Degraded) -> Result<Option<Vec<Reply>>, Stop> {
        match self.sample(req) {
            Ok(texts) => {
                self.usable += 1;
                Ok(Some(texts))
            }
            Err(Stop::Unusable(reason)) => {
                self.degrade(Degraded { reason, ..at.clone() });
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// One call without tools, kept within the context window ([`Self::send`]); every
    /// choice's text and whether it was cut off. `req.n` choices are asked for; a server
    /// that ignores `n` is asked again for the rest ([`complete_n`]).
    ///
    /// # Errors
    /// [`Stop`] for the wall clock, the budget, the endpoint, and an unusable reply.
    pub fn sample(&mut self, mut req: ChatRequest) -> Result<Vec<Reply>, Stop> {
        self.check_time()?;
        let client = self.client;
        let resp = self.send(&mut req, 2, |r, ledger| complete_n(client, r, ledger))?;
        let replies: Vec<Reply> = resp
            .choices
            .into_iter()
            .map(|c| Reply {
                text: c.message.text().to_string(),
                cut_off: c.finish_reason.as_deref() == Some("length"),
            })
            .collect();
        self.report.context.cut_off_replies += replies.iter().filter(|r| r.cut_off).count();
        Ok(replies)
    }

    /// Sends `req` through `call` after fitting its history into the context window
    /// (messages before `pinned` are never dropped) and lowering `max_tokens` to what fits
    /// beside the prompt. When the server still refuses it as too long, the prompt is
    /// shrunk harder (the token estimate's ratio lowered by a quarter) and sent once more;
    /// a second refusal makes the reply unusable ([`Stop::Unusable`]: the caller degrades).
    ///
    /// # Errors
    /// [`Stop`] from `call`'s [`LlmError`], sorted by kind.
    pub fn send<T>(
        &mut self,
        req: &mut ChatRequest,
        pinned: usize,
        mut call: impl FnMut(&ChatRequest, &mut Ledger) -> crate::llm::Result<T>,
    ) -> Result<T, Stop> {
        let budget = self.context_budget();
        self.fit(req, pinned, budget.prompt_tokens());
        let mut retried = false;
        loop {
            let calls_before = self.ledger.calls.len();
            match call(req, &mut self.ledger) {
                Ok(value) => {
                    if self.ledger.calls.len() == calls_before + 1
                        && let Some(c) = self.ledger.calls.last().filter(|c| c.usage_reported)
                    {
                        let prompt_tokens = c.prompt_tokens;
                        self.estimator.observe(req, prompt_tokens);
                    }
                    return Ok(value);
                }
                Err(LlmError::ContextLengthExceeded { message }) if !retried => {
                    retried = true;
                    self.report.context.overflow_retries += 1;
                    let before = self.estimator.tokens(req);
                    self.estimator.chars_per_token = (self.estimator.chars_per_token * 0.75).max(1.0);
                    tracing::info!(message = %message, "the request overflowed the context window; shrinking it once");
                    self.fit(req, pinned, before.min(budget.prompt_tokens()));
                }
                Err(LlmError::ContextLengthExceeded { message }) => {
                    return Err(Stop::Unusable(format!(
                        "the request does not fit the model's context window even after shrinking it: {message}"
                    )));
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// The window and the reply's share of it.
    fn context_budget(&self) -> ContextBudget {
        let window = self.config.context_tokens;
        let reply = self.config.max_tokens.map_or(window / 4, u64::from);
        ContextBudget { context_tokens: window, reply_tokens: reply }
    }

    /// Fits `req` into `max_prompt_tokens` and records what was dropped or cut.
    fn fit(&mut self, req: &mut ChatRequest, pinned: usize, max_prompt_tokens: u64) {
        let done = context::fit(req, pinned, max_prompt_tokens, &self.estimator);
        self.report.context.dropped_exchanges += done.dropped_exchanges;
        self.report.context.cut_messages += done.cut_messages;
        if req.max_tokens.is_some() {
            let limit = self.context_budget().reply_limit(done.tokens);
            req.max_tokens = Some(u32::try_from(limit).unwrap_or(u32::MAX));
        }
    }

    /// Parses the candidate `answer` (the text holding the patch, already cut to its
    /// complete part when the reply was cut off; `raw` is the whole reply, the record's
    /// `answer`) into a [`Patch`] and validates it ([`Self::validate_patch`]). An empty
    /// `answer` from a cut-off reply is refused with `cut_off_feedback`, an answer that holds
    /// no patch with the parser's reason.
    ///
    /// # Errors
    /// As [`Self::validate_patch`].
    pub fn validate_candidate(
        &mut self,
        problem: &Problem,
        place: Place,
        raw: &Reply,
        answer: &str,
        cut_off_feedback: &str,
    ) -> Result<CandidateRecord, Stop> {
        let refused = |feedback: String| Ok(CandidateRecord { feedback: Some(feedback), ..record(place, &raw.text) });
        self.check_time()?;
        if raw.cut_off && answer.trim().is_empty() {
            return refused(cut_off_feedback.into());
        }
        match Patch::parse(answer, Some(&problem.bug.file)) {
            Ok(patch) => self.validate_patch(problem, place, &raw.text, &Change::Parsed(patch)),
            Err(e) => refused(e.feedback()),
        }
    }

    /// Applies the typed `change` in a fresh scratch copy of `problem`'s project and
    /// validates it; `answer` is what the record keeps as the candidate's text (a model's
    /// reply, or a model-free candidate's rendering for the reader). A plausible candidate
    /// becomes the report's patch when it is the first; a failing one tracks the tests that
    /// keep failing; a change already validated is a [`Verdict::Duplicate`]; a change that
    /// does not apply is a [`Verdict::PatchRefused`] with the reason.
    ///
    /// # Errors
    /// [`Stop::Timeout`] at the wall clock; [`Stop::Failed`] when the scratch copy or the
    /// test command cannot be run.
    pub fn validate_patch(
        &mut self,
        problem: &Problem,
        place: Place,
        answer: &str,
        change: &Change,
    ) -> Result<CandidateRecord, Stop> {
        self.check_time()?;
        let mut rec = record(place, answer);
        match self.validate_change(problem, change)? {
            Err(refusal) => rec.feedback = Some(refusal.0),
            Ok((diff, _)) if !self.seen.insert(diff.clone()) => {
                rec.verdict = Verdict::Duplicate;
                rec.applied_diff = Some(diff);
            }
            Ok((diff, v)) => self.judge(&mut rec, diff, &v),
        }
        Ok(rec)
    }

    /// Fills `rec` from the validation `v` of the applied `diff`.
    fn judge(&mut self, rec: &mut CandidateRecord, diff: String, v: &Validation) {
        let plausible = self.plausibility.as_ref().map_or(v.plausible(), |p| p.judge(v));
        rec.verdict = if plausible { Verdict::Plausible } else { v.verdict };
        rec.failing_tests = v.failing_tests.clone();
        rec.wall_ms = v.wall_ms;
        if !plausible && v.verdict == Verdict::TestFailure && v.failing_tests_known() {
            let before = self.persistent.take().or_else(|| self.plausibility.as_ref().map(|p| p.bug_tests.clone()));
            self.persistent =
                Some(before.unwrap_or_default().into_iter().filter(|t| v.failing_tests.contains(t)).collect());
        }
        if plausible {
            self.report.patch.get_or_insert_with(|| diff.clone());
        } else {
            rec.feedback = Some(v.feedback(1500));
        }
        rec.applied_diff = Some(diff);
    }

    /// `rec` as the candidate it repeats when it is a [`Verdict::Duplicate`]: that
    /// candidate's verdict (unless plausible), failing tests and feedback, so that a strategy
    /// ranks it and shows it to the model as that one; other records unchanged.
    #[must_use]
    pub fn as_repeated(&self, mut rec: CandidateRecord) -> CandidateRecord {
        if rec.verdict != Verdict::Duplicate {
            return rec;
        }
        let first = self.report.candidates.iter().find(|c| {
            c.verdict != Verdict::Duplicate && c.applied_diff.is_some() && c.applied_diff == rec.applied_diff
        });
        if let Some(first) = first {
            rec.failing_tests.clone_from(&first.failing_tests);
            rec.feedback.clone_from(&first.feedback);
            if first.verdict != Verdict::Plausible {
                rec.verdict = first.verdict;
            }
        }
        rec
    }

    /// Records a candidate; `true` when it is plausible and the run stops at the first
    /// ([`RunConfig::collect_all`] unset).
    pub fn push_candidate(&mut self, mut rec: CandidateRecord) -> bool {
        rec.at_ms = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        let plausible = rec.verdict == Verdict::Plausible;
        self.report.candidates.push(rec);
        plausible && !self.config.collect_all
    }

    /// Validates the buggy version of `bug` in a fresh scratch copy (the pre-flight).
    ///
    /// # Errors
    /// The scratch copy or the commands cannot be run.
    pub(crate) fn validate_buggy(&self, bug: &Bug) -> Result<Validation, Error> {
        let scratch = self.scratch(bug)?;
        Ok(self.validator.validate(scratch.root())?)
    }

    /// Validates `problem`'s project with `change` applied in a fresh scratch copy
    /// ([`Change::apply`]: splices edit the buggy file's text as the pre-flight read it),
    /// with the candidates' validator. `Ok(Err)` is a refused change with its reason;
    /// else the applied diff and the validation.
    ///
    /// # Errors
    /// The scratch copy or the commands cannot be run.
    pub(crate) fn validate_change(
        &self,
        problem: &Problem,
        change: &Change,
    ) -> Result<Result<(String, Validation), Refusal>, Error> {
        let scratch = self.scratch(&problem.bug)?;
        let diff = match change.apply(scratch.root(), &problem.bug.file, &problem.source) {
            Ok(applied) => applied.diff,
            Err(e) => return Ok(Err(e.into())),
        };
        let validator = self.candidate_validator.as_ref().unwrap_or(self.validator);
        let v = validator.validate(scratch.root())?;
        Ok(Ok((diff, v)))
    }

    /// A fresh scratch copy of `bug`'s project, without what the run skips.
    fn scratch(&self, bug: &Bug) -> Result<Scratch, Error> {
        let skip = std::sync::Arc::clone(&self.skip);
        Ok(Scratch::copy(&bug.root, move |p, d| skip(p, d))?)
    }

    /// Sets the validator of candidate patches from the buggy version's validation `pre`
    /// ([`Validator::adapted`] with [`RunConfig::candidate_timeout_factor`]) and returns its
    /// limit per command.
    pub(crate) fn adapt_validator(&mut self, pre: &Validation) -> std::time::Duration {
        let adapted = self.validator.adapted(pre, self.config.candidate_timeout_factor);
        let limit = adapted.timeout;
        self.candidate_validator = Some(adapted);
        limit
    }

    /// The test command of the candidates' validator as a shell line (`None` before
    /// [`Session::adapt_validator`]).
    pub(crate) fn candidate_test_command(&self) -> Option<String> {
        self.candidate_validator.as_ref().map(|v| v.test.display())
    }

    /// Makes the candidates run the validator's fail-fast test command
    /// ([`Validator::failing_fast`]) when it has one and no test failed on the buggy version
    /// that a plausible patch may leave failing (with one, a fail-fast run could stop at it
    /// before the tests that decide); says so in the report's pre-flight. Call after
    /// [`Session::preflight`].
    pub(crate) fn fail_fast(&mut self) {
        let pre_existing = self.plausibility.as_ref().is_some_and(|p| !p.preexisting_failures.is_empty());
        let Some(fast) = self.candidate_validator.as_ref().filter(|_| !pre_existing).and_then(Validator::failing_fast)
        else {
            return;
        };
        if let Some(p) = self.report.preflight.as_mut() {
            p.fail_fast = true;
            p.candidate_test_command = Some(fast.test.display());
        }
        self.candidate_validator = Some(fast);
    }

    /// How a strategy that searched to its end without a plausible patch ends the run:
    /// [`Error::NoUsableReply`] when every model request was degraded; else a warning about
    /// tests that failed in every candidate.
    ///
    /// # Errors
    /// [`Stop::Failed`] with [`Error::NoUsableReply`].
    pub fn conclude(&mut self) -> Result<(), Stop> {
        if self.report.patch.is_some() {
            return Ok(());
        }
        if self.usable == 0 && !self.report.degraded.is_empty() {
            let last = self.report.degraded.last().map(|d| d.reason.clone()).unwrap_or_default();
            return Err(Stop::Failed(Error::NoUsableReply { requests: self.report.degraded.len(), last }));
        }
        self.warn_persistent_failures();
        Ok(())
    }

    /// Warns when, with every test required to pass, some tests of the buggy version kept
    /// failing in every tested candidate while the candidates fixed others: they may fail
    /// for reasons of their own, and naming the bug's tests would tolerate them.
    fn warn_persistent_failures(&mut self) {
        let (Some(p), Some(kept)) = (&self.plausibility, &self.persistent) else { return };
        let known = self.report.preflight.as_ref().is_some_and(|p| p.failing_tests_known);
        if !known || p.rule != Rule::AllTestsPass || kept.is_empty() || kept.len() >= p.bug_tests.len() {
            return;
        }
        self.report.warnings.push(format!(
            "{} failed on the buggy version and in every candidate whose tests ran, while the candidates made other \
             failing tests pass: if they fail for reasons unrelated to this bug, name the bug's failing tests \
             (--failing-test) so that these may keep failing",
            kept.join(", ")
        ));
    }
}

/// A candidate at `place` whose text is `answer`, refused until validated.
fn record(place: Place, answer: &str) -> CandidateRecord {
    CandidateRecord {
        attempt: place.attempt,
        suggestion: place.suggestion,
        choice: place.choice,
        answer: answer.to_owned(),
        applied_diff: None,
        verdict: Verdict::PatchRefused,
        failing_tests: Vec::new(),
        feedback: None,
        wall_ms: 0,
        at_ms: 0,
        origin: None,
    }
}
