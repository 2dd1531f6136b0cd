//! Checker templates: an `instanceof` before a cast, a bounds check before an index or a
//! `get(i)`/`charAt(i)` access (TBar FP1 "Insert Cast Checker" and FP3 "Insert Range
//! Checker"; Liu et al., ISSTA 2019).
//!
//! Both wrap a statement in an `if`. A Java `return` is wrapped only where the method can
//! go on after it ([`falls_through`]): wrapping the last `return` of a method would leave it
//! without one (`missing return statement`). A Python `return` is always wrapped (the
//! function then returns `None`).

use tree_sitter::Node;

use super::{Cx, Edit, Template, arity, descendants, subscripts};
use crate::Language;

/// Casts given an `instanceof` check per statement or condition, at most (distinct
/// `(value, type)` pairs, in source order).
const MAX_CAST_CHECKS: usize = 2;

/// Accesses given a bounds check per statement, at most (distinct checks, in source order).
const MAX_RANGE_CHECKS: usize = 2;

/// Java receiver types whose `get(i)` takes an index (when the receiver's type is known).
const INDEXED_TYPES: &[&str] = &["List", "Vector", "Stack"];

/// Java receiver types whose `charAt(i)` takes an index (when the receiver's type is known).
const CHAR_TYPES: &[&str] = &["String", "StringBuilder", "StringBuffer", "CharSequence"];

/// Java types an index may have (when the index is a name of known type).
const INDEX_TYPES: &[&str] = &["int", "short", "byte", "char", "Integer"];

