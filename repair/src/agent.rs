//! The ReinFix workflow (../shared/papers/reinfix.txt, §3.3 and Algorithm 1), end to end:
//!
//! 1. **Pre-flight** (before any LLM call): in a scratch copy, the buggy version must build
//!    and its tests must fail; the failure output becomes the `failureInfo` of Algorithm 1.
//! 2. **Reasoning phase**: `CauseAnalyzewithoutDonor`: one call with the buggy code and the
//!    failure asks for `ROOT CAUSE: ...` or `ROOT CAUSE: NONE`. On `NONE` (or no parsable
//!    answer), a ReAct loop offers the nine internal-ingredient tools ([`crate::tools`]) until
//!    the model states a root cause, for at most [`AgentConfig::react_steps`] turns.
//! 3. **Solution phase**: the external-ingredient tool ([`crate::retrieve`]) is queried with
//!    `buggy code ⊕ root cause` (eq. 2); the model gives up to [`AgentConfig::suggestions`]
//!    repair suggestions, and for each, [`AgentConfig::patches`] candidate patches are sampled
//!    (`n` choices of one request); up to [`AgentConfig::attempts`] attempts, each told why the
//!    previous candidates failed. ReinFix's space is 3 attempts × 3 suggestions × 5 patches.
//! 4. **Validation**: every distinct candidate is applied ([`crate::patch`], context matching,
//!    all or nothing) to a fresh scratch copy and tested ([`crate::validate`]); the run stops
//!    at the first plausible patch unless [`AgentConfig::collect_all`]. When no candidate of a
//!    suggestion applies, the refusal reason goes back to the model once for a corrected patch.
//!    Plausible means every test passes, or, when the bug's failing tests are named and the
//!    pre-flight could read the buggy version's failing tests, that the named tests pass and
//!    no test that passed before fails ([`crate::baseline`]); [`RepairReport::plausibility`]
//!    records the rule and the failing tests it tolerates.
//!
//! # Unusable replies cost their request, not the run
//! A reply that stays unusable (tool calls still malformed after the re-asks,
//! [`LlmError::ReaskLimit`]; a response that is not a chat completion,
//! [`LlmError::MalformedResponse`]; an empty list of suggestions) is recorded in
//! [`RepairReport::degraded`] and the workflow goes on as if that request had given nothing:
//! no direct root cause leads to the ReAct loop; a ReAct turn that fails ends the loop like
//! running out of turns (the root cause is `undetermined`, [`RepairReport::root_cause_note`]
//! says why); a failed suggestion request skips its attempt; a failed patch or correction
//! request skips its suggestion. Only when no reply of the whole run was usable does it end
//! as [`Outcome::Error`]. Transport errors, budgets and the wall clock still end the run.
//!
//! A reply cut off at the token limit is used for its complete part and never re-asked
//! (the ReAct loop: [`ToolProtocol`] and `agent/react.rs`; complete suggestion lines; patch edits up to the last
//! closed one, [`complete_patch_text`]). Every request is kept within the model's context
//! window ([`AgentConfig::context_tokens`], [`crate::llm::context`]); one the server still
//! refuses as too long is shrunk and sent once more, then degraded like an unusable reply.
//!
//! Budgets (LLM calls, tokens, wall time) are checked before every call and every
//! validation. Every exit path (plausible patch, search space exhausted, budget, timeout,
//! pre-flight failure, error) returns a [`RepairReport`]; [`Workflow::run`] never fails.
//!
//! Prompts are in this module as constants and functions, so a replay recording
//! ([`crate::llm::ReplayClient`]) breaks exactly when a prompt changes.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::baseline::{Plausibility, Rule};
use crate::llm::context::{self, ContextBudget, Estimator};
use crate::llm::text::complete_part;
use crate::llm::{
    Budget, ChatClient, ChatRequest, ClientInfo, Ledger, LedgerTotals, LlmError, Message, PriceTable, ServerInfo,
    complete_n,
};

mod react;

use crate::patch::Patch;
use crate::retrieve::{Retrieval, RetrieveParams, Retriever, SimilarFix};
use crate::scratch::{Scratch, ScratchFilter};
use crate::tools::Toolbox;
use crate::validate::{Validation, Validator, Verdict};
pub use react::{NUDGE_PROMPT, SWITCH_AFTER_MISSES, TEXT_CALL_REMINDER, ToolProtocol, text_tools_prompt};

/// The system prompt of every conversation.
pub const SYSTEM_PROMPT: &str = "You are an expert software engineer fixing a bug in a project. \
Be precise and brief. Quote code exactly as it appears in the file.";

/// Where the bug is: perfect fault localization from the user, or an SBFL ranking's top.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Location {
    /// A method or function by name (the first definition in the file).
    Method(String),
    /// An inclusive 1-based line range.
    Lines(usize, usize),
}

/// The bug under repair.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Bug {
    /// Corpus id of this bug, if it has one (kept out of retrieval results).
    pub id: Option<String>,
    /// Project root (read only: patches go to scratch copies).
    pub root: PathBuf,
    /// Buggy file, relative to the root.
    pub file: PathBuf,
    /// Fault location in that file.
    pub location: Location,
    /// Tests the user says fail on the buggy version (substrings of the failing test names
    /// parsed from the output, e.g. `GCD_TEST#test_1` or `test_gcd.py::test_gcd`); the
    /// pre-flight refuses the run when one of them does not fail. Empty: any failure counts.
    /// When given, other tests failing on the buggy version may keep failing in a plausible
    /// patch ([`crate::baseline`]).
    #[serde(default)]
    pub failing_tests: Vec<String>,
}

/// Knobs of the workflow. Defaults follow ReinFix §4.5 (temperature 1; 3 × 3 × 5).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AgentConfig {
    /// Model name sent to the endpoint.
    pub model: String,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Sampling seed, for endpoints that honour it.
    pub seed: Option<u64>,
    /// Completion length limit per call, tokens.
    pub max_tokens: Option<u32>,
    /// The model's context window (prompt plus reply), tokens: the history of every
    /// request is kept within it less `max_tokens` ([`crate::llm::context`]).
    #[serde(default = "default_context_tokens")]
    pub context_tokens: u64,
    /// Most ReAct turns in the reasoning phase.
    pub react_steps: usize,
    /// Repair attempts.
    pub attempts: usize,
    /// Repair suggestions per attempt.
    pub suggestions: usize,
    /// Candidate patches per suggestion (the `n` of one request).
    pub patches: usize,
    /// Keep validating after the first plausible patch.
    pub collect_all: bool,
    /// Retrieval parameters (space, top `n`, threshold).
    #[serde(skip)]
    pub retrieval: RetrieveParams,
    /// Character budget of one tool result and of the similar-fixes block.
    pub tool_output_chars: usize,
    /// Re-asks after malformed tool calls, per turn.
    pub max_reasks: u32,
    /// LLM call and token limits.
    pub budget: Budget,
    /// Wall-clock limit of the whole run.
    pub wall: Option<Duration>,
}

