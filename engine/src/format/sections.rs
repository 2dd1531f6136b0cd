//! The section table: parsed and bounds-checked once at open.

use std::ops::Range;

use zerocopy::FromBytes;

use super::{ENTRY_LEN, FileHeader, NO_SPACE, SectionEntry};
use crate::storage::ALIGN;
use crate::{Error, Result};

/// What a section holds; see the table in [the module docs](super).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum SectionKind {
    /// UTF-8 JSON [`super::IndexMeta`].
    Meta = 1,
    /// `f32 [n_docs, dim]` for one space.
    Vectors = 2,
    /// `u32 [n_l]` ascending node ids of a level ≥ 1.
    GraphNodes = 3,
    /// `u64 [n_l + 1]` CSR offsets of a level.
    GraphOffsets = 4,
    /// `u32 [edges]` CSR neighbour ids of a level.
    GraphNeighbors = 5,
    /// Arrow IPC file of the documents.
    Docs = 6,
    /// `(u64 hash, u32 row, u32 0)` sorted by hash, for id lookup.
    IdHashes = 7,
    /// `u8 [n_docs]` language index per document.
    DocLanguage = 8,
    /// `u32 [n_docs]` project index per document.
    DocProject = 9,
    /// `u32 [p + 1]` offsets into `ProjectNames`.
    ProjectOffsets = 10,
    /// Concatenated UTF-8 project names.
    ProjectNames = 11,
    /// `i8 [n_docs, dim]` int8 codes of one space (optional, `--quantize int8`).
    VectorsI8 = 12,
    /// `f32 [dim]` per-dimension scales of those codes (code = round(x · scale)).
    QuantScales = 13,
}

impl SectionKind {
    const ALL: [SectionKind; 13] = [
        SectionKind::Meta,
        SectionKind::Vectors,
        SectionKind::GraphNodes,
        SectionKind::GraphOffsets,
        SectionKind::GraphNeighbors,
        SectionKind::Docs,
        SectionKind::IdHashes,
        SectionKind::DocLanguage,
        SectionKind::DocProject,
        SectionKind::ProjectOffsets,
        SectionKind::ProjectNames,
        SectionKind::VectorsI8,
        SectionKind::QuantScales,
    ];

    /// The kind with numeric code `code`, if any.
    pub fn from_code(code: u32) -> Option<SectionKind> {
        SectionKind::ALL.into_iter().find(|k| *k as u32 == code)
    }

    /// Size of one element in bytes; a section's length is a multiple of it.
    pub fn elem_size(self) -> u32 {
        match self {
            SectionKind::Meta
            | SectionKind::Docs
            | SectionKind::DocLanguage
            | SectionKind::ProjectNames
            | SectionKind::VectorsI8 => 1,
            SectionKind::Vectors
            | SectionKind::GraphNodes
            | SectionKind::GraphNeighbors
            | SectionKind::DocProject
            | SectionKind::ProjectOffsets
            | SectionKind::QuantScales => 4,
            SectionKind::GraphOffsets => 8,
            SectionKind::IdHashes => 16,
        }
    }

    /// Short lower-case name, as `fixdex inspect` prints it.
    pub fn name(self) -> &'static str {
        match self {
            SectionKind::Meta => "meta",
            SectionKind::Vectors => "vectors",
            SectionKind::GraphNodes => "graph-nodes",
            SectionKind::GraphOffsets => "graph-offsets",
            SectionKind::GraphNeighbors => "graph-neighbors",
            SectionKind::Docs => "docs",
            SectionKind::IdHashes => "id-hashes",
            SectionKind::DocLanguage => "doc-language",
            SectionKind::DocProject => "doc-project",
            SectionKind::ProjectOffsets => "project-offsets",
            SectionKind::ProjectNames => "project-names",
            SectionKind::VectorsI8 => "vectors-i8",
            SectionKind::QuantScales => "quant-scales",
        }
    }
}

