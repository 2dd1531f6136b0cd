//! Pulling unified-diff hunks and SEARCH/REPLACE blocks out of a model answer.
//!
//! A single pass over the answer's lines. Outside an edit, a line is one of: a
//! `<<<<<<< SEARCH` marker (a block follows), a `--- ` line followed by a `+++ ` line (a
//! file header), an `@@` line (a hunk), a ```` ```diff ```` fence directly followed by
//! `-`/`+` lines (a hunk without header), or anything else (prose, fences, `diff --git`,
//! `index` lines), which is skipped.

use std::path::{Path, PathBuf};

use super::{FilePatch, Hunk, HunkLine, Patch, PatchError, Result};

pub(super) fn parse(answer: &str, default: Option<&Path>) -> Result<Patch> {
    let mut parser = Parser { lines: answer.lines().collect(), at: 0, default, file: None, files: Vec::new() };
    while parser.at < parser.lines.len() {
        parser.step()?;
    }
    if parser.files.is_empty() {
        return Err(PatchError::Empty);
    }
    Ok(Patch { files: parser.files, default_path: default.map(Path::to_owned) })
}

/// The file that unlabelled hunks and blocks go to: the last one named.
#[derive(Debug, Clone)]
struct Target {
    path: PathBuf,
    old_path: Option<PathBuf>,
    create: bool,
}

#[derive(Debug)]
struct Parser<'a> {
    lines: Vec<&'a str>,
    /// Index of the next line to read.
    at: usize,
    default: Option<&'a Path>,
    file: Option<Target>,
    files: Vec<FilePatch>,
}

impl<'a> Parser<'a> {
    fn step(&mut self) -> Result<()> {
        let line = self.lines[self.at];
        if marker(line, '<', "SEARCH") {
            self.search_replace()
        } else if self.is_file_header() {
            self.file_header()
        } else if line.starts_with("@@") {
            self.hunk()
        } else if is_diff_fence(line) && self.next(1).is_some_and(starts_change) {
            self.at += 1;
            self.body_hunk(self.at, None, None)
        } else {
            self.at += 1;
            Ok(())
        }
    }

    /// A line that cut a hunk short: right after hunk lines (no blank between) and
    /// followed by a removed or added line, like a context line that lost its leading space.
    /// Called where hunk lines stop.
    fn is_stray_line(&self) -> bool {
        let Some(line) = self.next(0) else { return false };
        let ends_hunk =
            line.starts_with("@@") || line.starts_with("```") || self.is_file_header() || marker(line, '<', "SEARCH");
        let after_blank = self.at == 0 || self.lines[self.at - 1].is_empty();
        !ends_hunk && !after_blank && !line.trim().is_empty() && self.next(1).is_some_and(starts_change)
    }

