//! Java reference equality made value equality ([`Template::ObjectEquality`]): `a == b` →
//! `a.equals(b)` and `a != b` → `!a.equals(b)` where the operands may be objects.
//!
//! Source: the shared corpus. Of the 11,418 one-line Java fixes of manysstubs4j,
//! mined_git_history, gitbug_java and condefects (one line replaced by one), 21 make this edit
//! (18 `==`, 3 `!=`; `if (namespace == attribute.getNamespace())` →
//! `if (namespace.equals(attribute.getNamespace()))`, `hlogs.first() != key` →
//! `!hlogs.first().equals(key)`) and 1 the reverse. Not a TBar pattern; comparing objects, and
//! strings above all, with `==` is a classic Java mistake (FindBugs' `ES_COMPARING_STRINGS_WITH_EQ`
//! and `RC_REF_COMPARISON`).

use tree_sitter::Node;

use super::{Cx, Edit, Template};
use crate::Language;

/// Java types whose `==` is value equality: `.equals` on them does not compile (primitives)
/// or changes nothing (`Class`). Boxed numbers are objects (`Integer == Integer` compares
/// references above the small-value cache).
const VALUE_TYPES: &[&str] = &["int", "long", "short", "byte", "char", "double", "float", "boolean", "Class"];

impl Cx<'_> {
    /// See [`Template::ObjectEquality`]. Java only. An `==`/`!=` whose operands are neither
    /// `null`, a number, character or boolean literal, `this`, a class literal, `getClass()`,
    /// arithmetic, a size (`s.length()`, `xs.size()`, `a.length`) nor of a primitive or
    /// `Class` type where the file or project tells ([`Cx::type_of`]; an array is skipped
    /// too): `l.equals(r)` when `l` can take a call (a name, field or element access, call,
    /// string literal, parenthesised expression), else `r.equals(l)`; `!` before it for
    /// `!=`. An operand of unknown type is given the benefit of the doubt (a call's return
    /// type is rarely known in a snippet).
    pub(super) fn object_equality(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if self.language != Language::Java {
            return;
        }
        let Some((l, op, r)) = self.binary(node) else { return };
        let negate = match op {
            "==" => "",
            "!=" => "!",
            _ => return,
        };
        if !self.may_be_object(l) || !self.may_be_object(r) {
            return;
        }
        let (receiver, argument) = if takes_call(l) {
            (l, r)
        } else if takes_call(r) {
            (r, l)
        } else {
            return;
        };
        let replacement = format!("{negate}{}.equals({})", self.of(receiver), self.of(argument));
        self.push(out, Template::ObjectEquality, node, replacement);
    }

    /// Whether the Java expression `e` may be an object whose `==` differs from `equals`
    /// ([`Cx::object_equality`]).
    fn may_be_object(&self, e: Node<'_>) -> bool {
        match e.kind() {
            "null_literal"
            | "true"
            | "false"
            | "this"
            | "class_literal"
            | "character_literal"
            | "decimal_integer_literal"
            | "hex_integer_literal"
            | "octal_integer_literal"
            | "binary_integer_literal"
            | "decimal_floating_point_literal"
            | "hex_floating_point_literal"
            | "binary_expression"
            | "unary_expression"
            | "instanceof_expression"
            | "lambda_expression"
            | "array_creation_expression"
            | "ternary_expression"
            | "assignment_expression" => return false,
            "method_invocation" if e.child_by_field_name("name").is_some_and(|n| self.of(n) == "getClass") => {
                return false;
            }
            "parenthesized_expression" => return e.named_child(0).is_some_and(|c| self.may_be_object(c)),
            _ => {}
        }
        if self.is_size(e) {
            return false;
        }
        match self.type_of(e, 0) {
            Some((ty, 0)) => !VALUE_TYPES.contains(&ty.as_str()),
            Some(_) => false,
            None => true,
        }
    }
}

/// Whether `.equals(…)` can be called on `e` as written (no parentheses added).
fn takes_call(e: Node<'_>) -> bool {
    matches!(
        e.kind(),
        "identifier"
            | "field_access"
            | "array_access"
            | "method_invocation"
            | "string_literal"
            | "parenthesized_expression"
    )
}

#[cfg(test)]
mod tests {
    use super::super::testing::assert_fixes;
    use super::super::{Template, edits};
    use crate::Language;

    fn equalities(text: &str) -> Vec<String> {
        let n = text.lines().count();
        edits(text, Language::Java, (1, n))
            .into_iter()
            .filter(|e| e.template == Template::ObjectEquality)
            .map(|e| e.replacement)
            .collect()
    }

    #[test]
    fn reference_comparisons_of_objects_are_made_equals() {
        // The corpus's `if (!queueRecovered && hlogs.first() != key)` →
        // `… && !hlogs.first().equals(key)` (HBase, ManySStuBs4J).
        let buggy = "void f(String key) {\n    if (!queueRecovered && hlogs.first() != key) {\n        n++;\n    }\n}";
        let fixed = buggy.replace("hlogs.first() != key", "!hlogs.first().equals(key)");
        assert_fixes(buggy, &fixed, Language::Java, Template::ObjectEquality);
        // A string literal on the left takes the call; on the right it is the argument.
        let text = "class A {\n  boolean f(String s, Integer a, Integer b) {\n    return \"x\" == s || s == \"y\" || a == b;\n  }\n}\n";
        assert_eq!(equalities(text), ["\"x\".equals(s)", "s.equals(\"y\")", "a.equals(b)"]);
    }

    #[test]
    fn primitives_nulls_literals_sizes_and_classes_are_left_alone() {
        let text = "class A {\n  boolean f(int i, int j, String s, List<String> xs, char c, Object o, String[] a, String[] b) {\n    \
                    return i == j || s == null || c == 'a' || xs.size() == i || o.getClass() == A.class || this == o || a == b || i + 1 == j || s.length() == 0;\n  }\n}\n";
        assert!(equalities(text).is_empty(), "{:?}", equalities(text));
        // Python has no such template.
        let py = "def f(a, b):\n    return a == b\n";
        let n = py.lines().count();
        assert!(!edits(py, Language::Python, (1, n)).iter().any(|e| e.template == Template::ObjectEquality));
    }
}
