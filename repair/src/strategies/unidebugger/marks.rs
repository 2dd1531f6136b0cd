//! The Locator's marks (UniDebugger, ../shared/papers/unidebugger.txt, Knowl 3 agent 5 and
//! Knowl 4): which lines of the buggy file the model calls suspicious, placed by matching
//! the code it quotes against the file, never by the line numbers it might give.
//!
//! The Locator is shown the lines `region.0..=region.1` of the buggy file and answers with a
//! copy of the suspicious part of that code carrying marker comments: ` // buggy line`
//! appended to a suspicious line, and `// missing code: <the code>` either on a line of its
//! own or appended to the line after which the code is missing (`#` instead of `//` in
//! Python). [`apply`] turns the answer into [`Mark`]s on lines of the file; [`render`] writes
//! the region back with the marks as comments, from the original text.
//!
//! # Matching rules
//! - The quoted code is the last fenced block (```` ``` ````) of the answer that holds a
//!   marker; when no block holds one, all the answer's lines. An unclosed block runs to the
//!   end of the answer.
//! - A marker is recognised only at the end of a line: `(//|#)\s*buggy line\s*$` or
//!   `(//|#)\s*missing code\s*:\s*(.*)$`, either comment prefix, case-insensitively. What
//!   precedes it is the quoted code line, so a Python line keeps its own `#` comment.
//! - Lines are compared with their whitespace collapsed and trimmed; a quoted code line must
//!   equal a line inside the region.
//! - A marker with no code before it on its line (a bare `// buggy line` or
//!   `// missing code: x` line) marks the previous code line of the block; with no code line
//!   before it in the block, it is refused.
//! - When the marked code occurs several times in the region, the block's neighbouring code
//!   lines decide: for each occurrence, fixdex counts how many of the block's code lines
//!   before it, then after it, equal the region's non-blank lines before, then after, that
//!   occurrence (walking outwards until the first difference). The occurrence with the
//!   single highest count above zero wins; otherwise the mark is refused.
//! - Quoted lines without a marker are context only: they need not match (models
//!   abbreviate), but they take part in the neighbour comparison.
//! - A `missing code:` marker without code, a marked line that is not in the region, and an
//!   answer without any marker (`no line is marked`) are refused; each refusal is one
//!   reason naming the quoted text, for the re-ask.

use serde::Serialize;

use crate::Language;

/// What a [`Mark`] says about its line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkKind {
    /// The line is suspicious (`// buggy line`).
    Buggy,
    /// Code is missing after the line: the model's guess of it (`// missing code: <code>`),
    /// trimmed, never empty.
    Missing(String),
}

/// One mark placed on the buggy file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mark {
    /// 1-based line of the file (inside the region shown).
    pub line: usize,
    /// What the mark says.
    pub kind: MarkKind,
}

/// The outcome of [`apply`]: the marks placed and the reasons for those refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Marked {
    /// The marks placed, in line order (stable: a line's marks keep the answer's order),
    /// without duplicates.
    pub marks: Vec<Mark>,
    /// One reason per mark that could not be placed, naming the quoted text; `no line is
    /// marked` alone when the answer has no marker.
    pub refused: Vec<String>,
}

impl Marked {
    /// At least one mark placed and none refused (the paper's `ValidMarks`).
    pub fn valid(&self) -> bool {
        !self.marks.is_empty() && self.refused.is_empty()
    }
}

/// Places the marks of the Locator's `answer` on `file_text`, whose lines
/// `region.0..=region.1` (1-based inclusive, clamped to the file) the model was shown, by
/// the module's matching rules. Never fails: what cannot be placed is in
/// [`Marked::refused`]. O(marks × region lines × block lines).
pub fn apply(file_text: &str, region: (usize, usize), answer: &str) -> Marked {
    let quoted = quoted_lines(answer);
    if quoted.iter().all(|q| q.marker.is_none()) {
        return Marked { marks: Vec::new(), refused: vec!["no line is marked".to_string()] };
    }
    let shown = Shown::new(file_text, region);
    let mut marked = Marked::default();
    for (index, quote) in quoted.iter().enumerate() {
        let Some(kind) = &quote.marker else { continue };
        match place(&shown, &quoted, index, kind) {
            Ok(mark) if !marked.marks.contains(&mark) => marked.marks.push(mark),
            Ok(_) => {}
            Err(reason) => marked.refused.push(reason),
        }
    }
    marked.marks.sort_by_key(|mark| mark.line);
    marked
}

