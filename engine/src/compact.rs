//! Compaction: merge the segments of a manifest (from appends or a sharded build) into one
//! index file, without embedding anything again.
//!
//! The documents of every segment are taken in manifest order (within a segment, in row
//! order); a document id seen in an earlier segment is dropped, as [`Segments::search`]
//! would have hidden it. Each space's f32 vectors are copied and its HNSW graph is built
//! anew over the union with the first segment's construction parameters (`m`,
//! `ef_construction`, builder), so the result is the index a one-shot build of the same
//! records would give, up to the graph's randomness. Int8 codes are written when the first
//! segment has them (and fitted again on the union). Cost: O(total documents) to copy, plus
//! one graph build over all of them; memory: all vectors of one space at a time, plus the
//! documents.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use crate::hnsw::{self, HnswConfig};
use crate::{IndexBuilder, Record, Result, Segments, Space};

/// What [`compact`] did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CompactStats {
    /// Segments read.
    pub segments: usize,
    /// Documents written.
    pub documents: u64,
    /// Documents dropped because an earlier segment had the same id.
    pub duplicate_ids: u64,
    /// Seconds spent reading documents and vectors.
    pub read_seconds: f64,
    /// Seconds spent building graphs.
    pub graph_seconds: f64,
    /// Seconds spent writing the file.
    pub write_seconds: f64,
    /// Size of the written file in bytes.
    pub index_bytes: u64,
}

/// Writes the documents and vectors of `segments` to one index file at `output`
/// (temporary file, then rename: an existing file there, even the manifest `segments`
/// was opened from, is replaced only when the new one is complete; a symbolic link is
/// written through).
///
/// # Errors
/// [`crate::Error::Output`] when `output` cannot be created or is one of a manifest's
/// segment files ([`crate::output::check`], first);
/// [`crate::Error::Corrupt`] when a segment's documents cannot be decoded;
/// [`crate::Error::Empty`] when the segments hold no document; graph and write errors.
pub fn compact(segments: &Segments, output: &Path) -> Result<CompactStats> {
    // A manifest's segments are read while the output is written: none may be replaced.
    // A single index file may be compacted onto itself (the rename keeps the old map).
    let inputs: Vec<&Path> = match segments.manifest() {
        Some(_) => segments.paths().iter().map(PathBuf::as_path).collect(),
        None => Vec::new(),
    };
    let output = &crate::output::check(output, &inputs)?;
    let mut stats = CompactStats { segments: segments.indexes().len(), ..CompactStats::default() };
    let t = Instant::now();
    let (docs, keep) = collect_docs(segments, &mut stats)?;
    let first = &segments.indexes()[0];
    let meta = first.meta();
    let dim = first.dim();
    let int8 = meta.spaces.iter().any(|s| s.quantization.is_some());
    let mut builder = IndexBuilder::new(meta.model.clone(), meta.text.clone()).with_int8(int8);
    let mut spaces: Vec<(Space, Vec<f32>, HnswConfig)> = Vec::new();
    for space in first.spaces() {
        let mut vectors = Vec::with_capacity(docs.len() * dim);
        for (index, rows) in segments.indexes().iter().zip(&keep) {
            let v = index.vectors(space)?;
            rows.iter().for_each(|&r| vectors.extend_from_slice(&v[r as usize * dim..(r as usize + 1) * dim]));
        }
        spaces.push((space, vectors, config_of(first, space)));
    }
    stats.read_seconds = t.elapsed().as_secs_f64();
    for (space, vectors, cfg) in spaces {
        let t = Instant::now();
        let graph = hnsw::build(&vectors, dim, &cfg)?;
        stats.graph_seconds += t.elapsed().as_secs_f64();
        builder.add_space(space, vectors, graph, &cfg)?;
    }
    let t = Instant::now();
    let sources: Vec<PathBuf> = segments.paths().to_vec();
    let meta_stats = serde_json::json!({
        "compacted_from": sources.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "indexed": docs.len(), "duplicate_ids": stats.duplicate_ids,
    });
    builder.write(output, &docs, meta_stats)?;
    stats.write_seconds = t.elapsed().as_secs_f64();
    stats.documents = docs.len() as u64;
    stats.index_bytes = std::fs::metadata(output).map_or(0, |m| m.len());
    Ok(stats)
}

/// Every segment's documents in order, without ids seen before, and the rows kept per
/// segment.
fn collect_docs(segments: &Segments, stats: &mut CompactStats) -> Result<(Vec<Record>, Vec<Vec<u32>>)> {
    let mut seen: HashSet<String> = HashSet::new();
    let mut docs = Vec::with_capacity(segments.len());
    let mut keep = Vec::with_capacity(segments.indexes().len());
    for index in segments.indexes() {
        let mut rows = Vec::with_capacity(index.len());
        index.docs()?.for_each(|row, rec| {
            if seen.insert(rec.id.clone()) {
                rows.push(row as u32);
                docs.push(rec);
            } else {
                stats.duplicate_ids += 1;
            }
            Ok(())
        })?;
        keep.push(rows);
    }
    Ok((docs, keep))
}

/// The graph parameters recorded for `space` in `index` (defaults for what is not
/// recorded).
fn config_of(index: &crate::Index, space: Space) -> HnswConfig {
    index
        .meta()
        .spaces
        .iter()
        .find(|s| s.name == space.name())
        .map_or_else(HnswConfig::default, |m| HnswConfig::from_meta(&m.hnsw))
}
