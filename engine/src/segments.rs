//! Segments and manifests: one logical index made of several index files (sharded builds,
//! design decision 7). A query fans out over the segments and merges their top-k, keeping
//! the best-scoring hit per document id.
//!
//! A manifest is a small JSON file:
//! ```text
//! {"fixdex_manifest": 1, "model": {...}, "spaces": ["code+cause"], "dim": 384,
//!  "documents": 20240, "segments": [{"path": "seg-0.fdx", "documents": 5071, "bytes": 23456789}, ...]}
//! ```
//! Segment paths are relative to the manifest's folder (or absolute). Every segment must
//! have the same model, dimension and spaces; [`Segments::open`] checks this.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::embed::Embedder;
use crate::format::{MAGIC, ModelMeta};
use crate::storage::Load;
use crate::{Error, Filter, Index, Record, Result, SearchParams};

/// The manifest format version this build writes and reads.
pub const MANIFEST_VERSION: u32 = 1;

/// One segment as listed in a manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentEntry {
    /// Path of the index file, relative to the manifest's folder or absolute.
    pub path: String,
    /// Documents in the segment.
    pub documents: u64,
    /// Size of the file in bytes.
    pub bytes: u64,
}

/// Contents of a manifest file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`MANIFEST_VERSION`].
    pub fixdex_manifest: u32,
    /// The model every segment was built with.
    pub model: ModelMeta,
    /// Vector spaces every segment has.
    pub spaces: Vec<String>,
    /// Floats per vector.
    pub dim: usize,
    /// Documents over all segments.
    pub documents: u64,
    /// The segments.
    pub segments: Vec<SegmentEntry>,
}

/// What one excluded project resolved to in an index or manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectMatch {
    /// The name given (`--exclude-project`).
    pub given: String,
    /// The project names in the index that are the same project, sorted; empty when it
    /// matches nothing there.
    pub matched: Vec<String>,
}

/// A search hit in a set of segments.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SegmentHit {
    /// Which segment (index into [`Segments::indexes`]).
    pub segment: usize,
    /// Document row in that segment.
    pub row: u32,
    /// Cosine similarity to the query, in [-1, 1].
    pub score: f32,
}

/// Open segments: a manifest's index files, or a single index file.
#[derive(Debug)]
pub struct Segments {
    indexes: Vec<Index>,
    paths: Vec<PathBuf>,
    manifest: Option<Manifest>,
}

impl Segments {
    /// Opens `path`: a single index file (one segment) or a manifest. O(segments).
    ///
    /// # Errors
    /// As [`Index::open`] for each segment; [`Error::Corrupt`] for a malformed manifest or
    /// segments that disagree on model, dimension or spaces.
    pub fn open(path: &Path) -> Result<Segments> {
        Segments::open_with(path, Load::Mmap)
    }

    /// Opens `path` as [`Segments::open`] does, holding every index file as `load` says
    /// (see [`Index::open_with`]). O(segments) for [`Load::Mmap`], O(total bytes) for
    /// [`Load::Memory`].
    ///
    /// # Errors
    /// As [`Segments::open`] and [`Index::open_with`].
    pub fn open_with(path: &Path, load: Load) -> Result<Segments> {
        let mut head = [0u8; 8];
        let n = std::io::Read::read(&mut std::fs::File::open(path).map_err(|e| Error::io(path, e))?, &mut head)
            .map_err(|e| Error::io(path, e))?;
        if n == 0 {
            return Err(Error::empty_file());
        }
        if n == 8 && head == MAGIC {
            let indexes = vec![Index::open_with(path, load)?];
            return Ok(Segments { indexes, paths: vec![path.to_path_buf()], manifest: None });
        }
        let text = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let manifest: Manifest = serde_json::from_slice(&text).map_err(|_| Error::NotAnIndex)?;
        if manifest.fixdex_manifest != MANIFEST_VERSION {
            return Err(Error::corrupt(format!("manifest version {} is not supported", manifest.fixdex_manifest)));
        }
        let paths: Vec<PathBuf> = manifest.segments.iter().map(|s| resolve(path, &s.path)).collect();
        for p in &paths {
            if !p.exists() {
                return Err(Error::corrupt(format!(
                    "segment {} listed by the manifest {} is missing (a manifest lists its segments \
                     relative to its own folder: move or rename an appended index together with its \
                     `.segments` folder)",
                    p.display(),
                    path.display()
                )));
            }
        }
        let indexes = paths.iter().map(|p| Index::open_with(p, load)).collect::<Result<Vec<_>>>()?;
        check_consistent(&indexes)?;
        Ok(Segments { indexes, paths, manifest: Some(manifest) })
    }

