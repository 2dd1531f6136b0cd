//! The `patterns` strategy end to end on minibugs (real pytest runs): the retrieval-guided
//! order over a tiny index built here from fixture records, against the prior's fixed order
//! (`--no-retrieval`), with the report's `details`.

use std::sync::Arc;

use engine::hnsw::{self, HnswConfig};
use engine::{IndexBuilder, Record, Space};
use repair::bench::quixbugs::{self, Lang};
use repair::llm::ScriptedClient;
use repair::retrieve::{Exclusion, Retriever};
use repair::run::bug::{Bug, Location};
use repair::run::config::RunConfig;
use repair::run::report::{Outcome, RepairReport};
use repair::run::workflow::Workflow;
use repair::strategies::patterns::{DEFAULT_K, Patterns, Template, order};
use repair::validate::Verdict;

use crate::common::{minibugs, runner};

/// A record of a Python fix from `buggy` to `fixed`, labelled as `fixdex index` labels it.
fn record(id: &str, project: &str, buggy: &str, fixed: &str) -> Record {
    let c = actions::classify(buggy, fixed, actions::Language::Python);
    Record {
        id: id.into(),
        source: "fixture".into(),
        project: project.into(),
        language: "python".into(),
        buggy_code: buggy.into(),
        fixed_code: fixed.into(),
        root_cause: String::new(),
        description: String::new(),
        license: "MIT".into(),
        meta: String::new(),
        action_label: c.label.as_str().to_string(),
        action_reason: c.reason.unwrap_or_default(),
        actions: serde_json::to_string(&c.actions).unwrap(),
    }
}

/// A tiny index (space `code`, the tiny seeded model): two loop-bound fixes (`range(…, k)` →
/// `range(…, k + 1)` and `range(1, n)` → `range(1, n + 1)`), and a decoy from the bug's own
/// project that changes an operator.
fn index(dir: &std::path::Path) -> Retriever {
    let docs = vec![
        record(
            "fixture:count",
            "counter",
            "def count(k):\n    c = 0\n    for j in range(0, k):\n        c += 1\n    return c\n",
            "def count(k):\n    c = 0\n    for j in range(0, k + 1):\n        c += 1\n    return c\n",
        ),
        record(
            "fixture:squares",
            "squares",
            "def squares(n):\n    out = []\n    for j in range(1, n):\n        out.append(j * j)\n    return out\n",
            "def squares(n):\n    out = []\n    for j in range(1, n + 1):\n        out.append(j * j)\n    return out\n",
        ),
        decoy(),
    ];
    assert_eq!(docs[0].action_label, "CHANGE_LOOP_BOUND", "{:?}", docs[0]);
    index_of(dir, &docs)
}

/// The bug's own fix, changing an operator: its record and project are excluded.
fn decoy() -> Record {
    record(
        "minibugs:python:sum_to",
        "minibugs",
        "def sum_to(n):\n    total = 0\n    for i in range(1, n):\n        total += i\n    return total\n",
        "def sum_to(n):\n    total = 0\n    for i in range(1, n):\n        total -= i\n    return total\n",
    )
}

/// A tiny index of `docs` (space `code`, the tiny seeded model) that excludes the bug's own
/// record and project.
fn index_of(dir: &std::path::Path, docs: &[Record]) -> Retriever {
    let model: Arc<dyn engine::embed::Embedder> = Arc::new(engine::testing::tiny_embedder());
    let path = dir.join("fixes.fdx");
    let mut b = IndexBuilder::new(model.identity().to_meta(), engine::testing::text_meta());
    let cfg = HnswConfig::default();
    let v = engine::testing::embed_records(model.as_ref(), docs, Space::Code).unwrap();
    let g = hnsw::build(&v, model.dim(), &cfg).unwrap();
    b.add_space(Space::Code, v, g, &cfg).unwrap();
    b.write(&path, docs, serde_json::Value::Null).unwrap();
    let exclusion = Exclusion {
        ids: vec!["minibugs:python:sum_to".into()],
        projects: vec!["minibugs".into()],
        keep_ids: Vec::new(),
    };
    Retriever::open(&path, model, exclusion).unwrap()
}

