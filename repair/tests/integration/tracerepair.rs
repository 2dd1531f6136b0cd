//! TraceRepair (issue 13) under the strict replay client: real instrumented copies built
//! and run by the project's own commands, real candidate patches really tested.
//!
//! The recordings in `tests/fixtures/replay/tracerepair-*.jsonl` are **synthetic**: made by
//! running the strategy against a [`ScriptedClient`] whose hand-written answers are in this
//! file, wrapped in a [`RecordingClient`]. They exercise the machinery (probes, rollback,
//! guard, debate, judge, budgets) and are never counted as repair results
//! (`report.synthetic`). Regenerate them after a prompt change with
//! `FIXDEX_WRITE_RECORDINGS=1 FIXDEX_SHARED=../shared cargo nextest run --profile ci -E 'test(/tracerepair/)'`.
//! A replay that asks anything not recorded, or leaves a recording unused, fails.

use std::path::{Path, PathBuf};
use std::time::Duration;

use repair::bench::quixbugs::{self, GroundTruth, Lang, Runner};
use repair::llm::{ChatClient, RecordingClient, ReplayClient, Script, ScriptedClient};
use repair::retrieve::{Exclusion, Retriever};
use repair::run::bug::{Bug, Location};
use repair::run::config::RunConfig;
use repair::run::report::{Outcome, RepairReport};
use repair::run::workflow::Workflow;
use repair::strategies::tracerepair::{ProbeMode, TraceRepair};
use repair::validate::scratch::ScratchFilter;
use repair::validate::{CommandSpec, Validator};
use serde_json::Value;

use crate::common::{choices, minibugs, runner, shared_path};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// One scenario: the bug, how to validate it, the strategy's settings, the scripted answers.
struct Case {
    bug: Bug,
    validator: Validator,
    skip: ScratchFilter,
    strategy: TraceRepair,
    scripts: Vec<Script>,
}

/// The configuration every recording was made with: a 32K-token window, so the prompts
/// show the last 20 KB of a trace.
fn config() -> RunConfig {
    RunConfig {
        model: "replayed-model".into(),
        budget: repair::llm::Budget { max_calls: Some(40), max_tokens: None, max_micro_usd: None },
        context_tokens: 32_768,
        ..RunConfig::default()
    }
}

/// Runs `cases` with recording (`FIXDEX_WRITE_RECORDINGS`) or strict replay.
fn run_cases(recordings: &Path, retriever: Option<&Retriever>, cases: Vec<Case>) -> Vec<RepairReport> {
    let write = std::env::var_os("FIXDEX_WRITE_RECORDINGS").is_some();
    let replay = if write { None } else { Some(ReplayClient::open(recordings).unwrap_or_else(|e| panic!("{e}"))) };
    if write {
        let _ = std::fs::remove_file(recordings);
    }
    let mut reports = Vec::new();
    for case in cases {
        let exclusion = Exclusion {
            ids: case.bug.id.iter().cloned().collect(),
            projects: vec!["QuixBugs".into()],
            keep_ids: Vec::new(),
        };
        let ret = retriever.map(|r| r.with_exclusion(exclusion));
        let run = |client: &dyn ChatClient| {
            Workflow::new(client, ret.clone(), case.validator.clone(), config())
                .with_strategy(Box::new(case.strategy))
                .with_scratch_filter(case.skip.clone())
                .run(&case.bug)
        };
        let report = match &replay {
            Some(r) => run(r),
            None => run(&RecordingClient::append(ScriptedClient::new(case.scripts), recordings).unwrap()),
        };
        reports.push(report);
    }
    if let Some(replay) = &replay {
        replay.finish().unwrap_or_else(|e| panic!("{e}"));
    }
    reports
}

/// A SEARCH/REPLACE answer with a root cause.
fn sr(cause: &str, search: &str, replace: &str) -> String {
    format!("ROOT CAUSE: {cause}\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n")
}

