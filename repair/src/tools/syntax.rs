//! Language-neutral views of Java and Python syntax trees: classes, methods, calls,
//! imports and which identifiers name variables.

use tree_sitter::Node;

use super::source::{SourceFile, children, descendants, one_line};
use crate::Language;

/// Java node kinds that declare a class-like type.
const JAVA_CLASS_KINDS: [&str; 4] =
    ["class_declaration", "interface_declaration", "enum_declaration", "record_declaration"];

/// Java node kinds that declare a method or constructor.
const JAVA_METHOD_KINDS: [&str; 3] =
    ["method_declaration", "constructor_declaration", "compact_constructor_declaration"];

/// A class (Java class, interface, enum or record; Python class) found in a file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClassDef<'t> {
    /// The declaration node.
    pub(crate) node: Node<'t>,
    /// The simple name.
    pub(crate) name: &'t str,
    /// `class`, `interface`, `enum` or `record`.
    pub(crate) kind: &'static str,
}

/// A method, constructor or function found in a file.
#[derive(Debug, Clone)]
pub(crate) struct MethodDef<'t> {
    /// The declaration node (for decorated Python functions, the function itself).
    pub(crate) node: Node<'t>,
    /// The simple name (a constructor's is its class's).
    pub(crate) name: &'t str,
    /// The innermost enclosing class, if any.
    pub(crate) owner: Option<&'t str>,
}

impl MethodDef<'_> {
    /// `Owner.name`, or `name` for a top-level function.
    pub(crate) fn qualified(&self) -> String {
        self.owner.map_or_else(|| self.name.to_string(), |o| format!("{o}.{}", self.name))
    }

    /// Whether a model-given method name (`name`, `Owner.name`, optionally with `(...)`)
    /// names this method.
    pub(crate) fn matches(&self, wanted: &str) -> bool {
        let wanted = wanted.split('(').next().unwrap_or(wanted).trim();
        match wanted.rsplit_once('.') {
            Some((owner, name)) => name == self.name && self.owner == owner.rsplit('.').next(),
            None => wanted == self.name,
        }
    }
}

fn name_of<'t>(file: &'t SourceFile, node: Node<'t>) -> &'t str {
    node.child_by_field_name("name").map_or("", |n| file.text(n))
}

/// The class kind of `node`, if it declares one.
fn class_kind(lang: Language, node: Node<'_>) -> Option<&'static str> {
    match (lang, node.kind()) {
        (Language::Java, "class_declaration") | (Language::Python, "class_definition") => Some("class"),
        (Language::Java, "interface_declaration") => Some("interface"),
        (Language::Java, "enum_declaration") => Some("enum"),
        (Language::Java, "record_declaration") => Some("record"),
        _ => None,
    }
}

/// Whether `node` declares a method, constructor or function.
pub(crate) fn is_method(lang: Language, node: Node<'_>) -> bool {
    match lang {
        Language::Java => JAVA_METHOD_KINDS.contains(&node.kind()),
        Language::Python => node.kind() == "function_definition",
    }
}

/// Every class in `file`, in source order (nested classes included).
pub(crate) fn classes(file: &SourceFile) -> Vec<ClassDef<'_>> {
    let lang = file.lang;
    descendants(file.root())
        .into_iter()
        .filter_map(|node| Some(ClassDef { node, name: name_of(file, node), kind: class_kind(lang, node)? }))
        .collect()
}

/// The innermost class enclosing `node` (not counting `node` itself).
pub(crate) fn enclosing_class<'t>(file: &'t SourceFile, node: Node<'t>) -> Option<Node<'t>> {
    std::iter::successors(node.parent(), |n| n.parent()).find(|n| class_kind(file.lang, *n).is_some())
}

/// The innermost method enclosing `node` (or `node` itself when it is one).
pub(crate) fn enclosing_method<'t>(file: &'t SourceFile, node: Node<'t>) -> Option<Node<'t>> {
    std::iter::successors(Some(node), |n| n.parent()).find(|n| is_method(file.lang, *n))
}

/// Every method, constructor and function in `file`, in source order.
pub(crate) fn methods(file: &SourceFile) -> Vec<MethodDef<'_>> {
    descendants(file.root())
        .into_iter()
        .filter(|n| is_method(file.lang, *n))
        .map(|node| MethodDef {
            node,
            name: name_of(file, node),
            owner: enclosing_class(file, node).map(|c| name_of(file, c)),
        })
        .collect()
}

