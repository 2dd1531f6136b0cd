//! Text checks shared by the query side and corpus validation: does a field hold anything
//! a reader (or a tokenizer) would see, and how much text may one query carry?
//!
//! A field counts as empty when nothing is left after removing whitespace and the
//! characters that render as nothing: Unicode general categories `Cc` (control), `Cf`
//! (format: U+200B zero-width space, U+FEFF byte-order mark, bidirectional marks, ...),
//! `Mn` (non-spacing marks) and `Me` (enclosing marks). Such a field tokenizes to nothing
//! (or to `[UNK]`) and embeds like the empty string, so every empty field would look alike.
//!
//! ```
//! use engine::text::{is_blank, visible_len};
//!
//! assert!(is_blank(" \t\n\u{200B}\u{FEFF}\u{0301}\u{20DD}\u{0007}"));
//! assert!(!is_blank("\u{200B}x"));
//! assert_eq!(visible_len("a\u{0301}b"), 2);
//! ```

use unicode_general_category::{GeneralCategory, get_general_category};

/// Most bytes of buggy code, or of root cause, that the CLI reads for one query from a
/// file or standard input: 1 MiB. The embedding keeps far less (the first
/// [`crate::embed::MAX_FIELD_CHARS`] characters, then a token window), so a longer input
/// is a wrong file (`/dev/zero`, a binary), not a query.
pub const MAX_QUERY_BYTES: usize = 1 << 20;

/// The UTF-8 byte-order mark (U+FEFF, bytes `EF BB BF`) that some editors (Windows
/// Notepad, Excel's "UTF-8 CSV") write at the start of a text file.
pub const BOM: char = '\u{feff}';

/// `text` without a byte-order mark opening it: every text input fixdex reads (corpus
/// JSONL, `--exclude`, `--bugs-file`, `search --batch`, `label`'s rows) reads past one, so
/// that a file saved by such an editor means what it says. A mark elsewhere is kept (it is
/// data there, or an error the reader names). O(1).
#[must_use]
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix(BOM).unwrap_or(text)
}

/// [`strip_bom`] on bytes not yet checked as UTF-8 (a reader that names the first invalid
/// byte itself). O(1).
#[must_use]
pub fn strip_bom_bytes(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes)
}

/// Why a text input that starts with `bytes` is UTF-16, not UTF-8, for a message: it opens
/// with a UTF-16 byte-order mark (`FF FE`: little endian, as Windows' "Unicode" saves and
/// PowerShell 5's `>` writes; `FE FF`: big endian), or, without one, its first bytes (up to
/// 64, at least 4) alternate a zero byte with a non-zero one, as ASCII text in UTF-16 does
/// (`iconv -t UTF-16LE`): UTF-8 text holds no zero byte there, though such bytes are valid
/// UTF-8. `None` otherwise. Every text input's reader checks this first, instead of saying
/// "invalid UTF-8 at byte 1" or "not valid JSON", or reading `a\0b\0` as an id. O(1).
#[must_use]
pub fn utf16_reason(bytes: &[u8]) -> Option<String> {
    let (order, how) = match bytes {
        [0xFF, 0xFE, ..] => ("little-endian", "it opens with the byte-order mark FF FE"),
        [0xFE, 0xFF, ..] => ("big-endian", "it opens with the byte-order mark FE FF"),
        _ => {
            let head = &bytes[..bytes.len().min(64) & !1];
            let zero_at =
                |parity: usize| head.len() >= 4 && head.iter().enumerate().all(|(i, b)| (*b == 0) == (i % 2 == parity));
            if zero_at(1) {
                ("little-endian", "every second byte is zero, and it has no byte-order mark")
            } else if zero_at(0) {
                ("big-endian", "every second byte is zero, and it has no byte-order mark")
            } else {
                return None;
            }
        }
    };
    Some(format!(
        "the file is UTF-16 ({order}: {how}), not UTF-8; convert it, e.g. `iconv -f UTF-16 -t UTF-8 FILE > FILE.utf8`"
    ))
}

/// The whole UTF-8 text file at `path`, a byte-order mark opening it dropped
/// ([`strip_bom`]), for the readers of small line lists (`--exclude`, `--bugs-file`).
///
/// # Errors
/// The file cannot be read, or is not UTF-8: [`std::io::ErrorKind::InvalidData`] saying
/// that it is UTF-16 ([`utf16_reason`]) or at which line and byte of it the first invalid
/// byte is.
pub fn read_utf8(path: &std::path::Path) -> std::io::Result<String> {
    let text =
        decode_utf8(std::fs::read(path)?).map_err(|why| std::io::Error::new(std::io::ErrorKind::InvalidData, why))?;
    Ok(strip_bom(&text).to_string())
}

/// A whole text input's `bytes` as UTF-8 text (a byte-order mark kept).
///
/// # Errors
/// Why it is not UTF-8: UTF-16 ([`utf16_reason`]), or where its first invalid byte is
/// ([`invalid_utf8`]).
pub fn decode_utf8(bytes: Vec<u8>) -> Result<String, String> {
    if let Some(reason) = utf16_reason(&bytes) {
        return Err(reason);
    }
    String::from_utf8(bytes).map_err(|e| invalid_utf8(e.as_bytes(), e.utf8_error().valid_up_to()))
}

