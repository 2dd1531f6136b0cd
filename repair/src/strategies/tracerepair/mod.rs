//! TraceRepair (`--strategy tracerepair`; ../shared/papers/tracerepair.txt, Algorithm 1):
//! runtime probes, a three-strategy debate and a judge.
//!
//! 1. **Probe** (Phase 1, [`probe`], [`trace`]). With `--probe model` (the default) one call
//!    asks the probe agent for the critical variables and lines (`PROBE L<line>: <var>, ...`,
//!    [`prompts::parse_probe_requests`]); fixdex injects logging before and after those lines
//!    and at every branch of the method ([`probe::named_sites`], tree-sitter). When the model
//!    names no usable probe, the `--probe auto` sites are used and the report says so.
//!    `--probe auto` needs no model: every assignment and `if` arm of the localized method
//!    ([`probe::auto_sites`]). The instrumented copy is built and the failing tests run
//!    through the session's validation in a scratch copy; a copy that does not compile has
//!    the probes the compiler named rolled back (at most [`trace::MAX_ATTEMPTS`] copies);
//!    when none compiles the run goes on without a trace (the static fallback). Output past
//!    10 MB is cut by the probes themselves; prompts keep the last 20 KB.
//! 2. **Debate** (Phase 2). Three agents ([`prompts::AGENTS`]: defensive, causal,
//!    semantic; distinct system prompts) each sample [`TraceRepair::samples`] candidates in one
//!    request (`n`), validated in the sandbox; each keeps its best as its hypothesis
//!    ([`rank`]: plausible > test failure with fewer failing tests > timeout > compile error >
//!    refused). The run stops at the first plausible candidate. Otherwise up to
//!    [`TraceRepair::rounds`] rounds: every ordered pair (attacker, defender) of distinct
//!    agents makes one critique call (eq. 1); a critique must cite the trace
//!    ([`prompts::cites_trace`]) or it is recorded and dropped (with no trace, none is
//!    required); then each defender updates its patch with the critiques it got (eq. 2), and
//!    the update is validated.
//! 3. **Judge** (Phase 3), only when the rounds found nothing plausible: one call sees every
//!    proposal, critique and the trace and synthesises one patch, which is validated;
//!    otherwise the best hypothesis of the whole debate is the report's (non-plausible)
//!    `fallback`.
//!
//! Retrieval: with an `--index`, each agent's stated root cause (the `ROOT CAUSE:` line of
//! its hypothesis) is the query of `search_similar_fixes` (the buggy code ⊕ that cause, the
//! same exclusions as ReinFix), and the hits go into that agent's update prompts.
//!
//! Calls: 1 probe call (model mode) + 3 proposals + per round 6 critiques and 3 updates +
//! 1 judge = 32 with the defaults, within the paper's budget of 40 (the CLI's default
//! `--max-calls` for this strategy). A budget or wall clock that runs out mid-debate ends
//! the run with the report as far as it got ([`Details`] is written after every step).
//!
//! # Report
//! Shared fields: `root_cause` (the best hypothesis's), `retrieved`, `candidates` (attempt =
//! 1 for the proposals, 1 + r for round r, `rounds + 2` for the judge; suggestion = the
//! agent, 1-3, or 4 for the judge; choice within the request). `details` is [`Details`].

pub mod probe;
pub mod prompts;
pub mod trace;

use serde::Serialize;

use self::probe::{ProbeRequest, Site};
use self::prompts::{AGENTS, Agent};
use self::trace::Collected;
use super::EvalTotals;
use crate::llm::Message;
use crate::patch::complete_patch_text;
use crate::retrieve::{FixStyle, render_as};
use crate::run::bug::Problem;
use crate::run::report::{CandidateRecord, Degraded, RepairReport};
use crate::run::session::{Place, Reply, Session, Stop};
use crate::validate::Verdict;
use crate::validate::condense::shorten;

/// How the probe sites are chosen (`--probe`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ProbeMode {
    /// The probe agent names the variables and lines (one model call).
    #[default]
    Model,
    /// Every assignment and `if` arm of the localized method; no model.
    Auto,
}

