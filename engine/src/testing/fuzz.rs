//! Fuzzing support shared by the `fuzz_*` tests of every crate and the cargo-fuzz targets
//! in `fuzz/` (issue 8, docs/fuzzing.md): the case count and seed of the in-CI property
//! tests, and index files damaged on purpose.
//!
//! Random bytes almost never get past the header and section checksums, so most damage
//! here is *structured*: a small program ([`apply_program`]) writes chosen header fields,
//! section-table entries, section contents and metadata values, and [`reseal`] then
//! recomputes every checksum, so the reader's checks after the CRCs (shapes, offsets,
//! graph invariants, the Arrow document store, metadata values) see the damage. Whatever
//! the damage, [`exercise`] states what must hold: opening, verifying and searching never
//! panic, and an index that verifies gives finite scores.

use std::path::Path;

use zerocopy::little_endian::{U32, U64};
use zerocopy::{FromBytes, IntoBytes};

use crate::embed::Embedder;
use crate::format::{ENTRY_LEN, FileHeader, HEADER_LEN, SectionEntry};
use crate::hnsw::{self, HnswConfig};
use crate::{Filter, Index, IndexBuilder, Result, SearchParams, Space};

/// Environment variable that sets the number of cases of every `fuzz_*` test.
pub const CASES_VAR: &str = "FIXDEX_FUZZ_CASES";
/// Environment variable that sets the seed of every `fuzz_*` test.
pub const SEED_VAR: &str = "FIXDEX_FUZZ_SEED";
/// The seed used when [`SEED_VAR`] is unset: runs are reproducible by default.
pub const DEFAULT_SEED: u64 = 0x00F1_8DE8_F022;

/// Environment variable naming the folder where `fuzz_*` tests also write the valid inputs
/// they mutate, as seeds of the cargo-fuzz targets (`fuzz/make-seeds.sh`).
pub const SEEDS_VAR: &str = "FIXDEX_FUZZ_SEEDS";

/// Writes `bytes` as seed `name` of the cargo-fuzz target `target`
/// (`$FIXDEX_FUZZ_SEEDS/target/name`) when [`SEEDS_VAR`] is set; does nothing otherwise.
///
/// # Panics
/// When the seed folder cannot be written.
pub fn write_seed(target: &str, name: &str, bytes: &[u8]) {
    let Some(root) = std::env::var_os(SEEDS_VAR) else { return };
    let dir = Path::new(&root).join(target);
    std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(dir.join(name), bytes)).unwrap_or_else(|e| {
        panic!("cannot write seed {name} to {}: {e}", dir.display());
    });
}

/// Cases a `fuzz_*` test runs: [`CASES_VAR`] when set to a number (to fuzz longer
/// locally), else `default` (sized so that all of them fit CI's budget).
pub fn cases(default: u32) -> u32 {
    std::env::var(CASES_VAR).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Seed of the `fuzz_*` tests: [`SEED_VAR`] when set to a number, else [`DEFAULT_SEED`].
pub fn seed() -> u64 {
    std::env::var(SEED_VAR).ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_SEED)
}

/// Documents in [`small_index`]: enough for two graph levels, few enough that a random
/// byte position often lands in a small table.
pub const SMALL_INDEX_DOCS: usize = 12;

/// Writes a small valid index to `dir/small.fdx` and returns its bytes: [`SMALL_INDEX_DOCS`]
/// sample records, spaces `code+cause` and `code`, int8 codes (so every section kind is
/// present), built with the tiny model.
///
/// # Errors
/// Embedding, graph or write errors (none in practice).
pub fn small_index(dir: &Path) -> Result<Vec<u8>> {
    let model = super::tiny_embedder();
    let docs = super::sample_records(SMALL_INDEX_DOCS);
    // m = 2: about half the nodes on level 1, a quarter on level 2.
    let cfg = HnswConfig { m: 2, ..HnswConfig::default() };
    let mut b = IndexBuilder::new(model.identity().to_meta(), super::text_meta()).with_int8(true);
    for space in [Space::CodeCause, Space::Code] {
        let v = super::embed_records(&model, &docs, space)?;
        let g = hnsw::build(&v, model.dim(), &cfg)?;
        b.add_space(space, v, g, &cfg)?;
    }
    let path = dir.join("small.fdx");
    b.write(&path, &docs, serde_json::json!({"fuzz": true}))?;
    std::fs::read(&path).map_err(|e| crate::Error::io(&path, e))
}

