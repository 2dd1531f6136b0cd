//! Issue 29, items 4 and 8 and the stalled body, with the real HTTP client: a reply that
//! arrived but is not UTF-8, or is over 10 MiB, is a malformed response (not "cannot
//! reach", not retried, every request counted); a body that stalls after its headers is cut
//! off; `label` stops at once when the endpoint's port is closed. The server is written here
//! on a std `TcpListener`, as no real chat-completions server sends such bytes.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use repair::label::{LabelConfig, LabelSummary, Labeller, NoProgress, label_file};
use repair::llm::{
    ChatClient, ChatRequest, LlmError, MAX_REPLY_BYTES, Message, OpenAiClient, OpenAiConfig, RetryPolicy,
};
use serde_json::json;

/// What the server sends back to every request.
#[derive(Debug, Clone, Copy)]
enum Reply {
    /// A 200 whose body has bytes that are not UTF-8.
    NotUtf8,
    /// A 200 whose body is 1 MiB longer than [`MAX_REPLY_BYTES`].
    TooLarge,
    /// A 200 whose headers promise 100 bytes, of which 10 come, then nothing.
    Stalled,
}

/// A local HTTP/1.1 server answering every connection with one [`Reply`].
struct RawServer {
    base_url: String,
    requests: Arc<AtomicUsize>,
}

impl RawServer {
    fn start(reply: Reply) -> RawServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let seen = Arc::clone(&seen);
                std::thread::spawn(move || answer(stream, reply, &seen));
            }
        });
        RawServer { base_url, requests }
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

/// Reads one request (headers and a `Content-Length` body), counts it, sends `reply`.
fn answer(stream: TcpStream, reply: Reply, seen: &AtomicUsize) {
    let mut reader = BufReader::new(stream);
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    seen.fetch_add(1, Ordering::SeqCst);
    let mut stream = reader.into_inner();
    // One request per connection, said so: a client must not reuse it (a pooled connection the
    // server already closed fails on reuse, and its retry is one more request).
    let head = |len: u64| {
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n"
        )
    };
    let _ = match reply {
        Reply::NotUtf8 => {
            let body = b"{\"choices\": [{\"message\": {\"role\": \"assistant\", \"content\": \"\xff\xfe\"}}]}";
            stream.write_all(head(body.len() as u64).as_bytes()).and_then(|()| stream.write_all(body))
        }
        Reply::TooLarge => {
            let len = MAX_REPLY_BYTES + (1 << 20);
            let chunk = vec![b' '; 1 << 20];
            stream
                .write_all(head(len).as_bytes())
                .and_then(|()| (0..len >> 20).try_for_each(|_| stream.write_all(&chunk)))
        }
        Reply::Stalled => {
            let _ = stream.write_all(head(100).as_bytes()).and_then(|()| stream.write_all(b"{\"choices\""));
            std::thread::sleep(Duration::from_secs(30));
            Ok(())
        }
    };
}

fn fast_retry(max_attempts: u32) -> RetryPolicy {
    RetryPolicy { max_attempts, base_delay_ms: 10, max_delay_ms: 20, max_retry_after_ms: 100, jitter: false }
}

fn client(base_url: &str, retry: RetryPolicy) -> OpenAiClient {
    OpenAiClient::new(OpenAiConfig { timeout_ms: 10_000, retry, ..OpenAiConfig::new(base_url, "m", None) })
}

fn hello() -> ChatRequest {
    ChatRequest::new("m", vec![Message::user("hello")])
}

/// A malformed reply: the error says so (never "cannot reach"), and it was asked once.
fn assert_malformed_once(reply: Reply, reason: &str) {
    let server = RawServer::start(reply);
    let client = client(&server.base_url, fast_retry(5));
    let err = client.chat(&hello()).unwrap_err();
    assert!(matches!(&err, LlmError::MalformedResponse { reason: r, .. } if r.contains(reason)), "{err:?}");
    assert!(!err.to_string().contains("cannot reach"), "{err}");
    assert!(!err.is_retryable());
    assert_eq!(server.requests(), 1, "a reply that arrived is not asked for again");
    assert_eq!(client.requests_sent(), Some(1));
}

