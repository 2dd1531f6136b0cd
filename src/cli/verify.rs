//! `fixdex verify`: check every checksum and invariant of an index.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use engine::{Index, Segments, VerifyReport};
use repair::retrieve::actions::FixActions;

/// Arguments of `fixdex verify`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The index file or manifest.
    index: PathBuf,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `fixdex verify`: the engine's checks ([`Index::verify`]) on the index file or on
/// every segment of a manifest (plus the manifest's own counts,
/// [`Segments::verify_manifest`]), then every document's repair actions read as this
/// build's actions ([`FixActions::of`]). Exit code 3 when the index is corrupt; with
/// `--json`, a check that fails is also one JSON object on stdout, `{"ok": false, "error":
/// "…", "exit": 3}` (the error and its causes, as stderr says them; printed by
/// [`super::exit::report_json`], as for every command), so a script reads the verdict in one
/// place either way.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let t = Instant::now();
    // A failed check with `--json` is the JSON error object every command prints
    // (`exit::report_json`).
    let segments = open(args)?;
    let (total, each) = verify_segments(&segments)?;
    let seconds = t.elapsed().as_secs_f64();
    if args.json {
        print_json(&segments, &total, each, seconds)?;
    } else {
        print_text(args, &segments, &total, seconds)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Every check of `fixdex verify` on `segments`, the index or manifest at `path` opened
/// already (a retriever's: the files it searches are the files checked), for a command that
/// is about to search it for a long time (`eval`): a damaged index is an error there (exit
/// 3), not a retrieval failure each bug degrades around. O(index bytes).
///
/// # Errors
/// The engine's error, with the path named.
pub fn check_opened(segments: &Segments, path: &std::path::Path) -> anyhow::Result<()> {
    segments.verify_manifest().with_context(|| format!("verifying {}", path.display()))?;
    verify_segments(segments).map(|_| ())
}

/// Opens the index or manifest and checks a manifest's own counts
/// ([`Segments::verify_manifest`]).
///
/// # Errors
/// The engine's error, with the path named.
fn open(args: &Args) -> anyhow::Result<Segments> {
    let segments = Segments::open(&args.index).with_context(|| format!("opening index {}", args.index.display()))?;
    segments.verify_manifest().with_context(|| format!("verifying {}", args.index.display()))?;
    Ok(segments)
}

/// The result as one JSON object: `ok`, the totals, the seconds and, for a manifest, `each`
/// segment's report.
fn print_json(
    segments: &Segments,
    total: &VerifyReport,
    each: Vec<serde_json::Value>,
    seconds: f64,
) -> std::io::Result<()> {
    let mut v = serde_json::json!({ "ok": true, "report": total, "seconds": seconds });
    if segments.manifest().is_some() {
        v["segments"] = each.into();
    }
    out!("{v}")
}

/// Verifies every segment ([`Index::verify`], then its repair actions): the totals, and
/// each segment's path and report as JSON.
///
/// # Errors
/// The first check that fails, naming the segment.
fn verify_segments(segments: &Segments) -> anyhow::Result<(VerifyReport, Vec<serde_json::Value>)> {
    let mut total = VerifyReport { sections: 0, bytes: 0, documents: 0, vectors: 0, edges: 0 };
    let mut each = Vec::new();
    for (index, path) in segments.indexes().iter().zip(segments.paths()) {
        let report = index.verify().with_context(|| format!("verifying {}", path.display()))?;
        check_actions(index).with_context(|| format!("verifying {}", path.display()))?;
        add(&mut total, &report);
        each.push(serde_json::json!({ "path": path.display().to_string(), "report": report }));
    }
    Ok((total, each))
}

/// Adds the counts of `report` to `total`.
fn add(total: &mut VerifyReport, report: &VerifyReport) {
    total.sections += report.sections;
    total.bytes += report.bytes;
    total.documents += report.documents;
    total.vectors += report.vectors;
    total.edges += report.edges;
}

/// The one-line result.
fn print_text(args: &Args, segments: &Segments, total: &VerifyReport, seconds: f64) -> std::io::Result<()> {
    let manifest = segments.manifest().map(|_| format!("manifest of {} segments, ", segments.indexes().len()));
    out!(
        "{}: ok ({}{} sections, {} bytes checksummed, {} documents, {} vectors, {} edges, {:.2} s)",
        args.index.display(),
        manifest.unwrap_or_default(),
        total.sections,
        total.bytes,
        total.documents,
        total.vectors,
        total.edges,
        seconds
    )
}

/// Reads the `actions` column of every document as repair actions (the engine checked only
/// that it is a JSON array of objects). O(documents).
fn check_actions(index: &Index) -> engine::Result<()> {
    index.docs()?.for_each(|_, rec| FixActions::of(&rec).map(drop))?;
    Ok(())
}
