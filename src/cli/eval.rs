//! `fixdex eval`: evaluations. `fixdex eval quixbugs` runs the repair workflow on the
//! QuixBugs benchmark (see [`super::quixbugs`]), `fixdex eval defects4j` on Defects4J bugs
//! (see [`super::defects4j`]); `fixdex eval report|compare|merge` work on their run folders
//! (see [`super::runs`]); `fixdex eval retrieval INDEX`, also spelled
//! `fixdex eval INDEX`, runs retrieval sanity checks on an existing index.
//!
//! Retrieval: for `--n` records drawn with a seeded generator it re-embeds the record's own buggy code
//! and root cause with the index's model and searches (self-retrieval: the record should come
//! back at rank 1), and compares HNSW top-10 with exact top-10 for the same query vectors
//! (recall@10 = |HNSW ∩ exact| / 10, averaged), reporting queries per second for both.
//! Queries are embedded by the index's own rule ([`Index::embed_query_lines`], with the
//! record's buggy lines from its diff, [`indexer::buggy_lines`], as the indexer used them
//! for rule `cause-first-window-v1`); records whose
//! text the space needs is blank are skipped and counted. Prints a short table (or one
//! JSON object with `--json`); a progress bar on stderr while embedding and searching.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use engine::{Index, SearchParams};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rand::seq::index::sample;
use rand::{SeedableRng, rngs::StdRng};

/// Arguments of `fixdex eval`: an evaluation, or the retrieval check's arguments directly
/// (`fixdex eval INDEX`, the spelling from before `eval quixbugs`).
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    #[command(subcommand)]
    what: Option<What>,
    #[command(flatten)]
    retrieval: RetrievalEvalArgs,
}

#[derive(Debug, clap::Subcommand)]
enum What {
    /// Retrieval sanity on an index: self-retrieval rank 1 and HNSW recall@10 vs exact (also
    /// spelled `fixdex eval INDEX`).
    Retrieval(RetrievalEvalArgs),
    /// The repair workflow on every QuixBugs program (`--check`: the benchmark check, no
    /// model).
    Quixbugs(Box<super::quixbugs::QuixbugsArgs>),
    /// The repair workflow on Defects4J bugs built from git without Docker (or set up by an
    /// installed Defects4J: `--d4j-home`), into a resumable run folder (`--check`: the gold
    /// check only).
    Defects4j(Box<super::defects4j::Defects4jArgs>),
    /// Re-grades a run folder's kept patches (no test run) and writes report.md and a
    /// self-contained report.html (tables per project and bug, a fixes-by-budget chart).
    Report(super::runs::ReportArgs),
    /// Compares two runs on the bugs both ran: fixes unique to each, McNemar's exact test,
    /// sign tests on validations and cost per bug.
    Compare(super::runs::CompareArgs),
    /// Merges the run folders of a sharded run (`--shard i/n`) into one.
    Merge(super::runs::MergeArgs),
}

/// Arguments of `fixdex eval retrieval` (and `fixdex eval INDEX`).
#[derive(Debug, clap::Args)]
pub struct RetrievalEvalArgs {
    /// The index file.
    #[arg(required = true)]
    index: Option<std::path::PathBuf>,
    /// Records to sample (at least 1; all of them when the index has fewer).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    n: u64,
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
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `fixdex eval`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    match &args.what {
        Some(What::Quixbugs(a)) => super::quixbugs::run(a),
        Some(What::Defects4j(a)) => super::defects4j::run(a),
        Some(What::Report(a)) => super::runs::report(a),
        Some(What::Compare(a)) => super::runs::compare(a),
        Some(What::Merge(a)) => super::runs::merge(a),
        Some(What::Retrieval(a)) => retrieval(a),
        None => retrieval(&args.retrieval),
    }
}

/// Query vectors of the sampled records (`rows`: their row numbers), in the index's rule.
struct Queries {
    rows: Vec<usize>,
    vectors: Vec<Vec<f32>>,
    sampled: usize,
    embed_s: f64,
}

