//! `fixdex bench embed`: embedding throughput on snippet JSONL, with the backend chosen on
//! the command line, and cosine agreement with reference embeddings when given.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use engine::Space;
use engine::bench::{measure, vecs};
use engine::embed::calibrate::Calibration;
use engine::embed::{Backend, BertEmbedder, Embedder, compose};
use indexer::batch::BatchConfig;

use super::{JsonFlag, Pass, emit, parse_file, timed};

/// Arguments of `fixdex bench embed`.
#[derive(Debug, clap::Args)]
pub(super) struct EmbedArgs {
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
    #[arg(long, default_value_t = BatchConfig::default().max_batch_tokens)]
    max_batch_tokens: usize,
    /// Batch limit in sequences.
    #[arg(long, default_value_t = BatchConfig::default().max_batch_items)]
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

/// The backend that runs and, for `--backend auto`, the timing that chose it.
struct Choice {
    backend: Backend,
    calibration: Option<Calibration>,
}

/// What one run measured: the sequences embedded, the tokenisation and the fastest pass,
/// and the (min, mean) cosine to `--reference`.
struct Measured {
    seqs: Vec<Vec<u32>>,
    tokenize: Pass,
    embed: Pass,
    cos: Option<(f32, f32)>,
}

/// Runs `fixdex bench embed`.
pub(super) fn run(a: &EmbedArgs) -> anyhow::Result<ExitCode> {
    let choice = choose(&a.backend);
    let model = BertEmbedder::load_with(&crate::cli::model::resolve(a.model.as_deref()), choice.backend)?;
    let texts = read_snippets(a)?;
    let (seqs, tokenize) = timed(|| tokenize(&model, &texts))?;
    let (out, embed) = embed_passes(a, &model, &seqs)?;
    let cos = cosine(a, &out)?;
    emit(line(a, &choice, &Measured { seqs, tokenize, embed, cos }))?;
    Ok(ExitCode::SUCCESS)
}

/// The first `--n` texts of `--snippets` ([`vecs::parse_snippets`]).
///
/// # Errors
/// `reading PATH` caused by the I/O error; the JSON error of a line that is not JSON.
fn read_snippets(a: &EmbedArgs) -> anyhow::Result<Vec<String>> {
    let path = &a.snippets;
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(vecs::parse_snippets(&text, a.n)?)
}

/// (min, mean) cosine of `out` to `--reference` ([`measure::cosine_min_mean`]), `None`
/// without it.
///
/// # Errors
/// A reference that cannot be read, is not float32 `.npy`, or has too few rows (`PATH: ...`).
fn cosine(a: &EmbedArgs, out: &[Vec<f32>]) -> anyhow::Result<Option<(f32, f32)>> {
    let Some(path) = a.reference.as_deref() else { return Ok(None) };
    let reference = parse_file(path, vecs::parse_npy_f32)?;
    let cos = measure::cosine_min_mean(out, &reference).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    Ok(Some(cos))
}

/// The backend `--backend` names; `auto` times both projections first
/// ([`engine::embed::calibrate::prefer_bf16`]).
fn choose(flag: &str) -> Choice {
    let calibration = (flag == "auto").then(engine::embed::calibrate::prefer_bf16);
    let backend = match (flag, calibration) {
        ("candle", _) => Backend::Candle,
        ("bf16", _) | (_, Some((true, _))) => Backend::FastBf16,
        _ => Backend::Fast,
    };
    Choice { backend, calibration: calibration.map(|c| c.1) }
}

/// The `backend_ran` name of `backend`.
fn ran(backend: Backend) -> &'static str {
    match backend {
        Backend::Candle => "candle",
        Backend::FastBf16 => "bf16",
        Backend::Fast => "fast",
    }
}

/// The token sequences of `texts` in the code space, as the index embeds them.
fn tokenize(model: &BertEmbedder, texts: &[String]) -> anyhow::Result<Vec<Vec<u32>>> {
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let seqs = model.tokenize_batch(&refs)?;
    Ok(seqs.iter().map(|t| compose(Space::Code, t, &[], model.identity(), 0)).collect())
}

/// Embeds `seqs` in token-budget batches, `--repeats` times: the vectors (in `seqs` order)
/// and the fastest pass.
fn embed_passes(a: &EmbedArgs, model: &BertEmbedder, seqs: &[Vec<u32>]) -> anyhow::Result<(Vec<Vec<f32>>, Pass)> {
    let cfg = BatchConfig { max_batch_tokens: a.max_batch_tokens, max_batch_items: a.max_batch_items };
    let batches = indexer::batch::plan(&seqs.iter().map(Vec::len).collect::<Vec<_>>(), &cfg);
    let mut out = vec![Vec::new(); seqs.len()];
    let mut best: Option<Pass> = None;
    for _ in 0..a.repeats.max(1) {
        let ((), pass) = timed(|| embed_batches(model, seqs, &batches, &mut out))?;
        if best.is_none_or(|b| pass.secs < b.secs) {
            best = Some(pass);
        }
    }
    Ok((out, best.expect("at least one pass")))
}

/// Embeds every batch (indices into `seqs`), writing each vector to its place in `out`.
fn embed_batches(
    model: &BertEmbedder,
    seqs: &[Vec<u32>],
    batches: &[Vec<usize>],
    out: &mut [Vec<f32>],
) -> anyhow::Result<()> {
    for b in batches {
        let refs: Vec<&[u32]> = b.iter().map(|&i| seqs[i].as_slice()).collect();
        for (&i, v) in b.iter().zip(model.embed_tokens(&refs)?) {
            out[i] = v;
        }
    }
    Ok(())
}

/// The JSON line of the run: throughput over tokenisation plus the fastest pass.
fn line(a: &EmbedArgs, choice: &Choice, m: &Measured) -> serde_json::Value {
    let ran = ran(choice.backend);
    let best = m.embed.secs + m.tokenize.secs;
    let util = measure::cpu_util(m.tokenize.cpu.zip(m.embed.cpu).map(|(a, b)| a + b), best);
    let tokens: usize = m.seqs.iter().map(Vec::len).sum();
    let flops: f64 = m.seqs.iter().map(|s| measure::minilm_flops(s.len())).sum();
    serde_json::json!({"kind": "embed", "backend": a.backend, "backend_ran": ran,
        "elementwise_isa": engine::embed::kernels::elementwise_choice(),
        "bf16_kernel": (ran == "bf16").then(engine::embed::bf16::kernel_name).flatten(),
        "calibration": choice.calibration, "snippets": m.seqs.len(), "tokens": tokens,
        "seconds": best, "snippets_per_second": m.seqs.len() as f64 / best, "tokens_per_second": tokens as f64 / best,
        "useful_gflops": flops / best / 1e9, "threads": rayon::current_num_threads(), "cpu_util": util,
        "cos_min": m.cos.map(|c| c.0), "cos_mean": m.cos.map(|c| c.1)})
}
