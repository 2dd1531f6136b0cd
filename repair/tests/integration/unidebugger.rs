//! UniDebugger (issue 14) under the strict replay client: the escalation L1 → L2 → L3 →
//! reflection with real candidate patches really tested by the project's own commands (javac
//! and JUnit, pytest) and, at L3, the Helper's retrieval from a real index built in the test.
//!
//! The recordings in `tests/fixtures/replay/unidebugger-minibugs.jsonl` are **synthetic**:
//! made by running the strategy against [`RoleClient`], which answers each agent from its own
//! queue of hand-written answers in this file (routed by the agent's system prompt), wrapped
//! in a [`RecordingClient`]. They exercise the machinery (marks by context match, refusals
//! and re-asks, the Slicer's window, FixerPro, the Helper, RepoFocus, the reflection, the
//! budgets) and are never counted as repair results (`report.synthetic`). Regenerate them
//! after a prompt change with
//! `FIXDEX_WRITE_RECORDINGS=1 cargo nextest run -E 'test(/unidebugger_replay/)'`.
//! A replay that asks anything not recorded, or leaves a recording unused, fails.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use repair::bench::quixbugs::{self, Lang};
use repair::llm::{
    ChatClient, ChatRequest, ChatResponse, ClientInfo, LlmError, Message, RecordingClient, ReplayClient,
};
use repair::retrieve::{Exclusion, Retriever};
use repair::run::bug::{Bug, Location};
use repair::run::config::RunConfig;
use repair::run::report::{Outcome, RepairReport};
use repair::run::workflow::Workflow;
use repair::strategies::unidebugger::UniDebugger;
use repair::strategies::unidebugger::prompts::Role;
use repair::validate::Validator;
use repair::validate::scratch::ScratchFilter;
use serde_json::Value;

use crate::common::{minibugs, runner};

fn recordings() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/replay/unidebugger-minibugs.jsonl")
}

/// A synthetic client that answers each agent from its own queue, routed by the request's
/// system prompt; [`RoleClient::check_used`] fails when an answer was left unused.
struct RoleClient {
    queues: Mutex<Vec<(Role, VecDeque<String>)>>,
    /// Every request's role and user prompts, in order.
    asked: Mutex<Vec<(Role, String)>>,
}

impl RoleClient {
    fn new(answers: Vec<(Role, Vec<String>)>) -> RoleClient {
        RoleClient {
            queues: Mutex::new(answers.into_iter().map(|(r, a)| (r, a.into())).collect()),
            asked: Mutex::new(Vec::new()),
        }
    }

    fn check_used(&self) {
        for (role, q) in self.queues.lock().unwrap().iter() {
            assert!(q.is_empty(), "{role:?} left {} answers unused: {q:?}", q.len());
        }
    }
}

impl ChatClient for RoleClient {
    fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let system = req.messages.first().map(|m| m.text().to_string()).unwrap_or_default();
        let mut queues = self.queues.lock().unwrap();
        let Some((role, q)) = queues.iter_mut().find(|(r, _)| r.system_prompt() == system) else {
            panic!("no queue for the system prompt {system:?}");
        };
        let prompts: Vec<&str> = req.messages.iter().skip(1).map(|m| m.text()).collect();
        self.asked.lock().unwrap().push((*role, prompts.join("\n")));
        let asked = prompts.first().map(|m| m.chars().take(200).collect::<String>()).unwrap_or_default();
        let answer = q.pop_front().unwrap_or_else(|| panic!("{role:?} asked once more than scripted: {asked}"));
        Ok(ChatResponse::from_message("scripted", Message::assistant(answer), "stop"))
    }

    fn describe(&self) -> ClientInfo {
        ClientInfo { kind: "scripted", endpoint: None, model: None, synthetic: true }
    }
}

impl ChatClient for &RoleClient {
    fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        (**self).chat(req)
    }

    fn describe(&self) -> ClientInfo {
        (**self).describe()
    }
}

/// One scenario.
struct Case {
    bug: Bug,
    validator: Validator,
    skip: ScratchFilter,
    strategy: UniDebugger,
    /// Whether the Helper has the sample index.
    index: bool,
    answers: Vec<(Role, Vec<String>)>,
}

