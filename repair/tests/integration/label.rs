//! `repair::label` with scripted and echoing clients: labels written, failures kept and
//! reported, the cache resumes runs (hits make no call; another model or prompt version
//! misses; a torn last line is tolerated), budgets, the wall-clock limit, the request rate,
//! and the mechanical labeller.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use repair::label::{
    CacheEntry, LabelConfig, LabelSummary, Labeller, NoProgress, PROMPT_VERSION, Row, label_file, read_rows,
};
use repair::llm::{
    Budget, ChatClient, ChatRequest, ChatResponse, ClientInfo, Message, Price, PriceTable, Script, ScriptedClient,
};
use serde_json::{Value, json};

/// A corpus row: method `sum_<i>` whose loop stops one short.
fn row(i: usize) -> Value {
    json!({
        "id": format!("test:p:sum_{i}"),
        "source": "test",
        "project": "p",
        "language": "java",
        "buggy_code": format!("int sum_{i}(int[] a) {{ int s = 0; for (int k = 0; k < a.length - 1; k++) s += a[k]; return s; }}"),
        "fixed_code": format!("int sum_{i}(int[] a) {{ int s = 0; for (int k = 0; k < a.length; k++) s += a[k]; return s; }}"),
        "description": format!("Fix sum_{i} skipping the last element"),
        "license": "MIT",
        "meta": {"function": format!("Sums.sum_{i}(int[])")},
    })
}

struct Files {
    _dir: tempfile::TempDir,
    input: PathBuf,
    output: PathBuf,
    cache: PathBuf,
}

fn files(rows: &[Value]) -> Files {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, rows.iter().map(|r| format!("{r}\n")).collect::<String>()).unwrap();
    let (output, cache) = (dir.path().join("out.jsonl"), dir.path().join("out.jsonl.cache"));
    Files { _dir: dir, input, output, cache }
}

fn run(f: &Files, client: &dyn ChatClient, model: &str, cfg: &LabelConfig) -> LabelSummary {
    let labeller = Labeller::Model { client, model };
    label_file(&f.input, &f.output, &f.cache, labeller, cfg, &NoProgress).unwrap()
}

fn one_at_a_time() -> LabelConfig {
    LabelConfig { concurrency: 1, ..LabelConfig::default() }
}