impl std::str::FromStr for ProbeMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "model" => Ok(ProbeMode::Model),
            "auto" => Ok(ProbeMode::Auto),
            other => Err(format!("unknown probe mode {other:?} (known: model, auto)")),
        }
    }
}

/// The TraceRepair strategy (module docs).
#[derive(Debug, Clone, Copy)]
pub struct TraceRepair {
    /// How probe sites are chosen.
    pub probe: ProbeMode,
    /// Candidates each agent samples for its first hypothesis (the paper's N; default 3).
    pub samples: usize,
    /// Debate rounds at most (the paper's R_max; default 3).
    pub rounds: usize,
    /// Stop after Phase 1 (probe reliability measurements): the report holds the probes
    /// and the trace, no patch is sought.
    pub trace_only: bool,
}

impl Default for TraceRepair {
    fn default() -> Self {
        TraceRepair { probe: ProbeMode::Model, samples: 3, rounds: 3, trace_only: false }
    }
}

/// LLM calls per bug by default (the paper's budget).
pub const DEFAULT_MAX_CALLS: u64 = 40;

/// Characters of a validation result shown to an agent.
const RESULT_CHARS: usize = 1500;

/// The report's `details` for TraceRepair.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Details {
    /// Phase 1.
    pub probe: ProbeRecord,
    /// The hypotheses after the proposals (round 0) and after each debate round.
    pub rounds: Vec<RoundRecord>,
    /// The judge's patch, when Phase 3 ran.
    pub judge: Option<HypothesisRecord>,
    /// The best hypothesis of the debate when nothing was plausible (not a plausible patch).
    pub fallback: Option<HypothesisRecord>,
    /// Each agent's retrieval of similar fixes.
    pub searches: Vec<SearchRecord>,
    /// How the run ended: `trace_only`, `proposals` (a first hypothesis was plausible),
    /// `round_<r>`, `judge`, `fallback`, or `running` when a budget or the clock cut it.
    pub ended: String,
}

/// What Phase 1 did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ProbeRecord {
    /// `model` or `auto`.
    pub mode: Option<ProbeMode>,
    /// What the probe agent asked for (model mode).
    pub requests: Vec<ProbeRequest>,
    /// Requests refused, with reasons.
    pub refused: Vec<String>,
    /// Places `--probe auto` could not probe.
    pub skipped_sites: usize,
    /// Why the sites are not what the mode says (e.g. the model named no usable probe).
    pub note: Option<String>,
    /// The sites instrumented first.
    pub sites: Vec<Site>,
    /// Trace collection: requested / injected / rolled back, attempts, the trace.
    pub collected: Option<Collected>,
    /// Bytes of trace the prompts show ([`prompt_trace_bytes`]).
    pub prompt_trace_bytes: usize,
}

/// Bytes of trace a prompt shows for a model with a window of `context_tokens`: the last
/// [`probe::KEPT_TRACE_BYTES`] (20 KB, the seed paper's budget), or one byte per token of
/// the window when that is less (an 8,192-token window shows 8 KB, about a third of it), so
/// that the trace's end is not cut out of the prompt by the context fitting.
#[must_use]
pub fn prompt_trace_bytes(context_tokens: u64) -> usize {
    usize::try_from(context_tokens).unwrap_or(usize::MAX).min(probe::KEPT_TRACE_BYTES)
}

/// The hypotheses of one round (0: the first proposals).
#[derive(Debug, Clone, Default, Serialize)]
pub struct RoundRecord {
    /// 0 for the proposals, then 1..=rounds.
    pub round: usize,
    /// The critiques of this round (none in round 0).
    pub critiques: Vec<CritiqueRecord>,
    /// One per agent, in agent order.
    pub hypotheses: Vec<HypothesisRecord>,
}

/// One critique (attacker → defender).
#[derive(Debug, Clone, Serialize)]
pub struct CritiqueRecord {
    /// The attacking agent.
    pub from: Agent,
    /// The defending agent.
    pub to: Agent,
    /// The critique, `None` when the attacker found the patch consistent with the trace (or
    /// the reply was unusable).
    pub text: Option<String>,
    /// Whether it cites the trace; a critique that does not is not passed on.
    pub cites_trace: bool,
}

