//! Tool calls written as text, for models or servers without native tool calling.
//!
//! Recognised, in this order (the first form present wins):
//! 1. Hermes/Qwen tags: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`, any
//!    number of them; a missing closing tag runs to the end of the text. The inside may
//!    itself be wrapped in a ``` fence. A tag whose inside is not such an object is
//!    [`TextCalls::Broken`].
//! 2. Fenced blocks (```` ```json ````, ```` ``` ````, ```` ```tool_call ````) holding one
//!    object with a string `name` and an `arguments` (or Llama-style `parameters`) member.
//!    A fence that mentions both keys but is not valid JSON is [`TextCalls::Broken`]; other
//!    fences are ordinary content.
//! 3. The whole reply being one such object.
//!
//! `arguments` may be an object or a string holding JSON; it is kept as JSON text so that
//! native and textual calls are validated alike.

use serde_json::Value;

const OPEN_TAG: &str = "<tool_call>";
const CLOSE_TAG: &str = "</tool_call>";
const FENCE: &str = "```";

/// A tool call found in text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextCall {
    /// The tool name.
    pub name: String,
    /// The arguments as JSON text (not yet validated as an object).
    pub arguments: String,
}

/// What [`parse_text_calls`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextCalls {
    /// No tool call: the text is an ordinary answer.
    None,
    /// Tool calls, and the text with them cut out (trimmed).
    Calls {
        /// The calls, in order of appearance.
        calls: Vec<TextCall>,
        /// The remaining text.
        rest: String,
    },
    /// Something meant as a tool call that cannot be read; the string says why, for the model.
    Broken(String),
}

/// Finds tool calls written in `text` (see the module docs for the forms).
pub fn parse_text_calls(text: &str) -> TextCalls {
    if text.contains(OPEN_TAG) {
        return parse_tags(text);
    }
    let fenced = parse_fences(text);
    if fenced != TextCalls::None {
        return fenced;
    }
    match serde_json::from_str::<Value>(text.trim()).ok().as_ref().and_then(|v| as_call(v, false)) {
        Some(call) => TextCalls::Calls { calls: vec![call], rest: String::new() },
        None => TextCalls::None,
    }
}

/// The part of a reply cut off at the token limit that can hold complete tool calls: the
/// whole text when [`parse_text_calls`] reads it, else the text before its last
/// `<tool_call>` tag (or, without tags, its last ``` fence), where the cut call began.
pub fn complete_calls_text(text: &str) -> &str {
    if !matches!(parse_text_calls(text), TextCalls::Broken(_)) {
        return text;
    }
    let cut = text.rfind(OPEN_TAG).or_else(|| text.rfind(FENCE)).unwrap_or(0);
    &text[..cut]
}

/// The whole part of a reply cut off at the token limit: its text up to its last line
/// break, plus the last line when that ends a sentence (`.`, `!`, `?`, `` ` ``), since
/// the cut may have fallen right after it. `""` when not even the first line is whole.
pub fn complete_part(text: &str) -> &str {
    let last_line_start = text.rfind('\n').map_or(0, |i| i + 1);
    let last = text[last_line_start..].trim_end();
    if last.ends_with(['.', '!', '?', '`']) {
        return text;
    }
    &text[..last_line_start]
}

fn parse_tags(text: &str) -> TextCalls {
    let (mut calls, mut rest, mut tail) = (Vec::new(), String::new(), text);
    while let Some(start) = tail.find(OPEN_TAG) {
        rest.push_str(&tail[..start]);
        let inner_start = start + OPEN_TAG.len();
        let (inner, next) = match tail[inner_start..].find(CLOSE_TAG) {
            Some(end) => (&tail[inner_start..inner_start + end], inner_start + end + CLOSE_TAG.len()),
            None => (&tail[inner_start..], tail.len()),
        };
        match serde_json::from_str::<Value>(strip_fence(inner.trim())) {
            Err(e) => return TextCalls::Broken(format!("the {OPEN_TAG} block is not valid JSON ({e})")),
            Ok(v) => match as_call(&v, true) {
                Some(call) => calls.push(call),
                None => return TextCalls::Broken(format!("the {OPEN_TAG} block must hold {}", call_shape())),
            },
        }
        tail = &tail[next..];
    }
    rest.push_str(tail);
    TextCalls::Calls { calls, rest: rest.trim().to_owned() }
}

fn parse_fences(text: &str) -> TextCalls {
    let (mut calls, mut rest, mut tail) = (Vec::new(), String::new(), text);
    while let Some(open) = tail.find(FENCE) {
        let after = &tail[open + FENCE.len()..];
        let Some(newline) = after.find('\n') else { break };
        let Some(close) = after[newline..].find(FENCE) else { break };
        let body = &after[newline + 1..newline + close];
        let end = open + FENCE.len() + newline + close + FENCE.len();
        match serde_json::from_str::<Value>(body.trim()) {
            Ok(v) if as_call(&v, false).is_some() => {
                rest.push_str(&tail[..open]);
                calls.extend(as_call(&v, false));
            }
            Err(e) if body.contains("\"name\"") && mentions_arguments(body) => {
                return TextCalls::Broken(format!("the fenced tool call is not valid JSON ({e})"));
            }
            _ => rest.push_str(&tail[..end]),
        }
        tail = &tail[end..];
    }
    if calls.is_empty() {
        return TextCalls::None;
    }
    rest.push_str(tail);
    TextCalls::Calls { calls, rest: rest.trim().to_owned() }
}

