//! The ReinFix workflow end to end on the minibugs fixture with scripted model answers: real
//! internal tools, real retrieval over an index file, real patch application, real javac /
//! JUnit / pytest runs. Covers malformed model output (no tool call, unknown tool, invalid
//! JSON arguments, a patch whose context is not in the file, a `../` path, a build error) and
//! every exit path (plausible, budget, timeout, pre-flight failure, search space exhausted).

use crate::common::{choices, minibugs, runner};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use engine::hnsw::{self, HnswConfig};
use engine::{IndexBuilder, Record, Space};
use repair::bench::quixbugs::{self, Lang, Runner};
use repair::llm::{Budget, Script, ScriptedClient};
use repair::retrieve::{Exclusion, Retriever};
use repair::run::bug::{Bug, Location};
use repair::run::config::RunConfig;
use repair::run::report::Outcome;
use repair::run::workflow::Workflow;
use repair::strategies::reinfix::ReinFix;

fn bug(lang: Lang, name: &str) -> Bug {
    let p = quixbugs::discover(&minibugs(), lang).unwrap().into_iter().find(|p| p.name == name).unwrap();
    Bug {
        id: Some(format!("minibugs:{lang}:{name}")),
        root: minibugs(),
        file: p.source,
        location: Location::Method(if lang == Lang::Java { name.to_lowercase() } else { name.to_string() }),
        failing_tests: Vec::new(),
    }
}

fn workflow<'a>(client: &'a ScriptedClient, lang: Lang, name: &str, retriever: Option<Retriever>) -> Workflow<'a> {
    let r = runner(lang);
    let p = quixbugs::discover(&minibugs(), lang).unwrap().into_iter().find(|p| p.name == name).unwrap();
    // Two candidates per suggestion, as many as the scripts give: a request sent with more
    // would be made up with further requests (issue 9, fault 4).
    let config = RunConfig { model: "test-model".into(), ..RunConfig::default() };
    let reinfix = ReinFix { patches: 2, ..ReinFix::default() };
    Workflow::new(client, retriever, r.validator(&p), config)
        .with_strategy(Box::new(reinfix))
        .with_scratch_filter(quixbugs::scratch_filter(lang))
}

/// A small index (tiny seeded model) whose records include the bug under repair itself,
/// which the retriever must never return.
fn retriever(dir: &Path, exclude_id: &str) -> Retriever {
    let model: Arc<dyn engine::embed::Embedder> = Arc::new(engine::testing::tiny_embedder());
    let mut docs = engine::testing::sample_records(12);
    docs.push(Record {
        id: exclude_id.to_string(),
        project: "minibugs".into(),
        language: "java".into(),
        buggy_code: "for (int i = 1; i < n; i++) total += i;".into(),
        fixed_code: "for (int i = 1; i <= n; i++) total += i;".into(),
        root_cause: "the loop stops before n".into(),
        ..Record::default()
    });
    let path = dir.join("t.fdx");
    let mut b = IndexBuilder::new(model.identity().to_meta(), engine::testing::text_meta());
    let cfg = HnswConfig::default();
    let v = engine::testing::embed_records(model.as_ref(), &docs, Space::CodeCause).unwrap();
    let g = hnsw::build(&v, model.dim(), &cfg).unwrap();
    b.add_space(Space::CodeCause, v, g, &cfg).unwrap();
    b.write(&path, &docs, serde_json::Value::Null).unwrap();
    Retriever::open(&path, model, Exclusion { ids: vec![exclude_id.into()], projects: vec![], keep_ids: Vec::new() })
        .unwrap()
}

const SUM_TO_FIX: &str = "```diff\n--- a/java_programs/SUM_TO.java\n+++ b/java_programs/SUM_TO.java\n@@ -6 +6 @@\n-        for (int i = 1; i < n; i++) {\n+        for (int i = 1; i <= n; i++) {\n```\n";