/// The lines `region.0..=region.1` of `file_text` (1-based inclusive, clamped to the file),
/// each ending in `\n`, with `marks` as comments in `lang`'s syntax (`#` for Python, `//`
/// otherwise and for `None`): ` // buggy line` appended to a buggy line, and after a line
/// with missing code a new line, indented like it, `// missing code: <code>`. Not numbered;
/// marks outside the region are ignored. The markers are written by fixdex, never copied
/// from the model. Empty for an empty region.
pub fn render(file_text: &str, region: (usize, usize), marks: &[Mark], lang: Option<Language>) -> String {
    let prefix = comment_prefix(lang);
    let lines: Vec<&str> = file_text.lines().collect();
    let (start, end) = clamp(region, lines.len());
    let mut out = String::new();
    for line in start..=end {
        render_line(&mut out, line, lines[line - 1], marks, prefix);
    }
    out
}

/// `text` with its whitespace runs collapsed to one space and trimmed: the form in which
/// quoted and file lines are compared (also used by the slicer).
pub(crate) fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The contents of the answer's fenced code blocks (lines between ```` ``` ```` fences), in
/// order; an unclosed block runs to the end.
pub(crate) fn fenced_blocks(answer: &str) -> Vec<Vec<&str>> {
    let mut blocks = Vec::new();
    let mut open: Option<Vec<&str>> = None;
    for line in answer.lines() {
        if line.trim_start().starts_with("```") {
            match open.take() {
                Some(block) => blocks.push(block),
                None => open = Some(Vec::new()),
            }
        } else if let Some(block) = open.as_mut() {
            block.push(line);
        }
    }
    blocks.extend(open);
    blocks
}

/// One quoted line of the answer: its code (whitespace collapsed; empty for a bare marker
/// or a blank line) and its marker.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Quoted {
    code: String,
    marker: Option<MarkKind>,
}

/// The answer's quoted lines: the last fenced block with a marker, else all its lines.
fn quoted_lines(answer: &str) -> Vec<Quoted> {
    let parse = |lines: &[&str]| lines.iter().map(|line| parse_quoted(line)).collect::<Vec<_>>();
    fenced_blocks(answer)
        .iter()
        .rev()
        .map(|block| parse(block))
        .find(|quoted| quoted.iter().any(|q| q.marker.is_some()))
        .unwrap_or_else(|| parse(&answer.lines().collect::<Vec<_>>()))
}

/// `line` split into its code and its end-of-line marker, if any.
fn parse_quoted(line: &str) -> Quoted {
    match split_marker(line) {
        Some((code, kind)) => Quoted { code: collapse_whitespace(code), marker: Some(kind) },
        None => Quoted { code: collapse_whitespace(line), marker: None },
    }
}

/// The text before `line`'s marker comment and the marker, taking the leftmost comment
/// start (`//` or `#`) after which a whole marker follows.
fn split_marker(line: &str) -> Option<(&str, MarkKind)> {
    let mut starts: Vec<(usize, usize)> = line.match_indices("//").map(|(at, _)| (at, 2)).collect();
    starts.extend(line.match_indices('#').map(|(at, _)| (at, 1)));
    starts.sort_unstable();
    starts.into_iter().find_map(|(at, len)| marker_in(&line[at + len..]).map(|kind| (&line[..at], kind)))
}

/// The marker that `comment` (the text after `//` or `#`) consists of, if it is one.
fn marker_in(comment: &str) -> Option<MarkKind> {
    let comment = comment.trim_start();
    let lower = comment.to_ascii_lowercase();
    if lower.trim_end() == "buggy line" {
        return Some(MarkKind::Buggy);
    }
    let rest = lower.strip_prefix("missing code")?.trim_start().strip_prefix(':')?;
    Some(MarkKind::Missing(comment[comment.len() - rest.len()..].trim().to_string()))
}