/// A hypothesis (an agent's current patch) and its validation.
#[derive(Debug, Clone, Serialize)]
pub struct HypothesisRecord {
    /// The agent (`None` for the judge).
    pub agent: Option<Agent>,
    /// The root cause it states.
    pub root_cause: Option<String>,
    /// Its verdict.
    pub verdict: Verdict,
    /// Failing tests after it.
    pub failing_tests: Vec<String>,
    /// The applied diff, when it applied.
    pub diff: Option<String>,
    /// Index of its record in the report's `candidates`.
    pub candidate: Option<usize>,
}

/// One agent's `search_similar_fixes` call.
#[derive(Debug, Clone, Serialize)]
pub struct SearchRecord {
    /// The agent.
    pub agent: Agent,
    /// The root cause it stated (the query with the buggy code).
    pub query: String,
    /// Ids of the fixes returned.
    pub hits: Vec<String>,
}

/// One bug's probes and trace in an evaluation (`fixdex eval quixbugs --strategy
/// tracerepair`), from the report's [`Details`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProbeSummary {
    /// Probe sites requested.
    pub requested: usize,
    /// Probe sites in the copy that ran.
    pub injected: usize,
    /// Probe sites rolled back after compile errors.
    pub rolled_back: usize,
    /// Instrumented copies built.
    pub attempts: usize,
    /// Whether an instrumented copy compiled and ran with at least one probe.
    pub instrumented: bool,
    /// Probe lines the failing tests printed (in the captured tail of the output).
    pub trace_lines: usize,
    /// Bytes of the trace kept for prompts.
    pub kept_bytes: usize,
    /// Bytes the instrumented test run wrote in all.
    pub output_bytes: u64,
    /// Whether the 10 MB guard stopped the probes.
    pub guard_hit: bool,
}

impl ProbeSummary {
    /// The summary of a TraceRepair report's section; `None` for other sections and for a
    /// run that collected no trace.
    #[must_use]
    pub fn of(details: &crate::run::report::Details) -> Option<ProbeSummary> {
        let c = details.get::<Details>()?.probe.collected.as_ref()?;
        Some(ProbeSummary {
            requested: c.requested,
            injected: c.injected,
            rolled_back: c.rolled_back,
            attempts: c.attempts,
            instrumented: !c.static_fallback && c.injected > 0,
            trace_lines: c.trace.lines,
            kept_bytes: c.trace.text.len(),
            output_bytes: c.output_bytes,
            guard_hit: c.trace.guard_hit,
        })
    }

    /// `fixdex repair`'s stderr line on the probes.
    #[must_use]
    pub fn line(&self) -> String {
        format!(
            "trace: {} probe lines ({} of {} probes injected, {} rolled back{})",
            self.trace_lines,
            self.injected,
            self.requested,
            self.rolled_back,
            if self.instrumented { "" } else { "; static fallback: no trace" }
        )
    }
}

/// TraceRepair's probe reliability over an evaluation of `bugs` programs (`None` when no
/// report has a [`ProbeSummary`]): programs, instrumented (a copy with probes compiled and
/// ran), its rate, non-empty traces, programs with a rollback, programs whose trace hit
/// the 10 MB guard; and the table's line.
#[must_use]
pub fn probe_totals(bugs: usize, reports: &[&RepairReport]) -> Option<EvalTotals> {
    let p: Vec<ProbeSummary> = reports.iter().filter_map(|r| ProbeSummary::of(&r.details)).collect();
    if p.is_empty() {
        return None;
    }
    let instrumented = p.iter().filter(|s| s.instrumented).count();
    let nonempty = p.iter().filter(|s| s.trace_lines > 0).count();
    let rolled_back = p.iter().filter(|s| s.rolled_back > 0).count();
    let totals = serde_json::json!({
        "programs": bugs, "instrumented": instrumented,
        "instrumentation_rate": instrumented as f64 / bugs.max(1) as f64,
        "nonempty_traces": nonempty, "rolled_back": rolled_back,
        "guard_hit": p.iter().filter(|s| s.guard_hit).count(),
    });
    let line = format!(
        "probes: {instrumented} of {bugs} programs instrumented, {nonempty} non-empty traces, {rolled_back} with a \
         rollback"
    );
    Some(EvalTotals { key: "probes", totals, line })
}

