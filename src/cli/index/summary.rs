//! What `fixdex index` prints: the projections' precision ([`Precision`]), the summary
//! lines of a build and the warning about conflicting ids.

use indexer::build::{BuildOptions, BuildStats};

/// The projections' precision for this run (`--precision`), and the measurement behind an
/// `auto` choice ([`engine::embed::calibrate`]).
pub(super) struct Precision {
    /// Whether the projections run in bf16.
    pub(super) bf16: bool,
    calibration: Option<engine::embed::calibrate::Calibration>,
}

impl Precision {
    /// The precision `--precision` names; `auto` times both on this CPU first
    /// ([`engine::embed::calibrate::prefer_bf16`]).
    pub(super) fn choose(flag: &str) -> Precision {
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

    /// `stats` as JSON with `precision` and, for `auto`, `calibration` added.
    ///
    /// # Errors
    /// A statistics object that does not serialise.
    pub(super) fn json_of(&self, stats: &impl serde::Serialize) -> serde_json::Result<serde_json::Value> {
        let mut v = serde_json::to_value(stats)?;
        v["precision"] = self.name().into();
        if let Some(c) = &self.calibration {
            v["calibration"] = serde_json::to_value(c).unwrap_or_default();
        }
        Ok(v)
    }

    /// One line for the summary.
    pub(super) fn describe(&self) -> String {
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

/// A warning on stderr for each `--exclude` entry that no row matched (a misspelt
/// benchmark project would leak into the index; README "Leakage control").
pub(super) fn warn_unmatched_exclusions(s: &BuildStats) {
    for entry in &s.unmatched_exclusions {
        eprintln!("warning: --exclude entry `{entry}` matches no row read: it excludes nothing");
    }
}

/// A warning on stderr when rows were lost to an id that another row with other content
/// had (unlike a repeated row, a conflict drops data).
pub(super) fn warn_conflicts(s: &BuildStats) {
    if s.conflicting_ids > 0 {
        eprintln!(
            "warning: {} rows reuse the id of an earlier row with other content and were dropped (the first row of \
             each id is kept); the report lists them as conflicting-id with the fields that differ{}",
            s.conflicting_ids,
            s.report.as_ref().map(|r| format!(": {}", r.display())).unwrap_or_default()
        );
    }
}

/// A warning on stderr when `--cause-field F` was given and no embedded row had a root cause
/// in it (a misspelt field name, found by a new user: the build succeeded and only the
/// summary's "N without root cause" told).
pub(super) fn warn_no_cause(opts: &BuildOptions, s: &BuildStats) {
    if let Some(field) = &opts.read.cause_field
        && s.indexed > 0
        && s.without_cause >= s.indexed
    {
        eprintln!(
            "warning: --cause-field {field}: none of the {} indexed rows has a non-empty `{field}`; the code+cause \
             space embeds their code alone (check the field's name)",
            s.indexed
        );
    }
}

/// A note on stderr that a shard got no records (its empty segment is still valid).
pub(super) fn note_empty_shard(opts: &BuildOptions, s: &BuildStats) {
    let shard = opts.shard.map(|s| format!("{}/{}", s.index, s.count)).unwrap_or_default();
    eprintln!(
        "note: shard {shard} received no records ({} belong to other shards); wrote an empty segment to {} \
         (0 documents), which `fixdex manifest` and `fixdex search` accept",
        s.other_shards,
        opts.output.display()
    );
}

/// The summary of a build: the first line, then [`print_details`].
pub(super) fn print_summary(opts: &BuildOptions, s: &BuildStats) -> std::io::Result<()> {
    out!(
        "indexed {} into {} ({:.1} MiB){}",
        crate::cli::count(s.indexed, "bug-fix pair"),
        opts.output.display(),
        s.index_bytes as f64 / 1048576.0,
        if s.empty { ", an empty segment" } else { "" }
    )?;
    print_details(opts, s)
}

/// The lines of the summary after the first.
pub(super) fn print_details(opts: &BuildOptions, s: &BuildStats) -> std::io::Result<()> {
    print_records(s)?;
    print_embedding(opts, s)?;
    print_times(s)?;
    if let Some(r) = &s.report {
        let this_run = match s.report_lines {
            0 => "none from this run: it holds earlier runs' rows".to_string(),
            n => format!("{} from this run", crate::cli::count(n, "row")),
        };
        out!("  report of skipped/duplicate/excluded rows: {} ({this_run})", r.display())?;
    }
    Ok(())
}

/// The `records:` line: read, skipped, duplicate, conflicting, excluded, other shards.
fn print_records(s: &BuildStats) -> std::io::Result<()> {
    let already =
        if s.already_indexed > 0 { format!(", {} already indexed", s.already_indexed) } else { String::new() };
    out!(
        "  records: {} read, {} skipped (invalid), {} duplicate ids, {} conflicting ids, {} duplicate pairs, {} \
         excluded, {} in other shards{already}",
        s.records_read,
        s.skipped,
        s.duplicate_ids,
        s.conflicting_ids,
        s.duplicate_pairs,
        s.excluded,
        s.other_shards,
    )
}

/// The `embedding:` line: snippets, tokens, rates, and how the texts were cut.
fn print_embedding(opts: &BuildOptions, s: &BuildStats) -> std::io::Result<()> {
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
    )
}

/// The `time:` line: wall seconds and each stage's.
fn print_times(s: &BuildStats) -> std::io::Result<()> {
    out!(
        "  time: {:.1} s wall (read {:.1}, label actions {:.1}, tokenize {:.1}, embed {:.1}, graph {:.1}, write {:.1})",
        s.wall_seconds,
        s.read_seconds,
        s.label_seconds,
        s.tokenize_seconds,
        s.embed_seconds,
        s.graph_seconds,
        s.write_seconds
    )
}
