//! The Defects4J harness on a project the test writes in Defects4J's layout: an upstream git
//! repository (a work tree and a bundle of it), a metadata folder (active-bugs.csv,
//! dir-layout.csv, trigger and relevant tests, the developer's patch reversed), real `git`,
//! `javac` and JUnit runs. The bugs: `Demo-1` (an operator, which the `patterns` strategy
//! fixes exactly as the developer did), `Demo-2` (a patch that does not fit the revision),
//! `Demo-3` (a trigger test that passes on the buggy version: the gold check fails).

use std::path::{Path, PathBuf};
use std::process::Command;

use repair::bench::batch;
use repair::bench::defects4j::{D4jError, Harness, Localization, Repairer};
use repair::bench::record::{RunRecord, Status, Tier};
use repair::llm::NoModel;
use repair::run::config::RunConfig;
use repair::strategies::Strategy;
use repair::strategies::patterns::Patterns;

const CALC: &str = "package demo;\n\npublic class Calc {\n    /** The larger of a and b. */\n    public static int max(int a, int b) {\n        return a > b ? a : b;\n    }\n\n    public static int twice(int a) {\n        return a * 2;\n    }\n}\n";

const CALC_TEST: &str = "package demo;\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n\npublic class CalcTest {\n    @Test\n    public void testMax() {\n        assertEquals(3, Calc.max(3, 1));\n    }\n\n    @Test\n    public void testTwice() {\n        assertEquals(4, Calc.twice(2));\n    }\n\n    @Test\n    public void testBrokenOnEveryVersion() {\n        assertEquals(\"the platform\", System.getProperty(\"no.such.property\"));\n    }\n}\n";

/// The developer's patch of bug 1, reversed as Defects4J ships it (fixed → buggy).
const PATCH_1: &str = "diff --git a/src/java/demo/Calc.java b/src/java/demo/Calc.java\n--- a/src/java/demo/Calc.java\n+++ b/src/java/demo/Calc.java\n@@ -3,6 +3,6 @@ package demo;\n public class Calc {\n     /** The larger of a and b. */\n     public static int max(int a, int b) {\n-        return a > b ? a : b;\n+        return a < b ? a : b;\n     }\n \n";

/// A patch whose context is not in the revision.
const PATCH_2: &str = "diff --git a/src/java/demo/Calc.java b/src/java/demo/Calc.java\n--- a/src/java/demo/Calc.java\n+++ b/src/java/demo/Calc.java\n@@ -3,3 +3,3 @@\n public class Calc {\n-    int nothing;\n+    int something;\n }\n";

/// A patch that breaks `twice`, which bug 3's trigger (`testMax`) does not test.
const PATCH_3: &str = "diff --git a/src/java/demo/Calc.java b/src/java/demo/Calc.java\n--- a/src/java/demo/Calc.java\n+++ b/src/java/demo/Calc.java\n@@ -8,5 +8,5 @@ public class Calc {\n \n     public static int twice(int a) {\n-        return a * 2;\n+        return a * 3;\n     }\n }\n";

