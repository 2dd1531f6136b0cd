//! Variable-level tools: identify_variable and find_variable_assignments, plus the
//! classification of each variable reference that track_variable_dataflow also uses.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::ToolError;
use super::render::Output;
use super::source::{SourceFile, children, descendants, line_of};
use super::syntax::{VarName, field_name_in_parent, names_variable, scope_name, variable_refs};
use crate::Language;

/// What a reference does to its variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// Introduces the variable (field, local, parameter, loop variable, binding), with or
    /// without an initial value.
    Declaration,
    /// Plain assignment `x = e`.
    Assignment,
    /// Read-modify-write: `x += e`, `x++`.
    Update,
    /// Reads the variable.
    Use,
}

impl Role {
    /// Whether the reference gives the variable a value.
    pub(crate) fn defines(self) -> bool {
        self != Role::Use
    }
}

/// One classified reference to a variable.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Access<'t> {
    /// The identifier (or `this.x`/`self.x`) node.
    pub(crate) node: Node<'t>,
    /// What it does.
    pub(crate) role: Role,
    /// A short description: `local variable`, `parameter`, `assignment`, `+=`, `++`, ...
    pub(crate) kind: &'static str,
    /// The declared type or annotation, when written.
    pub(crate) ty: Option<Node<'t>>,
    /// The assigned value or iterated expression, when there is one.
    pub(crate) value: Option<Node<'t>>,
}

impl<'t> Access<'t> {
    fn new(node: Node<'t>, role: Role, kind: &'static str) -> Access<'t> {
        Access { node, role, kind, ty: None, value: None }
    }

    fn with(mut self, ty: Option<Node<'t>>, value: Option<Node<'t>>) -> Access<'t> {
        self.ty = ty;
        self.value = value;
        self
    }
}

/// Classifies the reference `node` (a variable identifier or attribute node).
pub(crate) fn classify<'t>(file: &'t SourceFile, node: Node<'t>) -> Access<'t> {
    match file.lang {
        Language::Java => classify_java(file, node),
        Language::Python => classify_python(file, node),
    }
}

fn classify_java<'t>(file: &'t SourceFile, node: Node<'t>) -> Access<'t> {
    let use_ = Access::new(node, Role::Use, "use");
    let (Some(parent), field) = (node.parent(), field_name_in_parent(node)) else { return use_ };
    let field_of = |n: Node<'t>, f: &str| n.child_by_field_name(f);
    match (parent.kind(), field) {
        ("variable_declarator", Some("name")) => {
            let Some(decl) = parent.parent() else { return use_ };
            let kind = match decl.kind() {
                "field_declaration" | "constant_declaration" => "field",
                "spread_parameter" => "parameter",
                _ => "local variable",
            };
            let ty = field_of(decl, "type").or_else(|| children(decl).into_iter().find(|c| c.kind().ends_with("type")));
            Access::new(node, Role::Declaration, kind).with(ty, field_of(parent, "value"))
        }
        ("formal_parameter", Some("name")) => {
            Access::new(node, Role::Declaration, "parameter").with(field_of(parent, "type"), None)
        }
        ("catch_formal_parameter", Some("name")) => {
            let ty = children(parent).into_iter().find(|c| c.kind() == "catch_type");
            Access::new(node, Role::Declaration, "catch parameter").with(ty, None)
        }
        ("resource", Some("name")) => {
            Access::new(node, Role::Declaration, "resource").with(field_of(parent, "type"), field_of(parent, "value"))
        }
        ("enhanced_for_statement", Some("name")) => Access::new(node, Role::Declaration, "loop variable")
            .with(field_of(parent, "type"), field_of(parent, "value")),
        ("inferred_parameters", _) | ("lambda_expression", Some("parameters")) => {
            Access::new(node, Role::Declaration, "lambda parameter")
        }
        ("assignment_expression", Some("left")) => java_assignment(file, node, parent),
        ("update_expression", _) => Access::new(node, Role::Update, update_kind(file, parent)),
        _ => use_,
    }
}

fn java_assignment<'t>(file: &'t SourceFile, node: Node<'t>, parent: Node<'t>) -> Access<'t> {
    let op = parent.child_by_field_name("operator").map_or("=", |o| file.text(o));
    let value = parent.child_by_field_name("right");
    if op == "=" {
        Access::new(node, Role::Assignment, "assignment").with(None, value)
    } else {
        Access::new(node, Role::Update, compound_kind(op)).with(None, value)
    }
}

