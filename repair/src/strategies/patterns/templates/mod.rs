//! Fix templates instantiated on the buggy method's syntax tree (tree-sitter; Java and
//! Python): each [`Edit`] replaces one node's text, in the vocabulary of the repair actions
//! ([`Template`]: ManySStuBs4J's simple-stupid-bug patterns, Karampatsis & Sutton, MSR 2020;
//! TBar's fix-pattern families, Liu et al., ISSTA 2019). Edits never touch text outside a
//! node of the method (strings and comments stay as they are).

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use tree_sitter::{Node, Parser};

use crate::Language;

mod calls;
mod chains;
mod checkers;
mod collections;
mod conditions;
mod constants;
mod equality;
mod literals;
mod project;
mod refuse;
mod statements;
mod typing;

pub use project::{MAX_FILE_BYTES, MethodDecl, ProjectTypes, simple_type};
pub use refuse::{Original, refused};
pub use statements::insertion_point;

/// The kind of fix a template makes, in the hand-written default order that breaks ties in
/// [`super::order`] (and was the `--no-retrieval` order before the fitted prior): operator
/// changes first (the most frequent single-token bugs of ManySStuBs4J), then operands off by
/// one, numerals, negated conditions, swapped arguments and operands, other methods, deleted
/// statements and unwrapped calls, the structural additions (guard, null check, try/catch),
/// and identifiers last (the most candidates). The JSON names are the action kinds'
/// ([`actions::ActionKind`]) that the template realises most directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Template {
    /// A binary operator replaced by one of its family (`<` → `<=`, `+` → `-`, `&&` → `||`).
    ChangeOperator,
    /// An operand made one larger or smaller (`n` → `n + 1`: loop bounds, indexes, ranges).
    ChangeOperand,
    /// An integer literal made one larger or smaller.
    ChangeNumeral,
    /// A condition negated, or a negation removed (`!x` → `x`, `if c` → `if !(c)`).
    ChangeUnaryOperator,
    /// Two adjacent arguments of a call swapped (or two indexes of a Python subscript,
    /// `d[j, k]` → `d[k, j]`). Java: not where a parameter of the project method cannot take
    /// the other argument's type (`typing.rs`).
    SwapArguments,
    /// The operands of a non-commutative binary expression or comparison swapped
    /// (`result + s` → `s + result`, `a[j] < a[i]` → `a[i] < a[j]`).
    SwapOperands,
    /// A called method replaced by another of the same arity (ManySStuBs4J's "different
    /// method, same arguments"): one declared in the file, one called elsewhere in it with as
    /// many arguments, its pair among `any`/`all`, `min`/`max` and the like, or (Java)
    /// another method of the receiver's class in the project or of `String` (TBar FP7). Java:
    /// not one whose return type its place cannot take, or whose parameters the arguments
    /// cannot be passed to, where the project tells (`typing.rs`).
    DifferentMethod,
    /// One statement of a block deleted (TBar FP15 "Remove Buggy Statement";
    /// `statements.rs`): an expression statement, an `if` (with its `else`), a loop, or a
    /// `break`/`continue`. A deleted `return`/`throw`/`raise` is [`Template::DeleteExit`].
    DeleteStatement,
    /// A one-argument call replaced by its argument where its value is used
    /// (`add(flatten(x))` → `add(x)`, `yield f(x)` → `yield x`); Java: not where the
    /// argument's type does not fit the call's place (`typing.rs`).
    UnwrapCall,
    /// An early return added at the top of the method body, per parameter (TBar FP2 "Insert
    /// Null Pointer Checker", its return form): Java `if (p == null) return D;` (arrays,
    /// strings and collections also `p == null || p.isEmpty()`, `.length == 0`; numbers
    /// `p <= 0`), Python `if not p: return D`; `D` from the return type (Java) or among `p`,
    /// `None`, `0` (Python); `return;` in a `void` method. Made when the lines hold the method
    /// or its body's first statement.
    AddGuard,
    /// A null check before a dereference: a condition `c` that dereferences `r` becomes
    /// `r == null || c` or `r != null && c` (`r is None or c`, `r is not None and c`;
    /// parenthesised only where precedence needs it), and a one-line statement that
    /// dereferences `r` runs only `if (r != null)` (`if r is not None:`). `c` is an
    /// `if`/`while` condition, a `?:` condition, or a returned, assigned or initialised boolean
    /// value ([`order`](super::order)'s prior v12).
    AddNullCheck,
    /// A one-line expression statement wrapped in `try { … } catch (Exception e) { }`
    /// (Python: `try: … except Exception: pass`).
    WrapTryCatch,
    /// A literal replaced (TBar FP9 "Mutate Literal Expression"): a boolean by its negation,
    /// a string by another string literal of the file or `""`, a number by `0`, `1`, `-1` or
    /// another numeric literal of the method, in its own kind (`0.0f`, `0L`) (`literals.rs`).
    MutateLiteral,
    /// A sub-condition of an `if`/loop condition removed (`a && b` → `a`) or added
    /// (`a` → `a && x != null`, with the operands the method has) (TBar FP6 "Mutate
    /// Conditional Expression"; `conditions.rs`).
    MutateCondition,
    /// A return's expression replaced by another expression of the return type that the
    /// method uses: another return's, `null` (Java objects), a parameter or local of that
    /// type (Python: any parameter) (TBar FP12 "Mutate Return Statement"; `literals.rs`).
    MutateReturn,
    /// A call given one argument more or fewer, where the called method has such an overload
    /// in the file or (Java) in the receiver's project class (`project.rs`); the extra
    /// argument from the variables in scope (TBar FP10 "Mutate Method
    /// Invocation Expression"; `calls.rs`); Java: not a list whose arguments the overload's
    /// known parameter types cannot take (`typing.rs`).
    ChangeArgumentCount,
    /// A constructor call's arguments changed: one dropped or added where the class has such
    /// a constructor in the file (or is created with that many arguments elsewhere), or
    /// (Java) one replaced by another name in scope of its declared type; swaps are
    /// [`Template::SwapArguments`]' (TBar FP5 "Mutate Class Instance Creation"; `calls.rs`).
    ConstructorArguments,
    /// A call on a receiver inserted where a sibling branch of the same `if` makes it (TBar
    /// FP4 "Insert Missed Statement"; `calls.rs`).
    InsertMissedCall,
    /// A local, field or cast type widened or narrowed: `int` ↔ `long`, `float` ↔ `double`,
    /// `short`/`byte`/`char` → `int` (TBar FP7 "Mutate Data Type"; `literals.rs`).
    MutateDataType,
    /// An integer division made floating: `a / b` → `(double) a / b` or `a / (double) b`
    /// (`n / 2` → `n / 2.0`; Python: `//` → `/`) (TBar FP8 "Mutate Integer Division
    /// Operation"; `literals.rs`).
    FloatDivision,
    /// A cast guarded by `instanceof`: the statement holding `(T) x` runs only
    /// `if (x instanceof T)`, an `if`/`while` condition `c` holding it becomes
    /// `x instanceof T && c` (TBar FP1 "Insert Cast Checker"; `checkers.rs`).
    InsertCastChecker,
    /// An index or a `get(i)`/`charAt(i)` access guarded by its bounds: the statement runs
    /// only `if (i >= 0 && i < a.length)` (`x.size()`, `s.length()`; Python
    /// `if 0 <= i < len(a):`) (TBar FP3 "Insert Range Checker"; `checkers.rs`).
    InsertRangeChecker,
    /// A statement moved one position up or down in its block (TBar FP14 "Move Statement";
    /// `statements.rs`).
    MoveStatement,
    /// A jump made another (`statements.rs`): `break` ↔ `continue` (a `break` only inside a
    /// loop), a `break`/`continue` made a `return` of the method's default value, and (Java) a
    /// `throw` made that `return` (`return;`, `return false;`/`true`, `return 0;`,
    /// `return null;` by the return type; Python `return`). Not in TBar, and rare: of the
    /// corpus's 16,931 one-hunk Java fixes, 14 make one of these edits (7 `throw` → default
    /// return, 4 `break` ↔ `continue`, 3 `break`/`continue` → `return`), against 4,843
    /// one-token substitutions (`scripts/jump-fixes.py`); a jump has at most three, so the
    /// prior orders them late at little cost.
    MutateJump,
    /// A name or an arithmetic expression replaced by a literal (`f(p1)` → `f(0)`,
    /// `x = w - 1` → `x = 1`, `f(flag)` → `f(true)`, `g(obj)` → `g(null)`): numbers take
    /// `0` and `1`, booleans both values, Java objects `null` (`constants.rs`; 0.6 % of the
    /// corpus's fixes, which [`Template::MutateLiteral`] cannot make: it replaces literals).
    ReplaceWithLiteral,
    /// One identifier replaced by another identifier the method uses; in Java only by one
    /// declared (parameter, local, field, loop variable) with the same type text in a scope
    /// that holds the use.
    ChangeIdentifier,
    /// Java: `a == b` between objects made `a.equals(b)`, `a != b` made `!a.equals(b)`
    /// (`equality.rs`; 21 of the corpus's 11,418 one-line Java fixes). Not in TBar.
    ObjectEquality,
    /// A used zero-argument call dropped from its receiver (`e.getMessage()` → `e`, `a.b().c()`
    /// → `a.c()`; `chains.rs`; 72 of the corpus's 11,418 one-line Java fixes). Not in TBar.
    /// Java: not where the receiver's type does not fit the call's place (`typing.rs`).
    DropCall,
    /// Java: a cast removed where its value is used (`(String) x.get(k)` → `x.get(k)`,
    /// `f((List) entries)` → `f(entries)`; `literals.rs`; 10 of the 2,252 one-line Java fixes
    /// of the corpus's split 0/5 that no other template made). Not in TBar. Not where the
    /// value's own type does not fit the cast's place (`typing.rs`).
    RemoveCast,
    /// A jump (`break`, `continue`, `return …`) that a sibling branch ends with, inserted
    /// after the last statement of a branch that ends without one: another branch of the
    /// same `if`/`else if`/`else` chain (Python `elif`/`else`), or another group of the same
    /// Java `switch` (the missed `break`) (TBar FP4 "Insert Missed Statement", for jumps;
    /// `calls.rs`). Rare: 13 of the corpus's 16,931 one-hunk Java fixes insert a `break` or
    /// a `return` (`scripts/jump-fixes.py`). Not in TBar as such.
    InsertMissedJump,
    /// Java: a `HashSet` or `HashMap` made the insertion-ordered `LinkedHashSet` or
    /// `LinkedHashMap` where it is created (`new HashSet<>()` → `new LinkedHashSet<>()`), its
    /// import swapped or added in the file's `java.util` imports, in sorted place
    /// (`collections.rs`). The classic fix of code that assumes a hash collection's iteration
    /// order (Shi, Gyori, Legunsen and Marinov, "Detecting Assumptions on Deterministic
    /// Implementations of Non-deterministic Specifications", ICST 2016); 8 of the corpus's
    /// 22,184 Java pairs outside the benchmarks make it. Not in TBar.
    OrderedCollection,
    /// Java: an early return after a `double` or `float` local is declared, when it is not a
    /// number: `double d = f(x);` then `if (Double.isNaN(d)) return D;` (`Float.isNaN`), `D`
    /// the method's default value or, in a method returning the local's type, the local
    /// itself (`checkers.rs`). NaN compares false with everything (IEEE 754), so code that
    /// orders or compares a NaN goes wrong silently; 21 of the corpus's 22,184 Java pairs
    /// outside the benchmarks (and outside commons-jxpath) insert an `isNaN` test, though
    /// most throw or return a value the method never names, so the corpus split gains no
    /// pair by it ([`super::order`], prior v16). In the spirit of TBar FP2's checkers (a
    /// guard before a value is used); not in TBar.
    InsertNanChecker,
    /// A `return`, `throw` or `raise` statement deleted: [`Template::DeleteStatement`]'s edit
    /// (`statements.rs`), kept apart so that the prior gives it its own share. Developers
    /// rarely make it: of the corpus's 22,184 Java pairs outside the benchmarks, 166 fixes
    /// only delete one line, 3 of them a `return` and none a `throw`. A patch that makes it
    /// passes tests by skipping what the method should do, the first of Tan, Yi, Yoshida,
    /// Mechtaev and Roychoudhury's anti-patterns ("anti-delete CFG exit node"; "Anti-patterns
    /// in Search-Based Program Repair", FSE 2016).
    DeleteExit,
    /// A retrieved similar fix's own small edit applied where it fits the method, its
    /// identifiers mapped to the method's (`super::transplant`; issue 32). Never made by
    /// [`edits`]: transplants need the neighbours, and come before every template edit.
    /// Not an action kind: the JSON name is `TRANSPLANT`.
    Transplant,
    /// Two template edits of the method made together (`super::pairs`; issue 32's
    /// multi-edit candidates), tried after every single edit. Never made by [`edits`]. Not
    /// an action kind: the JSON name is `TWO_EDITS`.
    TwoEdits,
}

