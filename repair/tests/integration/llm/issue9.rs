//! Issue 9: the transport layer against what llama.cpp, vLLM and Ollama actually send.

use super::server::{Reply, TestServer};
use crate::common::{minibugs, runner};
use repair::bench::quixbugs::{self, Lang};
use repair::llm::{
    Budget, ChatClient, ChatRequest, Ledger, LlmError, Message, OpenAiClient, OpenAiConfig, PriceTable, Recording,
    RecordingClient, ReplayClient, RetryPolicy, Script, ScriptedClient, Tool, ToolChoice, complete_n,
    context_length_from_models, request_key,
};
use repair::run::bug::{Bug, Location};
use repair::run::config::RunConfig;
use repair::run::report::Outcome;
use repair::run::workflow::Workflow;
use repair::strategies::reinfix::ReinFix;
use serde_json::json;
use std::time::{Duration, Instant};

fn fast_retry(max_attempts: u32) -> RetryPolicy {
    RetryPolicy { max_attempts, base_delay_ms: 10, max_delay_ms: 50, max_retry_after_ms: 5_000, jitter: false }
}

fn http_client(server: &TestServer, retry: RetryPolicy) -> OpenAiClient {
    OpenAiClient::new(OpenAiConfig { timeout_ms: 5_000, retry, ..OpenAiConfig::new(&server.base_url, "m", None) })
}

fn hello() -> ChatRequest {
    ChatRequest::new("m", vec![Message::user("hello")])
}

/// vLLM's answer to a prompt that does not fit (HTTP 400, OpenAI error shape).
fn vllm_context_error() -> String {
    json!({"object": "error", "type": "BadRequestError", "code": 400, "param": null,
        "message": "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens \
                    (7522 in the messages, 1478 in the completion). Please reduce the length of the messages or completion."})
    .to_string()
}

/// OpenAI's (and llama-cpp-python's) shape: `error.code` names it.
fn openai_context_error() -> String {
    json!({"error": {"message": "Requested tokens (9000) exceed context window of 8192",
        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}})
    .to_string()
}

/// llama.cpp server's shape (`type` names it).
fn llama_cpp_context_error() -> String {
    json!({"error": {"code": 400, "type": "exceed_context_size_error",
        "message": "request (9000 tokens) exceeds the available context size (8192 tokens), try increasing it"}})
    .to_string()
}

/// Issue 9, fault 2 (transport part): an HTTP 400 saying the prompt does not fit the
/// context window is `LlmError::ContextLengthExceeded`, sent once and not retried, over
/// HTTP and from the scripted client alike; other 400s stay `LlmError::Http`.
#[test]
fn issue_9_context_length_exceeded_is_classified_and_not_retried() {
    for body in [vllm_context_error(), openai_context_error(), llama_cpp_context_error()] {
        let server = TestServer::start(vec![Reply::json(400, body.clone()), Reply::json(400, body.clone())]);
        let err = http_client(&server, fast_retry(3)).chat(&hello()).unwrap_err();
        assert!(matches!(&err, LlmError::ContextLengthExceeded { message } if message.contains("8192")), "{err:?}");
        assert_eq!(server.requests().len(), 1, "a context-length error must not be retried");
        let scripted = ScriptedClient::new(vec![Script::http_error(400, body)]).with_retry(fast_retry(3));
        let err = scripted.chat(&hello()).unwrap_err();
        assert!(matches!(err, LlmError::ContextLengthExceeded { .. }), "{err:?}");
    }
    let other = ScriptedClient::new(vec![Script::http_error(400, r#"{"error": {"message": "bad temperature"}}"#)]);
    assert!(matches!(other.chat(&hello()).unwrap_err(), LlmError::Http { status: 400, .. }));
}

fn with_tools() -> ChatRequest {
    let mut req = hello();
    req.tools.push(Tool::function("get_imports", "List imports", json!({"type": "object"})));
    req
}

fn text_body(model: &str, texts: &[&str]) -> String {
    let choices: Vec<_> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"index": i, "finish_reason": "stop", "message": {"role": "assistant", "content": t}}))
        .collect();
    json!({"model": model, "choices": choices, "usage": {"prompt_tokens": 10, "completion_tokens": 2}}).to_string()
}

