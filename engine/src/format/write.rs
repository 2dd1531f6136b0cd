//! [`IndexWriter`]: streams sections into a temporary file with running CRC32C checksums,
//! writes the section table and the header last, fsyncs, and publishes by `rename`.

use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use zerocopy::IntoBytes;
use zerocopy::little_endian::{U32, U64};

use super::{FileHeader, HEADER_LEN, NO_SPACE, SectionEntry, SectionKind};
use crate::output;
use crate::storage::ALIGN;
use crate::{Error, Result};

/// Writes an index file. Nothing appears under the final path until
/// [`IndexWriter::commit`] succeeds; dropping the writer earlier deletes the temporary file.
///
/// The temporary file lives next to the final path (same file system, so `rename` is atomic)
/// and is named `<name>.tmp-<pid>-<nanos>`.
#[derive(Debug)]
pub struct IndexWriter {
    path: PathBuf,
    tmp: PathBuf,
    out: BufWriter<File>,
    pos: u64,
    entries: Vec<SectionEntry>,
    committed: bool,
}

/// A section being written: an [`io::Write`](std::io::Write) that counts bytes and updates a
/// CRC32C. Obtained from [`IndexWriter::section`]; call [`SectionSink::finish`] when done.
#[derive(Debug)]
pub struct SectionSink<'a> {
    writer: &'a mut IndexWriter,
    entry: SectionEntry,
    len: u64,
    crc: u32,
}

impl IndexWriter {
    /// Starts writing an index that will be published at `path`: at the file a symbolic
    /// link there points to, when it is one (the link stays; [`crate::output::target`]).
    ///
    /// # Errors
    /// [`Error::Output`] naming `path` when `path` is `-`, a folder or an existing file that
    /// is not a regular file (a device, a pipe), or the temporary file cannot be created
    /// next to it (the folder does not exist, is not a folder, or is read-only).
    pub fn create(path: &Path) -> Result<IndexWriter> {
        let target = output::target(path)?;
        let tmp = output::temp_path(&target);
        let file = File::create(&tmp).map_err(|e| output::cannot_create(path, &target, &e))?;
        let mut w = IndexWriter {
            path: target,
            tmp,
            out: BufWriter::with_capacity(1 << 20, file),
            pos: 0,
            entries: Vec::new(),
            committed: false,
        };
        w.put(&[0u8; HEADER_LEN])?;
        Ok(w)
    }

    /// Path of the temporary file being written.
    pub fn temp_path(&self) -> &Path {
        &self.tmp
    }

    /// Writes a whole section from memory.
    ///
    /// # Errors
    /// [`Error::Io`] on a write failure.
    pub fn write_section(&mut self, kind: SectionKind, space: Option<u32>, level: u32, bytes: &[u8]) -> Result<()> {
        let mut sink = self.section(kind, space, level)?;
        sink.write_all(bytes).map_err(|e| Error::io(&sink.writer.path, e))?;
        sink.finish()
    }

    /// Starts a streamed section (aligned to 64 bytes). Write into the returned sink, then
    /// call [`SectionSink::finish`].
    ///
    /// # Errors
    /// [`Error::Io`] on a write failure while padding.
    pub fn section(&mut self, kind: SectionKind, space: Option<u32>, level: u32) -> Result<SectionSink<'_>> {
        self.pad_to_align()?;
        let entry = SectionEntry {
            kind: U32::new(kind as u32),
            space: U32::new(space.unwrap_or(NO_SPACE)),
            level: U32::new(level),
            elem_size: U32::new(kind.elem_size()),
            offset: U64::new(self.pos),
            len: U64::ZERO,
            crc: U32::ZERO,
            reserved: [0; 12],
        };
        Ok(SectionSink { writer: self, entry, len: 0, crc: 0 })
    }

    /// Writes the section table and the header, fsyncs, and atomically renames the file to
    /// its final path (replacing any previous index there), then fsyncs the directory.
    ///
    /// `n_docs`, `dim` and `n_spaces` go into the header.
    ///
    /// # Errors
    /// [`Error::Io`] on any write, sync or rename failure; the old index at the final path,
    /// if any, is then untouched.
    pub fn commit(mut self, n_docs: u64, dim: u32, n_spaces: u32) -> Result<()> {
        self.pad_to_align()?;
        let table_offset = self.pos;
        let table: Vec<u8> = self.entries.as_bytes().to_vec();
        self.put(&table)?;
        let mut header = FileHeader::new();
        header.file_len = U64::new(self.pos);
        header.section_table_offset = U64::new(table_offset);
        header.section_count = U32::new(self.entries.len() as u32);
        header.section_table_crc = U32::new(crc32c::crc32c(&table));
        header.n_docs = U64::new(n_docs);
        header.dim = U32::new(dim);
        header.n_spaces = U32::new(n_spaces);
        header.header_crc = U32::new(header.compute_crc());
        let io = |e| Error::io(&self.path, e);
        self.out.seek(SeekFrom::Start(0)).map_err(io)?;
        self.out.write_all(header.as_bytes()).map_err(io)?;
        self.out.flush().map_err(io)?;
        self.out.get_ref().sync_all().map_err(io)?;
        std::fs::rename(&self.tmp, &self.path).map_err(|e| Error::io(&self.path, e))?;
        self.committed = true;
        sync_parent(&self.path);
        Ok(())
    }

    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.out.write_all(bytes).map_err(|e| Error::io(&self.path, e))?;
        self.pos += bytes.len() as u64;
        Ok(())
    }

    fn pad_to_align(&mut self) -> Result<()> {
        let pad = (ALIGN - (self.pos as usize % ALIGN)) % ALIGN;
        self.put(&[0u8; ALIGN][..pad])
    }
}

impl Drop for IndexWriter {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

impl Write for SectionSink<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.writer.out.write(buf)?;
        self.crc = crc32c::crc32c_append(self.crc, &buf[..n]);
        self.len += n as u64;
        self.writer.pos += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.out.flush()
    }
}

impl SectionSink<'_> {
    /// Bytes written to this section so far.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether nothing has been written yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Records the section in the table.
    ///
    /// # Errors
    /// Infallible today; returns `Result` so callers need not change if it starts syncing.
    pub fn finish(mut self) -> Result<()> {
        self.entry.len = U64::new(self.len);
        self.entry.crc = U32::new(self.crc);
        self.writer.entries.push(self.entry);
        Ok(())
    }
}

fn sync_parent(path: &Path) {
    // Best effort: makes the rename durable on file systems that need it.
    if let Some(d) = path.parent().filter(|d| !d.as_os_str().is_empty()).and_then(|d| File::open(d).ok()) {
        let _ = d.sync_all();
    }
}
