//! Java: whether javac would refuse a template's new expression for its type, where the
//! syntax tree and the project tell both the expression's static type and what its place
//! expects (issue 32: "check types before validating where the syntax tree can tell, since
//! each compile costs a validation").
//!
//! On the Defects4J development set (Cli and JxPath, the templates arm of 2026-12-06, 61 bugs)
//! 1,519 of 5,759 validations did not compile; of the single template edits, the four that
//! put an expression of another type in place of one, [`Template::DifferentMethod`] (338 of
//! its 521 validated candidates), [`Template::DropCall`] (91 of 136),
//! [`Template::UnwrapCall`] (58 of 93) and [`Template::RemoveCast`] (68 of 69), and
//! [`Template::SwapArguments`] (32 of 72), most with javac's "incompatible types: X cannot
//! be converted to Y", "bad operand types" or "int cannot be dereferenced".
//!
//! The rules are javac's: assignment conversion (JLS 5.2: identity, widening primitive,
//! widening reference, boxing then widening, unboxing then widening), the operand types of
//! `!`, `&&`, `||` and the conditions (JLS 14.9, 14.12, 15.15.6, 15.23, 15.24: `boolean` or
//! `Boolean`), of the numeric operators (JLS 15.17–15.20: a number or a boxed number), and
//! member access on a primitive (JLS 15.12.1). A place expects a type when it is a
//! declaration's initialiser, the right side of `=`, a `return`'s value (the method's return
//! type), an argument of a project method with one overload of that arity, or the receiver
//! of a call or field access; an argument list made one longer or shorter is checked against
//! the overload's declared parameters ([`Cx::refuses_parameters`], for
//! [`Template::ChangeArgumentCount`]: 50 of its 78 validated candidates did not compile). The static type is [`Cx::type_of`]'s (a name by its
//! declaration in scope, a project method's return type, a cast, a creation). Subtyping is
//! judged only where it is closed: `String` and the boxed numbers are final, with their
//! supertypes listed here; a project class whose supertypes are all project classes has
//! those alone. Anything else (a library type, a type variable, an `int` constant that may
//! narrow to a `byte`) is not judged: the candidate is kept.
//!
//! [`Template::DifferentMethod`]: super::Template::DifferentMethod
//! [`Template::DropCall`]: super::Template::DropCall
//! [`Template::UnwrapCall`]: super::Template::UnwrapCall
//! [`Template::RemoveCast`]: super::Template::RemoveCast
//! [`Template::SwapArguments`]: super::Template::SwapArguments
//! [`Template::ChangeArgumentCount`]: super::Template::ChangeArgumentCount

use tree_sitter::Node;

use super::project::{ProjectTypes, simple_type};
use super::refuse::STRING_METHODS;
use super::{Cx, arity, call_parts};
use crate::Language;

/// A static type: simple name and array depth (`("String", 1)` for `String[]`).
pub(super) type Type = (String, usize);

/// What a place expects of the expression there.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Expected {
    /// `boolean` or `Boolean`: a condition, an operand of `!`, `&&`, `||`.
    Boolean,
    /// A number or a boxed number: an operand of `-`, `*`, `/`, `%`, `<`, `>`, shifts, unary
    /// `-`, an array index.
    Numeric,
    /// A value assignable to this type.
    Type(Type),
    /// A receiver of method `name` with `arity` arguments.
    Receiver(String, usize),
    /// A receiver of a field access (never a primitive).
    Object,
}

/// Java's primitive types, in widening order within the numbers (JLS 5.1.2).
const PRIMITIVES: &[&str] = &["boolean", "byte", "short", "char", "int", "long", "float", "double"];

/// Each boxed type with its primitive (JLS 5.1.7).
const BOXES: &[(&str, &str)] = &[
    ("Boolean", "boolean"),
    ("Byte", "byte"),
    ("Short", "short"),
    ("Character", "char"),
    ("Integer", "int"),
    ("Long", "long"),
    ("Float", "float"),
    ("Double", "double"),
];

