//! The document store: bug-fix pairs as an Arrow IPC file inside the index.
//!
//! Schema (all non-null `Utf8`): `id, source, project, language, buggy_code, fixed_code,
//! root_cause, description, license, meta, action_label, action_reason, actions` (the last
//! three since format v2: the fix's repair actions, see [`Record::actions`]). Rows are written in batches of
//! [`BATCH_ROWS`] (the last may be shorter); row *i* of the store is document *i*, the
//! node with id *i* in every vector space. Reading is zero-copy: a batch is decoded straight
//! from the memory map when a row in it is requested.
//!
//! Python can read the section as is:
//! ```text
//! import pyarrow as pa, json, subprocess
//! info = json.loads(subprocess.check_output(["fixdex", "inspect", "idx.fdx", "--json"]))
//! docs = next(s for s in info["sections"] if s["kind"] == "docs")
//! buf = pa.memory_map("idx.fdx").read_buffer()[docs["offset"] : docs["offset"] + docs["len"]]
//! table = pa.ipc.open_file(buf).read_all()
//! ```

use std::io::Write;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_buffer::Buffer;
use arrow_ipc::reader::FileDecoder;
use arrow_ipc::writer::FileWriter;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use bytes::Bytes;

use crate::{Error, Record, Result};

/// Rows per Arrow record batch.
pub const BATCH_ROWS: usize = 256;

/// Column names, in schema order.
pub const COLUMNS: [&str; 13] = [
    "id",
    "source",
    "project",
    "language",
    "buggy_code",
    "fixed_code",
    "root_cause",
    "description",
    "license",
    "meta",
    "action_label",
    "action_reason",
    "actions",
];

/// The Arrow schema of the document store.
pub fn schema() -> SchemaRef {
    let fields: Vec<Field> = COLUMNS.iter().map(|c| Field::new(*c, DataType::Utf8, false)).collect();
    Arc::new(Schema::new(fields))
}

/// Streams records into an Arrow IPC file, [`BATCH_ROWS`] per batch.
pub struct DocsWriter<W: Write> {
    inner: FileWriter<W>,
    pending: Vec<Record>,
    rows: usize,
}

impl<W: Write> std::fmt::Debug for DocsWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocsWriter").field("rows", &self.rows).finish_non_exhaustive()
    }
}

impl<W: Write> DocsWriter<W> {
    /// Starts an Arrow IPC file on `out`.
    ///
    /// # Errors
    /// [`Error::Arrow`] when the schema cannot be written.
    pub fn new(out: W) -> Result<DocsWriter<W>> {
        Ok(DocsWriter { inner: FileWriter::try_new(out, &schema())?, pending: Vec::new(), rows: 0 })
    }

    /// Appends one record.
    ///
    /// # Errors
    /// [`Error::Arrow`] on a write failure.
    pub fn push(&mut self, r: Record) -> Result<()> {
        self.pending.push(r);
        if self.pending.len() == BATCH_ROWS {
            self.flush_batch()?;
        }
        Ok(())
    }

    /// Writes the last batch and the footer; returns the number of rows written.
    ///
    /// # Errors
    /// [`Error::Arrow`] on a write failure.
    pub fn finish(mut self) -> Result<usize> {
        self.flush_batch()?;
        self.inner.finish()?;
        Ok(self.rows)
    }

    fn flush_batch(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let cols: Vec<ArrayRef> = (0..COLUMNS.len())
            .map(|c| {
                let a: StringArray = self.pending.iter().map(|r| Some(r.fields()[c])).collect();
                Arc::new(a) as ArrayRef
            })
            .collect();
        self.inner.write(&RecordBatch::try_new(schema(), cols)?)?;
        self.rows += self.pending.len();
        self.pending.clear();
        Ok(())
    }
}

/// Read access to the documents of an index, decoding batches zero-copy from `bytes`.
#[derive(Debug)]
pub struct DocStore {
    buffer: Buffer,
    decoder: FileDecoder,
    /// (offset, metadata length, body length) of each record batch, bounds-checked.
    blocks: Vec<(usize, usize, usize)>,
}

