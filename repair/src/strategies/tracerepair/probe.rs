//! Runtime probes (TraceRepair's Phase 1, ../shared/papers: the probe agent): logging
//! statements injected into a copy of the buggy file with tree-sitter, never by regex.
//!
//! A probe writes one line to stderr, `[fixdex-probe] L<line> <what>`, where `<line>` is the
//! 1-based line of the original file:
//! - after an assignment or a local variable declaration with a value, the new value of each
//!   assigned name: `L12 total=42`;
//! - at the start of each arm of an `if` (`then`, `else`; Python's `elif` arms too), which
//!   arm ran: `L14 branch=then`.
//!
//! Each probe is wrapped so that it can never change the program's behaviour: Java
//! `try { FixdexProbe.emit(...); } catch (Throwable t) {}`, Python a one-line
//! `try: _fixdex_emit(...)` / `except Exception: pass`. Values go through a bounded renderer
//! added to the file (Java: a package-private class `FixdexProbe` appended after the file's
//! types; Python: `_fixdex_render` and `_fixdex_emit` inserted after the module docstring and
//! `__future__` imports): `null`/`None`, at most [`MAX_ITEMS`] elements of an array or
//! collection, and at most [`MAX_CHARS`] characters (`...(N chars)` marks a cut). The
//! emitters count what they wrote and stop after [`MAX_TRACE_BYTES`] with one `cut:` line
//! (the seed paper's 10 MB guard); [`Trace::from_stderr`] keeps the last
//! [`KEPT_TRACE_BYTES`] for the prompt.
//!
//! [`auto_sites`] is the deterministic `--probe auto` mode (no model): every assignment and
//! every `if` arm of the localized method. Sites where a statement cannot be inserted
//! safely are skipped and counted: a Java `if` arm that is a single statement without
//! braces, a Python arm or statement on its header's line, a Java declaration without a value
//! (a read before definite assignment would not compile).

use tree_sitter::{Node, Parser};

use crate::Language;

/// The prefix every probe line starts with.
pub const PREFIX: &str = "[fixdex-probe]";

/// Elements of an array, list or collection a rendered value shows at most.
pub const MAX_ITEMS: usize = 20;

/// Characters of a rendered value at most (longer ones are cut and marked).
pub const MAX_CHARS: usize = 200;

/// Bytes of probe output a run writes at most (the seed paper's guard): past it the probes
/// stop writing, after one line `[fixdex-probe] cut: N bytes written`.
pub const MAX_TRACE_BYTES: usize = 10 * 1024 * 1024;

/// Bytes of trace a prompt keeps ([`Trace::from_stderr`]): the last ones, the state just
/// before the failure.
pub const KEPT_TRACE_BYTES: usize = 20 * 1024;

/// The first line of a trace whose earlier lines were cut.
pub const CUT_MARK: &str = "... (earlier probe lines cut)";

/// What a probe reports.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Observe {
    /// The value of `expr` (a name, field or element as written in the source) after the
    /// statement on `line`.
    Value {
        /// The expression, as written.
        expr: String,
    },
    /// The value of `expr` just before the statement on `line` runs (model-named probes,
    /// [`named_sites`]): `L<line> before: <expr>=<value>`.
    Before {
        /// The expression, as the model named it.
        expr: String,
    },
    /// That this arm of the `if` on `line` ran: `then`, `elif` or `else`.
    Branch {
        /// The arm.
        arm: &'static str,
    },
}

/// One place to probe: a line of the original file and what to report there.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Site {
    /// 1-based line of the original file.
    pub line: usize,
    /// What the probe reports.
    #[serde(flatten)]
    pub observe: Observe,
    /// Byte offset in the original file where the probe statement goes.
    #[serde(skip)]
    offset: usize,
    /// Indentation of the probe statement (Python needs it; Java gets it for readability).
    #[serde(skip)]
    indent: String,
}

/// The sites [`auto_sites`] found and those it had to skip.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Sites {
    /// Where probes go, in source order.
    pub sites: Vec<Site>,
    /// Places that would have been probed but cannot take a statement (see the module doc).
    pub skipped: usize,
    /// Model-named probes refused, each with the reason ([`named_sites`]; empty for
    /// [`auto_sites`]).
    pub refused: Vec<String>,
}

/// An instrumented copy of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instrumented {
    /// The new file text.
    pub source: String,
    /// The probes it contains.
    pub sites: Vec<Site>,
    /// For each site (same order), the 1-based inclusive line range its statement occupies
    /// in [`Self::source`]: a compiler error on one of these lines names the probe to roll
    /// back ([`super::trace`]).
    pub spans: Vec<(usize, usize)>,
}

/// One probe the model asked for: the variables (names or dotted field paths) to show
/// before and after the statement on `line` (1-based, of the original file).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ProbeRequest {
    /// 1-based line of the original file.
    pub line: usize,
    /// Variable names or dotted paths (`node.next`), as the model wrote them.
    pub vars: Vec<String>,
}

/// Why a file cannot be instrumented.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    /// tree-sitter could not parse the file.
    #[error("cannot parse the file as {0}")]
    Parse(Language),
    /// No method or function spans `line`.
    #[error("no method or function contains line {0}")]
    NoMethod(usize),
}

/// Every assignment and `if` arm of the method or function that contains `line` (1-based)
/// in `text`.
///
/// # Errors
/// [`ProbeError::Parse`] when the file does not parse; [`ProbeError::NoMethod`] when no
/// method contains `line`.
pub fn auto_sites(text: &str, lang: Language, line: usize) -> Result<Sites, ProbeError> {
    let tree = parse(text, lang)?;
    let method = method_at(tree.root_node(), lang, line).ok_or(ProbeError::NoMethod(line))?;
    let mut out = Sites::default();
    walk(method, &mut |node| match lang {
        Language::Java => java_site(text, node, &mut out),
        Language::Python => python_site(text, node, &mut out),
    });
    out.sites.sort_by_key(|s| s.offset);
    Ok(out)
}

