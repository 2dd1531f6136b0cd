//! Literal, return-expression, data-type and integer-division mutations (TBar FP9, FP12, FP7, FP8; Liu et al., ISSTA 2019).

use tree_sitter::Node;

use super::{Cx, Edit};

impl Cx<'_> {
    /// See [`super::Template`]; not yet written (no edits).
    pub(super) fn literal(&self, _node: Node<'_>, _out: &mut Vec<Edit>) {}

    /// See [`super::Template`]; not yet written (no edits).
    pub(super) fn return_expression(&self, _node: Node<'_>, _out: &mut Vec<Edit>) {}

    /// See [`super::Template`]; not yet written (no edits).
    pub(super) fn data_type(&self, _node: Node<'_>, _out: &mut Vec<Edit>) {}

    /// See [`super::Template`]; not yet written (no edits).
    pub(super) fn float_division(&self, _node: Node<'_>, _out: &mut Vec<Edit>) {}
}
