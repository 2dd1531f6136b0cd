//! The compile pre-check of a candidate made outside the templates' own checks (a
//! transplanted neighbour's edit, [`super::super::transplant`]): what javac would refuse,
//! where the syntax tree can tell, so the candidate costs no validation.
//!
//! Issue 32 asks for it ("check types before validating where the syntax tree can tell,
//! since each compile costs a validation"). On the Defects4J transplant arm (Cli and JxPath,
//! 51 bugs, binary 9a82e53) 171 of 234 validated transplants did not compile: 58 called a
//! method their receiver does not have (`args.entrySet()` on a `List`, `pos.trim()` on an
//! `int`), 28 did not parse, 7 were expressions that are not statements. The rules, all
//! javac's (JLS 14.8, 14.17, 8.4.3.2, 15.12.3), checked on the candidate's nodes that overlap
//! the replaced region only:
//! - **Syntax**: the candidate file has more tree-sitter `ERROR`/missing nodes than the
//!   original (Java and Python).
//! - **Not a statement**: a Java expression statement whose expression is not an assignment,
//!   `++`/`--`, a method call or an object creation.
//! - **Return value**: `return e;` in a `void` method or a constructor.
//! - **`this` in a static method.**
//! - **Unknown method**: a call `x.m(…)` whose receiver is a name of evident declared type
//!   `T` (the file's declarations; the receiver key of [`super::receiver_key`]) must call a
//!   method the original file calls on a `T` (any arity: overloads are not known), or, when
//!   `T` is `String`, a method of `java.lang.String` with its parameter count (and
//!   `java.lang.Object`'s on any type, `clone` on an array). An unqualified
//!   (or `this.`) call `m(a…)` of a method the file declares must have an arity the file
//!   declares or calls `m` with; a name the file calls only on other objects (`indexOf` of a
//!   `token.indexOf(…)` whose receiver a neighbour's edit dropped) is not this class's. Other
//!   unqualified names may be inherited (with overloads) and are not judged, nor are calls on
//!   receivers of no evident type.
//! - **Primitive receiver**: any call or field access on a name declared `int`, `long`, …
//! - **Type arguments** on `String`, `Object` or a boxed number, or on a class the file
//!   declares without type parameters.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use tree_sitter::{Node, Parser};

use super::{NUMERIC_TYPES, arity, call_parts, descendants, java_calls, java_types};
use crate::Language;

/// Methods of `java.lang.String` (Java 8) with their parameter counts: a call on a `String`
/// the file never makes is still one javac accepts.
pub(super) const STRING_METHODS: &[(&str, &[usize])] = &[
    ("charAt", &[1]),
    ("codePointAt", &[1]),
    ("compareTo", &[1]),
    ("compareToIgnoreCase", &[1]),
    ("concat", &[1]),
    ("contains", &[1]),
    ("contentEquals", &[1]),
    ("endsWith", &[1]),
    ("equals", &[1]),
    ("equalsIgnoreCase", &[1]),
    ("getBytes", &[0, 1]),
    ("hashCode", &[0]),
    ("indexOf", &[1, 2]),
    ("intern", &[0]),
    ("isEmpty", &[0]),
    ("lastIndexOf", &[1, 2]),
    ("length", &[0]),
    ("matches", &[1]),
    ("replace", &[2]),
    ("replaceAll", &[2]),
    ("replaceFirst", &[2]),
    ("split", &[1, 2]),
    ("startsWith", &[1, 2]),
    ("subSequence", &[2]),
    ("substring", &[1, 2]),
    ("toCharArray", &[0]),
    ("toLowerCase", &[0, 1]),
    ("toString", &[0]),
    ("toUpperCase", &[0, 1]),
    ("trim", &[0]),
];

/// Methods of `java.lang.Object` every reference type has, with their parameter counts
/// (`clone` is public on arrays only).
const OBJECT_METHODS: &[(&str, usize)] =
    &[("equals", 1), ("hashCode", 0), ("toString", 0), ("getClass", 0), ("notify", 0), ("notifyAll", 0), ("wait", 0)];

