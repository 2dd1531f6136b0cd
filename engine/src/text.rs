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

/// The UTF-16 encoding a text input opens with the byte-order mark of (`FF FE`: little
/// endian, as Windows' "Unicode" saves and PowerShell 5's `>` writes; `FE FF`: big endian),
/// as the reason it is not UTF-8: `bytes` is the start of the file. `None` otherwise. Every
/// text input's reader says this instead of "invalid UTF-8 at byte 1". O(1).
#[must_use]
pub fn utf16_reason(bytes: &[u8]) -> Option<String> {
    let (order, mark) = match bytes {
        [0xFF, 0xFE, ..] => ("little-endian", "FF FE"),
        [0xFE, 0xFF, ..] => ("big-endian", "FE FF"),
        _ => return None,
    };
    Some(format!(
        "the file is UTF-16 ({order}: it opens with the byte-order mark {mark}), not UTF-8; convert it, e.g. \
         `iconv -f UTF-16 -t UTF-8 FILE > FILE.utf8`"
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
    let bytes = std::fs::read(path)?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok(strip_bom(&text).to_string()),
        Err(e) => {
            let bytes = e.as_bytes();
            let at = e.utf8_error().valid_up_to();
            let reason = utf16_reason(bytes).unwrap_or_else(|| {
                let line = bytes[..at].iter().filter(|b| **b == b'\n').count() + 1;
                let start = bytes[..at].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
                format!("not UTF-8: invalid byte at line {line}, byte {} of the line", at - start + 1)
            });
            Err(std::io::Error::new(std::io::ErrorKind::InvalidData, reason))
        }
    }
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
