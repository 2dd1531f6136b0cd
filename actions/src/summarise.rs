//! From an edit script to actions and a primary label.
//!
//! Edits are attributed to the innermost statement around them (on the buggy side, or
//! through the mapping for insertions). A statement inserted or deleted whole is one action
//! (guard, try, call, statement); the edits inside one surviving statement are one action,
//! classified by [`classify_group`]. The primary label prefers structural additions of a
//! small fix (try/catch, then null check, then guard), then the kind every action shares.

use crate::ActionKind;
use crate::action::{Action, Classification};
use crate::matcher::Mapping;
use crate::rules::*;
use crate::script::Edit;
use crate::tree::Ast;

/// A fix is *small* when at most this many tokens were inserted ...
pub(crate) const SMALL_INSERTED_TOKENS: usize = 60;
/// ... and at most this many deleted; only small fixes get a structural primary label.
pub(crate) const SMALL_DELETED_TOKENS: usize = 12;

/// The two trees and their mapping.
#[derive(Debug)]
pub(crate) struct Diff<'t> {
    pub a: &'t Ast,
    pub b: &'t Ast,
    pub m: &'t Mapping,
}

/// The edits inside one statement: `sa` on the buggy side, `sb` on the fixed side.
#[derive(Debug)]
pub(crate) struct Group {
    pub sa: Option<usize>,
    pub sb: Option<usize>,
    pub edits: Vec<Edit>,
}

pub(crate) fn summarise(d: &Diff<'_>, edits: &[Edit]) -> Classification {
    if edits.is_empty() {
        return Classification::other("no change".to_string());
    }
    let mut actions = Vec::new();
    let mut groups: Vec<Group> = Vec::new();
    for &e in edits {
        match whole_statement(d, e) {
            Some(true) => actions.push(statement_action(d, e)),
            Some(false) => {}
            None => add_to_group(d, &mut groups, e),
        }
    }
    actions.extend(groups.iter().map(|g| group_action(d, g)));
    actions.sort_by_key(|a| (a.buggy_lines, a.fixed_lines));
    let (label, reason) = primary(d, &actions);
    Classification { label, actions, reason }
}

/// `Some(true)`: a statement inserted, deleted or moved whole (its own action);
/// `Some(false)`: part of another edit (a statement moved into an inserted `if`);
/// `None`: an edit inside a statement.
fn whole_statement(d: &Diff<'_>, e: Edit) -> Option<bool> {
    match e {
        Edit::Insert { b } => is_statement(&d.b.nodes[b]).then_some(true),
        Edit::Delete { a } => is_statement(&d.a.nodes[a]).then_some(true),
        Edit::Move { a, b } if is_statement(&d.a.nodes[a]) => {
            let absorbed = d.b.ancestors(b).take_while(|&p| !is_statement(&d.b.nodes[p]) || d.m.b2a[p].is_none());
            let into_new = absorbed.into_iter().any(|p| d.m.b2a[p].is_none());
            let out_of_old = d.a.ancestors(a).any(|p| d.m.a2b[p].is_none());
            Some(!(into_new || out_of_old))
        }
        _ => None,
    }
}

/// Innermost statement strictly above `n`.
fn statement_of(t: &Ast, n: usize) -> Option<usize> {
    t.ancestors(n).find(|&p| is_statement(&t.nodes[p]))
}

fn add_to_group(d: &Diff<'_>, groups: &mut Vec<Group>, e: Edit) {
    let (sa, sb) = match e {
        Edit::Insert { b } => {
            let sb = statement_of(d.b, b);
            (sb.and_then(|s| d.m.b2a[s]), sb)
        }
        Edit::Update { a, .. } | Edit::Delete { a } | Edit::Move { a, .. } => {
            let sa = statement_of(d.a, a);
            (sa, sa.and_then(|s| d.m.a2b[s]))
        }
    };
    match groups.iter_mut().find(|g| (g.sa.is_some() && g.sa == sa) || (g.sb.is_some() && g.sb == sb)) {
        Some(g) => g.edits.push(e),
        None => groups.push(Group { sa, sb, edits: vec![e] }),
    }
}

/// The action of a statement inserted, deleted or moved whole.
fn statement_action(d: &Diff<'_>, e: Edit) -> Action {
    let (t, n, inserted) = match e {
        Edit::Insert { b } => (d.b, b, true),
        Edit::Delete { a } => (d.a, a, false),
        Edit::Move { a, .. } => (d.a, a, false),
        Edit::Update { a, .. } => (d.a, a, false),
    };
    let kind = match e {
        Edit::Move { .. } | Edit::Update { .. } => ActionKind::Other,
        _ => statement_kind(d, t, n, inserted),
    };
    let text = clip(&t.text(n));
    let (before, after) = if inserted { (String::new(), text) } else { (text, String::new()) };
    let mut action = locate(d, &[e], kind);
    (action.before, action.after) = (before, after);
    action
}