/// An answer that quotes code that is not in the file (refused without a test run).
fn stale(cause: &str) -> String {
    sr(cause, "        return null;", "        return 0;")
}

fn minibug(lang: Lang, name: &str, method: &str) -> (Bug, Validator) {
    let p = quixbugs::discover(&minibugs(), lang).unwrap().into_iter().find(|p| p.name == name).unwrap();
    let bug = Bug {
        id: Some(format!("minibugs:{lang}:{name}")),
        root: minibugs(),
        file: p.source.clone(),
        location: Location::Method(method.into()),
        failing_tests: Vec::new(),
    };
    (bug, runner(lang).validator(&p))
}

/// Java SUM_TO with model-named probes: the probe agent asks for `total` before its own
/// declaration (javac: cannot find symbol), which is rolled back by the compiler's line;
/// every first proposal fails, round 1's updates fail, and the causal agent's round-2
/// update is the fix.
fn java_sum_to_round_two() -> Case {
    let (bug, validator) = minibug(Lang::Java, "SUM_TO", "sum_to");
    let cause = "the loop stops at n - 1, so n is never added";
    let fix = "ROOT CAUSE: the loop condition `i < n` skips n.\n```diff\n--- a/java_programs/SUM_TO.java\n+++ b/java_programs/SUM_TO.java\n@@ -6 +6 @@\n-        for (int i = 1; i < n; i++) {\n+        for (int i = 1; i <= n; i++) {\n```\n";
    let start_one = sr(cause, "        int total = 0;", "        int total = 1;");
    let from_zero = sr(cause, "        for (int i = 1; i < n; i++) {", "        for (int i = 0; i < n; i++) {");
    let plus_one = sr(cause, "        return total;", "        return total + 1;");
    let broken = sr(cause, "        return total;", "        return total +;");
    let plus_n = sr(cause, "        return total;", "        return total + n - 1;");
    let guard = sr("n may be zero", "        return total;", "        return n == 0 ? 0 : total;");
    let cites = "CRITIQUE: the trace ends with L7 total=45 for n = 10: the loop never adds 10, and this patch \
                 does not change how often the loop runs.";
    let uncited = "CRITIQUE: this looks wrong to me.";
    let mut scripts = vec![
        Script::text("PROBE L5: total\nPROBE L7: i, total\n"),
        choices(&[&stale(cause), &start_one, &broken], (900, 90)),
        choices(&[&from_zero, &stale(cause), &from_zero], (900, 90)),
        choices(&[&plus_one, &stale(cause), &stale(cause)], (900, 90)),
    ];
    // Round 1: six critiques (defender by defender), then three updates that fail.
    for c in [cites, "CONSISTENT", uncited, cites, cites, "CONSISTENT"] {
        scripts.push(Script::text(c));
    }
    scripts.push(Script::text(plus_n));
    scripts.push(Script::text(guard));
    scripts.push(Script::text(stale(cause)));
    // Round 2: six critiques, then the defensive update fails and the causal one fixes it.
    for c in [cites, cites, cites, "CONSISTENT", cites, cites] {
        scripts.push(Script::text(c));
    }
    scripts.push(Script::text(sr(cause, "        return total;", "        return total + 2 * n - 2;")));
    scripts.push(Script::text(fix));
    Case {
        bug,
        validator,
        skip: quixbugs::scratch_filter(Lang::Java),
        strategy: TraceRepair { probe: ProbeMode::Model, ..TraceRepair::default() },
        scripts,
    }
}

