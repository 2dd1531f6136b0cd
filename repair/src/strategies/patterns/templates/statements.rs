//! A statement moved one position up or down in its block (TBar FP14) or deleted (TBar FP15;
//! Liu et al., ISSTA 2019), and a jump made another ([`Template::MutateJump`]).

use tree_sitter::Node;

use super::calls::{named_children, targets};
use super::{Cx, Edit, Template, descendants, nested, one_line};
use crate::Language;

/// [`Template::MoveStatement`] edits per block, at most.
const MAX_MOVES_PER_BLOCK: usize = 30;

/// The statements whose deletion is [`Template::DeleteExit`]: they leave the method.
const EXITS: [&str; 3] = ["return_statement", "throw_statement", "raise_statement"];

/// The statements [`Template::DeleteStatement`] (and, for [`EXITS`], [`Template::DeleteExit`])
/// deletes (Java and Python kinds). Not
/// declarations (a later use would not compile), `try` (its handlers are the fix more often
/// than its absence) or the definitions of nested functions and classes.
const DELETABLE: [&str; 11] = [
    "expression_statement",
    "if_statement",
    "while_statement",
    "for_statement",
    "enhanced_for_statement",
    "do_statement",
    "break_statement",
    "continue_statement",
    "return_statement",
    "throw_statement",
    "raise_statement",
];