    /// The segment files the manifest at `path` lists, resolved against its folder; empty
    /// when `path` is an index file or not a readable manifest. Reads the manifest's JSON
    /// only, opens no segment. For the input lists of [`crate::output::check`].
    pub fn listed(path: &Path) -> Vec<PathBuf> {
        let Ok(text) = std::fs::read(path) else { return Vec::new() };
        let Ok(manifest) = serde_json::from_slice::<Manifest>(&text) else { return Vec::new() };
        manifest.segments.iter().map(|s| resolve(path, &s.path)).collect()
    }

    /// Writes a manifest at `path` listing `segments` (temporary file, then rename), after
    /// opening each and checking they agree. Paths are stored relative to the manifest's
    /// folder when they lie under it. A symbolic link at `path` is written through.
    ///
    /// Segments with no documents (a shard that received no rows) are accepted; the
    /// manifest's `documents` counts only the others' rows.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `segments` is empty or lists one file twice (by
    /// any path to it: [`crate::output::same_place`]).
    /// [`Error::Output`] naming `path` when it cannot be written ([`crate::output::check`]:
    /// a device, a folder, one of `segments`, a missing folder) or when it holds a file that
    /// is neither an index nor a manifest ([`crate::output::check_replaces`]), checked
    /// before any segment is opened; as [`Segments::open`]; [`Error::Io`] naming `path` when writing fails.
    pub fn write_manifest(path: &Path, segments: &[PathBuf]) -> Result<Manifest> {
        if segments.is_empty() {
            return Err(Error::InvalidParameter { name: "segments", reason: "a manifest needs at least one".into() });
        }
        // One segment listed twice would count and search its documents twice.
        for (i, a) in segments.iter().enumerate() {
            if let Some(b) = segments[i + 1..].iter().find(|b| crate::output::same_place(a, b)) {
                return Err(Error::InvalidParameter {
                    name: "segments",
                    reason: format!("{} and {} are one file: list each segment once", a.display(), b.display()),
                });
            }
        }
        let inputs: Vec<&Path> = segments.iter().map(PathBuf::as_path).collect();
        let given = path;
        let path = &crate::output::check(given, &inputs)?;
        crate::output::check_replaces(given, crate::output::Kind::Index, "the manifest")?;
        let indexes = segments.iter().map(|p| Index::open(p)).collect::<Result<Vec<_>>>()?;
        check_consistent(&indexes)?;
        // `Path::parent` of a bare file name is "", which `absolute` refuses: that is ".".
        let folder = path.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p });
        let base = folder.map(std::path::absolute).transpose().map_err(|e| Error::io(path, e))?;
        let entries =
            segments.iter().zip(&indexes).map(|(p, ix)| entry(p, ix, base.as_deref())).collect::<Result<_>>()?;
        let first = &indexes[0];
        let manifest = Manifest {
            fixdex_manifest: MANIFEST_VERSION,
            model: first.meta().model.clone(),
            spaces: first.meta().spaces.iter().map(|s| s.name.clone()).collect(),
            dim: first.dim(),
            documents: indexes.iter().map(|i| i.len() as u64).sum(),
            segments: entries,
        };
        let tmp = crate::output::temp_path(path);
        let json = serde_json::to_vec_pretty(&manifest).expect("manifest serializes");
        let written = write_synced(&tmp, &json).and_then(|()| std::fs::rename(&tmp, path));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(Error::io(given, e));
        }
        Ok(manifest)
    }

    /// The manifest the segments were opened from; `None` for a single index file.
    pub fn manifest(&self) -> Option<&Manifest> {
        self.manifest.as_ref()
    }

    /// Whether some segment holds a document with this id. O(segments · log n).
    ///
    /// # Errors
    /// As [`Index::find_id`].
    pub fn contains_id(&self, id: &str) -> Result<bool> {
        for index in &self.indexes {
            if index.find_id(id)?.is_some() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// How many documents hold an id that an earlier segment also holds (segments built
    /// from overlapping corpora): search and compact keep one document per id, while a
    /// manifest's `documents` counts every segment's rows. Hashes are compared first
    /// ([`Index::id_hashes`]) and each match confirmed on the stored ids. O(n) hash reads plus
    /// O(log n) per match.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when a matched document cannot be decoded.
    pub fn repeated_ids(&self) -> Result<u64> {
        let mut seen: std::collections::HashSet<u64> = std::collections::HashSet::new();
        let mut repeated = 0;
        for (j, index) in self.indexes.iter().enumerate() {
            for (hash, row) in index.id_hashes() {
                if !seen.contains(&hash) {
                    continue;
                }
                let id = index.doc(row)?.id;
                for earlier in &self.indexes[..j] {
                    if earlier.find_id(&id)?.is_some() {
                        repeated += 1;
                        break;
                    }
                }
            }
            seen.extend(index.id_hashes().map(|(h, _)| h));
        }
        Ok(repeated)
    }

    /// Checks the manifest against its segments: each entry's document count and byte size
    /// must be the file's (a segment replaced or truncated after the manifest was written
    /// fails here). Nothing to check for a single index file. O(segments); the segments'
    /// own contents are checked by [`Index::verify`].
    ///
    /// # Errors
    /// [`Error::Corrupt`] naming the first segment that disagrees.
    pub fn verify_manifest(&self) -> Result<()> {
        let Some(m) = &self.manifest else { return Ok(()) };
        for ((entry, index), path) in m.segments.iter().zip(&self.indexes).zip(&self.paths) {
            if entry.documents != index.len() as u64 || entry.bytes != index.file_len() as u64 {
                return Err(Error::corrupt(format!(
                    "segment {} has {} documents and {} bytes; the manifest says {} and {}",
                    path.display(),
                    index.len(),
                    index.file_len(),
                    entry.documents,
                    entry.bytes
                )));
            }
        }
        let total: u64 = m.segments.iter().map(|s| s.documents).sum();
        if total != m.documents {
            return Err(Error::corrupt(format!(
                "the manifest counts {} documents; its segments hold {total}",
                m.documents
            )));
        }
        Ok(())
    }

    /// What the segments hold, as 16 hex digits: the FNV-1a ([`crate::record::id_hash`]) of
    /// every segment's file length and section table (each section's kind, space, level,
    /// byte range and CRC32C). Two indexes with the same id hold the same bytes in every
    /// section but for a CRC32C collision; the path plays no part. O(sections): the bytes
    /// are not read (their CRCs are the table's). `run.json`'s `settings.index_content`.
    #[must_use]
    pub fn content_id(&self) -> String {
        let mut table = String::new();
        for index in &self.indexes {
            table.push_str(&format!("file {};", index.file_len()));
            for s in index.sections().iter() {
                let (kind, space, level, range, crc) = (s.kind.name(), s.space, s.level, &s.range, s.crc);
                table.push_str(&format!("{kind} {space:?} {level} {range:?} {crc:08x};"));
            }
        }
        format!("{:016x}", crate::record::id_hash(&table))
    }

    /// The open segments.
    pub fn indexes(&self) -> &[Index] {
        &self.indexes
    }

    /// Their paths (for a single index file: that file's path, as given to
    /// [`Segments::open`]).
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// Documents over all segments.
    pub fn len(&self) -> usize {
        self.indexes.iter().map(Index::len).sum()
    }

    /// Whether there are no documents.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Embeds the query once and searches every segment (see [`Segments::search`]).
    ///
    /// # Errors
    /// As [`Index::query`].
    pub fn query(
        &self,
        model: &dyn Embedder,
        code: &str,
        cause: &str,
        params: &SearchParams,
    ) -> Result<Vec<SegmentHit>> {
        self.query_lines(model, (code, cause), None, params)
    }

    /// [`Segments::query`] with the query's buggy lines (1-based, relative to `code`)
    /// when known ([`Index::query_lines`]; all segments share one rule).
    ///
    /// # Errors
    /// As [`Index::query`].
    pub fn query_lines(
        &self,
        model: &dyn Embedder,
        (code, cause): (&str, &str),
        lines: Option<crate::embed::LineRange>,
        params: &SearchParams,
    ) -> Result<Vec<SegmentHit>> {
        Ok(self.query_docs(model, (code, cause), lines, params)?.into_iter().map(|(h, _)| h).collect())
    }

    /// [`Segments::query_lines`] with each hit's document, decoded once (by the merge that
    /// keeps one hit per document id): what a caller that reads the hits' documents asks.
    ///
    /// # Errors
    /// As [`Index::query`].
    pub fn query_docs(
        &self,
        model: &dyn Embedder,
        (code, cause): (&str, &str),
        lines: Option<crate::embed::LineRange>,
        params: &SearchParams,
    ) -> Result<Vec<(SegmentHit, Record)>> {
        params.validate()?;
        let v = self.indexes[0].embed_query_lines(model, params.space, (code, cause), lines)?;
        self.search_docs(&v, params)
    }

    /// Checks that the filter's inclusion lists match something and says what each
    /// excluded project matched. A `languages` entry must be a language (any case), and a
    /// `projects` entry a project name (exact), of some segment: otherwise the search
    /// would silently return nothing. O(segments · projects).
    ///
    /// Returns, for each `exclude_projects` entry in order, the project names in the
    /// segments it excludes (by identity, see [`crate::projects`]); an empty list means
    /// it excludes nothing here.
    ///
    /// # Errors
    /// [`Error::NoMatch`] for the first inclusion value that matches nothing, with the
    /// closest names the segments have; [`Error::DamagedIndex`] when a table a filter reads
    /// is damaged ([`Index::check_tables`]).
    pub fn resolve_filter(&self, filter: &Filter) -> Result<Vec<ProjectMatch>> {
        if !filter.is_empty() {
            self.indexes.iter().try_for_each(Index::check_tables)?;
        }
        let languages: BTreeSet<&str> =
            self.indexes.iter().flat_map(|i| i.meta().languages.iter().map(String::as_str)).collect();
        for l in &filter.languages {
            if !languages.iter().any(|x| x.eq_ignore_ascii_case(l)) {
                let (suggestions, all) = crate::projects::closest_or_all(l, languages.iter().copied(), 3);
                return Err(Error::NoMatch { flag: "--lang", value: l.clone(), what: "language", suggestions, all });
            }
        }
        let projects: BTreeSet<&str> = self.indexes.iter().flat_map(Index::project_names).collect();
        for p in &filter.projects {
            if !projects.contains(p.as_str()) {
                let (suggestions, all) = crate::projects::closest_or_all(p, projects.iter().copied(), 3);
                return Err(Error::NoMatch { flag: "--project", value: p.clone(), what: "project", suggestions, all });
            }
        }
        Ok(filter.exclude_projects.iter().map(|given| self.excluded_by(given)).collect())
    }

    /// Every document of project `name` in the segments, matched by identity as
    /// [`Filter::exclude_projects`] matches it ([`crate::projects`]), in segment and row
    /// order: what `fixdex eval defects4j --own-history` sorts into the project's fixes from
    /// before a bug and after it. O(documents) over the project tables, plus one decode per
    /// document of the project.
    ///
    /// # Errors
    /// [`Error::DamagedIndex`] when a project table is damaged; [`Error::Corrupt`] when a
    /// document cannot be decoded.
    pub fn project_docs(&self, name: &str) -> Result<Vec<Record>> {
        let mut docs = Vec::new();
        for index in &self.indexes {
            index.check_tables()?;
            let same = index.same_projects(name);
            for (row, p) in index.doc_projects().iter().enumerate() {
                if same.contains(p) {
                    docs.push(index.doc(row as u32)?);
                }
            }
        }
        Ok(docs)
    }

    /// The project names in the segments that `--exclude-project given` removes.
    fn excluded_by(&self, given: &str) -> ProjectMatch {
        let names: BTreeSet<String> = self
            .indexes
            .iter()
            .flat_map(|ix| ix.same_projects(given).into_iter().filter_map(|i| ix.project_name(i).map(String::from)))
            .collect();
        ProjectMatch { given: given.to_string(), matched: names.into_iter().collect() }
    }

    /// Top-k over all segments: each segment's top-k, merged by score, with one hit per
    /// document id (the best). O(segments · search).
    ///
    /// # Errors
    /// As [`Index::search`].
    pub fn search(&self, query: &[f32], params: &SearchParams) -> Result<Vec<SegmentHit>> {
        Ok(self.search_docs(query, params)?.into_iter().map(|(h, _)| h).collect())
    }

    /// [`Segments::search`] with each hit's document (decoded once, by the merge).
    ///
    /// # Errors
    /// As [`Index::search`].
    pub fn search_docs(&self, query: &[f32], params: &SearchParams) -> Result<Vec<(SegmentHit, Record)>> {
        let mut all = Vec::new();
        for (segment, index) in self.indexes.iter().enumerate() {
            all.extend(index.search(query, params)?.into_iter().map(|h| SegmentHit {
                segment,
                row: h.row,
                score: h.score,
            }));
        }
        all.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.segment.cmp(&b.segment)).then(a.row.cmp(&b.row)));
        let mut seen: HashMap<String, ()> = HashMap::new();
        let mut out = Vec::with_capacity(params.k.min(all.len()));
        for h in all {
            if out.len() == params.k {
                break;
            }
            let doc = self.doc(h)?;
            if seen.insert(doc.id.clone(), ()).is_none() {
                out.push((h, doc));
            }
        }
        Ok(out)
    }

    /// The document of a hit.
    ///
    /// # Errors
    /// As [`Index::doc`].
    pub fn doc(&self, hit: SegmentHit) -> Result<Record> {
        self.indexes.get(hit.segment).ok_or_else(|| Error::corrupt("segment out of range"))?.doc(hit.row)
    }
}

