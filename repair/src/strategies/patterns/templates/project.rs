//! The project's own Java declarations, for the templates: each class's (interface's, enum's,
//! record's) supertypes, fields and methods, read from every `.java` file of the project
//! root. They are the internal repair ingredients (ReinFix §3.1: the project's definitions)
//! that a one-file template cannot see: a call on a receiver declared with a class of another
//! file can become another method of that class ([`Template::DifferentMethod`]), as TBar's
//! FP7 "Mutate Method Invocation" draws on the receiver type's methods (Liu et al., ISSTA
//! 2019; TBar resolves types with the project's sources too), or be given one argument more
//! or fewer where that class declares the overload ([`Template::ChangeArgumentCount`], TBar
//! FP10, [`Cx::class_overloads`]).
//!
//! Why (issue 32): of the 895 single-token method-name fixes (`x.m(…)` → `x.n(…)`, same
//! arguments) in the Java pairs of manysstubs4j, mined_git_history, gitbug_java and
//! condefects, 744 (83 %) call a name the buggy snippet never mentions: a template that draws
//! only on the names the file uses misses most of them (`scripts/method-names.py`).
//!
//! Measured: on the corpus splits of `order.rs` (no project there, so only `String`'s
//! methods apply) 4 more pairs are fixed within 200 candidates (`indexOf` → `lastIndexOf`
//! twice, `equals` → `equalsIgnoreCase`, `equals` → `contentEquals`) and none is lost, with
//! the v6 prior as it is. On Defects4J Cli and JxPath (`fixdex eval defects4j --strategy
//! patterns --localization perfect --max-validations 200 --no-retrieval`, the 36 of 61 bugs
//! whose candidates it changes rerun): 13 of 61 plausible (was 12; JxPath-10 gained, the
//! developer's `computeValue` → `compute` at one of its two call sites), none lost, 5
//! correct as before; 126 more validations over the 36 bugs.
//!
//! Types are simple names (`Foo` for `a.b.Foo<T>[]`, with the array depth apart): classes of
//! the same simple name in two packages are merged, which over-approximates. Sizes: at most
//! [`MAX_FILE_BYTES`] per file and the tools' file cap (`MAX_PROJECT_FILES`); build output
//! and hidden folders are skipped as the tools skip them.
//!
//! [`Template::DifferentMethod`]: super::Template::DifferentMethod
//! [`Template::ChangeArgumentCount`]: super::Template::ChangeArgumentCount

use std::collections::HashMap;
use std::path::Path;

use tree_sitter::{Node, Parser};

use super::refuse::STRING_METHODS;
use super::{Cx, arity, call_parts};
use crate::Language;

/// Files larger than this (bytes) are not read (generated code).
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// How many supertypes up a member is looked for (cycles are cut too).
const MAX_DEPTH: usize = 8;

/// Other methods of the receiver's class tried per call ([`Cx::class_methods`]), at most.
pub const MAX_CLASS_METHOD_EDITS: usize = 8;

/// How deep [`Cx::type_of`] follows an expression (`a.b[0].c()`).
const MAX_EXPRESSION_DEPTH: usize = 6;

/// A method declared in a project class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodDecl {
    /// Its name.
    pub name: String,
    /// Its parameters' declared types, as written (`List<String>`, `int...`).
    pub params: Vec<String>,
    /// Its return type, as written (`void` for none).
    pub returns: String,
    /// Declared `static`.
    pub is_static: bool,
}

/// One class, interface, enum or record of the project.
#[derive(Debug, Clone, Default)]
struct ClassDecl {
    /// Simple names of its superclass and interfaces.
    supers: Vec<String>,
    /// Field name → declared type (with a C-style declarator's `[]` appended).
    fields: Vec<(String, String)>,
    /// Its methods, in source order (constructors not included).
    methods: Vec<MethodDecl>,
}

/// The Java classes of a project by simple name (module docs). Empty for a project with no
/// Java file, or when nothing was read ([`ProjectTypes::default`]).
#[derive(Debug, Clone, Default)]
pub struct ProjectTypes {
    classes: HashMap<String, Vec<ClassDecl>>,
}

