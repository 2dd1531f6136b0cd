//! The code part of rule `cause-first-window-v1`: when the buggy lines are known and the
//! code does not fit its token budget, the method's signature plus a window of lines
//! centred on the buggy lines replaces the code's first tokens (issue 11 item 4).
//!
//! Windowing works on lines, before the final tokenization: each candidate line is
//! tokenized alone to learn its cost, lines are chosen by those costs, and the chosen text
//! (signature lines, then window lines, each joined by `\n`) is tokenized again. For a
//! WordPiece tokenizer a line break is whitespace, so the joined text costs the sum of
//! its lines; any difference is absorbed by [`super::compose()`]'s end truncation.
//! The whole rule is the table in the `compose` module's docs (see [`super::compose()`]).

use std::fmt;
use std::str::FromStr;

use crate::{Error, Result, Space};

/// Name of the window rule, recorded in the index.
pub const WINDOW_RULE: &str = "cause-first-window-v1";
/// Cap on signature tokens in the window rule (the signature's first tokens are kept).
pub const SIGNATURE_MAX_TOKENS: usize = 32;
/// The signature line (ending in `{` or `:`) is looked for among this many first lines;
/// without one there, the window has no signature.
pub const SIGNATURE_MAX_LINES: usize = 16;

/// A composition rule an index records in [`crate::format::TextMeta::rule`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Rule {
    /// `cause-first-v1`: the code's first tokens ([`super::compose()`]).
    CauseFirst,
    /// `cause-first-window-v1`: as `cause-first-v1`, but a long code with known buggy
    /// lines is cut to its signature and a window around those lines ([`window_code`]).
    #[default]
    CauseFirstWindow,
}

impl Rule {
    /// The rule recorded under `name` in an index (full names only); `None` when this
    /// build does not know it.
    pub fn from_recorded(name: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Every rule this build knows, oldest first.
    pub const ALL: [Rule; 2] = [Rule::CauseFirst, Rule::CauseFirstWindow];
    /// The known rule names, comma-separated (for error messages).
    pub const KNOWN: &'static str = "cause-first-v1, cause-first-window-v1";

    /// The name recorded in the index.
    pub fn name(self) -> &'static str {
        match self {
            Rule::CauseFirst => super::RULE,
            Rule::CauseFirstWindow => WINDOW_RULE,
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Rule {
    type Err = Error;

    /// A rule by its recorded name; the CLI's short names `v1` and `window-v1` too.
    ///
    /// # Errors
    /// [`Error::UnknownRule`] for any other name.
    fn from_str(s: &str) -> Result<Rule> {
        match s {
            "cause-first-v1" | "v1" => Ok(Rule::CauseFirst),
            "cause-first-window-v1" | "window-v1" => Ok(Rule::CauseFirstWindow),
            _ => Err(Error::UnknownRule { rule: s.to_string(), known: Rule::KNOWN }),
        }
    }
}

/// An inclusive range of 1-based line numbers: fixdex's one line-range type (the buggy lines
/// of a snippet or a file, a method's lines, a repair location). Serialized as the pair
/// `[first, last]`; deserializing checks it as [`LineRange::new`] does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "(usize, usize)", into = "(usize, usize)")]
pub struct LineRange {
    /// First buggy line, 1-based (≥ 1).
    pub first: usize,
    /// Last buggy line, 1-based (≥ `first`).
    pub last: usize,
}

impl LineRange {
    /// Lines `first..=last`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`--lines`) when `first` is 0 or `last < first`.
    pub fn new(first: usize, last: usize) -> Result<LineRange> {
        if first == 0 || last < first {
            return Err(Error::InvalidParameter {
                name: "--lines",
                reason: if first == 0 {
                    format!("{first}-{last} starts at line 0: lines are 1-based (the first line is 1)")
                } else {
                    format!("{first}-{last} is empty: the first line must not come after the last")
                },
            });
        }
        Ok(LineRange { first, last })
    }

    /// Lines in the range (≥ 1).
    #[must_use]
    pub fn len(self) -> usize {
        self.last - self.first + 1
    }

    /// Never: a range holds at least one line (for clippy's `len_without_is_empty`).
    #[must_use]
    pub fn is_empty(self) -> bool {
        false
    }

    /// Whether 1-based `line` is in the range.
    #[must_use]
    pub fn contains(self, line: usize) -> bool {
        (self.first..=self.last).contains(&line)
    }
}

impl From<LineRange> for (usize, usize) {
    fn from(r: LineRange) -> (usize, usize) {
        (r.first, r.last)
    }
}

impl TryFrom<(usize, usize)> for LineRange {
    type Error = Error;

    /// [`LineRange::new`] of the pair.
    fn try_from((first, last): (usize, usize)) -> Result<LineRange> {
        LineRange::new(first, last)
    }
}

impl fmt::Display for LineRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.first, self.last)
    }
}

