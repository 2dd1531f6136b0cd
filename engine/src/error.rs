//! The engine's error type.

use std::path::PathBuf;

/// A specialized `Result` for engine operations.
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can go wrong in the engine.
///
/// Messages are written for the person at the terminal: they say what is wrong and, where
/// there is one, what to do about it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An I/O error, with the path it happened on.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The bytes are not a fixdex index (wrong magic).
    #[error("not a fixdex index (bad magic bytes); expected a file written by `fixdex index`")]
    NotAnIndex,
    /// The index was written by an unsupported format version.
    #[error("index format v{got}, this build reads v{oldest}..=v{current}; {}", version_remedy(*got, *current))]
    Version {
        /// Version found in the file.
        got: u32,
        /// Oldest version this build reads.
        oldest: u32,
        /// Newest version this build reads (and writes).
        current: u32,
    },
    /// The index is damaged: a checksum, length or bound does not hold.
    #[error("corrupt index: {0}; rebuild it with `fixdex index`")]
    Corrupt(String),
    /// The query's model differs from the model the index was built with.
    #[error(
        "model mismatch: the index was built with model {index} but the loaded model is {loaded}; \
         pass the index's model with --model (or FIXDEX_MODEL) or rebuild the index"
    )]
    ModelMismatch {
        /// Model identity recorded in the index (name and SHA-256 prefix).
        index: String,
        /// Identity of the model that was loaded.
        loaded: String,
    },
    /// A vector has the wrong number of dimensions.
    #[error("dimension mismatch: expected {expected} floats per vector, got {got}")]
    DimensionMismatch {
        /// Dimensions the index or model expects.
        expected: usize,
        /// Dimensions given.
        got: usize,
    },
    /// A vector contains NaN or infinity, or has zero norm.
    #[error("vector {row} is not finite or has zero norm; embeddings must be finite unit vectors")]
    BadVector {
        /// Row of the offending vector.
        row: usize,
    },
    /// A named vector space is not in the index.
    #[error(
        "the index has no vector space `{name}`; it has: {available} (build it with `fixdex index --spaces`, e.g. `--spaces code+cause,code,cause`)"
    )]
    NoSuchSpace {
        /// The requested space.
        name: String,
        /// Comma-separated list of the spaces the index has.
        available: String,
    },
    /// A space name is not one fixdex knows.
    #[error("unknown vector space `{0}`; known spaces: code+cause, code, cause")]
    UnknownSpace(String),
    /// A search or build parameter is out of range.
    #[error("invalid parameter {name}: {reason}")]
    InvalidParameter {
        /// The parameter (as the CLI spells it, e.g. `-k`, `--threshold`).
        name: &'static str,
        /// Why it was refused.
        reason: String,
    },
    /// The model folder is missing files or has an unsupported configuration.
    #[error("model {path}: {reason}")]
    Model {
        /// The model folder.
        path: PathBuf,
        /// What is wrong, and how to fix it.
        reason: String,
    },
    /// An error from the candle tensor library during inference.
    #[error("inference failed: {0}")]
    Candle(#[from] candle_core::Error),
    /// An error from the tokenizer.
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    /// An error from Arrow while reading or writing the document store.
    #[error("document store: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    /// The segments of a manifest were not built alike.
    #[error("segment {segment} differs from segment 0 in {what}; all segments must be built alike")]
    SegmentMismatch {
        /// Position of the offending segment.
        segment: usize,
        /// `model`, `dimension`, `spaces` or `embedding rule (cause_max_tokens)`.
        what: &'static str,
    },
    /// The index has no documents to build from.
    #[error("nothing to index: the corpus has no valid records")]
    Empty,
    /// An output file cannot be created at the path given (found by
    /// [`crate::output::check`] before any work, or when writing).
    #[error("cannot write {}: {reason}", path.display())]
    Output {
        /// The output path as given.
        path: PathBuf,
        /// What is wrong: a missing folder, a path that is a folder or a device, an input of
        /// the command, no permission, a lock another run holds.
        reason: String,
    },
    /// A query field the space needs is empty once whitespace and invisible characters
    /// are removed (see [`crate::text::is_blank`]).
    #[error(
        "empty query: the {space} space needs {what}, but the {what} given is empty or only whitespace, \
         control, zero-width or combining characters{hint}",
        hint = empty_query_hint(.space)
    )]
    EmptyQuery {
        /// The space searched.
        space: crate::Space,
        /// `code` or `root cause`.
        what: &'static str,
    },
    /// A stored vector gave a similarity that no unit vector can give (not finite, or
    /// outside [-1, 1] beyond rounding): the file was damaged after it was written.
    #[error(
        "damaged index{file}: {space} vector {row} gives similarity {score}, which no unit vector can; \
         run `fixdex verify` on it and rebuild it with `fixdex index`",
        file = .path.as_ref().map(|p| format!(" {}", p.display())).unwrap_or_default()
    )]
    DamagedVector {
        /// The index file, when the index was opened from one.
        path: Option<PathBuf>,
        /// The space searched.
        space: crate::Space,
        /// Document row of the vector.
        row: u32,
        /// The similarity it gave.
        score: f32,
    },
    /// A part of the index a search read is damaged (a graph's neighbour list out of range,
    /// a per-document table whose checksum fails): the answer would silently lack hits, so
    /// none is given.
    #[error(
        "damaged index{file}: {what}; run `fixdex verify` on it and rebuild it with `fixdex index`",
        file = .path.as_ref().map(|p| format!(" {}", p.display())).unwrap_or_default()
    )]
    DamagedIndex {
        /// The index file, when the index was opened from one.
        path: Option<PathBuf>,
        /// What is damaged.
        what: String,
    },
    /// The index composed its text with a rule this build does not know, so a query
    /// cannot be embedded the way its documents were.
    #[error(
        "the index embeds text with rule `{rule}`, which this build does not know (it knows {known}); \
         rebuild the index with `fixdex index`"
    )]
    UnknownRule {
        /// The rule recorded in the index.
        rule: String,
        /// The rules this build implements, comma-separated.
        known: &'static str,
    },
    /// A benchmark input ([`crate::bench`]: TEXMEX `.fvecs`/`.ivecs`, NumPy `.npy`) whose
    /// bytes are not in its format, or that does not fit what it is compared with.
    #[error("{reason}")]
    BenchInput {
        /// What is wrong, e.g. `not an .ivecs file`.
        reason: String,
    },
    /// A filter that keeps only some documents (`--project`, `--lang`) names a value that
    /// no document has, so it would silently return nothing; or an id to keep out
    /// (`repair --bug-id`) that no record has though one has it in another form, so it would
    /// silently keep nothing out.
    #[error("{flag} `{value}` matches no {what} in the index{}", suggest(.suggestions, *.all))]
    NoMatch {
        /// The flag, as the CLI spells it.
        flag: &'static str,
        /// The value given.
        value: String,
        /// `project`, `language` or `record id`.
        what: &'static str,
        /// The closest names the index has, best first (may be empty); when `all` is not 0,
        /// none is close and these are the first names it has in sorted order.
        suggestions: Vec<String>,
        /// 0 when `suggestions` are close names; otherwise how many names the index has
        /// (`suggestions` all of them, or the first [`crate::projects::LIST_ALL`];
        /// [`crate::projects::closest_or_all`]).
        all: usize,
    },
}

