//! track_variable_dataflow: a small intra-procedural reaching-definitions analysis for
//! one variable, over the syntax tree of one method.
//!
//! The walk follows evaluation order (a value is read before the assignment that uses it
//! defines the target), joins the definition sets of `if`/`else`, `switch`/`match`
//! branches and `try`/`catch`, iterates loops to a fixpoint, and treats `return`,
//! `throw`/`raise`, `break` and `continue` as jumps. It is syntactic: no aliasing, no
//! calls followed, no short-circuit evaluation, nested functions and lambdas see the
//! enclosing definitions but do not define for the enclosing method.

use std::collections::{BTreeSet, HashMap};

use tree_sitter::Node;

use super::render::Output;
use super::source::{SourceFile, children, line_of, one_line};
use super::syntax::{VarName, as_call, field_name_in_parent, is_method, names_read, variable_node};
use super::variables::{Role, classify, gives_value};
use crate::Language;

type Defs = BTreeSet<usize>;

/// The definition with index 0: whatever value the variable had when the method began.
const ON_ENTRY: usize = 0;

/// A definition site of the variable.
#[derive(Debug)]
struct Def<'t> {
    node: Option<Node<'t>>,
    kind: &'static str,
    sources: Vec<String>,
}

/// A use site and the definitions that may reach it.
#[derive(Debug)]
struct Use<'t> {
    node: Node<'t>,
    reaching: Defs,
}

/// Break and continue states collected for the innermost loop or switch.
#[derive(Debug, Default)]
struct Jumps {
    breaks: Defs,
    continues: Defs,
}

/// The analysis state while walking one method.
#[derive(Debug)]
struct Flow<'t> {
    file: &'t SourceFile,
    var: VarName,
    defs: Vec<Def<'t>>,
    def_index: HashMap<usize, usize>,
    uses: Vec<Use<'t>>,
    use_index: HashMap<usize, usize>,
    state: Defs,
    jumps: Vec<Jumps>,
}