/// The probes the model named ([`ProbeRequest`]) in the method or function that contains
/// `line`, plus a branch probe at every `if` arm of that method (which arm ran): for each
/// requested line, the statement that starts on it gets a [`Observe::Before`] probe per
/// variable and, when it is a simple statement that ends its line and falls through (not a
/// `return`, `throw`/`raise`, `break`, `continue`, nor a compound statement such as a loop),
/// a [`Observe::Value`] probe after it. Refused, with the reason in [`Sites::refused`]: a
/// line outside the method or without a statement starting on it that can take a probe
/// (an unbraced Java arm, a Python statement on its header's line); a variable that is not
/// a plain name or dotted path (`[A-Za-z_][A-Za-z0-9_]*` joined by `.`), so that nothing but
/// a read is ever injected. A name that is not in scope at the line makes the copy fail to
/// compile and is rolled back ([`super::trace`]).
///
/// # Errors
/// As [`auto_sites`].
pub fn named_sites(text: &str, lang: Language, line: usize, requests: &[ProbeRequest]) -> Result<Sites, ProbeError> {
    let tree = parse(text, lang)?;
    let method = method_at(tree.root_node(), lang, line).ok_or(ProbeError::NoMethod(line))?;
    let mut out = Sites::default();
    let span = (method.start_position().row + 1, method.end_position().row + 1);
    for r in requests {
        if r.line < span.0 || r.line > span.1 {
            out.refused.push(format!("L{}: outside the method (lines {}-{})", r.line, span.0, span.1));
            continue;
        }
        let Some(stmt) = statement_on(text, method, lang, r.line) else {
            out.refused.push(format!("L{}: no statement starts on this line that can take a probe", r.line));
            continue;
        };
        let after = falls_through(stmt, lang) && ends_line(text, stmt);
        for var in &r.vars {
            if !is_plain_path(var) {
                out.refused.push(format!("L{} {var}: not a variable name or dotted path", r.line));
                continue;
            }
            let (offset, indent) = (line_start(text, stmt), indent_of(text, stmt));
            let before = Observe::Before { expr: var.clone() };
            out.sites.push(Site { line: r.line, observe: before, offset, indent });
            if after {
                out.sites.push(value_site(text, stmt, var));
            }
        }
    }
    // Which arm of each `if` ran.
    let mut arms = Sites::default();
    walk(method, &mut |node| match lang {
        Language::Java => java_site(text, node, &mut arms),
        Language::Python => python_site(text, node, &mut arms),
    });
    out.sites.extend(arms.sites.into_iter().filter(|s| matches!(s.observe, Observe::Branch { .. })));
    out.sites.sort_by_key(|s| s.offset);
    out.sites.dedup_by(|a, b| a.offset == b.offset && a.observe == b.observe);
    Ok(out)
}

/// `[A-Za-z_][A-Za-z0-9_]*` joined by `.`.
fn is_plain_path(var: &str) -> bool {
    !var.is_empty()
        && var.split('.').all(|part| {
            let mut chars = part.chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// The outermost statement of `method` that starts on `line`, first on its line and
/// directly in a block (so that a statement may go before it).
fn statement_on<'t>(text: &str, method: Node<'t>, lang: Language, line: usize) -> Option<Node<'t>> {
    let mut found = None;
    walk(method, &mut |n| {
        if found.is_some() || n.start_position().row + 1 != line || n.id() == method.id() {
            return;
        }
        let in_block = n.parent().is_some_and(|p| match lang {
            Language::Java => matches!(p.kind(), "block" | "switch_block_statement_group"),
            Language::Python => p.kind() == "block",
        });
        let statement = match lang {
            Language::Java => n.kind().ends_with("_statement") || n.kind() == "local_variable_declaration",
            Language::Python => n.kind().ends_with("_statement"),
        };
        let first_on_line = text[line_start(text, n)..n.start_byte()].trim().is_empty();
        if in_block && statement && first_on_line {
            found = Some(n);
        }
    });
    found
}

/// Whether control always reaches the line after `stmt` (a simple statement that is not a
/// jump), so a probe there runs right after it.
fn falls_through(stmt: Node<'_>, lang: Language) -> bool {
    let jumps: &[&str] = match lang {
        Language::Java => &[
            "return_statement",
            "throw_statement",
            "break_statement",
            "continue_statement",
            "yield_statement",
            "if_statement",
            "for_statement",
            "enhanced_for_statement",
            "while_statement",
            "do_statement",
            "try_statement",
            "try_with_resources_statement",
            "switch_expression",
            "synchronized_statement",
            "labeled_statement",
            "block",
        ],
        Language::Python => &[
            "return_statement",
            "raise_statement",
            "break_statement",
            "continue_statement",
            "if_statement",
            "for_statement",
            "while_statement",
            "try_statement",
            "with_statement",
            "match_statement",
            "function_definition",
            "class_definition",
            "decorated_definition",
        ],
    };
    !jumps.contains(&stmt.kind())
}

/// `text` with a probe statement at every site and the value renderer added.
///
/// # Errors
/// [`ProbeError::Parse`] when the file does not parse.
pub fn instrument(text: &str, lang: Language, sites: &[Site]) -> Result<Instrumented, ProbeError> {
    instrument_with_limit(text, lang, sites, MAX_TRACE_BYTES)
}

/// [`instrument`] with another output guard than [`MAX_TRACE_BYTES`] (for tests).
fn instrument_with_limit(text: &str, lang: Language, sites: &[Site], limit: usize) -> Result<Instrumented, ProbeError> {
    let tree = parse(text, lang)?;
    let mut edits: Vec<(usize, String)> = sites.iter().map(|s| (s.offset, statement(lang, s))).collect();
    edits.push(match lang {
        Language::Java => (text.len(), format!("\n{}", java_renderer(limit))),
        Language::Python => (python_prelude_end(text, tree.root_node()), python_renderer(limit)),
    });
    // Stable: at one offset, the earlier site's statement comes first. The renderer's edit
    // carries no site index.
    let mut order: Vec<usize> = (0..edits.len()).collect();
    order.sort_by_key(|&i| edits[i].0);
    let mut source = String::with_capacity(text.len() + edits.iter().map(|e| e.1.len()).sum::<usize>());
    let mut spans = vec![(0, 0); sites.len()];
    let (mut at, mut row) = (0, 1);
    for i in order {
        let (offset, s) = &edits[i];
        row += text[at..*offset].matches('\n').count();
        source.push_str(&text[at..*offset]);
        // A statement after a last line without its line break starts a line of its own.
        if *offset == text.len() && !source.is_empty() && !source.ends_with('\n') && !s.starts_with('\n') {
            source.push('\n');
            row += 1;
        }
        if i < sites.len() {
            // A statement that starts with its line break begins on the next line.
            let lead = usize::from(s.starts_with('\n'));
            let body = s.trim_matches('\n').matches('\n').count();
            spans[i] = (row + lead, row + lead + body);
        }
        row += s.matches('\n').count();
        source.push_str(s);
        at = *offset;
    }
    source.push_str(&text[at..]);
    Ok(Instrumented { source, sites: sites.to_vec(), spans })
}

/// The trace of one run, as a prompt shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Trace {
    /// The last probe lines (without their prefix), at most [`KEPT_TRACE_BYTES`], whole
    /// lines, in order, after a first line [`CUT_MARK`] when cut (no count: how many lines a
    /// run printed before a stack overflow varies from run to run, and the prompt must not).
    pub text: String,
    /// Probe lines seen in the output.
    pub lines: usize,
    /// Bytes of those lines (before the cut).
    pub bytes: usize,
    /// Whether earlier lines were cut to fit [`KEPT_TRACE_BYTES`].
    pub truncated: bool,
    /// Whether the program hit the output guard ([`MAX_TRACE_BYTES`]) and stopped logging.
    pub guard_hit: bool,
}