/// The context window assumed when none is given: 8,192 tokens.
pub const DEFAULT_CONTEXT_TOKENS: u64 = 8_192;

fn default_context_tokens() -> u64 {
    DEFAULT_CONTEXT_TOKENS
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            model: String::new(),
            temperature: Some(1.0),
            seed: None,
            max_tokens: Some(2048),
            context_tokens: DEFAULT_CONTEXT_TOKENS,
            react_steps: 8,
            attempts: 3,
            suggestions: 3,
            patches: 5,
            collect_all: false,
            retrieval: RetrieveParams::default(),
            tool_output_chars: 4000,
            max_reasks: 2,
            budget: Budget { max_calls: Some(60), max_tokens: None },
            wall: Some(Duration::from_secs(1800)),
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// At least one plausible patch.
    Plausible,
    /// The whole search space was tried without a plausible patch.
    NoPlausiblePatch,
    /// The call or token budget ran out.
    BudgetExhausted,
    /// The wall-clock limit ran out.
    Timeout,
    /// The buggy version does not build, or its tests pass: nothing to repair.
    PreflightFailed,
    /// An error of the machinery or the endpoint (see [`RepairReport::error`]).
    Error,
}

/// One internal- or external-ingredient tool call.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ToolCallRecord {
    /// ReAct turn (1-based).
    pub step: usize,
    /// Tool name.
    pub name: String,
    /// Arguments as the model gave them.
    pub arguments: Value,
    /// Characters of the result sent back.
    pub output_chars: usize,
    /// The first 300 characters of the result.
    pub output_excerpt: String,
    /// Whether the tool answered with an error message.
    pub error: bool,
}

/// One candidate patch and its verdict.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CandidateRecord {
    /// Attempt (1-based).
    pub attempt: usize,
    /// Suggestion within the attempt (1-based).
    pub suggestion: usize,
    /// Choice index within the suggestion's request (0-based); re-asked patches continue it.
    pub choice: usize,
    /// The model's answer text holding the patch.
    pub answer: String,
    /// The applied change as a unified diff, when it applied.
    pub applied_diff: Option<String>,
    /// `plausible`, `test_failure`, `compile_error`, `timeout`, `patch_refused`,
    /// `duplicate` (same change as an earlier candidate: not run again).
    pub verdict: String,
    /// Failing tests after the patch.
    pub failing_tests: Vec<String>,
    /// Why the patch was refused, or the test feedback.
    pub feedback: Option<String>,
    /// Validation wall time, milliseconds.
    pub wall_ms: u64,
}

/// Summary of the pre-flight validation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Preflight {
    /// Verdict of the buggy version.
    pub verdict: Verdict,
    /// Failing tests of the buggy version.
    pub failing_tests: Vec<String>,
    /// Whether `failing_tests` is the complete list (the runner's summary agrees with it;
    /// see [`Validation::failing_tests_known`]).
    #[serde(default)]
    pub failing_tests_known: bool,
    /// Wall time, milliseconds.
    pub wall_ms: u64,
}

/// A model request whose reply was unusable; the run went on without it (module docs,
/// "Unusable replies cost their request, not the run").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Degraded {
    /// The request: `root_cause` (the direct question), `react`, `suggestions`, `patches`
    /// or `correction`.
    pub phase: &'static str,
    /// ReAct turn (1-based), for `react`.
    pub turn: Option<usize>,
    /// Attempt (1-based), in the solution phase.
    pub attempt: Option<usize>,
    /// Suggestion within the attempt (1-based), for `patches` and `correction`.
    pub suggestion: Option<usize>,
    /// What was wrong with the reply.
    pub reason: String,
}

impl Degraded {
    fn at(phase: &'static str, attempt: Option<usize>, suggestion: Option<usize>) -> Degraded {
        Degraded { phase, turn: None, attempt, suggestion, reason: String::new() }
    }
}

/// The JSON report of one repair run (`fixdex repair --report`).
#[derive(Debug, Clone, Serialize)]
pub struct RepairReport {
    /// fixdex version.
    pub fixdex_version: String,
    /// The bug.
    pub bug: Bug,
    /// The LLM client (kind, endpoint, model, synthetic).
    pub client: ClientInfo,
    /// True when the answers were hand-written (scripted or synthetic replay): never count
    /// such a run as a repair result.
    pub synthetic: bool,
    /// Workflow configuration, sampling parameters included.
    pub config: AgentConfig,
    /// Retrieval settings: space, top n, threshold; `null` without an index.
    pub retrieval: Option<Value>,
    /// How the run ended.
    pub outcome: Outcome,
    /// Error message for `error`, `budget_exhausted`, `timeout` and `preflight_failed`.
    pub error: Option<String>,
    /// Pre-flight result.
    pub preflight: Option<Preflight>,
    /// The buggy code given to the model (lines `start..=end`).
    pub buggy_lines: Option<(usize, usize)>,
    /// Inferred root cause.
    pub root_cause: Option<String>,
    /// `without_donor` (first call) or `react` (after tool use) or `undetermined`.
    pub root_cause_source: Option<String>,
    /// Why the root cause is `undetermined`: the ReAct turns ran out, or a turn's reply
    /// stayed unusable.
    pub root_cause_note: Option<String>,
    /// Internal-ingredient tool calls of the reasoning phase.
    pub tool_calls: Vec<ToolCallRecord>,
    /// External ingredients: the similar fixes given to the model.
    pub retrieved: Vec<SimilarFix>,
    /// Retrieval hits dropped as exact copies of the buggy code (leakage control).
    pub retrieved_dropped_exact: usize,
    /// Repair suggestions, per attempt.
    pub suggestions: Vec<Vec<String>>,
    /// Every candidate with its verdict, in order.
    pub candidates: Vec<CandidateRecord>,
    /// How candidates were judged plausible (the rule, the bug's tests, the failing tests
    /// of the buggy version that may keep failing); `null` when the pre-flight did not get
    /// that far.
    pub plausibility: Option<Plausibility>,
    /// Requests whose reply was unusable and that the run went on without.
    pub degraded: Vec<Degraded>,
    /// The tool-calling protocol of the ReAct loop (`native`, `text`, `native→text` with
    /// the call count and the reason); `null` when the loop did not run.
    pub tool_protocol: Option<ToolProtocol>,
    /// How the conversation was kept within the context window.
    pub context: ContextRecord,
    /// Things the user should know (`fixdex repair` prints them to stderr): tolerated
    /// failing tests nobody named, skipped requests, tests that failed in every candidate.
    pub warnings: Vec<String>,
    /// The first plausible patch, as a unified diff.
    pub patch: Option<String>,
    /// LLM totals: calls, tokens, cost, retries.
    pub llm: LedgerTotals,
    /// Per-call records.
    pub calls: Vec<crate::llm::CallRecord>,
    /// Wall time of the run, seconds.
    pub wall_s: f64,
    /// How the fault was localized, when not by the user (e.g. the SBFL ranking); set by
    /// the caller.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault_localization: Option<Value>,
    /// Which server answered (issue 9): the endpoint (never the API key), the model
    /// requested and the model the server reported; for a replay, the recorded server;
    /// `null` for scripted answers.
    pub server: Option<ServerInfo>,
}

