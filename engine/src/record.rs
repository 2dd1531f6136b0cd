//! [`Record`]: one bug-fix pair (BFP) as stored in an index.

use serde::{Deserialize, Serialize};

/// One bug-fix pair, as stored in an index's document section and returned by search.
///
/// Field meanings follow `../shared/data/README.md`; `root_cause` is the text that was
/// embedded next to the code (see [`crate::embed::compose`]), taken from the corpus field
/// chosen with `--cause-field`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Unique id, e.g. `defects4j:Lang-1`.
    pub id: String,
    /// Dataset the pair comes from, e.g. `defects4j`.
    pub source: String,
    /// Upstream project (`owner/name` or a benchmark project id); `unknown` when not known.
    pub project: String,
    /// Programming language, lower case (`java`, `python`, ...).
    pub language: String,
    /// The buggy function(s) or hunk.
    pub buggy_code: String,
    /// The fixed version of the same code.
    pub fixed_code: String,
    /// Root-cause text that was embedded with the code; may be empty.
    pub root_cause: String,
    /// Commit message or bug title; may be empty.
    pub description: String,
    /// Licence of the data.
    pub license: String,
    /// Provenance as a JSON object in text form; empty when the corpus had none.
    pub meta: String,
    /// The primary repair action of the fix (format v2): the JSON name of an
    /// `actions::ActionKind` (`CHANGE_OPERATOR`, ..., `OTHER`), filled by `fixdex index`
    /// with `actions::classify`. Empty when the document was never classified (a record
    /// written through [`crate::IndexBuilder`] without one). The engine stores it and does
    /// not interpret it.
    pub action_label: String,
    /// Why the label is what it is when the actions do not say (`parse error`, `mixed
    /// edits`, `no change`, ...); empty when there is no reason to give.
    pub action_reason: String,
    /// The fix's repair actions as a JSON array, as `actions` serialises a
    /// `Vec<actions::Action>` (`[{"kind": "CHANGE_OPERATOR", "before": "<", ...}]`); `[]` for
    /// none, empty when [`Record::action_label`] is empty. Stored as text, not interpreted
    /// here; [`crate::Index::verify`] checks that it is a JSON array of objects.
    pub actions: String,
}

impl Record {
    /// The thirteen text fields in the order of the document section's columns
    /// ([`crate::docs::COLUMNS`]): id, source, project, language, buggy_code, fixed_code,
    /// root_cause, description, license, meta, action_label, action_reason, actions.
    pub fn fields(&self) -> [&str; 13] {
        [
            &self.id,
            &self.source,
            &self.project,
            &self.language,
            &self.buggy_code,
            &self.fixed_code,
            &self.root_cause,
            &self.description,
            &self.license,
            &self.meta,
            &self.action_label,
            &self.action_reason,
            &self.actions,
        ]
    }
}

/// 64-bit FNV-1a hash of `s`, used by the `IdHashes` section. Stable across builds and
/// platforms (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
pub fn id_hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_known_values() {
        assert_eq!(id_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(id_hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(id_hash("foobar"), 0x8594_4171_f739_67e8);
    }
}