/// Runs the retrieval sanity check.
fn retrieval(args: &RetrievalEvalArgs) -> anyhow::Result<ExitCode> {
    let path = args.index.as_deref().expect("clap: INDEX is required");
    let index = Index::open(path).with_context(|| format!("opening index {}", path.display()))?;
    let model = super::model::load(&super::model::resolve(args.model.as_deref()))?;
    index.check_model(&model)?;
    let space = args.space.parse()?;
    let sampled = sample(
        &mut StdRng::seed_from_u64(args.seed),
        index.len(),
        usize::try_from(args.n).unwrap_or(usize::MAX).min(index.len()),
    )
    .into_vec();
    let bar = bar(args.quiet, sampled.len() as u64, "embedding");
    let queries = embed_queries(&index, &model, space, &sampled, &bar)?;
    let hnsw = SearchParams { space, k: 10, ef_search: args.ef, int8: !args.no_int8, ..SearchParams::default() };
    let exact = SearchParams { exact: true, ..hnsw.clone() };
    let search = |p: &SearchParams, what: &str| {
        bar.reset();
        bar.set_length(queries.vectors.len() as u64);
        bar.set_message(what.to_string());
        let q = &queries.vectors;
        timed(|| q.iter().map(|q| index.search(q, p).inspect(|_| bar.inc(1))).collect::<Result<Vec<_>, _>>())
    };
    let approx = search(&hnsw, "HNSW search")?;
    let exact = search(&exact, "exact search")?;
    bar.finish_and_clear();
    let report = report(args, path, space, &queries, approx, exact);
    if args.json {
        out!("{report}")?;
    } else {
        print_table(&report)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Embeds the query of every sampled record whose text the space needs is not blank.
fn embed_queries(
    index: &Index,
    model: &engine::embed::BertEmbedder,
    space: engine::Space,
    sampled: &[usize],
    bar: &ProgressBar,
) -> anyhow::Result<Queries> {
    let t = Instant::now();
    let (mut rows, mut vectors) = (Vec::with_capacity(sampled.len()), Vec::with_capacity(sampled.len()));
    for &r in sampled {
        let d = index.doc(r as u32)?;
        bar.inc(1);
        if engine::query::check_query_text(space, &d.buggy_code, &d.root_cause).is_err() {
            continue;
        }
        // The document's own buggy lines, as the indexer found them for the window rule.
        let lines = indexer::buggy_lines::buggy_lines(&d.buggy_code, &d.fixed_code);
        vectors.push(index.embed_query_lines(model, space, (&d.buggy_code, &d.root_cause), lines)?);
        rows.push(r);
    }
    Ok(Queries { rows, vectors, sampled: sampled.len(), embed_s: t.elapsed().as_secs_f64() })
}

/// The report: self-retrieval at rank 1 (and with ties), recall@10 and speeds.
fn report(
    args: &RetrievalEvalArgs,
    path: &std::path::Path,
    space: engine::Space,
    queries: &Queries,
    (approx_hits, hnsw_s): (Vec<Vec<engine::Hit>>, f64),
    (exact_hits, exact_s): (Vec<Vec<engine::Hit>>, f64),
) -> serde_json::Value {
    let rows = &queries.rows;
    let n = rows.len().max(1) as f64;
    let rank1 = rows.iter().zip(&approx_hits).filter(|(r, h)| h.first().is_some_and(|h| h.row as usize == **r)).count();
    let tied = ties(rows, &approx_hits);
    let overlap: usize = approx_hits
        .iter()
        .zip(&exact_hits)
        .map(|(a, e)| a.iter().filter(|x| e.iter().any(|y| y.row == x.row)).count())
        .sum();
    serde_json::json!({
        "index": path.display().to_string(), "space": space.name(), "n": rows.len(), "seed": args.seed,
        "skipped_blank": queries.sampled - rows.len(),
        "ef_search": args.ef, "self_rank1": rank1 as f64 / n, "self_rank1_or_tie": (rank1 + tied) as f64 / n,
        "recall10": overlap as f64 / (10.0 * n).min(exact_hits.iter().map(Vec::len).sum::<usize>().max(1) as f64),
        "hnsw_qps": n / hnsw_s, "exact_qps": n / exact_s, "embed_queries_per_s": n / queries.embed_s,
    })
}

/// Queries whose record is not first but ties with the first: another document scores the
/// same as the record itself (identical text).
fn ties(rows: &[usize], hits: &[Vec<engine::Hit>]) -> usize {
    let tied = rows.iter().zip(hits).filter(|(r, h)| {
        h.len() > 1
            && h[0].row as usize != **r
            && h.iter().any(|x| x.row as usize == **r && x.score >= h[0].score - 1e-6)
    });
    tied.count()
}

/// A progress bar on stderr (hidden with `--quiet`, and by indicatif when stderr is not a
/// terminal).
fn bar(quiet: bool, len: u64, what: &str) -> ProgressBar {
    let target = if quiet { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() };
    let bar = ProgressBar::with_draw_target(Some(len), target);
    let style = ProgressStyle::with_template("{msg:>14} [{bar:30}] {pos}/{len} {per_sec} ETA {eta}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style.progress_chars("=> "));
    bar.set_message(what.to_string());
    bar
}

/// The report as aligned `name  value` lines.
fn print_table(r: &serde_json::Value) -> std::io::Result<()> {
    let f = |k: &str| r[k].as_f64().unwrap_or(f64::NAN);
    out!("index              {}", r["index"].as_str().unwrap_or_default())?;
    out!(
        "space              {}   ef_search {}   seed {}",
        r["space"].as_str().unwrap_or_default(),
        r["ef_search"],
        r["seed"]
    )?;
    out!("queries            {} ({} skipped: blank text)", r["n"], r["skipped_blank"])?;
    out!("self rank 1        {:.4} (with ties {:.4})", f("self_rank1"), f("self_rank1_or_tie"))?;
    out!("recall@10          {:.4} (HNSW vs exact)", f("recall10"))?;
    out!(
        "queries/s          HNSW {:.0}   exact {:.0}   embedding {:.1}",
        f("hnsw_qps"),
        f("exact_qps"),
        f("embed_queries_per_s")
    )
}

fn timed<T>(f: impl FnOnce() -> engine::Result<T>) -> engine::Result<(T, f64)> {
    let t = Instant::now();
    let v = f()?;
    Ok((v, t.elapsed().as_secs_f64().max(1e-9)))
}
