//! Applying hunks to a text by context match (the rules are in the module doc of
//! [`crate::patch`]).

use std::borrow::Cow;
use std::ops::Range;

use super::error::{HunkError, HunkFailure, NearMatch};
use super::text::{Doc, Line};
use super::{Hunk, HunkLine};

/// Applies `hunks`, in order, to `original` and returns the new text.
///
/// Each hunk is located by its old text (context and removed lines), never by its line
/// numbers, at the first tolerance level that finds it: exact, trailing whitespace
/// ignored, leading indentation ignored. A hunk matching several places is settled by its
/// `old_start` hint or refused. A hunk that is not found is retried as the model most likely
/// meant it (step 4 of the [`crate::patch`] docs): with the `N:` / `N |` line-number prefixes
/// of a numbered listing stripped from its old lines, and with blank lines the file lacks
/// trimmed from the edges of its old text. Added lines lose such prefixes only when every one
/// has one, numbered where the hunk matched. Context lines keep the file's text, added lines
/// go in verbatim with the file's dominant line ending, and the final newline (or its
/// absence) is kept. Pure: touches no file. Cost: O(lines of `original` × old lines of the
/// hunk) per hunk, level and try (the hunk as written and at most 7 variants).
///
/// # Errors
///
/// The first hunk that cannot be applied, as a [`HunkError`] (1-based hunk number and a
/// [`HunkFailure`]): not found (with the closest region), ambiguous, overlapping an
/// earlier hunk, or without old text to anchor it.
pub fn apply_to_text(original: &str, hunks: &[Hunk]) -> Result<String, HunkError> {
    let mut doc = Doc::new(original);
    let mut edits = Edits::default();
    for (i, hunk) in hunks.iter().enumerate() {
        let fail = |failure| HunkError { hunk: i + 1, total: hunks.len(), answer_line: hunk.answer_line, failure };
        let (hunk, at) = locate_hunk(&doc, hunk, &edits).map_err(fail)?;
        splice(&mut doc, &hunk, at, &mut edits, i + 1);
    }
    Ok(doc.render())
}

/// Locates a hunk as written, then (if not found) each of its [`lenient_variants`] in turn;
/// a variant counts only when it matches exactly one place. A hunk that nothing locates is
/// refused with the failure of the hunk as written.
fn locate_hunk<'h>(doc: &Doc, hunk: &'h Hunk, edits: &Edits) -> Result<(Cow<'h, Hunk>, usize), HunkFailure> {
    let not_found = match locate(doc, hunk, edits) {
        Ok(at) => return Ok((strip_added_numbers(doc, Cow::Borrowed(hunk), at, edits), at)),
        Err(failure @ HunkFailure::NotFound { .. }) => failure,
        Err(failure) => return Err(failure),
    };
    for variant in lenient_variants(hunk) {
        if let Ok(at) = locate(doc, &variant, edits) {
            return Ok((strip_added_numbers(doc, Cow::Owned(variant), at, edits), at));
        }
    }
    Err(not_found)
}

/// What a model most likely meant by a hunk that is not in the file, most faithful first:
/// its old lines without line-number prefixes ([`strip_old_numbers`]); its old text without
/// blank lines at the start, at the end, or both ([`trim_blank_edges`]); and the stripped
/// hunk trimmed the same ways. Variants that change nothing are left out.
fn lenient_variants(hunk: &Hunk) -> Vec<Hunk> {
    let stripped = strip_old_numbers(hunk);
    let bases = std::iter::once(hunk).chain(stripped.as_ref());
    let trims = [(true, false), (false, true), (true, true)];
    let trimmed: Vec<Hunk> =
        bases.flat_map(|h| trims.iter().filter_map(move |&(lead, trail)| trim_blank_edges(h, lead, trail))).collect();
    stripped.into_iter().chain(trimmed).collect()
}

/// The index of the first file line the hunk replaces.
fn locate(doc: &Doc, hunk: &Hunk, edits: &Edits) -> Result<usize, HunkFailure> {
    let old: Vec<&str> = hunk.old_lines().collect();
    let file = doc.texts();
    if old.is_empty() {
        return insertion_point(file.len(), hunk.old_start, edits);
    }
    let mut blocked = None;
    for level in Level::ALL {
        let (free, overlapping): (Vec<usize>, Vec<usize>) =
            find_all(&file, &old, level).into_iter().partition(|&p| edits.overlapping(p, old.len()).is_none());
        blocked = blocked.or_else(|| overlapping.first().map(|&p| (p, edits.overlapping(p, old.len()))));
        match free[..] {
            [] => {}
            [at] => return Ok(at),
            _ => return pick_by_hint(&free, hunk.old_start, edits),
        }
    }
    Err(match blocked {
        Some((p, Some(hunk))) => HunkFailure::Overlap { hunk, line: p + 1 },
        _ => HunkFailure::NotFound { near: near_match(&file, &old) },
    })
}

