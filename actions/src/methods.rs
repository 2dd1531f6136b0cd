//! [`methods`]: the methods, constructors and functions of a whole Java or Python source
//! file, with the keys, spans and layout-insensitive hashes that `fixdex mine` needs to
//! pair a method before a commit with the same method after it.

use std::ops::Range;

use tree_sitter::{Node, Parser};

use crate::tree::MAX_DEPTH;
use crate::{Error, Language, Result};

/// Java declarations that are methods.
const JAVA_METHODS: [&str; 3] = ["method_declaration", "constructor_declaration", "compact_constructor_declaration"];
/// Java declarations that own methods.
const JAVA_CLASSES: [&str; 5] = [
    "class_declaration",
    "interface_declaration",
    "enum_declaration",
    "record_declaration",
    "annotation_type_declaration",
];
/// Comment kinds of both grammars: left out of [`Method::code_hash`].
const COMMENTS: [&str; 3] = ["line_comment", "block_comment", "comment"];

/// One method, constructor or function of a file ([`methods`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Method {
    /// Simple name; a Java constructor's is its class's.
    pub name: String,
    /// The enclosing classes, outermost first (empty for a module-level Python function).
    pub owners: Vec<String>,
    /// Java: the parameter types, comma-separated, spaces kept only between words
    /// (`int,String[]`, `Map<K,? extends V>`); Python: `None`.
    pub params: Option<String>,
    /// Whether the declaration sits inside another method or function (a Python nested
    /// function, a method of a Java anonymous or local class). `fixdex mine` attributes a
    /// change there to the enclosing method, as the corpora of `../shared/data` do.
    pub nested: bool,
    /// Byte range in the file: from the start of the declaration's first line (its
    /// indentation, Java annotations and modifiers, Python decorators included) to its end.
    /// When other code precedes the declaration on that line (a generated one-line class,
    /// a field on the same line), the range starts at the declaration itself: a method's
    /// length never counts code that is not its own.
    pub bytes: Range<usize>,
    /// First and last line of [`Method::bytes`], 1-based, inclusive.
    pub lines: (usize, usize),
    /// FNV-1a hash of the declaration's syntax tree without comments and docstrings: node
    /// kinds in preorder with a mark at each node's end, and leaf texts. Two versions with the
    /// same hash differ only in layout, comments or docstrings (Python indentation is
    /// structure: a re-indented block changes the tree).
    pub code_hash: u64,
}

impl Method {
    /// The method's key within its file: `Owner.Inner.name(int,String)` in Java,
    /// `Owner.name` or `name` in Python. Stable across commits unless the method is renamed,
    /// moved or (Java) its parameter types change; the key `fixdex mine` pairs versions by.
    pub fn key(&self) -> String {
        let mut key = self.owners.join(".");
        if !key.is_empty() {
            key.push('.');
        }
        key.push_str(&self.name);
        if let Some(params) = &self.params {
            key.push('(');
            key.push_str(params);
            key.push(')');
        }
        key
    }
}

/// The methods, constructors and functions of the source file `text` in `lang`, in source
/// order (a nested one after its parent).
///
/// # Errors
/// [`Error::Parse`] when tree-sitter finds a syntax error anywhere in the file (a file with
/// an error is skipped as a whole: its method boundaries cannot be trusted) or the tree is
/// deeper than [`MAX_DEPTH`].
pub fn methods(text: &str, lang: Language) -> Result<Vec<Method>> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).expect("the grammars match the tree-sitter version");
    let tree = parser.parse(text, None).ok_or_else(|| Error::Parse { reason: "the parser gave no tree".into() })?;
    let root = tree.root_node();
    if root.has_error() {
        let at = first_error(root).map_or(0, |n| n.start_position().row + 1);
        return Err(Error::Parse { reason: format!("syntax error at line {at}") });
    }
    let mut found = Vec::new();
    let mut stack = vec![(root, 0usize)];
    while let Some((node, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            return Err(Error::Parse { reason: format!("syntax tree deeper than {MAX_DEPTH}") });
        }
        if is_method(lang, node) {
            found.push(method(text, lang, node));
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev().map(|c| (c, depth + 1)));
    }
    Ok(found)
}