impl Trace {
    /// The trace in a run's `stderr` (a runner's tail is enough: the part kept is the last
    /// [`KEPT_TRACE_BYTES`]).
    pub fn from_stderr(stderr: &str) -> Trace {
        let all: Vec<&str> = probe_lines(stderr).collect();
        let guard_hit = all.last().is_some_and(|l| l.starts_with("cut: "));
        let bytes = all.iter().map(|l| l.len() + 1).sum();
        let (mut kept, mut size) = (0, 0);
        for l in all.iter().rev() {
            if size + l.len() + 1 > KEPT_TRACE_BYTES {
                break;
            }
            size += l.len() + 1;
            kept += 1;
        }
        let cut = all.len() - kept;
        let mut text = if cut > 0 { format!("{CUT_MARK}\n") } else { String::new() };
        for l in &all[cut..] {
            text.push_str(l);
            text.push('\n');
        }
        Trace { text, lines: all.len(), bytes, truncated: cut > 0, guard_hit }
    }

    /// The last whole lines of [`Self::text`] within `max_bytes` (at least the last line),
    /// after a first line [`CUT_MARK`] when lines were cut; and whether
    /// anything was cut (here or before).
    #[must_use]
    pub fn tail(&self, max_bytes: usize) -> (String, bool) {
        let lines: Vec<&str> = self.text.lines().filter(|l| *l != CUT_MARK).collect();
        let (mut kept, mut size) = (0, 0);
        for l in lines.iter().rev() {
            if kept > 0 && size + l.len() + 1 > max_bytes {
                break;
            }
            size += l.len() + 1;
            kept += 1;
        }
        let cut = self.lines.saturating_sub(kept);
        let mut out = if cut > 0 { format!("{CUT_MARK}\n") } else { String::new() };
        for l in &lines[lines.len() - kept..] {
            out.push_str(l);
            out.push('\n');
        }
        (out, cut > 0)
    }

    /// Whether the run printed no probe line (the static fallback: the workflow goes on).
    pub fn is_empty(&self) -> bool {
        self.lines == 0
    }
}

/// The probe lines in `stderr`, without their prefix (`L12 total=42`), in order.
pub fn probe_lines(stderr: &str) -> impl Iterator<Item = &str> {
    stderr.lines().filter_map(|l| l.strip_prefix(PREFIX)).map(str::trim_start)
}

fn parse(text: &str, lang: Language) -> Result<tree_sitter::Tree, ProbeError> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).map_err(|_| ProbeError::Parse(lang))?;
    let tree = parser.parse(text, None).ok_or(ProbeError::Parse(lang))?;
    if tree.root_node().has_error() {
        return Err(ProbeError::Parse(lang));
    }
    Ok(tree)
}

/// The innermost method or function spanning `line`.
fn method_at(root: Node<'_>, lang: Language, line: usize) -> Option<Node<'_>> {
    let mut found = None;
    walk(root, &mut |n| {
        let spans = n.start_position().row < line && line <= n.end_position().row + 1;
        let method = match lang {
            Language::Java => {
                matches!(n.kind(), "method_declaration" | "constructor_declaration" | "compact_constructor_declaration")
            }
            Language::Python => n.kind() == "function_definition",
        };
        if spans && method {
            found = Some(n);
        }
    });
    found
}

/// Pre-order walk of `node`'s subtree.
fn walk<'t>(node: Node<'t>, f: &mut impl FnMut(Node<'t>)) {
    f(node);
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        walk(child, f);
    }
}

