//! An index over raw vectors, without a model or text: what `fixdex bench ann` builds from
//! TEXMEX `.fvecs` to compare fixdex's graph and search with hnswlib, FAISS and usearch.

use std::path::Path;

use crate::format::{ModelMeta, TextMeta};
use crate::hnsw::{Graph, HnswConfig};
use crate::{IndexBuilder, Record, Result, Space};

/// The model identity of a raw-vector index (`raw-vectors`, no hash, no pooling).
fn raw_model(dim: usize) -> ModelMeta {
    ModelMeta { name: "raw-vectors".into(), sha256: "none".into(), dim, pooling: "none".into(), max_seq_length: 0 }
}

/// Empty documents `0..n` (id = row number, language and project `none`).
fn placeholder_docs(n: usize) -> Vec<Record> {
    (0..n)
        .map(|i| Record { id: i.to_string(), language: "none".into(), project: "none".into(), ..Record::default() })
        .collect()
}

/// Writes an index at `path` with one space (`code+cause`) holding `base` (`[n · dim]` f32,
/// L2-normalised) and its `graph` (built from `base` with `cfg`), int8 codes when `int8`,
/// and `n` placeholder documents; the stats are `{"bench": "ann"}`. O(n · dim) plus the
/// write; the file is replaced atomically.
///
/// # Errors
/// As [`IndexBuilder::add_space`] (a graph or vectors of the wrong size) and
/// [`IndexBuilder::write`] (I/O).
pub fn write_raw_index(
    path: &Path,
    base: Vec<f32>,
    dim: usize,
    graph: Graph,
    cfg: &HnswConfig,
    int8: bool,
) -> Result<()> {
    let n = base.len() / dim;
    let text = TextMeta { rule: "none".into(), cause_max_tokens: 0, cause_field: "none".into() };
    let mut b = IndexBuilder::new(raw_model(dim), text).with_int8(int8);
    b.add_space(Space::CodeCause, base, graph, cfg)?;
    b.write(path, &placeholder_docs(n), serde_json::json!({"bench": "ann"}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raw_index_finds_its_own_vectors() {
        let (n, dim) = (200, 8);
        let base = crate::testing::random_unit_vectors(n, dim, 7);
        let cfg = HnswConfig::default();
        let graph = crate::hnsw::build(&base, dim, &cfg).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("raw.fdx");
        write_raw_index(&path, base.clone(), dim, graph, &cfg, true).unwrap();
        let index = crate::Index::open(&path).unwrap();
        assert_eq!(index.len(), n);
        let p = crate::SearchParams { k: 1, ..crate::SearchParams::default() };
        let hits = index.search(&base[5 * dim..6 * dim], &p).unwrap();
        assert_eq!(hits[0].row, 5);
        assert_eq!(index.doc(5).unwrap().id, "5");
    }
}
