//! Method and function spans from tree-sitter, to aggregate line scores to methods.

use std::path::Path;

use tree_sitter::{Node, Parser};

use crate::language::Language;

/// Java node kinds that declare a method or constructor.
const JAVA_METHODS: &[&str] = &["method_declaration", "constructor_declaration", "compact_constructor_declaration"];
/// Java node kinds that declare a class-like type.
const JAVA_CLASSES: &[&str] = &["class_declaration", "interface_declaration", "enum_declaration", "record_declaration"];

/// The lines of one method, constructor or function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Span {
    /// `Class.method`, or `function` outside any class.
    pub(super) name: String,
    /// 1-based first line.
    pub(super) start: u32,
    /// 1-based last line.
    pub(super) end: u32,
}

/// The method spans of the Java or Python file at `path`, in source order; empty for other
/// extensions and unreadable files.
pub(super) fn spans(path: &Path) -> Vec<Span> {
    let Some(language) = Language::from_path(path) else { return Vec::new() };
    let Ok(text) = std::fs::read_to_string(path) else { return Vec::new() };
    let mut parser = Parser::new();
    if parser.set_language(&language.grammar()).is_err() {
        return Vec::new();
    }
    parser.parse(&text, None).map_or_else(Vec::new, |tree| collect(tree.root_node(), &text))
}

/// Every method below `root`, named after its innermost enclosing class.
fn collect(root: Node<'_>, text: &str) -> Vec<Span> {
    let mut spans = Vec::new();
    let mut stack = vec![(root, None::<String>)];
    while let Some((node, owner)) = stack.pop() {
        let name = || node.child_by_field_name("name").map_or("", |n| &text[n.byte_range()]).to_string();
        let kind = node.kind();
        let owner = if JAVA_CLASSES.contains(&kind) || kind == "class_definition" { Some(name()) } else { owner };
        if JAVA_METHODS.contains(&kind) || kind == "function_definition" {
            let name = owner.as_ref().map_or_else(name, |o| format!("{o}.{}", name()));
            spans.push(Span { name, start: line(node.start_position()), end: line(node.end_position()) });
        }
        let mut cursor = node.walk();
        let children: Vec<_> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev().map(|c| (c, owner.clone())));
    }
    spans
}

/// 1-based line of a tree-sitter position.
fn line(p: tree_sitter::Point) -> u32 {
    u32::try_from(p.row + 1).unwrap_or(u32::MAX)
}

/// Index of the innermost span holding `line` (the latest start, then the earliest end).
pub(super) fn innermost(spans: &[Span], line: u32) -> Option<usize> {
    spans
        .iter()
        .enumerate()
        .filter(|(_, s)| s.start <= line && line <= s.end)
        .max_by(|(_, a), (_, b)| a.start.cmp(&b.start).then(b.end.cmp(&a.end)))
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans_of(name: &str, text: &str) -> Vec<Span> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(name), text).unwrap();
        spans(&dir.path().join(name))
    }

    #[test]
    fn java_methods_and_constructors_are_named_after_their_class() {
        let s =
            spans_of("A.java", "class A {\n  A() {}\n  int f() {\n    return 1;\n  }\n  class B { void g() {} }\n}\n");
        let got: Vec<_> = s.iter().map(|s| (s.name.as_str(), s.start, s.end)).collect();
        assert_eq!(got, [("A.A", 2, 2), ("A.f", 3, 5), ("B.g", 6, 6)]);
    }

    #[test]
    fn python_nested_functions_and_innermost_lookup() {
        let s = spans_of(
            "a.py",
            "def f(x):\n    def g():\n        return x\n    return g()\n\nclass C:\n    def m(self):\n        pass\n",
        );
        let got: Vec<_> = s.iter().map(|s| (s.name.as_str(), s.start, s.end)).collect();
        assert_eq!(got, [("f", 1, 4), ("g", 2, 3), ("C.m", 7, 8)]);
        assert_eq!(innermost(&s, 3), Some(1));
        assert_eq!(innermost(&s, 4), Some(0));
        assert_eq!(innermost(&s, 6), None);
        assert!(spans_of("a.txt", "def f(): pass").is_empty());
    }
}
