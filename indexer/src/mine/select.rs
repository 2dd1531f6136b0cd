//! Which commits are bug fixes, by their message ([`judge`]), and which paths are tests or
//! generated code ([`is_test_path`], [`is_generated`]).
//!
//! The message rules follow the keyword heuristics of the mining literature (Mockus &
//! Votta, "Identifying reasons for software changes using historic databases", ICSM 2000;
//! the SZZ family; ManySStuBs4J's and this project's `mined_git_history.jsonl` rules in
//! `../shared/data/README.md`): a fix keyword or an issue reference selects, a revert or a
//! housekeeping subject without an issue reference rejects.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::Skip;

/// Why a commit message selected its commit: the words and issue references found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Evidence {
    /// Fix keywords, lower case, in order of appearance, each once (`fix`, `bug`, `npe`, ...).
    pub keywords: Vec<String>,
    /// Issue references, each once: keys (`CLI-123`), `#123`, `GH-123`.
    pub issues: Vec<String>,
}

/// What [`judge`] says of a commit message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// A bug fix, with the evidence.
    Fix(Evidence),
    /// Not selected: [`Skip::Revert`], [`Skip::Housekeeping`], [`Skip::NoFixEvidence`] or
    /// [`Skip::Feature`].
    Skip(Skip),
}

/// Fix keywords, matched as whole words, case-insensitively.
static KEYWORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(fix|fixe[sd]|fixing|bugs?|bugfix(es)?|hotfix|issues?|patch(es|ed)?|errors?|exceptions?|crash(es|ed)?|npe|nullpointer\w*|fail(s|ed|ure|ures|ing)?|wrong(ly)?|incorrect(ly)?|broken|regression|resolve[sd]?|defects?|faults?|mistakes?|problems?)\b",
    )
    .expect("valid regex")
});

/// Issue keys (`CLI-123`, `LANG-1`), `GH-12`, and `#12` after a space, a bracket or the
/// start of the message.
static ISSUES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b([A-Z][A-Z0-9]{1,15}-[0-9]{1,6})\b|(?:^|[\s(\[])(#[0-9]{1,7})\b").expect("valid regex")
});

/// Upper-case prefixes that look like issue keys but name standards (`UTF-8`, `SHA-1`).
const NOT_ISSUE_KEYS: [&str; 9] = ["UTF", "ISO", "SHA", "RFC", "MD", "JSR", "JDK", "CP", "PEP"];

/// Housekeeping subjects: rejected unless the message also cites an issue.
static HOUSEKEEPING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(typos?|javadocs?|docstrings?|checkstyle|spotbugs|findbugs|pmd|sonar\w*|reformat\w*|formatting|whitespaces?|indentation|warnings?|copyright|license headers?|changelog|readme|docs|documentation|bump(ed|s)?|dependabot|lint(ing|er|s)?|flake8|pylint|travis|appveyor|ci)\b",
    )
    .expect("valid regex")
});

/// Subjects that announce new work: rejected when the message has no fix keyword (an
/// issue reference alone does not make `[CLI-224] Add a fluent builder` a fix).
static FEATURE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(add(s|ed|ing)?|implement(s|ed|ing)?|introduce[sd]?|introducing|new|support(s|ed|ing)?|allow(s|ed)?|enable[sd]?|feat(ure)?|refactor(s|ed|ing)?|rename[sd]?)\b")
        .expect("valid regex")
});

/// The subject without leading issue tags: `[CLI-224] `, `CLI-277: `. A component prefix
/// (`cli: support escaped hyphens`) is kept: what follows it is often a fix's own wording.
fn strip_tags(subject: &str) -> String {
    static TAG: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^(\s*(\[[^\]]*\]|[A-Z][A-Z0-9]+-[0-9]+:?)\s*)+").expect("valid regex"));
    TAG.replace(subject, "").into_owned()
}

