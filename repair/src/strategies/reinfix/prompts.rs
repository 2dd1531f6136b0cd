//! ReinFix's prompts and the parsers of its answers. Prompts are constants and functions
//! here, so a replay recording ([`crate::llm::ReplayClient`]) breaks exactly when a prompt
//! changes.

use std::collections::HashSet;

pub use crate::patch::complete_patch_text;
use crate::run::bug::Problem;
pub use crate::run::cause::normalize_cause;

/// The nudge after a final answer that states no root cause.
pub const NUDGE_PROMPT: &str = "State the root cause as one line `ROOT CAUSE: ...`, or call a tool to learn more.";

/// How to call a tool in the text protocol, repeated after the ReAct instruction.
pub const TEXT_CALL_REMINDER: &str =
    "To call a tool, write <tool_call>{\"name\": \"<tool name>\", \"arguments\": {...}}</tool_call> and stop.";

/// The system prompt of every conversation.
pub const SYSTEM_PROMPT: &str = "You are an expert software engineer fixing a bug in a project. \
Be precise and brief. Quote code exactly as it appears in the file.";

/// The ReAct instruction after an inconclusive first answer.
pub const REACT_PROMPT: &str = "Use the tools to collect the internal repair ingredients you need: variable \
definitions and data flow, the methods and classes the code uses, imports. When you know the root cause, answer \
with one line `ROOT CAUSE: <one or two sentences>` and no tool call.";

/// The question of the direct root-cause request, after the code and the failure.
pub const CAUSE_QUESTION: &str = "What is the root cause of this bug? If you are confident, answer with one line \
`ROOT CAUSE: <one or two sentences>`. If you need more context from the project first, answer `ROOT CAUSE: NONE`.";

pub(super) fn cause_prompt(problem: &Problem) -> String {
    format!(
        "Buggy {lang} code from `{file}`:\n```{lang}\n{code}```\nThe failing tests report:\n```\n{failure}\n```\n\
         {CAUSE_QUESTION}",
        lang = problem.lang(),
        file = problem.bug.file.display(),
        code = problem.numbered,
        failure = problem.failure.trim_end(),
    )
}

pub(super) fn suggest_prompt(problem: &Problem, cause: &str, similar: &str, failures: &[String], n: usize) -> String {
    let mut s = format!(
        "Buggy {lang} code from `{file}`:\n```{lang}\n{code}```\nRoot cause: {cause}\n",
        lang = problem.lang(),
        file = problem.bug.file.display(),
        code = problem.numbered,
    );
    if !similar.is_empty() {
        s.push_str("\nSimilar historical bug fixes (external repair ingredients):\n");
        s.push_str(similar);
    }
    if !failures.is_empty() {
        s.push_str("\nThese patches were tried and failed:\n");
        for f in failures.iter().rev().take(3) {
            s.push_str(f);
        }
    }
    s.push_str(&format!(
        "\nGive up to {n} distinct repair suggestions, each starting on its own line with `SUGGESTION <k>:` and \
         saying in one short paragraph what to change and why."
    ));
    s
}

pub(super) fn patch_prompt(problem: &Problem, cause: &str, suggestion: &str) -> String {
    format!(
        "Buggy {lang} code from `{file}`:\n```{lang}\n{code}```\nRoot cause: {cause}\nRepair suggestion: \
         {suggestion}\n\nWrite the fix as a unified diff against `{file}` (or as SEARCH/REPLACE blocks). Quote \
         the code exactly, without the line numbers, and change only what the fix needs.",
        lang = problem.lang(),
        file = problem.bug.file.display(),
        code = problem.numbered,
    )
}

