//! Corpus readers: bug-fix pairs from JSON Lines, Parquet or Arrow IPC files, validated
//! into [`engine::Record`]s.
//!
//! [`read_corpus`] streams a file row by row. A bad row is handed to the caller as an
//! [`Error::Row`] naming the file, the 1-based row and the field, so the caller decides
//! whether to skip it or abort; a problem with the whole file is returned by `read_corpus`.
//!
//! # Schema
//!
//! The same rules hold in every format (they live in `fields.rs`). The field names are those
//! of `../shared/data/README.md`; other fields (such as `diff`) are ignored.
//!
//! | field | required | type | stored as |
//! | --- | --- | --- | --- |
//! | `id` | yes | string, not blank | as is |
//! | `language` | yes | string, not blank | trimmed, lower case |
//! | `buggy_code` | yes | string, not blank | as is |
//! | `fixed_code` | yes | string (may be empty: a deletion fix); not equal to `buggy_code` | as is |
//! | `source` | no | string | as is; `""` when missing |
//! | `project` | no | string | as is; `unknown` when missing or blank |
//! | `description` | no | string | as is; `""` when missing |
//! | `license` | no | string | as is; `""` when missing |
//! | `meta` | no | JSONL: object; Parquet/Arrow: string (other types ignored) | compact JSON text; `""` when missing |
//! | `root_cause` | no | string | see below |
//!
//! The repair-action columns of the index (`action_label`, `action_reason`, `actions`) are
//! computed by the build from `buggy_code` and `fixed_code` ([`crate::classify`]), never read:
//! fields of those names in a corpus are ignored like any other unknown field, so an index
//! always holds the labels of the classifier that built it.
//! "Blank" means empty once whitespace and invisible characters are removed: Unicode
//! categories Cc (control), Cf (format, e.g. the zero-width space U+200B or U+FEFF), Mn and
//! Me (combining marks), which embed exactly like an empty string. A row whose
//! `fixed_code` equals its `buggy_code`, byte for byte or but for line endings and trailing
//! whitespace, is a no-op fix and a row error on `fixed_code` (it would come back as a
//! perfect match with an empty diff). A JSON `null` or an Arrow null counts as missing
//! for optional fields and is an error for required ones. A value of the wrong type (a
//! number where a string belongs) is a row error saying what was expected and what was
//! found. Strings are never trimmed or truncated: code passes through byte for byte, however
//! long (the embedding step truncates by its own documented rule).
//!
//! The stored `root_cause` is chosen by [`ReadOptions::cause_field`]:
//! - `None` (auto): `root_cause` when present and not blank, else `description`, else `""`;
//! - `Some(name)`: the string in field `name` (a known field such as `description`, or any
//!   other), `""` when it is missing or null.
//!
//! # Formats
//!
//! | format | extensions | rows are numbered by |
//! | --- | --- | --- |
//! | [`Format::Jsonl`]: one JSON object per line, UTF-8 | `.jsonl`, `.ndjson`, `.json` | line (blank lines are skipped but counted) |
//! | [`Format::Parquet`] | `.parquet`, `.pq` | row across all row groups and batches |
//! | [`Format::Arrow`]: Arrow IPC file, or IPC stream | `.arrow`, `.ipc`, `.feather` | row across all batches |
//!
//! JSONL lines may end in `\r\n`; a line that is not UTF-8 or not a JSON object is a row
//! error (field `<line>` or `<json>`), and reading goes on with the next line. Parquet and
//! Arrow columns may be `Utf8`, `LargeUtf8`, `Utf8View` or a dictionary of those; a required
//! column that is missing or of another type is a file error.
//!
//! ```
//! use indexer::corpus::{ReadOptions, read_corpus};
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("bugs.jsonl");
//! std::fs::write(&path, concat!(
//!     r#"{"id": "a:1", "language": "Java", "buggy_code": "x = 1;", "fixed_code": "x = 2;"}"#, "\n",
//!     r#"{"id": "a:2", "language": "java", "buggy_code": 42, "fixed_code": ""}"#, "\n",
//! ))?;
//! let (mut records, mut errors) = (Vec::new(), Vec::new());
//! read_corpus(&path, None, &ReadOptions::default(), &mut |row| {
//!     match row {
//!         Ok((_, record)) => records.push(record),
//!         Err(e) => errors.push(e.to_string()),
//!     }
//!     Ok(())
//! })?;
//! assert_eq!(records[0].language, "java");
//! assert!(errors[0].ends_with("bugs.jsonl:2: field `buggy_code`: expected a string, found number"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod arrow;
mod fields;
mod jsonl;

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use crate::{Error, Result};

/// A corpus file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// JSON Lines: one JSON object per line.
    Jsonl,
    /// Apache Parquet.
    Parquet,
    /// Arrow IPC, file format (`ARROW1` magic) or stream format.
    Arrow,
}

/// Extensions (lower case, without the dot) and the format they imply.
const EXTENSIONS: [(&str, Format); 8] = [
    ("jsonl", Format::Jsonl),
    ("ndjson", Format::Jsonl),
    ("json", Format::Jsonl),
    ("parquet", Format::Parquet),
    ("pq", Format::Parquet),
    ("arrow", Format::Arrow),
    ("ipc", Format::Arrow),
    ("feather", Format::Arrow),
];

impl Format {
    /// Every format, in the order the CLI lists them.
    pub const ALL: [Format; 3] = [Format::Jsonl, Format::Parquet, Format::Arrow];