/// Python sum_to with `--probe auto` and one round: nothing in the debate passes, and the
/// judge's synthesis is the fix.
fn python_sum_to_judge() -> Case {
    let (bug, validator) = minibug(Lang::Python, "sum_to", "sum_to");
    let cause = "range(1, n) stops before n";
    let fix = "ROOT CAUSE: `range(1, n)` excludes n.\n```diff\n--- a/python_programs/sum_to.py\n+++ b/python_programs/sum_to.py\n@@ -3 +3 @@\n-    for i in range(1, n):\n+    for i in range(1, n + 1):\n```\n";
    let plus_one = sr(cause, "    return total", "    return total + 1");
    let from_zero = sr(cause, "    for i in range(1, n):", "    for i in range(0, n):");
    let start_n = sr(cause, "    total = 0", "    total = 1");
    let mut scripts = vec![
        choices(&[&plus_one, &stale(cause), &stale(cause)], (800, 80)),
        choices(&[&from_zero, &stale(cause), &stale(cause)], (800, 80)),
        choices(&[&start_n, &stale(cause), &stale(cause)], (800, 80)),
    ];
    let cites = "CRITIQUE: the trace shows L4 total=45 as the last value for n = 10, so the loop stops at 9.";
    for c in [cites, "CONSISTENT", cites, cites, "CONSISTENT", cites] {
        scripts.push(Script::text(c));
    }
    scripts.push(Script::text(sr(cause, "    return total", "    return total + n - 1")));
    scripts.push(Script::text(stale(cause)));
    scripts.push(Script::text(sr(cause, "    total = 0", "    total = 2 * n - 1")));
    scripts.push(Script::text(fix));
    Case {
        bug,
        validator,
        skip: quixbugs::scratch_filter(Lang::Python),
        strategy: TraceRepair { probe: ProbeMode::Auto, rounds: 1, ..TraceRepair::default() },
        scripts,
    }
}

/// A project whose failing test prints far more than 10 MB of probes: the guard stops the
/// probes, the prompt keeps the last 20 KB, and the causal agent's second sample fixes it.
fn python_big_trace() -> Case {
    let root = fixtures().join("tracebugs");
    let python = std::env::var("FIXDEX_PYTHON").unwrap_or_else(|_| "python3".into());
    let validator = Validator {
        build: Some(CommandSpec::Argv(vec![python.clone(), "-m".into(), "py_compile".into(), "total_upto.py".into()])),
        test: CommandSpec::Argv(vec![
            python,
            "-m".into(),
            "pytest".into(),
            "-q".into(),
            "-p".into(),
            "no:cacheprovider".into(),
            "test_total_upto.py".into(),
        ]),
        timeout: Duration::from_secs(120),
        env: vec![("PYTHONDONTWRITEBYTECODE".into(), "1".into())],
        reference: None,
        fail_fast: None,
    };
    let bug = Bug {
        id: None,
        root,
        file: "total_upto.py".into(),
        location: Location::Method("total_upto".into()),
        failing_tests: Vec::new(),
    };
    let cause = "the loop condition `i < n` leaves n out of the sum";
    let fix = sr(cause, "    while i < n:", "    while i <= n:");
    let scripts = vec![
        choices(&[&stale(cause), &stale(cause), &stale(cause)], (6000, 90)),
        choices(&[&sr(cause, "    return total", "    return total + 1"), &fix, &stale(cause)], (6000, 90)),
    ];
    Case {
        bug,
        validator,
        skip: std::sync::Arc::new(|_, _| false),
        strategy: TraceRepair { probe: ProbeMode::Auto, ..TraceRepair::default() },
        scripts,
    }
}

fn details(r: &RepairReport) -> &Value {
    r.details.json()
}

fn verdicts(r: &RepairReport) -> Vec<&'static str> {
    r.candidates.iter().map(|c| c.verdict.as_str()).collect()
}

