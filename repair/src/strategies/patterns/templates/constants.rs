//! A name or an arithmetic expression replaced by a literal ([`Template::ReplaceWithLiteral`]):
//! `out.println(p1)` → `out.println(0)`, `new MySqlLexer(sql, keepComments, …)` →
//! `new MySqlLexer(sql, true, …)`, `yl[j]` → `yl[0]`, `stop = width - 1` → `stop = 1`.
//!
//! Source: the shared corpus. Of the 32,518 pairs of mined_git_history, gitbug_java,
//! manysstubs4j and condefects, 193 (0.6 %) fix one token span by replacing a name (52) or an
//! expression (141) with a literal, most often `0` (35), `null` (22), `1` (12) and a boolean
//! (12); the literal template ([`Template::MutateLiteral`], TBar FP9) only ever replaces a
//! literal (2,843 pairs). The literals here are those most frequent ones, by the type the
//! tree can tell: a number `0` or `1`, a boolean its two values, a Java object `null`.

use tree_sitter::Node;

use super::literals::{enclosing, visit};
use super::{Cx, Edit, NUMERIC_TYPES, Template, squash};
use crate::Language;

/// Java types a name may hold, with the literals tried for it (boxed types keep their kind:
/// `Long x = 0` does not compile). `short`, `byte`, `char` and their boxes take none (an
/// `int` literal is no argument for them).
const JAVA_LITERALS: &[(&str, &[&str])] = &[
    ("int", &["0", "1"]),
    ("long", &["0", "1"]),
    ("double", &["0", "1"]),
    ("float", &["0", "1"]),
    ("Integer", &["0", "1"]),
    ("Long", &["0L", "1L"]),
    ("Double", &["0.0", "1.0"]),
    ("Float", &["0.0f", "1.0f"]),
    ("boolean", &["true", "false"]),
    ("Boolean", &["true", "false"]),
];

/// Java type names that are never `null` (primitives) nor an object a literal replaces.
const NOT_OBJECTS: &[&str] = &["short", "byte", "char", "Short", "Byte", "Character", "void", "var"];

/// The literals a number takes.
const NUMBERS: &[&str] = &["0", "1"];

