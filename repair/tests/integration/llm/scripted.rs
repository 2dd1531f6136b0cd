//! Each fault the scripted client can inject, as the caller sees it.

use repair::llm::{ChatClient, ChatRequest, LlmError, Message, RetryPolicy, Script, ScriptedClient};
use serde_json::json;

fn request(text: &str) -> ChatRequest {
    ChatRequest::new("m", vec![Message::user(text)])
}

fn no_wait(max_attempts: u32) -> RetryPolicy {
    RetryPolicy { max_attempts, base_delay_ms: 0, max_delay_ms: 0, max_retry_after_ms: 0, jitter: false }
}

#[test]
fn rate_limit_then_success_is_one_call_with_one_retry() {
    let client = ScriptedClient::new(vec![Script::rate_limited(Some(1)), Script::text("done")]).with_retry(no_wait(3));
    let response = client.chat(&request("q")).unwrap();
    assert_eq!((response.choices[0].message.text(), response.transport.retries), ("done", 1));
    assert_eq!(client.requests().len(), 2, "one request per attempt");
}

#[test]
fn without_retries_faults_reach_the_caller() {
    let client = ScriptedClient::new(vec![
        Script::rate_limited(Some(2)),
        Script::http_error(500, "internal"),
        Script::timeout(),
        Script::malformed_body("{\"choices\": [tru"),
        Script::malformed_body(r#"{"choices": []}"#),
    ]);
    let err = client.chat(&request("1")).unwrap_err();
    assert!(matches!(err, LlmError::Http { status: 429, retry_after_ms: Some(2_000), .. }), "{err:?}");
    let err = client.chat(&request("2")).unwrap_err();
    assert!(matches!(err, LlmError::Http { status: 500, .. }) && err.is_retryable(), "{err:?}");
    assert!(matches!(client.chat(&request("3")).unwrap_err(), LlmError::Timeout { .. }));
    let err = client.chat(&request("4")).unwrap_err();
    assert!(matches!(err, LlmError::MalformedResponse { .. }) && !err.is_retryable(), "{err:?}");
    assert!(client.chat(&request("5")).unwrap_err().to_string().contains("no choices"));
    let asked: Vec<_> = client.requests().iter().map(|r| r.messages[0].text().to_owned()).collect();
    assert_eq!(asked, ["1", "2", "3", "4", "5"]);
}

#[test]
fn model_output_faults_are_plain_responses() {
    let client = ScriptedClient::new(vec![
        Script::text("no tool call here"),
        Script::tool_call("no_such_tool", &json!({})),
        Script::raw_tool_call("get_imports", "{\"file\": "),
        Script::truncated("The root cause is"),
    ]);
    let texts: Vec<_> = (0..4).map(|_| client.chat(&request("q")).unwrap().choices.remove(0)).collect();
    assert!(texts[0].message.tool_calls.is_empty());
    assert_eq!(texts[1].message.tool_calls[0].function.name, "no_such_tool");
    assert_eq!(texts[2].message.tool_calls[0].function.arguments, "{\"file\": ");
    assert_eq!(texts[3].finish_reason.as_deref(), Some("length"));
}

#[test]
fn exhausted_script_fails_and_client_is_synthetic() {
    let client = ScriptedClient::new(vec![Script::text("only")]);
    client.chat(&request("q")).unwrap();
    assert_eq!(client.remaining(), 0);
    assert!(matches!(client.chat(&request("q")).unwrap_err(), LlmError::ScriptExhausted { served: 1 }));
    assert!(client.is_synthetic());
    assert_eq!(client.describe().kind, "scripted");
}