    fn next(&self, ahead: usize) -> Option<&'a str> {
        self.lines.get(self.at + ahead).copied()
    }

    fn is_file_header(&self) -> bool {
        self.lines[self.at].starts_with("--- ") && self.next(1).is_some_and(|l| l.starts_with("+++ "))
    }

    fn malformed(&self, line: usize, reason: impl Into<String>) -> PatchError {
        PatchError::Malformed { line: line + 1, reason: reason.into() }
    }

    /// `--- old` / `+++ new`, then `@@` hunks or, directly, hunk lines.
    fn file_header(&mut self) -> Result<()> {
        let start = self.at;
        let old = header_path(self.lines[start], "a/");
        let new = header_path(self.lines[start + 1], "b/");
        self.file = Some(match (old, new) {
            (None, Some(path)) => Target { path, old_path: None, create: true },
            (Some(old), Some(path)) => Target { old_path: (old != path).then_some(old), path, create: false },
            (_, None) => return Err(self.malformed(start + 1, "deleting a file (+++ /dev/null) is not supported")),
        });
        self.at += 2;
        match self.next(0) {
            Some(l) if l.starts_with("@@") => Ok(()),
            Some(l) if starts_change(l) || l.starts_with(' ') => self.body_hunk(start, None, None),
            _ => Err(self.malformed(start, "this --- / +++ file header is not followed by an @@ hunk")),
        }
    }

    /// An `@@` header and its lines.
    fn hunk(&mut self) -> Result<()> {
        let start = self.at;
        let (old_start, counts) = hunk_header(self.lines[start]);
        self.at += 1;
        self.body_hunk(start, old_start, counts)
    }

    /// Reads hunk lines from `self.at`; `start` is the hunk's first answer line.
    fn body_hunk(&mut self, start: usize, old_start: Option<usize>, counts: Option<(usize, usize)>) -> Result<()> {
        let lines = self.body(counts);
        if self.is_stray_line() {
            let reason = "this line cuts the hunk above short, yet changed lines follow it: \
                          every line of a hunk starts with ' ', '-' or '+'";
            return Err(self.malformed(self.at, reason));
        }
        if lines.is_empty() {
            return Err(self.malformed(start, "this hunk has no lines (they start with ' ', '-' or '+')"));
        }
        if lines.iter().all(|l| matches!(l, HunkLine::Context(_))) {
            return Err(self.malformed(start, "this hunk changes no line (no line starts with '-' or '+')"));
        }
        let hunk = Hunk { lines, old_start, answer_line: start + 1 };
        let target = self.file.clone().or_else(|| self.default_target());
        let target = target.ok_or_else(|| {
            self.malformed(start, "this hunk names no file: put `--- a/PATH` and `+++ b/PATH` lines before it")
        })?;
        self.push(target, hunk);
        Ok(())
    }

    /// Hunk lines up to the next header, fence, or non-diff line. An empty line is a blank
    /// context line, except trailing ones and one the header's counts put after the hunk
    /// (unless a context line follows it: counts may be wrong), so that a `- item` list
    /// after the diff is not read as removed lines.
    fn body(&mut self, counts: Option<(usize, usize)>) -> Vec<HunkLine> {
        let mut lines = Vec::new();
        let mut blank_tail = 0;
        while let Some(line) = self.next(0) {
            let counts_met = counts.is_some_and(|c| c == tally(&lines));
            if line.is_empty() && counts_met && !self.next(1).is_some_and(|l| l.starts_with(' ')) {
                break;
            }
            let Some(parsed) = self.body_line(line) else { break };
            blank_tail = if line.is_empty() { blank_tail + 1 } else { 0 };
            lines.extend(parsed);
            self.at += 1;
        }
        lines.truncate(lines.len() - blank_tail);
        lines
    }

    /// One hunk line (`Some(None)` for `\ No newline at end of file`), or `None` at the
    /// end of the hunk.
    fn body_line(&self, line: &str) -> Option<Option<HunkLine>> {
        if line.starts_with("@@") || line.starts_with("```") || self.is_file_header() {
            return None;
        }
        let rest = line.get(1..).unwrap_or("").to_owned();
        match line.chars().next() {
            None => Some(Some(HunkLine::Context(String::new()))),
            Some(' ') => Some(Some(HunkLine::Context(rest))),
            Some('-') => Some(Some(HunkLine::Remove(rest))),
            Some('+') => Some(Some(HunkLine::Add(rest))),
            Some('\\') => Some(None),
            Some(_) => None,
        }
    }

    fn default_target(&self) -> Option<Target> {
        self.default.map(|path| Target { path: path.to_owned(), old_path: None, create: false })
    }

    /// `[path]`, `<<<<<<< SEARCH`, lines, `=======`, lines, `>>>>>>> REPLACE` (aider).
    fn search_replace(&mut self) -> Result<()> {
        let start = self.at;
        let named = self.block_path(start);
        let divider = self.find(start + 1, |l| marker_line(l, '='), "=======")?;
        let end = self.find(divider + 1, |l| marker(l, '>', "REPLACE"), ">>>>>>> REPLACE")?;
        let search = &self.lines[start + 1..divider];
        let replace = &self.lines[divider + 1..end];
        let hunk = Hunk::search_replace(search, replace, start + 1);
        let target = match named {
            Some(path) => Some(Target { path, old_path: None, create: false }),
            None => self.file.clone().or_else(|| self.default_target()),
        };
        let mut target = target.ok_or_else(|| {
            self.malformed(start, "this SEARCH/REPLACE block names no file: put its path on the line before it")
        })?;
        target.create = search.is_empty() && !self.files.iter().any(|f| f.path == target.path);
        self.file = Some(Target { create: false, ..target.clone() });
        self.push(target, hunk);
        self.at = end + 1;
        Ok(())
    }

    /// The index of the first line from `from` satisfying `is_end`, before any new SEARCH.
    fn find(&self, from: usize, is_end: impl Fn(&str) -> bool, what: &str) -> Result<usize> {
        let found = (from..self.lines.len()).find(|&i| is_end(self.lines[i]) || marker(self.lines[i], '<', "SEARCH"));
        match found {
            Some(i) if is_end(self.lines[i]) => Ok(i),
            _ => Err(self.malformed(self.at, format!("this SEARCH/REPLACE block has no `{what}` line"))),
        }
    }

    /// The path on one of the 3 non-blank lines before a SEARCH marker, fence lines
    /// skipped: the first such line that looks like a path (no spaces, a `.` or `/`).
    fn block_path(&self, marker_at: usize) -> Option<PathBuf> {
        let before = self.lines[..marker_at].iter().rev().filter(|l| !l.trim().is_empty());
        let candidate = before.take(3).find(|l| !l.trim_start().starts_with("```"))?;
        let name = candidate.trim().trim_matches(|c: char| matches!(c, '*' | '`' | '#' | ':' | '"' | '\'')).trim();
        let plausible = !name.is_empty() && !name.contains(char::is_whitespace) && name.contains(['.', '/']);
        (plausible && !marker(name, '>', "REPLACE")).then(|| PathBuf::from(name))
    }

    /// Adds a hunk to its file, merging with an earlier entry for the same path.
    fn push(&mut self, target: Target, hunk: Hunk) {
        if let Some(file) = self.files.iter_mut().find(|f| f.path == target.path) {
            file.hunks.push(hunk);
        } else {
            let Target { path, old_path, create } = target;
            self.files.push(FilePatch { path, old_path, create, hunks: vec![hunk] });
        }
    }
}