impl Cx<'_> {
    /// TBar FP1 "Insert Cast Checker" ([`Template::InsertCastChecker`]), Java only (Python
    /// has no casts): a statement holding a cast `(T) x` of a name or field access `x` runs
    /// only when `x instanceof T`. An expression statement or a `return` (where it
    /// [`falls_through`]) becomes `if (x instanceof T) { stmt }`; an `if`/`while` condition
    /// `c` holding the cast becomes `x instanceof T && c` (`c` parenthesised only where `&&`
    /// would bind it otherwise: `||`, `?:`, assignments, lambdas). `T` loses its type
    /// arguments (`(List<String>) o` → `o instanceof List`). No check for a primitive cast
    /// (`(int) d`), a cast to `Object` or to a type variable of the method or class, an
    /// intersection cast, or a value already tested with `instanceof` by an enclosing `if`,
    /// `while`, `?:` or `&&`. Casts inside lambdas and anonymous classes belong to their own
    /// statements. At most [`MAX_CAST_CHECKS`] per statement or condition.
    pub(super) fn cast_checker(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if self.language != Language::Java {
            return;
        }
        match node.kind() {
            "expression_statement" | "return_statement" => {
                if node.kind() == "return_statement" && !falls_through(node) {
                    return;
                }
                for (x, ty) in self.casts(node) {
                    let wrapped = self.java_wrap(node, &format!("{x} instanceof {ty}"));
                    self.push(out, Template::InsertCastChecker, node, wrapped);
                }
            }
            "if_statement" | "while_statement" => {
                let Some(inner) = node.child_by_field_name("condition").and_then(first_named) else { return };
                for (x, ty) in self.casts(inner) {
                    let c = self.java_and_operand(inner);
                    self.push(out, Template::InsertCastChecker, inner, format!("{x} instanceof {ty} && {c}"));
                }
            }
            _ => {}
        }
    }

    /// The `(x, T)` of the casts in `scope` that get a checker (see [`Cx::cast_checker`]).
    fn casts(&self, scope: Node<'_>) -> Vec<(String, String)> {
        let mut found: Vec<(String, String)> = Vec::new();
        for cast in own_nodes(scope).into_iter().filter(|n| n.kind() == "cast_expression") {
            if found.len() == MAX_CAST_CHECKS {
                break;
            }
            let mut cursor = cast.walk();
            let types: Vec<Node<'_>> = cast.children_by_field_name("type", &mut cursor).collect();
            let (Some(value), [ty]) = (cast.child_by_field_name("value"), types.as_slice()) else { continue };
            if matches!(ty.kind(), "integral_type" | "floating_point_type" | "boolean_type")
                || !matches!(value.kind(), "identifier" | "field_access")
            {
                continue;
            }
            let t = strip_type_arguments(self.of(*ty));
            let x = self.of(value).to_string();
            if t == "Object" || self.type_variables(cast).contains(&t.as_str()) || self.tested(cast, &x) {
                continue;
            }
            if !found.contains(&(x.clone(), t.clone())) {
                found.push((x, t));
            }
        }
        found
    }

    /// The type variables declared by the methods and classes around `node`.
    fn type_variables(&self, node: Node<'_>) -> Vec<&str> {
        let mut out = Vec::new();
        let mut at = node.parent();
        while let Some(n) = at {
            if let Some(params) = n.child_by_field_name("type_parameters") {
                let mut cursor = params.walk();
                for p in params.named_children(&mut cursor) {
                    let mut c = p.walk();
                    let name = p.named_children(&mut c).find(|k| matches!(k.kind(), "type_identifier" | "identifier"));
                    out.extend(name.map(|k| self.of(k)));
                }
            }
            at = n.parent();
        }
        out
    }

    /// Whether an enclosing `if`/`while`/`?:` condition or the left of an enclosing `&&`
    /// already tests `x instanceof …` (up to the enclosing method or lambda).
    fn tested(&self, node: Node<'_>, x: &str) -> bool {
        let mut at = node.parent();
        while let Some(n) = at {
            if is_body_boundary(n) {
                return false;
            }
            let test = match n.kind() {
                "if_statement" | "while_statement" | "ternary_expression" => n.child_by_field_name("condition"),
                "binary_expression" if n.child_by_field_name("operator").is_some_and(|o| self.of(o) == "&&") => {
                    n.child_by_field_name("left")
                }
                _ => None,
            };
            let instanceof = |t: Node<'_>| {
                descendants(t).into_iter().any(|d| {
                    d.kind() == "instanceof_expression"
                        && d.child_by_field_name("left").is_some_and(|l| self.of(l) == x)
                })
            };
            if test.is_some_and(instanceof) {
                return true;
            }
            at = n.parent();
        }
        false
    }

    /// Java `if (cond) { stmt }`, itself in braces where `stmt` is the `then` of an `if` with
    /// an `else` (which would otherwise bind to the new `if`).
    fn java_wrap(&self, stmt: Node<'_>, cond: &str) -> String {
        let wrapped = format!("if ({cond}) {{ {} }}", self.of(stmt));
        let dangling = stmt.parent().is_some_and(|p| {
            p.kind() == "if_statement"
                && p.child_by_field_name("consequence") == Some(stmt)
                && p.child_by_field_name("alternative").is_some()
        });
        if dangling { format!("{{ {wrapped} }}") } else { wrapped }
    }

    /// The text of Java expression `e` as the right operand of a new `… && e`: parenthesised
    /// when `&&` binds tighter than its operator (`||`, `?:`, assignment, lambda).
    fn java_and_operand(&self, e: Node<'_>) -> String {
        let loose = match e.kind() {
            "ternary_expression" | "assignment_expression" | "lambda_expression" => true,
            "binary_expression" => e.child_by_field_name("operator").is_some_and(|o| self.of(o) == "||"),
            _ => false,
        };
        if loose { format!("({})", self.of(e)) } else { self.of(e).to_string() }
    }

    /// TBar FP3 "Insert Range Checker" ([`Template::InsertRangeChecker`]): a one-line
    /// expression statement or `return` holding an index access runs only within bounds.
    /// Java `a[i]` → `if (i >= 0 && i < a.length) { stmt }`, `x.get(i)` → `… i < x.size()`,
    /// `s.charAt(i)` → `… i < s.length()`; Python `a[i]` → `if 0 <= i < len(a):` with the
    /// statement on the next line, one level deeper than the statement's indentation
    /// (a statement sharing its line with other code is skipped). The indexed value must be a
    /// name, field or attribute, or an index access of one (no call: it would run twice); the
    /// index must not be a literal (a constant index is the numeral templates'), a slice, a
    /// tuple, or hold an assignment or `++`/`--`. Java `get`/`charAt` need one argument and,
    /// where the file declares them, a list-like receiver (`List`, `Vector`, `Stack`) or a
    /// string receiver, and an `int`-like index. Java `return`s only where they
    /// [`falls_through`]. At most [`MAX_RANGE_CHECKS`] checks per statement.
    pub(super) fn range_checker(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if !matches!(node.kind(), "expression_statement" | "return_statement")
            || node.start_position().row != node.end_position().row
        {
            return;
        }
        let indent = match self.language {
            Language::Java if node.kind() == "return_statement" && !falls_through(node) => return,
            Language::Java => "",
            Language::Python => match self.indent(node) {
                Some(indent) => indent,
                None => return,
            },
        };
        let mut made: Vec<String> = Vec::new();
        for access in own_nodes(node) {
            if made.len() == MAX_RANGE_CHECKS {
                break;
            }
            let Some(check) = self.bounds(access, node) else { continue };
            if made.contains(&check) {
                continue;
            }
            let wrapped = match self.language {
                Language::Java => self.java_wrap(node, &check),
                Language::Python => format!("if {check}:\n{indent}    {}", self.of(node)),
            };
            self.push(out, Template::InsertRangeChecker, node, wrapped);
            made.push(check);
        }
    }

    /// The bounds check of `access` (see [`Cx::range_checker`]), `None` when it has none.
    fn bounds(&self, access: Node<'_>, stmt: Node<'_>) -> Option<String> {
        match access.kind() {
            "array_access" => {
                let (array, index) = (access.child_by_field_name("array")?, access.child_by_field_name("index")?);
                if !self.plain_value(array) || !self.plain_index(index) {
                    return None;
                }
                let i = self.java_comparand(index);
                Some(format!("{i} >= 0 && {i} < {}.length", self.of(array)))
            }
            "method_invocation" => {
                let name = self.of(access.child_by_field_name("name")?);
                let (size, receivers) = match name {
                    "get" => ("size", INDEXED_TYPES),
                    "charAt" => ("length", CHAR_TYPES),
                    _ => return None,
                };
                let object = access.child_by_field_name("object")?;
                let args = access.child_by_field_name("arguments")?;
                if arity(Some(args)) != 1 || !self.plain_value(object) {
                    return None;
                }
                let mut cursor = args.walk();
                let index = args.named_children(&mut cursor).find(|a| a.kind() != "comment")?;
                let known = |n: Node<'_>| {
                    let name = self.of(n);
                    let last = name.rsplit('.').next().unwrap_or(name);
                    self.types.get(last).copied().flatten().map(strip_type_arguments)
                };
                let receiver_ok = known(object).is_none_or(|t| receivers.iter().any(|r| t.ends_with(r)));
                let index_ok =
                    index.kind() != "identifier" || known(index).is_none_or(|t| INDEX_TYPES.contains(&t.as_str()));
                if !receiver_ok || !index_ok || !self.plain_index(index) {
                    return None;
                }
                let i = self.java_comparand(index);
                Some(format!("{i} >= 0 && {i} < {}.{size}()", self.of(object)))
            }
            "subscript" => {
                let (value, index) = match subscripts(access).as_slice() {
                    [index] => (access.child_by_field_name("value")?, *index),
                    _ => return None,
                };
                let annotation = ancestors_within(access, stmt).any(|a| a.kind() == "type");
                if annotation || !self.plain_value(value) || !self.plain_index(index) {
                    return None;
                }
                Some(format!("0 <= {} < len({})", self.python_comparand(index), self.of(value)))
            }
            _ => None,
        }
    }

    /// Whether `node` is a name, a field or attribute of one, or an index access of those
    /// (no call, which the check would run a second time).
    fn plain_value(&self, node: Node<'_>) -> bool {
        match node.kind() {
            "identifier" | "this" => true,
            "field_access" => node.child_by_field_name("object").is_some_and(|o| self.plain_value(o)),
            "attribute" => node.child_by_field_name("object").is_some_and(|o| self.plain_value(o)),
            "array_access" | "subscript" => {
                let value = node.child_by_field_name("array").or(node.child_by_field_name("value"));
                value.is_some_and(|v| self.plain_value(v))
            }
            _ => false,
        }
    }

    /// Whether `node` may be an index in a bounds check: not a literal (nor a negated one),
    /// not a slice, no assignment or `++`/`--` in it.
    fn plain_index(&self, node: Node<'_>) -> bool {
        let literal = |n: Node<'_>| {
            n.kind().ends_with("_literal")
                || matches!(
                    n.kind(),
                    "integer" | "float" | "string" | "concatenated_string" | "true" | "false" | "none" | "slice"
                )
        };
        let negated =
            matches!(node.kind(), "unary_expression" | "unary_operator") && node.named_child(0).is_some_and(literal);
        let effects = descendants(node).into_iter().any(|d| {
            matches!(d.kind(), "update_expression" | "assignment_expression" | "named_expression" | "assignment")
        });
        !literal(node) && !negated && !effects
    }

    /// Java `i` as an operand of `>=`/`<`: parenthesised unless it binds tighter (a primary,
    /// a unary, a cast, or `+ - * / %`).
    fn java_comparand(&self, i: Node<'_>) -> String {
        let tight = match i.kind() {
            "binary_expression" => {
                i.child_by_field_name("operator").is_some_and(|o| matches!(self.of(o), "+" | "-" | "*" | "/" | "%"))
            }
            "ternary_expression" | "assignment_expression" | "lambda_expression" | "instanceof_expression" => false,
            _ => true,
        };
        if tight { self.of(i).to_string() } else { format!("({})", self.of(i)) }
    }

    /// Python `i` as the middle of `0 <= i < n`: parenthesised when it is a comparison,
    /// `not`, `and`/`or`, a conditional expression or a lambda (arithmetic and bitwise
    /// operators bind tighter than comparisons).
    fn python_comparand(&self, i: Node<'_>) -> String {
        let loose = matches!(
            i.kind(),
            "comparison_operator" | "not_operator" | "boolean_operator" | "conditional_expression" | "lambda"
        );
        if loose { format!("({})", self.of(i)) } else { self.of(i).to_string() }
    }
}

