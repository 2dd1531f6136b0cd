//! Indexes that grow: `fixdex index --append INDEX new.jsonl`.
//!
//! An append embeds only the records whose ids `INDEX` does not hold yet, writes them as a
//! new segment file in the folder `INDEX.segments/`, and publishes the new state by
//! replacing `INDEX` with a manifest ([`engine::Manifest`]) that lists the old segments
//! and the new one:
//!
//! 1. `INDEX` is opened as it is now (an index file or a manifest, [`engine::Segments`]);
//!    the build settings that must agree between segments (vector spaces, composition
//!    rule, root-cause budget and field, int8 codes, HNSW `m` / `ef_construction` /
//!    builder) are taken from its first segment, and the loaded model must be the one it
//!    was built with.
//! 2. The new records are read, validated and deduplicated as in a full build
//!    ([`crate::build`]); a record whose id is already indexed is skipped, counted
//!    ([`BuildStats::already_indexed`]) and listed in the report.
//! 3. The new segment is written to `INDEX.segments/seg-NNNNNN.fdx` (temporary file, then
//!    rename). When `INDEX` is still a single index file, it is first hard-linked (copied
//!    where the file system has no hard links) to a segment name in that folder, so its
//!    bytes are never rewritten.
//! 4. A manifest listing every segment is written to a temporary file, flushed, and
//!    renamed over `INDEX`.
//!
//! Only the last rename changes what `INDEX` means, so a reader sees the old state or the
//! new one, never a half state, and a process killed at any point (even `kill -9`) leaves
//! the previous index searchable; a later append ignores the files an interrupted one
//! left behind (segment numbers only grow). Readers that opened the old state keep their
//! memory maps: no file they use is modified or truncated. Appends to one `INDEX` are
//! serialised by an advisory lock on `INDEX.lock` (released by the OS when the process
//! dies). Cost: O(new records) embedding and graph building plus O(segments) to open the
//! existing ones and O(new records · segments · log n) for the id check; the existing
//! records are never read or embedded again. Search cost grows with the number of
//! segments; `fixdex compact` ([`engine::compact`]) merges them into one file.
//!
//! Appending to a path where no index exists yet is a plain build to that path.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use engine::embed::{Embedder, Rule};
use engine::hnsw::HnswConfig;
use engine::{Segments, Space};
use serde::Serialize;

use crate::build::{BuildOptions, BuildStats, Progress, build_index};
use crate::{Error, Result};

/// What an append did.
#[derive(Debug, Clone, Serialize)]
pub struct AppendStats {
    /// The build of the new segment (its `indexed` counts the appended records, its
    /// `already_indexed` the records skipped because `INDEX` held their id).
    #[serde(flatten)]
    pub build: BuildStats,
    /// The new segment file; `None` when nothing was new (then `INDEX` is unchanged) or
    /// when `INDEX` did not exist and was built as a single file.
    pub segment: Option<PathBuf>,
    /// Segments `INDEX` has now.
    pub segments: usize,
    /// Documents `INDEX` holds now, over all segments.
    pub documents: u64,
}

/// The folder that holds an appended index's segment files: `INDEX.segments`.
pub fn segments_dir(index: &Path) -> PathBuf {
    beside(index, ".segments")
}

/// `path` with `suffix` appended to its file name (`INDEX` → `INDEX.lock`).
fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