/// How tolerant a line comparison is; tried in [`Level::ALL`] order.
#[derive(Debug, Clone, Copy)]
enum Level {
    Exact,
    TrailingWhitespace,
    Indentation,
}

impl Level {
    const ALL: [Self; 3] = [Self::Exact, Self::TrailingWhitespace, Self::Indentation];

    fn same(self, hunk: &str, file: &str) -> bool {
        match self {
            Self::Exact => hunk == file,
            Self::TrailingWhitespace => hunk.trim_end() == file.trim_end(),
            Self::Indentation => hunk.trim() == file.trim(),
        }
    }
}

/// Every index where `old` matches `file` at `level`.
fn find_all(file: &[&str], old: &[&str], level: Level) -> Vec<usize> {
    let Some(last) = file.len().checked_sub(old.len()) else { return Vec::new() };
    (0..=last).filter(|&p| old.iter().zip(&file[p..]).all(|(o, f)| level.same(o, f))).collect()
}

/// Settles several equal matches with the header's line number, or refuses.
fn pick_by_hint(found: &[usize], old_start: Option<usize>, edits: &Edits) -> Result<usize, HunkFailure> {
    let target = old_start.and_then(|l| l.checked_sub(1));
    let hits: Vec<usize> = found.iter().copied().filter(|&p| Some(edits.to_original(p)) == target).collect();
    match hits[..] {
        [at] => Ok(at),
        _ => Err(HunkFailure::Ambiguous { lines: found.iter().map(|p| p + 1).collect() }),
    }
}

/// Where a hunk without old text goes: the start of an empty file, or after line
/// `old_start` (unified-diff convention for `-l,0`).
fn insertion_point(len: usize, old_start: Option<usize>, edits: &Edits) -> Result<usize, HunkFailure> {
    if len == 0 {
        return Ok(0);
    }
    match old_start.map(|l| edits.to_current(l)) {
        Some(at) if at <= len => Ok(at),
        _ => Err(HunkFailure::NoAnchor { old_start }),
    }
}

/// The window of `file` sharing the most non-blank lines with `old` (trimmed, position by
/// position), with its first differing line; `None` when no line is shared.
fn near_match(file: &[&str], old: &[&str]) -> Option<Box<NearMatch>> {
    let same = |p: usize, j: usize| file.get(p + j).is_some_and(|f| f.trim() == old[j].trim());
    let score = |p: usize| (0..old.len()).filter(|&j| !old[j].trim().is_empty() && same(p, j)).count();
    let (best, shared) = (0..file.len()).map(|p| (p, score(p))).max_by_key(|&(p, s)| (s, std::cmp::Reverse(p)))?;
    if shared == 0 {
        return None;
    }
    let lines = file[best..(best + old.len()).min(file.len())].iter().map(|l| (*l).to_owned()).collect();
    let first_diff = (0..old.len()).find(|&j| !same(best, j));
    Some(Box::new(NearMatch {
        start_line: best + 1,
        lines,
        shared,
        first_diff: first_diff.map(|j| (j + 1, old[j].to_owned(), file.get(best + j).map(|l| (*l).to_owned()))),
    }))
}

/// The hunk with the `12: ` / `12 | ` prefixes removed from its old lines (context and
/// removed), when every old line has one and the numbers strictly increase, as they do in
/// the numbered listing the prompt shows. Added lines are left to [`strip_added_numbers`].
fn strip_old_numbers(hunk: &Hunk) -> Option<Hunk> {
    let old: Vec<(usize, &str)> = hunk.old_lines().map(strip_line_number).collect::<Option<_>>()?;
    if old.is_empty() || !old.windows(2).all(|w| w[0].0 < w[1].0) {
        return None;
    }
    let mut texts = old.into_iter().map(|(_, text)| text.to_owned());
    let lines = hunk.lines.iter().map(|line| match line {
        HunkLine::Context(_) => HunkLine::Context(texts.next().unwrap_or_default()),
        HunkLine::Remove(_) => HunkLine::Remove(texts.next().unwrap_or_default()),
        HunkLine::Add(text) => HunkLine::Add(text.clone()),
    });
    Some(Hunk { lines: lines.collect(), ..hunk.clone() })
}

