//! Sub-conditions of an `if`/loop/ternary condition removed or added (TBar FP6 "Mutate
//! Conditional Expression"; Liu et al., ISSTA 2019).

use tree_sitter::Node;

use super::{Cx, Edit, Template, descendants, named_only_child};
use crate::Language;

/// Edits per condition, at most: the removals first (outer chains before the chains inside
/// them, operands in source order), then the added null tests, then the added booleans.
const MAX_CONDITION_EDITS: usize = 16;

/// Receivers given an added null test, and boolean names added, per condition, at most
/// (each makes two edits, with `&&` and with `||`).
const MAX_ADDED_OPERANDS: usize = 3;

/// A name declared in a method: its text, its type's text (`None` for an inferred lambda
/// parameter), where it can be used, and where its declaration ends.
struct Declaration<'t> {
    name: &'t str,
    ty: Option<&'t str>,
    region: (usize, usize),
    end: usize,
}

impl Cx<'_> {
    /// TBar FP6 "Mutate Conditional Expression" ([`Template::MutateCondition`]) on the
    /// condition `c` of an `if`, `while`, `do`, `for` (Java), `elif` (Python) or ternary
    /// (Java `c ? a : b`, Python `a if c else b`), parentheses around `c` aside:
    ///
    /// - **removal**: each operand of each `&&`/`||` (`and`/`or`) chain of `c` dropped with
    ///   its operator (`a && b && c` → `a && c`; `a || b && d` → `a || d`), for the chain at
    ///   the top and the chains inside its operands (under parentheses and negations). An
    ///   operand binding a name (a Java `instanceof` pattern, a Python `:=`) is kept.
    /// - **addition of a null test**: `c && r != null` and `c || r == null` (Python
    ///   `c and r is not None`, `c or r is None`) for each receiver `r` dereferenced in the
    ///   statement's body, then in the rest of the method, that `c` does not dereference
    ///   itself (that is [`Template::AddNullCheck`]'s `r != null && c`) nor test against
    ///   null already, and that is in scope at `c`; at most [`MAX_ADDED_OPERANDS`].
    /// - **addition of a boolean**: `c && b` and `c || b` (`and`/`or`) for each boolean name
    ///   `b` in scope that `c` does not mention: Java parameters, locals declared before `c`
    ///   in a block around it, and fields of the classes around it, of type `boolean`;
    ///   Python parameters defaulting to `True`/`False` or annotated `bool`, names and
    ///   attributes assigned `True`/`False` before `c`, and those compared with
    ///   `True`/`False`; at most [`MAX_ADDED_OPERANDS`].
    ///
    /// `c` is parenthesised where the added operator would bind it otherwise. At most
    /// [`MAX_CONDITION_EDITS`] per condition; never an edit that leaves the text as it was.
    pub(super) fn condition(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        let Some(parent) = node.parent() else { return };
        let body = match parent.kind() {
            "if_statement" | "elif_clause" | "ternary_expression" => {
                if parent.child_by_field_name("condition") != Some(node) {
                    return;
                }
                parent.child_by_field_name("consequence")
            }
            "while_statement" | "do_statement" | "for_statement" => {
                if parent.child_by_field_name("condition") != Some(node) {
                    return;
                }
                parent.child_by_field_name("body")
            }
            "conditional_expression" if parent.named_child(1) == Some(node) => parent.named_child(0),
            _ => return,
        };
        let mut c = node;
        while c.kind() == "parenthesized_expression" {
            let mut cursor = c.walk();
            let kids: Vec<Node<'_>> =
                c.named_children(&mut cursor).filter(|k| !k.kind().ends_with("comment")).collect();
            match kids.as_slice() {
                [inner] => c = *inner,
                _ => break,
            }
        }
        let mut made: Vec<(Node<'_>, String)> = Vec::new();
        let mut chains = Vec::new();
        self.chains(c, &mut chains);
        for chain in chains {
            for replacement in self.removals(chain) {
                made.push((chain, replacement));
            }
        }
        let scope = std::iter::successors(Some(parent), |n| n.parent())
            .find(|n| matches!(n.kind(), "method_declaration" | "constructor_declaration" | "function_definition"))
            .unwrap_or(parent);
        let java = self.language == Language::Java;
        let (and, or) = if java { ("&&", "||") } else { ("and", "or") };
        let (c_and, c_or) = (self.left_operand(c, and), self.left_operand(c, or));
        let decls = if java { self.java_declarations(scope) } else { Vec::new() };
        for r in self.added_receivers(c, body, scope, &decls) {
            let (is_null, is_not_null) = self.null_tests(&r);
            made.push((c, format!("{c_and} {and} {is_not_null}")));
            made.push((c, format!("{c_or} {or} {is_null}")));
        }
        let mentioned: Vec<&str> = descendants(c)
            .into_iter()
            .filter(|n| matches!(n.kind(), "identifier" | "attribute" | "field_access"))
            .map(|n| self.of(n))
            .collect();
        let booleans = if java { self.java_booleans(c, &decls) } else { self.python_booleans(c, scope) };
        for b in booleans.into_iter().filter(|b| !mentioned.contains(&b.as_str())).take(MAX_ADDED_OPERANDS) {
            made.push((c, format!("{c_and} {and} {b}")));
            made.push((c, format!("{c_or} {or} {b}")));
        }
        let mut done: Vec<(usize, usize, &str)> = Vec::new();
        for (n, replacement) in &made {
            if done.len() == MAX_CONDITION_EDITS {
                break;
            }
            let key = (n.start_byte(), n.end_byte(), replacement.as_str());
            if replacement != self.of(*n) && !done.contains(&key) {
                done.push(key);
                self.push(out, Template::MutateCondition, *n, replacement.clone());
            }
        }
    }

    /// The `&&`/`||` (`and`/`or`) chains of condition `c`: `c` itself when it is one, and
    /// those among the operands of a chain, under parentheses and negations, outer first.
    fn chains<'a>(&self, c: Node<'a>, out: &mut Vec<Node<'a>>) {
        if c.kind() == "parenthesized_expression" {
            if let Some(inner) = named_only_child(c) {
                self.chains(inner, out);
            }
        } else if let Some(operand) = self.negated(c) {
            self.chains(operand, out);
        } else if let Some(op) = self.logical_operator(c) {
            out.push(c);
            for operand in self.operands(c, op) {
                self.chains(operand, out);
            }
        }
    }

    /// `&&`, `||`, `and` or `or` when `node` is such an expression.
    pub(super) fn logical_operator(&self, node: Node<'_>) -> Option<&str> {
        if !matches!(node.kind(), "binary_expression" | "boolean_operator") {
            return None;
        }
        let op = self.of(node.child_by_field_name("operator")?);
        matches!(op, "&&" | "||" | "and" | "or").then_some(op)
    }

    /// The operands of the chain of `op` that `node` is (`a && b && c`: `a`, `b`, `c`).
    fn operands<'a>(&self, node: Node<'a>, op: &str) -> Vec<Node<'a>> {
        if self.logical_operator(node) != Some(op) {
            return vec![node];
        }
        let (Some(l), Some(r)) = (node.child_by_field_name("left"), node.child_by_field_name("right")) else {
            return vec![node];
        };
        let mut out = self.operands(l, op);
        out.extend(self.operands(r, op));
        out
    }

    /// The text of `chain` less each of its operands in turn (with the operator next to it),
    /// all other text as it was.
    fn removals(&self, chain: Node<'_>) -> Vec<String> {
        let Some(op) = self.logical_operator(chain) else { return Vec::new() };
        let ops = self.operands(chain, op);
        let mut out = Vec::new();
        for (k, operand) in ops.iter().enumerate() {
            let binds = descendants(*operand).into_iter().any(|d| {
                d.kind() == "named_expression"
                    || (d.kind() == "instanceof_expression"
                        && (d.child_by_field_name("name").is_some() || d.child_by_field_name("pattern").is_some()))
            });
            if binds {
                continue;
            }
            let (cut_start, cut_end) = match k {
                0 => (operand.start_byte(), ops[1].start_byte()),
                _ => (ops[k - 1].end_byte(), operand.end_byte()),
            };
            // Comments between the operands stay.
            let inside = |n: Node<'_>, a: usize, b: usize| a <= n.start_byte() && n.end_byte() <= b;
            let comments: Vec<&str> = descendants(chain)
                .into_iter()
                .filter(|n| n.kind().ends_with("comment") && inside(*n, cut_start, cut_end))
                .filter(|n| !inside(*n, operand.start_byte(), operand.end_byte()))
                .map(|n| self.of(n))
                .collect();
            let (before, after) = (&self.text[chain.start_byte()..cut_start], &self.text[cut_end..chain.end_byte()]);
            out.push(match (comments.join(" "), k) {
                (kept, _) if kept.is_empty() => format!("{before}{after}"),
                (kept, 0) => format!("{before}{kept} {after}"),
                (kept, _) => format!("{before} {kept}{after}"),
            });
        }
        out
    }

    /// The text of `c` as the left operand of a new `op` (`&&`, `||`, `and`, `or`):
    /// parenthesised where `op` would bind tighter than its own top operator.
    pub(super) fn left_operand(&self, c: Node<'_>, op: &str) -> String {
        let loose = match c.kind() {
            "ternary_expression"
            | "assignment_expression"
            | "lambda_expression"
            | "conditional_expression"
            | "lambda"
            | "named_expression" => true,
            _ => matches!((op, self.logical_operator(c)), ("&&", Some("||")) | ("and", Some("or"))),
        };
        if loose { format!("({})", self.of(c)) } else { self.of(c).to_string() }
    }

    /// The receivers to null-test after condition `c` (see [`Cx::condition`]): those of
    /// `body`, then of `scope`, less `c`'s own and those `c` already compares with null.
    fn added_receivers(
        &self,
        c: Node<'_>,
        body: Option<Node<'_>>,
        scope: Node<'_>,
        decls: &[Declaration<'_>],
    ) -> Vec<String> {
        let own = self.receivers(c);
        let tested: Vec<String> = descendants(c)
            .into_iter()
            .filter(|n| matches!(n.kind(), "binary_expression" | "comparison_operator"))
            .map(|n| super::squash(self.of(n)))
            .collect();
        let mut candidates = body.map(|b| self.receivers(b)).unwrap_or_default();
        candidates.extend(self.receivers(scope));
        let mut out: Vec<String> = Vec::new();
        for r in candidates {
            if out.len() == MAX_ADDED_OPERANDS {
                break;
            }
            let (is_null, is_not_null) = self.null_tests(&r);
            let null = if self.language == Language::Java { "null" } else { "None" };
            let already = [is_null, is_not_null, format!("{null} == {r}"), format!("{null} != {r}")]
                .iter()
                .any(|t| tested.contains(&super::squash(t)));
            let root = r.split('.').next().unwrap_or(&r);
            let visible = match self.language {
                Language::Java => self.java_visible(root, c, decls),
                Language::Python => self.python_visible(root, c, scope),
            };
            if !own.contains(&r) && !out.contains(&r) && !already && r != self.of(c) && visible {
                out.push(r);
            }
        }
        out
    }

    /// Java: the names declared in `scope` (parameters, locals, loop and catch variables,
    /// resources, lambda parameters), with their types and the regions they can be used in.
    fn java_declarations(&self, scope: Node<'_>) -> Vec<Declaration<'_>> {
        let declare = |name: Node<'_>, ty: Option<Node<'_>>, region: Option<Node<'_>>, end: usize| {
            region.map(|r| Declaration {
                name: self.of(name),
                ty: ty.map(|t| self.of(t)),
                region: (r.start_byte(), r.end_byte()),
                end,
            })
        };
        let mut out = Vec::new();
        for d in descendants(scope) {
            let ty = d.child_by_field_name("type");
            let name = d.child_by_field_name("name");
            match d.kind() {
                "formal_parameter" | "catch_formal_parameter" | "enhanced_for_statement" | "resource" => {
                    let region = match d.kind() {
                        // The method or lambda of the parameter list; the catch clause; the loop;
                        // the try statement.
                        "formal_parameter" | "resource" => d.parent().and_then(|p| p.parent()),
                        "catch_formal_parameter" => d.parent(),
                        _ => Some(d),
                    };
                    out.extend(name.and_then(|n| declare(n, ty, region, n.end_byte())));
                }
                "local_variable_declaration" => {
                    let mut cursor = d.walk();
                    for v in d.children_by_field_name("declarator", &mut cursor) {
                        // Usable after its declarator (not in its own initialiser).
                        let n = v.child_by_field_name("name");
                        out.extend(n.and_then(|n| declare(n, ty, d.parent(), v.end_byte())));
                    }
                }
                "inferred_parameters" => {
                    let mut cursor = d.walk();
                    for p in d.named_children(&mut cursor) {
                        out.extend(declare(p, None, d.parent(), p.end_byte()));
                    }
                }
                "lambda_expression" => {
                    let p = d.child_by_field_name("parameters").filter(|p| p.kind() == "identifier");
                    out.extend(p.and_then(|p| declare(p, None, Some(d), p.end_byte())));
                }
                _ => {}
            }
        }
        out
    }

    /// Java: whether `name` is in scope at `at`: `this`, a declaration of `decls` around it
    /// and before it, a field of a class around it, or a name the file declares nowhere (an
    /// inherited field, a static import).
    fn java_visible(&self, name: &str, at: Node<'_>, decls: &[Declaration<'_>]) -> bool {
        if name == "this" || name == "super" {
            return true;
        }
        let here = at.start_byte();
        let mine: Vec<&Declaration<'_>> = decls.iter().filter(|d| d.name == name).collect();
        if mine.iter().any(|d| d.region.0 <= here && at.end_byte() <= d.region.1 && d.end <= here) {
            return true;
        }
        if self.java_fields(at).iter().any(|(n, _)| *n == name) {
            return true;
        }
        mine.is_empty() && !self.types.contains_key(name)
    }

    /// Java: `(name, type)` of the fields of the classes around `at`.
    fn java_fields(&self, at: Node<'_>) -> Vec<(&str, &str)> {
        let mut out = Vec::new();
        for body in std::iter::successors(at.parent(), |n| n.parent()).filter(|n| n.kind() == "class_body") {
            let mut cursor = body.walk();
            for field in body.named_children(&mut cursor).filter(|f| f.kind() == "field_declaration") {
                let Some(ty) = field.child_by_field_name("type") else { continue };
                let mut c = field.walk();
                for v in field.children_by_field_name("declarator", &mut c) {
                    if let Some(name) = v.child_by_field_name("name") {
                        out.push((self.of(name), self.of(ty)));
                    }
                }
            }
        }
        out
    }

    /// Java: the `boolean` names in scope at `c`: parameters and locals, then fields.
    fn java_booleans(&self, c: Node<'_>, decls: &[Declaration<'_>]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let locals = decls.iter().filter(|d| d.ty == Some("boolean")).map(|d| d.name);
        let fields = self.java_fields(c).into_iter().filter(|(_, t)| *t == "boolean").map(|(n, _)| n);
        for name in locals.chain(fields) {
            if !out.iter().any(|o| o == name) && self.java_visible(name, c, decls) {
                out.push(name.to_string());
            }
        }
        out
    }

    /// Python: the boolean names and attributes of `scope` usable at `c` (see
    /// [`Cx::condition`]), in source order.
    fn python_booleans(&self, c: Node<'_>, scope: Node<'_>) -> Vec<String> {
        let boolean = |n: Option<Node<'_>>| n.is_some_and(|n| matches!(n.kind(), "true" | "false"));
        let mut found: Vec<Node<'_>> = Vec::new();
        for d in descendants(scope) {
            match d.kind() {
                "default_parameter" | "typed_default_parameter" if boolean(d.child_by_field_name("value")) => {
                    found.extend(d.child_by_field_name("name"));
                }
                "typed_parameter" if d.child_by_field_name("type").is_some_and(|t| self.of(t) == "bool") => {
                    found.extend(d.named_child(0).filter(|n| n.kind() == "identifier"));
                }
                "assignment" if boolean(d.child_by_field_name("right")) && d.end_byte() <= c.start_byte() => {
                    found.extend(d.child_by_field_name("left"));
                }
                "comparison_operator" => {
                    let mut cursor = d.walk();
                    let sides: Vec<Node<'_>> = d.named_children(&mut cursor).collect();
                    if sides.iter().any(|s| boolean(Some(*s))) {
                        found.extend(sides.into_iter().filter(|s| !boolean(Some(*s))));
                    }
                }
                _ => {}
            }
        }
        let mut out: Vec<String> = Vec::new();
        for n in found.into_iter().filter(|n| matches!(n.kind(), "identifier" | "attribute")) {
            let name = self.of(n);
            let root = name.split('.').next().unwrap_or(name);
            if !out.iter().any(|o| o == name) && self.python_visible(root, c, scope) {
                out.push(name.to_string());
            }
        }
        out
    }

    /// Python: whether `name` is bound at `at` in function `scope`: a parameter, a name
    /// bound before `at`, or one the function never binds (a global, a builtin).
    fn python_visible(&self, name: &str, at: Node<'_>, scope: Node<'_>) -> bool {
        if scope.kind() == "function_definition" && self.parameters(scope).iter().any(|(p, _)| p == name) {
            return true;
        }
        if name == "self" || name == "cls" {
            return true;
        }
        let mut bound = false;
        for d in descendants(scope) {
            let target = match d.kind() {
                "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" => {
                    d.child_by_field_name("left")
                }
                "named_expression" => d.child_by_field_name("name"),
                "as_pattern_target" => Some(d),
                _ => None,
            };
            let binds = target.is_some_and(|t| {
                descendants(t).into_iter().any(|n| n.kind() == "identifier" && self.of(n) == name)
                    && t.kind() != "attribute"
                    && t.kind() != "subscript"
            });
            if binds {
                if d.start_byte() < at.start_byte() {
                    return true;
                }
                bound = true;
            }
        }
        !bound
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::apply;
    use tree_sitter::Parser;

    use super::super::{Template, edits};
    use crate::Language;

    /// The patched programs of the condition edits on all of `text`, each checked to parse
    /// and to differ from `text`.
    fn mutated(text: &str, language: Language) -> Vec<String> {
        let n = text.lines().count();
        let mut parser = Parser::new();
        parser.set_language(&language.grammar()).unwrap();
        edits(text, language, (1, n))
            .iter()
            .filter(|e| e.template == Template::MutateCondition)
            .map(|e| {
                assert_ne!(e.original, e.replacement, "{e:?}");
                let patched = apply(text, e);
                assert!(!parser.parse(&patched, None).unwrap().root_node().has_error(), "{patched}");
                patched
            })
            .collect()
    }

    /// Line `line` (1-based) of each patched program where it differs from `text`'s, trimmed.
    fn changed(text: &str, patched: &[String], line: usize) -> Vec<String> {
        let original = text.lines().nth(line - 1);
        patched
            .iter()
            .filter_map(|p| p.lines().nth(line - 1))
            .filter(|l| Some(*l) != original)
            .map(|l| l.trim().to_string())
            .collect()
    }

    #[test]
    fn java_removes_each_sub_condition_of_each_chain() {
        let text = "public class Validate {\n    \
                    public static boolean isBlank(CharSequence cs, int from, boolean strict) {\n        \
                    if (cs == null || cs.length() == 0 && from > 0 || strict) {\n            \
                    return true;\n        }\n        \
                    return !(from < 0 && (strict || cs.length() > from)) ? false : strict;\n    }\n}\n";
        let m = mutated(text, Language::Java);
        assert_eq!(
            changed(text, &m, 3),
            [
                "if (cs.length() == 0 && from > 0 || strict) {",
                "if (cs == null || strict) {",
                "if (cs == null || cs.length() == 0 && from > 0) {",
                "if (cs == null || from > 0 || strict) {",
                "if (cs == null || cs.length() == 0 || strict) {",
            ],
            "{m:#?}"
        );
        assert_eq!(
            changed(text, &m, 6),
            [
                "return !((strict || cs.length() > from)) ? false : strict;",
                "return !(from < 0) ? false : strict;",
                "return !(from < 0 && (cs.length() > from)) ? false : strict;",
                "return !(from < 0 && (strict)) ? false : strict;",
            ],
            "{m:#?}"
        );
        assert_eq!(m.len(), 9);
    }

    #[test]
    fn java_adds_null_tests_and_booleans_in_scope() {
        let text = "class BufferedSink {\n    private boolean closed;\n    private Writer out;\n\n    \
                    void flush(Buffer buf, boolean force) {\n        \
                    if (buf.size() > 0) {\n            out.write(buf.toString());\n        }\n        \
                    boolean later = force;\n        \
                    List<Closeable> pending = drain();\n        \
                    pending.forEach(item -> item.close());\n        \
                    listener.onFlush(buf);\n    }\n}\n";
        let m = mutated(text, Language::Java);
        // `buf` is the condition's own receiver; `pending` and `later` are declared after it,
        // `item` in a lambda; `listener` is declared nowhere in the file (inherited).
        assert_eq!(
            changed(text, &m, 6),
            [
                "if (buf.size() > 0 && out != null) {",
                "if (buf.size() > 0 || out == null) {",
                "if (buf.size() > 0 && listener != null) {",
                "if (buf.size() > 0 || listener == null) {",
                "if (buf.size() > 0 && force) {",
                "if (buf.size() > 0 || force) {",
                "if (buf.size() > 0 && closed) {",
                "if (buf.size() > 0 || closed) {",
            ],
            "{m:#?}"
        );
        assert_eq!(m.len(), 8);
    }

    #[test]
    fn java_conditions_keep_precedence_strings_and_comments() {
        let text = "class Lexer {\n    int scan(String name, Token tok, boolean eof) {\n        \
                    while (name.equals(\"a || b\") /* && eof */ || tok == null) {\n            \
                    tok = tok.next;\n        }\n        \
                    return tok != null ? tok.kind : -1;\n    }\n}\n";
        let m = mutated(text, Language::Java);
        // Comments stay; a string goes only with the sub-condition holding it.
        assert!(m.iter().all(|p| p.contains("/* && eof */")), "{m:#?}");
        assert!(m.iter().all(|p| !p.contains("\"a") || p.contains("name.equals(\"a || b\")")));
        assert_eq!(
            changed(text, &m, 3),
            [
                "while (/* && eof */ tok == null) {",
                "while (name.equals(\"a || b\") /* && eof */) {",
                "while ((name.equals(\"a || b\") /* && eof */ || tok == null) && eof) {",
                "while (name.equals(\"a || b\") /* && eof */ || tok == null || eof) {",
            ],
            "{m:#?}"
        );
        // A ternary's condition: `tok` is compared with null already, `name` is not.
        assert_eq!(
            changed(text, &m, 6),
            [
                "return tok != null && name != null ? tok.kind : -1;",
                "return tok != null || name == null ? tok.kind : -1;",
                "return tok != null && eof ? tok.kind : -1;",
                "return tok != null || eof ? tok.kind : -1;",
            ]
        );
    }

    #[test]
    fn the_condition_cap_holds() {
        let text = "class Flags {\n    boolean all(Opts o, boolean a, boolean b) {\n        \
                    if (o.p1 && o.p2 && o.p3 && o.p4 && o.p5 && o.p6 && o.p7 && o.p8 && o.p9 && o.p10 && o.p11 \
                    && o.p12) {\n            return x.ok() && y.ok() && z.ok() && w.ok();\n        }\n        \
                    return false;\n    }\n}\n";
        let m = mutated(text, Language::Java);
        let got = changed(text, &m, 3);
        assert_eq!(got.len(), super::MAX_CONDITION_EDITS, "{got:#?}");
        // Removals first (all twelve), then null tests of the body's receivers.
        assert!(got[0].starts_with("if (o.p2 && o.p3"));
        assert!(got[11].starts_with("if (o.p1 && o.p2") && got[11].ends_with("o.p10 && o.p11) {"));
        assert!(got[12].ends_with("o.p11 && o.p12 && x != null) {"));
        assert!(got[15].ends_with("o.p11 && o.p12 || y == null) {"));
        // A condition with no chain and nothing to add gets no edit.
        let bare = "class A {\n    int f(int n) {\n        if (n > 0) {\n            return n;\n        }\n        \
                    return 0;\n    }\n}\n";
        assert!(mutated(bare, Language::Java).is_empty());
    }

    #[test]
    fn python_removes_and_adds_sub_conditions() {
        let text = "def merge(left, right, strict=False):\n    result = []\n    done = False\n    \
                    while left and right and not done:\n        \
                    if left[0] <= right[0] or strict:\n            result.append(left.pop(0))\n        \
                    elif right[0] is None:\n            result.append(right.pop(0))\n        \
                    done = len(result) > 10\n    \
                    return result + left if left else right  # left and right\n";
        let m = mutated(text, Language::Python);
        assert_eq!(
            changed(text, &m, 4),
            [
                "while right and not done:",
                "while left and not done:",
                "while left and right:",
                "while left and right and not done and result is not None:",
                "while left and right and not done or result is None:",
                "while left and right and not done and left is not None:",
                "while left and right and not done or left is None:",
                "while left and right and not done and right is not None:",
                "while left and right and not done or right is None:",
                "while left and right and not done and strict:",
                "while left and right and not done or strict:",
            ],
            "{m:#?}"
        );
        let got = changed(text, &m, 5);
        assert!(got.contains(&"if strict:".to_string()), "{got:#?}");
        assert!(got.contains(&"if left[0] <= right[0]:".to_string()));
        assert!(got.contains(&"if (left[0] <= right[0] or strict) and done:".to_string()));
        assert!(got.contains(&"if left[0] <= right[0] or strict or done:".to_string()));
        assert!(changed(text, &m, 7).contains(&"elif right[0] is None and result is not None:".to_string()));
        let got = changed(text, &m, 10);
        assert!(got.contains(&"return result + left if left and strict else right  # left and right".to_string()));
        // The comment is never edited; `left` is not null-tested after `left`.
        assert!(got.iter().all(|l| l.ends_with("else right  # left and right") && !l.contains("left is not")));
    }
}
