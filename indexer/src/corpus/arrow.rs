//! The Parquet and Arrow IPC readers, which share the `RecordBatch` → record conversion.
//!
//! The schema is checked once, before any row is read: a required column that is missing
//! or not a string column is a file error. String columns may be `Utf8`, `LargeUtf8`,
//! `Utf8View`, a dictionary of one of those, or `Null` (all values null). A `meta` column
//! of another type (e.g. a struct) is ignored. Parquet files are read with a projection, so
//! columns nobody wants (such as `diff`) are never decompressed.

use std::fs::File;
use std::io::{Read, Seek};
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::{
    AnyDictionaryArray, Array, LargeStringArray, RecordBatch, RecordBatchReader, StringArray, StringViewArray,
};
use arrow_ipc::reader::{FileReader, StreamReader};
use arrow_schema::{DataType, Schema};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use super::RowResult;
use super::fields::{Field, Raw, RawRow, Rules};
use crate::{Error, Result};

/// Rows per Parquet batch.
const BATCH_ROWS: usize = 1024;

/// The first bytes of an Arrow IPC *file* (a stream has no magic).
const IPC_FILE_MAGIC: &[u8; 6] = b"ARROW1";

/// Reads the Parquet file at `path` (see [`read_corpus`](super::read_corpus)).
pub(crate) fn read_parquet(path: &Path, rules: &Rules, f: &mut dyn FnMut(RowResult) -> Result<()>) -> Result<()> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let not_parquet = |e: &dyn std::fmt::Display| Error::file(path, format!("not a readable Parquet file: {e}"));
    let builder = guarded(path, || ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| not_parquet(&e)))?;
    let plan = Plan::new(builder.schema(), rules, path)?;
    let mask = ProjectionMask::roots(builder.parquet_schema(), plan.indices());
    let reader = guarded(path, || {
        builder.with_projection(mask).with_batch_size(BATCH_ROWS).build().map_err(|e| not_parquet(&e))
    })?;
    read_batches(reader, path, rules, f)
}

/// Reads the Arrow IPC file at `path`: the IPC file format when it starts with the
/// `ARROW1` magic, else the IPC stream format (see [`read_corpus`](super::read_corpus)).
pub(crate) fn read_ipc(path: &Path, rules: &Rules, f: &mut dyn FnMut(RowResult) -> Result<()>) -> Result<()> {
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    if has_file_magic(&mut file).map_err(|e| Error::io(path, e))? {
        let reader = guarded(path, || {
            FileReader::try_new_buffered(file, None)
                .map_err(|e| Error::file(path, format!("not a readable Arrow IPC file: {e}")))
        })?;
        return read_batches(reader, path, rules, f);
    }
    let reader = guarded(path, || {
        StreamReader::try_new_buffered(file, None).map_err(|e| {
            Error::file(path, format!("not an Arrow IPC file (no ARROW1 magic) nor a readable IPC stream: {e}"))
        })
    })?;
    read_batches(reader, path, rules, f)
}

/// Runs `read`, a call into arrow-rs or parquet on the file at `path`, turning a panic
/// into a file error ([`engine::docs::catch_arrow_panic`]: arrow-rs 60 panics on some
/// damaged files, issue 8).
fn guarded<T>(path: &Path, read: impl FnOnce() -> Result<T>) -> Result<T> {
    engine::docs::catch_arrow_panic(read).map_err(|m| Error::file(path, m))?
}

/// Whether `file` starts with [`IPC_FILE_MAGIC`]; leaves the file at its start.
fn has_file_magic(file: &mut File) -> std::io::Result<bool> {
    let mut head = Vec::with_capacity(IPC_FILE_MAGIC.len());
    file.by_ref().take(IPC_FILE_MAGIC.len() as u64).read_to_end(&mut head)?;
    file.rewind()?;
    Ok(head == IPC_FILE_MAGIC)
}

/// Converts every batch of `reader`; rows are numbered from 1 across batches.
fn read_batches(
    reader: impl RecordBatchReader,
    path: &Path,
    rules: &Rules,
    f: &mut dyn FnMut(RowResult) -> Result<()>,
) -> Result<()> {
    let plan = Plan::new(&reader.schema(), rules, path)?;
    let mut first_row = 1u64;
    let mut reader = reader;
    let cannot = |row: u64, e: &dyn std::fmt::Display| Error::file(path, format!("cannot read from row {row} on: {e}"));
    // Only the decoding is guarded against panics, not `f`.
    while let Some(batch) = engine::docs::catch_arrow_panic(|| reader.next()).map_err(|m| cannot(first_row, &m))? {
        let batch = batch.map_err(|e| cannot(first_row, &e))?;
        read_batch(&batch, &plan, rules, (path, first_row), f)?;
        first_row += batch.num_rows() as u64;
    }
    Ok(())
}