/// The hunk located at `at` with the line-number prefixes removed from its added lines, when
/// (1) every added line has one, (2) the numbers never decrease, (3) each run of added lines
/// is numbered where it goes, as a model that copies the listing numbers it: the run's first
/// number lies between the original line before the lines the run replaces and the original
/// line after them (for `-8: x` / `+8: y`, 7 to 9); (4) none of the file lines the hunk
/// matched has such a prefix (text like `2: mid` in a YAML file is content, and a
/// replacement for it keeps its numbers); and (5) the stripped hunk still changes the file
/// (`-a` / `+1: a` at line 1 is an edit only as written). Otherwise the hunk as it is: added
/// lines go in verbatim. A diff that adds content which itself looks like the listing's
/// numbers at the place it goes is, by this rule, read as numbered (issue 8, item 10).
fn strip_added_numbers<'h>(doc: &Doc, hunk: Cow<'h, Hunk>, at: usize, edits: &Edits) -> Cow<'h, Hunk> {
    let added: Option<Vec<(usize, &str)>> =
        hunk.lines.iter().filter(|l| matches!(l, HunkLine::Add(_))).map(|l| strip_line_number(l.text())).collect();
    let Some(added) = added.filter(|a| !a.is_empty() && a.windows(2).all(|w| w[0].0 <= w[1].0)) else {
        return hunk;
    };
    let old_len = hunk.old_lines().count();
    let numbered_file = doc.lines[at..at + old_len].iter().any(|l| strip_line_number(&l.text).is_some());
    if numbered_file || !runs_numbered_in_place(&hunk, &added, edits.to_original(at) + 1) {
        return hunk;
    }
    let mut texts = added.into_iter().map(|(_, text)| text.to_owned());
    let lines: Vec<HunkLine> = hunk
        .lines
        .iter()
        .map(|line| match line {
            HunkLine::Add(_) => HunkLine::Add(texts.next().unwrap_or_default()),
            other => other.clone(),
        })
        .collect();
    let removed = lines.iter().filter(|l| matches!(l, HunkLine::Remove(_))).map(HunkLine::text);
    let inserted = lines.iter().filter(|l| matches!(l, HunkLine::Add(_))).map(HunkLine::text);
    if removed.eq(inserted) {
        return hunk;
    }
    Cow::Owned(Hunk { lines, ..hunk.as_ref().clone() })
}

/// Condition (3) of [`strip_added_numbers`]: walking the hunk from original line `first`
/// (1-based), the first number of every run of added lines lies between the original line
/// before the removed lines just above the run and the original line after them.
fn runs_numbered_in_place(hunk: &Hunk, added: &[(usize, &str)], first: usize) -> bool {
    #[derive(PartialEq)]
    enum Kind {
        Context,
        Remove,
        Add,
    }
    let (mut next_old, mut removed_from, mut prev) = (first, first, Kind::Context);
    let mut numbers = added.iter().map(|(n, _)| *n);
    for line in &hunk.lines {
        match line {
            HunkLine::Context(_) => {
                next_old += 1;
                prev = Kind::Context;
            }
            HunkLine::Remove(_) => {
                if prev != Kind::Remove {
                    removed_from = next_old;
                }
                next_old += 1;
                prev = Kind::Remove;
            }
            HunkLine::Add(_) => {
                let Some(n) = numbers.next() else { return false };
                let low = if prev == Kind::Remove { removed_from } else { next_old };
                if prev != Kind::Add && !(low.saturating_sub(1)..=next_old).contains(&n) {
                    return false;
                }
                prev = Kind::Add;
            }
        }
    }
    true
}

/// `"  12: x"` → `(12, "x")`, `"12 | x"` → `(12, "x")`; `None` without such a prefix (or
/// with a number too large for `usize`). One space after the separator belongs to the
/// prefix.
fn strip_line_number(line: &str) -> Option<(usize, &str)> {
    let rest = line.trim_start();
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let number = rest[..digits].parse().ok()?;
    let rest = &rest[digits..];
    let rest = rest.strip_prefix(':').or_else(|| rest.trim_start().strip_prefix('|'))?;
    Some((number, rest.strip_prefix(' ').unwrap_or(rest)))
}

