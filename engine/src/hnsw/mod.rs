//! HNSW: given a query vector, which stored vectors are nearest?
//!
//! The graph is *built* by hnsw_rs ([`build()`], design decision 4) and *exported* as one CSR
//! adjacency per level ([`Graph`]); it is *searched* by our own greedy descent + beam search
//! ([`search()`]) over the memory-mapped layout ([`GraphView`]), following Malkov & Yashunin,
//! "Efficient and robust approximate nearest neighbor search using Hierarchical Navigable
//! Small World graphs" (TPAMI 2018), Algorithms 2 and 5.
//!
//! Use for: top-k by cosine over an index's vectors. Not for: exact answers (use
//! [`crate::exact`]), or vectors that are not L2-normalised.

mod build;
mod graph;
mod search;

pub use build::{BUILDER_NAME, build};
pub use graph::{Graph, GraphView, Level, LevelView};
pub use search::{Candidate, search};

use serde::{Deserialize, Serialize};

/// Graph construction and search parameters.
///
/// Defaults match hnswlib's common settings (M = 16, ef_construction = 200) and the
/// baselines in `../shared/baselines`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HnswConfig {
    /// Maximum neighbours per node on levels ≥ 1; level 0 keeps up to `2 * m`.
    pub m: usize,
    /// Beam width while inserting (candidates examined per insertion).
    pub ef_construction: usize,
    /// Upper bound on the number of levels (hnsw_rs caps it at 16).
    pub max_levels: usize,
}

impl Default for HnswConfig {
    fn default() -> Self {
        HnswConfig { m: 16, ef_construction: 200, max_levels: 16 }
    }
}

/// Default beam width at query time. recall@10 ≥ 0.95 needs ef ≈ 32 on the 20k real set
/// (`../shared/baselines/RESULTS.md` §3a); 64 leaves margin for larger, denser corpora.
pub const DEFAULT_EF_SEARCH: usize = 64;