fn is_method(lang: Language, node: Node<'_>) -> bool {
    match lang {
        Language::Java => JAVA_METHODS.contains(&node.kind()),
        Language::Python => node.kind() == "function_definition",
    }
}

fn is_class(lang: Language, node: Node<'_>) -> bool {
    match lang {
        Language::Java => JAVA_CLASSES.contains(&node.kind()),
        Language::Python => node.kind() == "class_definition",
    }
}

fn first_error(root: Node<'_>) -> Option<Node<'_>> {
    let mut node = root;
    'down: loop {
        if node.is_error() || node.is_missing() {
            return Some(node);
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.has_error() {
                node = child;
                continue 'down;
            }
        }
        return None;
    }
}

fn name_of<'t>(text: &'t str, node: Node<'_>) -> &'t str {
    node.child_by_field_name("name").map_or("", |n| &text[n.byte_range()])
}

fn method(text: &str, lang: Language, node: Node<'_>) -> Method {
    let mut owners = Vec::new();
    let mut nested = false;
    for up in std::iter::successors(node.parent(), |n| n.parent()) {
        if is_class(lang, up) && !nested {
            owners.push(name_of(text, up).to_string());
        } else if is_method(lang, up) || up.kind() == "object_creation_expression" || up.kind() == "lambda_expression" {
            nested = true;
        }
    }
    owners.reverse();
    // A decorated Python function's span starts at its decorators.
    let outer = node.parent().filter(|p| p.kind() == "decorated_definition").unwrap_or(node);
    let bytes = span_start(text, outer.start_byte())..outer.end_byte();
    // Rows from the tree, not by counting newlines: linear in the file, whatever its size.
    let end = outer.end_position();
    let last_row = if end.column == 0 && end.row > outer.start_position().row { end.row - 1 } else { end.row };
    let lines = (outer.start_position().row + 1, last_row + 1);
    Method {
        name: name_of(text, node).to_string(),
        owners,
        params: (lang == Language::Java).then(|| java_params(text, node)),
        nested,
        lines,
        code_hash: code_hash(text, outer),
        bytes,
    }
}

/// Where a declaration starting at byte `at` begins its span: the start of its line when
/// only indentation precedes it there, else `at` itself. Looks back at most over the
/// indentation, so a long line costs nothing.
fn span_start(text: &str, at: usize) -> usize {
    let indent = text[..at].bytes().rev().take_while(|b| *b == b' ' || *b == b'\t').count();
    let start = at - indent;
    if start == 0 || text.as_bytes()[start - 1] == b'\n' { start } else { at }
}

/// `int,String[]`: each formal parameter's type (varargs as `T...`), spaces removed.
fn java_params(text: &str, node: Node<'_>) -> String {
    let Some(list) = node.child_by_field_name("parameters") else { return String::new() };
    let mut cursor = list.walk();
    let types: Vec<String> = list
        .named_children(&mut cursor)
        .filter_map(|p| {
            let ty = p.child_by_field_name("type").or_else(|| p.named_child(0))?;
            let mut t = squeeze(&text[ty.byte_range()]);
            if p.kind() == "spread_parameter" {
                t.push_str("...");
            }
            (p.kind() != "line_comment" && p.kind() != "block_comment").then_some(t)
        })
        .collect();
    types.join(",")
}

