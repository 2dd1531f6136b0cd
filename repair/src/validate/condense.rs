//! Condense a command's output into the failure text a prompt (or an error message) can hold.
//!
//! Cutting test output to its last N characters loses what matters most when a test
//! recurses forever: Java GCD's buggy version prints 1,024 identical stack frames per
//! failing test, so the last 3,000 characters held 70 frames and neither the
//! `java.lang.StackOverflowError` line nor the test's name (issue 9, fault 6). The rule,
//! applied by [`condense`]:
//!
//! 1. **Fold repeats** ([`fold_repeats`]): a run of identical consecutive lines becomes its
//!    first copy plus `... 1,023 more identical frames` (`lines` when the line is not a stack
//!    frame), and a cycle of 2 to [`MAX_CYCLE`] (8) lines repeated back to back (mutual recursion)
//!    becomes one copy plus `... N more repeats of the K lines above`. A fold happens only
//!    when it removes at least 2 lines.
//! 2. If the folded text fits `max_chars` characters, it is the answer.
//! 3. Otherwise **key lines** ([`is_key_line`]) are kept first, in order, each cut to
//!    [`MAX_KEY_LINE_CHARS`], until they fill two thirds of the budget: exception lines
//!    (`java.lang.X: msg`, `Exception in thread ...`, `Caused by: ...`, Python `XxxError: msg`),
//!    pytest's `E   ` lines and `>   assert ...` source lines, JUnit assertion messages
//!    (`expected:<..> but was:<..>`), failing-test headers and the runner's summary line.
//! 4. The rest of the budget goes to the **tail** of the folded text (whole lines; the last
//!    line's end when even that one does not fit). Key lines before the tail keep their
//!    order, and every gap reads `... [N lines left out]`.
//!
//! The result never exceeds `max_chars` characters.

use std::borrow::Cow;

/// Longest repeated cycle that [`fold_repeats`] detects, in lines (a pytest frame is 3 lines;
/// a mutual recursion of two functions repeats 6).
pub const MAX_CYCLE: usize = 8;

/// Characters kept of one key line (its start) when the output must be cut.
pub const MAX_KEY_LINE_CHARS: usize = 400;

/// Room reserved for one `... [N lines left out]` marker, characters.
const GAP_MARKER_CHARS: usize = 32;

/// `text` with runs of identical lines and repeated cycles of up to [`MAX_CYCLE`] lines folded
/// into one copy and a count (module docs, rule 1). O(lines × [`MAX_CYCLE`]²) comparisons.
pub fn fold_repeats(text: &str) -> String {
    fold_lines(&text.split('\n').collect::<Vec<_>>()).join("\n")
}

/// Whether `line` carries the error itself (module docs, rule 3): an exception or error line,
/// a `Caused by:` line, a pytest `E ` line or `> assert` source line, a JUnit assertion
/// message, a failing-test header or a test summary line.
pub fn is_key_line(line: &str) -> bool {
    let t = line.trim();
    if line.starts_with("E ") || line == "E" {
        return true;
    }
    if t.starts_with("Caused by:") || t.starts_with("Exception in thread") {
        return true;
    }
    if t.contains("expected:<") && t.contains("but was:<") {
        return true;
    }
    if t.strip_prefix('>').is_some_and(|rest| rest.trim_start().starts_with("assert ")) {
        return true;
    }
    is_exception_line(t)
        || crate::validate::test_output::failing_test_in_line(line).is_some()
        || crate::validate::test_output::test_counts_in_line(line).is_some()
}

