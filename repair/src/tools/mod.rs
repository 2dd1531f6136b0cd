//! Internal-ingredient tools (ReinFix §3.1, Table 1) over tree-sitter, for Java and Python.
//!
//! A [`Toolbox`] answers the nine code-analysis tools ReinFix offers the model in its
//! reasoning phase. ReinFix runs them as Joern queries over a code property graph; here
//! each is a tree-sitter walk of the project's `.java` and `.py` files. Every answer is
//! plain text in which each fact is anchored `path:line` (path relative to the project
//! root), code lines read `{line}: {text}`, order is deterministic (source order within a
//! file, path order across files), and the whole is capped at
//! [`ToolConfig::max_output_chars`] with a closing `... [truncated: N more lines]`.
//!
//! | tool | ReinFix Table 1 purpose | what this implementation does | what it does not |
//! |---|---|---|---|
//! | `identify_variable` | variable definitions and usages in a file | declarations (field, local, parameter, loop, catch, `as`) with written types, then every other reference line with its enclosing method | no scope resolution: same-named variables of different methods are all listed (each labelled with its method) |
//! | `find_variable_assignments` | all assignments to a variable | initialised declarations, `=`, compound ops, `++`/`--`, loop variables, bindings, with the value | no writes through aliases, arrays' elements or setters |
//! | `track_variable_dataflow` | value sources and destinations | per method: definitions, uses in order with the definitions that may reach them (branches joined, loops to a fixpoint, jumps), variables read into it, where its values go | intra-procedural and syntactic: no aliasing, no calls followed, no short-circuit or exception edges inside `try` bodies |
//! | `trace_method_usage` | how and in which file a method is used | definitions and every call site in the project (`f()`, `x.f()`, `new F()`, `X::f`) with caller and line | calls are matched by name: no type resolution of receivers or overloads |
//! | `analyze_method_details` | comprehensive method analysis | signature, return type, parameters, locals, calls made, exceptions declared/thrown/handled, control structures with lines | no types inferred where none are written (Python) |
//! | `find_method_in_file` | the method and its control flow | numbered source of the method (all overloads; Python decorators included) | — |
//! | `find_class_loc` | where a class is defined | file and line range of every class, interface, enum or record with that name, nested ones marked | no package-qualified disambiguation |
//! | `identify_class` | class definition with attributes and methods | declaration, superclass/bases, interfaces, fields (Python class and `self.` attributes), method signatures, nested classes | inherited members are not merged in |
//! | `get_imports` | all import statements of a file | Java package and imports, Python `import`/`from` statements at any depth | imports are not resolved to files |
//!
//! Besides the tools, the same parse answers where a method is: [`method_spans`] (every
//! method of a file, for fault localization) and, for a repair location given by name
//! (`--method parse(String, int)`), [`methods_named`] and [`resolve_method`] (which
//! refuses a name that several methods have).
//!
//! Paths given by the model are confined to the project root: absolute paths, `..` and
//! symlinks leading out are refused. Parsed files are cached keyed on path and content
//! hash, so a file changed by a patch between calls is parsed again.
//!
//! ```
//! use repair::tools::Toolbox;
//! use serde_json::json;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("gcd.py"), "def gcd(a, b):\n    return a if b == 0 else gcd(b, a % b)\n")?;
//! let tools = Toolbox::new(dir.path());
//! let answer = tools.call("trace_method_usage", &json!({"method": "gcd"}))?;
//! assert!(answer.contains("gcd.py:2 in gcd"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod classes;
mod dataflow;
mod methods;
mod render;
pub(crate) mod schema;
mod signature;
pub(crate) mod source;
mod specs;
mod syntax;
mod variables;

use std::path::Path;

use engine::embed::LineRange;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use render::Output;
pub use schema::check_arguments;
use source::Project;