/// The hunk without the blank lines (empty or whitespace only) at the start (`lead`) and/or
/// the end (`trail`) of its old text, for a SEARCH or diff context that begins or ends with
/// a blank line the file does not have there. `None` when an asked-for edge has no blank
/// line, or nothing non-blank would be left to anchor the hunk.
///
/// The replacement is never re-indented or changed inside. At each trimmed edge, a blank
/// *removed* line (a SEARCH line) pairs with a blank line at the same edge of the added lines
/// (REPLACE): the model wrote an unchanged blank line on both sides, which is context the file
/// lacks, so up to as many leading (trailing) blank added lines as blank removed lines were
/// trimmed there are dropped too. A blank line only the REPLACE has at its edge stays.
fn trim_blank_edges(hunk: &Hunk, lead: bool, trail: bool) -> Option<Hunk> {
    let blank = |l: &HunkLine| l.text().trim().is_empty();
    let old: Vec<usize> = (0..hunk.lines.len()).filter(|&i| !matches!(hunk.lines[i], HunkLine::Add(_))).collect();
    let head = if lead { old.iter().take_while(|&&i| blank(&hunk.lines[i])).count() } else { 0 };
    let tail = if trail { old.iter().rev().take_while(|&&i| blank(&hunk.lines[i])).count() } else { 0 };
    if (lead && head == 0) || (trail && tail == 0) || head + tail >= old.len() {
        return None;
    }
    let mut drop: Vec<usize> = old[..head].iter().chain(&old[old.len() - tail..]).copied().collect();
    let removed = |ids: &[usize]| ids.iter().filter(|&&i| matches!(hunk.lines[i], HunkLine::Remove(_))).count();
    let added: Vec<usize> = (0..hunk.lines.len()).filter(|&i| matches!(hunk.lines[i], HunkLine::Add(_))).collect();
    let added_head = added.iter().take_while(|&&i| blank(&hunk.lines[i])).count().min(removed(&old[..head]));
    let rest = &added[added_head..];
    let added_tail = rest.iter().rev().take_while(|&&i| blank(&hunk.lines[i])).count();
    drop.extend(&added[..added_head]);
    drop.extend(&rest[rest.len() - added_tail.min(removed(&old[old.len() - tail..]))..]);
    let lines = hunk.lines.iter().enumerate().filter(|(i, _)| !drop.contains(i)).map(|(_, l)| l.clone());
    Some(Hunk { lines: lines.collect(), ..hunk.clone() })
}

/// Replaces the lines the hunk matched at `at` with its new lines.
fn splice(doc: &mut Doc, hunk: &Hunk, at: usize, edits: &mut Edits, number: usize) {
    let mut next = at;
    let mut out: Vec<Line> = Vec::new();
    let mut changed: Option<Range<usize>> = None;
    let mut mark = |range: Range<usize>| {
        changed = Some(changed.clone().map_or(range.clone(), |c| c.start.min(range.start)..c.end.max(range.end)));
    };
    for line in &hunk.lines {
        match line {
            HunkLine::Context(_) => {
                out.push(doc.lines[next].clone());
                next += 1;
            }
            HunkLine::Remove(_) => {
                mark(out.len()..out.len());
                next += 1;
            }
            HunkLine::Add(text) => {
                mark(out.len()..out.len() + 1);
                out.push(Line { text: text.clone(), eol: "" });
            }
        }
    }
    let changed = changed.unwrap_or(0..0);
    edits.record(Edit { hunk: number, at, old_len: next - at, new_len: out.len(), changed, orig_at: 0 });
    doc.lines.splice(at..next, out);
}

/// A hunk already applied, in current-text coordinates (and its original start).
#[derive(Debug, Clone)]
struct Edit {
    hunk: usize,
    at: usize,
    old_len: usize,
    new_len: usize,
    /// The lines it added, or the point where it removed lines, relative to `at` until
    /// recorded, then absolute.
    changed: Range<usize>,
    orig_at: usize,
}

impl Edit {
    fn delta(&self) -> isize {
        self.new_len.cast_signed() - self.old_len.cast_signed()
    }
}

/// The hunks applied so far: for overlap checks and for mapping line numbers between the
/// original and the edited text.
#[derive(Debug, Default)]
struct Edits(Vec<Edit>);

impl Edits {
    fn record(&mut self, mut edit: Edit) {
        edit.orig_at = self.to_original(edit.at);
        edit.changed = edit.at + edit.changed.start..edit.at + edit.changed.end;
        let (end, delta) = (edit.at + edit.old_len, edit.delta());
        for later in self.0.iter_mut().filter(|e| e.at >= end) {
            later.at = later.at.saturating_add_signed(delta);
            later.changed =
                later.changed.start.saturating_add_signed(delta)..later.changed.end.saturating_add_signed(delta);
        }
        self.0.push(edit);
    }

