//! Fix templates instantiated on the buggy method's syntax tree (tree-sitter; Java and
//! Python): each [`Edit`] replaces one node's text, in the vocabulary of the repair actions
//! ([`Template`]: ManySStuBs4J's simple-stupid-bug patterns, Karampatsis & Sutton, MSR 2020;
//! TBar's fix-pattern families, Liu et al., ISSTA 2019). Edits never touch text outside a
//! node of the method (strings and comments stay as they are).

use serde::Serialize;
use tree_sitter::{Node, Parser};

use crate::language::Language;

/// The kind of fix a template makes, in the fixed default order in which they are tried
/// without retrieval (`--no-retrieval`): operator changes first (the most frequent single-token
/// bugs of ManySStuBs4J), then operands off by one, numerals, negated conditions, swapped
/// arguments, deleted statements, and identifiers last (the most candidates).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Template {
    /// A binary operator replaced by one of its family (`<` → `<=`, `+` → `-`, `&&` → `||`).
    ChangeOperator,
    /// An operand made one larger or smaller (`n` → `n + 1`: loop bounds, indexes, ranges).
    ChangeOperand,
    /// An integer literal made one larger or smaller.
    ChangeNumeral,
    /// A condition negated, or a negation removed (`!x` → `x`, `if c` → `if !(c)`).
    ChangeUnaryOperator,
    /// Two adjacent arguments of a call swapped.
    SwapArguments,
    /// One expression statement deleted.
    DeleteStatement,
    /// One identifier replaced by another identifier the method uses.
    ChangeIdentifier,
}

impl Template {
    /// Every template, in the default order.
    pub const ALL: [Template; 7] = [
        Template::ChangeOperator,
        Template::ChangeOperand,
        Template::ChangeNumeral,
        Template::ChangeUnaryOperator,
        Template::SwapArguments,
        Template::DeleteStatement,
        Template::ChangeIdentifier,
    ];
}

/// One instantiated template: replace bytes `start..end` of the file with `replacement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The template.
    pub template: Template,
    /// First byte replaced (in the whole file).
    pub start: usize,
    /// One past the last byte replaced.
    pub end: usize,
    /// The new text.
    pub replacement: String,
    /// 1-based line of the edit.
    pub line: usize,
    /// `<` → `<=`, for the report.
    pub summary: String,
}

/// Most identifier replacements per method (they grow with the square of its identifiers).
const MAX_IDENTIFIER_EDITS: usize = 400;

/// Every edit the templates make on the nodes within lines `lines.0..=lines.1` (1-based) of
/// `text`, in the default order ([`Template::ALL`], then source order). Empty when the text
/// does not parse as `language`.
#[must_use]
pub fn edits(text: &str, language: Language, lines: (usize, usize)) -> Vec<Edit> {
    let mut parser = Parser::new();
    if parser.set_language(&language.grammar()).is_err() {
        return Vec::new();
    }
    let Some(tree) = parser.parse(text, None) else { return Vec::new() };
    let nodes: Vec<Node<'_>> = descendants(tree.root_node())
        .into_iter()
        .filter(|n| n.start_position().row + 1 >= lines.0 && n.end_position().row < lines.1)
        .collect();
    let cx = Cx { text, language };
    let mut out = Vec::new();
    for node in &nodes {
        cx.operator(*node, &mut out);
        cx.operand(*node, &mut out);
        cx.numeral(*node, &mut out);
        cx.unary(*node, &mut out);
        cx.swap(*node, &mut out);
        cx.delete(*node, &mut out);
    }
    cx.identifiers(&nodes, &mut out);
    out.sort_by_key(|e| (e.template, e.start));
    out
}

/// Every node below `root`, in source order.
fn descendants(root: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        out.push(n);
        let mut cursor = n.walk();
        let kids: Vec<Node<'_>> = n.children(&mut cursor).collect();
        stack.extend(kids.into_iter().rev());
    }
    out
}