fn update_kind(file: &SourceFile, expr: Node<'_>) -> &'static str {
    if file.text(expr).contains("++") { "++" } else { "--" }
}

/// A `'static` description for a compound assignment operator.
fn compound_kind(op: &str) -> &'static str {
    const OPS: [&str; 13] = ["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", ">>>=", "**=", "//="];
    OPS.into_iter().find(|o| *o == op).unwrap_or("compound assignment")
}

/// Python pattern containers an assignment target may sit in (`a, b = ...`).
const PY_PATTERNS: [&str; 6] = [
    "pattern_list",
    "tuple_pattern",
    "list_pattern",
    "list_splat_pattern",
    "parenthesized_expression",
    "expression_list",
];

fn classify_python<'t>(file: &'t SourceFile, node: Node<'t>) -> Access<'t> {
    let use_ = Access::new(node, Role::Use, "use");
    let mut target = node;
    while let Some(p) = target.parent().filter(|p| PY_PATTERNS.contains(&p.kind())) {
        target = p;
    }
    let (Some(parent), field) = (target.parent(), field_name_in_parent(target)) else { return use_ };
    let field_of = |f: &str| parent.child_by_field_name(f);
    match (parent.kind(), field) {
        ("assignment", Some("left")) => match field_of("right") {
            Some(right) => Access::new(node, Role::Assignment, "assignment").with(field_of("type"), Some(right)),
            None => Access::new(node, Role::Declaration, "annotated declaration").with(field_of("type"), None),
        },
        ("augmented_assignment", Some("left")) => {
            let op = field_of("operator").map_or("", |o| file.text(o));
            Access::new(node, Role::Update, compound_kind(op)).with(None, field_of("right"))
        }
        ("for_statement" | "for_in_clause", Some("left")) => {
            Access::new(node, Role::Declaration, "loop variable").with(None, field_of("right"))
        }
        ("named_expression", Some("name")) => Access::new(node, Role::Assignment, ":=").with(None, field_of("value")),
        ("as_pattern_target", _) | ("as_pattern" | "except_clause", Some("alias")) => {
            Access::new(node, Role::Declaration, "as binding")
        }
        ("global_statement" | "nonlocal_statement", _) => Access::new(node, Role::Declaration, "global declaration"),
        _ => python_parameter(node, target, parent).unwrap_or(use_),
    }
}

fn python_parameter<'t>(node: Node<'t>, target: Node<'t>, parent: Node<'t>) -> Option<Access<'t>> {
    let param = |_: Node<'t>| Access::new(node, Role::Declaration, "parameter");
    match parent.kind() {
        "parameters" | "lambda_parameters" => Some(param(parent)),
        "typed_parameter" => Some(param(parent).with(parent.child_by_field_name("type"), None)),
        "default_parameter" | "typed_default_parameter" if field_name_in_parent(target) == Some("name") => {
            Some(param(parent).with(parent.child_by_field_name("type"), parent.child_by_field_name("value")))
        }
        "list_splat_pattern" | "dictionary_splat_pattern"
            if parent.parent().is_some_and(|g| matches!(g.kind(), "parameters" | "lambda_parameters")) =>
        {
            Some(param(parent))
        }
        _ => None,
    }
}

/// Every reference to `var` in `scope`, classified, in source order.
pub(crate) fn accesses<'t>(file: &'t SourceFile, scope: Node<'t>, var: &VarName) -> Vec<Access<'t>> {
    variable_refs(file, scope, var).into_iter().map(|n| classify(file, n)).collect()
}

/// Names of every variable declared or assigned in `file`, sorted (for "not found" help).
pub(crate) fn variable_names(file: &SourceFile) -> Vec<String> {
    let names: BTreeSet<String> = descendants(file.root())
        .into_iter()
        .filter(|n| names_variable(file, *n) && classify(file, *n).role.defines())
        .map(|n| file.text(n).to_string())
        .collect();
    names.into_iter().collect()
}

/// The error for a variable that `file` never mentions.
pub(crate) fn not_found(file: &SourceFile, var: &str) -> ToolError {
    ToolError::VariableNotFound {
        variable: var.to_string(),
        path: file.rel.clone(),
        known: list(&variable_names(file)),
    }
}

/// A comma-separated list, cut after 60 names.
pub(crate) fn list(names: &[String]) -> String {
    let mut text = names.iter().take(60).cloned().collect::<Vec<_>>().join(", ");
    if names.len() > 60 {
        text.push_str(&format!(", ... ({} more)", names.len() - 60));
    }
    text
}

