//! Fuzz tests of the parsers of model output (issue 8): unified diffs and SEARCH/REPLACE
//! blocks (`Patch::parse`, `apply_to_text`, `Patch::apply`), tool calls written as text
//! (`parse_text_calls`), whole turns (`next_turn`: native calls, text calls, raw response
//! bodies) and the arguments the tools receive. Inputs are random or built from the
//! fragments that matter; nothing may panic, and the properties below hold. Seeds are
//! fixed; `FIXDEX_FUZZ_CASES=N` and `FIXDEX_FUZZ_SEED=S` run more or other cases
//! (docs/fuzzing.md).

use std::cell::Cell;
use std::path::Path;

use engine::testing::fuzz::{cases, seed, write_seed};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use repair::llm::text::{TextCalls, complete_calls_text, complete_part, parse_text_calls};
use repair::llm::{Action, Ledger, Script, ScriptedClient, TurnOptions, next_turn};
use repair::patch::{Hunk, HunkLine, Patch, apply_to_text};
use repair::tools::Toolbox;
use serde_json::{Value, json};

use crate::llm::turn::request;
use crate::patch::{round_trip, same_but_listing_numbers};

/// Asserts that a generator reached a case `what` (when it ran enough cases to).
fn reached(what: &str, hits: &Cell<usize>, runner: &TestRunner) {
    assert!(runner.config().cases < 100 || hits.get() > 0, "no case reached: {what}");
}

fn runner(default_cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases: cases(default_cases),
        rng_seed: RngSeed::Fixed(seed()),
        failure_persistence: None,
        ..Config::default()
    })
}

/// Strings that have broken text handling elsewhere, and any string.
fn odd_string() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just(" \t".to_owned()),
        Just("\u{200b}\u{feff}".to_owned()),
        Just("é💥\u{301}".to_owned()),
        Just("\r".to_owned()),
        Just("12: ".to_owned()),
        "\\PC{0,20}",
        any::<String>(),
    ]
}

/// Lines of a small file: few distinct lines, so hunks match several places.
const FILE_LINES: [&str; 9] = ["a", "b", "    b = 1", "", "}", "1: a", "é", "  ", "return n;"];

/// A file from [`FILE_LINES`], LF or CRLF, with or without a final newline.
fn small_file() -> impl Strategy<Value = String> {
    (vec(prop::sample::select(&FILE_LINES[..]), 0..12), any::<bool>(), any::<bool>()).prop_map(|(lines, crlf, last)| {
        let eol = if crlf { "\r\n" } else { "\n" };
        let mut text = lines.join(eol);
        if last && !text.is_empty() {
            text.push_str(eol);
        }
        text
    })
}

/// Lines of a model answer: diff and block syntax, paths (some outside the root), prose.
const ANSWER_LINES: [&str; 34] = [
    "--- a/f.txt",
    "+++ b/f.txt",
    "--- /dev/null",
    "+++ /dev/null",
    "+++ b/../outside/x.txt",
    "+++ b//etc/x.txt",
    "@@ -1,3 +1,4 @@",
    "@@ -0,0 +1 @@",
    "@@ -99999999999999999999,1 +1 @@",
    "@@ -18446744073709551615,1 +1,2 @@ tail",
    "@@",
    "@@ ... @@",
    "<<<<<<< SEARCH",
    "=======",
    ">>>>>>> REPLACE",
    "```diff",
    "```",
    "f.txt",
    "../outside/y.txt",
    "sub/é.py",
    " a",
    "-a",
    "+b",
    " ",
    "",
    "-",
    "+",
    "\\ No newline at end of file",
    "-1: a",
    "+2: c",
    " 3 |     b = 1",
    "diff --git a/f.txt b/f.txt",
    "This fixes it.",
    "- a bullet",
];

/// A model answer of lines from [`ANSWER_LINES`], file lines as hunk lines, and odd
/// strings, joined by LF or CRLF.
fn answer() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        6 => prop::sample::select(&ANSWER_LINES[..]).prop_map(str::to_owned),
        2 => (prop::sample::select(vec![" ", "-", "+", ""]), prop::sample::select(&FILE_LINES[..]))
            .prop_map(|(m, l)| format!("{m}{l}")),
        1 => odd_string(),
    ];
    (vec(line, 0..24), any::<bool>()).prop_map(|(lines, crlf)| lines.join(if crlf { "\r\n" } else { "\n" }))
}

