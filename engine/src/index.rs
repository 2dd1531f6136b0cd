//! [`Index`]: a read-only, memory-mapped fixdex index.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use bytes::Bytes;
use zerocopy::FromBytes;

use crate::docs::DocStore;
use crate::format::{
    FORMAT_VERSION, FileHeader, HEADER_LEN, IndexMeta, MAGIC, OLDEST_SUPPORTED_VERSION, SectionKind, SectionTable,
};
use crate::hnsw::{GraphView, LevelView};
use crate::storage::{FileId, Load};
use crate::{Error, Record, Result, Space, storage};

/// Byte ranges of one graph level: nodes (levels ≥ 1 only), CSR offsets, neighbours.
type LevelRanges = (Option<std::ops::Range<usize>>, std::ops::Range<usize>, std::ops::Range<usize>);

/// Byte ranges of one vector space, checked at open.
#[derive(Debug, Clone)]
struct SpaceSections {
    space: Space,
    vectors: std::ops::Range<usize>,
    /// int8 codes and their scales, when the space is quantized.
    codes: Option<(std::ops::Range<usize>, std::ops::Range<usize>)>,
    /// Per level: (nodes range for level ≥ 1, offsets range, neighbours range).
    levels: Vec<LevelRanges>,
}

/// A fixdex index opened for reading.
///
/// [`Index::open`] maps the file and checks the header, section table, metadata and every
/// section's size against the counts: O(1) in the number of vectors (no section is read
/// beyond its first and last bytes). [`Index::verify`] checks everything else.
#[derive(Debug)]
pub struct Index {
    bytes: Bytes,
    header: FileHeader,
    table: SectionTable,
    meta: IndexMeta,
    spaces: Vec<SpaceSections>,
    docs: OnceLock<DocStore>,
    /// The file it was opened from (`None` for [`Index::from_bytes`]), for error messages.
    path: Option<PathBuf>,
    /// [`crate::projects::identity`] of each project name, computed on first use.
    project_ids: OnceLock<Vec<String>>,
    /// What [`Index::check_tables`] found, on first use: `None` when intact.
    tables_damage: OnceLock<Option<String>>,
    /// Identity of the file read (`None` for [`Index::from_bytes`]).
    source: Option<FileId>,
}

/// What [`Index::verify`] checked.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VerifyReport {
    /// Sections whose CRC32C matched.
    pub sections: usize,
    /// Bytes checksummed.
    pub bytes: usize,
    /// Documents decoded.
    pub documents: usize,
    /// Vectors checked for finiteness and unit norm, over all spaces.
    pub vectors: usize,
    /// Graph edges checked, over all spaces and levels.
    pub edges: usize,
}

impl Index {
    /// Memory-maps and opens the index file at `path`. O(1) in the number of vectors.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read; [`Error::NotAnIndex`],
    /// [`Error::Version`] or [`Error::Corrupt`] when it is not a valid index.
    pub fn open(path: &Path) -> Result<Index> {
        Index::open_with(path, Load::Mmap)
    }

    /// Opens the index file at `path`, memory-mapped ([`Load::Mmap`], as [`Index::open`]) or
    /// read whole into memory ([`Load::Memory`]: O(file) time and RAM, and immune to the file
    /// being rewritten or truncated afterwards). [`Index::source`] then names the file read.
    ///
    /// # Errors
    /// As [`Index::open`]; with [`Load::Memory`], also [`Error::Io`] when the file changed
    /// while it was being read.
    pub fn open_with(path: &Path, load: Load) -> Result<Index> {
        let (bytes, id) = storage::load_file(path, load)?;
        let mut index = Index::from_storage(bytes)?;
        index.source = Some(id);
        index.path = Some(path.to_path_buf());
        if load == Load::Mmap {
            let policy = storage::Prefetch::from_env();
            if policy != storage::Prefetch::None {
                storage::prefetch(path, &index.traversal_ranges(policy), policy);
            }
        }
        Ok(index)
    }

