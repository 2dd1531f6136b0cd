//! Benchmark inputs parsed from their bytes: TEXMEX `.fvecs` (vectors) and `.ivecs`
//! (ground-truth neighbour ids), NumPy float32 `.npy` (reference embeddings) and snippet
//! JSONL. The caller reads the file (and names it in its errors); these only parse.

use crate::{Error, Result};

/// Bytes of one little-endian `u32` / `i32` / `f32`.
const WORD: usize = 4;

/// The first word of `bytes` as a little-endian `u32` (a TEXMEX row's length), 0 when
/// there are fewer than 4 bytes.
fn first_word(bytes: &[u8]) -> usize {
    bytes.get(..WORD).map_or(0, |b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
}

/// The words of one TEXMEX row after its length word, as `T` from their little-endian bytes.
fn row_words<T: 'static>(row: &[u8], word: fn([u8; 4]) -> T) -> impl Iterator<Item = T> + '_ {
    row[WORD..].chunks_exact(WORD).map(move |c| word(c.try_into().expect("4 bytes")))
}

/// Whether `bytes` is whole rows of `width` words each preceded by its length word.
fn is_rows(bytes: &[u8], width: usize) -> bool {
    width > 0 && bytes.len().is_multiple_of(WORD + WORD * width)
}

/// Parses TEXMEX `.fvecs` (per vector: `int32 dim`, then `dim` little-endian f32): the flat
/// row-major matrix (`[n · dim]` f32) and `dim`. Every row must have the first row's
/// dimension. O(bytes).
///
/// # Errors
/// [`Error::BenchInput`] `not an .fvecs file (dimension D, N bytes)` when the first dimension
/// is 0 or the length is not a whole number of rows.
pub fn parse_fvecs(bytes: &[u8]) -> Result<(Vec<f32>, usize)> {
    let dim = first_word(bytes);
    if !is_rows(bytes, dim) {
        let reason = format!("not an .fvecs file (dimension {dim}, {} bytes)", bytes.len());
        return Err(Error::BenchInput { reason });
    }
    let rows = bytes.chunks_exact(WORD + WORD * dim);
    Ok((rows.flat_map(|r| row_words(r, f32::from_le_bytes)).collect(), dim))
}

/// Parses TEXMEX `.ivecs` (per query: `int32 k`, then `k` little-endian ids, best first):
/// one list of `k` document rows per query. O(bytes).
///
/// # Errors
/// [`Error::BenchInput`] `not an .ivecs file` when the first `k` is 0 or the length is not a
/// whole number of rows.
pub fn parse_ivecs(bytes: &[u8]) -> Result<Vec<Vec<u32>>> {
    let k = first_word(bytes);
    if !is_rows(bytes, k) {
        return Err(Error::BenchInput { reason: "not an .ivecs file".into() });
    }
    Ok(bytes.chunks_exact(WORD + WORD * k).map(|r| row_words(r, u32::from_le_bytes).collect()).collect())
}

/// Parses a NumPy `.npy` file of little-endian float32 in C order (e.g. sentence-transformers
/// reference embeddings, `[n, dim]`): its values, flat and row-major. The shape is not read;
/// the caller knows `dim`. O(bytes).
///
/// # Errors
/// [`Error::BenchInput`]: `not a .npy file` (no `\x93NUMPY` magic, or a header longer than
/// the file), `expected little-endian float32 in C order` (another dtype, or Fortran order).
pub fn parse_npy_f32(bytes: &[u8]) -> Result<Vec<f32>> {
    let bad = |reason: &str| Error::BenchInput { reason: reason.into() };
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(bad("not a .npy file"));
    }
    let header_len = usize::from(u16::from_le_bytes([bytes[8], bytes[9]]));
    let header = bytes.get(10..10 + header_len).ok_or_else(|| bad("not a .npy file"))?;
    let header = String::from_utf8_lossy(header);
    if !header.contains("'<f4'") || header.contains("'fortran_order': True") {
        return Err(bad("expected little-endian float32 in C order"));
    }
    Ok(bytes[10 + header_len..].chunks_exact(WORD).map(|c| f32::from_le_bytes(c.try_into().expect("4"))).collect())
}

