//! The embedded text: root cause ⊕ buggy code under a token budget (design decision 2).
//!
//! # Rule `cause-first-v1`
//!
//! Each field is first cut to its first [`MAX_FIELD_CHARS`] characters (a 256-token window
//! never needs more unless the text averages over 128 characters per token, e.g. a huge
//! string literal), then tokenized without special tokens. With `W` = `max_seq_length`:
//!
//! | space | sequence |
//! | --- | --- |
//! | `code+cause` | `[CLS] cause[..c] [SEP] code[..W - 3 - c] [SEP]`, `c = min(len(cause), cause_max_tokens, W - 3)`; with an empty cause it is the `code` sequence, with empty code `[CLS] cause[..c] [SEP]` |
//! | `code` | `[CLS] code[..W - 2] [SEP]` |
//! | `cause` | `[CLS] cause[..W - 2] [SEP]` |
//!
//! So the root cause is kept whole up to `cause_max_tokens` (default [`CAUSE_MAX_TOKENS`])
//! and the code is truncated from the end: a long function can never push the cause out of
//! the window, and an over-long input is truncated, never an error. Token type ids are all 0.
//!
//! # Rule `cause-first-window-v1` (the default for new indexes)
//!
//! Source: issue 11 item 4 ("embed where the bug is"); ReinFix embeds the buggy code with
//! its root cause, and for a bug deep in a long method `cause-first-v1` never sees the
//! buggy line. The sequences are those of `cause-first-v1`, with `code` replaced by
//! `code'` below. Let `B` be the code budget of the space (`W - 2` for `code`, and for
//! `code+cause` with an empty cause; `W - 3 - c` for `code+cause`), and `L` the buggy
//! lines (1-based, inclusive; documents: from the buggy → fixed line diff, see
//! `indexer::buggy_lines`; queries: `fixdex search --lines A-B`):
//!
//! | case | `code'` |
//! | --- | --- |
//! | `L` unknown, `len(code) ≤ B`, or `L` starts past the last line | `code` (the `cause-first-v1` sequence, token for token) |
//! | otherwise | `sig[..min(32, B)] ++ tok(window)`, cut to `B` by the table above |
//!
//! * Lines are the code's `\n`-separated lines with a trailing `\r` dropped (CRLF = LF).
//! * `sig`: tokens of lines `0..=k` joined by `\n`, comment lines (trimmed start `//`,
//!   `/*`, `*`, `#`) left out, where `k` is the first non-comment line among the first 16
//!   whose text ends (trailing whitespace trimmed) with `{` (Java) or `:` (Python); empty
//!   when there is no such line (then `k = -1`). Capped at 32 tokens
//!   ([`super::window::SIGNATURE_MAX_TOKENS`]), keeping the first.
//! * `window`: lines chosen over `k+1..n`, starting from `L` clamped to that range (a bug
//!   inside the signature starts the window at line `k+1`); each line costs the tokens of
//!   the line alone. The window grows by one line at a time, alternating before (first)
//!   and after, skipping a side with no lines left, while the total cost stays ≤
//!   `B - len(sig)`; the first line that does not fit ends it. The buggy lines are kept
//!   even when they alone exceed the budget (then the window's end is cut).
//! * Windowing is on lines, before tokenization: the chosen lines are joined by `\n` and
//!   tokenized as one text (for WordPiece the same tokens as the lines' sum).
//!
//! So a short method (or any code without known buggy lines) embeds exactly as under
//! `cause-first-v1`, and an index built with `cause-first-v1` is queried by that rule
//! (buggy lines given to a query are then ignored).

use super::ModelIdentity;
use crate::Space;

/// Name of the rule, recorded in the index.
pub const RULE: &str = "cause-first-v1";
/// Default cap on root-cause tokens in the `code+cause` space.
pub const CAUSE_MAX_TOKENS: usize = 64;
/// Characters of a field kept before tokenization.
pub const MAX_FIELD_CHARS: usize = 32_768;