/// `output` condensed to at most `max_chars` characters by the module's rule.
pub fn condense(output: &str, max_chars: usize) -> String {
    let lines = fold_lines(&output.split('\n').collect::<Vec<_>>());
    let total: usize = lines.iter().map(|l| l.chars().count() + 1).sum::<usize>().saturating_sub(1);
    if total <= max_chars {
        return lines.join("\n");
    }
    if lines.len() == 1 {
        return last_chars(&lines[0], max_chars).to_string();
    }
    let keys = pick_keys(&lines, max_chars * 2 / 3);
    let head_cost: usize = keys.iter().map(|&i| cut(&lines[i], MAX_KEY_LINE_CHARS).chars().count() + 1).sum();
    let reserve = head_cost + GAP_MARKER_CHARS * (keys.len() + 1);
    let (tail_start, tail) = pick_tail(&lines, max_chars.saturating_sub(reserve));
    let head = render_head(&lines, &keys, tail_start);
    let out = if head.is_empty() { tail } else { format!("{head}\n{tail}") };
    last_chars(&out, max_chars).to_string()
}

/// Folds runs and cycles in `lines` (rule 1).
fn fold_lines<'a>(lines: &[&'a str]) -> Vec<Cow<'a, str>> {
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let (period, copies) = best_cycle(lines, i);
        if period * (copies - 1) >= 2 {
            out.extend(lines[i..i + period].iter().map(|&l| Cow::Borrowed(l)));
            out.push(Cow::Owned(fold_marker(lines[i], period, copies - 1)));
            i += period * copies;
        } else {
            out.push(Cow::Borrowed(lines[i]));
            i += 1;
        }
    }
    out
}

/// The period (1..=[`MAX_CYCLE`]) whose back-to-back copies starting at `i` cover the most
/// lines, and how many copies there are (at least 1); the shortest period wins a tie.
fn best_cycle(lines: &[&str], i: usize) -> (usize, usize) {
    let mut best = (1, 1);
    for period in 1..=MAX_CYCLE.min(lines.len() - i) {
        let block = &lines[i..i + period];
        let mut copies = 1;
        while lines.get(i + copies * period..i + (copies + 1) * period) == Some(block) {
            copies += 1;
        }
        if period * (copies - 1) > best.0 * (best.1 - 1) {
            best = (period, copies);
        }
    }
    best
}

/// The line that replaces `more` further copies of a cycle of `period` lines.
fn fold_marker(first: &str, period: usize, more: usize) -> String {
    let indent = &first[..first.len() - first.trim_start().len()];
    if period > 1 {
        return format!("{indent}... {} more repeats of the {period} lines above", thousands(more));
    }
    let t = first.trim_start();
    let what = if t.starts_with("at ") || t.starts_with("File \"") { "frames" } else { "lines" };
    format!("{indent}... {} more identical {what}", thousands(more))
}

/// `n` with a comma between groups of three digits (`1,024`).
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A Java or Python exception line: a (dotted) class name ending in `Error`, `Exception`,
/// `Failure`, `Throwable`, `Exit` or `Interrupt`, alone or followed by `:` and a message.
fn is_exception_line(t: &str) -> bool {
    let name = t.split_once(':').map_or(t, |(name, _)| name);
    let is_ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    let last = name.rsplit('.').next().unwrap_or(name);
    name.split('.').all(is_ident)
        && last.starts_with(|c: char| c.is_ascii_uppercase())
        && ["Error", "Exception", "Failure", "Throwable", "Exit", "Interrupt"].iter().any(|s| last.ends_with(s))
}