fn output(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn cache_lines(path: &Path) -> Vec<CacheEntry> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Answers each request with a root cause naming the `sum_<i>` method of its prompt.
#[derive(Debug, Default)]
struct Echo {
    calls: std::sync::atomic::AtomicUsize,
}

impl ChatClient for Echo {
    fn chat(&self, req: &ChatRequest) -> repair::llm::Result<ChatResponse> {
        self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let prompt = req.messages.last().unwrap().text();
        let at = prompt.find("sum_").unwrap();
        let name: String = prompt[at..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let answer = format!("Root cause: the loop in {name} stops before the last element.");
        Ok(ChatResponse::from_message("echo", Message::assistant(answer), "stop").with_usage(100, 20))
    }

    fn describe(&self) -> ClientInfo {
        ClientInfo { kind: "scripted", endpoint: None, model: None, synthetic: true }
    }
}

#[test]
fn label_writes_labels_keeps_and_reports_failures() {
    let mut rows: Vec<Value> = (0..4).map(row).collect();
    rows[1]["root_cause"] = json!("an older cause");
    let f = files(&rows);
    let client = ScriptedClient::new(vec![
        Script::text("**Root cause:** The loop bound `a.length - 1` skips\nthe last element.").with_usage(50, 10),
        Script::http_error(500, "server error"),
        Script::text("  "),
        Script::text("```\nThe loop stops one element early, so the sum misses it.\n```").with_usage(50, 12),
    ]);
    let prices = PriceTable([("m".to_owned(), Price { input_usd_per_mtok: 1.0, output_usd_per_mtok: 2.0 })].into());
    let s = run(&f, &client, "m", &LabelConfig { prices, ..one_at_a_time() });
    assert_eq!((s.rows, s.labelled, s.from_cache, s.failed, s.calls), (4, 2, 0, 2, 3), "{s:?}");
    assert_eq!((s.prompt_tokens, s.completion_tokens), (100, 22));
    assert!((s.cost_usd.unwrap() - (100.0 + 44.0) / 1e6).abs() < 1e-12, "{s:?}");
    let failed: Vec<_> = s.failures.iter().map(|x| (x.id.as_str(), x.line)).collect();
    assert_eq!(failed, [("test:p:sum_1", 2), ("test:p:sum_2", 3)]);
    assert!(s.failures[0].reason.contains("HTTP 500"), "{:?}", s.failures);
    assert!(s.failures[1].reason.starts_with("unusable answer"), "{:?}", s.failures);
    assert_eq!(s.stopped, None);

    let out = output(&f.output);
    assert_eq!(out.len(), 4);
    assert_eq!(out[0]["root_cause"], "The loop bound `a.length - 1` skips the last element.");
    assert_eq!(out[0]["meta"], json!({"function": "Sums.sum_0(int[])", "root_cause_source": "model:m"}));
    assert_eq!(out[3]["root_cause"], "The loop stops one element early, so the sum misses it.");
    // Failed rows are written as they were.
    assert_eq!(out[1], rows[1]);
    assert_eq!(out[2], rows[2]);
    let first = std::fs::read_to_string(&f.output).unwrap().lines().next().unwrap().to_owned();
    assert!(first.starts_with(r#"{"buggy_code":"#), "fields keep their order: {first}");
    assert!(first.ends_with(r#""root_cause":"The loop bound `a.length - 1` skips the last element."}"#), "{first}");
    let cache = cache_lines(&f.cache);
    assert_eq!(cache.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(), ["test:p:sum_0", "test:p:sum_3"]);
    assert_eq!((cache[0].prompt_tokens, cache[0].source.as_str()), (50, "model:m"));

    // The rerun asks only for the two failed rows.
    let again = ScriptedClient::new(vec![Script::text("The sum skips the last element."); 2]);
    let s = run(&f, &again, "m", &one_at_a_time());
    assert_eq!((s.labelled, s.from_cache, s.failed, again.requests().len()), (2, 2, 0, 2), "{s:?}");
    assert_eq!(output(&f.output)[1]["root_cause"], "The sum skips the last element.");
}

#[test]
fn label_cache_hits_make_no_call_and_other_models_or_versions_miss() {
    let f = files(&(0..5).map(row).collect::<Vec<_>>());
    let echo = Echo::default();
    let first = run(&f, &echo, "m", &LabelConfig::default());
    assert_eq!((first.labelled, echo.calls.load(std::sync::atomic::Ordering::SeqCst)), (5, 5));
    let before = std::fs::read(&f.output).unwrap();

    let none = ScriptedClient::new(Vec::new());
    let s = run(&f, &none, "m", &LabelConfig::default());
    assert_eq!((s.from_cache, s.labelled, s.calls, none.requests().len()), (5, 0, 0, 0), "{s:?}");
    assert_eq!(std::fs::read(&f.output).unwrap(), before, "the rerun writes the same output");

    let other = Echo::default();
    let s = run(&f, &other, "m2", &LabelConfig::default());
    assert_eq!((s.from_cache, s.labelled, other.calls.load(std::sync::atomic::Ordering::SeqCst)), (0, 5, 5));
    assert_eq!(output(&f.output)[0]["meta"]["root_cause_source"], "model:m2");

    // Entries of another prompt version are never hits.
    let rows = read_rows(&f.input).unwrap();
    let old: String = rows
        .iter()
        .map(|r| {
            let key = r.key("m3", "label-v0");
            assert_ne!(key, r.key("m3", PROMPT_VERSION));
            let e = json!({"key": key, "id": r.id(), "root_cause": "stale cause here", "source": "model:m3"});
            format!("{e}\n")
        })
        .collect();
    std::fs::write(&f.cache, old).unwrap();
    let third = Echo::default();
    let s = run(&f, &third, "m3", &LabelConfig::default());
    assert_eq!((s.from_cache, s.labelled, third.calls.load(std::sync::atomic::Ordering::SeqCst)), (0, 5, 5));
    assert!(output(&f.output).iter().all(|r| r["root_cause"] != "stale cause here"));
}

#[test]
fn label_concurrent_workers_give_each_row_its_own_answer() {
    let f = files(&(0..40).map(row).collect::<Vec<_>>());
    let s = run(&f, &Echo::default(), "m", &LabelConfig { concurrency: 8, ..LabelConfig::default() });
    assert_eq!((s.labelled, s.failed, s.calls), (40, 0, 40));
    for (i, r) in output(&f.output).iter().enumerate() {
        assert_eq!(r["id"], format!("test:p:sum_{i}"), "input order");
        assert_eq!(r["root_cause"], format!("the loop in sum_{i} stops before the last element."));
    }
    let keys: std::collections::HashSet<_> = cache_lines(&f.cache).into_iter().map(|e| e.key).collect();
    assert_eq!(keys.len(), 40);
}

#[test]
fn label_tolerates_a_torn_last_cache_line() {
    let f = files(&(0..3).map(row).collect::<Vec<_>>());
    run(&f, &Echo::default(), "m", &one_at_a_time());
    let text = std::fs::read_to_string(&f.cache).unwrap();
    std::fs::write(&f.cache, &text[..text.len() - 25]).unwrap();
    let echo = Echo::default();
    let s = run(&f, &echo, "m", &one_at_a_time());
    assert!(s.cache_torn_line);
    assert_eq!((s.from_cache, s.labelled, echo.calls.load(std::sync::atomic::Ordering::SeqCst)), (2, 1, 1));
    let cache = cache_lines(&f.cache);
    assert_eq!(cache.len(), 3, "the torn line is gone, the new entry is whole");
    assert_eq!(cache[2].id, "test:p:sum_2");
}

#[test]
fn label_budget_and_wall_limit_stop_the_run_and_say_so() {
    let f = files(&(0..4).map(row).collect::<Vec<_>>());
    let budget = Budget { max_calls: Some(2), max_tokens: None, max_micro_usd: None };
    let s = run(&f, &Echo::default(), "m", &LabelConfig { budget, concurrency: 3, ..LabelConfig::default() });
    assert_eq!((s.labelled, s.failed, s.calls), (2, 2, 2), "{s:?}");
    assert!(s.stopped.as_deref().unwrap().contains("call budget is spent: 2 calls"), "{s:?}");
    assert!(s.failures.iter().all(|x| x.reason.starts_with("not asked: the call budget")), "{s:?}");
    let out = output(&f.output);
    assert_eq!(out.len(), 4);
    assert_eq!(out.iter().filter(|r| r.get("root_cause").is_some()).count(), 2);

    let tokens = Budget { max_calls: None, max_tokens: Some(150), max_micro_usd: None };
    let s = run(&f, &Echo::default(), "other", &LabelConfig { budget: tokens, ..one_at_a_time() });
    assert_eq!((s.labelled, s.failed), (2, 2), "120 tokens after one call, 240 after two: {s:?}");
    assert!(s.stopped.as_deref().unwrap().contains("token budget is spent: 240 tokens"), "{s:?}");

    let echo = Echo::default();
    let s = run(&f, &echo, "third", &LabelConfig { wall: Some(Duration::ZERO), ..LabelConfig::default() });
    assert_eq!((s.labelled, s.failed, echo.calls.load(std::sync::atomic::Ordering::SeqCst)), (0, 4, 0));
    assert!(s.stopped.as_deref().unwrap().contains("wall-clock limit"), "{s:?}");
}

#[test]
fn label_rpm_spaces_the_requests() {
    let f = files(&(0..4).map(row).collect::<Vec<_>>());
    let started = Instant::now();
    let s = run(&f, &Echo::default(), "m", &LabelConfig { rpm: Some(600), concurrency: 4, ..LabelConfig::default() });
    assert_eq!(s.labelled, 4);
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "600/min is one request per 100 ms: {:?}",
        started.elapsed()
    );
}

#[test]
fn label_stops_after_many_failed_calls_in_a_row() {
    let f = files(&(0..30).map(row).collect::<Vec<_>>());
    let client = ScriptedClient::new(Vec::new());
    let s = run(&f, &client, "m", &one_at_a_time());
    assert_eq!(client.requests().len(), repair::label::MAX_ERRORS_IN_A_ROW as usize);
    assert_eq!((s.failed, s.labelled), (30, 0));
    assert!(s.stopped.as_deref().unwrap().contains("model calls in a row failed"), "{s:?}");
}

/// An endpoint that never answered (connection refused) stops the run at the first failure:
/// every row is kept, unlabelled, and the reason says the endpoint cannot be reached.
#[test]
fn label_stops_at_once_when_the_endpoint_cannot_be_reached() {
    let f = files(&(0..30).map(row).collect::<Vec<_>>());
    let client = ScriptedClient::new(vec![Script::Fail(repair::llm::Fault::Connection)]);
    let s = run(&f, &client, "m", &one_at_a_time());
    assert_eq!(client.requests().len(), 1);
    assert_eq!((s.failed, s.labelled), (30, 0));
    assert!(s.stopped.as_deref().unwrap().contains("cannot reach the model endpoint"), "{s:?}");
    assert_eq!(output(&f.output).len(), 30);
}

#[test]
fn label_mechanical_labels_java_and_python_and_fails_other_languages() {
    let mut rows: Vec<Value> = (0..2).map(row).collect();
    rows.push(json!({"id": "py:1", "language": "python", "buggy_code": "def f(a):\n    return a[0:len(a)-1]\n",
        "fixed_code": "def f(a):\n    return a[0:len(a)]\n"}));
    rows.push(json!({"id": "go:1", "language": "go", "buggy_code": "x", "fixed_code": "y"}));
    let f = files(&rows);
    let s =
        label_file(&f.input, &f.output, &f.cache, Labeller::Mechanical, &LabelConfig::default(), &NoProgress).unwrap();
    assert_eq!((s.labelled, s.failed, s.calls, s.source.as_str()), (3, 1, 0, "mechanical"), "{s:?}");
    assert!(s.failures[0].reason.contains("java or python"), "{s:?}");
    let out = output(&f.output);
    for r in &out[..3] {
        assert!(r["root_cause"].as_str().is_some_and(|c| c.len() > 10), "{r}");
        assert_eq!(r["meta"]["root_cause_source"], "mechanical");
    }
    assert!(out[0]["root_cause"].as_str().unwrap().contains("Sums.sum_0(int[])"), "{}", out[0]);
    assert_eq!(out[3], rows[3]);
}

#[test]
fn label_refuses_bad_input_lines_and_leaves_the_output_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (input, out, cache) = (dir.path().join("in.jsonl"), dir.path().join("out.jsonl"), dir.path().join("c"));
    std::fs::write(&out, "precious\n").unwrap();
    let good = row(0).to_string();
    for (text, want) in [
        (format!("{good}\n\n{{\"buggy_code\": \"x\"}}\n"), "in.jsonl:3: field `fixed_code` is missing"),
        (format!("{good}\n[1]\n"), "in.jsonl:2: not a JSON object"),
        (format!("{good}\nnope\n"), "in.jsonl:2: not a JSON object"),
    ] {
        std::fs::write(&input, text).unwrap();
        let err = label_file(&input, &out, &cache, Labeller::Mechanical, &LabelConfig::default(), &NoProgress)
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{err}");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious\n");
    }
    // Blank lines are skipped, not errors.
    std::fs::write(&input, format!("\n{good}\n   \n")).unwrap();
    let rows: Vec<Row> = read_rows(&input).unwrap();
    assert_eq!(rows.iter().map(|r| r.line).collect::<Vec<_>>(), [2]);
}
