//! The JSON Lines reader: one JSON object per line.
//!
//! Lines are read as bytes, so a line with invalid UTF-8 is one bad row rather than the end
//! of the file. Each line is parsed in one pass straight into the slots of a [`RawRow`]:
//! unknown fields (such as the large `diff`) are skipped without allocating, and strings are
//! copied once.

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::RowResult;
use super::fields::{Bad, Field, Raw, RawRow, Rules};
use crate::{Error, Result};

/// Read buffer size, in bytes.
const BUFFER_BYTES: usize = 1 << 20;

/// The field name of errors about a line's bytes.
const LINE_FIELD: &str = "<line>";

/// The field name of errors about a line's JSON syntax.
const JSON_FIELD: &str = "<json>";

/// Reads the JSONL file at `path`, passing each non-blank line to `f` (see
/// [`read_corpus`](super::read_corpus)).
pub(crate) fn read(path: &Path, rules: &Rules, f: &mut dyn FnMut(RowResult) -> Result<()>) -> Result<()> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    read_lines(BufReader::with_capacity(BUFFER_BYTES, file), path, rules, f)
}

/// Reads JSONL from `reader`; `path` only names the source in errors. Row numbers are
/// 1-based line numbers, blank lines included.
///
/// # Errors
/// A UTF-16 file ([`engine::text::utf16_reason`]) is an error of the whole file (row 1),
/// whatever `f` does with bad rows: skipping every row of it would only build an empty
/// index. Else `f`'s errors and read errors.
pub(crate) fn read_lines(
    mut reader: impl BufRead,
    path: &Path,
    rules: &Rules,
    f: &mut dyn FnMut(RowResult) -> Result<()>,
) -> Result<()> {
    if let Some(why) = engine::text::utf16_reason(reader.fill_buf().map_err(|e| Error::io(path, e))?) {
        return Err(Bad::new(LINE_FIELD, why).at(path, 1));
    }
    let mut buf = Vec::new();
    let mut line = 0u64;
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf).map_err(|e| Error::io(path, e))? == 0 {
            return Ok(());
        }
        line += 1;
        if let Some(result) = parse_line(&buf, line == 1, rules) {
            f(result.map(|record| (line, record)).map_err(|bad| bad.at(path, line)))?;
        }
    }
}

/// Parses one line (with its line ending); `None` for a blank line. A UTF-8 byte-order mark
/// is dropped from the `first` line.
fn parse_line(bytes: &[u8], first: bool, rules: &Rules) -> Option<std::result::Result<engine::Record, Bad>> {
    let text = match std::str::from_utf8(trim_line_ending(bytes)) {
        Ok(text) => text,
        Err(e) => return Some(Err(invalid_utf8(&e))),
    };
    let text = if first { engine::text::strip_bom(text) } else { text };
    if text.trim().is_empty() {
        return None;
    }
    Some(parse_object(text, rules).and_then(|row| rules.record(row)))
}

/// `bytes` without a trailing `\n` or `\r\n`.
fn trim_line_ending(bytes: &[u8]) -> &[u8] {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    bytes.strip_suffix(b"\r").unwrap_or(bytes)
}

/// The row error for a line that is not UTF-8; the byte position is 1-based.
fn invalid_utf8(e: &std::str::Utf8Error) -> Bad {
    Bad::new(LINE_FIELD, engine::text::invalid_utf8_in_line(e.valid_up_to()))
}

/// Parses a line that must hold exactly one JSON object.
fn parse_object(text: &str, rules: &Rules) -> std::result::Result<RawRow, Bad> {
    let mut de = serde_json::Deserializer::from_str(text);
    let row = de.deserialize_map(RowVisitor(rules)).and_then(|row| de.end().map(|()| row));
    row.map_err(|e| Bad::new(JSON_FIELD, json_reason(&e)))
}

/// serde's message with the position as a 1-based column: every line is "line 1" to
/// serde, and serde says "column 0" for an error before the first character. A syntax
/// error (serde's "expected ident", "trailing characters") starts "not valid JSON: ", so
/// that a line that is not JSON at all says so.
fn json_reason(e: &serde_json::Error) -> String {
    let message = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    let message = match message.strip_suffix(&position) {
        Some(bare) => format!("{bare} at column {}", e.column().max(1)),
        None => message,
    };
    match e.classify() {
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof => format!("not valid JSON: {message}"),
        _ => message,
    }
}

/// Visits the top-level object, filling the slots that the [`Rules`] want.
struct RowVisitor<'r>(&'r Rules);

impl<'de> Visitor<'de> for RowVisitor<'_> {
    type Value = RawRow;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object (one record per line)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<RawRow, A::Error> {
        let mut row = RawRow::default();
        while let Some(slot) = map.next_key_seed(KeySeed(self.0))? {
            match slot {
                Some(Field::Meta) => row.set(Field::Meta, map.next_value::<MetaValue>()?.0),
                Some(field) => row.set(field, map.next_value::<JsonRaw>()?.0),
                None => map.next_value::<IgnoredAny>().map(drop)?,
            }
        }
        Ok(row)
    }
}

/// Maps an object key to the slot it fills (`None`: a field nobody wants), without
/// allocating.
struct KeySeed<'r>(&'r Rules);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Option<Field>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> std::result::Result<Option<Field>, D::Error> {
        de.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Option<Field>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> std::result::Result<Option<Field>, E> {
        Ok(self.0.slot(key))
    }
}

/// A field value of any JSON type, as a [`Raw`]; values of other types than string are
/// skipped and only their type is kept.
struct JsonRaw(Raw);

