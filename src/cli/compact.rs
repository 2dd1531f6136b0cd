//! `fixdex compact`: merge the segments of a manifest (from `index --append` or sharded
//! builds) into one index file ([`engine::compact`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use engine::Segments;
use engine::compact::CompactStats;
use indexer::append::same_file;

/// Arguments of `fixdex compact`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The manifest (or index file) whose segments to merge.
    manifest: PathBuf,
    /// The index file to write (temporary file, then rename). May be MANIFEST itself: it is
    /// replaced by the single file only once that file is complete.
    #[arg(short, long)]
    output: PathBuf,
    /// After writing OUTPUT over MANIFEST, delete the old segment files that lie in
    /// MANIFEST.segments/ (the folder `index --append` writes to). Readers that still have
    /// them open keep reading them until they close.
    #[arg(long)]
    remove_segments: bool,
    /// Print the statistics as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `fixdex compact`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let in_place = check_paths(args)?;
    let _lock = lock_in_place(args, in_place)?;
    let (stats, old) = compact(args)?;
    print_stats(args, &stats, remove_old(args, &old))?;
    Ok(ExitCode::SUCCESS)
}

/// Checks `-o` against the inputs, and `--remove-segments` against it: whether `-o` is
/// MANIFEST itself (compaction in place).
///
/// # Errors
/// An output [`super::check_output`] refuses; `--remove-segments` without compaction in place.
fn check_paths(args: &Args) -> anyhow::Result<bool> {
    let inputs = inputs(&args.manifest);
    super::check_output("-o", &args.output, &inputs.iter().map(PathBuf::as_path).collect::<Vec<_>>())?;
    super::check_replaces("-o", &args.output, engine::output::Kind::Index, "the compacted index")?;
    let in_place = same_file(&args.manifest, &args.output);
    if args.remove_segments && !in_place {
        anyhow::bail!("--remove-segments deletes the old segments only when -o is MANIFEST itself");
    }
    Ok(in_place)
}

/// When replacing MANIFEST (`in_place`), its lock, so that no append publishes meanwhile (its
/// new segment would be dropped by this rename) and none starts from a manifest that is
/// about to vanish.
fn lock_in_place(args: &Args, in_place: bool) -> anyhow::Result<Option<engine::output::Lock>> {
    Ok(if in_place { Some(indexer::append::lock_index(&args.manifest)?) } else { None })
}

/// Merges the segments of `MANIFEST` into `-o` ([`engine::compact::compact`]): the
/// statistics and the segment files that were merged.
fn compact(args: &Args) -> anyhow::Result<(CompactStats, Vec<PathBuf>)> {
    let segments = Segments::open(&args.manifest).with_context(|| format!("opening {}", args.manifest.display()))?;
    let old: Vec<PathBuf> = segments.paths().to_vec();
    eprintln!(
        "compacting {} ({}) of {} ...",
        crate::cli::count(old.len(), "segment"),
        crate::cli::count(segments.len(), "document"),
        args.manifest.display()
    );
    let stats = engine::compact::compact(&segments, &args.output).with_context(|| {
        format!("compacting {} into {} failed (nothing was replaced)", args.manifest.display(), args.output.display())
    })?;
    Ok((stats, old))
}

/// With `--remove-segments`, deletes the merged segment files `old` that lie in
/// `MANIFEST.segments/` ([`indexer::append::remove_segments`]): how many were removed.
fn remove_old(args: &Args, old: &[PathBuf]) -> usize {
    if args.remove_segments { indexer::append::remove_segments(&args.manifest, old) } else { 0 }
}

/// The statistics: one JSON object (with `removed_segments`) or one line.
fn print_stats(args: &Args, stats: &CompactStats, removed: usize) -> anyhow::Result<()> {
    if args.json {
        return print_json(stats, removed);
    }
    print_line(args, stats, removed)?;
    Ok(())
}

/// The statistics as one JSON object, with `removed_segments`.
fn print_json(stats: &CompactStats, removed: usize) -> anyhow::Result<()> {
    let mut v = serde_json::to_value(stats)?;
    v["removed_segments"] = removed.into();
    out!("{}", serde_json::to_string(&v)?)?;
    Ok(())
}

/// The statistics as one line, ending, with `--remove-segments`, in the `removed` count.
fn print_line(args: &Args, stats: &CompactStats, removed: usize) -> std::io::Result<()> {
    let removed = if args.remove_segments { format!("; removed {removed} old segment files") } else { String::new() };
    out!(
        "compacted {} into {}: {} ({} duplicate ids dropped), {:.1} MiB; graph {:.1} s, write {:.1} s{removed}",
        crate::cli::count(stats.segments, "segment"),
        args.output.display(),
        crate::cli::count(stats.documents, "document"),
        stats.duplicate_ids,
        stats.index_bytes as f64 / 1048576.0,
        stats.graph_seconds,
        stats.write_seconds,
    )
}

/// What compacting `manifest` reads and -o must not replace: the segment files a manifest
/// lists (the manifest itself may be replaced: compaction in place) and its
/// `MANIFEST.segments/` folder, where `index --append` numbers new segments.
fn inputs(manifest: &Path) -> Vec<PathBuf> {
    let mut inputs: Vec<PathBuf> = Segments::listed(manifest).into_iter().filter(|p| !same_file(p, manifest)).collect();
    inputs.push(indexer::append::segments_dir(manifest));
    inputs
}
