//! `fixdex index`: build an index from corpus files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use engine::Space;
use engine::embed::BertEmbedder;
use engine::hnsw::{Builder, HnswConfig};
use indexer::batch::BatchConfig;
use indexer::build::{BuildOptions, BuildStats, OnError, build_index};
use indexer::corpus::{Format, ReadOptions};
use indexer::exclude::Exclusions;
use indexer::shard::{SHARD_PLACEHOLDER, Shard};

use self::summary::{
    Precision, note_empty_shard, print_summary, warn_conflicts, warn_no_cause, warn_unmatched_exclusions,
};
use super::progress::Bars;

mod append;
mod summary;

/// Arguments of `fixdex index`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Corpus files, one bug-fix pair per row, in any of three formats, told by the
    /// extension: JSONL (.jsonl, .ndjson, .json), Parquet (.parquet, .pq) or Arrow IPC, file
    /// or stream (.arrow, .ipc, .feather); --format for other names.
    #[arg(required = true)]
    corpus: Vec<PathBuf>,
    /// The index file to write (replaced atomically; an existing index survives a failed build).
    /// With --shard, `{shard}` in the path becomes the zero-padded shard index. The folder
    /// must exist and be writable; this is checked before any work.
    #[arg(short, long, required_unless_present = "append", conflicts_with = "append")]
    output: Option<PathBuf>,
    /// Add the corpus to an existing index (file or manifest) instead of building a new one:
    /// only records whose ids INDEX does not hold are embedded; they become a new segment in
    /// INDEX.segments/ and INDEX is replaced by a manifest of all segments (one atomic rename;
    /// readers see the old or the new state). Spaces, embedding rule, int8 and graph settings
    /// come from INDEX. A missing INDEX is built as usual. Merge segments with `fixdex compact`.
    #[arg(long, value_name = "INDEX", conflicts_with = "shard")]
    append: Option<PathBuf>,
    /// Index one shard of the corpus: `i/n`, or `auto/n` to take i from JOB_COMPLETION_INDEX
    /// (Kubernetes Indexed Job) or SLURM_ARRAY_TASK_ID (Slurm array). Records go to shard
    /// FNV-1a(id) mod n. Combine the segments with `fixdex manifest`.
    #[arg(long, value_name = "I/N", value_parser = shard_flag)]
    shard: Option<String>,
    /// Input format of every corpus file, when the extension does not tell: jsonl (JSON
    /// Lines), parquet (Apache Parquet) or arrow (Arrow IPC file or stream).
    #[arg(long, value_parser = ["jsonl", "parquet", "arrow"])]
    format: Option<String>,
    /// Field used as the root cause [default: root_cause when present, else description].
    #[arg(long, value_name = "NAME")]
    cause_field: Option<String>,
    /// What to do with an invalid record: stop the build, or skip it and list it in the report.
    #[arg(long, default_value = "abort", value_parser = ["abort", "skip"])]
    on_error: String,
    /// Where skipped, duplicate and excluded rows are listed [default: OUTPUT.report.jsonl].
    /// With --shard, `{shard}` in the path becomes the zero-padded shard index.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Ids (one per line) or `project:NAME` lines to leave out, e.g. the benchmark's own bugs.
    #[arg(long, value_name = "FILE")]
    exclude: Vec<PathBuf>,
    /// Vector spaces to build, comma-separated: code+cause, code, cause.
    #[arg(long, default_value = "code+cause")]
    spaces: String,
    /// Embedding model folder (Hugging Face format) [default: data/models/all-MiniLM-L6-v2].
    #[arg(long, env = "FIXDEX_MODEL")]
    model: Option<PathBuf>,
    /// Precision of the embedding model's projections: `f32` (default, reproducible to
    /// ~1e-7), `bf16` (cosine ≥ 0.999 to f32 on the reference snippets; needs AVX512_BF16;
    /// ~3x faster on Intel CPUs with AMX, 1.5x on AMD Zen 4, slower on Intel without AMX) or
    /// `auto`: time both on this CPU first (~0.1 s) and run bf16 only when it is at least
    /// 1.1x as fast; the choice, the measured GFLOP/s and the bf16 kernel are printed and in
    /// --json.
    #[arg(long, default_value = "f32", value_parser = ["auto", "f32", "bf16"])]
    precision: String,
    /// HNSW: neighbours per node on upper levels (level 0 keeps 2·M), 2 to 128.
    #[arg(long, default_value_t = HnswConfig::default().m, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..=128))]
    m: usize,
    /// HNSW: beam width while building (at least 1).
    #[arg(long, default_value_t = HnswConfig::default().ef_construction, value_parser = at_least(1))]
    ef_construction: usize,
    /// Also store int8 codes of the vectors for graph traversal (4× less memory touched;
    /// the candidates are reranked with the f32 vectors, so scores stay exact): `int8` or
    /// `none` (f32 only, a smaller file).
    #[arg(long, default_value = "int8", value_parser = ["none", "int8"])]
    quantize: String,
    /// HNSW graph builder: `native` (fixdex's own, parallel; traverses int8 codes while
    /// inserting, selects neighbours in f32), `native-f32` (the same, f32 throughout, ~1.3×
    /// slower at the same recall) or `hnsw_rs`.
    #[arg(long, default_value = "native", value_parser = ["native", "native-f32", "hnsw_rs"])]
    builder: String,
    /// Embedding batch limit in padded tokens (items × longest sequence; at least 1).
    #[arg(long, default_value_t = BatchConfig::default().max_batch_tokens, value_parser = at_least(1))]
    max_batch_tokens: usize,
    /// Embedding batch limit in sequences (at least 1).
    #[arg(long, default_value_t = BatchConfig::default().max_batch_items, value_parser = at_least(1))]
    max_batch_items: usize,
    /// Root-cause tokens kept before the code in the code+cause space (at least 1, at most
    /// the model's sequence length).
    #[arg(long, default_value_t = engine::embed::CAUSE_MAX_TOKENS, value_parser = at_least(1))]
    cause_max_tokens: usize,
    /// How the embedded text is composed: `window-v1` (rule cause-first-window-v1: a long
    /// method is embedded as its signature plus the lines around those its fix changes) or
    /// `v1` (rule cause-first-v1: the code's first tokens). Short methods embed the same
    /// under both.
    #[arg(long, default_value = "window-v1", value_parser = ["window-v1", "v1", "cause-first-window-v1", "cause-first-v1"])]
    embed_rule: String,
    /// No progress (no bars on a terminal, no progress lines on another stderr).
    #[arg(long, short)]
    quiet: bool,
    /// Print the final statistics as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `fixdex index`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let opts = options(args)?;
    check_excludes(args, &opts)?;
    match &args.append {
        Some(index) => append::run(args, index, opts),
        None => build(args, &opts),
    }
}

