//! What a query asks of the pipeline: [`RetrieveParams`], the one options type that
//! `fixdex search` (flags and `--batch` lines), `fixdex serve` (tool arguments) and the
//! repair workflow (`--space`, `--top-n`, ...) convert into; and [`Exclusion`], what a
//! retriever never returns whatever a query asks.

use engine::{Filter, SearchParams, Space};
use serde::{Deserialize, Serialize};

use super::rank::{self, Rank};

/// Default number of similar fixes returned (top `n` of ReinFix eq. 4).
pub const DEFAULT_TOP_N: usize = 3;

/// Indexes with at most this many documents are searched exactly (brute force) unless
/// [`RetrieveParams::exact`] says otherwise.
pub const EXACT_BELOW: usize = 10_000;

/// Documents a retriever never returns: the bug under repair (by id) and, optionally,
/// whole projects.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exclusion {
    /// Document ids never returned (e.g. `quixbugs:java:BITCOUNT`).
    pub ids: Vec<String>,
    /// Projects never returned (e.g. `QuixBugs`), by identity: a benchmark project name and
    /// its upstream repositories are one project (see [`engine::projects`]).
    pub projects: Vec<String>,
    /// Documents returned although [`Exclusion::projects`] drops their project: the bug's
    /// project's own fixes from before the bug (`fixdex eval defects4j --own-history`,
    /// [`crate::bench::defects4j::history_ids`]). [`Exclusion::ids`] still wins.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keep_ids: Vec<String>,
}

/// One query's options. The default is what the repair workflow's recorded model sessions
/// were made with: `code+cause`, top [`DEFAULT_TOP_N`], no threshold, [`Rank::Dense`],
/// exact search on small indexes, the exact-match leakage filter on, no detail fields.
#[derive(Debug, Clone, PartialEq)]
pub struct RetrieveParams {
    /// Vector space: `code+cause` (ReinFix), `code` (RAP-Gen style), `cause`.
    pub space: Space,
    /// Number of fixes (top `n`), ≥ 1.
    pub k: usize,
    /// Minimum cosine similarity in [-1, 1] (ReinFix eq. 4); `None` keeps all top `n`.
    pub threshold: Option<f32>,
    /// How the candidates are ranked ([`super::rank`]). Default [`Rank::Dense`], the order
    /// the repair workflow's recorded model sessions were made with; `fixdex search` and
    /// `fixdex serve` choose theirs.
    pub rank: Rank,
    /// Language of the query code, for the action fit; `None`: the best dense hit's.
    pub language: Option<crate::Language>,
    /// Only hits in these languages (any case); empty: every language. A name no segment
    /// has is refused ([`engine::Error::NoMatch`]).
    pub languages: Vec<String>,
    /// Only hits from these projects (exact names); empty: every project. A name no segment
    /// has is refused ([`engine::Error::NoMatch`]).
    pub projects: Vec<String>,
    /// HNSW beam width (higher: better recall, slower).
    pub ef_search: usize,
    /// `Some(true)`: brute-force search (the oracle); `Some(false)`: the graph; `None`: brute
    /// force for indexes of at most [`EXACT_BELOW`] documents (as fast as HNSW there, and
    /// deterministic), the graph above.
    pub exact: Option<bool>,
    /// Traverse the graph with int8 codes when the index has them (scores stay f32).
    pub int8: bool,
    /// Drop hits whose buggy code equals the query code up to whitespace and count them
    /// ([`super::Retrieval::dropped_exact`]): ReinFix §4.4's exact-match filter, on for
    /// repair; `fixdex search` keeps such hits (first, as duplicates).
    pub drop_exact: bool,
    /// Fill the hits' optional fields ([`super::SimilarFix::source`] and the others that
    /// are skipped when absent): `fixdex search --json` sets it; the repair report and the
    /// served tool leave it off.
    pub detail: bool,
}

impl Default for RetrieveParams {
    fn default() -> Self {
        RetrieveParams {
            space: Space::CodeCause,
            k: DEFAULT_TOP_N,
            threshold: None,
            rank: Rank::Dense,
            language: None,
            languages: Vec::new(),
            projects: Vec::new(),
            ef_search: engine::hnsw::DEFAULT_EF_SEARCH,
            exact: None,
            int8: true,
            drop_exact: true,
            detail: false,
        }
    }
}

impl RetrieveParams {
    /// Checks `k`, `ef_search` and `threshold` as the engine does, naming them as the CLI
    /// spells them (`-k: must be at least 1`).
    ///
    /// # Errors
    /// [`engine::Error::InvalidParameter`] for the first bad value.
    pub fn validate(&self) -> engine::Result<()> {
        SearchParams { k: self.k, ..self.engine(Filter::default(), 0) }.validate()
    }

    /// The engine's parameters for the dense candidate pool of an index of `documents`
    /// documents under `filter`: [`rank::pool_size`] candidates, and with the leakage
    /// filter on, room for the exact matches it drops (2k + 4).
    pub(super) fn engine(&self, filter: Filter, documents: usize) -> SearchParams {
        let wanted = if self.drop_exact { self.k.saturating_mul(2).saturating_add(4) } else { self.k };
        SearchParams {
            space: self.space,
            k: rank::pool_size(self.rank, wanted),
            ef_search: self.ef_search,
            threshold: self.threshold,
            exact: self.exact.unwrap_or(documents <= EXACT_BELOW),
            int8: self.int8,
            filter,
        }
    }

    /// The engine filter: these inclusion lists and `exclusion`.
    pub(super) fn filter(&self, exclusion: &Exclusion) -> Filter {
        Filter {
            languages: self.languages.clone(),
            projects: self.projects.clone(),
            exclude_ids: exclusion.ids.clone(),
            exclude_projects: exclusion.projects.clone(),
            keep_ids: exclusion.keep_ids.clone(),
        }
    }
}
