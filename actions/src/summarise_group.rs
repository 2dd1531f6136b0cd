//! The kind of the edits inside one surviving statement, by rules tried in order: the
//! declaration's modifiers and `throws`, a loop header, token updates only (literal,
//! operator, identifier, method name, caller), a call's arguments, its receiver, an `if`
//! condition narrowed or widened, a null check, an operand, a call added or removed, a
//! `return`. The first rule that accepts the group decides; none gives
//! [`ActionKind::Other`].

use crate::ActionKind;
use crate::rules::*;
use crate::script::Edit;
use crate::summarise::{Diff, Group, loci_a, loci_b};
use crate::tree::Ast;

type Rule = fn(&Diff<'_>, &Group) -> Option<ActionKind>;

/// Classifies the edits of one statement.
pub(crate) fn classify_group(d: &Diff<'_>, g: &Group) -> ActionKind {
    const RULES: &[Rule] = &[
        modifier,
        throws,
        loop_bound,
        updates_only,
        unary,
        arguments,
        caller,
        if_specificity,
        null_check,
        operand,
        call_added_or_removed,
        return_value,
    ];
    RULES.iter().find_map(|rule| rule(d, g)).unwrap_or(ActionKind::Other)
}

/// Is `n` inside (or at) `top`?
fn within(t: &Ast, n: usize, top: usize) -> bool {
    n == top || t.is_descendant(n, top)
}

/// Every edited node (on either side) is a modifier, an annotation, or inside one.
fn modifier(d: &Diff<'_>, g: &Group) -> Option<ActionKind> {
    let ok = g.edits.iter().all(|e| match *e {
        Edit::Update { a, b } | Edit::Move { a, b } => in_modifiers(d.a, a) && in_modifiers(d.b, b),
        Edit::Insert { b } => in_modifiers(d.b, b),
        Edit::Delete { a } => in_modifiers(d.a, a),
    });
    ok.then_some(ActionKind::ChangeModifier)
}

fn throws(d: &Diff<'_>, g: &Group) -> Option<ActionKind> {
    let (la, lb) = (loci_a(d, &g.edits), loci_b(d, &g.edits));
    let ta = la.iter().map(|&n| throws_clause(d.a, n)).collect::<Option<Vec<_>>>();
    let tb = lb.iter().map(|&n| throws_clause(d.b, n)).collect::<Option<Vec<_>>>();
    // A clause added or removed whole is an insertion/deletion of the `throws` node itself.
    let count = |t: &Ast, s: Option<usize>| {
        s.and_then(|s| t.nodes[s].children.iter().copied().find(|&c| t.nodes[c].kind == "throws"))
            .map_or(0, |c| thrown_types(t, c))
    };
    if ta.is_none() && tb.is_none() {
        return None;
    }
    let (na, nb) = (count(d.a, g.sa), count(d.b, g.sb));
    match nb.cmp(&na) {
        std::cmp::Ordering::Greater => Some(ActionKind::AddThrowsException),
        std::cmp::Ordering::Less => Some(ActionKind::DeleteThrowsException),
        std::cmp::Ordering::Equal => None,
    }
}

fn loop_bound(d: &Diff<'_>, g: &Group) -> Option<ActionKind> {
    let (sa, sb) = (g.sa?, g.sb?);
    if !is_bounded_loop(d.a, sa) || !is_bounded_loop(d.b, sb) {
        return None;
    }
    let body = |t: &Ast, s: usize| t.nodes[s].children.iter().copied().find(|&c| t.nodes[c].field == Some("body"));
    let in_header = |t: &Ast, s: usize, n: usize| n != s && !body(t, s).is_some_and(|b| within(t, n, b));
    let ok = g.edits.iter().all(|e| match *e {
        Edit::Update { a, b } | Edit::Move { a, b } => in_header(d.a, sa, a) && in_header(d.b, sb, b),
        Edit::Insert { b } => in_header(d.b, sb, b),
        Edit::Delete { a } => in_header(d.a, sa, a),
    });
    ok.then_some(ActionKind::ChangeLoopBound)
}

/// Only leaves changed text: the sort of token decides.
fn updates_only(d: &Diff<'_>, g: &Group) -> Option<ActionKind> {
    let pairs: Vec<(usize, usize)> = g
        .edits
        .iter()
        .map(|e| if let Edit::Update { a, b } = *e { Some((a, b)) } else { None })
        .collect::<Option<_>>()?;
    let all = |f: fn(&Diff<'_>, usize, usize) -> bool| pairs.iter().all(|&(a, b)| f(d, a, b));
    let kind = if all(|d, a, b| is_bool(&d.a.nodes[a]) && is_bool(&d.b.nodes[b])) {
        ActionKind::ChangeLiteral
    } else if all(|d, a, b| is_number(&d.a.nodes[a]) && is_number(&d.b.nodes[b])) {
        ActionKind::ChangeNumeral
    } else if all(|d, a, b| is_text_literal(&d.a.nodes[a]) && is_text_literal(&d.b.nodes[b])) {
        ActionKind::ChangeLiteral
    } else if all(|d, a, _| is_operator_token(&d.a.nodes[a]) && is_unary(parent(d.a, a))) {
        ActionKind::ChangeUnaryOperator
    } else if all(|d, a, b| is_operator_token(&d.a.nodes[a]) && is_operator_token(&d.b.nodes[b])) {
        ActionKind::ChangeOperator
    } else if all(|d, a, b| is_identifier(&d.a.nodes[a]) && is_identifier(&d.b.nodes[b])) {
        identifier_kind(d, &pairs)
    } else {
        return None;
    };
    Some(kind)
}

fn parent(t: &Ast, n: usize) -> &crate::tree::Node {
    &t.nodes[t.nodes[n].parent.unwrap_or(n)]
}

/// An identifier that names the called method, or sits in its receiver, says more than
/// "identifier".
fn identifier_kind(d: &Diff<'_>, pairs: &[(usize, usize)]) -> ActionKind {
    let calls = |n: usize| d.a.ancestors(n).filter(|&c| is_call(&d.a.nodes[c])).collect::<Vec<_>>();
    if let [(a, _)] = pairs {
        if let Some(&call) = calls(*a).first()
            && call_name(d.a, call) == Some(*a)
        {
            return ActionKind::DifferentMethodSameArgs;
        }
        for call in calls(*a) {
            if call_receiver(d.a, call).is_some_and(|r| within(d.a, *a, r)) {
                return ActionKind::ChangeCaller;
            }
            if call_arguments(d.a, call).is_some_and(|r| within(d.a, *a, r)) {
                break;
            }
        }
    }
    ActionKind::ChangeIdentifier
}

/// A unary operator wrapped around an expression, or removed from one.
fn unary(d: &Diff<'_>, g: &Group) -> Option<ActionKind> {
    let wraps = |t: &Ast, n: usize, moved: &dyn Fn(usize) -> bool| {
        is_unary(&t.nodes[n]) && t.nodes[n].children.iter().any(|&c| moved(c))
    };
    let ok = g.edits.iter().all(|e| match *e {
        Edit::Insert { b } => wraps(d.b, b, &|c| d.m.b2a[c].is_some()),
        Edit::Delete { a } => wraps(d.a, a, &|c| d.m.a2b[c].is_some()),
        Edit::Move { .. } => true,
        Edit::Update { .. } => false,
    });
    let any = g.edits.iter().any(|e| matches!(e, Edit::Insert { .. } | Edit::Delete { .. }));
    (ok && any).then_some(ActionKind::ChangeUnaryOperator)
}

/// The innermost call whose argument list holds every buggy-side locus.
fn enclosing_call(d: &Diff<'_>, g: &Group) -> Option<(usize, usize)> {
    let la = loci_a(d, &g.edits);
    let first = *la.first()?;
    let calls = std::iter::once(first).chain(d.a.ancestors(first)).filter(|&c| is_call(&d.a.nodes[c]));
    for call in calls {
        let Some(args) = call_arguments(d.a, call) else { continue };
        if la.iter().all(|&n| within(d.a, n, args)) {
            let partner = d.m.a2b[args]?;
            return Some((args, partner));
        }
    }
    None
}

fn arguments(d: &Diff<'_>, g: &Group) -> Option<ActionKind> {
    let (args_a, args_b) = enclosing_call(d, g)?;
    if !loci_b(d, &g.edits).iter().all(|&n| within(d.b, n, args_b)) {
        return None;
    }
    let list = |t: &Ast, n: usize| -> Vec<u64> {
        t.nodes[n].children.iter().filter(|&&c| t.nodes[c].named).map(|&c| t.nodes[c].hash).collect()
    };
    let (xa, xb) = (list(d.a, args_a), list(d.b, args_b));
    match xb.len().cmp(&xa.len()) {
        std::cmp::Ordering::Greater => Some(ActionKind::MoreArguments),
        std::cmp::Ordering::Less => Some(ActionKind::FewerArguments),
        std::cmp::Ordering::Equal => {
            let (mut sa, mut sb) = (xa.clone(), xb.clone());
            sa.sort_unstable();
            sb.sort_unstable();
            (xa.len() >= 2 && sa == sb && xa != xb).then_some(ActionKind::SwapArguments)
        }
    }
}

/// Every edit in the receiver of one call, or a receiver added or removed; calls are tried
/// from the innermost out, up to the first whose arguments hold every edit.
fn caller(d: &Diff<'_>, g: &Group) -> Option<ActionKind> {
    let la = loci_a(d, &g.edits);
    let first = *la.first()?;
    for call in std::iter::once(first).chain(d.a.ancestors(first)).filter(|&c| is_call(&d.a.nodes[c])) {
        let inside = |n: usize| call_receiver(d.a, call).is_some_and(|r| within(d.a, n, r));
        let partner = d.m.a2b[call];
        let inside_b = |n: usize| partner.and_then(|p| call_receiver(d.b, p)).is_some_and(|r| within(d.b, n, r));
        let edits_ok = g.edits.iter().all(|e| match *e {
            Edit::Insert { b } => inside_b(b) || added_receiver(d.b, b),
            Edit::Delete { a } => inside(a) || added_receiver(d.a, a),
            Edit::Update { a, .. } | Edit::Move { a, .. } => inside(a),
        });
        if edits_ok && !adds_call_to_chain(d, g) {
            return Some(ActionKind::ChangeCaller);
        }
        // Edits in the arguments of an inner call are not a change of an outer receiver.
        if call_arguments(d.a, call).is_some_and(|args| la.iter().all(|&n| within(d.a, n, args))) {
            return None;
        }
    }
    None
}

/// Only insertions, one of them a new call: `a.f()` → `a.g().f()` adds a call to a chain.
fn adds_call_to_chain(d: &Diff<'_>, g: &Group) -> bool {
    let only_inserts = g.edits.iter().all(|e| matches!(e, Edit::Insert { .. } | Edit::Move { .. }));
    let new_call = g.edits.iter().any(|e| match *e {
        Edit::Insert { b } => (b..b + d.b.nodes[b].size).any(|n| is_call(&d.b.nodes[n]) && d.m.b2a[n].is_none()),
        _ => false,
    });
    only_inserts && new_call
}

/// `n` is the receiver (or its `.`) of a call: `f(x)` ↔ `o.f(x)`.
fn added_receiver(t: &Ast, n: usize) -> bool {
    let Some(p) = t.nodes[n].parent else { return false };
    let receiver = t.nodes[n].field == Some("object") || t.nodes[n].label == ".";
    receiver && (is_call(&t.nodes[p]) || t.nodes[p].kind == "attribute")
}

/// An `if` condition gained or lost a conjunct or disjunct around the old condition.
fn if_specificity(d: &Diff<'_>, g: &Group) -> Option<ActionKind> {
    let (sa, sb) = (g.sa?, g.sb?);
    let is_if = |t: &Ast, s: usize| matches!(t.nodes[s].kind.as_str(), "if_statement" | "elif_clause");
    if !is_if(d.a, sa) || !is_if(d.b, sb) {
        return None;
    }
    let op = |t: &Ast, n: usize| {
        let kids = t.nodes[n].children.iter().map(|&c| t.nodes[c].label.as_str());
        kids.into_iter().find(|l| matches!(*l, "&&" | "||" | "and" | "or")).map(|l| matches!(l, "&&" | "and"))
    };
    let mut verdict = None;
    for e in &g.edits {
        let narrower = match *e {
            Edit::Insert { b } if is_binary(&d.b.nodes[b]) => op(d.b, b)?,
            Edit::Delete { a } if is_binary(&d.a.nodes[a]) => !op(d.a, a)?,
            Edit::Move { .. } => continue,
            _ => return None,
        };
        if verdict.is_some_and(|v| v != narrower) {
            return None;
        }
        verdict = Some(narrower);
    }
    verdict.map(|v| if v { ActionKind::MoreSpecificIf } else { ActionKind::LessSpecificIf })
}

/// A null comparison inserted into the statement.
fn null_check(d: &Diff<'_>, g: &Group) -> Option<ActionKind> {
    let added = g.edits.iter().any(|e| match *e {
        Edit::Insert { b } => (b..b + d.b.nodes[b].size).any(|n| d.m.b2a[n].is_none() && is_null_check(d.b, n)),
        _ => false,
    });
    added.then_some(ActionKind::AddNullCheck)
}

/// One operand of a surviving binary expression replaced (what it held may move into the
/// new operand: `x < 0` → `(x - y) < 0`).
fn operand(d: &Diff<'_>, g: &Group) -> Option<ActionKind> {
    let inserted: Vec<usize> =
        g.edits.iter().filter_map(|e| if let Edit::Insert { b } = *e { Some(b) } else { None }).collect();
    let operand_of = |t: &Ast, n: usize| t.nodes[n].named && t.nodes[n].parent.is_some_and(|p| is_binary(&t.nodes[p]));
    let ok = g.edits.iter().all(|e| match *e {
        Edit::Insert { b } => operand_of(d.b, b) && d.b.nodes[b].parent.is_some_and(|p| d.m.b2a[p].is_some()),
        Edit::Delete { a } => operand_of(d.a, a) && d.a.nodes[a].parent.is_some_and(|p| d.m.a2b[p].is_some()),
        Edit::Update { a, b } => operand_of(d.a, a) && operand_of(d.b, b),
        Edit::Move { b, .. } => inserted.iter().any(|&i| d.b.is_descendant(b, i)),
    });
    let has_insert = g.edits.iter().any(|e| matches!(e, Edit::Insert { .. }));
    // The old operand wrapped in a new call (`x` → `x.get()`) is a call added.
    let wrapped_in_call = g.edits.iter().any(|e| matches!(e, Edit::Move { .. })) && adds_call_to_chain(d, g);
    (ok && has_insert && !wrapped_in_call).then_some(ActionKind::ChangeOperand)
}

/// A call wrapped around or added to an expression (only insertions), or removed.
fn call_added_or_removed(d: &Diff<'_>, g: &Group) -> Option<ActionKind> {
    let has_call = |t: &Ast, n: usize, unmatched: &dyn Fn(usize) -> bool| {
        (n..n + t.nodes[n].size).any(|i| is_call(&t.nodes[i]) && unmatched(i))
    };
    let ins = g.edits.iter().filter(|e| matches!(e, Edit::Insert { .. })).count();
    let del = g.edits.iter().filter(|e| matches!(e, Edit::Delete { .. })).count();
    let upd = g.edits.iter().any(|e| matches!(e, Edit::Update { .. }));
    let calls_in = |pick: fn(&Edit) -> Option<usize>, t: &Ast, un: &dyn Fn(usize) -> bool| {
        g.edits.iter().filter_map(pick).any(|n| has_call(t, n, un))
    };
    let ins_b = |e: &Edit| if let Edit::Insert { b } = *e { Some(b) } else { None };
    let del_a = |e: &Edit| if let Edit::Delete { a } = *e { Some(a) } else { None };
    if ins > 0 && del == 0 && !upd && calls_in(ins_b, d.b, &|i| d.m.b2a[i].is_none()) {
        return Some(ActionKind::AddMethodCall);
    }
    if del > 0 && ins == 0 && !upd && calls_in(del_a, d.a, &|i| d.m.a2b[i].is_none()) {
        return Some(ActionKind::RemoveMethodCall);
    }
    None
}

fn return_value(d: &Diff<'_>, g: &Group) -> Option<ActionKind> {
    let is_return = |t: &Ast, s: Option<usize>| s.is_some_and(|s| t.nodes[s].kind == "return_statement");
    (is_return(d.a, g.sa) && is_return(d.b, g.sb)).then_some(ActionKind::ChangeReturnValue)
}