/// An agent's current hypothesis.
#[derive(Debug, Clone)]
struct Hypothesis {
    agent: Option<Agent>,
    /// The answer that holds the patch.
    answer: String,
    rec: Option<CandidateRecord>,
    candidate: Option<usize>,
    root_cause: Option<String>,
    /// Similar fixes for its root cause, rendered for prompts.
    similar: String,
}

impl Hypothesis {
    fn verdict(&self) -> Verdict {
        self.rec.as_ref().map_or(Verdict::PatchRefused, |r| r.verdict)
    }

    /// Its [`rank`] (larger is better).
    fn rank(&self) -> (u8, std::cmp::Reverse<usize>) {
        rank(self.verdict(), self.rec.as_ref().map_or(0, |r| r.failing_tests.len()))
    }

    /// The patch as shown to other agents: the applied diff, else the answer.
    fn patch(&self) -> &str {
        self.rec.as_ref().and_then(|r| r.applied_diff.as_deref()).unwrap_or(&self.answer)
    }

    /// The validation result as shown to agents.
    fn result(&self) -> String {
        match &self.rec {
            Some(r) if r.verdict == Verdict::Plausible => "plausible: every test passes".into(),
            Some(r) => format!("{}: {}", r.verdict.as_str(), r.feedback.as_deref().unwrap_or("")),
            None => "no patch".into(),
        }
    }

    fn record(&self) -> HypothesisRecord {
        HypothesisRecord {
            agent: self.agent,
            root_cause: self.root_cause.clone(),
            verdict: self.verdict(),
            failing_tests: self.rec.as_ref().map(|r| r.failing_tests.clone()).unwrap_or_default(),
            diff: self.rec.as_ref().and_then(|r| r.applied_diff.clone()),
            candidate: self.candidate,
        }
    }
}

pub use crate::validate::rank;

/// TraceRepair's options.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Strategy tracerepair")]
pub struct TraceRepairArgs {
    /// How the probes are chosen: `model` (the probe agent names the critical variables and
    /// lines) or `auto` (every assignment and `if` arm of the localized method; no model
    /// call) [default: model].
    #[arg(long, value_parser = |s: &str| s.parse::<ProbeMode>())]
    pub probe: Option<ProbeMode>,
    /// Candidates each agent samples for its first hypothesis [default: 3].
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=20))]
    pub samples: Option<usize>,
    /// Debate rounds at most before the judge [default: 3].
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=20))]
    pub rounds: Option<usize>,
    /// Stop after the probes: the report records the probes and the trace, no patch is
    /// sought (with `--probe auto`, no model is needed).
    #[arg(long)]
    pub trace_only: bool,
}

/// The registry's entry of TraceRepair ([`super::Registry::builtin`]).
#[must_use]
pub fn entry() -> Box<dyn super::Entry> {
    super::entry::<TraceRepairArgs>(
        "tracerepair",
        "runtime probes, a debate of three agents over the trace, a judge (TraceRepair, Algorithm 1)",
        |a| {
            if a.trace_only && (a.samples.is_some() || a.rounds.is_some()) {
                return Err("--samples and --rounds shape the debate, which --trace-only skips".into());
            }
            let d = TraceRepair::default();
            Ok(Box::new(TraceRepair {
                probe: a.probe.unwrap_or(d.probe),
                samples: a.samples.unwrap_or(d.samples),
                rounds: a.rounds.unwrap_or(d.rounds),
                trace_only: a.trace_only,
            }))
        },
    )
}