/// minibugs (no ../shared needed): the round-2 fix after a rolled-back probe (Java), the
/// judge's fix (Python), and the 10 MB guard (Python).
#[test]
fn tracerepair_replay_minibugs() {
    let reports = run_cases(
        &fixtures().join("replay/tracerepair-minibugs.jsonl"),
        None,
        vec![java_sum_to_round_two(), python_sum_to_judge(), python_big_trace()],
    );
    for r in &reports {
        assert_eq!(r.strategy, "tracerepair");
        assert!(r.synthetic, "replayed hand-written answers are synthetic");
        assert_eq!(r.outcome, Outcome::Plausible, "{:#}", details(r));
        assert!(r.patch.is_some());
    }

    // Java: the compiler named the probe of `total` before its declaration; it alone was
    // rolled back, and the trace shows the loop.
    let j = details(&reports[0]);
    let c = &j["probe"]["collected"];
    assert_eq!(j["probe"]["mode"], "model");
    assert_eq!(j["probe"]["requests"][0]["line"], 5);
    assert_eq!(
        (c["attempts"].as_u64(), c["rolled_back"].as_u64(), c["static_fallback"].as_bool()),
        (Some(2), Some(1), Some(false)),
        "{c:#}"
    );
    assert_eq!(c["rollbacks"][0]["by"], "compiler", "{c:#}");
    assert_eq!(c["injected"].as_u64().unwrap() + 1, c["requested"].as_u64().unwrap());
    let text = c["trace"]["text"].as_str().unwrap();
    assert!(text.contains("L7 before: i=9") && text.contains("L7 total=45"), "{text}");
    assert_eq!(j["ended"], "round_2", "{j:#}");
    assert_eq!(j["rounds"].as_array().unwrap().len(), 3, "proposals, round 1, round 2");
    let critiques = j["rounds"][1]["critiques"].as_array().unwrap();
    assert_eq!(critiques.len(), 6);
    assert_eq!(critiques.iter().filter(|c| c["text"].is_string()).count(), 4);
    assert_eq!(critiques.iter().filter(|c| c["cites_trace"] == true).count(), 3, "the uncited critique is dropped");
    let v = verdicts(&reports[0]);
    assert_eq!(v.last(), Some(&"plausible"));
    assert!(v.contains(&"compile_error") && v.contains(&"test_failure") && v.contains(&"patch_refused"), "{v:?}");
    assert!(v.contains(&"duplicate"), "the causal agent's repeated sample: {v:?}");
    let last = reports[0].candidates.last().unwrap();
    assert_eq!((last.attempt, last.suggestion), (3, 2), "round 2, the causal agent");
    assert_eq!(reports[0].llm.calls, 21);

    // Python: one round without a plausible patch, then the judge.
    let p = details(&reports[1]);
    assert_eq!(p["probe"]["mode"], "auto");
    assert!(p["probe"]["collected"]["trace"]["text"].as_str().unwrap().contains("L4 total=45"));
    assert_eq!(p["ended"], "judge", "{p:#}");
    assert_eq!(p["judge"]["verdict"], "plausible");
    assert!(p["fallback"].is_null());
    let judge = reports[1].candidates.last().unwrap();
    assert_eq!((judge.attempt, judge.suggestion), (3, 4), "the judge's slot");
    assert_eq!(reports[1].llm.calls, 13);

    // The guard: more than 10 MB written, the prompt's trace cut to the last 20 KB.
    let b = details(&reports[2]);
    let c = &b["probe"]["collected"];
    assert!(c["output_bytes"].as_u64().unwrap() > 10 * 1024 * 1024, "{c:#}");
    assert_eq!((c["trace"]["guard_hit"].as_bool(), c["trace"]["truncated"].as_bool()), (Some(true), Some(true)));
    let kept = c["trace"]["text"].as_str().unwrap();
    assert!(kept.len() <= 20 * 1024 + 64 && kept.len() > 19 * 1024, "{}", kept.len());
    assert!(kept.ends_with("cut: 10485760 bytes written\n"), "{}", &kept[kept.len() - 200..]);
    assert_eq!(b["ended"], "proposals");
    assert_eq!(b["probe"]["prompt_trace_bytes"].as_u64(), Some(kept.len() as u64), "a 32K window shows all 20 KB");
    assert_eq!(verdicts(&reports[2]), ["patch_refused", "patch_refused", "patch_refused", "test_failure", "plausible"]);
}

