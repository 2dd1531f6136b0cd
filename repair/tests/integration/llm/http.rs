//! `OpenAiClient` against a real local HTTP server.

use super::server::{Reply, TestServer};
use repair::llm::{
    Budget, ChatClient, ChatRequest, ChatResponse, Ledger, LlmError, Message, OpenAiClient, OpenAiConfig, PriceTable,
    RetryPolicy, Script, ScriptedClient, Tool, ToolChoice,
};
use serde_json::json;
use std::time::{Duration, Instant};

const KEY: &str = "sk-test-do-not-print-42";

fn fast_retry(max_attempts: u32) -> RetryPolicy {
    RetryPolicy { max_attempts, base_delay_ms: 10, max_delay_ms: 50, max_retry_after_ms: 5_000, jitter: true }
}

fn client(server: &TestServer, retry: RetryPolicy) -> OpenAiClient {
    let config = OpenAiConfig {
        timeout_ms: 5_000,
        retry,
        ..OpenAiConfig::new(&server.base_url, "test-model", Some(KEY.into()))
    };
    OpenAiClient::new(config)
}

fn request() -> ChatRequest {
    let mut req =
        ChatRequest::new("test-model", vec![Message::system("You fix bugs."), Message::user("Find the bug.")]);
    let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
    req.tools.push(Tool::function("find_method_in_file", "Find a method", schema));
    req.tool_choice = Some(ToolChoice::Required);
    req.temperature = Some(0.0);
    req.seed = Some(7);
    req.n = Some(1);
    req.max_tokens = Some(256);
    req
}

fn tool_call_body() -> String {
    json!({
        "id": "chatcmpl-1", "model": "test-model-2024", "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
            "tool_calls": [{"id": "call_abc", "type": "function",
                "function": {"name": "find_method_in_file", "arguments": "{\"name\": \"gcd\"}"}}]}}],
        "usage": {"prompt_tokens": 1200, "completion_tokens": 30, "total_tokens": 1230}
    })
    .to_string()
}

fn ok() -> Reply {
    Reply::json(200, tool_call_body())
}