impl DocStore {
    /// Parses the IPC footer of the document section. O(number of batches).
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the footer or schema is not what fixdex writes.
    pub fn open(bytes: Bytes) -> Result<DocStore> {
        let buffer = Buffer::from(bytes);
        let footer_bad = |m: &str| Error::corrupt(format!("document store: {m}"));
        if buffer.len() < 10 {
            return Err(footer_bad("too short"));
        }
        let trailer = buffer.len() - 10;
        let trailer_bytes: [u8; 10] = buffer[trailer..].try_into().expect("10 bytes");
        let footer_len =
            arrow_ipc::reader::read_footer_length(trailer_bytes).map_err(|e| footer_bad(&e.to_string()))?;
        let footer_start = trailer.checked_sub(footer_len).ok_or_else(|| footer_bad("footer too long"))?;
        let footer =
            arrow_ipc::root_as_footer(&buffer[footer_start..trailer]).map_err(|e| footer_bad(&e.to_string()))?;
        let fb_schema = footer.schema().ok_or_else(|| footer_bad("no schema"))?;
        let got = catch_arrow_panic(|| arrow_ipc::convert::try_fb_to_schema(fb_schema))
            .map_err(|m| footer_bad(&m))?
            .map_err(|e| footer_bad(&e.to_string()))?;
        if got.fields() != schema().fields() {
            return Err(footer_bad("unexpected schema"));
        }
        let mut blocks = Vec::new();
        for b in footer.recordBatches().into_iter().flatten() {
            let (off, meta, body) = (b.offset(), b.metaDataLength(), b.bodyLength());
            let (off, meta, body) = (usize::try_from(off), usize::try_from(meta), usize::try_from(body));
            let (Ok(off), Ok(meta), Ok(body)) = (off, meta, body) else {
                return Err(footer_bad("negative block offset"));
            };
            if off.checked_add(meta).and_then(|x| x.checked_add(body)).is_none_or(|e| e > footer_start) {
                return Err(footer_bad("record batch out of bounds"));
            }
            blocks.push((off, meta, body));
        }
        let decoder = FileDecoder::new(schema(), footer.version());
        Ok(DocStore { buffer, decoder, blocks })
    }

    /// Number of record batches.
    pub fn n_batches(&self) -> usize {
        self.blocks.len()
    }

    /// Decodes record batch `i` (zero-copy; validates offsets and UTF-8 of that batch).
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the batch cannot be decoded.
    pub fn batch(&self, i: usize) -> Result<RecordBatch> {
        let &(off, meta, body) = self.blocks.get(i).ok_or_else(|| Error::corrupt(format!("no record batch {i}")))?;
        let block = arrow_ipc::Block::new(off as i64, meta as i32, body as i64);
        let data = self.buffer.slice_with_length(off, meta + body);
        let bad = |m: String| Error::corrupt(format!("document batch {i}: {m}"));
        check_block(&data, meta, body).map_err(bad)?;
        catch_arrow_panic(|| self.decoder.read_record_batch(&block, &data))
            .map_err(bad)?
            .map_err(|e| bad(e.to_string()))?
            .ok_or_else(|| Error::corrupt(format!("document batch {i} is empty")))
    }

    /// Returns document `row`.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when `row` is out of range or its batch cannot be decoded.
    pub fn get(&self, row: usize) -> Result<Record> {
        let batch = self.batch(row / BATCH_ROWS)?;
        let r = row % BATCH_ROWS;
        if r >= batch.num_rows() {
            return Err(Error::corrupt(format!("document {row} is out of range")));
        }
        Ok(record_at(&batch, r))
    }