/// Indices of the key lines kept within `budget` characters, first ones first.
fn pick_keys(lines: &[Cow<'_, str>], budget: usize) -> Vec<usize> {
    let mut used = 0;
    let mut keys = Vec::new();
    for (i, line) in lines.iter().enumerate().filter(|(_, l)| is_key_line(l)) {
        let cost = cut(line, MAX_KEY_LINE_CHARS).chars().count() + 1 + GAP_MARKER_CHARS;
        if used + cost > budget {
            break;
        }
        used += cost;
        keys.push(i);
    }
    keys
}

/// The first line of the tail that fits `budget` characters, and the tail's text (the end of
/// the last line when not even that fits).
fn pick_tail(lines: &[Cow<'_, str>], budget: usize) -> (usize, String) {
    let mut start = lines.len();
    let mut used = 0;
    while start > 0 {
        let cost = lines[start - 1].chars().count() + usize::from(start < lines.len());
        if used + cost > budget {
            break;
        }
        used += cost;
        start -= 1;
    }
    if start == lines.len() {
        let last = lines.last().map_or("", |l| l.as_ref());
        return (lines.len().saturating_sub(1), last_chars(last, budget).to_string());
    }
    (start, lines[start..].join("\n"))
}

/// The kept key lines before `tail_start`, with a marker for every gap (including the one
/// before the tail); empty when the tail starts at the first line.
fn render_head(lines: &[Cow<'_, str>], keys: &[usize], tail_start: usize) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut next = 0;
    for &i in keys.iter().filter(|&&i| i < tail_start) {
        if i > next {
            out.push(gap_marker(i - next));
        }
        out.push(cut(&lines[i], MAX_KEY_LINE_CHARS).to_string());
        next = i + 1;
    }
    if tail_start > next {
        out.push(gap_marker(tail_start - next));
    }
    out.join("\n")
}

/// The line standing for `n` left-out lines.
fn gap_marker(n: usize) -> String {
    format!("... [{} lines left out]", thousands(n))
}

/// The first `max` characters of `s`.
pub fn cut(s: &str, max: usize) -> &str {
    s.char_indices().nth(max).map_or(s, |(i, _)| &s[..i])
}

/// The first `max` characters of `s`, with `...` appended when something was cut (agents'
/// results shown in prompts, answers kept in reports).
#[must_use]
pub fn shorten(s: &str, max: usize) -> String {
    let head = cut(s, max);
    if head.len() < s.len() { format!("{head}...") } else { s.to_string() }
}

/// The last `max` characters of `s`.
fn last_chars(s: &str, max: usize) -> &str {
    if max == 0 {
        return "";
    }
    s.char_indices().rev().nth(max - 1).map_or(s, |(i, _)| &s[i..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_runs_and_cycles() {
        let frames = "\tat p.GCD.gcd(GCD.java:25)\n".repeat(1025);
        let folded = fold_repeats(&format!("java.lang.StackOverflowError\n{frames}end"));
        assert_eq!(
            folded,
            "java.lang.StackOverflowError\n\tat p.GCD.gcd(GCD.java:25)\n\t... 1,024 more identical frames\nend"
        );
        let cycle = "  a()\n  b()\n".repeat(4);
        assert_eq!(
            fold_repeats(&format!("x\n{cycle}y")),
            "x\n  a()\n  b()\n  ... 3 more repeats of the 2 lines above\ny"
        );
        assert_eq!(fold_repeats("a\na\nb"), "a\na\nb", "a fold that saves one line is not made");
    }

    #[test]
    fn key_lines() {
        for line in [
            "java.lang.StackOverflowError",
            "java.lang.AssertionError: expected:<1> but was:<2>",
            "Caused by: java.io.IOException: gone",
            "RecursionError: maximum recursion depth exceeded",
            "E       assert 3 == 5",
            ">       assert gcd(17, 0) == 17",
            "Exception in thread \"main\" java.lang.Error",
        ] {
            assert!(is_key_line(line), "{line}");
        }
        for line in ["\tat java_programs.GCD.gcd(GCD.java:25)", "JUnit version 4.13.2", "errors are bad: yes"] {
            assert!(!is_key_line(line), "{line}");
        }
    }

    #[test]
    fn keeps_key_lines_within_the_budget() {
        let noise: String = (0..500).map(|i| format!("noise line {i}\n")).collect();
        let out = condense(&format!("java.lang.IllegalStateException: broken\n{noise}last line"), 300);
        assert!(out.chars().count() <= 300, "{out}");
        assert!(out.starts_with("java.lang.IllegalStateException: broken\n... [4"), "{out}");
        assert!(out.ends_with("noise line 499\nlast line"), "{out}");
        assert_eq!(condense("short", 300), "short");
        assert_eq!(condense(&"x".repeat(50), 10), "x".repeat(10));
    }
}
