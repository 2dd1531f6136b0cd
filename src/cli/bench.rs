//! `fixdex bench`: `ann`, ANN build and search on raw vectors (TEXMEX fvecs/ivecs), without
//! the embedder, for side-by-side comparison with hnswlib, FAISS and usearch
//! (`scripts/bench-vs-peers.sh`); `embed` and `open`. `quixbugs` is the deprecated
//! spelling of `fixdex eval quixbugs` (hidden; see [`super::quixbugs`]).
//!
//! Prints one JSON object per measurement (build, open, and each ef × threads pass):
//! recall@10 against the ground truth, QPS over one batched pass of all queries (best of
//! `--repeats`), build vectors/s. Each line carries `host` (CPU model, vendor, logical CPUs,
//! SIMD features: figures from different CPUs are not comparable) and, for build, search and
//! embed, `threads` and `cpu_util` (CPU-seconds / wall-seconds of that measurement, all
//! threads; well under `threads` means other jobs held the cores).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use engine::format::{ModelMeta, TextMeta};
use engine::hnsw::{self, HnswConfig};
use engine::{Index, IndexBuilder, Record, SearchParams, Space};
use rayon::prelude::*;

/// Arguments of `fixdex bench`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(Debug, clap::Subcommand)]
enum What {
    /// Build an index over raw vectors and sweep ef_search × threads.
    Ann(AnnArgs),
    /// Embedding throughput on a JSONL file of snippets (`{"text": ...}` per line).
    Embed(EmbedArgs),
    /// Open time of an index (best of --repeats) and resident memory right after opening.
    Open(OpenArgs),
    /// Deprecated: `fixdex eval quixbugs` (`--oracle ground-truth` is `--check`).
    #[command(hide = true)]
    Quixbugs(Box<super::quixbugs::BenchArgs>),
}

/// `--json`, which every command takes: `bench` always prints JSON (one object per
/// measurement, one per line), so the flag changes nothing.
#[derive(Debug, clap::Args)]
struct JsonFlag {
    /// Print JSON (always so: one object per measurement, one per line).
    #[arg(long = "json")]
    _json: bool,
}

/// Arguments of `fixdex bench open`.
#[derive(Debug, clap::Args)]
struct OpenArgs {
    #[command(flatten)]
    _json: JsonFlag,
    /// The index file.
    index: PathBuf,
    /// Opens to time; the fastest is reported (the first also pays for page-table setup).
    #[arg(long, default_value_t = 10)]
    repeats: usize,
}

/// Arguments of `fixdex bench embed`.
#[derive(Debug, clap::Args)]
struct EmbedArgs {
    #[command(flatten)]
    _json: JsonFlag,
    /// JSONL, one object per line with a `text` field (e.g. baselines/reference/snippets-2000.jsonl).
    #[arg(long)]
    snippets: PathBuf,
    /// Snippets to embed (the first N).
    #[arg(long, default_value_t = 2000)]
    n: usize,
    /// Reference embeddings (.npy, float32 [N, dim]) to compare with by cosine.
    #[arg(long)]
    reference: Option<PathBuf>,
    /// Passes; the best is reported.
    #[arg(long, default_value_t = 1)]
    repeats: usize,
    /// Batch limit in padded tokens.
    #[arg(long, default_value_t = indexer::batch::BatchConfig::default().max_batch_tokens)]
    max_batch_tokens: usize,
    /// Batch limit in sequences.
    #[arg(long, default_value_t = indexer::batch::BatchConfig::default().max_batch_items)]
    max_batch_items: usize,
    /// Forward pass: `fast` (default: fixdex's padding-free f32 encoder), `bf16` (the same
    /// with bf16 projections, AVX512_BF16 CPUs only), `auto` (`bf16` when a timing of both on
    /// this CPU says it is at least 1.1x faster, else `fast`: `index --precision auto`; the
    /// JSON's `backend_ran` says which) or `candle` (the reference BERT in candle ops, ported from candle-transformers).
    #[arg(long, default_value = "fast", value_parser = ["fast", "bf16", "auto", "candle"])]
    backend: String,
    /// Embedding model folder.
    #[arg(long, env = "FIXDEX_MODEL")]
    model: Option<PathBuf>,
}

/// Arguments of `fixdex bench ann`.
#[derive(Debug, clap::Args)]
struct AnnArgs {
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

/// Runs `fixdex bench`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    match &args.what {
        What::Ann(a) => ann(a),
        What::Embed(a) => embed(a),
        What::Open(a) => open(a),
        What::Quixbugs(a) => super::quixbugs::run_deprecated(a),
    }
}