/// The replacements of an operator, nearest first.
fn operator_family(op: &str, language: Language) -> &'static [&'static str] {
    match (op, language) {
        ("<", _) => &["<=", ">", "!=", ">=", "=="],
        ("<=", _) => &["<", ">=", ">", "==", "!="],
        (">", _) => &[">=", "<", "!=", "<=", "=="],
        (">=", _) => &[">", "<=", "<", "==", "!="],
        ("==", _) => &["!=", "<=", ">="],
        ("!=", _) => &["==", "<", ">"],
        ("+", _) => &["-", "*"],
        ("-", _) => &["+"],
        ("*", Language::Python) => &["/", "//", "+", "**"],
        ("*", Language::Java) => &["/", "+"],
        ("/", Language::Python) => &["//", "*", "%"],
        ("/", Language::Java) => &["*", "%"],
        ("//", _) => &["/", "%", "*"],
        ("%", Language::Python) => &["//", "/"],
        ("%", Language::Java) => &["/"],
        ("**", _) => &["*"],
        ("&&", _) => &["||"],
        ("||", _) => &["&&"],
        ("and", _) => &["or"],
        ("or", _) => &["and"],
        ("&", _) => &["|", "^"],
        ("|", _) => &["&", "^"],
        ("^", _) => &["&", "|"],
        ("<<", _) => &[">>"],
        (">>", _) => &["<<", ">>>"],
        (">>>", _) => &[">>"],
        ("+=", _) => &["-=", "*="],
        ("-=", _) => &["+="],
        ("*=", _) => &["/=", "+="],
        ("/=", _) => &["*=", "//="],
        ("//=", _) => &["/="],
        ("%=", _) => &["/="],
        ("&=", _) => &["|=", "^="],
        ("|=", _) => &["&=", "^="],
        ("^=", _) => &["&=", "|="],
        ("<<=", _) => &[">>="],
        (">>=", _) => &["<<="],
        ("is", _) => &["is not"],
        ("is not", _) => &["is"],
        ("in", _) => &["not in"],
        ("not in", _) => &["in"],
        _ => &[],
    }
}

/// Whether `node` is an operator token of a binary, comparison, boolean or compound
/// assignment expression (`+=`; `=` has no family).
fn is_binary_operator(node: Node<'_>) -> bool {
    let Some(parent) = node.parent() else { return false };
    let binary = matches!(
        parent.kind(),
        "binary_expression" | "binary_operator" | "boolean_operator" | "assignment_expression" | "augmented_assignment"
    );
    let comparison = parent.kind() == "comparison_operator";
    !node.is_named() && (binary && parent.child_by_field_name("operator") == Some(node) || comparison)
}

/// Text and language of the file under edit.
struct Cx<'t> {
    text: &'t str,
    language: Language,
}

