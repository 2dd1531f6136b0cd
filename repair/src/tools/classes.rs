//! Class- and file-level tools: find_class_loc, identify_class, get_imports.

use std::collections::BTreeSet;
use std::sync::Arc;

use tree_sitter::Node;

use super::ToolError;
use super::render::Output;
use super::source::{SourceFile, children, descendants, line_of, one_line};
use super::syntax::{ClassDef, classes, enclosing_class, header, is_method};
use super::variables::{Role, classify, list};
use crate::Language;

/// The classes named `wanted` (simple name, or the last part of a dotted one) in `files`,
/// or an error listing the classes the project has.
fn find<'f>(files: &'f [Arc<SourceFile>], wanted: &str) -> Result<Vec<(&'f SourceFile, ClassDef<'f>)>, ToolError> {
    let name = wanted.trim().rsplit('.').next().unwrap_or(wanted);
    let found: Vec<(&SourceFile, ClassDef<'_>)> = files
        .iter()
        .flat_map(|f| classes(f).into_iter().filter(|c| c.name == name).map(move |c| (f.as_ref(), c)))
        .collect();
    if !found.is_empty() {
        return Ok(found);
    }
    let known: BTreeSet<String> =
        files.iter().flat_map(|f| classes(f).into_iter().map(|c| c.name.to_string())).collect();
    Err(ToolError::ClassNotFound { class: wanted.to_string(), available: list(&known.into_iter().collect::<Vec<_>>()) })
}

/// find_class_loc: file and line range of every class named `wanted`.
pub(crate) fn find_class_loc(files: &[Arc<SourceFile>], wanted: &str, out: &mut Output) -> Result<(), ToolError> {
    for (file, class) in find(files, wanted)? {
        let outer =
            enclosing_class(file, class.node).map(|o| format!(" (nested in {})", name(file, o))).unwrap_or_default();
        out.push(format!("{} {} {}{outer}", file.span(class.node), class.kind, class.name));
    }
    Ok(())
}

fn name<'t>(file: &'t SourceFile, node: Node<'t>) -> &'t str {
    node.child_by_field_name("name").map_or("", |n| file.text(n))
}

/// identify_class: declaration, supertypes, fields, methods and nested classes of every
/// class named `wanted` (restricted to `only_file` when given).
pub(crate) fn identify_class(
    files: &[Arc<SourceFile>],
    wanted: &str,
    only_file: Option<&str>,
    out: &mut Output,
) -> Result<(), ToolError> {
    let found = find(files, wanted)?;
    let found: Vec<_> = found.into_iter().filter(|(f, _)| only_file.is_none_or(|o| f.rel == o)).collect();
    if found.is_empty() {
        return Err(ToolError::ClassNotFound {
            class: wanted.to_string(),
            available: format!("(none in {})", only_file.unwrap_or("")),
        });
    }
    for (i, (file, class)) in found.into_iter().enumerate() {
        if i > 0 {
            out.push("");
        }
        summarise(file, class, out);
    }
    Ok(())
}

fn summarise(file: &SourceFile, class: ClassDef<'_>, out: &mut Output) {
    out.push(format!("{} {} {}", file.span(class.node), class.kind, class.name));
    out.push(format!("declaration: {}", header(file, class.node)));
    let (superclass, interfaces) = supertypes(file, class.node);
    out.push(format!("superclass: {}", superclass.unwrap_or_else(|| "(none)".into())));
    if file.lang == Language::Java {
        out.push(format!("interfaces: {}", interfaces.unwrap_or_else(|| "(none)".into())));
    }
    let members = body_members(class.node);
    out.push("fields:");
    let fields = fields(file, class.node, &members);
    out.push_all_or_none(fields);
    out.push("methods:");
    out.push_all_or_none(
        members
            .iter()
            .filter(|m| is_method(file.lang, **m))
            .map(|m| format!("  {} {}", file.span(*m), header(file, *m))),
    );
    let nested =
        members.iter().filter(|m| classes_kind(file, **m)).map(|m| format!("  {} {}", file.span(*m), header(file, *m)));
    let nested: Vec<String> = nested.collect();
    if !nested.is_empty() {
        out.push("nested classes:");
        nested.into_iter().for_each(|n| out.push(n));
    }
}

fn classes_kind(file: &SourceFile, node: Node<'_>) -> bool {
    classes(file).iter().any(|c| c.node.id() == node.id())
}

/// The superclass (Python: base classes) and implemented/extended interfaces, as written.
fn supertypes(file: &SourceFile, class: Node<'_>) -> (Option<String>, Option<String>) {
    let text = |n: Node<'_>| one_line(file.text(n));
    match file.lang {
        Language::Java => {
            let sup = class
                .child_by_field_name("superclass")
                .map(|s| text(s).trim_start_matches("extends").trim().to_string());
            let ifaces = class
                .child_by_field_name("interfaces")
                .or_else(|| children(class).into_iter().find(|c| c.kind() == "extends_interfaces"));
            let ifaces = ifaces
                .map(|i| text(i).trim_start_matches("implements").trim_start_matches("extends").trim().to_string());
            (sup, ifaces)
        }
        Language::Python => {
            let bases = class.child_by_field_name("superclasses").map(|s| text(s).trim_matches(['(', ')']).to_string());
            (bases.filter(|b| !b.is_empty()), None)
        }
    }
}

/// Direct members of the class body (Python decorated definitions unwrapped).
fn body_members(class: Node<'_>) -> Vec<Node<'_>> {
    let Some(body) = class.child_by_field_name("body") else { return Vec::new() };
    let mut members = Vec::new();
    for member in children(body) {
        if member.kind() == "enum_body_declarations" {
            members.extend(children(member));
        } else if member.kind() == "decorated_definition" {
            members.extend(member.child_by_field_name("definition"));
        } else {
            members.push(member);
        }
    }
    members
}

/// Java field declarations and enum constants; Python class attributes and the `self.x`
/// attributes its methods assign (first assignment of each).
fn fields(file: &SourceFile, class: Node<'_>, members: &[Node<'_>]) -> Vec<String> {
    let mut out = Vec::new();
    for member in members {
        match member.kind() {
            "field_declaration" | "constant_declaration" | "enum_constant" => {
                out.push(format!("  {} {}", file.anchor(*member), one_line(file.text(*member))));
            }
            "expression_statement" if file.lang == Language::Python => {
                out.push(format!("  {} class attribute: {}", file.anchor(*member), one_line(file.text(*member))));
            }
            _ => {}
        }
    }
    if file.lang == Language::Python {
        out.extend(instance_attributes(file, class, members));
    }
    out
}

fn instance_attributes(file: &SourceFile, class: Node<'_>, members: &[Node<'_>]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for method in members.iter().filter(|m| is_method(file.lang, **m)) {
        for n in descendants(*method) {
            let is_self =
                n.kind() == "attribute" && n.child_by_field_name("object").is_some_and(|o| file.text(o) == "self");
            if !is_self || enclosing_class(file, n).map(|c| c.id()) != Some(class.id()) {
                continue;
            }
            if classify(file, n).role != Role::Use && seen.insert(file.text(n).to_string()) {
                out.push(format!(
                    "  {} instance attribute {}: {}",
                    file.anchor(n),
                    file.text(n),
                    file.line(line_of(n)).trim()
                ));
            }
        }
    }
    out
}

/// get_imports: the package declaration (Java) and every import statement, in order.
pub(crate) fn get_imports(file: &SourceFile, out: &mut Output) {
    let imports = super::syntax::imports(file);
    out.push(format!(
        "imports of {}: {}",
        file.rel,
        imports.iter().filter(|n| !n.kind().starts_with("package")).count()
    ));
    for node in imports {
        out.push(format!("  {} {}", file.anchor(node), one_line(file.text(node))));
    }
}