/// Appends the records of `opts.inputs` to the index or manifest at `index` (see the
/// module documentation). `opts.output` is ignored; `opts.report` defaults to
/// `INDEX.report.jsonl`; the settings listed in step 1 are overridden by the index's.
///
/// # Errors
/// [`Error::Engine`] wrapping [`engine::Error::ModelMismatch`] when `model` is not the
/// index's model (checked before any record is read), [`engine::Error::Corrupt`] /
/// [`engine::Error::NotAnIndex`] when `INDEX` does not open, [`engine::Error::Output`]
/// when the segment folder or the manifest cannot be created; [`Error::Io`] naming the
/// lock file or segment folder; the build's errors ([`build_index`]). On any error `INDEX`
/// is unchanged.
pub fn append(
    index: &Path,
    mut opts: BuildOptions,
    model: &dyn Embedder,
    progress: &dyn Progress,
) -> Result<AppendStats> {
    if opts.report.is_none() {
        opts.report = Some(beside(index, ".report.jsonl"));
    }
    // The folder must accept new files (a clear error before the lock file is made), INDEX
    // must be no corpus file; a symbolic link is followed, so the segments, the lock and
    // the manifest go beside the file it points to.
    let inputs: Vec<&Path> = opts.inputs.iter().map(PathBuf::as_path).collect();
    let index = &engine::output::check(index, &inputs)?;
    // Taken before looking: two first appends to a missing INDEX must not both build it.
    let _lock = lock_index(index)?;
    if !index.exists() {
        opts.output = index.to_path_buf();
        let build = build_index(&opts, model, progress)?;
        let documents = build.indexed;
        return Ok(AppendStats { build, segment: None, segments: 1, documents });
    }
    let current = Segments::open(index)?;
    current.indexes()[0].check_model(model)?;
    adopt_settings(&current, &mut opts)?;
    let dir = segments_dir(index);
    let created = !dir.exists();
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    // A folder this append made and left empty (a failed or empty build) is removed again;
    // `remove_dir` never removes one that holds a file.
    let tidy = || {
        if created {
            let _ = std::fs::remove_dir(&dir);
        }
    };
    let next = next_number(&dir, &current)?;
    // A single index file becomes segment `next`, the new records `next + 1`.
    let single = current.manifest().is_none();
    opts.output = dir.join(segment_name(next + u64::from(single)));
    let mut paths: Vec<PathBuf> = current.paths().to_vec();
    let current = Arc::new(current);
    opts.known = Some(Arc::clone(&current));
    let build = build_index(&opts, model, progress).inspect_err(|_| tidy())?;
    if build.indexed == 0 {
        let _ = std::fs::remove_file(&opts.output);
        tidy();
        return Ok(AppendStats { build, segment: None, segments: paths.len(), documents: current.len() as u64 });
    }
    let mut written = vec![opts.output.clone()];
    if single {
        let base = dir.join(segment_name(next));
        link_or_copy(index, &base)?;
        written.push(base.clone());
        paths = vec![base];
    }
    paths.push(opts.output.clone());
    drop(current);
    let manifest = Segments::write_manifest(index, &paths).inspect_err(|_| {
        // Nothing was published: the new files would only be orphans.
        written.iter().for_each(|p| drop(std::fs::remove_file(p)));
    })?;
    Ok(AppendStats {
        build,
        segment: Some(opts.output),
        segments: manifest.segments.len(),
        documents: manifest.documents,
    })
}

/// Takes the settings every segment must share from `current`'s first segment.
fn adopt_settings(current: &Segments, opts: &mut BuildOptions) -> Result<()> {
    let first = &current.indexes()[0];
    let meta = first.meta();
    opts.spaces = first.spaces();
    opts.rule = Rule::from_recorded(&meta.text.rule).ok_or_else(|| {
        engine::Error::corrupt(format!(
            "the index's composition rule {:?} is not one this build knows ({})",
            meta.text.rule,
            Rule::KNOWN
        ))
    })?;
    opts.cause_max_tokens = meta.text.cause_max_tokens;
    opts.read.cause_field = (meta.text.cause_field != "auto").then(|| meta.text.cause_field.clone());
    opts.int8 = meta.spaces.iter().any(|s| s.quantization.is_some());
    if let Some(s) = meta.spaces.iter().find(|s| s.name == opts.spaces.first().map_or("", |x: &Space| x.name())) {
        opts.hnsw =
            HnswConfig { seed: opts.hnsw.seed, max_levels: opts.hnsw.max_levels, ..HnswConfig::from_meta(&s.hnsw) };
    }
    Ok(())
}

/// `seg-NNNNNN.fdx`.
fn segment_name(n: u64) -> String {
    format!("seg-{n:06}.fdx")
}

/// One more than the highest segment number in `dir` (files an interrupted append left
/// included) or among `current`'s segments; 0 for an empty folder.
fn next_number(dir: &Path, current: &Segments) -> Result<u64> {
    let number = |p: &Path| {
        let name = p.file_name()?.to_str()?;
        name.strip_prefix("seg-")?.get(..6)?.parse::<u64>().ok()
    };
    let mut max: Option<u64> = current.paths().iter().filter_map(|p| number(p)).max();
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        max = max.max(number(&entry.path()));
    }
    Ok(max.map_or(0, |m| m + 1))
}

/// Gives the index file at `from` a second name `to` without rewriting its bytes (a hard
/// link), or copies it where hard links are not supported.
fn link_or_copy(from: &Path, to: &Path) -> Result<()> {
    if std::fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    let tmp = to.with_extension("fdx.tmp-copy");
    std::fs::copy(from, &tmp).and_then(|_| std::fs::rename(&tmp, to)).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(to, e)
    })
}