/// How the requests of a run were kept within the model's context window
/// ([`crate::llm::context::fit`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ContextRecord {
    /// The window, tokens ([`AgentConfig::context_tokens`]).
    pub context_tokens: u64,
    /// Old exchanges (an assistant turn and its tool results) dropped from requests.
    pub dropped_exchanges: usize,
    /// Messages whose text was cut (head and tail kept around `[... N chars cut ...]`).
    pub cut_messages: usize,
    /// Requests the server refused as too long (`context_length_exceeded`) and that were
    /// shrunk and sent once more.
    pub overflow_retries: usize,
    /// Replies cut off at the token limit (`finish_reason: "length"`) of which only the
    /// complete part was used.
    pub cut_off_replies: usize,
}

/// One choice of a reply: its text and whether it was cut off at the token limit.
#[derive(Debug, Clone)]
struct Reply {
    text: String,
    cut_off: bool,
}

/// A workflow over a client, the internal tools, an optional retriever and a validator.
pub struct Workflow<'a> {
    client: &'a dyn ChatClient,
    retriever: Option<Retriever>,
    validator: Validator,
    config: AgentConfig,
    prices: PriceTable,
    skip: ScratchFilter,
}

impl std::fmt::Debug for Workflow<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workflow")
            .field("client", &self.client.describe())
            .field("retriever", &self.retriever)
            .field("validator", &self.validator)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// Why the run stopped early (internal).
enum Stop {
    Budget(String),
    Timeout(String),
    Error(String),
    /// The model's reply to one request is unusable: the caller degrades (module docs).
    Unusable(String),
    /// The server refused a request with tools (an HTTP 4xx naming `tool`): the ReAct
    /// loop switches to the text protocol; elsewhere an error.
    ToolsRefused(String),
}

impl From<LlmError> for Stop {
    fn from(e: LlmError) -> Self {
        match e {
            LlmError::BudgetExceeded { .. } => Stop::Budget(e.to_string()),
            LlmError::Deadline { .. } => Stop::Timeout(e.to_string()),
            LlmError::ReaskLimit { .. } | LlmError::MalformedResponse { .. } => Stop::Unusable(e.to_string()),
            LlmError::Http { status, ref body, .. } if refuses_tools(status, body) => Stop::ToolsRefused(e.to_string()),
            other => Stop::Error(other.to_string()),
        }
    }
}

/// An HTTP 4xx (other than 401, 403, 404, 429) whose body names `tool`: `tools` or
/// `tool_choice` are not supported.
fn refuses_tools(status: u16, body: &str) -> bool {
    (400..500).contains(&status) && ![401, 403, 404, 429].contains(&status) && body.to_lowercase().contains("tool")
}

/// Mutable state of one run.
struct Run<'b> {
    bug: &'b Bug,
    toolbox: Toolbox,
    ledger: Ledger,
    start: Instant,
    report: RepairReport,
    code: String,
    numbered: String,
    failure: String,
    lang: &'static str,
    /// The rule candidates are judged by, once the pre-flight has run.
    plausibility: Option<Plausibility>,
    /// Model replies that were usable.
    usable: usize,
    /// The buggy version's failing tests that also failed in every candidate whose complete
    /// failing list is known; `None` before the first such candidate.
    persistent: Option<Vec<String>>,
    /// Prompt-token estimates, calibrated by the server's reported usage.
    estimator: Estimator,
}