/// Writes `bytes` to a new file at `path` and flushes it to disk before returning, so a
/// rename that follows publishes complete contents even across a power loss.
fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = std::fs::File::create(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// A manifest entry's path resolved against the manifest's folder. An appended index keeps
/// its segments in `NAME.segments/` beside it (`indexer::append`); when the manifest was
/// renamed together with that folder (`a.fdx` → `b.fdx`, `a.fdx.segments` →
/// `b.fdx.segments`), an entry `a.fdx.segments/F` that no longer exists is found as
/// `b.fdx.segments/F`.
fn resolve(manifest: &Path, entry: &str) -> PathBuf {
    let base = manifest.parent().unwrap_or(Path::new("."));
    let listed = base.join(entry);
    if listed.exists() {
        return listed;
    }
    let entry = Path::new(entry);
    let (Some(dir), Some(file), Some(name)) = (entry.parent(), entry.file_name(), manifest.file_name()) else {
        return listed;
    };
    let own = {
        let mut d = name.to_os_string();
        d.push(".segments");
        base.join(d).join(file)
    };
    let is_segments_dir = dir.components().count() == 1 && dir.to_string_lossy().ends_with(".segments");
    if is_segments_dir && own.exists() { own } else { listed }
}

fn entry(p: &Path, ix: &Index, base: Option<&Path>) -> Result<SegmentEntry> {
    let abs = std::path::absolute(p).map_err(|e| Error::io(p, e))?;
    let rel = base.and_then(|b| abs.strip_prefix(b).ok()).map_or(abs.clone(), Path::to_path_buf);
    Ok(SegmentEntry {
        path: rel.to_string_lossy().into_owned(),
        documents: ix.len() as u64,
        bytes: ix.file_len() as u64,
    })
}

fn check_consistent(indexes: &[Index]) -> Result<()> {
    let first = indexes.first().ok_or_else(|| Error::corrupt("manifest lists no segments"))?;
    for (i, ix) in indexes.iter().enumerate().skip(1) {
        let what = if first.meta().model.sha256 != ix.meta().model.sha256 {
            "model"
        } else if ix.dim() != first.dim() {
            "dimension"
        } else if ix.spaces() != first.spaces() {
            "spaces"
        } else if ix.meta().text.rule != first.meta().text.rule
            || ix.meta().text.cause_max_tokens != first.meta().text.cause_max_tokens
        {
            "embedding rule (cause_max_tokens)"
        } else {
            continue;
        };
        return Err(Error::SegmentMismatch { segment: i, what });
    }
    Ok(())
}