impl Cx<'_> {
    /// A statement of a block deleted (see [`Template::DeleteStatement`]; TBar FP15 "Remove
    /// Buggy Statement"; [`Template::DeleteExit`] for [`EXITS`]): a [`DELETABLE`] statement
    /// whose parent is a block (Java `block`, constructor body or `switch` case; Python
    /// `block` or module), whole lines when it is
    /// alone on its lines. Never deleted: a statement that is a bare branch or loop body
    /// (`if (c) f();`: the `if` would take the next statement), and in a Java method with a
    /// return type the last statement of its body (javac: missing return). A Python
    /// statement alone in its block, or sharing its line, becomes `pass`.
    pub(super) fn delete(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        let Some(parent) = node.parent() else { return };
        let in_block =
            matches!(parent.kind(), "block" | "constructor_body" | "switch_block_statement_group" | "module");
        if !DELETABLE.contains(&node.kind()) || !in_block || self.returns_through(node, parent) {
            return;
        }
        let line_start = self.text[..node.start_byte()].rfind('\n').map_or(0, |i| i + 1);
        let line_end = self.text[node.end_byte()..].find('\n').map_or(self.text.len(), |i| node.end_byte() + i + 1);
        let alone = self.text[line_start..node.start_byte()].trim().is_empty()
            && self.text[node.end_byte()..line_end].trim().is_empty();
        let python = self.language == Language::Python;
        let only = named_children(parent).len() == 1;
        let (start, end, replacement) = match (alone, python && (only || !alone)) {
            (_, true) => (node.start_byte(), node.end_byte(), "pass"),
            (true, false) => (line_start, line_end, ""),
            (false, false) => (node.start_byte(), node.end_byte(), ""),
        };
        let exit = EXITS.contains(&node.kind());
        out.push(Edit {
            template: if exit { Template::DeleteExit } else { Template::DeleteStatement },
            start,
            end,
            original: self.text[start..end].to_string(),
            replacement: replacement.to_string(),
            line: node.start_position().row + 1,
            summary: format!("delete {}", one_line(self.of(node))),
            from: None,
        });
    }

    /// Java: whether deleting `node`, a statement of block `parent`, leaves a path with no
    /// `return` in a method that returns a value (javac's "missing return statement", JLS
    /// 8.4.7): `node` is the last statement of its block and the method body completes
    /// normally whenever that block does ([`Cx::falls_off`]). The statement before it (if
    /// any) completes normally, or `node` would have been unreachable, so the shortened block
    /// does too. Not judged through loops, `switch`, a `finally` or a lambda.
    fn returns_through(&self, node: Node<'_>, parent: Node<'_>) -> bool {
        if self.language != Language::Java || parent.kind() != "block" {
            return false;
        }
        let mut at = parent.parent();
        let method = loop {
            match at {
                Some(m) if m.kind() == "method_declaration" => break m,
                Some(n) if !matches!(n.kind(), "lambda_expression" | "class_body") => at = n.parent(),
                _ => return false,
            }
        };
        let void = method.child_by_field_name("type").is_some_and(|t| t.kind() == "void_type");
        !void && self.falls_off(node, method)
    }

    /// Whether the body of `method` completes normally when statement (or block) `node`
    /// does: `node` is the body, or the last statement of a block that falls off, or a
    /// branch of an `if`, the body of a `try` or a `catch` block whose statement falls off
    /// (a `try` with a `finally` is not judged).
    fn falls_off(&self, node: Node<'_>, method: Node<'_>) -> bool {
        let Some(up) = node.parent() else { return false };
        match up.kind() {
            "method_declaration" => up.id() == method.id(),
            "block" => {
                let last = named_children(up).into_iter().rfind(|k| !k.kind().ends_with("comment"));
                last.is_some_and(|l| l.id() == node.id()) && self.falls_off(up, method)
            }
            "if_statement" => {
                up.child_by_field_name("condition").is_none_or(|c| c.id() != node.id()) && self.falls_off(up, method)
            }
            "try_statement" | "try_with_resources_statement" => {
                up.child_by_field_name("body").is_some_and(|b| b.id() == node.id())
                    && !has_finally(up)
                    && self.falls_off(up, method)
            }
            "catch_clause" => up.parent().is_some_and(|t| {
                matches!(t.kind(), "try_statement" | "try_with_resources_statement")
                    && !has_finally(t)
                    && self.falls_off(t, method)
            }),
            _ => false,
        }
    }

    /// Each statement of a block swapped with the next statement of that block (see
    /// [`Template::MoveStatement`]; TBar FP14 "Move Statement"): one edit covering both whose
    /// replacement is the two in swapped order with the text between them (comments,
    /// blank lines) kept in place, so that moving the first down and the second up is one
    /// edit. Made on every Java `block`/constructor body and Python `block` (not a class
    /// body) that lies within the edited lines (so both statements do). Never moved: comments, a pair
    /// where either statement declares a name the other uses ([`Cx::binds_used`]: the move
    /// would not compile in Java, and would read an unbound name in Python), a
    /// `return`/`break`/`continue`/`throw`/`raise` moved up (the statement it passes
    /// becomes unreachable; Java rejects it), a `super(…)`/`this(…)` call, `pass`,
    /// `global`/`nonlocal`, a nested function or class, a Python docstring, or two statements of the same text (no
    /// change). Cap: [`MAX_MOVES_PER_BLOCK`] per block.
    pub(super) fn move_statement(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if !matches!(node.kind(), "block" | "constructor_body")
            || node.parent().is_some_and(|p| p.kind() == "class_definition")
        {
            return;
        }
        let mut c = node.walk();
        let statements: Vec<Node<'_>> =
            node.named_children(&mut c).filter(|n| !n.kind().ends_with("comment")).collect();
        let mut made = 0;
        for (i, pair) in statements.windows(2).enumerate() {
            let (a, b) = (pair[0], pair[1]);
            if made == MAX_MOVES_PER_BLOCK {
                return;
            }
            let docstring = i == 0 && self.language == Language::Python && is_string_statement(a);
            let fixed = |s: Node<'_>| {
                matches!(
                    s.kind(),
                    "explicit_constructor_invocation"
                        | "pass_statement"
                        | "global_statement"
                        | "nonlocal_statement"
                        | "function_definition"
                        | "class_definition"
                        | "decorated_definition"
                        | "class_declaration"
                )
            };
            if docstring
                || fixed(a)
                || fixed(b)
                || is_jump(b)
                || self.of(a) == self.of(b)
                || self.binds_used(a, b)
                || self.binds_used(b, a)
            {
                continue;
            }
            let between = &self.text[a.end_byte()..b.start_byte()];
            out.push(Edit {
                template: Template::MoveStatement,
                start: a.start_byte(),
                end: b.end_byte(),
                original: self.text[a.start_byte()..b.end_byte()].to_string(),
                replacement: format!("{}{between}{}", self.of(b), self.of(a)),
                line: a.start_position().row + 1,
                summary: format!("move {} below {}", one_line(self.of(a)), one_line(self.of(b))),
                from: None,
            });
            made += 1;
        }
    }

    /// Whether statement `a` declares a name that statement `b` uses. In Python a binding
    /// declares a name only where it first appears in the function (a parameter or an
    /// earlier statement already has it): `y = x * 2` and `x = x + 1` may swap, as Java's
    /// assignments do, but `t = 0` may not move below the `print(t)` that reads it.
    fn binds_used(&self, a: Node<'_>, b: Node<'_>) -> bool {
        let mut bound = self.bound_names(a);
        if self.language == Language::Python {
            let scope = enclosing_function(a).unwrap_or(self.root);
            let earlier: Vec<&str> = descendants(scope)
                .into_iter()
                .filter(|n| n.kind() == "identifier" && n.start_byte() < a.start_byte())
                .map(|n| self.of(n))
                .collect();
            bound.retain(|name| !earlier.contains(name));
        }
        !bound.is_empty() && descendants(b).into_iter().any(|n| n.kind() == "identifier" && bound.contains(&self.of(n)))
    }

    /// The names statement `s` declares or binds: Java, a local variable or class declared
    /// at its top level; Python, anywhere in it but nested functions and classes: the
    /// names (not attributes or items) that assignments, augmented assignments, loops,
    /// `with … as` and `:=` bind, `def`/`class` names, imports.
    fn bound_names(&self, s: Node<'_>) -> Vec<&str> {
        let mut out = Vec::new();
        if self.language == Language::Java {
            match s.kind() {
                "local_variable_declaration" => {
                    let mut c = s.walk();
                    for d in s.children_by_field_name("declarator", &mut c) {
                        out.extend(d.child_by_field_name("name").map(|n| self.of(n)));
                    }
                }
                "class_declaration" => out.extend(s.child_by_field_name("name").map(|n| self.of(n))),
                _ => {}
            }
            return out;
        }
        for d in descendants(s) {
            if nested(d, s) {
                continue;
            }
            let names = match d.kind() {
                "assignment" | "augmented_assignment" | "for_statement" => {
                    d.child_by_field_name("left").map(targets).unwrap_or_default()
                }
                "as_pattern" => d.child_by_field_name("alias").map(descendants).unwrap_or_default(),
                "named_expression" | "function_definition" | "class_definition" => {
                    d.child_by_field_name("name").into_iter().collect()
                }
                "import_statement" | "import_from_statement" => descendants(d),
                _ => Vec::new(),
            };
            out.extend(names.into_iter().filter(|n| n.kind() == "identifier").map(|n| self.of(n)));
        }
        out
    }
}

