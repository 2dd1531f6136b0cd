//! The MCP line reader: newline-delimited JSON-RPC from a byte stream (the server's stdin),
//! every line either a message for the server or the error reply it gets at once.
//!
//! JSON-RPC 2.0 (§5.1) answers input it cannot use instead of staying silent, so a client
//! never waits forever for a reply to a line that was lost:
//!
//! | line | reply |
//! | --- | --- |
//! | blank (only whitespace) | none: skipped |
//! | not UTF-8, or not JSON (plain text, cut short) | `-32700` `Parse error`, `id` null |
//! | JSON that is not a message the server reads (`[1]`, `{"foo": 1}`, a batch) | `-32600` `Invalid Request`, the line's `id` when it has a string or number one, else null |
//! | longer than [`MAX_LINE_BYTES`] | `-32600` `Invalid Request`, `id` null; the line is read to its end in chunks and dropped, never held |
//!
//! Every error reply carries `data.reason`, a sentence on what was wrong. Pure apart from
//! the reading: [`read_line`] works on any [`BufRead`], [`parse_line`] on bytes (the fuzz
//! target `mcp_lines` runs both on arbitrary input).

use std::io::BufRead;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The longest line read as a message, in bytes (16 MiB, rmcp's own limit): a longer line
/// gets an error reply.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// JSON-RPC 2.0's code for input that is not JSON.
pub const PARSE_ERROR: i64 = -32700;

/// JSON-RPC 2.0's code for JSON that is not a valid request.
pub const INVALID_REQUEST: i64 = -32600;

/// One line read: a message `M`, or the error reply (a JSON-RPC response object) to write
/// back for it.
#[derive(Debug, Clone, PartialEq)]
pub enum Line<M> {
    /// A message for the server.
    Message(M),
    /// The reply to a line that holds no message.
    Reply(Value),
}

/// A line longer than the limit: how many bytes it had (its line end not counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLong {
    /// Bytes of the line.
    pub bytes: u64,
}

/// The next line of `reader` without its line end (`\n` or `\r\n`): `None` at the end of
/// the input; `Some(Err)` for a line longer than `max` bytes, read to its end in chunks of
/// at most the reader's buffer and dropped. Memory: at most `max + 2` bytes. A last line
/// without a line end counts as a line.
///
/// # Errors
/// The reader's I/O errors.
pub fn read_line(reader: &mut dyn BufRead, max: usize) -> std::io::Result<Option<Result<Vec<u8>, TooLong>>> {
    let mut buf = Vec::new();
    // `max` bytes and a `\r\n` fit; a line that fills this without its `\n` is too long.
    let n = std::io::Read::take(&mut *reader, max as u64 + 2).read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Ok(None);
    }
    let ended = buf.last() == Some(&b'\n');
    if ended {
        buf.pop();
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
    }
    if buf.len() > max {
        let (rest, cr) = if ended { (0, false) } else { skip_line(reader, buf.last().copied())? };
        return Ok(Some(Err(TooLong { bytes: buf.len() as u64 + rest - u64::from(cr) })));
    }
    Ok(Some(Ok(buf)))
}

/// Reads and drops the rest of a line (up to and including its `\n`), chunk by chunk;
/// returns how many bytes it had before the `\n`, and whether the byte before that `\n`
/// (`prev` when none was read here) was `\r`.
fn skip_line(reader: &mut dyn BufRead, prev: Option<u8>) -> std::io::Result<(u64, bool)> {
    // `\r` may end one chunk and its `\n` start the next: the last byte seen says.
    let (mut skipped, mut last) = (0u64, prev);
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok((skipped, false));
        }
        if let Some(at) = chunk.iter().position(|&b| b == b'\n') {
            let before = if at > 0 { Some(chunk[at - 1]) } else { last };
            reader.consume(at + 1);
            return Ok((skipped + at as u64, before == Some(b'\r')));
        }
        let n = chunk.len();
        last = chunk.last().copied();
        reader.consume(n);
        skipped += n as u64;
    }
}