impl Template {
    /// Every template, in the default order.
    pub const ALL: [Template; 35] = [
        Template::ChangeOperator,
        Template::ChangeOperand,
        Template::ChangeNumeral,
        Template::ChangeUnaryOperator,
        Template::SwapArguments,
        Template::SwapOperands,
        Template::DifferentMethod,
        Template::DeleteStatement,
        Template::UnwrapCall,
        Template::AddGuard,
        Template::AddNullCheck,
        Template::WrapTryCatch,
        Template::MutateLiteral,
        Template::MutateCondition,
        Template::MutateReturn,
        Template::ChangeArgumentCount,
        Template::ConstructorArguments,
        Template::InsertMissedCall,
        Template::MutateDataType,
        Template::FloatDivision,
        Template::InsertCastChecker,
        Template::InsertRangeChecker,
        Template::MoveStatement,
        Template::MutateJump,
        Template::ReplaceWithLiteral,
        Template::ChangeIdentifier,
        Template::ObjectEquality,
        Template::DropCall,
        Template::RemoveCast,
        Template::InsertMissedJump,
        Template::OrderedCollection,
        Template::InsertNanChecker,
        Template::DeleteExit,
        Template::Transplant,
        Template::TwoEdits,
    ];
}

/// One instantiated template: replace bytes `start..end` of the file with `replacement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The template.
    pub template: Template,
    /// First byte replaced (in the whole file).
    pub start: usize,
    /// One past the last byte replaced.
    pub end: usize,
    /// The text replaced (empty for an insertion).
    pub original: String,
    /// The new text.
    pub replacement: String,
    /// 1-based line of the edit.
    pub line: usize,
    /// `<` → `<=`, for the report.
    pub summary: String,
    /// The similar fix (its document id) a transplanted edit comes from
    /// ([`Template::Transplant`], `super::transplant`); `None` for every template edit.
    pub from: Option<String>,
}

impl Edit {
    /// `text`, the whole file the edit was made on, with the edit made: bytes
    /// `start..end` replaced by `replacement`.
    ///
    /// # Panics
    /// When `start..end` is not a range of `text` on character boundaries (the edit was made
    /// on another text).
    #[must_use]
    pub fn applied(&self, text: &str) -> String {
        format!("{}{}{}", &text[..self.start], self.replacement, &text[self.end..])
    }
}

/// Most identifier replacements per method (they grow with the square of its identifiers).
const MAX_IDENTIFIER_EDITS: usize = 400;

/// Every edit the templates make on the nodes within lines `lines.0..=lines.1` (1-based) of
/// `text`, in the default order ([`Template::ALL`], then source order), with the file alone
/// (no project declarations: [`edits_in`]). Empty when the text does not parse as `language`.
#[must_use]
pub fn edits(text: &str, language: Language, lines: (usize, usize)) -> Vec<Edit> {
    edits_in(text, language, lines, &ProjectTypes::default())
}

/// [`edits`], with the project's Java declarations (`project`, [`ProjectTypes::scan`]): a
/// call on a receiver of a project class can become another method of that class
/// ([`Template::DifferentMethod`]).
#[must_use]
pub fn edits_in(text: &str, language: Language, lines: (usize, usize), project: &ProjectTypes) -> Vec<Edit> {
    let mut parser = Parser::new();
    if parser.set_language(&language.grammar()).is_err() {
        return Vec::new();
    }
    let Some(tree) = parser.parse(text, None) else { return Vec::new() };
    let nodes: Vec<Node<'_>> = descendants(tree.root_node())
        .into_iter()
        .filter(|n| n.start_position().row + 1 >= lines.0 && n.end_position().row < lines.1)
        .collect();
    let file = descendants(tree.root_node());
    let method = nodes.iter().copied().find(|n| matches!(n.kind(), "method_declaration" | "function_definition"));
    let types = java_types(text, language, &file);
    let calls = java_calls(text, language, &types, &file);
    let cx = Cx {
        text,
        language,
        methods: methods_of(text, &file),
        types,
        fields: java_fields(text, language, &file),
        calls,
        root: tree.root_node(),
        method,
        project,
        crlf: text.contains("\r\n"),
        lines,
    };
    let mut out = Vec::new();
    for node in &nodes {
        cx.operator(*node, &mut out);
        cx.operand(*node, &mut out);
        cx.numeral(*node, &mut out);
        cx.unary(*node, &mut out);
        cx.swap(*node, &mut out);
        cx.swap_operands(*node, &mut out);
        cx.different_method(*node, &mut out);
        cx.delete(*node, &mut out);
        cx.unwrap_call(*node, &mut out);
        cx.null_check(*node, &mut out);
        cx.try_catch(*node, &mut out);
        cx.literal(*node, &mut out);
        cx.condition(*node, &mut out);
        cx.return_expression(*node, &mut out);
        cx.argument_count(*node, &mut out);
        cx.constructor_arguments(*node, &mut out);
        cx.missed_call(*node, &mut out);
        cx.missed_jump(*node, &mut out);
        cx.data_type(*node, &mut out);
        cx.float_division(*node, &mut out);
        cx.cast_checker(*node, &mut out);
        cx.range_checker(*node, &mut out);
        cx.move_statement(*node, &mut out);
        cx.jump(*node, &mut out);
        cx.to_literal(*node, &mut out);
        cx.object_equality(*node, &mut out);
        cx.drop_call(*node, &mut out);
        cx.remove_cast(*node, &mut out);
        cx.ordered_collection(*node, &mut out);
        cx.nan_checker(*node, &mut out);
    }
    if let Some(method) = method.or_else(|| statements::body_begins_in(&file, lines)) {
        cx.guard(method, &mut out);
    }
    cx.identifiers(&nodes, &mut out);
    out.sort_by_key(|e| (e.template, e.start));
    out
}

/// The syntax errors (tree-sitter `ERROR` and missing nodes) within lines `lines.0..=lines.1`
/// (1-based) of `text` parsed as `language`: 0 for a method that parses cleanly. The
/// templates still apply to the nodes that parse, so a report says how many there were
/// (issue 32, "bad input"). `None` when the grammar cannot be loaded.
#[must_use]
pub fn syntax_errors(text: &str, language: Language, lines: (usize, usize)) -> Option<usize> {
    let mut parser = Parser::new();
    parser.set_language(&language.grammar()).ok()?;
    let tree = parser.parse(text, None)?;
    let within = |n: &Node<'_>| n.start_position().row < lines.1 && n.end_position().row + 1 >= lines.0;
    Some(descendants(tree.root_node()).iter().filter(|n| (n.is_error() || n.is_missing()) && within(n)).count())
}

/// Longest snippet (lines) [`snippet_edits`] reads; longer ones give no edit.
pub const SNIPPET_MAX_LINES: usize = 300;

/// Every edit of [`edits`] on a snippet as a corpus record holds it (a Java method, a
/// Python function or module), in the default order, with offsets and `line` relative to
/// `code`: a Java snippet is parsed inside a `class Fix { … }` wrapper (tree-sitter-java
/// wants a class). Empty when `code` has more than [`SNIPPET_MAX_LINES`] lines.
#[must_use]
pub fn snippet_edits(code: &str, language: Language) -> Vec<Edit> {
    const JAVA_HEAD: &str = "class Fix {\n";
    let n = code.lines().count().max(1);
    if n > SNIPPET_MAX_LINES {
        return Vec::new();
    }
    let (text, lines, head) = match language {
        Language::Java => (format!("{JAVA_HEAD}{code}\n}}\n"), (2, n + 1), JAVA_HEAD.len()),
        Language::Python => (format!("{code}\n"), (1, n), 0),
    };
    edits(&text, language, lines)
        .into_iter()
        .filter(|e| e.start >= head && e.end <= head + code.len())
        .map(|e| Edit { start: e.start - head, end: e.end - head, line: e.line + 1 - lines.0, ..e })
        .collect()
}

/// The index in `edits` (of `buggy`, from [`snippet_edits`]) of the first edit whose result
/// is `fixed`, whitespace aside; `None` when no single template edit makes the fix.
/// O(edits × length of `buggy`).
#[must_use]
pub fn fixing_edit(buggy: &str, fixed: &str, edits: &[Edit]) -> Option<usize> {
    let want = squash(fixed);
    edits.iter().position(|e| {
        buggy
            .get(..e.start)
            .zip(buggy.get(e.end..))
            .is_some_and(|(a, b)| squash(&format!("{a}{}{b}", e.replacement)) == want)
    })
}

/// `s` with all whitespace removed: how edits and fixes are compared, so that `n+1` and
/// `n + 1` are one edit.
#[must_use]
pub fn squash(s: &str) -> String {
    s.split_whitespace().collect()
}

/// Every node below `root`, in source order.
fn descendants(root: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        out.push(n);
        let mut cursor = n.walk();
        let kids: Vec<Node<'_>> = n.children(&mut cursor).collect();
        stack.extend(kids.into_iter().rev());
    }
    out
}

/// Python: whether `node` lies inside a function, class or lambda nested in `top` (a
/// `def`/`class` itself is not inside).
fn nested(node: Node<'_>, top: Node<'_>) -> bool {
    let mut cur = node;
    while let Some(p) = cur.parent() {
        if p == top || cur == top {
            return false;
        }
        if matches!(p.kind(), "function_definition" | "class_definition" | "lambda") {
            return true;
        }
        cur = p;
    }
    false
}

/// The replacements of an operator, nearest first.
fn operator_family(op: &str, language: Language) -> &'static [&'static str] {
    match (op, language) {
        ("<", _) => &["<=", ">", "!=", ">=", "=="],
        ("<=", _) => &["<", ">=", ">", "==", "!="],
        (">", _) => &[">=", "<", "!=", "<=", "=="],
        (">=", _) => &[">", "<=", "<", "==", "!="],
        ("==", _) => &["!=", "<=", ">="],
        ("!=", _) => &["==", "<", ">"],
        ("+", _) => &["-", "*"],
        ("-", _) => &["+"],
        ("*", Language::Python) => &["/", "//", "+", "**"],
        ("*", Language::Java) => &["/", "+"],
        ("/", Language::Python) => &["//", "*", "%"],
        ("/", Language::Java) => &["*", "%"],
        ("//", _) => &["/", "%", "*"],
        ("%", Language::Python) => &["//", "/"],
        ("%", Language::Java) => &["/"],
        ("**", _) => &["*"],
        ("&&", _) => &["||"],
        ("||", _) => &["&&"],
        ("and", _) => &["or"],
        ("or", _) => &["and"],
        ("&", _) => &["|", "^"],
        ("|", _) => &["&", "^"],
        ("^", _) => &["&", "|"],
        ("<<", _) => &[">>"],
        (">>", _) => &["<<", ">>>"],
        (">>>", _) => &[">>"],
        ("+=", _) => &["-=", "*="],
        ("-=", _) => &["+="],
        ("*=", _) => &["/=", "+="],
        ("/=", _) => &["*=", "//="],
        ("//=", _) => &["/="],
        ("%=", _) => &["/="],
        ("&=", _) => &["|=", "^="],
        ("|=", _) => &["&=", "^="],
        ("^=", _) => &["&=", "|="],
        ("<<=", _) => &[">>="],
        (">>=", _) => &["<<="],
        ("is", _) => &["is not"],
        ("is not", _) => &["is"],
        ("in", _) => &["not in"],
        ("not in", _) => &["in"],
        _ => &[],
    }
}