/// The supertypes (besides `Object`) of `String` and of the boxed types, all final classes.
const FINAL_SUPERS: &[&str] = &["Serializable", "Comparable", "Constable", "ConstantDesc", "CharSequence", "Number"];

/// Return types of `java.lang.String`'s methods (Java 8), for a call on a `String`.
const STRING_RETURNS: &[(&str, &str)] = &[
    ("charAt", "char"),
    ("codePointAt", "int"),
    ("compareTo", "int"),
    ("compareToIgnoreCase", "int"),
    ("concat", "String"),
    ("contains", "boolean"),
    ("contentEquals", "boolean"),
    ("endsWith", "boolean"),
    ("equals", "boolean"),
    ("equalsIgnoreCase", "boolean"),
    ("getBytes", "byte[]"),
    ("hashCode", "int"),
    ("indexOf", "int"),
    ("intern", "String"),
    ("isEmpty", "boolean"),
    ("lastIndexOf", "int"),
    ("length", "int"),
    ("matches", "boolean"),
    ("replace", "String"),
    ("replaceAll", "String"),
    ("replaceFirst", "String"),
    ("split", "String[]"),
    ("startsWith", "boolean"),
    ("subSequence", "CharSequence"),
    ("substring", "String"),
    ("toCharArray", "char[]"),
    ("toLowerCase", "String"),
    ("toString", "String"),
    ("toUpperCase", "String"),
    ("trim", "String"),
];