/// The full path: inconclusive first answer, a ReAct loop with an unknown tool (re-asked),
/// invalid JSON arguments (re-asked), a real tool call, a final answer without a cause
/// (nudged), the cause; retrieval; suggestions; four candidates: context not in the file,
/// a `../` path, a build error, a test failure; then the corrected one is plausible.
#[test]
fn java_full_path_with_malformed_output() {
    let dir = tempfile::tempdir().unwrap();
    let b = bug(Lang::Java, "SUM_TO");
    let ret = retriever(dir.path(), b.id.as_deref().unwrap());
    let client = ScriptedClient::new(vec![
        Script::text("Not sure yet.\nROOT CAUSE: NONE"),
        Script::tool_call("read_whole_repo", &serde_json::json!({})),
        Script::raw_tool_call("find_method_in_file", "{\"file\": \"java_programs/SUM_TO.java\", "),
        Script::tool_call(
            "find_method_in_file",
            &serde_json::json!({"file": "java_programs/SUM_TO.java", "method": "sum_to"}),
        ),
        Script::text("The method sums a range."),
        Script::text("ROOT CAUSE: the loop condition `i < n` stops before adding n itself."),
        Script::text("SUGGESTION 1: change the bound to `i <= n`.\nSUGGESTION 2: add n after the loop."),
        // Suggestion 1: no candidate applies, so the refusal goes back once; the corrected
        // patch does not build.
        choices(
            &[
                "```diff\n@@ -6 +6 @@\n-        for (int j = 1; j < n; j++) {\n+        for (int j = 1; j <= n; j++) {\n```",
                "```diff\n--- a/../SUM_TO.java\n+++ b/../SUM_TO.java\n@@\n-        return total;\n+        return total + n;\n```",
            ],
            (100, 20),
        ),
        choices(
            &["<<<<<<< SEARCH\n        return total;\n=======\n        return total +\n>>>>>>> REPLACE"],
            (100, 20),
        ),
        // Suggestion 2: a wrong patch, then the fix.
        choices(
            &[
                "<<<<<<< SEARCH\n            total += i;\n=======\n            total += i + 1;\n>>>>>>> REPLACE",
                SUM_TO_FIX,
            ],
            (100, 20),
        ),
    ]);
    let report = workflow(&client, Lang::Java, "SUM_TO", Some(ret)).run(&b);
    assert_eq!(report.outcome, Outcome::Plausible, "{:#?}", report);
    assert!(report.synthetic, "a scripted run must be marked synthetic");
    assert_eq!(report.root_cause_source.as_deref(), Some("react"));
    assert!(report.root_cause.as_deref().unwrap().contains("`i < n`"));
    // One real tool call ran (the unknown tool and the broken JSON were re-asked inside the turn).
    assert_eq!(report.tool_calls.len(), 1, "{:#?}", report.tool_calls);
    assert!(report.tool_calls[0].output_excerpt.contains("6:         for (int i = 1; i < n; i++) {"));
    // Retrieval: the bug's own record is excluded.
    assert!(!report.retrieved.is_empty());
    assert!(report.retrieved.iter().all(|f| f.id != "minibugs:java:SUM_TO"));
    let verdicts: Vec<&str> = report.candidates.iter().map(|c| c.verdict.as_str()).collect();
    assert_eq!(
        verdicts,
        ["patch_refused", "patch_refused", "compile_error", "test_failure", "plausible"],
        "{report:#?}"
    );
    assert!(
        report.candidates[0].feedback.as_deref().unwrap().contains("not in the file"),
        "{:?}",
        report.candidates[0]
    );
    assert!(report.candidates[1].feedback.as_deref().unwrap().contains(".."), "{:?}", report.candidates[1]);
    assert_eq!(report.candidates[3].failing_tests.len(), 2, "{:?}", report.candidates[3]);
    let patch = report.patch.as_deref().unwrap();
    assert!(patch.contains("+        for (int i = 1; i <= n; i++) {"), "{patch}");
    assert_eq!(report.llm.calls, 10, "one call per scripted answer, the 2 re-asked ones included");
    assert_eq!(client.remaining(), 0);
    // The requests: the suggestion prompt carries the root cause and the similar fixes; the
    // re-asks told the model what was wrong.
    let reqs = client.requests();
    let suggest = reqs.iter().find(|r| r.messages[1].text().contains("repair suggestions")).unwrap();
    assert!(suggest.messages[1].text().contains("Similar historical bug fixes"));
    assert!(suggest.messages[1].text().contains("Root cause: the loop condition"));
    let reask = reqs.iter().flat_map(|r| r.messages.iter()).any(|m| m.text().contains("read_whole_repo"));
    assert!(reask, "the unknown tool was not reported back");
    let corrected = &reqs[8];
    assert!(corrected.messages.last().unwrap().text().contains("could not be applied"), "{corrected:#?}");
    assert_eq!(report.candidates[2].suggestion, 1);
    assert_eq!(report.candidates[4].suggestion, 2);
    // The fixture is untouched.
    let src = std::fs::read_to_string(minibugs().join("java_programs/SUM_TO.java")).unwrap();
    assert!(src.contains("i < n;"));
    // The report is JSON.
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["outcome"], "plausible");
    assert_eq!(json["client"]["kind"], "scripted");
}

/// Python: root cause at once, no retrieval (ablation), endless-loop candidate killed by the
/// timeout, then the fix.
#[test]
fn python_endless_candidate_then_fix() {
    let b = bug(Lang::Python, "sum_to");
    let client = ScriptedClient::new(vec![
        Script::text("ROOT CAUSE: `range(1, n)` excludes n."),
        Script::text("SUGGESTION 1: use range(1, n + 1)."),
        choices(
            &[
                "<<<<<<< SEARCH\n    for i in range(1, n):\n=======\n    while True:\n        i = 0\n>>>>>>> REPLACE",
                "<<<<<<< SEARCH\n    for i in range(1, n):\n=======\n    for i in range(1, n + 1):\n>>>>>>> REPLACE",
            ],
            (100, 20),
        ),
    ]);
    let report = workflow(&client, Lang::Python, "sum_to", None).run(&b);
    assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
    assert_eq!(report.root_cause_source.as_deref(), Some("without_donor"));
    assert!(report.retrieved.is_empty() && report.retrieval.is_none());
    let verdicts: Vec<&str> = report.candidates.iter().map(|c| c.verdict.as_str()).collect();
    assert_eq!(verdicts[1], "plausible");
    assert!(["timeout", "test_failure"].contains(&verdicts[0]), "{verdicts:?}");
}

