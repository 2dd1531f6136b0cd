//! Sub-conditions of an `if`/loop condition removed or added (TBar FP6; Liu et al., ISSTA 2019).

use tree_sitter::Node;

use super::{Cx, Edit};

impl Cx<'_> {
    /// See [`super::Template`]; not yet written (no edits).
    pub(super) fn condition(&self, _node: Node<'_>, _out: &mut Vec<Edit>) {}
}