/// The root cause in an answer: the text after the last `ROOT CAUSE:` marker (case-insensitive,
/// markdown emphasis ignored), up to the end of its paragraph; `None` for no marker, for a
/// cause that says there is none, and for one that echoes the prompt.
///
/// "None" is judged on the cause normalised by [`normalize_cause`] (markdown backticks,
/// asterisks, underscores, quotes and angle brackets, trailing punctuation and case
/// removed): `none`, `unknown`, `n/a`, `na`, `null`, `undetermined`, `unclear`, `not sure`,
/// `no root cause`, `none yet`, `i don't know` and empty causes are none. The cause **echoes
/// the prompt** ([`echoes_prompt`]) when its normalised text occurs in the normalised
/// instructions fixdex wrote ([`CAUSE_QUESTION`], [`REACT_PROMPT`], [`NUDGE_PROMPT`],
/// [`TEXT_CALL_REMINDER`]; e.g. `<one or two sentences>`, `<root cause>`), or when it has
/// at least three words other than `a`, `an`, `the`, `of`, `is`, `in`, `to`, `and`, `or`
/// and at least 80% of those occur in the instructions; the same holds for its first line
/// alone (a copied instruction followed by other text), and a cause that contains one of
/// the instructions' `<...>` placeholders echoes it too.
pub fn parse_root_cause(text: &str) -> Option<String> {
    let clean = text.replace("**", "");
    let upper = clean.to_uppercase();
    let at = upper.rfind("ROOT CAUSE:")?;
    let rest = clean.get(at + "ROOT CAUSE:".len()..)?.trim_start();
    let para = rest.split("\n\n").next().unwrap_or(rest).trim();
    let norm = normalize_cause(para);
    const NONE: [&str; 13] = [
        "",
        "none",
        "unknown",
        "n/a",
        "na",
        "null",
        "undetermined",
        "unclear",
        "not sure",
        "no root cause",
        "none yet",
        "i don't know",
        "i do not know",
    ];
    let first_line = normalize_cause(para.lines().next().unwrap_or(""));
    // `NONE, but ...` / `Unknown - ...`: a none word, then punctuation, then anything.
    let leading_none = ["none", "unknown", "n/a", "undetermined"].iter().any(|word| {
        norm.strip_prefix(word)
            .and_then(|rest| rest.trim_start().chars().next())
            .is_some_and(|next| !next.is_alphanumeric())
    });
    if leading_none {
        return None;
    }
    if NONE.contains(&norm.as_str()) || echoes_prompt(&norm) || echoes_prompt(&first_line) || has_placeholder(para) {
        return None;
    }
    Some(para.to_string())
}

/// Whether `cause` contains one of the `<...>` placeholders of fixdex's instructions (e.g.
/// `<one or two sentences>`), as a model that copies the answer format does.
fn has_placeholder(cause: &str) -> bool {
    [CAUSE_QUESTION, REACT_PROMPT, NUDGE_PROMPT, TEXT_CALL_REMINDER].iter().any(|prompt| {
        prompt.match_indices('<').any(|(at, _)| {
            prompt[at..].find('>').is_some_and(|end| end > 1 && end < 40 && cause.contains(&prompt[at..=at + end]))
        })
    })
}

/// Whether a normalised cause merely repeats fixdex's own instructions (rule in
/// [`parse_root_cause`]).
pub fn echoes_prompt(normalized: &str) -> bool {
    const STOP: [&str; 9] = ["a", "an", "the", "of", "is", "in", "to", "and", "or"];
    let instructions = [CAUSE_QUESTION, REACT_PROMPT, NUDGE_PROMPT, TEXT_CALL_REMINDER].map(normalize_cause).join(" ");
    if normalized.is_empty() || instructions.contains(normalized) {
        return true;
    }
    let known: HashSet<&str> =
        instructions.split(|c: char| !c.is_alphanumeric() && c != '\'').filter(|w| !w.is_empty()).collect();
    let words: Vec<&str> = normalized
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty() && !STOP.contains(w))
        .collect();
    words.len() >= 3 && words.iter().filter(|w| known.contains(*w)).count() * 5 >= words.len() * 4
}

/// Why a cut-off patch answer without a complete edit is refused.
pub const CUT_OFF_PATCH: &str = "your answer was cut off at the token limit before its first edit was complete \
(a SEARCH/REPLACE block ends with `>>>>>>> REPLACE`, a diff with its closing ``` fence). Send a shorter answer: \
only the edit, without explanations.";