/// Every candidate fails: the search space (attempts × suggestions × patches) is exhausted,
/// later attempts are told what failed, and duplicates are not run twice.
#[test]
fn search_space_exhausted_and_duplicates() {
    let b = bug(Lang::Python, "sum_to");
    let wrong = "<<<<<<< SEARCH\n    return total\n=======\n    return total + 1\n>>>>>>> REPLACE";
    let client = ScriptedClient::new(vec![
        Script::text("ROOT CAUSE: off by one."),
        Script::text("SUGGESTION 1: add one."),
        choices(&[wrong, wrong], (100, 20)),
        Script::text("SUGGESTION 1: add one again."),
        choices(&[wrong], (100, 20)),
    ]);
    let r = runner(Lang::Python);
    let p = quixbugs::discover(&minibugs(), Lang::Python).unwrap().into_iter().find(|p| p.name == "sum_to").unwrap();
    let config = RunConfig { model: "m".into(), ..RunConfig::default() };
    let reinfix = ReinFix { attempts: 2, suggestions: 1, patches: 2, ..ReinFix::default() };
    let report = Workflow::new(&client, None, r.validator(&p), config)
        .with_strategy(Box::new(reinfix))
        .with_scratch_filter(quixbugs::scratch_filter(Lang::Python))
        .run(&b);
    assert_eq!(report.outcome, Outcome::NoPlausiblePatch, "{report:#?}");
    let verdicts: Vec<&str> = report.candidates.iter().map(|c| c.verdict.as_str()).collect();
    assert_eq!(verdicts, ["test_failure", "duplicate", "duplicate"]);
    let second_suggest = &client.requests()[3];
    assert!(second_suggest.messages[1].text().contains("These patches were tried and failed"));
    assert!(report.patch.is_none());
}

#[test]
fn budget_and_preflight_exits_write_reports() {
    // Budget: two calls allowed; the third (suggestions) is refused.
    let b = bug(Lang::Python, "sum_to");
    let client = ScriptedClient::new(vec![Script::text("ROOT CAUSE: NONE"), Script::text("thinking")]);
    let r = runner(Lang::Python);
    let p = quixbugs::discover(&minibugs(), Lang::Python).unwrap().into_iter().find(|p| p.name == "sum_to").unwrap();
    let config = RunConfig {
        model: "m".into(),
        budget: Budget { max_calls: Some(2), max_tokens: None, max_micro_usd: None },
        ..RunConfig::default()
    };
    let report = Workflow::new(&client, None, r.validator(&p), config.clone())
        .with_scratch_filter(quixbugs::scratch_filter(Lang::Python))
        .run(&b);
    assert_eq!(report.outcome, Outcome::BudgetExhausted, "{report:#?}");
    assert_eq!(report.llm.calls, 2);
    assert!(report.error.as_deref().unwrap().contains("calls"), "{:?}", report.error);

    // Pre-flight: a project whose tests already pass is refused before any LLM call.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("fixed");
    copy_dir(&minibugs(), &root);
    let f = root.join("python_programs/sum_to.py");
    std::fs::write(&f, std::fs::read_to_string(&f).unwrap().replace("range(1, n)", "range(1, n + 1)")).unwrap();
    let client = ScriptedClient::new(vec![]);
    let fixed_bug = Bug { root: root.clone(), ..b };
    let r = Runner::new(&root, Lang::Python, Duration::from_secs(60)).unwrap();
    let report = Workflow::new(&client, None, r.validator(&p), config).run(&fixed_bug);
    assert_eq!(report.outcome, Outcome::PreflightFailed, "{report:#?}");
    assert!(report.error.as_deref().unwrap().contains("pass on the buggy version"));
    assert_eq!(report.llm.calls, 0);

    // Pre-flight: a test the user names as failing must fail.
    let client = ScriptedClient::new(vec![]);
    let named = Bug { failing_tests: vec!["test_sum_to[input_data0-0]".into()], ..bug(Lang::Python, "sum_to") };
    let r = runner(Lang::Python);
    let report = Workflow::new(&client, None, r.validator(&p), RunConfig { model: "m".into(), ..RunConfig::default() })
        .with_scratch_filter(quixbugs::scratch_filter(Lang::Python))
        .run(&named);
    assert_eq!(report.outcome, Outcome::PreflightFailed, "{report:#?}");
    assert!(report.error.as_deref().unwrap().contains("does not fail"), "{:?}", report.error);
}

#[test]
fn wall_clock_limit_ends_the_run() {
    let b = bug(Lang::Java, "SUM_TO");
    let client = ScriptedClient::new(vec![Script::text("ROOT CAUSE: NONE")]);
    let r = runner(Lang::Java);
    let p = quixbugs::discover(&minibugs(), Lang::Java).unwrap().into_iter().find(|p| p.name == "SUM_TO").unwrap();
    let config = RunConfig { model: "m".into(), wall: Some(Duration::from_millis(1)), ..RunConfig::default() };
    let report = Workflow::new(&client, None, r.validator(&p), config)
        .with_scratch_filter(quixbugs::scratch_filter(Lang::Java))
        .run(&b);
    assert_eq!(report.outcome, Outcome::Timeout, "{report:#?}");
    assert!(report.preflight.is_some(), "the pre-flight ran before the limit was checked");
}

fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let to = dst.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to);
        } else {
            std::fs::copy(e.path(), to).unwrap();
        }
    }
}

/// A workflow over the minibugs Python `sum_to` with `attempts` × 1 suggestion × 1 patch.
fn sum_to_workflow(client: &ScriptedClient, attempts: usize) -> Workflow<'_> {
    let r = runner(Lang::Python);
    let p = quixbugs::discover(&minibugs(), Lang::Python).unwrap().into_iter().find(|p| p.name == "sum_to").unwrap();
    let config = RunConfig { model: "m".into(), ..RunConfig::default() };
    let reinfix = ReinFix { attempts, suggestions: 1, patches: 1, ..ReinFix::default() };
    Workflow::new(client, None, r.validator(&p), config)
        .with_strategy(Box::new(reinfix))
        .with_scratch_filter(quixbugs::scratch_filter(Lang::Python))
}