/// Whether `node` is an operator token of a binary, comparison, boolean or compound
/// assignment expression (`+=`; `=` has no family).
fn is_binary_operator(node: Node<'_>) -> bool {
    let Some(parent) = node.parent() else { return false };
    let binary = matches!(
        parent.kind(),
        "binary_expression" | "binary_operator" | "boolean_operator" | "assignment_expression" | "augmented_assignment"
    );
    let comparison = parent.kind() == "comparison_operator";
    !node.is_named() && (binary && parent.child_by_field_name("operator") == Some(node) || comparison)
}

/// Text and language of the file under edit, with what the templates need of the whole file.
struct Cx<'t> {
    text: &'t str,
    language: Language,
    /// `(name, arity)` of every method declared or called in the file.
    methods: Vec<(&'t str, usize)>,
    /// Java: the declared type text of each name (parameters, locals, fields, loop
    /// variables); `None` for a name declared with two types. Empty for Python.
    types: HashMap<&'t str, Option<&'t str>>,
    /// Java: the names declared as fields anywhere in the file (what a name visible at a
    /// node but declared on none of its scopes can be: [`Cx::visible_types`]).
    fields: HashSet<&'t str>,
    /// Java: `(receiver, name, arity)` of every method call in the file, the receiver as
    /// [`Cx::receiver_key`] says (`None`: unqualified, `this` or `super`).
    calls: Vec<(Option<&'t str>, &'t str, usize)>,
    /// The file's syntax tree.
    root: Node<'t>,
    /// The first method or function declared within the edited lines (the localized one).
    method: Option<Node<'t>>,
    /// Java: the project's classes ([`ProjectTypes`]; empty with the file alone).
    project: &'t ProjectTypes,
    /// Whether the file breaks its lines with `\r\n`: the line breaks an edit writes are
    /// written so too ([`Cx::breaks`]), not a bare `\n` among them.
    crlf: bool,
    /// The localized lines (1-based, inclusive): an edit must lie within them (the strategy
    /// drops one that reaches outside), so a template that would also change text elsewhere
    /// (an import) makes the edit that stays inside instead.
    lines: (usize, usize),
}

/// Pairs of functions that a bug swaps for one another though nothing in the file calls the
/// other (Python built-ins, `Math`).
const METHOD_PAIRS: &[(&str, &str)] =
    &[("any", "all"), ("min", "max"), ("floor", "ceil"), ("startswith", "endswith"), ("append", "extend")];

/// The arity of a call's argument list (0 when there is none).
fn arity(args: Option<Node<'_>>) -> usize {
    args.map_or(0, |a| {
        let mut c = a.walk();
        a.named_children(&mut c).filter(|n| n.kind() != "comment").count()
    })
}

/// The name node and argument list of a call: Java `o.m(a)` / `m(a)`, Python `f(a)` / `o.f(a)`.
fn call_parts(node: Node<'_>) -> Option<(Node<'_>, Node<'_>)> {
    match node.kind() {
        "method_invocation" => Some((node.child_by_field_name("name")?, node.child_by_field_name("arguments")?)),
        "call" => {
            let f = node.child_by_field_name("function")?;
            let name = match f.kind() {
                "identifier" => f,
                "attribute" => f.child_by_field_name("attribute")?,
                _ => return None,
            };
            Some((name, node.child_by_field_name("arguments")?))
        }
        _ => None,
    }
}

