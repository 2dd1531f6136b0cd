//! Where the bug is in a document: the lines of `buggy_code` that its fix changes, for
//! rule `cause-first-window-v1` ([`engine::embed::window`]).

use engine::embed::LineRange;
use similar::{DiffTag, TextDiff};

/// The longest a pair's line diff may take (then its result is coarser, never narrower).
pub const DIFF_DEADLINE: std::time::Duration = std::time::Duration::from_secs(1);

/// The buggy lines of a pair (1-based, inclusive, relative to `buggy`): the span from the
/// first to the last line of `buggy` that the line diff `buggy → fixed` deletes or
/// replaces; for a pure insertion, the lines on either side of the insertion point (the
/// one before and the one after, where they exist). Several hunks give one span over all
/// of them. `None` when the two texts have the same lines or `buggy` is empty.
///
/// Lines are split as [`str::lines`] does (`\n` or `\r\n`), so line numbers match those
/// the window rule counts. O((n + m) · d) for a diff of `d` lines (Myers), cut off after
/// [`DIFF_DEADLINE`]: a huge rewritten row (500,000 changed lines) then gets a coarser span,
/// which still holds every changed line, instead of an index build that does not end (the
/// deadline `fixdex mine` puts on its file diffs).
pub fn buggy_lines(buggy: &str, fixed: &str) -> Option<LineRange> {
    let n = buggy.lines().count();
    if n == 0 {
        return None;
    }
    let diff = TextDiff::configure().timeout(DIFF_DEADLINE).diff_lines(buggy, fixed);
    let mut span: Option<(usize, usize)> = None;
    let mut add = |a: usize, b: usize| {
        let (a, b) = (a.min(n - 1), b.min(n - 1));
        span = Some(span.map_or((a, b), |(x, y)| (x.min(a), y.max(b))));
    };
    for op in diff.ops() {
        let (tag, old, _) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {}
            DiffTag::Delete | DiffTag::Replace => add(old.start, old.end - 1),
            DiffTag::Insert => add(old.start.saturating_sub(1), old.start),
        }
    }
    span.map(|(a, b)| LineRange { first: a + 1, last: b + 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(first: usize, last: usize) -> Option<LineRange> {
        Some(LineRange { first, last })
    }

    #[test]
    fn changed_deleted_and_inserted_lines() {
        let buggy = "a\nb\nc\nd\ne\n";
        assert_eq!(buggy_lines(buggy, "a\nb\nX\nd\ne\n"), r(3, 3));
        assert_eq!(buggy_lines(buggy, "a\nb\nd\ne\n"), r(3, 3));
        assert_eq!(buggy_lines(buggy, "a\nb\nc\nNEW\nd\ne\n"), r(3, 4));
        assert_eq!(buggy_lines(buggy, "NEW\na\nb\nc\nd\ne\n"), r(1, 1));
        assert_eq!(buggy_lines(buggy, "a\nb\nc\nd\ne\nNEW\n"), r(5, 5));
        assert_eq!(buggy_lines(buggy, "A\nb\nc\nd\nE\n"), r(1, 5));
        assert_eq!(buggy_lines(buggy, buggy), None);
        assert_eq!(buggy_lines("", "x\n"), None);
    }

    /// A row whose every line changes (Myers' worst case, d = n + m) still gets a span,
    /// over every changed line: here all of them.
    #[test]
    fn a_huge_rewritten_row_gets_a_span_over_its_changed_lines() {
        let n = 60_000;
        let buggy: String = (0..n).map(|i| format!("a{i}\n")).collect();
        let fixed: String = (0..n).map(|i| format!("b{i}\n")).collect();
        assert_eq!(buggy_lines(&buggy, &fixed), r(1, n));
        // Changed lines at both ends of a long unchanged middle: one span over both.
        let mut edited: Vec<String> = buggy.lines().map(String::from).collect();
        edited[10] = "x".into();
        edited[n - 10] = "y".into();
        assert_eq!(buggy_lines(&buggy, &(edited.join("\n") + "\n")), r(11, n - 9));
    }

    #[test]
    fn crlf_counts_lines_like_lf() {
        assert_eq!(buggy_lines("a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n"), r(2, 2));
    }
}
