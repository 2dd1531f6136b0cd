//! Issue 11, item 1: the repair actions of each pair are computed at index time, stored in
//! the index (format v2) and printed in every hit; `verify` checks them; format v1 indexes
//! are refused with the rebuild message.

use std::path::Path;

use engine::embed::Embedder;
use engine::hnsw::{self, HnswConfig};
use engine::{IndexBuilder, Record, Space};
use serde_json::{Value, json};

use crate::common::{Scratch, record, stderr, stdout_json};

/// Pairs with known actions; the corpus's own `action_label` is ignored (computed, not read).
fn known_pairs() -> Vec<String> {
    let mut loop_bound = serde_json::from_str::<Value>(&record(
        "k:loop",
        "java",
        "int sum(int[] a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }",
        "int sum(int[] a, int n) { int s = 0; for (int i = 0; i <= n; i++) s += a[i]; return s; }",
        "the loop stops one element early",
    ))
    .unwrap();
    loop_bound["action_label"] = json!("SWAP_ARGUMENTS");
    vec![
        loop_bound.to_string(),
        record(
            "k:null",
            "python",
            "def size(s):\n    return len(s)\n",
            "def size(s):\n    if s is None:\n        return 0\n    return len(s)\n",
            "a None argument raises",
        ),
        record("k:cobol", "cobol", "MOVE A TO B.", "MOVE B TO A.", "the move goes the wrong way"),
    ]
}

#[test]
fn issue_11_index_stores_actions_and_search_prints_them() {
    let s = Scratch::new();
    let corpus = s.corpus("c.jsonl", &known_pairs());
    let idx = s.path("c.fdx");
    s.index(&corpus, &idx, &[]);
    let code = s.path("q.java");
    std::fs::write(&code, "int sum(int[] a, int n) { for (int i = 0; i < n; i++) s += a[i]; }").unwrap();
    let args = ["search", idx.to_str().unwrap(), "--code", code.to_str().unwrap(), "--cause", "off by one", "-k", "3"];
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let hits = stdout_json(&s.run(&json_args))["hits"].as_array().unwrap().clone();
    let by_id = |id: &str| hits.iter().find(|h| h["id"] == id).unwrap_or_else(|| panic!("{id} missing"));
    let lb = by_id("k:loop");
    assert_eq!(lb["action_label"], "CHANGE_LOOP_BOUND", "{lb}");
    assert_eq!(lb["action_reason"], Value::Null, "{lb}");
    assert_eq!(lb["actions"][0]["kind"], "CHANGE_LOOP_BOUND", "{lb}");
    assert_eq!((&lb["actions"][0]["before"], &lb["actions"][0]["after"]), (&json!("<"), &json!("<=")), "{lb}");
    assert_eq!(lb["action"], "change loop bound < → <= in for condition", "{lb}");
    assert_eq!(by_id("k:null")["action_label"], "ADD_NULL_CHECK", "{hits:?}");
    let cobol = by_id("k:cobol");
    assert_eq!((&cobol["action_label"], &cobol["actions"]), (&json!("OTHER"), &json!([])), "{cobol}");
    assert_eq!(cobol["action"], "OTHER (no grammar for language cobol)", "{cobol}");

    let out = s.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\n   action: change loop bound < → <= in for condition\n"), "{text}");
    assert!(text.contains("\n   action: OTHER (no grammar for language cobol)\n"), "{text}");
    let verify = s.run(&["verify", idx.to_str().unwrap()]);
    assert!(verify.status.success(), "{}", stderr(&verify));
}

/// Writes an index of the synthetic records with document 3's actions column replaced.
fn index_with_actions(path: &Path, actions: &str) {
    let model = engine::testing::tiny_embedder();
    let mut docs: Vec<Record> = engine::testing::sample_records(8);
    docs[3].actions = actions.to_string();
    let cfg = HnswConfig::default();
    let mut b = IndexBuilder::new(model.identity().to_meta(), engine::testing::text_meta());
    let v = engine::testing::embed_records(&model, &docs, Space::CodeCause).unwrap();
    let g = hnsw::build(&v, model.dim(), &cfg).unwrap();
    b.add_space(Space::CodeCause, v, g, &cfg).unwrap();
    b.write(path, &docs, Value::Null).unwrap();
}

