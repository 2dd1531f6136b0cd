//! Where a command's output file goes: the one check every fixdex command that writes a
//! file makes before any work ([`check`]), the file a write by rename must replace
//! ([`target`]), and the lock that keeps two runs off one output ([`Lock`]).
//!
//! The rules, the same for `index`, `manifest`, `compact`, `mine`, `label`, `repair` and the
//! others (issue 29 items 1 and 2):
//!
//! - an output is a file path: `-` is refused (outputs are written to a temporary file and
//!   renamed, never streamed);
//! - an existing output must be a regular file: a folder, a device (`/dev/null`), a pipe or
//!   a socket is refused, never replaced;
//! - a symbolic link is written through: the file it points to is replaced, the link stays;
//! - an output must not be one of the command's inputs, nor lie inside an input folder (a
//!   repository being mined, an index's `INDEX.segments/` folder). Inputs are compared by
//!   canonical path (links resolved) and by directory entry (the folder's device and inode,
//!   and the name), so a second name of an input by a symbolic link or a bind mount is
//!   caught; a hard link is another entry of its own, which a rename never changes (`index
//!   --append` keeps the old index as a hard-linked segment);
//! - the output's folder must exist and accept a new file (a probe file is created next to
//!   it and removed).

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// The reason given when an output path is an existing folder.
pub(crate) const IS_A_FOLDER: &str = "it is a folder; give a file name";

/// The reason given when an output exists and is not a regular file.
const NOT_A_FILE: &str = "exists and is not a regular file (a device, a pipe or a socket): it would be replaced, \
                          not written; give a file path";

/// Symbolic links followed before giving up, as Linux's `MAXSYMLINKS`.
const MAX_LINKS: usize = 40;

/// Attempts at taking a lock whose file other runs keep removing and creating.
const LOCK_TRIES: usize = 100;

/// Suffix of an output's lock file ([`Lock`]): `OUT` → `OUT.lock`.
pub const LOCK_SUFFIX: &str = ".lock";

/// The file that a write by rename to `path` must replace: `path` itself, or the file a
/// chain of symbolic links at `path` ends at (relative links resolved against their own
/// folder). The result need not exist yet. O(links), no file is created.
///
/// # Errors
/// [`Error::Output`] naming `path` when it is `-`, a folder, an existing file that is not a
/// regular file (a device, a pipe, a socket), or a chain of more than 40 links.
pub fn target(path: &Path) -> Result<PathBuf> {
    if path.as_os_str() == "-" {
        return Err(Error::output(
            path,
            "give a file path (the output is written to a temporary file and renamed, not streamed)",
        ));
    }
    let mut at = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let Ok(meta) = std::fs::symlink_metadata(&at) else { return Ok(at) };
        let kind = meta.file_type();
        if kind.is_symlink() {
            let link = std::fs::read_link(&at).map_err(|e| Error::io(path, e))?;
            at = folder_of(&at).join(link);
        } else if kind.is_dir() {
            return Err(Error::output(path, IS_A_FOLDER));
        } else if !kind.is_file() {
            return Err(Error::output(path, NOT_A_FILE));
        } else {
            return Ok(at);
        }
    }
    Err(Error::output(path, format!("more than {MAX_LINKS} symbolic links to follow")))
}

/// Checks, before any work, that a command may write the file `path` (the rules in the
/// module documentation), and returns the file to write: [`target`] of `path`. `inputs`
/// are the files and folders the command reads; `path` must be none of the files and lie
/// in none of the folders. Creates and removes an empty probe file next to the target; an
/// existing file there is not touched. O(inputs).
///
/// # Errors
/// [`Error::Output`] naming `path` (as given) and what is wrong: as [`target`]; `path` is
/// (or is inside) an input, naming it; the folder is missing, not a folder, or refuses a
/// new file.
pub fn check(path: &Path, inputs: &[&Path]) -> Result<PathBuf> {
    let target = target(path)?;
    let place = place_of(&target);
    for input in inputs {
        let input_place = absolute(input);
        let inside = input.is_dir() && place.starts_with(&input_place);
        if place == input_place || inside || same_entry(&target, input) {
            return Err(Error::output(
                path,
                format!(
                    "is (or is inside) the input {}; writing it would destroy what is read, write the output elsewhere",
                    input.display()
                ),
            ));
        }
    }
    probe(path, &target)?;
    Ok(target)
}