impl FromStr for LineRange {
    type Err = Error;

    /// `A-B` or `A` (one line), 1-based, inclusive.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`--lines`) for another shape or an empty range.
    fn from_str(s: &str) -> Result<LineRange> {
        let bad = || Error::InvalidParameter { name: "--lines", reason: format!("`{s}` is not A-B or A (1-based)") };
        let num = |t: &str| t.trim().parse::<usize>().map_err(|_| bad());
        match s.split_once('-') {
            Some((a, b)) => LineRange::new(num(a)?, num(b)?),
            None => num(s).and_then(|a| LineRange::new(a, a)),
        }
    }
}

/// Tokens the code may take in `space` after the root cause is placed, following the
/// `cause-first-v1` table: `W - 2` for `code` (and `code+cause` without a cause),
/// `W - 3 - c` for `code+cause`, 0 for `cause`. `cause_len` is the cause's token count.
pub fn code_budget(space: Space, cause_len: usize, max_seq_length: usize, cause_max_tokens: usize) -> usize {
    let w = max_seq_length.max(3);
    match space {
        Space::Cause => 0,
        Space::Code => w - 2,
        Space::CodeCause if cause_len == 0 || cause_max_tokens == 0 => w - 2,
        Space::CodeCause => w - 3 - cause_len.min(cause_max_tokens).min(w - 3),
    }
}

/// The code's lines, each without its `\n` or `\r\n` terminator.
pub fn split_lines(code: &str) -> Vec<&str> {
    code.lines().collect()
}

/// Whether `line` is a comment line (trimmed start `//`, `/*`, `*` or `#`): never taken as
/// the signature line, and left out of the signature text.
fn is_comment(line: &str) -> bool {
    let t = line.trim_start();
    ["//", "/*", "*", "#"].iter().any(|p| t.starts_with(p))
}

/// Index (0-based) of the signature's last line: the first non-comment line among the
/// first [`SIGNATURE_MAX_LINES`] whose text, trailing whitespace trimmed, ends with `{`
/// (Java, C-like) or `:` (Python). `None` when there is none.
pub fn signature_end(lines: &[&str]) -> Option<usize> {
    lines.iter().take(SIGNATURE_MAX_LINES).position(|l| {
        let t = l.trim_end();
        !is_comment(l) && (t.ends_with('{') || t.ends_with(':'))
    })
}