/// `kind name: type` for a declaration, e.g. `local variable count: int`.
fn describe(file: &SourceFile, access: &Access<'_>) -> String {
    let mut text = format!("{} `{}`", access.kind, file.text(access.node));
    if let Some(ty) = access.ty {
        text.push_str(&format!(" of type {}", file.text(ty)));
    }
    text
}

/// identify_variable: the definitions of `var` in `file` and every use, grouped by the
/// enclosing method.
pub(crate) fn identify_variable(file: &SourceFile, var: &str, out: &mut Output) -> Result<(), ToolError> {
    let wanted = VarName::parse(var);
    let all = accesses(file, file.root(), &wanted);
    if all.is_empty() {
        return Err(not_found(file, var));
    }
    let (defs, uses) = split_definitions(file, &all);
    out.push(format!(
        "variable `{var}` in {}: {} declaration(s), {} other reference(s)",
        file.rel,
        defs.len(),
        uses.len()
    ));
    out.push("declarations:");
    if defs.is_empty() {
        out.push("  (none in this file: an inherited field, a global, or a name from another module)");
    }
    for access in &defs {
        out.push(format!(
            "  {} {} in {}",
            file.anchor(access.node),
            describe(file, access),
            scope_name(file, access.node)
        ));
        out.code_line(file, line_of(access.node), 4);
    }
    out.push("references (uses and assignments):");
    push_by_line(file, &uses, out);
    Ok(())
}

/// Splits references into definitions and the rest. Java definitions are declarations;
/// Python has none, so there the first binding in each scope (function, class or module)
/// is the definition.
fn split_definitions<'a, 't>(file: &SourceFile, all: &'a [Access<'t>]) -> (Vec<&'a Access<'t>>, Vec<&'a Access<'t>>) {
    let mut scopes = BTreeSet::new();
    all.iter().partition(|a| match file.lang {
        Language::Java => a.role == Role::Declaration,
        Language::Python => a.role != Role::Use && a.role != Role::Update && scopes.insert(scope_name(file, a.node)),
    })
}

/// One entry per source line: `path:line [kinds] in scope`, then the code line.
fn push_by_line(file: &SourceFile, accesses: &[&Access<'_>], out: &mut Output) {
    let mut i = 0;
    while i < accesses.len() {
        let line = line_of(accesses[i].node);
        let same: Vec<_> = accesses[i..].iter().take_while(|a| line_of(a.node) == line).collect();
        let kinds: BTreeSet<&str> = same.iter().map(|a| a.kind).collect();
        let kinds: Vec<&str> = kinds.into_iter().collect();
        out.push(format!("  {}:{line} {} in {}", file.rel, kinds.join(", "), scope_name(file, accesses[i].node)));
        out.code_line(file, line, 4);
        i += same.len();
    }
}

/// find_variable_assignments: every place `var` gets a value in `file` (initialised
/// declarations, `=`, compound assignments, `++`/`--`, loop variables, bindings).
pub(crate) fn find_variable_assignments(file: &SourceFile, var: &str, out: &mut Output) -> Result<(), ToolError> {
    let wanted = VarName::parse(var);
    let all = accesses(file, file.root(), &wanted);
    if all.is_empty() {
        return Err(not_found(file, var));
    }
    let defs: Vec<_> = all.iter().filter(|a| gives_value(a)).collect();
    out.push(format!("assignments to `{var}` in {}: {}", file.rel, defs.len()));
    for access in &defs {
        let value =
            access.value.map(|v| format!(" value `{}`", super::source::one_line(file.text(v)))).unwrap_or_default();
        out.push(format!("  {} {}{value} in {}", file.anchor(access.node), access.kind, scope_name(file, access.node)));
        out.code_line(file, line_of(access.node), 4);
    }
    if defs.is_empty() {
        out.push("  (none: the variable is only read here, or declared without a value)");
    }
    Ok(())
}

/// Whether the access gives the variable a value: initialised declarations, loop
/// variables and bindings, assignments and updates (parameters get theirs from callers).
pub(crate) fn gives_value(access: &Access<'_>) -> bool {
    match access.role {
        Role::Use => false,
        Role::Declaration => {
            access.value.is_some() || matches!(access.kind, "loop variable" | "catch parameter" | "as binding")
        }
        Role::Assignment | Role::Update => true,
    }
}
