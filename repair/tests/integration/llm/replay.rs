//! Strict record/replay through real files.

use super::server::{Reply, TestServer};
use repair::llm::{
    ChatClient, ChatRequest, ChatResponse, LlmError, Message, OpenAiClient, OpenAiConfig, Recording, RecordingClient,
    ReplayClient, RetryPolicy, Script, ScriptedClient, Transport, request_key, write_recordings,
};
use std::path::Path;

fn request(question: &str) -> ChatRequest {
    let mut req = ChatRequest::new("m", vec![Message::system("You fix bugs."), Message::user(question)]);
    req.temperature = Some(0.0);
    req
}

fn answer(text: &str) -> ChatResponse {
    ChatResponse::from_message("m", Message::assistant(text), "stop").with_usage(5, 2)
}

fn file_with(dir: &Path, recordings: &[Recording]) -> std::path::PathBuf {
    let path = dir.join("recordings.jsonl");
    write_recordings(&path, recordings).unwrap();
    path
}

#[test]
fn hit_serves_the_recorded_response_and_finish_passes() {
    let dir = tempfile::tempdir().unwrap();
    let path = file_with(dir.path(), &[Recording::new(request("q1"), answer("a1"), false, None)]);
    let client = ReplayClient::open(&path).unwrap();
    assert_eq!(client.chat(&request("q1")).unwrap(), answer("a1"));
    client.finish().unwrap();
    assert!(!client.is_synthetic());
    assert_eq!(client.describe().model.as_deref(), Some("m"));
}

#[test]
fn miss_names_the_key_and_the_nearest_difference() {
    let dir = tempfile::tempdir().unwrap();
    let path = file_with(dir.path(), &[Recording::new(request("why does gcd loop?"), answer("a"), false, None)]);
    let client = ReplayClient::open(&path).unwrap();
    let asked = request("why does lcm loop?");
    let err = client.chat(&asked).unwrap_err();
    let text = err.to_string();
    assert!(matches!(&err, LlmError::ReplayMiss { key, .. } if *key == request_key(&asked)), "{err:?}");
    assert!(text.contains(&request_key(&asked)), "{text}");
    assert!(text.contains("first differs at message 1") && text.contains("gcd") && text.contains("lcm"), "{text}");
    assert!(text.contains("recordings.jsonl:1"), "{text}");

    let hotter = ChatRequest { temperature: Some(0.7), ..request("why does gcd loop?") };
    let text = client.chat(&hotter).unwrap_err().to_string();
    assert!(text.contains("same messages but differs in temperature"), "{text}");
}

#[test]
fn unused_recording_fails_finish() {
    let dir = tempfile::tempdir().unwrap();
    let recordings = [
        Recording::new(request("q1"), answer("a1"), false, None),
        Recording::new(request("q2"), answer("a2"), false, None),
    ];
    let client = ReplayClient::open(file_with(dir.path(), &recordings)).unwrap();
    client.chat(&request("q1")).unwrap();
    let err = client.finish().unwrap_err();
    assert!(matches!(err, LlmError::ReplayUnused { count: 1, .. }), "{err:?}");
    assert!(err.to_string().contains(&format!("line 2 key {}", request_key(&request("q2")))), "{err}");
}

#[test]
fn repeated_requests_are_served_in_order_and_not_beyond() {
    let dir = tempfile::tempdir().unwrap();
    let recordings = [
        Recording::new(request("q"), answer("first"), false, None),
        Recording::new(request("q"), answer("second"), false, None),
    ];
    let client = ReplayClient::open(file_with(dir.path(), &recordings)).unwrap();
    assert_eq!(client.chat(&request("q")).unwrap().choices[0].message.text(), "first");
    assert_eq!(client.chat(&request("q")).unwrap().choices[0].message.text(), "second");
    assert!(client.chat(&request("q")).unwrap_err().to_string().contains("used already"));
}

#[test]
fn synthetic_recordings_mark_the_client_and_hand_written_lines_need_no_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hand.jsonl");
    // Hand-written: keys in any order, spaces, integer temperature, no "key".
    let line = r#"{ "synthetic": true, "note": "written for a test",
        "response": {"choices": [{"message": {"role": "assistant", "content": "a1"}, "finish_reason": "stop"}]},
        "request": {"temperature": 0, "messages": [{"content": "You fix bugs.", "role": "system"}, {"role": "user", "content": "q1"}], "model": "m"} }"#;
    std::fs::write(&path, line.replace('\n', "") + "\n\n").unwrap();
    let client = ReplayClient::open(&path).unwrap();
    assert!(client.is_synthetic() && client.describe().synthetic);
    assert_eq!(client.chat(&request("q1")).unwrap().choices[0].message.text(), "a1");
    client.finish().unwrap();
}

#[test]
fn wrong_key_is_rejected_with_the_right_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut rec = Recording::new(request("q1"), answer("a1"), false, None);
    let line = rec.to_line().replace(&rec.key, &"0".repeat(64));
    rec.key.clear();
    let path = dir.path().join("bad.jsonl");
    std::fs::write(&path, line + "\n").unwrap();
    let err = ReplayClient::open(&path).unwrap_err();
    assert!(matches!(err, LlmError::BadRecording { line: 1, .. }), "{err:?}");
    assert!(err.to_string().contains(&request_key(&request("q1"))), "{err}");
}

#[test]
fn record_then_replay_round_trip_through_http() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let body = serde_json::to_string(&answer("from the server")).unwrap();
    let server = TestServer::start(vec![Reply::json(200, &body), Reply::json(200, &body)]);
    let config = OpenAiConfig { retry: RetryPolicy::none(), ..OpenAiConfig::new(&server.base_url, "m", None) };
    let recorder = RecordingClient::create(OpenAiClient::new(config), &path).unwrap();
    // Transport facts (latency, retries) are not recorded: compare the wire content.
    let wire = |mut r: ChatResponse| {
        r.transport = Transport::default();
        r
    };
    let live = [recorder.chat(&request("q1")).unwrap(), recorder.chat(&request("q2")).unwrap()].map(wire);
    assert_eq!(recorder.describe().kind, "recording");
    drop(recorder);

    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 2);
    assert!(text.lines().all(|l| l.starts_with(r#"{"key":""#) && l.ends_with(r#""synthetic":false}"#)), "{text}");
    let replay = ReplayClient::open(&path).unwrap();
    assert!(!replay.is_synthetic());
    assert_eq!(replay.chat(&request("q2")).unwrap(), live[1]);
    assert_eq!(replay.chat(&request("q1")).unwrap(), live[0]);
    replay.finish().unwrap();
}

#[test]
fn recording_a_synthetic_client_stays_synthetic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scripted.jsonl");
    let recorder = RecordingClient::create(ScriptedClient::new(vec![Script::text("hand-written")]), &path).unwrap();
    recorder.chat(&request("q")).unwrap();
    assert!(ReplayClient::open(&path).unwrap().is_synthetic());
}