/// minibugs' Python `sum_to` repaired by `strategy`, with `retriever`.
fn repair(strategy: Patterns, retriever: Option<Retriever>) -> RepairReport {
    let p = quixbugs::discover(&minibugs(), Lang::Python).unwrap().into_iter().find(|p| p.name == "sum_to").unwrap();
    let bug = Bug {
        id: Some("minibugs:python:sum_to".into()),
        root: minibugs(),
        file: p.source.clone(),
        location: Location::Method("sum_to".into()),
        failing_tests: Vec::new(),
    };
    let client = ScriptedClient::new(Vec::new());
    let config = RunConfig { model: "none".into(), collect_all: true, ..RunConfig::default() };
    Workflow::new(&client, retriever, runner(Lang::Python).validator(&p), config)
        .with_strategy(Box::new(strategy))
        .with_scratch_filter(quixbugs::scratch_filter(Lang::Python))
        .run(&bug)
}

/// With an index, both similar fixes are an operand made one larger, which the operand
/// template reproduces: they vote for it, and the second's own edit (`n` → `n + 1`) is an
/// edit of `sum_to` too; both fixes are also transplanted (to the same text), so the first
/// candidate validated is their transplant `range(1, n + 1)`, plausible, and the operand
/// edit that makes the same text is not tried again.
/// `--no-retrieval` orders by the prior alone (operators and numerals first), so the same
/// patch comes later. Both runs report every plausible patch's diff (collect-all) and the
/// order; the guided one the hits a template reproduces and the label suggestions with their
/// evidence; the bug's own record and project never vote.
#[test]
fn issue_11_retrieval_orders_the_templates_and_no_retrieval_keeps_the_prior() {
    let dir = tempfile::tempdir().unwrap();
    let retriever = index(dir.path());
    let short = Patterns { max_validations: 30, ..Patterns::default() };

    let guided = repair(short.clone(), Some(retriever.clone()));
    assert_eq!(guided.outcome, Outcome::Plausible, "{guided:#?}");
    let d = &guided.details;
    assert_eq!(d["order"], "retrieval", "{d:#}");
    assert_eq!(d["suspiciousness"], "uniform");
    assert_eq!(d["first_plausible_at"], 1, "{d:#}");
    assert_eq!(d["retrieval"]["hits"], 2, "the bug's own record and project never come back");
    let hit_edits = d["retrieval"]["hit_edits"].as_array().unwrap();
    let mut ids: Vec<&str> = hit_edits.iter().filter_map(|h| h["id"].as_str()).collect();
    ids.sort_unstable();
    assert_eq!(ids, ["fixture:count", "fixture:squares"], "{d:#}");
    assert!(hit_edits.iter().all(|h| h["template"] == "CHANGE_OPERAND"), "{d:#}");
    let squares = hit_edits.iter().find(|h| h["id"] == "fixture:squares").unwrap();
    assert_eq!((squares["before"].as_str(), squares["after"].as_str()), (Some("n"), Some("n+1")), "{d:#}");
    // p(t): the vote (all on the operand template) mixed with the prior.
    let p = &d["probabilities"];
    let (alpha, prior) = (f64::from(order::VOTE_WEIGHT), f64::from(order::prior(Template::ChangeOperand)));
    let want = alpha + (1.0 - alpha) * prior;
    assert!((p["CHANGE_OPERAND"].as_f64().unwrap() - want).abs() < 1e-4, "want {want}: {d:#}");
    // The label suggestions stay in the report for the reader.
    // Smoothed by the index's label prior: the decoy's kind (its record excluded) comes
    // from the prior alone, with no hit as evidence.
    let lines = &guided.suggestions[0];
    assert!(lines[0].starts_with("CHANGE_LOOP_BOUND 0.") && lines[0].contains("(2 hits"), "{lines:?}");
    assert_eq!(lines[1], "CHANGE_OPERATOR 0.22 (prior only)", "{lines:?}");
    assert!(guided.retrieved.iter().all(|f| f.project != "minibugs"));
    // The template edit that makes the neighbours' own edit (`n` → `n + 1`) comes first; the
    // transplant of the same edit (two neighbours, one text) is then not validated again.
    let plausible = d["plausible"].as_array().unwrap();
    assert_eq!(
        (plausible[0]["template"].as_str(), plausible[0]["line"].as_u64()),
        (Some("CHANGE_OPERAND"), Some(3)),
        "{d:#}"
    );
    assert_eq!(d["generated"]["TRANSPLANT"], 1, "two neighbours, one text: {d:#}");
    assert!(plausible.iter().all(|p| p["template"] != "TRANSPLANT"), "{d:#}");
    assert!(plausible[0]["diff"].as_str().unwrap().contains("+    for i in range(1, n + 1):"), "{d:#}");
    assert!(guided.patch.as_deref().unwrap().contains("+    for i in range(1, n + 1):"));

    let fixed = repair(Patterns { retrieval: false, ..short }, Some(retriever));
    let d = &fixed.details;
    assert_eq!(d["order"], "prior", "{d:#}");
    assert!(d["retrieval"].is_null());
    assert!(fixed.retrieved.is_empty());
    let first = d["first_plausible_at"].as_u64().unwrap();
    // Two operator and three numeral edits, likelier per instance under the prior (v11,
    // whose operand share grew with the offsets it drops), come first.
    assert_eq!(first, 6, "{d:#}");
    let tried: Vec<&str> = fixed.candidates.iter().map(|c| c.applied_diff.as_deref().unwrap_or("")).collect();
    assert!(tried[0].contains("+        total -= i"), "operators first: {tried:#?}");
    assert_eq!(fixed.patch, guided.patch);
}

