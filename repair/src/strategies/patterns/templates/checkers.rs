//! Checker templates: an `instanceof` before a cast, a bounds check before an access (TBar FP1, FP3; Liu et al., ISSTA 2019).

use tree_sitter::Node;

use super::{Cx, Edit};

impl Cx<'_> {
    /// See [`super::Template`]; not yet written (no edits).
    pub(super) fn cast_checker(&self, _node: Node<'_>, _out: &mut Vec<Edit>) {}

    /// See [`super::Template`]; not yet written (no edits).
    pub(super) fn range_checker(&self, _node: Node<'_>, _out: &mut Vec<Edit>) {}
}