/// Issue 9, fault 3 (transport part): a request with tools and no `tool_choice` goes on the
/// wire with `"tool_choice": "auto"` (llama-cpp-python ignores tools without it); one
/// without tools carries none; an explicit choice is kept. The canonical request treats
/// `auto` as the default, so recordings made without it still replay.
#[test]
fn issue_9_tool_choice_auto_is_sent_with_tools() {
    let ok = || Reply::json(200, text_body("m", &["hi"]));
    let server = TestServer::start(vec![ok(), ok(), ok()]);
    let client = http_client(&server, RetryPolicy::none());
    client.chat(&with_tools()).unwrap();
    client.chat(&hello()).unwrap();
    client.chat(&ChatRequest { tool_choice: Some(ToolChoice::Required), ..with_tools() }).unwrap();
    let seen: Vec<_> = server.requests().iter().map(|r| r.json()).collect();
    assert_eq!(seen[0]["tool_choice"], "auto", "{}", seen[0]);
    assert!(seen[1].get("tool_choice").is_none(), "{}", seen[1]);
    assert_eq!(seen[2]["tool_choice"], "required");
    let explicit = ChatRequest { tool_choice: Some(ToolChoice::Auto), ..with_tools() };
    assert_eq!(request_key(&explicit), request_key(&with_tools()));
    assert_eq!(with_tools().for_wire().tool_choice, Some(ToolChoice::Auto));
}

