//! Graph construction with hnsw_rs, exported to CSR levels.

use hnsw_rs::prelude::{Distance, Hnsw};

use super::{Graph, HnswConfig, Level};
use crate::distance::dot;
use crate::{Error, Result};

/// Name of the hnsw_rs builder, recorded in the index metadata.
pub const HNSW_RS_NAME: &str = "hnsw_rs 0.3.5";
/// Name of fixdex's own builder (int8 traversal), recorded in the index metadata.
pub const NATIVE_NAME: &str = "fixdex-native 2 (int8 traversal)";
/// Name of fixdex's own builder with f32 traversal, recorded in the index metadata.
pub const NATIVE_F32_NAME: &str = "fixdex-native 1";

/// Cosine distance on unit vectors, `max(0, 1 - a·b)`. Clamped so rounding on
/// self-similarity can never make it negative (hnsw_rs's `DistDot` asserts instead).
#[derive(Debug, Clone, Copy, Default)]
struct UnitCosine;

impl Distance<f32> for UnitCosine {
    fn eval(&self, a: &[f32], b: &[f32]) -> f32 {
        (1.0 - dot(a, b)).max(0.0)
    }
}

/// Builds an HNSW graph over `vectors` (`[n, dim]` row-major f32, L2-normalised) with the
/// builder `cfg.builder` names (fixdex's own, or hnsw_rs), inserting in parallel on the
/// rayon pool, and returns it as CSR levels.
///
/// Node ids are row numbers. Cost: O(n log n · ef_construction · dim) time, about
/// `n · (2m + 1) · 4` bytes of graph (hnsw_rs also copies the vectors).
///
/// No vectors give [`Graph::empty`] (one level with no nodes), the graph of an index with
/// no documents.
///
/// # Errors
/// [`Error::DimensionMismatch`] when `vectors.len()` is not a multiple of `dim`;
/// [`Error::BadVector`] for a non-finite or zero vector (hnsw_rs would panic on NaN);
/// [`Error::InvalidParameter`] for `m` outside 2..=128 or `ef_construction` of 0.
pub fn build(vectors: &[f32], dim: usize, cfg: &HnswConfig) -> Result<Graph> {
    validate(vectors, dim, cfg)?;
    let n = vectors.len() / dim;
    if n == 0 {
        return Ok(Graph::empty());
    }
    if matches!(cfg.builder, super::Builder::Native | super::Builder::NativeF32) {
        let int8 = cfg.builder == super::Builder::Native;
        return Ok(super::insert::build_native(vectors, dim, cfg, cfg.seed, int8));
    }
    let hnsw: Hnsw<f32, UnitCosine> = Hnsw::new(cfg.m, n, cfg.max_levels.min(16), cfg.ef_construction, UnitCosine);
    let data: Vec<(&[f32], usize)> = vectors.chunks_exact(dim).zip(0..).collect();
    hnsw.parallel_insert_slice(&data);
    Ok(export(&hnsw, n))
}

fn validate(vectors: &[f32], dim: usize, cfg: &HnswConfig) -> Result<()> {
    if dim == 0 || !vectors.len().is_multiple_of(dim) {
        return Err(Error::DimensionMismatch { expected: dim, got: vectors.len() % dim.max(1) });
    }
    if !(2..=128).contains(&cfg.m) {
        return Err(Error::InvalidParameter { name: "m", reason: "must be in 2..=128".into() });
    }
    if cfg.ef_construction == 0 {
        return Err(Error::InvalidParameter { name: "ef_construction", reason: "must be at least 1".into() });
    }
    for (row, v) in vectors.chunks_exact(dim).enumerate() {
        let norm2 = dot(v, v);
        if !norm2.is_finite() || norm2 <= 0.0 || v.iter().any(|x| !x.is_finite()) {
            return Err(Error::BadVector { row });
        }
    }
    Ok(())
}

/// Reads hnsw_rs's linked structure into per-level adjacency lists, then CSR.
fn export(hnsw: &Hnsw<f32, UnitCosine>, n: usize) -> Graph {
    let mut adj: Vec<Vec<(u32, Vec<u32>)>> = Vec::new();
    for point in hnsw.get_point_indexation() {
        let id = point.get_origin_id() as u32;
        for (l, neigh) in point.get_neighborhood_id().into_iter().enumerate() {
            if l > usize::from(point.get_point_id().0) {
                break;
            }
            if adj.len() <= l {
                adj.resize_with(l + 1, Vec::new);
            }
            adj[l].push((id, neigh.iter().map(|nb| nb.d_id as u32).collect()));
        }
    }
    let levels: Vec<Level> = adj.into_iter().enumerate().map(|(l, a)| to_csr(l, a, n)).collect();
    let entry_point = levels.last().and_then(|lv| lv.nodes.first().copied()).unwrap_or(0);
    Graph { levels, entry_point }
}

fn to_csr(l: usize, mut adj: Vec<(u32, Vec<u32>)>, n: usize) -> Level {
    adj.sort_unstable_by_key(|(id, _)| *id);
    if l == 0 {
        // Every node is on level 0; fill any gap so offsets stay indexable by node id.
        let mut full: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (id, nb) in adj {
            full[id as usize] = nb;
        }
        adj = full.into_iter().zip(0..).map(|(nb, id)| (id, nb)).collect();
    }
    let mut level = Level { nodes: Vec::new(), offsets: vec![0], neighbors: Vec::new() };
    for (id, nb) in adj {
        if l > 0 {
            level.nodes.push(id);
        }
        level.neighbors.extend(nb.into_iter().filter(|&x| x != id));
        level.offsets.push(level.neighbors.len() as u64);
    }
    level
}
