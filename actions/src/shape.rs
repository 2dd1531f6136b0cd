//! What a buggy snippet offers to repair actions: the syntax each [`ActionKind`] edits, so
//! that a retrieved fix's action can be checked for *applicability* to the query code
//! before it is trusted (issue 11 item 3; TBar's fix patterns likewise match a pattern's
//! context before instantiating it, Liu et al., ISSTA 2019).

use std::collections::HashSet;

use crate::tree::{self, Ast};
use crate::{Action, ActionKind, Language};

/// How well an action fits a snippet ([`Shape::fit`]), ordered worst to best.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fit {
    /// The snippet has nothing the action edits (a loop-bound change and no loop), or the
    /// action is [`ActionKind::Other`].
    None,
    /// The snippet has the syntax the kind edits (a loop, a call with two arguments, a
    /// dereference), but not the action's concrete buggy-side tokens.
    Kind,
    /// The kind fits and every token the action replaced (`before`, e.g. `<`) occurs in the
    /// snippet; for an insertion (empty `before`), every identifier of the inserted code
    /// that is not a keyword occurs there (a null check of a variable the query uses).
    Tokens,
}

/// The syntax of one snippet relevant to repair actions. Built once per query, O(tree).
#[derive(Debug, Clone, Default)]
pub struct Shape {
    /// Source text of every leaf: identifiers, operators, literals, keywords.
    leaves: HashSet<String>,
    /// tree-sitter kinds of all nodes.
    kinds: HashSet<String>,
    /// Most arguments of any call in the snippet.
    max_args: usize,
}

/// Node kinds of each syntax a kind needs (both grammars).
const LOOPS: &[&str] = &["for_statement", "enhanced_for_statement", "while_statement", "do_statement"];
const BINARY: &[&str] = &[
    "binary_expression",
    "binary_operator",
    "boolean_operator",
    "comparison_operator",
    "assignment_expression",
    "augmented_assignment",
];
const CONDITIONS: &[&str] = &["if_statement", "ternary_expression", "conditional_expression", "elif_clause"];
const CALLS: &[&str] = &["method_invocation", "object_creation_expression", "call"];
const DEREFS: &[&str] = &["method_invocation", "field_access", "array_access", "attribute", "subscript"];
const NUMBERS: &[&str] = &["integer", "float"];
const LITERALS: &[&str] =
    &["string_literal", "character_literal", "text_block", "string", "concatenated_string", "true", "false"];

impl Shape {
    /// The shape of `code` in `lang`. Unparsable code still gives a shape (tree-sitter's
    /// error-recovering tree); a tree deeper than [`crate::MAX_DEPTH`] gives an empty one.
    pub fn of(code: &str, lang: Language) -> Shape {
        let Ok(ast) = tree::parse_lenient(code, lang) else { return Shape::default() };
        Shape::from_ast(&ast)
    }

    fn from_ast(ast: &Ast) -> Shape {
        let mut s = Shape::default();
        for n in &ast.nodes {
            s.kinds.insert(n.kind.clone());
            if n.children.is_empty() && !n.label.is_empty() {
                s.leaves.insert(n.label.clone());
            }
            if n.kind == "argument_list" {
                let args = n.children.iter().filter(|&&c| ast.nodes[c].named).count();
                s.max_args = s.max_args.max(args);
            }
        }
        s
    }

    fn has_any(&self, kinds: &[&str]) -> bool {
        kinds.iter().any(|k| self.kinds.contains(*k))
    }

    fn has_number(&self) -> bool {
        self.has_any(NUMBERS)
            || self.kinds.iter().any(|k| k.ends_with("integer_literal") || k.ends_with("floating_point_literal"))
    }

    /// Whether the snippet has the syntax `kind` edits. Kinds that can apply to any code
    /// (add guard, change identifier, insert or delete statement, change modifier) always
    /// fit; [`ActionKind::Other`] never does.
    pub fn fits_kind(&self, kind: ActionKind) -> bool {
        use ActionKind::*;
        match kind {
            ChangeOperator | ChangeOperand => self.has_any(BINARY),
            ChangeUnaryOperator => self.has_any(BINARY) || self.has_any(CONDITIONS) || self.has_any(LOOPS),
            ChangeLoopBound => self.has_any(LOOPS),
            ChangeNumeral => self.has_number(),
            ChangeLiteral => self.has_any(LITERALS),
            SwapArguments => self.max_args >= 2,
            FewerArguments => self.max_args >= 1,
            DifferentMethodSameArgs | MoreArguments | ChangeCaller | RemoveMethodCall | WrapTryCatch => {
                self.has_any(CALLS)
            }
            MoreSpecificIf | LessSpecificIf => self.has_any(CONDITIONS) || self.kinds.contains("while_statement"),
            AddNullCheck => self.has_any(DEREFS),
            ChangeReturnValue => self.kinds.contains("return_statement"),
            DeleteThrowsException => self.kinds.contains("throws"),
            AddThrowsException => {
                self.kinds.contains("method_declaration") || self.kinds.contains("constructor_declaration")
            }
            AddGuard | AddMethodCall | ChangeIdentifier | ChangeModifier | InsertStatement | DeleteStatement => true,
            Other => false,
        }
    }