/// Issue 9, fault 4: a server that ignores `n` (1 choice for `n: 5`) is asked again for the
/// missing ones (`n` = 4, then 2) and the choices are merged; every call records
/// `choices_requested` / `choices_received`, and the ledger warns that `n` was ignored.
#[test]
fn issue_9_complete_n_makes_up_the_choices_a_server_left_out() {
    let client = ScriptedClient::new(vec![
        Script::choices(&["a"]).with_usage(100, 5),
        Script::choices(&["b", "c"]).with_usage(100, 10),
        Script::choices(&["d", "e"]).with_usage(100, 10),
    ]);
    let req = ChatRequest { n: Some(5), ..hello() };
    let mut ledger = Ledger::default();
    let resp = complete_n(&client, &req, &mut ledger).unwrap();
    let texts: Vec<_> = resp.choices.iter().map(|c| c.message.text()).collect();
    assert_eq!(texts, ["a", "b", "c", "d", "e"]);
    assert_eq!(resp.choices.iter().map(|c| c.index).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
    assert_eq!(client.requests().iter().map(|r| r.n).collect::<Vec<_>>(), [Some(5), Some(4), Some(2)]);
    let got: Vec<_> = ledger.calls.iter().map(|c| (c.choices_requested, c.choices_received)).collect();
    assert_eq!(got, [(5, 1), (4, 2), (2, 2)]);
    assert_eq!(ledger.totals().short_choice_calls, 2);
    assert_eq!(resp.usage.unwrap().completion_tokens, 25);
    let warning = ledger.choices_warning().expect("a warning");
    assert!(warning.contains("ignores `n`") && warning.contains("1 of n = 5"), "{warning}");
    let json = serde_json::to_value(&ledger.calls[0]).unwrap();
    assert_eq!((json["choices_requested"].as_u64(), json["choices_received"].as_u64()), (Some(5), Some(1)));
}

/// Issue 9, fault 4: the make-up is bounded: it stops when the budget says no (the first
/// request's choices are kept), and after two make-up requests in a row bring nothing; a
/// server that honours `n` costs one request and no warning.
#[test]
fn issue_9_complete_n_is_bounded_by_the_budget_and_empty_replies() {
    let one = || Script::choices(&["x"]);
    let client = ScriptedClient::new(vec![one(), one(), one(), one(), one()]);
    let budget = Budget { max_calls: Some(2), max_tokens: None, max_micro_usd: None };
    let mut ledger = Ledger::new(budget, PriceTable::default());
    let resp = complete_n(&client, &ChatRequest { n: Some(5), ..hello() }, &mut ledger).unwrap();
    assert_eq!((resp.choices.len(), ledger.calls.len(), client.remaining()), (2, 2, 3));

    let client = ScriptedClient::new(vec![one(), Script::choices(&[]), Script::choices(&[]), one()]);
    let mut ledger = Ledger::default();
    let resp = complete_n(&client, &ChatRequest { n: Some(3), ..hello() }, &mut ledger).unwrap();
    assert_eq!((resp.choices.len(), ledger.calls.len(), client.remaining()), (1, 3, 1));

    let client = ScriptedClient::new(vec![Script::choices(&["a", "b", "c"]), one()]);
    let mut ledger = Ledger::default();
    let resp = complete_n(&client, &ChatRequest { n: Some(3), ..hello() }, &mut ledger).unwrap();
    assert_eq!((resp.choices.len(), ledger.calls.len(), client.remaining()), (3, 1, 1));
    assert_eq!(ledger.choices_warning(), None);
}

/// Issue 9, fault 5: a timed-out request is retried once, not `max_attempts` times, and
/// the error names the real `--llm-timeout` flag.
#[test]
fn issue_9_a_timeout_is_retried_once_and_names_the_flag() {
    let slow = || Reply::json(200, text_body("m", &["late"])).delayed(800);
    let server = TestServer::start(vec![slow(), slow(), slow(), slow()]);
    let config =
        OpenAiConfig { timeout_ms: 200, retry: fast_retry(5), ..OpenAiConfig::new(&server.base_url, "m", None) };
    let err = OpenAiClient::new(config).chat(&hello()).unwrap_err();
    let LlmError::RetriesExhausted { attempts, last } = &err else { panic!("{err:?}") };
    assert_eq!(*attempts, 2, "one retry after a timeout");
    assert!(matches!(**last, LlmError::Timeout { timeout_ms: 200, .. }), "{last:?}");
    assert!(err.to_string().contains("--llm-timeout"), "{err}");
    // The server handles one connection at a time, 800 ms each: a third request would be
    // seen by 1.6 s.
    std::thread::sleep(Duration::from_millis(2_500));
    assert_eq!(server.requests().len(), 2);
}

/// Issue 9, fault 5: a call given a deadline (the run's wall-clock limit) is cut off at it,
/// long before the per-request timeout, with `LlmError::Deadline`, and not retried; a
/// deadline already past sends nothing.
#[test]
fn issue_9_the_wall_limit_cuts_the_call_in_flight() {
    let server = TestServer::start(vec![Reply::json(200, text_body("m", &["late"])).delayed(4_000)]);
    let client = OpenAiClient::new(OpenAiConfig {
        timeout_ms: 60_000,
        retry: fast_retry(5),
        ..OpenAiConfig::new(&server.base_url, "m", None)
    });
    let started = Instant::now();
    let err = client.chat_within(&hello(), Some(started + Duration::from_millis(400))).unwrap_err();
    assert!(matches!(err, LlmError::Deadline { .. }), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(3), "cut at the deadline: {:?}", started.elapsed());
    assert!(err.to_string().contains("--max-wall-s"), "{err}");
    let err = client.chat_within(&hello(), Some(Instant::now())).unwrap_err();
    assert!(matches!(err, LlmError::Deadline { .. }), "{err:?}");
    assert_eq!(server.requests().len(), 1);
}

/// Issue 9, fault 8: a `--record` file says which server answered: the endpoint (never the
/// API key), the model requested and the model the server reported; a replay of it reports
/// the same server, and recordings written before the field existed still load.
#[test]
fn issue_9_recordings_name_the_server_that_answered() {
    let key = "sk-issue9-secret";
    let server = TestServer::start(vec![Reply::json(200, text_body("served-model-q4", &["hi"]))]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rec.jsonl");
    let http = OpenAiClient::new(OpenAiConfig::new(&server.base_url, "asked-model", Some(key.into())));
    let recording = RecordingClient::create(http, &path).unwrap();
    recording.chat(&ChatRequest::new("", vec![Message::user("hello")])).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains(key), "{text}");
    let line: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(
        line["server"],
        json!({"endpoint": server.base_url, "model": "asked-model", "served_model": "served-model-q4"})
    );
    let replay = ReplayClient::open(&path).unwrap();
    let named = replay.server().expect("the recorded server");
    assert_eq!(
        (named.endpoint.as_str(), named.served_model.as_deref()),
        (server.base_url.as_str(), Some("served-model-q4"))
    );
    let old = Recording::new(
        hello(),
        repair::llm::ChatResponse::from_message("m", Message::assistant("x"), "stop"),
        true,
        None,
    );
    let old_line = old.to_line();
    assert!(!old_line.contains("server"), "{old_line}");
    std::fs::write(&path, old_line + "\n").unwrap();
    assert_eq!(ReplayClient::open(&path).unwrap().server(), None);
}

/// Issue 9, fault 2 (transport part): the context window is read from the server's model
/// list where it offers one (vLLM `max_model_len`, llama.cpp `meta.n_ctx_train`), and is
/// `None`, not an error, where it does not (llama-cpp-python, OpenAI) or the list fails.
#[test]
fn issue_9_context_length_comes_from_the_model_list() {
    let vllm = json!({"object": "list", "data": [{"id": "other", "max_model_len": 4096},
        {"id": "m", "object": "model", "max_model_len": 32768}]});
    assert_eq!(context_length_from_models(&vllm, "m"), Some(32768));
    let llama_cpp =
        json!({"object": "list", "data": [{"id": "gemma.gguf", "meta": {"n_ctx_train": 8192, "n_vocab": 262144}}]});
    assert_eq!(context_length_from_models(&llama_cpp, "m"), Some(8192));
    let plain = json!({"object": "list", "data": [{"id": "m", "object": "model", "owned_by": "me"}]});
    assert_eq!(context_length_from_models(&plain, "m"), None);

    let server = TestServer::start(vec![Reply::json(200, llama_cpp.to_string()), Reply::json(404, "{}")]);
    let client = http_client(&server, RetryPolicy::none());
    assert_eq!(client.context_length(), Some(8192));
    assert_eq!(server.requests()[0].path, "/v1/models");
    assert_eq!(client.context_length(), None);
    assert_eq!(ScriptedClient::new(vec![]).context_length(), None);
}

/// The workflow over minibugs' Python `sum_to` with 1 attempt × 1 suggestion × `patches`.
fn sum_to<'a>(client: &'a dyn ChatClient, patches: usize, wall: Option<Duration>) -> (Workflow<'a>, Bug) {
    let lang = Lang::Python;
    let p = quixbugs::discover(&minibugs(), lang).unwrap().into_iter().find(|p| p.name == "sum_to").unwrap();
    let config = RunConfig { model: "m".into(), wall, ..RunConfig::default() };
    let reinfix = ReinFix { attempts: 1, suggestions: 1, patches, ..ReinFix::default() };
    let workflow = Workflow::new(client, None, runner(lang).validator(&p), config)
        .with_strategy(Box::new(reinfix))
        .with_scratch_filter(quixbugs::scratch_filter(lang));
    let bug = Bug {
        id: None,
        root: minibugs(),
        file: p.source,
        location: Location::Method("sum_to".into()),
        failing_tests: Vec::new(),
    };
    (workflow, bug)
}