/// Judges a commit message (`message`: the whole message; the subject is its first line).
pub fn judge(message: &str) -> Verdict {
    let subject = message.lines().next().unwrap_or("").trim();
    if subject.get(..6).is_some_and(|w| w.eq_ignore_ascii_case("revert")) || message.contains("This reverts commit") {
        return Verdict::Skip(Skip::Revert);
    }
    let body = without_trailers(message);
    let evidence = Evidence { keywords: keywords(&body), issues: issues(&body) };
    if evidence.issues.is_empty() && HOUSEKEEPING.is_match(subject) {
        return Verdict::Skip(Skip::Housekeeping);
    }
    if evidence.keywords.is_empty() && evidence.issues.is_empty() {
        return Verdict::Skip(Skip::NoFixEvidence);
    }
    if evidence.keywords.is_empty() && FEATURE.is_match(&strip_tags(subject)) {
        return Verdict::Skip(Skip::Feature);
    }
    Verdict::Fix(evidence)
}

/// The message without `git-svn-id:`, `Signed-off-by:` and similar trailer lines, which
/// carry paths and names, not intent.
fn without_trailers(message: &str) -> String {
    let trailer = |l: &str| {
        let l = l.trim_start();
        ["git-svn-id:", "Signed-off-by:", "Co-authored-by:", "Reviewed-by:", "Change-Id:"]
            .iter()
            .any(|t| l.get(..t.len()).is_some_and(|p| p.eq_ignore_ascii_case(t)))
    };
    message.lines().filter(|l| !trailer(l)).collect::<Vec<_>>().join("\n")
}

fn keywords(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for m in KEYWORDS.find_iter(text) {
        let word = m.as_str().to_lowercase();
        if !out.contains(&word) {
            out.push(word);
        }
    }
    out
}

fn issues(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in ISSUES.captures_iter(text) {
        let found = match (c.get(1), c.get(2)) {
            (Some(key), _) => {
                let prefix = key.as_str().split('-').next().unwrap_or("");
                if NOT_ISSUE_KEYS.contains(&prefix) {
                    continue;
                }
                key.as_str().to_string()
            }
            (None, Some(num)) => num.as_str().to_string(),
            (None, None) => continue,
        };
        if !out.contains(&found) {
            out.push(found);
        }
    }
    out
}

/// Whether `path` (`/`-separated, relative to the repository root) is test code: a
/// directory named `test`, `tests`, `testing` or `__tests__` on the way, or a file named
/// like a test (`*Test.java`, `*Tests.java`, `*TestCase.java`, `Test*.java`,
/// `test_*.py`, `tests_*.py`, `*_test.py`, `tests.py`, `conftest.py`).
pub fn is_test_path(path: &str) -> bool {
    let mut parts = path.split('/').collect::<Vec<_>>();
    let file = parts.pop().unwrap_or("");
    if parts.iter().any(|d| matches!(d.to_ascii_lowercase().as_str(), "test" | "tests" | "testing" | "__tests__")) {
        return true;
    }
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    if file.ends_with(".java") {
        return stem.ends_with("Test")
            || stem.ends_with("Tests")
            || stem.ends_with("TestCase")
            || (stem.starts_with("Test") && stem[4..].starts_with(|c: char| c.is_ascii_uppercase()));
    }
    file.ends_with(".py")
        && (stem.starts_with("test_")
            || stem.starts_with("tests_")
            || stem.ends_with("_test")
            || stem == "tests"
            || stem == "conftest")
}

