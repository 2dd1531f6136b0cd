//! `fixdex eval`: retrieval sanity checks on an existing index.
//!
//! For `--n` records drawn with a seeded generator it re-embeds the record's own buggy code
//! and root cause with the index's model and searches (self-retrieval: the record should come
//! back at rank 1), and compares HNSW top-10 with exact top-10 for the same query vectors
//! (recall@10 = |HNSW ∩ exact| / 10, averaged), reporting queries per second for both.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use engine::embed::Embedder;
use engine::{Index, SearchParams};
use rand::seq::index::sample;
use rand::{SeedableRng, rngs::StdRng};

/// Arguments of `fixdex eval`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The index file.
    index: std::path::PathBuf,
    /// Records to sample.
    #[arg(long, default_value_t = 1000)]
    n: usize,
    /// Seed of the sample.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Vector space to evaluate.
    #[arg(long, default_value = "code+cause")]
    space: String,
    /// HNSW beam width.
    #[arg(long, default_value_t = engine::hnsw::DEFAULT_EF_SEARCH)]
    ef: usize,
    /// Traverse with f32 vectors even when the index has int8 codes.
    #[arg(long)]
    no_int8: bool,
    /// Embedding model folder (must be the index's).
    #[arg(long, env = "FIXDEX_MODEL")]
    model: Option<std::path::PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `fixdex eval`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let index = Index::open(&args.index).with_context(|| format!("opening index {}", args.index.display()))?;
    let model = super::model::load(&super::model::resolve(args.model.as_deref()))?;
    index.check_model(&model)?;
    let space = args.space.parse()?;
    let rows = sample(&mut StdRng::seed_from_u64(args.seed), index.len(), args.n.min(index.len())).into_vec();
    let t = Instant::now();
    let mut queries = Vec::with_capacity(rows.len());
    for &r in &rows {
        let d = index.doc(r as u32)?;
        queries.push(model.embed_query(space, &d.buggy_code, &d.root_cause)?);
    }
    let embed_s = t.elapsed().as_secs_f64();
    let hnsw = SearchParams { space, k: 10, ef_search: args.ef, int8: !args.no_int8, ..SearchParams::default() };
    let exact = SearchParams { exact: true, ..hnsw.clone() };
    let (approx_hits, hnsw_s) =
        timed(|| queries.iter().map(|q| index.search(q, &hnsw)).collect::<Result<Vec<_>, _>>())?;
    let (exact_hits, exact_s) =
        timed(|| queries.iter().map(|q| index.search(q, &exact)).collect::<Result<Vec<_>, _>>())?;
    let n = rows.len().max(1) as f64;
    let rank1 = rows.iter().zip(&approx_hits).filter(|(r, h)| h.first().is_some_and(|h| h.row as usize == **r)).count();
    // A tie: another document scores the same as the record itself (identical text).
    let tied = rows.iter().zip(&approx_hits).filter(|(r, h)| {
        h.len() > 1
            && h[0].row as usize != **r
            && h.iter().any(|x| x.row as usize == **r && x.score >= h[0].score - 1e-6)
    });
    let tied = tied.count();
    let overlap: usize = approx_hits
        .iter()
        .zip(&exact_hits)
        .map(|(a, e)| a.iter().filter(|x| e.iter().any(|y| y.row == x.row)).count())
        .sum();
    let report = serde_json::json!({
        "index": args.index.display().to_string(), "space": space.name(), "n": rows.len(), "seed": args.seed,
        "ef_search": args.ef, "self_rank1": rank1 as f64 / n, "self_rank1_or_tie": (rank1 + tied) as f64 / n,
        "recall10": overlap as f64 / (10.0 * n).min(exact_hits.iter().map(Vec::len).sum::<usize>().max(1) as f64),
        "hnsw_qps": n / hnsw_s, "exact_qps": n / exact_s, "embed_queries_per_s": n / embed_s,
    });
    if args.json {
        out!("{report}")?;
    } else {
        out!("{}", serde_json::to_string_pretty(&report)?)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn timed<T>(f: impl FnOnce() -> engine::Result<T>) -> engine::Result<(T, f64)> {
    let t = Instant::now();
    let v = f()?;
    Ok((v, t.elapsed().as_secs_f64().max(1e-9)))
}