impl ProjectTypes {
    /// Reads every `.java` file under `root` (as the tools list them: sorted, build output
    /// and hidden folders skipped, at most `MAX_PROJECT_FILES`), each at most
    /// [`MAX_FILE_BYTES`]. Unreadable or unparsable files are skipped: the result only
    /// widens what the templates try, so a missing class costs candidates, never an error.
    #[must_use]
    pub fn scan(root: &Path) -> ProjectTypes {
        ProjectTypes::read(&crate::tools::source::Project::new(root))
    }

    /// [`ProjectTypes::scan`] without the entries `skip` names (root-relative path, is a
    /// folder): the run's scratch filter, so what a run leaves out of its copies and of the
    /// tools' view (QuixBugs' `correct_java_programs`, which holds the fixes) is never read.
    #[must_use]
    pub fn scan_skipping(root: &Path, skip: crate::validate::scratch::ScratchFilter) -> ProjectTypes {
        ProjectTypes::read(&crate::tools::source::Project::new(root).with_skip(skip))
    }

    fn read(project: &crate::tools::source::Project) -> ProjectTypes {
        let mut out = ProjectTypes::default();
        let mut parser = Parser::new();
        if parser.set_language(&Language::Java.grammar()).is_err() {
            return out;
        }
        for rel in project.source_files().iter().filter(|f| f.ends_with(".java")) {
            let path = project.root().join(rel);
            if std::fs::metadata(&path).map_or(true, |m| m.len() > MAX_FILE_BYTES) {
                continue;
            }
            if let Ok(text) = std::fs::read_to_string(&path) {
                out.add(&mut parser, &text);
            }
        }
        out
    }

    /// The declarations of Java source `texts` (as [`ProjectTypes::scan`] reads files).
    #[must_use]
    pub fn of_sources(texts: &[&str]) -> ProjectTypes {
        let mut out = ProjectTypes::default();
        let mut parser = Parser::new();
        if parser.set_language(&Language::Java.grammar()).is_ok() {
            for text in texts {
                out.add(&mut parser, text);
            }
        }
        out
    }

    /// Number of classes read (for the report).
    #[must_use]
    pub fn len(&self) -> usize {
        self.classes.values().map(Vec::len).sum()
    }

    /// Whether no class was read.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// Whether the project declares a class (interface, enum, record) named `name`.
    #[must_use]
    pub fn has_class(&self, name: &str) -> bool {
        self.classes.contains_key(name)
    }

    fn add(&mut self, parser: &mut Parser, text: &str) {
        let Some(tree) = parser.parse(text, None) else { return };
        let mut stack = vec![tree.root_node()];
        while let Some(n) = stack.pop() {
            if let Some((name, class)) = class_decl(text, n) {
                self.classes.entry(name).or_default().push(class);
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
    }

    /// `class` and its project supertypes, nearest first, each once ([`MAX_DEPTH`] levels).
    fn chain<'a>(&'a self, class: &str) -> Vec<&'a ClassDecl> {
        let mut out: Vec<&ClassDecl> = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        let mut level: Vec<&str> = vec![class];
        for _ in 0..MAX_DEPTH {
            let mut next = Vec::new();
            for name in level {
                if seen.contains(&name) {
                    continue;
                }
                seen.push(name);
                for decl in self.classes.get(name).into_iter().flatten() {
                    out.push(decl);
                    next.extend(decl.supers.iter().map(String::as_str));
                }
            }
            if next.is_empty() {
                break;
            }
            level = next;
        }
        out
    }

    /// The methods of `class` and its project supertypes with `arity` parameters (a
    /// varargs method is not counted: its arity is open), nearest class first, in source
    /// order; a name declared again lower in the chain (an override) comes once.
    #[must_use]
    pub fn methods(&self, class: &str, arity: usize) -> Vec<&MethodDecl> {
        let mut out: Vec<&MethodDecl> = Vec::new();
        for decl in self.chain(class) {
            for m in &decl.methods {
                let varargs = m.params.last().is_some_and(|p| p.contains("..."));
                if m.params.len() == arity && !varargs && !out.iter().any(|o| o.name == m.name && o.params == m.params)
                {
                    out.push(m);
                }
            }
        }
        out
    }

    /// The declared type of field `name` of `class` or a project supertype.
    #[must_use]
    pub fn field(&self, class: &str, name: &str) -> Option<&str> {
        self.chain(class).into_iter().flat_map(|d| &d.fields).find(|(f, _)| f == name).map(|(_, t)| t.as_str())
    }