/// What a whole inserted (or deleted) statement does.
fn statement_kind(d: &Diff<'_>, t: &Ast, n: usize, inserted: bool) -> ActionKind {
    let node = &t.nodes[n];
    let sub = || n..n + node.size;
    let new_nodes = |pred: &dyn Fn(usize) -> bool| sub().any(pred);
    if inserted && new_nodes(&|i| matches!(t.nodes[i].kind.as_str(), "try_statement" | "try_with_resources_statement"))
    {
        return ActionKind::WrapTryCatch;
    }
    if inserted && new_nodes(&|i| is_null_check(t, i)) {
        return ActionKind::AddNullCheck;
    }
    if inserted && matches!(node.kind.as_str(), "if_statement" | "elif_clause") {
        return ActionKind::AddGuard;
    }
    if node.kind == "decorated_definition" && unchanged_definition(d, t, n, inserted) {
        return ActionKind::ChangeModifier;
    }
    let call_stmt = is_call_statement(t, n);
    match (call_stmt, inserted) {
        (true, true) => ActionKind::AddMethodCall,
        (true, false) => ActionKind::RemoveMethodCall,
        (false, true) => ActionKind::InsertStatement,
        (false, false) => ActionKind::DeleteStatement,
    }
}

/// A Python definition that gained (lost) its decorators: the definition inside the
/// inserted (deleted) `decorated_definition` has a partner.
fn unchanged_definition(d: &Diff<'_>, t: &Ast, n: usize, inserted: bool) -> bool {
    let def = t.nodes[n].children.iter().copied().find(|&c| t.nodes[c].field == Some("definition"));
    def.is_some_and(|c| if inserted { d.m.b2a[c].is_some() } else { d.m.a2b[c].is_some() })
}

/// A statement that is a call and nothing more (`f(x);`, `await g()`; not `y = f(x)`).
fn is_call_statement(t: &Ast, n: usize) -> bool {
    let node = &t.nodes[n];
    let expr = node.children.iter().copied().find(|&c| t.nodes[c].named);
    let unwrap = |e: usize| match t.nodes[e].kind.as_str() {
        "await" => t.nodes[e].children.iter().copied().find(|&c| t.nodes[c].named),
        _ => Some(e),
    };
    node.kind == "expression_statement" && expr.and_then(unwrap).is_some_and(|e| is_call(&t.nodes[e]))
}

/// The action of the edits inside one statement.
fn group_action(d: &Diff<'_>, g: &Group) -> Action {
    let kind = crate::summarise::classify_group(d, g);
    let mut action = locate(d, &g.edits, kind);
    let (before, after) = changed_tokens(d, &g.edits);
    (action.before, action.after) = (clip(&before), clip(&after));
    action
}