/// Builds a new index (`-o`) and prints its summary.
fn build(args: &Args, opts: &BuildOptions) -> anyhow::Result<ExitCode> {
    indexer::build::check_outputs(opts).map_err(|e| with_hint(e, opts))?;
    // A second `index -o` (or an `--append`) on this output is refused while this one runs.
    let _lock = super::lock_output("-o", &engine::output::target(&opts.output)?)?;
    let (precision, model) = load_model(args)?;
    check_cause_budget(opts, &model)?;
    let bars = Bars::new(args.quiet, args.json);
    let stats = build_index(opts, &model, &bars).map_err(|e| with_hint(e, opts))?;
    bars.clear();
    warn(opts, &stats);
    report(args, opts, &stats, &precision)?;
    Ok(ExitCode::SUCCESS)
}

/// The warnings and notes of a build on stderr: conflicting ids, an empty shard.
fn warn(opts: &BuildOptions, stats: &BuildStats) {
    warn_conflicts(stats);
    warn_unmatched_exclusions(stats);
    warn_no_cause(opts, stats);
    if stats.empty {
        note_empty_shard(opts, stats);
    }
}

/// The build's statistics: one JSON object with `--json`, else the summary lines.
fn report(args: &Args, opts: &BuildOptions, stats: &BuildStats, precision: &Precision) -> anyhow::Result<()> {
    if args.json {
        out!("{}", serde_json::to_string(&precision.json_of(stats)?)?)?;
    } else {
        print_summary(opts, stats)?;
        out!("  {}", precision.describe())?;
    }
    Ok(())
}

/// Refuses a `--cause-max-tokens` longer than the model's whole sequence in the
/// `code+cause` space: it cannot mean anything (the cause is cut to the sequence anyway,
/// [`engine::embed::window::code_budget`], and a long one leaves the code nothing).
///
/// # Errors
/// A usage error (exit 2) naming the model's sequence length, before anything is read or
/// written.
fn check_cause_budget(opts: &BuildOptions, model: &dyn engine::embed::Embedder) -> anyhow::Result<()> {
    let max_seq = model.identity().max_seq_length;
    if opts.spaces.contains(&engine::Space::CodeCause) && opts.cause_max_tokens > max_seq {
        return Err(super::exit::Usage(format!(
            "--cause-max-tokens {} is longer than the model's sequence ({max_seq} tokens, the code included): \
             give at most {max_seq}, and less to keep room for the code",
            opts.cause_max_tokens
        ))
        .into());
    }
    Ok(())
}

/// The precision `--precision` chooses and the model from `--model` loaded with it.
///
/// # Errors
/// The model cannot be loaded (or needs bf16 the CPU lacks), with the folder named.
fn load_model(args: &Args) -> anyhow::Result<(Precision, BertEmbedder)> {
    let model_dir = super::model::resolve(args.model.as_deref());
    let precision = Precision::choose(&args.precision);
    let model = super::model::load_with(&model_dir, precision.bf16)?;
    Ok((precision, model))
}