    /// The return type of method `name` with `arity` parameters of `class` (or a project
    /// supertype), when every such declaration returns the same simple type.
    #[must_use]
    pub fn returns(&self, class: &str, name: &str, arity: usize) -> Option<&str> {
        let found: Vec<&str> =
            self.methods(class, arity).into_iter().filter(|m| m.name == name).map(|m| m.returns.as_str()).collect();
        let first = *found.first()?;
        found.iter().all(|r| simple_type(r) == simple_type(first)).then_some(first)
    }

    /// Every supertype of project class `class` that its declaration and its project
    /// supertypes' declarations name (simple names, nearest first, each once, 8 levels), and
    /// whether they are all of them besides `Object`: every one a project class, none an enum
    /// or record (whose `Enum` or `Record` is a library class); `None` when the
    /// project does not declare `class`.
    #[must_use]
    pub fn supertypes(&self, class: &str) -> Option<(Vec<String>, bool)> {
        if !self.has_class(class) {
            return None;
        }
        let (mut seen, mut closed) = (Vec::<String>::new(), true);
        let mut level = vec![class.to_string()];
        for _ in 0..MAX_DEPTH {
            let mut next = Vec::new();
            for name in &level {
                for s in self.classes.get(name).into_iter().flatten().flat_map(|d| &d.supers) {
                    if *s == class || seen.contains(s) {
                        continue;
                    }
                    seen.push(s.clone());
                    if self.has_class(s) {
                        next.push(s.clone());
                    } else {
                        closed = false;
                    }
                }
            }
            if next.is_empty() {
                return Some((seen, closed));
            }
            level = next;
        }
        Some((seen, false))
    }

    /// The simple name of `class`'s superclass (or first supertype) in the project.
    #[must_use]
    pub fn superclass(&self, class: &str) -> Option<&str> {
        self.classes.get(class)?.iter().find_map(|d| d.supers.first()).map(String::as_str)
    }
}