/// The upstream repository (two commits: an earlier one holding `README.txt`, then the fixed
/// revision of every bug) and the metadata folder, written under `root`; returns the
/// metadata folder (`meta/`, with project `Demo`), the repository and its bundle.
fn demo(root: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let repo = root.join("upstream");
    std::fs::create_dir_all(repo.join("src/java/demo")).unwrap();
    std::fs::create_dir_all(repo.join("src/test/demo")).unwrap();
    std::fs::write(repo.join("src/java/demo/Calc.java"), CALC).unwrap();
    std::fs::write(repo.join("src/test/demo/CalcTest.java"), CALC_TEST).unwrap();
    std::fs::write(repo.join("README.txt"), "demo\n").unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .current_dir(&repo)
            .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    git(&["init", "-q"]);
    git(&["add", "README.txt"]);
    git(&["commit", "-qm", "an earlier fix"]);
    git(&["add", "."]);
    git(&["commit", "-qm", "fixed"]);
    let rev = git(&["rev-parse", "HEAD"]);
    let bundle = root.join("demo.bundle");
    git(&["bundle", "create", bundle.to_str().unwrap(), "--all"]);
    let meta = root.join("meta");
    let p = meta.join("Demo");
    for d in ["patches", "trigger_tests", "relevant_tests", "modified_classes"] {
        std::fs::create_dir_all(p.join(d)).unwrap();
    }
    let mut active = "bug.id,revision.id.buggy,revision.id.fixed,report.id,report.url\n".to_string();
    for (n, patch) in [(1, PATCH_1), (2, PATCH_2), (3, PATCH_3)] {
        active.push_str(&format!("{n},{rev},{rev},DEMO-{n},https://example.org/{n}\n"));
        std::fs::write(p.join(format!("patches/{n}.src.patch")), patch).unwrap();
        std::fs::write(
            p.join(format!("trigger_tests/{n}")),
            "--- demo.CalcTest::testMax\njunit.framework.AssertionFailedError\n",
        )
        .unwrap();
        std::fs::write(p.join(format!("relevant_tests/{n}")), "demo.CalcTest\n").unwrap();
        std::fs::write(p.join(format!("modified_classes/{n}.src")), "demo.Calc\n").unwrap();
    }
    std::fs::write(p.join("active-bugs.csv"), active).unwrap();
    std::fs::write(p.join("dir-layout.csv"), format!("{rev},src/java,src/test\n")).unwrap();
    (meta, repo, bundle)
}

fn harness(root: &Path, meta: &Path, repo: &Path) -> Harness {
    let mut h = Harness::new(meta, &root.join("work"));
    h.repos.insert("Demo".into(), repo.to_path_buf());
    h
}

/// The `patterns` strategy (40 validations, no model, no retrieval) on `h`'s bugs at
/// `localization`.
fn patterns(h: &Harness, localization: Localization) -> Repairer<'_> {
    fn make() -> Box<dyn Strategy> {
        Box::new(Patterns { max_validations: 40, ..Patterns::default() })
    }
    Repairer {
        harness: h,
        client: &NoModel,
        retriever: None,
        config: RunConfig::default(),
        prices: Default::default(),
        strategy: &make,
        localization,
        timeout: std::time::Duration::from_secs(120),
        own_project: false,
        own_history: false,
    }
}

#[test]
fn gold_check_passes_a_real_bug_and_fails_a_trigger_that_passes_on_the_buggy_version() {
    let root = tempfile::tempdir().unwrap();
    let (meta, _, bundle) = demo(root.path());
    let h = harness(root.path(), &meta, &bundle);
    let p = h.prepare(&"Demo-1".parse().unwrap()).unwrap();
    assert!(p.check.passed, "{:?}", p.check.reason);
    assert_eq!(p.check.failing_triggers, ["demo.CalcTest::testMax"]);
    // fails on the fixed version too: left out of candidate runs, not a gold-check failure
    assert_eq!(p.check.excluded, ["demo.CalcTest::testBrokenOnEveryVersion"]);
    assert!(p.check.fixed_test_ms > 0);
    assert_eq!(p.touched["src/java/demo/Calc.java"], vec![6]);
    // the check is cached: a second prepare reads it back
    let again = h.prepare(&"Demo-1".parse().unwrap()).unwrap();
    assert_eq!(again.check, p.check);

    let p3 = h.prepare(&"Demo-3".parse().unwrap()).unwrap();
    assert!(!p3.check.passed);
    assert!(
        p3.check.reason.as_deref().unwrap().contains("no trigger test fails on the buggy version"),
        "{:?}",
        p3.check.reason
    );
}