impl super::Strategy for TraceRepair {
    fn name(&self) -> &'static str {
        "tracerepair"
    }

    fn model_note(&self) -> Option<&'static str> {
        self.trace_only
            .then_some("--trace-only with --probe model asks the model for the probes; --probe auto needs no model")
    }

    fn report_line(&self, report: &RepairReport) -> Option<String> {
        ProbeSummary::of(&report.details).map(|p| p.line())
    }

    fn eval_bug(&self, report: &RepairReport) -> Option<(&'static str, serde_json::Value)> {
        Some(("probes", serde_json::to_value(ProbeSummary::of(&report.details)?).ok()?))
    }

    fn eval_totals(&self, bugs: usize, reports: &[&RepairReport]) -> Option<EvalTotals> {
        probe_totals(bugs, reports)
    }

    fn needs_model(&self) -> bool {
        !(self.trace_only && self.probe == ProbeMode::Auto)
    }

    fn default_max_calls(&self) -> u64 {
        DEFAULT_MAX_CALLS
    }

    fn seeks_patch(&self) -> bool {
        !self.trace_only
    }

    fn repair(&self, problem: &Problem, session: &mut Session<'_>) -> Result<(), Stop> {
        let mut run = Run { strategy: self, problem, details: Details::default(), history: Vec::new() };
        run.details.ended = "running".into();
        let result = run.go(session);
        run.save(session);
        result
    }
}

/// One TraceRepair run: the record and the hypotheses so far.
struct Run<'p> {
    strategy: &'p TraceRepair,
    problem: &'p Problem,
    details: Details,
    /// Every hypothesis of the debate (for the judge and the fallback).
    history: Vec<(usize, Hypothesis)>,
}

