//! A candidate's change to the project as data ([`Change`]): the edits parsed out of a
//! model's answer, or byte-span edits of the buggy file's text ([`Splice`]) that a
//! model-free strategy (a fix template, an instrumented copy) proposes. Splices are applied
//! to the text they were made against, so they are never rendered as answer text and parsed
//! back, and the file is not read again.

use std::ops::Range;
use std::path::Path;

use super::{Applied, AppliedFile, Patch, PatchError, Result, path, unified_diff};

/// One edit of a text: the bytes `span` replaced by `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Splice {
    /// Byte range of the text as read (on `char` boundaries; empty for an insertion).
    pub span: Range<usize>,
    /// What goes there instead.
    pub text: String,
}

impl Splice {
    /// Replaces the whole of a text of `len` bytes by `text` (an instrumented copy).
    #[must_use]
    pub fn whole(len: usize, text: String) -> Splice {
        Splice { span: 0..len, text }
    }
}

/// A candidate's change to the project: what
/// [`Session::validate_patch`](crate::run::session::Session::validate_patch) takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The edits of a model's answer ([`Patch::parse`]): hunks and SEARCH/REPLACE blocks,
    /// applied by context match to the files they name ([`Patch::apply`]).
    Parsed(Patch),
    /// Edits of one file's text as read, in any order, none overlapping another.
    Splices(Vec<Splice>),
}

impl From<Patch> for Change {
    fn from(patch: Patch) -> Self {
        Change::Parsed(patch)
    }
}

impl Change {
    /// Applies the change to the tree under `root`, all or nothing. [`Change::Splices`] edit
    /// `file` (relative to `root`), whose text is `source` (the file is not read);
    /// [`Change::Parsed`] reads and edits the files its hunks name ([`Patch::apply`]).
    ///
    /// # Errors
    /// As [`Patch::apply`]; for splices, [`PatchError::PathRefused`] for a `file` outside
    /// `root`, [`PatchError::Splice`] for a span outside `source`, off a `char` boundary or
    /// overlapping another, [`PatchError::NoChange`], and [`PatchError::Io`].
    pub fn apply(&self, root: &Path, file: &Path, source: &str) -> Result<Applied> {
        match self {
            Change::Parsed(patch) => patch.apply(root),
            Change::Splices(splices) => write_splices(root, file, source, splices),
        }
    }
}

/// `source` with every splice applied.
///
/// # Errors
/// [`PatchError::Splice`] for a span outside `source`, off a `char` boundary, or
/// overlapping another.
pub fn apply_splices(source: &str, splices: &[Splice]) -> Result<String> {
    let mut sorted: Vec<&Splice> = splices.iter().collect();
    sorted.sort_by_key(|s| (s.span.start, s.span.end));
    let mut out = String::with_capacity(source.len());
    let mut at = 0;
    for s in sorted {
        let Range { start, end } = s.span;
        if start < at || end < start || source.get(start..end).is_none() {
            return Err(PatchError::Splice { span: s.span.clone(), len: source.len() });
        }
        out.push_str(&source[at..start]);
        out.push_str(&s.text);
        at = end;
    }
    out.push_str(&source[at..]);
    Ok(out)
}

/// Writes `file` under `root` as `source` with `splices` applied; its diff against `source`.
fn write_splices(root: &Path, file: &Path, source: &str, splices: &[Splice]) -> Result<Applied> {
    let after = apply_splices(source, splices)?;
    if after == source {
        return Err(PatchError::NoChange);
    }
    let root = path::canonical_root(root)?;
    let abs = path::confine(&root, file)?;
    let rel = path::normal(file);
    std::fs::write(&abs, &after).map_err(|source| PatchError::Io { path: rel.clone(), source })?;
    let diff = unified_diff(&rel, source, &after);
    Ok(Applied { files: vec![AppliedFile { path: rel, created: false }], diff })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn splice(span: Range<usize>, text: &str) -> Splice {
        Splice { span, text: text.into() }
    }

    #[test]
    fn splices_apply_in_span_order_and_refuse_overlaps_and_bad_spans() {
        let src = "a < b;\nc = 1;\n";
        let two = [splice(11..12, "2"), splice(2..3, "<=")];
        assert_eq!(apply_splices(src, &two).unwrap(), "a <= b;\nc = 2;\n");
        assert_eq!(apply_splices(src, &[splice(0..0, "// x\n")]).unwrap(), format!("// x\n{src}"));
        assert_eq!(apply_splices(src, &[Splice::whole(src.len(), "y\n".into())]).unwrap(), "y\n");
        for bad in [
            vec![splice(0..3, ""), splice(2..4, "")],
            vec![splice(5..40, "")],
            vec![Splice { span: std::ops::Range { start: 3, end: 2 }, text: String::new() }],
        ] {
            assert!(matches!(apply_splices(src, &bad), Err(PatchError::Splice { .. })), "{bad:?}");
        }
        assert!(matches!(apply_splices("é", &[splice(1..2, "")]), Err(PatchError::Splice { len: 2, .. })));
    }

    #[test]
    fn splices_write_the_file_and_give_the_same_diff_as_the_parsed_answer() {
        let dir = tempfile::tempdir().unwrap();
        let src = "def f(n):\n    return n - 1\n";
        std::fs::write(dir.path().join("f.py"), src).unwrap();
        let change = Change::Splices(vec![splice(25..26, "2")]);
        let applied = change.apply(dir.path(), Path::new("./f.py"), src).unwrap();
        assert_eq!(std::fs::read_to_string(dir.path().join("f.py")).unwrap(), "def f(n):\n    return n - 2\n");
        assert_eq!(applied.files, [AppliedFile { path: "f.py".into(), created: false }]);
        std::fs::write(dir.path().join("f.py"), src).unwrap();
        let answer = "<<<<<<< SEARCH\n    return n - 1\n=======\n    return n - 2\n>>>>>>> REPLACE\n";
        let parsed = Change::from(Patch::parse(answer, Some(Path::new("f.py"))).unwrap());
        assert_eq!(parsed.apply(dir.path(), Path::new("f.py"), src).unwrap().diff, applied.diff);
        let same = Change::Splices(vec![splice(25..26, "1")]);
        assert!(matches!(same.apply(dir.path(), Path::new("f.py"), src), Err(PatchError::NoChange)));
        let outside = change.apply(dir.path(), Path::new("../f.py"), src);
        assert!(matches!(outside, Err(PatchError::PathRefused { .. })));
    }
}
