//! Why a patch was refused, in words meant for the model that wrote it.

use std::fmt::{self, Write as _};
use std::path::PathBuf;

/// A refused patch. Nothing was written when this is returned.
///
/// `Display` is one line; [`PatchError::feedback`] is the longer explanation to send back
/// to the model.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PatchError {
    /// The answer holds neither a unified-diff hunk nor a SEARCH/REPLACE block.
    #[error("the answer contains no unified diff hunk and no SEARCH/REPLACE block")]
    Empty,
    /// The patch text cannot be read; `line` is 1-based in the answer.
    #[error("malformed patch at line {line} of the answer: {reason}")]
    Malformed {
        /// 1-based line of the answer.
        line: usize,
        /// What is wrong there.
        reason: String,
    },
    /// A path that is absolute, has a `..` component, or leaves the root through a symlink.
    #[error("path `{}` refused: {reason}", path.display())]
    PathRefused {
        /// The path as the patch wrote it.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The patch edits a file that does not exist.
    #[error("`{}` does not exist in the project", path.display())]
    FileMissing {
        /// Path relative to the root.
        path: PathBuf,
    },
    /// The patch creates a file that exists and is not empty.
    #[error("`{}` already exists; the patch creates it (--- /dev/null or an empty SEARCH)", path.display())]
    FileExists {
        /// Path relative to the root.
        path: PathBuf,
    },
    /// The file is not UTF-8 text.
    #[error("`{}` is not UTF-8 text", path.display())]
    NotUtf8 {
        /// Path relative to the root.
        path: PathBuf,
    },
    /// A hunk of this file cannot be applied.
    #[error("`{}`: {error}", path.display())]
    Hunk {
        /// Path relative to the root.
        path: PathBuf,
        /// Which hunk and why.
        error: HunkError,
    },
    /// The patch applies but leaves every file as it was.
    #[error("the patch changes nothing")]
    NoChange,
    /// A splice ([`super::Splice`]) that does not fit the text it edits: outside it, off a
    /// `char` boundary, or overlapping another splice.
    #[error("the edit of bytes {}..{} does not fit the file ({len} bytes)", span.start, span.end)]
    Splice {
        /// The span.
        span: std::ops::Range<usize>,
        /// The text's length in bytes.
        len: usize,
    },
    /// Reading or writing a file failed (files already written were restored).
    #[error("could not read or write `{}`", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// A hunk that cannot be applied: returned by [`super::apply_to_text`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("hunk {hunk} of {total} (answer line {answer_line}): {failure}")]
pub struct HunkError {
    /// 1-based hunk number within its file.
    pub hunk: usize,
    /// Hunks in that file.
    pub total: usize,
    /// 1-based answer line where the hunk starts.
    pub answer_line: usize,
    /// Why.
    pub failure: HunkFailure,
}

/// Why a hunk cannot be applied. Line numbers are 1-based and count the file as edited
/// by the hunks before this one.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HunkFailure {
    /// The old text is not in the file at any tolerance level.
    NotFound {
        /// The closest region, when any non-blank line of the old text is in the file.
        near: Option<Box<NearMatch>>,
    },
    /// The old text occurs more than once and the header's line number does not pick one.
    Ambiguous {
        /// Start line of every match.
        lines: Vec<usize>,
    },
    /// The only matches overlap lines an earlier hunk changed.
    Overlap {
        /// The earlier hunk (1-based).
        hunk: usize,
        /// Start line of the overlapping match.
        line: usize,
    },
    /// The hunk only adds lines, the file is not empty, and no line number says where.
    NoAnchor {
        /// The header's old start line, if any (beyond the end of the file when set).
        old_start: Option<usize>,
    },
}

/// The region of the file closest to a hunk's old text that was not found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NearMatch {
    /// 1-based line of the region's first line.
    pub start_line: usize,
    /// The region's lines as they are in the file (as many as the hunk's old text, fewer
    /// at the end of the file).
    pub lines: Vec<String>,
    /// How many non-blank old lines equal the file's (indentation ignored).
    pub shared: usize,
    /// First old line that differs, even ignoring whitespace: its 1-based position among
    /// the hunk's old lines, the hunk's text, and the file's text there (`None` past the
    /// end of the file).
    pub first_diff: Option<(usize, String, Option<String>)>,
}

