//! The report of a repair run ([`RepairReport`], `fixdex repair --report`), one format for
//! every strategy, and the records it holds.

use std::any::Any;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::llm::{ClientInfo, LedgerTotals, ServerInfo};
use crate::retrieve::SimilarFix;
use crate::run::bug::Bug;
use crate::run::config::ConfigRecord;
use crate::validate::Verdict;
use crate::validate::baseline::Plausibility;

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
    /// No patch was sought: the strategy only collected what it was asked for (TraceRepair's
    /// `--trace-only`: the probes and the trace are in [`RepairReport::details`]).
    TraceOnly,
}

impl Outcome {
    /// Whether the run went through to its end (a plausible patch, the search space
    /// exhausted, or no patch sought) rather than being cut short by a budget, the clock or
    /// an error; a replay that was cut short leaves recordings unused by design.
    #[must_use]
    pub fn went_through(self) -> bool {
        matches!(self, Outcome::Plausible | Outcome::NoPlausiblePatch | Outcome::TraceOnly)
    }

    /// The serde name: `plausible`, `no_plausible_patch`, `budget_exhausted`, `timeout`,
    /// `preflight_failed`, `error`, `trace_only`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Plausible => "plausible",
            Outcome::NoPlausiblePatch => "no_plausible_patch",
            Outcome::BudgetExhausted => "budget_exhausted",
            Outcome::Timeout => "timeout",
            Outcome::PreflightFailed => "preflight_failed",
            Outcome::Error => "error",
            Outcome::TraceOnly => "trace_only",
        }
    }
}

/// How the ReAct loop called tools ([`RepairReport::tool_protocol`]; ReinFix's ReAct loop fills it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolProtocol {
    /// `native` (tools on the wire, `tool` messages), `text` (tools described in the system
    /// prompt, calls written as text, results as `user` messages) or `native→text` (switched).
    pub protocol: &'static str,
    /// The LLM call count (all phases) when the loop switched to text; `null` when it did not.
    pub switched_after_call: Option<u64>,
    /// Why it switched.
    pub reason: Option<String>,
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
    pub verdict: Verdict,
    /// Failing tests after the patch.
    pub failing_tests: Vec<String>,
    /// Why the patch was refused, or the test feedback.
    pub feedback: Option<String>,
    /// Validation wall time, milliseconds.
    pub wall_ms: u64,
    /// When the candidate's verdict was known, milliseconds since the run started (what
    /// "time to the first plausible patch" is measured by).
    #[serde(default)]
    pub at_ms: u64,
    /// What made the candidate, where the strategy names it: `patterns` writes the template's
    /// JSON name, the edit and its line (`INSERT_MISSED_JUMP: … (line 302)`), and for a
    /// transplant the similar fix it comes from (`… from manysstubs4j:12`); absent for a
    /// model's answer (its place says which request) and in reports of earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

/// Summary of the pre-flight validation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Preflight {
    /// Verdict of the buggy version.
    pub verdict: Verdict,
    /// Failing tests of the buggy version.
    pub failing_tests: Vec<String>,
    /// Whether `failing_tests` is the complete list (the runner's summary agrees with it;
    /// see [`crate::validate::Validation::failing_tests_known`]).
    #[serde(default)]
    pub failing_tests_known: bool,
    /// Wall time, milliseconds.
    pub wall_ms: u64,
    /// The limit per build or test command of every candidate validation, milliseconds:
    /// the validator's own limit adapted to this pre-flight's wall time
    /// ([`crate::validate::Validator::adapted`]).
    #[serde(default)]
    pub candidate_timeout_ms: u64,
    /// Whether the candidates ran the fail-fast test command
    /// ([`crate::validate::Validator::fail_fast`]; the strategy reads only verdicts and the
    /// buggy version has no pre-existing failures).
    #[serde(default)]
    pub fail_fast: bool,
    /// The test command every candidate runs, as a shell line (the fail-fast one when
    /// `fail_fast`): where the harnesses' own limits show, pytest's per-test `--timeout=`
    /// (QuixBugs Python) and the Defects4J runner's `--first-phase-limit-ms`. Absent in
    /// reports of earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate_test_command: Option<String>,
}

/// A model request whose reply was unusable; the run went on without it
/// ([`crate::run::session`], "Unusable replies cost their request, not the run").
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
    /// A degraded request of `phase` at this place, its reason still empty.
    #[must_use]
    pub fn at(phase: &'static str, attempt: Option<usize>, suggestion: Option<usize>) -> Degraded {
        Degraded { phase, turn: None, attempt, suggestion, reason: String::new() }
    }
}