const SUM_TO_PY_FIX: &str =
    "<<<<<<< SEARCH\n    for i in range(1, n):\n=======\n    for i in range(1, n + 1):\n>>>>>>> REPLACE";

/// Issue 8, item 9: an open model answers the ReAct phase with an unknown tool, then twice
/// with invalid JSON arguments. After the two re-asks the run goes on as when the ReAct
/// turns run out: the root cause is undetermined (the report says why), retrieval and the
/// solution phase follow, and with no plausible patch the outcome is `no_plausible_patch`
/// (`fixdex repair` exit 4), not `error`.
#[test]
fn issue_8_malformed_tool_calls_degrade_to_an_undetermined_root_cause() {
    let b = bug(Lang::Python, "sum_to");
    let client = ScriptedClient::new(vec![
        Script::text("ROOT CAUSE: NONE"),
        Script::tool_call("read_whole_repo", &serde_json::json!({})),
        Script::raw_tool_call("find_method_in_file", "{\"file\": "),
        Script::raw_tool_call("find_method_in_file", "{not json"),
        Script::text("SUGGESTION 1: return one more."),
        choices(&["<<<<<<< SEARCH\n    return total\n=======\n    return total + 1\n>>>>>>> REPLACE"], (100, 20)),
    ]);
    let report = sum_to_workflow(&client, 1).run(&b);
    assert_eq!(report.outcome, Outcome::NoPlausiblePatch, "{report:#?}");
    assert_eq!(report.root_cause_source.as_deref(), Some("undetermined"));
    assert_eq!(report.candidates.len(), 1);
    assert_eq!(client.remaining(), 0);
    let json = serde_json::to_value(&report).unwrap();
    assert!(json["root_cause_note"].as_str().unwrap().contains("ReAct turn 1 stayed unusable"), "{json:#}");
    assert_eq!(json["degraded"][0]["phase"], "react");
    assert_eq!(json["degraded"][0]["turn"], 1);
    assert!(json["degraded"][0]["reason"].as_str().unwrap().contains("not valid JSON"), "{json:#}");
    assert!(json["warnings"][0].as_str().unwrap().contains("react request"), "{json:#}");
    let suggest = &client.requests()[4];
    assert!(suggest.messages[1].text().contains("Root cause: undetermined"), "{suggest:#?}");
}

