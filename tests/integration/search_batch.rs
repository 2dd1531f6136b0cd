//! Issue 12 item 5: `fixdex search --batch` (one model and index load for many queries) and
//! the model fingerprint cache that keeps a CLI query from hashing the weights.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::{Scratch, records, stderr, stdout_json};

/// A scratch folder with a 30-record index of the synthetic records.
fn indexed() -> (Scratch, PathBuf) {
    let s = Scratch::new();
    let idx = s.path("idx.fdx");
    s.index(&s.corpus("c.jsonl", &records(30)), &idx, &["--spaces", "code+cause,code"]);
    (s, idx)
}

/// The answers printed by a `--batch` run, one per output line.
fn answers(o: &Output) -> Vec<serde_json::Value> {
    String::from_utf8(o.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn batch_file(s: &Scratch, lines: &[String]) -> PathBuf {
    let p = s.path("queries.jsonl");
    std::fs::write(&p, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    p
}

/// The (id, score) pairs and suggested action kinds of an answer.
type Hits = Vec<(String, f64)>;

fn hits_of(answer: &serde_json::Value) -> Hits {
    answer["hits"]
        .as_array()
        .unwrap_or_else(|| panic!("no hits in {answer}"))
        .iter()
        .map(|h| (h["id"].as_str().unwrap().to_string(), h["score"].as_f64().unwrap()))
        .collect()
}

fn assert_same_hits(batch: &Hits, single: &Hits, what: &str) {
    assert_eq!(batch.len(), single.len(), "{what}: {batch:?} vs {single:?}");
    for (b, s) in batch.iter().zip(single) {
        assert_eq!(b.0, s.0, "{what}: {batch:?} vs {single:?}");
        assert!((b.1 - s.1).abs() < 1e-5, "{what}: {batch:?} vs {single:?}");
    }
}

/// Each batch answer equals the answer of `fixdex search --json` with the same query and
/// options (hits, scores, suggestions, echoed parameters), in input order, with `line` and
/// `id`; flags on the command line are the defaults a line overrides.
#[test]
fn batch_answers_equal_single_query_answers() {
    let (s, idx) = indexed();
    let docs = engine::testing::sample_records(30);
    // (batch fields, the same as flags)
    let cases: Vec<(serde_json::Value, Vec<&str>)> = vec![
        (serde_json::json!({}), vec![]),
        (serde_json::json!({"k": 3, "rank": "dense"}), vec!["-k", "3", "--rank", "dense"]),
        (serde_json::json!({"lang": "python", "exact": true}), vec!["--lang", "python", "--exact"]),
        (serde_json::json!({"space": "code", "k": 4, "ef": 50}), vec!["--space", "code", "-k", "4", "--ef", "50"]),
        (
            serde_json::json!({"project": ["proj1", "proj2"], "exclude_id": "test:4", "rank": "hybrid"}),
            vec!["--project", "proj1", "--project", "proj2", "--exclude-id", "test:4", "--rank", "hybrid"],
        ),
        (serde_json::json!({"threshold": 0.2, "no_int8": true}), vec!["--threshold", "0.2", "--no-int8"]),
    ];
    let mut lines = Vec::new();
    let mut singles = Vec::new();
    for (i, (fields, flags)) in cases.iter().enumerate() {
        let d = &docs[(i * 5 + 2) % docs.len()];
        let mut q = fields.clone();
        q["code"] = d.buggy_code.clone().into();
        // `root_cause`, as `fixdex serve` names it, is the same field.
        q[if i == 1 { "root_cause" } else { "cause" }] = d.root_cause.clone().into();
        q["id"] = format!("q{i}").into();
        lines.push(q.to_string());
        let code = s.path(&format!("q{i}.txt"));
        std::fs::write(&code, &d.buggy_code).unwrap();
        let mut args =
            vec!["search", idx.to_str().unwrap(), "--code", code.to_str().unwrap(), "--cause", &d.root_cause];
        args.extend(flags.iter().copied());
        args.push("--json");
        singles.push(stdout_json(&s.run(&args)));
    }
    let file = batch_file(&s, &lines);
    let o = s.run(&["search", idx.to_str().unwrap(), "--batch", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let got = answers(&o);
    assert_eq!(got.len(), cases.len());
    for (i, (b, single)) in got.iter().zip(&singles).enumerate() {
        assert_eq!(b["line"], i + 1);
        assert_eq!(b["id"], format!("q{i}"));
        assert!(!hits_of(single).is_empty(), "case {i} finds something");
        assert_same_hits(&hits_of(b), &hits_of(single), &format!("case {i}"));
        for field in ["space", "k", "ef_search", "exact", "threshold", "rank", "exclude_projects"] {
            assert_eq!(b[field], single[field], "case {i}: {field}");
        }
        let kinds = |v: &serde_json::Value| v["suggestions"].to_string();
        assert_eq!(kinds(b), kinds(single), "case {i}: suggestions");
    }

    // Flags are the defaults of every line; a line's field wins.
    let d = &docs[2];
    let q = |extra: serde_json::Value| {
        let mut v = serde_json::json!({"code": d.buggy_code, "cause": d.root_cause});
        v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        v.to_string()
    };
    let file = batch_file(&s, &[q(serde_json::json!({})), q(serde_json::json!({"k": 1}))]);
    let o = s.run(&["search", idx.to_str().unwrap(), "--batch", file.to_str().unwrap(), "-k", "2", "--rank", "dense"]);
    let got = answers(&o);
    assert_eq!((got[0]["k"].as_u64(), got[0]["rank"].as_str()), (Some(2), Some("dense")));
    assert_eq!(hits_of(&got[0]).len(), 2);
    assert_eq!(hits_of(&got[1]).len(), 1);
    assert!(got[0].get("id").is_none(), "no id given, none echoed");
}

/// A bad line (invalid JSON, unknown field, wrong type, a filter matching nothing, a
/// missing code, bad lines) gives an error object naming its line, the other lines answer,
/// and the exit status is the highest the failures would have had alone.
#[test]
fn batch_bad_lines_name_their_line_and_the_rest_answers() {
    let (s, idx) = indexed();
    let d = &engine::testing::sample_records(30)[7];
    let good = serde_json::json!({"code": d.buggy_code, "cause": d.root_cause, "id": 7}).to_string();
    let lines = vec![
        good.clone(),                                                              // 1
        "{not json".to_string(),                                                   // 2
        serde_json::json!({"code": "x = 1", "kk": 3, "id": "a"}).to_string(),      // 3
        serde_json::json!({"code": "x = 1", "k": "three"}).to_string(),            // 4
        String::new(),                                                             // 5: blank, skipped
        serde_json::json!({"code": "x = 1", "project": "no-such"}).to_string(),    // 6
        serde_json::json!({"cause": "only a cause"}).to_string(),                  // 7
        serde_json::json!({"code": "x = 1", "lines": "9-12"}).to_string(),         // 8
        serde_json::json!({"code": "x = 1", "lang": 5}).to_string(),               // 9
        serde_json::json!({"code": " \u{200B} ", "cause": ""}).to_string(),        // 10
        good,                                                                      // 11
        serde_json::json!({"code": "x = 1", "k": 99_999_999_999_u64}).to_string(), // 12: every hit
    ];
    let file = batch_file(&s, &lines);
    let o = s.run(&["search", idx.to_str().unwrap(), "--batch", file.to_str().unwrap()]);
    let got = answers(&o);
    let by_line: Vec<u64> = got.iter().map(|a| a["line"].as_u64().unwrap()).collect();
    assert_eq!(by_line, [1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12], "{got:?}");
    let error = |line: u64| {
        let a = got.iter().find(|a| a["line"] == line).unwrap();
        assert!(a.get("hits").is_none(), "line {line}: {a}");
        a["error"].as_str().unwrap_or_else(|| panic!("line {line}: no error in {a}")).to_string()
    };
    assert!(error(2).contains("invalid query: not valid JSON: "), "{}", error(2));
    // serde's own "line 1" would contradict the file's line 2.
    assert!(error(2).ends_with("at column 2") && !error(2).contains("at line"), "{}", error(2));
    assert!(error(3).contains("unknown field `kk`") && !error(3).contains("at line"), "{}", error(3));
    assert_eq!(got[2]["id"], "a", "the id of a line with a bad field is echoed");
    assert!(error(4).contains("invalid type"), "{}", error(4));
    // Named by the line's JSON field, which is what the user wrote, not by the flag.
    assert!(error(6).contains("\"project\" `no-such` matches no project"), "{}", error(6));
    assert!(error(7).contains("\"code\" is required"), "{}", error(7));
    assert!(error(8).contains("outside"), "{}", error(8));
    assert!(error(9).contains("a string or an array of strings"), "{}", error(9));
    assert!(!error(10).is_empty());
    for a in [&got[0], &got[9]] {
        assert_eq!(a["id"], 7);
        assert_eq!(hits_of(a)[0].0, d.id, "the good lines answer");
    }
    assert_eq!(hits_of(&got[10]).len(), 30, "a `k` beyond the index answers with all of it");
    assert_eq!(o.status.code(), Some(2), "usage errors dominate: {}", stderr(&o));
    assert!(stderr(&o).contains("8 of the queries"), "{}", stderr(&o));

    // Only a non-usage failure (a query with nothing to embed): exit 1. Lines outside the
    // snippet are a usage error, as `--lines` is for one search.
    let file = batch_file(&s, &[serde_json::json!({"code": " \u{200B} ", "cause": ""}).to_string()]);
    let o = s.run(&["search", idx.to_str().unwrap(), "--batch", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(answers(&o).len(), 1);
}

/// An empty file (or blank lines only) answers nothing and succeeds; a missing file is an
/// error before anything is loaded; `--batch` refuses `--code`.
#[test]
fn batch_empty_and_missing_files() {
    let (s, idx) = indexed();
    for content in ["", "\n\n  \n"] {
        let p = s.path("empty.jsonl");
        std::fs::write(&p, content).unwrap();
        let o = s.run(&["search", idx.to_str().unwrap(), "--batch", p.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(o.stdout.is_empty());
    }
    let o = s.run(&["search", idx.to_str().unwrap(), "--batch", s.path("none.jsonl").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("none.jsonl"), "{}", stderr(&o));
    let o = s.run(&["search", idx.to_str().unwrap(), "--batch", "-", "--code", "x"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // A UTF-16 file (with or without its byte-order mark) is refused whole, before any line.
    let line = serde_json::json!({"code": "int x = 1;"}).to_string() + "\n";
    for mark in [&[0xFF, 0xFE][..], &[]] {
        let utf16: Vec<u8> = mark.iter().copied().chain(line.repeat(3).bytes().flat_map(|b| [b, 0])).collect();
        let path = s.path("utf16.jsonl");
        std::fs::write(&path, utf16).unwrap();
        let o = s.run(&["search", idx.to_str().unwrap(), "--batch", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("is UTF-16 (little-endian") && o.stdout.is_empty(), "{}", stderr(&o));
    }
}

/// `--batch -` reads standard input (a byte-order mark first too); the answers equal those
/// from a file.
#[test]
fn batch_reads_standard_input() {
    let (s, idx) = indexed();
    let docs = engine::testing::sample_records(30);
    let lines: Vec<String> = (0..70)
        .map(|i| {
            let d = &docs[i % 30];
            serde_json::json!({"code": d.buggy_code, "cause": d.root_cause, "id": i, "k": 2}).to_string()
        })
        .collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_fixdex"))
        .args(["search", idx.to_str().unwrap(), "--batch", "-"])
        .env("FIXDEX_MODEL", s.model())
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Windows line ends and a byte-order mark, as `fixdex index` reads JSONL.
    let text: String =
        std::iter::once("\u{feff}".to_string()).chain(lines.iter().map(|l| format!("{l}\r\n"))).collect();
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let from_stdin = answers(&o);
    assert_eq!(from_stdin.len(), 70, "more than one chunk, all in order");
    let file = batch_file(&s, &lines);
    let from_file = answers(&s.run(&["search", idx.to_str().unwrap(), "--batch", file.to_str().unwrap()]));
    for (i, (a, b)) in from_stdin.iter().zip(&from_file).enumerate() {
        assert_eq!((&a["id"], &a["line"]), (&serde_json::json!(i), &serde_json::json!(i + 1)));
        assert_same_hits(&hits_of(a), &hits_of(b), &format!("line {}", i + 1));
        assert_eq!(hits_of(a)[0].0, docs[i % 30].id);
    }
}

/// The model identity does not depend on the fingerprint cache: an index built while the
/// cache is cold and one built from the cache record the SHA-256 of the files (as
/// `bert_fingerprint` computes it); after the weights change in place (same size), the
/// stale entry is not used and the search refuses the index as built with another model.
#[test]
fn fingerprint_cache_keeps_the_model_identity() {
    let s = Scratch::new();
    let model = s.model();
    // Entries are only written for files older than the settling time (2 s).
    std::thread::sleep(std::time::Duration::from_millis(2200));
    let corpus = s.corpus("c.jsonl", &records(12));
    let (cold, warm) = (s.path("cold.fdx"), s.path("warm.fdx"));
    s.index(&corpus, &cold, &[]);
    let entry = model.join(".fixdex-fingerprint.json");
    assert!(entry.is_file(), "the first load records the fingerprint");
    s.index(&corpus, &warm, &[]);
    let read = |f: &str| std::fs::read(model.join(f)).unwrap();
    let expected = engine::embed::bert_fingerprint(
        &[&read("config.json"), &read("tokenizer.json"), &read("model.safetensors")],
        engine::embed::Pooling::Mean,
        64,
    );
    for idx in [&cold, &warm] {
        assert_eq!(sha_of(&s, idx), expected);
    }
    let q = s.path("q.txt");
    std::fs::write(&q, "int x = 1;").unwrap();
    let search = |idx: &Path| s.run(&["search", idx.to_str().unwrap(), "--code", q.to_str().unwrap(), "--json"]);
    assert!(search(&cold).status.success());

    // Same size, same inode, new content.
    let mut w = read("model.safetensors");
    let last = w.len() - 1;
    w[last] ^= 0x01;
    std::fs::write(model.join("model.safetensors"), &w).unwrap();
    let o = search(&cold);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("model"), "{}", stderr(&o));
    assert!(stderr(&o).contains(&expected[..12]), "names the index's model: {}", stderr(&o));
}

/// The model SHA-256 recorded in `idx` (`fixdex inspect --json`).
fn sha_of(s: &Scratch, idx: &Path) -> String {
    let v = stdout_json(&s.run(&["inspect", idx.to_str().unwrap(), "--json"]));
    v["model"]["sha256"].as_str().unwrap().to_string()
}