/// Whether a file is generated code: a path under `generated`/`generated-sources`, a
/// protobuf module (`*_pb2.py`, `*_pb2_grpc.py`), or a first-ten-lines marker (`@generated`,
/// `Generated by`, `DO NOT EDIT`, `@javax.annotation.Generated`).
pub fn is_generated(path: &str, text: &str) -> bool {
    let by_path = path.split('/').any(|d| d == "generated" || d == "generated-sources")
        || path.ends_with("_pb2.py")
        || path.ends_with("_pb2_grpc.py");
    by_path
        || text.lines().take(10).any(|l| {
            l.contains("@generated")
                || l.contains("Generated by")
                || l.contains("DO NOT EDIT")
                || l.contains("annotation.Generated")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fix(message: &str) -> Evidence {
        match judge(message) {
            Verdict::Fix(e) => e,
            Verdict::Skip(why) => panic!("{message:?} skipped: {}", why.as_str()),
        }
    }

    #[test]
    fn keywords_and_issue_references_select() {
        let e = fix("Applying Brian Egge's fix and unit test from CLI-13.\n\ngit-svn-id: https://svn/x/cli@542140 13f");
        assert_eq!((e.keywords, e.issues), (vec!["fix".to_string()], vec!["CLI-13".to_string()]));
        let e = fix("support `bool()` cast when `disable=True`\n\nfixes #574");
        assert_eq!((e.keywords, e.issues), (vec!["fixes".to_string()], vec!["#574".to_string()]));
        assert_eq!(fix("CLI: support escaped hyphens\n\nrelayed to #511").issues, ["#511"]);
        assert_eq!(fix("SI unit boundary bugfix, iterator len bugfix").keywords, ["bugfix"]);
    }

    #[test]
    fn standards_are_not_issue_keys_and_trailers_are_ignored() {
        assert_eq!(judge("Read files as UTF-8 by default"), Verdict::Skip(Skip::NoFixEvidence));
        assert_eq!(judge("Add option\n\nSigned-off-by: Fix Person <f@x>"), Verdict::Skip(Skip::NoFixEvidence));
        // A multi-byte character where a trailer's name would end.
        assert_eq!(judge("Add bar\n\n100%|████| 4/4"), Verdict::Skip(Skip::NoFixEvidence));
    }

    #[test]
    fn reverts_and_housekeeping_are_rejected_unless_an_issue_is_cited() {
        assert_eq!(judge("Revert \"fix the parser\"\n\nThis reverts commit abc."), Verdict::Skip(Skip::Revert));
        assert_eq!(judge("fix typo in javadoc"), Verdict::Skip(Skip::Housekeeping));
        assert_eq!(judge("Fix checkstyle warnings"), Verdict::Skip(Skip::Housekeeping));
        assert_eq!(judge("revert CLI-166"), Verdict::Skip(Skip::Revert));
        assert_eq!(judge("linting\n\ncloses a bug"), Verdict::Skip(Skip::Housekeeping));
        let e = fix("Adding comma delimited whitespace to the exception message, as requested in CLI-149.");
        assert_eq!(e.issues, ["CLI-149"]);
        assert_eq!(judge("Add a builder for options"), Verdict::Skip(Skip::NoFixEvidence));
    }

    #[test]
    fn new_work_with_only_an_issue_key_is_a_feature() {
        assert_eq!(judge("[CLI-224] Added new fluent builder API to Option"), Verdict::Skip(Skip::Feature));
        assert_eq!(judge("CLI-277: Add generics to TypeHandler"), Verdict::Skip(Skip::Feature));
        assert_eq!(judge("Implemented partial matching for long options (CLI-160)"), Verdict::Skip(Skip::Feature));
        assert_eq!(fix("support `bool()` cast when `disable=True`\n\nfixes #574").issues, ["#574"]);
        assert_eq!(fix("cli: add --update\n\n- fixes #975").keywords, ["fixes"]);
    }

    #[test]
    fn test_and_generated_paths() {
        for p in [
            "src/test/java/a/B.java",
            "tqdm/tests/tests_tqdm.py",
            "a/BTest.java",
            "a/TestB.java",
            "test_x.py",
            "tests.py",
        ] {
            assert!(is_test_path(p), "{p}");
        }
        for p in ["src/main/java/a/Testament.java", "src/java/org/apache/commons/cli/Parser.java", "tqdm/std.py"] {
            assert!(!is_test_path(p), "{p}");
        }
        assert!(is_generated("a/b_pb2.py", ""));
        assert!(is_generated("A.java", "// Generated by JavaCC: Do not edit\nclass A {}"));
        assert!(!is_generated("A.java", "class A {}"));
    }
}
