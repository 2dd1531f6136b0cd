//! UniDebugger's agents: their system prompts (role, skills, output constraints and the
//! rubber-duck requirement of ../shared/papers/unidebugger.txt, "Knowl 3"), their requests,
//! and the parsers of the answers that are not patches. Prompts are constants and functions
//! here, so a replay recording ([`crate::llm::ReplayClient`]) breaks exactly when one
//! changes.

use crate::run::bug::Problem;

/// The seven agents (paper, "Knowl 3"), as the report names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Marks the suspicious lines (`// buggy line`, `// missing code: ...`).
    Locator,
    /// Writes a unified diff from the marked code.
    Fixer,
    /// Reviews a patch: simplifies a plausible one, corrects a failing one.
    FixerPro,
    /// Picks the 20-100-line suspicious window of the buggy file.
    Slicer,
    /// Writes a `class ~~~ function ~~~ parameters ~~~ return type ~~~ description` summary.
    Summarizer,
    /// Queries fixdex's index of similar fixes and writes a reference guide.
    Helper,
    /// Names 2-6 related files of the project.
    RepoFocus,
}

impl Role {
    /// The agent's system prompt.
    #[must_use]
    pub fn system_prompt(self) -> &'static str {
        match self {
            Role::Locator => LOCATOR,
            Role::Fixer => FIXER,
            Role::FixerPro => FIXER_PRO,
            Role::Slicer => SLICER,
            Role::Summarizer => SUMMARIZER,
            Role::Helper => HELPER,
            Role::RepoFocus => REPO_FOCUS,
        }
    }
}

const DUCK: &str = "Think like a rubber-duck debugger: track the key variables and say in a sentence or two why \
the code goes wrong before you answer.";

const LOCATOR: &str = "You are the Locator of a debugging team. Skill: fine-grained fault localization. Action: copy \
the suspicious lines of the code shown EXACTLY, in a fenced code block, and append ` // buggy line` (Python: \
` # buggy line`) to each faulty line; where code is missing, add a line `// missing code: <the code>` (Python: \
`# missing code: <the code>`) right after the line it should follow. Keep one unmarked line before and after each \
mark so that it can be found. Do not fix the code.";

const FIXER: &str = "You are the Fixer of a debugging team. Skill: program repair. Action: read the marked code (the \
Locator's marks may be wrong: check them and correct them if needed) and write the fix. Output: one line `ROOT \
CAUSE: <one sentence>`, then a unified diff (--- a/<file> / +++ b/<file> headers, @@ hunks) against the ORIGINAL \
file, without the marker comments and without line numbers. Change only what the fix needs.";

const FIXER_PRO: &str = "You are FixerPro, the reviewer of a debugging team. Skill: code review and repair. If the \
patch under review passes every test, make it simpler and easier to maintain without changing what it does, or \
answer KEEP when it is already minimal. If it fails, read the failing tests' output, diagnose why, and write a \
corrected patch. Output: one line `DIAGNOSIS: <one sentence>`, then a unified diff against the ORIGINAL file (not \
against the patched one), without line numbers.";

const SLICER: &str = "You are the Slicer of a debugging team. Skill: narrowing the search. Action: pick one \
contiguous window of 20 to 100 lines of the buggy file that most likely holds the fault. Output exactly two \
lines, each quoting one line of the file exactly: `FIRST: <first line of the window>` and `LAST: <last line of \
the window>`.";

const SUMMARIZER: &str = "You are the Summarizer of a debugging team. Skill: compressing code without losing its \
meaning. Action: summarize every class method and function of the file, one line each, in exactly this format: \
`class ~~~ function ~~~ parameters ~~~ return type ~~~ description` (description: what it computes, one short \
sentence). Output only those lines.";

const HELPER: &str = "You are the Helper of a debugging team. Skill: finding and reading reference solutions. You \
turn a bug into a search query for a database of past bug fixes, and you turn the similar fixes found into a \
short, concrete reference guide for fixing this bug.";