    /// How well `action` fits the snippet; see [`Fit`]. O(tokens of the action).
    pub fn fit(&self, action: &Action) -> Fit {
        if !self.fits_kind(action.kind) {
            return Fit::None;
        }
        let (side, idents_only) =
            if action.before.is_empty() { (action.after.as_str(), true) } else { (action.before.as_str(), false) };
        let wanted: Vec<&str> = side
            .split_whitespace()
            .filter(|t| !t.ends_with('…'))
            .filter(|t| !idents_only || is_identifier(t) && !is_keyword(t))
            .collect();
        if !wanted.is_empty() && wanted.iter().all(|t| self.leaves.contains(*t)) { Fit::Tokens } else { Fit::Kind }
    }
}

fn is_identifier(t: &str) -> bool {
    let mut chars = t.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_') && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// Keywords and literal names of Java and Python that say nothing about the query code.
fn is_keyword(t: &str) -> bool {
    const WORDS: &[&str] = &[
        "if",
        "else",
        "return",
        "null",
        "None",
        "true",
        "false",
        "True",
        "False",
        "new",
        "throw",
        "raise",
        "try",
        "catch",
        "except",
        "finally",
        "not",
        "and",
        "or",
        "is",
        "in",
        "instanceof",
        "this",
        "self",
        "void",
        "int",
        "boolean",
        "for",
        "while",
        "break",
        "continue",
        "pass",
    ];
    WORDS.contains(&t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify;

    fn first_action(buggy: &str, fixed: &str, lang: Language) -> Action {
        classify(buggy, fixed, lang).actions.into_iter().next().expect("an action")
    }

    #[test]
    fn operator_change_fits_by_its_token() {
        let a = first_action(
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }",
            "int f(int n) { int s = 0; for (int i = 0; i <= n; i++) s += i; return s; }",
            Language::Java,
        );
        let loop_lt = Shape::of("void g(int[] a) { for (int j = 0; j < a.length; j++) a[j] = 0; }", Language::Java);
        let loop_gt = Shape::of("void g(int[] a) { for (int j = a.length - 1; j > 0; j--) a[j] = 0; }", Language::Java);
        let straight = Shape::of("void g(int[] a) { a[0] = 1; }", Language::Java);
        assert_eq!(loop_lt.fit(&a), Fit::Tokens);
        assert_eq!(loop_gt.fit(&a), Fit::Kind);
        assert_eq!(straight.fit(&a), Fit::None, "a loop-bound change needs a loop");
    }

    #[test]
    fn null_check_fits_a_dereference_of_the_same_variable() {
        let a = first_action(
            "String f(Node node) { return node.name(); }",
            "String f(Node node) { if (node == null) return null; return node.name(); }",
            Language::Java,
        );
        assert_eq!(a.kind, ActionKind::AddNullCheck, "{a:?}");
        assert_eq!(Shape::of("int g(Node node) { return node.size(); }", Language::Java).fit(&a), Fit::Tokens);
        assert_eq!(Shape::of("int g(List xs) { return xs.size(); }", Language::Java).fit(&a), Fit::Kind);
        assert_eq!(Shape::of("int g(int x) { return x + 1; }", Language::Java).fit(&a), Fit::None);
    }

    #[test]
    fn python_and_unparsable_snippets_have_shapes() {
        let py = Shape::of("    def f(self, xs):\n        return g(xs, 1)\n", Language::Python);
        assert!(py.fits_kind(ActionKind::SwapArguments));
        assert!(py.fits_kind(ActionKind::ChangeNumeral));
        assert!(!py.fits_kind(ActionKind::ChangeLoopBound));
        let broken = Shape::of("int f( { return a.b(1, 2); ", Language::Java);
        assert!(broken.fits_kind(ActionKind::AddNullCheck));
        assert!(!Shape::default().fits_kind(ActionKind::Other));
    }
}
