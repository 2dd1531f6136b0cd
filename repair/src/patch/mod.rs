//! Patches proposed by a model: parse them out of an answer, apply them by context match.
//!
//! A model's answer is free text. [`Patch::parse`] pulls every edit out of it, in two
//! formats, which may be mixed:
//!
//! - **Unified diffs**: `--- a/x` / `+++ b/x` file headers (the `a/` and `b/` prefixes are
//!   optional, `--- /dev/null` creates a file), then hunks opened by `@@ -l,n +l,n @@`.
//!   The numbers in a hunk header may be wrong or missing (`@@ ... @@`, a bare `@@`).
//!   A blank line inside a hunk is read as a blank context line.
//! - **SEARCH/REPLACE blocks** as popularised by aider (<https://aider.chat/docs/more/edit-formats.html>):
//!   an optional path line, then `<<<<<<< SEARCH`, the lines to find, `=======`, the lines to
//!   put instead, `>>>>>>> REPLACE`. A block without a path line edits the file of the block
//!   before it.
//!
//! Markdown fences and prose around the edits are ignored. A hunk or block that names no
//! file edits the caller's default path (single-file repair).
//!
//! [`Patch::apply`] applies the edits the way UniDebugger does ("invariant-context patch
//! application", ../shared/papers/unidebugger.txt §4): it finds the text a hunk replaces
//! instead of trusting line numbers, which models miscount. For each hunk, in order,
//! against the file as edited by the hunks before it:
//!
//! 1. The hunk's old text (context and removed lines; a SEARCH section) is looked up in the
//!    file line by line, at three levels of tolerance, stopping at the first level with a
//!    match: exact; trailing whitespace ignored; leading indentation ignored as well.
//! 2. A match may not overlap the lines an earlier hunk changed.
//! 3. Several matches at one level are ambiguous. The header's old line number breaks the
//!    tie when exactly one match sits there (after the shift caused by earlier hunks);
//!    otherwise the hunk is refused with the candidate line numbers.
//! 4. When no level matches, the hunk is retried as the model most likely meant it, and the
//!    first variant that matches exactly one place is taken (else the hunk is refused as
//!    written):
//!    - **Line numbers copied from the numbered listing** of the prompt (`12: text`,
//!      `12 | text`) are stripped from the old side (context and removed lines; a SEARCH
//!      section) when every old line carries one and the numbers strictly increase. Each
//!      side is judged on its own: the added lines (REPLACE) lose their prefixes when every
//!      added line carries one, the numbers never decrease and lie where the hunk matched,
//!      and the matched file lines carry no such prefix themselves. Text that matches as
//!      written is never stripped, so `2: mid` in a YAML file stays content.
//!    - **Blank lines at the edges of the old text** that the file lacks there (a SEARCH
//!      that starts or ends with an empty line) are trimmed: at the start, at the end, then
//!      both. A blank line that SEARCH and REPLACE both start (or end) with is an unchanged
//!      line the model wrote on both sides, so it is dropped from both; a blank edge line
//!      only REPLACE has stays, and nothing inside the replacement changes.
//! 5. A hunk with no old text inserts at its header's line number, or fills an empty file;
//!    without either it is refused.
//!
//! The matched lines are replaced: context lines keep the file's own text, added lines
//! are inserted verbatim (never re-indented), new lines take the file's dominant line
//! ending (LF or CRLF), and the file keeps or lacks its final newline as before.
//!
//! Application is all or nothing: every file is patched in memory first, and nothing is
//! written unless all hunks of all files apply. Every refusal is a [`PatchError`] whose
//! [`PatchError::feedback`] tells the model what went wrong (file, 1-based hunk, the
//! closest region of the file and its first differing line, or the ambiguous candidates).
//! Paths are confined to the project root: absolute paths, `..` components and paths
//! that leave the root through a symlink are refused.
//!
//! ```
//! use repair::patch::Patch;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("bitcount.py"), "def bitcount(n):\n    count = 0\n    while n:\n        n ^= n - 1\n        count += 1\n    return count\n")?;
//! let answer = "The bug is the XOR.\n```diff\n--- a/bitcount.py\n+++ b/bitcount.py\n@@\n     while n:\n-        n ^= n - 1\n+        n &= n - 1\n         count += 1\n```\n";
//! let applied = Patch::parse(answer, None)?.apply(dir.path())?;
//! assert!(std::fs::read_to_string(dir.path().join("bitcount.py"))?.contains("n &= n - 1"));
//! assert!(applied.diff.contains("+        n &= n - 1"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod apply;
mod change;
mod error;
mod parse;
mod path;
mod text;

use std::path::{Path, PathBuf};

pub use apply::apply_to_text;
pub use change::{Change, Splice, apply_splices};
pub use error::{HunkError, HunkFailure, NearMatch, PatchError};

/// A `Result` with a [`PatchError`].
pub type Result<T> = std::result::Result<T, PatchError>;

/// The edits of one model answer, grouped by file in the order the answer names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    /// One entry per file; a file named twice has its hunks merged, in answer order.
    pub files: Vec<FilePatch>,
    /// The caller's default path given to [`Patch::parse`].
    pub default_path: Option<PathBuf>,
}