const REPO_FOCUS: &str = "You are RepoFocus, the repository analyst of a debugging team. Skill: finding the files a \
bug involves from the project structure, package and import declarations and the failing tests' stack traces. \
Output one line `FILES: <path>, <path>, ...` naming 2 to 6 files from the candidate list, most related first.";

/// A candidate's result shown to later agents, at most this many characters.
pub const FEEDBACK_CHARS: usize = 1500;

/// Most words of the Helper's query (paper: "a concise search query (≤ 100 words)").
pub const QUERY_WORDS: usize = 100;

/// Feedback for a candidate cut off at the token limit before its first complete edit.
pub const CUT_OFF_PATCH: &str =
    "the reply was cut off at the token limit before a complete edit; write a shorter patch";

/// What the agents of one level know beyond the bug (the algorithm's `extra_info`).
#[derive(Debug, Clone, Default)]
pub struct Extra {
    /// The SBFL ranking's most suspicious lines (seeds the Locator without a given location).
    pub sbfl: String,
    /// The buggy file's summary (L2, L3).
    pub summary: String,
    /// The related files' summaries (L3).
    pub related: String,
    /// The Helper's reference guide (L3).
    pub guide: String,
    /// The last candidate's verdict and test output (testing feedback).
    pub feedback: String,
}

impl Extra {
    /// The sections that are known, each under its heading; empty when none is.
    #[must_use]
    pub fn render(&self) -> String {
        let sections = [
            ("Fault localization (SBFL, Ochiai): the most suspicious lines", &self.sbfl),
            ("Summary of the buggy file", &self.summary),
            ("Summaries of related files", &self.related),
            ("Reference guide from similar past fixes", &self.guide),
            ("The last candidate patch and its test result", &self.feedback),
        ];
        sections
            .iter()
            .filter(|(_, text)| !text.trim().is_empty())
            .map(|(title, text)| format!("## {title}\n{}\n\n", text.trim_end()))
            .collect()
    }
}

/// The bug as every agent sees it: the file, the failing tests' output.
fn bug_header(p: &Problem) -> String {
    format!("Buggy file: {}\n\n## Failing tests' output\n{}\n\n", p.bug.file.display(), p.failure.trim_end())
}

/// A fenced block of `lang` code.
fn fenced(lang: &str, code: &str) -> String {
    format!("```{lang}\n{}\n```", code.trim_end())
}

/// The Locator's request on `code` (the method at L1, the slice at L2 and L3).
#[must_use]
pub fn locator_prompt(p: &Problem, code: &str, extra: &Extra) -> String {
    format!(
        "{}{}## Code\n{}\n\nMark the faulty lines of this code. {DUCK}",
        bug_header(p),
        extra.render(),
        fenced(p.lang(), code)
    )
}

/// The re-ask after marks that could not be placed.
#[must_use]
pub fn locator_retry(refused: &[String]) -> String {
    format!(
        "These marks could not be placed on the code: {}. Copy the lines exactly as they are in the code shown \
         (one unmarked line before and after each mark) and mark them again.",
        refused.join("; ")
    )
}

/// The Fixer's request on the marked code.
#[must_use]
pub fn fixer_prompt(p: &Problem, marked: &str, extra: &Extra) -> String {
    format!(
        "{}{}## Marked code (from {})\n{}\n\nWrite the fix. {DUCK}",
        bug_header(p),
        extra.render(),
        p.bug.file.display(),
        fenced(p.lang(), marked)
    )
}

/// FixerPro on a plausible patch: simplify it, or `KEEP`.
#[must_use]
pub fn simplify_prompt(p: &Problem, code: &str, diff: &str) -> String {
    format!(
        "{}## Code\n{}\n\n## Patch under review (every test passes with it)\n```diff\n{}\n```\n\nSimplify this patch \
         if you can, keeping every test passing, or answer KEEP.",
        bug_header(p),
        fenced(p.lang(), code),
        diff.trim_end()
    )
}

