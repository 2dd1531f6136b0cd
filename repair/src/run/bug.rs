//! What a bug *is*: the project, the fault location and the tests that fail ([`Bug`], given
//! by the user), and once the pre-flight has run, the located code, the failure output and
//! the plausibility rule ([`Problem`]). Both are immutable during a run; what a run *has*
//! (client, ledger, clock, budgets, the report being built) is the
//! [`Session`](crate::run::session::Session).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::Language;
use crate::error::{Error, Result};
use crate::fl::LineWeights;
use crate::validate::baseline::Plausibility;

/// Where the bug is: perfect fault localization from the user, or an SBFL ranking's top.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Location {
    /// A method or function by name: `name` or `Owner.name`, optionally with a parameter
    /// list that picks an overload (`parse(String, int)`; [`crate::tools::methods_named`]).
    /// When it names several, the first definition in the file (and a warning in the
    /// report); `fixdex repair --method` refuses such a name
    /// ([`crate::tools::resolve_method`]).
    Method(String),
    /// An inclusive 1-based line range.
    Lines(usize, usize),
}

/// The bug under repair.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Bug {
    /// Corpus id of this bug, if it has one (kept out of retrieval results).
    pub id: Option<String>,
    /// Project root (read only: patches go to scratch copies).
    pub root: PathBuf,
    /// Buggy file, relative to the root.
    pub file: PathBuf,
    /// Fault location in that file.
    pub location: Location,
    /// Tests the user says fail on the buggy version (substrings of the failing test names
    /// parsed from the output, e.g. `GCD_TEST#test_1` or `test_gcd.py::test_gcd`); the
    /// pre-flight refuses the run when one of them does not fail. Empty: any failure counts.
    /// When given, other tests failing on the buggy version may keep failing in a plausible
    /// patch ([`crate::validate::baseline`]).
    #[serde(default)]
    pub failing_tests: Vec<String>,
}

/// A bug after the pre-flight ([`crate::run::preflight`]): what every strategy works from.
#[derive(Debug, Clone)]
pub struct Problem {
    /// The bug as given.
    pub bug: Bug,
    /// Language of the buggy file; `None` for other extensions (the prompts then name none).
    pub language: Option<Language>,
    /// The buggy file's whole text, as the pre-flight read it (the one read of the run):
    /// what strategies parse and what [`crate::patch::Change::Splices`] edit.
    pub source: String,
    /// The buggy code: lines `lines.0..=lines.1` of the file, newline-terminated.
    pub code: String,
    /// The same lines, each prefixed with its 1-based number and `: `.
    pub numbered: String,
    /// First and last line of the buggy code, 1-based, inclusive.
    pub lines: (usize, usize),
    /// The buggy version's test output cut to the failure ([`crate::validate::Validation::feedback`],
    /// 3,000 characters): the `failureInfo` of ReinFix's Algorithm 1.
    pub failure: String,
    /// How candidates are judged plausible ([`crate::validate::baseline`]).
    pub plausibility: Plausibility,
    /// How suspicious each line of the buggy file is: uniform for a location the user gave,
    /// SBFL's line scores when it located the bug
    /// ([`Workflow::with_weights`](crate::run::workflow::Workflow::with_weights)).
    pub weights: LineWeights,
}

impl Problem {
    /// Lines `start..=end` of `text` as `(code, numbered code)` (see the fields).
    pub(crate) fn excerpt(text: &str, start: usize, end: usize) -> (String, String) {
        let lines: Vec<&str> = text.lines().collect();
        let code = lines[start - 1..end].join("\n") + "\n";
        let numbered = code.lines().enumerate().map(|(i, l)| format!("{}: {l}\n", start + i)).collect::<String>();
        (code, numbered)
    }
}

impl Problem {
    /// The language's name as the prompts give it: `java`, `python`, or `""`.
    #[must_use]
    pub fn lang(&self) -> &'static str {
        self.language.map_or("", Language::as_str)
    }
}

/// The buggy lines of `bug`: `(first line, last line, file text, warning)` of the located
/// method (its first definition, [`crate::tools::methods_named`]; the warning, for the
/// report, when the name fits several) or line range.
///
/// # Errors
/// [`Error::Read`] for an unreadable file, [`Error::Tool`] for a method that is not in it,
/// [`Error::Location`] for a line range outside the file.
pub(crate) fn locate(bug: &Bug) -> Result<(usize, usize, String, Option<String>)> {
    let path = confined(bug)?;
    let text = std::fs::read_to_string(&path).map_err(|source| Error::Read { path: path.clone(), source })?;
    let count = text.lines().count();
    let ((a, b), warning) = match &bug.location {
        Location::Lines(a, b) => ((*a, *b), None),
        Location::Method(name) => {
            let found = crate::tools::methods_named(&bug.root, &bug.file, name)?;
            (found[0].lines.into(), several(bug, name, &found))
        }
    };
    if a == 0 || b < a {
        return Err(Error::Location(if a == 0 {
            format!("line range {a}-{b} starts at line 0: lines are 1-based (the first line is 1)")
        } else {
            format!("line range {a}-{b} is empty: the start must not come after the end")
        }));
    }
    if b > count {
        return Err(Error::Location(format!("line range {a}-{b} is outside {} ({count} lines)", bug.file.display())));
    }
    Ok((a, b, text, warning))
}

/// The warning when the location `name` fits several methods of the bug's file (`found`,
/// in source order): the first is repaired.
fn several(bug: &Bug, name: &str, found: &[crate::tools::MethodSpan]) -> Option<String> {
    let [first, _, ..] = found else { return None };
    let listed: Vec<String> = found.iter().map(|m| format!("{} line {}", m.signature(), m.lines.first)).collect();
    Some(format!(
        "the location `{name}` names {} methods of {}: {}; the first ({}) is repaired; name one with its parameter \
         types, e.g. `{}`",
        found.len(),
        bug.file.display(),
        listed.join(", "),
        first.signature(),
        found[found.len() - 1].signature()
    ))
}

/// The buggy file's path, refused when it is not inside the project (an absolute path
/// elsewhere, `..`, a link out): the buggy code goes into prompts, so no other file may.
fn confined(bug: &Bug) -> Result<PathBuf> {
    let read =
        |path: &std::path::Path| path.canonicalize().map_err(|source| Error::Read { path: path.to_path_buf(), source });
    let root = read(&bug.root)?;
    let path = read(&bug.root.join(&bug.file))?;
    if !path.starts_with(&root) {
        return Err(Error::Location(format!(
            "{} is outside the project {}: give a file under the project root",
            bug.file.display(),
            bug.root.display()
        )));
    }
    Ok(path)
}