/// Whether a node of `kind` is a statement a localized span can hold (Java and Python: every
/// `…_statement`, a Java local declaration).
pub(super) fn is_statement(kind: &str) -> bool {
    kind.ends_with("_statement") || kind == "local_variable_declaration"
}

/// The function-like node (Java method or constructor, Python function) deepest among
/// `file`'s nodes that holds 0-based `row`.
fn function_at<'t>(file: &[Node<'t>], row: usize) -> Option<Node<'t>> {
    let kinds = ["method_declaration", "constructor_declaration", "function_definition"];
    file.iter()
        .copied()
        .filter(|n| kinds.contains(&n.kind()) && n.start_position().row <= row && row <= n.end_position().row)
        .max_by_key(|n| n.start_byte())
}

/// Lines `lines` (1-based, inclusive) widened when they hold no statement: an *insertion
/// point*, where the fix only adds code. Defects4J's perfect localization of such a fix is the
/// line the insertion follows ([`crate::bench::defects4j::meta::touched_lines`]), often a brace,
/// a blank line or a comment, on which no template has a node to edit; a user's `--lines`
/// can be one too. The span then runs on to the first line of the next statement of the
/// enclosing method or function (the statement the inserted code would precede), or, with
/// no statement after it, back from the last statement before it. `None` when the lines
/// hold a statement, lie in no method, or the method has no statement. The insertion
/// templates ([`Template::AddGuard`] at the top of a body, the checkers and null checks
/// around the next statement) then have a place to insert at.
#[must_use]
pub fn insertion_point(text: &str, language: Language, lines: (usize, usize)) -> Option<(usize, usize)> {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&language.grammar()).ok()?;
    let tree = parser.parse(text, None)?;
    let file = descendants(tree.root_node());
    let within = |n: &Node<'_>| n.start_position().row + 1 >= lines.0 && n.end_position().row < lines.1;
    if file.iter().any(|n| is_statement(n.kind()) && within(n)) {
        return None;
    }
    let function = function_at(&file, lines.1.saturating_sub(1))?;
    let statements: Vec<Node<'_>> = descendants(function).into_iter().filter(|n| is_statement(n.kind())).collect();
    if let Some(next) =
        statements.iter().filter(|n| n.start_position().row + 1 > lines.1).min_by_key(|n| n.start_byte())
    {
        return Some((lines.0, next.start_position().row + 1));
    }
    let before = statements.iter().filter(|n| n.end_position().row + 1 < lines.0).max_by_key(|n| n.end_byte())?;
    Some((before.start_position().row + 1, lines.1))
}