/// Converts the rows of one batch; `at` is the file and the row number of its first row.
fn read_batch(
    batch: &RecordBatch,
    plan: &Plan,
    rules: &Rules,
    (path, first_row): (&Path, u64),
    f: &mut dyn FnMut(RowResult) -> Result<()>,
) -> Result<()> {
    let columns = plan.columns(batch, path)?;
    for i in 0..batch.num_rows() {
        let row = first_row + i as u64;
        let record = rules.record(raw_row(&columns, i));
        f(record.map(|r| (row, r)).map_err(|bad| bad.at(path, row)))?;
    }
    Ok(())
}

/// The raw values of row `i`; fields without a column stay [`Raw::Missing`].
fn raw_row(columns: &[(Field, StrColumn<'_>)], i: usize) -> RawRow {
    let mut row = RawRow::default();
    for (field, column) in columns {
        row.set(*field, column.get(i).map_or(Raw::Null, |s| Raw::Str(s.to_owned())));
    }
    row
}

/// Which column holds each wanted field, checked against the schema once per file.
#[derive(Debug)]
struct Plan {
    columns: Vec<(Field, usize)>,
}

impl Plan {
    /// Locates the wanted fields in `schema`.
    ///
    /// # Errors
    /// [`Error::File`] when a required column is missing, or a wanted column (other than a
    /// non-string `meta`, which is ignored) is not a string column.
    fn new(schema: &Schema, rules: &Rules, path: &Path) -> Result<Plan> {
        let mut columns = Vec::new();
        for (field, name) in rules.wanted() {
            if let Some(index) = locate(schema, field, name, path)? {
                columns.push((field, index));
            }
        }
        Ok(Plan { columns })
    }

    /// The column indices, for a projection.
    fn indices(&self) -> impl Iterator<Item = usize> + '_ {
        self.columns.iter().map(|&(_, index)| index)
    }

    /// The planned columns of `batch` as string columns.
    ///
    /// # Errors
    /// [`Error::File`] when the batch does not match the schema the plan was made from.
    fn columns<'b>(&self, batch: &'b RecordBatch, path: &Path) -> Result<Vec<(Field, StrColumn<'b>)>> {
        let column = |&(field, index): &(Field, usize)| {
            let array = batch.columns().get(index).map(AsRef::as_ref);
            let mismatch = || Error::file(path, format!("a batch does not match the schema at column {index}"));
            Ok((field, array.and_then(StrColumn::new).ok_or_else(mismatch)?))
        };
        self.columns.iter().map(column).collect()
    }
}

/// The index of the column for `field` (called `name`); `None` when it is absent and
/// optional, or an ignored `meta`.
fn locate(schema: &Schema, field: Field, name: &str, path: &Path) -> Result<Option<usize>> {
    let Ok(index) = schema.index_of(name) else {
        return if field.required() { Err(missing_column(schema, name, path)) } else { Ok(None) };
    };
    let data_type = schema.field(index).data_type();
    if is_string_type(data_type) {
        return Ok(Some(index));
    }
    if field == Field::Meta {
        tracing::debug!(path = %path.display(), %data_type, "ignoring a `meta` column that is not a string");
        return Ok(None);
    }
    let reason =
        format!("column `{name}` has type {data_type}; expected a string column (Utf8, LargeUtf8 or Utf8View)");
    Err(Error::file(path, reason))
}

/// The file error for a missing required column, listing the columns there are.
fn missing_column(schema: &Schema, name: &str, path: &Path) -> Error {
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    let reason = format!("missing required column `{name}`; the file has columns: {}", names.join(", "));
    Error::file(path, reason)
}

