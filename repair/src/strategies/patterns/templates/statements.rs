//! A statement moved one position up or down in its block (TBar FP14; Liu et al., ISSTA 2019).

use tree_sitter::Node;

use super::{Cx, Edit};

impl Cx<'_> {
    /// See [`super::Template`]; not yet written (no edits).
    pub(super) fn move_statement(&self, _node: Node<'_>, _out: &mut Vec<Edit>) {}
}