/// `s` cut to its first `max_chars` characters (at a character boundary). O(max_chars).
pub fn cut_chars(s: &str, max_chars: usize) -> &str {
    match s.char_indices().nth(max_chars) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Builds the model input for `space` from tokenized `code` and `cause` (ids without
/// special tokens), following the rule in the module docs. The result has at most
/// `model.max_seq_length` ids (and at least 2).
pub fn compose(space: Space, code: &[u32], cause: &[u32], model: &ModelIdentity, cause_max_tokens: usize) -> Vec<u32> {
    let w = model.max_seq_length.max(3);
    let (cls, sep) = (model.cls_id, model.sep_id);
    let wrap = |body: &[u32]| {
        let mut v = Vec::with_capacity(body.len().min(w - 2) + 2);
        v.push(cls);
        v.extend_from_slice(&body[..body.len().min(w - 2)]);
        v.push(sep);
        v
    };
    match space {
        Space::Code => wrap(code),
        Space::Cause => wrap(cause),
        Space::CodeCause if cause.is_empty() || cause_max_tokens == 0 => wrap(code),
        Space::CodeCause if code.is_empty() => wrap(&cause[..cause.len().min(cause_max_tokens)]),
        Space::CodeCause => {
            let c = cause.len().min(cause_max_tokens).min(w - 3);
            let mut v = wrap(&cause[..c]);
            v.extend_from_slice(&code[..code.len().min(w - 3 - c)]);
            v.push(sep);
            v
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::Pooling;

    fn model(w: usize) -> ModelIdentity {
        ModelIdentity {
            name: "t".into(),
            sha256: "0".into(),
            dim: 4,
            pooling: Pooling::Mean,
            max_seq_length: w,
            cls_id: 101,
            sep_id: 102,
        }
    }

    #[test]
    fn cause_first_then_code_truncated() {
        let code: Vec<u32> = (1000..1300).collect();
        let cause: Vec<u32> = (1..=10).collect();
        let v = compose(Space::CodeCause, &code, &cause, &model(16), 64);
        assert_eq!(v.len(), 16);
        assert_eq!(&v[..12], &[101, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 102]);
        assert_eq!(&v[12..], &[1000, 1001, 1002, 102]);
    }

    #[test]
    fn cause_is_capped_and_never_fills_window() {
        let code: Vec<u32> = (1000..1300).collect();
        let cause: Vec<u32> = (1..10_000).collect();
        let v = compose(Space::CodeCause, &code, &cause, &model(256), 64);
        assert_eq!(v.len(), 256);
        assert_eq!(v[65], 102);
        assert_eq!(v[66], 1000);
        let tiny = compose(Space::CodeCause, &code, &cause, &model(8), 64);
        assert_eq!(tiny.len(), 8);
        assert_eq!(tiny, vec![101, 1, 2, 3, 4, 5, 102, 102]);
    }

    #[test]
    fn single_field_spaces_and_empty_fields() {
        let code = [7, 8, 9];
        let cause = [4, 5];
        let m = model(256);
        assert_eq!(compose(Space::Code, &code, &cause, &m, 64), vec![101, 7, 8, 9, 102]);
        assert_eq!(compose(Space::Cause, &code, &cause, &m, 64), vec![101, 4, 5, 102]);
        assert_eq!(compose(Space::CodeCause, &code, &[], &m, 64), vec![101, 7, 8, 9, 102]);
        assert_eq!(compose(Space::CodeCause, &[], &cause, &m, 64), vec![101, 4, 5, 102]);
        assert_eq!(compose(Space::Code, &[], &[], &m, 64), vec![101, 102]);
    }

    #[test]
    fn cut_chars_respects_char_boundaries() {
        assert_eq!(cut_chars("héllo", 2), "hé");
        assert_eq!(cut_chars("abc", 10), "abc");
        assert_eq!(cut_chars("", 0), "");
    }
}
