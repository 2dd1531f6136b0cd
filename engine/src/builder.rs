//! [`IndexBuilder`]: assembles documents, vectors and graphs into an index file.

use std::collections::HashMap;
use std::path::Path;

use zerocopy::IntoBytes;

use crate::docs::DocsWriter;
use crate::format::{HnswMeta, IndexMeta, IndexWriter, ModelMeta, SectionKind, SpaceMeta, TextMeta};
use crate::hnsw::{Graph, HnswConfig};
use crate::record::id_hash;
use crate::{Error, Record, Result, Space};

/// One vector space ready to be written: vectors in document order and their graph.
#[derive(Debug, Clone)]
pub struct SpaceData {
    /// Which space.
    pub space: Space,
    /// `[n, dim]` row-major, L2-normalised, row *i* = document *i*.
    pub vectors: Vec<f32>,
    /// The HNSW graph over `vectors` (see [`crate::hnsw::build`]).
    pub graph: Graph,
}

/// Collects the parts of an index and writes them with [`IndexWriter`].
///
/// ```
/// # use engine::{IndexBuilder, Index, Record, Space, hnsw::{self, HnswConfig}};
/// # let dir = tempfile::tempdir()?;
/// let model = engine::testing::tiny_embedder();
/// let docs: Vec<Record> = engine::testing::sample_records(50);
/// let mut b = IndexBuilder::new(engine::embed::Embedder::identity(&model).to_meta(), engine::testing::text_meta());
/// let vectors = engine::testing::embed_records(&model, &docs, Space::CodeCause)?;
/// let graph = hnsw::build(&vectors, b.dim(), &HnswConfig::default())?;
/// b.add_space(Space::CodeCause, vectors, graph, &HnswConfig::default())?;
/// b.write(&dir.path().join("idx.fdx"), &docs, serde_json::json!({}))?;
/// let index = Index::open(&dir.path().join("idx.fdx"))?;
/// assert_eq!(index.len(), 50);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct IndexBuilder {
    model: ModelMeta,
    text: TextMeta,
    spaces: Vec<(SpaceData, SpaceMeta)>,
    int8: bool,
    allow_empty: bool,
}

impl IndexBuilder {
    /// Starts an index for embeddings from `model`, composed as `text` describes.
    pub fn new(model: ModelMeta, text: TextMeta) -> IndexBuilder {
        IndexBuilder { model, text, spaces: Vec::new(), int8: false, allow_empty: false }
    }

    /// Also stores int8 codes of every space for graph traversal ([`crate::quant`]);
    /// the f32 vectors stay for exact rescoring. Adds `n · dim` bytes per space.
    pub fn with_int8(mut self, on: bool) -> IndexBuilder {
        self.int8 = on;
        self
    }

    /// Lets [`IndexBuilder::write`] write an index with no documents (a shard that
    /// received no rows): every space then has zero vectors and a graph with one empty level
    /// ([`crate::hnsw::build`] of no vectors). Such an index opens, verifies and answers
    /// every search with no hits. Off by default, so an empty build stays an error.
    pub fn allow_empty(mut self, on: bool) -> IndexBuilder {
        self.allow_empty = on;
        self
    }

    /// Floats per vector.
    pub fn dim(&self) -> usize {
        self.model.dim
    }

    /// Adds a space. `cfg` records the graph's construction parameters.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when `vectors` is not a multiple of `dim`, or
    /// [`Error::InvalidParameter`] when the space was already added.
    pub fn add_space(&mut self, space: Space, vectors: Vec<f32>, graph: Graph, cfg: &HnswConfig) -> Result<()> {
        if !vectors.len().is_multiple_of(self.dim()) {
            return Err(Error::DimensionMismatch { expected: self.dim(), got: vectors.len() % self.dim() });
        }
        if self.spaces.iter().any(|(s, _)| s.space == space) {
            return Err(Error::InvalidParameter { name: "--spaces", reason: format!("{space} added twice") });
        }
        let hnsw = HnswMeta {
            m: cfg.m,
            m0: 2 * cfg.m,
            ef_construction: cfg.ef_construction,
            max_level: graph.levels.len().saturating_sub(1),
            entry_point: graph.entry_point,
            builder: cfg.builder_name().to_string(),
        };
        let quantization = self.int8.then(|| crate::quant::SCHEME.to_string());
        let meta = SpaceMeta { name: space.name().to_string(), hnsw, quantization };
        self.spaces.push((SpaceData { space, vectors, graph }, meta));
        Ok(())
    }

