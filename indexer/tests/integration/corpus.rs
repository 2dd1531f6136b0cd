//! Corpus readers: JSONL, Parquet and Arrow IPC files written here, read back through
//! `read_corpus`, with the exact error texts users see.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use arrow_array::{ArrayRef, LargeStringArray, RecordBatch, StringArray};
use engine::Record;
use indexer::Error;
use indexer::corpus::{Format, ReadOptions, read_corpus};
use serde_json::{Value, json};

/// What one `read_corpus` call delivered.
#[derive(Debug, Default)]
struct Read {
    rows: Vec<(u64, Record)>,
    errors: Vec<String>,
}

impl Read {
    fn records(&self) -> Vec<Record> {
        self.rows.iter().map(|(_, r)| r.clone()).collect()
    }

    fn row_numbers(&self) -> Vec<u64> {
        self.rows.iter().map(|(n, _)| *n).collect()
    }
}

/// Reads `path` with `opts`, collecting rows and row errors; panics on a file error.
fn read_with(path: &Path, opts: &ReadOptions) -> Read {
    try_read(path, None, opts).unwrap_or_else(|e| panic!("file error: {e}"))
}

fn read(path: &Path) -> Read {
    read_with(path, &ReadOptions::default())
}

/// Reads `path`, returning a file-level error as is.
fn try_read(path: &Path, format: Option<Format>, opts: &ReadOptions) -> Result<Read, Error> {
    let mut out = Read::default();
    read_corpus(path, format, opts, &mut |row| {
        match row {
            Ok(row) => out.rows.push(row),
            Err(e @ Error::Row { .. }) => out.errors.push(e.to_string()),
            Err(e) => panic!("a row error that is not Error::Row: {e:?}"),
        }
        Ok(())
    })?;
    Ok(out)
}

fn cause(name: &str) -> ReadOptions {
    ReadOptions { cause_field: Some(name.to_string()) }
}

/// Writes `lines` (each followed by `\n`) to `name` in `dir`.
fn write_lines(dir: &Path, name: &str, lines: &[String]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    path
}

/// A JSONL file of the given objects.
fn write_jsonl(dir: &Path, objects: &[Value]) -> PathBuf {
    write_lines(dir, "c.jsonl", &objects.iter().map(Value::to_string).collect::<Vec<_>>())
}

/// A valid row, with `extra` fields added or replaced.
fn row(id: &str, extra: &Value) -> Value {
    let mut row = json!({"id": id, "language": "java", "buggy_code": "int f() { return 1; }", "fixed_code": "int f() { return 2; }"});
    for (k, v) in extra.as_object().unwrap() {
        row[k] = v.clone();
    }
    row
}

/// Sample rows covering every field, defaults and the auto cause rule.
fn sample() -> Vec<Value> {
    vec![
        json!({"id": "t:1", "source": "s", "project": "o/p", "language": " Java ", "license": "MIT",
               "buggy_code": "\tif (a != null) {\r\n  return ñ + \"∑\";\n}\n", "fixed_code": "\tif (a == null) {}\n",
               "root_cause": "null check inverted", "description": "Fix NPE", "diff": "@@ -1 +1 @@",
               "meta": {"commit": "abc", "files": ["A.java"], "n": 2}}),
        json!({"id": "t:2", "language": "python", "buggy_code": "del x\n", "fixed_code": "",
               "description": "only a description"}),
        json!({"id": "t:3", "language": "PYTHON", "project": "", "buggy_code": "x", "fixed_code": "y",
               "root_cause": "   ", "description": "blank root cause", "meta": null}),
    ]
}

