//! The nine tool specifications offered to the model: names, descriptions, JSON schemas.

use serde_json::{Value, json};

use super::ToolSpec;

/// Tool names, in ReinFix Table 1 order.
pub(crate) const TOOL_NAMES: [&str; 9] = [
    "identify_variable",
    "find_variable_assignments",
    "track_variable_dataflow",
    "trace_method_usage",
    "analyze_method_details",
    "find_method_in_file",
    "find_class_loc",
    "identify_class",
    "get_imports",
];

const FILE: &str =
    "Path of a .java or .py file relative to the project root (a bare file name is looked up in the project).";
const VARIABLE: &str =
    "Variable name: a local, parameter, field or global (`x`), or an attribute as `this.x` / `self.x`.";
const METHOD: &str = "Method or function name, optionally qualified by its class (`Node.getValue`).";
const CLASS: &str = "Simple class name (`Node`); a dotted name is reduced to its last part.";

fn schema(properties: &[(&str, &str)], required: &[&str]) -> Value {
    let props: serde_json::Map<String, Value> = properties
        .iter()
        .map(|(name, doc)| (name.to_string(), json!({"type": "string", "description": doc})))
        .collect();
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

fn spec(name: &str, description: &str, parameters: Value) -> ToolSpec {
    ToolSpec { name: name.to_string(), description: description.to_string(), parameters }
}

/// The nine specifications, in [`TOOL_NAMES`] order.
// Over 60 lines: one table of nine entries (name, description, schema), read as a whole.
pub(crate) fn all() -> Vec<ToolSpec> {
    let file_var = schema(&[("file", FILE), ("variable", VARIABLE)], &["file", "variable"]);
    vec![
        spec(
            TOOL_NAMES[0],
            "Find where a variable is declared in a file (field, local, parameter, loop variable, with its declared \
             type when written) and list every other line that reads or assigns it, each as path:line with the code \
             line and the enclosing method. Use it to learn what a name in the buggy code refers to.",
            file_var.clone(),
        ),
        spec(
            TOOL_NAMES[1],
            "List every place in a file where a variable receives a value: initialised declarations, `=`, compound \
             assignments such as `+=`, `++`/`--`, loop variables and `as` bindings, each as path:line with the \
             assigned value and enclosing method. Use it to see how a variable's value is produced.",
            file_var,
        ),
        spec(
            TOOL_NAMES[2],
            "Intra-procedural data flow of one variable inside a method: its definitions (numbered D1, D2, ...; D0 is \
             the value on entry), each use in source order with the definitions that may reach it (branches joined, \
             loops iterated), which variables its values come from and where its values go (assignment targets, \
             returns, call arguments, conditions). Syntactic: no aliasing and no calls followed. Without `method`, \
             every method of the file that mentions the variable is analysed.",
            schema(&[("file", FILE), ("variable", VARIABLE), ("method", METHOD)], &["file", "variable"]),
        ),
        spec(
            TOOL_NAMES[3],
            "Find where a method is defined and every place in the project that calls it (by name, also `new Class(..)` \
             for constructors), each as path:line with the calling method and code line. Calls are matched by name, \
             not by type, so same-named methods of other classes are included; read the receiver to tell them apart.",
            schema(&[("method", METHOD)], &["method"]),
        ),
        spec(
            TOOL_NAMES[4],
            "Summarise a method in a file: line range, signature, return type, parameters with types, local variables, \
             every call it makes, exceptions declared, thrown or handled, and its control structures (if, loops, \
             switch, try, return, break) with lines. All overloads with that name are reported.",
            schema(&[("file", FILE), ("method", METHOD)], &["file", "method"]),
        ),
        spec(
            TOOL_NAMES[5],
            "Return the full source of a method or function in a file, every line prefixed with its line number \
             (`12: code`), so patches and reasoning can cite exact lines. All overloads with that name are returned.",
            schema(&[("file", FILE), ("method", METHOD)], &["file", "method"]),
        ),
        spec(
            TOOL_NAMES[6],
            "Locate the definition of a class (or interface, enum, record) anywhere in the project: file path and \
             line range, and the enclosing class for nested ones.",
            schema(&[("class", CLASS)], &["class"]),
        ),
        spec(
            TOOL_NAMES[7],
            "Describe a class's definition: declaration line, superclass or base classes, implemented interfaces, \
             fields (Python: class and instance attributes) with their declarations, method signatures with line \
             ranges, and nested classes. Give `file` to pick one of several same-named classes.",
            schema(&[("class", CLASS), ("file", FILE)], &["class"]),
        ),
        spec(
            TOOL_NAMES[8],
            "List the package declaration and every import statement of a file, each as path:line, to see which \
             libraries and project modules the code depends on.",
            schema(&[("file", FILE)], &["file"]),
        ),
    ]
}
