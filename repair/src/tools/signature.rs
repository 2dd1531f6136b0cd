//! Which method does `name(Type, ...)` name? A repair location (`fixdex repair --method`)
//! is a method name, `Owner.name`, optionally with a parameter list that picks one overload:
//! Java parameters by their type as written (whitespace aside, package qualifiers aside,
//! generics optional: `Map` matches `Map<String, Integer>`, `String[]` matches `String...`),
//! Python parameters by name. [`select`] finds the methods a location names;
//! [`ambiguous`] is the refusal when it names several and one is needed.

use tree_sitter::Node;

use super::ToolError;
use super::source::{SourceFile, children, line_of, one_line};
use super::syntax::{MethodDef, methods};
use super::variables::list;
use crate::Language;

/// A method location as given: `name` or `Owner.name`, and the parameter list when one was
/// given (`()` is an empty list; no parentheses, no list).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Wanted<'a> {
    /// The name part, as [`MethodDef::matches`] reads it.
    pub(crate) name: &'a str,
    /// The parameters, each [`key`]ed; `None` when no list was given.
    pub(crate) params: Option<Vec<String>>,
}

impl Wanted<'_> {
    /// Reads `text`: `parse`, `Parser.parse`, `parse(String, Map<K, V>)`; a missing closing
    /// parenthesis is forgiven.
    pub(crate) fn parse(text: &str) -> Wanted<'_> {
        let Some((name, rest)) = text.split_once('(') else { return Wanted { name: text.trim(), params: None } };
        let inside = rest.trim_end().strip_suffix(')').unwrap_or(rest);
        let params = split_top_level(inside).into_iter().map(key).filter(|p| !p.is_empty()).collect();
        Wanted { name: name.trim(), params: Some(params) }
    }
}

/// `text` split at the commas outside `<>`, `()` and `[]`.
fn split_top_level(text: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// Whether `c` can be part of a Java or Python name.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// `text` on one line with whitespace only between two words, one space there
/// (`Map < String , Integer >` → `Map<String,Integer>`, `? extends T` → `?extends T`).
pub(crate) fn squeeze(text: &str) -> String {
    let mut out = String::new();
    let mut gap = false;
    for c in text.chars() {
        if c.is_whitespace() {
            gap = true;
            continue;
        }
        if gap && out.chars().last().is_some_and(is_word) && is_word(c) {
            out.push(' ');
        }
        gap = false;
        out.push(c);
    }
    out
}

/// The comparable form of a parameter type: [`squeeze`]d, package qualifiers dropped
/// (`java.util.Map` → `Map`) and varargs as an array (`String...` → `String[]`).
pub(crate) fn key(text: &str) -> String {
    let squeezed = squeeze(text).replace("...", "[]");
    let mut out = String::with_capacity(squeezed.len());
    for c in squeezed.chars() {
        if c == '.' {
            while out.chars().last().is_some_and(is_word) {
                out.pop();
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `key` without its type arguments (`Map<String,Integer>` → `Map`).
fn erased(key: &str) -> String {
    let mut depth = 0;
    key.chars()
        .filter(|&c| {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                _ => return depth == 0,
            }
            false
        })
        .collect()
}

/// Whether the given parameter `given` names the declared `declared` (both [`key`]s):
/// equal, or equal to its erasure when `given` has no type arguments.
fn same_type(given: &str, declared: &str) -> bool {
    given == declared || (!given.contains('<') && given == erased(declared))
}

/// The parameters of the method `node` as a location names them, as written (one line):
/// Java's types (`int`, `Map<String, Integer>`, `String...`, a C-style `int x[]` as
/// `int[]`); Python's names (`self`, `*args`, `**kw`; annotations and defaults left out).
pub(crate) fn params(file: &SourceFile, node: Node<'_>) -> Vec<String> {
    let Some(list) = node.child_by_field_name("parameters") else { return Vec::new() };
    let each = children(list).into_iter().filter(|p| !p.kind().contains("comment"));
    match file.lang {
        Language::Java => each.filter_map(|p| java_param(file, p)).collect(),
        Language::Python => each.filter_map(|p| python_param(file, p)).collect(),
    }
}

/// A Java formal parameter's type as written, on one line; `None` for a receiver parameter.
fn java_param(file: &SourceFile, p: Node<'_>) -> Option<String> {
    let ty = p.child_by_field_name("type").or_else(|| children(p).into_iter().find(|c| c.kind().ends_with("type")))?;
    let mut text = one_line(file.text(ty));
    match p.kind() {
        "spread_parameter" => text.push_str("..."),
        "formal_parameter" => {
            let dims = children(p).into_iter().filter(|c| c.kind() == "dimensions" && c.start_byte() > ty.end_byte());
            dims.for_each(|d| text.push_str(&squeeze(file.text(d))));
        }
        _ => return None,
    }
    Some(text)
}

/// A Python parameter's name (with its `*` or `**`); `None` for the bare `*` and `/`
/// separators.
fn python_param(file: &SourceFile, p: Node<'_>) -> Option<String> {
    let text = file.text(p);
    let name = text.split([':', '=']).next().unwrap_or(text).trim();
    (name != "*" && name != "/" && !name.is_empty()).then(|| name.to_string())
}

/// Whether `declared` (a method's [`params`]) are the parameters `given` ([`key`]s): Java
/// by type ([`same_type`]); Python by name, a leading `self` or `cls` optional.
fn same_params(lang: Language, given: &[String], declared: &[String]) -> bool {
    let declared: Vec<String> = declared.iter().map(|d| key(d)).collect();
    match lang {
        Language::Java => given.len() == declared.len() && given.iter().zip(&declared).all(|(g, d)| same_type(g, d)),
        Language::Python => {
            let receiver = declared.first().is_some_and(|d| d == "self" || d == "cls");
            given == declared.as_slice() || (receiver && given == &declared[1..])
        }
    }
}

/// The methods of `file` that the location `wanted` names (`name`, `Owner.name`, either with
/// a parameter list), in source order; never empty.
///
/// # Errors
/// [`ToolError::MethodNotFound`]: no method has that name (the error lists the file's
/// methods), or none of those that do has those parameters (it lists them with their
/// parameters and lines).
pub(crate) fn select<'t>(file: &'t SourceFile, wanted: &str) -> Result<Vec<MethodDef<'t>>, ToolError> {
    let query = Wanted::parse(wanted);
    let named: Vec<MethodDef<'t>> = methods(file).into_iter().filter(|m| m.matches(query.name)).collect();
    let Some(given) = &query.params else { return not_empty(file, wanted, named) };
    let found: Vec<MethodDef<'t>> =
        named.iter().filter(|m| same_params(file.lang, given, &params(file, m.node))).cloned().collect();
    if found.is_empty() && !named.is_empty() {
        let available = labels(file, &named).join(", ");
        return Err(ToolError::MethodNotFound { method: wanted.to_string(), path: file.rel.clone(), available });
    }
    not_empty(file, wanted, found)
}

/// `found`, or the error listing the methods of `file` when it is empty.
fn not_empty<'t>(file: &SourceFile, wanted: &str, found: Vec<MethodDef<'t>>) -> Result<Vec<MethodDef<'t>>, ToolError> {
    if !found.is_empty() {
        return Ok(found);
    }
    let mut names: Vec<String> = methods(file).iter().map(MethodDef::qualified).collect();
    names.sort();
    names.dedup();
    let available = if names.is_empty() { "(none)".to_string() } else { list(&names) };
    Err(ToolError::MethodNotFound { method: wanted.to_string(), path: file.rel.clone(), available })
}