/// The build options from the flags (with `--shard`, `{shard}` replaced in the paths).
///
/// # Errors
/// A bad `--shard`, `--format`, `--spaces` or `--embed-rule`, an `--exclude` file that cannot
/// be read, `{shard}` without `--shard`, a batch limit of 0.
fn options(args: &Args) -> anyhow::Result<BuildOptions> {
    let shard = args.shard.as_deref().map(str::parse::<Shard>).transpose()?;
    if shard.is_none() {
        refuse_placeholder(args)?;
    }
    let templated = |p: &Path| shard.map_or_else(|| p.to_path_buf(), |s| s.apply_to_path(p));
    let output = args.output.as_ref().or(args.append.as_ref()).expect("clap requires -o or --append");
    let mut opts = BuildOptions::new(args.corpus.clone(), templated(output));
    opts.shard = shard;
    opts.format = args.format.as_deref().map(str::parse::<Format>).transpose()?;
    opts.read = ReadOptions { cause_field: args.cause_field.clone() };
    opts.on_error = if args.on_error == "skip" { OnError::Skip } else { OnError::Abort };
    opts.report = args.report.as_deref().map(templated);
    opts.exclusions = exclusions(args)?;
    set_embedding(args, &mut opts)?;
    Ok(opts)
}

/// A `usize` flag's parser that refuses values below `min` (exit 2, as clap's own errors),
/// saying so: `invalid value '0' for '--m <M>': must be at least 1`.
pub(crate) fn at_least(min: usize) -> impl Fn(&str) -> Result<usize, String> + Clone + Send + Sync + 'static {
    move |s: &str| match s.trim().parse::<usize>() {
        Ok(n) if n < min => Err(format!("must be at least {min}")),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// `--shard`'s parser: `i/n` or `auto/n` ([`Shard`]), checked when the flags are parsed so
/// that a bad one is a usage error (exit 2).
pub(crate) fn shard_flag(s: &str) -> Result<String, String> {
    s.parse::<Shard>().map(|_| s.to_string()).map_err(|e| e.to_string())
}

/// The `--exclude` files' ids and projects.
fn exclusions(args: &Args) -> anyhow::Result<Exclusions> {
    let mut all = Exclusions::default();
    for f in &args.exclude {
        all.extend(Exclusions::read(f).with_context(|| format!("--exclude {}", f.display()))?);
    }
    Ok(all)
}

/// Sets the spaces, graph, batch and text settings of `opts` from the flags.
fn set_embedding(args: &Args, opts: &mut BuildOptions) -> anyhow::Result<()> {
    opts.spaces = Space::parse_list(&args.spaces)?;
    let builder = Builder::from_flag(&args.builder);
    opts.hnsw = HnswConfig { m: args.m, ef_construction: args.ef_construction, builder, ..HnswConfig::default() };
    opts.batch = batch(args)?;
    opts.cause_max_tokens = args.cause_max_tokens;
    opts.rule = args.embed_rule.parse()?;
    opts.int8 = args.quantize == "int8";
    Ok(())
}

/// The embedding batch limits from the flags.
///
/// # Errors
/// A limit of 0.
fn batch(args: &Args) -> anyhow::Result<BatchConfig> {
    if args.max_batch_items == 0 || args.max_batch_tokens == 0 {
        anyhow::bail!("--max-batch-tokens and --max-batch-items must be at least 1");
    }
    Ok(BatchConfig { max_batch_tokens: args.max_batch_tokens, max_batch_items: args.max_batch_items })
}

/// Refuses an index or report path that is one of the `--exclude` files (the corpus files
/// are checked with the outputs, [`indexer::build::check_outputs`]).
fn check_excludes(args: &Args, opts: &BuildOptions) -> anyhow::Result<()> {
    let excludes: Vec<&Path> = args.exclude.iter().map(PathBuf::as_path).collect();
    let flag = if args.append.is_some() { "--append" } else { "-o" };
    super::check_output(flag, &opts.output, &excludes)?;
    super::check_output("--report", &opts.report_path(), &excludes)?;
    Ok(())
}

/// Refuses `{shard}` in `-o` or `--report` of a build without `--shard`, where it would be
/// written literally.
fn refuse_placeholder(args: &Args) -> anyhow::Result<()> {
    for (flag, path) in [("-o", args.output.as_ref()), ("--report", args.report.as_ref())] {
        if let Some(p) = path.filter(|p| p.to_string_lossy().contains(SHARD_PLACEHOLDER)) {
            anyhow::bail!(
                "{flag} {}: `{SHARD_PLACEHOLDER}` is replaced only in sharded builds; pass --shard I/N (or \
                 auto/N), or choose a path without it",
                p.display()
            );
        }
    }
    Ok(())
}

/// `e` with what happened to the output and, for an invalid row, what to do.
fn with_hint(e: indexer::Error, opts: &BuildOptions) -> anyhow::Error {
    let hint = hint(&e, opts.on_error);
    anyhow::Error::new(e).context(format!("indexing into {} failed ({hint})", opts.output.display()))
}

/// What happened to the output after `e`, and, for an invalid row met under
/// `--on-error abort`, what to do.
fn hint(e: &indexer::Error, on_error: OnError) -> &'static str {
    match (e, on_error) {
        (indexer::Error::Row { .. }, OnError::Abort) => {
            "nothing was written; fix the record or pass --on-error skip to skip invalid records"
        }
        _ => "no index was written; an existing index at the output path is unchanged",
    }
}