impl fmt::Display for HunkFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotFound { .. } => f.write_str("its context and removed lines are not in the file"),
            Self::Ambiguous { lines } => write!(f, "its context and removed lines match at lines {}", join(lines)),
            Self::Overlap { hunk, line } => {
                write!(f, "it matches only at line {line}, which overlaps the lines hunk {hunk} changed")
            }
            Self::NoAnchor { old_start: None } => f.write_str("it only adds lines and quotes no line of the file"),
            Self::NoAnchor { old_start: Some(l) } => write!(f, "it only adds lines, after line {l}, past the end"),
        }
    }
}

impl PatchError {
    /// The explanation to send back to the model: what was refused, where, why, what the
    /// file really holds there, and how to fix the patch. Always says that nothing was
    /// applied.
    #[must_use]
    pub fn feedback(&self) -> String {
        let mut out = format!("The patch was not applied and no file was changed: {self}.\n");
        match self {
            Self::Hunk { path, error } => hunk_details(&mut out, &path.display().to_string(), error),
            Self::Io { source, .. } => out.push_str(&format!("Cause: {source}.\n")),
            _ => {}
        }
        out.push_str(self.advice());
        out
    }

    fn advice(&self) -> &'static str {
        match self {
            Self::Empty | Self::Malformed { .. } => {
                "Answer with a unified diff (--- a/PATH, +++ b/PATH, @@ hunks whose lines start with ' ', '-' or '+') \
                 or with SEARCH/REPLACE blocks (PATH, <<<<<<< SEARCH, old lines, =======, new lines, >>>>>>> REPLACE)."
            }
            Self::PathRefused { .. } | Self::FileMissing { .. } => {
                "Use the path of an existing file relative to the project root, without `..`."
            }
            Self::FileExists { .. } => "Edit the existing file with context lines copied from it.",
            Self::Hunk { error, .. } => match error.failure {
                HunkFailure::NotFound { .. } => {
                    "Copy the unchanged and removed lines exactly from the file (without line-number prefixes) \
                     and send the whole patch again."
                }
                HunkFailure::Ambiguous { .. } => {
                    "Add unchanged lines around the change so that it matches one place only, \
                     and send the whole patch again."
                }
                HunkFailure::Overlap { .. } => "Merge hunks that touch the same lines into one hunk.",
                HunkFailure::NoAnchor { .. } => "Include at least one unchanged line next to the added lines.",
            },
            Self::NoChange => "The patch must change the code.",
            Self::Splice { .. } => "Edit the file as it is.",
            Self::NotUtf8 { .. } | Self::Io { .. } => "This file cannot be patched.",
        }
    }
}

/// Appends the closest region (numbered like our tools: `{line}: {text}`) and the first
/// difference of a hunk that was not found.
fn hunk_details(out: &mut String, path: &str, error: &HunkError) {
    if error.hunk > 1 {
        let _ = writeln!(out, "(Line numbers count the file as edited by hunks 1-{}.)", error.hunk - 1);
    }
    let HunkFailure::NotFound { near } = &error.failure else { return };
    let Some(near) = near else {
        out.push_str("No line of the hunk's context or removed lines occurs in the file.\n");
        return;
    };
    let end = near.start_line + near.lines.len().saturating_sub(1);
    let _ = writeln!(out, "The closest region of {path} is lines {}-{end}:", near.start_line);
    for (i, line) in near.lines.iter().enumerate() {
        let _ = writeln!(out, "{}: {line}", near.start_line + i);
    }
    if let Some((j, want, got)) = &near.first_diff {
        let at = near.start_line + j - 1;
        let got = got
            .as_ref()
            .map_or_else(|| "the file ends before".to_owned(), |g| format!("line {at} of the file is `{g}`"));
        let _ = writeln!(out, "First difference: old line {j} of the hunk is `{want}`, but {got}.");
    }
}

fn join(lines: &[usize]) -> String {
    lines.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
}
