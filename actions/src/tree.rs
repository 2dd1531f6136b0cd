//! Our own copy of a tree-sitter syntax tree: an arena in preorder with the facts the
//! matcher needs (subtree hash, size, height) and line numbers in the caller's snippet.
//!
//! Snippets are method-level fragments, so each side is parsed inside a *wrapper*: Java
//! as given, inside a dummy class (a method without its class), or inside a dummy method
//! (a few statements); Python dedented. Both sides use the first wrapper under which both
//! parse without errors; the wrapper's extra lines are subtracted from every line number.

use std::hash::{DefaultHasher, Hash, Hasher};

use crate::Language;

/// One node. Children of node `i` lie in `i + 1 .. i + size` (preorder arena).
#[derive(Debug, Clone)]
pub(crate) struct Node {
    /// tree-sitter kind (`binary_expression`, `<`, `identifier`, ...).
    pub kind: String,
    /// The field name this node has in its parent (`condition`, `left`, ...), if any.
    pub field: Option<&'static str>,
    /// Source text of leaves (tokens and literals); empty for inner nodes.
    pub label: String,
    /// Named node (grammar rule) or anonymous token (`(`, `<`, `if`).
    pub named: bool,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// First and last line in the caller's snippet, 1-based.
    pub lines: (u32, u32),
    /// Hash of kind, label and the children's hashes: equal hashes mean isomorphic subtrees.
    pub hash: u64,
    /// Nodes in the subtree, itself included.
    pub size: usize,
    /// 1 for a leaf.
    pub height: usize,
}

/// A parsed snippet. `nodes[0]` is the root.
#[derive(Debug, Clone)]
pub(crate) struct Ast {
    pub nodes: Vec<Node>,
}

/// Why a side could not be turned into a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParseFailure {
    /// Syntax errors under every wrapper.
    Syntax,
    /// The syntax tree is deeper than [`MAX_DEPTH`].
    TooDeep,
}

/// Deepest syntax tree we diff. Tree building and matching recurse along the tree's depth,
/// so a pathological input (thousands of nested brackets) would exhaust the stack; real
/// methods stay far below (a 40-deep tree is already unusual).
pub const MAX_DEPTH: usize = 400;

/// Kinds that are collapsed into one leaf with their full text: literals, and Python's
/// two-word operators (an alias of two tokens).
const LEAF_KINDS: &[&str] = &[
    "string_literal",
    "character_literal",
    "text_block",
    "string",
    "concatenated_string",
    "true",
    "false",
    "is not",
    "not in",
];

/// Comment kinds: dropped from the tree.
const COMMENT_KINDS: &[&str] = &["line_comment", "block_comment", "comment"];

/// Java wrappers: prefix, suffix. Each prefix ends in exactly one newline.
const JAVA_WRAPPERS: &[(&str, &str)] =
    &[("class __Fixdex {\n", "\n}\n"), ("class __Fixdex { void __fixdex() {\n", "\n}}\n"), ("\n", "\n")];

/// Parses both sides under the first wrapper that suits both.
pub(crate) fn parse_pair(buggy: &str, fixed: &str, lang: Language) -> Result<(Ast, Ast), ParseFailure> {
    match lang {
        Language::Java => {
            for (pre, post) in JAVA_WRAPPERS {
                match (parse_wrapped(buggy, pre, post, lang), parse_wrapped(fixed, pre, post, lang)) {
                    (Ok(a), Ok(b)) => return Ok((a, b)),
                    (Err(ParseFailure::TooDeep), _) | (_, Err(ParseFailure::TooDeep)) => {
                        return Err(ParseFailure::TooDeep);
                    }
                    _ => {}
                }
            }
            Err(ParseFailure::Syntax)
        }
        Language::Python => {
            let a = parse_wrapped(&dedent(buggy), "\n", "\n", lang)?;
            Ok((a, parse_wrapped(&dedent(fixed), "\n", "\n", lang)?))
        }
    }
}

/// Removes the indentation common to all non-blank lines (tabs and spaces alike count one).
pub(crate) fn dedent(src: &str) -> String {
    let indent = |l: &str| l.len() - l.trim_start_matches([' ', '\t']).len();
    let common = src.lines().filter(|l| !l.trim().is_empty()).map(indent).min().unwrap_or(0);
    let cut = |l| if str::trim(l).is_empty() { "" } else { &l[common.min(indent(l))..] };
    src.lines().map(cut).collect::<Vec<&str>>().join("\n")
}

/// One snippet's tree for reading, not diffing: the first wrapper (Java) under which it
/// parses without errors, else tree-sitter's error-recovering tree under the first wrapper
/// (Python: dedented). Only a tree deeper than [`MAX_DEPTH`] is refused.
pub(crate) fn parse_lenient(src: &str, lang: Language) -> Result<Ast, ParseFailure> {
    let (src, wrappers): (String, &[(&str, &str)]) = match lang {
        Language::Java => (src.to_string(), JAVA_WRAPPERS),
        Language::Python => (dedent(src), &[("\n", "\n")]),
    };
    for (pre, post) in wrappers {
        match parse_wrapped_with(&src, pre, post, lang, false) {
            Err(ParseFailure::Syntax) => continue,
            done => return done,
        }
    }
    parse_wrapped_with(&src, wrappers[0].0, wrappers[0].1, lang, true)
}

fn parse_wrapped(src: &str, pre: &str, post: &str, lang: Language) -> Result<Ast, ParseFailure> {
    parse_wrapped_with(src, pre, post, lang, false)
}