/// (old lines, new lines) of a hunk so far.
fn tally(lines: &[HunkLine]) -> (usize, usize) {
    let old = lines.iter().filter(|l| !matches!(l, HunkLine::Add(_))).count();
    let new = lines.iter().filter(|l| !matches!(l, HunkLine::Remove(_))).count();
    (old, new)
}

/// A removed or added line (not a `--- `/`+++ ` header).
fn starts_change(line: &str) -> bool {
    (line.starts_with('-') || line.starts_with('+')) && !line.starts_with("--- ") && !line.starts_with("+++ ")
}

fn is_diff_fence(line: &str) -> bool {
    matches!(line.trim(), "```diff" | "```patch" | "```udiff")
}

/// `<<<<<<< SEARCH`, `>>>>>>> REPLACE`: 5 to 9 `c`, a space, `word`.
fn marker(line: &str, c: char, word: &str) -> bool {
    let line = line.trim();
    let run = line.len() - line.trim_start_matches(c).len();
    (5..=9).contains(&run) && line[run..].trim() == word
}

/// `=======`: 5 to 9 `=` alone on the line.
fn marker_line(line: &str, c: char) -> bool {
    let line = line.trim();
    (5..=9).contains(&line.len()) && line.chars().all(|x| x == c)
}

/// The path of a `--- `/`+++ ` line: timestamp (after a tab or space) and quotes removed,
/// `strip` (`a/` or `b/`) removed; `None` for `/dev/null`.
fn header_path(line: &str, strip: &str) -> Option<PathBuf> {
    let rest = line[4..].trim_start();
    let path = match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next().unwrap_or(""),
        None => rest.split(char::is_whitespace).next().unwrap_or(""),
    };
    (path != "/dev/null").then(|| PathBuf::from(path.strip_prefix(strip).unwrap_or(path)))
}