/// Suggestions in an answer: the paragraphs after `SUGGESTION <k>:` markers, in order.
pub fn parse_suggestions(text: &str) -> Vec<String> {
    let clean = text.replace("**", "");
    let upper = clean.to_uppercase();
    let mut starts = Vec::new();
    let mut from = 0;
    while let Some(i) = upper[from..].find("SUGGESTION ") {
        let at = from + i;
        let tail = &upper[at + "SUGGESTION ".len()..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && tail[digits..].starts_with(':') {
            starts.push((at, at + "SUGGESTION ".len() + digits + 1));
        }
        from = at + 1;
    }
    let mut out = Vec::new();
    for (i, &(_, body)) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(clean.len(), |&(s, _)| s);
        let s = clean[body..end].trim();
        if !s.is_empty() {
            out.push(s.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_cause_parsing() {
        assert_eq!(parse_root_cause("ROOT CAUSE: NONE"), None);
        assert_eq!(parse_root_cause("root cause: none."), None);
        assert_eq!(
            parse_root_cause("I think...\n**ROOT CAUSE:** off by one in the loop bound.\n\nMore"),
            Some("off by one in the loop bound.".into())
        );
        assert_eq!(parse_root_cause("no marker"), None);
    }

    /// Issue 9, fault 7: an echoed "none" in markdown, and an echo of the prompt's own
    /// placeholder or instructions, are not root causes; real causes still are.
    #[test]
    fn issue_9_echoed_none_and_prompt_echoes_are_not_causes() {
        for echo in [
            "ROOT CAUSE: NONE`",
            "ROOT CAUSE: `NONE`.",
            "ROOT CAUSE: *None*",
            "ROOT CAUSE: \"n/a\"",
            "ROOT CAUSE: Unknown.",
            "ROOT CAUSE: <one or two sentences>",
            "ROOT CAUSE: <root cause>",
            "ROOT CAUSE: ...",
            "ROOT CAUSE: If you need more context from the project first",
            "ROOT CAUSE: call a tool to learn more",
            // Gemma 3 270M under llama-cpp-python (gemma chat format), issue 9 smoke run.
            "ROOT CAUSE: <one or two sentences>` and no tool call.=\"#\">\n=== test_gcd.py\n15 : gcd.py:5: in gcd\n    return gcd(a % b, b)",
            "ROOT CAUSE: one or two sentences and no tool call\nreturn gcd(a % b, b)",
            "ROOT CAUSE: NONE`, but not if this is a bug that needs to be fixed immediately.",
            "ROOT CAUSE: Unknown - more context is needed",
        ] {
            assert_eq!(parse_root_cause(echo), None, "{echo}");
        }
        assert_eq!(
            parse_root_cause("ROOT CAUSE: `range(1, n)` stops before n."),
            Some("`range(1, n)` stops before n.".into())
        );
        assert_eq!(
            parse_root_cause("ROOT CAUSE: the code uses the wrong variable name in the loop"),
            Some("the code uses the wrong variable name in the loop".into())
        );
        // A cause that starts with a none word used as a word stays a cause.
        assert_eq!(
            parse_root_cause("ROOT CAUSE: none of the loop bounds include n"),
            Some("none of the loop bounds include n".into())
        );
        assert_eq!(normalize_cause(" **`NONE`**. "), "none");
        assert_eq!(normalize_cause("It doesn't stop"), "it doesn't stop");
    }

    /// Issue 9, fault 1 (patch phase): a cut-off patch answer keeps its complete edits only.
    #[test]
    fn issue_9_cut_off_patch_keeps_complete_edits() {
        let answer = "```diff\n-a\n+b\n```\nAlso:\n<<<<<<< SEARCH\nc\n=======\n";
        assert_eq!(complete_patch_text(answer), "```diff\n-a\n+b\n```\n");
        let sr = "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```diff\n-x\n";
        assert_eq!(complete_patch_text(sr), "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n");
        assert_eq!(complete_patch_text("```diff\n--- a/x\n+++ b/x\n-    for"), "");
    }

    #[test]
    fn suggestion_parsing() {
        let t = "Here:\nSUGGESTION 1: use <=.\nSUGGESTION 2: start at 0\nand add n.\n**Suggestion 3:** rewrite";
        assert_eq!(parse_suggestions(t), ["use <=.", "start at 0\nand add n.", "rewrite"]);
        assert!(parse_suggestions("nothing").is_empty());
    }
}
