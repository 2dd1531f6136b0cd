//! Fuzz tests of the corpus readers (issue 8): JSONL lines of random bytes and of valid
//! rows with fields of the wrong type, missing, huge, odd Unicode or nested junk; Parquet
//! and Arrow IPC files written here, then flipped, cut, extended and spliced. Whatever the
//! input, `read_corpus` returns, every row is a valid record or an `Error::Row` naming the
//! file, and a file-level error names the file. Git bundles (`fixdex mine`'s input, issue
//! 29) are damaged alike: mining returns pairs or an error naming the bundle. Seeds are fixed; `FIXDEX_FUZZ_CASES=N` and
//! `FIXDEX_FUZZ_SEED=S` run more or other cases (docs/fuzzing.md).

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::{ArrayRef, RecordBatch, StringArray};
use engine::Record;
use engine::testing::fuzz::{cases, seed, set_ipc_buffer, write_seed};
use indexer::Error;
use indexer::corpus::{Format, ReadOptions, read_corpus};
use parquet::basic::{Compression, GzipLevel, ZstdLevel};
use parquet::file::properties::WriterProperties;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use serde_json::{Value, json};

/// Longest a corpus of a few kilobytes may take to read, however damaged.
const SLOW: Duration = Duration::from_secs(20);

fn runner(default_cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases: cases(default_cases),
        rng_seed: RngSeed::Fixed(seed()),
        failure_persistence: None,
        ..Config::default()
    })
}

/// What reading one file gave: `(row, Ok)` or `(row, Err(field))`, and the file error.
#[derive(Debug, Default)]
struct Outcome {
    rows: Vec<(u64, Result<Record, String>)>,
    file_error: Option<String>,
}

/// Reads `path` as `format`, checking what must hold for any input: the call returns in
/// time, row numbers rise, records are valid, row errors are `Error::Row` for this file,
/// file errors are `Error::File` or `Error::Io` naming it.
fn read_checked(path: &Path, format: Format) -> Outcome {
    let mut out = Outcome::default();
    let started = Instant::now();
    let result = read_corpus(path, Some(format), &ReadOptions::default(), &mut |row| {
        match row {
            Ok((n, record)) => {
                check_record(&record);
                out.rows.push((n, Ok(record)));
            }
            Err(Error::Row { path: p, row, field, .. }) => {
                assert_eq!(p, path, "a row error names the file read");
                assert!(!field.is_empty(), "a row error names the field");
                out.rows.push((row, Err(field)));
            }
            Err(e) => panic!("a row error that is not Error::Row: {e:?}"),
        }
        Ok(())
    });
    assert!(started.elapsed() < SLOW, "reading {} took {:?}", path.display(), started.elapsed());
    assert!(out.rows.windows(2).all(|w| w[0].0 < w[1].0), "row numbers rise: {:?}", out.rows);
    if let Err(e) = result {
        assert!(matches!(e, Error::File { .. } | Error::Io { .. }), "{e:?}");
        let message = e.to_string();
        assert!(message.starts_with(&path.display().to_string()), "a file error names the file: {message}");
        out.file_error = Some(message);
    }
    out
}

/// The invariants of every record a reader returns.
fn check_record(r: &Record) {
    assert!(!r.id.trim().is_empty(), "blank id: {r:?}");
    assert!(!r.buggy_code.trim().is_empty(), "blank buggy_code: {r:?}");
    assert!(!r.language.is_empty() && r.language == r.language.trim().to_lowercase(), "language: {r:?}");
    assert!(!r.project.trim().is_empty(), "blank project: {r:?}");
}

/// Lines of random bytes (some CRLF, some blank, some with a BOM): every line that is not
/// blank gives exactly one row, numbered by its line.
#[test]
fn fuzz_jsonl_random_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.jsonl");
    let line = prop_oneof![
        vec(any::<u8>().prop_map(|b| if b == b'\n' { b' ' } else { b }), 0..60),
        Just(b"  \t".to_vec()),
        Just(b"\xef\xbb\xbf{}".to_vec()),
        vec(prop::sample::select(b"{}[]\":,\\ nul0-9.e\r\xc3\xa9".to_vec()), 0..60),
    ];
    runner(2000)
        .run(&vec(line, 0..8), |lines| {
            std::fs::write(&path, lines.join(&b'\n')).unwrap();
            let got = read_checked(&path, Format::Jsonl);
            assert_eq!(got.file_error, None);
            let want: Vec<u64> = (1..).zip(&lines).filter(|(i, l)| !blank(l, *i == 1)).map(|(i, _)| i).collect();
            let rows: Vec<u64> = got.rows.iter().map(|r| r.0).collect();
            assert_eq!(rows, want, "one row per line that is not blank");
            Ok(())
        })
        .unwrap();
}