/// Old start line and (old, new) counts of `@@ -l,n +l,n @@`; `None`s when the numbers
/// are missing or unreadable (`@@`, `@@ ... @@`).
fn hunk_header(line: &str) -> (Option<usize>, Option<(usize, usize)>) {
    let inner = line.trim_start_matches('@').split("@@").next().unwrap_or("");
    let mut ranges = inner.split_whitespace();
    let old = ranges.next().and_then(|r| range(r, '-'));
    let new = ranges.next().and_then(|r| range(r, '+'));
    let counts = old.zip(new).map(|((_, o), (_, n))| (o, n));
    (old.map(|(start, _)| start), counts)
}

/// `-12,3` → (12, 3); `-12` → (12, 1).
fn range(text: &str, sign: char) -> Option<(usize, usize)> {
    let (start, count) = text.strip_prefix(sign)?.split_once(',').unwrap_or((text.get(1..)?, "1"));
    Some((start.parse().ok()?, count.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunk_headers_with_and_without_numbers() {
        assert_eq!(hunk_header("@@ -3,7 +3,8 @@ class A"), (Some(3), Some((7, 8))));
        assert_eq!(hunk_header("@@ -3 +3 @@"), (Some(3), Some((1, 1))));
        assert_eq!(hunk_header("@@ ... @@"), (None, None));
        assert_eq!(hunk_header("@@"), (None, None));
        assert_eq!(hunk_header("@@ -x,1 +2,1 @@"), (None, None));
    }

    #[test]
    fn header_paths() {
        assert_eq!(header_path("--- a/src/A.java\t2024-01-01", "a/"), Some("src/A.java".into()));
        assert_eq!(header_path("+++ src/A.java", "b/"), Some("src/A.java".into()));
        assert_eq!(header_path("--- \"a/my file.py\"", "a/"), Some("my file.py".into()));
        assert_eq!(header_path("--- /dev/null", "a/"), None);
    }

    #[test]
    fn context_line_without_its_space_is_malformed_not_silently_dropped() {
        let answer = "--- a/x.py\n+++ b/x.py\n@@\n a = 1\nb = 2\n-c = 3\n+c = 4\n";
        let err = parse(answer, None).unwrap_err();
        assert!(matches!(err, PatchError::Malformed { line: 5, .. }), "{err}");
        let only_context = "--- a/x.py\n+++ b/x.py\n@@\n a = 1\n";
        assert!(matches!(parse(only_context, None).unwrap_err(), PatchError::Malformed { line: 3, .. }));
        // Prose right after a hunk is fine, unless changed lines follow it.
        assert!(parse("@@\n-a\n+b\nThis fixes it.\n- a bullet\n", Some(Path::new("x.py"))).is_err());
        assert_eq!(parse("@@\n-a\n+b\nThis fixes it.\n", Some(Path::new("x.py"))).unwrap().hunk_count(), 1);
    }

    #[test]
    fn header_counts_end_a_hunk_at_a_blank_line_before_a_list() {
        let answer = "@@ -1,2 +1,2 @@\n a\n-b\n+c\n\n- fixed the bug\n- kept the rest\n";
        let patch = parse(answer, Some(Path::new("x.py"))).unwrap();
        assert_eq!(patch.files[0].hunks[0].lines.len(), 3);
        // Wrong counts do not cut a hunk whose context goes on after a blank line.
        let answer = "@@ -1,2 +1,2 @@\n a\n-b\n+c\n\n d\n-e\n+f\n";
        let patch = parse(answer, Some(Path::new("x.py"))).unwrap();
        assert_eq!(patch.files[0].hunks[0].lines.len(), 7);
    }

    #[test]
    fn markers() {
        assert!(marker("<<<<<<< SEARCH", '<', "SEARCH"));
        assert!(marker(">>>>>>> REPLACE  ", '>', "REPLACE"));
        assert!(!marker("<<<< SEARCH", '<', "SEARCH"));
        assert!(marker_line("=======", '='));
        assert!(!marker_line("== x ==", '='));
    }
}