/// An exclusive advisory lock on `INDEX.lock` ([`engine::output::Lock::wait`]: waits for a
/// holder), held until the returned guard is dropped (or the process dies): appends, and a
/// compaction that replaces INDEX, take it so that none of them publishes a state built from
/// a manifest another has since replaced. The guard removes the lock file when dropped, so no
/// `INDEX.lock` is left beside the index.
///
/// # Errors
/// [`Error::Engine`] naming the lock file when it cannot be created or locked.
pub fn lock_index(index: &Path) -> Result<engine::output::Lock> {
    Ok(engine::output::Lock::wait(index)?)
}

/// A build setting that every segment of an index shares, so an append takes it from the
/// index ([`Recorded`]) and refuses a different one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    /// The vector spaces ([`BuildOptions::spaces`]).
    Spaces,
    /// Whether int8 codes are stored ([`BuildOptions::int8`]).
    Int8,
    /// The corpus field read as the root cause ([`crate::corpus::ReadOptions::cause_field`]).
    CauseField,
    /// HNSW `m`.
    M,
    /// HNSW `ef_construction`.
    EfConstruction,
    /// The text composition rule ([`BuildOptions::rule`]).
    Rule,
    /// Root-cause tokens kept before the code ([`BuildOptions::cause_max_tokens`]).
    CauseMaxTokens,
    /// The HNSW graph builder.
    Builder,
}

/// The shared build settings of an existing index, as its first segment records them.
#[derive(Debug, Clone)]
pub struct Recorded {
    spaces: Vec<Space>,
    int8: bool,
    cause_field: String,
    /// `m`, `ef_construction` and builder name of the first space, when there is one.
    hnsw: Option<engine::format::HnswMeta>,
    /// The rule's recorded name, and the rule when this build knows it.
    rule_name: String,
    /// The composition rule, when this build knows the recorded name.
    pub rule: Option<Rule>,
    cause_max_tokens: usize,
}

impl Recorded {
    /// The settings of the index or manifest at `index`; `None` when it does not exist (an
    /// append then builds it). O(segments) to open.
    ///
    /// # Errors
    /// [`Error::Engine`] when `index` exists but cannot be opened.
    pub fn of(index: &Path) -> Result<Option<Recorded>> {
        if !index.exists() {
            return Ok(None);
        }
        let segments = Segments::open(index)?;
        let first = &segments.indexes()[0];
        let meta = first.meta();
        Ok(Some(Recorded {
            spaces: first.spaces(),
            int8: meta.spaces.iter().any(|s| s.quantization.is_some()),
            cause_field: meta.text.cause_field.clone(),
            hnsw: meta.spaces.first().map(|s| s.hnsw.clone()),
            rule_name: meta.text.rule.clone(),
            rule: Rule::from_recorded(&meta.text.rule),
            cause_max_tokens: meta.text.cause_max_tokens,
        }))
    }

    /// Whether `opts` asks for another `setting` than the index has: the index's value, as
    /// text for a message, when it does. A setting `opts` leaves unset (no `cause_field`)
    /// never conflicts, nor do HNSW settings of an index without spaces.
    pub fn conflict(&self, setting: Setting, opts: &BuildOptions) -> Option<String> {
        let hnsw = self.hnsw.as_ref();
        let (differs, has) = match setting {
            Setting::Spaces => (opts.spaces != self.spaces, space_names(&self.spaces)),
            Setting::Int8 => (opts.int8 != self.int8, if self.int8 { "int8" } else { "none" }.to_string()),
            Setting::CauseField => {
                (opts.read.cause_field.as_ref().is_some_and(|f| *f != self.cause_field), self.cause_field.clone())
            }
            Setting::M => (hnsw.is_some_and(|h| h.m != opts.hnsw.m), hnsw_text(hnsw, |h| h.m.to_string())),
            Setting::EfConstruction => (
                hnsw.is_some_and(|h| h.ef_construction != opts.hnsw.ef_construction),
                hnsw_text(hnsw, |h| h.ef_construction.to_string()),
            ),
            Setting::Rule => (Some(opts.rule) != self.rule, self.rule_name.clone()),
            Setting::CauseMaxTokens => {
                (opts.cause_max_tokens != self.cause_max_tokens, self.cause_max_tokens.to_string())
            }
            Setting::Builder => {
                (hnsw.is_some_and(|h| builder_differs(h, &opts.hnsw)), hnsw_text(hnsw, |h| h.builder.clone()))
            }
        };
        differs.then_some(has)
    }
}