/// What [`sample`] reads as with the default (auto) options.
fn sample_records() -> Vec<Record> {
    let record = |id: &str, language: &str, buggy: &str, fixed: &str| Record {
        id: id.into(),
        project: "unknown".into(),
        language: language.into(),
        buggy_code: buggy.into(),
        fixed_code: fixed.into(),
        ..Record::default()
    };
    let mut one = record("t:1", "java", "\tif (a != null) {\r\n  return ñ + \"∑\";\n}\n", "\tif (a == null) {}\n");
    one.source = "s".into();
    one.project = "o/p".into();
    one.license = "MIT".into();
    one.root_cause = "null check inverted".into();
    one.description = "Fix NPE".into();
    one.meta = r#"{"commit":"abc","files":["A.java"],"n":2}"#.into();
    let mut two = record("t:2", "python", "del x\n", "");
    (two.root_cause, two.description) = ("only a description".into(), "only a description".into());
    let mut three = record("t:3", "python", "x", "y");
    (three.root_cause, three.description) = ("blank root cause".into(), "blank root cause".into());
    vec![one, two, three]
}

#[test]
fn jsonl_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let got = read(&write_jsonl(dir.path(), &sample()));
    assert_eq!(got.errors, Vec::<String>::new());
    assert_eq!(got.row_numbers(), [1, 2, 3]);
    assert_eq!(got.records(), sample_records());
}

#[test]
fn empty_file_has_no_rows_and_no_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.jsonl");
    std::fs::write(&path, "").unwrap();
    let got = read(&path);
    assert!(got.rows.is_empty() && got.errors.is_empty());
}

#[test]
fn malformed_line_in_the_middle_is_one_row_error() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        row("a", &json!({})).to_string(),
        r#"{"id": "b", "language": "java",,}"#.into(),
        row("c", &json!({})).to_string(),
    ];
    let path = write_lines(dir.path(), "c.jsonl", &lines);
    let got = read(&path);
    assert_eq!(got.row_numbers(), [1, 3], "rows after the bad line are still delivered");
    assert_eq!(
        got.errors,
        [format!("{}:2: field `<json>`: not valid JSON: key must be a string at column 32", path.display())]
    );
}

/// The single row error for one line holding `object`.
fn row_error(object: Value) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = write_jsonl(dir.path(), &[object]);
    let got = read(&path);
    assert!(got.rows.is_empty());
    let [error] = got.errors.as_slice() else { panic!("expected one error, got {:?}", got.errors) };
    error.strip_prefix(&format!("{}:", path.display())).unwrap().to_string()
}

#[test]
fn missing_buggy_code() {
    let mut object = row("a", &json!({}));
    object.as_object_mut().unwrap().remove("buggy_code");
    assert_eq!(row_error(object), "1: field `buggy_code`: required field is missing");
}

#[test]
fn empty_buggy_code() {
    let want = "1: field `buggy_code`: must not be empty or only whitespace";
    assert_eq!(row_error(row("a", &json!({"buggy_code": ""}))), want);
    assert_eq!(row_error(row("a", &json!({"buggy_code": " \n\t "}))), want);
}

#[test]
fn buggy_code_of_the_wrong_type() {
    assert_eq!(
        row_error(row("a", &json!({"buggy_code": 42}))),
        "1: field `buggy_code`: expected a string, found number"
    );
    assert_eq!(
        row_error(row("a", &json!({"buggy_code": null}))),
        "1: field `buggy_code`: expected a string, found null"
    );
    assert_eq!(
        row_error(row("a", &json!({"language": ["java"]}))),
        "1: field `language`: expected a string, found array"
    );
}

#[test]
fn json_that_is_not_an_object() {
    let want =
        "1: field `<json>`: invalid type: string \"x\", expected a JSON object (one record per line) at column 3";
    assert_eq!(row_error(json!("x")), want);
}

#[test]
fn non_utf8_bytes_are_a_row_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.jsonl");
    let mut bytes = row("a", &json!({})).to_string().into_bytes();
    bytes.extend_from_slice(b"\n{\"id\": \"b\xc3\x28\"}\n");
    bytes.extend_from_slice(format!("{}\n", row("c", &json!({}))).as_bytes());
    std::fs::write(&path, bytes).unwrap();
    let got = read(&path);
    assert_eq!(got.row_numbers(), [1, 3]);
    assert_eq!(got.errors, [format!("{}:2: field `<line>`: invalid UTF-8 at byte 10 of the line", path.display())]);
}