/// `(name, arity)` of the methods declared (parameters, less Python's `self`) and called in
/// the file, once each.
fn methods_of<'t>(text: &'t str, file: &[Node<'_>]) -> Vec<(&'t str, usize)> {
    let mut out: Vec<(&'t str, usize)> = Vec::new();
    for n in file {
        let found = match n.kind() {
            "method_declaration" | "function_definition" => {
                n.child_by_field_name("name").map(|name| (&text[name.byte_range()], declared_arity(text, *n)))
            }
            _ => call_parts(*n).map(|(name, args)| (&text[name.byte_range()], arity(Some(args)))),
        };
        if let Some(m) = found.filter(|m| !out.contains(m)) {
            out.push(m);
        }
    }
    out
}

/// The parameters a method or function declaration takes (less Python's `self`).
fn declared_arity(text: &str, declaration: Node<'_>) -> usize {
    declaration.child_by_field_name("parameters").map_or(0, |p| {
        let mut c = p.walk();
        p.named_children(&mut c).filter(|x| x.kind() != "comment" && &text[x.byte_range()] != "self").count()
    })
}

/// Java: the names declared as fields in the file (see [`Cx::fields`]).
fn java_fields<'t>(text: &'t str, language: Language, file: &[Node<'_>]) -> HashSet<&'t str> {
    if language != Language::Java {
        return HashSet::new();
    }
    let mut out = HashSet::new();
    for n in file.iter().filter(|n| n.kind() == "field_declaration") {
        let mut c = n.walk();
        for d in n.children_by_field_name("declarator", &mut c) {
            if let Some(name) = d.child_by_field_name("name") {
                out.insert(&text[name.byte_range()]);
            }
        }
    }
    out
}

/// See [`Cx::receiver_key`].
fn receiver_key<'t>(text: &'t str, types: &HashMap<&'t str, Option<&'t str>>, call: Node<'_>) -> Option<&'t str> {
    let object = call.child_by_field_name("object")?;
    let own = &text[object.byte_range()];
    match object.kind() {
        "this" | "super" => None,
        "identifier" => Some(types.get(own).copied().flatten().unwrap_or(own)),
        _ => Some(own),
    }
}

/// Java: `(receiver, name, arity)` of every method call in the file (`file`: its nodes),
/// and the methods it declares as unqualified calls (see [`Cx::calls`]). Empty in Python.
fn java_calls<'t>(
    text: &'t str,
    language: Language,
    types: &HashMap<&'t str, Option<&'t str>>,
    file: &[Node<'_>],
) -> Vec<(Option<&'t str>, &'t str, usize)> {
    if language != Language::Java {
        return Vec::new();
    }
    let mut out = Vec::new();
    for n in file {
        let call = match n.kind() {
            "method_declaration" => {
                n.child_by_field_name("name").map(|name| (None, &text[name.byte_range()], declared_arity(text, *n)))
            }
            "method_invocation" => call_parts(*n)
                .map(|(name, args)| (receiver_key(text, types, *n), &text[name.byte_range()], arity(Some(args)))),
            _ => None,
        };
        if let Some(c) = call.filter(|c| !out.contains(c)) {
            out.push(c);
        }
    }
    out
}

/// Java primitive and boxed number types (and `char`, which arithmetic promotes).
const NUMERIC_TYPES: &[&str] = &[
    "int",
    "long",
    "short",
    "byte",
    "char",
    "double",
    "float",
    "Integer",
    "Long",
    "Short",
    "Byte",
    "Character",
    "Double",
    "Float",
];

/// Java: the type text declared for each name in the file (see [`Cx::types`]).
fn java_types<'t>(text: &'t str, language: Language, file: &[Node<'_>]) -> HashMap<&'t str, Option<&'t str>> {
    let mut out: HashMap<&'t str, Option<&'t str>> = HashMap::new();
    if language != Language::Java {
        return out;
    }
    let mut add = |name: Node<'_>, ty: Node<'_>| {
        let (name, ty) = (&text[name.byte_range()], &text[ty.byte_range()]);
        let e = out.entry(name).or_insert(Some(ty));
        if *e != Some(ty) {
            *e = None;
        }
    };
    for n in file {
        let Some(ty) = n.child_by_field_name("type") else { continue };
        match n.kind() {
            "formal_parameter" | "enhanced_for_statement" | "catch_formal_parameter" => {
                if let Some(name) = n.child_by_field_name("name") {
                    add(name, ty);
                }
            }
            "local_variable_declaration" | "field_declaration" => {
                let mut c = n.walk();
                for d in n.children_by_field_name("declarator", &mut c) {
                    if let Some(name) = d.child_by_field_name("name") {
                        add(name, ty);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

impl Cx<'_> {
    fn of(&self, node: Node<'_>) -> &str {
        &self.text[node.byte_range()]
    }

    fn push(&self, out: &mut Vec<Edit>, template: Template, node: Node<'_>, replacement: String) {
        let replacement = self.breaks(replacement);
        let summary = format!("{} → {}", one_line(self.of(node)), one_line(&replacement));
        out.push(Edit {
            template,
            start: node.start_byte(),
            end: node.end_byte(),
            original: self.of(node).to_string(),
            replacement,
            line: node.start_position().row + 1,
            summary,
            from: None,
        });
    }

    /// A binary expression's left operand, operator text and right operand (Java
    /// `binary_expression`, Python `binary_operator`); `None` for any other node.
    fn binary<'n>(&self, node: Node<'n>) -> Option<(Node<'n>, &str, Node<'n>)> {
        if !matches!(node.kind(), "binary_expression" | "binary_operator") {
            return None;
        }
        let op = node.child_by_field_name("operator")?;
        Some((node.child_by_field_name("left")?, self.of(op), node.child_by_field_name("right")?))
    }

    /// Java: whether `node` is evidently not a number, so that arithmetic or an order on it
    /// does not compile (javac: "bad operand types for binary operator"): `null`, a string,
    /// boolean or class literal, `this`, an object or array creation, a comparison or
    /// logical expression, a string expression ([`Cx::is_string`]), or a name whose type
    /// where it is used ([`Cx::visible_types`]) is not a primitive or boxed number. An
    /// expression whose type the tree cannot tell (a call, a field access) is not evident.
    /// Always `false` in Python.
    fn not_numeric(&self, node: Node<'_>) -> bool {
        if self.language != Language::Java {
            return false;
        }
        match node.kind() {
            "null_literal"
            | "string_literal"
            | "true"
            | "false"
            | "this"
            | "class_literal"
            | "object_creation_expression"
            | "array_creation_expression"
            | "instanceof_expression" => true,
            "parenthesized_expression" => node.named_child(0).is_some_and(|n| self.not_numeric(n)),
            "binary_expression" => self.evidently_boolean(node) || self.is_string(node),
            "identifier" => self.visible_types(node).get(self.of(node)).is_some_and(|ty| !NUMERIC_TYPES.contains(ty)),
            _ => false,
        }
    }

    /// `<` → `<=` and the rest of its family.
    fn operator(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if !is_binary_operator(node) {
            return;
        }
        let op = self.of(node).split_whitespace().collect::<Vec<_>>().join(" ");
        // `x == null` only flips: an order against `null` / `None` is never valid.
        let null = node.parent().is_some_and(|p| {
            (0..p.named_child_count())
                .filter_map(|i| p.named_child(u32::try_from(i).ok()?))
                .any(|c| matches!(c.kind(), "null_literal" | "none"))
        });
        // Java: on an evident non-number (a string, an object, a boolean) only the
        // operators that apply to any type (javac refuses the rest).
        let objects = node.parent().is_some_and(|p| {
            [p.child_by_field_name("left"), p.child_by_field_name("right")]
                .into_iter()
                .flatten()
                .any(|o| self.not_numeric(o))
        });
        let any_type = |to: &str| matches!(to, "==" | "!=" | "&&" | "||" | "&" | "|" | "^");
        for to in operator_family(&op, self.language)
            .iter()
            .filter(|to| !null || matches!(**to, "==" | "!="))
            .filter(|to| !objects || any_type(to))
        {
            self.push(out, Template::ChangeOperator, node, (*to).to_string());
        }
    }

    /// Either side of a comparison, an array index, a slice bound, the arguments of
    /// `range(...)`, and a call's identifier or arithmetic arguments, one larger and one
    /// smaller (off-by-one in loop bounds, indexes and recursive calls).
    fn operand(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        let Some(parent) = node.parent() else { return };
        let comparison = match parent.kind() {
            "binary_expression" => {
                (parent.child_by_field_name("right") == Some(node) || parent.child_by_field_name("left") == Some(node))
                    && parent
                        .child_by_field_name("operator")
                        .is_some_and(|o| matches!(self.of(o), "<" | "<=" | ">" | ">=" | "==" | "!="))
            }
            "comparison_operator" => node.is_named(),
            _ => false,
        };
        let index = matches!(parent.kind(), "array_access" if parent.child_by_field_name("index") == Some(node))
            || (parent.kind() == "subscript" && subscripts(parent).contains(&node))
            || (parent.kind() == "slice" && node.is_named());
        let call = parent.parent().and_then(|c| c.child_by_field_name("function").or(c.child_by_field_name("name")));
        let range_arg =
            parent.kind() == "argument_list" && node.is_named() && call.is_some_and(|f| self.of(f) == "range");
        let call_arg = parent.kind() == "argument_list" && !range_arg && self.is_arithmetic_or_name(node);
        // An integer literal, negative ones too, is the numeral and literal templates' (`0` →
        // `1`, `-1` → `0`; not `0 + 1` or `-1 + 1`).
        let integer = |n: Node<'_>| matches!(n.kind(), "integer" | "decimal_integer_literal");
        let minus = matches!(node.kind(), "unary_expression" | "unary_operator")
            && node.child_by_field_name("operator").is_some_and(|o| self.of(o) == "-");
        let literal = integer(node) || (minus && node.named_child(0).is_some_and(integer));
        // Java: `s - 1` for a string or object `s`, or `x + 1 == null`, never compiles.
        let other_side_object = comparison
            && [parent.child_by_field_name("left"), parent.child_by_field_name("right")]
                .into_iter()
                .flatten()
                .any(|o| o != node && self.not_numeric(o));
        if (comparison || index || range_arg || call_arg || self.is_size(node))
            && !literal
            && node.kind() != "comment"
            && !self.not_numeric(node)
            && !other_side_object
        {
            let t = self.of(node);
            let atom = matches!(
                node.kind(),
                "call"
                    | "method_invocation"
                    | "field_access"
                    | "attribute"
                    | "array_access"
                    | "subscript"
                    | "parenthesized_expression"
            );
            // `a * 2 + 1`, `n - i - 1`, `-m + 1`: an additive or tighter expression needs no
            // parentheses before `± 1`, and developers write none (prior v13).
            let arithmetic = minus
                || self.binary(node).is_some_and(|(_, op, _)| matches!(op, "+" | "-" | "*" | "/" | "%" | "//" | "**"));
            let wrapped =
                if node.named_child_count() > 0 && !atom && !arithmetic { format!("({t})") } else { t.to_string() };
            self.push(out, Template::ChangeOperand, node, format!("{wrapped} + 1"));
            self.push(out, Template::ChangeOperand, node, format!("{wrapped} - 1"));
        }
        self.drop_offset(node, out);
    }

    /// The inverse of the `± 1` above: `e + k` / `e - k` (`k` an integer literal) → `e`,
    /// wherever it stands (`depth - 1` → `depth` in a call, `i < n - 1` → `i < n`, `return
    /// MAX - 1` → `return MAX`): 13 of the 2,892 one-line Java fixes of the corpus's split 0/4
    /// that no template edit made (ManySStuBs4J, mined_git_history; `- 1` most of them).
    fn drop_offset(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        let Some((left, op, right)) = self.binary(node) else { return };
        if matches!(op, "+" | "-")
            && matches!(right.kind(), "integer" | "decimal_integer_literal")
            && !self.not_numeric(left)
        {
            self.push(out, Template::ChangeOperand, node, self.of(left).to_string());
        }
    }

    /// Whether `node` is the size of a collection or string: `len(x)`, `x.size()`,
    /// `x.length()`, `x.length`.
    fn is_size(&self, node: Node<'_>) -> bool {
        let named =
            |field: &str, want: &[&str]| node.child_by_field_name(field).is_some_and(|f| want.contains(&self.of(f)));
        match node.kind() {
            "call" => named("function", &["len"]),
            "method_invocation" => {
                named("name", &["size", "length"]) && arity(node.child_by_field_name("arguments")) == 0
            }
            "field_access" => named("field", &["length"]),
            _ => false,
        }
    }

    /// Whether `node` is a plain name or an `a + b` / `a - b` expression. (Products and
    /// quotients too fixed 2 more pairs of the corpus split and lost 1: not kept.)
    fn is_arithmetic_or_name(&self, node: Node<'_>) -> bool {
        match node.kind() {
            "identifier" => true,
            "binary_expression" | "binary_operator" => {
                node.child_by_field_name("operator").is_some_and(|o| matches!(self.of(o), "+" | "-"))
            }
            _ => false,
        }
    }

    /// `k` → `k + 1` and `k - 1` (as literals).
    fn numeral(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if !matches!(node.kind(), "integer" | "decimal_integer_literal") {
            return;
        }
        let Ok(k) = self.of(node).replace('_', "").parse::<i64>() else { return };
        self.push(out, Template::ChangeNumeral, node, (k + 1).to_string());
        if k > 0 {
            self.push(out, Template::ChangeNumeral, node, (k - 1).to_string());
        }
    }

    /// `!x` / `not x` → `x`; an operand of `&&` / `||` (`and` / `or`) that is a call, name or
    /// field negated (`a != null && !a.isEmpty()`; 12 of the 84 one-line Java fixes of the
    /// corpus that insert a `!` negate such an operand, 48 a whole condition); an `if`/`while`
    /// condition negated as a developer writes it:
    /// `(!c)` / `not c` where `c` is a primary expression (a call, name, field or element
    /// access, literal), `(!(c))` / `not (c)` otherwise; a condition that is already a
    /// negation is not negated again (the first rule removes its `!`). Of the one-line Java
    /// fixes of the corpus's split 0/4 that insert a `!`, most negate a whole `if` condition
    /// (`if (status.isDir())` → `if (!status.isDir())`, ManySStuBs4J), which `(!(…))` matched
    /// only up to parentheses.
    fn unary(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if let Some(operand) = self.negated(node) {
            self.push(out, Template::ChangeUnaryOperator, node, self.of(operand).to_string());
        }
        let Some(parent) = node.parent() else { return };
        if self.logical_operator(parent).is_some()
            && is_primary(node.kind())
            && node.kind() != "parenthesized_expression"
        {
            let t = self.of(node);
            let negated = match self.language {
                Language::Java => format!("!{t}"),
                Language::Python => format!("not {t}"),
            };
            self.push(out, Template::ChangeUnaryOperator, node, negated);
        }
        if matches!(parent.kind(), "if_statement" | "while_statement" | "elif_clause")
            && parent.child_by_field_name("condition") == Some(node)
        {
            self.negate_condition(node, out);
        }
    }

    /// The operand of a negation (`!x`, `not x`); `None` for any other node.
    fn negated<'n>(&self, node: Node<'n>) -> Option<Node<'n>> {
        match node.kind() {
            "unary_expression" if node.child_by_field_name("operator").is_some_and(|o| self.of(o) == "!") => {
                node.child_by_field_name("operand")
            }
            "not_operator" => node.child_by_field_name("argument"),
            _ => None,
        }
    }

    /// The `if`/`while` condition `node` negated ([`Cx::unary`]'s third rule).
    fn negate_condition(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        let t = self.of(node);
        // The condition within its parentheses (Java's are the statement's syntax).
        let inner = match node.kind() {
            "parenthesized_expression" => named_only_child(node),
            _ => Some(node),
        };
        if inner.is_some_and(|c| self.negated(c).is_some()) {
            return;
        }
        let primary = inner.is_some_and(|c| is_primary(c.kind()));
        let negated = match (self.language, node.kind()) {
            (Language::Java, "parenthesized_expression") if primary => {
                format!("(!{})", inner.map_or(t, |c| self.of(c)))
            }
            (Language::Java, "parenthesized_expression") => format!("(!{t})"),
            (Language::Java, _) => format!("!({t})"),
            (Language::Python, _) if primary => format!("not {t}"),
            (Language::Python, _) => format!("not ({t})"),
        };
        self.push(out, Template::ChangeUnaryOperator, node, negated);
    }

    /// `f(a, b)` → `f(b, a)` for each adjacent pair (and `d[a, b]` → `d[b, a]`).
    fn swap(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        let args: Vec<Node<'_>> = match node.kind() {
            "argument_list" => {
                let mut cursor = node.walk();
                node.named_children(&mut cursor).filter(|a| a.kind() != "comment").collect()
            }
            "subscript" => subscripts(node),
            _ => return,
        };
        for pair in args.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            // Each argument where the other was must be of a type its parameter takes.
            if self.refuses_type(a, self.static_type(b)) || self.refuses_type(b, self.static_type(a)) {
                continue;
            }
            let between = &self.text[a.end_byte()..b.start_byte()];
            let swapped = format!("{}{between}{}", self.of(b), self.of(a));
            out.push(Edit {
                template: Template::SwapArguments,
                start: a.start_byte(),
                end: b.end_byte(),
                original: self.text[a.start_byte()..b.end_byte()].to_string(),
                replacement: swapped,
                line: a.start_position().row + 1,
                summary: format!("swap {} and {}", one_line(self.of(a)), one_line(self.of(b))),
                from: None,
            });
        }
    }

    /// `a - b` → `b - a` (see [`Template::SwapOperands`]): `-`, `/`, `%`, `//`, `**`, shifts,
    /// and `+` in Python and on Java strings (a literal, a `String`-typed name, a
    /// `String.valueOf`/`toString`/`substring`/`charAt` call); never comparisons (an operator
    /// change makes the same program) nor other commutative operators.
    fn swap_operands(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        let Some((l, op, r)) = self.binary(node) else { return };
        let swappable = match op {
            "-" | "/" | "%" | "//" | "**" | "<<" | ">>" | ">>>" => true,
            "+" => self.language == Language::Python || self.is_string(l) || self.is_string(r),
            _ => false,
        };
        if !swappable {
            return;
        }
        let between = &self.text[l.end_byte()..r.start_byte()];
        self.push(out, Template::SwapOperands, node, format!("{}{between}{}", self.of(r), self.of(l)));
    }

    /// Java: whether `node` is evidently a string (see [`Cx::swap_operands`]).
    fn is_string(&self, node: Node<'_>) -> bool {
        match node.kind() {
            "string_literal" => true,
            "identifier" => self.types.get(self.of(node)).copied().flatten() == Some("String"),
            "method_invocation" => {
                let name = node.child_by_field_name("name").map_or("", |n| self.of(n));
                matches!(name, "valueOf" | "toString" | "substring" | "charAt" | "concat")
            }
            "binary_expression" => {
                node.child_by_field_name("left").is_some_and(|l| self.is_string(l))
                    || node.child_by_field_name("right").is_some_and(|r| self.is_string(r))
            }
            _ => false,
        }
    }

    /// A call's method replaced by another of the same arity (see
    /// [`Template::DifferentMethod`]): its pair first, then the file's methods in source order.
    /// Java: only methods the receiver can have, as far as the file tells: a call on a
    /// receiver ([`Cx::receiver_key`]) becomes another method the file calls on the same
    /// receiver with as many arguments; an unqualified (`this.`, `super.`) one, a method the
    /// file declares or calls unqualified. With every method of the file, javac refused 9 in
    /// 10 of this template's candidates on Defects4J Cli and JxPath ("cannot find symbol").
    /// After those (at most [`MAX_METHOD_EDITS`]), the other methods of the receiver's class
    /// as the project declares it ([`Cx::class_methods`], with [`edits_in`]).
    fn different_method(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        let Some((name, args)) = call_parts(node) else { return };
        let (current, n) = (self.of(name), arity(Some(args)));
        let pairs = METHOD_PAIRS.iter().filter_map(|(a, b)| {
            if *a == current {
                Some(*b)
            } else if *b == current {
                Some(*a)
            } else {
                None
            }
        });
        let mut done: Vec<&str> = vec![current];
        let file: Vec<&str> = if self.language == Language::Java {
            let receiver = self.receiver_key(node);
            self.calls.iter().filter(|(r, _, k)| *r == receiver && *k == n).map(|(_, m, _)| *m).collect()
        } else {
            self.methods.iter().filter(|(_, k)| *k == n).map(|(m, _)| *m).collect()
        };
        let class = self.class_methods(node, current, n);
        let used = node.parent().is_some_and(|p| p.kind() != "expression_statement");
        for other in pairs.chain(file).take(MAX_METHOD_EDITS).chain(class) {
            if done.contains(&other) {
                continue;
            }
            done.push(other);
            // What javac would refuse for its type ([`typing`]): its return value where the
            // call's is used, or its parameters for these arguments.
            let returns = if used { self.return_type(node, other) } else { None };
            if self.refuses_type(node, returns) || self.refuses_arguments(node, other) {
                continue;
            }
            self.push(out, Template::DifferentMethod, name, other.to_string());
        }
    }

    /// Java: what a method call is made on, as [`Cx::calls`] keys it: `None` for an
    /// unqualified call or one on `this` / `super` (the class's own methods); the declared
    /// type of a name receiver ([`Cx::types`], when the file gives it one type); else the
    /// receiver's text (`Double`, `this.values`, `option.getOpt()`).
    fn receiver_key(&self, call: Node<'_>) -> Option<&str> {
        receiver_key(self.text, &self.types, call)
    }

    /// `f(x)` → `x` where the call's value is used (see [`Template::UnwrapCall`]).
    fn unwrap_call(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        let Some((_, args)) = call_parts(node) else { return };
        if arity(Some(args)) != 1 || node.parent().is_none_or(|p| p.kind() == "expression_statement") {
            return;
        }
        let mut cursor = args.walk();
        let Some(arg) = args.named_children(&mut cursor).find(|a| a.kind() != "comment") else { return };
        if arg.kind() == "generator_expression" || arg.kind() == "keyword_argument" {
            return;
        }
        if self.refuses_type(node, self.static_type(arg)) {
            return;
        }
        self.push(out, Template::UnwrapCall, node, self.of(arg).to_string());
    }

    /// Each identifier use replaced by each other identifier of the method (capped).
    fn identifiers(&self, nodes: &[Node<'_>], out: &mut Vec<Edit>) {
        let uses: Vec<Node<'_>> =
            nodes.iter().copied().filter(|n| n.kind() == "identifier" && !self.is_name(*n)).collect();
        // The names the method uses, and its parameters (a bug may use one parameter for
        // another that it then never reads).
        let params = self.method.into_iter().flat_map(|m| {
            let mut c = m.walk();
            let list = m.child_by_field_name("parameters").map(|p| p.named_children(&mut c).collect::<Vec<_>>());
            list.unwrap_or_default().into_iter().filter_map(|p| match p.kind() {
                "identifier" => Some(p),
                _ => p.child_by_field_name("name").filter(|n| n.kind() == "identifier"),
            })
        });
        let mut names: Vec<&str> = uses.iter().copied().chain(params).map(|n| self.of(n)).collect();
        names.retain(|n| *n != "self" && *n != "this");
        names.sort_unstable();
        names.dedup();
        let mut made = 0;
        for node in &uses {
            let this = self.of(*node);
            // Java: only a name declared with the same type where the use is (anything else
            // rarely compiles).
            let visible = if self.language == Language::Java { self.visible_types(*node) } else { HashMap::new() };
            let compatible = |other: &str| {
                self.language != Language::Java || {
                    let ty = |n: &str| visible.get(n).copied();
                    ty(this).is_some() && ty(this) == ty(other)
                }
            };
            for name in names.iter().filter(|n| **n != this && compatible(n)) {
                if made == MAX_IDENTIFIER_EDITS {
                    return;
                }
                self.push(out, Template::ChangeIdentifier, *node, (*name).to_string());
                made += 1;
            }
        }
    }

    /// Java: the declared type text of every name visible at `at`, by scope: the locals
    /// declared before it in each enclosing block (and a `for` header, resource list, catch
    /// or enhanced-for variable), the enclosing methods', constructors' and lambdas'
    /// parameters, and the enclosing classes' fields; an inner declaration hides an outer
    /// one. A name declared nowhere on that chain keeps its file-wide type ([`Cx::types`])
    /// only when it is a field of the file ([`Cx::fields`]) declared with one type: a local
    /// or parameter of another method or block is out of scope here (javac: "cannot find
    /// symbol", a third of the identifier template's compile errors on Defects4J Cli and
    /// JxPath before). So `b` declared `int` in this method and `String` in another is
    /// still an `int` here (issue 32: file-wide types blocked such replacements).
    fn visible_types(&self, at: Node<'_>) -> HashMap<&str, &str> {
        let mut out: HashMap<&str, &str> = HashMap::new();
        let mut add = |name: Option<Node<'_>>, ty: Option<Node<'_>>| {
            if let (Some(name), Some(ty)) = (name, ty) {
                out.entry(&self.text[name.byte_range()]).or_insert(&self.text[ty.byte_range()]);
            }
        };
        let declarators = |decl: Node<'_>, add: &mut dyn FnMut(Option<Node<'_>>, Option<Node<'_>>)| {
            let ty = decl.child_by_field_name("type");
            let mut c = decl.walk();
            for d in decl.children_by_field_name("declarator", &mut c) {
                add(d.child_by_field_name("name"), ty);
            }
        };
        let mut node = at;
        while let Some(scope) = node.parent() {
            let mut c = scope.walk();
            match scope.kind() {
                "block" | "switch_block_statement_group" | "constructor_body" => {
                    for kid in scope.named_children(&mut c).filter(|k| k.start_byte() < at.start_byte()) {
                        if kid.kind() == "local_variable_declaration" {
                            declarators(kid, &mut add);
                        }
                    }
                }
                "for_statement" => {
                    let mut c2 = scope.walk();
                    for init in scope.children_by_field_name("init", &mut c2) {
                        if init.kind() == "local_variable_declaration" {
                            declarators(init, &mut add);
                        }
                    }
                }
                "enhanced_for_statement" => add(scope.child_by_field_name("name"), scope.child_by_field_name("type")),
                "resource_specification" => {
                    for r in scope.named_children(&mut c).filter(|k| k.start_byte() < at.start_byte()) {
                        add(r.child_by_field_name("name"), r.child_by_field_name("type"));
                    }
                }
                "catch_clause" => {
                    for p in scope.named_children(&mut c).filter(|k| k.kind() == "catch_formal_parameter") {
                        let mut c2 = p.walk();
                        let ty = p.named_children(&mut c2).find(|k| k.kind() == "catch_type");
                        add(p.child_by_field_name("name"), ty);
                    }
                }
                "method_declaration" | "constructor_declaration" | "lambda_expression" => {
                    if let Some(params) = scope.child_by_field_name("parameters") {
                        let mut c2 = params.walk();
                        for p in params.named_children(&mut c2) {
                            add(p.child_by_field_name("name"), p.child_by_field_name("type"));
                        }
                    }
                }
                "class_body" | "enum_body_declarations" | "interface_body" => {
                    for f in scope.named_children(&mut c).filter(|k| k.kind() == "field_declaration") {
                        declarators(f, &mut add);
                    }
                }
                _ => {}
            }
            node = scope;
        }
        for (name, ty) in &self.types {
            if let Some(ty) = ty.filter(|_| self.fields.contains(name)) {
                out.entry(name).or_insert(ty);
            }
        }
        out
    }

    /// Whether `node` names a declaration, a called function or a member (not a value to
    /// replace).
    fn is_name(&self, node: Node<'_>) -> bool {
        let Some(parent) = node.parent() else { return true };
        let field_is = |f: &str| parent.child_by_field_name(f) == Some(node);
        match parent.kind() {
            "method_declaration" | "class_declaration" | "function_definition" | "class_definition" => field_is("name"),
            "method_invocation" => field_is("name"),
            "call" => field_is("function"),
            // `xs.append`, `this.count`: a member's name, never a variable's.
            "attribute" => field_is("attribute"),
            "field_access" => field_is("field"),
            "variable_declarator" => field_is("name"),
            "formal_parameter" | "parameters" | "keyword_argument" => true,
            _ => false,
        }
    }
}

/// Other methods tried per call, at most.
const MAX_METHOD_EDITS: usize = 12;

/// The index expressions of a Python subscript (`d[i, j]`: `i`, `j`).
fn subscripts(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.children_by_field_name("subscript", &mut cursor).collect()
}

/// Parameters given an early-return guard, at most.
const MAX_GUARDED_PARAMETERS: usize = 3;

/// Receivers given a null check per condition or statement, at most.
const MAX_NULL_CHECKS: usize = 2;

/// Java primitive number types (a guard compares them with 0).
const JAVA_NUMBERS: &[&str] = &["int", "long", "short", "byte", "double", "float"];

impl Cx<'_> {
    /// An insertion of `text` at byte `at`.
    fn insert(&self, out: &mut Vec<Edit>, template: Template, at: usize, text: String, summary: String) {
        let text = self.breaks(text);
        let line = self.text[..at].matches('\n').count() + 1;
        out.push(Edit {
            template,
            start: at,
            end: at,
            original: String::new(),
            replacement: text,
            line,
            summary,
            from: None,
        });
    }

    /// `s` with each bare `\n` written `\r\n` when the file breaks its lines so
    /// ([`Cx::crlf`]); else `s` as it is.
    fn breaks(&self, s: String) -> String {
        if !self.crlf || !s.contains('\n') {
            return s;
        }
        let mut out = String::with_capacity(s.len() + 8);
        let mut prev = '\0';
        for c in s.chars() {
            if c == '\n' && prev != '\r' {
                out.push('\r');
            }
            out.push(c);
            prev = c;
        }
        out
    }

    /// The whitespace before `node` on its line, when nothing else precedes it there.
    fn indent(&self, node: Node<'_>) -> Option<&str> {
        let line_start = self.text[..node.start_byte()].rfind('\n').map_or(0, |i| i + 1);
        let prefix = &self.text[line_start..node.start_byte()];
        prefix.trim().is_empty().then_some(prefix)
    }

    /// Early returns at the top of `method`'s body, per parameter (see [`Template::AddGuard`]).
    fn guard(&self, method: Node<'_>, out: &mut Vec<Edit>) {
        let Some(body) = method.child_by_field_name("body") else { return };
        // Not a comment (Java's `line_comment`/`block_comment`, Python's `comment`).
        let Some(&first) = calls::named_children(body).first() else { return };
        let Some(indent) = self.indent(first) else { return };
        for (name, ty) in self.parameters(method).into_iter().take(MAX_GUARDED_PARAMETERS) {
            let (conditions, returns) = match self.language {
                Language::Java => (java_guard_conditions(&name, &ty), self.java_returns(method, &name, &ty)),
                Language::Python => {
                    let returns = [format!("return {name}"), "return []".into(), "return 0".into(), "return".into()];
                    (vec![format!("not {name}")], returns.to_vec())
                }
            };
            for c in &conditions {
                for r in &returns {
                    // Under `p == null`, `return p` is `return null`: one candidate, the plain one.
                    let null_twice = *c == format!("{name} == null")
                        && *r == format!("return {name}")
                        && returns.iter().any(|r| r == "return null");
                    if null_twice {
                        continue;
                    }
                    let guard = match self.language {
                        Language::Java => format!("if ({c}) {r};"),
                        Language::Python => format!("if {c}:\n{indent}    {r}"),
                    };
                    let summary = format!("add guard {}", one_line(&guard));
                    self.insert(out, Template::AddGuard, first.start_byte(), format!("{guard}\n{indent}"), summary);
                }
            }
        }
    }

    /// `(name, type)` of each parameter of `method` (type empty in Python).
    fn parameters(&self, method: Node<'_>) -> Vec<(String, String)> {
        let Some(params) = method.child_by_field_name("parameters") else { return Vec::new() };
        let mut cursor = params.walk();
        let mut out = Vec::new();
        for p in params.named_children(&mut cursor) {
            let ty = p.child_by_field_name("type").map_or(String::new(), |t| self.of(t).to_string());
            let name = match p.kind() {
                "formal_parameter" => p.child_by_field_name("name"),
                "identifier" => Some(p),
                "typed_parameter" => p.named_child(0).filter(|n| n.kind() == "identifier"),
                "default_parameter" | "typed_default_parameter" => p.child_by_field_name("name"),
                _ => None,
            };
            if let Some(n) = name.map(|n| self.of(n)).filter(|n| *n != "self") {
                out.push((n.to_string(), ty));
            }
        }
        out
    }

    /// The returns a Java guard may make in `method`: from its return type, and the
    /// parameter itself when it has that type.
    fn java_returns(&self, method: Node<'_>, name: &str, ty: &str) -> Vec<String> {
        let ret = method.child_by_field_name("type").map_or("void", |t| self.of(t));
        let mut out = self.java_default_returns(method);
        if ret == ty && ret != "void" {
            out.insert(0, format!("return {name}"));
        }
        out
    }

    /// The returns of `method`'s default value, without the `;`, by its return type: `return`
    /// (`void`, a constructor), `return false` and `return true`, `return 0` (numbers,
    /// `char`), `return null` (any other type).
    fn java_default_returns(&self, method: Node<'_>) -> Vec<String> {
        match method.child_by_field_name("type").map_or("void", |t| self.of(t)) {
            "void" => vec!["return".into()],
            "boolean" => vec!["return false".into(), "return true".into()],
            r if JAVA_NUMBERS.contains(&r) || r == "char" => vec!["return 0".into()],
            _ => vec!["return null".into()],
        }
    }

    /// A null check before the dereferences in `node` (see [`Template::AddNullCheck`]).
    fn null_check(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if self.boolean_context(node) {
            let inner =
                if node.kind() == "parenthesized_expression" { node.named_child(0).unwrap_or(node) } else { node };
            let (or, and) = if self.language == Language::Java { ("||", "&&") } else { ("or", "and") };
            for r in self.receivers(inner).into_iter().take(MAX_NULL_CHECKS) {
                let (is_null, is_not_null) = self.null_tests(&r);
                // Parenthesised only where the new operator binds tighter, as a developer
                // writes it (`r != null && r.isX()`, `r != null && (a || b)`).
                self.push(
                    out,
                    Template::AddNullCheck,
                    inner,
                    format!("{is_null} {or} {}", self.left_operand(inner, or)),
                );
                self.push(
                    out,
                    Template::AddNullCheck,
                    inner,
                    format!("{is_not_null} {and} {}", self.left_operand(inner, and)),
                );
            }
        }
        if node.kind() == "expression_statement" && node.start_position().row == node.end_position().row {
            for r in self.receivers(node).into_iter().take(MAX_NULL_CHECKS) {
                let (_, is_not_null) = self.null_tests(&r);
                let wrapped = match self.language {
                    Language::Java => format!("if ({is_not_null}) {{ {} }}", self.of(node)),
                    Language::Python => format!("if {is_not_null}: {}", self.of(node)),
                };
                self.push(out, Template::AddNullCheck, node, wrapped);
            }
        }
    }

    /// `(r == null, r != null)` in the file's language.
    fn null_tests(&self, r: &str) -> (String, String) {
        match self.language {
            Language::Java => (format!("{r} == null"), format!("{r} != null")),
            Language::Python => (format!("{r} is None"), format!("{r} is not None")),
        }
    }

    /// Whether `node` is a boolean expression a null check may precede: an `if`/`while`/`elif`
    /// condition, a Java `?:` condition, or a returned, assigned or initialised value that is
    /// evidently boolean (a comparison, `&&`/`||`, a negation, `instanceof`; Java also any
    /// value returned by a `boolean` method or given to a `boolean` local). The last three
    /// come from the corpus: `return in != null && in.markSupported()`, `result = m != null &&
    /// …` (8 of split 0/5's one-line Java fixes no template made, prior v12).
    fn boolean_context(&self, node: Node<'_>) -> bool {
        let Some(parent) = node.parent() else { return false };
        let field_is = |f: &str| parent.child_by_field_name(f) == Some(node);
        match parent.kind() {
            "if_statement" | "while_statement" | "elif_clause" => field_is("condition"),
            "ternary_expression" => field_is("condition"),
            "return_statement" if node.kind() != "comment" => {
                self.evidently_boolean(node)
                    || (self.language == Language::Java
                        && literals::enclosing(node, &["method_declaration", "lambda_expression"])
                            .filter(|m| m.kind() == "method_declaration")
                            .and_then(|m| m.child_by_field_name("type"))
                            .is_some_and(|t| self.of(t) == "boolean"))
            }
            "variable_declarator" => {
                field_is("value")
                    && (self.evidently_boolean(node)
                        || parent
                            .parent()
                            .and_then(|d| d.child_by_field_name("type"))
                            .is_some_and(|t| self.of(t) == "boolean"))
            }
            "assignment_expression" | "assignment" => field_is("right") && self.evidently_boolean(node),
            _ => false,
        }
    }

    /// Whether `node` is a comparison, a logical expression, a negation or an `instanceof`.
    fn evidently_boolean(&self, node: Node<'_>) -> bool {
        match node.kind() {
            "binary_expression" => node
                .child_by_field_name("operator")
                .is_some_and(|o| matches!(self.of(o), "==" | "!=" | "<" | "<=" | ">" | ">=" | "&&" | "||")),
            "unary_expression" => node.child_by_field_name("operator").is_some_and(|o| self.of(o) == "!"),
            "instanceof_expression" | "comparison_operator" | "boolean_operator" | "not_operator" => true,
            "parenthesized_expression" => node.named_child(0).is_some_and(|n| self.evidently_boolean(n)),
            _ => false,
        }
    }

    /// The receivers dereferenced in `node` (`r` of `r.f`, `r.m()`), in source order, once
    /// each: names or field chains, not `this`/`self`, not Java class names (capitalised).
    fn receivers(&self, node: Node<'_>) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for n in descendants(node) {
            if !matches!(n.kind(), "method_invocation" | "field_access" | "attribute") {
                continue;
            }
            let Some(object) = n.child_by_field_name("object") else { continue };
            if !matches!(object.kind(), "identifier" | "field_access" | "attribute") {
                continue;
            }
            let r = self.of(object);
            let class = self.language == Language::Java && r.starts_with(|c: char| c.is_ascii_uppercase());
            if r != "this" && r != "self" && !class && !out.iter().any(|o| o == r) {
                out.push(r.to_string());
            }
        }
        out
    }

    /// A one-line expression statement wrapped in try/catch (see [`Template::WrapTryCatch`]).
    fn try_catch(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if node.kind() != "expression_statement" || node.start_position().row != node.end_position().row {
            return;
        }
        let t = self.of(node);
        let wrapped = match self.language {
            Language::Java => format!("try {{ {t} }} catch (Exception e) {{ }}"),
            Language::Python => {
                let Some(ind) = self.indent(node) else { return };
                format!("try:\n{ind}    {t}\n{ind}except Exception:\n{ind}    pass")
            }
        };
        self.push(out, Template::WrapTryCatch, node, wrapped);
    }
}