/// The display name of the method enclosing `node`, or `<top level>` / `<class body>`.
pub(crate) fn scope_name(file: &SourceFile, node: Node<'_>) -> String {
    if let Some(method) = enclosing_method(file, node) {
        let owner = enclosing_class(file, method).map(|c| name_of(file, c));
        return MethodDef { node: method, name: name_of(file, method), owner }.qualified();
    }
    match enclosing_class(file, node) {
        Some(class) => format!("class {}", name_of(file, class)),
        None => "<module level>".to_string(),
    }
}

/// The declaration text of a class, method or function: everything before its body, on
/// one line (`public static int bitcount(int n)`, `def gcd(a, b)`).
pub(crate) fn header(file: &SourceFile, node: Node<'_>) -> String {
    let end = node.child_by_field_name("body").map_or(node.end_byte(), |b| b.start_byte());
    let text = &file.text(node)[..end - node.start_byte()];
    one_line(text.trim_end().trim_end_matches(':'))
}

/// A call site: the callee's simple name, its receiver text (if any) and the call node.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Call<'t> {
    /// The call expression.
    pub(crate) node: Node<'t>,
    /// The called name (for `new Foo(..)`, `Foo`).
    pub(crate) name: &'t str,
    /// The receiver or qualifier (`list` in `list.add(x)`), if any.
    pub(crate) receiver: Option<&'t str>,
}