#[test]
fn a_200000_character_function_passes_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let unit = "  x = \"ä\\\"\"; // ∑\n\t";
    let code: String = unit.chars().cycle().take(200_000).collect();
    let fixed: String = code.chars().rev().collect(); // not equal: a no-op fix is refused
    let got = read(&write_jsonl(dir.path(), &[row("a", &json!({"buggy_code": code, "fixed_code": fixed}))]));
    assert_eq!(got.rows[0].1.buggy_code, code);
    assert_eq!(got.rows[0].1.fixed_code, fixed);
    assert_eq!(got.rows[0].1.fixed_code.chars().count(), 200_000);
}

#[test]
fn a_10000_token_root_cause_passes_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let cause: String = (0..10_000).map(|i| format!("tok{:02} ", i % 100)).collect();
    assert_eq!(cause.len(), 60_000);
    let got = read(&write_jsonl(dir.path(), &[row("a", &json!({"root_cause": cause}))]));
    assert_eq!(got.rows[0].1.root_cause, cause);
}

#[test]
fn auto_cause_prefers_root_cause_then_description() {
    let dir = tempfile::tempdir().unwrap();
    let rows = [
        row("both", &json!({"root_cause": "rc", "description": "desc"})),
        row("desc", &json!({"description": "desc"})),
        row("none", &json!({})),
    ];
    let causes: Vec<String> =
        read(&write_jsonl(dir.path(), &rows)).records().into_iter().map(|r| r.root_cause).collect();
    assert_eq!(causes, ["rc", "desc", ""]);
}

#[test]
fn explicit_cause_fields() {
    let dir = tempfile::tempdir().unwrap();
    let rows = [
        row("a", &json!({"root_cause": "rc", "description": "desc", "why": "custom"})),
        row("b", &json!({"root_cause": "rc", "why": null})),
    ];
    let path = write_jsonl(dir.path(), &rows);
    let causes = |opts| read_with(&path, &opts).records().into_iter().map(|r| r.root_cause).collect::<Vec<_>>();
    assert_eq!(causes(cause("description")), ["desc", ""]);
    assert_eq!(causes(cause("why")), ["custom", ""]);
    assert_eq!(causes(cause("root_cause")), ["rc", "rc"]);
    let got = read_with(&write_jsonl(dir.path(), &[row("c", &json!({"why": 7}))]), &cause("why"));
    assert!(got.errors[0].ends_with(":1: field `why`: expected a string, found number"), "{:?}", got.errors);
}

#[test]
fn crlf_line_endings() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crlf.jsonl");
    let text: String = sample().iter().map(|o| format!("{o}\r\n")).collect();
    std::fs::write(&path, format!("{text}\r\n")).unwrap();
    let got = read(&path);
    assert!(got.errors.is_empty(), "{:?}", got.errors);
    assert_eq!(got.records(), sample_records());
}

#[test]
fn the_callback_error_stops_reading() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_jsonl(dir.path(), &sample());
    let mut seen = 0;
    let result = read_corpus(&path, None, &ReadOptions::default(), &mut |_| {
        seen += 1;
        Err(Error::File { path: "stop".into(), reason: "enough".into() })
    });
    assert_eq!(result.unwrap_err().to_string(), "stop: enough");
    assert_eq!(seen, 1);
}

/// The string column `name` of `objects`: objects become their JSON text, absent and
/// null values become nulls.
fn column(objects: &[Value], name: &str) -> Vec<Option<String>> {
    let cell = |o: &Value| match o.get(name) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(object @ Value::Object(_)) => Some(object.to_string()),
        _ => None,
    };
    objects.iter().map(cell).collect()
}

/// The named string columns of `objects` (`LargeUtf8` when `large`, else `Utf8`).
fn arrays(objects: &[Value], names: &[&str], large: bool) -> Vec<(String, ArrayRef)> {
    let array = |name: &&str| -> (String, ArrayRef) {
        let values = column(objects, name);
        let array: ArrayRef =
            if large { Arc::new(LargeStringArray::from(values)) } else { Arc::new(StringArray::from(values)) };
        (name.to_string(), array)
    };
    names.iter().map(array).collect()
}