/// Recomputes every checksum of a (damaged) index in place: the CRC32C of each section
/// that lies inside the file, the section table's CRC, `file_len`, and the header CRC.
/// Entries or a table that point outside the file are left as they are. Never panics.
pub fn reseal(bytes: &mut [u8]) {
    let Ok((mut header, _)) = FileHeader::read_from_prefix(bytes) else { return };
    let len = bytes.len();
    let table = usize::try_from(header.section_table_offset.get()).ok().and_then(|start| {
        let end = (header.section_count.get() as usize).checked_mul(ENTRY_LEN)?.checked_add(start)?;
        (end <= len).then_some(start..end)
    });
    if let Some(table) = table {
        for i in 0..(table.len() / ENTRY_LEN) {
            let at = table.start + i * ENTRY_LEN;
            let Ok(mut e) = SectionEntry::read_from_bytes(&bytes[at..at + ENTRY_LEN]) else { continue };
            if let Some(range) = entry_range(&e, len) {
                e.crc = U32::new(crc32c::crc32c(&bytes[range]));
                bytes[at..at + ENTRY_LEN].copy_from_slice(e.as_bytes());
            }
        }
        header.section_table_crc = U32::new(crc32c::crc32c(&bytes[table]));
    }
    header.file_len = U64::new(len as u64);
    header.header_crc = U32::new(header.compute_crc());
    bytes[..HEADER_LEN].copy_from_slice(header.as_bytes());
}

/// The byte range of a section entry, when it lies inside a file of `len` bytes.
fn entry_range(e: &SectionEntry, len: usize) -> Option<std::ops::Range<usize>> {
    let start = usize::try_from(e.offset.get()).ok()?;
    let end = start.checked_add(usize::try_from(e.len.get()).ok()?)?;
    (end <= len).then_some(start..end)
}

/// Where the section table lies and how many entries it has, if it is inside the file.
fn table_at(bytes: &[u8]) -> Option<(usize, usize)> {
    let (header, _) = FileHeader::read_from_prefix(bytes).ok()?;
    let start = usize::try_from(header.section_table_offset.get()).ok()?;
    let count = header.section_count.get() as usize;
    let end = count.checked_mul(ENTRY_LEN)?.checked_add(start)?;
    (end <= bytes.len() && count > 0).then_some((start, count))
}

/// Moves section `entry` to the end of the file with new `content` (64-byte aligned), and
/// the section table after it (sections must lie before the table), zeroing the old bytes
/// of both, so that a section can change length. Checksums are left stale: [`reseal`].
pub fn relocate_section(bytes: &mut Vec<u8>, entry: usize, content: &[u8]) {
    let Some((table, count)) = table_at(bytes) else { return };
    let mut entries = bytes[table..table + count * ENTRY_LEN].to_vec();
    bytes[table..table + count * ENTRY_LEN].fill(0);
    let at = (entry % count) * ENTRY_LEN;
    let Ok(mut e) = SectionEntry::read_from_bytes(&entries[at..at + ENTRY_LEN]) else { return };
    if let Some(old) = entry_range(&e, bytes.len()) {
        bytes[old].fill(0);
    }
    bytes.resize(bytes.len().next_multiple_of(64), 0);
    e.offset = U64::new(bytes.len() as u64);
    e.len = U64::new(content.len() as u64);
    entries[at..at + ENTRY_LEN].copy_from_slice(e.as_bytes());
    bytes.extend_from_slice(content);
    bytes.resize(bytes.len().next_multiple_of(64), 0);
    let table_at = bytes.len() as u64;
    put(bytes, 24, 8, table_at); // FileHeader::section_table_offset
    bytes.extend_from_slice(&entries);
}

/// Reads a damage program: bytes past the end read as zero.
struct Program<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Program<'_> {
    fn u8(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// A value that often sits on a boundary: 0, 1, powers of two ± 1, the all-ones
    /// patterns, IEEE specials; else random bits.
    fn value(&mut self) -> u64 {
        const SPECIAL: [u64; 16] = [
            0,
            1,
            2,
            63,
            64,
            255,
            256,
            65_535,
            1 << 31,
            u32::MAX as u64,
            1 << 32,
            i64::MAX as u64,
            u64::MAX,
            u64::MAX - 63,
            0x7FC0_0000, // f32 NaN
            0x7149_F2CA, // f32 1e30
        ];
        match self.u8() % 4 {
            0 | 1 => SPECIAL[usize::from(self.u8()) % SPECIAL.len()],
            2 => u64::from(self.u8()),
            _ => u64::from(self.u32()) | (u64::from(self.u32()) << 32),
        }
    }
}

