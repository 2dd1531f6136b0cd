//! `fixdex label` as a real process: a strict replay of the checked-in recordings, resuming
//! after `kill -9` against a local OpenAI-compatible server, `--mechanical`, bad input.
//!
//! The recordings (tests/fixtures/label/replay.jsonl) hold hand-written answers (marked
//! synthetic) to the exact requests of the current prompt (repair::label::prompt): after a
//! prompt change, write them again with
//! `FIXDEX_WRITE_RECORDINGS=1 cargo nextest run -p fixdex --test integration -E 'test(/label_replay/)'`.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use repair::label::{RequestOptions, Row, prompt};
use repair::llm::{ChatResponse, Message, Recording, write_recordings};
use serde_json::{Value, json};

use crate::common::{fixdex, repo, stderr, stdout_json};

const MODEL: &str = "replayed-model";

/// The hand-written answers to the fixture rows, in order, and the root causes they give.
const ANSWERS: [(&str, &str); 3] = [
    (
        "Root cause: the summing loop starts at index 1, so `mean` leaves out the first element and \
         returns too small an average.",
        "the summing loop starts at index 1, so `mean` leaves out the first element and returns too small an average.",
    ),
    (
        "```\n`first` calls `split` on its argument without checking for null, so a null name throws a \
         NullPointerException.\n```",
        "`first` calls `split` on its argument without checking for null, so a null name throws a \
         NullPointerException.",
    ),
    (
        "**Root cause:** `last` indexes the list with `len(xs)`, one past its end, which raises IndexError.",
        "`last` indexes the list with `len(xs)`, one past its end, which raises IndexError.",
    ),
];

fn fixture(name: &str) -> PathBuf {
    repo().join("tests/fixtures/label").join(name)
}

/// Writes the recordings: the requests `fixdex label` sends with its defaults
/// (temperature 0, 2048 reply tokens) and [`ANSWERS`].
fn write_fixture_recordings() {
    let text = std::fs::read_to_string(fixture("corpus.jsonl")).unwrap();
    let opts = RequestOptions { temperature: Some(0.0), seed: None, max_tokens: Some(2048) };
    let recordings: Vec<Recording> = text
        .lines()
        .zip(ANSWERS)
        .enumerate()
        .map(|(i, (line, (answer, _)))| {
            let req = prompt::request(&Row::parse(line, i + 1).unwrap(), MODEL, &opts);
            let resp = ChatResponse::from_message(MODEL, Message::assistant(answer), "stop").with_usage(300, 40);
            Recording::new(req, resp, true, Some("hand-written root cause for the label fixture".into()))
        })
        .collect();
    write_recordings(&fixture("replay.jsonl"), &recordings).unwrap();
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The checked-in recordings through the binary: every row gets its answer, cleaned, with
/// the source `model:replayed-model`, fields in input order; the rerun takes all from the
/// cache; a one-call budget labels one row, exits 4 and says why.
#[test]
fn label_replay_fixture_drives_the_binary() {
    if std::env::var_os("FIXDEX_WRITE_RECORDINGS").is_some() {
        write_fixture_recordings();
    }
    let dir = tempfile::tempdir().unwrap();
    let (input, rec) = (fixture("corpus.jsonl"), fixture("replay.jsonl"));
    let out = dir.path().join("out.jsonl");
    let args = ["label", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--replay", rec.to_str().unwrap()];
    let o = fixdex(&[&args[..], &["--llm-model", MODEL, "--json"]].concat(), None);
    let s = stdout_json(&o);
    assert_eq!((s["rows"].as_u64(), s["labelled"].as_u64(), s["calls"].as_u64()), (Some(3), Some(3), Some(3)), "{s}");
    assert_eq!((s["failed"].as_u64(), s["prompt_tokens"].as_u64()), (Some(0), Some(900)), "{s}");
    assert_eq!(s["synthetic"], true, "{s}");
    let rows = lines(&out);
    for (row, (_, cause)) in rows.iter().zip(ANSWERS) {
        assert_eq!(row["root_cause"], cause);
        assert_eq!(row["meta"]["root_cause_source"], format!("model:{MODEL}"));
    }
    assert_eq!(rows[0]["meta"]["function"], "Stats.mean(int[])", "meta kept");
    let first = std::fs::read_to_string(&out).unwrap().lines().next().unwrap().to_owned();
    assert!(first.starts_with(r#"{"id":"fixture:demo:Stats.mean(int[])","source":"test","project""#), "{first}");

    // Rerun: all from the cache (the model name comes from the recordings), nothing asked.
    let o = fixdex(&[&args[..], &["--json"]].concat(), None);
    let s = stdout_json(&o);
    assert_eq!((s["from_cache"].as_u64(), s["calls"].as_u64()), (Some(3), Some(0)), "{s}");

    // A budget of one call: one row labelled, the rest reported, exit 4.
    let fresh = dir.path().join("budget.jsonl");
    let args = ["label", input.to_str().unwrap(), "-o", fresh.to_str().unwrap(), "--replay", rec.to_str().unwrap()];
    let o = fixdex(&[&args[..], &["--llm-model", MODEL, "--max-calls", "1", "--concurrency", "1"]].concat(), None);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("1 labelled now") && err.contains("2 failed"), "{err}");
    assert!(err.contains("stopped: the call budget is spent: 1 calls (--max-calls)"), "{err}");
    assert!(err.contains("failed: fixture:demo:Names.first(String) (line 2): not asked"), "{err}");
    assert_eq!(lines(&fresh).iter().filter(|r| r.get("root_cause").is_some()).count(), 1);
}

/// A row of the kill test: method `sum_<i>` whose loop stops one short.
fn sum_row(i: usize) -> String {
    json!({
        "id": format!("kill:p:Sums.sum_{i}(int[])"),
        "source": "test",
        "project": "p",
        "language": "java",
        "buggy_code": format!("int sum_{i}(int[] a) {{\n  int s = 0;\n  for (int k = 0; k < a.length - 1; k++) s += a[k];\n  return s;\n}}"),
        "fixed_code": format!("int sum_{i}(int[] a) {{\n  int s = 0;\n  for (int k = 0; k < a.length; k++) s += a[k];\n  return s;\n}}"),
        "description": "Fix the sum skipping the last element",
        "license": "MIT",
        "meta": {"function": format!("Sums.sum_{i}(int[])")},
    })
    .to_string()
}

/// A local OpenAI-compatible server answering each chat request after `delay` with a root
/// cause naming the request's `sum_<i>`; counts the requests per `i`.
struct SumServer {
    url: String,
    seen: Arc<Mutex<HashMap<usize, usize>>>,
}

impl SumServer {
    fn start(delay: Duration) -> SumServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(HashMap::new()));
        let log = Arc::clone(&seen);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let log = Arc::clone(&log);
                std::thread::spawn(move || answer(stream, &log, delay));
            }
        });
        SumServer { url, seen }
    }

    fn counts(&self) -> HashMap<usize, usize> {
        self.seen.lock().unwrap().clone()
    }
}