/// Where a query that has a root cause but no code can go instead.
fn empty_query_hint(space: &crate::Space) -> &'static str {
    match space {
        crate::Space::Cause => "",
        _ => " (to search by root cause alone, use space `cause`)",
    }
}

/// What to do about an index of format `got` when this build reads up to `current`: an
/// older file is rebuilt with this release or a later one, a newer file needs a newer fixdex.
fn version_remedy(got: u32, current: u32) -> String {
    let release = crate::format::FIRST_RELEASE_OF_FORMAT;
    if got < current {
        format!("rebuild the index with fixdex ≥ {release} (`fixdex index`; format v{current} adds repair actions)")
    } else {
        "it was written by a newer fixdex: upgrade fixdex, or rebuild the index with this one (`fixdex index`)"
            .to_string()
    }
}

fn suggest(names: &[String], all: usize) -> String {
    if names.is_empty() {
        return String::new();
    }
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match all {
        0 => format!("; did you mean {}?", quoted.join(", ")),
        n if n <= names.len() => format!("; it has {}", quoted.join(", ")),
        n => format!("; none is close: it has {n}, the first in order {}, …", quoted.join(", ")),
    }
}

impl Error {
    /// Wraps an I/O error with the path it happened on.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io { path: path.into(), source }
    }

    /// Builds an [`Error::Output`] for `path` from anything printable.
    pub fn output(path: impl Into<PathBuf>, reason: impl Into<String>) -> Error {
        Error::Output { path: path.into(), reason: reason.into() }
    }

    /// Builds an [`Error::Corrupt`] from anything printable.
    pub fn corrupt(msg: impl Into<String>) -> Error {
        Error::Corrupt(msg.into())
    }

    /// The [`Error::Corrupt`] of a 0-byte file where an index or manifest was expected (a
    /// copy or download cut short), said as such rather than as a stranger's file.
    pub(crate) fn empty_file() -> Error {
        Error::corrupt("the file is empty (0 bytes)")
    }
}