fn src<'a>(text: &'a str, node: Node<'_>) -> &'a str {
    &text[node.byte_range()]
}

/// The indentation of the line `node` starts on.
fn indent_of(text: &str, node: Node<'_>) -> String {
    let start = text[..node.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    text[start..].chars().take_while(|c| *c == ' ' || *c == '\t').collect()
}

/// Offset just after the line `node` ends on (after its line break), or the end of text.
fn after_line(text: &str, node: Node<'_>) -> usize {
    text[node.end_byte()..].find('\n').map_or(text.len(), |i| node.end_byte() + i + 1)
}

/// Offset at the start of the line `node` starts on.
fn line_start(text: &str, node: Node<'_>) -> usize {
    text[..node.start_byte()].rfind('\n').map_or(0, |i| i + 1)
}

fn line(node: Node<'_>) -> usize {
    node.start_position().row + 1
}

fn value_site(text: &str, stmt: Node<'_>, expr: &str) -> Site {
    Site {
        line: line(stmt),
        observe: Observe::Value { expr: expr.to_string() },
        offset: after_line(text, stmt),
        indent: indent_of(text, stmt),
    }
}

/// Whether `stmt` ends its line (nothing but whitespace or a comment after it), so a probe
/// can go on the next line.
fn ends_line(text: &str, stmt: Node<'_>) -> bool {
    let rest = &text[stmt.end_byte()..];
    let rest = rest.split('\n').next().unwrap_or("").trim();
    rest.is_empty() || rest.starts_with("//") || rest.starts_with('#')
}

fn java_site(text: &str, node: Node<'_>, out: &mut Sites) {
    let in_block = node.parent().is_some_and(|p| matches!(p.kind(), "block" | "switch_block_statement_group"));
    match node.kind() {
        "local_variable_declaration" if in_block => {
            let mut cursor = node.walk();
            for d in node.children_by_field_name("declarator", &mut cursor) {
                match (d.child_by_field_name("name"), d.child_by_field_name("value")) {
                    (Some(name), Some(_)) if ends_line(text, node) => {
                        out.sites.push(value_site(text, node, src(text, name)));
                    }
                    _ => out.skipped += 1,
                }
            }
        }
        "expression_statement" if in_block => {
            let Some(e) = node.named_child(0) else { return };
            let target = match e.kind() {
                "assignment_expression" => e.child_by_field_name("left"),
                "update_expression" => e.named_child(0),
                _ => return,
            };
            match target {
                Some(t)
                    if matches!(t.kind(), "identifier" | "field_access" | "array_access")
                        && reads_safely(t)
                        && ends_line(text, node) =>
                {
                    out.sites.push(value_site(text, node, src(text, t)));
                }
                _ => out.skipped += 1,
            }
        }
        "if_statement" => {
            for (field, arm) in [("consequence", "then"), ("alternative", "else")] {
                let Some(body) = node.child_by_field_name(field) else { continue };
                if body.kind() == "if_statement" {
                    continue; // `else if`: probed as its own if
                }
                java_arm(text, node, body, arm, out);
            }
        }
        _ => {}
    }
}

/// A probe as the first statement of a braced `if` arm.
fn java_arm(text: &str, ifs: Node<'_>, body: Node<'_>, arm: &'static str, out: &mut Sites) {
    if body.kind() != "block" {
        out.skipped += 1;
        return;
    }
    let indent = format!("{}    ", indent_of(text, ifs));
    // Just after `{`: the probe runs before anything else in the arm. The `then` arm is
    // labelled with the `if`'s line, the `else` arm with the line of its `{` (as Python's
    // `else:` line).
    let offset = body.start_byte() + 1;
    let at = if arm == "else" { line(body) } else { line(ifs) };
    out.sites.push(Site { line: at, observe: Observe::Branch { arm }, offset, indent });
}

fn python_site(text: &str, node: Node<'_>, out: &mut Sites) {
    let in_block = node.parent().is_some_and(|p| p.kind() == "block");
    match node.kind() {
        "expression_statement" if in_block => {
            let Some(e) = node.named_child(0) else { return };
            if !matches!(e.kind(), "assignment" | "augmented_assignment") {
                return;
            }
            let Some(left) = e.child_by_field_name("left") else { return };
            // `for x in xs: total += x`: the statement sits on its header's line, and a
            // probe on the next line would run after the loop.
            let on_header = node
                .parent()
                .and_then(|b| b.parent())
                .is_some_and(|h| h.start_position().row == node.start_position().row);
            if on_header || !ends_line(text, node) {
                out.skipped += 1;
                return;
            }
            let names: Vec<Node<'_>> = match left.kind() {
                "identifier" | "attribute" | "subscript" if reads_safely(left) => vec![left],
                "pattern_list" | "tuple_pattern" => {
                    let mut c = left.walk();
                    left.named_children(&mut c).filter(|n| n.kind() == "identifier").collect()
                }
                _ => Vec::new(),
            };
            for n in names {
                out.sites.push(value_site(text, node, src(text, n)));
            }
        }
        "if_statement" | "elif_clause" | "else_clause" => {
            let arm = match node.kind() {
                "if_statement" => "then",
                "elif_clause" => "elif",
                _ => "else",
            };
            let field = if node.kind() == "else_clause" { "body" } else { "consequence" };
            let Some(body) = node.child_by_field_name(field) else { return };
            let Some(first) = body.named_child(0) else { return };
            if first.start_position().row == node.start_position().row {
                out.skipped += 1; // `if x: return y` on one line
                return;
            }
            out.sites.push(Site {
                line: line(node),
                observe: Observe::Branch { arm },
                offset: line_start(text, first),
                indent: indent_of(text, first),
            });
        }
        _ => {}
    }
}

