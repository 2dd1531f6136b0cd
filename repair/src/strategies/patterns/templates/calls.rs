//! Templates on calls: argument count by overload, constructor arguments, a missed call from a sibling branch (TBar FP10, FP5, FP4; Liu et al., ISSTA 2019).

use tree_sitter::Node;

use super::{Cx, Edit};

impl Cx<'_> {
    /// See [`super::Template`]; not yet written (no edits).
    pub(super) fn argument_count(&self, _node: Node<'_>, _out: &mut Vec<Edit>) {}

    /// See [`super::Template`]; not yet written (no edits).
    pub(super) fn constructor_arguments(&self, _node: Node<'_>, _out: &mut Vec<Edit>) {}

    /// See [`super::Template`]; not yet written (no edits).
    pub(super) fn missed_call(&self, _node: Node<'_>, _out: &mut Vec<Edit>) {}
}