/// The region the model was shown, its lines with whitespace collapsed.
#[derive(Debug)]
struct Shown {
    /// 1-based line of `lines[0]`.
    start: usize,
    lines: Vec<String>,
}

impl Shown {
    fn new(file_text: &str, region: (usize, usize)) -> Shown {
        let all: Vec<&str> = file_text.lines().collect();
        let (start, end) = clamp(region, all.len());
        let lines = (start..=end).map(|line| collapse_whitespace(all[line - 1])).collect();
        Shown { start, lines }
    }

    /// The 1-based lines of the region equal to `code`.
    fn occurrences(&self, code: &str) -> Vec<usize> {
        (0..self.lines.len()).filter(|&i| self.lines[i] == code).map(|i| i + self.start).collect()
    }

    /// The non-blank lines of the region before (`forward` false, nearest first) or after
    /// `line`.
    fn neighbours(&self, line: usize, forward: bool) -> Vec<&str> {
        let index = line - self.start;
        let side = if forward { &self.lines[index + 1..] } else { &self.lines[..index] };
        let mut found: Vec<&str> = side.iter().map(String::as_str).filter(|l| !l.is_empty()).collect();
        if !forward {
            found.reverse();
        }
        found
    }
}

/// The mark that the marker `kind` of `quoted[index]` makes, or why it cannot be placed.
fn place(shown: &Shown, quoted: &[Quoted], index: usize, kind: &MarkKind) -> Result<Mark, String> {
    if *kind == MarkKind::Missing(String::new()) {
        return Err(format!("the missing-code mark after `{}` gives no code", anchor_text(quoted, index)));
    }
    let anchor = if quoted[index].code.is_empty() { previous_code(quoted, index) } else { Some(index) };
    let Some(anchor) = anchor else {
        return Err(format!("the mark `{}` has no code line before it", marker_text(kind)));
    };
    let line = find_line(shown, quoted, anchor)?;
    Ok(Mark { line, kind: kind.clone() })
}

/// The index of the nearest code line of `quoted` before `index`.
fn previous_code(quoted: &[Quoted], index: usize) -> Option<usize> {
    (0..index).rev().find(|&i| !quoted[i].code.is_empty())
}

/// The code that the marker of `quoted[index]` attaches to, for messages (may be empty).
fn anchor_text(quoted: &[Quoted], index: usize) -> &str {
    let anchor = if quoted[index].code.is_empty() { previous_code(quoted, index) } else { Some(index) };
    anchor.map_or("", |i| quoted[i].code.as_str())
}

/// A marker as fixdex names it in messages.
fn marker_text(kind: &MarkKind) -> String {
    match kind {
        MarkKind::Buggy => "// buggy line".to_string(),
        MarkKind::Missing(code) => format!("// missing code: {code}"),
    }
}

/// The 1-based line of the region that `quoted[anchor]` is, by text and then neighbours.
fn find_line(shown: &Shown, quoted: &[Quoted], anchor: usize) -> Result<usize, String> {
    let code = &quoted[anchor].code;
    let candidates = shown.occurrences(code);
    match candidates.as_slice() {
        [] => Err(format!("`{code}` is not a line of the code shown")),
        [line] => Ok(*line),
        _ => best_by_context(shown, quoted, anchor, &candidates).ok_or_else(|| {
            format!("`{code}` occurs {} times in the code shown and its neighbours do not tell which", candidates.len())
        }),
    }
}

/// The candidate whose neighbours agree best with the block's, when exactly one agrees
/// best and at least one neighbour agrees.
fn best_by_context(shown: &Shown, quoted: &[Quoted], anchor: usize, candidates: &[usize]) -> Option<usize> {
    let scores: Vec<usize> = candidates.iter().map(|&line| context_score(shown, quoted, anchor, line)).collect();
    let best = *scores.iter().max()?;
    let winners: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] == best).collect();
    match winners.as_slice() {
        [only] if best > 0 => Some(candidates[*only]),
        _ => None,
    }
}

