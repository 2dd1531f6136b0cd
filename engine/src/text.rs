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