/// Whether [`StrColumn`] can read a column of this type.
fn is_string_type(data_type: &DataType) -> bool {
    match data_type {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Null => true,
        DataType::Dictionary(_, values) => {
            matches!(**values, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
        }
        _ => false,
    }
}

/// A column read as optional strings, whatever its string encoding.
enum StrColumn<'a> {
    Utf8(&'a StringArray),
    Large(&'a LargeStringArray),
    View(&'a StringViewArray),
    /// A dictionary: `keys[i]` is the position of row `i`'s value in `values`.
    Dict {
        array: &'a dyn AnyDictionaryArray,
        keys: Vec<usize>,
        values: Box<StrColumn<'a>>,
    },
    /// A column of type `Null`, or a dictionary with no values.
    Null,
}

impl<'a> StrColumn<'a> {
    /// Views `array` as strings; `None` when it has another type (see [`is_string_type`]).
    fn new(array: &'a dyn Array) -> Option<StrColumn<'a>> {
        match array.data_type() {
            DataType::Utf8 => array.as_string_opt::<i32>().map(StrColumn::Utf8),
            DataType::LargeUtf8 => array.as_string_opt::<i64>().map(StrColumn::Large),
            DataType::Utf8View => array.as_string_view_opt().map(StrColumn::View),
            DataType::Null => Some(StrColumn::Null),
            DataType::Dictionary(..) => StrColumn::dictionary(array.as_any_dictionary_opt()?),
            _ => None,
        }
    }

    /// Views a dictionary of strings.
    fn dictionary(array: &'a dyn AnyDictionaryArray) -> Option<StrColumn<'a>> {
        if array.values().is_empty() {
            return Some(StrColumn::Null);
        }
        let values = Box::new(StrColumn::new(array.values().as_ref())?);
        Some(StrColumn::Dict { array, keys: array.normalized_keys(), values })
    }

    /// The string in row `i`; `None` for a null.
    fn get(&self, i: usize) -> Option<&'a str> {
        match self {
            StrColumn::Utf8(a) => a.is_valid(i).then(|| a.value(i)),
            StrColumn::Large(a) => a.is_valid(i).then(|| a.value(i)),
            StrColumn::View(a) => a.is_valid(i).then(|| a.value(i)),
            StrColumn::Dict { array, keys, values } => array.is_valid(i).then(|| values.get(keys[i])).flatten(),
            StrColumn::Null => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::types::Int32Type;
    use arrow_array::{ArrayRef, DictionaryArray, Int64Array, NullArray};
    use arrow_schema::Field as ArrowField;

    use super::*;
    use crate::corpus::ReadOptions;

    fn strings(column: &ArrayRef) -> Vec<Option<&str>> {
        let column = StrColumn::new(column.as_ref()).unwrap();
        (0..3).map(|i| column.get(i)).collect()
    }

    #[test]
    fn every_string_encoding_reads_the_same() {
        let want = vec![Some("a"), None, Some("b")];
        let values = vec![Some("a"), None, Some("b")];
        let arrays: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from(values.clone())),
            Arc::new(LargeStringArray::from(values.clone())),
            Arc::new(StringViewArray::from(values.clone())),
            Arc::new(values.into_iter().collect::<DictionaryArray<Int32Type>>()),
        ];
        for array in &arrays {
            assert_eq!(strings(array), want, "{}", array.data_type());
        }
        assert_eq!(strings(&(Arc::new(NullArray::new(3)) as ArrayRef)), [None, None, None]);
        assert!(StrColumn::new(&Int64Array::from(vec![1])).is_none());
    }

    fn schema(columns: &[(&str, DataType)]) -> Schema {
        Schema::new(columns.iter().map(|(n, t)| ArrowField::new(*n, t.clone(), true)).collect::<Vec<_>>())
    }

    fn plan(schema: &Schema) -> Result<Plan> {
        Plan::new(schema, &Rules::new(&ReadOptions::default()), Path::new("c.parquet"))
    }

    #[test]
    fn plan_checks_required_columns() {
        let required = ["id", "language", "buggy_code", "fixed_code"].map(|n| (n, DataType::Utf8));
        assert_eq!(plan(&schema(&required)).unwrap().columns.len(), 4);
        let err = plan(&schema(&required[1..])).unwrap_err().to_string();
        let want = "c.parquet: missing required column `id`; the file has columns: language, buggy_code, fixed_code";
        assert_eq!(err, want);
        let mut wrong = required.clone();
        wrong[2].1 = DataType::Int64;
        let want =
            "c.parquet: column `buggy_code` has type Int64; expected a string column (Utf8, LargeUtf8 or Utf8View)";
        assert_eq!(plan(&schema(&wrong)).unwrap_err().to_string(), want);
    }

    #[test]
    fn a_non_string_meta_is_ignored() {
        let mut columns = ["id", "language", "buggy_code", "fixed_code"].map(|n| (n, DataType::Utf8)).to_vec();
        columns.push(("meta", DataType::Struct(vec![ArrowField::new("k", DataType::Utf8, true)].into())));
        columns.push(("diff", DataType::Utf8));
        assert_eq!(plan(&schema(&columns)).unwrap().indices().collect::<Vec<_>>(), [0, 1, 2, 3]);
    }
}