/// How many code lines of the block, walking outwards from `quoted[anchor]` on each side,
/// equal the region's non-blank lines around `line`, up to the first difference.
fn context_score(shown: &Shown, quoted: &[Quoted], anchor: usize, line: usize) -> usize {
    let code = |q: &&Quoted| !q.code.is_empty();
    let before: Vec<&str> = quoted[..anchor].iter().rev().filter(code).map(|q| q.code.as_str()).collect();
    let after: Vec<&str> = quoted[anchor + 1..].iter().filter(code).map(|q| q.code.as_str()).collect();
    agreeing(&before, &shown.neighbours(line, false)) + agreeing(&after, &shown.neighbours(line, true))
}

/// The length of the common prefix of `quoted` and `file`.
fn agreeing(quoted: &[&str], file: &[&str]) -> usize {
    quoted.iter().zip(file).take_while(|(q, f)| q == f).count()
}

/// `region` clamped to a file of `line_count` lines: start at least 1, end at most the
/// count (start > end for an empty region).
fn clamp(region: (usize, usize), line_count: usize) -> (usize, usize) {
    (region.0.max(1), region.1.min(line_count))
}

/// The line-comment prefix of `lang`: `#` for Python, `//` otherwise.
fn comment_prefix(lang: Option<Language>) -> &'static str {
    match lang {
        Some(Language::Python) => "#",
        _ => "//",
    }
}

