//! Templates on calls: argument count by overload, constructor arguments, a missed call or
//! jump from a sibling branch (TBar FP10, FP5, FP4; Liu et al., ISSTA 2019).

use tree_sitter::Node;

use super::project::simple_type;
use super::statements::is_statement;
use super::typing::{Type, written};
use super::{Cx, Edit, Template, call_parts, descendants, nested, one_line, squash};
use crate::Language;

/// Names tried per position when an argument is added, at most.
const MAX_ADDED_NAMES: usize = 4;

/// [`Template::ChangeArgumentCount`] edits per call, at most.
const MAX_ARGUMENT_COUNT_EDITS: usize = 12;

/// Other names tried per constructor argument when it is replaced, at most.
const MAX_REPLACEMENT_NAMES: usize = 3;

/// [`Template::ConstructorArguments`] edits per instance creation, at most.
const MAX_CONSTRUCTOR_EDITS: usize = 12;

/// [`Template::InsertMissedCall`] edits per `if` (with its `else if`/`elif`/`else`), at most.
const MAX_MISSED_CALL_EDITS: usize = 12;

/// [`Template::InsertMissedJump`] edits per statement, at most (one per distinct jump).
const MAX_MISSED_JUMP_EDITS: usize = 3;

/// The jumps [`Template::InsertMissedJump`] copies from a sibling branch (Java and Python
/// kinds; a `throw` is left out: a branch that should throw rarely has the rest of its
/// statements right).
const JUMPS: [&str; 3] = ["break_statement", "continue_statement", "return_statement"];

/// One `if`/`else if`/`else` chain (Python `elif`/`else`) or one Java `switch`, as
/// [`Template::InsertMissedJump`] reads it ([`Cx::chain_of`]).
struct Chain<'n> {
    /// The chain's first `if`, or the `switch`.
    node: Node<'n>,
    /// Its branches in order: blocks, Java statements without braces, `switch` groups.
    branches: Vec<Node<'n>>,
    /// Whether some branch runs whatever the conditions: a final `else`, a `default`.
    exhaustive: bool,
    /// A `switch`, where an unlabelled `break` leaves only the `switch`.
    switch: bool,
}

impl Chain<'_> {
    /// Whether `last`, a branch's last statement, leaves the chain so that the statement
    /// after the chain does not run next: a `return`, `continue`, `throw`/`raise`, or a
    /// `break` (in a `switch`, only a labelled one).
    fn leaves(&self, last: Node<'_>) -> bool {
        match last.kind() {
            "return_statement" | "continue_statement" | "throw_statement" | "raise_statement" => true,
            "break_statement" => !self.switch || last.named_child_count() > 0,
            _ => false,
        }
    }
}

/// The last statement of a branch: a block's or a `switch` group's last (its labels and
/// comments aside), or the branch itself when it is one statement without braces.
fn last_statement(branch: Node<'_>) -> Option<Node<'_>> {
    match branch.kind() {
        "block" | "switch_block_statement_group" => {
            named_children(branch).into_iter().rfind(|s| s.kind() != "switch_label")
        }
        _ => Some(branch),
    }
}

/// A name in scope at a node, with its declared type text (Java; `None` in Python and for
/// Java lambda parameters).
#[derive(Debug, Clone, Copy)]
struct Scoped<'t> {
    name: &'t str,
    ty: Option<&'t str>,
}