impl<'t> Cx<'t> {
    /// Java: the other methods with `arity` parameters of the class a call is made on, as
    /// the project declares it and its project supertypes ([`ProjectTypes::methods`]), or of
    /// `java.lang.String` ([`STRING_METHODS`]): the receiver's type by [`Cx::type_of`]; a
    /// class name receiver (`Util.max(…)`) gives its static methods only; an unqualified or
    /// `this.` call, the enclosing class's (the file's own are [`Cx::calls`] already, this
    /// adds the inherited ones). Only when the class has the called method itself with that
    /// arity (else the receiver's type was misread, or the method is inherited from outside
    /// the project), and only names [`close`] to the called one; never a `void` method where the
    /// call's value is used (javac refuses it: a validation spent on a compile error). Order:
    /// the methods with the called one's parameter types first, then its return type, then by
    /// the camel-case words their names share with it (`getService` → `getSharedService`)
    /// and the length of their common prefix (`equals` → `equalsIgnoreCase` before
    /// `contentEquals`), then nearest class and source order; at most [`MAX_CLASS_METHOD_EDITS`].
    pub(super) fn class_methods(&self, call: Node<'_>, current: &str, n: usize) -> Vec<&'t str> {
        if self.language != Language::Java {
            return Vec::new();
        }
        let Some((class, statics_only)) = self.receiver_class(call) else { return Vec::new() };
        if class == "String" {
            let mut found: Vec<&'t str> = STRING_METHODS
                .iter()
                .filter(|(m, a)| *m != current && a.contains(&n) && close(current, m))
                .map(|(m, _)| *m)
                .collect();
            if !STRING_METHODS.iter().any(|(m, a)| *m == current && a.contains(&n)) {
                return Vec::new();
            }
            found.sort_by_key(|m| std::cmp::Reverse(closeness(current, m)));
            found.truncate(MAX_CLASS_METHOD_EDITS);
            return found;
        }
        let project: &'t ProjectTypes = self.project;
        let declared = project.methods(&class, n);
        let Some(called) = declared.iter().find(|m| m.name == current) else { return Vec::new() };
        // A `void` method where the call's value is used does not compile (JLS 15.12.3).
        let value_used = call.parent().is_some_and(|p| p.kind() != "expression_statement");
        let mut found: Vec<&'t MethodDecl> = declared
            .iter()
            .copied()
            .filter(|m| {
                m.name != current
                    && (!statics_only || m.is_static)
                    && !(value_used && m.returns == "void")
                    && close(current, &m.name)
            })
            .collect();
        found.sort_by_key(|m| {
            (m.params != called.params, m.returns != called.returns, std::cmp::Reverse(closeness(current, &m.name)))
        });
        let mut out: Vec<&'t str> = Vec::new();
        for m in found {
            if !out.contains(&m.name.as_str()) && out.len() < MAX_CLASS_METHOD_EDITS {
                out.push(&m.name);
            }
        }
        out
    }

    /// Java: the parameter types (as written) of method `name`'s overloads with one
    /// parameter fewer and one more, `[fewer, more]`, than the `called` arguments of `call`,
    /// in the class the call is made on, as [`Cx::class_methods`] finds that class: its own
    /// or a project supertype's overloads, static only for a class name receiver. Both
    /// `None` when the class is unknown or does not declare the called method with `called`
    /// parameters itself (the type was misread). One receiver lookup for both.
    pub(super) fn class_overloads(&self, call: Node<'_>, name: &str, called: usize) -> [Option<Vec<&'t str>>; 2] {
        if self.language != Language::Java {
            return [None, None];
        }
        let Some((class, statics_only)) = self.receiver_class(call) else { return [None, None] };
        let project: &'t ProjectTypes = self.project;
        if !project.methods(&class, called).iter().any(|m| m.name == name) {
            return [None, None];
        }
        let overload = |arity: usize| {
            let found =
                project.methods(&class, arity).into_iter().find(|m| m.name == name && (!statics_only || m.is_static));
            found.map(|m| m.params.iter().map(String::as_str).collect())
        };
        [called.checked_sub(1).and_then(overload), overload(called + 1)]
    }

    /// Java: the simple class name a call is made on, and whether only its static methods
    /// apply (a class name receiver); `None` when the type is unknown or an array.
    pub(super) fn receiver_class(&self, call: Node<'_>) -> Option<(String, bool)> {
        let Some(object) = call.child_by_field_name("object") else { return Some((self.class_of(call)?, false)) };
        if let Some((class, 0)) = self.type_of(object, 0) {
            return Some((class, false));
        }
        let name = self.of(object);
        (object.kind() == "identifier" && self.project.has_class(name)).then(|| (name.to_string(), true))
    }

    /// Java: `(simple class name, array depth)` of expression `e` where the file and the
    /// project tell: a name by its declaration in scope ([`Cx::visible_types`]) or as a
    /// field of the enclosing class or its project supertypes; `this` and `super`; a field
    /// access, array element, method call (its declared return type), cast, creation or
    /// parenthesised expression of those. `None` otherwise (a generic method, a lambda, a
    /// library class's members).
    pub(super) fn type_of(&self, e: Node<'_>, depth: usize) -> Option<(String, usize)> {
        let owned = |t: &str| {
            let (base, dims) = simple_type(t);
            (base.to_string(), dims)
        };
        if depth > MAX_EXPRESSION_DEPTH {
            return None;
        }
        match e.kind() {
            "this" => Some((self.class_of(e)?, 0)),
            "super" => Some((self.project.superclass(&self.class_of(e)?)?.to_string(), 0)),
            "identifier" => {
                let name = self.of(e);
                if let Some(t) = self.visible_types(e).get(name) {
                    return Some(owned(t));
                }
                self.project.field(&self.class_of(e)?, name).map(owned)
            }
            "field_access" => {
                let (class, 0) = self.type_of(e.child_by_field_name("object")?, depth + 1)? else { return None };
                self.project.field(&class, self.of(e.child_by_field_name("field")?)).map(owned)
            }
            "array_access" => {
                let (class, dims) = self.type_of(e.child_by_field_name("array")?, depth + 1)?;
                (dims > 0).then(|| (class, dims - 1))
            }
            "method_invocation" => {
                let (name, args) = call_parts(e)?;
                let class = match e.child_by_field_name("object") {
                    None => self.class_of(e)?,
                    Some(o) => match self.type_of(o, depth + 1)? {
                        (class, 0) => class,
                        _ => return None,
                    },
                };
                self.project.returns(&class, self.of(name), arity(Some(args))).map(owned)
            }
            "parenthesized_expression" => self.type_of(e.named_child(0)?, depth + 1),
            "cast_expression" | "object_creation_expression" => Some(owned(self.of(e.child_by_field_name("type")?))),
            _ => None,
        }
    }

    /// Java: the simple name of the class declaring `node` (`None` inside an anonymous
    /// class, whose name the file does not give).
    fn class_of(&self, node: Node<'_>) -> Option<String> {
        let mut at = node.parent();
        while let Some(n) = at {
            match n.kind() {
                "class_declaration" | "interface_declaration" | "enum_declaration" | "record_declaration" => {
                    return Some(self.of(n.child_by_field_name("name")?).to_string());
                }
                "class_body" if n.parent().is_some_and(|p| p.kind() == "object_creation_expression") => return None,
                _ => at = n.parent(),
            }
        }
        None
    }
}

/// Whether method name `b` is a likely replacement for `a`: they share a camel-case word or
/// their first three characters. Of the 744 new-name fixes of the module docs, 585 (79 %)
/// are (574 share a word: `getService` → `getSharedService`, `indexOf` → `lastIndexOf`; 11
/// only a prefix: `println` → `print`); a class's other methods mostly are not, so the rule
/// keeps most fixes and drops most candidates (JxPath's `getSingleNodePointer` → `reset`).
fn close(a: &str, b: &str) -> bool {
    let (words, prefix) = closeness(a, b);
    words > 0 || prefix >= 3
}

/// How close method names `a` and `b` are: the camel-case words they share
/// ([`shared_words`]), then the length of their common prefix in characters.
fn closeness(a: &str, b: &str) -> (usize, usize) {
    (shared_words(a, b), a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count())
}

/// How many camel-case words (lowercased) names `a` and `b` share: `getConnectionFactory`
/// and `getOrCreateConnectionFactory` share 3.
fn shared_words(a: &str, b: &str) -> usize {
    let words = |s: &str| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (i, c) in s.char_indices() {
            if c == '_' {
                continue;
            }
            let starts = i == 0 || c.is_ascii_uppercase() || s[..i].ends_with('_');
            match out.last_mut() {
                Some(w) if !starts => w.push(c.to_ascii_lowercase()),
                _ => out.push(c.to_ascii_lowercase().to_string()),
            }
        }
        out
    };
    let b = words(b);
    words(a).iter().filter(|w| b.contains(w)).count()
}