const WRONG: &str = "<<<<<<< SEARCH\n    return total\n=======\n    return total + 1\n>>>>>>> REPLACE";
const WRONG_2: &str = "<<<<<<< SEARCH\n    return total\n=======\n    return total - 1\n>>>>>>> REPLACE";
const FIX: &str = "<<<<<<< SEARCH\n    for i in range(1, n):\n=======\n    for i in range(1, n + 1):\n>>>>>>> REPLACE";

/// Issue 9, fault 4 in the workflow: the patch request for 3 candidates meets a server that
/// sends one choice per request; the missing ones are asked for (n = 2, then 1), all three
/// are validated (the third is the fix), and the report's call list and warnings say so.
#[test]
fn issue_9_the_workflow_makes_up_choices_a_server_ignored() {
    let client = ScriptedClient::new(vec![
        Script::text("ROOT CAUSE: `range(1, n)` excludes n."),
        Script::text("SUGGESTION 1: include n."),
        Script::choices(&[WRONG]),
        Script::choices(&[WRONG_2]),
        Script::choices(&[FIX]),
    ]);
    let (workflow, bug) = sum_to(&client, 3, None);
    let report = workflow.run(&bug);
    assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
    assert_eq!(report.candidates.len(), 3);
    let ns: Vec<_> = client.requests().iter().map(|r| r.n).collect();
    assert_eq!(ns, [None, None, Some(3), Some(2), Some(1)]);
    let calls: Vec<_> = report.calls.iter().map(|c| (c.choices_requested, c.choices_received)).collect();
    assert_eq!(calls, [(1, 1), (1, 1), (3, 1), (2, 1), (1, 1)]);
    assert!(report.warnings.iter().any(|w| w.contains("ignores `n`")), "{:?}", report.warnings);
    assert_eq!(report.llm.short_choice_calls, 2);
}