/// Appends file line `line` (`text`) to `out` with its marks.
fn render_line(out: &mut String, line: usize, text: &str, marks: &[Mark], prefix: &str) {
    let here = marks.iter().filter(|mark| mark.line == line);
    out.push_str(text);
    if here.clone().any(|mark| mark.kind == MarkKind::Buggy) {
        out.push_str(&format!(" {prefix} buggy line"));
    }
    out.push('\n');
    let indent = &text[..text.len() - text.trim_start().len()];
    for mark in here {
        if let MarkKind::Missing(code) = &mark.kind {
            out.push_str(&format!("{indent}{prefix} missing code: {code}\n"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const JAVA: &str = "\
public class Calc {
    public int sum(int[] xs) {
        int total = 0;
        for (int i = 1; i < xs.length; i++) {
            total += xs[i];
        }
        return total;
    }
}
";

    const PYTHON: &str = "\
def mean(xs):
    # average of xs
    total = 0
    for x in xs:
        total += x  # accumulate
    return total / len(xs)
";

    /// Lines 1..=10, with `x = 1;` on lines 3 and 7 (neighbours differ) and `}` on 5 and 9.
    const DUPLICATES: &str = "\
void f() {
    a();
    x = 1;
    b();
}
void g() {
    x = 1;
    c();
    }
    return;
";

    fn mark(line: usize, kind: MarkKind) -> Mark {
        Mark { line, kind }
    }

    fn missing(code: &str) -> MarkKind {
        MarkKind::Missing(code.to_string())
    }

    #[test]
    fn java_method_with_one_buggy_line() {
        let answer = "```java\n    for (int i = 1; i < xs.length; i++) { // buggy line\n        total += xs[i];\n```";
        let marked = apply(JAVA, (2, 8), answer);
        assert_eq!(marked, Marked { marks: vec![mark(4, MarkKind::Buggy)], refused: vec![] });
        assert!(marked.valid());
    }

    #[test]
    fn whitespace_and_marker_case_do_not_matter() {
        let answer = "for (int i = 1;   i < xs.length; i++) {   //   BUGGY Line  ";
        assert_eq!(apply(JAVA, (1, 9), answer).marks, vec![mark(4, MarkKind::Buggy)]);
    }

    #[test]
    fn python_buggy_line_keeps_its_own_comment_and_missing_code() {
        let answer = "```python\ndef mean(xs):\n    # missing code: if not xs: return 0\n    # average of xs\n\
                      total = 0\n    for x in xs:\n        total += x  # accumulate # buggy line\n```";
        let marked = apply(PYTHON, (1, 6), answer);
        assert_eq!(marked.marks, vec![mark(1, missing("if not xs: return 0")), mark(5, MarkKind::Buggy)]);
        assert!(marked.valid());
    }

    #[test]
    fn missing_code_appended_to_the_line_before_it() {
        let answer = "def mean(xs):  # Missing Code :  if not xs: return 0";
        assert_eq!(apply(PYTHON, (1, 6), answer).marks, vec![mark(1, missing("if not xs: return 0"))]);
    }

    #[test]
    fn java_marker_accepted_in_python_and_hash_in_java() {
        assert_eq!(apply(PYTHON, (1, 6), "total = 0 // buggy line").marks, vec![mark(3, MarkKind::Buggy)]);
        assert_eq!(apply(JAVA, (1, 9), "return total; # buggy line").marks, vec![mark(7, MarkKind::Buggy)]);
    }

    #[test]
    fn bare_buggy_marker_marks_the_previous_code_line() {
        let answer = "```\n        int total = 0;\n\n        // buggy line\n        return total;\n```";
        assert_eq!(apply(JAVA, (1, 9), answer).marks, vec![mark(3, MarkKind::Buggy)]);
    }

    #[test]
    fn marker_inside_a_string_is_not_a_marker() {
        let file = "String s = \"a // buggy line\";\nint y = 2;\n";
        let marked = apply(file, (1, 2), "String s = \"a // buggy line\";\nint y = 2; // buggy line");
        assert_eq!(marked, Marked { marks: vec![mark(2, MarkKind::Buggy)], refused: vec![] });
    }

    #[test]
    fn duplicate_line_disambiguated_by_its_neighbour() {
        let before = apply(DUPLICATES, (1, 10), "a();\nx = 1; // buggy line");
        assert_eq!(before.marks, vec![mark(3, MarkKind::Buggy)]);
        let after = apply(DUPLICATES, (1, 10), "x = 1; // buggy line\nc();");
        assert_eq!(after.marks, vec![mark(7, MarkKind::Buggy)]);
        assert!(after.valid());
    }

    #[test]
    fn duplicate_disambiguated_by_a_wider_context() {
        let answer = "x = 1;\nb();\n} // buggy line";
        assert_eq!(apply(DUPLICATES, (1, 10), answer).marks, vec![mark(5, MarkKind::Buggy)]);
    }

    #[test]
    fn ambiguous_duplicate_refused() {
        let marked = apply(DUPLICATES, (1, 10), "```\n    x = 1; // buggy line\n    ...\n```");
        let reason = "`x = 1;` occurs 2 times in the code shown and its neighbours do not tell which";
        assert_eq!(marked, Marked { marks: vec![], refused: vec![reason.to_string()] });
        assert!(!marked.valid());
    }

    #[test]
    fn duplicate_outside_the_region_does_not_count() {
        assert_eq!(apply(DUPLICATES, (6, 10), "x = 1; // buggy line").marks, vec![mark(7, MarkKind::Buggy)]);
    }

    #[test]
    fn quoted_line_not_in_the_region_refused() {
        let marked = apply(JAVA, (2, 8), "public class Calc { // buggy line\n    return total; // buggy line");
        assert_eq!(marked.marks, vec![mark(7, MarkKind::Buggy)]);
        assert_eq!(marked.refused, vec!["`public class Calc {` is not a line of the code shown".to_string()]);
        assert!(!marked.valid());
    }

    #[test]
    fn unmarked_context_lines_need_not_match() {
        let answer = "// ... abbreviated ...\n        int total = 0; // buggy line\n        // (loop omitted)";
        assert_eq!(apply(JAVA, (1, 9), answer), Marked { marks: vec![mark(3, MarkKind::Buggy)], refused: vec![] });
    }

    #[test]
    fn missing_code_without_a_code_line_before_refused() {
        let marked = apply(JAVA, (1, 9), "```\n// missing code: check(xs);\nint total = 0;\n```");
        assert_eq!(
            marked.refused,
            vec!["the mark `// missing code: check(xs);` has no code line before it".to_string()]
        );
        assert!(marked.marks.is_empty());
    }

    #[test]
    fn missing_code_without_code_refused() {
        let marked = apply(JAVA, (1, 9), "int total = 0; // missing code:");
        assert_eq!(marked.refused, vec!["the missing-code mark after `int total = 0;` gives no code".to_string()]);
    }

    #[test]
    fn answer_without_marker_refused() {
        let marked = apply(JAVA, (1, 9), "The loop looks fine.\n```java\nint total = 0;\n```");
        assert_eq!(marked, Marked { marks: vec![], refused: vec!["no line is marked".to_string()] });
        assert!(!marked.valid());
    }

    #[test]
    fn prose_and_the_last_fenced_block_with_a_marker() {
        let answer = "The loop starts at 1, so xs[0] is skipped.\n\n```java\n        int total = 0; // buggy line\n```\n\n\
                      Marked:\n```java\n    for (int i = 1; i < xs.length; i++) { // buggy line\n```\n\
                      Context:\n```java\n        return total;\n```\nThe return // buggy line is fine.";
        assert_eq!(apply(JAVA, (1, 9), answer), Marked { marks: vec![mark(4, MarkKind::Buggy)], refused: vec![] });
    }

    #[test]
    fn unclosed_block_runs_to_the_end() {
        assert_eq!(
            apply(JAVA, (1, 9), "Here:\n```java\nreturn total; // buggy line").marks,
            vec![mark(7, MarkKind::Buggy)]
        );
    }

    #[test]
    fn marks_sorted_and_deduplicated() {
        let answer = "return total; // buggy line\nint total = 0; // buggy line\nreturn total; // buggy line";
        let marked = apply(JAVA, (1, 9), answer);
        assert_eq!(marked.marks, vec![mark(3, MarkKind::Buggy), mark(7, MarkKind::Buggy)]);
        assert!(marked.valid());
    }

    #[test]
    fn region_beyond_the_file_is_clamped() {
        assert_eq!(apply(JAVA, (0, 500), "} // buggy line\n").refused.len(), 1);
        assert_eq!(apply(JAVA, (7, 500), "return total; // buggy line").marks, vec![mark(7, MarkKind::Buggy)]);
    }

    #[test]
    fn render_java_exact() {
        let marks = [mark(4, MarkKind::Buggy), mark(3, missing("check(xs);")), mark(20, MarkKind::Buggy)];
        let expected = "    public int sum(int[] xs) {\n        int total = 0;\n        // missing code: check(xs);\n        \
                        for (int i = 1; i < xs.length; i++) { // buggy line\n            total += xs[i];\n";
        assert_eq!(render(JAVA, (2, 5), &marks, Some(Language::Java)), expected);
    }

    #[test]
    fn render_python_exact() {
        let marks = [mark(5, missing("count += 1")), mark(5, MarkKind::Buggy), mark(6, MarkKind::Buggy)];
        let expected = "    for x in xs:\n        total += x  # accumulate # buggy line\n        # missing code: count += 1\n    \
                        return total / len(xs) # buggy line\n";
        assert_eq!(render(PYTHON, (4, 9), &marks, Some(Language::Python)), expected);
    }

    #[test]
    fn render_without_language_and_empty_region() {
        assert_eq!(render("a\nb\n", (2, 2), &[mark(2, MarkKind::Buggy)], None), "b // buggy line\n");
        assert_eq!(render("a\nb\n", (3, 2), &[], None), "");
    }

    #[test]
    fn rendered_marks_apply_back_to_the_same_marks() {
        let marks = vec![mark(3, MarkKind::Buggy), mark(5, missing("count += 1"))];
        let rendered = render(PYTHON, (1, 6), &marks, Some(Language::Python));
        assert_eq!(apply(PYTHON, (1, 6), &rendered), Marked { marks, refused: vec![] });
    }

    #[test]
    fn marks_serialize_in_snake_case() {
        let json = serde_json::to_string(&[mark(1, MarkKind::Buggy), mark(2, missing("x"))]).unwrap();
        assert_eq!(json, r#"[{"line":1,"kind":"buggy"},{"line":2,"kind":{"missing":"x"}}]"#);
    }
}
