//! Repair actions of a bug-fix pair: what kind of edit turned the buggy code into the fixed
//! code, from a tree-sitter AST diff.
//!
//! [`classify`] parses both sides (Java or Python, method-level snippets), matches their
//! nodes GumTree-style (Falleri et al., "Fine-grained and accurate source code
//! differencing", ASE 2014: top-down identical subtrees, bottom-up by shared descendants,
//! then a recovery pass), derives the edit script (update, insert, delete, move of nodes)
//! and summarises it into [`Action`]s in the field's vocabulary ([`ActionKind`]):
//! ManySStuBs4J's simple-stupid-bug patterns (Karampatsis & Sutton, "How often do
//! single-statement bugs occur? The ManySStuBs4J dataset", MSR 2020) and TBar's fix-pattern
//! families (Liu et al., "TBar: revisiting template-based automated program repair",
//! ISSTA 2019). A pair gets a list of actions and one primary label.
//!
//! ```
//! use actions::{ActionKind, Language, classify};
//!
//! let c = classify(
//!     "int f(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }",
//!     "int f(int n) { int s = 0; for (int i = 0; i <= n; i++) s += i; return s; }",
//!     Language::Java,
//! );
//! assert_eq!(c.label, ActionKind::ChangeLoopBound);
//! assert_eq!(c.actions[0].to_string(), "change loop bound < → <= in for condition");
//! ```
//!
//! Never panics on any input: text over [`MAX_INPUT_BYTES`], nested deeper than
//! [`MAX_DEPTH`], or with a syntax error under every wrapper (Java: as a class member, as
//! statements, as a file; Python: dedented) is labelled [`ActionKind::Other`] with a
//! [`Classification::reason`] (`input too long …`, `syntax tree deeper than …`,
//! `parse error`).

#![warn(missing_docs)]

mod action;
mod cause;
mod kind;
mod matcher;
mod methods;
mod rules;
mod script;
mod shape;
mod summarise;
mod summarise_group;
mod tree;

use std::str::FromStr;

pub use action::{Action, Classification};
pub use cause::root_cause;
pub use kind::ActionKind;
pub use methods::{Method, methods, outline_hash};
pub use shape::{Fit, Shape};
pub use tree::MAX_DEPTH;

/// Longest side (buggy or fixed, in bytes) that is diffed; longer pairs are labelled
/// [`ActionKind::Other`] with reason "input too long". Matching is quadratic in the worst
/// case; 64 KiB (about 1,500 lines) keeps one pair under a few milliseconds typically.
pub const MAX_INPUT_BYTES: usize = 64 * 1024;

/// Errors of this crate (only parsing a language name can fail; classification never does).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The language name is neither `java` nor `python`.
    #[error("unknown language {name:?}: use `java` or `python`")]
    UnknownLanguage {
        /// The name given.
        name: String,
    },
    /// A source file could not be parsed into methods ([`methods()`]).
    #[error("cannot parse the file: {reason}")]
    Parse {
        /// What went wrong (`syntax error at line 12`, ...).
        reason: String,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// A source language with a grammar here: fixdex's one `Language`, shared by the repair
/// actions, the repair wing's tools, fault localization, validation and the benchmark
/// harness.
///
/// A file's language is its extension's ([`Language::from_path`]: `.java`, `.py`); its name
/// ([`Language::as_str`], `Display`, serde, [`FromStr`] case-insensitively) is `java` or
/// `python`, the word corpus records, prompts and reports use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// Java: `.java` files, tree-sitter-java 0.23 (javac and JUnit 4 validate it).
    Java,
    /// Python 3: `.py` files, tree-sitter-python 0.25 (pytest validates it).
    Python,
}

impl Language {
    /// Both languages, Java first.
    pub const ALL: [Language; 2] = [Language::Java, Language::Python];

    /// The tree-sitter grammar that parses the language.
    pub fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::Java => tree_sitter_java::LANGUAGE.into(),
            Language::Python => tree_sitter_python::LANGUAGE.into(),
        }
    }

    /// The language of `path` by its extension (`.java`, `.py`), or `None` for anything else.
    pub fn from_path(path: &std::path::Path) -> Option<Language> {
        let ext = path.extension()?.to_str()?;
        Language::ALL.into_iter().find(|l| l.extension() == ext)
    }

    /// The language named exactly `name` (`java`, `python`: [`Language::as_str`]'s names, as
    /// corpus records and index documents spell them), or `None` for anything else; [`FromStr`]
    /// also takes other cases and says what it expected.
    pub fn from_name(name: &str) -> Option<Language> {
        Language::ALL.into_iter().find(|l| l.as_str() == name)
    }

    /// `java` or `python`: the serde name, and the name prompts and reports use.
    pub fn as_str(self) -> &'static str {
        match self {
            Language::Java => "java",
            Language::Python => "python",
        }
    }

    /// The file extension, without the dot: `java` or `py`.
    pub fn extension(self) -> &'static str {
        match self {
            Language::Java => "java",
            Language::Python => "py",
        }
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Language {
    type Err = Error;

    /// `java` or `python`, case-insensitive.
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "java" => Ok(Language::Java),
            "python" => Ok(Language::Python),
            _ => Err(Error::UnknownLanguage { name: s.to_string() }),
        }
    }
}