impl<'t> Flow<'t> {
    fn new(file: &'t SourceFile, var: VarName) -> Flow<'t> {
        let entry = Def { node: None, kind: "value on entry (field, global or outer scope)", sources: Vec::new() };
        Flow {
            file,
            var,
            defs: vec![entry],
            def_index: HashMap::new(),
            uses: Vec::new(),
            use_index: HashMap::new(),
            state: Defs::from([ON_ENTRY]),
            jumps: Vec::new(),
        }
    }

    fn field(&self, node: Node<'t>, name: &str) -> Option<Node<'t>> {
        node.child_by_field_name(name)
    }

    fn visit_opt(&mut self, node: Option<Node<'t>>) {
        if let Some(node) = node {
            self.visit(node);
        }
    }

    fn visit_all(&mut self, nodes: impl IntoIterator<Item = Node<'t>>) {
        nodes.into_iter().for_each(|n| self.visit(n));
    }

    /// Dispatches on the node kind; the kinds shared by Java and Python are named once.
    fn visit(&mut self, node: Node<'t>) {
        if let Some(var) = variable_node(self.file, node, &self.var) {
            return self.access(var);
        }
        match node.kind() {
            "if_statement" | "ternary_expression" => self.branch(node),
            "conditional_expression" => self.python_ternary(node),
            "while_statement" => self.while_loop(node),
            "for_statement" if self.file.lang == Language::Java => self.java_for(node),
            "for_statement" | "enhanced_for_statement" => self.for_each(node),
            "do_statement" => self.looped(&[], &[], &[self.field(node, "body"), self.field(node, "condition")]),
            "try_statement" | "try_with_resources_statement" => self.try_catch(node),
            "switch_expression" | "match_statement" => self.switch(node),
            "return_statement" | "throw_statement" | "raise_statement" => self.jump(node, |_| None),
            "break_statement" => self.jump(node, |j| Some(&mut j.breaks)),
            "continue_statement" => self.jump(node, |j| Some(&mut j.continues)),
            "lambda_expression" | "lambda" | "class_declaration" | "class_definition" => self.detached(node),
            "function_definition" | "method_declaration" if node.parent().is_some() => self.detached(node),
            "assignment_expression" | "assignment" | "augmented_assignment" => self.value_first(node, "right"),
            "variable_declarator" | "named_expression" | "default_parameter" | "typed_default_parameter" => {
                self.value_first(node, "value");
            }
            _ => self.visit_all(children(node)),
        }
    }

    /// Records a use, a definition or both (`x += 1` reads, then writes).
    fn access(&mut self, node: Node<'t>) {
        let access = classify(self.file, node);
        if matches!(access.role, Role::Use | Role::Update) {
            let slot = *self.use_index.entry(node.id()).or_insert_with(|| {
                self.uses.push(Use { node, reaching: Defs::new() });
                self.uses.len() - 1
            });
            self.uses[slot].reaching.extend(self.state.iter().copied());
        }
        if gives_value(&access) || access.kind.contains("parameter") {
            let file = self.file;
            let id = *self.def_index.entry(node.id()).or_insert_with(|| {
                let sources = access.value.map(|v| names_read(file, v)).unwrap_or_default();
                self.defs.push(Def { node: Some(node), kind: access.kind, sources });
                self.defs.len() - 1
            });
            self.state = Defs::from([id]);
        }
    }

    /// Visits the value (`right`/`value` field) before the target.
    fn value_first(&mut self, node: Node<'t>, value_field: &str) {
        let value = self.field(node, value_field);
        self.visit_opt(value);
        let rest = children(node).into_iter().filter(|c| Some(c.id()) != value.map(|v| v.id()));
        self.visit_all(rest.collect::<Vec<_>>());
    }

    /// `if`/`else`, `elif` chains and `?:`: condition, then each branch from the same state.
    fn branch(&mut self, node: Node<'t>) {
        self.visit_opt(self.field(node, "condition"));
        let arms: Vec<Node<'t>> = children(node)
            .into_iter()
            .filter(|c| matches!(field_name_in_parent(*c), Some("consequence" | "alternative")))
            .collect();
        let has_else = arms.iter().any(|a| a.kind() == "else_clause")
            || (self.file.lang == Language::Java && self.field(node, "alternative").is_some());
        self.join_arms(&arms, !has_else);
    }

    fn python_ternary(&mut self, node: Node<'t>) {
        let parts = children(node);
        self.visit_opt(parts.get(1).copied());
        let arms: Vec<Node<'t>> = [parts.first(), parts.get(2)].into_iter().flatten().copied().collect();
        self.join_arms(&arms, false);
    }

    /// Runs every arm from the current state and joins them (plus the state itself when
    /// no arm has to run).
    fn join_arms(&mut self, arms: &[Node<'t>], may_skip: bool) {
        let entry = self.state.clone();
        let mut out = if may_skip { entry.clone() } else { Defs::new() };
        for arm in arms {
            self.state = entry.clone();
            self.visit(*arm);
            out.extend(self.state.iter().copied());
        }
        self.state = if arms.is_empty() { entry } else { out };
    }

    fn while_loop(&mut self, node: Node<'t>) {
        self.looped(&[], &[self.field(node, "condition")], &[self.field(node, "body")]);
        self.visit_opt(self.field(node, "alternative"));
    }

    fn java_for(&mut self, node: Node<'t>) {
        let fields = |name: &str| node.children_by_field_name(name, &mut node.walk()).map(Some).collect::<Vec<_>>();
        let mut body = vec![self.field(node, "body")];
        body.extend(fields("update"));
        self.looped(&fields("init"), &[self.field(node, "condition")], &body);
    }

    /// Java enhanced `for` and Python `for`: the iterable once, then bind and run the body.
    fn for_each(&mut self, node: Node<'t>) {
        let (value, target) = match self.file.lang {
            Language::Java => (self.field(node, "value"), self.field(node, "name")),
            Language::Python => (self.field(node, "right"), self.field(node, "left")),
        };
        self.looped(&[value], &[target], &[self.field(node, "body")]);
        self.visit_opt(self.field(node, "alternative"));
    }

    /// A loop: `pre` once, then `head` and `body` until the definitions reaching the back
    /// edge stop growing. The loop exits before or after `head`, or by `break`.
    fn looped(&mut self, pre: &[Option<Node<'t>>], head: &[Option<Node<'t>>], body: &[Option<Node<'t>>]) {
        pre.iter().for_each(|n| self.visit_opt(*n));
        self.jumps.push(Jumps::default());
        let entry = self.state.clone();
        let mut back = Defs::new();
        let mut breaks = Defs::new();
        let exit = loop {
            self.state = entry.union(&back).copied().collect();
            let before_head = self.state.clone();
            head.iter().for_each(|n| self.visit_opt(*n));
            let at_head: Defs = before_head.union(&self.state).copied().collect();
            body.iter().for_each(|n| self.visit_opt(*n));
            let frame = self.jumps.last_mut().map(std::mem::take).unwrap_or_default();
            breaks.extend(frame.breaks);
            let end: Defs = self.state.union(&frame.continues).copied().collect();
            if end.is_subset(&back) {
                break at_head.union(&breaks).copied().collect();
            }
            back.extend(end);
        };
        self.jumps.pop();
        self.state = exit;
    }

    fn try_catch(&mut self, node: Node<'t>) {
        let entry = self.state.clone();
        let (handlers, rest): (Vec<Node<'t>>, Vec<Node<'t>>) =
            children(node).into_iter().partition(|c| matches!(c.kind(), "catch_clause" | "except_clause"));
        let (finally, main): (Vec<Node<'t>>, Vec<Node<'t>>) =
            rest.into_iter().partition(|c| c.kind() == "finally_clause");
        self.visit_all(main);
        let after_try = self.state.clone();
        let mut out = after_try.clone();
        for handler in handlers {
            self.state = entry.union(&after_try).copied().collect();
            self.visit(handler);
            out.extend(self.state.iter().copied());
        }
        self.state = out;
        self.visit_all(finally);
    }

    /// Java `switch` and Python `match`: each case from the subject's state (Java groups
    /// may also fall through from the previous one); `break` leaves the switch.
    fn switch(&mut self, node: Node<'t>) {
        self.visit_opt(self.field(node, "condition").or_else(|| self.field(node, "subject")));
        let Some(body) = self.field(node, "body") else { return };
        let entry = self.state.clone();
        let mut out = entry.clone();
        self.jumps.push(Jumps::default());
        let mut fall = Defs::new();
        for case in children(body) {
            self.state = entry.union(&fall).copied().collect();
            self.visit(case);
            fall = if case.kind() == "switch_block_statement_group" { self.state.clone() } else { Defs::new() };
            out.extend(self.state.iter().copied());
        }
        let frame = self.jumps.pop().unwrap_or_default();
        out.extend(frame.breaks);
        self.state = out;
    }

    /// `return`/`throw`/`break`/`continue`: evaluate, hand the state to the jump target,
    /// and continue with nothing reaching (the code after is unreachable on this path).
    fn jump(&mut self, node: Node<'t>, target: impl Fn(&mut Jumps) -> Option<&mut Defs>) {
        self.visit_all(children(node));
        let state = std::mem::take(&mut self.state);
        if let Some(defs) = self.jumps.last_mut().and_then(target) {
            defs.extend(state);
        }
    }

    /// A nested lambda, function or class: its uses see the current definitions; what it
    /// assigns does not flow back.
    fn detached(&mut self, node: Node<'t>) {
        let saved = self.state.clone();
        let jumps = std::mem::take(&mut self.jumps);
        self.visit_all(children(node));
        self.jumps = jumps;
        self.state = saved;
    }
}

/// Where the value read at `node` goes: the assignment target, `returned`, an argument,
/// a condition, ... (the innermost such context within the statement).
fn destination(file: &SourceFile, node: Node<'_>) -> String {
    let mut child = node;
    while let Some(parent) = child.parent() {
        let field = field_name_in_parent(child);
        let text = |f: &str| parent.child_by_field_name(f).map(|n| one_line(file.text(n))).unwrap_or_default();
        let found = match (parent.kind(), field) {
            ("method_invocation", Some("object")) => Some(format!("receiver of {}()", text("name"))),
            ("field_access", Some("object")) => Some(format!("object of .{}", text("field"))),
            ("attribute", Some("object")) => Some(format!("object of .{}", text("attribute"))),
            ("assignment_expression" | "augmented_assignment", Some("left")) => {
                Some(format!("read by {}", text("operator")))
            }
            ("update_expression", _) => Some("read by ++/--".to_string()),
            ("argument_list", _) => {
                parent.parent().and_then(|c| as_call(file, c)).map(|c| format!("argument to {}()", c.name))
            }
            ("variable_declarator", Some("value")) => Some(format!("flows into {}", text("name"))),
            ("assignment_expression" | "assignment" | "augmented_assignment", Some("right")) => {
                Some(format!("flows into {}", text("left")))
            }
            ("return_statement", _) => Some("returned".to_string()),
            ("throw_statement" | "raise_statement", _) => Some("thrown".to_string()),
            (kind, Some("condition")) => Some(format!("condition of {}", kind.split('_').next().unwrap_or(kind))),
            ("enhanced_for_statement", Some("value")) | ("for_statement", Some("right")) => {
                Some("iterated by for".into())
            }
            (kind, _) if kind.ends_with("statement") || kind == "block" || is_method(file.lang, parent) => break,
            _ => None,
        };
        if let Some(found) = found {
            return found;
        }
        child = parent;
    }
    "read".to_string()
}

/// track_variable_dataflow for one method: definitions, uses with the definitions that
/// may reach them, and where values come from and go.
pub(crate) fn track(file: &SourceFile, method: Node<'_>, title: &str, var: &str, out: &mut Output) {
    let mut flow = Flow::new(file, VarName::parse(var));
    if let Some(params) = method.child_by_field_name("parameters") {
        flow.state.clear();
        flow.visit(params);
        if flow.defs.len() == 1 {
            flow.state.insert(ON_ENTRY);
        }
    }
    flow.visit_opt(method.child_by_field_name("body"));
    flow.uses.sort_by_key(|u| u.node.start_byte());
    render(&flow, title, var, out);
}

fn render(flow: &Flow<'_>, title: &str, var: &str, out: &mut Output) {
    let file = flow.file;
    out.push(format!("dataflow of `{var}` in {title} (intra-procedural, syntactic):"));
    out.push("definitions:");
    let entry_used = flow.uses.iter().any(|u| u.reaching.contains(&ON_ENTRY));
    for (id, def) in flow.defs.iter().enumerate() {
        match def.node {
            None if entry_used => out.push(format!("  D0 {}", def.kind)),
            None => {}
            Some(node) => {
                let from =
                    if def.sources.is_empty() { String::new() } else { format!(" from {}", def.sources.join(", ")) };
                out.push(format!("  D{id} {} {}{from}", file.anchor(node), def.kind));
                out.code_line(file, line_of(node), 4);
            }
        }
    }
    out.push("uses (reached by = definitions that may reach the use):");
    for use_ in &flow.uses {
        let reaching: Vec<String> = use_.reaching.iter().map(|d| format!("D{d}")).collect();
        let reaching =
            if reaching.is_empty() { "nothing (unreachable or undefined)".into() } else { reaching.join(", ") };
        out.push(format!("  {} {}; reached by {reaching}", file.anchor(use_.node), destination(file, use_.node)));
        out.code_line(file, line_of(use_.node), 4);
    }
    summarise(flow, var, out);
}

fn summarise(flow: &Flow<'_>, var: &str, out: &mut Output) {
    let sources: BTreeSet<&str> = flow.defs.iter().flat_map(|d| d.sources.iter().map(String::as_str)).collect();
    let sinks: BTreeSet<String> = flow.uses.iter().map(|u| destination(flow.file, u.node)).collect();
    let sources: Vec<&str> = sources.into_iter().collect();
    let sinks: Vec<String> = sinks.into_iter().collect();
    out.push(format!(
        "values of `{var}` come from: {}",
        if sources.is_empty() { "-".into() } else { sources.join(", ") }
    ));
    out.push(format!("values of `{var}` go to: {}", if sinks.is_empty() { "-".into() } else { sinks.join("; ") }));
}