impl Cx<'_> {
    fn of(&self, node: Node<'_>) -> &str {
        &self.text[node.byte_range()]
    }

    fn push(&self, out: &mut Vec<Edit>, template: Template, node: Node<'_>, replacement: String) {
        let summary = format!("{} → {}", one_line(self.of(node)), one_line(&replacement));
        out.push(Edit {
            template,
            start: node.start_byte(),
            end: node.end_byte(),
            replacement,
            line: node.start_position().row + 1,
            summary,
        });
    }

    /// `<` → `<=` and the rest of its family.
    fn operator(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if !is_binary_operator(node) {
            return;
        }
        let op = self.of(node).split_whitespace().collect::<Vec<_>>().join(" ");
        for to in operator_family(&op, self.language) {
            self.push(out, Template::ChangeOperator, node, (*to).to_string());
        }
    }

    /// The right side of a comparison, an array index, and the arguments of `range(...)`,
    /// one larger and one smaller.
    fn operand(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        let Some(parent) = node.parent() else { return };
        let comparison_rhs = match parent.kind() {
            "binary_expression" => {
                parent.child_by_field_name("right") == Some(node)
                    && parent
                        .child_by_field_name("operator")
                        .is_some_and(|o| matches!(self.of(o), "<" | "<=" | ">" | ">=" | "==" | "!="))
            }
            "comparison_operator" => node.is_named() && parent.named_child(0) != Some(node),
            _ => false,
        };
        let index = matches!(parent.kind(), "array_access" if parent.child_by_field_name("index") == Some(node))
            || (parent.kind() == "subscript" && parent.child_by_field_name("subscript") == Some(node));
        let range_arg = parent.kind() == "argument_list"
            && node.is_named()
            && parent.parent().and_then(|c| c.child_by_field_name("function")).is_some_and(|f| self.of(f) == "range");
        // An integer literal is the numeral template's (`0` → `1`, not `0 + 1`).
        let literal = matches!(node.kind(), "integer" | "decimal_integer_literal");
        if (comparison_rhs || index || range_arg) && !literal {
            let t = self.of(node);
            let wrapped = if node.named_child_count() > 0 && !matches!(node.kind(), "call" | "method_invocation") {
                format!("({t})")
            } else {
                t.to_string()
            };
            self.push(out, Template::ChangeOperand, node, format!("{wrapped} + 1"));
            self.push(out, Template::ChangeOperand, node, format!("{wrapped} - 1"));
        }
    }

    /// `k` → `k + 1` and `k - 1` (as literals).
    fn numeral(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if !matches!(node.kind(), "integer" | "decimal_integer_literal") {
            return;
        }
        let Ok(k) = self.of(node).replace('_', "").parse::<i64>() else { return };
        self.push(out, Template::ChangeNumeral, node, (k + 1).to_string());
        if k > 0 {
            self.push(out, Template::ChangeNumeral, node, (k - 1).to_string());
        }
    }

    /// `!x` / `not x` → `x`; an `if`/`while` condition negated.
    fn unary(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        match node.kind() {
            "unary_expression" if node.child_by_field_name("operator").is_some_and(|o| self.of(o) == "!") => {
                if let Some(operand) = node.child_by_field_name("operand") {
                    self.push(out, Template::ChangeUnaryOperator, node, self.of(operand).to_string());
                }
            }
            "not_operator" => {
                if let Some(arg) = node.child_by_field_name("argument") {
                    self.push(out, Template::ChangeUnaryOperator, node, self.of(arg).to_string());
                }
            }
            _ => {}
        }
        let Some(parent) = node.parent() else { return };
        if matches!(parent.kind(), "if_statement" | "while_statement" | "elif_clause")
            && parent.child_by_field_name("condition") == Some(node)
        {
            let t = self.of(node);
            let negated = match (self.language, node.kind()) {
                (Language::Java, "parenthesized_expression") => format!("(!{t})"),
                (Language::Java, _) => format!("!({t})"),
                (Language::Python, _) => format!("not ({t})"),
            };
            self.push(out, Template::ChangeUnaryOperator, node, negated);
        }
    }

    /// `f(a, b)` → `f(b, a)` for each adjacent pair.
    fn swap(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if node.kind() != "argument_list" {
            return;
        }
        let mut cursor = node.walk();
        let args: Vec<Node<'_>> = node.named_children(&mut cursor).filter(|a| a.kind() != "comment").collect();
        for pair in args.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let between = &self.text[a.end_byte()..b.start_byte()];
            let swapped = format!("{}{between}{}", self.of(b), self.of(a));
            out.push(Edit {
                template: Template::SwapArguments,
                start: a.start_byte(),
                end: b.end_byte(),
                replacement: swapped,
                line: a.start_position().row + 1,
                summary: format!("swap {} and {}", one_line(self.of(a)), one_line(self.of(b))),
            });
        }
    }

    /// An expression statement deleted (its whole line when it is alone on it).
    fn delete(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if node.kind() != "expression_statement" || node.start_position().row != node.end_position().row {
            return;
        }
        let line_start = self.text[..node.start_byte()].rfind('\n').map_or(0, |i| i + 1);
        let line_end = self.text[node.end_byte()..].find('\n').map_or(self.text.len(), |i| node.end_byte() + i + 1);
        let alone = self.text[line_start..node.start_byte()].trim().is_empty()
            && self.text[node.end_byte()..line_end].trim().is_empty();
        let (start, end) = if alone { (line_start, line_end) } else { (node.start_byte(), node.end_byte()) };
        let replacement = if self.language == Language::Python && !alone { "pass".into() } else { String::new() };
        out.push(Edit {
            template: Template::DeleteStatement,
            start,
            end,
            replacement,
            line: node.start_position().row + 1,
            summary: format!("delete {}", one_line(self.of(node))),
        });
    }

    /// Each identifier use replaced by each other identifier of the method (capped).
    fn identifiers(&self, nodes: &[Node<'_>], out: &mut Vec<Edit>) {
        let uses: Vec<Node<'_>> =
            nodes.iter().copied().filter(|n| n.kind() == "identifier" && !self.is_name(*n)).collect();
        let mut names: Vec<&str> = uses.iter().map(|n| self.of(*n)).collect();
        names.sort_unstable();
        names.dedup();
        let mut made = 0;
        for node in &uses {
            for name in names.iter().filter(|n| **n != self.of(*node)) {
                if made == MAX_IDENTIFIER_EDITS {
                    return;
                }
                self.push(out, Template::ChangeIdentifier, *node, (*name).to_string());
                made += 1;
            }
        }
    }

    /// Whether `node` names a declaration or a called function (not a value to replace).
    fn is_name(&self, node: Node<'_>) -> bool {
        let Some(parent) = node.parent() else { return true };
        let field_is = |f: &str| parent.child_by_field_name(f) == Some(node);
        match parent.kind() {
            "method_declaration" | "class_declaration" | "function_definition" | "class_definition" => field_is("name"),
            "method_invocation" => field_is("name"),
            "call" => field_is("function"),
            "formal_parameter" | "variable_declarator" | "parameters" | "keyword_argument" => true,
            _ => false,
        }
    }
}