    /// Writes the index to `path` (temporary file, then atomic rename). `docs[i]` is the
    /// document of vector row *i* in every space; `stats` goes into the metadata as is.
    ///
    /// # Errors
    /// [`Error::Empty`] with no documents (unless [`IndexBuilder::allow_empty`]),
    /// [`Error::DimensionMismatch`] when a space's row count differs from `docs.len()`,
    /// [`Error::Output`] when the file cannot be created at `path`, [`Error::Io`] /
    /// [`Error::Arrow`] on write failures. On any error the file at `path`, if one exists,
    /// is left untouched.
    pub fn write(&self, path: &Path, docs: &[Record], stats: serde_json::Value) -> Result<()> {
        if docs.is_empty() && !self.allow_empty {
            return Err(Error::Empty);
        }
        if self.spaces.is_empty() {
            return Err(Error::InvalidParameter { name: "--spaces", reason: "no vector space to write".into() });
        }
        for (s, _) in &self.spaces {
            if s.vectors.len() != docs.len() * self.dim() {
                return Err(Error::DimensionMismatch { expected: docs.len() * self.dim(), got: s.vectors.len() });
            }
        }
        let tables = DocTables::new(docs);
        let meta = self.meta(&tables, stats);
        let mut w = IndexWriter::create(path)?;
        let json = serde_json::to_vec_pretty(&meta).expect("metadata serializes");
        w.write_section(SectionKind::Meta, None, 0, &json)?;
        for (i, (s, m)) in self.spaces.iter().enumerate() {
            write_space(&mut w, i as u32, s, m.quantization.is_some(), self.dim())?;
        }
        tables.write(&mut w)?;
        let mut sink = w.section(SectionKind::Docs, None, 0)?;
        let mut dw = DocsWriter::new(&mut sink)?;
        for d in docs {
            dw.push(d.clone())?;
        }
        dw.finish()?;
        sink.finish()?;
        w.commit(docs.len() as u64, self.dim() as u32, self.spaces.len() as u32)
    }

    fn meta(&self, t: &DocTables, stats: serde_json::Value) -> IndexMeta {
        IndexMeta {
            fixdex_version: env!("CARGO_PKG_VERSION").to_string(),
            created_unix: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()),
            model: self.model.clone(),
            text: self.text.clone(),
            spaces: self.spaces.iter().map(|(_, m)| m.clone()).collect(),
            languages: t.languages.clone(),
            n_projects: t.projects.len(),
            stats,
        }
    }
}

fn write_space(w: &mut IndexWriter, i: u32, s: &SpaceData, int8: bool, dim: usize) -> Result<()> {
    w.write_section(SectionKind::Vectors, Some(i), 0, s.vectors.as_bytes())?;
    if int8 {
        let q = crate::quant::Int8Quantizer::fit(&s.vectors, dim);
        w.write_section(SectionKind::VectorsI8, Some(i), 0, q.encode(&s.vectors).as_bytes())?;
        w.write_section(SectionKind::QuantScales, Some(i), 0, q.scales.as_bytes())?;
    }
    for (l, level) in s.graph.levels.iter().enumerate() {
        let l = l as u32;
        if l > 0 {
            w.write_section(SectionKind::GraphNodes, Some(i), l, level.nodes.as_bytes())?;
        }
        w.write_section(SectionKind::GraphOffsets, Some(i), l, level.offsets.as_bytes())?;
        w.write_section(SectionKind::GraphNeighbors, Some(i), l, level.neighbors.as_bytes())?;
    }
    Ok(())
}

/// Per-document language and project tables, and the id hash table.
struct DocTables {
    languages: Vec<String>,
    projects: Vec<String>,
    doc_language: Vec<u8>,
    doc_project: Vec<u32>,
    id_hashes: Vec<[u32; 4]>,
}

impl DocTables {
    fn new(docs: &[Record]) -> DocTables {
        let (mut languages, mut projects) = (Vec::new(), Vec::new());
        let (mut lang_ix, mut proj_ix) = (HashMap::new(), HashMap::new());
        let intern = |v: &mut Vec<String>, ix: &mut HashMap<String, usize>, s: &str| {
            *ix.entry(s.to_string()).or_insert_with(|| {
                v.push(s.to_string());
                v.len() - 1
            })
        };
        let doc_language = docs.iter().map(|d| intern(&mut languages, &mut lang_ix, &d.language) as u8).collect();
        let doc_project = docs.iter().map(|d| intern(&mut projects, &mut proj_ix, &d.project) as u32).collect();
        let mut id_hashes: Vec<[u32; 4]> = docs
            .iter()
            .zip(0u32..)
            .map(|(d, row)| {
                let h = id_hash(&d.id);
                [h as u32, (h >> 32) as u32, row, 0]
            })
            .collect();
        id_hashes.sort_unstable_by_key(|e| (u64::from(e[0]) | (u64::from(e[1]) << 32), e[2]));
        DocTables { languages, projects, doc_language, doc_project, id_hashes }
    }

    fn write(&self, w: &mut IndexWriter) -> Result<()> {
        w.write_section(SectionKind::DocLanguage, None, 0, &self.doc_language)?;
        w.write_section(SectionKind::DocProject, None, 0, self.doc_project.as_bytes())?;
        w.write_section(SectionKind::IdHashes, None, 0, self.id_hashes.as_bytes())?;
        let mut offsets = vec![0u32];
        let mut names = Vec::new();
        for p in &self.projects {
            names.extend_from_slice(p.as_bytes());
            offsets.push(names.len() as u32);
        }
        w.write_section(SectionKind::ProjectOffsets, None, 0, offsets.as_bytes())?;
        w.write_section(SectionKind::ProjectNames, None, 0, &names)
    }
}
