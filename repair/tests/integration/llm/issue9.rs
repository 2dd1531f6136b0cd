//! Issue 9: the transport layer against what llama.cpp, vLLM and Ollama actually send.

use super::server::{Reply, TestServer};
use repair::llm::{
    ChatClient, ChatRequest, LlmError, Message, OpenAiClient, OpenAiConfig, RetryPolicy, Script, ScriptedClient,
};
use serde_json::json;

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

/// Issue 9, fault 2 (transport part): an HTTP 400 saying the prompt does not fit the
/// context window is `LlmError::ContextLengthExceeded`, sent once and not retried, over
/// HTTP and from the scripted client alike; other 400s stay `LlmError::Http`.
#[test]
fn issue_9_context_length_exceeded_is_classified_and_not_retried() {
    for body in [vllm_context_error(), openai_context_error()] {
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
