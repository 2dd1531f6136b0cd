//! The strategy seam (issue 10): a strategy written outside the crate runs through the
//! shared pre-flight, candidate validation and report with no model at all, and the
//! registry names the strategies `--strategy` takes.

use crate::common::{minibugs, runner, sum_to};

use repair::bench::quixbugs::{self, Lang};
use repair::llm::ScriptedClient;
use repair::patch::{Change, Splice};
use repair::run::bug::{Bug, Problem};
use repair::run::config::RunConfig;
use repair::run::report::Outcome;
use repair::run::session::{Place, Session, Stop};
use repair::run::workflow::Workflow;
use repair::strategies::{Registry, Strategy};
use repair::validate::Verdict;

/// A model-free strategy: for each line of the buggy code holding `<`, an edit that makes
/// it `<=`, and for each `range(a, b)`, one that makes it `range(a, b + 1)`; in line order,
/// each a typed splice of the buggy file validated by the session (no answer text parsed).
struct FlipBounds;

impl Strategy for FlipBounds {
    fn name(&self) -> &'static str {
        "flip-bounds"
    }

    fn repair(&self, problem: &Problem, session: &mut Session<'_>) -> Result<(), Stop> {
        let mut choice = 0;
        for (start, line) in localized_lines(problem) {
            let splice = if let Some(at) = line.find(" < ") {
                Splice { span: start + at..start + at + 3, text: " <= ".into() }
            } else if let Some(at) = line.find("range(") {
                let close = start + at + line[at..].find(')').unwrap_or(0);
                Splice { span: close..close, text: " + 1".into() }
            } else {
                continue;
            };
            let place = Place { attempt: 1, suggestion: 1, choice };
            choice += 1;
            let what = format!("{} at byte {}", splice.text.trim(), splice.span.start);
            let rec = session.validate_patch(problem, place, &what, &Change::Splices(vec![splice]))?;
            if session.push_candidate(rec) {
                return Ok(());
            }
        }
        Ok(())
    }
}

/// The localized lines of the buggy file, each with the byte offset where it starts.
fn localized_lines(problem: &Problem) -> Vec<(usize, &str)> {
    let mut at = 0;
    let mut out = Vec::new();
    for (i, line) in problem.source.split_inclusive('\n').enumerate() {
        if (problem.lines.0..=problem.lines.1).contains(&(i + 1)) {
            out.push((at, line));
        }
        at += line.len();
    }
    out
}

/// A strategy that validates nothing.
struct Nothing;

impl Strategy for Nothing {
    fn name(&self) -> &'static str {
        "nothing"
    }
    fn repair(&self, _: &Problem, _: &mut Session<'_>) -> Result<(), Stop> {
        Ok(())
    }
}

/// A strategy defined outside the crate gets the located code after the shared pre-flight,
/// its candidates are applied and tested by the session, the first plausible one ends the
/// run, and the report names the strategy; no model call is made.
#[test]
fn issue_10_a_strategy_outside_the_crate_repairs_through_the_shared_services() {
    let (bug, validator) = sum_to();
    let client = ScriptedClient::new(Vec::new());
    let config = RunConfig { model: "none".into(), ..RunConfig::default() };
    let report = Workflow::new(&client, None, validator, config)
        .with_strategy(Box::new(FlipBounds))
        .with_scratch_filter(quixbugs::scratch_filter(Lang::Python))
        .run(&bug);
    assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
    assert_eq!(report.strategy, "flip-bounds");
    assert_eq!(report.llm.calls, 0);
    assert_eq!(report.buggy_lines, Some((1, 5)));
    assert_eq!(report.preflight.as_ref().map(|p| p.verdict), Some(Verdict::TestFailure));
    let verdicts: Vec<Verdict> = report.candidates.iter().map(|c| c.verdict).collect();
    assert_eq!(verdicts, [Verdict::Plausible], "{report:#?}");
    let patch = report.patch.expect("a plausible patch");
    assert!(patch.contains("+    for i in range(1, n + 1):"), "{patch}");
    let json = serde_json::to_value(&report.candidates[0]).unwrap();
    assert_eq!(json["verdict"], "plausible");
}

/// Pre-flight and the exit paths are the workflow's, not the strategy's: a strategy that
/// finds nothing ends the run as `no_plausible_patch`, and a bug with nothing to repair
/// never reaches the strategy.
#[test]
fn issue_10_exit_paths_belong_to_the_workflow() {
    let (bug, validator) = sum_to();
    let client = ScriptedClient::new(Vec::new());
    let run = |bug: &Bug, validator| {
        Workflow::new(&client, None, validator, RunConfig::default())
            .with_strategy(Box::new(Nothing))
            .with_scratch_filter(quixbugs::scratch_filter(Lang::Python))
            .run(bug)
    };
    let report = run(&bug, validator.clone());
    assert_eq!(report.outcome, Outcome::NoPlausiblePatch, "{report:#?}");
    assert!(report.candidates.is_empty());
    let named = Bug { failing_tests: vec!["no_such_test".into()], ..bug };
    let report = run(&named, validator);
    assert_eq!(report.outcome, Outcome::PreflightFailed, "{report:#?}");
    assert!(report.error.as_deref().unwrap_or_default().contains("does not fail"), "{report:#?}");
}

