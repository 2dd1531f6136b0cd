//! Bodies of the cargo-fuzz targets (`fuzz_targets/*.rs` are one line each). Every body
//! states what must hold for any input: no panic, errors of the documented kind, and the
//! invariants the tests in each crate's `tests/integration/fuzz.rs` check too.

use std::path::PathBuf;
use std::sync::OnceLock;

use indexer::Error;
use indexer::corpus::{Format, ReadOptions, read_corpus};
use repair::llm::{Action, ChatRequest, Ledger, Message, Script, ScriptedClient, Tool, TurnOptions, next_turn};
use repair::patch::{Patch, apply_to_text};

/// Replaces libfuzzer-sys's panic hook, which aborts on every panic, with one that lets
/// panics unwind: fixdex catches the panics of arrow-rs and parquet on damaged files
/// (`engine::docs::catch_arrow_panic`) and turns them into errors, so only a panic that
/// escapes the target is a crash (libfuzzer-sys aborts then). Panics inside arrow or
/// parquet are not printed (they are expected); others are.
fn let_panics_unwind() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        let default_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let file = info.location().map_or("", |l| l.file());
            if !file.contains("/arrow-") && !file.contains("/parquet-") {
                default_hook(info);
            }
        }));
    });
}

/// A scratch file of this process with extension `ext`, rewritten for every input.
fn scratch(ext: &str) -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("fixdex-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch folder");
        dir
    });
    dir.join(format!("c.{ext}"))
}

/// Reads `data` as a corpus file of `format`: a file error names the file; each row is a
/// valid record with a rising row number or a row error naming the file.
pub fn corpus(data: &[u8], format: Format) {
    let_panics_unwind();
    let path = scratch(format.name());
    std::fs::write(&path, data).expect("scratch write");
    let mut last = 0;
    let result = read_corpus(&path, Some(format), &ReadOptions::default(), &mut |row| {
        match row {
            Ok((n, r)) => {
                assert!(n > last, "row numbers rise: {n} after {last}");
                last = n;
                assert!(!r.id.trim().is_empty() && !r.buggy_code.trim().is_empty(), "{r:?}");
                assert_eq!(r.language, r.language.trim().to_lowercase(), "language is normalised");
            }
            Err(e @ Error::Row { .. }) => assert!(e.to_string().starts_with(&path.display().to_string()), "{e}"),
            Err(e) => panic!("a row error that is not Error::Row: {e:?}"),
        }
        Ok(())
    });
    if let Err(e) = result {
        assert!(matches!(e, Error::File { .. } | Error::Io { .. }), "{e:?}");
        assert!(e.to_string().starts_with(&path.display().to_string()), "{e}");
    }
}

/// The valid small index that [`index_damage`] damages, built once per process.
fn small_index() -> &'static [u8] {
    static BASE: OnceLock<Vec<u8>> = OnceLock::new();
    BASE.get_or_init(|| {
        let dir = scratch("d");
        std::fs::create_dir_all(&dir).expect("scratch folder");
        engine::testing::fuzz::small_index(&dir).expect("small index")
    })
}

/// `data` as an index file.
pub fn index_bytes(data: &[u8]) {
    let_panics_unwind();
    engine::testing::fuzz::exercise(data);
}

/// `data` as a damage program applied to a small valid index.
pub fn index_damage(data: &[u8]) {
    let_panics_unwind();
    let damaged = engine::testing::fuzz::apply_program(small_index(), data);
    engine::testing::fuzz::exercise(&damaged);
}

/// The bundle header [`bundle`] puts before an input that has none.
const BUNDLE_HEADER: &[u8] = b"# v2 git bundle\n";

/// `data` as a git bundle mined by `fixdex mine` (an input that does not start with `#` gets
/// a v2 header, so most inputs reach the ref lines and the pack): pairs, or an error of
/// kind `File` or `Io` naming the bundle; no panic, no temporary repository left behind.
pub fn bundle(data: &[u8]) {
    let path = scratch("bundle");
    let bytes = if data.starts_with(b"#") { data.to_vec() } else { [BUNDLE_HEADER, data].concat() };
    std::fs::write(&path, bytes).expect("scratch write");
    let temp = scratch("bundle-tmp");
    std::fs::create_dir_all(&temp).expect("scratch folder");
    let opts = indexer::mine::MineOptions { temp_parent: Some(temp.clone()), ..Default::default() };
    if let Err(e) = indexer::mine::mine(&path, &opts, &|_, _| {}) {
        assert!(matches!(e, Error::File { .. } | Error::Io { .. }), "{e:?}");
        assert!(e.to_string().starts_with(&path.display().to_string()), "{e}");
    }
    assert!(std::fs::read_dir(&temp).expect("scratch folder").next().is_none(), "a temporary repository is left");
}