impl Cx<'_> {
    /// A NaN check after a `double` or `float` local's declaration
    /// ([`Template::InsertNanChecker`]), Java only: `double d = e;` (one declarator, with a
    /// value, in a block of a method or constructor) is followed on its line by
    /// `if (Double.isNaN(d)) return D;` (`Float.isNaN` for a `float`), one edit per return
    /// `D` of the method's defaults ([`Cx::java_default_returns`]), and `return d;` first
    /// where the method's return type holds the local (its type, boxed or not, `Number`,
    /// `Object`: the NaN goes on to the caller). The declaration may be in a block, a
    /// constructor's body or a `case` group; the check goes after a comment that ends its
    /// line. None where the method already calls `isNaN(d)`, for an array (`double z[] =
    /// …`), in a lambda, an initializer or an arrow `case` (a switch expression's block
    /// cannot `return`).
    pub(super) fn nan_checker(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        let Some((ty, name, method)) = self.nan_local(node) else { return };
        let class = if ty == "double" { "Double" } else { "Float" };
        if self.of(method).contains(&format!("isNaN({name})")) {
            return;
        }
        let Some(indent) = self.indent(node) else { return };
        let mut returns = self.java_default_returns(method);
        let holds = |r: &str| r == ty || r == class || r == "Number" || r == "Object";
        if method.child_by_field_name("type").is_some_and(|t| holds(self.of(t))) {
            returns.insert(0, format!("return {name}"));
        }
        // After a comment that ends the line (it stays with the declaration), else right after it.
        let at = self.line_end_after(node);
        for r in returns {
            let check = format!("if ({class}.isNaN({name})) {r};");
            let summary = format!("add NaN check {check}");
            self.insert(out, Template::InsertNanChecker, at, format!("\n{indent}{check}"), summary);
        }
    }

    /// `(type, name, method)` of a Java local `node` that [`Cx::nan_checker`] checks: a
    /// `double` or `float` declaration of one non-array name with a value, in a block, a
    /// constructor's body or a `case` group of a method or constructor, not in an arrow
    /// `case` (a `return` cannot leave a switch expression).
    fn nan_local<'n>(&self, node: Node<'n>) -> Option<(&str, &str, Node<'n>)> {
        if self.language != Language::Java || node.kind() != "local_variable_declaration" {
            return None;
        }
        let ty = self.of(node.child_by_field_name("type")?);
        let mut cursor = node.walk();
        let declarators: Vec<Node<'_>> = node.children_by_field_name("declarator", &mut cursor).collect();
        let [declarator] = declarators[..] else { return None };
        let name = self.of(declarator.child_by_field_name("name")?);
        let plain =
            declarator.child_by_field_name("dimensions").is_none() && declarator.child_by_field_name("value").is_some();
        let in_body = matches!(node.parent()?.kind(), "block" | "constructor_body" | "switch_block_statement_group");
        let method = enclosing_method(node)?;
        let arrow = ancestors_within(node, method).any(|a| a.kind() == "switch_rule");
        (matches!(ty, "double" | "float") && plain && in_body && !arrow).then_some((ty, name, method))
    }
}

