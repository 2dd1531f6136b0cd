//! `fixdex inspect`: what an index holds, without reading its vectors (O(1) open).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use engine::Index;

/// Arguments of `fixdex inspect`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The index file or manifest.
    index: PathBuf,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `fixdex inspect`. A manifest (from `index --append` or `manifest`) is described
/// as its segments, each as an index file is.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let segments = open(&args.index)?;
    if let Some(m) = segments.manifest() {
        return run_manifest(args, m, &segments);
    }
    run_index(args, &segments.indexes()[0])
}

/// Opens the index or manifest at `path`.
///
/// # Errors
/// The engine's error, with the path named.
fn open(path: &Path) -> anyhow::Result<engine::Segments> {
    engine::Segments::open(path).with_context(|| format!("opening index {}", path.display()))
}

/// `inspect` of one index file: its [`describe`] or [`print_text`].
fn run_index(args: &Args, index: &Index) -> anyhow::Result<ExitCode> {
    if args.json {
        out!("{}", serde_json::to_string(&describe(index))?)?;
    } else {
        print_text(&args.index, index)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `inspect` of a manifest: its totals, then every segment.
fn run_manifest(args: &Args, m: &engine::Manifest, segments: &engine::Segments) -> anyhow::Result<ExitCode> {
    if args.json {
        out!("{}", serde_json::to_string(&manifest_json(m, segments))?)?;
        return Ok(ExitCode::SUCCESS);
    }
    print_manifest(&args.index, m)?;
    for (ix, p) in segments.indexes().iter().zip(segments.paths()) {
        out!("")?;
        print_text(p, ix)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The manifest's first line: its version, segments and documents.
fn print_manifest(path: &Path, m: &engine::Manifest) -> std::io::Result<()> {
    out!(
        "{}: manifest (v{}) of {} segments, {} documents; `fixdex compact` merges them into one file",
        path.display(),
        m.fixdex_manifest,
        m.segments.len(),
        m.documents
    )
}

/// The JSON description of a manifest: its totals and every segment's [`describe`].
fn manifest_json(m: &engine::Manifest, segments: &engine::Segments) -> serde_json::Value {
    let each = segments.indexes().iter().zip(segments.paths());
    let list: Vec<serde_json::Value> =
        each.map(|(ix, p)| serde_json::json!({ "path": p.display().to_string(), "index": describe(ix) })).collect();
    serde_json::json!({
        "manifest": m.fixdex_manifest, "documents": m.documents, "dim": m.dim, "model": m.model,
        "spaces": m.spaces, "segments": list,
    })
}

/// The JSON description of an index.
pub fn describe(index: &Index) -> serde_json::Value {
    let m = index.meta();
    serde_json::json!({
        "format_version": index.format_version(), "file_bytes": index.file_len(),
        "documents": index.len(), "dim": index.dim(), "model": m.model, "text": m.text,
        "spaces": m.spaces, "languages": m.languages, "projects": m.n_projects,
        "fixdex_version": m.fixdex_version, "created_unix": m.created_unix, "stats": m.stats,
        "sections": sections(index),
    })
}

/// The file's sections as JSON: kind, space, level, offset, length, CRC32C.
fn sections(index: &Index) -> Vec<serde_json::Value> {
    let spaces = &index.meta().spaces;
    let each = index.sections().iter().map(|s| {
        serde_json::json!({
            "kind": s.kind.name(), "space": s.space.map(|i| spaces[i as usize].name.clone()),
            "level": s.level, "offset": s.range.start, "len": s.range.len(), "crc32c": format!("{:08x}", s.crc),
        })
    });
    each.collect()
}

/// The header, model, text rule, spaces and sections as text.
fn print_text(path: &Path, index: &Index) -> std::io::Result<()> {
    let m = index.meta();
    out!("{}: fixdex index format v{}, {} bytes", path.display(), index.format_version(), index.file_len())?;
    out!(
        "documents: {}   dim: {}   languages: {}   projects: {}",
        index.len(),
        index.dim(),
        m.languages.join(", "),
        m.n_projects
    )?;
    print_model(m)?;
    print_spaces(index)?;
    print_sections(index)
}

/// The model and text-rule lines.
fn print_model(m: &engine::format::IndexMeta) -> std::io::Result<()> {
    let model = &m.model;
    out!(
        "model: {} (sha256 {}), {} pooling, max_seq_length {}",
        model.name,
        model.sha256,
        model.pooling,
        model.max_seq_length
    )?;
    let t = &m.text;
    out!("text: rule {}, root cause from `{}`, cause ≤ {} tokens", t.rule, t.cause_field, t.cause_max_tokens)
}

/// One line per vector space: its HNSW parameters.
fn print_spaces(index: &Index) -> std::io::Result<()> {
    for s in &index.meta().spaces {
        let h = &s.hnsw;
        out!(
            "space {}: HNSW M={} M0={} ef_construction={} levels={} entry={} ({})",
            s.name,
            h.m,
            h.m0,
            h.ef_construction,
            h.max_level + 1,
            h.entry_point,
            h.builder
        )?;
    }
    Ok(())
}

/// The file's sections: kind, space, level, offset and length.
fn print_sections(index: &Index) -> std::io::Result<()> {
    let m = index.meta();
    out!("sections:")?;
    for s in index.sections().iter() {
        let space = s.space.map_or(String::new(), |i| format!(" {}", m.spaces[i as usize].name));
        out!(
            "  {:<16}{space:<12} level {} offset {:>10} len {:>10}",
            s.kind.name(),
            s.level,
            s.range.start,
            s.range.len()
        )?;
    }
    Ok(())
}