/// Types that take no type arguments.
const NOT_GENERIC: &[&str] = &["String", "Object", "Integer", "Long", "Short", "Byte", "Character", "Double", "Float"];

/// Why javac would refuse `candidate`, the file `original` with bytes `region` (of
/// `candidate`) replaced, or `None` when nothing the syntax tree can tell is wrong (module
/// docs). `region` is clamped to `candidate`; a grammar that cannot be loaded refuses nothing.
/// To check many candidates of one file, read it once with [`Original::new`].
#[must_use]
pub fn refused(original: &str, candidate: &str, language: Language, region: Range<usize>) -> Option<String> {
    Original::new(original, language)?.refused(candidate, region)
}

/// What the pre-check needs of the original file, read once for all its candidates: its
/// syntax errors, and (Java) the calls it makes and the methods it declares.
#[derive(Debug)]
pub struct Original<'t> {
    language: Language,
    errors: usize,
    known: HashSet<(Option<&'t str>, &'t str, usize)>,
    declared: HashSet<&'t str>,
}

impl<'t> Original<'t> {
    /// Reads `text` as `language`; `None` when the grammar cannot be loaded or the parse fails.
    #[must_use]
    pub fn new(text: &'t str, language: Language) -> Option<Original<'t>> {
        let tree = parse(text, language)?;
        let file = descendants(tree.root_node());
        let known = java_calls(text, language, &java_types(text, language, &file), &file).into_iter().collect();
        let declared = file
            .iter()
            .filter(|n| language == Language::Java && n.kind() == "method_declaration")
            .filter_map(|n| n.child_by_field_name("name"))
            .map(|n| &text[n.byte_range()])
            .collect();
        Some(Original { language, errors: errors(tree.root_node()), known, declared })
    }

    /// [`refused`] for `candidate`, this file with bytes `region` (of `candidate`) replaced.
    #[must_use]
    pub fn refused(&self, candidate: &str, region: Range<usize>) -> Option<String> {
        let new = parse(candidate, self.language)?;
        if errors(new.root_node()) > self.errors {
            return Some("does not parse".into());
        }
        if self.language != Language::Java {
            return None;
        }
        let region = region.start.min(candidate.len())..region.end.min(candidate.len());
        let file = descendants(new.root_node());
        let types = java_types(candidate, self.language, &file);
        let facts = Facts { text: candidate, file: &file, types: &types, known: &self.known, declared: &self.declared };
        let overlaps = |n: &Node<'_>| n.start_byte() < region.end.max(region.start + 1) && n.end_byte() > region.start;
        file.iter().copied().filter(overlaps).find_map(|n| facts.refusal(n))
    }
}

/// `text` parsed as `language`.
fn parse(text: &str, language: Language) -> Option<tree_sitter::Tree> {
    let mut parser = Parser::new();
    parser.set_language(&language.grammar()).ok()?;
    parser.parse(text, None)
}

/// The tree-sitter `ERROR` and missing nodes under `root`.
fn errors(root: Node<'_>) -> usize {
    descendants(root).iter().filter(|n| n.is_error() || n.is_missing()).count()
}

/// What [`refused`] knows of a Java candidate: its text and nodes, the declared type of each
/// name, and the calls and method declarations of the original file.
struct Facts<'a> {
    text: &'a str,
    file: &'a [Node<'a>],
    types: &'a HashMap<&'a str, Option<&'a str>>,
    known: &'a HashSet<(Option<&'a str>, &'a str, usize)>,
    declared: &'a HashSet<&'a str>,
}

