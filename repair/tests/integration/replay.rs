//! The workflow under the strict record/replay client (DESIGN.md decision 8): recorded
//! answers are replayed, and their patches are really applied and really tested.
//!
//! The recordings in `tests/fixtures/replay/` are **synthetic**: they were made by running
//! the same workflow against a [`ScriptedClient`] whose hand-written answers are in this file
//! (root causes and suggestions written by us, patches = the benchmark's developer fix after
//! a first candidate that does not apply), wrapped in a [`RecordingClient`]. They exercise
//! the machinery and are never counted as repair results (`report.synthetic`). Regenerate them
//! after a prompt change with
//! `FIXDEX_WRITE_RECORDINGS=1 FIXDEX_SHARED=../shared cargo nextest run -p fixdex-repair --profile ci replay`.
//! A replay that asks anything not recorded, or leaves a recording unused, fails.

use crate::common::choices;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use repair::bench::quixbugs::{self, GroundTruth, Lang, Runner};
use repair::llm::{ChatClient, RecordingClient, ReplayClient, Script, ScriptedClient};
use repair::retrieve::{Exclusion, Retriever};
use repair::run::bug::{Bug, Location};
use repair::run::config::RunConfig;
use repair::run::report::{Outcome, RepairReport};
use repair::run::workflow::Workflow;
use repair::strategies::reinfix::ReinFix;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The scripted answers for one bug: root cause, one suggestion, then two candidates: one
/// that quotes code that is not in the file (refused), and the developer fix.
fn answers(cause: &str, suggestion: &str, stale_search: &str, fix_diff: &str) -> Vec<Script> {
    vec![
        Script::text(format!("ROOT CAUSE: {cause}")),
        Script::text(format!("SUGGESTION 1: {suggestion}")),
        choices(
            &[&format!("<<<<<<< SEARCH\n{stale_search}\n=======\n{stale_search} // fixed\n>>>>>>> REPLACE"), fix_diff],
            (1000, 100),
        ),
    ]
}

/// Runs `cases` (bug, validator, scratch filter, scripts) with recording or replay.
fn run_cases(
    recordings: &Path,
    retriever: Option<&Retriever>,
    cases: Vec<(Bug, repair::validate::Validator, repair::validate::scratch::ScratchFilter, Vec<Script>)>,
) -> Vec<RepairReport> {
    let write = std::env::var_os("FIXDEX_WRITE_RECORDINGS").is_some();
    let config = RunConfig { model: "replayed-model".into(), ..RunConfig::default() };
    let reinfix = ReinFix { patches: 2, suggestions: 1, ..ReinFix::default() };
    let replay = if write { None } else { Some(ReplayClient::open(recordings).unwrap_or_else(|e| panic!("{e}"))) };
    let mut reports = Vec::new();
    if write {
        let _ = std::fs::remove_file(recordings);
    }
    for (bug, validator, skip, scripts) in cases {
        let exclusion = Exclusion {
            ids: bug.id.iter().cloned().collect(),
            projects: vec!["QuixBugs".into()],
            keep_ids: Vec::new(),
        };
        let ret = retriever.map(|r| r.with_exclusion(exclusion));
        let report = if let Some(replay) = &replay {
            Workflow::new(replay as &dyn ChatClient, ret, validator, config.clone())
                .with_strategy(Box::new(reinfix))
                .with_scratch_filter(skip)
                .run(&bug)
        } else {
            let client = RecordingClient::append(ScriptedClient::new(scripts), recordings).unwrap();
            Workflow::new(&client, ret, validator, config.clone())
                .with_strategy(Box::new(reinfix))
                .with_scratch_filter(skip)
                .run(&bug)
        };
        reports.push(report);
    }
    if let Some(replay) = &replay {
        replay.finish().unwrap_or_else(|e| panic!("{e}"));
    }
    reports
}

fn check(reports: &[RepairReport]) {
    for r in reports {
        let name = r.bug.file.display();
        assert_eq!(r.outcome, Outcome::Plausible, "{name}: {r:#?}");
        assert!(r.synthetic, "{name}: replayed hand-written answers must be marked synthetic");
        let verdicts: Vec<&str> = r.candidates.iter().map(|c| c.verdict.as_str()).collect();
        assert_eq!(verdicts, ["patch_refused", "plausible"], "{name}");
        assert!(r.patch.is_some());
        assert_eq!(r.preflight.as_ref().unwrap().verdict, repair::validate::Verdict::TestFailure, "{name}");
    }
}

/// minibugs (no ../shared needed): Java and Python, without retrieval.
#[test]
fn replay_minibugs_java_and_python() {
    let root = fixtures().join("minibugs");
    let mut cases = Vec::new();
    for (lang, name, method, cause, stale, fix) in [
        (
            Lang::Java,
            "SUM_TO",
            "sum_to",
            "the loop condition `i < n` never adds n itself.",
            "        for (int i = 0; i < n; i++) {",
            "```diff\n--- a/java_programs/SUM_TO.java\n+++ b/java_programs/SUM_TO.java\n@@ -6 +6 @@\n-        for (int i = 1; i < n; i++) {\n+        for (int i = 1; i <= n; i++) {\n```\n",
        ),
        (
            Lang::Python,
            "sum_to",
            "sum_to",
            "`range(1, n)` stops before n, so n is never added.",
            "    for i in range(n):",
            "```diff\n--- a/python_programs/sum_to.py\n+++ b/python_programs/sum_to.py\n@@ -3 +3 @@\n-    for i in range(1, n):\n+    for i in range(1, n + 1):\n```\n",
        ),
    ] {
        let mut runner = Runner::new(&root, lang, Duration::from_secs(60)).unwrap_or_else(|e| panic!("{e}"));
        runner.per_test_timeout_s = 3;
        let p = quixbugs::discover(&root, lang).unwrap().into_iter().find(|p| p.name == name).unwrap();
        let bug = Bug {
            id: Some(format!("minibugs:{lang}:{name}")),
            root: root.clone(),
            file: p.source.clone(),
            location: Location::Method(method.into()),
            failing_tests: Vec::new(),
        };
        let scripts = answers(cause, "fix the loop bound so that n is included.", stale, fix);
        cases.push((bug, runner.validator(&p), quixbugs::scratch_filter(lang), scripts));
    }
    let reports = run_cases(&fixtures().join("replay/minibugs.jsonl"), None, cases);
    check(&reports);
}

