//! `fixdex index`: build an index from corpus files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use engine::Space;
use engine::hnsw::{Builder, HnswConfig};
use indexer::batch::BatchConfig;
use indexer::build::{BuildOptions, BuildStats, OnError, build_index};
use indexer::corpus::{Format, ReadOptions};
use indexer::exclude::Exclusions;
use indexer::shard::{SHARD_PLACEHOLDER, Shard};

use super::progress::Bars;

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
    #[arg(long, value_name = "I/N")]
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
    /// HNSW: neighbours per node on upper levels (level 0 keeps 2·M).
    #[arg(long, default_value_t = HnswConfig::default().m)]
    m: usize,
    /// HNSW: beam width while building.
    #[arg(long, default_value_t = HnswConfig::default().ef_construction)]
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
    /// Embedding batch limit in padded tokens (items × longest sequence).
    #[arg(long, default_value_t = BatchConfig::default().max_batch_tokens)]
    max_batch_tokens: usize,
    /// Embedding batch limit in sequences.
    #[arg(long, default_value_t = BatchConfig::default().max_batch_items)]
    max_batch_items: usize,
    /// Root-cause tokens kept before the code in the code+cause space.
    #[arg(long, default_value_t = engine::embed::CAUSE_MAX_TOKENS)]
    cause_max_tokens: usize,
    /// How the embedded text is composed: `window-v1` (rule cause-first-window-v1: a long
    /// method is embedded as its signature plus the lines around those its fix changes) or
    /// `v1` (rule cause-first-v1: the code's first tokens). Short methods embed the same
    /// under both.
    #[arg(long, default_value = "window-v1", value_parser = ["window-v1", "v1", "cause-first-window-v1", "cause-first-v1"])]
    embed_rule: String,
    /// No progress bars.
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
    if let Some(index) = &args.append {
        return run_append(args, index, opts);
    }
    indexer::build::check_outputs(&opts).map_err(|e| with_hint(e, &opts))?;
    // A second `index -o` (or an `--append`) on this output is refused while this one runs.
    let _lock = super::lock_output("-o", &engine::output::target(&opts.output)?)?;
    let model_dir = super::model::resolve(args.model.as_deref());
    let precision = Precision::choose(&args.precision);
    let model = super::model::load_with(&model_dir, precision.bf16)?;
    let bars = Bars::new(args.quiet || args.json);
    let stats = build_index(&opts, &model, &bars).map_err(|e| with_hint(e, &opts))?;
    bars.clear();
    warn_conflicts(&stats);
    if stats.empty {
        let shard = opts.shard.map(|s| format!("{}/{}", s.index, s.count)).unwrap_or_default();
        eprintln!(
            "note: shard {shard} received no records ({} belong to other shards); wrote an empty segment to {} \
             (0 documents), which `fixdex manifest` and `fixdex search` accept",
            stats.other_shards,
            opts.output.display()
        );
    }
    if args.json {
        let mut v = serde_json::to_value(&stats)?;
        precision.add_to(&mut v);
        out!("{}", serde_json::to_string(&v)?)?;
    } else {
        print_summary(&opts, &stats)?;
        out!("  {}", precision.describe())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The projections' precision for this run (`--precision`), and the measurement behind an
/// `auto` choice ([`engine::embed::calibrate`]).
struct Precision {
    bf16: bool,
    calibration: Option<engine::embed::calibrate::Calibration>,
}

impl Precision {
    fn choose(flag: &str) -> Precision {
        match flag {
            "auto" => {
                let (bf16, c) = engine::embed::calibrate::prefer_bf16();
                Precision { bf16, calibration: Some(c) }
            }
            p => Precision { bf16: p == "bf16", calibration: None },
        }
    }

    fn name(&self) -> &'static str {
        if self.bf16 { "bf16" } else { "f32" }
    }

    /// Adds `precision` and, for `auto`, `calibration` to the statistics object.
    fn add_to(&self, v: &mut serde_json::Value) {
        v["precision"] = self.name().into();
        if let Some(c) = &self.calibration {
            v["calibration"] = serde_json::to_value(c).unwrap_or_default();
        }
    }

    /// One line for the summary.
    fn describe(&self) -> String {
        match &self.calibration {
            None => format!("precision: {}", self.name()),
            Some(c) => format!(
                "precision: {} (auto: projection {:.1} GFLOP/s in f32, {} in bf16 on one core of this CPU)",
                self.name(),
                c.f32_gflops,
                c.bf16_gflops.map_or_else(
                    || "not available".to_string(),
                    |b| format!("{b:.1} GFLOP/s ({})", c.bf16_kernel.unwrap_or("?"))
                )
            ),
        }
    }
}