impl<'t> Cx<'t> {
    /// A call given one argument more or one fewer (see [`Template::ChangeArgumentCount`];
    /// TBar FP10 "Mutate Method Invocation Expression"): where the file declares or calls
    /// the called name with one parameter fewer, or Java's receiver class has that overload
    /// in the project ([`Cx::class_overloads`]: a method the file calls but another file
    /// declares), each argument dropped in turn; where with one more, a name in scope
    /// (parameters, locals declared before the call, fields; Python `self.x` attributes)
    /// inserted at each position, the last position first. Java, when the file or the
    /// project declares that overload: names whose declared type is its parameter's at the
    /// position come first. Python: only calls whose arguments are all positional (no
    /// keyword or `*`/`**` argument), and never a capitalised name (a constructor:
    /// [`Cx::constructor_arguments`]). Caps: [`MAX_ADDED_NAMES`] names per position,
    /// [`MAX_ARGUMENT_COUNT_EDITS`] edits per call, drops first.
    pub(super) fn argument_count(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if !matches!(node.kind(), "method_invocation" | "call") {
            return;
        }
        let Some((name, args)) = call_parts(node) else { return };
        if args.kind() != "argument_list" {
            return;
        }
        let m = self.of(name);
        if self.language == Language::Python && (is_class_name(m) || !positional(args)) {
            return;
        }
        let list = arguments(args);
        let n = list.len();
        let [fewer_types, more_types] = self.class_overloads(node, m, n);
        let more = self.methods.contains(&(m, n + 1)) || more_types.is_some();
        let fewer = n > 0 && (self.methods.contains(&(m, n - 1)) || fewer_types.is_some());
        if !more && !fewer {
            return;
        }
        let mut made: Vec<String> = Vec::new();
        if fewer {
            // Java: not a list whose arguments the overload's parameters cannot take
            // ([`super::typing`]).
            let types = n.checked_sub(1).and_then(|k| self.declared_parameter_types("method_declaration", m, k));
            let types = types.or(fewer_types);
            let typed: Vec<Option<Type>> = list.iter().map(|a| self.static_type(*a)).collect();
            let kept = (0..n).filter(|&i| {
                let rest: Vec<Option<Type>> =
                    typed.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, t)| t.clone()).collect();
                !self.refuses_parameters(&rest, types.as_deref())
            });
            made.extend(kept.map(|i| self.without_argument(args, &list, i)));
        }
        if more {
            let types = self.declared_parameter_types("method_declaration", m, n + 1).or(more_types);
            made.extend(self.added_arguments(node, args, &list, types.as_deref()));
        }
        for r in made.into_iter().take(MAX_ARGUMENT_COUNT_EDITS) {
            self.push(out, Template::ChangeArgumentCount, args, r);
        }
    }

    /// A constructor call's arguments changed (see [`Template::ConstructorArguments`]; TBar
    /// FP5 "Mutate Class Instance Creation"), on Java `new T(…)` and Python `T(…)` (a
    /// capitalised name): an argument dropped, or a name in scope added at a position (as in
    /// [`Cx::argument_count`]), where the file declares a constructor of `T` with that many
    /// parameters (Java `T(…) { … }`, or none at all for 0; Python `__init__` of `class T`)
    /// or creates a `T` with that many arguments elsewhere; Java: an argument (a name,
    /// `this.f`, a literal) replaced by another name in scope with its declared type, not a
    /// name the method uses in place of a name (those are [`Template::ChangeIdentifier`]'s).
    /// Adjacent arguments are not swapped here ([`Template::SwapArguments`] swaps every
    /// argument list). Caps: [`MAX_REPLACEMENT_NAMES`] per argument, [`MAX_ADDED_NAMES`] per
    /// position, [`MAX_CONSTRUCTOR_EDITS`] per creation (drops, then replacements, then
    /// additions).
    pub(super) fn constructor_arguments(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        let (class, args) = match (self.language, node.kind()) {
            (Language::Java, "object_creation_expression") => {
                let (Some(ty), Some(args)) = (node.child_by_field_name("type"), node.child_by_field_name("arguments"))
                else {
                    return;
                };
                (simple_type(self.of(ty)).0, args)
            }
            (Language::Python, "call") => {
                let Some((name, args)) = call_parts(node) else { return };
                if !is_class_name(self.of(name)) || args.kind() != "argument_list" || !positional(args) {
                    return;
                }
                (self.of(name), args)
            }
            _ => return,
        };
        let list = arguments(args);
        let n = list.len();
        let arities = self.constructor_arities(class);
        let mut made: Vec<String> = Vec::new();
        if n > 0 && arities.contains(&(n - 1)) {
            made.extend((0..n).map(|i| self.without_argument(args, &list, i)));
        }
        if self.language == Language::Java {
            made.extend(self.replaced_arguments(node, args, &list));
        }
        if arities.contains(&(n + 1)) {
            let types = self.declared_parameter_types("constructor_declaration", class, n + 1);
            made.extend(self.added_arguments(node, args, &list, types.as_deref()));
        }
        for r in made.into_iter().take(MAX_CONSTRUCTOR_EDITS) {
            self.push(out, Template::ConstructorArguments, args, r);
        }
    }

    /// A call statement that one branch of an `if` makes inserted into a sibling branch that
    /// lacks it (see [`Template::InsertMissedCall`]; TBar FP4 "Insert Missed Statement"):
    /// the branches are those of a Java `if`/`else if`/`else` chain (taken from its first
    /// `if`) or a Python `if`/`elif`/`else`; the statement is an expression statement that is
    /// one call (`r.m(…)`, `m(…)`; not `print`, `System.out`/`System.err` or a logger), made
    /// directly in its branch, with no name the branch declares and the sibling does not.
    /// It goes in at the sibling's end, then at its start, with its indentation (`; ` after
    /// a Python one-line branch). A Java branch that is one statement without braces is
    /// wrapped in braces with it (`else b();` → `else { b(); r.m(); }`), and an empty block
    /// gets it inside. Cap: [`MAX_MISSED_CALL_EDITS`] edits per `if`.
    pub(super) fn missed_call(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if node.kind() != "if_statement" {
            return;
        }
        let chained = node
            .parent()
            .is_some_and(|p| p.kind() == "if_statement" && p.child_by_field_name("alternative") == Some(node));
        if self.language == Language::Java && chained {
            return;
        }
        let branches = self.branches(node);
        if branches.len() < 2 {
            return;
        }
        let declared: Vec<Vec<&str>> = branches.iter().map(|b| self.declared_names(*b)).collect();
        let mut done: Vec<(usize, String)> = Vec::new();
        let mut made = 0;
        for (a, branch) in branches.iter().enumerate() {
            for s in self.call_statements(*branch) {
                let key = squash(self.of(s));
                let used: Vec<&str> =
                    descendants(s).into_iter().filter(|d| d.kind() == "identifier").map(|d| self.of(d)).collect();
                for (b, sibling) in branches.iter().enumerate() {
                    if b == a || done.contains(&(b, key.clone())) {
                        continue;
                    }
                    let has = descendants(*sibling)
                        .into_iter()
                        .any(|d| d.kind() == "expression_statement" && squash(self.of(d)) == key);
                    let foreign = used.iter().any(|u| declared[a].contains(u) && !declared[b].contains(u));
                    if has || foreign {
                        continue;
                    }
                    done.push((b, key.clone()));
                    for e in self.insertions(*sibling, self.of(s)) {
                        if made == MAX_MISSED_CALL_EDITS {
                            return;
                        }
                        out.push(e);
                        made += 1;
                    }
                }
            }
        }
    }

    /// A jump a sibling branch ends with, inserted after `node` where `node` is the last
    /// statement of a branch that ends without one (see [`Template::InsertMissedJump`]; TBar
    /// FP4 "Insert Missed Statement", for jumps): the branches are those of one
    /// `if`/`else if`/`else` chain (Python `if`/`elif`/`else`) or the statement groups of one
    /// Java `switch` (`case 1: a(); case 2: …` → `case 1: a(); break; case 2: …`)
    /// ([`Cx::chain_of`]). A sibling's jump is its last statement (a Java branch without
    /// braces is its own last statement), a `break`, `continue` or `return`, copied as it is
    /// written, the same text once. Not copied:
    /// - a jump using a name the sibling declares, unless `node`'s branch declares it at its
    ///   own level (a name of a nested `for` or comprehension is out of scope after it);
    /// - a jump after which every branch of an exhaustive chain (a final `else`, a
    ///   `default`) would leave it while a statement follows the chain: javac refuses that
    ///   statement as unreachable (Python would never run it).
    ///
    /// It goes on the next line with `node`'s indentation, after a comment that ends the line
    /// (` ` after a statement that shares its line, `; ` in Python). `node` itself is never
    /// a jump, a `throw`/`raise`, or a compound statement (`if`, loops, `try`, `switch`: code
    /// after one that always jumps is unreachable, and javac refuses it). The localized lines
    /// must hold `node`: Defects4J's perfect localization of an added line is the line it
    /// follows, that statement. Cap: [`MAX_MISSED_JUMP_EDITS`] per statement.
    pub(super) fn missed_jump(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        let simple = is_statement(node.kind()) && !compound(node);
        if !simple || JUMPS.contains(&node.kind()) || matches!(node.kind(), "throw_statement" | "raise_statement") {
            return;
        }
        let Some(branch) = node.parent() else { return };
        if named_children(branch).last() != Some(&node) {
            return;
        }
        let Some(chain) = self.chain_of(branch) else { return };
        let mine = self.direct_names(branch);
        // Whether the statement after the chain could still run, whatever this branch does.
        let others_leave = chain
            .branches
            .iter()
            .filter(|b| **b != branch)
            .all(|b| last_statement(*b).is_some_and(|l| chain.leaves(l)));
        let followed = chain.node.next_named_sibling().is_some_and(|n| !n.kind().ends_with("comment"));
        let mut jumps: Vec<&str> = Vec::new();
        for sibling in chain.branches.iter().copied().filter(|b| *b != branch) {
            let Some(last) = last_statement(sibling).filter(|l| JUMPS.contains(&l.kind())) else { continue };
            let theirs = self.declared_names(sibling);
            let foreign = descendants(last)
                .into_iter()
                .filter(|d| d.kind() == "identifier")
                .any(|d| theirs.contains(&self.of(d)) && !mine.contains(&self.of(d)));
            let unreachable = chain.exhaustive && others_leave && followed && chain.leaves(last);
            let jump = self.text_of(last);
            if !foreign && !unreachable && !jumps.contains(&jump) {
                jumps.push(jump);
            }
        }
        for jump in jumps.into_iter().take(MAX_MISSED_JUMP_EDITS) {
            let (at, text) = match (self.indent(node), self.language) {
                (Some(ind), _) => (self.line_end_after(node), format!("\n{ind}{jump}")),
                (None, Language::Java) => (node.end_byte(), format!(" {jump}")),
                (None, Language::Python) => (node.end_byte(), format!("; {jump}")),
            };
            let summary =
                format!("insert {} after {}, as a sibling branch ends", one_line(jump), one_line(self.of(node)));
            self.insert(out, Template::InsertMissedJump, at, text, summary);
        }
    }

    /// Where a line inserted after `node` begins: the end of `node`, or the end of its line
    /// when only a comment follows it there (`n -= 1  # negative` keeps its comment).
    pub(super) fn line_end_after(&self, node: Node<'_>) -> usize {
        let end = node.end_byte();
        let line_end = self.text[end..].find('\n').map_or(self.text.len(), |i| end + i);
        let content_end = if self.text[..line_end].ends_with('\r') { line_end - 1 } else { line_end };
        let rest = self.text[end..content_end].trim();
        let comment = match self.language {
            Language::Java => rest.starts_with("//") || (rest.starts_with("/*") && rest.ends_with("*/")),
            Language::Python => rest.starts_with('#'),
        };
        if comment { content_end } else { end }
    }

    /// The names `branch` declares at its own level (Java locals of its statements, Python
    /// assignment targets of its statements): the ones still in scope after its last
    /// statement.
    fn direct_names(&self, branch: Node<'_>) -> Vec<&'t str> {
        let mut out = Vec::new();
        for s in named_children(branch) {
            match s.kind() {
                "local_variable_declaration" => {
                    let mut c = s.walk();
                    for d in s.children_by_field_name("declarator", &mut c) {
                        out.extend(d.child_by_field_name("name").map(|n| self.text_of(n)));
                    }
                }
                "expression_statement" => {
                    for a in named_children(s).into_iter().filter(|a| a.kind() == "assignment") {
                        if let Some(left) = a.child_by_field_name("left") {
                            out.extend(targets(left).into_iter().map(|n| self.text_of(n)));
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The chain `branch` is a branch of (see [`Chain`]): for a block that is a branch of an
    /// `if` chain, the chain from its first `if`; for a Java `switch` statement group, its
    /// `switch`. `None` for any other node, or a chain of one branch. Not the other `if`s of
    /// the same block (parallel guards, `if (a) { return; } if (b) { f(); }`): measured on
    /// the corpus (`patterns_order`, all five splits), copying their jumps fixed 1 pair
    /// (commons-collections' `Flat3Map.putAll`) and pushed 1 other past the 200-candidate
    /// budget, with 3 `return`s in a method of ordinary `if`s.
    fn chain_of<'n>(&self, branch: Node<'n>) -> Option<Chain<'n>> {
        let parent = branch.parent()?;
        if branch.kind() == "switch_block_statement_group" {
            let groups: Vec<Node<'n>> =
                named_children(parent).into_iter().filter(|g| g.kind() == "switch_block_statement_group").collect();
            let exhaustive = groups.iter().any(|g| {
                named_children(*g).iter().any(|l| l.kind() == "switch_label" && self.of(*l).starts_with("default"))
            });
            let node = parent.parent().unwrap_or(parent);
            return (groups.len() > 1).then_some(Chain { node, branches: groups, exhaustive, switch: true });
        }
        if branch.kind() != "block" {
            return None;
        }
        let mut top = match parent.kind() {
            "if_statement" => parent,
            "elif_clause" | "else_clause" if self.language == Language::Python => {
                parent.parent().filter(|p| p.kind() == "if_statement")?
            }
            _ => return None,
        };
        while let Some(p) = top.parent() {
            if p.kind() == "if_statement" && p.child_by_field_name("alternative") == Some(top) {
                top = p;
            } else {
                break;
            }
        }
        let branches = self.branches(top);
        let exhaustive = match self.language {
            Language::Java => {
                let mut cur = top;
                while let Some(alt) = cur.child_by_field_name("alternative").filter(|a| a.kind() == "if_statement") {
                    cur = alt;
                }
                cur.child_by_field_name("alternative").is_some()
            }
            Language::Python => {
                let mut c = top.walk();
                top.children_by_field_name("alternative", &mut c).any(|a| a.kind() == "else_clause")
            }
        };
        (branches.len() > 1).then_some(Chain { node: top, branches, exhaustive, switch: false })
    }

    /// The branches of an `if` (block, or a Java statement without braces), in order.
    fn branches<'n>(&self, node: Node<'n>) -> Vec<Node<'n>> {
        let mut out = Vec::new();
        match self.language {
            Language::Java => {
                let mut cur = node;
                loop {
                    out.extend(cur.child_by_field_name("consequence"));
                    match cur.child_by_field_name("alternative") {
                        Some(alt) if alt.kind() == "if_statement" => cur = alt,
                        Some(alt) => {
                            out.push(alt);
                            break;
                        }
                        None => break,
                    }
                }
            }
            Language::Python => {
                out.extend(node.child_by_field_name("consequence"));
                let mut c = node.walk();
                for alt in node.children_by_field_name("alternative", &mut c) {
                    out.extend(alt.child_by_field_name("consequence").or(alt.child_by_field_name("body")));
                }
            }
        }
        out
    }

    /// The statements made directly in `branch` that are one call (see [`Cx::missed_call`]).
    fn call_statements<'n>(&self, branch: Node<'n>) -> Vec<Node<'n>> {
        let statements = if branch.kind() == "block" { named_children(branch) } else { vec![branch] };
        statements
            .into_iter()
            .filter(|s| {
                s.kind() == "expression_statement"
                    && s.named_child_count() == 1
                    && s.named_child(0)
                        .is_some_and(|c| matches!(c.kind(), "method_invocation" | "call") && !self.is_output(c))
            })
            .collect()
    }

    /// Whether `call` prints or logs: `print(…)`, `System.out.…`, a call on a receiver
    /// named `log`, `logger` or `logging` (`LOG.debug(…)`, `self._logger.info(…)`).
    fn is_output(&self, call: Node<'_>) -> bool {
        let (receiver, name) = match call.child_by_field_name("function") {
            Some(f) => self.of(f).rsplit_once('.').unwrap_or(("", self.of(f))),
            None => (call.child_by_field_name("object").map_or("", |o| self.of(o)), ""),
        };
        let last = receiver.rsplit('.').next().unwrap_or(receiver).trim_matches('_').to_ascii_lowercase();
        name == "print" || receiver.starts_with("System.") || matches!(last.as_str(), "log" | "logger" | "logging")
    }

    /// The names that `node` declares: Java locals, Python assignment and loop targets.
    fn declared_names(&self, node: Node<'_>) -> Vec<&'t str> {
        let mut out = Vec::new();
        for d in descendants(node) {
            match d.kind() {
                "variable_declarator" | "enhanced_for_statement" | "catch_formal_parameter" => {
                    out.extend(d.child_by_field_name("name").map(|n| self.text_of(n)));
                }
                "assignment" | "for_statement" | "for_in_clause" => {
                    if let Some(left) = d.child_by_field_name("left") {
                        out.extend(targets(left).into_iter().map(|n| self.text_of(n)));
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The insertions of statement `s` into `branch`: at its end, then at its start.
    fn insertions(&self, branch: Node<'_>, s: &str) -> Vec<Edit> {
        let mut out = Vec::new();
        let summary = |place: &str| format!("insert {} at the {place} of a sibling branch", one_line(s));
        if branch.kind() != "block" {
            // A Java statement without braces: wrapped in braces with `s`.
            let t = self.of(branch);
            for (place, r) in [("end", format!("{{ {t} {s} }}")), ("start", format!("{{ {s} {t} }}"))] {
                self.push(&mut out, Template::InsertMissedCall, branch, r);
                if let Some(e) = out.last_mut() {
                    e.summary = summary(place);
                }
            }
            return out;
        }
        let statements = named_children(branch);
        let (Some(first), Some(last)) = (statements.first(), statements.last()) else {
            if self.language == Language::Java {
                self.insert(
                    &mut out,
                    Template::InsertMissedCall,
                    branch.start_byte() + 1,
                    format!(" {s} "),
                    summary("end"),
                );
            }
            return out;
        };
        let (end, start) = match (self.indent(*first), self.language) {
            (Some(ind), _) => (format!("\n{ind}{s}"), format!("{s}\n{ind}")),
            (None, Language::Java) => (format!(" {s}"), format!("{s} ")),
            (None, Language::Python) => (format!("; {s}"), format!("{s}; ")),
        };
        self.insert(&mut out, Template::InsertMissedCall, last.end_byte(), end, summary("end"));
        self.insert(&mut out, Template::InsertMissedCall, first.start_byte(), start, summary("start"));
        out
    }

    /// `node`'s text, for the whole life of the file text.
    fn text_of(&self, node: Node<'_>) -> &'t str {
        &self.text[node.byte_range()]
    }

    /// The argument list `args` (holding `list`) without argument `i` and its separator.
    fn without_argument(&self, args: Node<'_>, list: &[Node<'_>], i: usize) -> String {
        let (t, base) = (self.of(args), args.start_byte());
        let (s, e) = if list.len() == 1 {
            (list[0].start_byte(), list[0].end_byte())
        } else if i + 1 < list.len() {
            (list[i].start_byte(), list[i + 1].start_byte())
        } else {
            (list[i - 1].end_byte(), list[i].end_byte())
        };
        format!("{}{}", &t[..s - base], &t[e - base..])
    }

    /// The argument list `args` (holding `list`) with `name` inserted as argument `i`.
    fn with_argument(&self, args: Node<'_>, list: &[Node<'_>], i: usize, name: &str) -> String {
        let (t, base) = (self.of(args), args.start_byte());
        if list.is_empty() {
            return format!("({name})");
        }
        if i < list.len() {
            let at = list[i].start_byte() - base;
            format!("{}{name}, {}", &t[..at], &t[at..])
        } else {
            let at = list[i - 1].end_byte() - base;
            format!("{}, {name}{}", &t[..at], &t[at..])
        }
    }

    /// Argument lists with one name in scope at `at` added, per position from the last, at
    /// most [`MAX_ADDED_NAMES`] names each; Java names of the declared parameter type first.
    fn added_arguments(&self, at: Node<'_>, args: Node<'_>, list: &[Node<'_>], types: Option<&[&str]>) -> Vec<String> {
        let present: Vec<&str> = list.iter().map(|a| self.of(*a)).collect();
        let names: Vec<Scoped<'t>> = self.scope(at).into_iter().filter(|s| !present.contains(&s.name)).collect();
        let typed: Vec<Option<Type>> = list.iter().map(|a| self.static_type(*a)).collect();
        let mut out = Vec::new();
        for i in (0..=list.len()).rev() {
            let mut ranked = names.clone();
            if let Some(want) = types.and_then(|t| t.get(i)).map(|w| squash(w)) {
                ranked.sort_by_key(|s| s.ty.map(squash) != Some(want.clone()));
            }
            // Java: not a list whose arguments the overload's parameters cannot take
            // ([`super::typing`]).
            ranked.retain(|s| {
                let mut all = typed.clone();
                all.insert(i, s.ty.map(written));
                !self.refuses_parameters(&all, types)
            });
            out.extend(ranked.iter().take(MAX_ADDED_NAMES).map(|s| self.with_argument(args, list, i, s.name)));
        }
        out
    }

    /// Java: argument lists with one argument replaced by another name in scope of its
    /// declared type (see [`Cx::constructor_arguments`]).
    fn replaced_arguments(&self, at: Node<'_>, args: Node<'_>, list: &[Node<'_>]) -> Vec<String> {
        let scope = self.scope(at);
        let type_of = |name: &str| {
            scope.iter().rev().find(|s| s.name == name).map_or(self.types.get(name).copied().flatten(), |s| s.ty)
        };
        let used = self.used_in_method(at);
        let (t, base) = (self.of(args), args.start_byte());
        let mut out = Vec::new();
        for arg in list {
            let this = self.of(*arg);
            let ty = match arg.kind() {
                "identifier" => type_of(this),
                "field_access" if arg.child_by_field_name("object").is_some_and(|o| o.kind() == "this") => {
                    arg.child_by_field_name("field").and_then(|f| type_of(self.of(f)))
                }
                "string_literal" => Some("String"),
                "decimal_integer_literal" | "hex_integer_literal" => Some("int"),
                "decimal_floating_point_literal" if this.ends_with(['f', 'F']) => Some("float"),
                "decimal_floating_point_literal" => Some("double"),
                "true" | "false" => Some("boolean"),
                "character_literal" => Some("char"),
                _ => None,
            };
            let Some(ty) = ty else { continue };
            let candidates = scope.iter().filter(|s| {
                s.ty == Some(ty)
                    && s.name != this
                    && !(arg.kind() == "identifier" && used.contains(&s.name))
                    && !list.iter().any(|a| self.of(*a) == s.name)
            });
            let (s, e) = (arg.start_byte() - base, arg.end_byte() - base);
            out.extend(candidates.take(MAX_REPLACEMENT_NAMES).map(|c| format!("{}{}{}", &t[..s], c.name, &t[e..])));
        }
        out
    }

    /// The identifiers used as values in the method or constructor holding `at` (the names
    /// [`Template::ChangeIdentifier`] draws from).
    fn used_in_method(&self, at: Node<'_>) -> Vec<&'t str> {
        let mut cur = at;
        while let Some(p) = cur.parent() {
            if matches!(p.kind(), "method_declaration" | "constructor_declaration" | "function_definition") {
                return descendants(p)
                    .into_iter()
                    .filter(|n| n.kind() == "identifier" && !self.is_name(*n))
                    .map(|n| self.text_of(n))
                    .collect();
            }
            cur = p;
        }
        Vec::new()
    }

    /// Java: the parameter types of the first `kind` (method or constructor declaration)
    /// named `name` with `count` parameters in the file; `None` in Python or when there is none.
    fn declared_parameter_types(&self, kind: &str, name: &str, count: usize) -> Option<Vec<&'t str>> {
        if self.language != Language::Java {
            return None;
        }
        descendants(self.root).into_iter().find_map(|d| {
            if d.kind() != kind || d.child_by_field_name("name").is_none_or(|n| self.of(n) != name) {
                return None;
            }
            let params = named_children(d.child_by_field_name("parameters")?);
            let types: Vec<&'t str> = params
                .iter()
                .filter(|p| matches!(p.kind(), "formal_parameter" | "spread_parameter"))
                .map(|p| p.child_by_field_name("type").map_or("", |t| self.text_of(t)))
                .collect();
            (types.len() == count).then_some(types)
        })
    }

    /// The arities with which the file constructs class `class` (see
    /// [`Cx::constructor_arguments`]).
    fn constructor_arities(&self, class: &str) -> Vec<usize> {
        let mut out = Vec::new();
        for d in descendants(self.root) {
            let named = |field: &str| d.child_by_field_name(field).is_some_and(|n| self.of(n) == class);
            match (self.language, d.kind()) {
                (Language::Java, "constructor_declaration") if named("name") => {
                    out.push(d.child_by_field_name("parameters").map_or(0, |p| named_children(p).len()));
                }
                (Language::Java, "class_declaration") if named("name") => {
                    let body = d.child_by_field_name("body").map(named_children).unwrap_or_default();
                    if !body.iter().any(|m| m.kind() == "constructor_declaration") {
                        out.push(0);
                    }
                }
                (Language::Java, "object_creation_expression")
                    if d.child_by_field_name("type").is_some_and(|t| simple_type(self.of(t)).0 == class) =>
                {
                    out.push(d.child_by_field_name("arguments").map_or(0, |a| arguments(a).len()));
                }
                (Language::Python, "class_definition") if named("name") => {
                    let body = d.child_by_field_name("body").map(named_children).unwrap_or_default();
                    for f in body.iter().filter(|f| f.kind() == "function_definition") {
                        if f.child_by_field_name("name").is_some_and(|n| self.of(n) == "__init__") {
                            out.push(self.parameters(*f).len());
                        }
                    }
                }
                _ => {}
            }
        }
        if self.language == Language::Python {
            out.extend(self.methods.iter().filter(|(m, _)| *m == class).map(|(_, k)| *k));
        }
        out
    }

    /// The names in scope at `at`, once each: the enclosing method's parameters, the locals
    /// declared before `at` in the blocks (and `for`, `catch`, lambda) that hold it, then
    /// the enclosing class's fields (Java) or `self.x` attributes (Python).
    fn scope(&self, at: Node<'_>) -> Vec<Scoped<'t>> {
        let (mut params, mut locals, mut fields) = (Vec::new(), Vec::new(), Vec::new());
        match self.language {
            Language::Java => self.java_scope(at, &mut params, &mut locals, &mut fields),
            Language::Python => self.python_scope(at, &mut params, &mut locals, &mut fields),
        }
        locals.sort_by_key(|(start, _)| *start);
        let mut out: Vec<Scoped<'t>> = Vec::new();
        for s in params.into_iter().chain(locals.into_iter().map(|(_, s)| s)).chain(fields) {
            if !out.iter().any(|o| o.name == s.name) && s.name != "self" {
                out.push(s);
            }
        }
        out
    }

    /// Java: see [`Cx::scope`]; locals with their start byte.
    fn java_scope(
        &self,
        at: Node<'_>,
        params: &mut Vec<Scoped<'t>>,
        locals: &mut Vec<(usize, Scoped<'t>)>,
        fields: &mut Vec<Scoped<'t>>,
    ) {
        let declarators = |decl: Node<'_>, into: &mut Vec<(usize, Scoped<'t>)>| {
            let ty = decl.child_by_field_name("type").map(|t| self.text_of(t));
            let mut c = decl.walk();
            for d in decl.children_by_field_name("declarator", &mut c) {
                if let Some(name) = d.child_by_field_name("name") {
                    into.push((d.start_byte(), Scoped { name: self.text_of(name), ty }));
                }
            }
        };
        let before = |n: &Node<'_>| n.end_byte() <= at.start_byte();
        let mut cur = at;
        while let Some(p) = cur.parent() {
            match p.kind() {
                "block" | "constructor_body" | "switch_block_statement_group" => {
                    for s in named_children(p).iter().filter(|s| s.kind() == "local_variable_declaration" && before(s))
                    {
                        declarators(*s, locals);
                    }
                }
                "for_statement" => {
                    let mut c = p.walk();
                    for init in p.children_by_field_name("init", &mut c) {
                        if init.kind() == "local_variable_declaration" && init != cur {
                            declarators(init, locals);
                        }
                    }
                }
                "enhanced_for_statement" => {
                    if let Some(name) = p.child_by_field_name("name") {
                        let ty = p.child_by_field_name("type").map(|t| self.text_of(t));
                        locals.push((p.start_byte(), Scoped { name: self.text_of(name), ty }));
                    }
                }
                "catch_clause" => {
                    for c in named_children(p).iter().filter(|c| c.kind() == "catch_formal_parameter") {
                        if let Some(name) = c.child_by_field_name("name") {
                            let ty =
                                named_children(*c).iter().find(|t| t.kind() == "catch_type").map(|t| self.text_of(*t));
                            locals.push((c.start_byte(), Scoped { name: self.text_of(name), ty }));
                        }
                    }
                }
                "lambda_expression" => {
                    if let Some(ps) = p.child_by_field_name("parameters") {
                        let names = if ps.kind() == "identifier" { vec![ps] } else { named_children(ps) };
                        for n in names {
                            let (name, ty) = match n.kind() {
                                "identifier" => (Some(n), None),
                                _ => (n.child_by_field_name("name"), n.child_by_field_name("type")),
                            };
                            if let Some(name) = name {
                                let ty = ty.map(|t| self.text_of(t));
                                locals.push((n.start_byte(), Scoped { name: self.text_of(name), ty }));
                            }
                        }
                    }
                }
                "method_declaration" | "constructor_declaration" => {
                    let ps = p.child_by_field_name("parameters").map(named_children).unwrap_or_default();
                    for f in ps.iter().filter(|f| matches!(f.kind(), "formal_parameter" | "spread_parameter")) {
                        let name = f.child_by_field_name("name").or_else(|| {
                            named_children(*f)
                                .into_iter()
                                .find(|v| v.kind() == "variable_declarator")
                                .and_then(|v| v.child_by_field_name("name"))
                        });
                        if let Some(name) = name {
                            let ty = f.child_by_field_name("type").map(|t| self.text_of(t));
                            params.push(Scoped { name: self.text_of(name), ty });
                        }
                    }
                }
                "class_body" | "enum_body" => {
                    let mut own = Vec::new();
                    for f in named_children(p).iter().filter(|f| f.kind() == "field_declaration") {
                        declarators(*f, &mut own);
                    }
                    fields.extend(own.into_iter().map(|(_, s)| s));
                    return;
                }
                _ => {}
            }
            cur = p;
        }
    }

    /// Python: see [`Cx::scope`]; locals with their start byte.
    fn python_scope(
        &self,
        at: Node<'_>,
        params: &mut Vec<Scoped<'t>>,
        locals: &mut Vec<(usize, Scoped<'t>)>,
        fields: &mut Vec<Scoped<'t>>,
    ) {
        let mut function = None;
        let mut class = None;
        let mut cur = at;
        while let Some(p) = cur.parent() {
            match p.kind() {
                "function_definition" if function.is_none() => function = Some(p),
                "class_definition" if class.is_none() => class = Some(p),
                _ => {}
            }
            cur = p;
        }
        let home = function.and_then(|f| f.child_by_field_name("body")).unwrap_or(cur);
        if let Some(f) = function {
            for (name, _) in self.parameters(f) {
                // The parameter's own text, to borrow from the file.
                let found = f
                    .child_by_field_name("parameters")
                    .map(descendants)
                    .unwrap_or_default()
                    .into_iter()
                    .find(|n| n.kind() == "identifier" && self.of(*n) == name);
                params.extend(found.map(|n| Scoped { name: self.text_of(n), ty: None }));
            }
        }
        for d in descendants(home) {
            let bound = match d.kind() {
                "assignment" | "augmented_assignment" => d.end_byte() <= at.start_byte(),
                "for_statement" => d.end_byte() <= at.start_byte() || d.byte_range().contains(&at.start_byte()),
                _ => false,
            };
            if !bound || nested(d, home) {
                continue;
            }
            if let Some(left) = d.child_by_field_name("left") {
                for t in targets(left) {
                    locals.push((t.start_byte(), Scoped { name: self.text_of(t), ty: None }));
                }
            }
        }
        if let Some(class) = class {
            for d in descendants(class) {
                let Some(left) = (d.kind() == "assignment").then(|| d.child_by_field_name("left")).flatten() else {
                    continue;
                };
                if left.kind() == "attribute"
                    && left.child_by_field_name("object").is_some_and(|o| self.of(o) == "self")
                {
                    fields.push(Scoped { name: self.text_of(left), ty: None });
                }
            }
        }
    }
}

/// The named children of `node` other than comments (a block's statements).
pub(super) fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut c = node.walk();
    node.named_children(&mut c).filter(|n| !n.kind().ends_with("comment")).collect()
}

/// Whether `node` is a statement that holds other statements (`if`, loops, `try`,
/// `switch`, `with`, a Java block or labelled statement).
fn compound(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "if_statement"
            | "for_statement"
            | "enhanced_for_statement"
            | "while_statement"
            | "do_statement"
            | "try_statement"
            | "try_with_resources_statement"
            | "switch_statement"
            | "switch_expression"
            | "synchronized_statement"
            | "labeled_statement"
            | "with_statement"
            | "match_statement"
            | "block"
    )
}

/// The arguments of an argument list.
fn arguments(args: Node<'_>) -> Vec<Node<'_>> {
    named_children(args)
}

/// Python: whether every argument of `args` is positional (no keyword, `*` or `**`).
fn positional(args: Node<'_>) -> bool {
    arguments(args).iter().all(|a| !matches!(a.kind(), "keyword_argument" | "list_splat" | "dictionary_splat"))
}

/// Whether `name` looks like a class name (a capital first letter: `Point`).
fn is_class_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase())
}

/// The identifiers a Python assignment or loop target binds (`a`, `a, b`, `(a, [b, c])`;
/// none for `self.x` or `d[k]`).
pub(super) fn targets(left: Node<'_>) -> Vec<Node<'_>> {
    match left.kind() {
        "identifier" => vec![left],
        "pattern_list" | "tuple_pattern" | "list_pattern" | "expression_list" | "tuple" | "list" => {
            named_children(left).into_iter().flat_map(targets).collect()
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{apply, assert_fixes, parses};
    use super::super::{Edit, Template, edits, snippet_edits};
    use crate::Language;

    /// The edits of `template` on the whole of `text`, each with the text it makes.
    fn made(text: &str, language: Language, template: Template) -> Vec<(Edit, String)> {
        let n = text.lines().count();
        edits(text, language, (1, n))
            .into_iter()
            .filter(|e| e.template == template)
            .map(|e| {
                let out = apply(text, &e);
                (e, out)
            })
            .collect()
    }

    fn originals(all: &[(Edit, String)]) -> Vec<(&str, &str)> {
        all.iter().map(|(e, _)| (e.original.as_str(), e.replacement.as_str())).collect()
    }

    const JOINER: &str = "class Joiner {
    private String separator;
    private int limit;

    static String join(String[] parts, String sep) {
        return join(parts, sep, 0);
    }

    static String join(String[] parts, String sep, int start) {
        StringBuilder buf = new StringBuilder();
        for (int i = start; i < parts.length; i++) {
            buf.append(parts[i]);
        }
        return buf.toString();
    }

    String render(String[] parts, int offset) {
        String glue = separator;
        String out = join(parts, glue);
        return out;
    }
}
";

    #[test]
    fn java_argument_count_follows_the_overloads_of_the_file() {
        let all = made(JOINER, Language::Java, Template::ChangeArgumentCount);
        let pairs = originals(&all);
        // One fewer: each argument dropped, separators and all, where the overload takes the
        // rest: not `(sep, 0)`, a `String` for `String[] parts` (javac refuses it, `typing.rs`).
        for dropped in ["(parts, 0)", "(parts, sep)"] {
            assert!(pairs.contains(&("(parts, sep, 0)", dropped)), "{pairs:#?}");
        }
        assert!(!pairs.contains(&("(parts, sep, 0)", "(sep, 0)")), "{pairs:#?}");
        // One more: the `int` names at the third position (the overload's type there), not
        // the `String` field; nor a name put first, which moves `parts` to `String sep`.
        let third: Vec<&str> = pairs
            .iter()
            .filter(|(o, r)| *o == "(parts, glue)" && r.starts_with("(parts, glue, "))
            .map(|p| p.1)
            .collect();
        assert_eq!(third, ["(parts, glue, offset)", "(parts, glue, limit)"]);
        assert!(!pairs.iter().any(|(o, r)| *o == "(parts, glue)" && !r.starts_with("(parts, glue, ")), "{pairs:#?}");
        // Locals declared after the call, and the call's own arguments, are never added.
        assert!(!pairs.iter().any(|(_, r)| r.contains("out") || *r == "(parts, glue, glue)" || r.contains("buf")));
        // Calls with no overload of another arity are left alone.
        assert!(!pairs.iter().any(|(o, _)| *o == "(parts[i])" || *o == "()"));
        for (e, out) in &all {
            assert_ne!(e.original, e.replacement);
            assert!(parses(out, Language::Java), "{out}");
        }
        // Capped per call.
        assert!(pairs.iter().filter(|(o, _)| *o == "(parts, glue)").count() <= super::MAX_ARGUMENT_COUNT_EDITS);
    }

    #[test]
    fn python_argument_count_adds_names_in_scope_to_positional_calls_only() {
        let text = "def tokenize(text, pos):
    return text[pos:].split()


def parse(text, strict):
    start = 0
    tokens = tokenize(text)
    rest = tokenize(text, pos=start)
    return tokens, rest
";
        let all = made(text, Language::Python, Template::ChangeArgumentCount);
        let pairs = originals(&all);
        assert!(pairs.contains(&("(text)", "(text, start)")), "{pairs:#?}");
        assert!(pairs.contains(&("(text)", "(text, strict)")));
        assert!(pairs.contains(&("(text)", "(strict, text)")));
        // Names bound after the call are not in scope; keyword calls are not touched.
        assert!(!pairs.iter().any(|(_, r)| r.contains("tokens") || r.contains("rest")));
        assert!(!pairs.iter().any(|(o, _)| o.contains("pos=")));
        assert!(all.iter().all(|(_, out)| parses(out, Language::Python)));
        // The appended argument comes first.
        assert_eq!(pairs[0], ("(text)", "(text, strict)"));
    }

    const RANGE: &str = "class Range {
    private final int min;
    private final int max;
    private String label;

    Range(int min, int max) {
        this.min = min;
        this.max = max;
    }

    Range(int max) {
        this(0, max);
    }

    static Range of(int lower, int upper, int step) {
        Range r = new Range(upper);
        int width = upper - lower;
        return new Range(lower, width);
    }
}
";

    #[test]
    fn java_constructor_arguments_follow_the_declared_constructors() {
        let all = made(RANGE, Language::Java, Template::ConstructorArguments);
        let pairs = originals(&all);
        // One fewer where a constructor takes one parameter fewer.
        assert!(pairs.contains(&("(lower, width)", "(width)")), "{pairs:#?}");
        assert!(pairs.contains(&("(lower, width)", "(lower)")));
        // One more, the last position first, `int` names first (the constructor's types).
        assert_eq!(
            pairs.iter().find(|(o, r)| *o == "(upper)" && r.contains(',')),
            Some(&("(upper)", "(upper, lower)"))
        );
        assert!(pairs.contains(&("(upper)", "(lower, upper)")));
        assert!(!pairs.iter().any(|(_, r)| r.contains("label")), "a String is not an int");
        // Replaced by a name of the same type the method does not use (ChangeIdentifier
        // makes `lower`): a parameter left unused, the fields.
        assert!(pairs.contains(&("(upper)", "(step)")));
        assert!(pairs.contains(&("(upper)", "(min)")));
        assert!(!pairs.contains(&("(upper)", "(lower)")));
        assert!(!pairs.iter().any(|(o, _)| *o == "()"));
        // Never a swap (SwapArguments' own), never a no-op, always parses.
        let swaps: Vec<String> = edits(RANGE, Language::Java, (1, RANGE.lines().count()))
            .iter()
            .filter(|e| e.template == Template::SwapArguments)
            .map(|e| apply(RANGE, e))
            .collect();
        assert!(swaps.iter().any(|s| s.contains("new Range(width, lower)")));
        for (e, out) in &all {
            assert!(!swaps.contains(out) && e.original != e.replacement);
            assert!(parses(out, Language::Java), "{out}");
        }
        assert!(pairs.iter().filter(|(o, _)| *o == "(upper)").count() <= super::MAX_CONSTRUCTOR_EDITS);
    }

    #[test]
    fn python_constructor_arguments_follow_init() {
        let text = "class Interval:
    def __init__(self, lo, hi, closed):
        self.lo = lo
        self.hi = hi
        self.closed = closed


def span(lo, hi):
    closed = True
    return Interval(lo, hi)
";
        let all = made(text, Language::Python, Template::ConstructorArguments);
        let pairs = originals(&all);
        assert_eq!(pairs.first(), Some(&("(lo, hi)", "(lo, hi, closed)")), "{pairs:#?}");
        // No types in Python: no replacement; no constructor of one argument: no drop.
        assert!(!pairs.iter().any(|(_, r)| r.matches(',').count() < 2));
        // The plain-call template leaves constructors alone.
        assert!(made(text, Language::Python, Template::ChangeArgumentCount).is_empty());
    }

    #[test]
    fn java_missed_break_of_a_switch_group_is_the_fix() {
        // jackson-databind 3aee590e9f54, `BaseNodeDeserializer.deserializeArray` (the corpus's
        // mined_git_history): the embedded-object case fell through into the string case.
        let case = |fixed: bool| {
            format!(
                "    protected final ArrayNode deserializeArray(JsonParser p, DeserializationContext ctxt,
            final JsonNodeFactory nodeFactory) throws IOException
    {{
        ArrayNode node = nodeFactory.arrayNode();
        while (true) {{
            JsonToken t = p.nextToken();
            switch (t.id()) {{
            case JsonTokenId.ID_START_ARRAY:
                node.add(deserializeArray(p, ctxt, nodeFactory));
                break;
            case JsonTokenId.ID_END_ARRAY:
                return node;
            case JsonTokenId.ID_EMBEDDED_OBJECT:
                node.add(_fromEmbedded(p, ctxt, nodeFactory));{}
            case JsonTokenId.ID_STRING:
                node.add(nodeFactory.textNode(p.getText()));
                break;
            default:
                node.add(deserializeAny(p, ctxt, nodeFactory));
                break;
            }}
        }}
    }}",
                if fixed { "\n                break;" } else { "" }
            )
        };
        assert_fixes(&case(false), &case(true), Language::Java, Template::InsertMissedJump);
        let all = snippet_edits(&case(false), Language::Java);
        let jumps: Vec<&str> =
            all.iter().filter(|e| e.template == Template::InsertMissedJump).map(|e| e.replacement.trim()).collect();
        // Each sibling's jump once, in source order; none where a group already ends with one.
        assert_eq!(jumps, ["break;", "return node;"], "{all:#?}");
    }

    #[test]
    fn java_missed_jump_is_not_copied_from_a_parallel_if() {
        // commons-collections 8a93f7c45230, `Flat3Map.putAll` (mined_git_history): the fix
        // adds `return;` after `iMap.putAll(map);`, as the guard above returns; that `if` is
        // not a branch of the same chain, so no edit (see `Cx::sibling_branches`).
        let text = "    public void putAll(Map map) {
        int size = map.size();
        if (size == 0) {
            return;
        }
        if (iMap != null) {
            iMap.putAll(map);
        }
        if (size < 4) {
            for (Iterator it = map.entrySet().iterator(); it.hasNext();) {
                Map.Entry entry = (Map.Entry) it.next();
                put(entry.getKey(), entry.getValue());
            }
        } else {
            convertToMap();
            iMap.putAll(map);
        }
    }";
        let all = snippet_edits(text, Language::Java);
        assert!(!all.iter().any(|e| e.template == Template::InsertMissedJump), "{all:#?}");
    }

    #[test]
    fn missed_jump_comes_from_a_sibling_branch_only_where_it_can_go() {
        let text = "class Lexer {
    int scan(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == ' ') {
                n++;
                continue;
            } else if (c == '#') {
                int end = s.indexOf('\\n', i);
                return end;
            } else if (c == ';') {
                n--;
            } else {
                if (n > 3) {
                    break;
                }
            }
        }
        return n;
    }
}
";
        let all = made(text, Language::Java, Template::InsertMissedJump);
        let outs: Vec<&str> = all.iter().map(|(_, o)| o.as_str()).collect();
        let want = text.replace("n--;\n", "n--;\n                continue;\n");
        assert!(outs.contains(&want.as_str()), "{all:#?}");
        // `return end;` uses a local of its branch; the `else` ends with an `if` (compound); the
        // branches that end with a jump get none.
        assert_eq!(all.len(), 1, "{all:#?}");
        assert!(all.iter().all(|(e, out)| e.start == e.end && parses(out, Language::Java)));
    }

    #[test]
    fn missed_jump_never_makes_code_unreachable_or_uses_a_name_out_of_scope() {
        // Cases of the fresh-user pass: each made a candidate javac refuses.
        let text = "class T {
    int a(int x) {
        int r;
        if (x > 0) { r = 1; return r; } else {
            r = 2;
        }
        return r * 10;
    }
    int b(int x) {
        switch (x) {
            case 1: return 10;
            case 2: return 20;
            default:
                x++;
        }
        return x;
    }
    int c(int x, int s) {
        if (x > 10) { int k = x * 2; return k; }
        else if (x > 5) {
            for (int k = 0; k < x; k++) { s += k; }
            s++;
        }
        return s;
    }
    int d(int[] xs) {
        int n = 0;
        for (int x : xs) {
            if (x == 0) break;
            else if (x > 5) {
                n++; // counted
            }
        }
        return n;
    }
}
";
        let all = made(text, Language::Java, Template::InsertMissedJump);
        // a: the `else` would return too, and `return r * 10;` follows. b: likewise after the
        // `switch`. c: `k` of the sibling is declared in this branch only inside its `for`.
        // d: the sibling without braces ends with `break`; no `else`, so the insertion is
        // made, after the line's comment.
        let outs: Vec<&str> = all.iter().map(|(_, o)| o.as_str()).collect();
        let want = text.replace("n++; // counted\n", "n++; // counted\n                break;\n");
        assert_eq!(outs, [want.as_str()], "{all:#?}");
        // A file with CRLF line breaks gets CRLF.
        let crlf = text.replace('\n', "\r\n");
        let all = made(&crlf, Language::Java, Template::InsertMissedJump);
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].0.replacement, "\r\n                break;", "{all:#?}");
    }

    #[test]
    fn python_missed_jump_skips_a_comprehension_name_and_dead_code() {
        let text = "def f(xs, n):
    for x in xs:
        if x < 0:
            y = -x
            return y
        elif x == 0:
            z = [y for y in xs]
        else:
            n += 1  # counted
    return n
";
        let all = made(text, Language::Python, Template::InsertMissedJump);
        // `return y` is never copied (`y` is the comprehension's); the `else` has no jump
        // to copy but `return y`, so nothing at all.
        assert!(all.is_empty(), "{all:#?}");
        let text = text.replace("            return y\n", "            continue\n");
        let all = made(&text, Language::Python, Template::InsertMissedJump);
        let outs: Vec<&str> = all.iter().map(|(_, o)| o.as_str()).collect();
        // With `continue`, each branch after it gets it; the comment stays on its line.
        assert!(
            outs.contains(&text.replace("n += 1  # counted\n", "n += 1  # counted\n            continue\n").as_str())
        );
        assert_eq!(all.len(), 2, "{all:#?}");
    }

    #[test]
    fn python_missed_continue_goes_after_the_last_statement_of_an_elif() {
        let text = "def count(lines):
    n = 0
    for line in lines:
        if not line:
            continue
        elif line.startswith('#'):
            n += 1
        else:
            n += 2
    return n
";
        let all = made(text, Language::Python, Template::InsertMissedJump);
        let outs: Vec<&str> = all.iter().map(|(_, o)| o.as_str()).collect();
        assert!(outs.contains(&text.replace("n += 1\n", "n += 1\n            continue\n").as_str()), "{all:#?}");
        assert!(outs.contains(&text.replace("n += 2\n", "n += 2\n            continue\n").as_str()), "{all:#?}");
        assert_eq!(all.len(), 2, "{all:#?}");
        assert!(all.iter().all(|(_, out)| parses(out, Language::Python)));
    }

    #[test]
    fn java_missed_call_goes_into_the_sibling_branch() {
        let text = "class Cache {
    private Map<String, Object> store;
    private Stats stats;

    void put(String key, Object value) {
        if (value == null) {
            Entry old = store.get(key);
            old.release();
            store.remove(key);
            stats.evict(key);
            LOG.debug(key);
        } else {
            store.put(key, value);
        }
    }
}
";
        let all = made(text, Language::Java, Template::InsertMissedCall);
        let outs: Vec<&str> = all.iter().map(|(_, o)| o.as_str()).collect();
        assert!(
            outs.contains(
                &text
                    .replace(
                        "store.put(key, value);\n        }",
                        "store.put(key, value);\n            stats.evict(key);\n        }"
                    )
                    .as_str()
            ),
            "{all:#?}"
        );
        assert!(
            outs.contains(
                &text
                    .replace(
                        "        } else {\n            store.put",
                        "        } else {\n            stats.evict(key);\n            store.put"
                    )
                    .as_str()
            )
        );
        assert!(
            outs.iter()
                .any(|o| o.contains("} else {\n            store.put(key, value);\n            store.remove(key);"))
        );
        assert!(outs.iter().any(|o| o.contains(
            "stats.evict(key);\n            LOG.debug(key);\n            store.put(key, value);\n        } else"
        )));
        // Not a call on a name the branch declares, not a logger.
        assert!(!all.iter().any(|(e, _)| e.replacement.contains("old.") || e.replacement.contains("LOG")));
        assert_eq!(all.len(), 6, "{all:#?}");
        assert!(all.iter().all(|(e, out)| e.start == e.end && parses(out, Language::Java)));
    }

    #[test]
    fn java_missed_call_braces_a_single_statement_and_walks_else_if_chains() {
        let text = "class Writer {
    void close(boolean force, int mode) {
        if (force)
            flush();
        else if (mode > 0) {
            out.reset();
            flush();
        } else
            out.reset();
        if (mode < 0) {
        } else {
            System.out.println(mode);
            reset();
        }
    }
}
";
        let all = made(text, Language::Java, Template::InsertMissedCall);
        let outs: Vec<&str> = all.iter().map(|(_, o)| o.as_str()).collect();
        assert!(outs.iter().any(|o| o.contains("if (force)\n            { flush(); out.reset(); }\n")), "{outs:#?}");
        assert!(outs.iter().any(|o| o.contains("if (force)\n            { out.reset(); flush(); }\n")));
        assert!(outs.iter().any(|o| o.contains("} else\n            { out.reset(); flush(); }\n")));
        // An empty block gets the call inside; printing is never copied.
        assert!(outs.iter().any(|o| o.contains("if (mode < 0) { reset(); \n        } else {")));
        assert!(!all.iter().any(|(e, _)| e.replacement.contains("System.out")));
        // The middle branch has both calls already.
        assert!(!all.iter().any(|(e, _)| e.line == 6 || e.line == 7), "{all:#?}");
        assert!(all.iter().all(|(_, out)| parses(out, Language::Java)));
        // The inner `if` of the chain makes nothing of its own (no duplicates).
        let mut texts: Vec<&str> = outs.clone();
        texts.sort_unstable();
        texts.dedup();
        assert_eq!(texts.len(), outs.len());
    }

    #[test]
    fn python_missed_call_in_if_elif_else_with_indentation_and_caps() {
        let text = "class Store:
    def update(self, key, value):
        if key in self.cache:
            self.cache[key] = value
            self.touch(key)
        elif value is None:
            self.evict(key)
        else:
            self.cache[key] = value
        if value: self.mark(key)
        else: self.clear()
        if not key:
            logging.warning(\"no key\")
        else:
            self._log.debug(key)
";
        let all = made(text, Language::Python, Template::InsertMissedCall);
        let outs: Vec<&str> = all.iter().map(|(_, o)| o.as_str()).collect();
        assert!(
            outs.contains(
                &text.replace("self.evict(key)\n", "self.evict(key)\n            self.touch(key)\n").as_str()
            )
        );
        assert!(
            outs.contains(
                &text
                    .replace(
                        "        else:\n            self.cache",
                        "        else:\n            self.evict(key)\n            self.cache"
                    )
                    .as_str()
            )
        );
        assert!(outs.iter().any(|o| o.contains("if value: self.mark(key); self.clear()\n")), "{outs:#?}");
        assert!(outs.iter().any(|o| o.contains("else: self.mark(key); self.clear()\n")));
        assert!(all.iter().all(|(_, out)| parses(out, Language::Python)));
        // Each if: at most MAX_MISSED_CALL_EDITS (the first makes 8, the second 4).
        assert_eq!(all.len(), 12);
    }
}
