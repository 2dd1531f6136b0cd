//! Where the bug is in a document: the lines of `buggy_code` that its fix changes, for
//! rule `cause-first-window-v1` ([`engine::embed::window`]).

use engine::embed::LineRange;
use similar::{DiffTag, TextDiff};

/// The buggy lines of a pair (1-based, inclusive, relative to `buggy`): the span from the
/// first to the last line of `buggy` that the line diff `buggy → fixed` deletes or
/// replaces; for a pure insertion, the lines on either side of the insertion point (the
/// one before and the one after, where they exist). Several hunks give one span over all
/// of them. `None` when the two texts have the same lines or `buggy` is empty.
///
/// Lines are split as [`str::lines`] does (`\n` or `\r\n`), so line numbers match those
/// the window rule counts. O((n + m) · d) for a diff of `d` lines (Myers).
pub fn buggy_lines(buggy: &str, fixed: &str) -> Option<LineRange> {
    let n = buggy.lines().count();
    if n == 0 {
        return None;
    }
    let diff = TextDiff::from_lines(buggy, fixed);
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

    #[test]
    fn crlf_counts_lines_like_lf() {
        assert_eq!(buggy_lines("a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n"), r(2, 2));
    }
}