/// `fixdex index --append INDEX` ([`indexer::append`]).
fn run_append(args: &Args, index: &Path, mut opts: BuildOptions) -> anyhow::Result<ExitCode> {
    if let Some(rule) = check_append_flags(args, index)? {
        opts.rule = rule; // for the summary: the rule the segment is embedded with
    }
    let model_dir = super::model::resolve(args.model.as_deref());
    let precision = Precision::choose(&args.precision);
    let model = super::model::load_with(&model_dir, precision.bf16)?;
    let bars = Bars::new(args.quiet || args.json);
    let hint = "nothing was published; the index is unchanged";
    let stats = indexer::append::append(index, opts.clone(), &model, &bars)
        .map_err(|e| anyhow::Error::new(e).context(format!("appending to {} failed ({hint})", index.display())))?;
    bars.clear();
    warn_conflicts(&stats.build);
    if args.json {
        let mut v = serde_json::to_value(&stats)?;
        precision.add_to(&mut v);
        out!("{}", serde_json::to_string(&v)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let b = &stats.build;
    match &stats.segment {
        Some(seg) => out!(
            "appended {} bug-fix pairs to {} as segment {} ({} already indexed, skipped); it now has {} segments, {} documents",
            b.indexed,
            index.display(),
            seg.display(),
            b.already_indexed,
            stats.segments,
            stats.documents
        )?,
        None if b.already_indexed > 0 && b.indexed == 0 => out!(
            "nothing to append to {}: all {} records are already indexed; the index is unchanged ({} documents)",
            index.display(),
            b.already_indexed,
            stats.documents
        )?,
        None => out!("{} did not exist: built it with {} bug-fix pairs", index.display(), b.indexed)?,
    }
    if b.indexed > 0 {
        let mut shown = opts;
        shown.output = stats.segment.clone().unwrap_or_else(|| index.to_path_buf());
        print_details(&shown, b)?;
        out!("  {}", precision.describe())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses build settings given with `--append` that differ from the existing index's
/// (an append always uses the index's: segments must agree). Only values other than the
/// flags' defaults count as given. Returns the index's embedding rule, or `None` when
/// INDEX does not exist yet (a plain build).
fn check_append_flags(args: &Args, index: &Path) -> anyhow::Result<Option<engine::embed::Rule>> {
    if !index.exists() {
        return Ok(None);
    }
    let segments = engine::Segments::open(index).with_context(|| format!("opening {}", index.display()))?;
    let first = &segments.indexes()[0];
    let meta = first.meta();
    let space = meta.spaces.first();
    let names = |v: Vec<Space>| v.iter().map(|s| s.name()).collect::<Vec<_>>().join(",");
    let defaults = HnswConfig::default();
    let rule: engine::embed::Rule = args.embed_rule.parse()?;
    let recorded = engine::embed::Rule::from_recorded(&meta.text.rule);
    let int8 = meta.spaces.iter().any(|s| s.quantization.is_some());
    let conflicts = [
        (
            "--spaces",
            args.spaces != "code+cause" && Space::parse_list(&args.spaces)? != first.spaces(),
            names(first.spaces()),
        ),
        ("--quantize", args.quantize == "none" && int8, "int8".to_string()),
        (
            "--cause-field",
            args.cause_field.as_ref().is_some_and(|f| *f != meta.text.cause_field),
            meta.text.cause_field.clone(),
        ),
        (
            "--m",
            args.m != defaults.m && space.is_some_and(|s| s.hnsw.m != args.m),
            space.map_or(String::new(), |s| s.hnsw.m.to_string()),
        ),
        (
            "--ef-construction",
            args.ef_construction != defaults.ef_construction
                && space.is_some_and(|s| s.hnsw.ef_construction != args.ef_construction),
            space.map_or(String::new(), |s| s.hnsw.ef_construction.to_string()),
        ),
        ("--embed-rule", rule != engine::embed::Rule::default() && Some(rule) != recorded, meta.text.rule.clone()),
        (
            "--cause-max-tokens",
            args.cause_max_tokens != engine::embed::CAUSE_MAX_TOKENS
                && args.cause_max_tokens != meta.text.cause_max_tokens,
            meta.text.cause_max_tokens.to_string(),
        ),
        (
            "--builder",
            args.builder != "native"
                && space.is_some_and(|s| HnswConfig::from_meta(&s.hnsw).builder_name() != builder_of(&args.builder).1),
            space.map_or(String::new(), |s| s.hnsw.builder.clone()),
        ),
    ];
    if let Some((flag, _, has)) = conflicts.into_iter().find(|c| c.1) {
        anyhow::bail!(
            "{flag} conflicts with {}, which has {has}: an append uses the index's settings (segments must agree); \
             drop {flag}, or build a new index with -o",
            index.display()
        );
    }
    Ok(recorded)
}

/// The graph builder named on the command line, and its recorded name.
fn builder_of(flag: &str) -> (Builder, &'static str) {
    let b = match flag {
        "hnsw_rs" => Builder::HnswRs,
        "native-f32" => Builder::NativeF32,
        _ => Builder::Native,
    };
    (b, HnswConfig { builder: b, ..HnswConfig::default() }.builder_name())
}

fn options(args: &Args) -> anyhow::Result<BuildOptions> {
    let shard = args.shard.as_deref().map(str::parse::<Shard>).transpose()?;
    let templated = |p: &Path| shard.map_or_else(|| p.to_path_buf(), |s| s.apply_to_path(p));
    if shard.is_none() {
        refuse_placeholder(args)?;
    }
    let output = args.output.as_ref().or(args.append.as_ref()).expect("clap requires -o or --append");
    let mut opts = BuildOptions::new(args.corpus.clone(), templated(output));
    opts.shard = shard;
    opts.format = args.format.as_deref().map(str::parse::<Format>).transpose()?;
    opts.read = ReadOptions { cause_field: args.cause_field.clone() };
    opts.on_error = if args.on_error == "skip" { OnError::Skip } else { OnError::Abort };
    opts.report = args.report.as_deref().map(templated);
    for f in &args.exclude {
        opts.exclusions.extend(Exclusions::read(f).with_context(|| format!("--exclude {}", f.display()))?);
    }
    opts.spaces = Space::parse_list(&args.spaces)?;
    let builder = builder_of(&args.builder).0;
    opts.hnsw = HnswConfig { m: args.m, ef_construction: args.ef_construction, builder, ..HnswConfig::default() };
    opts.batch = BatchConfig { max_batch_tokens: args.max_batch_tokens, max_batch_items: args.max_batch_items };
    opts.cause_max_tokens = args.cause_max_tokens;
    opts.rule = args.embed_rule.parse()?;
    opts.int8 = args.quantize == "int8";
    if opts.batch.max_batch_items == 0 || opts.batch.max_batch_tokens == 0 {
        anyhow::bail!("--max-batch-tokens and --max-batch-items must be at least 1");
    }
    Ok(opts)
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

/// A warning on stderr when rows were lost to an id that another row with other content
/// had (unlike a repeated row, a conflict drops data).
fn warn_conflicts(s: &BuildStats) {
    if s.conflicting_ids > 0 {
        eprintln!(
            "warning: {} rows reuse the id of an earlier row with other content and were dropped (the first row of \
             each id is kept); the report lists them as conflicting-id with the fields that differ{}",
            s.conflicting_ids,
            s.report.as_ref().map(|r| format!(": {}", r.display())).unwrap_or_default()
        );
    }
}

fn with_hint(e: indexer::Error, opts: &BuildOptions) -> anyhow::Error {
    let hint = match (&e, opts.on_error) {
        (indexer::Error::Row { .. }, OnError::Abort) => {
            "nothing was written; fix the record or pass --on-error skip to skip invalid records"
        }
        _ => "nothing was written; an existing index at the output path is unchanged",
    };
    anyhow::Error::new(e).context(format!("indexing into {} failed ({hint})", opts.output.display()))
}

fn print_summary(opts: &BuildOptions, s: &BuildStats) -> std::io::Result<()> {
    out!(
        "indexed {} bug-fix pairs into {} ({:.1} MiB){}",
        s.indexed,
        opts.output.display(),
        s.index_bytes as f64 / 1048576.0,
        if s.empty { ", an empty segment" } else { "" }
    )?;
    print_details(opts, s)
}

/// The lines of the summary after the first.
fn print_details(opts: &BuildOptions, s: &BuildStats) -> std::io::Result<()> {
    out!(
        "  records: {} read, {} skipped (invalid), {} duplicate ids, {} conflicting ids, {} duplicate pairs, {} \
         excluded, {} in other shards{}",
        s.records_read,
        s.skipped,
        s.duplicate_ids,
        s.conflicting_ids,
        s.duplicate_pairs,
        s.excluded,
        s.other_shards,
        if s.already_indexed > 0 { format!(", {} already indexed", s.already_indexed) } else { String::new() }
    )?;
    out!(
        "  embedding: {} snippets, {} tokens, {:.1} snippets/s, {:.0} tokens/s ({} without root cause, {} truncated, \
         {} windowed by rule {})",
        s.embedded,
        s.tokens,
        s.snippets_per_second,
        s.tokens_per_second,
        s.without_cause,
        s.truncated,
        s.windowed,
        opts.rule
    )?;
    out!(
        "  time: {:.1} s wall (read {:.1}, label actions {:.1}, tokenize {:.1}, embed {:.1}, graph {:.1}, write {:.1})",
        s.wall_seconds,
        s.read_seconds,
        s.label_seconds,
        s.tokenize_seconds,
        s.embed_seconds,
        s.graph_seconds,
        s.write_seconds
    )?;
    if let Some(r) = &s.report {
        out!("  report of skipped/duplicate/excluded rows: {}", r.display())?;
    }
    Ok(())
}