fn open(a: &OpenArgs) -> anyhow::Result<ExitCode> {
    let rss_before = rss_mb();
    let (mut best, mut first) = (f64::MAX, 0.0);
    let mut keep = None;
    for i in 0..a.repeats.max(1) {
        let t = Instant::now();
        let index = Index::open(&a.index)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if i == 0 {
            first = ms;
        }
        best = best.min(ms);
        keep = Some(index);
    }
    let index = keep.expect("at least one open");
    emit(serde_json::json!({"kind": "open", "index": a.index.display().to_string(), "vectors": index.len(),
        "file_bytes": index.file_len(), "open_ms_best": best, "open_ms_first": first,
        "rss_mb_before": rss_before, "rss_mb_after_open": rss_mb()}))?;
    Ok(ExitCode::SUCCESS)
}

/// The machine the figures were measured on, added to every JSON line as `"host"` so that
/// figures from different CPUs are never compared as one (issue 12): CPU model and vendor
/// (`/proc/cpuinfo`), logical CPUs online and usable by this process, and the SIMD features
/// the kernels care about (`std::is_x86_feature_detected!`, or the `/proc/cpuinfo` flags for
/// `amx_bf16`, which is advertised rather than enabled: the kernel grants AMX on request).
/// Same shape as `host_info()` in scripts/peers/hostinfo.py; unknown values are `null`.
fn host() -> &'static serde_json::Value {
    static HOST: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    HOST.get_or_init(|| {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let field = |name: &str| {
            cpuinfo.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == name).then(|| v.trim().to_string())
            })
        };
        let flags = field("flags").unwrap_or_default();
        let flag = |f: &str| flags.split_whitespace().any(|x| x == f);
        let online = cpuinfo.lines().filter(|l| l.split(':').next().is_some_and(|k| k.trim() == "processor")).count();
        let usable = std::thread::available_parallelism().map(std::num::NonZero::get).ok();
        let features = simd_features(&flag, !cpuinfo.is_empty());
        serde_json::json!({
            "cpu_model": field("model name"),
            "vendor": field("vendor_id"),
            "logical_cpus": if online > 0 { Some(online) } else { usable },
            "usable_cpus": usable,
            "arch": std::env::consts::ARCH,
            "os": std::env::consts::OS,
            "features": features,
        })
    })
}

/// avx2, fma, avx512f, avx512_bf16 (`/proc/cpuinfo` spellings) detected at run time, and
/// amx_bf16 as `/proc/cpuinfo` advertises it (`null` where nothing says); all `false` off x86.
#[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
fn simd_features(flag: &dyn Fn(&str) -> bool, have_cpuinfo: bool) -> serde_json::Value {
    use std::arch::is_x86_feature_detected as has;
    serde_json::json!({
        "avx2": has!("avx2"), "fma": has!("fma"), "avx512f": has!("avx512f"),
        "avx512_bf16": has!("avx512bf16"), "amx_bf16": have_cpuinfo.then(|| flag("amx_bf16")),
    })
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "x86")))]
fn simd_features(_flag: &dyn Fn(&str) -> bool, _have_cpuinfo: bool) -> serde_json::Value {
    serde_json::json!({"avx2": false, "fma": false, "avx512f": false, "avx512_bf16": false, "amx_bf16": false})
}

/// Prints one measurement as a JSON line, with the [`host`] object added.
fn emit(mut line: serde_json::Value) -> anyhow::Result<()> {
    if let Some(obj) = line.as_object_mut() {
        obj.insert("host".into(), host().clone());
    }
    out!("{line}")?;
    Ok(())
}

/// This process's CPU time so far: per thread from `/proc/self/task/*/schedstat` (run time
/// in nanoseconds), else utime + stime from `/proc/self/stat` (clock ticks, 1/100 s, threads
/// that exited included); `None` off Linux.
#[derive(Debug)]
enum CpuReading {
    Threads(std::collections::HashMap<String, u64>),
    Ticks(u64),
}