fn parse_wrapped_with(src: &str, pre: &str, post: &str, lang: Language, errors_ok: bool) -> Result<Ast, ParseFailure> {
    let text = format!("{pre}{src}{post}");
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&lang.grammar()).map_err(|_| ParseFailure::Syntax)?;
    let tree = parser.parse(&text, None).ok_or(ParseFailure::Syntax)?;
    if deeper_than(tree.root_node(), MAX_DEPTH) {
        return Err(ParseFailure::TooDeep);
    }
    if tree.root_node().has_error() && !errors_ok {
        return Err(ParseFailure::Syntax);
    }
    let offset = pre.matches('\n').count() as u32;
    let mut ast = Ast { nodes: Vec::new() };
    ast.push(tree.root_node(), None, None, &text, offset);
    ast.finish();
    Ok(ast)
}

/// Is the tree under `root` deeper than `max`? Iterative: safe on any depth.
fn deeper_than(root: tree_sitter::Node<'_>, max: usize) -> bool {
    let (mut cursor, mut depth) = (root.walk(), 0);
    loop {
        if depth > max {
            return true;
        }
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return false;
            }
            depth -= 1;
        }
    }
}

impl Ast {
    /// Appends `node` and its subtree in preorder; returns its index.
    fn push(
        &mut self,
        node: tree_sitter::Node<'_>,
        parent: Option<usize>,
        field: Option<&'static str>,
        text: &str,
        offset: u32,
    ) -> usize {
        let id = self.nodes.len();
        let kind = node.kind().to_string();
        let leaf = node.child_count() == 0 || LEAF_KINDS.contains(&kind.as_str());
        let line = |row: usize| (row as u32 + 1).saturating_sub(offset).max(1);
        self.nodes.push(Node {
            label: if leaf { text[node.byte_range()].to_string() } else { String::new() },
            named: node.is_named(),
            kind,
            field,
            parent,
            children: Vec::new(),
            lines: (line(node.start_position().row), line(node.end_position().row)),
            hash: 0,
            size: 1,
            height: 1,
        });
        if !leaf {
            self.push_children(node, id, text, offset);
        }
        id
    }

    fn push_children(&mut self, node: tree_sitter::Node<'_>, id: usize, text: &str, offset: u32) {
        let mut cursor = node.walk();
        if !cursor.goto_first_child() {
            return;
        }
        loop {
            let child = cursor.node();
            if !child.is_extra() && !COMMENT_KINDS.contains(&child.kind()) {
                let field = cursor.field_name().and_then(static_field);
                let c = self.push(child, Some(id), field, text, offset);
                self.nodes[id].children.push(c);
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }

    /// Computes hash, size and height bottom-up (reverse preorder visits children first).
    fn finish(&mut self) {
        for i in (0..self.nodes.len()).rev() {
            let mut h = DefaultHasher::new();
            let n = &self.nodes[i];
            (class(n), &n.label).hash(&mut h);
            let (mut size, mut height) = (1, 1);
            for &c in &n.children {
                let c = &self.nodes[c];
                c.hash.hash(&mut h);
                size += c.size;
                height = height.max(c.height + 1);
            }
            let n = &mut self.nodes[i];
            (n.hash, n.size, n.height) = (h.finish(), size, height);
        }
    }

    /// Is `d` in the subtree of `a` (itself excluded)?
    pub fn is_descendant(&self, d: usize, a: usize) -> bool {
        d > a && d < a + self.nodes[a].size
    }

    /// Ancestors of `n`, nearest first, `n` excluded.
    pub fn ancestors(&self, n: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(self.nodes[n].parent, |&p| self.nodes[p].parent)
    }

    /// Source-like text of a subtree: its leaves joined by single spaces.
    pub fn text(&self, n: usize) -> String {
        let leaves = (n..n + self.nodes[n].size).filter(|&i| self.nodes[i].children.is_empty());
        leaves.map(|i| self.nodes[i].label.as_str()).collect::<Vec<_>>().join(" ")
    }
}

/// The matching class of a node: anonymous tokens form one class (so `<` can be updated to
/// `<=`), as do the boolean literals, the number literals (`0.0` → `0`, `10` → `0xA`) and
/// the string literals; other named nodes are their kind.
pub(crate) fn class(n: &Node) -> &str {
    match n.kind.as_str() {
        _ if !n.named => "#token",
        "true" | "false" => "#bool",
        "integer" | "float" => "#number",
        k if k.ends_with("integer_literal") || k.ends_with("floating_point_literal") => "#number",
        "string_literal" | "character_literal" | "text_block" | "string" | "concatenated_string" => "#string",
        k => k,
    }
}

/// Field names of the two grammars we use, as static strings (tree-sitter's are borrowed
/// from the language, which outlives every tree but is typed with the tree's lifetime).
fn static_field(name: &str) -> Option<&'static str> {
    const FIELDS: &[&str] = &[
        "alternative",
        "argument",
        "arguments",
        "body",
        "condition",
        "consequence",
        "declarator",
        "dimensions",
        "element",
        "function",
        "init",
        "interfaces",
        "key",
        "left",
        "name",
        "object",
        "operand",
        "operator",
        "operators",
        "parameters",
        "resource",
        "resources",
        "return_type",
        "right",
        "superclass",
        "type",
        "type_arguments",
        "update",
        "value",
        "attribute",
        "definition",
        "subscript",
        "module_name",
        "index",
        "array",
        "field",
        "constructor",
    ];
    FIELDS.iter().find(|f| **f == name).copied()
}