#[test]
fn two_runs_sharing_a_cold_work_folder_make_and_check_a_bug_once() {
    let root = tempfile::tempdir().unwrap();
    let (meta, _, bundle) = demo(root.path());
    // Two harnesses (two `eval defects4j` runs) on one work folder, the bug not yet made.
    let (a, b) = (harness(root.path(), &meta, &bundle), harness(root.path(), &meta, &bundle));
    let id: repair::bench::defects4j::BugId = "Demo-1".parse().unwrap();
    // What an interrupted run left of its set-up: removed by the run that takes the lock.
    let stale = root.path().join("work/bugs/.Demo-1.tmp-1-2");
    std::fs::create_dir_all(stale.join("buggy")).unwrap();
    let (pa, pb) = std::thread::scope(|s| {
        let ta = s.spawn(|| a.prepare(&id));
        let tb = s.spawn(|| b.prepare(&id));
        (ta.join().unwrap(), tb.join().unwrap())
    });
    let (pa, pb) = (pa.unwrap(), pb.unwrap());
    assert!(pa.check.passed && pb.check.passed, "{:?} {:?}", pa.check.reason, pb.check.reason);
    // One gold check, read back by the other run (its timings included), and one checkout;
    // the stale set-up folder is gone.
    assert_eq!(pa.check, pb.check);
    let left: Vec<String> = std::fs::read_dir(root.path().join("work/bugs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".Demo-1.lock")
        .collect();
    assert_eq!(left, ["Demo-1"]);
    assert!(pa.buggy.join("src/java/demo/Calc.java").is_file());
}

#[test]
fn bad_inputs_name_the_bug_and_what_to_do() {
    let root = tempfile::tempdir().unwrap();
    let (meta, repo, _) = demo(root.path());
    let h = harness(root.path(), &meta, &repo);
    // an unknown bug or project is a selection (usage) error too, naming the metadata
    let err = h.select("Demo-9").unwrap_err();
    assert!(matches!(err, D4jError::Selection { .. }), "{err}");
    let err = err.to_string();
    assert!(err.contains("active-bugs.csv") && err.contains("Demo-9"), "{err}");
    let err = h.select("Nope-1").unwrap_err();
    assert!(matches!(err, D4jError::Selection { .. }), "{err}");
    let err = err.to_string();
    assert!(err.contains("no such project") && err.contains("Demo"), "{err}");
    assert_eq!(h.select("Demo-1..2,Demo").unwrap().len(), 3);
    // selections that are malformed or select nothing are usage errors naming the item
    for (spec, says) in [
        ("Demo-3..1", "--bugs item `Demo-3..1`: the range is empty: write it low..high"),
        ("Demo-", "--bugs item `Demo-`"),
        (" , ", "names no bug"),
    ] {
        let err = h.select(spec).unwrap_err();
        assert!(matches!(err, D4jError::Selection { .. }) && err.to_string().contains(says), "{spec}: {err}");
    }
    let file = root.path().join("bugs.txt");
    std::fs::write(&file, "# the first two\nDemo-1, Demo-2\nDemo-x\n").unwrap();
    let err = h.select_file(&file).unwrap_err().to_string();
    assert!(err.contains("bugs.txt, line 3: `Demo-x`"), "{err}");
    std::fs::write(&file, "# nothing\n\n").unwrap();
    assert!(h.select_file(&file).unwrap_err().to_string().contains("lists no bug"));
    // A byte-order mark opening the file is not part of the first id.
    std::fs::write(&file, "\u{feff}Demo-1\r\n").unwrap();
    let ids: Vec<String> = h.select_file(&file).unwrap().iter().map(ToString::to_string).collect();
    assert_eq!(ids, ["Demo-1"]);
    // a deprecated bug says so, with Defects4J's reason
    std::fs::write(
        meta.join("Demo/deprecated-bugs.csv"),
        "bug.id,revision.id.buggy,revision.id.fixed,report.id,report.url,deprecated.version,deprecated.reason\n4,a,b,DEMO-4,u,2.0.0,JVM8.Not.Reproducible\n",
    )
    .unwrap();
    let err = h.select("Demo-4").unwrap_err();
    assert!(matches!(err, D4jError::Selection { .. }), "{err}");
    let err = err.to_string();
    assert!(err.contains("Demo-4 is deprecated in Defects4J (JVM8.Not.Reproducible, since Defects4J 2.0.0)"), "{err}");

    let err = h.prepare(&"Demo-2".parse().unwrap()).unwrap_err().to_string();
    assert!(err.contains("Demo-2") && err.contains("applying") && err.contains("does not fit"), "{err}");

    let mut empty_repo = harness(root.path(), &meta, &root.path().join("elsewhere"));
    let err = empty_repo.prepare(&"Demo-1".parse().unwrap()).unwrap_err();
    // Alone it names the bug; under a line headed by the bug (a run's infra reason) it does not
    // repeat it.
    let (shown, detail) = (err.to_string(), err.detail());
    assert!(shown.starts_with("Demo-1: ") && shown.contains("--repo") && shown.contains("does not exist"), "{shown}");
    assert_eq!(format!("Demo-1: {detail}"), shown);
    let other = root.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    assert!(Command::new("git").args(["init", "-q"]).current_dir(&other).status().unwrap().success());
    empty_repo.repos.insert("Demo".into(), other.clone());
    let err = empty_repo.prepare(&"Demo-1".parse().unwrap()).unwrap_err().to_string();
    assert!(err.contains("lacks the fixed revision"), "{err}");
    // A wrong bundle given once is not kept for the project: the right one is cloned anew.
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .current_dir(&other)
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    std::fs::write(other.join("x.txt"), "x\n").unwrap();
    git(&["add", "."]);
    git(&["commit", "-qm", "unrelated"]);
    let wrong = root.path().join("wrong.bundle");
    git(&["bundle", "create", wrong.to_str().unwrap(), "--all"]);
    let err = harness(root.path(), &meta, &wrong).prepare(&"Demo-1".parse().unwrap()).unwrap_err().to_string();
    assert!(err.contains("lacks the fixed revision") && err.contains("wrong.bundle"), "{err}");
    let right = root.path().join("demo.bundle");
    let p = harness(root.path(), &meta, &right).prepare(&"Demo-1".parse().unwrap());
    assert!(p.is_ok_and(|p| p.check.passed), "the right bundle after a wrong one");
    // With Demo-1's checkouts and gold check now cached, the wrong bundle is still refused.
    let err = harness(root.path(), &meta, &wrong).prepare(&"Demo-1".parse().unwrap()).unwrap_err().to_string();
    assert!(err.contains("lacks the fixed revision") && err.contains("wrong.bundle"), "{err}");

    let mut no_jars = harness(root.path(), &meta, &repo);
    no_jars.java_dir = root.path().join("no-java");
    let err = no_jars.prepare(&"Demo-1".parse().unwrap()).unwrap_err();
    assert!(matches!(err, D4jError::Jar { .. }), "{err}");
    assert!(err.to_string().contains("junit4.jar") && err.to_string().contains("--jars"), "{err}");

    std::fs::remove_file(meta.join("Demo/dir-layout.csv")).unwrap();
    let err = h.prepare(&"Demo-1".parse().unwrap()).unwrap_err().to_string();
    assert!(err.contains("dir-layout.csv"), "{err}");
}

fn git_out(repo: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(repo)
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// `--own-history`: the harness lists the commits before the bug's fix (the earlier commit,
/// not the fix, not a later one); of the index's documents of the project, only those made
/// by such a commit are kept, and the repair's retrieval keeps exactly them.
#[test]
fn own_history_keeps_the_projects_fixes_from_before_the_bug_and_nothing_later() {
    let root = tempfile::tempdir().unwrap();
    let (meta, repo, _) = demo(root.path());
    let earlier = git_out(&repo, &["rev-parse", "HEAD~1"]);
    let fix = git_out(&repo, &["rev-parse", "HEAD"]);
    std::fs::write(repo.join("README.txt"), "demo, later\n").unwrap();
    git_out(&repo, &["commit", "-qam", "a later fix"]);
    let later = git_out(&repo, &["rev-parse", "HEAD"]);
    let h = harness(root.path(), &meta, &repo);
    let p = h.prepare(&"Demo-1".parse().unwrap()).unwrap();
    let history = h.history(&p.meta).unwrap();
    assert_eq!(history, [earlier.clone()].into_iter().collect());

    let mut docs = engine::testing::sample_records(8);
    let commits = [Some(&earlier), Some(&fix), Some(&later), None];
    for (i, d) in docs.iter_mut().enumerate() {
        d.project = if i < 4 { "Demo".into() } else { "other/project".into() };
        d.language = "java".into();
        d.meta = match commits.get(i).copied().flatten() {
            Some(c) => serde_json::json!({ "commit": c }).to_string(),
            None => String::new(),
        };
    }
    docs[4].meta = serde_json::json!({ "commit": earlier }).to_string();
    docs[5].meta = serde_json::json!({ "commit": &earlier[..12] }).to_string();
    docs[6].meta = serde_json::json!({ "commit": earlier.to_uppercase() }).to_string();
    let kept = repair::bench::defects4j::history_ids(&docs, &history);
    assert_eq!(
        kept,
        ["test:0", "test:4"],
        "by full commit hash alone (the caller passes the project's documents; abbreviated or upper-case hashes are not kept)"
    );

    let model: std::sync::Arc<dyn engine::embed::Embedder> = std::sync::Arc::new(engine::testing::tiny_embedder());
    let mut b = engine::IndexBuilder::new(model.identity().to_meta(), engine::testing::text_meta());
    let cfg = engine::hnsw::HnswConfig::default();
    for s in [engine::Space::CodeCause, engine::Space::Code] {
        let v = engine::testing::embed_records(model.as_ref(), &docs, s).unwrap();
        let g = engine::hnsw::build(&v, model.dim(), &cfg).unwrap();
        b.add_space(s, v, g, &cfg).unwrap();
    }
    let index = root.path().join("demo.fdx");
    b.write(&index, &docs, serde_json::Value::Null).unwrap();
    let retriever = repair::retrieve::Retriever::open(&index, model, Default::default()).unwrap();
    let project: Vec<String> = retriever.project_docs("demo").unwrap().into_iter().map(|d| d.id).collect();
    assert_eq!(project, ["test:0", "test:1", "test:2", "test:3"]);

    let mut repairer = patterns(&h, Localization::Perfect);
    repairer.retriever = Some(retriever);
    repairer.own_history = true;
    let folder = root.path().join("run-Demo-1");
    std::fs::create_dir_all(&folder).unwrap();
    let rec = repairer.repair(&"Demo-1".parse().unwrap(), &folder);
    assert_eq!(rec.status, Status::Finished, "{:?}", rec.reason);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("report.json")).unwrap()).unwrap();
    let exclusion = &report["retrieval"]["exclusion"];
    assert_eq!(exclusion["projects"], serde_json::json!(["Demo"]), "{report}");
    assert_eq!(exclusion["keep_ids"], serde_json::json!(["test:0"]), "{report}");

    // A shallow clone's history is cut short: refused, not read as "nothing came before".
    let shallow = root.path().join("shallow");
    let url = format!("file://{}", repo.display());
    git_out(root.path(), &["clone", "-q", "--depth", "2", &url, shallow.to_str().unwrap()]);
    git_out(&shallow, &["cat-file", "-e", &format!("{fix}^{{commit}}")]);
    let mut cut = h.clone();
    cut.repos.insert("Demo".into(), shallow);
    let e = cut.history(&p.meta).unwrap_err().to_string();
    assert!(e.contains("shallow clone") && e.contains("full history"), "{e}");

    // Without a repository for the project the bug cannot say what came before it.
    let mut bare = h.clone();
    bare.repos.clear();
    let e = bare.history(&p.meta).unwrap_err().to_string();
    assert!(e.contains("no repository for Demo") && e.contains("--repo Demo="), "{e}");
}

/// A candidate that makes the trigger test loop is a timeout at the runner's first-phase
/// limit (5 s here, the floor: the demo's trigger takes milliseconds on the fixed version),
/// reported against the looping test, not at the whole run's limit (300 s here, where the
/// test would fail by its harness's own timeout).
#[test]
fn a_candidate_whose_trigger_loops_times_out_at_the_first_phase_limit() {
    let root = tempfile::tempdir().unwrap();
    let (meta, _, bundle) = demo(root.path());
    let h = harness(root.path(), &meta, &bundle);
    let p = h.prepare(&"Demo-1".parse().unwrap()).unwrap();
    assert!(p.check.fixed_trigger_ms > 0 && p.check.fixed_trigger_ms <= p.check.fixed_test_ms, "{:?}", p.check);
    let factor = repair::validate::DEFAULT_TIMEOUT_FACTOR;
    assert_eq!(p.first_phase_limit(factor), Some(repair::bench::defects4j::validation::FIRST_PHASE_FLOOR));
    // `--candidate-timeout-factor 0`: no first-phase limit either.
    assert_eq!(p.first_phase_limit(0.0), None);
    assert!(!p.validator(std::time::Duration::from_secs(300), 0.0).test.display().contains("--first-phase-limit-ms"));
    let candidate = root.path().join("candidate");
    std::fs::create_dir_all(candidate.join("src/java/demo")).unwrap();
    let looping =
        CALC.replace("return a > b ? a : b;", "while (a == a) {\n            a = a ^ 1;\n        }\n        return b;");
    std::fs::write(candidate.join("src/java/demo/Calc.java"), looping).unwrap();
    let v = p.validator(std::time::Duration::from_secs(300), factor).validate(&candidate).unwrap();
    assert_eq!(v.verdict, repair::validate::Verdict::Timeout, "{}", v.feedback(2000));
    let test = v.test.as_ref().unwrap();
    assert_eq!(test.exit, repair::validate::Exit::Code(repair::validate::TIMED_OUT_CODE), "{}", v.feedback(2000));
    assert!(v.feedback(4000).contains("timed out after 5000 milliseconds"), "{}", v.feedback(4000));
    assert!(v.failing_tests.iter().any(|t| t.contains("testMax")), "{:?}", v.failing_tests);
    // The fixed version's code passes under the same limit: the limit is not a false alarm.
    std::fs::write(candidate.join("src/java/demo/Calc.java"), CALC).unwrap();
    let fixed = p.validator(std::time::Duration::from_secs(300), factor).validate(&candidate).unwrap();
    assert_eq!(fixed.verdict, repair::validate::Verdict::Plausible, "{}", fixed.feedback(2000));
}

#[test]
fn patterns_repairs_a_bug_into_a_run_folder_graded_exact_and_resume_skips_it() {
    let root = tempfile::tempdir().unwrap();
    let (meta, repo, _) = demo(root.path());
    let h = harness(root.path(), &meta, &repo);
    let repairer = patterns(&h, Localization::Method);
    let run_dir = root.path().join("run");
    let run = RunRecord {
        benchmark: "defects4j".into(),
        fixdex_version: "test".into(),
        started_unix: 0,
        strategy: "patterns".into(),
        localization: "method".into(),
        model: None,
        seed: 0,
        shard: None,
        bugs: vec!["Demo-1".into(), "Demo-2".into(), "Demo-3".into()],
        settings: serde_json::json!({}),
    };
    let todo = batch::open(&run_dir, &run, false, false).unwrap();
    let job = |id: &str, folder: &Path| repairer.repair(&id.parse().unwrap(), folder);
    let records = batch::run_bugs(&run_dir, &todo, 2, job, |_| {}).unwrap();
    let by = |b: &str| records.iter().find(|r| r.bug == b).unwrap().clone();
    let fixed = by("Demo-1");
    assert_eq!(fixed.status, Status::Finished, "{:?}", fixed.reason);
    assert!(fixed.plausible);
    assert_eq!(fixed.best_tier, Some(Tier::Exact), "{:?}", fixed.patches);
    assert_eq!(fixed.localization, "method: src/java/demo/Calc.java:5-7");
    assert!(fixed.validations >= 1 && fixed.first_plausible_validation.is_some());
    let folder = run_dir.join("bugs/Demo-1");
    let patched =
        std::fs::read_to_string(folder.join(&fixed.patches[0].files).join("src/java/demo/Calc.java")).unwrap();
    assert_eq!(patched, CALC);
    assert!(folder.join("report.json").is_file() && folder.join("fixed/src/java/demo/Calc.java").is_file());
    assert_eq!(by("Demo-2").status, Status::Infra);
    assert_eq!(by("Demo-3").status, Status::Infra);
    assert!(by("Demo-3").reason.unwrap().contains("gold check failed"));
    // resume: nothing left to do; --retry-failed redoes the two infra bugs
    assert!(batch::open(&run_dir, &run, true, false).unwrap().is_empty());
    assert_eq!(batch::open(&run_dir, &run, false, true).unwrap(), ["Demo-2", "Demo-3"]);
}

/// A stand-in for an installed Defects4J's `framework/bin/defects4j`, with the commands and
/// options the harness uses (`checkout -p P -v Nb|Nf -w DIR`, `compile -w DIR`,
/// `export -p PROP -w DIR`): checkouts from `project_repos/<P>.git` with the reversed patch
/// applied for `Nb`, builds into `target/classes` and `target/tests` (not the folders
/// fixdex's own set-up uses), a `cp.test` of its own junit jar. Every call is logged to
/// `calls.log`.
const FAKE_DEFECTS4J: &str = r#"#!/usr/bin/env bash
set -euo pipefail
home=$(cd "$(dirname "$0")/../.." && pwd)
echo "$*" >> "$home/calls.log"
cmd=$1; shift
p=; v=; w=.
while getopts "p:v:w:" o; do case $o in p) p=$OPTARG;; v) v=$OPTARG;; w) w=$OPTARG;; *) exit 2;; esac; done
junit=$home/framework/projects/lib/junit-4.11.jar
case $cmd in
  checkout)
    n=${v%[bf]}
    rev=$(awk -F, -v n="$n" '$1 == n { print $3 }' "$home/framework/projects/$p/active-bugs.csv")
    mkdir -p "$w"
    git -C "$home/project_repos/$p.git" archive "$rev" | tar -x -C "$w"
    if [ "${v: -1}" = b ]; then (cd "$w" && git apply "$home/framework/projects/$p/patches/$n.src.patch"); fi
    printf 'pid=%s\nvid=%s\n' "$p" "$v" > "$w/.defects4j.config" ;;
  compile)
    cd "$w"
    echo "Running ant (compile)... " >&2
    mkdir -p target/classes target/tests
    javac -nowarn --release 8 -Xlint:-options -d target/classes $(find src/java -name '*.java')
    javac -nowarn --release 8 -Xlint:-options -cp "target/classes:$junit" -d target/tests $(find src/test -name '*.java') ;;
  export)
    [ -f "$w/.defects4j.config" ] || { echo "$w is not a valid working directory!" >&2; exit 1; }
    echo "Running ant (export.$p)... OK" >&2
    w=$(cd "$w" && pwd)
    case $p in
      dir.src.classes) printf 'src/java' ;;
      dir.src.tests) printf 'src/test' ;;
      dir.bin.classes) printf 'target/classes' ;;
      dir.bin.tests) printf 'target/tests' ;;
      cp.test) printf '%s' "$w/target/classes:$w/target/tests:$junit:/usr/share/java/hamcrest.jar" ;;
      *) echo "Unknown property $p" >&2; exit 1 ;;
    esac
    echo ;;
  *) echo "unknown command $cmd" >&2; exit 1 ;;