/// The conditions of a Java guard on parameter `name` of type `ty`: the null check first,
/// then null-or-empty for arrays, strings and collections.
fn java_guard_conditions(name: &str, ty: &str) -> Vec<String> {
    let collection = ["String", "List", "Set", "Map", "Collection", "Queue", "Deque"];
    if JAVA_NUMBERS.contains(&ty) {
        vec![format!("{name} <= 0")]
    } else if ty == "boolean" || ty == "char" || ty.is_empty() {
        Vec::new()
    } else if ty.ends_with(']') {
        vec![format!("{name} == null"), format!("{name} == null || {name}.length == 0")]
    } else if collection.iter().any(|c| ty.split('<').next().unwrap_or(ty).ends_with(c)) {
        vec![format!("{name} == null"), format!("{name} == null || {name}.isEmpty()")]
    } else {
        vec![format!("{name} == null")]
    }
}

/// `text` on one line, at most 60 characters (the reports' edit summaries).
pub(super) fn one_line(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

/// The one named child of `node` (a parenthesized expression's content), comments aside.
fn named_only_child(node: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = node.walk();
    let mut named = node.named_children(&mut cursor).filter(|c| !c.kind().contains("comment"));
    let first = named.next()?;
    named.next().is_none().then_some(first)
}

/// Whether `kind` (Java or Python tree-sitter) is a primary expression, one a `!` or `not`
/// binds to whole without parentheses: a call, name, field or element access, literal, or
/// an expression already in parentheses.
fn is_primary(kind: &str) -> bool {
    matches!(
        kind,
        "method_invocation"
            | "identifier"
            | "field_access"
            | "array_access"
            | "parenthesized_expression"
            | "true"
            | "false"
            | "this"
            | "call"
            | "attribute"
            | "subscript"
    )
}

/// What the templates' tests share: an edit applied, a program checked to parse.
#[cfg(test)]
pub(super) mod testing {
    use tree_sitter::Parser;

    use super::Edit;
    use crate::Language;

    /// `text` with `e` applied.
    pub(crate) fn apply(text: &str, e: &Edit) -> String {
        e.applied(text)
    }

    /// Whether `text` parses as `language` without a syntax error.
    pub(crate) fn parses(text: &str, language: Language) -> bool {
        let mut parser = Parser::new();
        parser.set_language(&language.grammar()).unwrap();
        !parser.parse(text, None).unwrap().root_node().has_error()
    }

    /// Asserts that an edit of `buggy` (a corpus-style snippet) by `template` makes `fixed`
    /// (whitespace aside), as the corpus measurements count a fix.
    pub(crate) fn assert_fixes(buggy: &str, fixed: &str, language: Language, template: super::Template) {
        let all = super::snippet_edits(buggy, language);
        let i = super::fixing_edit(buggy, fixed, &all).unwrap_or_else(|| panic!("no edit makes {fixed}"));
        assert_eq!(all[i].template, template, "{:?}", all[i]);
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{apply, assert_fixes};
    use super::*;

    #[test]
    fn python_loop_bound_is_among_the_operand_edits() {
        let text = "def sum_to(n):\n    total = 0\n    for i in range(1, n):\n        total += i\n    return total\n";
        let all = edits(text, Language::Python, (1, 5));
        let fixed =
            "def sum_to(n):\n    total = 0\n    for i in range(1, n + 1):\n        total += i\n    return total\n";
        let found: Vec<&Edit> = all.iter().filter(|e| apply(text, e) == fixed).collect();
        assert_eq!(found.len(), 1, "{all:#?}");
        assert_eq!(found[0].template, Template::ChangeOperand);
        assert_eq!(found[0].line, 3);
        // Sorted by template, then position.
        assert!(all.windows(2).all(|w| (w[0].template, w[0].start) <= (w[1].template, w[1].start)));
    }

    #[test]
    fn java_operators_numerals_swaps_and_deletes() {
        let text = "class A {\n  int f(int a, int b) {\n    log(a, b);\n    return a < b ? 1 : 0;\n  }\n}\n";
        let all = edits(text, Language::Java, (2, 5));
        let results: Vec<String> = all.iter().map(|e| apply(text, e)).collect();
        assert!(results.iter().any(|r| r.contains("return a <= b ? 1 : 0;")), "{all:#?}");
        assert!(results.iter().any(|r| r.contains("return a < b ? 2 : 0;")));
        assert!(results.iter().any(|r| r.contains("log(b, a);")));
        let bits = "class B {\n  int f(int n) {\n    n ^= n - 1;\n    return n;\n  }\n}\n";
        let compound: Vec<String> = edits(bits, Language::Java, (2, 5)).iter().map(|e| apply(bits, e)).collect();
        assert!(compound.iter().any(|r| r.contains("n &= n - 1;")), "{compound:#?}");
        assert!(results.iter().any(|r| !r.contains("log(") && r.contains("  int f(int a, int b) {\n    return")));
        // Names of declarations and called methods are never replaced.
        assert!(!results.iter().any(|r| r.contains("int b(int a") || r.contains("a(a, b)")));
        // Lines outside the span are never edited.
        assert!(edits(text, Language::Java, (1, 1)).is_empty());
    }

    #[test]
    fn a_snippets_fixing_edit_is_found_with_offsets_in_the_snippet() {
        // A bare Java method (no class), as a corpus record holds it.
        let buggy = "int last(int[] a, int n) {\n    return a[n];\n}";
        let fixed = "int last(int[] a, int n) {\n    return a[n-1];\n}";
        let all = snippet_edits(buggy, Language::Java);
        assert!(!all.is_empty() && all.iter().all(|e| e.end <= buggy.len()));
        let i = fixing_edit(buggy, fixed, &all).unwrap();
        let e = &all[i];
        assert_eq!((e.template, e.original.as_str(), e.line), (Template::ChangeOperand, "n", 2), "{e:?}");
        assert_eq!(&buggy[e.start..e.end], "n");
        // Whitespace does not matter; a fix no single edit makes has none.
        assert_eq!(fixing_edit(buggy, &fixed.replace("n-1", "n - 1"), &all), Some(i));
        assert_eq!(fixing_edit(buggy, "int last(int[] a, int n) {\n    return a[0] + 1;\n}", &all), None);
        // Python needs no wrapper.
        let py = "def f(xs):\n    return xs[0] < xs[1]\n";
        let all = snippet_edits(py, Language::Python);
        let i = fixing_edit(py, "def f(xs):\n    return xs[0] <= xs[1]\n", &all).unwrap();
        assert_eq!((all[i].template, all[i].line), (Template::ChangeOperator, 2));
        // Over-long snippets give no edit.
        let long = "def f(x):\n".to_string() + &"    x += 1\n".repeat(SNIPPET_MAX_LINES);
        assert!(snippet_edits(&long, Language::Python).is_empty());
    }

    #[test]
    fn a_condition_is_negated_as_a_developer_writes_it() {
        // ManySStuBs4J's `if (status.isDir())` → `if (!status.isDir())` (Alluxio's
        // listStatus): a call is negated without parentheses of its own, so the candidate is
        // the developer's fix, not one equal only up to parentheses.
        let buggy = "void f(FileStatus status) {\n    if (status.isDir()) {\n        n++;\n    }\n}";
        let fixed = buggy.replace("(status.isDir())", "(!status.isDir())");
        assert_fixes(buggy, &fixed, Language::Java, Template::ChangeUnaryOperator);
        let negations = |text: &str, language| -> Vec<String> {
            let n = text.lines().count();
            edits(text, language, (1, n))
                .into_iter()
                .filter(|e| e.template == Template::ChangeUnaryOperator)
                .map(|e| e.replacement)
                .collect()
        };
        // A compound condition keeps its parentheses; a negated one loses its `!` and is not
        // negated again.
        let java = "class A {\n  void f(int x, boolean b) {\n    if (x > 0 && b) { x--; }\n    while (!b) { x++; }\n    if (b) x = 2;\n  }\n}\n";
        assert_eq!(negations(java, Language::Java), ["(!(x > 0 && b))", "!b", "b", "(!b)"]);
        let python = "def f(x, b):\n    if x > 0 and b:\n        x -= 1\n    while not b:\n        x += 1\n    if b.ok():\n        x = 2\n";
        assert_eq!(negations(python, Language::Python), ["not (x > 0 and b)", "not b", "b", "not b.ok()"]);
        // An operand of `&&` that is a call, as the corpus's `if (getProtocol() != null &&
        // isIgnoreUriScheme())` → `… && !isIgnoreUriScheme()` (mined_git_history); a
        // comparison operand is left to the operator templates.
        let buggy = "boolean f(String s) {\n    return s != null && s.isEmpty();\n}";
        let fixed = buggy.replace("&& s.isEmpty()", "&& !s.isEmpty()");
        assert_fixes(buggy, &fixed, Language::Java, Template::ChangeUnaryOperator);
        assert!(!snippet_edits(buggy, Language::Java).iter().any(|e| e.replacement == "!s != null"));
    }

    #[test]
    fn an_integer_offset_is_dropped() {
        // The corpus's `loopsSimulateTailRecursion, depth - 1)` → `…, depth)` and `i <
        // tokens.size() - 1` → `i < tokens.size()` (ManySStuBs4J): the inverse of `n` → `n - 1`.
        let buggy = "void f(List<String> tokens, int depth) {\n    for (int i = 1; i < tokens.size() - 1; ++i) {\n        g(tokens, depth - 1);\n    }\n}";
        for fixed in [buggy.replace("depth - 1", "depth"), buggy.replace("tokens.size() - 1", "tokens.size()")] {
            assert_fixes(buggy, &fixed, Language::Java, Template::ChangeOperand);
        }
        // Python's `range(1, n + 1)` → `range(1, n)`; a string concatenation keeps its number.
        let py = "def f(n):\n    return sum(range(1, n + 1))\n";
        let all = snippet_edits(py, Language::Python);
        assert!(fixing_edit(py, &py.replace("n + 1", "n"), &all).is_some());
        let concat = "String f(int n) {\n    return \"n\" + 1;\n}";
        assert!(!snippet_edits(concat, Language::Java).iter().any(|e| e.replacement == "\"n\""));
    }

    #[test]
    fn an_offset_follows_an_expression_as_a_developer_writes_it() {
        // The corpus's own fixes (ConDefects): no parentheses around an arithmetic operand.
        let cases = [
            ("if (a * 2 == b) {", "if (a * 2 + 1 == b) {"),
            ("g(sumA - sumB);", "g(sumA - sumB + 1);"),
            ("if (n * (n - 1) / 2 < b) {", "if (n * (n - 1) / 2 - 1 < b) {"),
        ];
        for (line, fixed_line) in cases {
            let method =
                |l: &str| format!("int f(int a, int b, int n, int sumA, int sumB) {{\n    {l}\n    return 0;\n}}");
            assert_fixes(&method(line), &method(fixed_line), Language::Java, Template::ChangeOperand);
        }
        let py = "def f(m, n):\n    if -m < n:\n        return g(n - 2)\n";
        for fixed in [py.replace("-m", "-m + 1"), py.replace("n - 2", "n - 2 - 1")] {
            assert_fixes(py, &fixed, Language::Python, Template::ChangeOperand);
        }
        // A shift keeps its parentheses; a string is never offset.
        let shift = "int f(int n, int m) {\n    if (1 << n > m) {\n        return 0;\n    }\n    return 1;\n}";
        assert!(snippet_edits(shift, Language::Java).iter().any(|e| e.replacement == "(1 << n) + 1"));
        // A negative literal is the numeral template's: no `-1 + 1`.
        let negative = "int f(String s) {\n    if (s.indexOf('.') != -1) {\n        return 0;\n    }\n    return 1;\n}";
        let edits = snippet_edits(negative, Language::Java);
        assert!(!edits.iter().any(|e| e.template == Template::ChangeOperand && e.original == "-1"), "{edits:#?}");
        let objects = "void f(String s) {\n    g(s + \"x\");\n}";
        let edits = snippet_edits(objects, Language::Java);
        assert!(!edits.iter().any(|e| e.template == Template::ChangeOperand), "{edits:#?}");
    }

    fn results(text: &str, language: Language) -> Vec<(Template, String)> {
        let n = text.lines().count();
        edits(text, language, (1, n)).iter().map(|e| (e.template, apply(text, e))).collect()
    }

    #[test]
    fn java_guards_null_checks_and_try_catch() {
        let text = "class A {\n  static int len(Node node) {\n    if (node.next == null)\n      return 0;\n    \
                    node.visit();\n    return 1;\n  }\n}\n";
        let r = results(text, Language::Java);
        let has = |t: Template, s: &str| r.iter().any(|(tt, out)| *tt == t && out.contains(s));
        // An early return per parameter, its value from the return type, indented like the body.
        assert!(has(
            Template::AddGuard,
            "  static int len(Node node) {\n    if (node == null) return 0;\n    if (node.next"
        ));
        assert!(has(Template::AddNullCheck, "if (node == null || node.next == null)"), "{r:#?}");
        assert!(has(Template::AddNullCheck, "if (node != null && node.next == null)"));
        assert!(has(Template::AddNullCheck, "    if (node != null) { node.visit(); }\n"));
        assert!(has(Template::WrapTryCatch, "    try { node.visit(); } catch (Exception e) { }\n"));
        // An order against `null` is never generated (it cannot compile).
        assert!(!r.iter().any(|(_, out)| out.contains("<= null") || out.contains("< null")));
        assert!(has(Template::ChangeOperator, "node.next != null"));
        // Arrays and collections are guarded against null, then also when empty; `void`
        // methods return nothing.
        let v = "class B {\n  void f(int[] xs, List<Integer> ys, int n) {\n    g(xs, n);\n  }\n}\n";
        let r = results(v, Language::Java);
        let guards: Vec<&String> = r.iter().filter(|(t, _)| *t == Template::AddGuard).map(|(_, o)| o).collect();
        assert_eq!(guards.len(), 5, "{guards:#?}");
        assert!(guards[0].contains("if (xs == null) return;\n    g(xs, n);"));
        assert!(guards[1].contains("if (xs == null || xs.length == 0) return;\n    g(xs, n);"));
        assert!(guards[2].contains("if (ys == null) return;"));
        assert!(guards[3].contains("if (ys == null || ys.isEmpty()) return;"));
        assert!(guards[4].contains("if (n <= 0) return;"));
    }

    #[test]
    fn a_null_check_precedes_a_boolean_value_as_a_developer_writes_it() {
        // The corpus's own fixes (ManySStuBs4J, mined_git_history): unparenthesised, and
        // beyond `if` conditions.
        let cases = [
            (
                "if (sessionConf.get(\"tez.queue.name\") != null) {",
                "if (sessionConf != null && sessionConf.get(\"tez.queue.name\") != null) {",
            ),
            ("return in.markSupported();", "return in != null && in.markSupported();"),
            ("return m.isAnnotationPresent(Skip.class);", "return m != null && m.isAnnotationPresent(Skip.class);"),
            (
                "final boolean result = callbackOptionsItemSelected(mMenu.findItem(item));",
                "final boolean result = mMenu != null && callbackOptionsItemSelected(mMenu.findItem(item));",
            ),
        ];
        for (line, fixed_line) in cases {
            let method = |l: &str| format!("  boolean f(int item) {{\n    {l}\n      g();\n  }}\n");
            assert_fixes(&method(line), &method(fixed_line), Language::Java, Template::AddNullCheck);
        }
        // An `||` operand keeps its parentheses under a new `&&`; a value that is not evidently
        // boolean, outside a `boolean` method or local, gets no null check.
        let text = "class A {\n  int f(A a, B b) {\n    x = a.ok() || b.ok();\n    \
                    return a.size();\n  }\n}\n";
        let r = results(text, Language::Java);
        let has = |s: &str| r.iter().any(|(t, out)| *t == Template::AddNullCheck && out.contains(s));
        assert!(has("x = a != null && (a.ok() || b.ok());") && has("x = b == null || a.ok() || b.ok();"), "{r:#?}");
        assert!(!has("a != null && a.size()") && !has("a == null || a.size()"));
    }

    #[test]
    fn python_guards_null_checks_try_and_off_by_one_arguments() {
        let text = "def find(arr, x, lo, hi):\n    while node.successor:\n        node.step()\n    \
                    return find(arr, x, mid, hi) + arr[lo:hi]\n";
        let r = results(text, Language::Python);
        let has = |t: Template, s: &str| r.iter().any(|(tt, out)| *tt == t && out.contains(s));
        assert!(
            has(Template::AddGuard, "def find(arr, x, lo, hi):\n    if not arr:\n        return arr\n    while"),
            "{r:#?}"
        );
        assert!(has(Template::AddGuard, "    if not lo:\n        return\n    while"));
        assert!(has(Template::AddNullCheck, "while node is None or node.successor:"));
        assert!(has(Template::AddNullCheck, "while node is not None and node.successor:"));
        assert!(has(Template::AddNullCheck, "        if node is not None: node.step()\n"));
        assert!(has(
            Template::WrapTryCatch,
            "        try:\n            node.step()\n        except Exception:\n            pass\n"
        ));
        // Off by one in a recursive call's argument and in a slice bound.
        assert!(has(Template::ChangeOperand, "find(arr, x, mid + 1, hi)"));
        assert!(has(Template::ChangeOperand, "arr[lo:hi - 1]"));
        // Bounded: at most 3 guarded parameters × 4 returns.
        assert_eq!(r.iter().filter(|(t, _)| *t == Template::AddGuard).count(), 12);
    }

    #[test]
    fn java_swapped_operands_other_methods_unwrapped_calls_sizes_and_typed_identifiers() {
        let text = "class T {\n  static boolean any(List<Boolean> xs) { return false; }\n  \
                    static boolean all(List<Boolean> xs) { return true; }\n  \
                    static String f(Node n, int a, int b, int[] ds, String s) {\n    \
                    int helper = a - b;\n    String out = s + String.valueOf(a);\n    \
                    if (any(g(n)) && n.getSuccessors().isEmpty()) { out = out + wrap(s); }\n    \
                    log(new Pair(a, helper), ds.length, a + b);\n    return n.getPredecessors().size() + out;\n  }\n}\n";
        let r = results(text, Language::Java);
        let has = |t: Template, s: &str| r.iter().any(|(tt, out)| *tt == t && out.contains(s));
        // String concatenation and subtraction are swapped; an integer sum is not.
        assert!(has(Template::SwapOperands, "String out = String.valueOf(a) + s;"), "{r:#?}");
        assert!(has(Template::SwapOperands, "int helper = b - a;"));
        assert!(!r.iter().any(|(t, out)| *t == Template::SwapOperands && out.contains("ds.length, b + a")));
        // Another method of the file with the same arity, declared or called.
        assert!(has(Template::DifferentMethod, "if (all(g(n))"));
        assert!(has(Template::DifferentMethod, "n.getPredecessors().isEmpty()"));
        assert!(!has(Template::DifferentMethod, "any(g(n)).getSuccessors"));
        // A used one-argument call replaced by its argument.
        assert!(has(Template::UnwrapCall, "out = out + s;"));
        assert!(has(Template::UnwrapCall, "if (any(n) &&"));
        // A size off by one wherever it is.
        assert!(has(Template::ChangeOperand, "ds.length - 1, a + b);"));
        // Identifiers: only names declared with the same type.
        assert!(has(Template::ChangeIdentifier, "new Pair(a, b)"));
        assert!(!r.iter().any(|(t, out)| *t == Template::ChangeIdentifier && out.contains("new Pair(a, s)")));
        assert!(!r.iter().any(|(t, out)| *t == Template::ChangeIdentifier && out.contains("new Pair(a, ds)")));
    }

    #[test]
    fn java_candidates_javac_would_refuse_are_not_made() {
        // Issue 32's Defects4J measurement: 39 % of the candidates did not compile. Each kind
        // that the syntax tree can tell apart, on real shapes from Commons CLI.
        let text = "class CommandLine {\n  private Map options;\n  private int count;\n  \
                    boolean hasOption(String opt) { return options.containsKey(opt); }\n  \
                    String value(String opt) {\n    String res = lookup(opt);\n    \
                    return (res == null) ? null : \"v: \" + res;\n  }\n  \
                    String lookup(String key) { String arg = key; return arg; }\n  \
                    int size(int n) { if (n == count) { return n; } return options.size(); }\n}\n";
        let r = results(text, Language::Java);
        let made = |t: Template, s: &str| r.iter().any(|(tt, out)| *tt == t && out.contains(s));
        // Arithmetic on a String or against `null`: never; on an `int`: still.
        assert!(!made(Template::ChangeOperand, "containsKey(opt - 1)"), "{r:#?}");
        assert!(!made(Template::ChangeOperand, "res - 1 == null") && !made(Template::ChangeOperand, "null + 1"));
        assert!(made(Template::ChangeOperand, "if (n + 1 == count)"), "{r:#?}");
        // An order against `null` or a string operator other than `+`: never.
        assert!(made(Template::ChangeOperator, "(res != null)"));
        assert!(!made(Template::ChangeOperator, "(res >= null)") && !made(Template::ChangeOperator, "\"v: \" - res"));
        assert!(made(Template::ChangeOperator, "if (n <= count)"), "{r:#?}");
        // The locals and parameters of other methods are out of scope (`key`, `arg`, `res`
        // in `hasOption`); a parameter of the same method and type is in.
        assert!(!r.iter().any(|(t, out)| *t == Template::ChangeIdentifier
            && ["containsKey(key)", "containsKey(arg)", "containsKey(res)"].iter().any(|s| out.contains(s))));
        assert!(made(Template::ChangeIdentifier, "\"v: \" + opt"), "{r:#?}");
        // A method on `options` becomes another the file calls on `options` with as many
        // arguments (none here), never a method of this class; an unqualified call becomes
        // another of this class's methods.
        assert!(!r.iter().any(|(t, out)| *t == Template::DifferentMethod && out.contains("options.hasOption(opt)")));
        assert!(!r.iter().any(|(t, out)| *t == Template::DifferentMethod && out.contains("options.lookup(")));
        assert!(made(Template::DifferentMethod, "String res = value(opt);"), "{r:#?}");
        assert!(made(Template::DifferentMethod, "String res = hasOption(opt);"), "{r:#?}");
    }

    #[test]
    fn members_are_not_replaced_by_variables() {
        // `append` (a method) and `count` (a field) are names of members: no variable takes
        // their place, and they take no variable's place.
        let text = "def run(out, xs, total):\n    for x in xs:\n        out.append(total)\n        total += x.count\n";
        let r: Vec<Edit> = edits(text, Language::Python, (1, 4))
            .into_iter()
            .filter(|e| e.template == Template::ChangeIdentifier)
            .collect();
        assert!(!r.is_empty());
        assert!(r.iter().all(|e| e.original != "append" && e.original != "count"), "{r:#?}");
        assert!(r.iter().all(|e| e.replacement != "append" && e.replacement != "count"), "{r:#?}");
        assert!(r.iter().any(|e| apply(text, e).contains("out.append(x)")), "{r:#?}");
    }

    #[test]
    fn syntax_errors_are_counted_within_the_lines() {
        let text = "class A {\n  int f(int a) {\n    return a +;\n  }\n  int g() { return 1; }\n}\n";
        assert!(syntax_errors(text, Language::Java, (2, 4)).is_some_and(|n| n >= 1));
        assert_eq!(syntax_errors(text, Language::Java, (5, 5)), Some(0));
        // The templates still apply to what parses.
        assert!(!edits(text, Language::Java, (5, 5)).is_empty());
    }

    #[test]
    fn java_identifier_types_are_read_by_scope() {
        // `b` is a `String` in another method and `a` an `Object` in a lambda of a third:
        // file-wide, both names had two types and no replacement was made (issue 32). In
        // `max`, both are `int`s, so `b` → `a` is made (`a`, a parameter the method never
        // reads, is a candidate too).
        let text = "class Range {\n  private int count;\n  \
                    String label(String b) { return b.trim(); }\n  \
                    void each(List<Object> xs) { xs.forEach((Object a) -> print(a)); }\n  \
                    int max(int a, int b) {\n    int best = b;\n    \
                    for (String s : names()) { best = best + s.length(); }\n    return best;\n  }\n}\n";
        let lines = (5, 9);
        let got: Vec<String> = edits(text, Language::Java, lines)
            .iter()
            .filter(|e| e.template == Template::ChangeIdentifier)
            .map(|e| apply(text, e))
            .collect();
        let has = |s: &str| got.iter().any(|out| out.contains(s));
        assert!(has("int best = a;"), "{got:#?}");
        assert!(has("return b;") && has("best = a + s.length()"), "{got:#?}");
        // `s` (a `String`, visible only in the loop) never replaces an `int`, and outside the
        // loop it is not in scope at all.
        assert!(!has("int best = s;") && !has("return s;"), "{got:#?}");
        // Inside the loop, `s` is not replaced by an int.
        assert!(!has("best + b.length()") && !has("best + a.length()"), "{got:#?}");
    }

    #[test]
    fn python_swapped_operands_and_indexes_other_methods_unwrapped_calls_and_sizes() {
        let text = "def f(arr, d, i, j, k):\n    if any(x > 0 for x in arr):\n        yield g(arr)\n    \
                    r = arr[i] + d[j, k]\n    return (len(arr)) * [0] + d[i - 1, j]\n";
        let r = results(text, Language::Python);
        let has = |t: Template, s: &str| r.iter().any(|(tt, out)| *tt == t && out.contains(s));
        assert!(has(Template::SwapOperands, "r = d[j, k] + arr[i]"), "{r:#?}");
        assert!(has(Template::SwapArguments, "d[k, j]"));
        assert!(has(Template::DifferentMethod, "if all(x > 0 for x in arr):"));
        assert!(has(Template::UnwrapCall, "yield arr\n"));
        assert!(has(Template::ChangeOperand, "(len(arr) - 1) * [0]"));
        assert!(has(Template::ChangeOperand, "d[i - 1, j - 1]"));
        // A generator is never unwrapped out of its call.
        assert!(!has(Template::UnwrapCall, "if x > 0 for x in arr"));
    }

    #[test]
    fn strings_and_comments_are_not_edited() {
        // What is inside a string or comment is never edited: an edit may replace a whole
        // literal (another literal, another return expression), never begin or end in one.
        let text = "def f(x):\n    # x < 1\n    return \"a < b\" + str(x)\n";
        let spans = [
            text.find('#').unwrap()..text.find('#').unwrap() + 7,
            text.find('"').unwrap()..text.rfind('"').unwrap() + 1,
        ];
        let edits = edits(text, Language::Python, (1, 3));
        assert!(!edits.is_empty());
        for e in edits {
            let inside = |at: usize| spans.iter().any(|s| s.start < at && at < s.end);
            assert!(!inside(e.start) && !inside(e.end), "{e:?}");
            assert!(apply(text, &e).contains("# x < 1"), "{e:?}");
        }
    }
}
