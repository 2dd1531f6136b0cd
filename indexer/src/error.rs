//! The indexer's error type.

use std::path::PathBuf;

/// A specialized `Result` for indexer operations.
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can go wrong while reading a corpus or building an index.
///
/// Corpus errors always name the file; row errors also name the 1-based row and the field,
/// so a message reads like `corpus.jsonl:17: field `buggy_code`: expected a string, found number`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A bad record. The caller decides whether to skip it or abort.
    #[error("{}:{row}: field `{field}`: {reason}", path.display())]
    Row {
        /// The corpus file.
        path: PathBuf,
        /// 1-based row: the line number in JSONL, the row number across all batches in
        /// Parquet and Arrow IPC.
        row: u64,
        /// The offending field, or `<json>` (malformed JSON) / `<line>` (bad bytes) in JSONL.
        field: String,
        /// What is wrong, in words (`expected a string, found number`).
        reason: String,
    },
    /// An I/O error, with the path it happened on.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A problem with the whole file: not a Parquet file, a missing required column, a
    /// column of an unsupported type, an unknown extension, a truncated file.
    #[error("{}: {reason}", path.display())]
    File {
        /// The file involved.
        path: PathBuf,
        /// What is wrong and, where there is one, what to do about it.
        reason: String,
    },
    /// A corpus format name (`--format`) that is not one of `jsonl`, `parquet`, `arrow`.
    #[error("unknown corpus format `{name}`; known formats: jsonl, parquet, arrow")]
    UnknownFormat {
        /// The name as given.
        name: String,
    },
    /// No record survived reading, validation, exclusions and dedup.
    #[error(
        "no valid records to index in {}: {}; check the inputs{}",
        inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
        if *rows == 0 {
            "the input holds no row".to_string()
        } else if skipped == rows {
            format!("{rows} rows read, every one skipped as invalid")
        } else {
            format!("{rows} rows read, {skipped} skipped as invalid, the rest excluded or duplicates")
        },
        report.as_ref().map(|r| format!(" and the build report {}", r.display())).unwrap_or_default()
    )]
    Empty {
        /// The corpus files that were read.
        inputs: Vec<PathBuf>,
        /// The build report listing the rows that were dropped, when one was written.
        report: Option<PathBuf>,
        /// Rows read, valid or not.
        rows: u64,
        /// Rows skipped because they failed validation.
        skipped: u64,
    },
    /// A malformed or unresolvable `--shard` specification.
    #[error("--shard {spec}: {reason}")]
    Shard {
        /// The specification as given.
        spec: String,
        /// What is wrong.
        reason: String,
    },
    /// An error from the engine (embedding, index building, index writing).
    #[error(transparent)]
    Engine(#[from] engine::Error),
}

impl Error {
    /// Wraps an I/O error with the path it happened on.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io { path: path.into(), source }
    }

    /// Builds an [`Error::File`] for `path` from anything printable.
    pub fn file(path: impl Into<PathBuf>, reason: impl Into<String>) -> Error {
        Error::File { path: path.into(), reason: reason.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_error_names_file_row_and_field() {
        let e = Error::Row {
            path: "data/c.jsonl".into(),
            row: 17,
            field: "buggy_code".into(),
            reason: "expected a string, found number".into(),
        };
        assert_eq!(e.to_string(), "data/c.jsonl:17: field `buggy_code`: expected a string, found number");
    }

    #[test]
    fn file_error_names_file() {
        assert_eq!(Error::file("x.pq", "not a Parquet file").to_string(), "x.pq: not a Parquet file");
    }
}