/// Reads one request from `stream`, counts it, and answers after `delay`.
fn answer(stream: TcpStream, log: &Mutex<HashMap<usize, usize>>, delay: Duration) {
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut reader = BufReader::new(stream);
    let (mut line, mut length) = (String::new(), 0);
    while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
        if let Some((name, value)) = line.trim_end().split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap();
        }
        line.clear();
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let body = String::from_utf8(body).unwrap();
    let at = body.find("int sum_").expect("the prompt holds the buggy code") + "int sum_".len();
    let i: usize = body[at..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap();
    *log.lock().unwrap().entry(i).or_default() += 1;
    std::thread::sleep(delay);
    let reply = json!({"id": "c", "object": "chat.completion", "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": format!("Root cause: sum_{i} stops one element early.")}}],
        "usage": {"prompt_tokens": 200, "completion_tokens": 12}})
    .to_string();
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        reply.len()
    );
    let _ = reader.get_mut().write_all((head + &reply).as_bytes());
}

/// The ids of the whole entries in a cache file (a torn last line is skipped).
fn cached_ids(cache: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(cache).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|e| e["id"].as_str().unwrap().into())
        .collect()
}

/// Issue 15: `kill -9` in the middle of a run loses at most the rows in flight; the rerun
/// asks only for the rest and writes all 200 rows, each with its own answer.
#[test]
fn label_resumes_after_kill_9_without_asking_again() {
    const ROWS: usize = 200;
    const CONCURRENCY: usize = 4;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, (0..ROWS).map(|i| sum_row(i) + "\n").collect::<String>()).unwrap();
    let (out, cache) = (dir.path().join("out.jsonl"), dir.path().join("out.jsonl.cache"));
    let server = SumServer::start(Duration::from_millis(20));
    let concurrency = CONCURRENCY.to_string();
    let args = ["label", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--llm-url", &server.url];
    let args = [&args[..], &["--llm-model", "m", "--concurrency", &concurrency, "--json"]].concat();

    let mut child = Command::new(env!("CARGO_BIN_EXE_fixdex"))
        .args(&args)
        .env_remove("OPENAI_API_KEY")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while cached_ids(&cache).len() < 60 {
        assert!(started.elapsed() < Duration::from_secs(60), "the cache never reached 60 rows");
        assert!(child.try_wait().unwrap().is_none(), "finished before the kill: make the server slower");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    assert!(!out.exists(), "the output is written only at the end");
    let before: HashSet<String> = cached_ids(&cache).into_iter().collect();
    assert!(before.len() >= 60 && before.len() < ROWS, "{}", before.len());

    let o = fixdex(&args, None);
    let s = stdout_json(&o);
    assert_eq!((s["from_cache"].as_u64(), s["failed"].as_u64()), (Some(before.len() as u64), Some(0)), "{s}");
    assert_eq!(s["labelled"].as_u64(), Some((ROWS - before.len()) as u64), "{s}");

    let rows = lines(&out);
    assert_eq!(rows.len(), ROWS);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["id"], format!("kill:p:Sums.sum_{i}(int[])"), "input order");
        assert_eq!(row["root_cause"], format!("sum_{i} stops one element early."), "row {i} got its own answer");
        assert_eq!(row["meta"]["root_cause_source"], "model:m");
    }
    let entries: Vec<Value> =
        std::fs::read_to_string(&cache).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let keys: HashSet<&str> = entries.iter().map(|e| e["key"].as_str().unwrap()).collect();
    assert_eq!((entries.len(), keys.len()), (ROWS, ROWS), "one whole entry per row");

    let counts = server.counts();
    for i in 0..ROWS {
        let id = format!("kill:p:Sums.sum_{i}(int[])");
        let asked = counts.get(&i).copied().unwrap_or(0);
        if before.contains(&id) {
            assert_eq!(asked, 1, "{id} was cached before the kill but asked again");
        } else {
            assert!((1..=2).contains(&asked), "{id} asked {asked} times");
        }
    }
    let total: usize = counts.values().sum();
    assert!(total <= ROWS + CONCURRENCY, "{total} requests for {ROWS} rows");
}

