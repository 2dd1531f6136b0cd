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

/// Runs `fixdex manifest`. Warns when segments repeat ids (`repeated_ids` in `--json`;
/// [`Segments::repeated_ids`]): the manifest's `documents` counts them once per segment.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let m = Segments::write_manifest(&args.output, &args.segments).map_err(|e| name_segment(e, &args.segments))?;
    let repeated = Segments::open(&args.output)?.repeated_ids()?;
    if repeated > 0 {
        let verb = if repeated == 1 { "repeats" } else { "repeat" };
        eprintln!(
            "warning: {repeated} of the {} documents {verb} an id that an earlier segment holds: search and \
             compact keep one document per id ({} distinct ids)",
            m.documents,
            m.documents - repeated
        );
    }
    if args.json {
        let mut v = serde_json::to_value(&m)?;
        v["repeated_ids"] = repeated.into();
        out!("{v}")?;
    } else {
        out!("{}: {} segments, {} documents", args.output.display(), m.segments.len(), m.documents)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Names the segment a manifest error is about, which the engine's message does not: the
/// first segment that does not open as an index (a manifest among them is said to be one:
/// manifests do not nest), or the two segments built differently. Other errors (the
/// output, a segment listed twice) already name their paths.
fn name_segment(e: engine::Error, segments: &[PathBuf]) -> anyhow::Error {
    let context = match &e {
        engine::Error::Output { .. } | engine::Error::InvalidParameter { .. } => None,
        engine::Error::SegmentMismatch { segment, .. } => {
            segments.get(*segment).map(|p| format!("segment {} against segment {}", p.display(), segments[0].display()))
        }
        _ => segments.iter().find(|p| engine::Index::open(p).is_err()).map(|p| {
            let nested = Segments::open(p).is_ok_and(|s| s.paths().first().is_some_and(|first| first != p));
            let hint = if nested { " (a manifest: list its segments instead; manifests do not nest)" } else { "" };
            format!("segment {}{hint}", p.display())
        }),
    };
    match context {
        Some(c) => anyhow::Error::new(e).context(c),
        None => e.into(),
    }
}
