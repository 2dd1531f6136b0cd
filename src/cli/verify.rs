//! `fixdex verify`: check every checksum and invariant of an index.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use engine::Index;
use repair::fix_actions::FixActions;

/// Arguments of `fixdex verify`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The index file.
    index: PathBuf,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `fixdex verify`: the engine's checks ([`Index::verify`]), then every document's
/// repair actions read as this build's actions ([`FixActions::of`]). Exit code 3 when the
/// index is corrupt.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let t = Instant::now();
    let index = Index::open(&args.index).with_context(|| format!("opening index {}", args.index.display()))?;
    let report = index.verify().with_context(|| format!("verifying {}", args.index.display()))?;
    check_actions(&index).with_context(|| format!("verifying {}", args.index.display()))?;
    let seconds = t.elapsed().as_secs_f64();
    if args.json {
        out!("{}", serde_json::json!({ "ok": true, "report": report, "seconds": seconds }))?;
    } else {
        out!(
            "{}: ok ({} sections, {} bytes checksummed, {} documents, {} vectors, {} edges, {:.2} s)",
            args.index.display(),
            report.sections,
            report.bytes,
            report.documents,
            report.vectors,
            report.edges,
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