/// One parsed, bounds-checked section.
#[derive(Debug, Clone)]
pub struct Section {
    /// What it holds.
    pub kind: SectionKind,
    /// Vector space index, if the section belongs to one.
    pub space: Option<u32>,
    /// Graph level (0 for non-graph sections).
    pub level: u32,
    /// Byte range in the file; within bounds and 64-byte aligned at the start.
    pub range: Range<usize>,
    /// Expected CRC32C of the bytes.
    pub crc: u32,
}

/// All sections of an index file.
#[derive(Debug, Clone)]
pub struct SectionTable {
    sections: Vec<Section>,
}

impl SectionTable {
    /// Parses the section table of `file` as described by `header`, checking its CRC and
    /// that every section lies inside the data area, is aligned, has a known kind and a
    /// length that is a multiple of its element size. O(number of sections).
    ///
    /// # Errors
    /// [`Error::Corrupt`] naming the first check that fails.
    pub fn parse(file: &[u8], header: &FileHeader) -> Result<SectionTable> {
        let start = to_usize(header.section_table_offset.get())?;
        let count = header.section_count.get() as usize;
        let end = count
            .checked_mul(ENTRY_LEN)
            .and_then(|n| n.checked_add(start))
            .filter(|&e| e <= file.len())
            .ok_or_else(|| Error::corrupt("section table extends past the end of the file"))?;
        let bytes = &file[start..end];
        if crc32c::crc32c(bytes) != header.section_table_crc.get() {
            return Err(Error::corrupt("section table checksum mismatch"));
        }
        let entries =
            <[SectionEntry]>::ref_from_bytes(bytes).map_err(|_| Error::corrupt("section table is misaligned"))?;
        let sections = entries.iter().enumerate().map(|(i, e)| parse_entry(i, e, start)).collect::<Result<Vec<_>>>()?;
        Ok(SectionTable { sections })
    }

    /// Every section, in file order.
    pub fn iter(&self) -> impl Iterator<Item = &Section> {
        self.sections.iter()
    }

    /// The section of `kind` for `space` and `level`, if present. O(sections).
    pub fn find(&self, kind: SectionKind, space: Option<u32>, level: u32) -> Option<&Section> {
        self.sections.iter().find(|s| s.kind == kind && s.space == space && s.level == level)
    }

    /// Like [`SectionTable::find`], but a missing section is [`Error::Corrupt`].
    pub fn require(&self, kind: SectionKind, space: Option<u32>, level: u32) -> Result<&Section> {
        self.find(kind, space, level).ok_or_else(|| {
            Error::corrupt(format!("missing {} section ({}, level {level})", kind.name(), space_label(space)))
        })
    }
}

/// A section's space for messages: `space N` (its number in the index's space list) or
/// `every space` for a section the spaces share (documents, tables).
pub(crate) fn space_label(space: Option<u32>) -> String {
    space.map_or_else(|| "every space".to_string(), |n| format!("space {n}"))
}

fn parse_entry(i: usize, e: &SectionEntry, data_end: usize) -> Result<Section> {
    let bad = |what: &str| Error::corrupt(format!("section {i}: {what}"));
    let kind = SectionKind::from_code(e.kind.get()).ok_or_else(|| bad(&format!("unknown kind {}", e.kind.get())))?;
    let offset = to_usize(e.offset.get())?;
    let len = to_usize(e.len.get())?;
    let end = offset.checked_add(len).ok_or_else(|| bad("length overflows"))?;
    if offset < super::HEADER_LEN || end > data_end {
        return Err(bad("lies outside the data area"));
    }
    if offset % ALIGN != 0 {
        return Err(bad("is not 64-byte aligned"));
    }
    if e.elem_size.get() != kind.elem_size() || len % kind.elem_size() as usize != 0 {
        return Err(bad("has a wrong element size"));
    }
    let space = (e.space.get() != NO_SPACE).then(|| e.space.get());
    Ok(Section { kind, space, level: e.level.get(), range: offset..end, crc: e.crc.get() })
}

fn to_usize(v: u64) -> Result<usize> {
    usize::try_from(v).map_err(|_| Error::corrupt("offset does not fit in memory"))
}