/// `code+cause,cause`: the spaces' names, comma-separated.
fn space_names(spaces: &[Space]) -> String {
    spaces.iter().map(|s| s.name()).collect::<Vec<_>>().join(",")
}

/// `f` of the first space's HNSW metadata, empty without one.
fn hnsw_text(hnsw: Option<&engine::format::HnswMeta>, f: impl Fn(&engine::format::HnswMeta) -> String) -> String {
    hnsw.map_or(String::new(), f)
}

/// Whether the builder `cfg` names differs from the one `recorded` (by recorded name).
fn builder_differs(recorded: &engine::format::HnswMeta, cfg: &HnswConfig) -> bool {
    HnswConfig::from_meta(recorded).builder_name() != cfg.builder_name()
}

/// Deletes the segment files of `old` that lie in `manifest`'s `MANIFEST.segments/` folder
/// (what `fixdex compact --remove-segments` leaves behind once the merged file replaced the
/// manifest), then the folder when it is empty. Files elsewhere are never touched; a file
/// that cannot be deleted is skipped. Returns how many were deleted.
pub fn remove_segments(manifest: &Path, old: &[PathBuf]) -> usize {
    let dir = segments_dir(manifest);
    let mut removed = 0;
    for p in old.iter().filter(|p| p.parent().is_some_and(|d| same_file(d, &dir))) {
        if std::fs::remove_file(p).is_ok() {
            removed += 1;
        }
    }
    let _ = std::fs::remove_dir(&dir); // only when empty
    removed
}

/// Whether `a` and `b` name the same file (both canonicalised; equal absolute paths when
/// either does not exist).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => std::path::absolute(a).ok() == std::path::absolute(b).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::embed::Embedder;

    /// An index of 30 sample records at `path`: code+cause space, default HNSW, int8.
    fn sample_index(path: &Path) {
        let model = engine::testing::tiny_embedder();
        let docs = engine::testing::sample_records(30);
        let vectors = engine::testing::embed_records(&model, &docs, Space::CodeCause).unwrap();
        let cfg = HnswConfig { m: 8, ..HnswConfig::default() };
        let graph = engine::hnsw::build(&vectors, model.dim(), &cfg).unwrap();
        let mut b = engine::IndexBuilder::new(model.identity().to_meta(), engine::testing::text_meta()).with_int8(true);
        b.add_space(Space::CodeCause, vectors, graph, &cfg).unwrap();
        b.write(path, &docs, serde_json::json!({})).unwrap();
    }

    #[test]
    fn recorded_settings_conflict_only_where_they_differ() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.fdx");
        assert!(Recorded::of(&path).unwrap().is_none(), "a missing index records nothing");
        sample_index(&path);
        let rec = Recorded::of(&path).unwrap().unwrap();
        let mut opts = BuildOptions::new(vec![], path);
        opts.int8 = true;
        opts.hnsw.m = 8;
        opts.rule = rec.rule.unwrap_or_default();
        opts.cause_max_tokens = rec.cause_max_tokens;
        let all =
            [Setting::Spaces, Setting::Int8, Setting::M, Setting::EfConstruction, Setting::Rule, Setting::Builder];
        for s in all.into_iter().chain([Setting::CauseField, Setting::CauseMaxTokens]) {
            assert_eq!(rec.conflict(s, &opts), None, "{s:?}");
        }
        opts.hnsw.m = 12;
        opts.int8 = false;
        opts.spaces = vec![Space::Code];
        assert_eq!(rec.conflict(Setting::M, &opts).as_deref(), Some("8"));
        assert_eq!(rec.conflict(Setting::Int8, &opts).as_deref(), Some("int8"));
        assert_eq!(rec.conflict(Setting::Spaces, &opts).as_deref(), Some("code+cause"));
        opts.read.cause_field = Some("description".into());
        assert_eq!(rec.conflict(Setting::CauseField, &opts), Some(rec.cause_field));
    }

    #[test]
    fn removing_segments_spares_files_outside_the_segments_folder() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("m.fdx");
        let seg_dir = segments_dir(&manifest);
        std::fs::create_dir(&seg_dir).unwrap();
        let (inside, outside) = (seg_dir.join("seg-000000.fdx"), dir.path().join("other.fdx"));
        std::fs::write(&inside, b"x").unwrap();
        std::fs::write(&outside, b"y").unwrap();
        assert_eq!(remove_segments(&manifest, &[inside.clone(), outside.clone()]), 1);
        assert!(!inside.exists() && !seg_dir.exists() && outside.exists());
        assert!(same_file(&outside, &dir.path().join(".").join("other.fdx")));
    }
}