/// The configuration every recording was made with.
pub fn config() -> RunConfig {
    RunConfig {
        model: "replayed-model".into(),
        budget: repair::llm::Budget { max_calls: Some(60), max_tokens: None, max_micro_usd: None },
        context_tokens: 32_768,
        ..RunConfig::default()
    }
}

/// Runs `cases` with recording (`FIXDEX_WRITE_RECORDINGS`) or strict replay.
fn run_cases(retriever: Option<&Retriever>, cases: Vec<Case>) -> Vec<RepairReport> {
    let path = recordings();
    let write = std::env::var_os("FIXDEX_WRITE_RECORDINGS").is_some();
    let replay = if write { None } else { Some(ReplayClient::open(&path).unwrap_or_else(|e| panic!("{e}"))) };
    if write {
        let _ = std::fs::remove_file(&path);
    }
    let mut reports = Vec::new();
    for case in cases {
        let exclusion = Exclusion {
            ids: case.bug.id.iter().cloned().collect(),
            projects: vec!["QuixBugs".into()],
            keep_ids: Vec::new(),
        };
        let ret = if case.index { retriever.map(|r| r.with_exclusion(exclusion)) } else { None };
        let run = |client: &dyn ChatClient| {
            Workflow::new(client, ret.clone(), case.validator.clone(), config())
                .with_strategy(Box::new(case.strategy.clone()))
                .with_scratch_filter(case.skip.clone())
                .run(&case.bug)
        };
        let report = match &replay {
            Some(r) => run(r),
            None => {
                let scripted = RoleClient::new(case.answers);
                let report = run(&RecordingClient::append(&scripted, &path).unwrap());
                scripted.check_used();
                report
            }
        };
        reports.push(report);
    }
    if let Some(replay) = &replay {
        replay.finish().unwrap_or_else(|e| panic!("{e}"));
    }
    reports
}

fn minibug(lang: Lang, name: &str, method: &str) -> (Bug, Validator, ScratchFilter) {
    let p = quixbugs::discover(&minibugs(), lang).unwrap().into_iter().find(|p| p.name == name).unwrap();
    let bug = Bug {
        id: Some(format!("minibugs:{lang}:{name}")),
        root: minibugs(),
        file: p.source.clone(),
        location: Location::Method(method.into()),
        failing_tests: Vec::new(),
    };
    (bug, runner(lang).validator(&p), quixbugs::scratch_filter(lang))
}

/// A SEARCH/REPLACE patch with a stated cause (`tag`: `ROOT CAUSE` or `DIAGNOSIS`).
fn sr(tag: &str, search: &str, replace: &str) -> String {
    format!("{tag}: the sum misses a term\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n")
}

/// The Java SUM_TO fix as a unified diff.
const JAVA_FIX: &str = "ROOT CAUSE: the loop condition `i < n` leaves n out.\n```diff\n--- a/java_programs/SUM_TO.java\n+++ b/java_programs/SUM_TO.java\n@@ -6 +6 @@\n-        for (int i = 1; i < n; i++) {\n+        for (int i = 1; i <= n; i++) {\n```\n";

/// The Locator's valid marks on Java SUM_TO.
const JAVA_MARKS: &str = "The loop stops at n - 1.\n```java\n        int total = 0;\n        for (int i = 1; i < n; i++) {  // buggy line\n            total += i;\n```\n";

/// The Slicer's valid window on Java SUM_TO (the file is shorter than 20 lines: all of it).
const JAVA_SLICE: &str = "FIRST: package java_programs;\nLAST: }";

const JAVA_SUMMARY: &str = "SUM_TO ~~~ sum_to ~~~ int n ~~~ int ~~~ adds the integers 1..n (the loop stops early)";

fn java(search: &str, replace: &str) -> String {
    sr("ROOT CAUSE", search, replace)
}