/// `text` with whitespace removed next to brackets, commas and dots, and one space elsewhere
/// (`Map<String, ? extends T>` → `Map<String,? extends T>`).
fn squeeze(text: &str) -> String {
    let punct = |c: char| "<>,()[].".contains(c);
    let mut out = String::new();
    for part in text.split_whitespace() {
        if !out.is_empty() && !out.ends_with(punct) && !part.starts_with(punct) {
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}

/// Whether `n` is a statement holding only a string: a Python docstring (or a string left
/// bare elsewhere, which runs no code either). Left out of the hashes as comments are, so a
/// change to a docstring alone is not a code change (`fixdex mine`). Java has no such
/// statement.
fn is_docstring(n: Node<'_>) -> bool {
    n.kind() == "expression_statement"
        && n.named_child_count() == 1
        && n.named_child(0).is_some_and(|c| matches!(c.kind(), "string" | "concatenated_string"))
}

/// See [`Method::code_hash`].
fn code_hash(text: &str, node: Node<'_>) -> u64 {
    tree_hash(text, node, &[])
}

/// A hash of the whole file's syntax tree as [`Method::code_hash`] hashes a method's,
/// leaving out every node that lies inside one of the byte ranges `skip` (the
/// [`Method::bytes`] of the methods compared on their own). Equal for two versions of a file
/// whose only changes outside those ranges are layout and comments: what `fixdex mine` asks
/// before it emits the changes outside methods as a pair.
///
/// # Errors
/// As [`methods`]: a syntax error, or a tree deeper than [`MAX_DEPTH`].
pub fn outline_hash(text: &str, lang: Language, skip: &[Range<usize>]) -> Result<u64> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).expect("the grammars match the tree-sitter version");
    let tree = parser.parse(text, None).ok_or_else(|| Error::Parse { reason: "the parser gave no tree".into() })?;
    if tree.root_node().has_error() {
        return Err(Error::Parse { reason: "syntax error".into() });
    }
    Ok(tree_hash(text, tree.root_node(), skip))
}