impl Facts<'_> {
    fn of(&self, n: Node<'_>) -> &str {
        &self.text[n.byte_range()]
    }

    /// Why javac would refuse node `n` (a rule of the module docs), if it would.
    fn refusal(&self, n: Node<'_>) -> Option<String> {
        match n.kind() {
            "expression_statement" => {
                let e = n.named_child(0)?;
                let statement = matches!(
                    e.kind(),
                    "assignment_expression" | "update_expression" | "method_invocation" | "object_creation_expression"
                );
                (!statement).then(|| format!("`{}` is not a statement", self.of(e)))
            }
            "return_statement" if n.named_child(0).is_some_and(|e| e.kind() != "comment") => {
                let m = enclosing(n, &["method_declaration", "constructor_declaration", "lambda_expression"])?;
                let void = m.kind() == "constructor_declaration"
                    || m.child_by_field_name("type").is_some_and(|t| t.kind() == "void_type");
                void.then(|| "a value returned from a void method".into())
            }
            "this" => {
                let m = enclosing(n, &["method_declaration", "class_body", "lambda_expression"])?;
                (m.kind() == "method_declaration" && is_static(self.text, m))
                    .then(|| "`this` in a static method".into())
            }
            "generic_type" => {
                let base = n.named_child(0).map(|b| self.of(b)).unwrap_or_default();
                let own_plain = self.file.iter().any(|c| {
                    c.kind() == "class_declaration"
                        && c.child_by_field_name("name").is_some_and(|x| self.of(x) == base)
                        && c.child_by_field_name("type_parameters").is_none()
                });
                (NOT_GENERIC.contains(&base) || own_plain).then(|| format!("`{base}` takes no type arguments"))
            }
            "field_access" | "method_invocation" => unknown_call(self.text, n, self.types, self.known, self.declared),
            _ => None,
        }
    }
}

/// The innermost ancestor of `n` of one of `kinds`.
fn enclosing<'t>(n: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    std::iter::successors(n.parent(), Node::parent).find(|p| kinds.contains(&p.kind()))
}

/// Whether a Java method declaration has the `static` modifier.
fn is_static(text: &str, method: Node<'_>) -> bool {
    let mut c = method.walk();
    method
        .children(&mut c)
        .find(|x| x.kind() == "modifiers")
        .is_some_and(|m| text[m.byte_range()].split_whitespace().any(|w| w == "static"))
}