/// Java SUM_TO fixed at L1, after a Locator answer whose mark quotes a line that is not in
/// the code (refused with the reason, re-asked).
fn java_l1() -> Case {
    let (bug, validator, skip) = minibug(Lang::Java, "SUM_TO", "sum_to");
    let stray = "```java\n        int total = 0;\n        for (int i = 0; i < n; i++) {  // buggy line\n```\n";
    Case {
        bug,
        validator,
        skip,
        strategy: UniDebugger::default(),
        index: false,
        answers: vec![(Role::Locator, vec![stray.into(), JAVA_MARKS.into()]), (Role::Fixer, vec![JAVA_FIX.into()])],
    }
}

/// Python sum_to: L1's patch fails; at L2 the Slicer first quotes a line that is not in the
/// file (refused, re-asked), the Locator's first marks do not match (refused), the Fixer's
/// patch fails, and FixerPro corrects it from the test feedback.
fn python_l2() -> Case {
    let (bug, validator, skip) = minibug(Lang::Python, "sum_to", "sum_to");
    let marks = "```python\n    total = 0\n    for i in range(1, n):  # buggy line\n        total += i\n```\n";
    let stray = "```python\n    for i in range(0, n + 1):  # buggy line\n```\n";
    let fix = "DIAGNOSIS: the test expects 55 for n = 10 but gets 45: `range(1, n)` stops before n.\n```diff\n--- a/python_programs/sum_to.py\n+++ b/python_programs/sum_to.py\n@@ -3 +3 @@\n-    for i in range(1, n):\n+    for i in range(1, n + 1):\n```\n";
    Case {
        bug,
        validator,
        skip,
        strategy: UniDebugger::default(),
        index: false,
        answers: vec![
            (Role::Locator, vec![marks.into(), stray.into(), marks.into()]),
            (
                Role::Fixer,
                vec![
                    sr("ROOT CAUSE", "    return total", "    return total + 1"),
                    sr("ROOT CAUSE", "    total = 0", "    total = 1"),
                ],
            ),
            (Role::Summarizer, vec!["sum_to.py ~~~ sum_to ~~~ n ~~~ int ~~~ adds the integers 1..n".into()]),
            (
                Role::Slicer,
                vec![
                    "FIRST: def sum_to(x):\nLAST: return total".into(),
                    "FIRST: def sum_to(n):\nLAST:     return total".into(),
                ],
            ),
            (Role::FixerPro, vec![fix.into()]),
        ],
    }
}

/// Java SUM_TO reaches L3: the Helper's query retrieves similar fixes from the sample index,
/// its guide and the fixes go into the L3 prompts, and the Fixer's L3 patch is plausible;
/// FixerPro keeps it (KEEP).
fn java_l3() -> Case {
    let (bug, validator, skip) = minibug(Lang::Java, "SUM_TO", "sum_to");
    Case {
        bug,
        validator,
        skip,
        strategy: UniDebugger::default(),
        index: true,
        answers: vec![
            (Role::Locator, vec![JAVA_MARKS.into(), JAVA_MARKS.into(), JAVA_MARKS.into()]),
            (
                Role::Fixer,
                vec![
                    java("        return total;", "        return total + 1;"),
                    java("        int total = 0;", "        int total = 1;"),
                    JAVA_FIX.into(),
                ],
            ),
            (
                Role::Summarizer,
                vec![JAVA_SUMMARY.into(), "SPIN ~~~ count_down ~~~ int n ~~~ int ~~~ counts down".into()],
            ),
            (Role::Slicer, vec![JAVA_SLICE.into(), JAVA_SLICE.into()]),
            (
                Role::FixerPro,
                vec![
                    sr("DIAGNOSIS", "        return total;", "        return total + n - 1;"),
                    "DIAGNOSIS: the patch is minimal.\nKEEP".into(),
                ],
            ),
            (
                Role::Helper,
                vec![
                    "QUERY: loop upper bound excludes the last value: off-by-one in a for loop condition".into(),
                    "The similar fixes change a loop's bound: use `<=` where the last value must be included.".into(),
                ],
            ),
        ],
    }
}

