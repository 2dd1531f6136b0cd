//! `fixdex bench ann`: build an index over raw vectors ([`engine::bench::raw`]) and sweep
//! ef_search × threads, printing build, open and one search line per point.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use engine::bench::{measure, raw, vecs};
use engine::hnsw::{self, HnswConfig};
use engine::{Index, SearchParams};
use rayon::prelude::*;

use super::{JsonFlag, Pass, emit, open_timed, parse_file, timed};

/// Arguments of `fixdex bench ann`.
#[derive(Debug, clap::Args)]
pub(super) struct AnnArgs {
    #[command(flatten)]
    _json: JsonFlag,
    /// Base vectors (TEXMEX .fvecs: int32 dim, then dim f32, per vector), L2-normalised.
    #[arg(long)]
    base: PathBuf,
    /// Query vectors (.fvecs).
    #[arg(long)]
    queries: PathBuf,
    /// Exact neighbours of each query, best first (.ivecs); recall is skipped without it.
    #[arg(long)]
    gt: Option<PathBuf>,
    /// Index file to write (and reuse with --reuse).
    #[arg(long, default_value = "bench-ann.fdx")]
    index: PathBuf,
    /// Reuse an existing --index instead of building.
    #[arg(long)]
    reuse: bool,
    /// HNSW M.
    #[arg(long, default_value_t = 16)]
    m: usize,
    /// HNSW ef_construction.
    #[arg(long, default_value_t = 200)]
    ef_construction: usize,
    /// Store int8 codes and traverse with them (`none` or `int8`).
    #[arg(long, default_value = "none", value_parser = ["none", "int8"])]
    quantize: String,
    /// Graph builder: `native` (fixdex's own, int8 traversal while inserting), `native-f32`
    /// or `hnsw_rs` (see `fixdex index --help`).
    #[arg(long, default_value = "native", value_parser = ["native", "native-f32", "hnsw_rs"])]
    builder: String,
    /// ef_search values, comma-separated.
    #[arg(long, default_value = "16,32,64,128,256", value_delimiter = ',')]
    ef: Vec<usize>,
    /// Thread counts, comma-separated.
    #[arg(long, default_value = "1,2", value_delimiter = ',')]
    threads: Vec<usize>,
    /// Passes per configuration; the best is reported.
    #[arg(long, default_value_t = 3)]
    repeats: usize,
    /// Neighbours per query.
    #[arg(short, default_value_t = 10)]
    k: usize,
}

/// The vectors searched: the flat queries (`[n · dim]`), their dimension and, with `--gt`,
/// the exact neighbours.
struct Queries {
    flat: Vec<f32>,
    dim: usize,
    gt: Option<Vec<Vec<u32>>>,
}

/// Runs `fixdex bench ann`.
pub(super) fn run(a: &AnnArgs) -> anyhow::Result<ExitCode> {
    check_index(a)?;
    let (base, queries) = read_inputs(a)?;
    if !a.reuse {
        build(a, base, queries.dim)?;
    }
    let (index, open_ms) = open_timed(&a.index)?;
    emit(serde_json::json!({"kind": "open", "ms": open_ms, "vectors": index.len(), "file_bytes": index.file_len()}))?;
    sweep(a, &index, &queries)?;
    Ok(ExitCode::SUCCESS)
}

/// Checks `--index` before a build (not with `--reuse`, which only reads it): it may be
/// written and is neither `--base` nor `--queries` ([`crate::cli::check_output`]).
fn check_index(a: &AnnArgs) -> anyhow::Result<()> {
    if !a.reuse {
        crate::cli::check_output("--index", &a.index, &[a.base.as_path(), a.queries.as_path()])?;
        crate::cli::check_replaces("--index", &a.index, engine::output::Kind::Index, "the build")?;
    }
    Ok(())
}

/// Reads `--base`, `--queries` and `--gt`: the flat base vectors and the [`Queries`].
///
/// # Errors
/// A file that cannot be read or parsed; base and queries of different dimensions.
fn read_inputs(a: &AnnArgs) -> anyhow::Result<(Vec<f32>, Queries)> {
    let (base, dim) = parse_file(&a.base, vecs::parse_fvecs)?;
    let (flat, qdim) = parse_file(&a.queries, vecs::parse_fvecs)?;
    if dim != qdim {
        bail!("base has {dim} dimensions but queries have {qdim}");
    }
    let gt = a.gt.as_deref().map(|p| parse_file(p, vecs::parse_ivecs)).transpose()?;
    Ok((base, Queries { flat, dim, gt }))
}

/// Every `--threads` × `--ef` point, one search line each.
fn sweep(a: &AnnArgs, index: &Index, queries: &Queries) -> anyhow::Result<()> {
    let qs: Vec<&[f32]> = queries.flat.chunks_exact(queries.dim).collect();
    for &threads in &a.threads {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
        for &ef in &a.ef {
            sweep_point(a, index, &qs, queries.gt.as_deref(), (&pool, threads), ef)?;
        }
    }
    Ok(())
}

/// One `--ef` value on one thread pool: the best QPS of `--repeats` passes and the recall,
/// as one JSON line.
fn sweep_point(
    a: &AnnArgs,
    index: &Index,
    qs: &[&[f32]],
    gt: Option<&[Vec<u32>]>,
    (pool, threads): (&rayon::ThreadPool, usize),
    ef: usize,
) -> anyhow::Result<()> {
    let p = SearchParams { k: a.k, ef_search: ef, ..SearchParams::default() };
    let search = || pool.install(|| qs.par_iter().map(|q| index.search(q, &p)).collect::<Result<Vec<_>, _>>());
    let (results, best) = best_of(a.repeats, || Ok(search()?))?;
    let rows: Vec<Vec<u32>> = results.iter().map(|hits| measure::rows(hits)).collect();
    let recall = gt.map(|g| measure::recall_at(&rows, g, a.k));
    emit(serde_json::json!({"kind": "search", "ef": ef, "threads": threads, "k": a.k,
        "qps": qs.len() as f64 / best.secs, "recall": recall, "queries": qs.len(), "cpu_util": best.util()}))
}

/// Runs `f` `repeats` times (at least once): the last value and the fastest [`Pass`].
fn best_of<T>(repeats: usize, mut f: impl FnMut() -> anyhow::Result<T>) -> anyhow::Result<(T, Pass)> {
    let (mut value, mut best) = timed(&mut f)?;
    for _ in 1..repeats.max(1) {
        let (v, pass) = timed(&mut f)?;
        if pass.secs < best.secs {
            best = pass;
        }
        value = v;
    }
    Ok((value, best))
}

/// Builds the graph over `base` with `--m`, `--ef-construction` and `--builder`, prints the
/// build line, and writes `--index` ([`raw::write_raw_index`]).
fn build(a: &AnnArgs, base: Vec<f32>, dim: usize) -> anyhow::Result<()> {
    let builder = hnsw::Builder::from_flag(&a.builder);
    let cfg = HnswConfig { m: a.m, ef_construction: a.ef_construction, builder, ..HnswConfig::default() };
    let n = base.len() / dim;
    let (graph, pass) = timed(|| Ok(hnsw::build(&base, dim, &cfg)?))?;
    emit(serde_json::json!({"kind": "build", "seconds": pass.secs, "vectors_per_second": n as f64 / pass.secs,
        "vectors": n, "m": cfg.m, "ef_construction": cfg.ef_construction, "builder": cfg.builder_name(),
        "threads": rayon::current_num_threads(), "cpu_util": pass.util()}))?;
    raw::write_raw_index(&a.index, base, dim, graph, &cfg, a.quantize == "int8")?;
    Ok(())
}