/// Issue 9, fault 5 in the workflow: a model call still running at the wall-clock limit is
/// cut off there (the server would answer only after 60 s), and the run ends as the wall
/// limit's outcome (`timeout`, exit 4), not as an LLM error.
#[test]
fn issue_9_a_call_cut_by_the_wall_limit_ends_the_run_as_timeout() {
    let server = TestServer::start(vec![Reply::json(200, text_body("m", &["ROOT CAUSE: late"])).delayed(60_000)]);
    let client = OpenAiClient::new(OpenAiConfig {
        timeout_ms: 300_000,
        retry: fast_retry(5),
        ..OpenAiConfig::new(&server.base_url, "m", None)
    });
    let started = Instant::now();
    let (workflow, bug) = sum_to(&client, 1, Some(Duration::from_secs(6)));
    let report = workflow.run(&bug);
    assert_eq!(report.outcome, Outcome::Timeout, "{report:#?}");
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
    assert_eq!(server.requests().len(), 1, "the call was in flight when the limit came");
    assert!(report.error.as_deref().unwrap().contains("wall-clock limit"), "{:?}", report.error);
}

/// Issue 9, fault 8 in the workflow: the report names the server that answered (endpoint,
/// model requested, model reported), here through a `--record`-style recording client,
/// whose file carries the same on every line.
#[test]
fn issue_9_the_report_names_the_server_that_answered() {
    let reply = |text: &str| Reply::json(200, text_body("sum-model-q4_k_m", &[text]));
    let server = TestServer::start(vec![
        reply("ROOT CAUSE: `range(1, n)` excludes n."),
        reply("SUGGESTION 1: include n."),
        reply(FIX),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let http = OpenAiClient::new(OpenAiConfig::new(&server.base_url, "m", None));
    let client = RecordingClient::create(http, &path).unwrap();
    let (workflow, bug) = sum_to(&client, 1, None);
    let report = workflow.run(&bug);
    assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
    let json = serde_json::to_value(&report).unwrap();
    let want = json!({"endpoint": server.base_url, "model": "m", "served_model": "sum-model-q4_k_m"});
    assert_eq!(json["server"], want);
    let lines = std::fs::read_to_string(&path).unwrap();
    for line in lines.lines() {
        assert_eq!(serde_json::from_str::<serde_json::Value>(line).unwrap()["server"], want, "{line}");
    }
    let (scripted, bug) = (ScriptedClient::new(vec![]), bug);
    let (workflow, _) = sum_to(&scripted, 1, Some(Duration::ZERO));
    assert_eq!(serde_json::to_value(workflow.run(&bug)).unwrap()["server"], serde_json::Value::Null);
}