/// The reader's idea of a blank line (which holds no `\n`): UTF-8, only whitespace once a
/// first line's BOM and a final `\r` are gone.
fn blank(line: &[u8], first: bool) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let Ok(text) = std::str::from_utf8(line) else { return false };
    let text = if first { text.strip_prefix('\u{feff}').unwrap_or(text) } else { text };
    text.trim().is_empty()
}

/// Strings that have broken text handling elsewhere: empty, whitespace, zero-width and
/// direction marks, combining characters alone, NUL and controls, astral characters, very
/// long ones.
fn odd_string() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just(" \t\r\n".to_owned()),
        Just("\u{200b}\u{200c}\u{feff}".to_owned()),
        Just("\u{202e}int f() {}\u{202c}".to_owned()),
        Just("\u{301}\u{301}".to_owned()),
        Just("\0\u{1}\u{7f}".to_owned()),
        Just("𝔣(𝔵) = 💥".to_owned()),
        (1usize..200_000).prop_map(|n| "x".repeat(n)),
        "\\PC{0,40}",
        any::<String>(),
    ]
}

/// Any JSON value: scalars, odd strings, and arrays/objects nested up to 4 deep.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        odd_string().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 24, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Value::from),
            vec((odd_string(), inner), 0..6).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Field names a row may carry: the known ones, `diff`, and one nobody wants.
const FIELDS: [&str; 12] = [
    "id",
    "language",
    "buggy_code",
    "fixed_code",
    "source",
    "project",
    "root_cause",
    "description",
    "license",
    "meta",
    "diff",
    "extra",
];

/// A change to a valid row: drop a field, or set it to any value.
#[derive(Debug, Clone)]
enum Change {
    Remove(usize),
    Set(usize, Value),
}

/// A line: a valid row with changes, serialized; then maybe cut short (never to nothing),
/// wrapped in 200 arrays (deeper than serde_json's recursion limit), or given an id with
/// a lone UTF-16 surrogate escape.
fn jsonl_line() -> impl Strategy<Value = (Vec<Change>, String)> {
    let change = prop_oneof![
        (0..FIELDS.len()).prop_map(Change::Remove),
        (0..FIELDS.len(), json_value()).prop_map(|(f, v)| Change::Set(f, v)),
    ];
    let text_damage = prop_oneof![
        4 => Just(None),
        1 => any::<prop::sample::Index>().prop_map(|i| Some(("cut", i))),
        1 => any::<prop::sample::Index>().prop_map(|i| Some(("nest", i))),
        1 => any::<prop::sample::Index>().prop_map(|i| Some(("surrogate", i))),
    ];
    (vec(change, 0..4), text_damage).prop_map(|(changes, damage)| {
        let mut row = json!({"id": "t:1", "language": "Java", "buggy_code": "int f() { return 1; }",
                             "fixed_code": "int f() { return 2; }", "root_cause": "off by one"});
        for c in &changes {
            match c {
                Change::Remove(f) => drop(row.as_object_mut().unwrap().remove(FIELDS[*f])),
                Change::Set(f, v) => row[FIELDS[*f]] = v.clone(),
            }
        }
        let text = row.to_string();
        let text = match damage {
            None => text,
            Some(("cut", i)) => text[..text.floor_char_boundary(1 + i.index(text.len()))].to_owned(),
            Some(("nest", _)) => format!("{}{text}{}", "[".repeat(200), "]".repeat(200)),
            Some((_, _)) => text.replacen("\"t:1\"", "\"\\ud800\"", 1),
        };
        (changes, text.replace('\n', "\\n"))
    })
}