#[test]
fn issue_11_verify_catches_a_damaged_actions_column() {
    let s = Scratch::new();
    // Not JSON: the engine's check. JSON, but not actions: the check against the actions crate.
    for (name, actions, says) in [
        ("a.fdx", "[{\"kind\": \"CHANGE_OPERATOR\"", "document 3: the actions column is not a JSON array"),
        ("b.fdx", "[{\"kind\": \"NO_SUCH_KIND\"}]", "document test:3: the actions column does not hold repair actions"),
    ] {
        let idx = s.path(name);
        index_with_actions(&idx, actions);
        let o = s.run(&["verify", idx.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
    }
}

#[test]
fn issue_11_format_v1_index_is_refused_with_the_rebuild_message() {
    let s = Scratch::new();
    let v1 = crate::common::repo().join("engine/tests/data/index_v1.fdx");
    let code = s.path("q.java");
    std::fs::write(&code, "return a - b;").unwrap();
    for args in [
        vec!["search", v1.to_str().unwrap(), "--code", code.to_str().unwrap(), "--cause", "x"],
        vec!["verify", v1.to_str().unwrap()],
        vec!["inspect", v1.to_str().unwrap()],
    ] {
        let o = s.run(&args);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains("index format v1, this build reads v2..=v2; rebuild the index with fixdex ≥ 0.2.0"), "{e}");
    }
}

/// Issue 11, items 2 and 3: `--actions` aggregates the hits' actions into suggestions with
/// evidence, every JSON answer carries them, `--rank action` reports per-hit features (how
/// each hit's action fits the query code), `--rank dense` keeps the cosine order.
#[test]
fn issue_11_search_suggests_actions_and_reports_the_action_fit() {
    let s = Scratch::new();
    let lines = vec![
        record(
            "s:loop1",
            "java",
            "int sum(int[] a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }",
            "int sum(int[] a, int n) { int s = 0; for (int i = 0; i <= n; i++) s += a[i]; return s; }",
            "the loop stops one element early",
        ),
        record(
            "s:loop2",
            "java",
            "int max(int[] v, int m) { int r = v[0]; for (int j = 1; j < m; j++) r = Math.max(r, v[j]); return r; }",
            "int max(int[] v, int m) { int r = v[0]; for (int j = 1; j <= m; j++) r = Math.max(r, v[j]); return r; }",
            "the last element is skipped",
        ),
        record(
            "s:null",
            "java",
            "String name(Node node) { return node.name(); }",
            "String name(Node node) { if (node == null) return null; return node.name(); }",
            "a null node throws",
        ),
        record("s:rewrite", "java", "int f() { return 1; }", "void g(String s) { System.out.println(s); }", "rewrite"),
    ];
    let corpus = s.corpus("c.jsonl", &lines);
    let idx = s.path("c.fdx");
    s.index(&corpus, &idx, &[]);
    let code = s.path("q.java");
    std::fs::write(&code, "int count(int[] xs, int n) { int c = 0; for (int k = 0; k < n; k++) c++; return c; }")
        .unwrap();
    let base = ["search", idx.to_str().unwrap(), "--code", code.to_str().unwrap(), "--cause", "off by one", "-k", "4"];
    let with = |extra: &[&'static str]| -> Vec<String> { base.iter().chain(extra).map(|a| a.to_string()).collect() };

    let answer = run_json(&s, &with(&["--rank", "action", "--json"]));
    assert_eq!(answer["rank"], "action", "{answer}");
    let sug = answer["suggestions"].as_array().unwrap();
    let kinds: Vec<&str> = sug.iter().map(|x| x["kind"].as_str().unwrap()).collect();
    assert!(kinds.contains(&"CHANGE_LOOP_BOUND") && kinds.contains(&"ADD_NULL_CHECK"), "{answer}");
    assert!(!kinds.contains(&"OTHER"), "OTHER names no action: {answer}");
    let loop_s = sug.iter().find(|x| x["kind"] == "CHANGE_LOOP_BOUND").unwrap();
    let mut ev: Vec<&str> = loop_s["evidence"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap()).collect();
    ev.sort_unstable();
    assert_eq!(ev, ["s:loop1", "s:loop2"], "{loop_s}");
    assert_eq!(loop_s["examples"][0]["before"], "<", "{loop_s}");
    let share_sum: f64 = sug.iter().map(|x| x["share"].as_f64().unwrap()).sum();
    assert!((share_sum - 1.0).abs() < 1e-4, "{answer}");
    let hits = answer["hits"].as_array().unwrap();
    let fit = |id: &str| hits.iter().find(|h| h["id"] == id).unwrap()["features"]["fit"].clone();
    assert_eq!(fit("s:loop1"), "tokens", "the query has a for loop with <: {answer}");
    assert_eq!(fit("s:rewrite"), "none", "{answer}");
    let rewrite = hits.iter().find(|h| h["id"] == "s:rewrite").unwrap();
    assert_eq!(rewrite["features"]["no_action"], true, "{rewrite}");
    assert_eq!(hits.last().unwrap()["id"], "s:rewrite", "a hit with no action ranks last: {answer}");

    let dense = run_json(&s, &with(&["--rank", "dense", "--json"]));
    let scores: Vec<f64> = dense["hits"].as_array().unwrap().iter().map(|h| h["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "dense keeps the cosine order: {dense}");
    assert!(dense["hits"][0]["features"].is_null(), "{dense}");
    assert!(!dense["suggestions"].as_array().unwrap().is_empty(), "every JSON answer has suggestions: {dense}");

    let text = run_strs(&s, &with(&["--actions"]));
    assert!(text.status.success(), "{}", stderr(&text));
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.starts_with("likely repair actions:\n  1. "), "{text}");
    assert!(
        text.contains("CHANGE_LOOP_BOUND") && text.contains("e.g. change loop bound < → <= in for condition"),
        "{text}"
    );

    let bad = run_strs(&s, &with(&["--rank", "bm25"]));
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("unknown ranking \"bm25\": use one of dense, hybrid, action"), "{}", stderr(&bad));
}

fn run_strs(s: &Scratch, args: &[String]) -> std::process::Output {
    s.run(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

fn run_json(s: &Scratch, args: &[String]) -> Value {
    stdout_json(&run_strs(s, args))
}
