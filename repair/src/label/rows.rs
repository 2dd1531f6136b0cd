//! [`Row`]: one corpus row with its top-level fields in file order; reading a corpus file
//! ([`read_rows`]) and writing the labelled one in place of the old ([`write_rows`]).

use std::fmt;
use std::io::Write as _;
use std::path::Path;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::LabelError;

/// The fields a row must have, as strings.
const REQUIRED: [&str; 2] = ["buggy_code", "fixed_code"];
/// Fields that may be missing or `null`, but are strings when given.
const OPTIONAL_STRINGS: [&str; 4] = ["id", "language", "description", "diff"];

/// One corpus row (the schema of `../shared/data/README.md`): its top-level fields in the
/// order of the file, values as parsed (nested objects such as `meta` come back with their
/// keys sorted). Rows read by [`read_rows`] have string `buggy_code` and `fixed_code`.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// 1-based line of the row in its file.
    pub line: usize,
    fields: Fields,
}

/// Top-level fields in order (a JSON object read without sorting its keys).
#[derive(Clone, Debug, PartialEq)]
struct Fields(Vec<(String, Value)>);

impl Row {
    /// Parses one JSONL line (`line` is its 1-based number) and checks the fields the
    /// labeller reads.
    ///
    /// # Errors
    /// `(field, message)`: the field at fault (`None` when the line is not a JSON object).
    pub fn parse(text: &str, line: usize) -> Result<Row, (Option<&'static str>, String)> {
        let fields: Fields = serde_json::from_str(text).map_err(|e| (None, format!("not a JSON object: {e}")))?;
        let row = Row { line, fields };
        for field in REQUIRED {
            match row.get(field) {
                Some(Value::String(_)) => {}
                Some(_) => return Err((Some(field), "is not a string".to_owned())),
                None => return Err((Some(field), "is missing".to_owned())),
            }
        }
        for field in OPTIONAL_STRINGS {
            if !matches!(row.get(field), None | Some(Value::String(_) | Value::Null)) {
                return Err((Some(field), "is not a string".to_owned()));
            }
        }
        if !matches!(row.get("meta"), None | Some(Value::Object(_) | Value::Null)) {
            return Err((Some("meta"), "is not an object".to_owned()));
        }
        Ok(row)
    }

    /// The value of field `name` (its last occurrence, as JSON parsers read duplicates).
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.fields.0.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// Field `name` as a string; `""` when missing, `null` or not a string.
    pub fn text(&self, name: &str) -> &str {
        self.get(name).and_then(Value::as_str).unwrap_or("")
    }

    /// The row's `id`, or `line N` when it has none.
    pub fn id(&self) -> String {
        match self.text("id") {
            "" => format!("line {}", self.line),
            id => id.to_owned(),
        }
    }

    /// The buggy method's name for messages: `meta.function` when it is a string, else the
    /// last `:`-separated part of an `id` that has a `:` when it starts like an identifier
    /// (a letter or `_`; `quixbugs:java:BITCOUNT` gives `BITCOUNT`, `manysstubs4j:0` none);
    /// for a `meta.granularity` `hunk` row without a function (`fixdex mine`'s changes
    /// outside methods), the file name of `meta.path`; `None` otherwise.
    pub fn method(&self) -> Option<String> {
        let meta = self.get("meta");
        let function = meta.and_then(|m| m.get("function")).and_then(Value::as_str);
        if function.is_none() && meta.and_then(|m| m.get("granularity")).and_then(Value::as_str) == Some("hunk") {
            // `fixdex mine`'s changes outside methods: name the file.
            let path = meta.and_then(|m| m.get("path")).and_then(Value::as_str);
            return path.map(|p| p.rsplit('/').next().unwrap_or(p).to_owned());
        }
        let identifier = |s: &&str| s.starts_with(|c: char| c.is_alphabetic() || c == '_');
        let from_id = || self.text("id").rsplit_once(':').map(|(_, last)| last).filter(identifier);
        function.or_else(from_id).map(str::to_owned)
    }