/// Valid rows with fields removed or replaced and lines damaged: one row per line; a row
/// read as valid carries its code byte for byte; a non-string code is a row error.
#[test]
fn fuzz_jsonl_structured_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.jsonl");
    runner(2000)
        .run(&vec(jsonl_line(), 1..5), |lines| {
            let text: Vec<&str> = lines.iter().map(|(_, t)| t.as_str()).collect();
            std::fs::write(&path, text.join("\r\n")).unwrap();
            let got = read_checked(&path, Format::Jsonl);
            assert_eq!(got.file_error, None);
            assert_eq!(got.rows.len(), lines.len(), "one row per line");
            for ((_, row), (changes, line)) in got.rows.iter().zip(&lines) {
                let intact = serde_json::from_str::<Value>(line).ok().filter(Value::is_object);
                match (row, intact) {
                    (Ok(record), Some(v)) => {
                        assert_eq!(v["buggy_code"].as_str(), Some(record.buggy_code.as_str()));
                        assert_eq!(v["fixed_code"].as_str(), Some(record.fixed_code.as_str()));
                    }
                    (Ok(record), None) => panic!("a line that is not a JSON object read as {record:?}: {line}"),
                    (Err(_), Some(v)) => assert!(changes.iter().any(|c| bad_change(c, &v)), "{line}"),
                    (Err(_), None) => {}
                }
            }
            Ok(())
        })
        .unwrap();
}

/// Whether `change` may make the row `v` invalid (it touched a field the rules check).
fn bad_change(change: &Change, v: &Value) -> bool {
    let (Change::Remove(f) | Change::Set(f, _)) = change;
    let field = FIELDS[*f];
    field != "diff" && field != "extra" && !(field == "meta" && v[field].is_object())
}

/// Sample records as one batch of the ten document columns.
fn record_batch(records: &[Record]) -> RecordBatch {
    let columns: Vec<(&str, ArrayRef)> = engine::docs::COLUMNS
        .iter()
        .enumerate()
        .map(|(c, name)| {
            let values: Vec<&str> = records.iter().map(|r| r.fields()[c]).collect();
            (*name, Arc::new(StringArray::from(values)) as ArrayRef)
        })
        .collect();
    RecordBatch::try_from_iter(columns).unwrap()
}

/// Valid Parquet files of 20 sample rows in two row groups, one per codec, with and without
/// dictionary encoding and statistics.
fn parquet_files() -> Vec<(String, Vec<u8>)> {
    let batch = record_batch(&engine::testing::sample_records(20));
    let codecs = [
        ("snappy", Compression::SNAPPY),
        ("zstd", Compression::ZSTD(ZstdLevel::default())),
        ("lz4", Compression::LZ4_RAW),
        ("gzip", Compression::GZIP(GzipLevel::default())),
        ("plain", Compression::UNCOMPRESSED),
    ];
    codecs
        .into_iter()
        .enumerate()
        .map(|(i, (name, codec))| {
            let props = WriterProperties::builder()
                .set_compression(codec)
                .set_dictionary_enabled(i % 2 == 0)
                .set_max_row_group_row_count(Some(10))
                .build();
            let mut out = Vec::new();
            let mut w = parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
            w.write(&batch).unwrap();
            w.close().unwrap();
            (format!("{name}.parquet"), out)
        })
        .collect()
}

/// Valid Arrow IPC data: the engine's own document writer (IPC file, 300 rows over two
/// batches), and an IPC stream with a dictionary-encoded column.
fn arrow_files() -> Vec<(String, Vec<u8>)> {
    let mut file = Vec::new();
    let mut w = engine::docs::DocsWriter::new(&mut file).unwrap();
    engine::testing::sample_records(300).into_iter().for_each(|r| w.push(r).unwrap());
    w.finish().unwrap();
    let mut batch = record_batch(&engine::testing::sample_records(8));
    let language: arrow_array::DictionaryArray<arrow_array::types::Int32Type> =
        ["java", "python", "java", "java", "python", "java", "python", "java"].into_iter().collect();
    let (mut cols, mut fields) = (batch.columns().to_vec(), batch.schema().fields().to_vec());
    cols[3] = Arc::new(language);
    fields[3] = Arc::new(arrow_schema::Field::new("language", cols[3].data_type().clone(), false));
    batch = RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), cols).unwrap();
    let mut stream = Vec::new();
    let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut stream, &batch.schema()).unwrap();
    w.write(&batch).unwrap();
    w.finish().unwrap();
    drop(w);
    vec![("docs.arrow".to_owned(), file), ("stream.arrow".to_owned(), stream)]
}