impl Cx<'_> {
    /// See [`Template::ReplaceWithLiteral`]. Java: a name used as a value whose declared type
    /// where it is used ([`Cx::visible_types`]) is a number or a boolean takes that type's
    /// literals ([`JAVA_LITERALS`]); one of an object type takes `null` where it is a call's
    /// or constructor's argument, an assignment's or initializer's value or a conditional's
    /// branch (in a `return`, [`Template::MutateReturn`] makes `null`; in a comparison `null`
    /// is no fix). Python: a name the function binds to a number (`best = 0`, `for j in
    /// range(…)`) takes `0` and `1`. Both: an arithmetic expression (`+ - * / %`, `//` in
    /// Python) that is evidently numeric (an operand is a number literal or, Java, a name of
    /// a number type, and none is a string) and not itself an operand of another takes `0`
    /// and `1`. Never a name that is assigned, incremented, a receiver (`x.f()`, `x.f`,
    /// `x[i]`'s `x`), a `case` label or an `instanceof` operand; booleans only as
    /// arguments, values and branches (in a condition, removing a sub-condition is
    /// [`Template::MutateCondition`]'s).
    pub(super) fn to_literal(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        let literals: Vec<&str> = match node.kind() {
            "identifier" if !self.is_name(node) && self.is_value(node) => self.name_literals(node),
            "binary_expression" | "binary_operator" if self.is_numeric_arithmetic(node) => NUMBERS.to_vec(),
            _ => return,
        };
        for literal in literals {
            self.push(out, Template::ReplaceWithLiteral, node, literal.to_string());
        }
    }

    /// The literals for the name `node` (empty when its type is unknown or takes none).
    fn name_literals(&self, node: Node<'_>) -> Vec<&'static str> {
        let name = self.of(node);
        match self.language {
            Language::Java => {
                let visible = self.visible_types(node);
                let Some(ty) = visible.get(name).map(|t| squash(t)) else {
                    return Vec::new();
                };
                if let Some((_, literals)) = JAVA_LITERALS.iter().find(|(t, _)| *t == ty) {
                    let boolean = literals[0] == "true";
                    return if boolean && !self.is_passed(node) { Vec::new() } else { literals.to_vec() };
                }
                let primitive = ty.chars().next().is_some_and(char::is_lowercase) && !ty.contains(['.', '[', '<']);
                if primitive || NOT_OBJECTS.contains(&ty.as_str()) || !self.is_passed(node) {
                    return Vec::new();
                }
                vec!["null"]
            }
            Language::Python => {
                if self.python_numbers(node).contains(&name) {
                    NUMBERS.to_vec()
                } else {
                    Vec::new()
                }
            }
        }
    }

    /// Whether the name `node` is read as a value here: not assigned, incremented, a
    /// receiver, a `case` label, an `instanceof` operand, a loop variable, a label, a
    /// keyword argument's name or a lambda's parameter.
    fn is_value(&self, node: Node<'_>) -> bool {
        let Some(parent) = node.parent() else { return false };
        let field_is = |f: &str| parent.child_by_field_name(f) == Some(node);
        match parent.kind() {
            "assignment_expression" | "assignment" | "augmented_assignment" => !field_is("left"),
            "method_invocation" | "field_access" | "attribute" => !field_is("object"),
            "array_access" => !field_is("array"),
            "subscript" => !field_is("value"),
            "for_statement" | "for_in_clause" => !field_is("left"),
            "enhanced_for_statement" => !field_is("name"),
            "update_expression" | "switch_label" | "instanceof_expression" | "method_reference" => false,
            "labeled_statement" | "break_statement" | "continue_statement" => false,
            "lambda_expression" | "inferred_parameters" | "lambda_parameters" | "pattern_list" | "tuple_pattern" => {
                false
            }
            "call" => !field_is("function"),
            "keyword_argument" => field_is("value"),
            _ => true,
        }
    }

    /// Whether `node` is passed on as a whole value: a call's or constructor's argument, an
    /// assignment's or initializer's value, or a conditional's branch.
    fn is_passed(&self, node: Node<'_>) -> bool {
        let Some(parent) = node.parent() else { return false };
        let field_is = |f: &str| parent.child_by_field_name(f) == Some(node);
        match parent.kind() {
            "argument_list" => true,
            "assignment_expression" => field_is("right"),
            "variable_declarator" => field_is("value"),
            "ternary_expression" => field_is("consequence") || field_is("alternative"),
            _ => false,
        }
    }

    /// Whether `node` is an arithmetic expression that is evidently numeric and no operand
    /// of another arithmetic expression (the largest is replaced, once).
    fn is_numeric_arithmetic(&self, node: Node<'_>) -> bool {
        let arithmetic = |n: Node<'_>| {
            matches!(n.kind(), "binary_expression" | "binary_operator")
                && n.child_by_field_name("operator")
                    .is_some_and(|o| matches!(self.of(o), "+" | "-" | "*" | "/" | "%" | "//"))
        };
        if !arithmetic(node) {
            return false;
        }
        let mut up = node.parent();
        while let Some(p) = up.filter(|p| p.kind() == "parenthesized_expression") {
            up = p.parent();
        }
        if up.is_some_and(arithmetic) {
            return false;
        }
        let (Some(l), Some(r)) = (node.child_by_field_name("left"), node.child_by_field_name("right")) else {
            return false;
        };
        match self.language {
            Language::Java => {
                let number = |n: Node<'_>| {
                    n.kind().ends_with("integer_literal")
                        || n.kind().ends_with("floating_point_literal")
                        || (n.kind() == "identifier"
                            && self.visible_types(n).get(self.of(n)).is_some_and(|ty| NUMERIC_TYPES.contains(ty)))
                };
                !self.not_numeric(node) && (number(l) || number(r))
            }
            Language::Python => {
                let numbers = self.python_numbers(node);
                let number = |n: Node<'_>| {
                    matches!(n.kind(), "integer" | "float")
                        || (n.kind() == "identifier" && numbers.contains(&self.of(n)))
                };
                let string = |n: Node<'_>| matches!(n.kind(), "string" | "concatenated_string");
                !string(l) && !string(r) && (number(l) || number(r))
            }
        }
    }

    /// Python: the names the function holding `node` (else the module) binds to a number: a
    /// plain assignment of a number literal (`best = 0`, `i = j = -1`) or a `for` over
    /// `range(…)`.
    fn python_numbers(&self, node: Node<'_>) -> Vec<&str> {
        let scope = enclosing(node, &["function_definition"]).unwrap_or(self.root);
        let mut names = Vec::new();
        visit(scope, |n| {
            if n != scope && matches!(n.kind(), "function_definition" | "class_definition" | "lambda") {
                return false;
            }
            let (left, right) = match n.kind() {
                "assignment" | "for_statement" => (n.child_by_field_name("left"), n.child_by_field_name("right")),
                _ => (None, None),
            };
            if let (Some(left), Some(right)) = (left, right) {
                let mut value = right;
                // `i = j = -1`: `i` takes the last value; `j = -1` is visited on its own.
                while value.kind() == "assignment" {
                    match value.child_by_field_name("right") {
                        Some(r) => value = r,
                        None => break,
                    }
                }
                let number = match value.kind() {
                    "integer" | "float" => true,
                    "unary_operator" => value.child_by_field_name("argument").is_some_and(|a| a.kind() == "integer"),
                    "call" => {
                        n.kind() == "for_statement"
                            && value.child_by_field_name("function").is_some_and(|f| self.of(f) == "range")
                    }
                    _ => false,
                };
                if number && left.kind() == "identifier" {
                    names.push(left);
                }
            }
            true
        });
        let mut out: Vec<&str> = names.into_iter().map(|n| &self.text[n.byte_range()]).collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::apply;
    use super::super::{Template, edits};
    use crate::Language;

    /// `(original, replacement)` of the literal edits on `lines`, each checked to parse.
    fn made(text: &str, language: Language, lines: (usize, usize)) -> Vec<(String, String)> {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&language.grammar()).unwrap();
        let out: Vec<_> =
            edits(text, language, lines).into_iter().filter(|e| e.template == Template::ReplaceWithLiteral).collect();
        for e in &out {
            let after = apply(text, e);
            assert!(!parser.parse(&after, None).unwrap().root_node().has_error(), "{e:?}\n{after}");
        }
        out.into_iter().map(|e| (e.original, e.replacement)).collect()
    }

    fn has(made: &[(String, String)], original: &str, replacement: &str) -> bool {
        made.iter().any(|(o, r)| o == original && r == replacement)
    }

    /// condefects abc313_a (Java), whose fix is `out.println(p1)` → `out.println(0)`.
    const ABC313: &str = "class Main {
    public static void main(String[] args) {
        FastReader in = new FastReader();
        FastWriter out = new FastWriter();
        int n = in.nextInt();
        int max = 0;
        int p1 = in.nextInt();
        for (int i = 1; i < n; i++) {
            int p = in.nextInt();
            if (p > max) max = p;
        }
        if (max - p1 < 0) out.println(p1);
        else out.println(max - p1 + 1);
    }
}
";

    #[test]
    fn java_numbers_take_zero_and_one_where_they_are_read() {
        let all = made(ABC313, Language::Java, (12, 13));
        assert!(has(&all, "p1", "0"), "{all:?}");
        assert!(has(&all, "p1", "1"));
        // The largest arithmetic expression, once: `max - p1 + 1`, and not the `max - p1`
        // inside it (so `max - p1` only as the comparison's operand, line 12).
        assert!(has(&all, "max - p1 + 1", "0"));
        assert_eq!(all.iter().filter(|(o, _)| o == "max - p1").count(), 2, "{all:?}");
        // Receivers (`out`) take nothing.
        assert!(!all.iter().any(|(o, _)| o == "out"));
        // The loop variable where it is read (`i < n`), not where it is declared or
        // incremented; an assigned name is read only on the right.
        let loop_header = made(ABC313, Language::Java, (8, 10));
        assert!(has(&loop_header, "n", "0"), "{loop_header:?}");
        assert_eq!(loop_header.iter().filter(|(o, _)| o == "i").count(), 2, "{loop_header:?}");
        let assigned = made("class A { void f(int p) { int max = 0; max = p; max++; } }", Language::Java, (1, 1));
        assert_eq!(assigned, vec![("p".to_string(), "0".to_string()), ("p".to_string(), "1".to_string())]);
    }

    /// manysstubs4j 3275: `new MySqlLexer(sql, keepComments, keepComments)` → the first
    /// `true`; manysstubs4j 11686 style: an object argument takes `null`.
    #[test]
    fn java_booleans_and_objects_only_where_passed_on() {
        let text = "class P {
    public P(String sql, boolean keepComments) {
        this(new MySqlLexer(sql, keepComments, keepComments));
        if (keepComments && sql != null) { use(sql); }
        Long big = 2L;
        record(big);
    }
}
";
        let all = made(text, Language::Java, (3, 3));
        assert!(has(&all, "keepComments", "true"), "{all:?}");
        assert!(has(&all, "keepComments", "false"));
        assert!(has(&all, "sql", "null"));
        let condition = made(text, Language::Java, (4, 4));
        assert!(!condition.iter().any(|(o, _)| o == "keepComments"), "{condition:?}");
        assert_eq!(condition.iter().filter(|(o, _)| o == "sql").count(), 1, "only as use(sql)'s argument");
        // A boxed number keeps its kind.
        assert_eq!(
            made(text, Language::Java, (6, 6)),
            vec![("big".to_string(), "0L".to_string()), ("big".to_string(), "1L".to_string())]
        );
        // A name whose type the file does not declare takes nothing.
        assert!(made("class A { void f() { g(unknown); } }", Language::Java, (1, 1)).is_empty());
    }

    /// condefects abc261_d (Python), whose fix is `yl[j]` → `yl[0]` (`j` a `range` loop
    /// variable); strings are not numbers.
    #[test]
    fn python_names_bound_to_numbers_and_numeric_arithmetic() {
        let text = "def solve(n, xl, yl):
    dp = [[0] * n for i in range(n)]
    best = -1
    k = m = len(xl)
    lo = hi = 0
    for j in range(1, n):
        dp[j][0] = max(dp[j - 1]) + xl[j] + yl[j]
    name = 'a' + 'b'
    return best + n + m + hi, name
";
        let all = made(text, Language::Python, (7, 7));
        assert!(has(&all, "j", "0"), "{all:?}");
        assert!(has(&all, "j - 1", "1"));
        // `dp`, `xl` and `yl` are bound to no number; `n` is a parameter.
        assert!(!all.iter().any(|(o, _)| ["dp", "xl", "yl", "n"].contains(&o.as_str())), "{all:?}");
        let last = made(text, Language::Python, (8, 9));
        assert!(has(&last, "best", "0"), "{last:?}");
        assert!(has(&last, "best + n + m + hi", "1"));
        // A chain binds every name to its last value: `hi` to `0`, `m` to `len(xl)`.
        assert!(has(&last, "hi", "0"), "{last:?}");
        assert!(!last.iter().any(|(o, _)| o == "m"), "{last:?}");
        assert!(!last.iter().any(|(o, _)| o.contains('\'')), "{last:?}");
    }
}