/// The "unknown method" and "primitive receiver" rules of the module docs for one call or
/// field access `n` of `text`.
fn unknown_call(
    text: &str,
    n: Node<'_>,
    types: &HashMap<&str, Option<&str>>,
    known: &HashSet<(Option<&str>, &str, usize)>,
    declared: &HashSet<&str>,
) -> Option<String> {
    let object = n.child_by_field_name("object");
    let ty =
        object.filter(|o| o.kind() == "identifier").and_then(|o| types.get(&text[o.byte_range()]).copied().flatten());
    if let (Some(o), Some(t)) = (object, ty)
        && NUMERIC_TYPES.contains(&t)
        && t.starts_with(char::is_lowercase)
    {
        return Some(format!("`{}` is a {t}: it has no members", &text[o.byte_range()]));
    }
    if n.kind() != "method_invocation" {
        return None;
    }
    let (name, args) = call_parts(n)?;
    let (name, count) = (&text[name.byte_range()], arity(Some(args)));
    let own = object.is_none_or(|o| o.kind() == "this");
    let ok = if OBJECT_METHODS.contains(&(name, count)) || (ty.is_some_and(|t| t.ends_with(']')) && name == "clone") {
        true
    } else if own {
        // A method the file declares: its overloads are declared (or called) in the file.
        // One it never calls unqualified but calls on other objects is theirs, not this
        // class's (an inherited one is called unqualified or not at all).
        if declared.contains(name) {
            known.contains(&(None, name, count))
        } else {
            known.iter().any(|k| k.0.is_none() && k.1 == name) || !known.iter().any(|k| k.1 == name)
        }
    } else if ty == Some("String") {
        STRING_METHODS.iter().any(|(m, a)| *m == name && a.contains(&count)) || known.contains(&(ty, name, count))
    } else {
        ty.is_none_or(|t| known.iter().any(|k| k.0 == Some(t) && k.1 == name))
    };
    (!ok).then(|| match ty {
        Some("String") => format!("String has no `{name}` with {count} argument(s)"),
        Some(t) => format!("no call `{name}` on a {t} in the file"),
        None if declared.contains(name) => format!("no method `{name}` with {count} argument(s) in the file"),
        None => format!("`{name}` is called on other objects in the file, never unqualified"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "class A {
    private String name;
    private java.util.List<String> items;
    int size() { return items.size(); }
    static int twice(int n) { return n * 2; }
    void run(int pos, String s) {
        items.add(s.trim());
        int k = pos + size();
    }
}
";

    /// `FILE` with its first `from` replaced by `to`, checked on the replaced bytes.
    fn check(from: &str, to: &str) -> Option<String> {
        let start = FILE.find(from).unwrap();
        let candidate = format!("{}{to}{}", &FILE[..start], &FILE[start + from.len()..]);
        refused(FILE, &candidate, Language::Java, start..start + to.len())
    }

    #[test]
    fn javac_refusals_the_tree_can_tell_are_named() {
        // calls on a typed receiver: ones the file makes, or String's own
        assert_eq!(
            check("items.add(s.trim())", "items.add(s.strip())").unwrap(),
            "String has no `strip` with 0 argument(s)"
        );
        assert_eq!(check("items.add(s.trim())", "items.add(s.toLowerCase())"), None);
        assert_eq!(
            check("items.add(s.trim())", "items.entrySet()").unwrap(),
            "no call `entrySet` on a java.util.List<String> in the file"
        );
        assert_eq!(check("items.add(s.trim())", "items.add(s.trim(), 1)"), None, "an overload javac may know");
        assert_eq!(check("items.add(s.trim())", "other.put(s, 1)"), None, "an untyped receiver is not judged");
        assert_eq!(check("items.add(s.trim())", "items.equals(s)"), None, "Object's methods");
        assert!(check("s.trim()", "s.trim(pos)").unwrap().contains("1 argument(s)"));
        // unqualified: a method the file declares, with its arity; an unknown one may be inherited
        assert_eq!(check("pos + size()", "pos + twice(pos)"), None);
        assert_eq!(
            check("pos + size()", "pos + size(pos)").unwrap(),
            "no method `size` with 1 argument(s) in the file"
        );
        assert_eq!(check("pos + size()", "pos + inherited(pos)"), None);
        assert_eq!(check("pos + size()", "pos + toString().length()"), None, "Object's, unqualified");
        assert_eq!(
            check("items.add(s.trim())", "add(s.trim())").unwrap(),
            "`add` is called on other objects in the file, never unqualified"
        );
        // primitives have no members
        assert!(check("pos + size()", "pos.trim() + size()").unwrap().contains("is a int"));
        // statements, returns, static, generics, syntax
        assert!(check("items.add(s.trim());", "items.add(s.trim()) - 1;").unwrap().contains("not a statement"));
        assert_eq!(check("int k = pos + size();", "return pos;").unwrap(), "a value returned from a void method");
        assert_eq!(check("return n * 2;", "return this.size();").unwrap(), "`this` in a static method");
        assert!(check("private String name;", "private String<?> name;").unwrap().contains("takes no type arguments"));
        assert_eq!(check("items.add(s.trim());", "items.add(s.trim())(pos);").unwrap(), "does not parse");
        // a fix javac accepts
        assert_eq!(check("int k = pos + size();", "int k = pos + size() - 1;"), None);
        assert_eq!(check("items.add(s.trim());", "if (s != null) items.add(s.trim());"), None);
    }

    #[test]
    fn python_is_checked_for_syntax_only() {
        let text = "def f(x):\n    return x + 1\n";
        let bad = "def f(x):\n    return x +\n";
        assert_eq!(refused(text, bad, Language::Python, 14..24).unwrap(), "does not parse");
        let good = "def f(x):\n    return x.strip()\n";
        assert_eq!(refused(text, good, Language::Python, 14..30), None);
    }
}