/// One edit of a file's bytes.
#[derive(Debug, Clone)]
enum Edit {
    Flip(prop::sample::Index, u8),
    Set(prop::sample::Index, u8),
    Truncate(prop::sample::Index),
    Insert(prop::sample::Index, Vec<u8>),
    /// Copy `len` bytes from one place over another (moves lengths and offsets around).
    Copy(prop::sample::Index, prop::sample::Index, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let at = any::<prop::sample::Index>;
    prop_oneof![
        4 => (at(), 1..=255u8).prop_map(|(i, m)| Edit::Flip(i, m)),
        2 => (at(), prop::sample::select(vec![0u8, 0x7f, 0x80, 0xff])).prop_map(|(i, b)| Edit::Set(i, b)),
        1 => at().prop_map(Edit::Truncate),
        1 => (at(), vec(any::<u8>(), 1..16)).prop_map(|(i, b)| Edit::Insert(i, b)),
        1 => (at(), at(), 1..64usize).prop_map(|(a, b, n)| Edit::Copy(a, b, n)),
    ]
}

fn apply_edits(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let n = bytes.len().max(1);
        match e {
            Edit::Flip(i, m) => bytes.get_mut(i.index(n)).into_iter().for_each(|b| *b ^= m),
            Edit::Set(i, v) => bytes.get_mut(i.index(n)).into_iter().for_each(|b| *b = *v),
            Edit::Truncate(i) => bytes.truncate(i.index(n)),
            Edit::Insert(i, b) => drop(bytes.splice(i.index(n)..i.index(n), b.iter().copied())),
            Edit::Copy(from, to, len) => {
                let (from, to) = (from.index(n), to.index(n));
                let len = (*len).min(bytes.len().saturating_sub(from.max(to)));
                bytes.copy_within(from..from + len, to);
            }
        }
    }
    bytes
}

/// Damaged copies of valid `files` read as `format`: each edit list is applied to each file.
fn fuzz_files(files: &[(String, Vec<u8>)], format: Format, default_cases: u32) {
    let dir = tempfile::tempdir().unwrap();
    let paths: Vec<PathBuf> = files.iter().map(|(name, _)| dir.path().join(name)).collect();
    let opened = RefCell::new(0);
    runner(default_cases)
        .run(&(0..files.len(), vec(edit(), 1..4)), |(i, edits)| {
            std::fs::write(&paths[i], apply_edits(files[i].1.clone(), &edits)).unwrap();
            let got = read_checked(&paths[i], format);
            *opened.borrow_mut() += usize::from(!got.rows.is_empty());
            Ok(())
        })
        .unwrap();
    assert!(*opened.borrow() > 0, "some damaged files should still give rows");
}

#[test]
fn fuzz_parquet_damaged_files() {
    fuzz_files(&parquet_files(), Format::Parquet, 2000);
}

#[test]
fn fuzz_arrow_damaged_files() {
    fuzz_files(&arrow_files(), Format::Arrow, 2000);
}

/// The valid inputs the tests above damage read back whole (and, with
/// `FIXDEX_FUZZ_SEEDS=DIR`, become the seeds of the cargo-fuzz targets).
#[test]
fn fuzz_seeds_read_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = (1..=3).map(|i| {
        json!({"id": format!("t:{i}"), "language": "java", "buggy_code": "x = 1;",
                                       "fixed_code": "x = 2;", "meta": {"k": [i]}})
        .to_string()
    });
    let jsonl = vec![("rows.jsonl".to_owned(), jsonl.collect::<Vec<_>>().join("\n").into_bytes())];
    let sets = [
        ("corpus_jsonl", Format::Jsonl, jsonl),
        ("corpus_parquet", Format::Parquet, parquet_files()),
        ("corpus_arrow", Format::Arrow, arrow_files()),
    ];
    for (target, format, files) in sets {
        for (name, bytes) in files {
            let path = dir.path().join(&name);
            std::fs::write(&path, &bytes).unwrap();
            let got = read_checked(&path, format);
            assert_eq!(got.file_error, None, "{name}");
            assert!(!got.rows.is_empty() && got.rows.iter().all(|r| r.1.is_ok()), "{name}: {:?}", got.rows);
            write_seed(target, &name, &bytes);
        }
    }
}