/// `data` as `FILE \0 ANSWER` (UTF-8, lossy): the answer's hunks are applied to the file.
/// Without a `\0` the whole input is the answer and the file is a fixed small text.
pub fn patch(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (file, answer) = text.split_once('\0').unwrap_or(("a\n    b = 1\n\nc\r\n}\n", text.as_ref()));
    let Ok(patch) = Patch::parse(answer, Some("f.txt".as_ref())) else { return };
    for f in &patch.files {
        assert!(!f.hunks.is_empty(), "a parsed file has hunks");
        let _ = apply_to_text(file, &f.hunks);
    }
}

/// `data` as a model reply (UTF-8, lossy) to a request with two tools: as text, as one
/// native call (`name \0 arguments`) and as a raw HTTP response body. A turn never
/// panics, and accepted calls name an offered tool.
pub fn tool_calls(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = repair::llm::text::parse_text_calls(&text);
    let mut req = ChatRequest::new("m", vec![Message::user("Why?")]);
    let schema = serde_json::json!({"type": "object", "required": ["file"]});
    req.tools =
        vec![Tool::function("get_imports", "", schema), Tool::function("identify_class", "", serde_json::json!({}))];
    let (name, arguments) = text.split_once('\0').unwrap_or(("get_imports", text.as_ref()));
    let scripts = [
        Script::text(text.to_string()),
        Script::raw_tool_call(name, arguments),
        Script::malformed_body(text.to_string()),
    ];
    for script in scripts {
        let client = ScriptedClient::new(vec![script]);
        let opts = TurnOptions { max_reasks: 0, allow_final: true, ..TurnOptions::default() };
        if let Ok(turn) = next_turn(&client, &req, &opts, &mut Ledger::default())
            && let Action::ToolCalls(calls) = turn.action
        {
            assert!(calls.iter().all(|c| req.tools.iter().any(|t| t.name() == c.name)));
        }
    }
}

/// A JSON-RPC request as a server reads it, strictly (what `mcp_lines` parses lines into,
/// so that JSON which is not a request takes the `Invalid Request` path).
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Request {
    jsonrpc: String,
    #[serde(default)]
    id: Option<serde_json::Value>,
    method: String,
    #[serde(default)]
    params: Option<serde_json::Value>,
}

/// `data` as what an MCP client writes on the server's stdin, read by the MCP line reader
/// (`repair::serve::lines`) with a 64-byte limit (long lines are common then): one line per
/// `\n`-separated part, none longer than the limit, and every line that is not blank is a
/// request or gets a one-line JSON-RPC 2.0 error reply (`-32700` or `-32600`, `id` null, a
/// string or a number).
pub fn mcp_lines(data: &[u8]) {
    use repair::serve::lines::{Line, parse_line, read_line, too_long_reply};
    const MAX: usize = 64;
    let mut reader = std::io::BufReader::with_capacity(7, data);
    let mut seen = 0;
    while let Some(line) = read_line(&mut reader, MAX).expect("reading bytes never fails") {
        seen += 1;
        let reply = match line {
            Ok(bytes) => {
                assert!(bytes.len() <= MAX && !bytes.contains(&b'\n'), "{bytes:?}");
                match parse_line::<Request>(&bytes) {
                    None => assert!(bytes.iter().all(u8::is_ascii_whitespace), "{bytes:?}"),
                    Some(Line::Message(_)) => {}
                    Some(Line::Reply(v)) => check_reply(&v),
                }
                continue;
            }
            Err(t) => too_long_reply(t),
        };
        check_reply(&reply);
    }
    let parts =
        if data.is_empty() { 0 } else { data.split(|&b| b == b'\n').count() - usize::from(data.ends_with(b"\n")) };
    assert_eq!(seen, parts, "one line per part");
}

fn check_reply(v: &serde_json::Value) {
    assert_eq!(v["jsonrpc"], "2.0", "{v}");
    assert!(v["id"].is_null() || v["id"].is_string() || v["id"].is_number(), "{v}");
    assert!(matches!(v["error"]["code"].as_i64(), Some(-32700 | -32600)), "{v}");
    assert!(!serde_json::to_string(v).expect("a reply serializes").contains('\n'), "{v}");
}
