use std::path::{Path, PathBuf};

use engine::embed::Embedder;
use engine::hnsw::{self, Graph, HnswConfig};
use engine::{Index, IndexBuilder, Record, Space};

/// Writes an index of `docs` embedded by the tiny model in the given spaces.
pub fn tiny_index(path: &Path, docs: &[Record], spaces: &[Space]) -> Index {
    let model = engine::testing::tiny_embedder();
    let mut b = IndexBuilder::new(model.identity().to_meta(), engine::testing::text_meta());
    let cfg = HnswConfig::default();
    for &s in spaces {
        let v = engine::testing::embed_records(&model, docs, s).unwrap();
        let g = hnsw::build(&v, model.dim(), &cfg).unwrap();
        b.add_space(s, v, g, &cfg).unwrap();
    }
    b.write(path, docs, serde_json::json!({"test": true})).unwrap();
    Index::open(path).unwrap()
}

/// Writes an index over given vectors (one space), with synthetic documents.
pub fn vector_index(path: &Path, vectors: Vec<f32>, dim: usize, cfg: &HnswConfig) -> (Index, Graph) {
    let n = vectors.len() / dim;
    let mut model = engine::testing::tiny_embedder().identity().to_meta();
    model.dim = dim;
    let mut b = IndexBuilder::new(model, engine::testing::text_meta());
    let g = hnsw::build(&vectors, dim, cfg).unwrap();
    b.add_space(Space::CodeCause, vectors, g.clone(), cfg).unwrap();
    b.write(path, &engine::testing::sample_records(n), serde_json::Value::Null).unwrap();
    (Index::open(path).unwrap(), g)
}

/// The real model folder: FIXDEX_MODEL or data/models/all-MiniLM-L6-v2 in the repository.
pub fn real_model_dir() -> PathBuf {
    let dir = std::env::var_os("FIXDEX_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/models/all-MiniLM-L6-v2"));
    assert!(
        dir.join("model.safetensors").is_file(),
        "the real model is missing at {}: run scripts/fetch-model.sh (CI does)",
        dir.display()
    );
    dir
}

/// `$FIXDEX_SHARED`, the shared data folder; panics with instructions when unset or missing.
pub fn shared_dir() -> PathBuf {
    let dir = std::env::var_os("FIXDEX_SHARED")
        .map(PathBuf::from)
        .expect("set FIXDEX_SHARED=../shared to run the tests on shared data");
    // A relative path is meant from the workspace root (where .ci/run runs), not from the
    // package folder cargo runs tests in.
    let dir = if dir.is_relative() { Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir) } else { dir };
    assert!(dir.is_dir(), "FIXDEX_SHARED={} is not a directory", dir.display());
    dir
}