/// A small git history as a bundle (`git bundle create --all`): a Java file fixed in a
/// second commit, so a whole bundle gives one pair.
fn small_bundle(dir: &Path) -> Vec<u8> {
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let git = |args: &[&str]| {
        let o = std::process::Command::new("git")
            .current_dir(&repo)
            .args(["-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-c", "user.name=A"])
            .args(["-c", "user.email=a@example.com"])
            .args(args)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_DATE", "2020-01-01T12:00:00+00:00")
            .env("GIT_COMMITTER_DATE", "2020-01-01T12:00:00+00:00")
            .output()
            .unwrap();
        assert!(o.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    };
    git(&["init", "-q"]);
    let file = repo.join("A.java");
    std::fs::write(&file, "class A {\n    int f(int x) {\n        return x - 1;\n    }\n}\n").unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "Initial import"]);
    std::fs::write(&file, "class A {\n    int f(int x) {\n        return x + 1;\n    }\n}\n").unwrap();
    git(&["commit", "-q", "-am", "Fix the off-by-one bug in f"]);
    let bundle = dir.join("small.bundle");
    git(&["bundle", "create", "-q", bundle.to_str().unwrap(), "--all"]);
    std::fs::read(&bundle).unwrap()
}

/// Mines the bundle at `path`, checking what must hold for any input: the call returns in
/// time and an error is `Error::File` or `Error::Io` naming the file; never a panic.
/// Returns the pairs, or the error's text.
fn mine_checked(path: &Path, temp: &Path) -> Result<usize, String> {
    let opts = indexer::mine::MineOptions { temp_parent: Some(temp.to_path_buf()), ..Default::default() };
    let started = Instant::now();
    let result = indexer::mine::mine(path, &opts, &|_, _| {});
    assert!(started.elapsed() < SLOW, "mining {} took {:?}", path.display(), started.elapsed());
    match result {
        Ok((pairs, _)) => Ok(pairs.len()),
        Err(e) => {
            assert!(matches!(e, Error::File { .. } | Error::Io { .. }), "{e:?}");
            let message = e.to_string();
            assert!(message.starts_with(&path.display().to_string()), "a bundle error names the file: {message}");
            Err(message)
        }
    }
}

/// Issue 29 item 7: damaged bundles (bytes flipped, set, cut, inserted, copied) are mined
/// or refused with an error naming the file; never a panic, and a pack libgit2 refuses is
/// called damaged, never a write error.
#[test]
fn fuzz_bundle_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let whole = small_bundle(dir.path());
    let (path, temp) = (dir.path().join("damaged.bundle"), dir.path().join("tmp"));
    std::fs::create_dir_all(&temp).unwrap();
    let refused = RefCell::new(0);
    runner(300)
        .run(&vec(edit(), 1..4), |edits| {
            std::fs::write(&path, apply_edits(whole.clone(), &edits)).unwrap();
            if let Err(message) = mine_checked(&path, &temp) {
                assert!(!message.contains("Write error"), "{message}");
                *refused.borrow_mut() += 1;
            }
            Ok(())
        })
        .unwrap();
    assert!(*refused.borrow() > 0, "some damaged bundles should be refused");
    assert_eq!(std::fs::read_dir(&temp).unwrap().count(), 0, "no temporary repository is left");
}

/// Issue 29 item 7: 20 bytes flipped in the second half of a bundle's pack: the error says
/// the pack is damaged (it said `Write error`, which sounds like a full disk).
#[test]
fn issue_29_flipped_bundle_says_damaged_pack() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = small_bundle(dir.path());
    let half = bytes.len() / 2;
    bytes[half..half + 20].iter_mut().for_each(|b| *b ^= 0x5a);
    let path = dir.path().join("flipped.bundle");
    std::fs::write(&path, &bytes).unwrap();
    let message = mine_checked(&path, dir.path()).unwrap_err();
    assert!(message.contains("damaged pack") && !message.contains("Write error"), "{message}");
}

/// The bundle the bundle tests damage mines whole (and, with `FIXDEX_FUZZ_SEEDS=DIR`,
/// becomes the seed of the `bundle` cargo-fuzz target).
#[test]
fn fuzz_seeds_bundle_mines_whole() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = small_bundle(dir.path());
    let path = dir.path().join("whole.bundle");
    std::fs::write(&path, &bytes).unwrap();
    assert_eq!(mine_checked(&path, dir.path()), Ok(1));
    write_seed("bundle", "small.bundle", &bytes);
}

