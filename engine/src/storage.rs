//! Read-only byte storage for index files: a memory map or an owned, 64-byte-aligned copy.
//!
//! This module holds the `mmap` call in [`map_file`], one of the workspace's five
//! `#[allow(unsafe_code)]` sites (the others: the prefetch hint in `simd`, the BF16 rounding
//! and kernel calls in `embed::bf16`, the AMX tile permission request in `embed::bf16::amx`;
//! ARCHITECTURE.md lists them).
//!
//! [`Load`] chooses between the two for a file on disk, and [`FileId`] records which file
//! (device, inode, size, times) the bytes came from, so that a long-running reader can
//! notice that the path now names another file, or that the file was rewritten.

use std::io::Read;
use std::{fs::File, path::Path};

use bytes::Bytes;

use crate::{Error, Result};

/// Alignment, in bytes, that every section of an index file has relative to the file start,
/// and that [`aligned_copy`] gives the start of the buffer.
pub const ALIGN: usize = 64;

/// Maps `path` read-only into memory and returns its bytes. O(1) in the file size: nothing is
/// read until it is touched.
///
/// # Errors
/// [`Error::Io`] when the file cannot be opened or mapped.
pub fn map_file(path: &Path) -> Result<Bytes> {
    load_file(path, Load::Mmap).map(|(bytes, _)| bytes)
}

#[allow(unsafe_code)]
fn map_open(path: &Path, file: &File, len: u64) -> Result<Bytes> {
    if len == 0 {
        // mmap of an empty file fails on Linux; an empty index is rejected later anyway.
        return Ok(Bytes::new());
    }
    // SAFETY: index files are write-once. `IndexWriter` writes a temporary file and publishes
    // it by `rename`, so no process modifies or truncates a published file in place; a new
    // build replaces the directory entry, not the mapped inode. A user who truncates or
    // rewrites the file by hand (`cp other.fdx IDX`) while it is mapped gets SIGBUS on the next
    // touch of a vanished page, as with every mmap-based reader: readers that must survive
    // that read the file into memory instead ([`Load::Memory`], `fixdex serve`'s default).
    let map = unsafe { memmap2::Mmap::map(file) }.map_err(|e| Error::io(path, e))?;
    Ok(Bytes::from_owner(map))
}

/// How the bytes of an index file are held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Load {
    /// Memory-map the file ([`map_file`]): O(1) to open, pages are read on first touch and
    /// shared with the page cache. A file truncated or rewritten in place under the map can
    /// kill the process with SIGBUS when a vanished page is touched.
    #[default]
    Mmap,
    /// Read the whole file into memory ([`read_file`]): O(file) time and RAM at open; later
    /// changes to the file cannot affect the bytes read.
    Memory,
}

impl Load {
    /// `mmap` or `memory`, as the CLI spells it.
    pub fn name(self) -> &'static str {
        match self {
            Load::Mmap => "mmap",
            Load::Memory => "memory",
        }
    }
}

/// Which file a path named when it was looked at: device, inode, size and times. Two looks
/// at a path give equal ids unless the path now names another file (a rename onto it, a
/// delete and re-create) or the file was written, truncated or touched in between (up to
/// the file system's timestamp granularity, nanoseconds on ext4, xfs, btrfs and tmpfs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct FileId {
    /// Device number of the file system holding the file.
    pub device: u64,
    /// Inode number.
    pub inode: u64,
    /// Size in bytes.
    pub bytes: u64,
    /// Last modification, nanoseconds since the Unix epoch.
    pub modified_ns: i64,
    /// Last status change (write, truncation, rename, permissions), nanoseconds since the
    /// Unix epoch.
    pub changed_ns: i64,
}

impl FileId {
    /// Looks at `path` (one `stat`, following symbolic links).
    ///
    /// # Errors
    /// [`Error::Io`] when `path` cannot be looked at (for example, it no longer exists).
    pub fn of(path: &Path) -> Result<FileId> {
        std::fs::metadata(path).map(|m| FileId::from_metadata(&m)).map_err(|e| Error::io(path, e))
    }

    /// The id in metadata already read (for example from an open file, which names the file
    /// actually read even if the path has moved on since).
    #[cfg(unix)]
    pub fn from_metadata(m: &std::fs::Metadata) -> FileId {
        use std::os::unix::fs::MetadataExt;
        let ns = |secs: i64, nanos: i64| secs.saturating_mul(1_000_000_000).saturating_add(nanos);
        FileId {
            device: m.dev(),
            inode: m.ino(),
            bytes: m.len(),
            modified_ns: ns(m.mtime(), m.mtime_nsec()),
            changed_ns: ns(m.ctime(), m.ctime_nsec()),
        }
    }