/// Six real QuixBugs programs (3 Java, 3 Python), with retrieval from an index of the
/// sample corpus built here with the real model. Needs FIXDEX_SHARED.
#[test]
fn shared_replay_quixbugs_six_programs() {
    let shared = std::env::var_os("FIXDEX_SHARED")
        .map(PathBuf::from)
        .expect("set FIXDEX_SHARED=../shared to run the tests on shared data");
    let shared = if shared.is_dir() { shared } else { Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(shared) };
    let root = shared.join("benchmarks/quixbugs");
    assert!(root.is_dir(), "{} is missing", root.display());
    let truth = GroundTruth::load(&shared.join("data/quixbugs.jsonl")).unwrap();
    let (retriever, _dir) = sample_index();

    let causes: [(Lang, &str, &str, &str); 6] = [
        (
            Lang::Java,
            "GCD",
            "the recursive call passes `a % b, b` instead of `b, a % b`, so it never reaches b == 0.",
            "swap the arguments of the recursive call.",
        ),
        (
            Lang::Java,
            "SIEVE",
            "`any` keeps n when it is coprime to at least one prime; a prime must be coprime to all of them.",
            "use `all` instead of `any`.",
        ),
        (
            Lang::Java,
            "QUICKSORT",
            "elements equal to the pivot are dropped: neither `x < pivot` nor `x > pivot` holds for them.",
            "put elements equal to the pivot into `greater`.",
        ),
        (
            Lang::Python,
            "gcd",
            "the recursive call passes `a % b, b` instead of `b, a % b`.",
            "swap the arguments of the recursive call.",
        ),
        (
            Lang::Python,
            "sieve",
            "`any` keeps composites; a prime is coprime to all smaller primes.",
            "use `all` instead of `any`.",
        ),
        (
            Lang::Python,
            "quicksort",
            "duplicates of the pivot are lost because `>` excludes them.",
            "use `>=` for the greater partition.",
        ),
    ];
    let mut cases = Vec::new();
    for (lang, name, cause, suggestion) in causes {
        let runner = Runner::new(&root, lang, Duration::from_secs(120)).unwrap_or_else(|e| panic!("{e}"));
        let p = quixbugs::discover(&root, lang).unwrap().into_iter().find(|p| p.name == name).unwrap();
        let bug = Bug {
            id: truth.id(&p).map(str::to_string),
            root: root.clone(),
            file: p.source.clone(),
            location: Location::Method(truth.method(&p).unwrap().to_string()),
            failing_tests: Vec::new(),
        };
        let scripts = answers(cause, suggestion, "    return null;", truth.diff(&p).unwrap());
        cases.push((bug, runner.validator(&p), quixbugs::scratch_filter(lang), scripts));
    }
    let reports = run_cases(&fixtures().join("replay/quixbugs.jsonl"), Some(&retriever), cases);
    check(&reports);
    for r in &reports {
        assert_eq!(r.retrieved.len(), 3, "{}", r.bug.file.display());
        assert!(r.retrieved.iter().all(|f| f.project != "QuixBugs"));
    }
}

/// An index of data/sample/sample.jsonl with the real model (exact search: 136 documents).
pub(crate) fn sample_index() -> (Retriever, tempfile::TempDir) {
    use engine::hnsw::{self, HnswConfig};
    use engine::{IndexBuilder, Record, Space};
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let model_dir = std::env::var_os("FIXDEX_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo.join("data/models/all-MiniLM-L6-v2"));
    let model: Arc<dyn engine::embed::Embedder> = Arc::new(
        engine::embed::BertEmbedder::load(&model_dir)
            .unwrap_or_else(|e| panic!("{e}: run scripts/fetch-model.sh to install the model")),
    );
    let text = std::fs::read_to_string(repo.join("data/sample/sample.jsonl")).unwrap();
    let docs: Vec<Record> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
            // The repair actions as `fixdex index` classifies them (indexer::classify).
            let c = actions::classify(&s("buggy_code"), &s("fixed_code"), s("language").parse().unwrap());
            Record {
                id: s("id"),
                source: s("source"),
                project: s("project"),
                language: s("language"),
                buggy_code: s("buggy_code"),
                fixed_code: s("fixed_code"),
                root_cause: s("root_cause"),
                description: s("description"),
                license: s("license"),
                meta: String::new(),
                action_label: c.label.as_str().to_string(),
                action_reason: c.reason.unwrap_or_default(),
                actions: serde_json::to_string(&c.actions).unwrap(),
            }
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sample.fdx");
    let mut b = IndexBuilder::new(model.identity().to_meta(), engine::testing::text_meta());
    let cfg = HnswConfig::default();
    let v = engine::testing::embed_records(model.as_ref(), &docs, Space::CodeCause).unwrap();
    let g = hnsw::build(&v, model.dim(), &cfg).unwrap();
    b.add_space(Space::CodeCause, v, g, &cfg).unwrap();
    b.write(&path, &docs, serde_json::Value::Null).unwrap();
    (Retriever::open(&path, model, Exclusion::default()).unwrap(), dir)
}