/// Issue 8, item 9, the same fault elsewhere: a reply that is not a chat completion costs
/// its own request only. The direct root-cause question (the ReAct loop takes over), one
/// suggestion request (its attempt is skipped) and one patch request (its suggestion is
/// skipped) fail; the third attempt still finds the fix.
#[test]
fn issue_8_an_unusable_reply_costs_only_its_request() {
    let b = bug(Lang::Python, "sum_to");
    let client = ScriptedClient::new(vec![
        Script::malformed_body("<html>502 Bad Gateway</html>"),
        Script::text("ROOT CAUSE: `range(1, n)` excludes n."),
        Script::malformed_body("{\"error\": \"overloaded\"}"),
        Script::text("SUGGESTION 1: use range(1, n + 1)."),
        Script::malformed_body(""),
        Script::text("SUGGESTION 1: use range(1, n + 1)."),
        choices(&[SUM_TO_PY_FIX], (100, 20)),
    ]);
    let report = sum_to_workflow(&client, 3).run(&b);
    assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
    assert_eq!(report.root_cause_source.as_deref(), Some("react"));
    let json = serde_json::to_value(&report).unwrap();
    let phases: Vec<&str> = json["degraded"].as_array().unwrap().iter().map(|d| d["phase"].as_str().unwrap()).collect();
    assert_eq!(phases, ["root_cause", "suggestions", "patches"], "{json:#}");
    assert_eq!(
        (json["degraded"][2]["attempt"].as_u64(), json["degraded"][2]["suggestion"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(report.suggestions.len(), 3);
    assert!(report.suggestions[0].is_empty());
}

/// When no reply of the whole run is usable, the endpoint is broken: `error`, not
/// `no_plausible_patch`.
#[test]
fn a_run_without_any_usable_reply_is_an_error() {
    let b = bug(Lang::Python, "sum_to");
    let client = ScriptedClient::new((0..4).map(|_| Script::malformed_body("not json")).collect());
    let report = sum_to_workflow(&client, 2).run(&b);
    assert_eq!(report.outcome, Outcome::Error, "{report:#?}");
    assert!(
        report.error.as_deref().unwrap().contains("no reply of the model was usable (4 requests)"),
        "{:?}",
        report.error
    );
    assert_eq!(client.remaining(), 0);
}

/// The fixture whose suite holds an unrelated always-failing test (`brokentest/README.md`).
fn brokentest() -> std::path::PathBuf {
    minibugs().with_file_name("brokentest")
}

fn brokentest_workflow<'a>(client: &'a ScriptedClient, test: repair::validate::CommandSpec) -> Workflow<'a> {
    let validator = repair::validate::Validator {
        build: None,
        test,
        timeout: Duration::from_secs(60),
        env: Vec::new(),
        reference: None,
        fail_fast: None,
    };
    let config = RunConfig { model: "m".into(), ..RunConfig::default() };
    let reinfix = ReinFix { attempts: 1, suggestions: 1, patches: 3, ..ReinFix::default() };
    Workflow::new(client, None, validator, config).with_strategy(Box::new(reinfix))
}

fn pytest() -> repair::validate::CommandSpec {
    let python = quixbugs::python_from_env().unwrap().to_string_lossy().into_owned();
    let args = [python.as_str(), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--timeout=20", "tests"];
    repair::validate::CommandSpec::Argv(args.iter().map(|s| (*s).to_string()).collect())
}

fn brokentest_bug(failing_tests: &[&str]) -> Bug {
    Bug {
        id: None,
        root: brokentest(),
        file: "calc.py".into(),
        location: Location::Method("add".into()),
        failing_tests: failing_tests.iter().map(|s| (*s).to_string()).collect(),
    }
}

const ADD_FIX: &str = "<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE";

/// Issue 8, item 12: `tests/test_service.py::test_needs_service` fails on the buggy and on
/// the fixed version. With the bug's test named, the pre-flight records it as a failure from
/// before, the report lists it and warns, and the fix is plausible (Defects4J: the named test
/// passes, no test that passed before fails). A candidate that breaks a passing test, and
/// one whose test run dies before pytest's summary, are not plausible.
#[test]
fn issue_8_a_test_failing_before_the_bug_does_not_block_a_plausible_patch() {
    let crash = "<<<<<<< SEARCH\n    return a - b\n=======\n    import os\n    os._exit(1)\n>>>>>>> REPLACE";
    let regression = format!("{ADD_FIX}\n<<<<<<< SEARCH\n    return 2 * x\n=======\n    return 3 * x\n>>>>>>> REPLACE");
    let client = ScriptedClient::new(vec![
        Script::text("ROOT CAUSE: `add` subtracts its arguments."),
        Script::text("SUGGESTION 1: return a + b."),
        choices(&[crash, &regression, ADD_FIX], (100, 20)),
    ]);
    let report = brokentest_workflow(&client, pytest()).run(&brokentest_bug(&["test_add"]));
    assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
    let verdicts: Vec<&str> = report.candidates.iter().map(|c| c.verdict.as_str()).collect();
    assert_eq!(verdicts, ["test_failure", "test_failure", "plausible"], "{report:#?}");
    assert_eq!(
        report.candidates[1].failing_tests,
        ["tests/test_calc.py::test_double", "tests/test_service.py::test_needs_service"]
    );
    assert_eq!(report.candidates[2].failing_tests, ["tests/test_service.py::test_needs_service"]);
    assert!(report.patch.as_deref().unwrap().contains("+    return a + b"));
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["preflight"]["failing_tests_known"], true);
    assert_eq!(json["plausibility"]["rule"], "no_new_failures", "{json:#}");
    assert_eq!(json["plausibility"]["bug_tests"], serde_json::json!(["tests/test_calc.py::test_add"]));
    assert_eq!(
        json["plausibility"]["preexisting_failures"],
        serde_json::json!(["tests/test_service.py::test_needs_service"])
    );
    let warnings = json["warnings"].to_string();
    assert!(
        warnings.contains("test_needs_service") && warnings.contains("not among the named failing tests"),
        "{warnings}"
    );
}

/// Issue 8, item 12, without named tests: every failing test counts as the bug's (today's
/// rule, said in the report), and the run that never gets the unrelated test to pass ends
/// with a warning that names it and says how to tolerate it.
#[test]
fn issue_8_without_named_tests_every_test_must_pass_and_the_report_says_why() {
    let client = ScriptedClient::new(vec![
        Script::text("ROOT CAUSE: `add` subtracts its arguments."),
        Script::text("SUGGESTION 1: return a + b."),
        choices(&[ADD_FIX], (100, 20)),
    ]);
    let report = brokentest_workflow(&client, pytest()).run(&brokentest_bug(&[]));
    assert_eq!(report.outcome, Outcome::NoPlausiblePatch, "{report:#?}");
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["plausibility"]["rule"], "all_tests_pass", "{json:#}");
    assert!(json["plausibility"]["reason"].as_str().unwrap().contains("no failing test was named"));
    let warnings = json["warnings"].to_string();
    assert!(
        warnings
            .contains("tests/test_service.py::test_needs_service failed on the buggy version and in every candidate"),
        "{warnings}"
    );
    assert!(warnings.contains("--failing-test"), "{warnings}");
}

/// Issue 8, item 12, an unknown test runner: no failing test name can be read, so the named
/// test cannot be checked (a warning, not a refused run) and a candidate must pass every
/// test, as the report says.
#[test]
fn issue_8_unknown_test_runner_falls_back_to_every_test_passing() {
    let client = ScriptedClient::new(vec![
        Script::text("ROOT CAUSE: `add` subtracts its arguments."),
        Script::text("SUGGESTION 1: return a + b."),
        choices(&[ADD_FIX], (100, 20)),
    ]);
    let check =
        repair::validate::CommandSpec::Shell("grep -q 'a + b' calc.py || { echo 'checks: 1 bad'; exit 1; }".into());
    let report = brokentest_workflow(&client, check).run(&brokentest_bug(&["test_add"]));
    assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["preflight"]["failing_tests_known"], false);
    assert_eq!(json["plausibility"]["rule"], "all_tests_pass", "{json:#}");
    assert!(json["plausibility"]["reason"].as_str().unwrap().contains("could not be read"), "{json:#}");
    assert!(json["warnings"].to_string().contains("could not be checked"), "{json:#}");
}

