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
//!
//! The readers, host facts, CPU readings and figures live in [`engine::bench`]; this module
//! parses the flags, times the passes and prints the lines.

mod ann;
mod embed;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use engine::Index;
use engine::bench::{CpuReading, Host, cpu::rss_mb, measure::cpu_util};

/// Arguments of `fixdex bench`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(Debug, clap::Subcommand)]
enum What {
    /// Build an index over raw vectors and sweep ef_search × threads.
    Ann(ann::AnnArgs),
    /// Embedding throughput on a JSONL file of snippets (`{"text": ...}` per line).
    Embed(embed::EmbedArgs),
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

/// Runs `fixdex bench`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    match &args.what {
        What::Ann(a) => ann::run(a),
        What::Embed(a) => embed::run(a),
        What::Open(a) => open(a),
        What::Quixbugs(a) => super::quixbugs::run_deprecated(a),
    }
}

/// `fixdex bench open`: the fastest and the first of `--repeats` opens, and the resident
/// memory before and after.
fn open(a: &OpenArgs) -> anyhow::Result<ExitCode> {
    let rss_before = rss_mb();
    let (index, best, first) = open_repeatedly(&a.index, a.repeats)?;
    emit(serde_json::json!({"kind": "open", "index": a.index.display().to_string(), "vectors": index.len(),
        "file_bytes": index.file_len(), "open_ms_best": best, "open_ms_first": first,
        "rss_mb_before": rss_before, "rss_mb_after_open": rss_mb()}))?;
    Ok(ExitCode::SUCCESS)
}

/// Opens `path` `repeats` times (at least once): the last index opened, the fastest open
/// and the first, in milliseconds.
fn open_repeatedly(path: &Path, repeats: usize) -> anyhow::Result<(Index, f64, f64)> {
    let (mut best, mut first, mut keep) = (f64::MAX, 0.0, None);
    for i in 0..repeats.max(1) {
        let (index, ms) = open_timed(path)?;
        if i == 0 {
            first = ms;
        }
        best = best.min(ms);
        keep = Some(index);
    }
    Ok((keep.expect("at least one open"), best, first))
}

/// Opens the index at `path`: it and the milliseconds the open took.
fn open_timed(path: &Path) -> anyhow::Result<(Index, f64)> {
    let t = Instant::now();
    let index = Index::open(path)?;
    Ok((index, t.elapsed().as_secs_f64() * 1e3))
}

/// Prints one measurement as a JSON line, with the [`Host`] object added as `host`.
fn emit(mut line: serde_json::Value) -> anyhow::Result<()> {
    if let Some(obj) = line.as_object_mut() {
        obj.insert("host".into(), serde_json::to_value(Host::get())?);
    }
    out!("{line}")?;
    Ok(())
}

/// The wall time and CPU time of one timed pass.
#[derive(Debug, Clone, Copy)]
struct Pass {
    /// Wall-clock seconds.
    secs: f64,
    /// CPU seconds of all threads ([`CpuReading::since`]), when `/proc` says.
    cpu: Option<f64>,
}

impl Pass {
    /// CPU utilisation of the pass ([`cpu_util`]).
    fn util(&self) -> Option<f64> {
        cpu_util(self.cpu, self.secs)
    }
}

/// Runs `f` once, timed: its value and the [`Pass`].
fn timed<T>(f: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<(T, Pass)> {
    let (t, cpu0) = (Instant::now(), CpuReading::now());
    let value = f()?;
    Ok((value, Pass { secs: t.elapsed().as_secs_f64(), cpu: CpuReading::since(cpu0.as_ref()) }))
}

/// The bytes of the file at `path`.
///
/// # Errors
/// `reading PATH`, caused by the I/O error.
fn read(path: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("reading {}", path.display()))
}

/// Parses the file at `path` with `parse` ([`engine::bench::vecs`]).
///
/// # Errors
/// As [`read`]; a parse error as `PATH: what is wrong`.
fn parse_file<T>(path: &Path, parse: impl FnOnce(&[u8]) -> engine::Result<T>) -> anyhow::Result<T> {
    parse(&read(path)?).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}
