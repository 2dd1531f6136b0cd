//! HNSW: given a query vector, which stored vectors are nearest?
//!
//! The graph is *built* by fixdex's own parallel builder (the default) or by hnsw_rs
//! ([`build()`], design decision 4: hnsw_rs stays as the alternative and the cross-check) and
//! *exported* as one CSR adjacency per level ([`Graph`]); it is *searched* by our own greedy descent + beam search
//! ([`search()`]) over the memory-mapped layout ([`GraphView`]), following Malkov & Yashunin,
//! "Efficient and robust approximate nearest neighbor search using Hierarchical Navigable
//! Small World graphs" (TPAMI 2018), Algorithms 2 and 5.
//!
//! Use for: top-k by cosine over an index's vectors. Not for: exact answers (use
//! [`crate::exact`]), or vectors that are not L2-normalised.

mod build;
mod graph;
mod insert;
mod search;

pub use build::{HNSW_RS_NAME, NATIVE_F32_NAME, NATIVE_NAME, build};
pub use graph::{Graph, GraphView, Level, LevelView};
pub use search::{Candidate, GraphDamage, Stored, search, search_stored};

use serde::{Deserialize, Serialize};

/// Which implementation builds the graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Builder {
    /// fixdex's own builder (`insert.rs`): parallel insertion, heuristic selection, SIMD;
    /// the beam searches of insertion traverse int8 codes of the vectors
    /// ([`crate::quant`], 4× fewer bytes per distance) and their candidates are rescored in
    /// f32 before neighbour selection, which stays f32. On the real 20k set: ~1.3× the
    /// throughput of [`Builder::NativeF32`] at the same recall@10 (±0.001). Needs
    /// `n · dim` extra bytes while building.
    #[default]
    Native,
    /// [`Builder::Native`] with f32 traversal (fixdex-native 1).
    NativeF32,
    /// hnsw_rs 0.3.5 (the customer's named library), exported to CSR.
    HnswRs,
}

/// Graph construction and search parameters.
///
/// Defaults match hnswlib's common settings (M = 16, ef_construction = 200) and the
/// baselines in `../shared/baselines`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HnswConfig {
    /// Maximum neighbours a new node links to on each level; lists may hold `m` (levels ≥ 1)
    /// or `2 * m` (level 0) before they are pruned.
    pub m: usize,
    /// Beam width while inserting (candidates examined per insertion).
    pub ef_construction: usize,
    /// Upper bound on the number of levels (at most 16).
    pub max_levels: usize,
    /// The implementation.
    pub builder: Builder,
    /// Seed of the native builder's level assignment.
    pub seed: u64,
}

impl Builder {
    /// The builder a command line names (`--builder` of `fixdex index` and `fixdex bench
    /// ann`): `hnsw_rs`, `native-f32`, anything else [`Builder::Native`] (clap restricts
    /// the values).
    pub fn from_flag(flag: &str) -> Builder {
        match flag {
            "hnsw_rs" => Builder::HnswRs,
            "native-f32" => Builder::NativeF32,
            _ => Builder::Native,
        }
    }

    /// The builder recorded under `name` in index metadata ([`HnswConfig::builder_name`]);
    /// [`Builder::Native`] for a name this build does not know (an index from a newer
    /// version), the builder that merged or appended segments then use.
    pub fn from_recorded(name: &str) -> Builder {
        match name {
            HNSW_RS_NAME => Builder::HnswRs,
            NATIVE_F32_NAME => Builder::NativeF32,
            _ => Builder::Native,
        }
    }
}

impl HnswConfig {
    /// The construction parameters recorded in a space's metadata (`m`, `ef_construction`,
    /// builder; the rest default).
    pub fn from_meta(meta: &crate::format::HnswMeta) -> HnswConfig {
        HnswConfig {
            m: meta.m,
            ef_construction: meta.ef_construction,
            builder: Builder::from_recorded(&meta.builder),
            ..HnswConfig::default()
        }
    }

    /// Name and version of the configured builder, as recorded in index metadata.
    pub fn builder_name(&self) -> &'static str {
        match self.builder {
            Builder::Native => NATIVE_NAME,
            Builder::NativeF32 => NATIVE_F32_NAME,
            Builder::HnswRs => HNSW_RS_NAME,
        }
    }
}

impl Default for HnswConfig {
    fn default() -> Self {
        HnswConfig { m: 16, ef_construction: 200, max_levels: 16, builder: Builder::Native, seed: 0x5eed }
    }
}

/// Default beam width at query time. recall@10 ≥ 0.95 needs ef ≈ 32 on the 20k real set
/// (`../shared/baselines/RESULTS.md` §3a); 64 leaves margin for larger, denser corpora.
pub const DEFAULT_EF_SEARCH: usize = 64;