/// A workflow over `sum_to` with `suggestions` × `patches` in one attempt and `config`'s
/// other knobs.
fn sum_to_workflow_with(client: &ScriptedClient, config: RunConfig, reinfix: ReinFix) -> Workflow<'_> {
    let r = runner(Lang::Python);
    let p = quixbugs::discover(&minibugs(), Lang::Python).unwrap().into_iter().find(|p| p.name == "sum_to").unwrap();
    Workflow::new(client, None, r.validator(&p), config)
        .with_strategy(Box::new(reinfix))
        .with_scratch_filter(quixbugs::scratch_filter(Lang::Python))
}

const SUM_TO_TEXT_CALL: &str = "<tool_call>{\"name\": \"find_method_in_file\", \"arguments\": {\"file\": \
                                \"python_programs/sum_to.py\", \"method\": \"sum_to\"}}</tool_call>";

/// Issue 9, fault 1: a ReAct reply cut off at the token limit (`finish_reason: "length"`)
/// with nothing complete in it is not re-asked: the loop ends with the root cause
/// undetermined (the note says it was cut off) and the run reaches the solution phase.
/// Also fault 3: a call the model wrote as text is answered with a `user` message.
#[test]
fn issue_9_a_cut_off_react_reply_ends_reasoning_and_the_run_goes_on() {
    let b = bug(Lang::Python, "sum_to");
    let client = ScriptedClient::new(vec![
        Script::text("ROOT CAUSE: NONE"),
        Script::text(SUM_TO_TEXT_CALL),
        Script::truncated("Looking at the method, I think the problem might be that the loop"),
        Script::text("SUGGESTION 1: use range(1, n + 1)."),
        choices(&[SUM_TO_PY_FIX], (100, 20)),
    ]);
    let report = sum_to_workflow(&client, 1).run(&b);
    assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
    assert_eq!(client.remaining(), 0);
    assert_eq!(report.root_cause_source.as_deref(), Some("undetermined"));
    assert!(report.root_cause_note.as_deref().unwrap().contains("cut off"), "{:?}", report.root_cause_note);
    assert_eq!(report.degraded.len(), 1);
    assert_eq!(report.tool_calls.len(), 1);
    let after_call = &client.requests()[2].messages;
    let last = after_call.last().unwrap();
    assert_eq!(last.role, repair::llm::Role::User, "{after_call:#?}");
    assert!(last.text().starts_with("Result of find_method_in_file"), "{}", last.text());
}

/// Issue 9, fault 1: a cut-off reply that holds a complete `ROOT CAUSE:` line is used.
#[test]
fn issue_9_a_cut_off_reply_with_a_complete_root_cause_line_is_used() {
    let b = bug(Lang::Python, "sum_to");
    let client = ScriptedClient::new(vec![
        Script::text("ROOT CAUSE: NONE"),
        Script::truncated("ROOT CAUSE: `range(1, n)` stops before n.\nTo fix it, the upper bound of the ra"),
        Script::text("SUGGESTION 1: use range(1, n + 1)."),
        choices(&[SUM_TO_PY_FIX], (100, 20)),
    ]);
    let report = sum_to_workflow(&client, 1).run(&b);
    assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
    assert_eq!(report.root_cause_source.as_deref(), Some("react"));
    assert_eq!(report.root_cause.as_deref(), Some("`range(1, n)` stops before n."));
    assert_eq!(client.remaining(), 0);
}

/// Issue 9, fault 1 in the solution phase: a cut-off suggestion reply keeps its complete
/// suggestions (not the cut one); a cut-off patch choice keeps its complete edits: one cut
/// inside its only hunk (which as written would delete the loop line) is refused, one with
/// a complete block before the cut is validated and plausible.
#[test]
fn issue_9_cut_off_suggestions_and_patches_are_used_for_their_complete_part() {
    let b = bug(Lang::Python, "sum_to");
    let cut_hunk = "```diff\n--- a/python_programs/sum_to.py\n+++ b/python_programs/sum_to.py\n@@ -3 +3 @@\n-    for i in range(1, n):\n";
    let complete_then_cut = format!("{SUM_TO_PY_FIX}\nAlso:\n<<<<<<< SEARCH\n    return total\n=======\n");
    let mut patches = choices(&[cut_hunk, &complete_then_cut], (100, 20));
    if let Script::Respond(r) = &mut patches {
        r.choices.iter_mut().for_each(|c| c.finish_reason = Some("length".into()));
    }
    let client = ScriptedClient::new(vec![
        Script::text("ROOT CAUSE: `range(1, n)` stops before n."),
        Script::truncated("SUGGESTION 1: use range(1, n + 1).\nSUGGESTION 2: chan"),
        patches,
    ]);
    let config = RunConfig { model: "m".into(), ..RunConfig::default() };
    let reinfix = ReinFix { attempts: 1, suggestions: 3, patches: 2, ..ReinFix::default() };
    let report = sum_to_workflow_with(&client, config, reinfix).run(&b);
    assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
    assert_eq!(report.suggestions, vec![vec!["use range(1, n + 1).".to_string()]]);
    let verdicts: Vec<&str> = report.candidates.iter().map(|c| c.verdict.as_str()).collect();
    assert_eq!(verdicts, ["patch_refused", "plausible"], "{report:#?}");
    assert!(report.candidates[0].feedback.as_deref().unwrap().contains("cut off"), "{report:#?}");
    assert_eq!(report.context.cut_off_replies, 3);
}

