//! The fixdex index file format, version 2.
//!
//! An index is one immutable file, little-endian, written once by [`IndexWriter`] under a
//! temporary name and published by `rename`. [`crate::Index::open`] memory-maps it and checks
//! only the header, the section table and section bounds (O(1) in the number of vectors);
//! [`crate::Index::verify`] checks every section's CRC32C (O(file size)).
//!
//! # Byte layout
//!
//! ```text
//! offset 0    FileHeader (128 B)  magic "FIXDEXIX" | version u32 | header_len u32 | file_len u64
//!                                 | section_table_offset u64 | section_count u32
//!                                 | section_table_crc u32 | n_docs u64 | dim u32 | n_spaces u32
//!                                 | reserved [68] | header_crc u32 (CRC32C of bytes 0..124)
//! offset 128  padding to 64
//!             section, section, ... each starting at a multiple of 64, zero-padded between
//! section_table_offset
//!             SectionEntry × section_count (48 B each): kind u32 | space u32 | level u32
//!                                 | elem_size u32 | offset u64 | len u64 | crc32c u32 | reserved [12]
//! file_len    end of file
//! ```
//!
//! # Sections
//!
//! | kind | space | contents |
//! | --- | --- | --- |
//! | `Meta` (1) | – | UTF-8 JSON [`IndexMeta`]: model identity, embedding settings, spaces, HNSW parameters, build stats |
//! | `Vectors` (2) | yes | `f32 [n_docs, dim]`, row *i* = document *i*, L2-normalised |
//! | `GraphNodes` (3) | yes, level ≥ 1 | `u32 [n_l]`: ascending ids of the nodes on level *l* |
//! | `GraphOffsets` (4) | yes | `u64 [n_l + 1]`: CSR offsets into `GraphNeighbors` (level 0: `n_l = n_docs`) |
//! | `GraphNeighbors` (5) | yes | `u32 [edges]`: neighbour node ids (global, = document rows) |
//! | `Docs` (6) | – | an Arrow IPC *file* (see [`crate::docs`]) with one row per document; the bytes of this section can be handed to `pyarrow.ipc.open_file` unchanged |
//! | `IdHashes` (7) | – | `[(u64 FNV-1a hash of id, u32 row, u32 0)]` sorted, for id lookup |
//! | `DocLanguage` (8) | – | `u8 [n_docs]`: index into `IndexMeta::languages` |
//! | `DocProject` (9) | – | `u32 [n_docs]`: index into the project names |
//! | `ProjectOffsets` (10) | – | `u32 [p + 1]`: offsets into `ProjectNames` |
//! | `ProjectNames` (11) | – | UTF-8 bytes of all project names, concatenated |
//! | `VectorsI8` (12) | yes, optional | `i8 [n_docs, dim]` int8 codes for graph traversal ([`crate::quant`]) |
//! | `QuantScales` (13) | yes, optional | `f32 [dim]`: code = round(x · scale), clipped to ±127 |
//!
//! # Versions
//!
//! | version | written by | change |
//! | --- | --- | --- |
//! | 1 | fixdex 0.1.0 | first format |
//! | 2 | fixdex ≥ 0.2.0 | `Docs` gains the columns `action_label`, `action_reason` and `actions` (the fix's repair actions, [`crate::Record::actions`]); v1 files are refused ([`crate::Error::Version`]: rebuild them), since their documents carry no actions |
//!
//! # Files
//!
//! | file | responsibility |
//! | --- | --- |
//! | `header.rs` | [`FileHeader`] and [`SectionEntry`] as `zerocopy` types |
//! | `meta.rs` | [`IndexMeta`], the JSON metadata section |
//! | `write.rs` | [`IndexWriter`]: streaming, checksumming, temp file + rename |
//! | `sections.rs` | [`SectionTable`]: parse and bounds-check the section table at open |

mod header;
mod meta;
mod sections;
mod write;

pub use header::{ENTRY_LEN, FileHeader, HEADER_LEN, NO_SPACE, SectionEntry};
pub use meta::{HnswMeta, IndexMeta, ModelMeta, SpaceMeta, TextMeta};
pub(crate) use sections::space_label;
pub use sections::{SectionKind, SectionTable};
pub use write::{IndexWriter, SectionSink};

/// The 8 bytes every index file starts with.
pub const MAGIC: [u8; 8] = *b"FIXDEXIX";
/// The format version this build writes.
pub const FORMAT_VERSION: u32 = 2;
/// The oldest format version this build reads. v1 is refused: its documents have no
/// repair actions, and a search over it would print none without saying why.
pub const OLDEST_SUPPORTED_VERSION: u32 = 2;
/// The first fixdex release that writes [`FORMAT_VERSION`]: an index of an older format
/// must be rebuilt with it or a later one.
pub const FIRST_RELEASE_OF_FORMAT: &str = "0.2.0";