/// Issue 31: the report's `retrieval` block says what the strategy searched, not the run's
/// configuration: patterns asks for the top [`DEFAULT_K`] in `code` (the configuration
/// says `code+cause`, 3), exactly (a tiny index, so no ef); with `--no-retrieval` nothing
/// was searched and the block keeps the configuration with `searches` 0.
#[test]
fn issue_31_report_retrieval_records_what_patterns_searched() {
    let dir = tempfile::tempdir().unwrap();
    let retriever = index(dir.path());
    let one = Patterns { max_validations: 1, ..Patterns::default() };

    let guided = serde_json::to_value(repair(one.clone(), Some(retriever.clone()))).unwrap();
    let r = &guided["retrieval"];
    assert_eq!((r["space"].as_str(), r["k"].as_u64()), (Some("code"), Some(DEFAULT_K as u64)), "{r:#}");
    assert_eq!((&r["ef"], &r["searches"]), (&serde_json::Value::Null, &serde_json::json!(1)), "{r:#}");
    assert_eq!(r["exclusion"]["ids"], serde_json::json!(["minibugs:python:sum_to"]), "{r:#}");
    assert_eq!(r["excluded_projects"][0]["given"], "minibugs", "{r:#}");

    let unguided = serde_json::to_value(repair(Patterns { retrieval: false, ..one }, Some(retriever))).unwrap();
    let r = &unguided["retrieval"];
    assert_eq!((r["space"].as_str(), r["k"].as_u64(), r["searches"].as_u64()), (Some("code+cause"), Some(3), Some(0)));
}