/// FixerPro on a failing patch: diagnose from the test output and correct it.
#[must_use]
pub fn correct_prompt(p: &Problem, code: &str, diff: &str, result: &str, extra: &Extra) -> String {
    format!(
        "{}{}## Code\n{}\n\n## Patch under review\n```diff\n{}\n```\n\n## Its result\n{}\n\nDiagnose why it fails and \
         write a corrected patch against the original file. {DUCK}",
        bug_header(p),
        extra.render(),
        fenced(p.lang(), code),
        diff.trim_end(),
        result.trim_end()
    )
}

/// The Fixer's revision in the reflection, with FixerPro's diagnosis.
#[must_use]
pub fn revise_prompt(p: &Problem, marked: &str, diff: &str, diagnosis: &str, extra: &Extra) -> String {
    format!(
        "{}{}## Marked code (from {})\n{}\n\n## Your earlier patch\n```diff\n{}\n```\n\n## The reviewer's diagnosis of \
         why it fails\n{}\n\nRevise your patch. {DUCK}",
        bug_header(p),
        extra.render(),
        p.bug.file.display(),
        fenced(p.lang(), marked),
        diff.trim_end(),
        diagnosis.trim()
    )
}

/// The Slicer's request on the whole buggy file (`text`, cut to fit).
#[must_use]
pub fn slicer_prompt(p: &Problem, text: &str, extra: &Extra) -> String {
    format!(
        "{}{}## The buggy file\n{}\n\nThe fault was first localized in the lines starting `{}`. Name the window.",
        bug_header(p),
        extra.render(),
        fenced(p.lang(), text),
        p.code.lines().next().unwrap_or("").trim()
    )
}

/// The re-ask after a window that is not in the file.
#[must_use]
pub fn slicer_retry(reason: &str) -> String {
    format!("That window was refused: {reason}. Quote the first and last lines exactly as they are in the file.")
}

/// The Summarizer's request on one file.
#[must_use]
pub fn summarizer_prompt(path: &str, lang: &str, text: &str) -> String {
    format!("## {path}\n{}\n\nSummarize this file.", fenced(lang, text))
}

/// The Helper's first request: the query.
#[must_use]
pub fn query_prompt(p: &Problem) -> String {
    format!(
        "{}## Buggy code\n{}\n\nWrite one search query of at most {QUERY_WORDS} words that states the likely root \
         cause of this bug in general terms (no file names), as one line `QUERY: <query>`.",
        bug_header(p),
        fenced(p.lang(), &p.code)
    )
}

/// The Helper's second request: the guide from the similar fixes found.
#[must_use]
pub fn guide_prompt(p: &Problem, similar: &str) -> String {
    format!(
        "{}## Buggy code\n{}\n\n## Similar past bug fixes\n{}\n\nWrite a reference guide of at most 150 words for fixing \
         this bug: which of these fixes apply, and the repair pattern they show.",
        bug_header(p),
        fenced(p.lang(), &p.code),
        similar.trim_end()
    )
}

/// RepoFocus's request: the candidates of the pre-ranking with their signals.
#[must_use]
pub fn focus_prompt(p: &Problem, candidates: &str) -> String {
    format!(
        "{}## Candidate files (ranked by stack frames, imports, tests and packages)\n{}\n\nWhich of these files does \
         the bug involve besides the buggy file?",
        bug_header(p),
        candidates.trim_end()
    )
}