impl Cx<'_> {
    /// Whether javac refuses an expression of static type `ty` in place of `node` (an
    /// expression of the method), for its type alone (module docs); `false` where either is
    /// unknown, and always outside Java.
    pub(super) fn refuses_type(&self, node: Node<'_>, ty: Option<Type>) -> bool {
        if self.language != Language::Java {
            return false;
        }
        let Some(ty) = ty else { return false };
        // A `void` call's value used anywhere (JLS 15.12.3).
        if ty == ("void".to_string(), 0) {
            return node.parent().is_some_and(|p| p.kind() != "expression_statement");
        }
        let Some(expected) = self.expected(node) else { return false };
        fits(&ty, &expected, self.project) == Some(false)
    }

    /// The static type of expression `node` ([`Cx::type_of`]), for [`Cx::refuses_type`].
    pub(super) fn static_type(&self, node: Node<'_>) -> Option<Type> {
        if self.language != Language::Java {
            return None;
        }
        self.type_of(node, 0)
    }

    /// The return type of method `name` called as `call` is (same receiver, same arguments):
    /// a `String` method's ([`STRING_RETURNS`]), or a project class's where every overload
    /// with that arity returns one type ([`ProjectTypes::returns`]).
    pub(super) fn return_type(&self, call: Node<'_>, name: &str) -> Option<Type> {
        let (_, args) = call_parts(call)?;
        let (class, _) = self.receiver_class(call)?;
        let returns = if class == "String" {
            STRING_RETURNS.iter().find(|(m, _)| *m == name).map(|(_, r)| *r)?
        } else {
            self.project.returns(&class, name, arity(Some(args)))?
        };
        Some(written(returns))
    }

    /// Whether javac refuses `call`'s arguments for method `name` of the same receiver: the
    /// project declares one such method with that arity, and an argument of known static
    /// type cannot be assigned to its parameter.
    pub(super) fn refuses_arguments(&self, call: Node<'_>, name: &str) -> bool {
        let Some(params) = self.parameter_types(call, name) else { return false };
        let Some((_, args)) = call_parts(call) else { return false };
        let mut cursor = args.walk();
        let typed: Vec<Option<Type>> =
            args.named_children(&mut cursor).filter(|a| a.kind() != "comment").map(|a| self.static_type(a)).collect();
        let params: Vec<&str> = params.iter().map(String::as_str).collect();
        self.refuses_parameters(&typed, Some(&params))
    }

    /// Whether javac refuses arguments of static types `args` (`None`: unknown) for
    /// parameters declared `params` (as written): the counts match and a known argument
    /// cannot be assigned to its parameter. `false` without `params` and outside Java.
    pub(super) fn refuses_parameters(&self, args: &[Option<Type>], params: Option<&[&str]>) -> bool {
        let Some(params) = params.filter(|p| self.language == Language::Java && p.len() == args.len()) else {
            return false;
        };
        args.iter().zip(params).any(|(a, p)| {
            !p.contains("...") && a.as_ref().is_some_and(|a| assignable(a, &written(p), self.project) == Some(false))
        })
    }

    /// The parameter types of the one project method `name` with as many parameters as
    /// `call` has arguments, on `call`'s receiver class; `None` when there is not exactly one.
    fn parameter_types(&self, call: Node<'_>, name: &str) -> Option<Vec<String>> {
        if self.language != Language::Java {
            return None;
        }
        let (_, args) = call_parts(call)?;
        let (class, _) = self.receiver_class(call)?;
        let found: Vec<_> =
            self.project.methods(&class, arity(Some(args))).into_iter().filter(|m| m.name == name).collect();
        match found.as_slice() {
            [one] => Some(one.params.clone()),
            _ => None,
        }
    }

    /// What the place of expression `node` expects of it; `None` where it accepts any type or
    /// the file does not tell (a `+` operand, an argument of an unknown or overloaded method,
    /// `==`).
    fn expected(&self, node: Node<'_>) -> Option<Expected> {
        let parent = node.parent()?;
        let is = |field: &str| parent.child_by_field_name(field).is_some_and(|c| c.id() == node.id());
        match parent.kind() {
            "parenthesized_expression" => {
                let up = parent.parent()?;
                if matches!(up.kind(), "if_statement" | "while_statement" | "do_statement") {
                    Some(Expected::Boolean)
                } else {
                    self.expected(parent)
                }
            }
            "for_statement" | "ternary_expression" if is("condition") => Some(Expected::Boolean),
            "unary_expression" | "binary_expression" => operand(self.of(parent.child_by_field_name("operator")?)),
            "variable_declarator" if is("value") => {
                let decl = parent.parent()?;
                if !matches!(decl.kind(), "local_variable_declaration" | "field_declaration") {
                    return None;
                }
                let ty = self.of(decl.child_by_field_name("type")?);
                let extra = parent.child_by_field_name("dimensions").map_or(0, |d| self.of(d).matches('[').count());
                declared(ty, extra)
            }
            "assignment_expression"
                if is("right") && parent.child_by_field_name("operator").is_some_and(|o| self.of(o) == "=") =>
            {
                self.type_of(parent.child_by_field_name("left")?, 0).map(Expected::Type)
            }
            "return_statement" => self.returned(parent),
            "method_invocation" if is("object") => {
                let (name, args) = call_parts(parent)?;
                Some(Expected::Receiver(self.of(name).to_string(), arity(Some(args))))
            }
            "field_access" if is("object") => Some(Expected::Object),
            "array_access" if is("index") => Some(Expected::Numeric),
            "argument_list" => self.parameter(parent, node),
            _ => None,
        }
    }

    /// The declared return type of the method `statement` (a `return`) returns from; `None`
    /// in a lambda, a constructor or an anonymous class's initialiser.
    fn returned(&self, statement: Node<'_>) -> Option<Expected> {
        let mut at = statement.parent();
        while let Some(n) = at {
            match n.kind() {
                "method_declaration" => return declared(self.of(n.child_by_field_name("type")?), 0),
                "lambda_expression" | "class_body" | "constructor_declaration" => return None,
                _ => at = n.parent(),
            }
        }
        None
    }

    /// The parameter type the argument `arg` of argument list `args` is passed to, where the
    /// call is of a project method with one overload of that arity.
    fn parameter(&self, args: Node<'_>, arg: Node<'_>) -> Option<Expected> {
        let call = args.parent().filter(|c| c.kind() == "method_invocation")?;
        let (name, _) = call_parts(call)?;
        let params = self.parameter_types(call, self.of(name))?;
        let mut cursor = args.walk();
        let at = args.named_children(&mut cursor).filter(|a| a.kind() != "comment").position(|a| a.id() == arg.id())?;
        declared(params.get(at)?, 0)
    }
}