/// Where the first invalid byte of `bytes` is (`at`, a byte offset: `Utf8Error::valid_up_to`),
/// as every text input's reader says it: `not UTF-8: invalid byte at line L, byte B of the
/// line` (both 1-based; a line ends at `\n`).
#[must_use]
pub fn invalid_utf8(bytes: &[u8], at: usize) -> String {
    let at = at.min(bytes.len());
    let line = bytes[..at].iter().filter(|b| **b == b'\n').count() + 1;
    let start = bytes[..at].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    format!("not UTF-8: invalid byte at line {line}, byte {} of the line", at - start + 1)
}

/// Where the first invalid byte of a line is (`at`, a byte offset in the line:
/// `Utf8Error::valid_up_to`), as the readers of line-by-line inputs say it next to the line's
/// number: `invalid UTF-8 at byte B of the line` (1-based).
#[must_use]
pub fn invalid_utf8_in_line(at: usize) -> String {
    format!("invalid UTF-8 at byte {} of the line", at + 1)
}

/// Whether `c` is invisible: whitespace (Unicode `White_Space`), or of general category
/// `Cc`, `Cf`, `Mn` or `Me`. O(log ranges).
pub fn is_invisible(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            get_general_category(c),
            GeneralCategory::Control
                | GeneralCategory::Format
                | GeneralCategory::NonspacingMark
                | GeneralCategory::EnclosingMark
        )
}

/// Number of characters of `s` that are not [invisible](is_invisible). O(len).
pub fn visible_len(s: &str) -> usize {
    s.chars().filter(|&c| !is_invisible(c)).count()
}

/// Whether `s` has no visible character (see the module docs): empty, whitespace only, or
/// only control, format and combining characters. O(len), stops at the first visible one.
pub fn is_blank(s: &str) -> bool {
    s.chars().all(is_invisible)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_utf16_file_is_named_and_a_bad_byte_located() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("ids.txt");
        // "ab\n" as Windows' "Unicode" saves it.
        std::fs::write(&p, [0xFF, 0xFE, b'a', 0, b'b', 0, b'\n', 0]).unwrap();
        let e = read_utf8(&p).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("UTF-16 (little-endian") && e.to_string().contains("iconv"), "{e}");
        assert!(utf16_reason(&[0xFE, 0xFF, 0, b'a']).unwrap().contains("big-endian"));
        assert_eq!(utf16_reason("\u{feff}a".as_bytes()), None, "the UTF-8 mark is UTF-8");
        // Without a mark: ASCII in UTF-16 alternates zero bytes, valid UTF-8 as they are.
        let le: Vec<u8> = "Cli-1\n".bytes().flat_map(|b| [b, 0]).collect();
        std::fs::write(&p, &le).unwrap();
        assert!(read_utf8(&p).unwrap_err().to_string().contains("UTF-16 (little-endian: every second byte"));
        let be: Vec<u8> = "Cli-1\n".bytes().flat_map(|b| [0, b]).collect();
        assert!(utf16_reason(&be).unwrap().contains("big-endian"));
        assert_eq!(utf16_reason(b"a\0"), None, "too short to tell");
        assert_eq!(utf16_reason(b"plain text"), None);
        std::fs::write(&p, b"ok\nab\xffc\n").unwrap();
        assert_eq!(read_utf8(&p).unwrap_err().to_string(), "not UTF-8: invalid byte at line 2, byte 3 of the line");
        std::fs::write(&p, "\u{feff}x\r\n").unwrap();
        assert_eq!(read_utf8(&p).unwrap(), "x\r\n");
    }

    #[test]
    fn only_an_opening_byte_order_mark_is_stripped() {
        assert_eq!(strip_bom("\u{feff}Cli-8\n"), "Cli-8\n");
        assert_eq!(strip_bom("\u{feff}\u{feff}x"), "\u{feff}x");
        assert_eq!(strip_bom("x\u{feff}"), "x\u{feff}");
        assert_eq!(strip_bom_bytes(b"\xef\xbb\xbf{}\xff"), b"{}\xff");
        assert_eq!(strip_bom_bytes(b"\xef\xbb"), b"\xef\xbb");
    }

    #[test]
    fn invisible_categories() {
        for c in ['\u{0}', '\u{1F}', '\u{7F}', '\u{85}', '\u{200B}', '\u{200D}', '\u{2060}', '\u{FEFF}', '\u{202E}'] {
            assert!(is_invisible(c), "{:?}", c);
        }
        for c in ['\u{0300}', '\u{036F}', '\u{20DD}', '\u{3000}', '\u{2028}', '\u{A0}'] {
            assert!(is_invisible(c), "{:?}", c);
        }
        for c in ['a', '0', '{', '-', 'é', '中', '\u{1F600}', '\u{0903}'] {
            assert!(!is_invisible(c), "{:?}", c);
        }
    }

    #[test]
    fn blank_and_visible_length() {
        assert!(is_blank(""));
        assert!(is_blank("  \r\n\t"));
        assert!(is_blank("\u{200B}\u{200B}\u{200B}"));
        assert!(is_blank("\u{0301}\u{0301}"));
        assert!(!is_blank("x"));
        assert!(!is_blank("\u{200B}return 0;"));
        assert_eq!(visible_len(""), 0);
        assert_eq!(visible_len(" e\u{0301} \u{200B}f "), 2);
    }
}