/// One tool as offered to the model: OpenAI-style function name, description and the
/// JSON schema of its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// The function name the model calls, e.g. `find_method_in_file`.
    pub name: String,
    /// One paragraph for the model: what the tool returns and when to use it.
    pub description: String,
    /// JSON schema (`{"type":"object","properties":{..},"required":[..]}`) of the arguments.
    pub parameters: Value,
}

/// Knobs of a [`Toolbox`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolConfig {
    /// Most characters (bytes of UTF-8 text, line breaks included) one answer may have;
    /// longer answers keep whole leading lines and end with a truncation notice.
    pub max_output_chars: usize,
}

impl Default for ToolConfig {
    /// 4,000 characters, about 1,000 tokens.
    fn default() -> Self {
        ToolConfig { max_output_chars: 4_000 }
    }
}

/// A failed tool call. Messages are written for the model: they say what was wrong and
/// what to try instead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The model called a tool that does not exist.
    #[error("unknown tool `{name}`; available tools: {available}")]
    UnknownTool {
        /// The name called.
        name: String,
        /// The nine tool names.
        available: String,
    },
    /// A required argument is absent, empty or not a string.
    #[error("tool `{tool}` needs the string argument `{argument}`")]
    MissingArgument {
        /// The tool called.
        tool: String,
        /// The argument missing.
        argument: String,
    },
    /// The arguments were not a JSON object.
    #[error("tool `{tool}` takes a JSON object of arguments, got: {got}")]
    InvalidArguments {
        /// The tool called.
        tool: String,
        /// The arguments received, as JSON text.
        got: String,
    },
    /// The path is absolute or leaves the project root.
    #[error("path `{path}` is outside the project; give a path relative to the project root, without `..`")]
    PathOutsideRoot {
        /// The path given.
        path: String,
    },
    /// No file at that path (or with that bare name) in the project.
    #[error("file `{path}` not found in the project; give a path relative to the project root")]
    FileNotFound {
        /// The path given.
        path: String,
    },
    /// A bare file name that several project files have.
    #[error("several files are named `{path}`: {candidates}; give the full relative path")]
    AmbiguousFile {
        /// The name given.
        path: String,
        /// The matching relative paths.
        candidates: String,
    },
    /// The file is neither `.java` nor `.py`.
    #[error("file `{path}` is not a .java or .py file; these tools analyse Java and Python sources only")]
    UnsupportedLanguage {
        /// The path given.
        path: String,
    },
    /// tree-sitter could not parse the file.
    #[error("file `{path}` could not be parsed")]
    Parse {
        /// The file.
        path: String,
    },
    /// No method by that name in the file (or project).
    #[error("method `{method}` not found in {path}; methods there: {available}")]
    MethodNotFound {
        /// The method asked for.
        method: String,
        /// Where it was looked for.
        path: String,
        /// The methods that exist there (qualified names).
        available: String,
    },
    /// A method location (`name`, `Owner.name`) that several methods have (overloads, or
    /// methods of different classes), where one is needed: a repair location.
    #[error("method `{method}` is ambiguous in {path}: {}; {}", .candidates.join(", "), ambiguity_hint(.example.as_deref()))]
    AmbiguousMethod {
        /// The location given.
        method: String,
        /// The file, relative to the project root.
        path: String,
        /// Each method it names as a location with its first line, in source order:
        /// `parse(String) line 12`, `parse(String, int) line 30`.
        candidates: Vec<String>,
        /// A location that names one of them only (`parse(String, int)`); `None` when their
        /// signatures are alike (methods of anonymous classes): only lines tell them apart.
        example: Option<String>,
    },
    /// No class by that name in the project.
    #[error("class `{class}` not found in the project; classes defined: {available}")]
    ClassNotFound {
        /// The class asked for.
        class: String,
        /// The classes that exist.
        available: String,
    },
    /// The variable is not mentioned in the file (or method).
    #[error("variable `{variable}` not found in {path}; variables assigned there: {known}")]
    VariableNotFound {
        /// The variable asked for.
        variable: String,
        /// Where it was looked for.
        path: String,
        /// Variables declared or assigned there.
        known: String,
    },
}

