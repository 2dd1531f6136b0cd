//! What [`classify`](crate::classify) returns.

use std::fmt;

use crate::ActionKind;

/// One repair action: a kind with its concrete tokens and where it happened.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Action {
    /// The kind of edit.
    pub kind: ActionKind,
    /// The changed tokens on the buggy side, space-separated (`<`); empty for a pure
    /// insertion. At most [`Action::MAX_TOKENS_CHARS`] characters, cut with `…`.
    pub before: String,
    /// The changed tokens on the fixed side (`<=`); empty for a pure deletion.
    pub after: String,
    /// tree-sitter kind of the enclosing statement (`for_statement`, `if_statement`,
    /// `method_declaration`, ...).
    pub enclosing: String,
    /// The part of the enclosing statement the edit is in (`condition`, `body`, ...), when
    /// the grammar names it.
    pub field: Option<String>,
    /// First and last line of the edit in the buggy snippet (1-based, inclusive); for an
    /// insertion, the lines of the node it was inserted into.
    pub buggy_lines: (u32, u32),
    /// First and last line in the fixed snippet; for a deletion, the lines of the node it
    /// was deleted from.
    pub fixed_lines: (u32, u32),
}

impl Action {
    /// Cap on the characters of [`Action::before`] and [`Action::after`].
    pub const MAX_TOKENS_CHARS: usize = 80;
}

impl fmt::Display for Action {
    /// One line for people: `change operator < → <= in for condition`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.phrase())?;
        match (self.before.is_empty(), self.after.is_empty()) {
            (false, false) => write!(f, " {} → {}", self.before, self.after)?,
            (true, false) => write!(f, " {}", self.after)?,
            (false, true) => write!(f, " {}", self.before)?,
            (true, true) => {}
        }
        let place = match self.enclosing.as_str() {
            "expression_statement" => "expression statement".to_string(),
            kind => kind.trim_end_matches("_statement").replace('_', " "),
        };
        match &self.field {
            Some(field) => write!(f, " in {place} {field}"),
            None => write!(f, " in {place}"),
        }
    }
}

/// The actions of one bug-fix pair and its primary label.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Classification {
    /// The single label the pair is classified as: the structural addition (try/catch, null
    /// check, guard) of a small fix, else the one kind all actions share, else
    /// [`ActionKind::Other`] (a rewrite: unrelated edits).
    pub label: ActionKind,
    /// Actions in the order of the buggy code (one per changed statement, one per added or
    /// removed statement).
    pub actions: Vec<Action>,
    /// Why the label is what it is, when that is not obvious from the actions (`parse
    /// error`, `input too long`, `no change`, `mixed edits`).
    pub reason: Option<String>,
}

impl Classification {
    pub(crate) fn other(reason: String) -> Self {
        Classification { label: ActionKind::Other, actions: Vec::new(), reason: Some(reason) }
    }
}