/// `(simple name, array depth)` of a Java type as written: `a.b.Foo<T>[]` → `("Foo", 1)`,
/// `@Nullable Foo` → `("Foo", 0)`, `int...` → `("int", 1)`.
#[must_use]
pub fn simple_type(ty: &str) -> (&str, usize) {
    let ty = ty.trim();
    // Generic arguments may hold dots and brackets of their own: cut them out first.
    let (base, rest) = match ty.find('<') {
        Some(i) => (&ty[..i], ty.rfind('>').map_or("", |j| &ty[j + 1..])),
        None => {
            let i = ty.find('[').or_else(|| ty.find("...")).unwrap_or(ty.len());
            (&ty[..i], &ty[i..])
        }
    };
    let dims = rest.matches("[]").count() + usize::from(rest.contains("..."));
    let base = base.split_whitespace().last().unwrap_or(base);
    (base.rsplit('.').next().unwrap_or(base), dims)
}

/// A class-like declaration's simple name and members, if `n` is one.
fn class_decl(text: &str, n: Node<'_>) -> Option<(String, ClassDecl)> {
    if !matches!(n.kind(), "class_declaration" | "interface_declaration" | "enum_declaration" | "record_declaration") {
        return None;
    }
    let of = |x: Node<'_>| &text[x.byte_range()];
    let name = of(n.child_by_field_name("name")?).to_string();
    let mut class = ClassDecl::default();
    let mut c = n.walk();
    for kid in n.children(&mut c) {
        if matches!(kid.kind(), "superclass" | "super_interfaces" | "extends_interfaces") {
            class.supers.extend(type_names(text, kid));
        }
    }
    // An enum or record's implicit superclass, a library class: its supertypes are open.
    match n.kind() {
        "enum_declaration" => class.supers.push("Enum".into()),
        "record_declaration" => class.supers.push("Record".into()),
        _ => {}
    }
    let Some(body) = n.child_by_field_name("body") else { return Some((name, class)) };
    let mut c = body.walk();
    let mut members: Vec<Node<'_>> = body.named_children(&mut c).collect();
    // An enum's members follow its constants, in `enum_body_declarations`.
    if let Some(decls) = members.iter().copied().find(|m| m.kind() == "enum_body_declarations") {
        let mut c = decls.walk();
        members.extend(decls.named_children(&mut c));
    }
    for m in members {
        match m.kind() {
            "field_declaration" | "constant_declaration" => {
                let ty = m.child_by_field_name("type").map_or("", of);
                let mut c = m.walk();
                for d in m.children_by_field_name("declarator", &mut c) {
                    let Some(field) = d.child_by_field_name("name") else { continue };
                    let dims = d.child_by_field_name("dimensions").map_or("", of);
                    class.fields.push((of(field).to_string(), format!("{ty}{dims}")));
                }
            }
            "method_declaration" => {
                let Some(method) = m.child_by_field_name("name") else { continue };
                let mut c = m.walk();
                let is_static = m
                    .children(&mut c)
                    .find(|k| k.kind() == "modifiers")
                    .is_some_and(|k| of(k).split_whitespace().any(|w| w == "static"));
                class.methods.push(MethodDecl {
                    name: of(method).to_string(),
                    params: parameter_types(text, m),
                    returns: m.child_by_field_name("type").map_or("void", of).to_string(),
                    is_static,
                });
            }
            _ => {}
        }
    }
    Some((name, class))
}