/// Any answer parses or is refused; every parsed file has hunks; applying them to any small
/// file never panics.
#[test]
fn fuzz_patch_parse_and_apply_text() {
    let (parsed, applied) = (Cell::new(0), Cell::new(0));
    let mut runner = runner(3000);
    runner
        .run(&(answer(), small_file(), any::<bool>()), |(answer, file, default)| {
            let default = default.then_some(Path::new("f.txt"));
            if let Ok(patch) = Patch::parse(&answer, default) {
                parsed.set(parsed.get() + 1);
                for f in &patch.files {
                    assert!(!f.hunks.is_empty(), "{answer}");
                    applied.set(applied.get() + usize::from(apply_to_text(&file, &f.hunks).is_ok()));
                }
            }
            Ok(())
        })
        .unwrap();
    reached("an answer that parses", &parsed, &runner);
    reached("a patch that applies", &applied, &runner);
}

/// Applying answers to a project tree never writes outside the root, and a refused patch
/// leaves the tree as it was.
#[test]
fn fuzz_patch_apply_stays_inside_the_root() {
    let top = tempfile::tempdir().unwrap();
    let (root, outside) = (top.path().join("root"), top.path().join("outside"));
    std::fs::create_dir_all(&outside).unwrap();
    runner(600)
        .run(&(answer(), small_file()), |(answer, file)| {
            let _ = std::fs::remove_dir_all(&root);
            std::fs::create_dir_all(&root).unwrap();
            std::fs::write(root.join("f.txt"), &file).unwrap();
            if let Ok(patch) = Patch::parse(&answer, Some(Path::new("f.txt"))) {
                let result = patch.apply(&root);
                if result.is_err() {
                    assert_eq!(std::fs::read_to_string(root.join("f.txt")).unwrap(), file, "{answer}");
                }
            }
            assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "wrote outside the root: {answer}");
            Ok(())
        })
        .unwrap();
}

/// Hunks built directly, with any lines and any line-number hint (up to `usize::MAX`).
#[test]
fn fuzz_patch_hunks_with_any_lines_and_hints() {
    let line = (0..3u8, prop_oneof![prop::sample::select(&FILE_LINES[..]).prop_map(str::to_owned), odd_string()])
        .prop_map(|(kind, text)| match kind {
            0 => HunkLine::Context(text),
            1 => HunkLine::Remove(text),
            _ => HunkLine::Add(text),
        });
    let hint = prop_oneof![Just(None), Just(Some(0)), Just(Some(usize::MAX)), (0..20usize).prop_map(Some)];
    let hunk = (vec(line, 0..6), hint).prop_map(|(lines, old_start)| Hunk { lines, old_start, answer_line: 1 });
    runner(3000)
        .run(&(small_file(), vec(hunk, 1..4)), |(file, hunks)| {
            let _ = apply_to_text(&file, &hunks);
            Ok(())
        })
        .unwrap();
}

/// Pairs of texts for the round trip: same line ending and final-newline state on both
/// sides, and an old text with at least one line ending (the applier keeps the file's own
/// dominant ending, LF for a file without one, and final newline, by design); lines from a
/// small alphabet.
fn text_pair() -> impl Strategy<Value = (String, String)> {
    let alphabet = prop::sample::select(vec!["a", "b", "", "    x = 1", "}", "1: a", "  ", "é"]);
    (vec(alphabet.clone(), 1..30), vec(alphabet, 0..30), any::<bool>(), any::<bool>()).prop_filter_map(
        "no line ending in the old text, or another final newline",
        |(old, new, crlf, last)| {
            let eol = if crlf { "\r\n" } else { "\n" };
            let text = |lines: Vec<&str>| {
                let t = lines.join(eol);
                if last && !lines.is_empty() { t + eol } else { t }
            };
            let (old, new) = (text(old), text(new));
            // An empty last line without an ending reads as a final newline.
            let same_end = old.ends_with('\n') == new.ends_with('\n') || new.is_empty();
            (old.contains('\n') && same_end).then_some((old, new))
        },
    )
}

/// A diff generated by `similar` applies to the old text and gives the new one (the
/// property of `patch::unified_diff_of_random_edits_round_trips`, on generated texts).
#[test]
fn fuzz_patch_unified_diff_round_trip() {
    runner(2000)
        .run(&text_pair(), |(old, new)| {
            round_trip(&old, &new, &format!("{old:?} -> {new:?}"));
            Ok(())
        })
        .unwrap();
}

