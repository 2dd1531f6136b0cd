//! The Slicer's window (UniDebugger, ../shared/papers/unidebugger.txt, Knowl 3 agent 4): a
//! contiguous suspicious window of [`MIN_LINES`] to [`MAX_LINES`] lines of the buggy file,
//! found by the content of its boundary lines, never by line numbers.
//!
//! The Slicer names the window by quoting its first and last lines, `FIRST: <exact line>`
//! and `LAST: <exact line>` (a leading list marker or `**`, and backticks around the line,
//! are allowed; the last such line of the answer counts). Without both, the first and last
//! non-blank lines of the answer's last fenced code block are the boundaries. Lines are
//! compared with whitespace collapsed and trimmed. [`locate`] validates the window against
//! the file; [`around`] is the window used when the Slicer gives no valid answer.

use serde::Serialize;

use super::marks::{collapse_whitespace, fenced_blocks};

/// The fewest lines a window has; shorter ones are widened.
pub const MIN_LINES: usize = 20;

/// The most lines a window the Slicer names may have; longer ones are refused.
pub const MAX_LINES: usize = 100;

/// A window of the buggy file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Slice {
    /// 1-based first line.
    pub start: usize,
    /// 1-based last line, inclusive (`start - 1` for an empty window).
    pub end: usize,
}

impl Slice {
    /// The number of lines in the window (0 when `end < start`).
    pub fn len(&self) -> usize {
        (self.end + 1).saturating_sub(self.start)
    }