/// The method or constructor whose own statements hold `node`; `None` in a lambda, an
/// initializer or a class body.
fn enclosing_method(node: Node<'_>) -> Option<Node<'_>> {
    let boundary = std::iter::successors(node.parent(), |n| n.parent()).find(|n| is_body_boundary(*n))?;
    matches!(boundary.kind(), "method_declaration" | "constructor_declaration").then_some(boundary)
}

/// Java: whether the method can go on after statement `stmt`, so that a `return` wrapped in
/// an `if` still compiles: a statement follows `stmt`, or one of the statements around it,
/// in a block or `case` of the same method, constructor or lambda.
fn falls_through(stmt: Node<'_>) -> bool {
    let mut at = stmt;
    while let Some(parent) = at.parent() {
        if is_body_boundary(parent) {
            return false;
        }
        if matches!(parent.kind(), "block" | "switch_block_statement_group") {
            let mut next = at.next_named_sibling();
            while let Some(n) = next.filter(|n| matches!(n.kind(), "line_comment" | "block_comment")) {
                next = n.next_named_sibling();
            }
            if next.is_some() {
                return true;
            }
        }
        at = parent;
    }
    false
}

/// Whether `node` bounds a body's statements: a method, constructor, lambda or class.
fn is_body_boundary(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "method_declaration"
            | "constructor_declaration"
            | "lambda_expression"
            | "class_body"
            | "function_definition"
            | "lambda"
            | "program"
            | "module"
    )
}