/// Writes the low `width` bytes of `value` at `at`, when they fit.
fn put(bytes: &mut [u8], at: usize, width: usize, value: u64) {
    if let Some(dst) = at.checked_add(width).and_then(|end| bytes.get_mut(at..end)) {
        dst.copy_from_slice(&value.to_le_bytes()[..width]);
    }
}

/// (offset, width) of the writable fields of [`FileHeader`] and [`SectionEntry`].
const HEADER_FIELDS: [(usize, usize); 11] =
    [(0, 8), (8, 4), (12, 4), (16, 8), (24, 8), (32, 4), (36, 4), (40, 8), (48, 4), (52, 4), (124, 4)];
const ENTRY_FIELDS: [(usize, usize); 7] = [(0, 4), (4, 4), (8, 4), (12, 4), (16, 8), (24, 8), (32, 4)];

/// Bytes per operation of a damage program: an opcode and its operands.
pub const OP_LEN: usize = 16;

/// Applies the damage program `program` to a copy of the valid index `base` and returns the
/// damaged file.
///
/// `program[0]` is a flag byte: when it is even the result is [`reseal`]ed at the end, so
/// that the damage reaches the checks after the CRCs. The rest is read as operations of
/// [`OP_LEN`] bytes (an opcode, then operands; missing bytes read as 0): flip a byte;
/// write a header field; write a section-table field; write 1, 4 or 8 bytes inside a
/// section; replace a metadata value; truncate; extend; copy one entry's location (or the
/// whole entry) over another; reseal. Never panics, whatever `program` holds; O(file size)
/// per operation at most.
#[must_use]
pub fn apply_program(base: &[u8], program: &[u8]) -> Vec<u8> {
    let mut bytes = base.to_vec();
    let ops = program.get(1..).unwrap_or(&[]);
    for op in ops.chunks(OP_LEN) {
        step(&mut bytes, &mut Program { bytes: op, at: 0 });
    }
    if program.first().is_none_or(|b| b.is_multiple_of(2)) {
        reseal(&mut bytes);
    }
    bytes
}

fn step(bytes: &mut Vec<u8>, p: &mut Program<'_>) {
    let len = bytes.len().max(1);
    match p.u8() % 10 {
        0 => {
            let at = p.u32() as usize % len;
            let mask = p.u8() | 1;
            if let Some(b) = bytes.get_mut(at) {
                *b ^= mask;
            }
        }
        1 => {
            let (at, width) = HEADER_FIELDS[usize::from(p.u8()) % HEADER_FIELDS.len()];
            let v = p.value();
            put(bytes, at, width, v);
        }
        2 => damage_entry(bytes, p),
        3 => damage_section(bytes, p),
        4 => damage_meta(bytes, p),
        5 => {
            let keep = p.u32() as usize % len;
            bytes.truncate(keep);
        }
        6 => {
            let n = usize::from(p.u8()) * 8;
            let fill = p.u8();
            bytes.resize(bytes.len() + n, fill);
        }
        7 | 8 => copy_entry_fields(bytes, p),
        _ => reseal(bytes),
    }
}

/// Writes one field of a section-table entry.
fn damage_entry(bytes: &mut [u8], p: &mut Program<'_>) {
    let (entry, field, v) = (p.u8(), p.u8(), p.value());
    let Some((table, count)) = table_at(bytes) else { return };
    let (off, width) = ENTRY_FIELDS[usize::from(field) % ENTRY_FIELDS.len()];
    put(bytes, table + (usize::from(entry) % count) * ENTRY_LEN + off, width, v);
}

/// Writes 1, 4 or 8 bytes at an aligned position inside a section.
fn damage_section(bytes: &mut [u8], p: &mut Program<'_>) {
    let (entry, pos, width, v) = (p.u8(), p.u32() as usize, [1, 4, 8][usize::from(p.u8()) % 3], p.value());
    let Some((table, count)) = table_at(bytes) else { return };
    let at = table + (usize::from(entry) % count) * ENTRY_LEN;
    let Ok(e) = SectionEntry::read_from_bytes(&bytes[at..at + ENTRY_LEN]) else { return };
    let Some(range) = entry_range(&e, bytes.len()).filter(|r| !r.is_empty()) else { return };
    let slot = (pos % range.len()) / width * width;
    put(bytes, range.start + slot, width, v);
}

