//! `fixdex serve`: real MCP sessions over stdio (scripted newline-delimited JSON-RPC against
//! the real binary) and real HTTP requests, with the tiny model over a small index.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Scratch, records, repo, stderr};

/// The id excluded from every search in these tests.
const EXCLUDED: &str = "test:3";
const INTERNAL_TOOLS: [&str; 9] = [
    "identify_variable",
    "find_variable_assignments",
    "track_variable_dataflow",
    "trace_method_usage",
    "analyze_method_details",
    "find_method_in_file",
    "find_class_loc",
    "identify_class",
    "get_imports",
];
const WAIT: Duration = Duration::from_secs(120);

/// A scratch folder with the tiny model and an index of 12 synthetic records.
fn indexed() -> (Scratch, PathBuf) {
    let s = Scratch::new();
    let corpus = s.corpus("c.jsonl", &records(12));
    let idx = s.path("c.fdx");
    s.index(&corpus, &idx, &[]);
    (s, idx)
}

/// Issue 11: every fix of a `search_similar_fixes` answer carries the repair actions that
/// `fixdex index` stored for it (`engine::testing::SAMPLE_ACTIONS` for the synthetic
/// records), in the structured answer and as an `Action:` line in the text.
fn check_actions(fixes: &[Value], text: &str) {
    for f in fixes {
        let i: usize = f["id"].as_str().unwrap().trim_start_matches("test:").parse().unwrap();
        let (label, reason, actions) = engine::testing::SAMPLE_ACTIONS[i % 4];
        assert_eq!(f["action_label"], label, "{f}");
        assert_eq!(f["action_reason"], if reason.is_empty() { Value::Null } else { json!(reason) }, "{f}");
        assert_eq!(f["actions"], serde_json::from_str::<Value>(actions).unwrap(), "{f}");
    }
    assert!(text.contains("\nAction: change loop bound <= → < in for condition\n"), "{text}");
    assert!(text.contains("\nAction: OTHER (parse error)\n"), "{text}");
}

fn toolproject() -> PathBuf {
    repo().join("repair/tests/fixtures/toolproject")
}