/// The hunks for one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePatch {
    /// Path relative to the project root, `a/`/`b/` prefixes removed. Not yet checked
    /// against a root: [`Patch::apply`] does that.
    pub path: PathBuf,
    /// The `---` path of a diff when it differs from the `+++` path (renames are not
    /// applied; this path is edited when `path` does not exist).
    pub old_path: Option<PathBuf>,
    /// The patch creates this file (`--- /dev/null`, or an empty first SEARCH section).
    pub create: bool,
    /// Hunks in answer order, applied in that order.
    pub hunks: Vec<Hunk>,
}

/// One hunk of a diff, or one SEARCH/REPLACE block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// The lines, without diff markers or line endings.
    pub lines: Vec<HunkLine>,
    /// 1-based old start line from the `@@ -l,n` header: only a tie-breaker hint (and the
    /// insertion point of a hunk without old text). `None` for a numberless header or a
    /// SEARCH/REPLACE block.
    pub old_start: Option<usize>,
    /// 1-based line of the answer where the hunk starts, for messages.
    pub answer_line: usize,
}

/// One line of a [`Hunk`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkLine {
    /// Unchanged line (` ` in a diff): must be in the file; the file's text is kept.
    Context(String),
    /// Removed line (`-`, or a SEARCH line): must be in the file.
    Remove(String),
    /// Added line (`+`, or a REPLACE line): inserted verbatim.
    Add(String),
}

impl HunkLine {
    /// The line's text, whatever its kind.
    #[must_use]
    pub fn text(&self) -> &str {
        match self {
            Self::Context(t) | Self::Remove(t) | Self::Add(t) => t,
        }
    }
}

impl Hunk {
    /// A SEARCH/REPLACE block as a hunk: every SEARCH line removed, every REPLACE line
    /// added (so the whole REPLACE section goes in verbatim).
    #[must_use]
    pub fn search_replace(search: &[&str], replace: &[&str], answer_line: usize) -> Self {
        let old = search.iter().map(|l| HunkLine::Remove((*l).to_owned()));
        let new = replace.iter().map(|l| HunkLine::Add((*l).to_owned()));
        Self { lines: old.chain(new).collect(), old_start: None, answer_line }
    }

    /// The text the hunk expects in the file: context and removed lines, in order.
    pub fn old_lines(&self) -> impl Iterator<Item = &str> {
        self.lines.iter().filter(|l| !matches!(l, HunkLine::Add(_))).map(HunkLine::text)
    }

    /// The text the hunk leaves behind: context and added lines, in order.
    pub fn new_lines(&self) -> impl Iterator<Item = &str> {
        self.lines.iter().filter(|l| !matches!(l, HunkLine::Remove(_))).map(HunkLine::text)
    }
}

/// What [`Patch::apply`] changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The files written, relative to the root, in patch order.
    pub files: Vec<AppliedFile>,
    /// A unified diff (`a/`, `b/` prefixes, 3 lines of context) of the actual change, file
    /// by file: what the CLI prints as the plausible patch.
    pub diff: String,
}

/// One file written by [`Patch::apply`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedFile {
    /// Path relative to the root.
    pub path: PathBuf,
    /// The file did not exist before.
    pub created: bool,
}

impl Patch {
    /// Extracts every unified-diff hunk and SEARCH/REPLACE block from a model answer.
    ///
    /// `default_path` (relative to the project root) is the file for hunks and blocks that
    /// name none; it also stands in for a named file that does not exist but has the same
    /// file name (a model that saw only `Foo.java` writes `--- a/Foo.java`). O(answer
    /// length).
    ///
    /// # Errors
    ///
    /// [`PatchError::Empty`] when the answer holds no hunk and no block;
    /// [`PatchError::Malformed`] with the answer's line number for a hunk without a file
    /// (and no default path), a header without hunks, an unterminated SEARCH/REPLACE
    /// block, or a file deletion (`+++ /dev/null`, not supported).
    pub fn parse(answer: &str, default_path: Option<&Path>) -> Result<Self> {
        parse::parse(answer, default_path)
    }

    /// Number of hunks over all files.
    #[must_use]
    pub fn hunk_count(&self) -> usize {
        self.files.iter().map(|f| f.hunks.len()).sum()
    }

    /// Applies the patch to the tree under `root`, all or nothing.
    ///
    /// Every file is resolved inside `root`, read (UTF-8), patched in memory with
    /// [`apply_to_text`], and only when all succeed are the files written (parent
    /// folders of new files are created). If a write fails, the files already written are
    /// restored. Cost: O(file length × hunk length) per hunk.
    ///
    /// # Errors
    ///
    /// [`PatchError::PathRefused`], [`PatchError::FileMissing`], [`PatchError::FileExists`],
    /// [`PatchError::NotUtf8`], [`PatchError::Hunk`] (with the hunk's failure),
    /// [`PatchError::NoChange`] when the patch would change nothing, and
    /// [`PatchError::Io`]. On any error no file is left changed.
    pub fn apply(&self, root: &Path) -> Result<Applied> {
        let root = path::canonical_root(root)?;
        let planned = self.resolve(&root)?.into_iter().map(plan).collect::<Result<Vec<_>>>()?;
        if planned.iter().all(|p| p.before.as_deref() == Some(p.after.as_str())) {
            return Err(PatchError::NoChange);
        }
        write_all(&root, &planned)?;
        let diff = planned.iter().map(Planned::diff);
        let files = planned.iter().map(|p| AppliedFile { path: p.rel.clone(), created: p.before.is_none() });
        Ok(Applied { files: files.collect(), diff: diff.collect() })
    }
}