fn cpu_reading() -> Option<CpuReading> {
    let run_ns =
        |path: &Path| -> Option<u64> { std::fs::read_to_string(path).ok()?.split_whitespace().next()?.parse().ok() };
    static SCHEDSTAT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *SCHEDSTAT.get_or_init(|| run_ns(Path::new("/proc/thread-self/schedstat")).is_some()) {
        let tasks = std::fs::read_dir("/proc/self/task").ok()?;
        let per_thread = tasks
            .filter_map(|t| {
                let t = t.ok()?;
                Some((t.file_name().to_string_lossy().into_owned(), run_ns(&t.path().join("schedstat"))?))
            })
            .collect();
        return Some(CpuReading::Threads(per_thread));
    }
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the `(comm)`: state is field 3; utime and stime are fields 14 and 15.
    let f: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    Some(CpuReading::Ticks(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?))
}

/// CPU seconds this process has used since `before`, all threads: per thread, the run time
/// now less the run time then (threads started since count in full; threads that exited since,
/// such as a dropped pool's, drop out instead of making the difference negative).
fn cpu_since(before: Option<&CpuReading>) -> Option<f64> {
    match (before?, cpu_reading()?) {
        (CpuReading::Threads(b), CpuReading::Threads(a)) => {
            let ns: u64 = a.iter().map(|(tid, &ns)| ns.saturating_sub(b.get(tid).copied().unwrap_or(0))).sum();
            Some(ns as f64 / 1e9)
        }
        (CpuReading::Ticks(b), CpuReading::Ticks(a)) => Some(a.saturating_sub(*b) as f64 / 100.0),
        _ => None,
    }
}

/// CPU-seconds / wall-seconds, rounded to 3 places.
fn cpu_util(cpu_s: Option<f64>, wall_s: f64) -> Option<f64> {
    let cpu = cpu_s?;
    (wall_s > 0.0).then(|| (cpu / wall_s * 1000.0).round() / 1000.0)
}

/// Resident set size of this process in MiB (Linux `/proc/self/status` VmRSS), or `None`.
fn rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = status.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// FLOPs of one sequence of `l` tokens through all-MiniLM-L6-v2-sized BERT (H = 384,
/// FFN 1536, 6 layers): `6 · (l · 2 · (4H² + 2H·1536) + 4 · l² · H)`, as in
/// ../shared/baselines/RESULTS.md §1 (embedding lookup, norms, softmax ignored).
fn minilm_flops(l: usize) -> f64 {
    let (l, h) = (l as f64, 384.0);
    6.0 * (l * 2.0 * (4.0 * h * h + 2.0 * h * 1536.0) + 4.0 * l * l * h)
}

fn embed(a: &EmbedArgs) -> anyhow::Result<ExitCode> {
    use engine::embed::{Backend, BertEmbedder, Embedder, compose};
    let calibration = (a.backend == "auto").then(engine::embed::calibrate::prefer_bf16);
    let backend = match (a.backend.as_str(), calibration) {
        ("candle", _) => Backend::Candle,
        ("bf16", _) | (_, Some((true, _))) => Backend::FastBf16,
        _ => Backend::Fast,
    };
    let ran = match backend {
        Backend::Candle => "candle",
        Backend::FastBf16 => "bf16",
        Backend::Fast => "fast",
    };
    let model = BertEmbedder::load_with(&super::model::resolve(a.model.as_deref()), backend)?;
    let texts = read_snippets(&a.snippets, a.n)?;
    let (t, cpu0) = (Instant::now(), cpu_reading());
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let seqs: Vec<Vec<u32>> =
        model.tokenize_batch(&refs)?.iter().map(|t| compose(Space::Code, t, &[], model.identity(), 0)).collect();
    let tokenize_s = t.elapsed().as_secs_f64();
    let tokenize_cpu = cpu_since(cpu0.as_ref());
    let (out, embed_s, embed_cpu) = embed_passes(a, &model, &seqs)?;
    let best = embed_s + tokenize_s;
    // Tokenisation and the fastest pass, as the figure.
    let util = cpu_util(tokenize_cpu.zip(embed_cpu).map(|(a, b)| a + b), best);
    let tokens: usize = seqs.iter().map(Vec::len).sum();
    let flops: f64 = seqs.iter().map(|s| minilm_flops(s.len())).sum();
    let cos = a.reference.as_deref().map(|p| cosine_vs_reference(&out, p)).transpose()?;
    emit(serde_json::json!({"kind": "embed", "backend": a.backend, "backend_ran": ran,
        "elementwise_isa": engine::embed::kernels::elementwise_choice(),
        "bf16_kernel": (ran == "bf16").then(engine::embed::bf16::kernel_name).flatten(),
        "calibration": calibration.map(|c| c.1), "snippets": seqs.len(), "tokens": tokens,
        "seconds": best, "snippets_per_second": seqs.len() as f64 / best, "tokens_per_second": tokens as f64 / best,
        "useful_gflops": flops / best / 1e9, "threads": rayon::current_num_threads(), "cpu_util": util,
        "cos_min": cos.map(|c| c.0), "cos_mean": cos.map(|c| c.1)}))?;
    Ok(ExitCode::SUCCESS)
}

