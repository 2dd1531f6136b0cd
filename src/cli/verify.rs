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
/// build's actions ([`FixActions::of`]). Exit code 3 when the index is corrupt.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let t = Instant::now();
    let segments = Segments::open(&args.index).with_context(|| format!("opening index {}", args.index.display()))?;
    segments.verify_manifest().with_context(|| format!("verifying {}", args.index.display()))?;
    let mut total = VerifyReport { sections: 0, bytes: 0, documents: 0, vectors: 0, edges: 0 };
    let mut each = Vec::new();
    for (index, path) in segments.indexes().iter().zip(segments.paths()) {
        let report = index.verify().with_context(|| format!("verifying {}", path.display()))?;
        check_actions(index).with_context(|| format!("verifying {}", path.display()))?;
        total.sections += report.sections;
        total.bytes += report.bytes;
        total.documents += report.documents;
        total.vectors += report.vectors;
        total.edges += report.edges;
        each.push(serde_json::json!({ "path": path.display().to_string(), "report": report }));
    }
    let seconds = t.elapsed().as_secs_f64();
    let manifest = segments.manifest().is_some();
    if args.json {
        let mut v = serde_json::json!({ "ok": true, "report": total, "seconds": seconds });
        if manifest {
            v["segments"] = each.into();
        }
        out!("{v}")?;
    } else {
        out!(
            "{}: ok ({}{} sections, {} bytes checksummed, {} documents, {} vectors, {} edges, {:.2} s)",
            args.index.display(),
            if manifest { format!("manifest of {} segments, ", segments.indexes().len()) } else { String::new() },
            total.sections,
            total.bytes,
            total.documents,
            total.vectors,
            total.edges,
            seconds
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads the `actions` column of every document as repair actions (the engine checked only
/// that it is a JSON array of objects). O(documents).
fn check_actions(index: &Index) -> engine::Result<()> {
    index.docs()?.for_each(|_, rec| FixActions::of(&rec).map(drop))?;
    Ok(())
}