/// `--mechanical` needs no model: every Java and Python row gets a root cause from its
/// repair actions and `meta.root_cause_source` `mechanical`; another language is reported
/// (exit 4) and its row written unchanged.
#[test]
fn label_mechanical_through_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    let mut rows: Vec<String> = (0..4).map(sum_row).collect();
    rows.push(
        json!({"id": "py:util:last", "language": "python", "buggy_code": "def last(xs):\n    return xs[len(xs)]\n",
        "fixed_code": "def last(xs):\n    return xs[len(xs) - 1]\n"})
        .to_string(),
    );
    std::fs::write(&input, rows.iter().map(|r| format!("{r}\n")).collect::<String>()).unwrap();
    let out = dir.path().join("out.jsonl");
    let o = fixdex(&["label", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--mechanical", "--json"], None);
    let s = stdout_json(&o);
    assert_eq!((s["labelled"].as_u64(), s["failed"].as_u64(), s["calls"].as_u64()), (Some(5), Some(0), Some(0)), "{s}");
    assert_eq!(s["source"], "mechanical");
    for row in lines(&out) {
        let cause = row["root_cause"].as_str().unwrap_or_default();
        assert!(cause.split_whitespace().count() >= 3, "{row}");
        assert_eq!(row["meta"]["root_cause_source"], "mechanical", "{row}");
    }

    std::fs::write(&input, r#"{"id": "go:1", "language": "go", "buggy_code": "a", "fixed_code": "b"}"#).unwrap();
    let o = fixdex(&["label", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--mechanical"], None);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(stderr(&o).contains("failed: go:1 (line 1): mechanical labelling needs language java or python"));
    assert_eq!(lines(&out), [json!({"id": "go:1", "language": "go", "buggy_code": "a", "fixed_code": "b"})]);
}

/// A bad input line is an error naming the file, the line and the field; the output is not
/// touched. No model configured is an error too.
#[test]
fn label_bad_input_and_missing_model_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, format!("{}\n\n{{\"id\": \"x\", \"fixed_code\": \"y\"}}\n", sum_row(0))).unwrap();
    let out = dir.path().join("out.jsonl");
    std::fs::write(&out, "{\"keep\": \"me\"}\n").unwrap();
    let o = fixdex(&["label", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--mechanical"], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("in.jsonl:3: field `buggy_code` is missing"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "{\"keep\": \"me\"}\n");

    std::fs::write(&input, sum_row(0) + "\n").unwrap();
    let o = fixdex(&["label", input.to_str().unwrap(), "-o", out.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("no LLM configured"), "{}", stderr(&o));
}

/// Issue 29 item 4: `fixdex label` against a closed port, through the real HTTP client
/// (which reports the refused connection as retries exhausted): the run stops after its
/// first call's retries (one set of retry warnings, not one per row and worker), every row
/// is kept unlabelled, exit 4, and the summary counts the requests made.
#[test]
fn issue_29_label_stops_at_once_when_the_endpoint_is_down() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in40.jsonl");
    std::fs::write(&input, (0..40).map(|i| sum_row(i) + "\n").collect::<String>()).unwrap();
    let out = dir.path().join("z.jsonl");
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let started = Instant::now();
    let o = fixdex(
        &["label", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--llm-url", &url, "--llm-model", "m"],
        None,
    );
    let took = started.elapsed();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(err.contains("stopped: cannot reach the model endpoint"), "{err}");
    assert!(err.contains("0 calls (5 requests)"), "{err}");
    assert!(err.matches("retrying").count() <= 4, "one call's retries only:\n{err}");
    // Found by a fresh user: the retry warnings carried ANSI colour codes into a pipe.
    assert!(err.contains("retrying") && !err.contains('\u{1b}'), "stderr is a pipe, so no colour codes:\n{err:?}");
    assert!(took < Duration::from_secs(30), "{took:?}");
    assert_eq!(lines(&out).len(), 40);
}
