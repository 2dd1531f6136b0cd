//! Read-only byte storage for index files: a memory map or an owned, 64-byte-aligned copy.
//!
//! This module holds the `mmap` call in [`map_file`], one of the workspace's two `unsafe`
//! sites (the other: calling the AVX512-BF16 kernel in `embed::bf16`).

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
#[allow(unsafe_code)]
pub fn map_file(path: &Path) -> Result<Bytes> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    if len == 0 {
        // mmap of an empty file fails on Linux; an empty index is rejected later anyway.
        return Ok(Bytes::new());
    }
    // SAFETY: index files are write-once. `IndexWriter` writes a temporary file and publishes
    // it by `rename`, so no process modifies or truncates a published file in place; a new
    // build replaces the directory entry, not the mapped inode. A user who truncates the file
    // by hand while it is mapped gets SIGBUS, as with every mmap-based reader.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
    Ok(Bytes::from_owner(map))
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