/// One batch of `objects`, every named field a string column (`LargeUtf8` when `large`).
fn batch(objects: &[Value], names: &[&str], large: bool) -> RecordBatch {
    let nullable = arrays(objects, names, large).into_iter().map(|(name, array)| (name, array, true));
    RecordBatch::try_from_iter_with_nullable(nullable).unwrap()
}

const ALL_COLUMNS: [&str; 11] = [
    "id",
    "source",
    "project",
    "language",
    "buggy_code",
    "fixed_code",
    "root_cause",
    "description",
    "license",
    "meta",
    "diff",
];

fn write_parquet(path: &Path, batches: &[RecordBatch]) {
    let file = std::fs::File::create(path).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, batches[0].schema(), None).unwrap();
    batches.iter().for_each(|b| writer.write(b).unwrap());
    writer.close().unwrap();
}

fn write_ipc_file(path: &Path, batches: &[RecordBatch]) {
    let file = std::fs::File::create(path).unwrap();
    let mut writer = arrow_ipc::writer::FileWriter::try_new(file, &batches[0].schema()).unwrap();
    batches.iter().for_each(|b| writer.write(b).unwrap());
    writer.finish().unwrap();
}

fn write_ipc_stream(path: &Path, batches: &[RecordBatch]) {
    let file = std::fs::File::create(path).unwrap();
    let mut writer = arrow_ipc::writer::StreamWriter::try_new(file, &batches[0].schema()).unwrap();
    batches.iter().for_each(|b| writer.write(b).unwrap());
    writer.finish().unwrap();
}

#[test]
fn parquet_and_arrow_read_equal_to_jsonl() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = read(&write_jsonl(dir.path(), &sample()));
    let batches = [batch(&sample(), &ALL_COLUMNS, false)];
    let files = [
        ("c.parquet", write_parquet as fn(&Path, &[RecordBatch])),
        ("c.arrow", write_ipc_file),
        ("c.ipc", write_ipc_stream),
    ];
    for (name, write) in files {
        let path = dir.path().join(name);
        write(&path, &batches);
        let got = read(&path);
        assert!(got.errors.is_empty(), "{name}: {:?}", got.errors);
        assert_eq!(got.rows, jsonl.rows, "{name}");
    }
}

#[test]
fn arrow_with_large_utf8_columns() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("large.feather");
    write_ipc_file(&path, &[batch(&sample(), &ALL_COLUMNS, true)]);
    assert_eq!(read(&path).records(), sample_records());
}

#[test]
fn parquet_missing_the_id_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.parquet");
    write_parquet(&path, &[batch(&sample(), &ALL_COLUMNS[1..], false)]);
    let err = try_read(&path, None, &ReadOptions::default()).unwrap_err();
    assert!(matches!(err, Error::File { .. }), "{err:?}");
    let want = "missing required column `id`; the file has columns: source, project, language, buggy_code, \
                fixed_code, root_cause, description, license, meta, diff";
    assert_eq!(err.to_string(), format!("{}: {want}", path.display()));
}

#[test]
fn a_required_column_of_another_type_is_a_file_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.parquet");
    let mut columns = arrays(&sample(), &ALL_COLUMNS, false);
    columns[0].1 = Arc::new(arrow_array::Int64Array::from(vec![1, 2, 3]));
    write_parquet(&path, &[RecordBatch::try_from_iter(columns).unwrap()]);
    let err = try_read(&path, None, &ReadOptions::default()).unwrap_err().to_string();
    let want = "column `id` has type Int64; expected a string column (Utf8, LargeUtf8 or Utf8View)";
    assert_eq!(err, format!("{}: {want}", path.display()));
}

#[test]
fn null_in_a_required_column_names_the_row_across_batches() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = sample();
    rows[1].as_object_mut().unwrap().remove("fixed_code");
    let batches = [batch(&sample(), &ALL_COLUMNS, false), batch(&rows, &ALL_COLUMNS, false)];
    for (name, write) in [("c.parquet", write_parquet as fn(&Path, &[RecordBatch])), ("c.arrow", write_ipc_file)] {
        let path = dir.path().join(name);
        write(&path, &batches);
        let got = read(&path);
        assert_eq!(got.row_numbers(), [1, 2, 3, 4, 6], "{name}");
        assert_eq!(got.errors, [format!("{}:5: field `fixed_code`: expected a string, found null", path.display())]);
    }
}

