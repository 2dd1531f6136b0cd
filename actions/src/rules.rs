//! What the node kinds of the two grammars mean for the action vocabulary.

use crate::tree::{Ast, Node};

/// Statement-like nodes: where an edit is attributed, and what is inserted or deleted
/// whole. Anything ending in `_statement` counts too.
const STATEMENTS: &[&str] = &[
    "local_variable_declaration",
    "field_declaration",
    "method_declaration",
    "constructor_declaration",
    "class_declaration",
    "interface_declaration",
    "enum_declaration",
    "explicit_constructor_invocation",
    "function_definition",
    "class_definition",
    "decorated_definition",
    "elif_clause",
    "else_clause",
    "except_clause",
    "catch_clause",
    "finally_clause",
    "switch_block_statement_group",
];

/// Is this node a statement (or a clause that heads a block)?
pub(crate) fn is_statement(n: &Node) -> bool {
    n.named && (n.kind.ends_with("_statement") || STATEMENTS.contains(&n.kind.as_str()))
}

/// Calls: Java method invocations and `new`, Python calls.
pub(crate) fn is_call(n: &Node) -> bool {
    matches!(
        n.kind.as_str(),
        "method_invocation" | "object_creation_expression" | "explicit_constructor_invocation" | "call"
    )
}

/// Binary expressions whose operands are `left` / `right` (or the children around the
/// operator, for Python comparisons).
pub(crate) fn is_binary(n: &Node) -> bool {
    matches!(n.kind.as_str(), "binary_expression" | "binary_operator" | "comparison_operator" | "boolean_operator")
}

/// Nodes whose operator token is a unary one.
pub(crate) fn is_unary(n: &Node) -> bool {
    matches!(n.kind.as_str(), "unary_expression" | "update_expression" | "not_operator" | "unary_operator")
}

pub(crate) fn is_number(n: &Node) -> bool {
    n.kind.ends_with("integer_literal")
        || n.kind.ends_with("floating_point_literal")
        || matches!(n.kind.as_str(), "integer" | "float")
}

pub(crate) fn is_text_literal(n: &Node) -> bool {
    matches!(n.kind.as_str(), "string_literal" | "character_literal" | "text_block" | "string" | "concatenated_string")
}

pub(crate) fn is_bool(n: &Node) -> bool {
    matches!(n.kind.as_str(), "true" | "false")
}

pub(crate) fn is_null(n: &Node) -> bool {
    matches!(n.kind.as_str(), "null_literal" | "none")
}

pub(crate) fn is_identifier(n: &Node) -> bool {
    matches!(n.kind.as_str(), "identifier" | "type_identifier" | "field_identifier")
}

/// Operator tokens (anonymous leaves that are not brackets, separators or keywords).
pub(crate) fn is_operator_token(n: &Node) -> bool {
    !n.named && !n.label.is_empty() && n.label.chars().all(|c| "+-*/%<>=!&|^~?:@".contains(c))
        || matches!(n.label.as_str(), "and" | "or" | "not" | "is" | "in" | "is not" | "not in" | "instanceof")
}

/// Method names whose call checks for null.
const NULL_CHECK_CALLS: &[&str] =
    &["requireNonNull", "checkNotNull", "notNull", "isNull", "nonNull", "requireNonNullElse", "isNotNull"];

/// A comparison with `null` / `None` (`x != null`, `x is None`) or a null-checking call.
pub(crate) fn is_null_check(t: &Ast, n: usize) -> bool {
    let node = &t.nodes[n];
    let kids = || node.children.iter().map(|&c| &t.nodes[c]);
    if is_binary(node) && node.kind != "boolean_operator" {
        let cmp = kids().any(|c| matches!(c.label.as_str(), "==" | "!=" | "is" | "is not"));
        return cmp && kids().any(is_null);
    }
    is_call(node) && call_name(t, n).is_some_and(|name| NULL_CHECK_CALLS.contains(&t.nodes[name].label.as_str()))
}

/// The name token of a call: Java `name` (of `new`: the class name), Python the function
/// identifier or the attribute
/// of an `a.f(...)` call.
pub(crate) fn call_name(t: &Ast, call: usize) -> Option<usize> {
    let child = |n: usize, f: &str| t.nodes[n].children.iter().copied().find(|&c| t.nodes[c].field == Some(f));
    match t.nodes[call].kind.as_str() {
        "method_invocation" => child(call, "name"),
        "object_creation_expression" => child(call, "type")
            .map(|ty| (ty..ty + t.nodes[ty].size).find(|&i| t.nodes[i].kind == "type_identifier").unwrap_or(ty)),
        "call" => {
            let f = child(call, "function")?;
            if t.nodes[f].kind == "attribute" { child(f, "attribute") } else { Some(f) }
        }
        _ => None,
    }
}

/// The receiver of a call: Java `object`, Python the object of an attribute function.
pub(crate) fn call_receiver(t: &Ast, call: usize) -> Option<usize> {
    let child = |n: usize, f: &str| t.nodes[n].children.iter().copied().find(|&c| t.nodes[c].field == Some(f));
    match t.nodes[call].kind.as_str() {
        "method_invocation" => child(call, "object"),
        "call" => child(call, "function").filter(|&f| t.nodes[f].kind == "attribute").and_then(|f| child(f, "object")),
        _ => None,
    }
}

/// The argument list of a call.
pub(crate) fn call_arguments(t: &Ast, call: usize) -> Option<usize> {
    t.nodes[call].children.iter().copied().find(|&c| t.nodes[c].field == Some("arguments"))
}

/// Is `s` a loop whose header decides how often it runs: a counted `for`, a `while` or a
/// `do … while` (Python: `while`, or `for … in` over `range`/`xrange`/`len`)?
pub(crate) fn is_bounded_loop(t: &Ast, s: usize) -> bool {
    let node = &t.nodes[s];
    match node.kind.as_str() {
        "while_statement" => true,
        "for_statement" if node.children.iter().any(|&c| t.nodes[c].field == Some("right")) => {
            let right = node.children.iter().copied().find(|&c| t.nodes[c].field == Some("right"));
            right.is_some_and(|r| {
                (r..r + t.nodes[r].size).any(|i| matches!(t.nodes[i].label.as_str(), "range" | "xrange" | "len"))
            })
        }
        "for_statement" | "do_statement" => true,
        _ => false,
    }
}

/// Python decorators that act as modifiers.
const MODIFIER_DECORATORS: &[&str] =
    &["staticmethod", "classmethod", "property", "abstractmethod", "cached_property", "override", "final"];

/// Is `n` (or an ancestor) a Java `modifiers` node, or a Python modifier decorator or
/// `async`?
pub(crate) fn in_modifiers(t: &Ast, n: usize) -> bool {
    let here = |i: usize| {
        let node = &t.nodes[i];
        node.kind == "modifiers"
            || node.label == "async"
            || node.kind == "decorator"
                && (i..i + node.size).any(|d| MODIFIER_DECORATORS.contains(&t.nodes[d].label.as_str()))
    };
    here(n) || t.ancestors(n).any(here)
}

/// The `throws` clause at or above `n`.
pub(crate) fn throws_clause(t: &Ast, n: usize) -> Option<usize> {
    std::iter::once(n).chain(t.ancestors(n)).find(|&i| t.nodes[i].kind == "throws")
}

/// Exception types listed in a `throws` clause.
pub(crate) fn thrown_types(t: &Ast, throws: usize) -> usize {
    t.nodes[throws].children.iter().filter(|&&c| t.nodes[c].named).count()
}
