//! # fixdex engine
//!
//! The retrieval engine of fixdex: it embeds `root_cause ⊕ buggy_code` with a local
//! BERT-family sentence-embedding model ([`embed`]), stores the vectors, an HNSW graph and
//! the bug-fix pairs in one versioned, checksummed, memory-mapped file ([`format`](mod@format),
//! [`Index`]), and answers top-k queries with a similarity threshold ([`query`]), as the
//! external-ingredient retrieval of ReinFix §3.2 describes.
//!
//! ```
//! use engine::{Index, IndexBuilder, SearchParams, Space, embed::Embedder, hnsw};
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("sample.fdx");
//! let model = engine::testing::tiny_embedder(); // real code: BertEmbedder::load(dir)
//! let docs = engine::testing::sample_records(40);
//! let vectors = engine::testing::embed_records(&model, &docs, Space::CodeCause)?;
//! let cfg = hnsw::HnswConfig::default();
//! let graph = hnsw::build(&vectors, model.dim(), &cfg)?;
//! let mut builder = IndexBuilder::new(model.identity().to_meta(), engine::testing::text_meta());
//! builder.add_space(Space::CodeCause, vectors, graph, &cfg)?;
//! builder.write(&path, &docs, serde_json::json!({}))?;
//!
//! let index = Index::open(&path)?;
//! let hits = index.query(&model, &docs[3].buggy_code, &docs[3].root_cause, &SearchParams::default())?;
//! assert_eq!(index.doc(hits[0].row)?.id, "test:3");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

#[cfg(not(target_endian = "little"))]
compile_error!("fixdex index files are little-endian and read in place; big-endian hosts are not supported");

pub mod bench;
mod builder;
pub mod compact;
pub mod distance;
pub mod docs;
pub mod embed;
mod error;
pub mod exact;
pub mod format;
pub mod hnsw;
mod index;
pub mod output;
pub mod projects;
pub mod quant;
pub mod query;
mod record;
mod segments;
pub mod shard;
pub mod simd;
mod space;
pub mod storage;
#[cfg(feature = "testing")]
pub mod testing;
pub mod text;

pub use builder::{IndexBuilder, SpaceData};
pub use error::{Error, Result};
pub use index::{Index, VerifyReport};
pub use query::{Filter, Hit, SearchParams};
pub use record::{Record, id_hash};
pub use segments::{MANIFEST_VERSION, Manifest, ProjectMatch, SegmentEntry, SegmentHit, Segments};
pub use space::Space;
pub use storage::{FileId, Load};