/// Java SUM_TO with one pass and no index: every level and the reflection fail; the run
/// ends with no plausible patch and a complete report.
fn java_exhausted() -> Case {
    let (bug, validator, skip) = minibug(Lang::Java, "SUM_TO", "sum_to");
    Case {
        bug,
        validator,
        skip,
        strategy: UniDebugger { passes: 1, ..UniDebugger::default() },
        index: false,
        answers: vec![
            (Role::Locator, vec![JAVA_MARKS.into(), JAVA_MARKS.into(), JAVA_MARKS.into()]),
            (
                Role::Fixer,
                vec![
                    java("        return total;", "        return total + 1;"),
                    java("        int total = 0;", "        int total = 1;"),
                    java("        return total;", "        return total * 2;"),
                    java("        return total;", "        return total - 1;"),
                ],
            ),
            (
                Role::Summarizer,
                vec![JAVA_SUMMARY.into(), "SPIN ~~~ count_down ~~~ int n ~~~ int ~~~ counts down".into()],
            ),
            (Role::Slicer, vec![JAVA_SLICE.into(), JAVA_SLICE.into()]),
            (
                Role::FixerPro,
                vec![
                    sr("DIAGNOSIS", "        return total;", "        return total + n - 1;"),
                    sr("DIAGNOSIS", "        int total = 0;", "        int total = 2;"),
                    sr("DIAGNOSIS", "        return total;", "        return total + 2;"),
                    sr("DIAGNOSIS", "        for (int i = 1; i < n; i++) {", "        for (int i = 0; i < n; i++) {"),
                ],
            ),
        ],
    }
}

fn verdicts(r: &RepairReport) -> Vec<&'static str> {
    r.candidates.iter().map(|c| c.verdict.as_str()).collect()
}

/// The agents' roles in request order.
fn roles(d: &Value) -> Vec<String> {
    d["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| format!("{}:{}", a["level"].as_str().unwrap(), a["role"].as_str().unwrap()))
        .collect()
}

/// The recorded requests' user prompts whose system prompt is `role`'s.
fn recorded_prompts(role: Role) -> Vec<String> {
    let text = std::fs::read_to_string(recordings()).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let m = v["request"]["messages"].as_array()?.clone();
            (m.first()?["content"].as_str()? == role.system_prompt())
                .then(|| m.iter().skip(1).filter_map(|x| x["content"].as_str()).collect::<Vec<_>>().join("\n"))
        })
        .collect()
}