    /// Calls `f` with each row number and the text of the columns `names` (in that order;
    /// a null is `""`), decoding only those columns' values: a pass over one or two fields
    /// of every document without building [`Record`]s. O(store size) to decode batches,
    /// O(those columns) to read.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when a batch cannot be decoded; [`Error::InvalidParameter`] for a
    /// name that is not a column of [`schema`].
    pub fn for_each_fields<const N: usize>(
        &self,
        names: [&str; N],
        mut f: impl FnMut(usize, [&str; N]) -> Result<()>,
    ) -> Result<usize> {
        let schema = schema();
        let mut idx = [0usize; N];
        for (slot, name) in idx.iter_mut().zip(names) {
            *slot = schema.index_of(name).map_err(|_| Error::InvalidParameter {
                name: "column",
                reason: format!("{name:?} is not a document column"),
            })?;
        }
        let mut row = 0;
        for i in 0..self.blocks.len() {
            let batch = self.batch(i)?;
            let cols: Vec<&StringArray> = idx
                .iter()
                .map(|&c| batch.column(c).as_any().downcast_ref::<StringArray>().expect("schema checked"))
                .collect();
            for r in 0..batch.num_rows() {
                let vals: [&str; N] = std::array::from_fn(|k| if cols[k].is_null(r) { "" } else { cols[k].value(r) });
                f(row, vals)?;
                row += 1;
            }
        }
        Ok(row)
    }

    /// Decodes every batch, in order, calling `f` with each row number and record.
    /// O(store size); used by `verify` and exports.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when a batch cannot be decoded or is not full-sized before the last.
    pub fn for_each(&self, mut f: impl FnMut(usize, Record) -> Result<()>) -> Result<usize> {
        let mut row = 0;
        for i in 0..self.blocks.len() {
            let batch = self.batch(i)?;
            if i + 1 < self.blocks.len() && batch.num_rows() != BATCH_ROWS {
                return Err(Error::corrupt(format!("document batch {i} has {} rows", batch.num_rows())));
            }
            for r in 0..batch.num_rows() {
                f(row, record_at(&batch, r))?;
                row += 1;
            }
        }
        Ok(row)
    }
}

/// Runs `decode`, a call into arrow-rs on bytes read from a file, and turns a panic into
/// an error carrying the panic's message. arrow-rs 60 panics rather than fails on some
/// damaged inputs (issue 8: an offsets buffer whose length is not a whole number of
/// offsets), so decoding outside bytes goes through here. Relies on unwinding (the
/// default `panic = "unwind"`); the panic hook still prints the panic to stderr.
///
/// # Errors
/// The panic's message, when `decode` panicked.
pub fn catch_arrow_panic<T>(decode: impl FnOnce() -> T) -> std::result::Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(decode)).map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_owned());
        format!("the Arrow decoder failed: {message}")
    })
}

/// Checks the message of an IPC file block (`meta` bytes of metadata with its length
/// prefix, then `body` bytes; `data` holds at least the metadata) before arrow-ipc decodes
/// it: the metadata is longer than its prefix, and every buffer lies inside the body
/// ([`check_message_buffers`]). arrow-ipc 60 panics on either (issue 8). O(buffers).
///
/// # Errors
/// What is wrong with the message, in words.
pub fn check_block(data: &[u8], meta: usize, body: usize) -> std::result::Result<(), String> {
    if meta < 8 || data.len() < 8 {
        return Err(format!("message metadata of {meta} bytes is shorter than its prefix"));
    }
    // As arrow-ipc's `parse_message`: a continuation marker and a length, or (before
    // format 0.15) a length alone.
    let flatbuffer = if data[..4] == [0xff; 4] { &data[8..] } else { &data[4..] };
    let message = arrow_ipc::root_as_message(flatbuffer).map_err(|e| format!("unreadable message: {e}"))?;
    check_message_buffers(&message, body as u64)
}

