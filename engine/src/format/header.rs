//! Fixed-size binary structures at the start of an index file: the file header and the
//! section table entries. Little-endian, described as types (never as offsets).

use zerocopy::little_endian::{U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::{FORMAT_VERSION, MAGIC};

/// Size of [`FileHeader`] in bytes.
pub const HEADER_LEN: usize = 128;
/// Size of one [`SectionEntry`] in bytes.
pub const ENTRY_LEN: usize = 48;
/// `space` value of a section that belongs to no vector space.
pub const NO_SPACE: u32 = u32::MAX;

/// The first 128 bytes of every index file.
///
/// `header_crc` is the CRC32C of bytes `0..124`; `section_table_crc` the CRC32C of the
/// section table (`section_count` × [`SectionEntry`] at `section_table_offset`).
#[derive(Debug, Clone, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub struct FileHeader {
    /// [`MAGIC`]: `b"FIXDEXIX"`.
    pub magic: [u8; 8],
    /// Format version that wrote the file.
    pub version: U32,
    /// Size of this header in bytes (128).
    pub header_len: U32,
    /// Total file length in bytes; a truncated or extended file fails `open`.
    pub file_len: U64,
    /// Byte offset of the section table.
    pub section_table_offset: U64,
    /// Number of entries in the section table.
    pub section_count: U32,
    /// CRC32C of the section table bytes.
    pub section_table_crc: U32,
    /// Number of documents (bug-fix pairs) = vectors per space.
    pub n_docs: U64,
    /// Floats per vector.
    pub dim: U32,
    /// Number of vector spaces.
    pub n_spaces: U32,
    /// Zero; room for later versions.
    pub reserved: [u8; 68],
    /// CRC32C of bytes `0..124` of this header.
    pub header_crc: U32,
}

const _: () = assert!(size_of::<FileHeader>() == HEADER_LEN);

impl FileHeader {
    /// A header for the current format version with every count zero and no checksum.
    pub fn new() -> FileHeader {
        FileHeader {
            magic: MAGIC,
            version: U32::new(FORMAT_VERSION),
            header_len: U32::new(HEADER_LEN as u32),
            file_len: U64::ZERO,
            section_table_offset: U64::ZERO,
            section_count: U32::ZERO,
            section_table_crc: U32::ZERO,
            n_docs: U64::ZERO,
            dim: U32::ZERO,
            n_spaces: U32::ZERO,
            reserved: [0; 68],
            header_crc: U32::ZERO,
        }
    }

    /// CRC32C of the checksummed part of the header (everything before `header_crc`).
    pub fn compute_crc(&self) -> u32 {
        crc32c::crc32c(&self.as_bytes()[..HEADER_LEN - 4])
    }
}

impl Default for FileHeader {
    fn default() -> Self {
        FileHeader::new()
    }
}

/// One row of the section table: where a section lies and its checksum.
#[derive(Debug, Clone, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub struct SectionEntry {
    /// [`super::SectionKind`] as a number.
    pub kind: U32,
    /// Index of the vector space the section belongs to, or [`NO_SPACE`].
    pub space: U32,
    /// Graph level for graph sections (0 = bottom layer), else 0.
    pub level: U32,
    /// Size of one element in bytes (1 for byte sections), checked against the kind.
    pub elem_size: U32,
    /// Byte offset from the start of the file; a multiple of 64.
    pub offset: U64,
    /// Length in bytes.
    pub len: U64,
    /// CRC32C of the section bytes, checked by `verify`.
    pub crc: U32,
    /// Zero.
    pub reserved: [u8; 12],
}

const _: () = assert!(size_of::<SectionEntry>() == ENTRY_LEN);