    /// Byte ranges to prefetch under `policy` ([`storage::prefetch`]): what graph traversal
    /// reads (every space's graph sections and its int8 codes, or its f32 vectors when it has
    /// no codes), or every section for [`storage::Prefetch::All`].
    fn traversal_ranges(&self, policy: storage::Prefetch) -> Vec<std::ops::Range<usize>> {
        let codes = self.table.iter().any(|s| s.kind == SectionKind::VectorsI8);
        let all = policy == storage::Prefetch::All;
        self.table
            .iter()
            .filter(|s| {
                all || matches!(
                    s.kind,
                    SectionKind::GraphNodes | SectionKind::GraphOffsets | SectionKind::GraphNeighbors
                ) || s.kind == if codes { SectionKind::VectorsI8 } else { SectionKind::Vectors }
            })
            .map(|s| s.range.clone())
            .collect()
    }

    /// Opens an index held in memory (copied once to a 64-byte-aligned buffer): the RAM
    /// twin of [`Index::open`] for tests.
    ///
    /// # Errors
    /// As [`Index::open`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Index> {
        Index::from_storage(storage::aligned_copy(bytes))
    }

    fn from_storage(bytes: Bytes) -> Result<Index> {
        let header = parse_header(&bytes)?;
        let table = SectionTable::parse(&bytes, &header)?;
        let meta_sec = table.require(SectionKind::Meta, None, 0)?;
        let meta_bytes = &bytes[meta_sec.range.clone()];
        if crc32c::crc32c(meta_bytes) != meta_sec.crc {
            return Err(Error::corrupt("metadata checksum mismatch"));
        }
        let meta: IndexMeta = serde_json::from_slice(meta_bytes)
            .map_err(|e| Error::corrupt(format!("metadata is not valid JSON: {e}")))?;
        let mut index = Index {
            bytes,
            header,
            table,
            meta,
            spaces: Vec::new(),
            docs: OnceLock::new(),
            path: None,
            source: None,
            project_ids: OnceLock::new(),
            tables_damage: OnceLock::new(),
        };
        index.check_shapes()?;
        Ok(index)
    }

    /// Checks every section's length against the header counts. O(sections).
    fn check_shapes(&mut self) -> Result<()> {
        let (n, dim) = (self.len(), self.dim());
        if self.meta.model.dim != dim || self.meta.spaces.len() != self.header.n_spaces.get() as usize {
            return Err(Error::corrupt("metadata disagrees with the header"));
        }
        self.expect_len(SectionKind::DocLanguage, n)?;
        self.expect_len(SectionKind::DocProject, n * 4)?;
        self.expect_len(SectionKind::IdHashes, n * 16)?;
        // Counts from the file are checked, not trusted: overflow is a damaged file.
        let offsets = self.meta.n_projects.checked_add(1).and_then(|p| p.checked_mul(4));
        self.expect_len(
            SectionKind::ProjectOffsets,
            offsets.ok_or_else(|| Error::corrupt("project count overflows"))?,
        )?;
        self.table.require(SectionKind::ProjectNames, None, 0)?;
        self.table.require(SectionKind::Docs, None, 0)?;
        for (i, sm) in self.meta.spaces.clone().iter().enumerate() {
            let space: Space = sm.name.parse().map_err(|_| Error::corrupt(format!("unknown space `{}`", sm.name)))?;
            let s = self.space_sections(i as u32, space, sm.hnsw.max_level, n, dim)?;
            if sm.hnsw.entry_point as usize >= n.max(1) {
                return Err(Error::corrupt("entry point out of range"));
            }
            self.spaces.push(s);
        }
        Ok(())
    }

    fn space_sections(&self, i: u32, space: Space, max_level: usize, n: usize, dim: usize) -> Result<SpaceSections> {
        let vectors = self.table.require(SectionKind::Vectors, Some(i), 0)?.range.clone();
        if n.checked_mul(dim).and_then(|x| x.checked_mul(4)) != Some(vectors.len()) {
            return Err(Error::corrupt(format!("{space} vectors: {} bytes for {n}×{dim} floats", vectors.len())));
        }
        let codes = match self.table.find(SectionKind::VectorsI8, Some(i), 0) {
            None => None,
            Some(c) => {
                let scales = self.table.require(SectionKind::QuantScales, Some(i), 0)?;
                if c.range.len() != n * dim || scales.range.len() != dim * 4 {
                    return Err(Error::corrupt(format!("{space}: int8 codes do not match {n}×{dim}")));
                }
                Some((c.range.clone(), scales.range.clone()))
            }
        };
        let mut levels = Vec::new();
        for l in 0..=max_level as u32 {
            let nodes = (l > 0).then(|| self.table.require(SectionKind::GraphNodes, Some(i), l)).transpose()?;
            let offs = self.table.require(SectionKind::GraphOffsets, Some(i), l)?;
            let neigh = self.table.require(SectionKind::GraphNeighbors, Some(i), l)?;
            let n_l = nodes.map_or(n, |s| s.range.len() / 4);
            if offs.range.len() != (n_l + 1) * 8 {
                return Err(Error::corrupt(format!("{space} level {l}: offsets do not match its nodes")));
            }
            let last = u64::from_le_bytes(self.bytes[offs.range.end - 8..offs.range.end].try_into().expect("8"));
            if last != (neigh.range.len() / 4) as u64 {
                return Err(Error::corrupt(format!("{space} level {l}: offsets do not end at the neighbour count")));
            }
            levels.push((nodes.map(|s| s.range.clone()), offs.range.clone(), neigh.range.clone()));
        }
        Ok(SpaceSections { space, vectors, codes, levels })
    }

    fn expect_len(&self, kind: SectionKind, len: usize) -> Result<()> {
        let s = self.table.require(kind, None, 0)?;
        if s.range.len() != len {
            return Err(Error::corrupt(format!("{} section is {} bytes, expected {len}", kind.name(), s.range.len())));
        }
        Ok(())
    }

    /// Number of documents (bug-fix pairs); every space has one vector per document.
    pub fn len(&self) -> usize {
        self.header.n_docs.get() as usize
    }

    /// Whether the index has no documents.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Floats per vector.
    pub fn dim(&self) -> usize {
        self.header.dim.get() as usize
    }

    /// The file the index was opened from; `None` for [`Index::from_bytes`].
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Format version of the file.
    pub fn format_version(&self) -> u32 {
        self.header.version.get()
    }

    /// File size in bytes.
    pub fn file_len(&self) -> usize {
        self.bytes.len()
    }

    /// The file this index was opened from, as it was when opened (taken from the open
    /// file, before any byte was read); `None` for [`Index::from_bytes`]. Compare it with
    /// [`FileId::of`] the path to learn whether the path has been replaced or rewritten since.
    pub fn source(&self) -> Option<&FileId> {
        self.source.as_ref()
    }

    /// The metadata: model, embedding rule, spaces, build statistics.
    pub fn meta(&self) -> &IndexMeta {
        &self.meta
    }

    /// The section table (for `inspect`).
    pub fn sections(&self) -> &SectionTable {
        &self.table
    }

    /// The spaces this index holds, in file order.
    pub fn spaces(&self) -> Vec<Space> {
        self.spaces.iter().map(|s| s.space).collect()
    }

    fn space_index(&self, space: Space) -> Result<usize> {
        self.spaces.iter().position(|s| s.space == space).ok_or_else(|| Error::NoSuchSpace {
            name: space.name().to_string(),
            available: self.spaces.iter().map(|s| s.space.name()).collect::<Vec<_>>().join(", "),
        })
    }

    /// The `[n, dim]` vector matrix of `space`, row-major, L2-normalised. O(1).
    ///
    /// # Errors
    /// [`Error::NoSuchSpace`] when the index lacks `space`.
    pub fn vectors(&self, space: Space) -> Result<&[f32]> {
        let s = &self.spaces[self.space_index(space)?];
        Ok(cast(&self.bytes[s.vectors.clone()]))
    }

    /// The int8 codes (`[n, dim]`) and per-dimension scales (`[dim]`) of `space`, when it
    /// was built with `--quantize int8`. O(1).
    ///
    /// # Errors
    /// [`Error::NoSuchSpace`] when the index lacks `space`.
    pub fn codes(&self, space: Space) -> Result<Option<(&[i8], &[f32])>> {
        let s = &self.spaces[self.space_index(space)?];
        Ok(s.codes.as_ref().map(|(c, sc)| (cast::<i8>(&self.bytes[c.clone()]), cast::<f32>(&self.bytes[sc.clone()]))))
    }

    /// The HNSW graph of `space`. O(levels).
    ///
    /// # Errors
    /// [`Error::NoSuchSpace`] when the index lacks `space`.
    pub fn graph(&self, space: Space) -> Result<GraphView<'_>> {
        let i = self.space_index(space)?;
        let levels = self.spaces[i]
            .levels
            .iter()
            .map(|(nodes, offs, neigh)| LevelView {
                nodes: nodes.as_ref().map(|r| cast::<u32>(&self.bytes[r.clone()])),
                offsets: cast(&self.bytes[offs.clone()]),
                neighbors: cast(&self.bytes[neigh.clone()]),
            })
            .collect();
        Ok(GraphView { levels, entry_point: self.meta.spaces[i].hnsw.entry_point, n_nodes: self.len() })
    }

    /// The document store, opened on first use: the `Docs` section's CRC32C is checked then,
    /// once per opened index (O(section size), hardware CRC32C: milliseconds for the 58,713
    /// pairs of the shared corpus), so a search never shows a damaged document as if it were
    /// the corpus's; then O(number of batches) to read the Arrow footer. Opening the index
    /// stays O(1); vectors and graph are checked only by [`Index::verify`].
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the section's checksum does not match or the Arrow footer is
    /// damaged.
    pub fn docs(&self) -> Result<&DocStore> {
        if let Some(d) = self.docs.get() {
            return Ok(d);
        }
        let section = self.table.require(SectionKind::Docs, None, 0)?;
        let range = section.range.clone();
        if crc32c::crc32c(&self.bytes[range.clone()]) != section.crc {
            return Err(Error::corrupt(format!(
                "checksum mismatch in the Docs section (bytes {}..{}): the documents are damaged \
                 (`fixdex verify` checks every section)",
                range.start, range.end
            )));
        }
        let store = DocStore::open(self.bytes.slice(range))?;
        Ok(self.docs.get_or_init(|| store))
    }

    /// Document `row`.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when `row` is out of range or its batch is damaged.
    pub fn doc(&self, row: u32) -> Result<Record> {
        self.docs()?.get(row as usize)
    }

    /// Language index of each document (`u8 [n]`, into `meta().languages`). O(1).
    pub fn doc_languages(&self) -> &[u8] {
        self.section_bytes(SectionKind::DocLanguage)
    }

    /// Project index of each document (`u32 [n]`). O(1).
    pub fn doc_projects(&self) -> &[u32] {
        cast(self.section_bytes(SectionKind::DocProject))
    }

    /// Name of project `i`, or `None` when out of range or not UTF-8.
    pub fn project_name(&self, i: u32) -> Option<&str> {
        let offs: &[u32] = cast(self.section_bytes(SectionKind::ProjectOffsets));
        let names = self.section_bytes(SectionKind::ProjectNames);
        let (a, b) = (*offs.get(i as usize)? as usize, *offs.get(i as usize + 1)? as usize);
        std::str::from_utf8(names.get(a..b)?).ok()
    }

    /// Index of project `name`. O(projects).
    pub fn project_index(&self, name: &str) -> Option<u32> {
        (0..self.meta.n_projects as u32).find(|&i| self.project_name(i) == Some(name))
    }

    /// The names of all projects, in table order (a damaged name reads as ""). O(projects).
    pub fn project_names(&self) -> impl Iterator<Item = &str> {
        (0..self.meta.n_projects as u32).map(|i| self.project_name(i).unwrap_or_default())
    }

    /// Indexes of the projects that are the same project as `name` (see
    /// [`crate::projects::same_project`]: `Closure` and `google/closure-compiler` are one).
    /// O(projects) after the first call, which computes every project's identity.
    pub fn same_projects(&self, name: &str) -> Vec<u32> {
        let ids = self.project_ids.get_or_init(|| self.project_names().map(crate::projects::identity).collect());
        let want = crate::projects::identity(name);
        (0..ids.len() as u32).filter(|&i| ids[i as usize] == want).collect()
    }

    /// Row of the document with id `id`, by binary search in the id hashes, confirmed
    /// against the stored id. O(log n) plus one batch decode.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when a document cannot be decoded.
    pub fn find_id(&self, id: &str) -> Result<Option<u32>> {
        let table: &[[u32; 4]] = cast(self.section_bytes(SectionKind::IdHashes));
        let h = crate::record::id_hash(id);
        let key = |e: &[u32; 4]| u64::from(e[0]) | (u64::from(e[1]) << 32);
        let start = table.partition_point(|e| key(e) < h);
        for e in table[start..].iter().take_while(|e| key(e) == h) {
            if self.doc(e[2])?.id == id {
                return Ok(Some(e[2]));
            }
        }
        Ok(None)
    }

    /// The 64-bit hash of each document's id ([`crate::record::id_hash`]) with its row, in
    /// ascending hash order: what [`Index::find_id`] searches. O(1) to start, 16 bytes a
    /// document read.
    pub fn id_hashes(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        let table: &[[u32; 4]] = cast(self.section_bytes(SectionKind::IdHashes));
        table.iter().map(|e| (u64::from(e[0]) | (u64::from(e[1]) << 32), e[2]))
    }

    /// Checks the CRC32C of the per-document tables and the project table (the sections a
    /// filter reads: languages, projects, project names, id hashes), once per open index:
    /// O(n) the first time (about 21 bytes per document), O(1) after.
    ///
    /// # Errors
    /// [`Error::DamagedIndex`] naming the first damaged table.
    pub fn check_tables(&self) -> Result<()> {
        const TABLES: [SectionKind; 5] = [
            SectionKind::DocLanguage,
            SectionKind::DocProject,
            SectionKind::ProjectOffsets,
            SectionKind::ProjectNames,
            SectionKind::IdHashes,
        ];
        let damage = self.tables_damage.get_or_init(|| {
            let bad = self
                .table
                .iter()
                .find(|s| TABLES.contains(&s.kind) && crc32c::crc32c(&self.bytes[s.range.clone()]) != s.crc);
            bad.map(|s| format!("the {} table's checksum does not match", s.kind.name()))
        });
        match damage {
            None => Ok(()),
            Some(what) => Err(Error::DamagedIndex { path: self.path.clone(), what: what.clone() }),
        }
    }

    fn section_bytes(&self, kind: SectionKind) -> &[u8] {
        // Presence and sizes were checked at open.
        self.table.find(kind, None, 0).map_or(&[], |s| &self.bytes[s.range.clone()])
    }

    /// A section's space for messages: `space 0 (code+cause)` (its number in the space list
    /// and, where the metadata names it, its name), or `every space` for a shared section.
    fn space_label(&self, space: Option<u32>) -> String {
        let name = space.and_then(|n| self.meta.spaces.get(n as usize)).map(|m| format!(" ({})", m.name));
        format!("{}{}", crate::format::space_label(space), name.unwrap_or_default())
    }

    /// Checks every section's CRC32C, the graph invariants, the vectors (finite, unit norm
    /// within 1e-3), the per-document tables and every document. O(file size).
    ///
    /// # Errors
    /// [`Error::Corrupt`] describing the first failure.
    pub fn verify(&self) -> Result<VerifyReport> {
        let mut report = VerifyReport { sections: 0, bytes: 0, documents: 0, vectors: 0, edges: 0 };
        for s in self.table.iter() {
            if crc32c::crc32c(&self.bytes[s.range.clone()]) != s.crc {
                return Err(Error::corrupt(format!(
                    "checksum mismatch in the {} section ({}, level {}, bytes {}..{})",
                    s.kind.name(),
                    self.space_label(s.space),
                    s.level,
                    s.range.start,
                    s.range.end
                )));
            }
            report.sections += 1;
            report.bytes += s.range.len();
        }
        self.verify_padding()?;
        for space in self.spaces() {
            let g = self.graph(space)?;
            g.check().map_err(|e| Error::corrupt(format!("{space} graph: {e}")))?;
            report.edges += g.levels.iter().map(|l| l.neighbors.len()).sum::<usize>();
            report.vectors += self.verify_vectors(space)?;
        }
        self.verify_tables()?;
        report.documents = self.verify_docs()?;
        Ok(report)
    }

    /// Bytes outside the header, the section table and every section must be zero
    /// (alignment padding), so no byte of the file escapes a check.
    fn verify_padding(&self) -> Result<()> {
        let table_start = self.header.section_table_offset.get() as usize;
        let table_end = table_start + self.header.section_count.get() as usize * crate::format::ENTRY_LEN;
        let mut used: Vec<std::ops::Range<usize>> = self.table.iter().map(|s| s.range.clone()).collect();
        used.push(0..HEADER_LEN);
        used.push(table_start..table_end);
        used.sort_by_key(|r| (r.start, r.end));
        let mut pos = 0;
        for r in used.iter().chain(std::iter::once(&(self.bytes.len()..self.bytes.len()))) {
            if r.start > pos && self.bytes[pos..r.start].iter().any(|&b| b != 0) {
                return Err(Error::corrupt(format!("non-zero padding in bytes {pos}..{}", r.start)));
            }
            if r.start < pos {
                return Err(Error::corrupt("sections overlap"));
            }
            pos = r.end;
        }
        Ok(())
    }

    fn verify_vectors(&self, space: Space) -> Result<usize> {
        let dim = self.dim();
        for (row, v) in self.vectors(space)?.chunks_exact(dim).enumerate() {
            let norm2 = crate::distance::dot(v, v);
            if !norm2.is_finite() || (norm2 - 1.0).abs() > 1e-3 {
                return Err(Error::corrupt(format!("{space} vector {row} is not a unit vector")));
            }
        }
        Ok(self.len())
    }

    fn verify_tables(&self) -> Result<()> {
        let n_lang = self.meta.languages.len();
        if self.doc_languages().iter().any(|&l| usize::from(l) >= n_lang) {
            return Err(Error::corrupt("a document's language index is out of range"));
        }
        if self.doc_projects().iter().any(|&p| p as usize >= self.meta.n_projects) {
            return Err(Error::corrupt("a document's project index is out of range"));
        }
        if (0..self.meta.n_projects as u32).any(|i| self.project_name(i).is_none()) {
            return Err(Error::corrupt("project name table is damaged"));
        }
        Ok(())
    }

    fn verify_docs(&self) -> Result<usize> {
        let docs = self.docs()?;
        let table: &[[u32; 4]] = cast(self.section_bytes(SectionKind::IdHashes));
        let mut seen = vec![false; self.len()];
        for e in table {
            let row = e[2] as usize;
            if row >= self.len() || std::mem::replace(&mut seen[row], true) {
                return Err(Error::corrupt("id hash table does not cover each document once"));
            }
        }
        let n = docs.for_each(|row, rec| {
            let lang = self.meta.languages.get(usize::from(self.doc_languages()[row]));
            let project = self.project_name(self.doc_projects()[row]);
            if lang != Some(&rec.language) || project != Some(rec.project.as_str()) {
                return Err(Error::corrupt(format!("document {row}: language or project table disagrees")));
            }
            crate::docs::check_action_columns(&rec).map_err(|e| Error::corrupt(format!("document {row}: {e}")))
        })?;
        if n != self.len() {
            return Err(Error::corrupt(format!("document store has {n} rows, header says {}", self.len())));
        }
        Ok(n)
    }
}

