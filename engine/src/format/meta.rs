//! The JSON metadata section: what produced the index and how to query it.

use serde::{Deserialize, Serialize};

/// Identity and settings of the embedding model an index was built with.
///
/// A query is refused unless the loaded model has the same `sha256` (see
/// [`crate::embed::ModelIdentity`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelMeta {
    /// Human-readable name (the model folder's name).
    pub name: String,
    /// SHA-256 (hex) over the model's config.json, tokenizer.json and weights, plus the
    /// pooling and sequence-length settings.
    pub sha256: String,
    /// Floats per embedding.
    pub dim: usize,
    /// `mean` or `cls`.
    pub pooling: String,
    /// Maximum tokens per input, including `[CLS]` and `[SEP]`.
    pub max_seq_length: usize,
}

/// How the embedded text was composed from a record (see [`crate::embed::compose`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextMeta {
    /// Name of the composition rule, e.g. `cause-first-v1`.
    pub rule: String,
    /// Maximum root-cause tokens kept before the code.
    pub cause_max_tokens: usize,
    /// Record field the root cause was read from (`root_cause`, `description`, or a custom
    /// field), or `auto` (root_cause when present, else description).
    pub cause_field: String,
}

/// HNSW graph parameters of one space.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HnswMeta {
    /// Maximum neighbours per node on levels ≥ 1.
    pub m: usize,
    /// Maximum neighbours per node on level 0.
    pub m0: usize,
    /// Beam width used while building.
    pub ef_construction: usize,
    /// Highest level (0 = only the bottom layer).
    pub max_level: usize,
    /// Node id where searches start (a node on `max_level`).
    pub entry_point: u32,
    /// Which implementation built the graph, e.g. `hnsw_rs 0.3.5`.
    pub builder: String,
}

/// One named vector space.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpaceMeta {
    /// `code+cause`, `code` or `cause`.
    pub name: String,
    /// The graph's parameters.
    pub hnsw: HnswMeta,
    /// Quantization of the traversal vectors, e.g. `int8-per-dim-p99.9`; `None` = f32 only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantization: Option<String>,
}

/// Contents of the `Meta` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexMeta {
    /// Version of fixdex that wrote the index.
    pub fixdex_version: String,
    /// Creation time, seconds since the Unix epoch.
    pub created_unix: u64,
    /// The embedding model.
    pub model: ModelMeta,
    /// How records were turned into model input.
    pub text: TextMeta,
    /// The vector spaces, in section order.
    pub spaces: Vec<SpaceMeta>,
    /// Language names; `DocLanguage` values index this list.
    pub languages: Vec<String>,
    /// Number of distinct projects (entries in `ProjectOffsets` minus one).
    pub n_projects: usize,
    /// Free-form build statistics (records read, skipped, deduplicated, timings).
    #[serde(default)]
    pub stats: serde_json::Value,
}
