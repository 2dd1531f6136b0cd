//! Criterion benchmarks of the engine: index open, search latency (HNSW at several ef and
//! exact), graph build, and embedding with the real model.
//!
//! Run: `cargo bench -p benches` (the embedding group needs `scripts/fetch-model.sh`).
//! Vectors are seeded random unit vectors (384 dims); with `FIXDEX_SHARED` set, the search
//! group uses the real 20k all-MiniLM-L6-v2 set in `$FIXDEX_SHARED/baselines/ann/` instead.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use engine::embed::{BertEmbedder, Embedder};
use engine::hnsw::{self, HnswConfig};
use engine::{Index, IndexBuilder, SearchParams, Space};

const DIM: usize = 384;

/// Reads TEXMEX `.fvecs` (int32 dim, then dim f32, per vector).
fn read_fvecs(path: &Path) -> Vec<f32> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    bytes
        .chunks_exact(4 + DIM * 4)
        .flat_map(|rec| rec[4..].chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())))
        .collect()
}

/// Base vectors and queries: the real set when FIXDEX_SHARED is set, else random.
fn dataset() -> (Vec<f32>, Vec<f32>) {
    match std::env::var_os("FIXDEX_SHARED") {
        Some(dir) => {
            let ann = PathBuf::from(dir).join("baselines/ann");
            (read_fvecs(&ann.join("real_base.fvecs")), read_fvecs(&ann.join("real_queries.fvecs")))
        }
        None => {
            (engine::testing::random_unit_vectors(20_000, DIM, 1), engine::testing::random_unit_vectors(200, DIM, 2))
        }
    }
}

fn write_index(path: &Path, vectors: Vec<f32>) {
    let n = vectors.len() / DIM;
    let mut model = engine::testing::tiny_embedder().identity().to_meta();
    model.dim = DIM;
    let cfg = HnswConfig::default();
    let graph = hnsw::build(&vectors, DIM, &cfg).unwrap();
    let mut b = IndexBuilder::new(model, engine::testing::text_meta());
    b.add_space(Space::CodeCause, vectors, graph, &cfg).unwrap();
    b.write(path, &engine::testing::sample_records(n), serde_json::Value::Null).unwrap();
}

fn search_and_open(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.fdx");
    let (base, queries) = dataset();
    write_index(&path, base);
    c.bench_function("open/20k", |b| b.iter(|| black_box(Index::open(&path).unwrap())));
    let index = Index::open(&path).unwrap();
    let mut g = c.benchmark_group("search/20k");
    g.throughput(Throughput::Elements(1));
    let qs: Vec<&[f32]> = queries.chunks_exact(DIM).collect();
    for ef in [16, 32, 64, 128] {
        let p = SearchParams { k: 10, ef_search: ef, ..Default::default() };
        g.bench_with_input(BenchmarkId::new("hnsw_ef", ef), &p, |b, p| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) % qs.len();
                black_box(index.search(qs[i], p).unwrap())
            });
        });
    }
    let p = SearchParams { k: 10, exact: true, ..Default::default() };
    g.bench_function("exact", |b| b.iter(|| black_box(index.search(qs[0], &p).unwrap())));
    g.finish();
}

fn build(c: &mut Criterion) {
    let vectors = engine::testing::random_unit_vectors(5_000, DIM, 3);
    let mut g = c.benchmark_group("build");
    g.sample_size(10).throughput(Throughput::Elements(5_000));
    g.bench_function("hnsw_rs/5k", |b| {
        b.iter(|| black_box(hnsw::build(&vectors, DIM, &HnswConfig::default()).unwrap()));
    });
    g.finish();
}

fn embed(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let model =
        BertEmbedder::load(&root.join("data/models/all-MiniLM-L6-v2")).expect("run scripts/fetch-model.sh first");
    let sample = std::fs::read_to_string(root.join("data/sample/sample.jsonl")).unwrap();
    let codes: Vec<String> = sample
        .lines()
        .take(32)
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["buggy_code"].as_str().unwrap().to_string())
        .collect();
    let seqs: Vec<Vec<u32>> = codes.iter().map(|c| model.compose_text(Space::Code, c, "").unwrap()).collect();
    let refs: Vec<&[u32]> = seqs.iter().map(Vec::as_slice).collect();
    let mut g = c.benchmark_group("embed");
    g.sample_size(10).throughput(Throughput::Elements(refs.len() as u64));
    g.bench_function("minilm/batch32", |b| b.iter(|| black_box(model.embed_tokens(&refs).unwrap())));
    g.finish();
}

criterion_group!(benches, search_and_open, build, embed);
criterion_main!(benches);