/// minibugs: fixed at L1 (Java), by FixerPro at L2 (Python), at L3 with the Helper's similar
/// fixes (Java), and every level exhausted (Java).
#[test]
fn unidebugger_replay_minibugs() {
    let (retriever, _dir) = crate::replay::sample_index();
    let reports = run_cases(Some(&retriever), vec![java_l1(), python_l2(), java_l3(), java_exhausted()]);
    for r in &reports {
        assert_eq!(r.strategy, "unidebugger");
        assert!(r.synthetic, "replayed hand-written answers are synthetic");
    }

    // L1: the stray mark is refused with its reason, the re-asked marks are placed on line 6.
    let (r, d) = (&reports[0], reports[0].details.json());
    assert_eq!(
        (r.outcome, d["plausible_at"].as_str(), d["level"].as_str()),
        (Outcome::Plausible, Some("L1"), Some("L1")),
        "{d:#}"
    );
    assert_eq!(roles(d), ["L1:locator", "L1:locator", "L1:fixer"]);
    assert_eq!(d["marks"][0]["accepted"], false);
    let reason = d["marks"][0]["marked"]["refused"][0].as_str().unwrap();
    assert!(reason.contains("for (int i = 0; i < n; i++) {") && reason.contains("not a line"), "{reason}");
    assert_eq!(d["marks"][1]["marked"]["marks"][0]["line"], 6, "{d:#}");
    assert!(r.patch.as_deref().unwrap().contains("+        for (int i = 1; i <= n; i++) {"));
    assert_eq!(d["validations"], 1);

    // L2: the Slicer's stray window is refused and re-asked; FixerPro's correction lands.
    let (r, d) = (&reports[1], reports[1].details.json());
    assert_eq!((r.outcome, d["plausible_at"].as_str()), (Outcome::Plausible, Some("L2")), "{d:#}");
    assert_eq!(verdicts(r), ["test_failure", "test_failure", "plausible"]);
    assert!(d["slices"][0]["slice"].is_null());
    assert!(d["slices"][0]["note"].as_str().unwrap().contains("def sum_to(x):"), "{d:#}");
    assert_eq!(
        (d["slices"][1]["slice"]["start"].as_u64(), d["slices"][1]["slice"]["end"].as_u64()),
        (Some(1), Some(5))
    );
    assert_eq!(d["marks"][1]["accepted"], false, "the L2 Locator's first marks do not match: {d:#}");
    assert!(d["marks"][1]["marked"]["refused"][0].as_str().unwrap().contains("range(0, n + 1)"));
    assert!(r.patch.as_deref().unwrap().contains("+    for i in range(1, n + 1):"));
    assert_eq!(r.candidates[2].suggestion, 2, "FixerPro's candidate");
    let cause = r.root_cause.as_deref().unwrap();
    assert!(cause.contains("`range(1, n)` stops before n"), "the plausible patch's own diagnosis: {cause}");
    // FixerPro saw the failing candidate's test output.
    let pro = recorded_prompts(Role::FixerPro);
    assert!(pro.iter().any(|p| p.contains("total = 1") && p.contains("test_failure")), "{pro:?}");

    // L3: the Helper's query, the hits from the sample index, the guide; the fix lands.
    let (r, d) = (&reports[2], reports[2].details.json());
    assert_eq!((r.outcome, d["plausible_at"].as_str()), (Outcome::Plausible, Some("L3")), "{d:#}");
    let helper = &d["helper"];
    assert!(helper["query"].as_str().unwrap().starts_with("loop upper bound"), "{helper:#}");
    let hits = helper["hits"].as_array().unwrap();
    assert!(!hits.is_empty() && r.retrieved.len() == hits.len(), "{helper:#}");
    assert!(r.retrieved.iter().all(|f| f.project != "QuixBugs"));
    let first = &r.retrieved[0];
    let l3_fixer =
        recorded_prompts(Role::Fixer).into_iter().filter(|p| p.contains("The similar fixes found")).collect::<Vec<_>>();
    assert_eq!(l3_fixer.len(), 1, "one L3 Fixer request sees the similar fixes");
    assert!(l3_fixer[0].contains(first.diff.trim()), "the top hit's diff is in the L3 Fixer's prompt");
    assert!(l3_fixer[0].contains("use `<=` where the last value must be included"));
    assert!(d["repofocus"]["chosen"].as_array().unwrap().iter().any(|f| f == "java_programs/SPIN.java"), "{d:#}");
    assert!(r.patch.as_deref().unwrap().contains("i <= n"));

    // Exhausted: L1, L2, L3 and the reflection all fail; no Helper without an index.
    let (r, d) = (&reports[3], reports[3].details.json());
    assert_eq!(
        (r.outcome, d["ended"].as_str(), d["level"].as_str()),
        (Outcome::NoPlausiblePatch, Some("exhausted"), Some("reflection")),
        "{d:#}"
    );
    assert_eq!(d["validations"], 8);
    assert_eq!(r.candidates.len(), 8);
    assert!(r.candidates.iter().all(|c| c.verdict.as_str() == "test_failure"), "{:?}", verdicts(r));
    let attempts: Vec<usize> = r.candidates.iter().map(|c| c.attempt).collect();
    assert_eq!(attempts, [1, 2, 2, 3, 3, 4, 4, 4]);
    assert!(d["helper"]["note"].as_str().unwrap().contains("no --index"), "{d:#}");
    assert!(r.patch.is_none() && r.root_cause.is_some());
    assert!(d["agents"].as_array().unwrap().iter().all(|a| a["input_chars"].as_u64().unwrap() > 0));
    // Reflection: FixerPro refines its own L3 patch (not the Fixer's again), the Fixer
    // revises its own L3 patch, and each sees the last candidate's result.
    let under_review = |p: &str| p.split("## Patch under review").nth(1).unwrap_or("").to_string();
    let pro = recorded_prompts(Role::FixerPro);
    let reviewed: Vec<String> = pro.iter().map(|p| under_review(p)).filter(|p| !p.is_empty()).collect();
    assert!(reviewed.iter().any(|p| p.contains("+        int total = 2;")), "{reviewed:#?}");
    // This scenario's four FixerPro requests are the last recorded ones.
    let mine = &pro[pro.len() - 4..];
    let unique: std::collections::HashSet<&String> = mine.iter().collect();
    assert_eq!(unique.len(), 4, "no FixerPro request of the run repeats another");
    let revise = recorded_prompts(Role::Fixer).into_iter().find(|p| p.contains("## Your earlier patch")).unwrap();
    let earlier = revise.split("## Your earlier patch").nth(1).unwrap().split("## The reviewer").next().unwrap();
    assert!(earlier.contains("+        return total * 2;"), "the Fixer's own L3 patch: {earlier}");
    assert!(
        revise.contains("The last candidate patch and its test result") && revise.contains("return total + 2;"),
        "{revise}"
    );
}