impl Run<'_> {
    fn save(&self, session: &mut Session<'_>) {
        session.report.details = crate::run::report::Details::new(self.details.clone());
        if let Some(best) = self.best() {
            session.report.root_cause = best.root_cause.clone().or(session.report.root_cause.take());
        }
    }

    fn best(&self) -> Option<&Hypothesis> {
        // The agents' hypotheses (the judge's patch is not one).
        self.history.iter().map(|(_, h)| h).filter(|h| h.agent.is_some()).max_by_key(|h| h.rank())
    }

    fn go(&mut self, session: &mut Session<'_>) -> Result<(), Stop> {
        let trace = self.phase_probe(session)?;
        self.save(session);
        if self.strategy.trace_only {
            self.details.ended = "trace_only".into();
            return Ok(());
        }
        // Phase 2: proposals.
        let mut hyps = Vec::new();
        for (i, agent) in AGENTS.into_iter().enumerate() {
            let h = self.propose(session, &trace, agent, i + 1)?;
            let done = h.verdict() == Verdict::Plausible;
            hyps.push(h);
            self.record_round(0, Vec::new(), &hyps);
            self.save(session);
            if done && !session.config().collect_all {
                self.details.ended = "proposals".into();
                return Ok(());
            }
        }
        self.search(session, &mut hyps)?;
        for round in 1..=self.strategy.rounds {
            let critiques = self.critiques(session, &trace, &hyps, round)?;
            for (i, agent) in AGENTS.into_iter().enumerate() {
                let mine: Vec<(String, String)> = critiques
                    .iter()
                    .filter(|c| c.to == agent && c.cites_trace)
                    .filter_map(|c| c.text.clone().map(|t| (c.from.name().to_string(), t)))
                    .collect();
                let updated = self.update(session, &trace, &hyps[i], &mine, round)?;
                hyps[i] = updated;
                self.record_round(round, critiques.clone(), &hyps);
                self.save(session);
                if hyps[i].verdict() == Verdict::Plausible && !session.config().collect_all {
                    self.details.ended = format!("round_{round}");
                    return Ok(());
                }
            }
        }
        // Phase 3.
        let judged = self.judge(session, &trace)?;
        self.details.judge = Some(judged.record());
        if judged.verdict() == Verdict::Plausible {
            self.details.ended = "judge".into();
            return Ok(());
        }
        self.details.fallback = self.best().map(Hypothesis::record);
        self.details.ended = "fallback".into();
        Ok(())
    }

    /// Phase 1: the sites, the instrumented run, and the trace block for the prompts.
    fn phase_probe(&mut self, session: &mut Session<'_>) -> Result<String, Stop> {
        let p = self.problem;
        self.details.probe.mode = Some(self.strategy.probe);
        let Some(lang) = p.language else {
            let rec = &mut self.details.probe;
            rec.note = Some("the file's language has no probes (Java and Python only): no trace".into());
            rec.collected = Some(Collected::fallback(0, 0, Vec::new()));
            session.report.warnings.push(format!(
                "{} is not Java or Python: the run went on without a runtime trace (static fallback)",
                p.bug.file.display()
            ));
            return Ok(prompts::trace_block("", false, true));
        };
        let sites = self.choose_sites(session, &p.source, lang)?;
        let collected = trace::collect_in_session(session, p, &sites)?;
        let (shown, cut) = collected.trace.tail(prompt_trace_bytes(session.config().context_tokens));
        self.details.probe.prompt_trace_bytes = shown.len();
        let block = prompts::trace_block(&shown, cut || collected.trace.truncated, collected.static_fallback);
        warn_about(session, &collected, sites.is_empty());
        self.details.probe.collected = Some(collected);
        Ok(block)
    }

    /// The probe sites: the probe agent's (model mode) or, when it names none that can be
    /// used, and in auto mode, every assignment and `if` arm of the method.
    fn choose_sites(
        &mut self,
        session: &mut Session<'_>,
        text: &str,
        lang: crate::Language,
    ) -> Result<Vec<Site>, Stop> {
        let p = self.problem;
        let rec = &mut self.details.probe;
        let mut sites = Vec::new();
        if self.strategy.probe == ProbeMode::Model {
            let req =
                session.request(vec![Message::system(prompts::SYSTEM_PROMPT), Message::user(prompts::probe_prompt(p))]);
            let reply = session.sample_or_degrade(req, &Degraded::at("probe", None, None))?;
            let answer = reply.and_then(|r| r.into_iter().next()).map(|r| r.text).unwrap_or_default();
            rec.requests = prompts::parse_probe_requests(&answer);
            if let Ok(named) = probe::named_sites(text, lang, p.lines.0, &rec.requests) {
                rec.refused = named.refused;
                sites = named.sites;
            }
            if !sites.iter().any(|s| !matches!(s.observe, probe::Observe::Branch { .. })) {
                rec.note = Some("the probe agent named no usable probe: the `--probe auto` sites were used".into());
                sites.clear();
            }
        }
        match probe::auto_sites(text, lang, p.lines.0) {
            Ok(a) => {
                rec.skipped_sites = a.skipped;
                if sites.is_empty() {
                    sites = a.sites;
                }
            }
            Err(e) => rec.note = Some(format!("no probes: {e}")),
        }
        rec.sites = sites.clone();
        Ok(sites)
    }

    fn record_round(&mut self, round: usize, critiques: Vec<CritiqueRecord>, hyps: &[Hypothesis]) {
        let r = RoundRecord { round, critiques, hypotheses: hyps.iter().map(Hypothesis::record).collect() };
        match self.details.rounds.iter_mut().find(|x| x.round == round) {
            Some(x) => *x = r,
            None => self.details.rounds.push(r),
        }
    }

    /// Validates every answer of one request at `attempt`/`slot`; the best as a hypothesis
    /// (`None` answers: a hypothesis without a patch).
    fn best_of(
        &mut self,
        session: &mut Session<'_>,
        (attempt, slot): (usize, usize),
        agent: Option<Agent>,
        answers: &[Reply],
    ) -> Result<Hypothesis, Stop> {
        let mut best: Option<Hypothesis> = None;
        for (choice, reply) in answers.iter().enumerate() {
            let answer = if reply.cut_off { complete_patch_text(&reply.text) } else { &reply.text };
            let place = Place { attempt, suggestion: slot, choice };
            let rec = session.validate_candidate(self.problem, place, reply, answer, prompts::CUT_OFF_PATCH)?;
            let index = session.report.candidates.len();
            let stop = session.push_candidate(rec.clone());
            let rec = session.as_repeated(rec);
            let h = Hypothesis {
                agent,
                answer: reply.text.clone(),
                root_cause: prompts::stated_root_cause(&reply.text),
                rec: Some(rec),
                candidate: Some(index),
                similar: String::new(),
            };
            let better = best.as_ref().is_none_or(|b| h.rank() > b.rank());
            if better {
                best = Some(h);
            }
            if stop {
                break;
            }
        }
        let h = best.unwrap_or(Hypothesis {
            agent,
            answer: String::new(),
            rec: None,
            candidate: None,
            root_cause: None,
            similar: String::new(),
        });
        self.history.push((attempt, h.clone()));
        Ok(h)
    }

    /// Generation (Algorithm 1, lines 13-16).
    fn propose(
        &mut self,
        session: &mut Session<'_>,
        trace: &str,
        agent: Agent,
        slot: usize,
    ) -> Result<Hypothesis, Stop> {
        let mut req = session.request(vec![
            Message::system(agent.system_prompt()),
            Message::user(prompts::propose_prompt(self.problem, trace)),
        ]);
        req.n = Some(u32::try_from(self.strategy.samples.max(1)).unwrap_or(1));
        let at = Degraded::at("proposals", Some(1), Some(slot));
        let answers = session.sample_or_degrade(req, &at)?.unwrap_or_default();
        self.best_of(session, (1, slot), Some(agent), &answers)
    }

    /// Each agent's `search_similar_fixes` with the root cause it stated.
    fn search(&mut self, session: &mut Session<'_>, hyps: &mut [Hypothesis]) -> Result<(), Stop> {
        let config = session.config();
        for h in hyps.iter_mut() {
            let (Some(agent), Some(cause)) = (h.agent, h.root_cause.clone()) else { continue };
            let Some(got) = session.search_similar(&self.problem.code, &cause, None, &config.retrieval) else {
                return Ok(());
            };
            let got = got.map_err(crate::Error::from)?;
            h.similar = render_as(&got, config.tool_output_chars, FixStyle::Prompt);
            self.details.searches.push(SearchRecord {
                agent,
                query: cause,
                hits: got.fixes.iter().map(|f| f.id.clone()).collect(),
            });
            session.report.retrieved_dropped_exact += got.dropped_exact;
            for f in got.fixes {
                if !session.report.retrieved.iter().any(|x| x.id == f.id) {
                    session.report.retrieved.push(f);
                }
            }
        }
        Ok(())
    }

    /// One round's critiques: every ordered pair of distinct agents (Algorithm 1, lines 20-23).
    fn critiques(
        &mut self,
        session: &mut Session<'_>,
        trace: &str,
        hyps: &[Hypothesis],
        round: usize,
    ) -> Result<Vec<CritiqueRecord>, Stop> {
        let trace_text = self.details.probe.collected.as_ref().map(|c| c.trace.text.clone()).unwrap_or_default();
        let mut out = Vec::new();
        for (d, defender) in hyps.iter().enumerate() {
            for (a, attacker) in AGENTS.into_iter().enumerate() {
                if a == d {
                    continue;
                }
                let to = AGENTS[d];
                let req = session.request(vec![
                    Message::system(attacker.system_prompt()),
                    Message::user(prompts::critique_prompt(
                        self.problem,
                        trace,
                        to.name(),
                        defender.patch(),
                        &defender.result(),
                    )),
                ]);
                let at = Degraded::at("critique", Some(round + 1), Some(d + 1));
                let reply = session.sample_or_degrade(req, &at)?;
                let text = reply.and_then(|r| r.into_iter().next()).and_then(|r| prompts::parse_critique(&r.text));
                let cites = text.as_deref().is_some_and(|t| prompts::cites_trace(t, &trace_text));
                out.push(CritiqueRecord { from: attacker, to, text, cites_trace: cites });
                // Recorded as they come: a budget stop keeps the critiques made so far.
                self.record_round(round, out.clone(), hyps);
                self.save(session);
            }
        }
        Ok(out)
    }

    /// Update (eq. 2): the defender's refined patch, validated.
    fn update(
        &mut self,
        session: &mut Session<'_>,
        trace: &str,
        h: &Hypothesis,
        critiques: &[(String, String)],
        round: usize,
    ) -> Result<Hypothesis, Stop> {
        let agent = h.agent.unwrap_or(Agent::Causal);
        let slot = AGENTS.iter().position(|a| *a == agent).unwrap_or(0) + 1;
        let req = session.request(vec![
            Message::system(agent.system_prompt()),
            Message::user(prompts::update_prompt(
                self.problem,
                trace,
                h.patch(),
                &shorten(&h.result(), RESULT_CHARS),
                critiques,
                &h.similar,
            )),
        ]);
        let at = Degraded::at("update", Some(round + 1), Some(slot));
        let Some(answers) = session.sample_or_degrade(req, &at)? else { return Ok(h.clone()) };
        let mut new = self.best_of(session, (round + 1, slot), Some(agent), &answers)?;
        new.similar = h.similar.clone();
        if new.root_cause.is_none() {
            new.root_cause = h.root_cause.clone();
        }
        Ok(new)
    }

    /// Phase 3: one synthesis over the whole debate.
    fn judge(&mut self, session: &mut Session<'_>, trace: &str) -> Result<Hypothesis, Stop> {
        let mut history = String::new();
        for (attempt, h) in &self.history {
            let who = h.agent.map_or("judge", Agent::name);
            history.push_str(&format!(
                "- round {}, {who}: {}\n```\n{}\n```\n",
                attempt - 1,
                shorten(&h.result(), 300),
                h.patch()
            ));
        }
        let mut critiques = String::new();
        for r in &self.details.rounds {
            for c in r.critiques.iter().filter(|c| c.cites_trace) {
                if let Some(t) = &c.text {
                    critiques.push_str(&format!("- round {}, {} on {}: {t}\n", r.round, c.from.name(), c.to.name()));
                }
            }
        }
        if critiques.is_empty() {
            critiques.push_str("(none)\n");
        }
        let req = session.request(vec![
            Message::system(prompts::SYSTEM_PROMPT),
            Message::user(prompts::judge_prompt(self.problem, trace, &history, &critiques)),
        ]);
        let attempt = self.strategy.rounds + 2;
        let at = Degraded::at("judge", Some(attempt), Some(4));
        let answers = session.sample_or_degrade(req, &at)?.unwrap_or_default();
        self.best_of(session, (attempt, 4), None, &answers)
    }
}