    /// The id in metadata already read (size and modification time only on this platform).
    #[cfg(not(unix))]
    pub fn from_metadata(m: &std::fs::Metadata) -> FileId {
        let modified_ns = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        FileId { device: 0, inode: 0, bytes: m.len(), modified_ns, changed_ns: modified_ns }
    }
}

/// The bytes of the file at `path`, held as `load` says, with the id of the file they came
/// from (taken from the open file, before any byte is read). O(1) for [`Load::Mmap`],
/// O(file) for [`Load::Memory`].
///
/// # Errors
/// As [`map_file`] and [`read_file`].
pub fn load_file(path: &Path, load: Load) -> Result<(Bytes, FileId)> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let id = FileId::from_metadata(&file.metadata().map_err(|e| Error::io(path, e))?);
    let bytes = match load {
        Load::Mmap => map_open(path, &file, id.bytes)?,
        Load::Memory => read_open(path, file, id)?,
    };
    Ok((bytes, id))
}

/// Reads the whole file at `path` into a 64-byte-aligned buffer (one copy, no mmap). O(file).
///
/// # Errors
/// [`Error::Io`] when the file cannot be read, or when it changed (size, times or identity)
/// while it was being read: a file rewritten in place is not returned half old, half new.
pub fn read_file(path: &Path) -> Result<Bytes> {
    load_file(path, Load::Memory).map(|(bytes, _)| bytes)
}

fn read_open(path: &Path, mut file: File, before: FileId) -> Result<Bytes> {
    let len = usize::try_from(before.bytes).map_err(|_| Error::io(path, std::io::Error::other("file too large")))?;
    let mut blocks = vec![Block([0; ALIGN]); len.div_ceil(ALIGN)];
    let buf = &mut zerocopy::IntoBytes::as_mut_bytes(blocks.as_mut_slice())[..len];
    file.read_exact(buf).map_err(|e| Error::io(path, e))?;
    let grown = file.read(&mut [0u8; 1]).map_err(|e| Error::io(path, e))? != 0;
    let after = FileId::from_metadata(&file.metadata().map_err(|e| Error::io(path, e))?);
    if grown || after != before {
        let msg = "the file changed while it was being read; publish index files by writing them elsewhere and \
                   renaming them onto the path";
        return Err(Error::io(path, std::io::Error::other(msg)));
    }
    Ok(Bytes::from_owner(AlignedBuf { blocks, len }))
}

/// One 64-byte block, used to give owned buffers the alignment of a memory map.
#[derive(Clone, Copy, zerocopy::FromBytes, zerocopy::IntoBytes, zerocopy::Immutable)]
#[repr(C, align(64))]
struct Block([u8; ALIGN]);

/// Owner of an aligned copy; exposes exactly the copied length.
struct AlignedBuf {
    blocks: Vec<Block>,
    len: usize,
}

impl AsRef<[u8]> for AlignedBuf {
    fn as_ref(&self) -> &[u8] {
        &zerocopy::IntoBytes::as_bytes(self.blocks.as_slice())[..self.len]
    }
}

/// Copies `data` into a buffer whose first byte is 64-byte aligned, so that sections can be
/// viewed as `&[f32]` / `&[u32]` exactly as from a memory map. O(n) copy.
pub fn aligned_copy(data: &[u8]) -> Bytes {
    let mut blocks = vec![Block([0; ALIGN]); data.len().div_ceil(ALIGN)];
    zerocopy::IntoBytes::as_mut_bytes(blocks.as_mut_slice())[..data.len()].copy_from_slice(data);
    Bytes::from_owner(AlignedBuf { blocks, len: data.len() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_copy_keeps_bytes_and_alignment() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
        let b = aligned_copy(&data);
        assert_eq!(&b[..], &data[..]);
        assert_eq!(b.as_ptr() as usize % ALIGN, 0);
        assert!(aligned_copy(&[]).is_empty());
    }

    #[test]
    fn map_file_reads_file_and_refuses_missing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x");
        std::fs::write(&p, b"hello").unwrap();
        assert_eq!(&map_file(&p).unwrap()[..], b"hello");
        let err = map_file(&dir.path().join("missing")).unwrap_err();
        assert!(err.to_string().contains("missing"), "{err}");
    }
}