    /// The earlier hunk whose changed lines `[p, p + len)` would touch.
    fn overlapping(&self, p: usize, len: usize) -> Option<usize> {
        let touches = |c: &Range<usize>| {
            if c.is_empty() { p < c.start && c.start < p + len } else { p < c.end && c.start < p + len }
        };
        self.0.iter().find(|e| touches(&e.changed)).map(|e| e.hunk)
    }

    /// Current line index → the original text's line index.
    fn to_original(&self, p: usize) -> usize {
        let shift: isize = self.0.iter().filter(|e| e.at + e.new_len <= p).map(Edit::delta).sum();
        p.saturating_add_signed(-shift)
    }

    /// Original line index → current line index.
    fn to_current(&self, o: usize) -> usize {
        let shift: isize = self.0.iter().filter(|e| e.orig_at + e.old_len <= o).map(Edit::delta).sum();
        o.saturating_add_signed(shift)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hunk(spec: &str, old_start: Option<usize>) -> Hunk {
        let lines = spec.lines().map(|l| match l.split_at(1) {
            (" ", t) => HunkLine::Context(t.to_owned()),
            ("-", t) => HunkLine::Remove(t.to_owned()),
            ("+", t) => HunkLine::Add(t.to_owned()),
            _ => panic!("bad spec line {l:?}"),
        });
        Hunk { lines: lines.collect(), old_start, answer_line: 1 }
    }

    const JAVA: &str = "class A {\n    int f(int n) {\n        return n + 1;\n    }\n\n    int g(int n) {\n        return n + 1;\n    }\n}\n";

    #[test]
    fn exact_match_ignores_wrong_line_numbers() {
        let h = hunk("     int g(int n) {\n-        return n + 1;\n+        return n - 1;", Some(40));
        let out = apply_to_text(JAVA, &[h]).unwrap();
        assert!(out.contains("int g(int n) {\n        return n - 1;"), "{out}");
        assert!(out.contains("int f(int n) {\n        return n + 1;"), "{out}");
    }

    #[test]
    fn ambiguous_match_is_refused_unless_the_hint_picks_one() {
        let h = hunk("-        return n + 1;\n+        return n - 1;", None);
        let err = apply_to_text(JAVA, std::slice::from_ref(&h)).unwrap_err();
        assert_eq!(err.failure, HunkFailure::Ambiguous { lines: vec![3, 7] });
        let out = apply_to_text(JAVA, &[Hunk { old_start: Some(7), ..h }]).unwrap();
        assert!(out.contains("int g(int n) {\n        return n - 1;"), "{out}");
    }

    #[test]
    fn tolerant_levels_keep_file_context_and_verbatim_additions() {
        // Trailing spaces and lost indentation in the hunk; the added line has odd spacing.
        let h = hunk(" int f(int n) {  \n-return n + 1;\n+      return  n * 2;\n     }", None);
        let out = apply_to_text(JAVA, &[h]).unwrap();
        assert!(out.contains("    int f(int n) {\n      return  n * 2;\n    }\n"), "{out}");
    }

    #[test]
    fn not_found_reports_the_closest_region_and_first_difference() {
        let h = hunk("     int g(int n) {\n-        return n + 2;\n+        return n;", None);
        let err = apply_to_text(JAVA, &[h]).unwrap_err();
        let HunkFailure::NotFound { near: Some(near) } = err.failure else { panic!("{err:?}") };
        assert_eq!(near.start_line, 6);
        assert_eq!(near.first_diff, Some((2, "        return n + 2;".into(), Some("        return n + 1;".into()))));
    }

    #[test]
    fn line_number_prefixes_are_stripped_per_side_when_every_line_of_the_side_has_one() {
        let h = hunk(" 6:     int g(int n) {\n-7:         return n + 1;\n+7:         return 0;", None);
        let out = apply_to_text(JAVA, &[h]).unwrap();
        assert!(out.contains("int g(int n) {\n        return 0;"), "{out}");
        let h = hunk(" 6 |     int g(int n) {\n-7 |         return n + 1;\n+        return 0;", None);
        let out = apply_to_text(JAVA, &[h]).unwrap();
        assert!(out.contains("int g(int n) {\n        return 0;"), "{out}");
        // One old line without its number: the old side is not stripped.
        let h = hunk(" 6 |     int g(int n) {\n-        return n + 1;\n+        return 0;", None);
        assert!(matches!(apply_to_text(JAVA, &[h]).unwrap_err().failure, HunkFailure::NotFound { .. }));
        // Added numbers far from where the hunk is are content, inserted verbatim.
        let h = hunk("     int g(int n) {\n-        return n + 1;\n+40: return 0;", None);
        assert!(apply_to_text(JAVA, &[h]).unwrap().contains("int g(int n) {\n40: return 0;"));
        // Numbered where the hunk is but not where the added run goes (line 7 is replaced:
        // 6 to 8 would be the listing's numbers): content.
        let h = hunk("     int g(int n) {\n-        return n + 1;\n+9: return 0;", None);
        assert!(apply_to_text(JAVA, &[h]).unwrap().contains("int g(int n) {\n9: return 0;"));
        // Stripped, the edit would change nothing: the prefix is content.
        let h = hunk("-a\n+1: a", None);
        assert_eq!(apply_to_text("a\nb\n", &[h]).unwrap(), "1: a\nb\n");
    }

    #[test]
    fn blank_edges_pair_removed_with_added_lines() {
        let h = hunk("-\n-a\n-\n+\n+b\n+\n+", None);
        let t = trim_blank_edges(&h, true, true).unwrap();
        assert_eq!(t, hunk("-a\n+b\n+", None));
        let t = trim_blank_edges(&h, true, false).unwrap();
        assert_eq!(t, hunk("-a\n-\n+b\n+\n+", None));
        assert_eq!(trim_blank_edges(&hunk(" a\n-b\n+c", None), true, false), None);
        assert_eq!(trim_blank_edges(&hunk("-\n- \n+c", None), true, true), None);
        // Context blank lines are dropped alone.
        assert_eq!(trim_blank_edges(&hunk(" \n-a\n+\n+b", None), true, false).unwrap(), hunk("-a\n+\n+b", None));
    }

    #[test]
    fn later_hunks_see_earlier_edits_and_may_not_overlap_them() {
        let one = hunk("     int f(int n) {\n-        return n + 1;\n+        return n + 10;", None);
        let two = hunk("-        return n + 10;\n+        return 3;", None);
        let err = apply_to_text(JAVA, &[one, two]).unwrap_err();
        assert_eq!((err.hunk, err.failure), (2, HunkFailure::Overlap { hunk: 1, line: 3 }));
        // The hint of hunk 2 counts original lines, shifted past hunk 1's growth.
        let grow = hunk("     int f(int n) {\n+        n++;", None);
        let two = hunk("-        return n + 1;\n+        return 3;", Some(7));
        let out = apply_to_text(JAVA, &[grow, two]).unwrap();
        assert!(out.contains("n++;\n        return n + 1;") && out.contains("g(int n) {\n        return 3;"), "{out}");
    }

    #[test]
    fn insertions_need_an_anchor_or_an_empty_file() {
        let add = hunk("+x = 1", None);
        assert_eq!(apply_to_text("", std::slice::from_ref(&add)).unwrap(), "x = 1\n");
        let err = apply_to_text("a\n", std::slice::from_ref(&add)).unwrap_err();
        assert_eq!(err.failure, HunkFailure::NoAnchor { old_start: None });
        assert_eq!(apply_to_text("a\nb\n", &[Hunk { old_start: Some(1), ..add }]).unwrap(), "a\nx = 1\nb\n");
    }

    #[test]
    fn crlf_and_missing_final_newline_are_preserved() {
        let h = hunk(" a\n-b\n+B1\n+B2", None);
        assert_eq!(apply_to_text("a\r\nb\r\nc\r\n", std::slice::from_ref(&h)).unwrap(), "a\r\nB1\r\nB2\r\nc\r\n");
        assert_eq!(apply_to_text("a\nb", std::slice::from_ref(&h)).unwrap(), "a\nB1\nB2");
        assert_eq!(apply_to_text("a\r\nb", &[h]).unwrap(), "a\r\nB1\r\nB2");
    }

    #[test]
    fn strip_line_number_forms() {
        assert_eq!(strip_line_number("12:     x"), Some((12, "    x")));
        assert_eq!(strip_line_number("  12 | x"), Some((12, "x")));
        assert_eq!(strip_line_number("7:"), Some((7, "")));
        assert_eq!(strip_line_number("x: 1"), None);
        assert_eq!(strip_line_number("12 x"), None);
        assert_eq!(strip_line_number("99999999999999999999999: x"), None);
    }
}