/// The report's warnings about a trace that is missing, empty or may mislead.
fn warn_about(session: &mut Session<'_>, c: &Collected, no_sites: bool) {
    let warnings = &mut session.report.warnings;
    if c.static_fallback {
        let why = if no_sites { "the method has nothing to probe" } else { "no instrumented copy compiled" };
        warnings.push(format!("{why}: the run went on without a runtime trace (static fallback)"));
    } else if c.trace.is_empty() {
        warnings.push(
            "the instrumented tests printed no probe line: the localized method did not run, or the test command \
             hides the tests' stderr (e.g. pytest --tb=no): no trace"
                .into(),
        );
    }
    if !c.tests_differ.is_empty() {
        warnings.push(format!(
            "the instrumented copy's failing tests ({}) differ from the buggy version's: the probes slowed a test \
             past its time limit, changed what the program does, or the tests are flaky; read the trace with care",
            c.tests_differ.join(", ")
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Best of N (§3.3): plausible > fewer failing tests > an unknown count > timeout >
    /// compile error > not applied.
    #[test]
    fn candidates_rank_by_verdict_then_fewer_failing_tests() {
        let order = [
            rank(Verdict::Plausible, 0),
            rank(Verdict::TestFailure, 1),
            rank(Verdict::TestFailure, 2),
            rank(Verdict::TestFailure, 0),
            rank(Verdict::Timeout, 0),
            rank(Verdict::CompileError, 0),
            rank(Verdict::PatchRefused, 0),
        ];
        assert!(order.windows(2).all(|w| w[0] > w[1]), "{order:?}");
        assert_eq!("auto".parse::<ProbeMode>(), Ok(ProbeMode::Auto));
        assert!("regex".parse::<ProbeMode>().unwrap_err().contains("known: model, auto"));
        assert_eq!(prompt_trace_bytes(8_192), 8_192);
        assert_eq!(prompt_trace_bytes(128_000), probe::KEPT_TRACE_BYTES);
    }
}
