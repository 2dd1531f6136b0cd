//! The edit script implied by a mapping: which nodes were updated, inserted, deleted or
//! moved. Only the roots of inserted and deleted regions are listed (an inserted `if` is
//! one insertion, not one per token), as GumTree's action grouping does.

use crate::matcher::{Mapping, lcs};
use crate::tree::Ast;

/// One edit of buggy (`a`) into fixed (`b`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Edit {
    /// A matched leaf whose text changed (`<` → `<=`, `foo` → `bar`).
    Update { a: usize, b: usize },
    /// The root of a region of `b` with no partner; its parent is matched (or it is the root).
    Insert { b: usize },
    /// The root of a region of `a` with no partner.
    Delete { a: usize },
    /// A matched node under another parent, or out of order among its siblings.
    Move { a: usize, b: usize },
}

/// Derives the edit script from a mapping, in a deterministic order (buggy side first).
pub(crate) fn edit_script(a: &Ast, b: &Ast, m: &Mapping) -> Vec<Edit> {
    let mut edits = Vec::new();
    for (x, node) in a.nodes.iter().enumerate() {
        match m.a2b[x] {
            None if node.parent.is_none_or(|p| m.a2b[p].is_some()) => edits.push(Edit::Delete { a: x }),
            None => {}
            Some(y) => {
                if node.label != b.nodes[y].label {
                    edits.push(Edit::Update { a: x, b: y });
                }
                if let (Some(p), Some(q)) = (node.parent, b.nodes[y].parent)
                    && m.a2b[p] != Some(q)
                {
                    edits.push(Edit::Move { a: x, b: y });
                }
            }
        }
    }
    edits.extend(reorders(a, b, m));
    for (y, node) in b.nodes.iter().enumerate() {
        if m.b2a[y].is_none() && node.parent.is_none_or(|q| m.b2a[q].is_some()) {
            edits.push(Edit::Insert { b: y });
        }
    }
    edits
}

/// Children that stayed under their parent but left the common order (swapped arguments).
fn reorders<'t>(a: &'t Ast, b: &'t Ast, m: &'t Mapping) -> impl Iterator<Item = Edit> + 't {
    (0..a.nodes.len()).filter_map(|x| m.a2b[x].map(|y| (x, y))).flat_map(move |(x, y)| {
        let kept: Vec<usize> = a.nodes[x]
            .children
            .iter()
            .copied()
            .filter(|&c| m.a2b[c].is_some_and(|d| b.nodes[d].parent == Some(y)))
            .collect();
        let order_a: Vec<usize> = kept.iter().map(|&c| m.a2b[c].unwrap_or(usize::MAX)).collect();
        let mut order_b = order_a.clone();
        order_b.sort_unstable();
        let in_lcs: Vec<usize> = lcs(&order_a, &order_b).into_iter().map(|(i, _)| i).collect();
        let moved = (0..kept.len()).filter(move |i| !in_lcs.contains(i));
        moved.map(move |i| Edit::Move { a: kept[i], b: order_a[i] }).collect::<Vec<_>>()
    })
}