/// The `text` field of the first `n` lines of snippet JSONL (`{"text": ...}` per line); a
/// line without a string `text` gives `""`. O(bytes of those lines).
///
/// # Errors
/// The JSON error of the first of those lines that is not JSON.
pub fn parse_snippets(text: &str, n: usize) -> serde_json::Result<Vec<String>> {
    text.lines()
        .take(n)
        .map(|l| Ok(serde_json::from_str::<serde_json::Value>(l)?["text"].as_str().unwrap_or_default().to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TEXMEX rows: each row's length word, then its words.
    fn texmex(rows: &[Vec<[u8; 4]>]) -> Vec<u8> {
        let mut out = Vec::new();
        for r in rows {
            out.extend((r.len() as u32).to_le_bytes());
            r.iter().for_each(|w| out.extend(w));
        }
        out
    }

    #[test]
    fn fvecs_written_to_a_file_read_back() {
        let rows = vec![vec![1.5f32.to_le_bytes(), (-2.0f32).to_le_bytes()], vec![0.25f32.to_le_bytes(); 2]];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("base.fvecs");
        std::fs::write(&path, texmex(&rows)).unwrap();
        let (flat, dim) = parse_fvecs(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(dim, 2);
        assert_eq!(flat, vec![1.5, -2.0, 0.25, 0.25]);
    }

    #[test]
    fn fvecs_with_a_cut_row_is_refused_with_its_size() {
        let mut bytes = texmex(&[vec![1.0f32.to_le_bytes(); 3]]);
        bytes.pop();
        let err = parse_fvecs(&bytes).unwrap_err().to_string();
        assert_eq!(err, "not an .fvecs file (dimension 3, 15 bytes)");
        assert_eq!(parse_fvecs(&[]).unwrap_err().to_string(), "not an .fvecs file (dimension 0, 0 bytes)");
    }

    #[test]
    fn ivecs_gives_one_list_per_query() {
        let bytes = texmex(&[vec![7u32.to_le_bytes(), 1u32.to_le_bytes()], vec![2u32.to_le_bytes(); 2]]);
        assert_eq!(parse_ivecs(&bytes).unwrap(), vec![vec![7, 1], vec![2, 2]]);
        assert_eq!(parse_ivecs(&bytes[..5]).unwrap_err().to_string(), "not an .ivecs file");
    }

    /// A `.npy` file of `values` with the given header dictionary.
    fn npy(header: &str, values: &[f32]) -> Vec<u8> {
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend((header.len() as u16).to_le_bytes());
        out.extend(header.as_bytes());
        values.iter().for_each(|v| out.extend(v.to_le_bytes()));
        out
    }

    #[test]
    fn npy_float32_in_c_order_is_read_and_others_refused() {
        let good = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }";
        assert_eq!(parse_npy_f32(&npy(good, &[0.5, -1.0])).unwrap(), vec![0.5, -1.0]);
        let f64s = "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }";
        let err = parse_npy_f32(&npy(f64s, &[0.5, -1.0])).unwrap_err().to_string();
        assert_eq!(err, "expected little-endian float32 in C order");
        assert_eq!(parse_npy_f32(b"PK\x03\x04 zip file").unwrap_err().to_string(), "not a .npy file");
    }

    #[test]
    fn snippets_take_the_first_n_texts() {
        let text = "{\"text\": \"a\"}\n{\"other\": 1}\n{\"text\": \"c\"}\n";
        assert_eq!(parse_snippets(text, 2).unwrap(), vec!["a".to_string(), String::new()]);
        assert!(parse_snippets("not json", 1).is_err());
    }
}