    /// The cache key of this row under `labeller` (a model name, or `mechanical`) and
    /// `prompt_version`: hex SHA-256 of the JSON array `[id, language, buggy_code,
    /// fixed_code, description, labeller, prompt_version]` (missing fields as `""`).
    pub fn key(&self, labeller: &str, prompt_version: &str) -> String {
        let parts = ["id", "language", "buggy_code", "fixed_code", "description"].map(|f| self.text(f));
        let all = [&parts[..], &[labeller, prompt_version]].concat();
        let json = serde_json::to_string(&all).expect("strings always serialize");
        hex::encode(Sha256::digest(json.as_bytes()))
    }

    /// Sets `root_cause` (in place when the row has one, else as the last field) and
    /// `meta.root_cause_source` to `source` (creating `meta` when missing or `null`).
    pub fn set_label(&mut self, root_cause: &str, source: &str) {
        self.set("root_cause", Value::String(root_cause.to_owned()));
        let mut meta = match self.get("meta") {
            Some(Value::Object(m)) => m.clone(),
            _ => Map::new(),
        };
        meta.insert("root_cause_source".to_owned(), Value::String(source.to_owned()));
        self.set("meta", Value::Object(meta));
    }

    /// Sets field `name` to `value`: at its first occurrence (later duplicates removed), or
    /// appended.
    fn set(&mut self, name: &str, value: Value) {
        let fields = &mut self.fields.0;
        match fields.iter().position(|(k, _)| k == name) {
            Some(at) => {
                fields[at].1 = value;
                let mut i = 0;
                fields.retain(|(k, _)| {
                    let keep = k != name || i == at;
                    i += 1;
                    keep
                });
            }
            None => fields.push((name.to_owned(), value)),
        }
    }

    /// The row as one JSONL line, fields in order (no trailing newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(&self.fields).expect("JSON values always serialize")
    }
}

impl<'de> Deserialize<'de> for Fields {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Ordered;
        impl<'de> Visitor<'de> for Ordered {
            type Value = Fields;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
                let mut fields = Vec::with_capacity(map.size_hint().unwrap_or(10));
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    fields.push(entry);
                }
                Ok(Fields(fields))
            }
        }
        d.deserialize_map(Ordered)
    }
}

impl Serialize for Fields {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Reads the corpus file at `path`: one [`Row`] per non-blank line, in file order.
///
/// # Errors
/// [`LabelError::Io`] when it cannot be read; [`LabelError::BadRow`] for the first line
/// that is not UTF-8 (the byte named, as `fixdex index` names it), is not a JSON object,
/// lacks `buggy_code` or `fixed_code`, or has a field of the wrong type (see
/// [`Row::parse`]). Lines end at `\n` or `\r\n`, as [`str::lines`] splits them; a byte-order
/// mark opening the file is skipped.
pub fn read_rows(path: &Path) -> Result<Vec<Row>, LabelError> {
    let bytes = std::fs::read(path).map_err(|source| LabelError::Io { path: path.to_owned(), source })?;
    if let Some(why) = engine::text::utf16_reason(&bytes) {
        return Err(LabelError::BadRow { path: path.to_owned(), line: 1, field: None, message: why });
    }
    // A byte-order mark opening the file is read past, as `fixdex index` reads JSONL.
    let bytes = engine::text::strip_bom_bytes(&bytes);
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let mut rows = Vec::new();
    for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let bad = |field, message| LabelError::BadRow { path: path.to_owned(), line: i + 1, field, message };
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let line =
            std::str::from_utf8(raw).map_err(|e| bad(None, engine::text::invalid_utf8_in_line(e.valid_up_to())))?;
        if line.trim().is_empty() {
            continue;
        }
        rows.push(Row::parse(line, i + 1).map_err(|(field, message)| bad(field, message))?);
    }
    Ok(rows)
}