/// Lines, enclosing statement and field of a set of edits (tokens left empty).
fn locate(d: &Diff<'_>, edits: &[Edit], kind: ActionKind) -> Action {
    let (t, first) = match edits.iter().find(|e| !matches!(e, Edit::Insert { .. })) {
        Some(Edit::Update { a, .. } | Edit::Delete { a } | Edit::Move { a, .. }) => (d.a, *a),
        _ => match edits.first() {
            Some(Edit::Insert { b }) => (d.b, *b),
            _ => (d.a, 0),
        },
    };
    let (enclosing, field) = match statement_of(t, first) {
        Some(s) => (t.nodes[s].kind.clone(), field_under(t, first, s)),
        None => (t.nodes[0].kind.clone(), None),
    };
    Action {
        kind,
        before: String::new(),
        after: String::new(),
        enclosing,
        field,
        buggy_lines: span(d.a, d.b, d.m.b2a.as_slice(), edits, Side::A),
        fixed_lines: span(d.b, d.a, d.m.a2b.as_slice(), edits, Side::B),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Side {
    A,
    B,
}

/// Lines of the edits on one side (`t`); an edit with no node on that side (an insertion
/// seen from the buggy side) counts as the line after which it happened: the end of the
/// matched sibling before it in the other tree (`u`), else the start of its parent.
fn span(t: &Ast, u: &Ast, u2t: &[Option<usize>], edits: &[Edit], side: Side) -> (u32, u32) {
    let lines = |e: &Edit| match (*e, side) {
        (Edit::Update { a, .. } | Edit::Delete { a } | Edit::Move { a, .. }, Side::A) => Some(t.nodes[a].lines),
        (Edit::Update { b, .. } | Edit::Insert { b } | Edit::Move { b, .. }, Side::B) => Some(t.nodes[b].lines),
        (Edit::Insert { b: n } | Edit::Delete { a: n }, _) => insertion_point(t, u, u2t, n).map(|l| (l, l)),
    };
    let all: Vec<(u32, u32)> = edits.iter().filter_map(lines).collect();
    let lo = all.iter().map(|l| l.0).min().unwrap_or(1);
    (lo, all.iter().map(|l| l.1).max().unwrap_or(lo))
}

/// Where node `n` of `u` would sit in `t`: after its matched previous sibling, else at the
/// start of its matched parent.
fn insertion_point(t: &Ast, u: &Ast, u2t: &[Option<usize>], n: usize) -> Option<u32> {
    let p = u.nodes[n].parent?;
    let sibs = &u.nodes[p].children;
    let at = sibs.iter().position(|&c| c == n).unwrap_or(0);
    let before = sibs[..at].iter().rev().find_map(|&c| u2t[c]);
    match before {
        Some(s) => Some(t.nodes[s].lines.1),
        None => u2t[p].map(|q| t.nodes[q].lines.0),
    }
}

/// The field of the child of `s` that holds `n` (`condition` of an `if`), if named.
fn field_under(t: &Ast, n: usize, s: usize) -> Option<String> {
    let mut c = n;
    while let Some(p) = t.nodes[c].parent {
        if p == s {
            return t.nodes[c].field.map(str::to_string);
        }
        c = p;
    }
    None
}

/// Buggy-side nodes an edit touches; an insertion touches its parent's partner.
pub(crate) fn loci_a(d: &Diff<'_>, edits: &[Edit]) -> Vec<usize> {
    let locus = |e: &Edit| match *e {
        Edit::Update { a, .. } | Edit::Delete { a } | Edit::Move { a, .. } => Some(a),
        Edit::Insert { b } => d.b.nodes[b].parent.and_then(|p| d.m.b2a[p]),
    };
    edits.iter().filter_map(locus).collect()
}

/// Fixed-side nodes an edit touches; a deletion touches its parent's partner.
pub(crate) fn loci_b(d: &Diff<'_>, edits: &[Edit]) -> Vec<usize> {
    let locus = |e: &Edit| match *e {
        Edit::Update { b, .. } | Edit::Insert { b } | Edit::Move { b, .. } => Some(b),
        Edit::Delete { a } => d.a.nodes[a].parent.and_then(|p| d.m.a2b[p]),
    };
    edits.iter().filter_map(locus).collect()
}

/// The tokens that changed on each side (updates, deleted / inserted regions).
fn changed_tokens(d: &Diff<'_>, edits: &[Edit]) -> (String, String) {
    let (mut before, mut after) = (Vec::new(), Vec::new());
    for e in edits {
        match *e {
            Edit::Update { a, b } => {
                before.push(d.a.nodes[a].label.clone());
                after.push(d.b.nodes[b].label.clone());
            }
            Edit::Delete { a } if !separator(d.a, a) => before.push(d.a.text(a)),
            Edit::Insert { b } if !separator(d.b, b) => after.push(d.b.text(b)),
            _ => {}
        }
    }
    (before.join(" "), after.join(" "))
}

/// A `,` or `;` that came or went with an argument or statement: not worth showing.
fn separator(t: &Ast, n: usize) -> bool {
    matches!(t.nodes[n].label.as_str(), "," | ";")
}

fn clip(s: &str) -> String {
    if s.chars().count() <= Action::MAX_TOKENS_CHARS {
        return s.to_string();
    }
    let mut out: String = s.chars().take(Action::MAX_TOKENS_CHARS - 1).collect();
    out.push('…');
    out
}

/// The primary label: a structural addition of a small fix, else the kind all actions share.
fn primary(d: &Diff<'_>, actions: &[Action]) -> (ActionKind, Option<String>) {
    let inserted = (0..d.b.nodes.len()).filter(|&i| d.m.b2a[i].is_none() && d.b.nodes[i].children.is_empty()).count();
    let deleted = (0..d.a.nodes.len()).filter(|&i| d.m.a2b[i].is_none() && d.a.nodes[i].children.is_empty()).count();
    let small = inserted <= SMALL_INSERTED_TOKENS && deleted <= SMALL_DELETED_TOKENS;
    for kind in [ActionKind::WrapTryCatch, ActionKind::AddNullCheck, ActionKind::AddGuard] {
        if small && gained(d, kind) {
            return (kind, None);
        }
    }
    let first = actions.first().map_or(ActionKind::Other, |a| a.kind);
    if actions.iter().all(|a| a.kind == first) && first != ActionKind::Other {
        return (first, None);
    }
    let why = if small { "mixed edits" } else { "rewrite" };
    (
        ActionKind::Other,
        Some(format!("{why}: {} actions, {inserted} tokens inserted, {deleted} deleted", actions.len())),
    )
}

/// Does the fixed side hold more try/catch, null checks or `if`s than the buggy side,
/// counting nodes without a partner of the same sort?
fn gained(d: &Diff<'_>, kind: ActionKind) -> bool {
    let is = |t: &Ast, n: usize| match kind {
        ActionKind::WrapTryCatch => matches!(
            t.nodes[n].kind.as_str(),
            "try_statement" | "try_with_resources_statement" | "catch_clause" | "except_clause"
        ),
        ActionKind::AddNullCheck => is_null_check(t, n),
        _ => matches!(t.nodes[n].kind.as_str(), "if_statement" | "elif_clause"),
    };
    let new_b = (0..d.b.nodes.len()).filter(|&n| is(d.b, n) && !d.m.b2a[n].is_some_and(|x| is(d.a, x))).count();
    let gone_a = (0..d.a.nodes.len()).filter(|&n| is(d.a, n) && !d.m.a2b[n].is_some_and(|y| is(d.b, y))).count();
    new_b > gone_a
}

pub(crate) use crate::summarise_group::classify_group;