/// `text` on one line, at most 60 characters.
fn one_line(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(text: &str, e: &Edit) -> String {
        format!("{}{}{}", &text[..e.start], e.replacement, &text[e.end..])
    }

    #[test]
    fn python_loop_bound_is_among_the_operand_edits() {
        let text = "def sum_to(n):\n    total = 0\n    for i in range(1, n):\n        total += i\n    return total\n";
        let all = edits(text, Language::Python, (1, 5));
        let fixed =
            "def sum_to(n):\n    total = 0\n    for i in range(1, n + 1):\n        total += i\n    return total\n";
        let found: Vec<&Edit> = all.iter().filter(|e| apply(text, e) == fixed).collect();
        assert_eq!(found.len(), 1, "{all:#?}");
        assert_eq!(found[0].template, Template::ChangeOperand);
        assert_eq!(found[0].line, 3);
        // Sorted by template, then position.
        assert!(all.windows(2).all(|w| (w[0].template, w[0].start) <= (w[1].template, w[1].start)));
    }

    #[test]
    fn java_operators_numerals_swaps_and_deletes() {
        let text = "class A {\n  int f(int a, int b) {\n    log(a, b);\n    return a < b ? 1 : 0;\n  }\n}\n";
        let all = edits(text, Language::Java, (2, 5));
        let results: Vec<String> = all.iter().map(|e| apply(text, e)).collect();
        assert!(results.iter().any(|r| r.contains("return a <= b ? 1 : 0;")), "{all:#?}");
        assert!(results.iter().any(|r| r.contains("return a < b ? 2 : 0;")));
        assert!(results.iter().any(|r| r.contains("log(b, a);")));
        let bits = "class B {\n  int f(int n) {\n    n ^= n - 1;\n    return n;\n  }\n}\n";
        let compound: Vec<String> = edits(bits, Language::Java, (2, 5)).iter().map(|e| apply(bits, e)).collect();
        assert!(compound.iter().any(|r| r.contains("n &= n - 1;")), "{compound:#?}");
        assert!(results.iter().any(|r| !r.contains("log(") && r.contains("  int f(int a, int b) {\n    return")));
        // Names of declarations and called methods are never replaced.
        assert!(!results.iter().any(|r| r.contains("int b(int a") || r.contains("a(a, b)")));
        // Lines outside the span are never edited.
        assert!(edits(text, Language::Java, (1, 1)).is_empty());
    }

    #[test]
    fn strings_and_comments_are_not_edited() {
        let text = "def f(x):\n    # x < 1\n    return \"a < b\" + str(x)\n";
        for e in edits(text, Language::Python, (1, 3)) {
            let out = apply(text, &e);
            assert!(out.contains("# x < 1") && out.contains("\"a < b\""), "{e:?}");
        }
    }
}