/// The `text` field of the first `n` lines of a JSONL file.
fn read_snippets(path: &Path, n: usize) -> anyhow::Result<Vec<String>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    text.lines()
        .take(n)
        .map(|l| Ok(serde_json::from_str::<serde_json::Value>(l)?["text"].as_str().unwrap_or_default().to_string()))
        .collect()
}

/// Embeds `seqs` in token-budget batches, `--repeats` times: the vectors (in `seqs` order),
/// the fastest pass in seconds and the CPU seconds of that pass.
fn embed_passes(
    a: &EmbedArgs,
    model: &engine::embed::BertEmbedder,
    seqs: &[Vec<u32>],
) -> anyhow::Result<(Vec<Vec<f32>>, f64, Option<f64>)> {
    use engine::embed::Embedder;
    let cfg = indexer::batch::BatchConfig { max_batch_tokens: a.max_batch_tokens, max_batch_items: a.max_batch_items };
    let batches = indexer::batch::plan(&seqs.iter().map(Vec::len).collect::<Vec<_>>(), &cfg);
    let mut out = vec![Vec::new(); seqs.len()];
    let (mut best, mut best_cpu) = (f64::MAX, None);
    for _ in 0..a.repeats.max(1) {
        let (t, cpu0) = (Instant::now(), cpu_reading());
        for b in &batches {
            let refs: Vec<&[u32]> = b.iter().map(|&i| seqs[i].as_slice()).collect();
            for (&i, v) in b.iter().zip(model.embed_tokens(&refs)?) {
                out[i] = v;
            }
        }
        let secs = t.elapsed().as_secs_f64();
        if secs < best {
            (best, best_cpu) = (secs, cpu_since(cpu0.as_ref()));
        }
    }
    Ok((out, best, best_cpu))
}

/// (min, mean) cosine between `out[i]` and row i of a float32 `.npy` matrix.
fn cosine_vs_reference(out: &[Vec<f32>], path: &Path) -> anyhow::Result<(f32, f32)> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        bail!("{}: not a .npy file", path.display());
    }
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = String::from_utf8_lossy(&bytes[10..10 + header_len]);
    if !header.contains("'<f4'") || header.contains("'fortran_order': True") {
        bail!("{}: expected little-endian float32 in C order", path.display());
    }
    let data: Vec<f32> =
        bytes[10 + header_len..].chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().expect("4"))).collect();
    let dim = out.first().map_or(0, Vec::len);
    if dim == 0 || data.len() < out.len() * dim {
        bail!("{}: has fewer rows than the snippets embedded", path.display());
    }
    let cos: Vec<f32> =
        out.iter().enumerate().map(|(i, v)| engine::distance::dot(v, &data[i * dim..(i + 1) * dim])).collect();
    Ok((cos.iter().copied().fold(1.0, f32::min), cos.iter().sum::<f32>() / cos.len() as f32))
}

