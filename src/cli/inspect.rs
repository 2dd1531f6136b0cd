//! `fixdex inspect`: what an index holds, without reading its vectors (O(1) open).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use engine::Index;

/// Arguments of `fixdex inspect`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The index file.
    index: PathBuf,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `fixdex inspect`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let index = Index::open(&args.index).with_context(|| format!("opening index {}", args.index.display()))?;
    let info = describe(&index);
    if args.json {
        out!("{}", serde_json::to_string(&info)?)?;
    } else {
        print_text(&args.index, &index)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The JSON description of an index.
pub fn describe(index: &Index) -> serde_json::Value {
    let m = index.meta();
    let sections: Vec<serde_json::Value> = index
        .sections()
        .iter()
        .map(|s| {
            serde_json::json!({
                "kind": s.kind.name(), "space": s.space.map(|i| m.spaces[i as usize].name.clone()),
                "level": s.level, "offset": s.range.start, "len": s.range.len(), "crc32c": format!("{:08x}", s.crc),
            })
        })
        .collect();
    serde_json::json!({
        "format_version": index.format_version(), "file_bytes": index.file_len(),
        "documents": index.len(), "dim": index.dim(), "model": m.model, "text": m.text,
        "spaces": m.spaces, "languages": m.languages, "projects": m.n_projects,
        "fixdex_version": m.fixdex_version, "created_unix": m.created_unix, "stats": m.stats,
        "sections": sections,
    })
}

/// The header, model, text rule, spaces and sections as text.
fn print_text(path: &std::path::Path, index: &Index) -> std::io::Result<()> {
    let m = index.meta();
    out!("{}: fixdex index format v{}, {} bytes", path.display(), index.format_version(), index.file_len())?;
    out!(
        "documents: {}   dim: {}   languages: {}   projects: {}",
        index.len(),
        index.dim(),
        m.languages.join(", "),
        m.n_projects
    )?;
    out!(
        "model: {} (sha256 {}), {} pooling, max_seq_length {}",
        m.model.name,
        m.model.sha256,
        m.model.pooling,
        m.model.max_seq_length
    )?;
    out!(
        "text: rule {}, root cause from `{}`, cause ≤ {} tokens",
        m.text.rule,
        m.text.cause_field,
        m.text.cause_max_tokens
    )?;
    print_spaces(index)?;
    print_sections(index)
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