/// Checks that every buffer of an IPC record batch or dictionary batch `message` lies
/// inside a message body of `body_len` bytes; other messages pass. arrow-ipc 60 slices
/// buffers without this check and panics on a damaged file (issue 8). O(buffers).
///
/// # Errors
/// The first buffer outside the body, in words.
pub fn check_message_buffers(message: &arrow_ipc::Message<'_>, body_len: u64) -> std::result::Result<(), String> {
    let buffers = match message.header_type() {
        arrow_ipc::MessageHeader::RecordBatch => message.header_as_record_batch().and_then(|b| b.buffers()),
        arrow_ipc::MessageHeader::DictionaryBatch => {
            message.header_as_dictionary_batch().and_then(|d| d.data()).and_then(|b| b.buffers())
        }
        _ => None,
    };
    for (i, b) in buffers.into_iter().flatten().enumerate() {
        let end =
            u64::try_from(b.offset()).ok().zip(u64::try_from(b.length()).ok()).and_then(|(o, l)| o.checked_add(l));
        if end.is_none_or(|end| end > body_len) {
            return Err(format!(
                "buffer {i} (offset {}, {} bytes) lies outside the {body_len}-byte message body",
                b.offset(),
                b.length()
            ));
        }
    }
    Ok(())
}

/// Checks the repair-action columns of one document (format v2) without interpreting
/// them: `action_label` is empty or an upper-case name (`A-Z`, `_`); an empty label comes
/// with an empty `action_reason` and `actions`; a label comes with `actions` holding a JSON
/// array of objects. O(length of `actions`).
///
/// # Errors
/// What is wrong, in words, naming the column.
pub fn check_action_columns(rec: &Record) -> std::result::Result<(), String> {
    let label = &rec.action_label;
    if label.is_empty() {
        if !rec.action_reason.is_empty() || !rec.actions.is_empty() {
            return Err("actions without an action_label".into());
        }
        return Ok(());
    }
    if !label.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') {
        return Err(format!("action_label {label:?} is not an action name"));
    }
    let list: Vec<serde_json::Value> =
        serde_json::from_str(&rec.actions).map_err(|e| format!("the actions column is not a JSON array: {e}"))?;
    match list.iter().position(|a| !a.is_object()) {
        Some(i) => Err(format!("action {i} of the actions column is not a JSON object")),
        None => Ok(()),
    }
}

fn record_at(batch: &RecordBatch, r: usize) -> Record {
    let col = |c: usize| -> String {
        let a = batch.column(c).as_any().downcast_ref::<StringArray>().expect("schema checked");
        if a.is_null(r) { String::new() } else { a.value(r).to_string() }
    };
    Record {
        id: col(0),
        source: col(1),
        project: col(2),
        language: col(3),
        buggy_code: col(4),
        fixed_code: col(5),
        root_cause: col(6),
        description: col(7),
        license: col(8),
        meta: col(9),
        action_label: col(10),
        action_reason: col(11),
        actions: col(12),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(i: usize) -> Record {
        Record {
            id: format!("t:{i}"),
            language: if i.is_multiple_of(2) { "java".into() } else { "python".into() },
            buggy_code: format!("int f() {{ return {i}; }}"),
            fixed_code: format!("int f() {{ return {}; }}", i + 1),
            ..Record::default()
        }
    }

    #[test]
    fn round_trip_across_batches() {
        let mut out = Vec::new();
        let mut w = DocsWriter::new(&mut out).unwrap();
        let n = BATCH_ROWS * 2 + 7;
        for i in 0..n {
            w.push(rec(i)).unwrap();
        }
        assert_eq!(w.finish().unwrap(), n);
        let store = DocStore::open(crate::storage::aligned_copy(&out)).unwrap();
        assert_eq!(store.n_batches(), 3);
        for i in [0, 1, BATCH_ROWS - 1, BATCH_ROWS, n - 1] {
            assert_eq!(store.get(i).unwrap(), rec(i));
        }
        assert!(store.get(n).is_err());
        let mut seen = 0;
        assert_eq!(
            store
                .for_each(|row, r| {
                    assert_eq!(r, rec(row));
                    seen += 1;
                    Ok(())
                })
                .unwrap(),
            n
        );
        assert_eq!(seen, n);
    }

    #[test]
    fn garbage_is_refused() {
        assert!(DocStore::open(Bytes::from_static(b"0123456789abcdef")).is_err());
        assert!(DocStore::open(Bytes::new()).is_err());
    }
}
