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
}

impl Record {
    /// The ten text fields in the order of the document section's columns
    /// ([`crate::docs::COLUMNS`]): id, source, project, language, buggy_code, fixed_code,
    /// root_cause, description, license, meta.
    pub fn fields(&self) -> [&str; 10] {
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