/// The Helper's query: the text after `QUERY:` (else the answer's first non-empty line), at
/// most [`QUERY_WORDS`] words; `None` when empty.
#[must_use]
pub fn parse_query(answer: &str) -> Option<String> {
    let line = answer
        .lines()
        .find_map(|l| l.trim().strip_prefix("QUERY:").map(str::to_string))
        .or_else(|| answer.lines().map(str::trim).find(|l| !l.is_empty()).map(str::to_string))?;
    let words: Vec<&str> = line.split_whitespace().take(QUERY_WORDS).collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// The files RepoFocus names that are in `allowed` (a `FILES:` line, else any allowed path
/// the answer mentions), in the answer's order, at most 6, no repeats.
#[must_use]
pub fn parse_files(answer: &str, allowed: &[String]) -> Vec<String> {
    let listed = answer.lines().find_map(|l| l.trim().strip_prefix("FILES:"));
    let mut out: Vec<String> = Vec::new();
    let mut take = |name: &str| {
        let name = name.trim().trim_matches(|c| c == '`' || c == '"' || c == '\'');
        let found =
            allowed.iter().find(|a| a.as_str() == name || (!name.is_empty() && a.ends_with(&format!("/{name}"))));
        if let Some(a) = found.filter(|a| !out.contains(a) && out.len() < 6) {
            out.push(a.clone());
        }
    };
    match listed {
        Some(list) => list.split(',').for_each(&mut take),
        None => {
            let mut found: Vec<(usize, &String)> =
                allowed.iter().filter_map(|a| answer.find(a.as_str()).map(|at| (at, a))).collect();
            found.sort();
            found.into_iter().for_each(|(_, a)| take(a));
        }
    }
    out
}

/// Whether FixerPro keeps the plausible patch as it is (`KEEP`, and no diff).
#[must_use]
pub fn keeps(answer: &str) -> bool {
    answer.lines().any(|l| l.trim().trim_matches('`').eq_ignore_ascii_case("KEEP")) && !answer.contains("@@")
}

/// The `DIAGNOSIS:` (FixerPro) or `ROOT CAUSE:` (Fixer) line of an answer.
#[must_use]
pub fn stated(answer: &str, tag: &str) -> Option<String> {
    answer
        .lines()
        .find_map(|l| {
            let l = l.trim().trim_start_matches(['*', '#', ' ']);
            l.strip_prefix(tag).map(|rest| rest.trim_start_matches([':', '*', ' ']).trim().to_string())
        })
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_is_cut_to_one_hundred_words() {
        let long = format!("QUERY: {}", "word ".repeat(150));
        assert_eq!(parse_query(&long).unwrap().split_whitespace().count(), QUERY_WORDS);
        assert_eq!(parse_query("thinking\nQUERY: off-by-one loop bound").unwrap(), "off-by-one loop bound");
        assert_eq!(parse_query("loop bound off by one\n").unwrap(), "loop bound off by one");
        assert_eq!(parse_query("  \n"), None);
    }

    #[test]
    fn files_are_taken_from_the_list_only() {
        let allowed = vec!["src/a/Util.java".to_string(), "src/a/Node.java".to_string(), "lib/x.py".to_string()];
        assert_eq!(
            parse_files("FILES: Node.java, src/a/Util.java, Other.java, Node.java", &allowed),
            vec!["src/a/Node.java".to_string(), "src/a/Util.java".to_string()]
        );
        assert_eq!(
            parse_files("I think lib/x.py and src/a/Util.java", &allowed),
            vec!["lib/x.py".to_string(), "src/a/Util.java".to_string()]
        );
        assert!(parse_files("FILES: none", &allowed).is_empty());
    }

    #[test]
    fn keep_and_stated_lines() {
        assert!(keeps("DIAGNOSIS: already minimal\nKEEP"));
        assert!(!keeps("KEEP\n--- a/F.java\n+++ b/F.java\n@@ -1 +1 @@\n-a\n+b\n"));
        assert_eq!(
            stated("x\n**DIAGNOSIS:** the bound is wrong\n", "DIAGNOSIS").as_deref(),
            Some("the bound is wrong")
        );
        assert_eq!(stated("ROOT CAUSE: off by one", "ROOT CAUSE").as_deref(), Some("off by one"));
        assert_eq!(stated("nothing", "ROOT CAUSE"), None);
    }

    #[test]
    fn extra_renders_only_known_sections() {
        let e = Extra { guide: "use <=".into(), ..Extra::default() };
        assert_eq!(e.render(), "## Reference guide from similar past fixes\nuse <=\n\n");
        assert_eq!(Extra::default().render(), "");
    }
}
