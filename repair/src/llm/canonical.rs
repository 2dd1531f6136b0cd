//! The canonical form of a [`ChatRequest`] and its key, used to match replayed requests.
//!
//! **Canonical request**: the request is first read into [`ChatRequest`] (so only the
//! fields fixdex sends take part: `model`, `messages`, `tools`, `tool_choice`,
//! `temperature`, `n`, `max_tokens`, `seed`; unknown fields are dropped, `None` options and
//! empty lists are omitted, and numbers take their field's type, so `"temperature": 1`
//! and `1.0` agree; `"tool_choice": "auto"` next to tools is the default and is dropped, so
//! a request sent with it, as [`ChatRequest::for_wire`] does, matches one recorded without
//! it), then written as JSON with:
//! - object keys sorted by their UTF-8 bytes, at every depth (tool schemas included);
//! - no whitespace outside strings;
//! - strings escaped as `serde_json` does (`"`, `\`, control characters; non-ASCII as is);
//! - numbers as `serde_json` prints them (integers in decimal, floats in the shortest form
//!   that reads back exactly, always with a `.` or exponent, e.g. `0.2`, `1.0`).
//!
//! **Key**: lowercase hex SHA-256 of the canonical request's UTF-8 bytes (64 characters).

use super::{ChatRequest, ToolChoice};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The canonical JSON text of `req` (see the module docs). O(size of the request).
pub fn canonical_request(req: &ChatRequest) -> String {
    let mut value = serde_json::to_value(req).expect("a ChatRequest always serializes");
    if !req.tools.is_empty() && req.tool_choice == Some(ToolChoice::Auto) {
        value.as_object_mut().expect("a ChatRequest is an object").remove("tool_choice");
    }
    canonical_json(&value)
}

/// Lowercase hex SHA-256 of [`canonical_request`]`(req)`.
pub fn request_key(req: &ChatRequest) -> String {
    hex::encode(Sha256::digest(canonical_request(req).as_bytes()))
}

/// `value` as JSON with sorted keys and no insignificant whitespace.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insensitive_to_key_order_whitespace_and_number_spelling() {
        let a = r#"{"model":"m","temperature":1,"messages":[{"role":"user","content":"hi"}],
            "tools":[{"type":"function","function":{"name":"t","description":"d",
            "parameters":{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}}}}]}"#;
        let b = r#"{ "tools" : [ { "function" : { "parameters" : { "properties" : { "a" : { "type" : "integer" },
            "b" : { "type" : "string" } }, "type" : "object" }, "name" : "t", "description" : "d" },
            "type" : "function" } ], "messages" : [ { "content" : "hi", "role" : "user" } ],
            "temperature" : 1.0, "model" : "m", "unknown_field": true }"#;
        let (a, b): (ChatRequest, ChatRequest) = (serde_json::from_str(a).unwrap(), serde_json::from_str(b).unwrap());
        assert_eq!(canonical_request(&a), canonical_request(&b));
        assert_eq!(request_key(&a), request_key(&b));
        assert_eq!(request_key(&a).len(), 64);
        assert!(canonical_request(&a).starts_with(r#"{"messages":[{"content":"hi","role":"user"}],"model":"m","temperature":1.0,"tools":[{"function":{"description":"d","name":"t","parameters":{"properties":{"a":"#));
    }

    #[test]
    fn any_field_change_changes_the_key() {
        let base = ChatRequest::new("m", vec![crate::llm::Message::user("hi")]);
        let key = request_key(&base);
        let variants = [
            ChatRequest { temperature: Some(0.2), ..base.clone() },
            ChatRequest { seed: Some(1), ..base.clone() },
            ChatRequest { n: Some(2), ..base.clone() },
            ChatRequest { max_tokens: Some(5), ..base.clone() },
            ChatRequest { model: "m2".into(), ..base },
        ];
        for v in variants {
            assert_ne!(request_key(&v), key, "{}", canonical_request(&v));
        }
    }
}