/// `--strategy` names: ReinFix is the default and the registry refuses an unknown name,
/// listing the known ones.
#[test]
fn issue_10_strategies_are_found_by_name() {
    let registry = Registry::builtin();
    let names: Vec<&str> = registry.names().collect();
    assert_eq!(names, ["reinfix", "patterns", "tracerepair", "unidebugger"]);
    assert_eq!(registry.default_strategy().name(), "reinfix");
    for name in names {
        assert_eq!(registry.by_name(name).map(|s| s.name()).ok(), Some(name));
    }
    let err = registry.by_name("nope").err().expect("unknown");
    assert_eq!(err.to_string(), "unknown strategy \"nope\" (known: reinfix, patterns, tracerepair, unidebugger)");
}

/// A candidate with an endless loop costs what the buggy version's tests took, scaled
/// (`RunConfig::candidate_timeout_factor`, at least 10 s), not the command limit: here the
/// limit is 120 s and pytest's own per-test limit is out of reach, so only the adapted
/// timeout stops it. With the factor 0 the candidates get the command limit.
#[test]
fn a_hanging_candidate_is_stopped_by_the_timeout_adapted_to_the_preflight() {
    struct Hang;
    impl Strategy for Hang {
        fn name(&self) -> &'static str {
            "hang"
        }
        fn repair(&self, problem: &Problem, session: &mut Session<'_>) -> Result<(), Stop> {
            let after = "    total = 0\n";
            let at = problem.source.find(after).map_or(0, |i| i + after.len());
            let hang = Splice { span: at..at, text: "    while True:\n        pass\n".into() };
            let place = Place { attempt: 1, suggestion: 1, choice: 0 };
            let rec = session.validate_patch(problem, place, "an endless loop", &Change::Splices(vec![hang]))?;
            session.push_candidate(rec);
            Ok(())
        }
    }
    let (bug, _) = sum_to();
    let p = quixbugs::discover(&minibugs(), Lang::Python).unwrap().into_iter().find(|p| p.name == "sum_to").unwrap();
    let mut slow = runner(Lang::Python);
    slow.per_test_timeout_s = 600;
    slow.timeout = std::time::Duration::from_secs(120);
    let client = ScriptedClient::new(Vec::new());
    let run = |factor: f64| {
        let config = RunConfig { model: "none".into(), candidate_timeout_factor: factor, ..RunConfig::default() };
        Workflow::new(&client, None, slow.validator(&p), config)
            .with_strategy(Box::new(Hang))
            .with_scratch_filter(quixbugs::scratch_filter(Lang::Python))
            .run(&bug)
    };
    let report = run(10.0);
    let pre = report.preflight.as_ref().expect("pre-flight");
    let limit = pre.candidate_timeout_ms;
    assert!((10_000..120_000).contains(&limit), "{pre:?}");
    assert!(limit <= 10_000.max(pre.wall_ms * 10), "10× the slower pre-flight command: {pre:?}");
    let c = &report.candidates[0];
    assert_eq!(c.verdict, Verdict::Timeout, "{report:#?}");
    assert!(c.wall_ms >= limit && c.wall_ms < 60_000, "{} ms under a {limit} ms limit", c.wall_ms);
    assert_eq!(report.outcome, Outcome::NoPlausiblePatch);

    // Factor 0: the command limit (the hanging candidate is not run again here).
    let config = RunConfig { model: "none".into(), candidate_timeout_factor: 0.0, ..RunConfig::default() };
    let report = Workflow::new(&client, None, slow.validator(&p), config)
        .with_strategy(Box::new(Nothing))
        .with_scratch_filter(quixbugs::scratch_filter(Lang::Python))
        .run(&bug);
    assert_eq!(report.preflight.map(|p| p.candidate_timeout_ms), Some(120_000));
}

/// TraceRepair's trace collection (issue 13) through the shared session: with `--probe
/// auto --trace-only` the instrumented copy of `sum_to` is built and tested in a scratch
/// copy like a candidate, no model is needed, and the failing tests' captured output holds
/// the trace of the loop (pytest shows a failing test's stderr in its report).
#[test]
fn issue_13_trace_collection_runs_through_the_session() {
    use repair::strategies::tracerepair::{ProbeMode, ProbeSummary, TraceRepair};
    let (bug, validator) = sum_to();
    let strategy = TraceRepair { probe: ProbeMode::Auto, trace_only: true, ..TraceRepair::default() };
    assert!(!strategy.needs_model(), "auto probes without a debate need no model");
    let client = ScriptedClient::new(Vec::new());
    let report = Workflow::new(&client, None, validator, RunConfig::default())
        .with_strategy(Box::new(strategy))
        .with_scratch_filter(quixbugs::scratch_filter(Lang::Python))
        .run(&bug);
    let t = &report.details["probe"]["collected"];
    assert_eq!(
        (t["requested"].as_u64(), t["injected"].as_u64(), t["static_fallback"].as_bool()),
        (Some(2), Some(2), Some(false)),
        "{report:#?}"
    );
    let text = t["trace"]["text"].as_str().unwrap();
    assert!(text.contains("L2 total=0") && text.contains("L4 total=1"), "{text}");
    assert!(report.candidates.is_empty(), "a trace run is not a candidate");
    assert_eq!(report.details["ended"], "trace_only");
    assert_eq!(report.outcome, Outcome::TraceOnly, "no patch was sought");
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(report.llm.calls, 0);
    let s = ProbeSummary::of(&report.details).unwrap();
    assert!(s.instrumented && s.trace_lines > 0 && !s.guard_hit, "{s:?}");
}