/// Writes `rows` to `path` as JSONL through a temporary file in the same folder, synced and
/// then renamed over `path`: a run that fails leaves an existing `path` as it was.
///
/// # Errors
/// [`LabelError::Io`] when the temporary file cannot be created, written or renamed.
pub fn write_rows(path: &Path, rows: &[Row]) -> Result<(), LabelError> {
    let io = |source| LabelError::Io { path: path.to_owned(), source };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let tmp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    let mut out = std::io::BufWriter::new(tmp.as_file());
    for row in rows {
        out.write_all(row.to_line().as_bytes()).and_then(|()| out.write_all(b"\n")).map_err(io)?;
    }
    out.flush().map_err(io)?;
    drop(out);
    // The new file keeps an existing output's permissions; a new one gets 0644 (a
    // temporary file is created 0600).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map_or(0o644, |m| m.permissions().mode());
        tmp.as_file().set_permissions(std::fs::Permissions::from_mode(mode)).map_err(io)?;
    }
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_rows_keep_field_order_and_set_the_label() {
        let text = r#"{"id":"a:m","zeta":1,"buggy_code":"x","fixed_code":"y","root_cause":"old","alpha":[2]}"#;
        let mut row = Row::parse(text, 3).unwrap();
        row.set_label("new cause", "mechanical");
        assert_eq!(
            row.to_line(),
            r#"{"id":"a:m","zeta":1,"buggy_code":"x","fixed_code":"y","root_cause":"new cause","alpha":[2],"meta":{"root_cause_source":"mechanical"}}"#
        );
        assert_eq!(row.method().as_deref(), Some("m"));
    }

    #[test]
    fn label_rows_name_the_bad_field() {
        let bad = |t: &str| Row::parse(t, 1).unwrap_err();
        assert_eq!(bad(r#"{"fixed_code":"y"}"#), (Some("buggy_code"), "is missing".to_owned()));
        assert_eq!(bad(r#"{"buggy_code":"x","fixed_code":3}"#).0, Some("fixed_code"));
        assert_eq!(bad(r#"{"buggy_code":"x","fixed_code":"y","meta":[]}"#).0, Some("meta"));
        assert_eq!(bad(r#"["buggy_code"]"#).0, None);
        assert_eq!(bad("not json").0, None);
    }

    /// Bad UTF-8 is named by line and byte, as `fixdex index` names it; CRLF, blank lines and
    /// a byte-order mark read as `fixdex index` reads them.
    #[test]
    fn label_rows_name_the_line_of_bad_utf8() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.jsonl");
        let good = br#"{"buggy_code":"x","fixed_code":"y"}"#;
        let mut bytes = [&good[..], b"\r\n\n", &good[..], b"\n"].concat();
        std::fs::write(&path, &bytes).unwrap();
        let rows = read_rows(&path).unwrap();
        assert_eq!(rows.iter().map(|r| r.line).collect::<Vec<_>>(), [1, 3]);
        // A byte-order mark opening the file (Windows editors) is read past.
        std::fs::write(&path, [&b"\xef\xbb\xbf"[..], &bytes].concat()).unwrap();
        assert_eq!(read_rows(&path).unwrap().iter().map(|r| r.line).collect::<Vec<_>>(), [1, 3]);
        bytes.extend_from_slice(b"{\"buggy_code\":\"\xff\"}\n");
        std::fs::write(&path, &bytes).unwrap();
        match read_rows(&path).unwrap_err() {
            LabelError::BadRow { line, message, .. } => {
                assert_eq!((line, message.as_str()), (4, "invalid UTF-8 at byte 16 of the line"));
            }
            e => panic!("{e}"),
        }
    }

    #[test]
    fn label_keys_change_with_content_labeller_and_version() {
        let row = Row::parse(r#"{"id":"a","buggy_code":"x","fixed_code":"y"}"#, 1).unwrap();
        let other = Row::parse(r#"{"id":"a","buggy_code":"x","fixed_code":"z"}"#, 1).unwrap();
        let k = row.key("m", "v1");
        assert_eq!(k.len(), 64);
        assert_eq!(k, row.key("m", "v1"));
        assert_ne!(k, row.key("m2", "v1"));
        assert_ne!(k, row.key("m", "v2"));
        assert_ne!(k, other.key("m", "v1"));
    }
}
