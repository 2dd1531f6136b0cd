//! An index that may be replaced on disk while it is in use: which files are served, and has
//! the path moved on to other bytes since?
//!
//! A [`LiveIndex`] opens an index file or a manifest and remembers the identity of every
//! file it read ([`FileId`]: device, inode, size, modification and status-change times; for a
//! manifest, the manifest and each segment). Before each use ([`LiveIndex::current`]) it
//! looks at those paths again (one `stat` per file, about a microsecond each) and, when any
//! differs, opens the path anew and serves the new index from then on: a rebuild published by
//! rename is picked up on the next request, and a file rewritten in place (`cp other.fdx IDX`)
//! too, once it is complete. A new index that cannot be opened (truncated, half written,
//! another model) makes that request fail with [`RetrieveError::Unavailable`], naming the
//! path and the reason; every later request looks again, so publishing a good file there
//! makes the index available again. The previous index is never used once its path has
//! changed: with [`Load::Mmap`] its pages may be gone.
//!
//! # What can still go wrong
//! With [`Load::Memory`] the bytes are a private copy, so nothing done to the file can crash
//! the process; a file changing *while* it is read is detected (its id before and after the
//! read differ) and reported. With [`Load::Mmap`] the check happens between uses only: a file
//! truncated or rewritten in place *during* a query can still kill the process with SIGBUS.
//! The safe way to publish is always to write the new index elsewhere on the same file
//! system and `rename` it onto the path (`fixdex index -o` and `fixdex manifest` do this);
//! the old file's inode then lives on, untouched, until its last reader drops it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use engine::embed::Embedder;
use engine::{FileId, Load, Segments};
use serde::Serialize;

use super::error::RetrieveError;

/// One file behind a served index: its path and its identity when it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServedFile {
    /// The path read (a manifest's segments: resolved against the manifest's folder).
    pub path: PathBuf,
    /// Device, inode, size and times of the file when it was read.
    #[serde(flatten)]
    pub id: FileId,
}

/// Which index a [`LiveIndex`] serves (or last served).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Served {
    /// The index file or manifest path given; `None` for an index handed over already open
    /// ([`LiveIndex::fixed`]), which is never reloaded.
    pub path: Option<PathBuf>,
    /// How the files are held: `mmap` or `memory` ([`Load::name`]).
    pub load: &'static str,
    /// 1 for the index opened first, plus one per successful reload.
    pub generation: u64,
    /// Documents over all segments.
    pub documents: usize,
    /// Bytes of the index files (segments; a manifest not counted): the RAM they take
    /// with `load` = `memory`.
    pub bytes: u64,
    /// The manifest first (when the path is one), then each index file.
    pub files: Vec<ServedFile>,
    /// The vector spaces the index has (every segment has the same), canonical order:
    /// what `search_similar_fixes` offers as its `space` argument.
    pub spaces: Vec<&'static str>,
}

/// The state of a [`LiveIndex`] now: what it serves and, when the files on disk cannot be
/// served, why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IndexStatus {
    /// The index served; when `error` is set, the one served last.
    #[serde(flatten)]
    pub served: Served,
    /// Why the files now at the path cannot be served (every query fails until they can);
    /// `None` when the index is available.
    pub error: Option<String>,
}

/// An index or manifest that follows its path: see the module docs. `Send + Sync`; queries
/// share the current generation through an [`Arc`], so a reload never disturbs a query
/// already running (with [`Load::Mmap`], unless the old file is rewritten in place).
#[derive(Debug)]
pub struct LiveIndex {
    path: Option<PathBuf>,
    load: Load,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// `None` once the files on disk changed: the old index is never used again.
    segments: Option<Arc<Segments>>,
    served: Served,
    /// The files seen on disk (`None`: could not be looked at) when a reload last failed,
    /// and why: the same files are not read again.
    failed: Option<(Vec<Option<FileId>>, String)>,
}

impl LiveIndex {
    /// Serves `segments` as they are, never reloading. Cost: O(segments).
    pub fn fixed(segments: Arc<Segments>) -> LiveIndex {
        let files = segments
            .paths()
            .iter()
            .zip(segments.indexes())
            .filter_map(|(p, ix)| ix.source().map(|id| ServedFile { path: p.clone(), id: *id }))
            .collect();
        let served = served(None, Load::Mmap, 1, &segments, files);
        LiveIndex { path: None, load: Load::Mmap, state: Mutex::new(State::new(segments, served)) }
    }