/// Whether reading `target` again (in a probe, after its assignment) has no side effect:
/// no call, increment, assignment, object creation, `await` or `yield` inside it
/// (`slots[k++] = y` and `buf[next(it)] = v` are not probed: the probe would run `k++` or
/// `next(it)` a second time).
fn reads_safely(target: Node<'_>) -> bool {
    let mut safe = true;
    walk(target, &mut |n| {
        safe &= !matches!(
            n.kind(),
            "method_invocation"
                | "update_expression"
                | "assignment_expression"
                | "object_creation_expression"
                | "array_creation_expression"
                | "lambda_expression"
                | "switch_expression"
                | "call"
                | "named_expression"
                | "await"
                | "yield"
                | "assignment"
                | "augmented_assignment"
        );
    });
    safe
}

/// The probe statement for `site`, including its line break(s).
fn statement(lang: Language, site: &Site) -> String {
    let what = match &site.observe {
        Observe::Value { expr } => (format!("{expr}="), Some(expr.as_str())),
        Observe::Before { expr } => (format!("before: {expr}="), Some(expr.as_str())),
        Observe::Branch { arm } => (format!("branch={arm}"), None),
    };
    let label = format!("{PREFIX} L{} {}", site.line, what.0);
    match lang {
        Language::Java => {
            let value = what.1.map_or(String::new(), |e| format!(" + FixdexProbe.render({e})"));
            let body =
                format!("try {{ FixdexProbe.emit({}{value}); }} catch (Throwable fixdexT) {{}}", java_str(&label));
            // A branch probe goes just after the arm's `{`, a value probe on a line of its own.
            match site.observe {
                Observe::Branch { .. } => format!("\n{}{body}", site.indent),
                Observe::Value { .. } | Observe::Before { .. } => format!("{}{body}\n", site.indent),
            }
        }
        Language::Python => {
            let value = what.1.map_or(String::new(), |e| format!(" + _fixdex_render({e})"));
            let i = &site.indent;
            format!("{i}try: _fixdex_emit({}{value})\n{i}except Exception: pass\n", py_str(&label))
        }
    }
}

fn java_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn py_str(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// The Java renderer class, appended after the file's types (package-private, so it needs
/// no file of its own).
fn java_renderer(limit: usize) -> String {
    format!(
        r#"final class FixdexProbe {{
    private static long written = 0;
    static synchronized void emit(String line) {{
        if (written > {limit}L) return;
        written += line.length() + 1;
        System.err.println(written > {limit}L ? "{PREFIX} cut: {limit} bytes written" : line);
    }}
    static String render(Object o) {{
        String s;
        try {{
            if (o == null) {{
                s = "null";
            }} else if (o.getClass().isArray()) {{
                int n = java.lang.reflect.Array.getLength(o);
                StringBuilder b = new StringBuilder("[");
                for (int i = 0; i < Math.min(n, {items}); i++) {{
                    if (i > 0) b.append(", ");
                    b.append(render(java.lang.reflect.Array.get(o, i)));
                }}
                s = b.append(n > {items} ? ", ...(" + n + " items)]" : "]").toString();
            }} else if (o instanceof java.util.Collection) {{
                java.util.Collection<?> c = (java.util.Collection<?>) o;
                StringBuilder b = new StringBuilder("[");
                int i = 0;
                for (Object x : c) {{
                    if (i == {items}) {{ b.append(", ...(" + c.size() + " items)"); break; }}
                    if (i++ > 0) b.append(", ");
                    b.append(render(x));
                }}
                s = b.append("]").toString();
            }} else if (o instanceof java.util.Map) {{
                java.util.Map<?, ?> m = (java.util.Map<?, ?>) o;
                StringBuilder b = new StringBuilder("{{");
                int i = 0;
                for (java.util.Map.Entry<?, ?> e : m.entrySet()) {{
                    if (i == {items}) {{ b.append(", ...(" + m.size() + " entries)"); break; }}
                    if (i++ > 0) b.append(", ");
                    b.append(render(e.getKey())).append("=").append(render(e.getValue()));
                }}
                s = b.append("}}").toString();
            }} else {{
                s = String.valueOf(o);
                // Object.toString's `Class@hash` changes from run to run: drop the hash.
                if (s.equals(o.getClass().getName() + "@" + Integer.toHexString(o.hashCode()))) {{
                    s = o.getClass().getSimpleName() + "@?";
                }}
            }}
        }} catch (Throwable t) {{
            s = "<" + t.getClass().getSimpleName() + ">";
        }}
        return s.length() > {chars} ? s.substring(0, {chars}) + "...(" + s.length() + " chars)" : s;
    }}
}}
"#,
        items = MAX_ITEMS,
        chars = MAX_CHARS
    )
}

/// The Python renderer, a module-level function.
fn python_renderer(limit: usize) -> String {
    format!(
        "_fixdex_written = [0]\n\n\ndef _fixdex_emit(line):\n    if _fixdex_written[0] > {limit}:\n        return\n    \
         _fixdex_written[0] += len(line) + 1\n    __import__('sys').stderr.write(('{PREFIX} cut: {limit} bytes written' \
         if _fixdex_written[0] > {limit} else line) + '\\n')\n\n\ndef _fixdex_render(v):\n    try:\n        import reprlib\n        r = reprlib.Repr()\n        \
         r.maxlist = r.maxtuple = r.maxset = r.maxfrozenset = r.maxdeque = r.maxarray = r.maxdict = {items}\n        \
         r.maxstring = r.maxother = r.maxlong = {chars}\n        s = __import__('re').sub(r' at 0x[0-9a-fA-F]+', '', r.repr(v))\n    except Exception as e:\n        \
         s = '<' + type(e).__name__ + '>'\n    return s if len(s) <= {chars} else s[:{chars}] + '...(%d chars)' % len(s)\n\n\n",
        items = MAX_ITEMS,
        chars = MAX_CHARS
    )
}