/// Replaces one leaf of the metadata JSON (numbers, strings, booleans, nulls, in document
/// order) with a boundary value, and relocates the metadata section to fit.
fn damage_meta(bytes: &mut Vec<u8>, p: &mut Program<'_>) {
    let (pick, kind, v) = (p.u8(), p.u8(), p.value());
    let Some((table, count)) = table_at(bytes) else { return };
    let meta_entry = (0..count).find(|&i| bytes[table + i * ENTRY_LEN..][..4] == 1u32.to_le_bytes());
    let Some(i) = meta_entry else { return };
    let Ok(e) = SectionEntry::read_from_bytes(&bytes[table + i * ENTRY_LEN..][..ENTRY_LEN]) else { return };
    let Some(range) = entry_range(&e, bytes.len()) else { return };
    let Ok(mut meta) = serde_json::from_slice::<serde_json::Value>(&bytes[range]) else { return };
    let mut leaves = Vec::new();
    collect_leaves(&mut meta, &mut leaves);
    let n = leaves.len();
    if let Some(leaf) = leaves.into_iter().nth(usize::from(pick) % n.max(1)) {
        *leaf = meta_value(kind, v);
    }
    relocate_section(bytes, i, meta.to_string().as_bytes());
}

fn collect_leaves<'v>(v: &'v mut serde_json::Value, out: &mut Vec<&'v mut serde_json::Value>) {
    match v {
        serde_json::Value::Object(map) => map.values_mut().for_each(|x| collect_leaves(x, out)),
        serde_json::Value::Array(items) => items.iter_mut().for_each(|x| collect_leaves(x, out)),
        leaf => out.push(leaf),
    }
}

/// A JSON value to put in the metadata: big and negative numbers, fractions, odd strings
/// (multi-byte characters where code slices by bytes), or another type.
fn meta_value(kind: u8, v: u64) -> serde_json::Value {
    use serde_json::json;
    match kind % 8 {
        0 => json!(v),
        1 => json!(v as i64),
        2 => json!(v as f64 / 3.0),
        3 => json!(format!("a{}", "€".repeat((v % 40) as usize))),
        4 => json!(format!("{v:x}")),
        5 => json!(null),
        6 => json!(["x", v]),
        _ => json!(v.is_multiple_of(2)),
    }
}

/// Copies the offset and length (or the whole entry) of one section-table entry over
/// another, pointing two sections at the same bytes.
fn copy_entry_fields(bytes: &mut [u8], p: &mut Program<'_>) {
    let (from, to, whole) = (p.u8(), p.u8(), p.u8().is_multiple_of(2));
    let Some((table, count)) = table_at(bytes) else { return };
    let (from, to) = (table + (usize::from(from) % count) * ENTRY_LEN, table + (usize::from(to) % count) * ENTRY_LEN);
    let (skip, width) = if whole { (0, ENTRY_LEN) } else { (16, 16) };
    let src: Vec<u8> = bytes[from + skip..from + skip + width].to_vec();
    bytes[to + skip..to + skip + width].copy_from_slice(&src);
}

/// What [`exercise`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// `open` refused the file.
    Refused,
    /// `open` accepted it and `verify` refused it.
    Damaged,
    /// `open` and `verify` accepted it.
    Verified,
}

/// Opens `bytes` as an index and, when that works, reads every table, document and id,
/// verifies it, and searches every space with f32 and int8 traversal, exact and filtered.
///
/// # Panics
/// When reading panics (the bug the fuzz tests look for), or when an index that passed
/// `verify` returns a score that is not finite or lies outside [-1.01, 1.01].
pub fn exercise(bytes: &[u8]) -> Outcome {
    let Ok(index) = Index::from_bytes(bytes) else { return Outcome::Refused };
    read_everything(&index);
    let verified = index.verify().is_ok();
    for space in index.spaces() {
        let query = match index.vectors(space) {
            Ok(v) if v.len() >= index.dim() && index.dim() > 0 => v[..index.dim()].to_vec(),
            _ => vec![0.5; index.dim()],
        };
        for params in search_variants(space) {
            let Ok(hits) = index.search(&query, &params) else { continue };
            for h in hits {
                let _ = index.doc(h.row);
                let sane = h.score.is_finite() && h.score.abs() <= 1.01;
                assert!(!verified || sane, "a verified index gave score {} for row {} ({params:?})", h.score, h.row);
            }
        }
    }
    if verified { Outcome::Verified } else { Outcome::Damaged }
}