/// What a command writes at an output path: an existing file there is replaced only when it
/// is of the same kind ([`check_replaces`]), so that a mistyped `-o` does not destroy a
/// corpus, notes or sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An index file (the format's magic bytes) or a manifest (JSON naming
    /// `fixdex_manifest`): `index -o`, `compact -o`, `manifest -o`.
    Index,
    /// A build report (`INDEX.report.jsonl`): its first line a JSON object with `kind` and
    /// `row`.
    BuildReport,
    /// A JSON report fixdex wrote (`repair --report`): a JSON object naming
    /// `fixdex_version`.
    Report,
    /// JSON lines (`mine -o`, `label -o`): the first non-blank line a JSON object. A corpus
    /// is JSON lines too, so this kind guards against notes and sources, not against a
    /// corpus given as the output.
    JsonLines,
}

impl Kind {
    /// The kind in words, for messages.
    fn what(self) -> &'static str {
        match self {
            Kind::Index => "a fixdex index or manifest",
            Kind::BuildReport => "a fixdex build report",
            Kind::Report => "a fixdex report",
            Kind::JsonLines => "a JSON-lines file",
        }
    }
}

/// Whether the file at `path` (through a symbolic link) may be replaced by an output of
/// `kind`: it does not exist, is empty, is not a regular file (that is [`check`]'s to
/// refuse), cannot be read (writing it will say why), or is one ([`Kind`]). Reads at most
/// the first 64 KiB.
#[must_use]
pub fn replaceable(path: &Path, kind: Kind) -> bool {
    let Ok(file) = File::open(path) else { return true };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return true;
    }
    let mut head = Vec::new();
    if file.take(1 << 16).read_to_end(&mut head).is_err() {
        return true;
    }
    let text = String::from_utf8_lossy(&head);
    let text = text.trim_start();
    let first = text.lines().next().unwrap_or("");
    head.is_empty()
        || match kind {
            Kind::Index => {
                head.starts_with(&crate::format::MAGIC)
                    || (text.starts_with('{') && text.contains("\"fixdex_manifest\""))
            }
            Kind::BuildReport => first.starts_with('{') && first.contains("\"kind\":") && first.contains("\"row\":"),
            Kind::Report => text.starts_with('{') && text.contains("\"fixdex_version\""),
            Kind::JsonLines => text.is_empty() || first.starts_with('{'),
        }
}

/// Refuses, before any work, to replace an existing file at `path` that is not of `kind`
/// ([`replaceable`]); `by` names what would replace it (`the build`, `the report`).
///
/// # Errors
/// [`Error::Output`] naming `path`: "exists and is not KIND, which BY would replace:
/// remove it first, or write elsewhere".
pub fn check_replaces(path: &Path, kind: Kind, by: &str) -> Result<()> {
    if replaceable(path, kind) {
        return Ok(());
    }
    Err(Error::output(
        path,
        format!("exists and is not {}, which {by} would replace: remove it first, or write elsewhere", kind.what()),
    ))
}

/// Whether the outputs `a` and `b` are one file: the same place once links and `..` are
/// resolved ([`target`] then canonical folders), whether they exist or not.
pub fn same_place(a: &Path, b: &Path) -> bool {
    let place = |p: &Path| place_of(&target(p).unwrap_or_else(|_| p.to_path_buf()));
    place(a) == place(b)
}

/// The canonical form of `path` when it exists, else its folder's canonical form joined
/// with its name (the place a new file will be); as given when neither resolves.
fn place_of(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    match (std::fs::canonicalize(folder_of(path)), path.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
    }
}