/// The call that `node` is, if it is one: Java method invocations, `new` expressions and
/// explicit `this(..)`/`super(..)` calls are left to their kinds; Python calls by name or
/// attribute.
pub(crate) fn as_call<'t>(file: &'t SourceFile, node: Node<'t>) -> Option<Call<'t>> {
    let text = |n: Node<'t>| file.text(n);
    match (file.lang, node.kind()) {
        (Language::Java, "method_invocation") => Some(Call {
            node,
            name: text(node.child_by_field_name("name")?),
            receiver: node.child_by_field_name("object").map(text),
        }),
        (Language::Java, "object_creation_expression") => {
            let ty = node.child_by_field_name("type")?;
            let name = text(ty).split('<').next()?.rsplit('.').next()?;
            Some(Call { node, name, receiver: Some("new") })
        }
        (Language::Java, "method_reference") => {
            let last = children(node).into_iter().last()?;
            (last.kind() == "identifier").then(|| Call { node, name: text(last), receiver: Some("::") })
        }
        (Language::Python, "call") => {
            let function = node.child_by_field_name("function")?;
            match function.kind() {
                "identifier" => Some(Call { node, name: text(function), receiver: None }),
                "attribute" => Some(Call {
                    node,
                    name: text(function.child_by_field_name("attribute")?),
                    receiver: function.child_by_field_name("object").map(text),
                }),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Every call inside `node`, in source order.
pub(crate) fn calls<'t>(file: &'t SourceFile, node: Node<'t>) -> Vec<Call<'t>> {
    descendants(node).into_iter().filter_map(|n| as_call(file, n)).collect()
}

/// Every import statement (and the Java package declaration) at any depth in `file`.
pub(crate) fn imports(file: &SourceFile) -> Vec<Node<'_>> {
    let kinds: &[&str] = match file.lang {
        Language::Java => &["package_declaration", "import_declaration"],
        Language::Python => &["import_statement", "import_from_statement", "future_import_statement"],
    };
    descendants(file.root()).into_iter().filter(|n| kinds.contains(&n.kind())).collect()
}

/// Whether the identifier `node` names a variable (local, parameter, field or global),
/// rather than a method, type, label, package, keyword argument or attribute of another
/// object. Java `this.x` and Python `self.x` are handled by [`variable_node`].
pub(crate) fn names_variable(file: &SourceFile, node: Node<'_>) -> bool {
    if node.kind() != "identifier" {
        return false;
    }
    let Some(parent) = node.parent() else { return false };
    let field = field_name_in_parent(node);
    match file.lang {
        Language::Java => java_names_variable(parent.kind(), field),
        Language::Python => python_names_variable(parent.kind(), field),
    }
}

fn java_names_variable(parent: &str, field: Option<&str>) -> bool {
    match parent {
        "method_invocation" | "field_access" => field == Some("object"),
        kind if JAVA_CLASS_KINDS.contains(&kind) || JAVA_METHOD_KINDS.contains(&kind) => field != Some("name"),
        "labeled_statement" | "break_statement" | "continue_statement" | "scoped_identifier" => false,
        "import_declaration" | "package_declaration" | "annotation" | "marker_annotation" => false,
        "method_reference" | "enum_constant" => false,
        _ => true,
    }
}

fn python_names_variable(parent: &str, field: Option<&str>) -> bool {
    match parent {
        "attribute" => field == Some("object"),
        "function_definition" | "class_definition" | "keyword_argument" => field != Some("name"),
        "dotted_name" | "aliased_import" | "import_statement" | "import_from_statement" => false,
        _ => true,
    }
}

/// The field name under which `node` hangs from its parent.
pub(crate) fn field_name_in_parent<'t>(node: Node<'t>) -> Option<&'t str> {
    let parent = node.parent()?;
    let mut cursor = parent.walk();
    if !cursor.goto_first_child() {
        return None;
    }
    loop {
        if cursor.node().id() == node.id() {
            return cursor.field_name();
        }
        if !cursor.goto_next_sibling() {
            return None;
        }
    }
}

/// A variable the model asked about: `x`, or `this.x` / `self.x` for an attribute.
#[derive(Debug, Clone)]
pub(crate) struct VarName {
    object: Option<String>,
    name: String,
}

impl VarName {
    /// Parses `x`, `this.x` or `self.x`.
    pub(crate) fn parse(text: &str) -> VarName {
        let text = text.trim();
        match text.rsplit_once('.') {
            Some((object, name)) => VarName { object: Some(object.to_string()), name: name.to_string() },
            None => VarName { object: None, name: text.to_string() },
        }
    }
}

/// The node that refers to `var` at `node`, if any: a variable identifier, or the whole
/// `this.x` / `self.x` expression. In Java `x` and `this.x` are the same variable; in
/// Python `self.x` is only matched when asked for as `self.x`.
pub(crate) fn variable_node<'t>(file: &'t SourceFile, node: Node<'t>, var: &VarName) -> Option<Node<'t>> {
    let attr_kind = match file.lang {
        Language::Java => "field_access",
        Language::Python => "attribute",
    };
    let attr_field = if file.lang == Language::Java { "field" } else { "attribute" };
    if node.kind() == attr_kind {
        let object = file.text(node.child_by_field_name("object")?);
        let name = file.text(node.child_by_field_name(attr_field)?);
        let wanted = var.object.as_deref().or((file.lang == Language::Java).then_some("this"));
        return (name == var.name && Some(object) == wanted).then_some(node);
    }
    let plain = var.object.is_none() || (file.lang == Language::Java && var.object.as_deref() == Some("this"));
    (plain && file.text(node) == var.name && names_variable(file, node)).then_some(node)
}

/// Every reference to `var` inside `scope`, in source order.
pub(crate) fn variable_refs<'t>(file: &'t SourceFile, scope: Node<'t>, var: &VarName) -> Vec<Node<'t>> {
    descendants(scope).into_iter().filter_map(|n| variable_node(file, n, var)).collect()
}

/// The variable names read inside `node` (identifiers that name variables, plus
/// `this.x`/`self.x`), deduplicated in order of first appearance.
pub(crate) fn names_read(file: &SourceFile, node: Node<'_>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in descendants(node) {
        let name = match n.kind() {
            "identifier"
                if names_variable(file, n)
                    && !is_callee(n)
                    && !n.parent().is_some_and(|p| is_self_attribute(file, p)) =>
            {
                file.text(n).to_string()
            }
            "field_access" | "attribute" if is_self_attribute(file, n) => file.text(n).to_string(),
            _ => continue,
        };
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// Whether `node` is the function of a Python call (`len` in `len(x)`).
fn is_callee(node: Node<'_>) -> bool {
    node.parent().is_some_and(|p| p.kind() == "call") && field_name_in_parent(node) == Some("function")
}

fn is_self_attribute(file: &SourceFile, node: Node<'_>) -> bool {
    matches!(node.kind(), "field_access" | "attribute")
        && node.child_by_field_name("object").is_some_and(|o| matches!(file.text(o), "this" | "self"))
}