/// Issue 9, fault 7: `ROOT CAUSE: NONE\`` (an echoed none with a backtick) is not a root
/// cause: the ReAct loop runs and its cause is taken.
#[test]
fn issue_9_an_echoed_none_is_not_taken_as_the_root_cause() {
    let b = bug(Lang::Python, "sum_to");
    let client = ScriptedClient::new(vec![
        Script::text("ROOT CAUSE: NONE`"),
        Script::text("ROOT CAUSE: <one or two sentences>"),
        Script::text("ROOT CAUSE: `range(1, n)` stops before n."),
        Script::text("SUGGESTION 1: use range(1, n + 1)."),
        choices(&[SUM_TO_PY_FIX], (100, 20)),
    ]);
    let report = sum_to_workflow(&client, 1).run(&b);
    assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
    assert_eq!(report.root_cause_source.as_deref(), Some("react"));
    assert_eq!(report.root_cause.as_deref(), Some("`range(1, n)` stops before n."));
    assert_eq!(client.remaining(), 0);
}

const CONTEXT_EXCEEDED: &str = r#"{"error": {"code": "context_length_exceeded", "message": "Requested tokens (9000) exceed context window of 8192"}}"#;

/// Issue 9, fault 2: HTTP 400 `context_length_exceeded` in the ReAct loop: the request is
/// shrunk (the oldest tool exchange dropped) and sent once more, and its answer is used.
#[test]
fn issue_9_context_overflow_shrinks_the_request_and_retries_once() {
    let b = bug(Lang::Python, "sum_to");
    let call =
        |m: &str| Script::tool_call(m, &serde_json::json!({"file": "python_programs/sum_to.py", "method": "sum_to"}));
    let client = ScriptedClient::new(vec![
        Script::text("ROOT CAUSE: NONE"),
        call("find_method_in_file"),
        call("analyze_method_details"),
        Script::http_error(400, CONTEXT_EXCEEDED),
        Script::text("ROOT CAUSE: `range(1, n)` stops before n."),
        Script::text("SUGGESTION 1: use range(1, n + 1)."),
        choices(&[SUM_TO_PY_FIX], (100, 20)),
    ]);
    let report = sum_to_workflow(&client, 1).run(&b);
    assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
    assert_eq!(report.root_cause_source.as_deref(), Some("react"));
    assert_eq!(report.context.overflow_retries, 1);
    let requests = client.requests();
    let chars = |i: usize| requests[i].messages.iter().map(|m| m.text().len()).sum::<usize>();
    assert!(chars(4) < chars(3), "the retry is smaller: {} vs {}", chars(4), chars(3));
}

/// Issue 9, fault 2: when the shrunk request overflows again, the turn is given up like an
/// unusable reply: the root cause is undetermined and the solution phase runs (not `error`).
#[test]
fn issue_9_a_second_context_overflow_degrades_instead_of_failing() {
    let b = bug(Lang::Python, "sum_to");
    let client = ScriptedClient::new(vec![
        Script::text("ROOT CAUSE: NONE"),
        Script::text(SUM_TO_TEXT_CALL),
        Script::http_error(400, CONTEXT_EXCEEDED),
        Script::http_error(400, CONTEXT_EXCEEDED),
        Script::text("SUGGESTION 1: use range(1, n + 1)."),
        choices(&[SUM_TO_PY_FIX], (100, 20)),
    ]);
    let report = sum_to_workflow(&client, 1).run(&b);
    assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
    assert_eq!(report.root_cause_source.as_deref(), Some("undetermined"));
    assert!(report.degraded[0].reason.contains("context window"), "{:?}", report.degraded);
    assert_eq!(client.remaining(), 0);
}

/// Issue 9, fault 2: with a small context window, every request of a long ReAct loop stays
/// within the window less the reply budget (estimated as documented), old tool exchanges
/// are dropped, and the task prompt always stays.
#[test]
fn issue_9_the_history_stays_within_the_context_window() {
    use repair::llm::context::{ContextBudget, Estimator};
    let b = bug(Lang::Python, "sum_to");
    let tools = ["find_method_in_file", "analyze_method_details", "trace_method_usage", "get_imports"];
    let mut scripts = vec![Script::text("ROOT CAUSE: NONE")];
    for t in tools.iter().cycle().take(7) {
        scripts
            .push(Script::tool_call(t, &serde_json::json!({"file": "python_programs/sum_to.py", "method": "sum_to"})));
    }
    scripts.push(Script::text("ROOT CAUSE: `range(1, n)` stops before n."));
    scripts.push(Script::text("SUGGESTION 1: use range(1, n + 1)."));
    scripts.push(choices(&[SUM_TO_PY_FIX], (100, 20)));
    let client = ScriptedClient::new(scripts);
    let budget = ContextBudget { context_tokens: CONTEXT_TOKENS, reply_tokens: 256 };
    let reinfix = ReinFix { attempts: 1, suggestions: 1, patches: 1, ..ReinFix::default() };
    let config =
        RunConfig { model: "m".into(), max_tokens: Some(256), context_tokens: CONTEXT_TOKENS, ..RunConfig::default() };
    let report = sum_to_workflow_with(&client, config, reinfix).run(&b);
    assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
    assert!(report.context.dropped_exchanges > 0, "{:?}", report.context);
    for r in client.requests() {
        let tokens = Estimator::default().tokens(&r);
        assert!(tokens <= budget.prompt_tokens(), "{tokens} > {}", budget.prompt_tokens());
        assert!(r.messages[1].text().contains("def sum_to"), "the task stays");
    }
}