/// FNV-1a over `node`'s subtree: kinds in preorder with an end mark per node, leaf texts;
/// comments, docstrings and nodes inside a `skip` range left out.
fn tree_hash(text: &str, node: Node<'_>, skip: &[Range<usize>]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes.iter().chain(&[0xff]) {
            h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    };
    // Sorted by start: the one range that can hold a node is the last one starting at or
    // before it (a binary search, so a file of many methods stays linear-logarithmic).
    let mut sorted: Vec<&Range<usize>> = skip.iter().collect();
    sorted.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let inside = |n: Node<'_>| {
        let i = sorted.partition_point(|r| r.start <= n.start_byte());
        sorted[..i].iter().rev().take(2).any(|r| n.end_byte() <= r.end)
    };
    // `None` closes the node opened before it: without the closing marks two trees could
    // share a preorder (Python's `if x: a(); b()` against `if x: a()` then `b()`).
    let mut stack = vec![Some(node)];
    while let Some(entry) = stack.pop() {
        let Some(n) = entry else {
            feed(b")");
            continue;
        };
        if COMMENTS.contains(&n.kind()) || is_docstring(n) || inside(n) {
            continue;
        }
        feed(n.kind().as_bytes());
        if n.child_count() == 0 {
            feed(text[n.byte_range()].as_bytes());
        }
        stack.push(None);
        let mut cursor = n.walk();
        let children: Vec<Node<'_>> = n.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev().map(Some));
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    const JAVA: &str = "package p;\n\npublic class A {\n    /** doc */\n    @Override\n    public int f(int n, java.util.List<? extends String> xs) {\n        Runnable r = new Runnable() { public void run() { } };\n        return n;\n    }\n\n    A() { }\n\n    static class B {\n        void g(String... s) { }\n    }\n}\n";

    #[test]
    fn java_keys_spans_and_nesting() {
        let got = methods(JAVA, Language::Java).unwrap();
        let keys: Vec<(String, bool)> = got.iter().map(|m| (m.key(), m.nested)).collect();
        assert_eq!(
            keys,
            [
                ("A.f(int,java.util.List<? extends String>)".to_string(), false),
                ("run()".to_string(), true),
                ("A.A()".to_string(), false),
                ("A.B.g(String...)".to_string(), false),
            ]
        );
        let f = &got[0];
        assert_eq!(f.lines, (5, 9), "annotations included, javadoc not");
        assert!(JAVA[f.bytes.clone()].starts_with("    @Override\n"));
        assert!(JAVA[f.bytes.clone()].ends_with("return n;\n    }"));
    }

    #[test]
    fn python_decorators_owners_and_nested_functions() {
        let src = "import x\n\nclass C:\n    @staticmethod\n    def f(a):\n        def inner():\n            return a\n        return inner\n\ndef g():\n    pass\n";
        let got = methods(src, Language::Python).unwrap();
        let keys: Vec<(String, bool, (usize, usize))> = got.iter().map(|m| (m.key(), m.nested, m.lines)).collect();
        assert_eq!(
            keys,
            [
                ("C.f".to_string(), false, (4, 8)),
                ("inner".to_string(), true, (6, 7)),
                ("g".to_string(), false, (10, 11))
            ]
        );
    }

    #[test]
    fn code_hash_ignores_layout_and_comments_but_not_code() {
        let hash = |src: &str| methods(src, Language::Java).unwrap()[0].code_hash;
        let a = hash("class A { int f() { return 1; } }");
        assert_eq!(a, hash("class A {\n  int f() {\n    // one\n    return   1;\n  }\n}"));
        assert_ne!(a, hash("class A { int f() { return 2; } }"));
        let py = |src: &str| methods(src, Language::Python).unwrap()[0].code_hash;
        let block = py("def f(x):\n    if x:\n        a()\n        b()\n");
        assert_ne!(block, py("def f(x):\n    if x:\n        a()\n    b()\n"), "Python indentation is structure");
        assert_eq!(block, py("def f(x):\n  if x:  # c\n    a()\n    b()\n"));
        // Docstrings are documentation (tqdm's `TMonitor._atexit_signal` changed only its own).
        let doc = py("def f(x):\n    \"\"\"Old words.\"\"\"\n    return x\n");
        assert_eq!(doc, py("def f(x):\n    \"\"\"New words,\n    two lines.\"\"\"\n    return x\n"));
        assert_eq!(doc, py("def f(x):\n    return x\n"));
        assert_ne!(doc, py("def f(x):\n    \"\"\"Old words.\"\"\"\n    return x + 1\n"));
    }

    #[test]
    fn outline_hash_sees_changes_outside_the_skipped_methods_only() {
        let outline = |src: &str| {
            let skip: Vec<Range<usize>> = methods(src, Language::Java).unwrap().into_iter().map(|m| m.bytes).collect();
            outline_hash(src, Language::Java, &skip).unwrap()
        };
        let a = outline("class A {\n  int x = 1;\n  int f() { return 1; }\n}\n");
        assert_eq!(a, outline("class A {\n  /** doc */\n  int x = 1;\n  int f() { return 2; }\n}\n"));
        assert_ne!(a, outline("class A {\n  int x = 2;\n  int f() { return 1; }\n}\n"));
    }

    /// Issue 29 item 5: a method that shares its line with a long field starts at its own
    /// declaration, so its length is its own.
    #[test]
    fn issue_29_a_method_after_code_on_its_line_starts_at_itself() {
        let table = "0,".repeat(50_000);
        let src = format!(
            "class G {{ int[] t = {{{table}}}; int f(int x) {{ return x; }}\n    int g() {{ return 1; }}\n}}\n"
        );
        let got = methods(&src, Language::Java).unwrap();
        assert_eq!(&src[got[0].bytes.clone()], "int f(int x) { return x; }");
        assert_eq!(&src[got[1].bytes.clone()], "    int g() { return 1; }", "indentation is still included");
        assert_eq!((got[0].lines, got[1].lines), ((1, 1), (2, 2)));
    }

    #[test]
    fn syntax_errors_are_refused_with_their_line() {
        let err = methods("class A {\n  void f( {\n}\n", Language::Java).unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
        assert!(methods("", Language::Python).unwrap().is_empty());
    }
}