/// The window of lines (0-based, inclusive) around `first..=last`, grown outwards one line
/// at a time, alternating before (first) and after, over lines `lo..n`, while the total
/// cost stays ≤ `budget`. A side with no lines left is skipped; the first line that does
/// not fit ends the growth. The buggy lines themselves are always kept (even over budget).
/// `cost(i)` is line `i`'s token count; it is called once per line considered, and not
/// again once the buggy lines alone are over budget.
///
/// `first` and `last` must satisfy `lo ≤ first ≤ last < n`.
///
/// # Errors
/// As `cost`.
pub fn grow_window(
    n: usize,
    lo: usize,
    (first, last): (usize, usize),
    budget: usize,
    cost: &mut dyn FnMut(usize) -> Result<usize>,
) -> Result<(usize, usize)> {
    let (mut a, mut b) = (first, last);
    let mut used = 0;
    for i in first..=last {
        if used > budget {
            // Over budget already: the window is the buggy lines alone, whatever the rest
            // costs (a 300,000-line span would otherwise tokenize every line).
            return Ok((first, last));
        }
        used += cost(i)?;
    }
    let mut before = true;
    while used < budget && (a > lo || b + 1 < n) {
        let take_before = if before { a > lo } else { b + 1 >= n };
        let i = if take_before { a - 1 } else { b + 1 };
        let c = cost(i)?;
        if used + c > budget {
            break;
        }
        used += c;
        if take_before {
            a = i;
        } else {
            b = i;
        }
        before = !before;
    }
    Ok((a, b))
}