/// Where the Python renderer goes: after the module docstring and `from __future__`
/// imports (which must come first), at the start of the first other statement's line.
fn python_prelude_end(text: &str, root: Node<'_>) -> usize {
    let mut cursor = root.walk();
    let mut end = 0;
    let mut first_statement = true;
    for child in root.named_children(&mut cursor) {
        // The docstring is the first statement: comments (a shebang, a coding line, a
        // licence header) may come before it.
        let docstring = first_statement
            && child.kind() == "expression_statement"
            && child.named_child(0).is_some_and(|n| n.kind() == "string");
        if child.kind() != "comment" {
            first_statement = false;
        }
        if docstring || child.kind() == "future_import_statement" || child.kind() == "comment" {
            end = after_line(text, child);
        } else {
            return line_start(text, child).max(end);
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    const JAVA: &str = "package p;\n\npublic class Gcd {\n    public static int gcd(int a, int b) {\n        int steps = 0;\n        while (b != 0) {\n            int t = a % b;\n            a = b;\n            b = t;\n            steps++;\n        }\n        if (a < 0) {\n            a = -a;\n        } else {\n            steps += 0;\n        }\n        if (a == 0) return 1;\n        return a;\n    }\n}\n";

    const PY: &str = "\"\"\"doc\"\"\"\nfrom __future__ import annotations\n\ndef gcd(a, b):\n    steps = 0\n    while b:\n        a, b = b, a % b\n        steps += 1\n    if a < 0:\n        a = -a\n    elif a == 0:\n        a = 1\n    else:\n        pass\n    if a > 1000: return a\n    return a\n";

    #[test]
    fn java_sites_cover_assignments_and_braced_arms() {
        let s = auto_sites(JAVA, Language::Java, 8).unwrap();
        let got: Vec<(usize, Observe)> = s.sites.iter().map(|s| (s.line, s.observe.clone())).collect();
        let v = |l, e: &str| (l, Observe::Value { expr: e.to_string() });
        let b = |l, arm| (l, Observe::Branch { arm });
        assert_eq!(
            got,
            vec![
                v(5, "steps"),
                v(7, "t"),
                v(8, "a"),
                v(9, "b"),
                v(10, "steps"),
                b(12, "then"),
                v(13, "a"),
                b(14, "else"),
                v(15, "steps")
            ]
        );
        // `if (a == 0) return 1;` has an unbraced arm.
        assert_eq!(s.skipped, 1);
        assert_eq!(auto_sites(JAVA, Language::Java, 1).unwrap_err(), ProbeError::NoMethod(1));
    }

    #[test]
    fn python_sites_cover_assignments_arms_and_tuples() {
        let s = auto_sites(PY, Language::Python, 5).unwrap();
        let got: Vec<(usize, String)> = s
            .sites
            .iter()
            .map(|s| match &s.observe {
                Observe::Value { expr } | Observe::Before { expr } => (s.line, expr.clone()),
                Observe::Branch { arm } => (s.line, format!("branch={arm}")),
            })
            .collect();
        let want: Vec<(usize, String)> = [
            (5, "steps"),
            (7, "a"),
            (7, "b"),
            (8, "steps"),
            (9, "branch=then"),
            (10, "a"),
            (11, "branch=elif"),
            (12, "a"),
            (13, "branch=else"),
        ]
        .iter()
        .map(|(l, e)| (*l, e.to_string()))
        .collect();
        assert_eq!(got, want);
        assert_eq!(s.skipped, 1, "`if a > 1000: return a` is on one line");
        let one_line = "def f(xs):\n    total = 0\n    for x in xs: total += x\n    return total\n";
        let s = auto_sites(one_line, Language::Python, 2).unwrap();
        assert_eq!((s.sites.len(), s.skipped), (1, 1), "the loop body on the header line is skipped");
    }

    #[test]
    fn instrumented_copies_still_parse_and_keep_the_prelude_first() {
        for (text, lang) in [(JAVA, Language::Java), (PY, Language::Python)] {
            let sites = auto_sites(text, lang, 6).unwrap();
            let out = instrument(text, lang, &sites.sites).unwrap();
            assert!(parse(&out.source, lang).is_ok(), "{lang}:\n{}", out.source);
            assert_eq!(out.source.matches(&format!("{PREFIX} L")).count(), sites.sites.len());
        }
        let py = instrument(PY, Language::Python, &auto_sites(PY, Language::Python, 6).unwrap().sites).unwrap();
        assert!(py.source.starts_with("\"\"\"doc\"\"\"\nfrom __future__ import annotations\n\n_fixdex_written = [0]"));
    }

    /// The instrumented copies compile and run, print the probes in execution order, and
    /// the program's own output is unchanged.
    #[test]
    fn instrumented_programs_run_and_print_their_trace() {
        let dir = tempfile::tempdir().unwrap();
        let main = "    public static void main(String[] x) { System.out.println(gcd(12, 18)); }\n";
        let java = JAVA.replace("        return a;\n    }\n", &format!("        return a;\n    }}\n{main}"));
        let sites = auto_sites(&java, Language::Java, 6).unwrap();
        let out = instrument(&java, Language::Java, &sites.sites).unwrap();
        std::fs::create_dir_all(dir.path().join("p")).unwrap();
        std::fs::write(dir.path().join("p/Gcd.java"), &out.source).unwrap();
        let javac = std::process::Command::new("javac").arg("p/Gcd.java").current_dir(dir.path()).output().unwrap();
        assert!(javac.status.success(), "{}\n{}", String::from_utf8_lossy(&javac.stderr), out.source);
        let run =
            std::process::Command::new("java").args(["-cp", ".", "p.Gcd"]).current_dir(dir.path()).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&run.stdout), "6\n");
        let err = String::from_utf8_lossy(&run.stderr);
        let lines: Vec<&str> = probe_lines(&err).collect();
        assert_eq!(lines[..4], ["L5 steps=0", "L7 t=12", "L8 a=18", "L9 b=12"]);
        // Three loop iterations (12, 18) → (18, 12) → (12, 6) → (6, 0), then the else arm.
        assert_eq!(lines[lines.len() - 2..], ["L14 branch=else", "L15 steps=3"]);

        let py = format!("{PY}\nprint(gcd(12, 18))\n");
        let sites = auto_sites(&py, Language::Python, 6).unwrap();
        let out = instrument(&py, Language::Python, &sites.sites).unwrap();
        std::fs::write(dir.path().join("gcd.py"), &out.source).unwrap();
        let run = std::process::Command::new("python3").arg("gcd.py").current_dir(dir.path()).output().unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        assert_eq!(String::from_utf8_lossy(&run.stdout), "6\n");
        let err = String::from_utf8_lossy(&run.stderr);
        let lines: Vec<&str> = probe_lines(&err).collect();
        assert_eq!(lines[..4], ["L5 steps=0", "L7 a=18", "L7 b=12", "L8 steps=1"]);
        assert_eq!(lines[lines.len() - 1], "L13 branch=else");
    }

    /// A loop that would print far past the guard stops at it, marks the cut, and the
    /// trace keeps the last [`KEPT_TRACE_BYTES`] as whole lines.
    #[test]
    fn the_output_guard_stops_logging_and_the_trace_keeps_the_end() {
        let py = "def spin(n):\n    total = 0\n    for i in range(n):\n        total = total + i\n    return total\n\nprint(spin(200000))\n";
        let sites = auto_sites(py, Language::Python, 2).unwrap();
        let out = instrument_with_limit(py, Language::Python, &sites.sites, 100_000).unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("spin.py"), &out.source).unwrap();
        let run = std::process::Command::new("python3").arg("spin.py").current_dir(dir.path()).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&run.stdout), "19999900000\n");
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(err.len() < 100_000 + 200, "{} bytes of stderr", err.len());
        let trace = Trace::from_stderr(&err);
        assert!(trace.guard_hit && trace.truncated, "{trace:?}");
        assert!(trace.text.len() <= KEPT_TRACE_BYTES + 64 && trace.text.len() > KEPT_TRACE_BYTES - 64);
        assert!(trace.text.starts_with("... (") && trace.text.ends_with("cut: 100000 bytes written\n"));
        assert!(trace.text.lines().nth(1).unwrap().starts_with('L'), "whole lines");

        let (tail, cut) = trace.tail(1000);
        assert!(cut && tail.len() <= 1000 + 64 && tail.ends_with("cut: 100000 bytes written\n"), "{tail}");
        assert!(tail.starts_with(&format!("{CUT_MARK}\nL")), "{tail}");
        assert_eq!(trace.tail(KEPT_TRACE_BYTES).0, trace.text, "the kept trace already fits");

        let short = Trace::from_stderr("[fixdex-probe] L2 total=0\nother\n");
        assert_eq!(
            (short.text.as_str(), short.lines, short.truncated, short.guard_hit),
            ("L2 total=0\n", 1, false, false)
        );
        assert!(Trace::from_stderr("no probes\n").is_empty());
    }

    /// Java values render the same in every run: maps entry by entry, objects without a
    /// `toString` as `Class@?` (not their identity hash).
    #[test]
    fn the_java_renderer_is_deterministic() {
        let java = "package p;\npublic class R {\n    static class N {}\n    static int f() {\n        java.util.Map<String, Object> m = new java.util.TreeMap<>(java.util.Map.of(\"a\", new N()));\n        Object n = new N();\n        return m.size();\n    }\n    public static void main(String[] x) { System.out.println(f()); }\n}\n";
        let sites = auto_sites(java, Language::Java, 5).unwrap();
        let out = instrument(java, Language::Java, &sites.sites).unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("p")).unwrap();
        std::fs::write(dir.path().join("p/R.java"), &out.source).unwrap();
        let javac = std::process::Command::new("javac").arg("p/R.java").current_dir(dir.path()).output().unwrap();
        assert!(javac.status.success(), "{}", String::from_utf8_lossy(&javac.stderr));
        let run =
            std::process::Command::new("java").args(["-cp", ".", "p.R"]).current_dir(dir.path()).output().unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(probe_lines(&err).collect::<Vec<_>>(), ["L5 m={a=N@?}", "L6 n=N@?"]);
    }

    /// Long and large values are bounded.
    #[test]
    fn the_python_renderer_bounds_values() {
        let dir = tempfile::tempdir().unwrap();
        let prog = format!(
            "{}import sys\nprint(_fixdex_render(list(range(1000))))\nprint(_fixdex_render('x' * 5000))\n",
            python_renderer(MAX_TRACE_BYTES)
        );
        std::fs::write(dir.path().join("r.py"), prog).unwrap();
        let run = std::process::Command::new("python3").arg("r.py").current_dir(dir.path()).output().unwrap();
        let out = String::from_utf8_lossy(&run.stdout);
        let lines: Vec<&str> = out.lines().collect();
        assert!(
            lines[0].starts_with("[0, 1, 2,") && lines[0].ends_with("...]") && lines[0].len() < 150,
            "{}",
            lines[0]
        );
        assert!(lines[1].len() <= MAX_CHARS + 20, "{}", lines[1].len());
    }

    /// Model-named probes: before and after a simple statement, only before a jump or a
    /// loop header, refusals with reasons, the branch arms added; the spans name each
    /// probe's lines in the copy.
    #[test]
    fn named_sites_probe_before_and_after_and_refuse_with_reasons() {
        let req = |line, vars: &[&str]| ProbeRequest { line, vars: vars.iter().map(|v| v.to_string()).collect() };
        let requests = [
            req(7, &["t", "a"]),
            req(6, &["b"]),
            req(18, &["a"]),
            req(2, &["x"]),
            req(11, &["a"]),
            req(9, &["a[0]", "x.y", "System.exit(1)"]),
        ];
        let s = named_sites(JAVA, Language::Java, 6, &requests).unwrap();
        let got: Vec<String> = s
            .sites
            .iter()
            .map(|s| match &s.observe {
                Observe::Value { expr } => format!("L{} {expr}", s.line),
                Observe::Before { expr } => format!("L{} before {expr}", s.line),
                Observe::Branch { arm } => format!("L{} {arm}", s.line),
            })
            .collect();
        assert_eq!(
            got,
            [
                "L6 before b",
                "L7 before t",
                "L7 before a",
                "L7 t",
                "L7 a",
                "L9 before x.y",
                "L9 x.y",
                "L12 then",
                "L14 else",
                "L18 before a"
            ]
        );
        assert_eq!(s.refused.len(), 4, "{:?}", s.refused);
        assert!(s.refused[0].starts_with("L2: outside the method"), "{:?}", s.refused);
        assert!(s.refused[1].starts_with("L11: no statement"), "{:?}", s.refused);
        assert!(s.refused[2..].iter().all(|r| r.contains("not a variable name")), "{:?}", s.refused);
        let out = instrument(JAVA, Language::Java, &s.sites).unwrap();
        let lines: Vec<&str> = out.source.lines().collect();
        for (site, (a, b)) in s.sites.iter().zip(&out.spans) {
            let text = lines[a - 1..*b].join("\n");
            assert!(
                text.contains(&format!("L{} ", site.line)) && text.contains("FixdexProbe.emit"),
                "{site:?}: {text}"
            );
        }
        let py = named_sites(PY, Language::Python, 6, &[req(7, &["a", "b"]), req(15, &["a"]), req(3, &["a"])]).unwrap();
        // Line 15 (`if a > 1000: return a`) is a compound statement: a probe before it only.
        assert_eq!(py.sites.iter().filter(|s| matches!(s.observe, Observe::Before { .. })).count(), 3);
        assert_eq!(py.sites.iter().filter(|s| matches!(s.observe, Observe::Value { .. })).count(), 2);
        assert_eq!(py.refused.len(), 1, "{:?}", py.refused);
        let out = instrument(PY, Language::Python, &py.sites).unwrap();
        let lines: Vec<&str> = out.source.lines().collect();
        for (site, (a, b)) in py.sites.iter().zip(&out.spans) {
            assert_eq!(b - a, 1, "try/except: two lines");
            assert!(lines[a - 1].contains(&format!("L{} ", site.line)) && lines[b - 1].contains("except"));
        }
    }

    /// Review findings: a target whose read has a side effect is not probed (the probe would
    /// run `k++` or `next(it)` again), the renderer goes after a docstring that follows
    /// comments and after `__future__` imports, and a last line without its line break
    /// still gets its probe on a line of its own; the copy behaves as the original.
    #[test]
    fn probes_never_change_behaviour_on_awkward_files() {
        let java = "class C {\n    static int f(int[] s, int y) {\n        int k = 0;\n        s[k++] = y;\n        s[k] = y;\n        return k;\n    }\n}\n";
        let got: Vec<String> =
            auto_sites(java, Language::Java, 3).unwrap().sites.iter().map(|s| format!("{:?}", s.observe)).collect();
        assert_eq!(got, [r#"Value { expr: "k" }"#, r#"Value { expr: "s[k]" }"#], "s[k++] is skipped");

        let py = "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\n\ndef fill(n):\n    it = iter(range(n))\n    buf = [0] * n\n    for v in range(n):\n        buf[next(it)] = v\n    last = buf[-1] + 1";
        let sites = auto_sites(py, Language::Python, 7).unwrap();
        let exprs: Vec<String> = sites.sites.iter().map(|s| format!("{:?}", s.observe)).collect();
        assert_eq!(exprs.len(), 3, "it, buf, last; not buf[next(it)]: {exprs:?}");
        let out = instrument(py, Language::Python, &sites.sites).unwrap();
        assert!(parse(&out.source, Language::Python).is_ok(), "{}", out.source);
        let dir = tempfile::tempdir().unwrap();
        let prog = format!("{}\n    return buf\n\nprint(__doc__, fill(3))\n", out.source);
        std::fs::write(dir.path().join("m.py"), prog).unwrap();
        let run = std::process::Command::new("python3").arg("m.py").current_dir(dir.path()).output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&run.stdout),
            "Doc. [0, 1, 2]\n",
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(probe_lines(&err).last(), Some("L11 last=3"), "{err}");
    }

    #[test]
    fn probe_lines_are_found_in_stderr() {
        let err = "warning\n[fixdex-probe] L5 steps=0\nTraceback\n[fixdex-probe] L9 branch=then\n";
        assert_eq!(probe_lines(err).collect::<Vec<_>>(), ["L5 steps=0", "L9 branch=then"]);
    }
}