/// Issue 32 item 2: a neighbour whose fix is the same loop-bound edit in another function
/// with other names (`range(1, limit)` → `range(1, limit + 1)` in `sum_squares`) is
/// transplanted onto `sum_to` with `limit` → `n` and `acc` → `total`: the first candidate
/// validated is that transplant, plausible, and the report says where it came from.
#[test]
fn issue_32_a_neighbours_fix_is_transplanted_with_its_names_mapped() {
    let dir = tempfile::tempdir().unwrap();
    let neighbour = record(
        "fixture:sum_squares",
        "squares",
        "def sum_squares(limit):\n    acc = 0\n    for x in range(1, limit):\n        acc += x * x\n    return acc\n",
        "def sum_squares(limit):\n    acc = 0\n    for x in range(1, limit + 1):\n        acc += x * x\n    return acc\n",
    );
    let retriever = index_of(dir.path(), &[neighbour, decoy()]);
    let report = repair(Patterns { max_validations: 5, ..Patterns::default() }, Some(retriever));
    assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
    let d = &report.details;
    assert_eq!(d["first_plausible_at"], 1, "{d:#}");
    assert_eq!(d["generated"]["TRANSPLANT"], 1, "{d:#}");
    let t = &d["transplants"];
    assert_eq!(t.as_array().map(Vec::len), Some(1), "the bug's own record is never transplanted: {d:#}");
    assert_eq!((t[0]["id"].as_str(), t[0]["matched"].as_u64()), (Some("fixture:sum_squares"), Some(1)), "{d:#}");
    assert_eq!((t[0]["before"].as_str(), t[0]["after"].as_str()), (Some(""), Some("+1")), "{d:#}");
    assert!(t[0].get("why").is_none(), "{d:#}");
    let first = &d["plausible"][0];
    assert_eq!((first["validated_at"].as_u64(), first["template"].as_str()), (Some(1), Some("TRANSPLANT")), "{d:#}");
    assert_eq!(first["from"], "fixture:sum_squares", "{d:#}");
    assert!(first["diff"].as_str().unwrap().contains("+    for i in range(1, n + 1):"), "{d:#}");
    let tried = report.candidates[0].applied_diff.as_deref().unwrap_or("");
    assert!(tried.contains("+    for i in range(1, n + 1):"), "{tried}");
    let transplant = Template::ALL.iter().position(|t| *t == Template::Transplant).unwrap() + 1;
    assert_eq!(report.candidates[0].suggestion, transplant, "the place of TRANSPLANT in Template::ALL");
    // The record names what made it, not only that place.
    let origin = report.candidates[0].origin.as_deref().unwrap_or("");
    assert!(origin.starts_with("TRANSPLANT: ") && origin.matches("fixture:sum_squares").count() == 1, "{origin}");

    // `--no-transplant`, the ablation: the same neighbours only order the templates.
    let retriever = index_of(
        dir.path(),
        &[
            record(
                "fixture:sum_squares",
                "squares",
                "def sum_squares(limit):\n    acc = 0\n    for x in range(1, limit):\n        acc += x * x\n    return acc\n",
                "def sum_squares(limit):\n    acc = 0\n    for x in range(1, limit + 1):\n        acc += x * x\n    return acc\n",
            ),
            decoy(),
        ],
    );
    let report = repair(Patterns { max_validations: 5, transplant: false, ..Patterns::default() }, Some(retriever));
    let d = &report.details;
    assert_eq!((d["order"].as_str(), d["retrieval"]["hits"].as_u64()), (Some("retrieval"), Some(1)), "{d:#}");
    // The same fix made by the operand template instead (under prior v14 it is validated first
    // too: the hit's vote lifts that template just above the operator template).
    assert!(d["first_plausible_at"].as_u64() >= Some(1), "{d:#}");
    assert_eq!(d["plausible"][0]["template"], "CHANGE_OPERAND", "{d:#}");
    let fix = report.candidates.iter().find(|c| c.verdict == Verdict::Plausible).unwrap();
    assert!(fix.origin.as_deref().is_some_and(|o| o.starts_with("CHANGE_OPERAND: ")), "{fix:#?}");
    assert!(report.candidates.iter().all(|c| c.origin.as_deref().is_some_and(|o| !o.contains(" from "))));
    assert!(d["generated"].get("TRANSPLANT").is_none(), "{d:#}");
    assert_eq!(d["transplants"].as_array().map(Vec::len), Some(0), "{d:#}");
    assert!(report.candidates.iter().all(|c| c.suggestion != Template::ALL.len()), "{:#?}", report.candidates);
}

/// Patterns reads only verdicts, so its candidates run pytest with `--exitfirst`
/// (`Validator::fail_fast`): the buggy `sum_to` fails 2 of its 3 tests in the pre-flight (run
/// whole), and every candidate that fails stops at its first failing test.
#[test]
fn patterns_candidates_stop_at_their_first_failing_test() {
    let report = repair(Patterns { retrieval: false, max_validations: 12, ..Patterns::default() }, None);
    let pre = report.preflight.as_ref().expect("a pre-flight");
    assert!(pre.fail_fast, "{pre:?}");
    assert_eq!(pre.failing_tests.len(), 2, "{pre:?}");
    let failed: Vec<_> =
        report.candidates.iter().filter(|c| c.verdict == repair::validate::Verdict::TestFailure).collect();
    assert!(failed.len() >= 3, "{:#?}", report.candidates);
    for c in failed {
        assert_eq!(c.failing_tests.len(), 1, "{c:#?}");
    }
    assert_eq!(report.outcome, Outcome::Plausible, "a passing run still ran every test: {report:#?}");
}