fn parse_header(bytes: &[u8]) -> Result<FileHeader> {
    if bytes.is_empty() {
        return Err(Error::empty_file());
    }
    if bytes.len() < 8 || bytes[..8] != MAGIC {
        return Err(Error::NotAnIndex);
    }
    let (header, _) = FileHeader::read_from_prefix(bytes)
        .map_err(|_| Error::corrupt(format!("file is {} bytes, shorter than the header", bytes.len())))?;
    let version = header.version.get();
    let crc_ok = header.compute_crc() == header.header_crc.get();
    if !(OLDEST_SUPPORTED_VERSION..=FORMAT_VERSION).contains(&version) {
        // Another version's header is whole (its checksum covers the version field); a
        // damaged byte in the version field is damage, not a newer fixdex.
        if !crc_ok {
            return Err(Error::corrupt(format!(
                "header checksum mismatch (its version field reads {version}: the header is damaged)"
            )));
        }
        return Err(Error::Version { got: version, oldest: OLDEST_SUPPORTED_VERSION, current: FORMAT_VERSION });
    }
    if !crc_ok || header.header_len.get() as usize != HEADER_LEN {
        return Err(Error::corrupt("header checksum mismatch"));
    }
    if header.file_len.get() != bytes.len() as u64 {
        return Err(Error::corrupt(format!(
            "file is {} bytes but its header says {} (truncated or appended to)",
            bytes.len(),
            header.file_len.get()
        )));
    }
    Ok(header)
}

/// Views aligned section bytes as a typed slice. Sections are 64-byte aligned and their
/// lengths were checked against the element size at open, so this cannot fail.
fn cast<T: FromBytes + zerocopy::Immutable>(bytes: &[u8]) -> &[T] {
    <[T]>::ref_from_bytes(bytes).expect("section alignment and size checked at open")
}