/// What a unary or binary `op`'s operand must be: `boolean` for `!`, `&&`, `||`; a number for
/// the arithmetic, shift and ordering operators (unary `-`, `+`, `~` too); `None` for `+`
/// (strings), `==`, `!=`, `&`, `|`, `^` (numbers or booleans), `++`/`--`.
fn operand(op: &str) -> Option<Expected> {
    match op {
        "!" | "&&" | "||" => Some(Expected::Boolean),
        "-" | "*" | "/" | "%" | "<" | ">" | "<=" | ">=" | "<<" | ">>" | ">>>" | "~" => Some(Expected::Numeric),
        _ => None,
    }
}

/// The expectation of a declared type as written (`List<String>`, `int[]`), with `extra`
/// array dimensions (a C-style `x[]` declarator); `None` for `var` and varargs.
fn declared(ty: &str, extra: usize) -> Option<Expected> {
    if ty == "var" || ty.contains("...") {
        return None;
    }
    let (base, dims) = written(ty);
    Some(Expected::Type((base, dims + extra)))
}

/// The [`Type`] of a type as written (`a.b.Foo<T>[]` → `("Foo", 1)`, [`simple_type`]).
pub(super) fn written(ty: &str) -> Type {
    let (base, dims) = simple_type(ty);
    (base.to_string(), dims)
}

/// Whether a value of type `ty` fits `expected` (module docs): `None` when it cannot be told.
fn fits(ty: &Type, expected: &Expected, project: &ProjectTypes) -> Option<bool> {
    let (base, dims) = (ty.0.as_str(), ty.1);
    if type_variable(base) {
        return None;
    }
    match expected {
        // Only `Boolean` unboxes to `boolean`, and only the boxed numbers to numbers.
        Expected::Boolean => Some(dims == 0 && matches!(base, "boolean" | "Boolean")),
        Expected::Numeric => {
            let number = |p: &str| p != "boolean" && is_primitive(p);
            Some(dims == 0 && (number(base) || unbox(base).is_some_and(number)))
        }
        Expected::Receiver(name, n) => {
            if dims > 0 {
                // An array has `length` (a field), `clone()` and `Object`'s methods.
                return None;
            }
            if is_primitive(base) {
                return Some(false);
            }
            let name = name.as_str();
            match base {
                "String" => Some(
                    STRING_METHODS.iter().any(|(m, a)| *m == name && a.contains(n))
                        || OTHER_STRING_METHODS.contains(&name)
                        || OBJECT_METHODS.contains(&name),
                ),
                "Object" => Some(OBJECT_METHODS.contains(&name)),
                _ => None,
            }
        }
        Expected::Object => (dims == 0 && is_primitive(base)).then_some(false),
        Expected::Type(to) => assignable(ty, to, project),
    }
}

/// `java.lang.Object`'s method names, which every reference type has.
const OBJECT_METHODS: &[&str] = &["equals", "hashCode", "toString", "getClass", "notify", "notifyAll", "wait"];

/// `java.lang.String`'s other methods (Java 8 to 21, static ones too), which
/// [`STRING_METHODS`] leaves out: a call of one on a `String` is not judged by arity.
const OTHER_STRING_METHODS: &[&str] = &[
    "chars",
    "codePointBefore",
    "codePointCount",
    "codePoints",
    "copyValueOf",
    "describeConstable",
    "format",
    "formatted",
    "getChars",
    "indent",
    "isBlank",
    "join",
    "lines",
    "offsetByCodePoints",
    "regionMatches",
    "repeat",
    "resolveConstantDesc",
    "strip",
    "stripIndent",
    "stripLeading",
    "stripTrailing",
    "transform",
    "translateEscapes",
    "valueOf",
];

