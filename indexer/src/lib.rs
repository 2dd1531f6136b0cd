//! # fixdex indexer
//!
//! Offline corpus indexing: read bug-fix pairs from JSONL, Parquet or Arrow IPC files
//! ([`corpus`]), validate them, drop duplicates and excluded benchmark bugs ([`dedup`],
//! [`exclude`]), classify each pair's repair actions ([`classify`], [`actions::classify`]), tokenize and compose `root_cause ⊕ buggy_code` ([`engine::embed::compose`]; with the window rule,
//! around the lines the fix changes, [`buggy_lines`]),
//! embed in length-sorted, token-budget batches ([`batch`]), build one HNSW graph per vector
//! space, and write the index atomically ([`build`]).
//!
//! ```
//! use indexer::build::{BuildOptions, NoProgress, build_index};
//! # let dir = tempfile::tempdir()?;
//! # let corpus = dir.path().join("c.jsonl");
//! # let recs = engine::testing::sample_records(30);
//! # std::fs::write(&corpus, recs.iter().map(|r| serde_json::json!({"id": r.id, "language": r.language,
//! #     "buggy_code": r.buggy_code, "fixed_code": r.fixed_code, "root_cause": r.root_cause}).to_string() + "\n").collect::<String>())?;
//! let model = engine::testing::tiny_embedder();
//! let opts = BuildOptions::new(vec![corpus], dir.path().join("idx.fdx"));
//! let stats = build_index(&opts, &model, &NoProgress)?;
//! assert_eq!(stats.indexed, 30);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

pub mod append;
pub mod batch;
pub mod buggy_lines;
pub mod build;
pub mod classify;
pub mod corpus;
pub mod dedup;
mod error;
pub mod exclude;
pub mod mine;
mod report;
pub mod shard;

pub use error::{Error, Result};