/// The code token ids under rule `cause-first-window-v1` for a code budget of `budget`
/// tokens ([`code_budget`]): `code_ids` (the whole code's ids) when they fit or `lines`
/// lies wholly past the code's end; otherwise the signature's ids (capped at
/// [`SIGNATURE_MAX_TOKENS`] and at `budget`) followed by the window's ids ([`grow_window`]
/// over the lines after the signature, centred on `lines` clamped to them). The result
/// may exceed `budget` (the buggy lines alone are over it); [`super::compose()`] then cuts
/// it from the end. `tokenize` gives ids without special tokens.
///
/// # Errors
/// As `tokenize`.
pub fn window_code(
    code: &str,
    code_ids: &[u32],
    lines: LineRange,
    budget: usize,
    tokenize: &dyn Fn(&str) -> Result<Vec<u32>>,
) -> Result<Vec<u32>> {
    let all = split_lines(code);
    if code_ids.len() <= budget || lines.first > all.len() {
        return Ok(code_ids.to_vec());
    }
    let sig_end = signature_end(&all);
    let mut out = match sig_end {
        Some(k) => {
            let sig: Vec<&str> = all[..=k].iter().copied().filter(|l| !is_comment(l)).collect();
            let mut ids = tokenize(&sig.join("\n"))?;
            ids.truncate(SIGNATURE_MAX_TOKENS.min(budget));
            ids
        }
        None => Vec::new(),
    };
    let lo = sig_end.map_or(0, |k| k + 1);
    if lo >= all.len() {
        return Ok(code_ids.to_vec());
    }
    let first = (lines.first - 1).clamp(lo, all.len() - 1);
    let last = (lines.last - 1).clamp(first, all.len() - 1);
    let mut cost = |i: usize| tokenize(all[i]).map(|t| t.len());
    let (a, b) = grow_window(all.len(), lo, (first, last), budget - out.len(), &mut cost)?;
    out.extend(tokenize(&all[a..=b].join("\n"))?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One token per whitespace-separated word; ids are word lengths (enough to compare).
    fn words(s: &str) -> Result<Vec<u32>> {
        Ok(s.split_whitespace().map(|w| w.len() as u32).collect())
    }

    /// A method of `n` lines: a signature, body lines `s<i> x<i>` (2 tokens), a `}`.
    fn method(n: usize) -> String {
        let mut s = String::from("void f ( ) {\n");
        for i in 1..n - 1 {
            s += &format!("s{i} x{i}\n");
        }
        s + "}\n"
    }

    /// The window rule's chosen text, re-derived through a tokenizer that keeps words.
    fn chosen(code: &str, lines: LineRange, budget: usize) -> Vec<String> {
        let vocab: Vec<&str> = code.split_whitespace().collect();
        let tok = |s: &str| -> Result<Vec<u32>> {
            Ok(s.split_whitespace().map(|w| vocab.iter().position(|v| *v == w).unwrap() as u32).collect())
        };
        let ids = tok(code).unwrap();
        window_code(code, &ids, lines, budget, &tok).unwrap().iter().map(|&i| vocab[i as usize].to_string()).collect()
    }

    #[test]
    fn window_is_centred_and_alternates_before_after() {
        let mut cost = |_: usize| Ok(2);
        // Lines 0..100, bug at 50: 1 + 2 before/after pairs fit in 10 tokens → 48..=52.
        assert_eq!(grow_window(100, 1, (50, 50), 10, &mut cost).unwrap(), (48, 52));
        // Odd leftover: the extra line goes before.
        assert_eq!(grow_window(100, 1, (50, 50), 8, &mut cost).unwrap(), (48, 51));
    }

    #[test]
    fn window_at_the_start_and_end_grows_the_other_way() {
        let mut cost = |_: usize| Ok(1);
        assert_eq!(grow_window(100, 1, (1, 1), 5, &mut cost).unwrap(), (1, 5));
        assert_eq!(grow_window(100, 1, (99, 99), 5, &mut cost).unwrap(), (95, 99));
        // Larger than the code: everything from `lo` on.
        assert_eq!(grow_window(10, 1, (5, 6), 1000, &mut cost).unwrap(), (1, 9));
    }

    #[test]
    fn buggy_lines_over_budget_stop_costing_lines() {
        let mut calls = 0;
        let mut cost = |_: usize| {
            calls += 1;
            Ok(3)
        };
        assert_eq!(grow_window(300_000, 0, (0, 299_999), 10, &mut cost).unwrap(), (0, 299_999));
        assert_eq!(calls, 4, "costs stop at the first line past the budget");
    }

    #[test]
    fn multi_line_range_is_kept_whole_even_over_budget() {
        let mut cost = |_: usize| Ok(3);
        // 5 lines of 3 = 15 tokens: kept whole over a budget of 14.
        assert_eq!(grow_window(100, 0, (10, 14), 14, &mut cost).unwrap(), (10, 14));
        assert_eq!(grow_window(100, 0, (10, 14), 20, &mut cost).unwrap(), (9, 14));
        assert_eq!(grow_window(100, 0, (10, 14), 21, &mut cost).unwrap(), (9, 15));
        // A line that does not fit stops the growth (no skipping past it).
        let mut big = |i: usize| Ok(if i == 9 { 50 } else { 1 });
        assert_eq!(grow_window(100, 0, (10, 10), 10, &mut big).unwrap(), (10, 10));
    }

    #[test]
    fn long_method_keeps_signature_and_bug_region() {
        let code = method(200);
        let got = chosen(&code, LineRange::new(190, 190).unwrap(), 20);
        assert_eq!(&got[..5], ["void", "f", "(", ")", "{"]);
        assert!(got.contains(&"s189".to_string()), "{got:?}");
        assert_eq!(got.len(), 19, "5 signature tokens + 7 lines of 2: {got:?}");
        assert!(!got.contains(&"s1".to_string()));
        // The last line.
        let end = chosen(&code, LineRange::new(200, 200).unwrap(), 20);
        assert_eq!(end.last().unwrap(), "}");
        assert!(end.contains(&"s198".to_string()), "{end:?}");
    }

    #[test]
    fn unknown_short_or_past_the_end_keeps_the_old_tokens() {
        let code = method(10);
        let ids = words(&code).unwrap();
        // Fits: unchanged.
        assert_eq!(window_code(&code, &ids, LineRange::new(5, 5).unwrap(), 100, &words).unwrap(), ids);
        // Lines past the end: unchanged (compose cuts it as cause-first-v1 does).
        assert_eq!(window_code(&code, &ids, LineRange::new(50, 60).unwrap(), 4, &words).unwrap(), ids);
    }

    #[test]
    fn bug_in_the_signature_starts_the_window_after_it() {
        let code = method(100);
        let got = chosen(&code, LineRange::new(1, 1).unwrap(), 11);
        assert_eq!(got, ["void", "f", "(", ")", "{", "s1", "x1", "s2", "x2", "s3", "x3"]);
    }

    #[test]
    fn signature_detection_java_python_and_comments() {
        let java = ["/**", " * Uses {@link Foo}", " */", "@Override", "public int f(int a,", "    int b) {", "  x;"];
        assert_eq!(signature_end(&java), Some(5));
        let py = ["@decorator", "def f(a,", "      b):", "    return a"];
        assert_eq!(signature_end(&py), Some(2));
        assert_eq!(signature_end(&["# a comment:", "def g():", "  pass"]), Some(1));
        assert_eq!(signature_end(&["x = 1", "y = 2"]), None);
        let late: Vec<&str> = std::iter::repeat_n("x", SIGNATURE_MAX_LINES).chain(["f() {"]).collect();
        assert_eq!(signature_end(&late), None);
    }

    #[test]
    fn signature_is_capped_and_comment_lines_dropped() {
        let long_sig = format!("/** doc */\nvoid f ( {}) {{\n", "a ".repeat(50));
        let code = long_sig + &"x y\n".repeat(100) + "BUG\n" + &"x y\n".repeat(100);
        let got = chosen(&code, LineRange::new(103, 103).unwrap(), 40);
        assert_eq!(got[0], "void");
        assert_eq!(got.iter().take(SIGNATURE_MAX_TOKENS).filter(|w| *w == "a").count(), SIGNATURE_MAX_TOKENS - 3);
        assert!(got[SIGNATURE_MAX_TOKENS..].contains(&"BUG".to_string()), "{got:?}");
        assert!(!got.contains(&"doc".to_string()));
    }

    #[test]
    fn crlf_lines_match_lf_lines() {
        let lf = method(60);
        let crlf = lf.replace('\n', "\r\n");
        let r = LineRange::new(55, 56).unwrap();
        assert_eq!(chosen(&lf, r, 16), chosen(&crlf, r, 16));
        assert_eq!(split_lines("a\r\nb\r\n"), ["a", "b"]);
    }

    #[test]
    fn rule_and_range_parse() {
        assert_eq!("cause-first-v1".parse::<Rule>().unwrap(), Rule::CauseFirst);
        assert_eq!("window-v1".parse::<Rule>().unwrap(), Rule::CauseFirstWindow);
        assert_eq!(Rule::CauseFirstWindow.to_string(), WINDOW_RULE);
        assert!(matches!("v2".parse::<Rule>(), Err(Error::UnknownRule { .. })));
        assert_eq!("3-7".parse::<LineRange>().unwrap(), LineRange { first: 3, last: 7 });
        assert_eq!("4".parse::<LineRange>().unwrap(), LineRange { first: 4, last: 4 });
        for bad in ["0-3", "5-2", "a-b", "", "1-2-3"] {
            assert!(bad.parse::<LineRange>().is_err(), "{bad}");
        }
    }

    #[test]
    fn line_range_serializes_as_a_checked_pair() {
        let r = LineRange::new(3, 7).unwrap();
        assert_eq!(serde_json::to_string(&r).unwrap(), "[3,7]");
        assert_eq!(serde_json::from_str::<LineRange>("[3,7]").unwrap(), r);
        assert!(serde_json::from_str::<LineRange>("[7,3]").is_err());
        assert!(serde_json::from_str::<LineRange>("[0,1]").is_err());
        assert_eq!((r.len(), r.contains(3), r.contains(7), r.contains(8)), (5, true, true, false));
        assert_eq!(<(usize, usize)>::from(r), (3, 7));
    }

    #[test]
    fn budgets_follow_the_v1_table() {
        assert_eq!(code_budget(Space::Code, 10, 256, 64), 254);
        assert_eq!(code_budget(Space::CodeCause, 10, 256, 64), 243);
        assert_eq!(code_budget(Space::CodeCause, 100, 256, 64), 189);
        assert_eq!(code_budget(Space::CodeCause, 0, 256, 64), 254);
        assert_eq!(code_budget(Space::Cause, 10, 256, 64), 0);
    }
}