/// A SEARCH/REPLACE block whose SEARCH lines occur exactly once in the file replaces them,
/// and nothing else.
#[test]
fn fuzz_search_replace_round_trip() {
    let line = prop_oneof![
        prop::sample::select(vec!["a", "b", "", "    x = 1", "}", "1: a", "é"]).prop_map(str::to_owned),
        (0..1000u32).prop_map(|n| format!("line {n}")),
    ];
    let strategy = (vec(line.clone(), 1..20), any::<prop::sample::Index>(), 1..4usize, vec(line, 0..4));
    let applied = Cell::new(0);
    let mut runner = runner(2000);
    runner
        .run(&strategy, |(file, at, len, replace)| {
            let start = at.index(file.len());
            let search = &file[start..(start + len).min(file.len())];
            if file.windows(search.len()).filter(|w| w == &search).count() != 1 {
                return Ok(());
            }
            let mut block = vec!["f.txt", "<<<<<<< SEARCH"];
            block.extend(search.iter().map(String::as_str));
            block.push("=======");
            block.extend(replace.iter().map(String::as_str));
            block.push(">>>>>>> REPLACE");
            let answer = block.join("\n") + "\n";
            let patch = Patch::parse(&answer, None).unwrap_or_else(|e| panic!("{e}\n{answer}"));
            let mut want = file.clone();
            want.splice(start..start + search.len(), replace.iter().cloned());
            let want = if want.is_empty() { String::new() } else { want.join("\n") + "\n" };
            let got = apply_to_text(&(file.join("\n") + "\n"), &patch.files[0].hunks);
            let got = got.unwrap_or_else(|e| panic!("{e}\n{answer}"));
            // Replacement lines that look like the listing's numbers where they go lose them.
            assert!(same_but_listing_numbers(&got, &want), "{answer}got {got:?}, want {want:?}");
            applied.set(applied.get() + 1);
            Ok(())
        })
        .unwrap();
    assert!(runner.config().cases < 100 || applied.get() * 2 > runner.config().cases as usize, "{}", applied.get());
}

/// Fragments of replies with tool calls written as text.
const REPLY_PARTS: [&str; 20] = [
    "<tool_call>",
    "</tool_call>",
    "```",
    "```json\n",
    "```tool_call\n",
    "\n",
    r#"{"name": "get_imports", "arguments": {"file": "A.java"}}"#,
    r#"{"name": "identify_class", "parameters": "{\"class\": \"A\"}"}"#,
    r#"{"name": "nope", "arguments": []}"#,
    r#"{"name": "#,
    r#""arguments": "#,
    r#""parameters": "#,
    r#"{"name": 1, "arguments": {}}"#,
    "{",
    "}",
    "\"",
    ",",
    "I will look at the file.",
    "é💥",
    "\\",
];

fn reply() -> impl Strategy<Value = String> {
    let part = prop_oneof![
        5 => prop::sample::select(&REPLY_PARTS[..]).prop_map(str::to_owned),
        1 => odd_string(),
    ];
    vec(part, 0..12).prop_map(|parts| parts.concat())
}

/// Any reply parses to no call, calls, or a reason; calls found in `<tool_call>` tags
/// leave no tag in the rest of the text. The complete parts of a reply (issue 9) are prefixes of it.
#[test]
fn fuzz_text_tool_calls() {
    let (calls, broken) = (Cell::new(0), Cell::new(0));
    let mut runner = runner(4000);
    runner
        .run(&reply(), |text| {
            // Issue 9: the complete parts of a cut-off reply are prefixes; the root-cause
            // reader never panics.
            assert!(text.starts_with(complete_calls_text(&text)) && text.starts_with(complete_part(&text)));
            assert!(text.starts_with(repair::strategies::reinfix::complete_patch_text(&text)));
            let _ = repair::strategies::reinfix::parse_root_cause(&text);
            match parse_text_calls(&text) {
                TextCalls::Calls { rest, .. } => {
                    calls.set(calls.get() + 1);
                    assert!(!text.contains("<tool_call>") || !rest.contains("<tool_call>"), "{text:?} left {rest:?}");
                }
                TextCalls::Broken(why) => {
                    broken.set(broken.get() + 1);
                    assert!(!why.is_empty());
                }
                TextCalls::None => {}
            }
            Ok(())
        })
        .unwrap();
    reached("a reply with calls", &calls, &runner);
    reached("a broken call", &broken, &runner);
}