const CONTEXT_TOKENS: u64 = 2_600;

/// Issue 9, fault 3: a server that ignores `tools` (the model answers in prose twice) gets
/// the text protocol: the system prompt lists the tools and the `<tool_call>` format, the
/// requests go without `tools`, the result comes back as a `user` message, and the report
/// says when and why the protocol switched.
#[test]
fn issue_9_a_server_that_ignores_tools_gets_the_text_protocol() {
    let b = bug(Lang::Python, "sum_to");
    let client = ScriptedClient::new(vec![
        Script::text("ROOT CAUSE: NONE"),
        Script::text("I need to look at the code first."),
        Script::text("Let me think about the loop."),
        Script::text(SUM_TO_TEXT_CALL),
        Script::text("ROOT CAUSE: `range(1, n)` stops before n."),
        Script::text("SUGGESTION 1: use range(1, n + 1)."),
        choices(&[SUM_TO_PY_FIX], (100, 20)),
    ]);
    let report = sum_to_workflow(&client, 1).run(&b);
    assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
    assert_eq!(report.root_cause_source.as_deref(), Some("react"));
    let requests = client.requests();
    assert!(!requests[1].tools.is_empty() && !requests[2].tools.is_empty());
    let text = &requests[3];
    assert!(text.tools.is_empty() && text.tool_choice.is_none(), "{text:#?}");
    let system = text.messages[0].text();
    assert!(
        system.contains("<tool_call>") && system.contains("find_method_in_file(file: string (required)"),
        "{system}"
    );
    assert!(!text.messages.iter().any(|m| m.text().contains("Let me think")), "failed native turns are dropped");
    let answered = requests[4].messages.last().unwrap();
    assert_eq!(answered.role, repair::llm::Role::User);
    assert!(answered.text().contains("def sum_to"), "{}", answered.text());
    assert!(!requests[4].messages.iter().any(|m| m.role == repair::llm::Role::Tool));
    assert_switched_to_text(&report, 3, "no tool call");
}

/// The report says the ReAct loop switched from native to text tool calls after LLM call
/// `after_call` for a reason that mentions `why`, and one tool call ran.
fn assert_switched_to_text(report: &repair::run::report::RepairReport, after_call: u64, why: &str) {
    let protocol = report.tool_protocol.clone().unwrap();
    assert_eq!((protocol.protocol, protocol.switched_after_call), ("native→text", Some(after_call)));
    let reason = protocol.reason.unwrap_or_default();
    assert!(reason.contains(why), "{reason}");
    assert_eq!(report.tool_calls.len(), 1);
}

/// Issue 9, fault 3, as seen with llama-cpp-python's `chatml-function-calling` format and
/// Gemma 3 270M: every reply to a request with tools is empty, through the re-asks. Before
/// any call has worked that means the server's tool support does not work: the loop
/// switches to the text protocol instead of giving up on the reasoning phase.
#[test]
fn issue_9_empty_replies_to_requests_with_tools_switch_to_the_text_protocol() {
    let b = bug(Lang::Python, "sum_to");
    let client = ScriptedClient::new(vec![
        Script::text("ROOT CAUSE: NONE"),
        Script::text(""),
        Script::text(""),
        Script::text(""),
        Script::text(SUM_TO_TEXT_CALL),
        Script::text("ROOT CAUSE: `range(1, n)` stops before n."),
        Script::text("SUGGESTION 1: use range(1, n + 1)."),
        choices(&[SUM_TO_PY_FIX], (100, 20)),
    ]);
    let report = sum_to_workflow(&client, 1).run(&b);
    assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
    assert_eq!(report.root_cause_source.as_deref(), Some("react"));
    assert!(report.degraded.is_empty(), "{:?}", report.degraded);
    let requests = client.requests();
    assert!(requests[1..4].iter().all(|r| !r.tools.is_empty()));
    assert!(requests[4].tools.is_empty(), "the text protocol sends no tools");
    assert_switched_to_text(&report, 4, "stayed unusable");
}

/// Issue 9, fault 3: a server that refuses `tools` with an HTTP 4xx naming them gets the
/// text protocol at once, and the run goes on.
#[test]
fn issue_9_a_server_refusing_tools_gets_the_text_protocol() {
    let b = bug(Lang::Python, "sum_to");
    let client = ScriptedClient::new(vec![
        Script::text("ROOT CAUSE: NONE"),
        Script::http_error(400, r#"{"error": {"message": "tools param requires --jinja flag"}}"#),
        Script::text(SUM_TO_TEXT_CALL),
        Script::text("ROOT CAUSE: `range(1, n)` stops before n."),
        Script::text("SUGGESTION 1: use range(1, n + 1)."),
        choices(&[SUM_TO_PY_FIX], (100, 20)),
    ]);
    let report = sum_to_workflow(&client, 1).run(&b);
    assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
    assert!(client.requests()[2].tools.is_empty());
    assert_switched_to_text(&report, 1, "jinja");
}
