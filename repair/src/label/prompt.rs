//! The labelling prompt and the cleaning of its answers.
//!
//! ReinFix (../shared/papers/reinfix.txt, §3.2 "Data Preparation") labels each bug-fix pair
//! of its corpus with "concise causes via prompting an LLM (e.g., GPT-4)", from the buggy
//! code and its patch, forming (buggy_code, fix_code, root_cause) triads; the causes are
//! embedded with the buggy code, so they must say what is wrong in the buggy code (what a
//! query written before any fix can also say), not what the patch changes. The paper does
//! not print its prompt; this one asks for exactly that, in one or two sentences, from the
//! buggy code, the fix (the diff, else the fixed code) and the commit message. Any change
//! to the prompt's text bumps [`PROMPT_VERSION`], which is part of every cache key.

use crate::llm::{ChatRequest, Message};
use crate::run::cause::normalize_cause;

use super::Row;

/// Version of the prompt and of [`clean_answer`]; part of every cache key, so labels of an
/// older prompt are asked again.
pub const PROMPT_VERSION: &str = "label-v1";

/// Most characters of a cleaned root cause: a longer answer is cut at its last sentence end
/// within the limit (when that keeps at least half of it), else at its last word boundary
/// with `…` appended.
pub const MAX_ROOT_CAUSE_CHARS: usize = 600;

/// Most characters of each code part (buggy code, diff or fixed code) put in a prompt; a
/// longer part is cut, with a note saying so.
pub const MAX_PART_CHARS: usize = 12_000;

/// The system prompt.
pub const SYSTEM_PROMPT: &str = "You are an expert software engineer labelling a corpus of historical bug fixes \
with the root cause of each bug. Be precise and brief.";

/// The instruction after the code.
pub const QUESTION: &str = "State the root cause of the bug in one or two sentences: what is wrong in the buggy \
code and why it makes the program misbehave (the faulty condition, value, call, or missing check, and its effect). \
Describe the defect in the buggy code, not the change the fix makes. Do not quote long code and do not use \
Markdown. Answer with the root cause only.";

/// Sampling options of a labelling request.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RequestOptions {
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Sampling seed.
    pub seed: Option<u64>,
    /// Most tokens of the reply.
    pub max_tokens: Option<u32>,
}

/// The request asking `model` for `row`'s root cause.
pub fn request(row: &Row, model: &str, opts: &RequestOptions) -> ChatRequest {
    let mut req = ChatRequest::new(model, vec![Message::system(SYSTEM_PROMPT), Message::user(user_prompt(row))]);
    req.temperature = opts.temperature;
    req.seed = opts.seed;
    req.max_tokens = opts.max_tokens;
    req
}

/// The user message: the commit message, the buggy code, the fix and [`QUESTION`].
pub fn user_prompt(row: &Row) -> String {
    let lang = match row.text("language") {
        "" => "code",
        l => l,
    };
    let description = match row.text("description").trim() {
        "" => "(none)",
        d => d,
    };
    let fix = match row.text("diff").trim() {
        "" => format!("Fixed code:\n```{lang}\n{}\n```", part(row.text("fixed_code"))),
        diff => format!("The fix (unified diff, buggy -> fixed):\n```diff\n{}\n```", part(diff)),
    };
    format!(
        "A {lang} bug and its fix from a project's history.\n\nCommit message:\n{description}\n\nBuggy code:\n\
         ```{lang}\n{buggy}\n```\n\n{fix}\n\n{QUESTION}",
        buggy = part(row.text("buggy_code")),
    )
}

/// `text` without trailing whitespace, cut at [`MAX_PART_CHARS`] with a note.
fn part(text: &str) -> String {
    let text = text.trim_end();
    match text.char_indices().nth(MAX_PART_CHARS) {
        Some((at, _)) => format!("{}\n... (cut: {} more characters)", &text[..at], text[at..].chars().count()),
        None => text.to_owned(),
    }
}

/// The root cause in a model's answer, or `None` when it is unusable.
///
/// Cleaning: `<think>…</think>` blocks and code-fence lines removed, `**` removed outside
/// inline code (`` `**kwargs` `` stays),
/// whitespace collapsed, a leading `Root cause:` (or `Root cause -`, any case, with `#`,
/// `*`, `>` or a `- ` bullet around it) stripped, one pair of surrounding quotes removed,
/// then cut to
/// [`MAX_ROOT_CAUSE_CHARS`]. Unusable: fewer than three words, or a cause that says there
/// is none (`none`, `unknown`, `n/a`, `na`, `null`, `unclear`, `no root cause`, `i don't
/// know`, compared after [`normalize_cause`]).
pub fn clean_answer(text: &str) -> Option<String> {
    let text = strip_thinking(text);
    let kept: Vec<&str> = text.lines().filter(|l| !l.trim_start().starts_with("```")).collect();
    let joined = strip_bold(&kept.join(" "));
    let collapsed = joined.split_whitespace().collect::<Vec<_>>().join(" ");
    let cause = unquote(strip_label(&collapsed));
    let none = ["none", "unknown", "n/a", "na", "null", "unclear", "no root cause", "i don't know"];
    if cause.split_whitespace().count() < 3 || none.contains(&normalize_cause(cause).as_str()) {
        return None;
    }
    Some(cut(cause, MAX_ROOT_CAUSE_CHARS))
}