/// Whether a value of static type `from` can be assigned where `to` is declared (JLS 5.2);
/// `None` when the rules here cannot tell (module docs).
pub(super) fn assignable(from: &Type, to: &Type, project: &ProjectTypes) -> Option<bool> {
    let ((f, fd), (t, td)) = ((from.0.as_str(), from.1), (to.0.as_str(), to.1));
    if type_variable(f) || type_variable(t) {
        return None;
    }
    if (f, fd) == (t, td) || (t == "Object" && td == 0) {
        return Some(true);
    }
    if fd != td {
        // An array is an `Object`, `Cloneable` and `Serializable`, and `T[][]` an `Object[]`.
        let wider = matches!(t, "Object" | "Cloneable" | "Serializable") && td < fd;
        return Some(wider);
    }
    if fd > 0 {
        return if is_primitive(f) || is_primitive(t) {
            Some(false)
        } else {
            assignable(&(f.into(), 0), &(t.into(), 0), project)
        };
    }
    match (is_primitive(f), is_primitive(t)) {
        (true, true) => {
            // An `int` constant narrows to `byte`, `short` or `char` (JLS 5.2).
            if f == "int" && matches!(t, "byte" | "short" | "char") {
                return None;
            }
            Some(widens(f, t))
        }
        (true, false) => {
            if BOXES.iter().any(|(b, p)| *b == t && *p == f) {
                return Some(true);
            }
            // An `int` constant narrows, then boxes, to `Byte`, `Short` or `Character`.
            if f == "int" && matches!(t, "Byte" | "Short" | "Character") {
                return None;
            }
            // Boxing, then widening to the box's supertypes (JLS 5.1.7, 5.1.5).
            Some(t == "Number" && !matches!(f, "boolean" | "char") || FINAL_SUPERS[..4].contains(&t))
        }
        // Only the boxed types unbox (JLS 5.1.8).
        (false, true) => Some(unbox(f).is_some_and(|p| widens(p, t))),
        (false, false) => reference_assignable(f, t, project),
    }
}

/// [`assignable`] between two reference types of the same array depth.
fn reference_assignable(f: &str, t: &str, project: &ProjectTypes) -> Option<bool> {
    if f == "String" {
        return Some(FINAL_SUPERS.contains(&t) && t != "Number");
    }
    if let Some(p) = unbox(f) {
        let number = !matches!(p, "boolean" | "char");
        return Some(FINAL_SUPERS[..4].contains(&t) || (t == "Number" && number));
    }
    if t == "String" || unbox(t).is_some() || f == "Object" {
        // Final classes: only themselves (and the null type) are assignable to them; nor is
        // `Object` to anything but itself.
        return Some(false);
    }
    if !project.has_class(f) {
        // A library type is never a subtype of a project class.
        return project.has_class(t).then_some(false);
    }
    let (supers, closed) = project.supertypes(f)?;
    if supers.iter().any(|s| s == t) {
        return Some(true);
    }
    closed.then_some(false)
}

/// Widening primitive conversion or identity (JLS 5.1.1, 5.1.2).
fn widens(f: &str, t: &str) -> bool {
    if f == t {
        return true;
    }
    let to: &[&str] = match f {
        "byte" => &["short", "int", "long", "float", "double"],
        "short" | "char" => &["int", "long", "float", "double"],
        "int" => &["long", "float", "double"],
        "long" => &["float", "double"],
        "float" => &["double"],
        _ => &[],
    };
    to.contains(&t)
}

fn is_primitive(t: &str) -> bool {
    PRIMITIVES.contains(&t)
}

/// The primitive of boxed type `t`.
fn unbox(t: &str) -> Option<&'static str> {
    BOXES.iter().find(|(b, _)| *b == t).map(|(_, p)| *p)
}