fn ann(a: &AnnArgs) -> anyhow::Result<ExitCode> {
    if !a.reuse {
        let inputs = [a.base.as_path(), a.queries.as_path()];
        super::check_output("--index", &a.index, &inputs)?;
    }
    let (base, dim) = read_vecs(&a.base)?;
    let (queries, qdim) = read_vecs(&a.queries)?;
    if dim != qdim {
        bail!("base has {dim} dimensions but queries have {qdim}");
    }
    let gt = a.gt.as_deref().map(read_ivecs).transpose()?;
    if !a.reuse {
        let builder = match a.builder.as_str() {
            "hnsw_rs" => hnsw::Builder::HnswRs,
            "native-f32" => hnsw::Builder::NativeF32,
            _ => hnsw::Builder::Native,
        };
        let cfg = HnswConfig { m: a.m, ef_construction: a.ef_construction, builder, ..HnswConfig::default() };
        build(&a.index, base, dim, &cfg, a.quantize == "int8")?;
    }
    let t = Instant::now();
    let index = Index::open(&a.index)?;
    let open_ms = t.elapsed().as_secs_f64() * 1e3;
    emit(serde_json::json!({"kind": "open", "ms": open_ms, "vectors": index.len(), "file_bytes": index.file_len()}))?;
    let qs: Vec<&[f32]> = queries.chunks_exact(dim).collect();
    for &threads in &a.threads {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
        for &ef in &a.ef {
            sweep_point(a, &index, &qs, gt.as_deref(), (&pool, threads), ef)?;
        }
    }
    Ok(ExitCode::SUCCESS)
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
    let (mut best, mut util) = (f64::MAX, None);
    let mut results = Vec::new();
    for _ in 0..a.repeats.max(1) {
        let (t, cpu0) = (Instant::now(), cpu_reading());
        results = pool.install(|| qs.par_iter().map(|q| index.search(q, &p)).collect::<Result<Vec<_>, _>>())?;
        let secs = t.elapsed().as_secs_f64();
        if secs < best {
            (best, util) = (secs, cpu_util(cpu_since(cpu0.as_ref()), secs));
        }
    }
    let recall = gt.map(|g| recall_at(&results, g, a.k));
    emit(serde_json::json!({"kind": "search", "ef": ef, "threads": threads, "k": a.k,
        "qps": qs.len() as f64 / best, "recall": recall, "queries": qs.len(), "cpu_util": util}))
}

fn build(path: &Path, base: Vec<f32>, dim: usize, cfg: &HnswConfig, int8: bool) -> anyhow::Result<()> {
    let n = base.len() / dim;
    let (t, cpu0) = (Instant::now(), cpu_reading());
    let graph = hnsw::build(&base, dim, cfg)?;
    let secs = t.elapsed().as_secs_f64();
    emit(serde_json::json!({"kind": "build", "seconds": secs, "vectors_per_second": n as f64 / secs,
        "vectors": n, "m": cfg.m, "ef_construction": cfg.ef_construction, "builder": cfg.builder_name(),
        "threads": rayon::current_num_threads(), "cpu_util": cpu_util(cpu_since(cpu0.as_ref()), secs)}))?;
    let model =
        ModelMeta { name: "raw-vectors".into(), sha256: "none".into(), dim, pooling: "none".into(), max_seq_length: 0 };
    let text = TextMeta { rule: "none".into(), cause_max_tokens: 0, cause_field: "none".into() };
    let mut b = IndexBuilder::new(model, text).with_int8(int8);
    b.add_space(Space::CodeCause, base, graph, cfg)?;
    let docs: Vec<Record> = (0..n)
        .map(|i| Record { id: i.to_string(), language: "none".into(), project: "none".into(), ..Record::default() })
        .collect();
    b.write(path, &docs, serde_json::json!({"bench": "ann"}))?;
    Ok(())
}

fn recall_at(results: &[Vec<engine::Hit>], gt: &[Vec<u32>], k: usize) -> f64 {
    let found: usize =
        results.iter().zip(gt).map(|(r, g)| r.iter().filter(|h| g[..k.min(g.len())].contains(&h.row)).count()).sum();
    found as f64 / (results.len() * k) as f64
}

/// Reads TEXMEX `.fvecs`: returns the flat matrix and its dimension.
fn read_vecs(path: &Path) -> anyhow::Result<(Vec<f32>, usize)> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let dim = bytes.get(..4).map(|b| u32::from_le_bytes(b.try_into().expect("4")) as usize).unwrap_or(0);
    if dim == 0 || bytes.len() % (4 + 4 * dim) != 0 {
        bail!("{}: not an .fvecs file (dimension {dim}, {} bytes)", path.display(), bytes.len());
    }
    let v = bytes
        .chunks_exact(4 + 4 * dim)
        .flat_map(|r| r[4..].chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().expect("4"))))
        .collect();
    Ok((v, dim))
}

/// Reads TEXMEX `.ivecs`: one list of ids per query.
fn read_ivecs(path: &Path) -> anyhow::Result<Vec<Vec<u32>>> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let k = bytes.get(..4).map(|b| u32::from_le_bytes(b.try_into().expect("4")) as usize).unwrap_or(0);
    if k == 0 || bytes.len() % (4 + 4 * k) != 0 {
        bail!("{}: not an .ivecs file", path.display());
    }
    Ok(bytes
        .chunks_exact(4 + 4 * k)
        .map(|r| r[4..].chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().expect("4"))).collect())
        .collect())
}