/// What to do about an ambiguous method ([`ToolError::AmbiguousMethod`]).
fn ambiguity_hint(example: Option<&str>) -> String {
    match example {
        Some(e) => format!("give one with its parameter types, e.g. `{e}`"),
        None => "give its lines instead".to_string(),
    }
}

/// The nine internal-ingredient tools over one project directory.
///
/// `Toolbox` is `Send + Sync`; calls take `&self` and share a parse cache.
#[derive(Debug)]
pub struct Toolbox {
    project: Project,
    config: ToolConfig,
}

impl Toolbox {
    /// Tools over the project at `project_root`, with the default [`ToolConfig`].
    /// Cost: O(1); nothing is read until a call.
    pub fn new(project_root: impl AsRef<Path>) -> Toolbox {
        Toolbox::with_config(project_root, ToolConfig::default())
    }

    /// Tools over the project at `project_root` with `config`.
    pub fn with_config(project_root: impl AsRef<Path>, config: ToolConfig) -> Toolbox {
        Toolbox { project: Project::new(project_root.as_ref()), config }
    }

    /// The tools without the project entries `skip` names (root-relative path, is a
    /// folder; the run's [`crate::validate::scratch::ScratchFilter`]): such files are never listed,
    /// searched or read, e.g. QuixBugs' correct programs, which would leak the fix.
    #[must_use]
    pub fn with_skip(mut self, skip: crate::validate::scratch::ScratchFilter) -> Toolbox {
        self.project = self.project.with_skip(skip);
        self
    }

    /// The project root (canonicalised when it exists).
    pub fn root(&self) -> &Path {
        self.project.root()
    }

    /// The nine tool specifications, in ReinFix Table 1 order.
    pub fn specs(&self) -> Vec<ToolSpec> {
        specs::all()
    }

    /// Runs tool `name` with JSON object `args` and returns its plain-text answer, at
    /// most [`ToolConfig::max_output_chars`] long.
    ///
    /// Cost: file tools parse one file (cached); `trace_method_usage`, `find_class_loc`
    /// and `identify_class` parse every project source file (cached).
    ///
    /// # Errors
    ///
    /// A [`ToolError`] whose message is meant to go back to the model: unknown tool,
    /// missing argument, path outside the root, file not found, unsupported extension,
    /// unknown method / class / variable (listing what exists).
    pub fn call(&self, name: &str, args: &Value) -> Result<String, ToolError> {
        let args = Args::new(name, args)?;
        let mut out = Output::default();
        self.answer(&args, &mut out)?;
        tracing::debug!(tool = name, "tool answered");
        Ok(out.finish(self.config.max_output_chars))
    }

    /// Every method, constructor or function that the location `method` names in `file`
    /// (relative to the project root), in source order, never empty: `name` or `Owner.name`,
    /// optionally with a parameter list that picks overloads (`parse(String, int)`: Java
    /// parameters by type as written, whitespace, package qualifiers and type arguments
    /// aside; Python parameters by name, `self` optional). Lines as [`method_spans`] gives
    /// them. Cost: one parse of the file (cached).
    ///
    /// # Errors
    /// A file outside the project or unreadable; [`ToolError::MethodNotFound`] when no
    /// method has that name (listing the file's methods) or none of those with it has those
    /// parameters (listing them with their parameters and lines).
    pub fn methods_named(&self, file: &Path, method: &str) -> Result<Vec<MethodSpan>, ToolError> {
        let loaded = self.project.load(&self.project.resolve(&file.to_string_lossy())?)?;
        Ok(signature::select(&loaded, method)?.iter().map(|m| MethodSpan::of(&loaded, m)).collect())
    }