#[test]
fn unknown_extension_is_a_file_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_lines(dir.path(), "c.csv", &["id,language".into()]);
    let err = try_read(&path, None, &ReadOptions::default()).unwrap_err();
    assert!(matches!(err, Error::File { .. }), "{err:?}");
    let want = "cannot tell the corpus format from the extension; known extensions: .jsonl .ndjson .json .parquet \
                .pq .arrow .ipc .feather; or pass --format jsonl|parquet|arrow";
    assert_eq!(err.to_string(), format!("{}: {want}", path.display()));
    let forced = try_read(&path, Some(Format::Jsonl), &ReadOptions::default()).unwrap();
    assert!(forced.errors[0].contains(":1: field `<json>`"), "{:?}", forced.errors);
}

#[test]
fn foreign_and_truncated_files_are_file_errors() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = write_jsonl(dir.path(), &sample());
    let parquet = dir.path().join("c.parquet");
    write_parquet(&parquet, &[batch(&sample(), &ALL_COLUMNS, false)]);
    let bytes = std::fs::read(&parquet).unwrap();
    let cases = [
        (jsonl.clone(), Format::Parquet, "not a readable Parquet file"),
        (jsonl, Format::Arrow, "not an Arrow IPC file (no ARROW1 magic) nor a readable IPC stream"),
        (dir.path().join("cut.parquet"), Format::Parquet, "not a readable Parquet file"),
    ];
    std::fs::write(&cases[2].0, &bytes[..bytes.len() / 2]).unwrap();
    for (path, format, want) in cases {
        let err = try_read(&path, Some(format), &ReadOptions::default()).unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(err, Error::File { .. }) && text.starts_with(&format!("{}: {want}", path.display())),
            "{text}"
        );
    }
    let missing = try_read(&dir.path().join("nope.jsonl"), None, &ReadOptions::default()).unwrap_err();
    assert!(matches!(missing, Error::Io { .. }), "{missing:?}");
}

/// `$FIXDEX_SHARED/data/<name>`; a relative `FIXDEX_SHARED` is taken from the workspace
/// root (where `.ci/run` runs) when it is not found from the package directory.
fn shared_file(name: &str) -> PathBuf {
    let dir = std::env::var_os("FIXDEX_SHARED")
        .map(PathBuf::from)
        .expect("set FIXDEX_SHARED=../shared to run the tests on shared data");
    let from_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(&dir);
    let dir = if dir.is_dir() { dir } else { from_root };
    let path = dir.join("data").join(name);
    assert!(
        path.is_file(),
        "{} is missing: FIXDEX_SHARED must name the shared folder holding data/{name}",
        path.display()
    );
    path
}

#[test]
fn shared_reads_defects4j_jsonl() {
    let got = read(&shared_file("defects4j.jsonl"));
    assert_eq!(got.errors, Vec::<String>::new());
    assert_eq!(got.rows.len(), 854);
    assert!(got.rows.iter().all(|(_, r)| r.language == "java"));
}

/// Also measures read throughput (printed; run with `--nocapture` to see it).
#[test]
fn shared_reads_mined_git_history_jsonl() {
    let path = shared_file("mined_git_history.jsonl");
    let bytes = std::fs::metadata(&path).unwrap().len() as f64;
    let t = Instant::now();
    let got = read(&path);
    let seconds = t.elapsed().as_secs_f64();
    println!(
        "read {} rows, {:.1} MB in {seconds:.3} s: {:.0} MB/s",
        got.rows.len(),
        bytes / 1e6,
        bytes / 1e6 / seconds
    );
    assert_eq!((got.rows.len(), got.errors.len()), (19_082, 0));
    let java = got.rows.iter().filter(|(_, r)| r.language == "java").count();
    assert_eq!(java, 11_555);
}