/// One scripted reply: text, a native call with any name and arguments, or a raw body.
fn script() -> impl Strategy<Value = Script> {
    let name = prop_oneof![Just("get_imports".to_owned()), Just("identify_class".to_owned()), odd_string()];
    let arguments = prop_oneof![
        Just(String::new()),
        Just(r#"{"file": "A.java"}"#.to_owned()),
        Just(r#""{\"file\": 1}""#.to_owned()),
        reply(),
        odd_string(),
    ];
    let body = || {
        reply().prop_map(|content| {
            let message = json!({"role": "assistant", "content": content});
            json!({"choices": [{"message": message, "finish_reason": "stop"}]}).to_string()
        })
    };
    prop_oneof![
        reply().prop_map(Script::text),
        reply().prop_map(Script::truncated),
        (name, arguments).prop_map(|(n, a)| Script::raw_tool_call(&n, &a)),
        body().prop_map(Script::malformed_body),
        (body(), any::<prop::sample::Index>())
            .prop_map(|(b, i)| Script::malformed_body(&b[..b.floor_char_boundary(i.index(b.len()))])),
    ]
}

/// Whole turns on any replies: `next_turn` returns; accepted calls name an offered tool; a
/// final answer is not blank; the client is asked at most `max_reasks + 1` times.
#[test]
fn fuzz_next_turn_on_any_reply() {
    let (called, answered, refused) = (Cell::new(0), Cell::new(0), Cell::new(0));
    let mut runner = runner(2000);
    runner
        .run(&(vec(script(), 1..4), 0..3u32, any::<bool>()), |(scripts, max_reasks, allow_final)| {
            let client = ScriptedClient::new(scripts);
            let opts = TurnOptions { max_reasks, allow_final, ..TurnOptions::default() };
            let req = request();
            match next_turn(&client, &req, &opts, &mut Ledger::default()).map(|t| t.action) {
                Ok(Action::ToolCalls(calls)) => {
                    called.set(called.get() + 1);
                    assert!(calls.iter().all(|c| req.tools.iter().any(|t| t.name() == c.name)), "{calls:?}");
                }
                Ok(Action::Final(text)) => {
                    answered.set(answered.get() + 1);
                    assert!(allow_final && !text.trim().is_empty(), "{text:?}");
                }
                Ok(Action::CutOff(_)) => answered.set(answered.get() + 1),
                Err(_) => refused.set(refused.get() + 1),
            }
            assert!(client.requests().len() <= max_reasks as usize + 1);
            Ok(())
        })
        .unwrap();
    reached("a turn with tool calls", &called, &runner);
    reached("a final answer", &answered, &runner);
    reached("a turn that fails", &refused, &runner);
}

/// The tools on the fixture project with any argument values, paths outside the project
/// included: each call answers or refuses, never panics.
#[test]
fn fuzz_tool_arguments() {
    let toolbox = Toolbox::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/toolproject"));
    let names: Vec<String> = toolbox.specs().iter().map(|s| s.name.clone()).collect();
    let value = prop_oneof![
        3 => prop::sample::select(vec![
            "java/src/com/example/shapes/Circle.java", "python/geometry/vectors.py", "../../etc/passwd",
            "/etc/passwd", "notes.txt", "build", ".hidden/Hidden.java", "Circle", "area", "Circle.area",
            "radius", "self.x", "a.b.c.", "<init>", "main(", "",
        ]).prop_map(Value::from),
        1 => odd_string().prop_map(Value::from),
        1 => prop_oneof![Just(Value::Null), Just(json!(-1)), Just(json!(1e300)), Just(json!([1])), Just(json!({}))],
    ];
    let keys = prop::sample::select(vec!["file", "variable", "method", "class", "line", "extra"]);
    let args =
        vec((keys, value), 0..4).prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()));
    let name = prop_oneof![4 => prop::sample::select(names), 1 => odd_string()];
    let args = prop_oneof![9 => args, 1 => Just(json!([])), 1 => Just(json!("file"))];
    let answered = Cell::new(0);
    let mut runner = runner(2000);
    runner
        .run(&(name, args), |(name, args)| {
            answered.set(answered.get() + usize::from(toolbox.call(&name, &args).is_ok()));
            Ok(())
        })
        .unwrap();
    reached("a tool call that answers", &answered, &runner);
}