    /// Opens the index file or manifest at `path`, held as `load` says, and checks that it
    /// was built with `model`. Cost: as [`Segments::open_with`].
    ///
    /// # Errors
    /// [`RetrieveError::Engine`]: as [`Segments::open_with`], and
    /// [`engine::Error::ModelMismatch`] for an index of another model.
    pub fn open(path: &Path, load: Load, model: &dyn Embedder) -> Result<LiveIndex, RetrieveError> {
        let (segments, files) = open_files(path, load, model)?;
        let served = served(Some(path.to_path_buf()), load, 1, &segments, files);
        tracing::info!(path = %path.display(), load = load.name(), bytes = served.bytes, "index opened");
        Ok(LiveIndex {
            path: Some(path.to_path_buf()),
            load,
            state: Mutex::new(State::new(Arc::new(segments), served)),
        })
    }

    /// The index to query now: the one served so far when its files are unchanged on disk,
    /// else the path opened anew (logged as a warning). Cost: one `stat` per file when
    /// nothing changed; a reload costs as [`LiveIndex::open`].
    ///
    /// # Errors
    /// [`RetrieveError::Unavailable`] when the files now at the path cannot be opened (or are
    /// of another model); the next call looks again.
    pub fn current(&self, model: &dyn Embedder) -> Result<Arc<Segments>, RetrieveError> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(path) = &self.path else {
            return Ok(Arc::clone(state.segments.as_ref().expect("a fixed index is always served")));
        };
        let seen: Vec<Option<FileId>> = state.served.files.iter().map(|f| FileId::of(&f.path).ok()).collect();
        let unchanged = seen.iter().zip(&state.served.files).all(|(now, f)| now.as_ref() == Some(&f.id));
        if let (true, Some(segments)) = (unchanged, &state.segments) {
            return Ok(Arc::clone(segments));
        }
        if let Some((failed_seen, reason)) = &state.failed
            && *failed_seen == seen
        {
            return Err(self.unavailable(path, reason.clone()));
        }
        state.segments = None; // drop the old generation now (its RAM, or a map of a changed file)
        match open_files(path, self.load, model) {
            Ok((segments, files)) => Ok(state.replace(path, self.load, segments, files)),
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "the index changed on disk and cannot be served");
                state.failed = Some((seen, e.to_string()));
                Err(self.unavailable(path, e.to_string()))
            }
        }
    }

    /// What is served now, after the same check as [`LiveIndex::current`] (which may reload).
    pub fn status(&self, model: &dyn Embedder) -> IndexStatus {
        let error = self.current(model).err().map(|e| e.to_string());
        IndexStatus { served: self.served(), error }
    }

    /// What was served last, without looking at the disk. Cost: O(files).
    pub fn served(&self) -> Served {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).served.clone()
    }

    fn unavailable(&self, path: &Path, reason: String) -> RetrieveError {
        RetrieveError::Unavailable { path: path.to_path_buf(), reason }
    }
}

impl State {
    fn new(segments: Arc<Segments>, served: Served) -> State {
        State { segments: Some(segments), served, failed: None }
    }

    /// Serves a newly opened generation; returns it.
    fn replace(&mut self, path: &Path, load: Load, segments: Segments, files: Vec<ServedFile>) -> Arc<Segments> {
        let generation = self.served.generation + 1;
        self.served = served(Some(path.to_path_buf()), load, generation, &segments, files);
        tracing::warn!(
            path = %path.display(),
            generation,
            documents = self.served.documents,
            "the index changed on disk; now serving the new one"
        );
        let segments = Arc::new(segments);
        self.segments = Some(Arc::clone(&segments));
        self.failed = None;
        segments
    }
}

fn served(path: Option<PathBuf>, load: Load, generation: u64, s: &Segments, files: Vec<ServedFile>) -> Served {
    let bytes = s.indexes().iter().map(|ix| ix.file_len() as u64).sum();
    let mut spaces: Vec<engine::Space> = s.indexes().first().map(engine::Index::spaces).unwrap_or_default();
    spaces.sort();
    let spaces = spaces.into_iter().map(engine::Space::name).collect();
    Served { path, load: load.name(), generation, documents: s.len(), bytes, files, spaces }
}

/// Opens `path` and lists the files read with their ids: a manifest's id is taken before and
/// after reading it (they must agree), each index file's from the open file.
fn open_files(path: &Path, load: Load, model: &dyn Embedder) -> Result<(Segments, Vec<ServedFile>), RetrieveError> {
    let before = FileId::of(path)?;
    let segments = Segments::open_with(path, load)?;
    if let Some(first) = segments.indexes().first() {
        first.check_model(model)?;
    }
    let mut files = Vec::with_capacity(segments.indexes().len() + 1);
    if segments.paths() != [path] {
        if FileId::of(path)? != before {
            let reason = "the manifest changed while it was being read".to_string();
            return Err(RetrieveError::Unavailable { path: path.to_path_buf(), reason });
        }
        files.push(ServedFile { path: path.to_path_buf(), id: before });
    }
    for (p, ix) in segments.paths().iter().zip(segments.indexes()) {
        let id = *ix.source().expect("an index opened from a path has a source");
        files.push(ServedFile { path: p.clone(), id });
    }
    Ok((segments, files))
}