/// `text` without `<think>…</think>` blocks (an unclosed one runs to the end).
fn strip_thinking(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("<think>") {
        out.push_str(&rest[..at]);
        rest = rest[at..].find("</think>").map_or("", |end| &rest[at + end + "</think>".len()..]);
    }
    out + rest
}

/// `text` without `**` outside `` ` ``-delimited inline code.
fn strip_bold(text: &str) -> String {
    let parts: Vec<String> =
        text.split('`').enumerate().map(|(i, p)| if i % 2 == 0 { p.replace("**", "") } else { p.to_owned() }).collect();
    parts.join("`")
}

/// `text` without a leading `Root cause:` / `Root cause - ` label and the markup before
/// and after it (`#`, `*`, `>`, a `- ` bullet).
fn strip_label(text: &str) -> &str {
    let start = strip_markup(text);
    let Some(head) = start.get(.."root cause".len()) else { return start };
    if !head.eq_ignore_ascii_case("root cause") {
        return start;
    }
    let after = start["root cause".len()..].trim_start();
    after.strip_prefix(':').or_else(|| after.strip_prefix("- ")).map_or(start, strip_markup)
}

/// `text` without leading whitespace, `#`, `*`, `>` and `- ` bullets.
fn strip_markup(text: &str) -> &str {
    let mut rest = text.trim_start();
    loop {
        let next = rest.trim_start_matches(['#', '*', '>']).trim_start();
        let next = next.strip_prefix("- ").unwrap_or(next).trim_start();
        if next.len() == rest.len() {
            return rest;
        }
        rest = next;
    }
}

/// `text` without one pair of surrounding quotes (`"…"` or `'…'` with no such quote
/// inside).
fn unquote(text: &str) -> &str {
    for q in ['"', '\''] {
        if let Some(inner) = text.strip_prefix(q).and_then(|t| t.strip_suffix(q))
            && !inner.contains(q)
        {
            return inner.trim();
        }
    }
    text
}

/// `text` cut to at most `max` characters (`max` ≥ 1; see [`MAX_ROOT_CAUSE_CHARS`]).
pub fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let head = prefix(text, max);
    let sentence_end = head
        .rmatch_indices(['.', '!', '?'])
        .map(|(i, _)| i + 1)
        .find(|&i| text[i..].starts_with(char::is_whitespace) && head[..i].chars().count() * 2 >= max);
    if let Some(end) = sentence_end {
        return head[..end].to_owned();
    }
    let room = prefix(text, max.saturating_sub(1));
    let end = room.rfind(char::is_whitespace).filter(|&i| i > 0).unwrap_or(room.len());
    format!("{}…", room[..end].trim_end())
}

/// The first `n` characters of `text`.
fn prefix(text: &str, n: usize) -> &str {
    text.char_indices().nth(n).map_or(text, |(at, _)| &text[..at])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_clean_answer_strips_labels_fences_and_thinking() {
        let answer = "<think>hmm, the loop...</think>\n```\n**Root cause:** The loop   stops\none element early.\n```";
        assert_eq!(clean_answer(answer).as_deref(), Some("The loop stops one element early."));
        assert_eq!(
            clean_answer("ROOT CAUSE - `i < n` skips the last item.").as_deref(),
            Some("`i < n` skips the last item.")
        );
        assert_eq!(clean_answer("  \n```\n```"), None);
        assert_eq!(clean_answer("Root cause: unknown"), None);
        assert_eq!(clean_answer("N/A"), None);
        assert_eq!(clean_answer("<think>never closed"), None);
        assert_eq!(
            clean_answer("- \"`**kwargs` is dropped, -1 is returned.\"").as_deref(),
            Some("`**kwargs` is dropped, -1 is returned.")
        );
        assert_eq!(
            clean_answer("## Root Cause\n\n-1 is returned for empty input.").as_deref(),
            Some("Root Cause -1 is returned for empty input.")
        );
    }

    #[test]
    fn label_cut_prefers_sentence_then_word_boundaries() {
        let long = format!("{}Second sentence that runs on and on.", "First sentence is here. ".repeat(20));
        let c = cut(&long, 100);
        assert!(c.ends_with("here.") && c.chars().count() <= 100, "{c}");
        let words = "word ".repeat(200);
        let c = cut(words.trim(), 100);
        assert!(c.ends_with("word…") && c.chars().count() <= 100, "{c}");
        assert_eq!(cut("short", 100), "short");
        let c = clean_answer(&"x".repeat(700).replace("xxxxxxx", "xxxxxx ")).unwrap();
        assert!(c.chars().count() <= MAX_ROOT_CAUSE_CHARS && c.ends_with('…'), "{}", c.len());
    }

    #[test]
    fn label_prompt_holds_code_fix_and_message() {
        let row = Row::parse(
            r#"{"id":"x","language":"java","buggy_code":"int f() { return 1; }","fixed_code":"int f() { return 2; }","description":"Fix f","diff":"-return 1;\n+return 2;"}"#,
            1,
        )
        .unwrap();
        let p = user_prompt(&row);
        assert!(p.contains("Commit message:\nFix f") && p.contains("```java\nint f() { return 1; }\n```"), "{p}");
        assert!(p.contains("```diff\n-return 1;\n+return 2;\n```") && !p.contains("Fixed code"), "{p}");
        assert!(p.ends_with(QUESTION));
    }
}