    /// The one method that the location `method` names in `file` (as
    /// [`Toolbox::methods_named`] reads it).
    ///
    /// # Errors
    /// As [`Toolbox::methods_named`], and [`ToolError::AmbiguousMethod`] when it names
    /// several (overloads, or methods of different classes), listing them with their
    /// parameters and lines.
    pub fn resolve_method(&self, file: &Path, method: &str) -> Result<MethodSpan, ToolError> {
        let loaded = self.project.load(&self.project.resolve(&file.to_string_lossy())?)?;
        let found = signature::select(&loaded, method)?;
        match found.as_slice() {
            [one] => Ok(MethodSpan::of(&loaded, one)),
            _ => Err(signature::ambiguous(&loaded, method, &found)),
        }
    }

    /// The 1-based, inclusive line span of the first method, constructor or function that
    /// `method` names in `file` ([`Toolbox::methods_named`]; [`Toolbox::resolve_method`]
    /// refuses a location that names several): the declaration itself, a Python function's
    /// decorators excluded.
    ///
    /// # Errors
    /// As [`Toolbox::methods_named`].
    pub fn method_span(&self, file: &Path, method: &str) -> Result<LineRange, ToolError> {
        Ok(self.methods_named(file, method)?[0].lines)
    }

    fn answer(&self, args: &Args<'_>, out: &mut Output) -> Result<(), ToolError> {
        match args.tool {
            "identify_variable" => variables::identify_variable(&*self.file(args)?, args.get("variable")?, out),
            "find_variable_assignments" => {
                variables::find_variable_assignments(&*self.file(args)?, args.get("variable")?, out)
            }
            "track_variable_dataflow" => self.dataflow(args, out),
            "trace_method_usage" => methods::trace_method_usage(&self.project.parsed_files(), args.get("method")?, out),
            "analyze_method_details" => methods::analyze_method_details(&*self.file(args)?, args.get("method")?, out),
            "find_method_in_file" => methods::find_method_in_file(&*self.file(args)?, args.get("method")?, out),
            "find_class_loc" => classes::find_class_loc(&self.project.parsed_files(), args.get("class")?, out),
            "identify_class" => self.identify_class(args, out),
            "get_imports" => {
                classes::get_imports(&*self.file(args)?, out);
                Ok(())
            }
            other => Err(ToolError::UnknownTool { name: other.to_string(), available: specs::TOOL_NAMES.join(", ") }),
        }
    }

    fn file(&self, args: &Args<'_>) -> Result<std::sync::Arc<source::SourceFile>, ToolError> {
        self.project.load(&self.project.resolve(args.get("file")?)?)
    }

    fn dataflow(&self, args: &Args<'_>, out: &mut Output) -> Result<(), ToolError> {
        let file = self.file(args)?;
        let var = args.get("variable")?;
        let wanted = syntax::VarName::parse(var);
        let candidates = match args.optional("method") {
            Some(method) => methods::find(&file, method)?,
            None => syntax::methods(&file),
        };
        let mut any = false;
        for method in candidates {
            let refs = syntax::variable_refs(&file, method.node, &wanted);
            if refs.iter().all(|r| syntax::enclosing_method(&file, *r).map(|m| m.id()) != Some(method.node.id())) {
                continue;
            }
            if any {
                out.push("");
            }
            any = true;
            let title = format!("{} ({})", method.qualified(), file.span(method.node));
            dataflow::track(&file, method.node, &title, var, out);
        }
        if !any {
            let mut err = variables::not_found(&file, var);
            if let (ToolError::VariableNotFound { path, .. }, Some(m)) = (&mut err, args.optional("method")) {
                path.push_str(&format!(" (method {m})"));
            }
            return Err(err);
        }
        Ok(())
    }

    fn identify_class(&self, args: &Args<'_>, out: &mut Output) -> Result<(), ToolError> {
        let only = args.optional("file").map(|f| self.project.resolve(f)).transpose()?;
        classes::identify_class(&self.project.parsed_files(), args.get("class")?, only.as_deref(), out)
    }
}

/// A tool call's arguments, checked to be a JSON object for a known tool.
#[derive(Debug)]
struct Args<'a> {
    tool: &'a str,
    map: &'a serde_json::Map<String, Value>,
}