impl Patch {
    /// (relative path, absolute path, hunks) per file under `root`; entries that resolve to
    /// the same file (say `Foo.java` and the default path `src/Foo.java`) are merged.
    fn resolve(&self, root: &Path) -> Result<Vec<(PathBuf, PathBuf, FilePatch)>> {
        let mut resolved: Vec<(PathBuf, PathBuf, FilePatch)> = Vec::new();
        for file in &self.files {
            let (rel, abs) = path::resolve(root, file, self.default_path.as_deref())?;
            match resolved.iter_mut().find(|r| r.1 == abs) {
                Some(same) => same.2.hunks.extend(file.hunks.iter().cloned()),
                None => resolved.push((rel, abs, file.clone())),
            }
        }
        Ok(resolved)
    }
}

/// One file's change, computed in memory.
struct Planned {
    rel: PathBuf,
    abs: PathBuf,
    /// `None` for a created file.
    before: Option<String>,
    after: String,
}

impl Planned {
    /// The change as a unified diff; a created file's old side is `/dev/null`.
    fn diff(&self) -> String {
        let diff = unified_diff(&self.rel, self.before.as_deref().unwrap_or(""), &self.after);
        match (&self.before, diff.split_once('\n')) {
            (None, Some((_, rest))) => format!("--- /dev/null\n{rest}"),
            _ => diff,
        }
    }
}

/// Resolves, reads and patches one file in memory.
fn plan((rel, abs, file): (PathBuf, PathBuf, FilePatch)) -> Result<Planned> {
    let before = path::read(&rel, &abs, file.create)?;
    let after = apply_to_text(before.as_deref().unwrap_or(""), &file.hunks)
        .map_err(|error| PatchError::Hunk { path: rel.clone(), error })?;
    Ok(Planned { rel, abs, before, after })
}

/// Writes every planned file; on a failure restores those already written.
fn write_all(root: &Path, planned: &[Planned]) -> Result<()> {
    for (i, p) in planned.iter().enumerate() {
        if let Err(source) = write_one(root, p) {
            planned[..i].iter().rev().for_each(restore);
            return Err(PatchError::Io { path: p.rel.clone(), source });
        }
    }
    Ok(())
}

fn write_one(root: &Path, p: &Planned) -> std::io::Result<()> {
    if let Some(parent) = p.abs.parent().filter(|d| d.starts_with(root)) {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&p.abs, &p.after)
}

/// Best effort: puts a written file back as it was (the error being reported is the
/// write failure, not this).
fn restore(p: &Planned) {
    let undone = match &p.before {
        Some(text) => std::fs::write(&p.abs, text),
        None => std::fs::remove_file(&p.abs),
    };
    if let Err(e) = undone {
        tracing::warn!(path = %p.abs.display(), error = %e, "could not undo a patched file");
    }
}

/// A unified diff of `old` → `new` for `path`, with `a/` and `b/` headers and 3 lines of
/// context; empty when the texts are equal. Texts are compared line by line, line endings
/// included.
#[must_use]
pub fn unified_diff(path: &Path, old: &str, new: &str) -> String {
    let name = path.to_string_lossy().replace('\\', "/");
    labelled_diff(&format!("a/{name}"), &format!("b/{name}"), old, new)
}

/// A unified diff of `old` → `new` with the header labels `old_label` and `new_label` and 3
/// lines of context; empty when the texts are equal. The one diff builder of fixdex: patches
/// ([`unified_diff`]), similar fixes (`buggy` → `fixed`, [`crate::retrieve`]) and the CLI's
/// search hits use it.
#[must_use]
pub fn labelled_diff(old_label: &str, new_label: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let diff = similar::TextDiff::from_lines(old, new);
    diff.unified_diff().context_radius(3).header(old_label, new_label).to_string()
}

/// The complete part of a patch answer cut off at the token limit: the text up to the last
/// line that closes an edit: a `>>>>>>> REPLACE` marker or a ``` fence that closes a block
/// (every second fence line). `""` when no edit was closed: a hunk or block cut midway
/// could delete code it meant to replace.
pub fn complete_patch_text(answer: &str) -> &str {
    let (mut end, mut in_fence, mut at) = (0, false, 0);
    for line in answer.split_inclusive('\n') {
        at += line.len();
        let t = line.trim();
        if t.starts_with("```") {
            if in_fence {
                end = at;
            }
            in_fence = !in_fence;
        } else if t.starts_with(">>>>>>>") && t.ends_with("REPLACE") {
            end = at;
        }
    }
    &answer[..end]
}