fn mentions_arguments(body: &str) -> bool {
    body.contains("\"arguments\"") || body.contains("\"parameters\"")
}

/// The inside of a ``` fence, or `s` when it is not fenced.
fn strip_fence(s: &str) -> &str {
    let Some(after) = s.strip_prefix(FENCE) else { return s };
    let body = after.split_once('\n').map_or(after, |(_, body)| body);
    body.trim_end().strip_suffix(FENCE).unwrap_or(body).trim()
}

/// `v` as a tool call when it is `{"name": str, "arguments"|"parameters": ...}`; with
/// `lenient`, a missing arguments member reads as `{}`.
fn as_call(v: &Value, lenient: bool) -> Option<TextCall> {
    let obj = v.as_object()?;
    let name = obj.get("name")?.as_str()?.to_owned();
    let arguments = match obj.get("arguments").or_else(|| obj.get("parameters")) {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None if lenient => "{}".to_owned(),
        None => return None,
    };
    Some(TextCall { name, arguments })
}

/// The expected shape, for messages to the model.
pub(crate) fn call_shape() -> &'static str {
    r#"{"name": "<tool name>", "arguments": {<arguments as a JSON object>}}"#
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, arguments: &str) -> TextCall {
        TextCall { name: name.into(), arguments: arguments.into() }
    }

    #[test]
    fn hermes_tags_with_text_around() {
        let text = "I will look.\n<tool_call>\n{\"name\": \"a\", \"arguments\": {\"x\": 1}}\n</tool_call>\n\
                    <tool_call>{\"name\": \"b\"}</tool_call>";
        let TextCalls::Calls { calls, rest } = parse_text_calls(text) else { panic!() };
        assert_eq!(calls, vec![call("a", r#"{"x":1}"#), call("b", "{}")]);
        assert_eq!(rest, "I will look.");
    }

    #[test]
    fn unclosed_tag_runs_to_end_and_broken_tag_is_reported() {
        let TextCalls::Calls { calls, .. } = parse_text_calls("<tool_call>{\"name\": \"a\", \"arguments\": {}}") else {
            panic!()
        };
        assert_eq!(calls, vec![call("a", "{}")]);
        let TextCalls::Broken(why) = parse_text_calls("<tool_call>{\"name\": \"a\", </tool_call>") else { panic!() };
        assert!(why.contains("not valid JSON"), "{why}");
    }

    #[test]
    fn json_fence_and_parameters_alias() {
        let text = "Let me check.\n```json\n{\"name\": \"a\", \"parameters\": \"{\\\"y\\\": 2}\"}\n```\nthanks";
        let TextCalls::Calls { calls, rest } = parse_text_calls(text) else { panic!() };
        assert_eq!(calls, vec![call("a", r#"{"y": 2}"#)]);
        assert_eq!(rest, "Let me check.\n\nthanks");
    }

    #[test]
    fn ordinary_fences_and_prose_are_not_calls() {
        assert_eq!(parse_text_calls("Fix:\n```java\nint x = 1;\n```\n"), TextCalls::None);
        assert_eq!(parse_text_calls("```json\n{\"name\": \"config\"}\n```"), TextCalls::None);
        assert_eq!(parse_text_calls("The root cause is an off-by-one."), TextCalls::None);
        assert!(matches!(parse_text_calls("```json\n{\"name\": \"a\", \"arguments\": {\n```"), TextCalls::Broken(_)));
    }

    #[test]
    fn cut_off_text_keeps_its_complete_calls_and_lines() {
        let text = "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>\n<tool_call>{\"name\": \"b\", \"argu";
        let TextCalls::Calls { calls, .. } = parse_text_calls(complete_calls_text(text)) else { panic!() };
        assert_eq!(calls, vec![call("a", "{}")]);
        assert_eq!(complete_calls_text("<tool_call>{\"name"), "");
        assert_eq!(complete_part("ROOT CAUSE: off by one.\nBecause the lo"), "ROOT CAUSE: off by one.\n");
        assert_eq!(complete_part("ROOT CAUSE: off by one."), "ROOT CAUSE: off by one.");
        assert_eq!(complete_part("ROOT CAUSE: off by"), "");
    }

    #[test]
    fn bare_object_reply() {
        let TextCalls::Calls { calls, .. } = parse_text_calls(" {\"name\": \"a\", \"arguments\": {}} ") else {
            panic!()
        };
        assert_eq!(calls, vec![call("a", "{}")]);
    }
}