esac
"#;

/// A Defects4J installation at `root/d4j` holding the demo project: the stand-in command, the
/// metadata under `framework/projects` (with an empty `dir-layout.csv`: the folders come from
/// `export`), the repository under `project_repos/`, its own junit jar.
fn installed_demo(root: &Path) -> PathBuf {
    let (meta, repo, _) = demo(root);
    let home = root.join("d4j");
    let projects = home.join("framework/projects");
    std::fs::create_dir_all(home.join("framework/bin")).unwrap();
    std::fs::create_dir_all(projects.join("lib")).unwrap();
    std::fs::create_dir_all(home.join("project_repos")).unwrap();
    let cp = Command::new("cp").arg("-a").arg(meta.join("Demo")).arg(&projects).status().unwrap();
    assert!(cp.success());
    std::fs::write(projects.join("Demo/dir-layout.csv"), "").unwrap();
    std::fs::copy("/usr/share/java/junit4.jar", projects.join("lib/junit-4.11.jar")).unwrap();
    let bare = Command::new("git")
        .args(["clone", "-q", "--bare"])
        .arg(&repo)
        .arg(home.join("project_repos/Demo.git"))
        .status()
        .unwrap();
    assert!(bare.success());
    let bin = home.join("framework/bin/defects4j");
    std::fs::write(&bin, FAKE_DEFECTS4J).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    home
}