/// The nodes of `scope` in source order, less those inside lambdas and anonymous classes
/// (their statements are edited on their own).
fn own_nodes(scope: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut stack = vec![scope];
    while let Some(n) = stack.pop() {
        if n != scope && matches!(n.kind(), "lambda_expression" | "class_body" | "lambda") {
            continue;
        }
        out.push(n);
        let mut cursor = n.walk();
        let kids: Vec<Node<'_>> = n.children(&mut cursor).collect();
        stack.extend(kids.into_iter().rev());
    }
    out
}

/// The ancestors of `node` below `top`.
fn ancestors_within<'a>(node: Node<'a>, top: Node<'a>) -> impl Iterator<Item = Node<'a>> {
    std::iter::successors(node.parent(), |n| n.parent()).take_while(move |n| *n != top)
}

/// The first named child of `node` that is not a comment (the expression of a
/// parenthesised condition).
fn first_named(node: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).find(|n| !n.kind().ends_with("comment"))
}

/// A Java type's text without its type arguments or whitespace (`Map.Entry<K, V>` →
/// `Map.Entry`, `List<String>[]` → `List[]`): what `instanceof` accepts.
fn strip_type_arguments(ty: &str) -> String {
    let mut depth = 0usize;
    let mut out = String::new();
    for c in ty.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            c if depth == 0 && !c.is_whitespace() => out.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing::{apply, parses};
    use super::super::{Template, edits};
    use crate::Language;

    /// The edits of `template` on all of `text`, as `(replacement, patched program)`.
    fn made(text: &str, language: Language, template: Template) -> Vec<(String, String)> {
        let n = text.lines().count();
        edits(text, language, (1, n))
            .iter()
            .filter(|e| e.template == template)
            .inspect(|e| assert_ne!(e.original, e.replacement, "{e:?}"))
            .map(|e| (e.replacement.clone(), apply(text, e)))
            .collect()
    }

    #[test]
    fn java_nan_checkers_follow_double_and_float_locals() {
        // Defects4J JxPath-8's shape: a relational comparison of two doubles.
        let text = "class R {\n    boolean compute(Object l, Object r) {\n        \
                    double ld = value(l);\n        double rd = value(r);\n        \
                    return ld < rd;\n    }\n    \
                    float scale(float f) {\n        float s = f * 2;\n        return s;\n    }\n    \
                    Object floor(Object o) {\n        double v = value(o);\n        return new Double(v);\n    }\n    \
                    void skip(double a) {\n        double b, c = 1;\n        int n = 3;\n        \
                    double d;\n        double e = a;\n        if (Double.isNaN(e)) return;\n        \
                    Runnable x = () -> { double y = a; };\n    }\n}\n";
        let got = made(text, Language::Java, Template::InsertNanChecker);
        let checks: Vec<&str> = got.iter().map(|(r, _)| r.trim()).collect();
        assert_eq!(
            checks,
            [
                "if (Double.isNaN(ld)) return false;",
                "if (Double.isNaN(ld)) return true;",
                "if (Double.isNaN(rd)) return false;",
                "if (Double.isNaN(rd)) return true;",
                "if (Float.isNaN(s)) return s;",
                "if (Float.isNaN(s)) return 0;",
                "if (Double.isNaN(v)) return v;",
                "if (Double.isNaN(v)) return null;",
            ]
        );
        // The check follows the declaration, on the next line, at its indentation.
        assert!(
            got[0].1.contains(
                "        double ld = value(l);\n        if (Double.isNaN(ld)) return false;\n        double rd"
            )
        );
        assert!(got.iter().all(|(_, p)| parses(p, Language::Java)));
        assert!(
            made("def f(x):\n    d = float(x)\n    return d\n", Language::Python, Template::InsertNanChecker)
                .is_empty()
        );
    }

    #[test]
    fn java_nan_checkers_in_constructors_and_case_groups_after_comments_never_in_arrow_cases() {
        // Found by the fresh-user pass: a constructor's body was skipped, a switch expression's
        // block got a `return` javac refuses, `double z[]` was checked as a number, and the
        // check went between a declaration and its comment.
        let text = "class N {\n    N(double x) {\n        double c = x; // the copy\n        use(c);\n    }\n    \
                    int f(int k, double x) {\n        switch (k) {\n            case 1:\n                \
                    double q = x;\n                use(q);\n        }\n        \
                    int r = switch (k) { case 2 -> { double w = x; yield (int) w; } default -> 0; };\n        \
                    double z[] = {x};\n        return r;\n    }\n}\n";
        let got = made(text, Language::Java, Template::InsertNanChecker);
        let checks: Vec<&str> = got.iter().map(|(r, _)| r.trim()).collect();
        assert_eq!(checks, ["if (Double.isNaN(c)) return;", "if (Double.isNaN(q)) return 0;"]);
        assert!(got[0].1.contains("double c = x; // the copy\n        if (Double.isNaN(c)) return;\n"), "{}", got[0].1);
        assert!(got.iter().all(|(_, p)| parses(p, Language::Java)));
    }

    #[test]
    fn java_cast_checkers_wrap_statements_and_conditions() {
        let text = "public class ObjectUtils {\n    private Object value;\n\n    \
                    public <T extends Comparable<T>> int compare(Object a, Object b, T c) {\n        \
                    if (((Comparable<Object>) a).compareTo(b) > 0 || b == null) {\n            \
                    log((T) a);\n        }\n        \
                    ((List<String>) this.value).add(String.valueOf(a));\n        \
                    double d = 2.5;\n        \
                    int n = (int) d; // (Integer) b\n        \
                    String s = \"(String) a\";\n        \
                    return (Integer) b + n;\n    }\n}\n";
        let m = made(text, Language::Java, Template::InsertCastChecker);
        let replacements: Vec<&str> = m.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(
            replacements,
            [
                "a instanceof Comparable && (((Comparable<Object>) a).compareTo(b) > 0 || b == null)",
                "if (this.value instanceof List) { ((List<String>) this.value).add(String.valueOf(a)); }",
            ],
            "{m:#?}"
        );
        // No check on a primitive cast, a type variable, a declaration, a comment or a
        // string; the last `return` of the method is not wrapped.
        for (_, patched) in &m {
            assert!(parses(patched, Language::Java), "{patched}");
        }
    }

    #[test]
    fn java_cast_checker_on_a_return_only_where_the_method_goes_on() {
        let text = "class Visitors {\n    Node first(Object o, List<Object> rest) {\n        \
                    for (Object x : rest) {\n            \
                    if (x != null) return (Node) x;\n        }\n        \
                    if (o instanceof Node) {\n            return ((Node) o).next;\n        }\n        \
                    return (Node) o;\n    }\n}\n";
        let m = made(text, Language::Java, Template::InsertCastChecker);
        let replacements: Vec<&str> = m.iter().map(|(r, _)| r.as_str()).collect();
        // The return in the loop falls through to the method's last statement; the cast under
        // `if (o instanceof Node)` is already checked; the last return is not wrapped.
        assert_eq!(replacements, ["if (x instanceof Node) { return (Node) x; }"], "{m:#?}");
        assert!(m[0].1.contains("if (x != null) if (x instanceof Node) { return (Node) x; }\n"));
        assert!(parses(&m[0].1, Language::Java));
        // The `then` of an `if` with an `else` keeps its `else`.
        let text = "class A {\n    void f(Object o) {\n        if (o != null) ((Runnable) o).run();\n        \
                    else stop();\n    }\n}\n";
        let m = made(text, Language::Java, Template::InsertCastChecker);
        assert_eq!(m.len(), 1, "{m:#?}");
        assert!(m[0].1.contains("if (o != null) { if (o instanceof Runnable) { ((Runnable) o).run(); } }\n"));
        assert!(parses(&m[0].1, Language::Java));
    }

    #[test]
    fn the_cast_cap_holds_and_python_has_no_cast_checkers() {
        let text = "class A {\n    void f(Object a, Object b, Object c) {\n        \
                    use((String) a, (String) a, (Number) b, (Runnable) c);\n    }\n}\n";
        let m = made(text, Language::Java, Template::InsertCastChecker);
        let replacements: Vec<&str> = m.iter().map(|(r, _)| r.as_str()).collect();
        let stmt = "use((String) a, (String) a, (Number) b, (Runnable) c);";
        assert_eq!(
            replacements,
            [format!("if (a instanceof String) {{ {stmt} }}"), format!("if (b instanceof Number) {{ {stmt} }}")]
        );
        let py = "def f(x):\n    return int(x) + float(x)\n";
        assert!(made(py, Language::Python, Template::InsertCastChecker).is_empty());
    }

    #[test]
    fn java_range_checkers_for_arrays_lists_and_strings() {
        let text = "public class ArrayUtils {\n    private int[] counts;\n\n    \
                    public void copy(Object[] src, List<String> names, String s, int i, String key) {\n        \
                    this.counts[i + 1] = src.length;\n        \
                    names.get(i).trim();\n        \
                    process(s.charAt(i - 1), names.get(0), lookup.get(key), src[2]);\n        \
                    for (int j = 0; j < 3; j++) {\n            \
                    if (j > i) return;\n            \
                    emit(src[j & 7]);\n        }\n    }\n}\n";
        let m = made(text, Language::Java, Template::InsertRangeChecker);
        let replacements: Vec<&str> = m.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(
            replacements,
            [
                "if (i + 1 >= 0 && i + 1 < this.counts.length) { this.counts[i + 1] = src.length; }",
                "if (i >= 0 && i < names.size()) { names.get(i).trim(); }",
                "if (i - 1 >= 0 && i - 1 < s.length()) { process(s.charAt(i - 1), names.get(0), \
                 lookup.get(key), src[2]); }",
                "if ((j & 7) >= 0 && (j & 7) < src.length) { emit(src[j & 7]); }",
            ],
            "{m:#?}"
        );
        for (_, patched) in &m {
            assert!(parses(patched, Language::Java), "{patched}");
        }
    }

    #[test]
    fn java_range_checker_skips_the_last_return_and_side_effects() {
        let text = "class Buffer {\n    char[] buf;\n    int pos;\n\n    char peek(int k) {\n        \
                    if (k < 0) {\n            return buf[pos];\n        }\n        \
                    buf[pos++] = 'x';\n        \
                    return buf[pos + k];\n    }\n}\n";
        let m = made(text, Language::Java, Template::InsertRangeChecker);
        let replacements: Vec<&str> = m.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(replacements, ["if (pos >= 0 && pos < buf.length) { return buf[pos]; }"], "{m:#?}");
        assert!(parses(&m[0].1, Language::Java));
    }

    #[test]
    fn python_range_checkers_indent_the_statement() {
        let text = "class Heap:\n    def sift(self, items, i, j):\n        \
                    total = items[i] + self.weights[i + 1]\n        \
                    if i:\n            return items[i // 2]\n        \
                    name = self.names['key']\n        \
                    head = items[0] + items[-1] + items[1:i][0]\n        \
                    return items[i][j]  # items[k]\n";
        let m = made(text, Language::Python, Template::InsertRangeChecker);
        let replacements: Vec<&str> = m.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(
            replacements,
            [
                "if 0 <= i < len(items):\n            total = items[i] + self.weights[i + 1]",
                "if 0 <= i + 1 < len(self.weights):\n            total = items[i] + self.weights[i + 1]",
                "if 0 <= i // 2 < len(items):\n                return items[i // 2]",
                "if 0 <= j < len(items[i]):\n            return items[i][j]",
                "if 0 <= i < len(items):\n            return items[i][j]",
            ],
            "{m:#?}"
        );
        for (_, patched) in &m {
            assert!(parses(patched, Language::Python), "{patched}");
        }
    }
}