/// What [`Index::open`](crate::Index::open) asks the kernel to read ahead of a
/// memory-mapped index file (`FIXDEX_PREFETCH`), so that the first searches of a fresh process
/// on a file not in the page cache do not wait for one page fault per graph node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefetch {
    /// Nothing: pages are read as searches touch them (the default; `FIXDEX_PREFETCH=none`).
    /// Chosen from measurements: on a 1M × 384 index (1.7 GB, int8 codes) on this project's
    /// 2-core VM (quiet, page cache emptied), open + the first 1,000-query batch at ef 16 took
    /// 1.07-1.25 s without prefetch, 1.04-1.22 s with [`Prefetch::Traversal`] and 1.01-1.07 s
    /// with [`Prefetch::All`] (which then slowed the next batch by a third while its
    /// readahead ran); warm: 0.15 s. A prefetch bought nothing measurable (issue 12 notes).
    None,
    /// The traversal working set, each space's graph levels and int8 codes (its f32 vectors
    /// when it has no codes), when it is at most a quarter of the available memory
    /// (`FIXDEX_PREFETCH=traversal`; for slow disks).
    Traversal,
    /// The whole file, when it is at most half of the available memory
    /// (`FIXDEX_PREFETCH=all`).
    All,
}

impl Prefetch {
    /// The policy named by `FIXDEX_PREFETCH` (`none`, `traversal`, `all`); the default,
    /// [`Prefetch::None`], when unset or unknown.
    pub fn from_env() -> Prefetch {
        match std::env::var("FIXDEX_PREFETCH").as_deref() {
            Ok("traversal") => Prefetch::Traversal,
            Ok("all") => Prefetch::All,
            _ => Prefetch::None,
        }
    }

    /// The share of available memory the prefetched bytes may take.
    fn budget(self) -> f64 {
        match self {
            Prefetch::None => 0.0,
            Prefetch::Traversal => 0.25,
            Prefetch::All => 0.5,
        }
    }
}

/// Asks the kernel to read `ranges` (byte ranges of the file at `path`) into the page cache
/// in the background (`posix_fadvise(POSIX_FADV_WILLNEED)`; returns at once), when their
/// total is within `policy`'s share of `MemAvailable`. Returns the bytes requested (0 when
/// nothing was, including on platforms without `posix_fadvise`). Failures are ignored: a
/// prefetch is a hint.
pub fn prefetch(path: &Path, ranges: &[std::ops::Range<usize>], policy: Prefetch) -> u64 {
    let total: u64 = ranges.iter().map(|r| r.len() as u64).sum();
    if total == 0 || policy == Prefetch::None {
        return 0;
    }
    match available_memory() {
        Some(avail) if (total as f64) <= policy.budget() * avail as f64 => {}
        _ => return 0,
    }
    advise(path, ranges).map_or(0, |()| total)
}

#[cfg(target_os = "linux")]
fn advise(path: &Path, ranges: &[std::ops::Range<usize>]) -> std::io::Result<()> {
    let file = File::open(path)?;
    for r in ranges {
        if let Some(len) = std::num::NonZeroU64::new(r.len() as u64) {
            rustix::fs::fadvise(&file, r.start as u64, Some(len), rustix::fs::Advice::WillNeed)?;
        }
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn advise(_: &Path, _: &[std::ops::Range<usize>]) -> std::io::Result<()> {
    Err(std::io::Error::other("posix_fadvise is used on Linux only"))
}

/// `MemAvailable` from /proc/meminfo, in bytes (Linux; `None` elsewhere or when unreadable).
fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb: u64 = text.lines().find(|l| l.starts_with("MemAvailable:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod prefetch_tests {
    use super::*;

    #[test]
    fn prefetch_requests_the_ranges_within_the_budget_and_nothing_under_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.bin");
        std::fs::write(&path, vec![7u8; 1 << 16]).unwrap();
        let ranges = [0..4096, 8192..(1 << 16)];
        let want = (4096 + (1 << 16) - 8192) as u64;
        assert_eq!(prefetch(&path, &ranges, Prefetch::None), 0);
        let got = prefetch(&path, &ranges, Prefetch::Traversal);
        if cfg!(target_os = "linux") {
            assert_eq!(got, want, "a 64 KiB request fits any machine's budget");
        } else {
            assert_eq!(got, 0);
        }
        assert_eq!(prefetch(&path, &[], Prefetch::All), 0);
        // A file that does not exist (e.g. removed after the map) is a hint that fails quietly.
        assert_eq!(prefetch(&dir.path().join("gone"), &ranges, Prefetch::Traversal), 0);
        let huge = vec![0..usize::MAX / 4, usize::MAX / 4..usize::MAX / 2];
        assert_eq!(prefetch(&path, &huge, Prefetch::All), 0, "beyond the memory budget: nothing requested");
    }
}
