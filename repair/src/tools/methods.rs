//! Method-level tools: find_method_in_file, analyze_method_details, trace_method_usage.

use std::collections::BTreeSet;
use std::sync::Arc;

use tree_sitter::Node;

use super::ToolError;
use super::render::Output;
use super::source::{SourceFile, children, descendants, line_of, one_line};
use super::syntax::{MethodDef, calls, header, methods, names_variable, scope_name};
use super::variables::{Role, classify};
use crate::Language;

/// Control-structure kinds reported by analyze_method_details, with their display names.
const CONTROL: [(&str, &str); 16] = [
    ("if_statement", "if"),
    ("elif_clause", "elif"),
    ("for_statement", "for"),
    ("enhanced_for_statement", "for-each"),
    ("while_statement", "while"),
    ("do_statement", "do-while"),
    ("switch_expression", "switch"),
    ("match_statement", "match"),
    ("try_statement", "try"),
    ("try_with_resources_statement", "try-with-resources"),
    ("catch_clause", "catch"),
    ("except_clause", "except"),
    ("finally_clause", "finally"),
    ("with_statement", "with"),
    ("return_statement", "return"),
    ("break_statement", "break"),
];

/// The methods of `file` that `wanted` names (`name`, `Owner.name`, either with a parameter
/// list that picks overloads: `parse(String, int)`), or an error listing the ones it has
/// ([`super::signature::select`]).
pub(crate) fn find<'t>(file: &'t SourceFile, wanted: &str) -> Result<Vec<MethodDef<'t>>, ToolError> {
    super::signature::select(file, wanted)
}

/// find_method_in_file: the numbered source of every method `wanted` names (all
/// overloads).
pub(crate) fn find_method_in_file(file: &SourceFile, wanted: &str, out: &mut Output) -> Result<(), ToolError> {
    let found = find(file, wanted)?;
    for (i, method) in found.iter().enumerate() {
        if i > 0 {
            out.push("");
        }
        out.push(format!("{} {}", file.span(method.node), method.qualified()));
        out.code_block(file, decorated(method.node));
    }
    Ok(())
}

/// A Python function with its decorators, or the node itself.
fn decorated(node: Node<'_>) -> Node<'_> {
    node.parent().filter(|p| p.kind() == "decorated_definition").unwrap_or(node)
}

/// analyze_method_details: signature, parameters, return type, locals, calls, exceptions
/// and control structures of every method `wanted` names.
pub(crate) fn analyze_method_details(file: &SourceFile, wanted: &str, out: &mut Output) -> Result<(), ToolError> {
    for (i, method) in find(file, wanted)?.iter().enumerate() {
        if i > 0 {
            out.push("");
        }
        analyze_one(file, method, out);
    }
    Ok(())
}

fn analyze_one(file: &SourceFile, method: &MethodDef<'_>, out: &mut Output) {
    let node = method.node;
    out.push(format!("{} {}", file.span(node), method.qualified()));
    out.push(format!("signature: {}", header(file, node)));
    out.push(format!("return type: {}", return_type(file, node)));
    out.push("parameters:");
    out.push_all_or_none(
        parameters(file, node).into_iter().map(|(n, name, ty)| format!("  {} {name}{ty}", file.anchor(n))),
    );
    out.push("local variables:");
    out.push_all_or_none(
        locals(file, node).into_iter().map(|(line, name, ty)| format!("  {}:{line} {name}{ty}", file.rel)),
    );
    out.push("calls made:");
    out.push_all_or_none(calls(file, node).into_iter().map(|c| {
        let receiver = c.receiver.map(|r| format!(" on {r}")).unwrap_or_default();
        format!("  {} {}(){receiver}: {}", file.anchor(c.node), c.name, one_line(file.text(c.node)))
    }));
    out.push("exceptions:");
    out.push_all_or_none(exceptions(file, node));
    out.push("control structures:");
    out.push_all_or_none(control(file, node));
}

fn return_type(file: &SourceFile, node: Node<'_>) -> String {
    let ty = match file.lang {
        Language::Java => node.child_by_field_name("type"),
        Language::Python => node.child_by_field_name("return_type"),
    };
    match (ty, file.lang, node.kind()) {
        (Some(ty), _, _) => one_line(file.text(ty)),
        (None, Language::Java, _) => "(constructor)".into(),
        (None, Language::Python, _) => "(not annotated)".into(),
    }
}

/// `(node, name, ": type")` for every parameter, in order.
fn parameters<'t>(file: &'t SourceFile, node: Node<'t>) -> Vec<(Node<'t>, &'t str, String)> {
    let Some(params) = node.child_by_field_name("parameters") else { return Vec::new() };
    descendants(params)
        .into_iter()
        .filter(|n| n.kind() == "identifier" && names_variable(file, *n))
        .map(|n| classify(file, n))
        .filter(|a| a.kind == "parameter")
        .map(|a| (a.node, file.text(a.node), a.ty.map(|t| format!(": {}", one_line(file.text(t)))).unwrap_or_default()))
        .collect()
}