/// The seeds of the cargo-fuzz targets `patch` and `tool_calls` (written with
/// `FIXDEX_FUZZ_SEEDS=DIR`): each one parses to what it shows.
#[test]
fn fuzz_seeds_parse() {
    let patches = [
        ("diff", "a\n    b = 1\n}\n\0--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-    b = 1\n+    b = 2\n"),
        ("search_replace", "a\nb\n\0f.txt\n<<<<<<< SEARCH\nb\n=======\nc\n>>>>>>> REPLACE\n"),
        ("numbered", "a\nb\n\0```diff\n@@\n 1: a\n-2: b\n+2: c\n```\n"),
    ];
    for (name, seed) in patches {
        let (file, answer) = seed.split_once('\0').unwrap();
        let patch = Patch::parse(answer, Some(Path::new("f.txt"))).unwrap();
        assert!(apply_to_text(file, &patch.files[0].hunks).is_ok(), "{name}");
        write_seed("patch", name, seed.as_bytes());
    }
    let replies = [
        ("tags", "<tool_call>{\"name\": \"get_imports\", \"arguments\": {\"file\": \"A.java\"}}</tool_call>"),
        ("fence", "Let me look.\n```json\n{\"name\": \"identify_class\", \"arguments\": {}}\n```\n"),
        ("bare", "{\"name\": \"get_imports\", \"parameters\": \"{\\\"file\\\": \\\"A.java\\\"}\"}"),
        ("native", "get_imports\0{\"file\": \"A.java\"}"),
    ];
    for (name, seed) in replies {
        let text = seed.split_once('\0').map_or(seed, |_| "");
        if !text.is_empty() {
            assert!(matches!(parse_text_calls(text), TextCalls::Calls { .. }), "{name}");
        }
        write_seed("tool_calls", name, seed.as_bytes());
    }
}

/// Fragments of what an MCP client may write: requests, cut-off JSON, text, bytes that are
/// not UTF-8, line ends and long runs.
const MCP_FRAGMENTS: [&[u8]; 12] = [
    br#"{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}"#,
    br#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#,
    br#"{"jsonrpc": "2.0", "id": "a", "method": 7}"#,
    br#"{"jsonrpc": "2.0", "id": 2, "meth"#,
    b"[1, 2]",
    b"hello",
    b"\xff\xfe",
    b"\n",
    b"\r\n",
    b"  ",
    b"\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"",
    b"{}",
];

/// Issue 29 item 9: the MCP line reader, on input built from [`MCP_FRAGMENTS`] and random
/// bytes, gives one line per `\n`-separated part, each a message or an error reply (the
/// same body as the cargo-fuzz target `mcp_lines`, with the limit at 64 bytes).
#[test]
fn fuzz_mcp_lines() {
    let fragment = prop_oneof![4 => prop::sample::select(&MCP_FRAGMENTS[..]).prop_map(<[u8]>::to_vec), 1 => vec(any::<u8>(), 0..40)];
    let mut runner = runner(3000);
    let replied = Cell::new(0);
    runner
        .run(&vec(fragment, 0..12), |parts| {
            let data = parts.concat();
            replied.set(replied.get() + usize::from(mcp_replies(&data) > 0));
            Ok(())
        })
        .unwrap();
    reached("a line that gets an error reply", &replied, &runner);
    for (name, seed) in [("request", MCP_FRAGMENTS[0]), ("cut", MCP_FRAGMENTS[3]), ("text", b"hello\n\xff\n")] {
        write_seed("mcp_lines", name, seed);
    }
}

/// The `mcp_lines` property on `data`; returns how many error replies it gave.
fn mcp_replies(data: &[u8]) -> usize {
    use repair::serve::lines::{Line, parse_line, read_line, too_long_reply};
    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Request {
        jsonrpc: String,
        id: Option<Value>,
        method: String,
        params: Option<Value>,
    }
    let mut reader = std::io::BufReader::with_capacity(7, data);
    let (mut seen, mut replies) = (0, 0);
    while let Some(line) = read_line(&mut reader, 64).unwrap() {
        seen += 1;
        let reply = match line {
            Ok(bytes) => match parse_line::<Request>(&bytes) {
                Some(Line::Reply(v)) => v,
                _ => continue,
            },
            Err(t) => too_long_reply(t),
        };
        replies += 1;
        assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
        assert!(matches!(reply["error"]["code"].as_i64(), Some(-32700 | -32600)), "{reply}");
    }
    let parts =
        if data.is_empty() { 0 } else { data.split(|&b| b == b'\n').count() - usize::from(data.ends_with(b"\n")) };
    assert_eq!(seen, parts, "{data:?}");
    replies
}