/// The JSON report of one repair run (`fixdex repair --report`).
#[derive(Debug, Clone, Serialize)]
pub struct RepairReport {
    /// fixdex version.
    pub fixdex_version: String,
    /// The repair strategy that ran (`--strategy`, [`crate::strategies`]).
    pub strategy: String,
    /// The bug.
    pub bug: Bug,
    /// The LLM client (kind, endpoint, model, synthetic).
    pub client: ClientInfo,
    /// True when the answers were hand-written (scripted or synthetic replay): never count
    /// such a run as a repair result.
    pub synthetic: bool,
    /// Workflow configuration, sampling parameters and the strategy's search space included.
    pub config: ConfigRecord,
    /// What retrieval searched (space, top n, threshold, ef) and kept out; `null` without
    /// an index.
    pub retrieval: Option<RetrievalSettings>,
    /// How the run ended.
    pub outcome: Outcome,
    /// Error message for `error`, `budget_exhausted`, `timeout` and `preflight_failed`.
    pub error: Option<String>,
    /// Pre-flight result.
    pub preflight: Option<Preflight>,
    /// The buggy code given to the model (lines `start..=end`).
    pub buggy_lines: Option<(usize, usize)>,
    /// Inferred root cause (strategies that state one).
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
    /// The strategy's own section (its phases, rounds or levels), in the shape its docs
    /// give; absent when it has none. The fields above are shared: a strategy fills those
    /// that apply (ReinFix: all of them).
    #[serde(skip_serializing_if = "Details::is_empty")]
    pub details: Details,
}

/// The report's `retrieval` block: what the run's searches of similar fixes asked for
/// (set by whoever searches, through
/// [`Session::search_similar`](crate::run::session::Session::search_similar)) and what the
/// retriever keeps out. Before any search it holds the run's configured settings
/// ([`crate::run::config::RunConfig::retrieval`]) with [`RetrievalSettings::searches`] 0.
/// The fields of reports written before `ef` and `searches` existed are unchanged; those
/// two read as `null` and 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetrievalSettings {
    /// Vector space of the last search (`code+cause`, `code`, `cause`).
    pub space: String,
    /// Fixes asked for (top n) by the last search.
    pub k: usize,
    /// Minimum cosine similarity in [-1, 1] of the last search; `null`: none.
    pub threshold: Option<f32>,
    /// HNSW beam width of the last search when it asked the graph; `null` for exact (brute
    /// force) search, before any search, and when the search failed.
    #[serde(default)]
    pub ef: Option<usize>,
    /// Searches run (each counted when asked, also one that failed); 0: nothing was
    /// searched and the fields above are the configured settings.
    #[serde(default)]
    pub searches: usize,
    /// Ids and projects never retrieved.
    pub exclusion: crate::retrieve::Exclusion,
    /// What each excluded project matched in the index.
    pub excluded_projects: Vec<engine::ProjectMatch>,
}

impl RetrievalSettings {
    /// The block before any search: `configured` (the run's settings), and `retriever`'s
    /// exclusion with what its projects match (O(projects in the index)).
    #[must_use]
    pub fn configured(configured: &crate::retrieve::RetrieveParams, retriever: &crate::retrieve::Retriever) -> Self {
        RetrievalSettings {
            space: configured.space.name().to_string(),
            k: configured.k,
            threshold: configured.threshold,
            ef: None,
            searches: 0,
            exclusion: retriever.exclusion().clone(),
            excluded_projects: retriever.excluded_projects(),
        }
    }

    /// Records one search made with `p`, whose answer is `found` (`None`: it failed).
    pub fn record(&mut self, p: &crate::retrieve::RetrieveParams, found: Option<&crate::retrieve::Retrieval>) {
        self.space = p.space.name().to_string();
        self.k = p.k;
        self.threshold = p.threshold;
        self.ef = found.and_then(|f| f.ef);
        self.searches += 1;
    }
}

/// How the requests of a run were kept within the model's context window
/// ([`crate::llm::context::fit`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ContextRecord {
    /// The window, tokens ([`crate::run::config::RunConfig::context_tokens`]).
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

/// A strategy's own section of the report ([`RepairReport::details`]): the strategy's typed
/// record, read back as that type ([`Details::get`]) by the strategy's summaries, and its
/// JSON (made once, when the section is set), which the report serializes, indexes
/// (`details["ended"]`) and prints.
#[derive(Clone, Default)]
pub struct Details {
    typed: Option<Arc<dyn Any + Send + Sync>>,
    json: Value,
}

impl Details {
    /// The section `record`, serialized now.
    #[must_use]
    pub fn new<T: Serialize + Send + Sync + 'static>(record: T) -> Details {
        let json = serde_json::to_value(&record).unwrap_or_default();
        Details { typed: Some(Arc::new(record)), json }
    }

    /// The record, when it is a `T` (the strategy that wrote it reads it back); `None` for
    /// another type or no section.
    #[must_use]
    pub fn get<T: 'static>(&self) -> Option<&T> {
        self.typed.as_deref()?.downcast_ref()
    }

    /// The record as the report's JSON gives it (`null` when there is none).
    #[must_use]
    pub fn json(&self) -> &Value {
        &self.json
    }

    /// Whether no strategy set a section.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.typed.is_none()
    }
}

impl std::ops::Index<&str> for Details {
    type Output = Value;

    fn index(&self, key: &str) -> &Value {
        &self.json[key]
    }
}

impl std::fmt::Debug for Details {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.json, f)
    }
}

impl std::fmt::Display for Details {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.json, f)
    }
}

impl Serialize for Details {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.json.serialize(s)
    }
}