impl<'de> de::Deserialize<'de> for JsonRaw {
    fn deserialize<D: Deserializer<'de>>(de: D) -> std::result::Result<JsonRaw, D::Error> {
        de.deserialize_any(RawVisitor).map(JsonRaw)
    }
}

/// Builds a [`Raw`] from whatever JSON value comes.
struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Raw, E> {
        Ok(Raw::Str(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<Raw, E> {
        Ok(Raw::Str(v))
    }

    fn visit_unit<E: de::Error>(self) -> std::result::Result<Raw, E> {
        Ok(Raw::Null)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> std::result::Result<Raw, E> {
        Ok(Raw::Other("boolean"))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> std::result::Result<Raw, E> {
        Ok(Raw::Other("number"))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> std::result::Result<Raw, E> {
        Ok(Raw::Other("number"))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> std::result::Result<Raw, E> {
        Ok(Raw::Other("number"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Raw, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Raw::Other("array"))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Raw, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Raw::Other("object"))
    }
}

/// The `meta` value: an object becomes its compact JSON text in [`Raw::Str`]; a value of
/// any other type (a string included) is refused by the rules as not an object.
struct MetaValue(Raw);

impl<'de> de::Deserialize<'de> for MetaValue {
    fn deserialize<D: Deserializer<'de>>(de: D) -> std::result::Result<MetaValue, D::Error> {
        let raw = match serde_json::Value::deserialize(de)? {
            serde_json::Value::Object(map) => Raw::Str(serde_json::Value::Object(map).to_string()),
            serde_json::Value::Null => Raw::Null,
            other => Raw::Other(json_type(&other)),
        };
        Ok(MetaValue(raw))
    }
}

/// The JSON type name of `value`, as row errors spell it.
fn json_type(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::ReadOptions;

    /// Reads `text` as JSONL with default options; errors as their messages.
    fn read_str(text: &[u8]) -> Vec<std::result::Result<(u64, engine::Record), String>> {
        let mut rows = Vec::new();
        let rules = Rules::new(&ReadOptions::default());
        read_lines(text, Path::new("t.jsonl"), &rules, &mut |r| {
            rows.push(r.map_err(|e| e.to_string()));
            Ok(())
        })
        .unwrap();
        rows
    }

    const OK: &str = r#"{"id":"a","language":"Java","buggy_code":"x","fixed_code":"y"}"#;

    #[test]
    fn blank_lines_count_but_are_skipped() {
        let text = format!("\n  \t\n{OK}\n\n{OK}");
        let rows: Vec<u64> = read_str(text.as_bytes()).into_iter().map(|r| r.unwrap().0).collect();
        assert_eq!(rows, [3, 5]);
    }

    #[test]
    fn crlf_and_bom_are_stripped() {
        let text = format!("\u{feff}{OK}\r\n{OK}\r\n");
        let rows = read_str(text.as_bytes());
        assert_eq!(rows.len(), 2);
        assert!(rows.iter().all(|r| r.as_ref().unwrap().1.fixed_code == "y"));
    }

    #[test]
    fn bad_bytes_are_one_bad_row() {
        let mut text = b"{\"id\":\"\xff\"}".to_vec();
        text.extend_from_slice(format!("\n{OK}\n").as_bytes());
        let rows = read_str(&text);
        assert_eq!(rows[0], Err("t.jsonl:1: field `<line>`: invalid UTF-8 at byte 8 of the line".into()));
        assert_eq!(rows[1].as_ref().unwrap().0, 2);
        // A UTF-16 corpus (with its byte-order mark or without) is an error of the whole
        // file, even where bad rows are skipped: no row reaches the caller.
        for mark in [&[0xFF, 0xFE][..], &[]] {
            let utf16: Vec<u8> = mark.iter().copied().chain(format!("{OK}\n").bytes().flat_map(|b| [b, 0])).collect();
            let rules = Rules::new(&ReadOptions::default());
            let mut rows = 0;
            let err = read_lines(&utf16[..], Path::new("t.jsonl"), &rules, &mut |_| {
                rows += 1;
                Ok(())
            })
            .unwrap_err()
            .to_string();
            assert!(err.starts_with("t.jsonl:1: field `<line>`: the file is UTF-16 (little-endian"), "{err}");
            assert_eq!(rows, 0);
        }
    }

    #[test]
    fn json_errors_name_the_column() {
        let rows = read_str(b"{\"id\": }\n[1]\n{} x\n");
        let want = [
            "t.jsonl:1: field `<json>`: not valid JSON: expected value at column 8",
            "t.jsonl:2: field `<json>`: invalid type: sequence, expected a JSON object (one record per line) at column 1",
            "t.jsonl:3: field `<json>`: not valid JSON: trailing characters at column 4",
        ];
        let got: Vec<String> = rows.into_iter().map(|r| r.unwrap_err()).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn types_are_reported_and_unknown_fields_skipped() {
        let line = r#"{"id":"a","language":"py","buggy_code":[1,{"x":2}],"fixed_code":"","diff":{"a":[1]}}"#;
        let rows = read_str(line.as_bytes());
        assert_eq!(rows[0], Err("t.jsonl:1: field `buggy_code`: expected a string, found array".into()));
    }

    #[test]
    fn escapes_are_decoded_and_meta_is_compact() {
        let line = r#"{"id":"a","language":"py","buggy_code":"a\n\"b\"","fixed_code":"","meta": {"k" : [1, 2]}}"#;
        let record = read_str(line.as_bytes()).remove(0).unwrap().1;
        assert_eq!(record.buggy_code, "a\n\"b\"");
        assert_eq!(record.meta, r#"{"k":[1,2]}"#);
    }
}