/// `(line, name, ": type")` for the first definition of every local variable (not
/// parameters), in order of first definition; nested functions are left out.
fn locals(file: &SourceFile, method: Node<'_>) -> Vec<(usize, String, String)> {
    let Some(body) = method.child_by_field_name("body") else { return Vec::new() };
    let params: BTreeSet<&str> = parameters(file, method).into_iter().map(|(_, n, _)| n).collect();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for n in descendants(body) {
        if n.kind() != "identifier" || !names_variable(file, n) || !same_method(file, n, method) {
            continue;
        }
        let access = classify(file, n);
        let name = file.text(n).to_string();
        if access.role == Role::Use
            || access.role == Role::Update
            || params.contains(name.as_str())
            || access.kind == "global declaration"
        {
            continue;
        }
        if seen.insert(name.clone()) {
            let ty = access.ty.map(|t| format!(": {}", one_line(file.text(t)))).unwrap_or_default();
            out.push((line_of(n), name, ty));
        }
    }
    out
}

fn same_method(file: &SourceFile, node: Node<'_>, method: Node<'_>) -> bool {
    super::syntax::enclosing_method(file, node).is_some_and(|m| m.id() == method.id())
}

/// Declared `throws`, `throw`/`raise` statements and handlers, each anchored.
fn exceptions(file: &SourceFile, method: Node<'_>) -> Vec<String> {
    let mut out: Vec<String> = children(method)
        .into_iter()
        .filter(|c| c.kind() == "throws")
        .map(|c| format!("  {} declares {}", file.anchor(c), one_line(file.text(c))))
        .collect();
    for n in descendants(method) {
        let what = match n.kind() {
            "throw_statement" | "raise_statement" => "throws",
            "catch_clause" | "except_clause" => "handles",
            _ => continue,
        };
        let text = match n.kind() {
            "catch_clause" | "except_clause" => handler_head(file, n),
            _ => one_line(file.text(n)),
        };
        out.push(format!("  {} {what}: {text}", file.anchor(n)));
    }
    out
}

/// `catch (IOException e)` / `except ValueError as e`: the handler without its body.
fn handler_head(file: &SourceFile, node: Node<'_>) -> String {
    let body = children(node).into_iter().find(|c| c.kind() == "block");
    let end = body.map_or(node.end_byte(), |b| b.start_byte());
    one_line(file.text(node)[..end - node.start_byte()].trim_end().trim_end_matches(['{', ':']).trim_end())
}

fn control(file: &SourceFile, method: Node<'_>) -> Vec<String> {
    descendants(method)
        .into_iter()
        .filter_map(|n| {
            let (_, name) = CONTROL.iter().find(|(kind, _)| *kind == n.kind())?;
            Some(format!("  {} {name}: {}", file.anchor(n), file.line(line_of(n)).trim()))
        })
        .collect()
}

/// trace_method_usage: every definition of the method in the project and every call
/// site by name, with the calling method and line.
pub(crate) fn trace_method_usage(files: &[Arc<SourceFile>], wanted: &str, out: &mut Output) -> Result<(), ToolError> {
    let simple = wanted.split('(').next().unwrap_or(wanted).trim();
    let name = simple.rsplit('.').next().unwrap_or(simple);
    let defs: Vec<String> = files
        .iter()
        .flat_map(|f| {
            methods(f)
                .into_iter()
                .filter(|m| m.matches(simple))
                .map(|m| format!("  {} {}", f.span(m.node), header(f, m.node)))
                .collect::<Vec<_>>()
        })
        .collect();
    let sites: Vec<(Arc<SourceFile>, usize, String)> = files
        .iter()
        .flat_map(|f| {
            calls(f, f.root())
                .into_iter()
                .filter(|c| c.name == name)
                .map(|c| (Arc::clone(f), line_of(c.node), call_line(f, c.node)))
                .collect::<Vec<_>>()
        })
        .collect();
    if defs.is_empty() && sites.is_empty() {
        return Err(ToolError::MethodNotFound {
            method: wanted.to_string(),
            path: "the project".into(),
            available: "(no definition or call by that name)".into(),
        });
    }
    out.push(format!("definitions of `{simple}`: {}", defs.len()));
    defs.into_iter().for_each(|d| out.push(d));
    out.push(format!(
        "call sites of `{name}`: {} (matched by name; receivers and overloads are not type-resolved)",
        sites.len()
    ));
    for (file, line, text) in sites {
        out.push(text);
        out.code_line(&file, line, 4);
    }
    Ok(())
}

fn call_line(file: &SourceFile, call: Node<'_>) -> String {
    format!("  {} in {}", file.anchor(call), scope_name(file, call))
}