/// Classifies the fix `buggy` → `fixed` in `lang`: its actions and one primary label.
///
/// Cost: one to three tree-sitter parses per side (the Java wrappers in the crate docs) and
/// a matching that is near-linear for similar trees and grows with size × depth² at worst.
/// Measured on this project's machine (release build, one thread): about 2,200 pairs/s over
/// the harness corpus (median pair well under a millisecond, slowest 18 ms); 0.6 s for an
/// adversarial 37 KB pair of 180 nested `if`s that share nothing. Identical code (after
/// comments and layout) gives no actions and [`ActionKind::Other`] with reason "no change".
pub fn classify(buggy: &str, fixed: &str, lang: Language) -> Classification {
    if buggy.len() > MAX_INPUT_BYTES || fixed.len() > MAX_INPUT_BYTES {
        return Classification::other(format!("input too long (over {MAX_INPUT_BYTES} bytes)"));
    }
    let (a, b) = match tree::parse_pair(buggy, fixed, lang) {
        Ok(trees) => trees,
        Err(tree::ParseFailure::Syntax) => return Classification::other("parse error".to_string()),
        Err(tree::ParseFailure::TooDeep) => {
            return Classification::other(format!("syntax tree deeper than {MAX_DEPTH}"));
        }
    };
    let m = matcher::match_trees(&a, &b);
    let edits = script::edit_script(&a, &b, &m);
    summarise::summarise(&summarise::Diff { a: &a, b: &b, m: &m }, &edits)
}

/// The edit script behind [`classify`] as text, one edit a line (`update < → <=`,
/// `insert if_statement at 3`, `delete …`, `move …`), for people checking a label. Empty
/// when the input is refused (too long, unparsable) or nothing changed.
pub fn explain(buggy: &str, fixed: &str, lang: Language) -> String {
    if buggy.len() > MAX_INPUT_BYTES || fixed.len() > MAX_INPUT_BYTES {
        return String::new();
    }
    let Ok((a, b)) = tree::parse_pair(buggy, fixed, lang) else { return String::new() };
    let m = matcher::match_trees(&a, &b);
    let show = |t: &tree::Ast, n: usize| format!("{} `{}` (line {})", t.nodes[n].kind, t.text(n), t.nodes[n].lines.0);
    let line = |e: &script::Edit| match *e {
        script::Edit::Update { a: x, b: y } => format!("update {} → {}", show(&a, x), show(&b, y)),
        script::Edit::Insert { b: y } => format!("insert {}", show(&b, y)),
        script::Edit::Delete { a: x } => format!("delete {}", show(&a, x)),
        script::Edit::Move { a: x, b: y } => {
            format!("move {} → under {}", show(&a, x), show(&b, b.nodes[y].parent.unwrap_or(y)))
        }
    };
    script::edit_script(&a, &b, &m).iter().map(line).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn language_by_extension_and_its_names() {
        assert_eq!(Language::from_path(Path::new("java_programs/GCD.java")), Some(Language::Java));
        assert_eq!(Language::from_path(Path::new("python_programs/gcd.py")), Some(Language::Python));
        for other in ["Makefile", "a.class", "a.pyc", "dir.py/x", ""] {
            assert_eq!(Language::from_path(Path::new(other)), None, "{other:?}");
        }
        for (lang, name, ext) in [(Language::Java, "java", "java"), (Language::Python, "python", "py")] {
            assert_eq!(lang.as_str(), name);
            assert_eq!(lang.to_string(), name);
            assert_eq!(lang.extension(), ext);
            assert_eq!(serde_json::to_string(&lang).unwrap(), format!("\"{name}\""));
            assert_eq!(serde_json::from_str::<Language>(&format!("\"{name}\"")).unwrap(), lang);
            assert_eq!(Language::from_path(Path::new(&format!("f.{ext}"))), Some(lang));
            assert_eq!(Language::from_name(name), Some(lang));
            assert_eq!(name.to_uppercase().parse::<Language>().unwrap(), lang);
        }
        assert_eq!(Language::from_name("Java"), None, "from_name is exact");
        assert!("rust".parse::<Language>().is_err());
    }
}