/// Each of `found` as a location that names it, with its first line: `parse(String) line
/// 12`; qualified (`Parser.parse(String)`) when they are not all of one class.
fn labels(file: &SourceFile, found: &[MethodDef<'_>]) -> Vec<String> {
    signatures(file, found).into_iter().zip(found).map(|(s, m)| format!("{s} line {}", line_of(m.node))).collect()
}

/// Each of `found` as a location: `name(params)`, qualified when they are not all of one
/// class.
fn signatures(file: &SourceFile, found: &[MethodDef<'_>]) -> Vec<String> {
    let one_class = found.windows(2).all(|w| w[0].owner == w[1].owner);
    let name = |m: &MethodDef<'_>| if one_class { m.name.to_string() } else { m.qualified() };
    found.iter().map(|m| format!("{}({})", name(m), params(file, m.node).join(", "))).collect()
}

/// The refusal of a location `wanted` that names every one of `found` (at least two) in
/// `file`: [`ToolError::AmbiguousMethod`] listing them, with the last as the example.
pub(crate) fn ambiguous(file: &SourceFile, wanted: &str, found: &[MethodDef<'_>]) -> ToolError {
    let signatures = signatures(file, found);
    let unique = signatures.iter().enumerate().all(|(i, s)| !signatures[..i].contains(s));
    ToolError::AmbiguousMethod {
        method: wanted.to_string(),
        path: file.rel.clone(),
        candidates: labels(file, found),
        example: unique.then(|| signatures.last().cloned()).flatten(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_parse_with_and_without_parameters() {
        assert_eq!(Wanted::parse("parse"), Wanted { name: "parse", params: None });
        assert_eq!(Wanted::parse(" P.parse ( ) "), Wanted { name: "P.parse", params: Some(vec![]) });
        let w = Wanted::parse("create(java.io.InputStream, Map<String, List<Integer>>, int [ ], String...)");
        assert_eq!(w.params.unwrap(), ["InputStream", "Map<String,List<Integer>>", "int[]", "String[]"]);
        assert_eq!(Wanted::parse("f(int, long").params.unwrap(), ["int", "long"]);
    }

    #[test]
    fn types_match_whitespace_qualifiers_and_generics_aside() {
        assert_eq!(squeeze(" Map < String , ? extends  T >"), "Map<String,?extends T>");
        assert!(same_type(&key("Map"), &key("Map<String, Integer>")));
        assert!(same_type(&key("java.util.Map<String,Integer>"), &key("Map<java.lang.String, Integer>")));
        assert!(!same_type(&key("Map<String,Long>"), &key("Map<String, Integer>")));
        assert!(!same_type(&key("InputStream"), &key("String")));
        assert!(same_type(&key("String[]"), &key("String...")));
    }
}