/// The validation budget ends the run as `budget_exhausted` with the report complete up to
/// there (the exhausted scenario's answers, scripted, cut at three candidates).
#[test]
fn unidebugger_validation_budget_ends_the_run() {
    let case = java_exhausted();
    let scripted = RoleClient::new(case.answers);
    let strategy = UniDebugger { max_validations: 3, ..case.strategy };
    let r = Workflow::new(&scripted, None, case.validator, config())
        .with_strategy(Box::new(strategy))
        .with_scratch_filter(case.skip)
        .run(&case.bug);
    assert_eq!(r.outcome, Outcome::BudgetExhausted, "{:#}", r.details);
    assert_eq!((r.details["ended"].as_str(), r.details["validations"].as_u64()), (Some("validations"), Some(3)));
    assert_eq!(r.candidates.len(), 3);
    assert_eq!(r.details["level"], "L2", "the third candidate is L2's FixerPro: the budget ends the run there");
    assert!(r.error.as_deref().unwrap().contains("validation budget of 3"), "{:?}", r.error);
}

/// Without a given location, SBFL (real Ochiai over JaCoCo on the minibugs SUM_TO tests)
/// localizes the method and seeds the Locator with its most suspicious lines (scripted
/// answers, not recorded).
#[test]
fn unidebugger_sbfl_seeds_the_locator() {
    let (mut bug, validator, skip) = minibug(Lang::Java, "SUM_TO", "sum_to");
    let r = runner(Lang::Java);
    let program =
        quixbugs::discover(&minibugs(), Lang::Java).unwrap().into_iter().find(|p| p.name == "SUM_TO").unwrap();
    let fl = quixbugs::sbfl(&r, &program).unwrap_or_else(|e| panic!("{e}"));
    let file = program.source.to_string_lossy().replace('\\', "/");
    let top = fl.methods.iter().find(|m| m.file == file).expect("SBFL ranks a method of SUM_TO.java");
    bug.location = Location::Lines(top.start_line as usize, top.end_line as usize);
    let weights = repair::fl::LineWeights::of_file(&fl, &file);
    let sbfl = weights.scores();
    assert!(sbfl.iter().any(|(l, _)| *l == 6), "the loop header is covered: {sbfl:?}");
    let client = RoleClient::new(vec![(Role::Locator, vec![JAVA_MARKS.into()]), (Role::Fixer, vec![JAVA_FIX.into()])]);
    let report = Workflow::new(&client, None, validator, config())
        .with_strategy(Box::new(UniDebugger::default()))
        .with_weights(weights)
        .with_scratch_filter(skip)
        .run(&bug);
    client.check_used();
    assert_eq!(report.outcome, Outcome::Plausible, "{:#}", report.details);
    let seed = report.details["sbfl_seed"].as_array().unwrap();
    assert!(!seed.is_empty() && seed.len() <= 5, "{seed:?}");
    let asked = client.asked.lock().unwrap();
    let locator = &asked.iter().find(|(r, _)| *r == Role::Locator).unwrap().1;
    assert!(locator.contains("Fault localization (SBFL, Ochiai)"), "{locator}");
    let best = seed[0][0].as_u64().unwrap();
    let line = std::fs::read_to_string(minibugs().join(&program.source))
        .unwrap()
        .lines()
        .nth(best as usize - 1)
        .unwrap()
        .trim()
        .to_string();
    assert!(locator.contains(&format!("line {best} (score ")) && locator.contains(&line), "{locator}");
}
