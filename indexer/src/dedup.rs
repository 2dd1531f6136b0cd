//! Duplicate detection: the same id twice (a harmless repeat when the whole row is the same,
//! a conflict when its content differs), or the same (buggy_code, fixed_code) pair twice.
//! The first occurrence is kept; later ones are dropped and reported.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};

use engine::Record;

/// Where a kept record came from: input file index and 1-based row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    /// Index into the list of input files.
    pub file: usize,
    /// Row within that file (JSONL: line number).
    pub row: u64,
}

/// Why a record is a duplicate, and of which earlier record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Duplicate {
    /// Another record already had this id and the same content: a repeated row.
    Id(Origin),
    /// Another record already had this id with other content: the corpus gives one id to
    /// two different pairs, and the later one is lost. `fields` names the fields that
    /// differ ([`engine::docs::COLUMNS`] names, in that order).
    IdConflict {
        /// The kept record.
        first: Origin,
        /// The fields whose values differ.
        fields: Vec<&'static str>,
    },
    /// Another record already had exactly this buggy and fixed code.
    Pair(Origin),
}

/// Remembers the records kept so far.
#[derive(Debug, Default)]
pub struct Dedup {
    /// Id → position in `kept`.
    ids: HashMap<String, usize>,
    /// Hash of (buggy, fixed) → positions in `kept` with that hash (collisions resolved by
    /// comparing the strings).
    pairs: HashMap<u64, Vec<usize>>,
    hasher: RandomState,
}

impl Dedup {
    /// An empty detector.
    pub fn new() -> Dedup {
        Dedup::default()
    }

    /// Checks `r` against the records kept so far (`kept[i]` came from `origins[i]`).
    /// Returns `None` and remembers it when it is new; `Some` when it duplicates one.
    /// O(1) expected.
    pub fn check(&mut self, r: &Record, kept: &[Record], origins: &[Origin]) -> Option<Duplicate> {
        if let Some(&i) = self.ids.get(&r.id) {
            let fields = differing_fields(&kept[i], r);
            return Some(if fields.is_empty() {
                Duplicate::Id(origins[i])
            } else {
                Duplicate::IdConflict { first: origins[i], fields }
            });
        }
        let h = self.hasher.hash_one((&r.buggy_code, &r.fixed_code));
        let same = |&i: &usize| kept[i].buggy_code == r.buggy_code && kept[i].fixed_code == r.fixed_code;
        if let Some(&i) = self.pairs.get(&h).and_then(|v| v.iter().find(|i| same(i))) {
            return Some(Duplicate::Pair(origins[i]));
        }
        self.ids.insert(r.id.clone(), kept.len());
        self.pairs.entry(h).or_default().push(kept.len());
        None
    }
}

/// The names of the fields in which `a` and `b` differ ([`Record::fields`] order).
fn differing_fields(a: &Record, b: &Record) -> Vec<&'static str> {
    let columns = engine::docs::COLUMNS;
    a.fields().into_iter().zip(b.fields()).zip(columns).filter(|((x, y), _)| x != y).map(|(_, name)| name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: &str, b: &str, f: &str) -> Record {
        Record { id: id.into(), buggy_code: b.into(), fixed_code: f.into(), ..Record::default() }
    }

    #[test]
    fn first_wins_for_ids_and_pairs() {
        let mut d = Dedup::new();
        let (mut kept, mut origins) = (Vec::new(), Vec::new());
        let mut feed = |r: Record, row| {
            let o = Origin { file: 0, row };
            let dup = d.check(&r, &kept, &origins);
            if dup.is_none() {
                kept.push(r);
                origins.push(o);
            }
            dup
        };
        assert_eq!(feed(rec("a", "x", "y"), 1), None);
        let first = Origin { file: 0, row: 1 };
        assert_eq!(feed(rec("a", "x", "y"), 2), Some(Duplicate::Id(first)));
        assert_eq!(
            feed(rec("a", "p", "y"), 2),
            Some(Duplicate::IdConflict { first, fields: vec!["buggy_code"] }),
            "issue 29: other content under a taken id is a conflict, not a repeat"
        );
        assert_eq!(feed(rec("b", "x", "y"), 3), Some(Duplicate::Pair(Origin { file: 0, row: 1 })));
        assert_eq!(feed(rec("c", "x", "z"), 4), None);
        assert_eq!(feed(rec("d", "xy", ""), 5), None);
    }
}
