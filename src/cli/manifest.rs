//! `fixdex manifest`: combine segment files (from `fixdex index --shard`) into one
//! searchable manifest.

use std::path::PathBuf;
use std::process::ExitCode;

use engine::Segments;

/// Arguments of `fixdex manifest`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Segment index files (all built with the same model and spaces).
    #[arg(required = true)]
    segments: Vec<PathBuf>,
    /// The manifest file to write (JSON; `fixdex search` accepts it in place of an index).
    #[arg(short, long)]
    output: PathBuf,
    /// Print the manifest as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `fixdex manifest`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let m = Segments::write_manifest(&args.output, &args.segments)?;
    if args.json {
        out!("{}", serde_json::to_string(&m)?)?;
    } else {
        out!("{}: {} segments, {} documents", args.output.display(), m.segments.len(), m.documents)?;
    }
    Ok(ExitCode::SUCCESS)
}