/// Six QuixBugs programs (3 Java, 3 Python) with `--probe auto` and retrieval from an index
/// of the sample corpus built here: four are fixed by a first proposal; for GCD (Java and
/// Python) every proposal fails, each agent searches similar fixes with its root cause, and
/// a round-1 update fixes it. Needs FIXDEX_SHARED.
#[test]
fn shared_tracerepair_replay_quixbugs_six_programs() {
    let root = shared_path("benchmarks/quixbugs");
    let truth = GroundTruth::load(&shared_path("data/quixbugs.jsonl")).unwrap();
    let (retriever, _dir) = crate::replay::sample_index();
    let programs: [(Lang, &str, &str); 6] = [
        (Lang::Java, "GCD", "the recursive call passes `a % b, b` instead of `b, a % b`."),
        (Lang::Java, "SIEVE", "`any` keeps n when it is coprime to one prime; it must be coprime to all."),
        (Lang::Java, "QUICKSORT", "elements equal to the pivot are dropped."),
        (Lang::Python, "gcd", "the recursive call passes `a % b, b` instead of `b, a % b`."),
        (Lang::Python, "sieve", "`any` keeps composites; a prime is coprime to all smaller primes."),
        (Lang::Python, "quicksort", "duplicates of the pivot are lost because `>` excludes them."),
    ];
    let mut cases = Vec::new();
    for (lang, name, cause) in programs {
        let runner = Runner::new(&root, lang, Duration::from_secs(120)).unwrap_or_else(|e| panic!("{e}"));
        let p = quixbugs::discover(&root, lang).unwrap().into_iter().find(|p| p.name == name).unwrap();
        let bug = Bug {
            id: truth.id(&p).map(str::to_string),
            root: root.clone(),
            file: p.source.clone(),
            location: Location::Method(truth.method(&p).unwrap().to_string()),
            failing_tests: Vec::new(),
        };
        let fix = format!("ROOT CAUSE: {cause}\n{}", truth.diff(&p).unwrap());
        let refused = stale(cause);
        let scripts = if name.eq_ignore_ascii_case("gcd") {
            let mut s: Vec<Script> = (0..3).map(|_| choices(&[&refused, &refused, &refused], (900, 90))).collect();
            s.extend((0..6).map(|_| Script::text("CONSISTENT")));
            s.push(Script::text(fix));
            s
        } else {
            vec![choices(&[&refused, &fix, &refused], (900, 90))]
        };
        let strategy = TraceRepair { probe: ProbeMode::Auto, ..TraceRepair::default() };
        cases.push(Case {
            bug,
            validator: runner.validator(&p),
            skip: quixbugs::scratch_filter(lang),
            strategy,
            scripts,
        });
    }
    let reports = run_cases(&fixtures().join("replay/tracerepair-quixbugs.jsonl"), Some(&retriever), cases);
    for r in &reports {
        let name = r.bug.file.display();
        let d = details(r);
        assert_eq!(r.outcome, Outcome::Plausible, "{name}: {d:#}");
        assert!(r.synthetic);
        let c = &d["probe"]["collected"];
        assert_eq!(c["static_fallback"], false, "{name}: {c:#}");
        assert!(c["trace"]["lines"].as_u64().unwrap() > 0, "{name}: an empty trace: {c:#}");
        if name.to_string().to_lowercase().contains("gcd") {
            assert_eq!(d["ended"], "round_1", "{name}");
            // Each agent searched with the root cause it stated; the hits reached the updates.
            assert_eq!(d["searches"].as_array().unwrap().len(), 3, "{name}: {d:#}");
            assert!(!r.retrieved.is_empty(), "{name}");
        } else {
            assert_eq!(d["ended"], "proposals", "{name}");
            assert_eq!(verdicts(r), ["patch_refused", "plausible"], "{name}");
        }
        assert!(r.retrieved.iter().all(|f| f.project != "QuixBugs"));
    }
}