/// The method or function (`method_declaration`, `function_definition`) whose body's first
/// statement begins within `lines`: where [`Template::AddGuard`] inserts, so a span at the top
/// of a body (or an insertion point widened to it, [`insertion_point`]) gets the guards as a
/// span holding the whole method does.
pub(super) fn body_begins_in<'t>(file: &[Node<'t>], lines: (usize, usize)) -> Option<Node<'t>> {
    file.iter().copied().find(|m| {
        matches!(m.kind(), "method_declaration" | "function_definition")
            && m.child_by_field_name("body")
                .and_then(|body| named_children(body).first().copied())
                .is_some_and(|first| (lines.0..=lines.1).contains(&(first.start_position().row + 1)))
    })
}

/// The loops (Java and Python kinds) that a `break` or `continue` leaves or resumes.
const LOOPS: [&str; 4] = ["for_statement", "enhanced_for_statement", "while_statement", "do_statement"];

impl Cx<'_> {
    /// A jump made another (see [`Template::MutateJump`]): an unlabelled `break` inside a loop
    /// becomes `continue`, an unlabelled `continue` becomes `break`, and a `break`,
    /// `continue` or (Java) `throw` becomes a `return` of the enclosing method's default value
    /// (every default of a `boolean` method: `return false;` and `return true;`). No `return`
    /// where the jump is in a lambda, an initializer or a class body outside a method (javac
    /// and Python reject it or it means another thing there). A `break` of a `switch` that no
    /// loop holds stays a `break` (`continue` needs a loop).
    pub(super) fn jump(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        let java = self.language == Language::Java;
        let labelled = node.named_child_count() > 0;
        let (function, in_loop) = jump_scope(node);
        let swapped = match node.kind() {
            "break_statement" => in_loop.then_some("continue"),
            "continue_statement" => Some("break"),
            "throw_statement" if java => None,
            _ => return,
        };
        let end = if java { ";" } else { "" };
        let mut made: Vec<String> = swapped.filter(|_| !labelled).map(|j| format!("{j}{end}")).into_iter().collect();
        if let Some(f) = function {
            let returns = if java { self.java_default_returns(f) } else { vec!["return".into()] };
            made.extend(returns.into_iter().map(|r| format!("{r}{end}")));
        }
        for replacement in made {
            self.push(out, Template::MutateJump, node, replacement);
        }
    }
}

/// The method, constructor or function whose own code holds the jump `node` (`None` in a
/// lambda, an initializer or a class body), and whether a loop lies between them.
fn jump_scope(node: Node<'_>) -> (Option<Node<'_>>, bool) {
    let mut in_loop = false;
    let mut cur = node.parent();
    while let Some(p) = cur {
        match p.kind() {
            "method_declaration" | "constructor_declaration" | "function_definition" => return (Some(p), in_loop),
            "lambda_expression" | "lambda" | "class_body" | "static_initializer" | "class_definition" => {
                return (None, in_loop);
            }
            k if LOOPS.contains(&k) => in_loop = true,
            _ => {}
        }
        cur = p.parent();
    }
    (None, in_loop)
}