    /// Whether the window has no line (only for an empty file).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The window the Slicer's `answer` names, validated against `file_text`. `near` is the
/// located buggy lines (1-based inclusive): when FIRST occurs several times, the last
/// occurrence at or before `near.0` is taken, else the first after it; the window ends at
/// the first occurrence of LAST at or after the located code's end `near.1` when FIRST is
/// at or before it (the window covers the located code), else at or after FIRST. A window shorter than [`MIN_LINES`] is
/// widened symmetrically to [`MIN_LINES`] within the file (the whole file when it is
/// shorter than that). O(file lines).
///
/// # Errors
/// The reason, worded for the re-ask: "the answer names no FIRST/LAST line", "the first
/// line `…` is not in the file", "the last line `…` is not after the first line in the
/// file", "the window is 140 lines; at most 100".
pub fn locate(file_text: &str, answer: &str, near: (usize, usize)) -> Result<Slice, String> {
    let (first, last) = boundaries(answer).ok_or("the answer names no FIRST/LAST line")?;
    let lines: Vec<String> = file_text.lines().map(collapse_whitespace).collect();
    let start =
        first_line(&lines, &first, near.0).ok_or_else(|| format!("the first line `{first}` is not in the file"))?;
    // A window that starts before the located code should cover it: a generic LAST line
    // (`}`) is first sought from the located code's end.
    let is_last = |line: &usize| lines[line - 1] == last;
    let covering = if start <= near.1 { (near.1.min(lines.len())..=lines.len()).find(is_last) } else { None };
    let end = covering
        .or_else(|| (start..=lines.len()).find(is_last))
        .ok_or_else(|| format!("the last line `{last}` is not after the first line in the file"))?;
    let slice = Slice { start, end };
    if slice.len() > MAX_LINES {
        return Err(format!("the window is {} lines; at most {MAX_LINES}", slice.len()));
    }
    Ok(widen(slice, lines.len()))
}

/// The window used when the Slicer gives no valid answer: `near` (1-based inclusive,
/// clamped to the file) widened symmetrically to [`MIN_LINES`] within the file, or its first
/// [`MAX_LINES`] lines when it is longer than that. Empty (`1..=0`) for an empty file.
pub fn around(file_text: &str, near: (usize, usize)) -> Slice {
    let total = file_text.lines().count();
    let start = near.0.clamp(1, total.max(1));
    let slice = Slice { start, end: near.1.min(total).max(start.min(total)) };
    if slice.len() > MAX_LINES {
        return Slice { start, end: start + MAX_LINES - 1 };
    }
    widen(slice, total)
}

/// `slice` widened symmetrically to [`MIN_LINES`] within a file of `total` lines (shifted
/// where it meets either end; the whole file when the file is shorter); unchanged when it
/// is long enough.
fn widen(slice: Slice, total: usize) -> Slice {
    if slice.len() >= MIN_LINES {
        return slice;
    }
    if total <= MIN_LINES {
        return Slice { start: 1, end: total };
    }
    let extra = MIN_LINES - slice.len();
    let start = slice.start.saturating_sub(extra / 2).clamp(1, total + 1 - MIN_LINES);
    Slice { start, end: start + MIN_LINES - 1 }
}

/// The FIRST and LAST lines the answer names (whitespace collapsed): its labelled lines, or
/// else the first and last non-blank lines of its last fenced block.
fn boundaries(answer: &str) -> Option<(String, String)> {
    if let (Some(first), Some(last)) = (labelled(answer, "FIRST"), labelled(answer, "LAST")) {
        return Some((first, last));
    }
    let block = fenced_blocks(answer).pop()?;
    let mut code = block.iter().map(|line| collapse_whitespace(line)).filter(|line| !line.is_empty());
    let first = code.next()?;
    let last = code.next_back().unwrap_or_else(|| first.clone());
    Some((first, last))
}

/// The code after the answer's last line `<label>: <code>` (case-insensitive; list
/// markers, `**` and backticks around the code allowed), whitespace collapsed; `None` when
/// there is none or it is empty.
fn labelled(answer: &str, label: &str) -> Option<String> {
    answer.lines().rev().find_map(|line| {
        let text = line.trim().trim_start_matches(['-', '*', ' ']);
        let head = text.get(..label.len())?;
        let rest = text[label.len()..].trim_start_matches('*').strip_prefix(':')?;
        let code = collapse_whitespace(strip_backticks(rest.trim_start_matches('*').trim()));
        (head.eq_ignore_ascii_case(label) && !code.is_empty()).then_some(code)
    })
}

/// `text` without one pair of surrounding backticks, if it has them.
fn strip_backticks(text: &str) -> &str {
    text.strip_prefix('`').and_then(|inner| inner.strip_suffix('`')).unwrap_or(text)
}

/// The 1-based line equal to `first`: the last at or before `near`, else the first after.
fn first_line(lines: &[String], first: &str, near: usize) -> Option<usize> {
    let matches = (1..=lines.len()).filter(|&line| lines[line - 1] == first);
    let (before, after): (Vec<usize>, Vec<usize>) = matches.partition(|&line| line <= near);
    before.last().or(after.first()).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of `count` lines `line 1` .. `line <count>`.
    fn numbered(count: usize) -> String {
        (1..=count).map(|n| format!("line {n}\n")).collect()
    }

    /// A file of `count` numbered lines where the lines in `marker` read `int x = 0;`
    /// (indented) and those in `closer` read `}`.
    fn with_repeats(count: usize, marker: &[usize], closer: &[usize]) -> String {
        let text = |n: usize| match n {
            n if marker.contains(&n) => "    int x = 0;".to_string(),
            n if closer.contains(&n) => "}".to_string(),
            n => format!("line {n}"),
        };
        (1..=count).map(|n| text(n) + "\n").collect()
    }

    fn slice(start: usize, end: usize) -> Slice {
        Slice { start, end }
    }

    #[test]
    fn labelled_window_in_range_is_kept() {
        let answer = "The loop is suspicious.\nFIRST: line 10\nLAST: line 40\n";
        assert_eq!(locate(&numbered(200), answer, (15, 16)), Ok(slice(10, 40)));
    }

    #[test]
    fn labels_accept_markers_bold_backticks_and_case() {
        let answer = "- **First:** `line 10`\n* last:   line   39  \n";
        assert_eq!(locate(&numbered(200), answer, (15, 16)), Ok(slice(10, 39)));
    }

    #[test]
    fn the_last_labelled_line_counts() {
        let answer = "FIRST: line 1\nLAST: line 30\nOn second thought:\nFIRST: line 50\nLAST: line 80";
        assert_eq!(locate(&numbered(200), answer, (60, 60)), Ok(slice(50, 80)));
    }

    #[test]
    fn fenced_block_boundaries_without_labels() {
        let answer = "Here:\n```java\n\n  line 30\n  line 31\n  ...\n  line 60\n\n```\nDone.";
        assert_eq!(locate(&numbered(200), answer, (40, 40)), Ok(slice(30, 60)));
    }

    #[test]
    fn only_one_label_falls_back_to_the_block() {
        let answer = "FIRST: line 3\n```\nline 30\nline 55\n```";
        assert_eq!(locate(&numbered(200), answer, (40, 40)), Ok(slice(30, 55)));
    }

    #[test]
    fn answer_without_boundaries_refused() {
        let reason = "the answer names no FIRST/LAST line".to_string();
        assert_eq!(locate(&numbered(200), "The bug is in the loop.", (40, 40)), Err(reason.clone()));
        assert_eq!(locate(&numbered(200), "FIRST: line 3\nLAST:   ", (40, 40)), Err(reason));
    }

    #[test]
    fn first_line_not_in_the_file_refused() {
        let answer = "FIRST: for (int i = 0; i < n; i++) {\nLAST: line 40";
        let reason = "the first line `for (int i = 0; i < n; i++) {` is not in the file";
        assert_eq!(locate(&numbered(200), answer, (30, 30)), Err(reason.to_string()));
    }

    #[test]
    fn last_line_before_the_first_refused() {
        let reason = "the last line `line 10` is not after the first line in the file";
        assert_eq!(locate(&numbered(200), "FIRST: line 30\nLAST: line 10", (30, 30)), Err(reason.to_string()));
        let missing = "the last line `return x;` is not after the first line in the file";
        assert_eq!(locate(&numbered(200), "FIRST: line 30\nLAST: return x;", (30, 30)), Err(missing.to_string()));
    }

    #[test]
    fn window_longer_than_max_refused() {
        let reason = "the window is 140 lines; at most 100";
        assert_eq!(locate(&numbered(300), "FIRST: line 11\nLAST: line 150", (20, 20)), Err(reason.to_string()));
        assert_eq!(locate(&numbered(300), "FIRST: line 11\nLAST: line 110", (20, 20)), Ok(slice(11, 110)));
    }

    #[test]
    fn short_window_widened_symmetrically() {
        assert_eq!(locate(&numbered(200), "FIRST: line 50\nLAST: line 59", (52, 52)), Ok(slice(45, 64)));
        assert_eq!(locate(&numbered(200), "FIRST: line 50\nLAST: line 50", (50, 50)), Ok(slice(41, 60)));
    }

    #[test]
    fn widening_shifts_at_the_file_ends() {
        assert_eq!(locate(&numbered(200), "FIRST: line 2\nLAST: line 5", (3, 3)), Ok(slice(1, 20)));
        assert_eq!(locate(&numbered(200), "FIRST: line 195\nLAST: line 199", (196, 196)), Ok(slice(181, 200)));
    }

    #[test]
    fn file_shorter_than_min_gives_the_whole_file() {
        assert_eq!(locate(&numbered(12), "FIRST: line 4\nLAST: line 6", (5, 5)), Ok(slice(1, 12)));
    }

    #[test]
    fn repeated_first_prefers_the_match_at_or_before_near() {
        let file = with_repeats(200, &[20, 60, 100], &[90, 130]);
        let answer = "FIRST: int x = 0;\nLAST: }";
        assert_eq!(locate(&file, answer, (70, 75)), Ok(slice(60, 90)));
        assert_eq!(locate(&file, answer, (60, 60)), Ok(slice(60, 90)));
    }

    #[test]
    fn repeated_first_after_near_when_none_before() {
        let file = with_repeats(200, &[60, 100], &[90, 130]);
        assert_eq!(locate(&file, "FIRST: int x = 0;\nLAST: }", (30, 30)), Ok(slice(60, 90)));
    }

    #[test]
    fn last_is_its_first_match_after_first() {
        let file = with_repeats(200, &[100], &[90, 130, 150]);
        assert_eq!(locate(&file, "FIRST: int x = 0;\nLAST: }", (100, 100)), Ok(slice(100, 130)));
    }

    #[test]
    fn last_is_sought_from_the_located_code_end_when_first_is_before_it() {
        let file = with_repeats(200, &[100], &[110, 130, 150]);
        assert_eq!(locate(&file, "FIRST: int x = 0;\nLAST: }", (105, 120)), Ok(slice(100, 130)));
        // No LAST after the located code: the first after FIRST.
        assert_eq!(locate(&file, "FIRST: int x = 0;\nLAST: }", (105, 160)), Ok(slice(96, 115)), "widened to 20 lines");
    }

    #[test]
    fn around_widens_a_short_range() {
        assert_eq!(around(&numbered(200), (50, 53)), slice(42, 61));
        assert_eq!(around(&numbered(200), (1, 1)), slice(1, 20));
        assert_eq!(around(&numbered(200), (200, 200)), slice(181, 200));
    }

    #[test]
    fn around_keeps_a_medium_range_and_cuts_a_long_one() {
        assert_eq!(around(&numbered(300), (10, 60)), slice(10, 60));
        assert_eq!(around(&numbered(300), (10, 250)), slice(10, 109));
    }

    #[test]
    fn around_clamps_to_the_file() {
        assert_eq!(around(&numbered(10), (4, 6)), slice(1, 10));
        assert_eq!(around(&numbered(50), (0, 500)), slice(1, 50));
        assert_eq!(around(&numbered(50), (70, 80)), slice(31, 50));
        assert!(around("", (3, 4)).is_empty());
    }

    #[test]
    fn len_and_is_empty() {
        assert_eq!(slice(3, 7).len(), 5);
        assert_eq!(slice(1, 0).len(), 0);
        assert!(slice(1, 0).is_empty());
        assert!(!slice(4, 4).is_empty());
    }
}