impl<'a> Workflow<'a> {
    /// A workflow; `retriever` = `None` runs without external ingredients (the ReinFix
    /// ablation "w/o external").
    pub fn new(
        client: &'a dyn ChatClient,
        retriever: Option<Retriever>,
        validator: Validator,
        config: AgentConfig,
    ) -> Workflow<'a> {
        Workflow {
            client,
            retriever,
            validator,
            config,
            prices: PriceTable::default(),
            skip: std::sync::Arc::new(|_, _| false),
        }
    }

    /// Leave these entries out of the scratch copies (e.g. build outputs, other languages);
    /// [`crate::scratch::SKIP_DIRS`] are always left out.
    pub fn with_scratch_filter(mut self, skip: ScratchFilter) -> Self {
        self.skip = skip;
        self
    }

    /// Prices (USD per 1M tokens) for the cost accounting.
    pub fn with_prices(mut self, prices: PriceTable) -> Self {
        self.prices = prices;
        self
    }

    /// Runs the whole workflow on `bug`. Never fails: errors end up in the report.
    pub fn run(&self, bug: &Bug) -> RepairReport {
        let start = Instant::now();
        let client = self.client.describe();
        let report = RepairReport {
            fixdex_version: env!("CARGO_PKG_VERSION").to_string(),
            bug: bug.clone(),
            synthetic: client.synthetic,
            client,
            config: self.config.clone(),
            retrieval: self.retriever.as_ref().map(|r| {
                serde_json::json!({"space": self.config.retrieval.space.name(), "k": self.config.retrieval.k,
                    "threshold": self.config.retrieval.threshold, "exclusion": r.exclusion(),
                    "excluded_projects": r.excluded_projects()})
            }),
            outcome: Outcome::Error,
            error: None,
            preflight: None,
            buggy_lines: None,
            root_cause: None,
            root_cause_source: None,
            root_cause_note: None,
            tool_calls: Vec::new(),
            retrieved: Vec::new(),
            retrieved_dropped_exact: 0,
            suggestions: Vec::new(),
            candidates: Vec::new(),
            plausibility: None,
            degraded: Vec::new(),
            tool_protocol: None,
            context: ContextRecord { context_tokens: self.config.context_tokens, ..ContextRecord::default() },
            warnings: Vec::new(),
            patch: None,
            llm: LedgerTotals::default(),
            calls: Vec::new(),
            wall_s: 0.0,
            fault_localization: None,
            server: None,
        };
        let lang = match bug.file.extension().and_then(|e| e.to_str()) {
            Some("java") => "java",
            Some("py") => "python",
            _ => "",
        };
        let mut run = Run {
            bug,
            toolbox: Toolbox::new(&bug.root),
            ledger: Ledger::new(self.config.budget, self.prices.clone())
                .with_deadline(self.config.wall.map(|wall| start + wall)),
            start,
            report,
            code: String::new(),
            numbered: String::new(),
            failure: String::new(),
            lang,
            plausibility: None,
            usable: 0,
            persistent: None,
            estimator: Estimator::default(),
        };
        let outcome = self.drive(&mut run);
        let (outcome, error) = match outcome {
            Ok(o) => (o, None),
            Err(Stop::Budget(e)) => (Outcome::BudgetExhausted, Some(e)),
            Err(Stop::Timeout(e)) => (Outcome::Timeout, Some(e)),
            Err(Stop::Error(e) | Stop::Unusable(e) | Stop::ToolsRefused(e)) => (Outcome::Error, Some(e)),
        };
        let mut report = run.report;
        report.outcome = if report.patch.is_some() { Outcome::Plausible } else { outcome };
        report.error = error.or(report.error);
        report.warnings.extend(run.ledger.choices_warning());
        report.server = self
            .client
            .server()
            .map(|s| ServerInfo { served_model: run.ledger.served_model.clone().or(s.served_model), ..s });
        report.llm = run.ledger.totals();
        report.calls = run.ledger.calls;
        report.wall_s = start.elapsed().as_secs_f64();
        report
    }

    fn drive(&self, run: &mut Run<'_>) -> Result<Outcome, Stop> {
        // 1. Pre-flight, before any LLM call.
        if let Some(refused) = self.preflight(run)? {
            return Ok(refused);
        }

        // 2. Reasoning phase.
        let cause = self.reason(run)?;
        run.report.root_cause = Some(cause.clone());

        // 3. Solution phase: external ingredients.
        let mut similar = String::new();
        if let Some(r) = &self.retriever {
            let got: Retrieval =
                r.search(&run.code, &cause, &self.config.retrieval).map_err(|e| Stop::Error(e.to_string()))?;
            similar = render_fixes(&got, self.config.tool_output_chars);
            run.report.retrieved = got.fixes;
            run.report.retrieved_dropped_exact = got.dropped_exact;
        }

        let mut seen: HashSet<String> = HashSet::new();
        let mut failures: Vec<String> = Vec::new();
        for attempt in 1..=self.config.attempts.max(1) {
            let Some(suggestions) = self.suggest(run, attempt, &cause, &similar, &failures)? else {
                run.report.suggestions.push(Vec::new());
                continue;
            };
            run.report.suggestions.push(suggestions.clone());
            for (si, suggestion) in suggestions.iter().enumerate() {
                let at = (attempt, si + 1);
                if self.try_suggestion(run, at, &cause, suggestion, &mut seen, &mut failures)? {
                    return Ok(Outcome::Plausible);
                }
            }
        }
        if run.report.patch.is_some() {
            return Ok(Outcome::Plausible);
        }
        if run.usable == 0 && !run.report.degraded.is_empty() {
            let last = run.report.degraded.last().map(|d| d.reason.clone()).unwrap_or_default();
            return Err(Stop::Error(format!(
                "no reply of the model was usable ({} requests); the last: {last}",
                run.report.degraded.len()
            )));
        }
        self.warn_persistent_failures(run);
        Ok(Outcome::NoPlausiblePatch)
    }

    /// Locates the buggy code and validates the buggy version: `Some(outcome)` when there is
    /// nothing to repair (it builds not, or its tests pass, or a named test does not fail).
    fn preflight(&self, run: &mut Run<'_>) -> Result<Option<Outcome>, Stop> {
        let (start_line, end_line, code) = locate(run.bug).map_err(Stop::Error)?;
        run.report.buggy_lines = Some((start_line, end_line));
        run.numbered = code.lines().enumerate().map(|(i, l)| format!("{}: {l}\n", start_line + i)).collect::<String>();
        run.code = code;
        let Ok((_, pre)) = self.validate(run.bug, None).map_err(Stop::Error)? else {
            return Err(Stop::Error("pre-flight: no patch was given, yet one was refused".into()));
        };
        let known = pre.failing_tests_known();
        run.report.preflight = Some(Preflight {
            verdict: pre.verdict,
            failing_tests: pre.failing_tests.clone(),
            failing_tests_known: known,
            wall_ms: pre.wall_ms,
        });
        match pre.verdict {
            Verdict::Plausible => {
                run.report.error = Some("the tests pass on the buggy version: nothing to repair".into());
                return Ok(Some(Outcome::PreflightFailed));
            }
            Verdict::CompileError => {
                run.report.error = Some(format!("the buggy version does not build:\n{}", pre.feedback(2000)));
                return Ok(Some(Outcome::PreflightFailed));
            }
            Verdict::TestFailure | Verdict::Timeout | Verdict::PatchRefused | Verdict::Duplicate => {}
        }
        let named = &run.bug.failing_tests;
        // Named tests are checked against the names read from the output; when none could
        // be read (an unknown runner), they cannot be checked, and the user is told.
        let readable = pre.verdict != Verdict::Timeout && (known || !pre.failing_tests.is_empty());
        let missing: Vec<&String> =
            named.iter().filter(|t| readable && !pre.failing_tests.iter().any(|f| f.contains(t.as_str()))).collect();
        if !missing.is_empty() {
            run.report.error = Some(format!(
                "the buggy version does not fail {missing:?} (its failing tests: {:?})",
                pre.failing_tests
            ));
            return Ok(Some(Outcome::PreflightFailed));
        }
        if !named.is_empty() && !readable {
            run.report.warnings.push(format!(
                "the failing tests named ({}) could not be checked: no failing test name could be read from the \
                 output of the buggy version's tests; a candidate must pass every test",
                named.join(", ")
            ));
        }
        let plausibility = Plausibility::from_preflight(named, &pre);
        if !plausibility.preexisting_failures.is_empty() {
            run.report.warnings.push(format!(
                "{} test(s) fail on the buggy version but are not among the named failing tests: {}; they are \
                 taken as failing before the bug and may keep failing in a plausible patch",
                plausibility.preexisting_failures.len(),
                plausibility.preexisting_failures.join(", ")
            ));
        }
        run.report.plausibility = Some(plausibility.clone());
        run.plausibility = Some(plausibility);
        run.failure = pre.feedback(3000);
        Ok(None)
    }

    /// Samples the candidates of one suggestion (and one corrected patch when none applied)
    /// and validates them; `true` when the run should stop at a plausible patch.
    fn try_suggestion(
        &self,
        run: &mut Run<'_>,
        (attempt, suggestion_no): (usize, usize),
        cause: &str,
        suggestion: &str,
        seen: &mut HashSet<String>,
        failures: &mut Vec<String>,
    ) -> Result<bool, Stop> {
        let mut req =
            self.request(vec![Message::system(SYSTEM_PROMPT), Message::user(patch_prompt(run, cause, suggestion))]);
        req.n = Some(u32::try_from(self.config.patches.max(1)).unwrap_or(1));
        let at = Degraded::at("patches", Some(attempt), Some(suggestion_no));
        let Some(replies) = self.sample_or_degrade(run, req.clone(), &at)? else { return Ok(false) };
        let answers = replies;
        let mut applied_any = false;
        let mut first_refusal = None;
        for (ci, answer) in answers.iter().enumerate() {
            let rec = self.candidate(run, attempt, suggestion_no, ci, answer, seen)?;
            applied_any |= rec.verdict != "patch_refused";
            if rec.verdict == "patch_refused" && first_refusal.is_none() {
                first_refusal = rec.feedback.clone();
            }
            if rec.verdict != "plausible" && rec.verdict != "duplicate" && rec.verdict != "patch_refused" {
                failures.push(format!(
                    "Patch:\n{}\nResult: {}\n",
                    rec.applied_diff.clone().unwrap_or_default(),
                    rec.feedback.clone().unwrap_or_default()
                ));
            }
            if self.push_candidate(run, rec) {
                return Ok(true);
            }
        }
        // No candidate applied: tell the model why, once, and take one corrected patch.
        if !applied_any && let Some(reason) = first_refusal {
            let mut req = req;
            req.n = None;
            if let Some(first) = answers.first() {
                req.messages.push(Message::assistant(first.text.clone()));
            }
            req.messages.push(Message::user(format!(
                "Your patch could not be applied: {reason}\nSend a corrected patch that quotes the current \
                 code exactly."
            )));
            let at = Degraded::at("correction", Some(attempt), Some(suggestion_no));
            let again = self.sample_or_degrade(run, req, &at)?.unwrap_or_default();
            if let Some(answer) = again.first() {
                let rec = self.candidate(run, attempt, suggestion_no, answers.len(), answer, seen)?;
                return Ok(self.push_candidate(run, rec));
            }
        }
        Ok(false)
    }

    /// Records a candidate; `true` when it is plausible and the run stops at the first.
    fn push_candidate(&self, run: &mut Run<'_>, rec: CandidateRecord) -> bool {
        let plausible = rec.verdict == "plausible";
        run.report.candidates.push(rec);
        plausible && !self.config.collect_all
    }

    /// Warns when, with every test required to pass, some tests of the buggy version kept
    /// failing in every tested candidate while the candidates fixed others: they may fail
    /// for reasons of their own, and naming the bug's tests would tolerate them.
    fn warn_persistent_failures(&self, run: &mut Run<'_>) {
        let (Some(p), Some(kept)) = (&run.plausibility, &run.persistent) else { return };
        let known = run.report.preflight.as_ref().is_some_and(|p| p.failing_tests_known);
        if !known || p.rule != Rule::AllTestsPass || kept.is_empty() || kept.len() >= p.bug_tests.len() {
            return;
        }
        run.report.warnings.push(format!(
            "{} failed on the buggy version and in every candidate whose tests ran, while the candidates made other \
             failing tests pass: if they fail for reasons unrelated to this bug, name the bug's failing tests \
             (--failing-test) so that these may keep failing",
            kept.join(", ")
        ));
    }

    /// Records an unusable reply: the request is skipped, the run goes on.
    fn degrade(&self, run: &mut Run<'_>, degraded: Degraded) {
        let place = match (degraded.turn, degraded.attempt, degraded.suggestion) {
            (Some(t), _, _) => format!(" (turn {t})"),
            (None, Some(a), Some(s)) => format!(" (attempt {a}, suggestion {s})"),
            (None, Some(a), None) => format!(" (attempt {a})"),
            _ => String::new(),
        };
        run.report.warnings.push(format!(
            "the model's reply to the {} request{place} was unusable, so the run went on without it: {}",
            degraded.phase, degraded.reason
        ));
        run.report.degraded.push(degraded);
    }

    /// [`Self::sample`], except that an unusable reply is recorded as `at` and gives `None`.
    fn sample_or_degrade(
        &self,
        run: &mut Run<'_>,
        req: ChatRequest,
        at: &Degraded,
    ) -> Result<Option<Vec<Reply>>, Stop> {
        match self.sample(run, req) {
            Ok(texts) => {
                run.usable += 1;
                Ok(Some(texts))
            }
            Err(Stop::Unusable(reason)) => {
                self.degrade(run, Degraded { reason, ..at.clone() });
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    fn request(&self, messages: Vec<Message>) -> ChatRequest {
        let mut req = ChatRequest::new(self.config.model.clone(), messages);
        req.temperature = self.config.temperature;
        req.seed = self.config.seed;
        req.max_tokens = self.config.max_tokens;
        req
    }

    fn check_time(&self, run: &Run<'_>) -> Result<(), Stop> {
        match self.config.wall {
            Some(limit) if run.start.elapsed() >= limit => {
                Err(Stop::Timeout(format!("wall-clock limit of {} s reached", limit.as_secs())))
            }
            _ => Ok(()),
        }
    }

    /// One call without tools, kept within the context window ([`Self::send`]); every
    /// choice's text and whether it was cut off.
    fn sample(&self, run: &mut Run<'_>, mut req: ChatRequest) -> Result<Vec<Reply>, Stop> {
        self.check_time(run)?;
        let client = self.client;
        // `complete_n` checks the budget, records each call and makes up the choices a server
        // that ignores `n` left out (issue 9, fault 4).
        let resp = self.send(run, &mut req, 2, |r, ledger| complete_n(client, r, ledger))?;
        let replies: Vec<Reply> = resp
            .choices
            .into_iter()
            .map(|c| Reply {
                text: c.message.text().to_string(),
                cut_off: c.finish_reason.as_deref() == Some("length"),
            })
            .collect();
        run.report.context.cut_off_replies += replies.iter().filter(|r| r.cut_off).count();
        Ok(replies)
    }

    /// Sends `req` through `call` after fitting its history into the context window
    /// (messages before `pinned` are never dropped) and lowering `max_tokens` to what fits
    /// beside the prompt. When the server still refuses it as too long, the prompt is
    /// shrunk harder (the token estimate's ratio lowered by a quarter) and sent once more;
    /// a second refusal makes the reply unusable ([`Stop::Unusable`]: the caller degrades).
    fn send<T>(
        &self,
        run: &mut Run<'_>,
        req: &mut ChatRequest,
        pinned: usize,
        mut call: impl FnMut(&ChatRequest, &mut Ledger) -> crate::llm::Result<T>,
    ) -> Result<T, Stop> {
        let budget = self.context_budget();
        self.fit(run, req, pinned, budget.prompt_tokens());
        let mut retried = false;
        loop {
            let calls_before = run.ledger.calls.len();
            match call(req, &mut run.ledger) {
                Ok(value) => {
                    if run.ledger.calls.len() == calls_before + 1
                        && let Some(c) = run.ledger.calls.last().filter(|c| c.usage_reported)
                    {
                        let prompt_tokens = c.prompt_tokens;
                        run.estimator.observe(req, prompt_tokens);
                    }
                    return Ok(value);
                }
                Err(LlmError::ContextLengthExceeded { message }) if !retried => {
                    retried = true;
                    run.report.context.overflow_retries += 1;
                    let before = run.estimator.tokens(req);
                    run.estimator.chars_per_token = (run.estimator.chars_per_token * 0.75).max(1.0);
                    tracing::info!(message = %message, "the request overflowed the context window; shrinking it once");
                    self.fit(run, req, pinned, before.min(budget.prompt_tokens()));
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
    fn fit(&self, run: &mut Run<'_>, req: &mut ChatRequest, pinned: usize, max_prompt_tokens: u64) {
        let done = context::fit(req, pinned, max_prompt_tokens, &run.estimator);
        run.report.context.dropped_exchanges += done.dropped_exchanges;
        run.report.context.cut_messages += done.cut_messages;
        if req.max_tokens.is_some() {
            let limit = self.context_budget().reply_limit(done.tokens);
            req.max_tokens = Some(u32::try_from(limit).unwrap_or(u32::MAX));
        }
    }

    /// `giveRepairSuggestions`: up to `suggestions` suggestions for this attempt; `None` when
    /// the reply is unusable or empty (recorded as degraded: the attempt is skipped).
    fn suggest(
        &self,
        run: &mut Run<'_>,
        attempt: usize,
        cause: &str,
        similar: &str,
        failures: &[String],
    ) -> Result<Option<Vec<String>>, Stop> {
        let req = self.request(vec![
            Message::system(SYSTEM_PROMPT),
            Message::user(suggest_prompt(run, cause, similar, failures, self.config.suggestions)),
        ]);
        let at = Degraded::at("suggestions", Some(attempt), None);
        let Some(replies) = self.sample_or_degrade(run, req, &at)? else { return Ok(None) };
        let reply = replies.into_iter().next().unwrap_or(Reply { text: String::new(), cut_off: false });
        // A cut-off reply counts for its complete lines only.
        let text = if reply.cut_off { complete_part(&reply.text) } else { &reply.text };
        if text.trim().is_empty() {
            let reason = if reply.cut_off {
                "the reply was cut off at the token limit before a complete suggestion"
            } else {
                "the reply was empty"
            };
            self.degrade(run, Degraded { reason: reason.into(), ..at });
            return Ok(None);
        }
        let mut out = parse_suggestions(text);
        out.truncate(self.config.suggestions.max(1));
        if out.is_empty() {
            out.push(text.trim().to_string());
        }
        Ok(Some(out))
    }

    /// Parse, apply and validate one candidate answer.
    fn candidate(
        &self,
        run: &mut Run<'_>,
        attempt: usize,
        suggestion: usize,
        choice: usize,
        reply: &Reply,
        seen: &mut HashSet<String>,
    ) -> Result<CandidateRecord, Stop> {
        // A cut-off answer counts for its complete edits only.
        let answer = if reply.cut_off { complete_patch_text(&reply.text) } else { &reply.text };
        self.check_time(run)?;
        let mut rec = CandidateRecord {
            attempt,
            suggestion,
            choice,
            answer: reply.text.clone(),
            applied_diff: None,
            verdict: String::new(),
            failing_tests: Vec::new(),
            feedback: None,
            wall_ms: 0,
        };
        if reply.cut_off && answer.trim().is_empty() {
            rec.verdict = "patch_refused".into();
            rec.feedback = Some(CUT_OFF_PATCH.into());
            return Ok(rec);
        }
        let patch = match Patch::parse(answer, Some(&run.bug.file)) {
            Ok(p) => p,
            Err(e) => {
                rec.verdict = "patch_refused".into();
                rec.feedback = Some(e.feedback());
                return Ok(rec);
            }
        };
        match self.validate(run.bug, Some(&patch)).map_err(Stop::Error)? {
            Err(reason) => {
                rec.verdict = "patch_refused".into();
                rec.feedback = Some(reason);
            }
            Ok((diff, _)) if !seen.insert(diff.clone()) => {
                rec.verdict = "duplicate".into();
                rec.applied_diff = Some(diff);
            }
            Ok((diff, v)) => {
                let plausible = run.plausibility.as_ref().map_or(v.plausible(), |p| p.judge(&v));
                rec.verdict = if plausible { "plausible" } else { verdict_name(v.verdict) }.into();
                rec.failing_tests = v.failing_tests.clone();
                rec.wall_ms = v.wall_ms;
                if !plausible && v.verdict == Verdict::TestFailure && v.failing_tests_known() {
                    let before =
                        run.persistent.take().or_else(|| run.plausibility.as_ref().map(|p| p.bug_tests.clone()));
                    run.persistent =
                        Some(before.unwrap_or_default().into_iter().filter(|t| v.failing_tests.contains(t)).collect());
                }
                if plausible {
                    run.report.patch.get_or_insert_with(|| diff.clone());
                } else {
                    rec.feedback = Some(v.feedback(1500));
                }
                rec.applied_diff = Some(diff);
            }
        }
        Ok(rec)
    }

    /// Validates the project in a fresh scratch copy, after `patch` if given. `Ok(Err)` is a
    /// refused patch with its reason; with a patch, the applied diff comes with the result.
    #[allow(clippy::type_complexity)]
    fn validate(&self, bug: &Bug, patch: Option<&Patch>) -> Result<Result<(String, Validation), String>, String> {
        let skip = std::sync::Arc::clone(&self.skip);
        let scratch = Scratch::copy(&bug.root, move |p, d| skip(p, d)).map_err(|e| e.to_string())?;
        let mut diff = String::new();
        if let Some(p) = patch {
            match p.apply(scratch.root()) {
                Ok(applied) => diff = applied.diff,
                Err(e) => return Ok(Err(e.feedback())),
            }
        }
        let v = self.validator.validate(scratch.root()).map_err(|e| e.to_string())?;
        Ok(Ok((diff, v)))
    }
}

fn verdict_name(v: Verdict) -> &'static str {
    v.as_str()
}

/// The buggy code: `(first line, last line, text)` of the located method or line range.
fn locate(bug: &Bug) -> Result<(usize, usize, String), String> {
    let path = bug.root.join(&bug.file);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let lines: Vec<&str> = text.lines().collect();
    let (a, b) = match &bug.location {
        Location::Lines(a, b) => (*a, *b),
        Location::Method(name) => {
            let tb = Toolbox::new(&bug.root);
            let args = serde_json::json!({"file": bug.file.to_string_lossy(), "method": name});
            let out = tb.call("find_method_in_file", &args).map_err(|e| e.to_string())?;
            // Header: `path:start-end Name`.
            let header = out.lines().next().unwrap_or_default();
            let span = header.split_whitespace().next().and_then(|p| p.rsplit(':').next()).unwrap_or_default();
            let (a, b) = span.split_once('-').ok_or_else(|| format!("cannot read the span of {name}: {header}"))?;
            (a.parse().map_err(|_| format!("bad span {span}"))?, b.parse().map_err(|_| format!("bad span {span}"))?)
        }
    };
    if a == 0 || b < a || b > lines.len() {
        return Err(format!("line range {a}-{b} is outside {} ({} lines)", bug.file.display(), lines.len()));
    }
    Ok((a, b, lines[a - 1..b].join("\n") + "\n"))
}

/// The ReAct instruction after an inconclusive first answer.
pub const REACT_PROMPT: &str = "Use the tools to collect the internal repair ingredients you need: variable \
definitions and data flow, the methods and classes the code uses, imports. When you know the root cause, answer \
with one line `ROOT CAUSE: <one or two sentences>` and no tool call.";

/// The question of the direct root-cause request, after the code and the failure.
pub const CAUSE_QUESTION: &str = "What is the root cause of this bug? If you are confident, answer with one line \
`ROOT CAUSE: <one or two sentences>`. If you need more context from the project first, answer `ROOT CAUSE: NONE`.";

fn cause_prompt(run: &Run<'_>) -> String {
    format!(
        "Buggy {lang} code from `{file}`:\n```{lang}\n{code}```\nThe failing tests report:\n```\n{failure}\n```\n\
         {CAUSE_QUESTION}",
        lang = run.lang,
        file = run.bug.file.display(),
        code = run.numbered,
        failure = run.failure.trim_end(),
    )
}

fn suggest_prompt(run: &Run<'_>, cause: &str, similar: &str, failures: &[String], n: usize) -> String {
    let mut s = format!(
        "Buggy {lang} code from `{file}`:\n```{lang}\n{code}```\nRoot cause: {cause}\n",
        lang = run.lang,
        file = run.bug.file.display(),
        code = run.numbered,
    );
    if !similar.is_empty() {
        s.push_str("\nSimilar historical bug fixes (external repair ingredients):\n");
        s.push_str(similar);
    }
    if !failures.is_empty() {
        s.push_str("\nThese patches were tried and failed:\n");
        for f in failures.iter().rev().take(3) {
            s.push_str(f);
        }
    }
    s.push_str(&format!(
        "\nGive up to {n} distinct repair suggestions, each starting on its own line with `SUGGESTION <k>:` and \
         saying in one short paragraph what to change and why."
    ));
    s
}

fn patch_prompt(run: &Run<'_>, cause: &str, suggestion: &str) -> String {
    format!(
        "Buggy {lang} code from `{file}`:\n```{lang}\n{code}```\nRoot cause: {cause}\nRepair suggestion: \
         {suggestion}\n\nWrite the fix as a unified diff against `{file}` (or as SEARCH/REPLACE blocks). Quote \
         the code exactly, without the line numbers, and change only what the fix needs.",
        lang = run.lang,
        file = run.bug.file.display(),
        code = run.numbered,
    )
}

/// Similar fixes for a prompt, scores with 2 decimals (replays stay stable under tiny
/// floating-point differences between machines).
fn render_fixes(r: &Retrieval, max_chars: usize) -> String {
    let mut out = String::new();
    for f in &r.fixes {
        let cause = if f.root_cause.trim().is_empty() { "(none recorded)" } else { f.root_cause.trim() };
        let block =
            format!("### Fix {} (similarity {:.2})\nRoot cause: {cause}\n```diff\n{}```\n", f.rank, f.score, f.diff);
        if out.len() + block.len() > max_chars {
            break;
        }
        out.push_str(&block);
    }
    out
}

/// The root cause in an answer: the text after the last `ROOT CAUSE:` marker (case-insensitive,
/// markdown emphasis ignored), up to the end of its paragraph; `None` for no marker, for a
/// cause that says there is none, and for one that echoes the prompt.
///
/// "None" is judged on the cause normalised by [`normalize_cause`] (markdown backticks,
/// asterisks, underscores, quotes and angle brackets, trailing punctuation and case
/// removed): `none`, `unknown`, `n/a`, `na`, `null`, `undetermined`, `unclear`, `not sure`,
/// `no root cause`, `none yet`, `i don't know` and empty causes are none. The cause **echoes
/// the prompt** ([`echoes_prompt`]) when its normalised text occurs in the normalised
/// instructions fixdex wrote ([`CAUSE_QUESTION`], [`REACT_PROMPT`], [`NUDGE_PROMPT`],
/// [`TEXT_CALL_REMINDER`]; e.g. `<one or two sentences>`, `<root cause>`), or when it has
/// at least three words other than `a`, `an`, `the`, `of`, `is`, `in`, `to`, `and`, `or`
/// and at least 80% of those occur in the instructions; the same holds for its first line
/// alone (a copied instruction followed by other text), and a cause that contains one of
/// the instructions' `<...>` placeholders echoes it too.
pub fn parse_root_cause(text: &str) -> Option<String> {
    let clean = text.replace("**", "");
    let upper = clean.to_uppercase();
    let at = upper.rfind("ROOT CAUSE:")?;
    let rest = clean.get(at + "ROOT CAUSE:".len()..)?.trim_start();
    let para = rest.split("\n\n").next().unwrap_or(rest).trim();
    let norm = normalize_cause(para);
    const NONE: [&str; 13] = [
        "",
        "none",
        "unknown",
        "n/a",
        "na",
        "null",
        "undetermined",
        "unclear",
        "not sure",
        "no root cause",
        "none yet",
        "i don't know",
        "i do not know",
    ];
    let first_line = normalize_cause(para.lines().next().unwrap_or(""));
    // `NONE, but ...` / `Unknown - ...`: a none word, then punctuation, then anything.
    let leading_none = ["none", "unknown", "n/a", "undetermined"].iter().any(|word| {
        norm.strip_prefix(word)
            .and_then(|rest| rest.trim_start().chars().next())
            .is_some_and(|next| !next.is_alphanumeric())
    });
    if leading_none {
        return None;
    }
    if NONE.contains(&norm.as_str()) || echoes_prompt(&norm) || echoes_prompt(&first_line) || has_placeholder(para) {
        return None;
    }
    Some(para.to_string())
}

/// Whether `cause` contains one of the `<...>` placeholders of fixdex's instructions (e.g.
/// `<one or two sentences>`), as a model that copies the answer format does.
fn has_placeholder(cause: &str) -> bool {
    [CAUSE_QUESTION, REACT_PROMPT, NUDGE_PROMPT, TEXT_CALL_REMINDER].iter().any(|prompt| {
        prompt.match_indices('<').any(|(at, _)| {
            prompt[at..].find('>').is_some_and(|end| end > 1 && end < 40 && cause.contains(&prompt[at..=at + end]))
        })
    })
}

/// `cause` lower-cased, without markdown and quote characters (`` ` * _ " ' < > [ ] ``
/// except an apostrophe inside a word), with its whitespace collapsed and trailing
/// punctuation (`. , ; : ! ?`) removed.
pub fn normalize_cause(cause: &str) -> String {
    let lower = cause.to_lowercase();
    let chars: Vec<char> = lower.chars().collect();
    let kept = chars.iter().enumerate().filter(|&(i, &c)| {
        let inside_word = c == '\''
            && i > 0
            && chars[i - 1].is_alphanumeric()
            && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric());
        inside_word || !matches!(c, '`' | '*' | '_' | '"' | '\'' | '<' | '>' | '[' | ']')
    });
    let text: String = kept.map(|(_, &c)| c).collect();
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    words.trim_end_matches(['.', ',', ';', ':', '!', '?']).trim().to_owned()
}

/// Whether a normalised cause merely repeats fixdex's own instructions (rule in
/// [`parse_root_cause`]).
pub fn echoes_prompt(normalized: &str) -> bool {
    const STOP: [&str; 9] = ["a", "an", "the", "of", "is", "in", "to", "and", "or"];
    let instructions = [CAUSE_QUESTION, REACT_PROMPT, NUDGE_PROMPT, TEXT_CALL_REMINDER].map(normalize_cause).join(" ");
    if normalized.is_empty() || instructions.contains(normalized) {
        return true;
    }
    let known: HashSet<&str> =
        instructions.split(|c: char| !c.is_alphanumeric() && c != '\'').filter(|w| !w.is_empty()).collect();
    let words: Vec<&str> = normalized
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty() && !STOP.contains(w))
        .collect();
    words.len() >= 3 && words.iter().filter(|w| known.contains(*w)).count() * 5 >= words.len() * 4
}

/// Why a cut-off patch answer without a complete edit is refused.
pub const CUT_OFF_PATCH: &str = "your answer was cut off at the token limit before its first edit was complete \
(a SEARCH/REPLACE block ends with `>>>>>>> REPLACE`, a diff with its closing ``` fence). Send a shorter answer: \
only the edit, without explanations.";

/// The complete part of a patch answer cut off at the token limit: the text up to the last
/// line that closes an edit: a `>>>>>>> REPLACE` marker or a ``` fence that closes a block
/// (every second fence line). `""` when no edit was closed: a hunk or block cut midway
/// could delete code it meant to replace.
pub fn complete_patch_text(answer: &str) -> &str {
    let (mut end, mut in_fence, mut at) = (0, false, 0);
    for line in answer.split_inclusive('\n') {
        at += line.len();
        let t = line.trim();
        if t.starts_with("```") {
            if in_fence {
                end = at;
            }
            in_fence = !in_fence;
        } else if t.starts_with(">>>>>>>") && t.ends_with("REPLACE") {
            end = at;
        }
    }
    &answer[..end]
}

/// Suggestions in an answer: the paragraphs after `SUGGESTION <k>:` markers, in order.
pub fn parse_suggestions(text: &str) -> Vec<String> {
    let clean = text.replace("**", "");
    let upper = clean.to_uppercase();
    let mut starts = Vec::new();
    let mut from = 0;
    while let Some(i) = upper[from..].find("SUGGESTION ") {
        let at = from + i;
        let tail = &upper[at + "SUGGESTION ".len()..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && tail[digits..].starts_with(':') {
            starts.push((at, at + "SUGGESTION ".len() + digits + 1));
        }
        from = at + 1;
    }
    let mut out = Vec::new();
    for (i, &(_, body)) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(clean.len(), |&(s, _)| s);
        let s = clean[body..end].trim();
        if !s.is_empty() {
            out.push(s.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_cause_parsing() {
        assert_eq!(parse_root_cause("ROOT CAUSE: NONE"), None);
        assert_eq!(parse_root_cause("root cause: none."), None);
        assert_eq!(
            parse_root_cause("I think...\n**ROOT CAUSE:** off by one in the loop bound.\n\nMore"),
            Some("off by one in the loop bound.".into())
        );
        assert_eq!(parse_root_cause("no marker"), None);
    }

    /// Issue 9, fault 7: an echoed "none" in markdown, and an echo of the prompt's own
    /// placeholder or instructions, are not root causes; real causes still are.
    #[test]
    fn issue_9_echoed_none_and_prompt_echoes_are_not_causes() {
        for echo in [
            "ROOT CAUSE: NONE`",
            "ROOT CAUSE: `NONE`.",
            "ROOT CAUSE: *None*",
            "ROOT CAUSE: \"n/a\"",
            "ROOT CAUSE: Unknown.",
            "ROOT CAUSE: <one or two sentences>",
            "ROOT CAUSE: <root cause>",
            "ROOT CAUSE: ...",
            "ROOT CAUSE: If you need more context from the project first",
            "ROOT CAUSE: call a tool to learn more",
            // Gemma 3 270M under llama-cpp-python (gemma chat format), issue 9 smoke run.
            "ROOT CAUSE: <one or two sentences>` and no tool call.=\"#\">\n=== test_gcd.py\n15 : gcd.py:5: in gcd\n    return gcd(a % b, b)",
            "ROOT CAUSE: one or two sentences and no tool call\nreturn gcd(a % b, b)",
            "ROOT CAUSE: NONE`, but not if this is a bug that needs to be fixed immediately.",
            "ROOT CAUSE: Unknown - more context is needed",
        ] {
            assert_eq!(parse_root_cause(echo), None, "{echo}");
        }
        assert_eq!(
            parse_root_cause("ROOT CAUSE: `range(1, n)` stops before n."),
            Some("`range(1, n)` stops before n.".into())
        );
        assert_eq!(
            parse_root_cause("ROOT CAUSE: the code uses the wrong variable name in the loop"),
            Some("the code uses the wrong variable name in the loop".into())
        );
        // A cause that starts with a none word used as a word stays a cause.
        assert_eq!(
            parse_root_cause("ROOT CAUSE: none of the loop bounds include n"),
            Some("none of the loop bounds include n".into())
        );
        assert_eq!(normalize_cause(" **`NONE`**. "), "none");
        assert_eq!(normalize_cause("It doesn't stop"), "it doesn't stop");
    }

    /// Issue 9, fault 1 (patch phase): a cut-off patch answer keeps its complete edits only.
    #[test]
    fn issue_9_cut_off_patch_keeps_complete_edits() {
        let answer = "```diff\n-a\n+b\n```\nAlso:\n<<<<<<< SEARCH\nc\n=======\n";
        assert_eq!(complete_patch_text(answer), "```diff\n-a\n+b\n```\n");
        let sr = "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```diff\n-x\n";
        assert_eq!(complete_patch_text(sr), "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n");
        assert_eq!(complete_patch_text("```diff\n--- a/x\n+++ b/x\n-    for"), "");
    }

    #[test]
    fn suggestion_parsing() {
        let t = "Here:\nSUGGESTION 1: use <=.\nSUGGESTION 2: start at 0\nand add n.\n**Suggestion 3:** rewrite";
        assert_eq!(parse_suggestions(t), ["use <=.", "start at 0\nand add n.", "rewrite"]);
        assert!(parse_suggestions("nothing").is_empty());
    }
}