/// Whether `t` reads as a type variable (`T`, `E`, `K2`): one capital letter, maybe with a
/// digit or a second capital. Its bound is not known, so nothing is judged.
fn type_variable(t: &str) -> bool {
    let b = t.as_bytes();
    !b.is_empty()
        && b.len() <= 2
        && b[0].is_ascii_uppercase()
        && b[1..].iter().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::super::{Template, edits_in};
    use super::*;

    /// A project class `Option` with its accessors, and a method of `Use` that calls them.
    const OPTIONS: &str = "class Option {
    boolean hasArg() { return true; }
    boolean hasArgs() { return false; }
    String getArgName() { return null; }
    int getArgs() { return 0; }
    void clearArgs() {}
    void setArgs(int n) {}
    void setArgName(String s) {}
    void setValueSeparator(char c) {}
    void setOptionalArg(boolean b) {}
}
class Use {
    String describe(Option option, char sep) {
        option.clearArgs();
        if (option.hasArg()) {
            option.setValueSeparator(sep);
        }
        return option.getArgName();
    }
}
";

    /// The `template` edits of `text` (whole file) with `project`: (original, replacement).
    fn made(text: &str, template: Template, project: &ProjectTypes) -> Vec<(String, String)> {
        let n = text.lines().count();
        edits_in(text, Language::Java, (1, n), project)
            .into_iter()
            .filter(|e| e.template == template)
            .map(|e| (e.original, e.replacement))
            .collect()
    }

    /// The replacements a method name gets.
    fn instead_of(made: &[(String, String)], name: &str) -> Vec<String> {
        made.iter().filter(|(o, _)| o == name).map(|(_, r)| r.clone()).collect()
    }

    #[test]
    fn a_different_method_must_return_what_the_place_takes_and_take_the_arguments() {
        let project = ProjectTypes::of_sources(&[OPTIONS]);
        let got = made(OPTIONS, Template::DifferentMethod, &project);
        // In a condition: the other `boolean` method; not `getArgName` (a `String`), `getArgs`
        // (an `int`) or `clearArgs` (`void`, called elsewhere in the file on an `Option`).
        assert_eq!(instead_of(&got, "hasArg"), ["hasArgs"], "{got:?}");
        // A `char` argument widens to `setArgs(int)`; not to a `String` or a `boolean`.
        assert_eq!(instead_of(&got, "setValueSeparator"), ["setArgs"], "{got:?}");
        // Returned from a `String` method: no other `Option` method returns a `String`.
        assert_eq!(instead_of(&got, "getArgName"), Vec::<String>::new(), "{got:?}");
        // Without the project the types are not known: the file's own calls stay candidates.
        let alone = made(OPTIONS, Template::DifferentMethod, &ProjectTypes::default());
        let mut names = instead_of(&alone, "hasArg");
        names.sort();
        assert_eq!(names, ["clearArgs", "getArgName"], "{alone:?}");
    }

    /// A project method taking a `String` and an `int`, and one taking two `String`s.
    const CALLS: &str = "class C {
    void put(String key, int value) {}
    void pair(String a, String b) {}
    int size(java.util.List values, Object right, String name, String other, int n) {
        if (values.isEmpty()) {
            return 0;
        }
        String trimmed = name.trim();
        int length = name.length();
        java.util.Iterator it = (java.util.Iterator) right;
        String same = (String) name;
        ((StringBuilder) right).append(1);
        Object o = String.valueOf(right);
        double d = Math.abs(right);
        put(name, n);
        pair(name, other);
        return length;
    }
}
";

    #[test]
    fn a_dropped_call_unwrapped_call_removed_cast_or_swap_keeps_a_type_the_place_takes() {
        let project = ProjectTypes::of_sources(&[CALLS]);
        let dropped = made(CALLS, Template::DropCall, &project);
        // A `List` is no condition and a `String` no `int`; `name.trim()` → `name` stays.
        assert_eq!(dropped, [("name.trim()".to_string(), "name".to_string())], "{dropped:?}");
        let casts = made(CALLS, Template::RemoveCast, &project);
        // `Object` is no `Iterator` and has no `append`; the `String` cast of a `String` stays.
        assert_eq!(casts, [("(String) name".to_string(), "name".to_string())], "{casts:?}");
        let unwrapped = made(CALLS, Template::UnwrapCall, &project);
        // `Object o = right` compiles; `double d = right` does not.
        assert!(unwrapped.contains(&("String.valueOf(right)".to_string(), "right".to_string())), "{unwrapped:?}");
        assert!(!unwrapped.iter().any(|(o, _)| o == "Math.abs(right)"), "{unwrapped:?}");
        let swaps = made(CALLS, Template::SwapArguments, &project);
        // `put(n, name)` passes an `int` for a `String`; `pair(other, name)` is fine.
        assert!(swaps.contains(&("name, other".to_string(), "other, name".to_string())), "{swaps:?}");
        assert!(!swaps.iter().any(|(o, _)| o == "name, n"), "{swaps:?}");
    }

    fn t(name: &str, dims: usize) -> Type {
        (name.to_string(), dims)
    }

    #[test]
    fn assignment_conversion_follows_the_jls_where_it_can_tell() {
        let none = ProjectTypes::default();
        let a = |f: Type, to: Type| assignable(&f, &to, &none);
        // Primitives: widening only; an `int` constant may narrow, so that is not judged.
        assert_eq!(a(t("int", 0), t("long", 0)), Some(true));
        assert_eq!(a(t("char", 0), t("int", 0)), Some(true));
        assert_eq!(a(t("long", 0), t("int", 0)), Some(false));
        assert_eq!(a(t("boolean", 0), t("int", 0)), Some(false));
        assert_eq!(a(t("int", 0), t("byte", 0)), None);
        // Boxing and unboxing.
        assert_eq!(a(t("int", 0), t("Integer", 0)), Some(true));
        assert_eq!(a(t("int", 0), t("Number", 0)), Some(true));
        assert_eq!(a(t("int", 0), t("Long", 0)), Some(false));
        assert_eq!(a(t("int", 0), t("Short", 0)), None);
        assert_eq!(a(t("int", 0), t("String", 0)), Some(false));
        assert_eq!(a(t("Integer", 0), t("long", 0)), Some(true));
        assert_eq!(a(t("Object", 0), t("int", 0)), Some(false));
        // Final classes and `Object`.
        assert_eq!(a(t("String", 0), t("CharSequence", 0)), Some(true));
        assert_eq!(a(t("String", 0), t("List", 0)), Some(false));
        assert_eq!(a(t("Object", 0), t("String", 0)), Some(false));
        assert_eq!(a(t("List", 0), t("Collection", 0)), None);
        // Type variables are not judged.
        assert_eq!(a(t("T", 0), t("String", 0)), None);
        assert_eq!(a(t("String", 0), t("E", 0)), None);
        // Arrays.
        assert_eq!(a(t("String", 1), t("Object", 0)), Some(true));
        assert_eq!(a(t("String", 1), t("Object", 1)), Some(true));
        assert_eq!(a(t("int", 1), t("Object", 1)), Some(false));
        assert_eq!(a(t("String", 1), t("String", 0)), Some(false));
    }

    #[test]
    fn project_classes_are_judged_where_their_supertypes_are_all_known() {
        let project = ProjectTypes::of_sources(&[
            "interface Shape {} class Base implements Shape {} class Square extends Base {} class Failure extends Exception {} enum Kind { X }",
        ]);
        let a = |f: &str, to: &str| assignable(&t(f, 0), &t(to, 0), &project);
        assert_eq!(a("Square", "Shape"), Some(true));
        assert_eq!(a("Square", "Base"), Some(true));
        assert_eq!(a("Shape", "Square"), Some(false), "a downcast");
        assert_eq!(a("Base", "Square"), Some(false));
        // `Exception` and an enum's `Enum` are library classes: their supertypes are open.
        assert_eq!(a("Failure", "Throwable"), None);
        assert_eq!(a("Kind", "Comparable"), None);
        // A library type is never a project class.
        assert_eq!(a("List", "Square"), Some(false));
        assert_eq!(project.supertypes("Square"), Some((vec!["Base".to_string(), "Shape".to_string()], true)));
        assert_eq!(project.supertypes("List"), None);
    }
}