/// The function or lambda `node` is in, if any.
fn enclosing_function(node: Node<'_>) -> Option<Node<'_>> {
    let mut cur = node.parent();
    while let Some(p) = cur {
        if matches!(p.kind(), "function_definition" | "lambda") {
            return Some(p);
        }
        cur = p.parent();
    }
    None
}

/// Whether `s` leaves its block (`return`, `break`, `continue`, `throw`, `raise`).
fn is_jump(s: Node<'_>) -> bool {
    matches!(
        s.kind(),
        "return_statement" | "break_statement" | "continue_statement" | "throw_statement" | "raise_statement"
    )
}

/// Whether `s` is an expression statement holding only a string (a Python docstring).
fn is_string_statement(s: Node<'_>) -> bool {
    s.kind() == "expression_statement"
        && s.named_child_count() == 1
        && s.named_child(0).is_some_and(|c| c.kind() == "string")
}

/// Whether a `try` statement has a `finally` block.
fn has_finally(try_statement: Node<'_>) -> bool {
    named_children(try_statement).iter().any(|k| k.kind() == "finally_clause")
}

#[cfg(test)]
mod tests {
    use super::super::testing::{apply, parses};
    use super::super::{Edit, Template, edits};
    use crate::Language;

    fn jumps(text: &str, language: Language) -> Vec<(usize, String, String)> {
        let n = text.lines().count();
        edits(text, language, (1, n))
            .into_iter()
            .filter(|e| e.template == Template::MutateJump)
            .inspect(|e| assert!(parses(&apply(text, e), language), "{}", apply(text, e)))
            .map(|e| (e.line, e.original, e.replacement))
            .collect()
    }

    #[test]
    fn java_jumps_become_each_other_and_the_methods_default_return() {
        // Apache Commons CLI's Parser.processProperties, shortened (Defects4J Cli-28: the fix
        // is `break;` -> `continue;`).
        let text = "class P {\n  boolean f(String[] keys, int k) {\n    for (String key : keys) {\n      if (key.isEmpty()) {\n        break;\n      }\n      if (key.equals(\"x\")) {\n        continue;\n      }\n    }\n    switch (k) {\n      case 1:\n        break;\n      default:\n        throw new IllegalStateException(\"k\");\n    }\n    return true;\n  }\n}\n";
        let got = jumps(text, Language::Java);
        let at = |line: usize| -> Vec<&str> { got.iter().filter(|j| j.0 == line).map(|j| j.2.as_str()).collect() };
        assert_eq!(at(5), ["continue;", "return false;", "return true;"], "{got:?}");
        assert_eq!(at(8), ["break;", "return false;", "return true;"], "{got:?}");
        // A switch's break outside a loop: no `continue`.
        assert_eq!(at(13), ["return false;", "return true;"], "{got:?}");
        assert_eq!(at(15), ["return false;", "return true;"], "{got:?}");
        assert!(got.iter().all(|j| j.1.ends_with(';')));
    }

    #[test]
    fn java_jumps_in_void_methods_constructors_and_lambdas() {
        let text = "class P {\n  P(int[] a) {\n    for (int x : a) {\n      if (x < 0) throw new IllegalArgumentException();\n    }\n  }\n  void g(java.util.List<Integer> l) {\n    l.forEach(x -> {\n      throw new RuntimeException();\n    });\n    outer:\n    for (int i = 0; i < 3; i++) {\n      while (true) {\n        break outer;\n      }\n    }\n  }\n  String h() {\n    throw new UnsupportedOperationException();\n  }\n}\n";
        let got = jumps(text, Language::Java);
        let at = |line: usize| -> Vec<&str> { got.iter().filter(|j| j.0 == line).map(|j| j.2.as_str()).collect() };
        assert_eq!(at(4), ["return;"], "a constructor returns nothing: {got:?}");
        assert!(at(9).is_empty(), "no return out of a lambda: {got:?}");
        assert_eq!(at(14), ["return;"], "a labelled break keeps its kind: {got:?}");
        assert_eq!(at(19), ["return null;"], "{got:?}");
    }

    #[test]
    fn python_break_and_continue_swap_and_return() {
        let text = "def first_even(xs):\n    for x in xs:\n        if x % 2:\n            continue\n        break\n    raise ValueError(xs)\n";
        let got = jumps(text, Language::Python);
        assert_eq!(
            got.iter().map(|j| (j.0, j.2.as_str())).collect::<Vec<_>>(),
            [(4, "break"), (4, "return"), (5, "continue"), (5, "return")],
            "`raise` is Java's `throw` only: {got:?}"
        );
    }

    fn moves(text: &str, language: Language, lines: (usize, usize)) -> Vec<(Edit, String)> {
        edits(text, language, lines)
            .into_iter()
            .filter(|e| e.template == Template::MoveStatement)
            .map(|e| {
                let out = apply(text, &e);
                (e, out)
            })
            .collect()
    }

    const BUFFER: &str = "class CharBuffer {
    private int size;
    private char[] chars;
    private int modCount;

    void append(char c) {
        size++;
        ensureCapacity(size);
        chars[size - 1] = c;
        // keep iterators honest
        modCount++;
        return;
    }

    char last() {
        int n = size - 1;
        char c = chars[n];
        modCount++;
        return c;
    }
}
";

    #[test]
    fn java_adjacent_statements_are_swapped_keeping_what_lies_between() {
        let all = moves(BUFFER, Language::Java, (1, BUFFER.lines().count()));
        let outs: Vec<&str> = all.iter().map(|(_, o)| o.as_str()).collect();
        assert!(
            outs.contains(
                &BUFFER
                    .replace("size++;\n        ensureCapacity(size);", "ensureCapacity(size);\n        size++;")
                    .as_str()
            ),
            "{all:#?}"
        );
        // The comment stays where it was, between the two.
        assert!(
            outs.contains(
                &BUFFER
                    .replace(
                        "chars[size - 1] = c;\n        // keep iterators honest\n        modCount++;",
                        "modCount++;\n        // keep iterators honest\n        chars[size - 1] = c;"
                    )
                    .as_str()
            )
        );
        // `char c` is independent of `modCount++`: that pair moves.
        assert!(outs.iter().any(|o| o.contains("modCount++;\n        char c = chars[n];")));
        // Never: a return moved up, a declaration past its use.
        assert!(
            !outs
                .iter()
                .any(|o| o.contains("return;\n        modCount++;") || o.contains("return c;\n        modCount"))
        );
        assert!(!outs.iter().any(|o| o.contains("char c = chars[n];\n        int n")));
        assert_eq!(all.len(), 4, "{all:#?}");
        for (e, out) in &all {
            assert_ne!(e.original, e.replacement);
            assert_eq!(e.original.len(), e.replacement.len());
            assert!(parses(out, Language::Java), "{out}");
        }
        // Only blocks within the edited lines: lines 7-9 hold no whole block.
        assert!(moves(BUFFER, Language::Java, (7, 9)).is_empty());
        assert_eq!(moves(BUFFER, Language::Java, (15, 20)).len(), 1);
    }

    #[test]
    fn python_moves_skip_docstrings_bindings_jumps_and_identical_statements() {
        let text = "class Stack:
    def pop(self):
        \"\"\"Remove and return the top item.\"\"\"
        item = self.items[-1]
        self.items.pop()
        self.size -= 1
        self.size -= 1
        if not self.items:
            self.empty = True
        return item

    def drain(self, sink):
        for x in self.items:
            total = x
        sink.send(total)
        pass
";
        let all = moves(text, Language::Python, (1, text.lines().count()));
        let outs: Vec<&str> = all.iter().map(|(_, o)| o.as_str()).collect();
        assert!(
            outs.contains(
                &text
                    .replace(
                        "item = self.items[-1]\n        self.items.pop()",
                        "self.items.pop()\n        item = self.items[-1]"
                    )
                    .as_str()
            ),
            "{all:#?}"
        );
        // An attribute is not a binding: `self.size -= 1` moves past `self.items.pop()`.
        assert!(
            outs.contains(
                &text
                    .replace("self.items.pop()\n        self.size -= 1", "self.size -= 1\n        self.items.pop()")
                    .as_str()
            )
        );
        // A compound statement moves as a whole, its body's indentation kept.
        assert!(
            outs.contains(
                &text
                    .replace(
                        "        self.size -= 1\n        if not self.items:\n            self.empty = True\n",
                        "        if not self.items:\n            self.empty = True\n        self.size -= 1\n"
                    )
                    .as_str()
            )
        );
        // Never: the docstring, two identical statements, `return` moved up, a loop past the
        // use of the name it binds, `pass`.
        assert!(!all.iter().any(|(e, _)| e.original.starts_with("\"\"\"")));
        assert!(!all.iter().any(|(e, _)| e.original == "self.size -= 1\n        self.size -= 1"));
        assert!(
            !all.iter().any(|(e, _)| e.original.ends_with("return item") || e.original.contains("sink.send")),
            "{all:#?}"
        );
        assert_eq!(all.len(), 3, "{all:#?}");
        assert!(all.iter().all(|(e, out)| e.original != e.replacement && parses(out, Language::Python)));
    }

    #[test]
    fn python_moves_swap_dependent_statements_of_names_bound_before() {
        // `x` is a parameter and `total` is bound before the loop: their assignments swap
        // with the statements that read them, as Java's assignments do (the order bug);
        // `n`, first bound in its statement, never moves below its reader.
        let text = "def bump_then_double(x, xs):\n    y = x * 2\n    x = x + 1\n    n = len(xs)\n    \
                    m = n + 1\n    total = 0\n    out = []\n    for v in xs:\n        out.append(total)\n        \
                    total += v\n    return y, m, out\n";
        let outs: Vec<String> =
            moves(text, Language::Python, (1, text.lines().count())).into_iter().map(|(_, o)| o).collect();
        let swapped = |a: &str, b: &str| text.replace(&format!("{a}\n{b}\n"), &format!("{b}\n{a}\n"));
        assert!(outs.contains(&swapped("    y = x * 2", "    x = x + 1")), "{outs:#?}");
        assert!(outs.contains(&swapped("        out.append(total)", "        total += v")), "{outs:#?}");
        assert!(!outs.contains(&swapped("    n = len(xs)", "    m = n + 1")), "{outs:#?}");
        assert!(outs.iter().all(|o| parses(o, Language::Python)));
    }

    fn deletes(text: &str, language: Language) -> Vec<String> {
        edits(text, language, (1, text.lines().count()))
            .into_iter()
            .filter(|e| matches!(e.template, Template::DeleteStatement | Template::DeleteExit))
            .map(|e| apply(text, &e))
            .collect()
    }

    #[test]
    fn java_deletes_whole_statements_but_not_bare_bodies_or_the_last_of_a_value_method() {
        // A Defects4J Cli-32-like loop, an if/else, a bare `if` body and a value method.
        let text = "class Wrap {\n    int next(String s, int pos) {\n        int i = pos;\n        \
                    while (i < s.length() && s.charAt(i) != ' ') {\n            ++i;\n        }\n        \
                    if (i > 40)\n            log(i);\n        if (i == 0) {\n            i = 1;\n        } else {\n            \
                    i--;\n        }\n        return i;\n    }\n    void tick(int n) {\n        count(n);\n        \
                    return;\n    }\n}\n";
        let outs = deletes(text, Language::Java);
        // `text` without these consecutive lines.
        let without = |lines: &[&str]| text.replacen(&format!("{}\n", lines.join("\n")), "", 1);
        let lp = ["        while (i < s.length() && s.charAt(i) != ' ') {", "            ++i;", "        }"];
        assert!(outs.contains(&without(&lp)), "{outs:#?}");
        let branch =
            ["        if (i == 0) {", "            i = 1;", "        } else {", "            i--;", "        }"];
        assert!(outs.contains(&without(&branch)), "{outs:#?}");
        assert!(outs.contains(&without(&["        if (i > 40)", "            log(i);"])));
        assert!(outs.contains(&without(&["            ++i;"])));
        // `log(i);` is the `if`'s bare body: deleting it would hand the `if` the next statement.
        assert!(!outs.contains(&without(&["            log(i);"])));
        // The value method's last statement stays; the void method's goes.
        assert!(!outs.contains(&without(&["        return i;"])));
        assert!(outs.contains(&without(&["        return;"])));
        // Declarations stay.
        assert!(!outs.contains(&without(&["        int i = pos;"])));
        assert!(outs.iter().all(|o| parses(o, Language::Java)), "{outs:#?}");
    }

    #[test]
    fn no_deletion_leaves_a_value_method_a_path_without_a_return() {
        // Defects4J Cli-39's shapes: the exit of a `catch` block or of an `if`'s branches that
        // end the method (javac: "missing return statement"); a loop's, a `finally`'s or a
        // `void` method's are judged as before.
        let text = "class T {
    java.net.URL url(String s) throws Exception {
        try {
            return new java.net.URL(s);
        } catch (RuntimeException e) {
            throw new Exception(e); // why
        }
    }
    int pick(boolean a) {
        if (a) {
            return 1;
        } else if (ready()) {
            log();
            return 2;
        } else {
            throw new Error();
        }
    }
    int spin() {
        while (true) {
            if (ready()) {
                return 1;
            }
        }
    }
    int tidy() {
        try {
            return 1;
        } finally {
            log();
        }
    }
    void run() {
        log();
        return;
    }
}
";
        let deleted: Vec<String> = edits(text, Language::Java, (1, text.lines().count()))
            .into_iter()
            .filter(|e| matches!(e.template, Template::DeleteStatement | Template::DeleteExit))
            .map(|e| e.original.trim().to_string())
            .collect();
        // The comment after the `catch`'s `throw` does not hide that it ends its block.
        for kept in ["return new java.net.URL(s);", "throw new Exception(e);", "return 2;", "throw new Error();"] {
            assert!(!deleted.iter().any(|d| d == kept), "{kept}: {deleted:#?}");
        }
        for made in ["log();", "return;"] {
            assert!(deleted.iter().any(|d| d == made), "{made}: {deleted:#?}");
        }
        // Not judged: inside a loop, and a `try` with a `finally`.
        assert_eq!(deleted.iter().filter(|d| *d == "return 1;").count(), 2, "{deleted:#?}");
    }

    #[test]
    fn a_deleted_return_throw_or_raise_is_its_own_template() {
        let java = "class T {\n    void f(int n) {\n        if (n < 0) {\n            throw new Error();\n        }\n        \
                    log(n);\n        if (n == 0) {\n            return;\n        }\n        while (n > 9) {\n            \
                    n--;\n            break;\n        }\n    }\n}\n";
        let py = "def g(x):\n    if x:\n        raise ValueError(x)\n    print(x)\n    return x\n";
        // The deleted statements of each template, trimmed, in source order.
        let of = |text: &str, language: Language, t: Template| -> Vec<String> {
            edits(text, language, (1, text.lines().count()))
                .into_iter()
                .filter(|e| e.template == t)
                .map(|e| e.original.trim().to_string())
                .collect()
        };
        assert_eq!(of(java, Language::Java, Template::DeleteExit), ["throw new Error();", "return;"]);
        assert_eq!(of(py, Language::Python, Template::DeleteExit), ["raise ValueError(x)", "return x"]);
        let is_exit = |s: &String| ["return", "throw", "raise"].iter().any(|k| s.starts_with(k));
        for (text, language, kept) in [(java, Language::Java, "log(n);"), (py, Language::Python, "print(x)")] {
            let others = of(text, language, Template::DeleteStatement);
            assert!(!others.iter().any(is_exit), "{others:?}");
            assert!(others.iter().any(|s| s == kept), "{others:?}");
        }
        // `break` stays a deleted statement (a jump, not an exit of the method).
        assert!(of(java, Language::Java, Template::DeleteStatement).iter().any(|s| s == "break;"));
    }

    #[test]
    fn python_deletes_keep_a_block_with_pass() {
        let text = "def f(xs):\n    for x in xs:\n        if x < 0:\n            break\n    \
                    if not xs:\n        raise ValueError(xs)\n    return xs\n";
        let outs = deletes(text, Language::Python);
        // The only statement of its block becomes `pass`; the loop goes whole.
        assert!(outs.contains(&text.replace("            break", "            pass")), "{outs:#?}");
        assert!(outs.contains(&text.replace("        if x < 0:\n            break\n", "        pass\n")), "{outs:#?}");
        assert!(outs.contains(&text.replace("    for x in xs:\n        if x < 0:\n            break\n", "")));
        assert!(outs.contains(&text.replace("    return xs\n", "")));
        assert!(outs.iter().all(|o| parses(o, Language::Python)), "{outs:#?}");
    }

    #[test]
    fn an_insertion_point_widens_to_the_next_statement_and_gets_guards() {
        use super::insertion_point;
        // Defects4J Cli-5-like: the fix inserts a null guard after the `{` line (line 3).
        let text = "class Util {\n    static String strip(String str)\n    {\n        if (str.startsWith(\"--\"))\n        \
                    {\n            return str.substring(2);\n        }\n\n        // the rest\n        return str;\n    }\n}\n";
        assert_eq!(insertion_point(text, Language::Java, (3, 3)), Some((3, 4)));
        // A blank line or a comment between statements: on to the next one.
        assert_eq!(insertion_point(text, Language::Java, (8, 9)), Some((8, 10)));
        // After the last statement: back to the last statement before.
        assert_eq!(insertion_point(text, Language::Java, (11, 11)), Some((10, 11)));
        // A span that holds a statement, or lies in no method, is left alone.
        assert_eq!(insertion_point(text, Language::Java, (10, 10)), None);
        assert_eq!(insertion_point(text, Language::Java, (1, 1)), None);
        // The widened span reaches the body's first statement, so the guards apply there;
        // the `{` line alone gives nothing to edit.
        let guards: Vec<String> = edits(text, Language::Java, (3, 4))
            .into_iter()
            .filter(|e| e.template == Template::AddGuard)
            .map(|e| apply(text, &e))
            .collect();
        let want =
            text.replace("    {\n        if (str.s", "    {\n        if (str == null) return null;\n        if (str.s");
        assert!(guards.contains(&want), "{guards:#?}");
        // Under `str == null`, `return str` is `return null`: made once.
        assert!(!guards.iter().any(|g| g.contains("if (str == null) return str;")), "{guards:#?}");
        assert!(edits(text, Language::Java, (3, 3)).is_empty());
        // A comment above the first statement: the guard goes below it, at the statement.
        let commented =
            text.replace("    {\n        if (str.s", "    {\n        // strip one or two\n        if (str.s");
        assert_eq!(insertion_point(&commented, Language::Java, (4, 4)), Some((4, 5)));
        let guards: Vec<String> = edits(&commented, Language::Java, (4, 5))
            .into_iter()
            .filter(|e| e.template == Template::AddGuard)
            .map(|e| apply(&commented, &e))
            .collect();
        assert!(
            guards
                .iter()
                .any(|g| g.contains("// strip one or two\n        if (str == null) return null;\n        if (str.s")),
            "{guards:#?}"
        );
        // Python: the line after `def` holds a docstring statement, a comment line does not.
        let py = "def f(xs):\n    # first\n    total = 0\n    return total\n";
        assert_eq!(insertion_point(py, Language::Python, (2, 2)), Some((2, 3)));
        assert_eq!(insertion_point(py, Language::Python, (3, 3)), None);
        assert!(edits(py, Language::Python, (2, 3)).iter().any(|e| e.template == Template::AddGuard));
    }
}
