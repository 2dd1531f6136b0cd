//! Opening what `fixdex mine` is given: a git repository (work tree or bare) or a git
//! bundle ([`Source::open`]), read with libgit2 ([`git2`]).
//!
//! libgit2 cannot read a bundle, so a bundle's pack is indexed into a temporary bare
//! repository (libgit2's own pack indexer, [`git2::OdbPackwriter`]) and its refs are
//! created there; the temporary repository is removed when the [`Source`] is dropped.
//! Bundle format: git's `Documentation/gitformat-bundle.txt` (v2 and v3 headers; a bundle
//! with prerequisites is refused, it is not a whole history).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use git2::{Oid, Repository};

use crate::{Error, Result};

/// An opened repository or bundle.
#[derive(Debug)]
pub struct Source {
    /// The path the user gave.
    pub given: PathBuf,
    /// The repository libgit2 reads: `given`, or the temporary one of a bundle.
    pub git_dir: PathBuf,
    /// Whether the repository is a shallow clone (commits at its boundary have no parents
    /// here and are skipped as `shallow_boundary`).
    pub shallow: bool,
    /// Whether `given` is a bundle.
    pub bundle: bool,
    _temp: Option<tempfile::TempDir>,
}

impl Source {
    /// Opens `path`: a bundle when its first line is a bundle header, else a repository
    /// (the path itself, not a parent folder). A bundle's temporary repository is made in
    /// `temp_parent`, else in the system's temporary folder.
    ///
    /// # Errors
    /// [`Error::File`] naming `path` when it does not exist, is neither a repository nor a
    /// bundle, or is a bundle with prerequisites or a damaged pack.
    pub fn open(path: &Path, temp_parent: Option<&Path>) -> Result<Source> {
        let bad = |reason: String| Error::File { path: path.to_path_buf(), reason };
        if !path.exists() {
            return Err(bad("no such file or folder".into()));
        }
        if path.is_file() && is_bundle(path) {
            return open_bundle(path, temp_parent);
        }
        let repo = Repository::open_ext(path, git2::RepositoryOpenFlags::NO_SEARCH, std::iter::empty::<&str>())
            .map_err(|e| bad(format!("not a git repository or bundle ({})", e.message())))?;
        Ok(Source {
            given: path.to_path_buf(),
            git_dir: repo.path().to_path_buf(),
            shallow: repo.is_shallow(),
            bundle: false,
            _temp: None,
        })
    }

    /// A new handle on the repository (one per worker thread: a [`Repository`] is not
    /// `Sync`).
    ///
    /// # Errors
    /// [`Error::File`] when the repository cannot be opened again.
    pub fn repo(&self) -> Result<Repository> {
        Repository::open(&self.git_dir)
            .map_err(|e| Error::File { path: self.given.clone(), reason: format!("cannot open: {}", e.message()) })
    }

    /// The name of the repository: the folder or bundle file name without `.git` or
    /// `.bundle` (a bare `.git` folder gives its parent's name).
    pub fn name(&self) -> String {
        let path = self.given.canonicalize().unwrap_or_else(|_| self.given.clone());
        let mut name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if name == ".git" {
            name =
                path.parent().and_then(Path::file_name).map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        }
        name.trim_end_matches(".bundle").trim_end_matches(".git").to_string()
    }
}

fn is_bundle(path: &Path) -> bool {
    let mut head = [0u8; 16];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head)).is_ok()
        && (&head == b"# v2 git bundle\n" || &head == b"# v3 git bundle\n")
}

/// Indexes the bundle's pack into a temporary bare repository and creates its refs.
fn open_bundle(path: &Path, temp_parent: Option<&Path>) -> Result<Source> {
    let bad = |reason: String| Error::File { path: path.to_path_buf(), reason };
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let mut reader = BufReader::new(std::fs::File::open(path).map_err(io)?);
    let refs = read_bundle_header(&mut reader).map_err(|reason| bad(format!("bad bundle header: {reason}")))?;
    let mut builder = tempfile::Builder::new();
    builder.prefix("fixdex-mine-");
    let temp = match temp_parent {
        Some(dir) => builder.tempdir_in(dir),
        None => builder.tempdir(),
    }
    .map_err(|source| Error::Io { path: temp_parent.map_or_else(std::env::temp_dir, Path::to_path_buf), source })?;
    let repo = Repository::init_bare(temp.path()).map_err(|e| bad(format!("cannot create a repository: {e}")))?;
    index_pack(&repo, &mut reader).map_err(|e| match e {
        PackError::Read(source) => io(source),
        PackError::Damaged(reason) => bad(format!("damaged pack: {reason}")),
    })?;
    for (oid, name) in refs {
        if name.starts_with("refs/") {
            repo.reference(&name, oid, true, "fixdex mine: from bundle")
                .map_err(|e| bad(format!("ref {name}: {}", e.message())))?;
        }
    }
    Ok(Source {
        given: path.to_path_buf(),
        git_dir: repo.path().to_path_buf(),
        shallow: false,
        bundle: true,
        _temp: Some(temp),
    })
}

/// Why a bundle's pack could not be indexed.
enum PackError {
    /// Reading the bundle file failed.
    Read(std::io::Error),
    /// libgit2 refused the pack's bytes: what it said, and where.
    Damaged(String),
}

/// Bytes of the pack handed to libgit2 at a time.
const PACK_CHUNK: usize = 1 << 16;

/// Streams the rest of `reader` (a bundle's pack) into `repo`'s object database with
/// libgit2's pack indexer. A write the indexer refuses is damage in the pack, never a
/// full disk (git2 reports every refusal as an io "Write error"; libgit2's own message is
/// taken instead).
fn index_pack(repo: &Repository, reader: &mut impl Read) -> std::result::Result<(), PackError> {
    let refused = |from: u64, to: u64| {
        let said = git2::Error::last_error(-1);
        let said = Some(said.message()).filter(|m| !m.is_empty()).unwrap_or("bad object data");
        PackError::Damaged(format!("libgit2 cannot index pack bytes {from}..{to}: {said}"))
    };
    let odb = repo.odb().map_err(|e| PackError::Damaged(e.message().to_string()))?;
    let mut writer = odb.packwriter().map_err(|e| PackError::Damaged(e.message().to_string()))?;
    let mut buf = vec![0u8; PACK_CHUNK];
    let mut at = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(PackError::Read(e)),
        };
        writer.write_all(&buf[..n]).map_err(|_| refused(at, at + n as u64))?;
        at += n as u64;
    }
    writer.commit().map(drop).map_err(|e| PackError::Damaged(e.message().to_string()))
}

/// Reads the header up to its blank line; the reader is left at the pack.
fn read_bundle_header(reader: &mut impl BufRead) -> std::result::Result<Vec<(Oid, String)>, String> {
    let mut refs = Vec::new();
    let mut line = String::new();
    reader.read_line(&mut line).map_err(|e| e.to_string())?;
    loop {
        line.clear();
        if reader.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
            return Err("no pack after the header".into());
        }
        let l = line.trim_end_matches('\n');
        if l.is_empty() {
            return Ok(refs);
        }
        if l.starts_with('-') {
            return Err("the bundle has prerequisites (an incremental bundle): mine a bundle of the whole history, `git bundle create X.bundle --all`".into());
        }
        if l.starts_with('@') {
            continue; // v3 capabilities
        }
        let (oid, name) = l.split_once(' ').ok_or_else(|| format!("bad ref line {l:?}"))?;
        refs.push((Oid::from_str(oid).map_err(|e| format!("bad object id in {l:?}: {e}"))?, name.to_string()));
    }
}