impl<'a> Args<'a> {
    fn new(tool: &'a str, args: &'a Value) -> Result<Args<'a>, ToolError> {
        if !specs::TOOL_NAMES.contains(&tool) {
            return Err(ToolError::UnknownTool { name: tool.to_string(), available: specs::TOOL_NAMES.join(", ") });
        }
        let map = args
            .as_object()
            .ok_or_else(|| ToolError::InvalidArguments { tool: tool.to_string(), got: args.to_string() })?;
        Ok(Args { tool, map })
    }

    /// A required non-empty string argument.
    fn get(&self, name: &str) -> Result<&'a str, ToolError> {
        self.optional(name)
            .ok_or_else(|| ToolError::MissingArgument { tool: self.tool.to_string(), argument: name.to_string() })
    }

    /// An optional string argument; empty strings count as absent.
    fn optional(&self, name: &str) -> Option<&'a str> {
        self.map.get(name).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty())
    }
}

/// [`Toolbox::method_span`] over the project at `root`.
///
/// # Errors
/// As [`Toolbox::method_span`].
pub fn method_span(root: &Path, file: &Path, method: &str) -> Result<LineRange, ToolError> {
    Toolbox::new(root).method_span(file, method)
}

/// [`Toolbox::methods_named`] over the project at `root`.
///
/// # Errors
/// As [`Toolbox::methods_named`].
pub fn methods_named(root: &Path, file: &Path, method: &str) -> Result<Vec<MethodSpan>, ToolError> {
    Toolbox::new(root).methods_named(file, method)
}

/// [`Toolbox::resolve_method`] over the project at `root`: the check of a repair location
/// given by name (`fixdex repair --method`).
///
/// # Errors
/// As [`Toolbox::resolve_method`].
pub fn resolve_method(root: &Path, file: &Path, method: &str) -> Result<MethodSpan, ToolError> {
    Toolbox::new(root).resolve_method(file, method)
}

/// One method, constructor or function of a file ([`method_spans`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodSpan {
    /// `Owner.name` (the innermost enclosing class, interface, enum or record), or `name`
    /// outside any class; a constructor's name is its class's.
    pub name: String,
    /// Its 1-based lines, from the declaration (a Python function's decorators excluded) to
    /// the closing line.
    pub lines: LineRange,
    /// Its parameters as a location names them ([`Toolbox::methods_named`]), as written on
    /// one line: Java's types (`int`, `Map<String, Integer>`, `String...`), Python's names
    /// (`self`, `*args`).
    pub params: Vec<String>,
}

impl MethodSpan {
    /// The span of `m`, a method of `file`.
    fn of(file: &source::SourceFile, m: &syntax::MethodDef<'_>) -> MethodSpan {
        MethodSpan { name: m.qualified(), lines: source::lines_of(m.node), params: signature::params(file, m.node) }
    }

    /// The location that names it with its parameters: `Owner.name(int, String)`.
    #[must_use]
    pub fn signature(&self) -> String {
        format!("{}({})", self.name, self.params.join(", "))
    }
}

/// The methods, constructors and functions of the Java or Python file at `path`, in source
/// order (nested ones after their parent): the one method-span extractor of fixdex, shared by
/// the tools' `find_method_in_file`, SBFL's method aggregation ([`crate::fl`]) and the
/// repair location ([`method_span`]). Empty for other extensions, unreadable and unparsable
/// files; invalid UTF-8 is read lossily.
#[must_use]
pub fn method_spans(path: &Path) -> Vec<MethodSpan> {
    let Some(lang) = crate::Language::from_path(path) else { return Vec::new() };
    let Ok(bytes) = std::fs::read(path) else { return Vec::new() };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let Ok(file) = source::SourceFile::parse(path.display().to_string(), lang, text, 0) else { return Vec::new() };
    syntax::methods(&file).iter().map(|m| MethodSpan::of(&file, m)).collect()
}