/// The simple names of the types listed under a `superclass` / `super_interfaces` /
/// `extends_interfaces` node.
fn type_names(text: &str, node: Node<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "type_identifier" | "scoped_type_identifier" | "generic_type" => {
                out.push(simple_type(&text[n.byte_range()]).0.to_string());
            }
            _ => {
                let mut c = n.walk();
                let kids: Vec<Node<'_>> = n.named_children(&mut c).collect();
                stack.extend(kids.into_iter().rev());
            }
        }
    }
    out
}

/// A method declaration's parameter types, as written (`int...` for varargs, a C-style
/// `int a[]` as `int[]`).
fn parameter_types(text: &str, m: Node<'_>) -> Vec<String> {
    let Some(params) = m.child_by_field_name("parameters") else { return Vec::new() };
    let mut c = params.walk();
    params
        .named_children(&mut c)
        .filter_map(|p| match p.kind() {
            "formal_parameter" => {
                let ty = p.child_by_field_name("type").map_or("", |t| &text[t.byte_range()]);
                let dims = p.child_by_field_name("dimensions").map_or("", |d| &text[d.byte_range()]);
                Some(format!("{ty}{dims}"))
            }
            "spread_parameter" => {
                let mut c = p.walk();
                let ty =
                    p.named_children(&mut c).find(|k| k.kind() != "modifiers" && k.kind() != "variable_declarator");
                Some(format!("{}...", ty.map_or("", |t| &text[t.byte_range()])))
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPES: &str = "package a.b;\n\
        public abstract class Shape implements Comparable<Shape>, java.io.Serializable {\n\
        protected Point origin;\n\
        protected Shape parts[];\n\
        public abstract double area();\n\
        public double perimeter() { return 0; }\n\
        public Shape scaled(double by) { return this; }\n\
        public Shape moved(double dx) { return this; }\n\
        public static Shape unit() { return null; }\n\
        public void log(String... parts) {}\n\
        }\n\
        class Circle extends Shape {\n\
        private double r;\n\
        public double area() { return Math.PI * r * r; }\n\
        public double diameter() { return 2 * r; }\n\
        Circle(double r) { this.r = r; }\n\
        }\n\
        enum Kind { ROUND, SQUARE; private int sides; int sides() { return sides; } }\n";

    #[test]
    fn a_class_has_its_own_and_its_supertypes_methods_and_fields() {
        let p = ProjectTypes::of_sources(&[SHAPES]);
        assert_eq!(p.len(), 3);
        let names =
            |class: &str, arity: usize| p.methods(class, arity).iter().map(|m| m.name.clone()).collect::<Vec<_>>();
        // Nearest first; the override `area` once; no constructor; varargs `log` never.
        assert_eq!(names("Circle", 0), ["area", "diameter", "perimeter", "unit"]);
        assert_eq!(names("Circle", 1), ["scaled", "moved"]);
        assert_eq!(names("Shape", 0), ["area", "perimeter", "unit"]);
        assert_eq!(names("Kind", 0), ["sides"]);
        assert!(names("Comparable", 1).is_empty(), "a JDK supertype is not the project's");
        assert!(p.methods("Shape", 0).iter().any(|m| m.name == "unit" && m.is_static));
        assert_eq!(p.field("Circle", "origin"), Some("Point"));
        assert_eq!(p.field("Circle", "parts"), Some("Shape[]"));
        assert_eq!(p.field("Circle", "nothing"), None);
        assert_eq!(p.returns("Circle", "scaled", 1), Some("Shape"));
        assert_eq!(p.returns("Circle", "scaled", 2), None);
        assert_eq!(p.superclass("Circle"), Some("Shape"));
        assert_eq!(p.superclass("Shape"), Some("Comparable"));
    }

    const REPOSITORY: &str = "public class Repository {\n\
        public Item find(String key) { return null; }\n\
        public Item find(int id) { return null; }\n\
        public void delete(String key) {}\n\
        public Item findOrCreate(String key) { return null; }\n\
        public void findAll(String key) {}\n\
        public int count() { return 0; }\n\
        public static Repository open(String path) { return null; }\n\
        public static Repository create(String path) { return null; }\n\
        public static Repository openAll(String path) { return null; }\n\
        public Repository openAs(String user) { return null; }\n\
        }\n";
    const BASE: &str = "public abstract class BaseService {\n\
        protected Repository repo;\n\
        protected Repository replicas[];\n\
        protected Repository primary() { return repo; }\n\
        }\n";
    const SERVICE: &str = "public class Service extends BaseService {\n\
        Item get(String name) {\n\
        Item a = repo.find(name);\n\
        Item b = replicas[0].find(name);\n\
        Item c = primary().find(name);\n\
        Item d = this.repo.find(name);\n\
        Repository r = Repository.open(name);\n\
        repo.find(name);\n\
        return name.equals(\"x\") ? a : b;\n\
        }\n\
        }\n";

    /// The other methods the method template tries on line `line` of [`SERVICE`], in order.
    fn others(project: &ProjectTypes, line: usize) -> Vec<String> {
        super::super::edits_in(SERVICE, Language::Java, (2, 10), project)
            .into_iter()
            .filter(|e| e.template == super::super::Template::DifferentMethod && e.line == line)
            .map(|e| e.replacement)
            .collect()
    }

    #[test]
    fn a_call_on_a_project_class_tries_that_class_s_other_methods() {
        let project = ProjectTypes::of_sources(&[REPOSITORY, BASE, SERVICE]);
        // A field of the superclass, an element of an array field, a method's return type,
        // a field access on `this`: all a `Repository`. Only close names (`delete` is not);
        // `count` has another arity, `find(int)` is the called name; `findAll` returns
        // `void`, and these calls' values are used.
        for line in 3..=6 {
            assert_eq!(others(&project, line), ["findOrCreate"], "line {line}");
        }
        // A call whose value is dropped may call a `void` method; the called one's return
        // type first.
        assert_eq!(others(&project, 8), ["findOrCreate", "findAll"]);
        // A class name receiver: its static methods only (`openAll` shares a word with
        // `open`, `create` none: not tried).
        assert_eq!(others(&project, 7), ["openAll"]);
        // A String: String's methods with one parameter, the closest names first.
        assert_eq!(others(&project, 9), ["equalsIgnoreCase", "contentEquals"]);
        // The file alone knows none of them.
        let alone = ProjectTypes::default();
        assert!((3..=8).all(|line| others(&alone, line).is_empty()), "{:?}", others(&alone, 3));
    }

    #[test]
    fn no_class_method_where_the_receiver_type_is_unknown_or_lacks_the_call() {
        let other = "class Other { Item g(Object o, Repository repo) {\n\
            Item a = ((Repository) o).find(\"k\");\n\
            Item b = o.find(\"k\");\n\
            Item c = repo.lookup(\"k\");\n\
            return a; } }\n";
        let project = ProjectTypes::of_sources(&[REPOSITORY, other]);
        let at = |line: usize| -> Vec<String> {
            super::super::edits_in(other, Language::Java, (1, 5), &project)
                .into_iter()
                .filter(|e| e.template == super::super::Template::DifferentMethod && e.line == line)
                .map(|e| e.replacement)
                .collect()
        };
        assert_eq!(at(2), ["findOrCreate"], "a cast gives the type");
        assert!(at(3).is_empty(), "an Object has no project methods");
        assert!(at(4).is_empty(), "Repository declares no lookup(String): the receiver was misread");
    }

    /// An overload another file declares gives the argument-count template its arities and,
    /// for an added argument, its parameter types.
    #[test]
    fn a_project_overload_adds_or_drops_an_argument() {
        let store = "class Store {\n\
            Item get(String key) { return null; }\n\
            Item get(String key, boolean fresh) { return null; }\n\
            Item peek(String key) { return null; }\n\
            Item peek(String key, int n) { return null; }\n\
            }\n";
        let user = "class User {\n\
            Item load(Store store, String k, int n, boolean fresh) {\n\
            Item a = store.peek(k);\n\
            Item b = store.get(k, fresh);\n\
            return other.peek(k); } }\n";
        let edits = |project: &ProjectTypes, line: usize| -> Vec<String> {
            super::super::edits_in(user, Language::Java, (2, 5), project)
                .into_iter()
                .filter(|e| e.template == super::super::Template::ChangeArgumentCount && e.line == line)
                .map(|e| e.replacement)
                .collect()
        };
        let project = ProjectTypes::of_sources(&[store, user]);
        // One more: the name of the parameter's type first, at the last position first.
        let more = edits(&project, 3);
        assert_eq!(more.first().map(String::as_str), Some("(k, n)"), "{more:?}");
        // One more: never a name the new parameter cannot take (`fresh`, a `boolean`, for
        // `int n`), nor an argument moved to a parameter of another type (`k` to `int n`).
        assert!(!more.iter().any(|m| m == "(k, fresh)" || m == "(n, k)"), "{more:?}");
        // One fewer: each argument dropped whose rest the overload takes: `get(fresh)` passes
        // a `boolean` for `String key`.
        assert_eq!(edits(&project, 4), ["(k)"]);
        // Nothing where the receiver's class is unknown, nor without the project (the file
        // calls `peek` and `get` with one arity each).
        assert!(edits(&project, 5).is_empty());
        let alone = ProjectTypes::default();
        assert!((3..=5).all(|line| edits(&alone, line).is_empty()), "{:?}", edits(&alone, 3));
    }

    #[test]
    fn types_are_simple_names_with_their_array_depth() {
        assert_eq!(simple_type("a.b.Foo<java.util.List<T>>[]"), ("Foo", 1));
        assert_eq!(simple_type("@Nullable Foo"), ("Foo", 0));
        assert_eq!(simple_type("int[][]"), ("int", 2));
        assert_eq!(simple_type("String..."), ("String", 1));
        assert_eq!(simple_type("java.util.Map"), ("Map", 0));
        // A creation's type (the constructor template's use).
        assert_eq!(simple_type("Map.Entry<K, V>"), ("Entry", 0));
        assert_eq!(simple_type("ArrayList<>"), ("ArrayList", 0));
    }

    #[test]
    fn a_supertype_cycle_ends() {
        let p = ProjectTypes::of_sources(&["interface A extends B { void f(); }\ninterface B extends A { void g(); }"]);
        let names: Vec<&str> = p.methods("A", 0).iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["f", "g"]);
    }

    #[test]
    fn scan_reads_the_java_files_of_a_folder_and_skips_build_output() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir_all(dir.path().join("src/a/b"))?;
        std::fs::create_dir_all(dir.path().join("target/classes"))?;
        std::fs::write(dir.path().join("src/a/b/Shape.java"), SHAPES)?;
        std::fs::write(dir.path().join("target/classes/Gen.java"), "class Gen { void g() {} }")?;
        std::fs::write(dir.path().join("src/broken.java"), "class Broken { void b( {")?;
        let p = ProjectTypes::scan(dir.path());
        assert!(p.has_class("Circle") && p.has_class("Kind"));
        assert!(!p.has_class("Gen"), "build output is not the project's source");
        // What the run's scratch filter leaves out is never read (QuixBugs' fixes).
        std::fs::create_dir_all(dir.path().join("correct"))?;
        std::fs::write(dir.path().join("correct/Fixed.java"), "class Fixed { void f() {} }")?;
        assert!(ProjectTypes::scan(dir.path()).has_class("Fixed"));
        let skip: crate::validate::scratch::ScratchFilter = std::sync::Arc::new(|rel, _| rel.starts_with("correct"));
        let p = ProjectTypes::scan_skipping(dir.path(), skip);
        assert!(!p.has_class("Fixed") && p.has_class("Circle"));
        Ok(())
    }
}