#[test]
fn issue_29_a_reply_that_is_not_utf8_is_malformed_and_not_retried() {
    assert_malformed_once(Reply::NotUtf8, "not UTF-8 text (invalid byte at offset");
}

#[test]
fn issue_29_a_reply_over_10_mib_is_malformed_and_not_retried() {
    assert_malformed_once(Reply::TooLarge, "longer than 10485760 bytes (10 MiB)");
}

/// A body that stops arriving after its headers is cut off at the body timeout, not held
/// for the whole request timeout (10 s here, 300 s by default).
#[test]
fn issue_29_a_stalled_reply_body_is_cut_off() {
    let server = RawServer::start(Reply::Stalled);
    let config = OpenAiConfig {
        timeout_ms: 10_000,
        body_timeout_ms: 300,
        retry: RetryPolicy::none(),
        ..OpenAiConfig::new(&server.base_url, "m", None)
    };
    let started = Instant::now();
    let err = OpenAiClient::new(config).chat(&hello()).unwrap_err();
    assert!(matches!(err, LlmError::StalledBody { timeout_ms: 300, .. }), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
}

/// A corpus of `n` rows in a temporary folder: (folder, input, output, cache).
fn corpus(n: usize) -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let rows: String = (0..n)
        .map(|i| {
            let row = json!({"id": format!("t:{i}"), "language": "java",
                "buggy_code": format!("int f{i}(int a) {{ return a - 1; }}"),
                "fixed_code": format!("int f{i}(int a) {{ return a + 1; }}")});
            format!("{row}\n")
        })
        .collect();
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, rows).unwrap();
    let (output, cache) = (dir.path().join("out.jsonl"), dir.path().join("out.jsonl.cache"));
    (dir, input, output, cache)
}

fn label(client: &dyn ChatClient, n: usize, concurrency: usize) -> (LabelSummary, Duration) {
    let (_dir, input, output, cache) = corpus(n);
    let cfg = LabelConfig { concurrency, ..LabelConfig::default() };
    let started = Instant::now();
    let labeller = Labeller::Model { client, model: "m" };
    let s = label_file(&input, &output, &cache, labeller, &cfg, &NoProgress).unwrap();
    (s, started.elapsed())
}

/// Item 8 in `label`: every malformed reply is one request, counted in the summary.
#[test]
fn issue_29_label_counts_every_request_of_malformed_replies() {
    let server = RawServer::start(Reply::NotUtf8);
    let client = client(&server.base_url, fast_retry(5));
    let (s, _) = label(&client, 3, 1);
    assert_eq!((s.failed, s.calls, s.requests), (3, 0, Some(3)), "{s:?}");
    assert_eq!(server.requests(), 3);
    assert!(s.failures.iter().all(|f| f.reason.contains("malformed response")), "{s:?}");
}

/// Item 4: with the real client, a closed port comes back as "gave up after N attempts:
/// cannot reach"; the run stops after that first call (which went alone: the other workers
/// waited for it), and every other row is "not asked".
#[test]
fn issue_29_label_stops_at_once_on_a_closed_port_with_the_real_client() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let client = client(&format!("http://127.0.0.1:{port}/v1"), fast_retry(3));
    let (s, took) = label(&client, 30, 4);
    assert!(s.stopped.as_deref().is_some_and(|w| w.contains("cannot reach the model endpoint")), "{s:?}");
    assert_eq!((s.failed, s.labelled, s.requests), (30, 0, Some(3)), "{s:?}");
    let not_asked = s.failures.iter().filter(|f| f.reason.starts_with("not asked: cannot reach")).count();
    assert_eq!(not_asked, 29, "{s:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}