/// Reads Arrow IPC data damaged by `engine::testing::fuzz::set_ipc_buffer` and returns the
/// file error, for the IPC file (the document writer's) and the IPC stream of
/// [`arrow_files`].
fn damaged_arrow_errors(buffer: usize, length: bool, value: impl Fn(&str) -> i64) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    arrow_files()
        .into_iter()
        .map(|(name, mut bytes)| {
            assert!(set_ipc_buffer(&mut bytes, buffer, length, value(&name)), "{name} has a record batch");
            let path = dir.path().join(&name);
            std::fs::write(&path, &bytes).unwrap();
            let got = read_checked(&path, Format::Arrow);
            assert!(got.rows.is_empty(), "{name}: no row of a damaged batch");
            got.file_error.unwrap_or_else(|| panic!("{name}: a damaged batch is a file error"))
        })
        .collect()
}

/// Issue 8, found by `fuzz_arrow_damaged_files`: a record batch whose buffer lies outside
/// its message body made arrow-ipc panic in the corpus reader. It is now a file error
/// naming the file and the first row that could not be read.
#[test]
fn issue_8_fuzz_arrow_buffer_outside_its_body() {
    for err in damaged_arrow_errors(0, false, |_| 1 << 40) {
        assert!(err.contains(": cannot read from row 1 on: "), "{err}");
    }
}

/// Issue 8, found by `fuzz_arrow_damaged_files`: an offsets buffer whose length is not a
/// whole number of offsets made arrow-data panic while validating a batch. It is now a
/// file error.
#[test]
fn issue_8_fuzz_arrow_offsets_not_whole() {
    // Offsets of the first batch: 257 in the document file (256 rows), 9 in the stream.
    let errors = damaged_arrow_errors(1, true, |name| if name == "docs.arrow" { 257 * 4 + 1 } else { 9 * 4 + 1 });
    for err in errors {
        assert!(err.contains(": cannot read from row 1 on: "), "{err}");
    }
}

/// The file error for one of the damaged files kept in `tests/data/fuzz` (each is a file of
/// [`parquet_files`] with one byte flipped or zeroed, as `fuzz_parquet_damaged_files`
/// found it).
fn kept_damaged_file(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz").join(name);
    let got = read_checked(&path, Format::Parquet);
    got.file_error.unwrap_or_else(|| panic!("{name}: a damaged file is a file error: {:?}", got.rows))
}

/// Issue 8, found by `fuzz_parquet_damaged_files`: column chunk metadata with a negative
/// start or length made the parquet crate panic ("column start and length should not be
/// negative"). It is now a file error.
#[test]
fn issue_8_fuzz_parquet_negative_column_start() {
    let err = kept_damaged_file("negative_column_start.parquet");
    assert!(err.contains("negative_column_start.parquet: "), "{err}");
}

/// Issue 8, found by `fuzz_parquet_damaged_files`: a zeroed byte in a plain-encoded column
/// made the parquet crate divide by zero while decoding. It is now a file error.
#[test]
fn issue_8_fuzz_parquet_zero_divisor() {
    let err = kept_damaged_file("zero_divisor.parquet");
    assert!(err.contains("zero_divisor.parquet: cannot read from row 1 on: "), "{err}");
}

/// Issue 8, found by `fuzz_arrow_damaged_files`: a record batch block with a negative body
/// length in the footer of an IPC file made arrow-ipc panic (`unwrap` on `None`). It is now
/// a file error.
#[test]
fn issue_8_fuzz_arrow_negative_block_length() {
    let (name, mut bytes) = arrow_files().remove(0);
    let trailer = bytes.len() - 10;
    let len = arrow_ipc::reader::read_footer_length(bytes[trailer..].try_into().unwrap()).unwrap();
    let footer = arrow_ipc::root_as_footer(&bytes[trailer - len..trailer]).unwrap();
    let block = footer.recordBatches().unwrap().get(0);
    // Flatbuffer structs are inline bytes; `bodyLength` is at byte 16 of a block.
    let at = std::ptr::from_ref(block) as usize - bytes.as_ptr() as usize + 16;
    bytes[at..at + 8].copy_from_slice(&(-8i64).to_le_bytes());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(&name);
    std::fs::write(&path, &bytes).unwrap();
    let err = read_checked(&path, Format::Arrow).file_error.expect("a file error");
    assert!(err.contains(": cannot read from row 1 on: "), "{err}");
}