/// What `line` (without its line end) is: `None` for a blank line, else a message `M` or
/// the error reply the module docs give. O(line).
pub fn parse_line<M: DeserializeOwned>(line: &[u8]) -> Option<Line<M>> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let text = match std::str::from_utf8(line) {
        Ok(t) => t,
        Err(e) => {
            let reason = format!("the line is not UTF-8 text (invalid byte at offset {})", e.valid_up_to());
            return Some(Line::Reply(error_reply(&Value::Null, PARSE_ERROR, &reason)));
        }
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return Some(Line::Reply(error_reply(&Value::Null, PARSE_ERROR, &format!("not JSON: {e}")))),
    };
    let id = value.get("id").filter(|id| id.is_string() || id.is_number()).cloned().unwrap_or(Value::Null);
    Some(match serde_json::from_value::<M>(value) {
        Ok(m) => Line::Message(m),
        Err(e) => Line::Reply(error_reply(&id, INVALID_REQUEST, &format!("not a JSON-RPC 2.0 message: {e}"))),
    })
}

/// The error reply to a line longer than [`MAX_LINE_BYTES`].
pub fn too_long_reply(t: TooLong) -> Value {
    let reason = format!("the line is {} bytes, longer than {MAX_LINE_BYTES} (16 MiB), the most read", t.bytes);
    error_reply(&Value::Null, INVALID_REQUEST, &reason)
}

/// A JSON-RPC 2.0 error response: `code`, its standard message, and `data.reason`.
pub fn error_reply(id: &Value, code: i64, reason: &str) -> Value {
    let message = if code == PARSE_ERROR { "Parse error" } else { "Invalid Request" };
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message, "data": {"reason": reason}}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Ping {
        jsonrpc: String,
        id: u32,
        method: String,
    }

    fn lines(input: &[u8], max: usize) -> Vec<Result<Vec<u8>, TooLong>> {
        let mut r = std::io::BufReader::with_capacity(4, input);
        std::iter::from_fn(|| read_line(&mut r, max).unwrap()).collect()
    }

    #[test]
    fn lines_end_at_newlines_and_long_ones_are_skipped() {
        let got = lines(b"ab\r\n\nxxxxxxxxxx\r\ncd", 5);
        assert_eq!(got, [Ok(b"ab".to_vec()), Ok(Vec::new()), Err(TooLong { bytes: 10 }), Ok(b"cd".to_vec())]);
        assert_eq!(lines(b"123456", 5), [Err(TooLong { bytes: 6 })]);
        assert_eq!(lines(b"12345\r\n123456\n", 5), [Ok(b"12345".to_vec()), Err(TooLong { bytes: 6 })]);
        assert_eq!(lines(b"123456\r\nx", 5), [Err(TooLong { bytes: 6 }), Ok(b"x".to_vec())]);
        assert_eq!(lines(b"1234567\r\n", 5), [Err(TooLong { bytes: 7 })]);
    }

    #[test]
    fn every_unusable_line_gets_a_reply() {
        let reply = |line: &[u8]| match parse_line::<Ping>(line) {
            Some(Line::Reply(v)) => v,
            other => panic!("{other:?}"),
        };
        assert_eq!(parse_line::<Ping>(b"  \t"), None);
        let ok = parse_line::<Ping>(br#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#);
        assert_eq!(ok, Some(Line::Message(Ping { jsonrpc: "2.0".into(), id: 1, method: "ping".into() })));
        for bad in [&b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"meth"[..], b"hello", b"\xff\xfe{}"] {
            let v = reply(bad);
            assert_eq!((v["id"].clone(), v["error"]["code"].clone()), (Value::Null, json!(-32700)), "{v}");
            assert_eq!(v["error"]["message"], "Parse error");
        }
        let v = reply(br#"{"jsonrpc": "2.0", "id": "a", "method": 7}"#);
        assert_eq!((v["id"].clone(), v["error"]["code"].clone()), (json!("a"), json!(-32600)), "{v}");
        assert_eq!(reply(b"[1]")["id"], Value::Null);
        let long = too_long_reply(TooLong { bytes: 60 << 20 });
        assert_eq!(long["error"]["code"], -32600);
        assert!(long["error"]["data"]["reason"].as_str().unwrap().contains("62914560 bytes"), "{long}");
    }
}