/// `fixdex serve INDEX --project toolproject --exclude-id test:3 EXTRA...`, all pipes.
fn spawn(s: &Scratch, idx: &std::path::Path, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_fixdex"))
        .args(["serve", idx.to_str().unwrap(), "--project", toolproject().to_str().unwrap(), "--exclude-id", EXCLUDED])
        .args(extra)
        .env("FIXDEX_MODEL", s.model())
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Lines of `r`, read on a thread so a test can wait with a timeout.
fn lines(r: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// A scripted MCP client: newline-delimited JSON-RPC on the child's stdin/stdout.
struct Mcp {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Receiver<String>,
    next_id: u64,
}

impl Mcp {
    fn start(s: &Scratch, idx: &std::path::Path) -> Mcp {
        let mut child = spawn(s, idx, &["--mcp"]);
        let stdin = child.stdin.take();
        let stdout = lines(child.stdout.take().unwrap());
        Mcp { child, stdin, stdout, next_id: 0 }
    }

    fn send(&mut self, msg: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request and returns its response (every stdout line must be JSON-RPC).
    fn request(&mut self, method: &str, params: &Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self.stdout.recv_timeout(WAIT).expect("no answer from the MCP server");
            let msg: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout is not JSON-RPC: {line}: {e}"));
            assert_eq!(msg["jsonrpc"], "2.0", "{msg}");
            if msg["id"] == id {
                return msg;
            }
        }
    }

    fn call(&mut self, tool: &str, args: &Value) -> Value {
        let msg = self.request("tools/call", &json!({"name": tool, "arguments": args}));
        assert!(msg.get("error").is_none(), "protocol error for {tool}: {msg}");
        msg["result"].clone()
    }
}

fn text(result: &Value) -> &str {
    assert_eq!(result["content"][0]["type"], "text", "{result}");
    result["content"][0]["text"].as_str().unwrap()
}

#[test]
fn serve_mcp_session_lists_and_calls_tools() {
    let (s, idx) = indexed();
    let mut mcp = Mcp::start(&s, &idx);
    let init = mcp.request(
        "initialize",
        &json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "fixdex", "{init}");
    assert!(init["result"]["capabilities"]["tools"].is_object(), "{init}");
    mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let list = mcp.request("tools/list", &json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    let mut expected = vec!["search_similar_fixes"];
    expected.extend(INTERNAL_TOOLS);
    assert_eq!(names, expected);
    for t in tools {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert!(t["inputSchema"]["properties"].is_object(), "{t}");
        assert!(!t["description"].as_str().unwrap().is_empty());
    }

    // k above the corpus size: every document but the excluded one comes back.
    let query = json!({"code": "int g(int[] a, int n) { for (int i = 0; i <= n; i++) sum += a[i]; }",
                       "root_cause": "the loop bound is off by one", "k": 20});
    let found = mcp.call("search_similar_fixes", &query);
    assert_eq!(found["isError"], false, "{found}");
    let fixes = found["structuredContent"]["fixes"].as_array().unwrap();
    let ids: Vec<&str> = fixes.iter().map(|f| f["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 11, "{ids:?}");
    assert!(!ids.contains(&EXCLUDED), "{ids:?}");
    assert!(text(&found).contains("### Similar fix 1"), "{}", text(&found));
    assert!(!text(&found).contains(&format!("{EXCLUDED},")));
    check_actions(fixes, text(&found));

    let method = mcp.call("find_method_in_file", &json!({"file": "python/geometry/utils.py", "method": "clamp"}));
    assert_eq!(method["isError"], false, "{method}");
    assert!(text(&method).starts_with("python/geometry/utils.py:4-9 clamp\n4: def clamp(x, lo, hi):"), "{method}");

    let bad = mcp.call("find_method_in_file", &json!({"file": "python/geometry/utils.py"}));
    assert_eq!(bad["isError"], true, "{bad}");
    assert_eq!(text(&bad), "tool `find_method_in_file` needs the string argument `method`");
    let bad = mcp.call("search_similar_fixes", &json!({"code": "x", "root_cause": "y", "k": 0}));
    assert_eq!(bad["isError"], true, "{bad}");
    assert_eq!(text(&bad), "`k` must be an integer in 1..=20, got 0");
    let outside = mcp.call("get_imports", &json!({"file": "../../Cargo.toml"}));
    assert_eq!(outside["isError"], true, "{outside}");

    let unknown = mcp.request("tools/call", &json!({"name": "rm_rf", "arguments": {}}));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    // Closing stdin ends the session and the process, cleanly.
    drop(mcp.stdin.take());
    let out = mcp.child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

/// The HTTP server on a free loopback port, killed on drop.
struct Http {
    child: Child,
    base: String,
    agent: ureq::Agent,
}

impl Http {
    fn start(s: &Scratch, idx: &std::path::Path) -> Http {
        Http::start_with(s, idx, &[])
    }

    fn start_with(s: &Scratch, idx: &std::path::Path, extra: &[&str]) -> Http {
        let mut args = vec!["--http", "127.0.0.1:0", "--max-body-bytes", "4096"];
        args.extend_from_slice(extra);
        let mut child = spawn(s, idx, &args);
        let err = lines(child.stderr.take().unwrap());
        let first = err.recv_timeout(WAIT).expect("the server printed nothing");
        let addr = first.strip_prefix("fixdex: listening on ").unwrap_or_else(|| panic!("first line: {first}"));
        // Keep draining stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || while err.recv().is_ok() {});
        let agent = ureq::Agent::config_builder().http_status_as_error(false).build().new_agent();
        Http { child, base: addr.to_string(), agent }
    }

    fn get(&self, path: &str) -> (u16, Value) {
        let mut r = self.agent.get(format!("{}{path}", self.base)).call().unwrap();
        (r.status().as_u16(), serde_json::from_str(&r.body_mut().read_to_string().unwrap()).unwrap())
    }

    fn post(&self, path: &str, body: &str) -> (u16, Value) {
        let req = self.agent.post(format!("{}{path}", self.base)).header("Content-Type", "application/json");
        let mut r = req.send(body).unwrap();
        (r.status().as_u16(), serde_json::from_str(&r.body_mut().read_to_string().unwrap()).unwrap())
    }
}

impl Drop for Http {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn serve_http_answers_list_call_and_errors() {
    let (s, idx) = indexed();
    let http = Http::start(&s, &idx);

    let (status, health) = http.get("/health");
    assert_eq!((status, &health["status"], &health["tools"]), (200, &json!("ok"), &json!(10)), "{health}");
    assert_eq!(health["index"]["generation"], 1, "{health}");
    assert_eq!(health["index"]["load"], "memory", "{health}");
    assert_eq!(health["index"]["documents"], 12, "{health}");
    let (status, list) = http.get("/tools");
    assert_eq!(status, 200);
    let tools = list["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 10);
    assert!(tools.iter().all(|t| t["parameters"]["type"] == "object"), "{list}");

    let query = json!({"code": "return b - a;", "root_cause": "swapped arguments", "k": 20}).to_string();
    let (status, found) = http.post("/tools/search_similar_fixes", &query);
    assert_eq!(status, 200, "{found}");
    let ids: Vec<&str> =
        found["structured"]["fixes"].as_array().unwrap().iter().map(|f| f["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 11, "{ids:?}");
    assert!(!ids.contains(&EXCLUDED));
    assert!(found["result"].as_str().unwrap().contains("### Similar fix 1"));
    check_actions(found["structured"]["fixes"].as_array().unwrap(), found["result"].as_str().unwrap());

    let args = json!({"file": "Circle.java", "method": "area"}).to_string();
    let (status, method) = http.post("/tools/find_method_in_file", &args);
    assert_eq!(status, 200, "{method}");
    assert!(method["result"].as_str().unwrap().starts_with("java/src/com/example/shapes/Circle.java:11-14"));

    let (status, e) = http.post("/tools/rm_rf", "{}");
    assert_eq!(status, 404, "{e}");
    assert!(e["error"].as_str().unwrap().starts_with("unknown tool `rm_rf`"), "{e}");
    let (status, e) = http.post("/tools/find_method_in_file", r#"{"file": "Circle.java"}"#);
    assert_eq!(
        (status, e["error"].as_str().unwrap()),
        (422, "tool `find_method_in_file` needs the string argument `method`")
    );
    let (status, e) = http.post("/tools/find_method_in_file", "[1, 2]");
    assert_eq!(status, 400, "{e}");
    let (status, e) = http.post("/tools/find_method_in_file", "{not json");
    assert_eq!(status, 400, "{e}");
    let big = json!({"code": "x".repeat(8192), "root_cause": "y"}).to_string();
    let (status, e) = http.post("/tools/search_similar_fixes", &big);
    assert_eq!(status, 413, "{e}");
    assert!(e["error"].as_str().unwrap().starts_with("request body too large"), "{e}");
    let (status, e) = http.get("/nowhere");
    assert_eq!(status, 404, "{e}");
}

#[test]
fn serve_http_refuses_non_loopback_addresses() {
    let (s, idx) = indexed();
    let o = s.run(&["serve", idx.to_str().unwrap(), "--http", "0.0.0.0:0"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("not a loopback address; bind 127.0.0.1 or pass --allow-remote"), "{}", stderr(&o));
}

#[test]
fn serve_needs_a_transport() {
    let (s, idx) = indexed();
    let o = s.run(&["serve", idx.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// Another index of `n` records (12 in the index served first), written at `name`.
fn other_index(s: &Scratch, name: &str, n: usize) -> PathBuf {
    let corpus = s.corpus(&format!("{name}.jsonl"), &records(n));
    let out = s.path(name);
    s.index(&corpus, &out, &[]);
    out
}

/// `search_similar_fixes` for every document: the status and the number of fixes.
fn fixes(http: &Http) -> (u16, usize, Value) {
    let query = json!({"code": "return b - a;", "root_cause": "swapped arguments", "k": 20}).to_string();
    let (status, body) = http.post("/tools/search_similar_fixes", &query);
    let n = body["structured"]["fixes"].as_array().map_or(0, Vec::len);
    (status, n, body)
}

fn alive(http: &mut Http) {
    assert!(http.child.try_wait().unwrap().is_none(), "the server died");
}

/// Issue 8 item 4: `cp other.fdx IDX` under a running server (the same inode rewritten in
/// place) killed it with SIGBUS; now the next request answers from the new index.
#[test]
fn issue_8_serve_follows_an_index_copied_over_in_place() {
    for load in ["memory", "mmap"] {
        let (s, idx) = indexed();
        let other = other_index(&s, "other.fdx", 20);
        let mut http = Http::start_with(&s, &idx, &["--load", load]);
        assert_eq!(fixes(&http).1, 11, "{load}");
        let (_, before) = http.get("/health");
        std::fs::copy(&other, &idx).unwrap(); // what cp does: truncate, then write the same inode
        let (status, n, body) = fixes(&http);
        assert_eq!((status, n), (200, 19), "{load}: {body}");
        alive(&mut http);
        let (status, health) = http.get("/health");
        assert_eq!((status, &health["index"]["generation"]), (200, &json!(2)), "{load}: {health}");
        assert_eq!(health["index"]["documents"], 20);
        assert_eq!(health["index"]["load"], load);
        let inode = |h: &Value| h["index"]["files"][0]["inode"].clone();
        assert_eq!(inode(&health), inode(&before), "cp keeps the inode: {health}");
        assert_ne!(health["index"]["files"][0]["bytes"], before["index"]["files"][0]["bytes"]);
    }
}

/// Issue 8 item 4: a rebuild renamed onto the path left the server on the old index until
/// restart; now the next request answers from the new one.
#[test]
fn issue_8_serve_follows_an_index_renamed_onto_its_path() {
    let (s, idx) = indexed();
    let mut http = Http::start(&s, &idx);
    assert_eq!(fixes(&http).1, 11);
    // `fixdex index -o IDX` writes a temporary file and renames it onto IDX.
    let corpus = s.corpus("more.jsonl", &records(20));
    s.index(&corpus, &idx, &[]);
    let (status, n, body) = fixes(&http);
    assert_eq!((status, n), (200, 19), "{body}");
    alive(&mut http);
    let (_, health) = http.get("/health");
    assert_eq!(health["index"]["generation"], 2, "{health}");
}

/// Issue 8 item 4: a file truncated in place gives an error for the requests that come while
/// it is there (not a crash), and the server answers again once a good file is published.
#[test]
fn issue_8_serve_survives_a_truncated_index() {
    for load in ["memory", "mmap"] {
        let (s, idx) = indexed();
        let good = other_index(&s, "good.fdx", 20);
        let mut http = Http::start_with(&s, &idx, &["--load", load]);
        assert_eq!(fixes(&http).1, 11);
        let len = std::fs::metadata(&idx).unwrap().len();
        std::fs::OpenOptions::new().write(true).open(&idx).unwrap().set_len(len / 2).unwrap();
        for _ in 0..2 {
            let (status, _, body) = fixes(&http);
            assert_eq!(status, 503, "{load}: {body}");
            let msg = body["error"].as_str().unwrap();
            assert!(msg.contains(idx.to_str().unwrap()) && msg.contains("changed on disk"), "{msg}");
            assert!(msg.contains("truncated"), "{msg}");
            alive(&mut http);
        }
        let (status, health) = http.get("/health");
        assert_eq!((status, &health["status"]), (503, &json!("unavailable")), "{health}");
        assert!(health["index"]["error"].as_str().unwrap().contains("truncated"), "{health}");
        // The internal tools do not need the index.
        let args = json!({"file": "Circle.java", "method": "area"}).to_string();
        assert_eq!(http.post("/tools/find_method_in_file", &args).0, 200);

        std::fs::rename(&good, &idx).unwrap();
        let (status, n, body) = fixes(&http);
        assert_eq!((status, n), (200, 19), "{load}: {body}");
        let (status, health) = http.get("/health");
        assert_eq!((status, &health["index"]["generation"]), (200, &json!(2)), "{health}");
    }
}

/// Issue 8 item 4 over MCP: the same truncation is a tool error (`isError`), and the session
/// goes on.
#[test]
fn issue_8_serve_mcp_reports_a_truncated_index_as_a_tool_error() {
    let (s, idx) = indexed();
    let good = other_index(&s, "good.fdx", 20);
    let mut mcp = Mcp::start(&s, &idx);
    let init =
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}});
    mcp.request("initialize", &init);
    mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let query = json!({"code": "return b - a;", "root_cause": "swapped arguments", "k": 20});
    let len = std::fs::metadata(&idx).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&idx).unwrap().set_len(len / 3).unwrap();
    let bad = mcp.call("search_similar_fixes", &query);
    assert_eq!(bad["isError"], true, "{bad}");
    assert!(text(&bad).contains("changed on disk"), "{bad}");
    std::fs::rename(&good, &idx).unwrap();
    let found = mcp.call("search_similar_fixes", &query);
    assert_eq!(found["isError"], false, "{found}");
    assert_eq!(found["structuredContent"]["fixes"].as_array().unwrap().len(), 19);
    drop(mcp.stdin.take());
    assert!(mcp.child.wait_with_output().unwrap().status.success());
}

/// Issue 8 items 13 and 5 (HTTP side): a space the index lacks was a 500, unknown argument
/// names were ignored, an empty query returned hits; all are 422 with the reason now.
#[test]
fn issue_8_serve_http_argument_errors_are_422() {
    let (s, idx) = indexed();
    let http = Http::start(&s, &idx);
    let call = |tool: &str, args: Value| {
        let (status, body) = http.post(&format!("/tools/{tool}"), &args.to_string());
        (status, body["error"].as_str().unwrap_or_default().to_string())
    };
    let (status, e) = call("search_similar_fixes", json!({"code": "x", "root_cause": "y", "space": "code"}));
    assert_eq!(status, 422, "{e}");
    assert!(e.contains("no vector space `code`"), "{e}");
    let (status, e) = call("search_similar_fixes", json!({"code": "x", "root_cause": "y", "kk": 3}));
    assert_eq!(status, 422, "{e}");
    assert!(e.starts_with("unknown argument `kk` for tool `search_similar_fixes`"), "{e}");
    for known in ["code", "root_cause", "k", "threshold", "space"] {
        assert!(e.contains(known), "{e}");
    }
    let (status, e) = call("search_similar_fixes", json!({"code": "x", "root_cause": "y", "k": "3"}));
    assert_eq!(
        (status, e.as_str()),
        (422, r#"argument `k` of tool `search_similar_fixes` must be an integer, got a string "3""#)
    );
    let (status, e) = call("search_similar_fixes", json!({"code": 42, "root_cause": "y"}));
    assert_eq!(status, 422, "{e}");
    let (status, e) = call("find_method_in_file", json!({"file": "Circle.java", "method": "area", "line": 3}));
    assert_eq!(status, 422, "{e}");
    assert!(e.contains("unknown argument `line`") && e.contains("file, method"), "{e}");
    for (code, cause) in [("", ""), ("  \n\t", "\u{200b}\u{feff}"), ("\u{0301}", " ")] {
        let (status, e) = call("search_similar_fixes", json!({"code": code, "root_cause": cause}));
        assert_eq!(status, 422, "{code:?} {cause:?}: {e}");
        assert!(e.starts_with("empty query"), "{e}");
    }
    // A cause alone is no query in a space that embeds code: the error points at the cause space.
    let (status, e) = call("search_similar_fixes", json!({"code": "", "root_cause": "off by one"}));
    assert_eq!(status, 422, "{e}");
    assert!(e.contains("space `cause`"), "{e}");
}

/// Issue 8 item 4, the race: files copied over the index in place *while* requests run.
/// With the default `--load memory` no request can touch a vanished page: every answer is
/// either from one complete index (11 or 19 fixes) or a 503, and the server stays up.
#[test]
fn issue_8_serve_survives_an_index_rewritten_in_place_during_requests() {
    let (s, idx) = indexed();
    let small = s.path("small.fdx");
    std::fs::copy(&idx, &small).unwrap();
    let big = other_index(&s, "big.fdx", 20);
    let mut http = Http::start(&s, &idx);
    let writer = {
        let (big, idx) = (big.clone(), idx.clone());
        std::thread::spawn(move || {
            for i in 0..40 {
                std::fs::copy(if i % 2 == 0 { &big } else { &small }, &idx).unwrap();
                std::thread::sleep(Duration::from_millis(3));
            }
        })
    };
    let mut seen = std::collections::BTreeMap::new();
    while !writer.is_finished() {
        let (status, n, body) = fixes(&http);
        assert!(matches!((status, n), (200, 11 | 19) | (503, 0)), "{status} {n}: {body}");
        *seen.entry(status).or_insert(0) += 1;
    }
    writer.join().unwrap();
    alive(&mut http);
    std::fs::copy(&big, &idx).unwrap();
    assert_eq!(fixes(&http).1, 19, "answers during the copies: {seen:?}");
}

/// Issue 29 item 9: over `serve --mcp`, every line that holds no message gets a JSON-RPC
/// error reply (before: none, so the client waited forever): truncated JSON, plain text
/// and invalid UTF-8 get `-32700 Parse error` with `id` null, JSON that is not a message
/// `-32600` (with its id), and a 60 MB line (over the 16 MiB limit, never held whole) an
/// error reply too; the session then still answers.
#[test]
fn issue_29_serve_mcp_answers_every_unusable_line() {
    let (s, idx) = indexed();
    let mut mcp = Mcp::start(&s, &idx);
    let init =
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    mcp.request("initialize", &init);
    mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let mut raw = |bytes: &[u8]| -> Value {
        let stdin = mcp.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        let line = mcp.stdout.recv_timeout(WAIT).expect("no reply to an unusable line");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON: {line}: {e}"))
    };
    for bad in [&br#"{"jsonrpc": "2.0", "id": 9, "method": "tools/li"#[..], b"hello there", b"\xff\xfe\x00{}"] {
        let reply = raw(bad);
        assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
        assert_eq!(reply["id"], Value::Null, "{reply}");
        assert_eq!(
            (reply["error"]["code"].as_i64(), reply["error"]["message"].as_str()),
            (Some(-32700), Some("Parse error"))
        );
    }
    let reply = raw(br#"{"jsonrpc": "2.0", "id": 5, "method": 12}"#);
    assert_eq!((reply["id"].clone(), reply["error"]["code"].clone()), (json!(5), json!(-32600)), "{reply}");
    let mut long = vec![b'a'; 60 << 20];
    long[0] = b'"';
    let reply = raw(&long);
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert!(reply["error"]["data"]["reason"].as_str().unwrap().contains("62914560 bytes"), "{reply}");
    let list = mcp.request("tools/list", &json!({}));
    assert_eq!(list["result"]["tools"].as_array().map(Vec::len), Some(10), "{list}");
    drop(mcp.stdin.take());
    assert!(mcp.child.wait_with_output().unwrap().status.success());
}

/// Issue 29 item 9, found by a fresh user: unusable lines sent in one burst with requests
/// each get their own whole reply line. The replies to unusable lines were written inside
/// the transport's `receive`, which rmcp drops whenever another event is ready: about half
/// the runs lost a reply, or glued two on one line. Five bursts, every stdout line JSON.
#[test]
fn issue_29_serve_mcp_answers_a_burst_of_unusable_lines_whole() {
    let (s, idx) = indexed();
    for run in 0..5 {
        let mut mcp = Mcp::start(&s, &idx);
        let init =
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
        mcp.request("initialize", &init);
        let burst = concat!(
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\"}\n",
            "[]\n{}\n42\nhello\n{\"jsonrpc\": \"2.0\", \"id\": 9\n",
            "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/list\"}\n",
        );
        let stdin = mcp.stdin.as_mut().unwrap();
        stdin.write_all(burst.as_bytes()).unwrap();
        stdin.flush().unwrap();
        let replies: Vec<Value> = (0..7)
            .map(|i| {
                let line =
                    mcp.stdout.recv_timeout(WAIT).unwrap_or_else(|_| panic!("run {run}: reply {i} of 7 missing"));
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("run {run}: not one JSON object: {line}: {e}"))
            })
            .collect();
        let ids = |code: Option<i64>| replies.iter().filter(|r| r["error"]["code"].as_i64() == code).count();
        assert_eq!((ids(Some(-32600)) + ids(Some(-32700)), ids(None)), (5, 2), "run {run}: {replies:?}");
        drop(mcp.stdin.take());
        assert!(mcp.child.wait_with_output().unwrap().status.success());
    }
}

/// Issue 29: the search tool's schema is the index's: its `space` lists only the spaces the
/// index has (this one: code+cause), `additionalProperties` is false, and a space the index
/// lacks is refused naming the ones it has; over HTTP and MCP alike.
#[test]
fn issue_29_serve_search_schema_comes_from_the_index() {
    let (s, idx) = indexed();
    let http = Http::start(&s, &idx);
    let (_, list) = http.get("/tools");
    let search = list["tools"].as_array().unwrap().iter().find(|t| t["name"] == "search_similar_fixes").unwrap();
    assert_eq!(search["parameters"]["properties"]["space"]["enum"], json!(["code+cause"]), "{search}");
    assert_eq!(search["parameters"]["additionalProperties"], false, "{search}");
    let (status, e) = http.post("/tools/search_similar_fixes", r#"{"code": "x", "root_cause": "y", "space": "code"}"#);
    assert_eq!(status, 422, "{e}");
    assert!(e["error"].as_str().unwrap().contains("`space` must be one of code+cause"), "{e}");
    let (_, health) = http.get("/health");
    assert_eq!(health["index"]["spaces"], json!(["code+cause"]), "{health}");

    let mut mcp = Mcp::start(&s, &idx);
    let init =
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    mcp.request("initialize", &init);
    let tools = mcp.request("tools/list", &json!({}));
    let search =
        tools["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "search_similar_fixes").unwrap();
    assert_eq!(search["inputSchema"]["properties"]["space"]["enum"], json!(["code+cause"]), "{search}");
    assert_eq!(search["inputSchema"]["additionalProperties"], false, "{search}");
}

/// Issue 29: an HTTP request whose body stalls after its headers gets 408 after
/// `--body-timeout-s` and its connection is closed (before: held open indefinitely).
#[test]
fn issue_29_serve_http_cuts_off_a_stalled_body() {
    use std::io::Read;
    let (s, idx) = indexed();
    let http = Http::start_with(&s, &idx, &["--body-timeout-s", "1"]);
    let addr = http.base.trim_start_matches("http://");
    let mut conn = std::net::TcpStream::connect(addr).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let head =
        "POST /tools/get_imports HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{";
    conn.write_all(head.as_bytes()).unwrap();
    let started = std::time::Instant::now();
    let mut answer = String::new();
    conn.read_to_string(&mut answer).expect("the server closes the connection");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("did not arrive within 1 s"), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
}

/// Issue 29: `serve --json` prints where it listens as one JSON object (not with --mcp,
/// whose stdout is the protocol), and `serve --help` shows the default address.
#[test]
fn issue_29_serve_json_and_default_address_in_help() {
    let (s, idx) = indexed();
    let mut child = spawn(&s, &idx, &["--http", "127.0.0.1:0", "--json"]);
    let out = lines(child.stdout.take().unwrap());
    let first = out.recv_timeout(WAIT).expect("no JSON line on stdout");
    let _ = child.kill();
    let _ = child.wait();
    let v: Value = serde_json::from_str(&first).unwrap();
    assert!(v["listening"].as_str().unwrap().starts_with("http://127.0.0.1:"), "{v}");
    assert_eq!(v["tools"].as_array().map(Vec::len), Some(10), "{v}");
    let o = s.run(&["serve", idx.to_str().unwrap(), "--mcp", "--json"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let help = s.run(&["serve", "--help"]);
    assert!(String::from_utf8_lossy(&help.stdout).contains("127.0.0.1:7878"));
    for sub in ["ann", "embed", "open"] {
        let help = s.run(&["bench", sub, "--help"]);
        assert!(String::from_utf8_lossy(&help.stdout).contains("--json"), "bench {sub}");
    }
}