/// Every accessor that reads a table or a document; results are ignored, panics are not.
fn read_everything(index: &Index) {
    static MODEL: std::sync::OnceLock<crate::embed::BertEmbedder> = std::sync::OnceLock::new();
    let _ = index.check_model(MODEL.get_or_init(super::tiny_embedder));
    let _ = (index.meta(), index.sections(), index.file_len(), index.format_version());
    let _ = (index.doc_languages().len(), index.doc_projects().len());
    for i in 0..index.meta().n_projects.min(64) as u32 + 1 {
        let _ = index.project_name(i);
    }
    let _ = index.project_index("proj1");
    for row in (0..index.len().min(64) as u32).chain([index.len() as u32, u32::MAX]) {
        let _ = index.doc(row);
    }
    let _ = index.find_id("test:3");
    let _ = index.find_id("missing");
    for space in index.spaces() {
        let _ = index.graph(space).map(|g| g.check());
        let _ = index.codes(space);
    }
}

/// The searches [`exercise`] runs: HNSW with int8 and f32 traversal, exact, and filtered.
fn search_variants(space: Space) -> Vec<SearchParams> {
    let base = SearchParams { space, k: 5, ..SearchParams::default() };
    let filter = Filter {
        languages: vec!["java".into()],
        exclude_ids: vec!["test:0".into()],
        exclude_projects: vec!["proj2".into()],
        ..Filter::default()
    };
    vec![
        base.clone(),
        SearchParams { int8: false, ..base.clone() },
        SearchParams { exact: true, ..base.clone() },
        SearchParams { filter, k: 20, ..base },
    ]
}

/// Sets the offset (or, with `length`, the length) of buffer `buffer` of the first record
/// batch in Arrow IPC data (a file with the `ARROW1` magic, or a stream) to `value`, as a
/// damaged file would; returns whether there was such a buffer. Record batches whose
/// buffers lie outside the message body, or whose offsets buffer is not a whole number of
/// offsets, made arrow-ipc 60 panic (issue 8).
pub fn set_ipc_buffer(ipc: &mut [u8], buffer: usize, length: bool, value: i64) -> bool {
    let Some(pos) = first_batch_at(ipc) else { return false };
    let Some(meta) = message_at(ipc, pos) else { return false };
    let Ok(message) = arrow_ipc::root_as_message(meta) else { return false };
    let Some(b) = message.header_as_record_batch().and_then(|b| b.buffers()).and_then(|b| b.iter().nth(buffer)) else {
        return false;
    };
    // Flatbuffer structs are inline bytes: the buffer's position is its address in `ipc`.
    let at = std::ptr::from_ref(b) as usize - ipc.as_ptr() as usize + if length { 8 } else { 0 };
    ipc[at..at + 8].copy_from_slice(&value.to_le_bytes());
    true
}

/// The metadata flatbuffer of the encapsulated IPC message at `pos` (continuation marker,
/// length, flatbuffer).
fn message_at(ipc: &[u8], pos: usize) -> Option<&[u8]> {
    let len = u32::from_le_bytes(ipc.get(pos + 4..pos + 8)?.try_into().ok()?) as usize;
    ipc.get(pos + 8..pos + 8 + len)
}

/// Where the first record batch message starts: from the footer of an IPC file, or by
/// walking the messages of a stream.
fn first_batch_at(ipc: &[u8]) -> Option<usize> {
    if ipc.starts_with(b"ARROW1") {
        let trailer = ipc.len().checked_sub(10)?;
        let len = arrow_ipc::reader::read_footer_length(ipc[trailer..].try_into().ok()?).ok()?;
        let footer = arrow_ipc::root_as_footer(ipc.get(trailer.checked_sub(len)?..trailer)?).ok()?;
        return usize::try_from(footer.recordBatches()?.iter().next()?.offset()).ok();
    }
    let mut pos = 0;
    loop {
        let message = arrow_ipc::root_as_message(message_at(ipc, pos)?).ok()?;
        if message.header_type() == arrow_ipc::MessageHeader::RecordBatch {
            return Some(pos);
        }
        pos += 8 + message_at(ipc, pos)?.len() + usize::try_from(message.bodyLength()).ok()?;
    }
}