#[test]
fn an_installed_defects4j_checks_out_builds_and_exports_and_the_harness_checks_and_repairs_on_it() {
    let root = tempfile::tempdir().unwrap();
    let home = installed_demo(root.path());
    let installed = repair::bench::defects4j::Installed::new(&home).unwrap();
    let mut h = Harness::new(&installed.meta(), &root.path().join("work"));
    h.installed = Some(installed);
    let p = h.prepare(&"Demo-1".parse().unwrap()).unwrap();
    assert!(p.check.passed, "{:?}", p.check.reason);
    assert_eq!(p.check.failing_triggers, ["demo.CalcTest::testMax"]);
    assert_eq!(p.check.excluded, ["demo.CalcTest::testBrokenOnEveryVersion"]);
    // the layout and class path are Defects4J's exports, not dir-layout.csv or fixdex's table
    assert_eq!((p.meta.src_dir.as_str(), p.meta.test_dir.as_str()), ("src/java", "src/test"));
    let junit = home.join("framework/projects/lib/junit-4.11.jar");
    assert_eq!(p.jars, [junit, PathBuf::from("/usr/share/java/hamcrest.jar")]);
    assert!(p.classes.join("buggy/demo/Calc.class").is_file() && p.classes.join("test/demo/CalcTest.class").is_file());
    let calls = || std::fs::read_to_string(home.join("calls.log")).unwrap();
    let log = calls();
    for call in ["checkout -p Demo -v 1f -w", "checkout -p Demo -v 1b -w", "compile -w", "export -p cp.test -w"] {
        assert!(log.contains(call), "no `{call}` in\n{log}");
    }
    // cached: a second prepare asks Defects4J nothing
    let again = h.prepare(&"Demo-1".parse().unwrap()).unwrap();
    assert_eq!((again.check, again.jars), (p.check, p.jars));
    assert_eq!(calls(), log);
    // the gold check is still fixdex's: bug 3's trigger passes on the buggy version
    let p3 = h.prepare(&"Demo-3".parse().unwrap()).unwrap();
    assert!(!p3.check.passed && p3.check.reason.unwrap().contains("no trigger test fails"));
    // a failing Defects4J step names the bug and the step: bug 2's patch does not apply
    let err = h.prepare(&"Demo-2".parse().unwrap()).unwrap_err().to_string();
    assert!(err.contains("Demo-2") && err.contains("defects4j checkout -v 2b"), "{err}");

    // and a repair validates candidates against the exported class path
    let repairer = patterns(&h, Localization::Perfect);
    let folder = root.path().join("run/bugs/Demo-1");
    std::fs::create_dir_all(&folder).unwrap();
    let record = repairer.repair(&"Demo-1".parse().unwrap(), &folder);
    assert_eq!(record.status, Status::Finished, "{:?}", record.reason);
    assert!(record.plausible);
    assert_eq!(record.best_tier, Some(Tier::Exact), "{:?}", record.patches);
}