    /// Detects the format from the extension of `path` (case-insensitive): `.jsonl`,
    /// `.ndjson`, `.json` → JSONL; `.parquet`, `.pq` → Parquet; `.arrow`, `.ipc`,
    /// `.feather` → Arrow IPC. O(1): the file is not opened.
    ///
    /// # Errors
    /// [`Error::File`] for any other extension, listing the known ones, or for a folder
    /// (checked first: a corpus is a file).
    pub fn detect(path: &Path) -> Result<Format> {
        if path.is_dir() {
            return Err(Error::file(path, "is a folder, not a corpus file (JSONL, Parquet or Arrow)".to_string()));
        }
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
        let found = EXTENSIONS.iter().find(|(known, _)| *known == ext).map(|&(_, format)| format);
        found.ok_or_else(|| {
            let known: Vec<String> = EXTENSIONS.iter().map(|(e, _)| format!(".{e}")).collect();
            let reason = format!(
                "cannot tell the corpus format from the extension; known extensions: {}; \
                 or pass --format jsonl|parquet|arrow",
                known.join(" ")
            );
            Error::file(path, reason)
        })
    }

    /// The format's name, as [`FromStr`] and `--format` take it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Jsonl => "jsonl",
            Format::Parquet => "parquet",
            Format::Arrow => "arrow",
        }
    }
}

impl FromStr for Format {
    type Err = Error;

    /// Parses `jsonl`, `parquet` or `arrow` (case-insensitive).
    ///
    /// # Errors
    /// [`Error::UnknownFormat`] for any other name.
    fn from_str(name: &str) -> Result<Format> {
        let found = Format::ALL.into_iter().find(|f| f.name().eq_ignore_ascii_case(name));
        found.ok_or_else(|| Error::UnknownFormat { name: name.to_string() })
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How to read a corpus.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// The field the root cause is taken from (`--cause-field`). `None` is "auto":
    /// `root_cause` when present and not blank, else `description`. `Some(name)` takes
    /// field `name` (missing or null → `""`; another type → a row error).
    pub cause_field: Option<String>,
}

/// One row read from a corpus: the 1-based row number and a valid record, or an
/// [`Error::Row`] naming the file, row and field of a bad row.
pub type RowResult = Result<(u64, engine::Record)>;

/// Streams the rows of the corpus file at `path`, calling `f` for each in file order.
///
/// `format: None` detects the format with [`Format::detect`]. Row numbers are 1-based:
/// the line number in JSONL, the row number across all batches in Parquet and Arrow IPC.
/// Memory use is one line (JSONL) or one batch of 1,024 rows (Parquet), not the file.
///
/// # Errors
/// Row-level problems go to `f` as [`Error::Row`], and reading goes on. `read_corpus`
/// itself returns [`Error::Io`] when the file cannot be opened or read, [`Error::File`]
/// for an unknown extension, a file that is not Parquet/Arrow, a missing required column,
/// a required column that is not a string column or a truncated file, and the first error
/// `f` returns (which stops reading).
pub fn read_corpus(
    path: &Path,
    format: Option<Format>,
    opts: &ReadOptions,
    f: &mut dyn FnMut(RowResult) -> Result<()>,
) -> Result<()> {
    let format = match format {
        Some(format) => format,
        None => Format::detect(path)?,
    };
    tracing::debug!(path = %path.display(), %format, cause_field = ?opts.cause_field, "reading corpus");
    let rules = fields::Rules::new(opts);
    match format {
        Format::Jsonl => jsonl::read(path, &rules, f),
        Format::Parquet => arrow::read_parquet(path, &rules, f),
        Format::Arrow => arrow::read_ipc(path, &rules, f),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_by_extension() {
        let cases = [
            ("a.jsonl", Format::Jsonl),
            ("a.NDJSON", Format::Jsonl),
            ("a.json", Format::Jsonl),
            ("dir.v2/a.parquet", Format::Parquet),
            ("a.pq", Format::Parquet),
            ("a.arrow", Format::Arrow),
            ("a.ipc", Format::Arrow),
            ("a.feather", Format::Arrow),
        ];
        for (path, want) in cases {
            assert_eq!(Format::detect(Path::new(path)).unwrap(), want, "{path}");
        }
    }

    #[test]
    fn unknown_extension_lists_the_known_ones() {
        let err = Format::detect(Path::new("data/c.csv")).unwrap_err().to_string();
        assert!(err.starts_with("data/c.csv: cannot tell the corpus format"), "{err}");
        assert!(err.contains(".jsonl .ndjson .json .parquet .pq .arrow .ipc .feather"), "{err}");
        assert!(err.ends_with("or pass --format jsonl|parquet|arrow"), "{err}");
        assert!(Format::detect(Path::new("noext")).is_err());
        let err = Format::detect(&std::env::temp_dir()).unwrap_err().to_string();
        assert!(err.contains("is a folder, not a corpus file"), "{err}");
    }

    #[test]
    fn parse_and_display_round_trip() {
        for format in Format::ALL {
            assert_eq!(format.to_string().parse::<Format>().unwrap(), format);
        }
        assert_eq!("Parquet".parse::<Format>().unwrap(), Format::Parquet);
        let err = "csv".parse::<Format>().unwrap_err().to_string();
        assert_eq!(err, "unknown corpus format `csv`; known formats: jsonl, parquet, arrow");
    }
}