/// Whether `a` and `b` are one directory entry: the same name in the same folder (same
/// device and inode), which canonical paths do not reveal when the folder has a second
/// name (a bind mount). A hard link is another entry: a rename onto it leaves the input.
fn same_entry(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let folder = |p: &Path| std::fs::metadata(folder_of(p)).map(|m| (m.dev(), m.ino())).ok();
    a.file_name().is_some() && a.file_name() == b.file_name() && folder(a).is_some() && folder(a) == folder(b)
}

/// `path` canonicalised (links resolved) when it exists, else made absolute.
fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| place_of(path))
}

/// Creates and removes a probe file next to `target`; errors name `given`.
fn probe(given: &Path, target: &Path) -> Result<()> {
    let probe = temp_path(target);
    let file = std::fs::OpenOptions::new().write(true).create_new(true).open(&probe);
    file.map_err(|e| cannot_create(given, target, &e))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// The folder a file at `path` goes into (`.` for a bare file name).
pub(crate) fn folder_of(path: &Path) -> &Path {
    path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// The [`Error::Output`] for a file that could not be created next to `target` (the file
/// `given` resolves to), saying why in terms of its folder.
pub(crate) fn cannot_create(given: &Path, target: &Path, e: &std::io::Error) -> Error {
    let dir = folder_of(target);
    let reason = match std::fs::metadata(dir) {
        Err(m) if m.kind() == std::io::ErrorKind::NotFound => format!("the folder {} does not exist", dir.display()),
        Ok(m) if !m.is_dir() => format!("{} is not a folder", dir.display()),
        _ => format!("cannot create a file in the folder {}: {e}", dir.display()),
    };
    Error::output(given, reason)
}

/// A temporary name next to `path`: `<name>.tmp-<pid>-<nanos>`.
pub(crate) fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    name.push(format!(".tmp-{}-{nanos}", std::process::id()));
    path.with_file_name(name)
}

/// An exclusive advisory lock (`flock`) on `OUT.lock`, held while a run writes `OUT`, so a
/// second run on the same output is refused at once instead of doubling the work or
/// silently replacing the first one's output. The lock file holds the owner's pid; it is
/// removed when the lock is dropped, and a file left by a killed run is taken over (the OS
/// released its lock).
#[derive(Debug)]
pub struct Lock {
    path: PathBuf,
    file: File,
}

impl Lock {
    /// Takes the lock of the output `target` (a path from [`check`]: links already
    /// resolved, so two runs that name one file differently share its lock). Never waits.
    ///
    /// # Errors
    /// [`Error::Output`] naming `target` when another process holds the lock (the message
    /// names the lock file and the other pid), or the lock file exists and is not a
    /// regular file; [`Error::Io`] naming the lock file when it cannot be created.
    pub fn acquire(target: &Path) -> Result<Lock> {
        Lock::take(target, false)
    }

    /// As [`Lock::acquire`], but waits while another process holds the lock (appends to one
    /// index take turns: `indexer::append::lock_index`).
    ///
    /// # Errors
    /// [`Error::Output`] naming `target` when the lock file is not a regular file, or keeps
    /// being replaced; [`Error::Io`] naming the lock file when it cannot be created or locked.
    pub fn wait(target: &Path) -> Result<Lock> {
        Lock::take(target, true)
    }

    /// [`Lock::acquire`] (`wait` false) or [`Lock::wait`].
    fn take(target: &Path, wait: bool) -> Result<Lock> {
        let path = lock_path(target);
        for _ in 0..LOCK_TRIES {
            if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
                return Err(Error::output(target, format!("the lock file {} is not a regular file", path.display())));
            }
            let io = |e| Error::io(&path, e);
            let open = std::fs::OpenOptions::new().create(true).truncate(false).read(true).write(true).open(&path);
            let mut file = open.map_err(io)?;
            if wait {
                file.lock().map_err(io)?;
            } else {
                match file.try_lock() {
                    Ok(()) => {}
                    Err(std::fs::TryLockError::WouldBlock) => return Err(held(target, &path, &mut file)),
                    Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
                }
            }
            // A run that finished between our open and our lock removed the file: lock the
            // new one instead, or two runs could each hold a lock on another file.
            if !same_file(&file, &path) {
                continue;
            }
            file.set_len(0).and_then(|()| writeln!(file, "{}", std::process::id())).map_err(io)?;
            return Ok(Lock { path, file });
        }
        Err(Error::output(target, format!("its lock file {} keeps being replaced by other runs", path.display())))
    }

    /// The lock file: `OUT.lock`.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Removed while still held: a run waiting on this file re-checks it ([`same_file`]).
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

/// `OUT.lock` for the output `target`.
pub fn lock_path(target: &Path) -> PathBuf {
    let mut name = target.as_os_str().to_os_string();
    name.push(LOCK_SUFFIX);
    PathBuf::from(name)
}

/// The error for a lock another process holds, with its pid when the file says.
fn held(target: &Path, lock: &Path, file: &mut File) -> Error {
    let mut text = String::new();
    let _ = file.rewind().and_then(|()| Read::take(&mut *file, 32).read_to_string(&mut text));
    let pid = text.trim().parse::<u32>().map_or_else(|_| "another process".to_string(), |p| format!("pid {p}"));
    Error::output(
        target,
        format!(
            "another fixdex run ({pid}) is writing it and holds its lock {}; wait for that run to end, or write \
             elsewhere",
            lock.display()
        ),
    )
}

/// Whether the open `file` is the file now at `path` (same device and inode).
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_followed_and_devices_refused() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.fdx");
        std::fs::write(&real, "x").unwrap();
        let link = dir.path().join("link.fdx");
        std::os::unix::fs::symlink("real.fdx", &link).unwrap();
        assert_eq!(target(&link).unwrap(), dir.path().join("real.fdx"));
        let dangling = dir.path().join("dangling.fdx");
        std::os::unix::fs::symlink("sub/new.fdx", &dangling).unwrap();
        assert_eq!(target(&dangling).unwrap(), dir.path().join("sub/new.fdx"));
        let looped = dir.path().join("loop");
        std::os::unix::fs::symlink("loop", &looped).unwrap();
        assert!(target(&looped).unwrap_err().to_string().contains("symbolic links"));
        for bad in [Path::new("/dev/null"), Path::new("-"), dir.path()] {
            assert!(matches!(target(bad), Err(Error::Output { .. })), "{bad:?}");
        }
    }

    #[test]
    fn inputs_and_their_folders_are_refused_by_any_name() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("c.jsonl");
        std::fs::write(&input, "x").unwrap();
        let other = dir.path().join("sub/../c.jsonl");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let link = dir.path().join("l.jsonl");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        for out in [&input, &other, &link] {
            let err = check(out, &[&input]).unwrap_err().to_string();
            assert!(err.contains("is (or is inside) the input"), "{err}");
        }
        let hard = dir.path().join("h.jsonl");
        std::fs::hard_link(&input, &hard).unwrap();
        assert!(check(&hard, &[&input]).is_ok(), "a rename onto a hard link leaves the input");
        let folder = dir.path().join("sub");
        assert!(check(&folder.join("x.fdx"), &[&folder]).is_err());
        assert_eq!(check(&dir.path().join("new.fdx"), &[&input, &folder]).unwrap(), dir.path().join("new.fdx"));
    }

    #[test]
    fn a_second_lock_is_refused_naming_the_pid_and_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("o.jsonl");
        let first = Lock::acquire(&out).unwrap();
        assert_eq!(std::fs::read_to_string(first.path()).unwrap().trim(), std::process::id().to_string());
        let err = Lock::acquire(&out).unwrap_err().to_string();
        assert!(err.contains(&format!("pid {}", std::process::id())) && err.contains("o.jsonl.lock"), "{err}");
        drop(first);
        assert!(!lock_path(&out).exists());
        drop(Lock::acquire(&out).unwrap());
    }
}
