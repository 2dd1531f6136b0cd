//! `fixdex index --append INDEX` ([`indexer::append`]): the flags checked against the
//! index's recorded settings ([`Recorded`]), the append, and its summary.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use engine::embed::{BertEmbedder, CAUSE_MAX_TOKENS, Rule};
use engine::hnsw::HnswConfig;
use indexer::append::{AppendStats, Recorded, Setting};
use indexer::build::BuildOptions;

use super::Args;
use super::summary::{Precision, print_details, warn_conflicts, warn_unmatched_exclusions};
use crate::cli::progress::Bars;

/// Runs `fixdex index --append INDEX`.
pub(super) fn run(args: &Args, index: &Path, mut opts: BuildOptions) -> anyhow::Result<ExitCode> {
    if let Some(rule) = check_flags(args, index, &opts)? {
        opts.rule = rule; // for the summary: the rule the segment is embedded with
    }
    let (precision, model) = super::load_model(args)?;
    let stats = append(args, index, &opts, &model)?;
    warn_conflicts(&stats.build);
    warn_unmatched_exclusions(&stats.build);
    if args.json {
        out!("{}", serde_json::to_string(&precision.json_of(&stats)?)?)?;
    } else {
        print_summary(index, &stats, opts, &precision)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Appends the corpus to `index` with `model` ([`indexer::append::append`]), with progress
/// on stderr ([`Bars::new`]).
fn append(args: &Args, index: &Path, opts: &BuildOptions, model: &BertEmbedder) -> anyhow::Result<AppendStats> {
    let bars = Bars::new(args.quiet, args.json);
    let hint = "nothing was published; the index is unchanged";
    let stats = indexer::append::append(index, opts.clone(), model, &bars)
        .map_err(|e| anyhow::Error::new(e).context(format!("appending to {} failed ({hint})", index.display())))?;
    bars.clear();
    Ok(stats)
}

/// The settings given on the command line (values other than the flags' defaults), with
/// their flags, in the order they are checked.
fn asked(args: &Args, rule: Rule) -> Vec<(&'static str, Setting)> {
    let defaults = HnswConfig::default();
    let all = [
        ("--spaces", Setting::Spaces, args.spaces != "code+cause"),
        ("--quantize", Setting::Int8, args.quantize == "none"),
        ("--cause-field", Setting::CauseField, args.cause_field.is_some()),
        ("--m", Setting::M, args.m != defaults.m),
        ("--ef-construction", Setting::EfConstruction, args.ef_construction != defaults.ef_construction),
        ("--embed-rule", Setting::Rule, rule != Rule::default()),
        ("--cause-max-tokens", Setting::CauseMaxTokens, args.cause_max_tokens != CAUSE_MAX_TOKENS),
        ("--builder", Setting::Builder, args.builder != "native"),
    ];
    all.into_iter().filter(|a| a.2).map(|(flag, setting, _)| (flag, setting)).collect()
}

/// Refuses build settings given with `--append` that differ from the existing index's
/// (an append always uses the index's: segments must agree), as an
/// [`exit::Usage`](crate::cli::exit::Usage) error. Only values other than the flags'
/// defaults count as given. Returns the index's embedding rule, or `None` when
/// INDEX does not exist yet (a plain build).
fn check_flags(args: &Args, index: &Path, opts: &BuildOptions) -> anyhow::Result<Option<Rule>> {
    let recorded = Recorded::of(index).with_context(|| format!("opening {}", index.display()))?;
    let Some(recorded) = recorded else { return Ok(None) };
    let conflict = asked(args, opts.rule).into_iter().find_map(|(flag, s)| Some((flag, recorded.conflict(s, opts)?)));
    if let Some((flag, has)) = conflict {
        // A flag that does not fit the input: a usage error (exit 2), as the README's table says.
        return Err(crate::cli::exit::Usage(format!(
            "{flag} conflicts with {}, which has {has}: an append uses the index's settings (segments must agree); \
             drop {flag}, or build a new index with -o",
            index.display()
        ))
        .into());
    }
    Ok(recorded.rule)
}

/// The summary of an append: what happened, then the build's details when records were
/// embedded.
fn print_summary(index: &Path, stats: &AppendStats, opts: BuildOptions, precision: &Precision) -> anyhow::Result<()> {
    print_outcome(index, stats)?;
    if stats.build.indexed > 0 {
        let mut shown = opts;
        shown.output = stats.segment.clone().unwrap_or_else(|| index.to_path_buf());
        print_details(&shown, &stats.build)?;
        out!("  {}", precision.describe())?;
    }
    Ok(())
}

/// The first line: the segment appended, nothing to append, or a new index built.
fn print_outcome(index: &Path, stats: &AppendStats) -> std::io::Result<()> {
    match &stats.segment {
        Some(seg) => print_appended(index, stats, seg),
        None if stats.build.already_indexed > 0 && stats.build.indexed == 0 => print_nothing_new(index, stats),
        None => out!(
            "{} did not exist: built it with {}",
            index.display(),
            crate::cli::count(stats.build.indexed, "bug-fix pair")
        ),
    }
}

/// The first line of an append that wrote the new segment `seg`.
fn print_appended(index: &Path, stats: &AppendStats, seg: &Path) -> std::io::Result<()> {
    out!(
        "appended {} to {} as segment {} ({} already indexed, skipped); it now has {}, {}",
        crate::cli::count(stats.build.indexed, "bug-fix pair"),
        index.display(),
        seg.display(),
        stats.build.already_indexed,
        crate::cli::count(stats.segments, "segment"),
        crate::cli::count(stats.documents, "document")
    )
}

/// The first line of an append whose every record was already indexed.
fn print_nothing_new(index: &Path, stats: &AppendStats) -> std::io::Result<()> {
    out!(
        "nothing to append to {}: {} already indexed; the index is unchanged ({})",
        index.display(),
        if stats.build.already_indexed == 1 {
            "its 1 record is".to_string()
        } else {
            format!("all {} records are", stats.build.already_indexed)
        },
        crate::cli::count(stats.documents, "document")
    )
}
