//! Duplicate detection: the same id twice, or the same (buggy_code, fixed_code) pair twice.
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Duplicate {
    /// Another record already had this id.
    Id(Origin),
    /// Another record already had exactly this buggy and fixed code.
    Pair(Origin),
}

/// Remembers the records kept so far.
#[derive(Debug, Default)]
pub struct Dedup {
    ids: HashMap<String, Origin>,
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
    pub fn check(&mut self, r: &Record, origin: Origin, kept: &[Record], origins: &[Origin]) -> Option<Duplicate> {
        if let Some(first) = self.ids.get(&r.id) {
            return Some(Duplicate::Id(*first));
        }
        let h = self.hasher.hash_one((&r.buggy_code, &r.fixed_code));
        let same = |&i: &usize| kept[i].buggy_code == r.buggy_code && kept[i].fixed_code == r.fixed_code;
        if let Some(&i) = self.pairs.get(&h).and_then(|v| v.iter().find(|i| same(i))) {
            return Some(Duplicate::Pair(origins[i]));
        }
        self.ids.insert(r.id.clone(), origin);
        self.pairs.entry(h).or_default().push(kept.len());
        None
    }
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
            let dup = d.check(&r, o, &kept, &origins);
            if dup.is_none() {
                kept.push(r);
                origins.push(o);
            }
            dup
        };
        assert_eq!(feed(rec("a", "x", "y"), 1), None);
        assert_eq!(feed(rec("a", "p", "q"), 2), Some(Duplicate::Id(Origin { file: 0, row: 1 })));
        assert_eq!(feed(rec("b", "x", "y"), 3), Some(Duplicate::Pair(Origin { file: 0, row: 1 })));
        assert_eq!(feed(rec("c", "x", "z"), 4), None);
        assert_eq!(feed(rec("d", "xy", ""), 5), None);
    }
}