#[test]
fn sends_openai_shaped_request_and_parses_tool_calls() {
    let server = TestServer::start(vec![ok()]);
    let response = client(&server, RetryPolicy::none()).chat(&request()).unwrap();
    let seen = &server.requests()[0];
    assert_eq!(seen.path, "/v1/chat/completions");
    assert_eq!(seen.header("authorization"), Some(format!("Bearer {KEY}").as_str()));
    assert_eq!(seen.header("content-type"), Some("application/json"));
    let body = seen.json();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["messages"][1], json!({"role": "user", "content": "Find the bug."}));
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["function"]["name"], "find_method_in_file");
    assert_eq!(body["tools"][0]["function"]["parameters"]["required"], json!(["name"]));
    assert_eq!(body["tool_choice"], "required");
    assert_eq!(
        (body["temperature"].as_f64(), body["seed"].as_u64(), body["n"].as_u64()),
        (Some(0.0), Some(7), Some(1))
    );
    assert_eq!(body["max_tokens"], 256);
    let call = &response.choices[0].message.tool_calls[0];
    assert_eq!((call.id.as_str(), call.function.name.as_str()), ("call_abc", "find_method_in_file"));
    assert_eq!(call.function.arguments, r#"{"name": "gcd"}"#);
    assert_eq!(response.choices[0].finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(response.transport.retries, 0);
}

#[test]
fn usage_and_cost_are_accounted() {
    let server = TestServer::start(vec![ok()]);
    let prices: PriceTable =
        serde_json::from_value(json!({"test-model": {"input_usd_per_mtok": 1.0, "output_usd_per_mtok": 4.0}})).unwrap();
    let mut ledger = Ledger::new(Budget::default(), prices);
    let req = request();
    let response = client(&server, RetryPolicy::none()).chat(&req).unwrap();
    let record = ledger.record(&req, &response).clone();
    assert_eq!((record.prompt_tokens, record.completion_tokens, record.retries), (1200, 30, 0));
    assert_eq!(record.model, "test-model-2024", "the answering model is recorded");
    assert!((record.cost_usd.unwrap() - (1200.0 * 1.0 + 30.0 * 4.0) / 1e6).abs() < 1e-12);
    assert_eq!(ledger.totals().tokens(), 1230);
}

#[test]
fn retries_429_honouring_retry_after() {
    let server =
        TestServer::start(vec![Reply::json(429, r#"{"error": "slow down"}"#).header("Retry-After", "1"), ok()]);
    let started = Instant::now();
    let response = client(&server, fast_retry(3)).chat(&request()).unwrap();
    assert!(started.elapsed() >= Duration::from_millis(1_000), "waited {:?}", started.elapsed());
    assert_eq!(response.transport.retries, 1);
    assert!(response.transport.latency_ms >= 1_000);
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn retries_503_then_succeeds() {
    let server = TestServer::start(vec![Reply::json(503, "overloaded"), Reply::json(502, "bad gateway"), ok()]);
    let response = client(&server, fast_retry(4)).chat(&request()).unwrap();
    assert_eq!(response.transport.retries, 2);
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn gives_up_on_persistent_5xx() {
    let server = TestServer::start(vec![Reply::json(500, "boom"), Reply::json(500, "boom again")]);
    let err = client(&server, fast_retry(2)).chat(&request()).unwrap_err();
    let LlmError::RetriesExhausted { attempts: 2, last } = &err else { panic!("{err:?}") };
    assert!(matches!(**last, LlmError::Http { status: 500, .. }));
    assert!(err.to_string().contains("boom again"), "{err}");
}

#[test]
fn does_not_retry_400_and_never_prints_the_key() {
    let body = format!(r#"{{"error": {{"message": "Invalid schema for function; key {KEY}"}}}}"#);
    let server = TestServer::start(vec![Reply::json(400, body), ok()]);
    let err = client(&server, fast_retry(3)).chat(&request()).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, LlmError::Http { status: 400, .. }), "{err:?}");
    assert!(text.contains("HTTP 400") && text.contains("Invalid schema for function"), "{text}");
    assert!(text.contains(&server.base_url), "{text}");
    assert!(!text.contains(KEY) && !format!("{err:?}").contains(KEY), "{text}");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn times_out() {
    let server = TestServer::start(vec![ok().delayed(3_000)]);
    let config =
        OpenAiConfig { timeout_ms: 200, retry: RetryPolicy::none(), ..OpenAiConfig::new(&server.base_url, "m", None) };
    let started = Instant::now();
    let err = OpenAiClient::new(config).chat(&request()).unwrap_err();
    assert!(matches!(err, LlmError::Timeout { timeout_ms: 200, .. }), "{err:?}");
    assert!(started.elapsed() < Duration::from_millis(2_500));
    assert!(server.requests()[0].header("authorization").is_none(), "no key, no auth header");
}

#[test]
fn malformed_body_is_an_error() {
    let server = TestServer::start(vec![Reply::json(200, "<html>proxy error</html>")]);
    let err = client(&server, fast_retry(3)).chat(&request()).unwrap_err();
    assert!(matches!(err, LlmError::MalformedResponse { .. }), "{err:?}");
    assert!(err.to_string().contains("<html>proxy error"), "{err}");
    assert_eq!(server.requests().len(), 1, "a malformed 200 is not retried");
}

#[test]
fn connection_refused_is_retried_then_reported() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let config =
        OpenAiConfig { retry: fast_retry(2), ..OpenAiConfig::new(format!("http://127.0.0.1:{port}/v1"), "m", None) };
    let err = OpenAiClient::new(config).chat(&request()).unwrap_err();
    let LlmError::RetriesExhausted { attempts: 2, last } = &err else { panic!("{err:?}") };
    assert!(matches!(**last, LlmError::Connection { .. }), "{last:?}");
}

/// One step of a contract scenario, playable by the HTTP server and the scripted client.
#[derive(Clone)]
enum Step {
    Ok,
    Status(u16),
}

fn over_http(steps: &[Step], retry: RetryPolicy) -> (TestServer, OpenAiClient) {
    let replies = steps.iter().map(|s| match s {
        Step::Ok => ok(),
        Step::Status(code) => Reply::json(*code, "error body"),
    });
    let server = TestServer::start(replies.collect());
    let client = client(&server, retry);
    (server, client)
}

fn scripted(steps: &[Step], retry: RetryPolicy) -> ScriptedClient {
    let response: ChatResponse = serde_json::from_str(&tool_call_body()).unwrap();
    let scripts = steps.iter().map(|s| match s {
        Step::Ok => Script::Respond(response.clone()),
        Step::Status(code) => Script::http_error(*code, "error body"),
    });
    ScriptedClient::new(scripts.collect()).with_retry(retry)
}

/// The shared behaviour: transient failures are retried, client errors are not.
fn contract(client: &dyn ChatClient, scenario: &str) {
    let result = client.chat(&request());
    match scenario {
        "transient" => assert_eq!(result.unwrap().transport.retries, 2),
        "client-error" => assert!(matches!(result.unwrap_err(), LlmError::Http { status: 400, .. })),
        _ => unreachable!(),
    }
}

#[test]
fn http_and_scripted_clients_share_retry_behaviour() {
    let scenarios = [
        ("transient", vec![Step::Status(429), Step::Status(503), Step::Ok]),
        ("client-error", vec![Step::Status(400), Step::Ok]),
    ];
    for (name, steps) in scenarios {
        let (_server, http) = over_http(&steps, fast_retry(3));
        contract(&http, name);
        contract(&scripted(&steps, fast_retry(3)), name);
    }
}
