//! A used zero-argument call dropped from its receiver ([`Template::DropCall`]):
//! `log.warn(msg, e.getMessage())` → `log.warn(msg, e)`, `name.toLowerCase()` → `name`,
//! `socketAddress.getAddress().getHostName()` → `socketAddress.getHostName()`.
//!
//! Source: the shared corpus. Of the 11,418 one-line Java fixes of manysstubs4j,
//! mined_git_history, gitbug_java and condefects (one line replaced by one), 72 differ only by
//! one zero-argument call removed (61 at the end of a chain, 11 inside one; `getMessage`,
//! `getName` and `toString` 8 each, `getCause` 5), against 130 that insert one (which needs
//! a name the method rarely holds). TBar has no such pattern; [`Template::UnwrapCall`] is its
//! one-argument sibling (`f(x)` → `x`).

use tree_sitter::Node;

use super::{Cx, Edit, Template, arity};
use crate::Language;

impl Cx<'_> {
    /// See [`Template::DropCall`]: `r.m()` → `r` where the call's value is used (not a
    /// statement of its own) and `r` is a value: not `this` or `super`, and in Java not a
    /// capitalised name the method does not declare (a class, whose static call it is).
    pub(super) fn drop_call(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        let receiver = match (self.language, node.kind()) {
            (Language::Java, "method_invocation") => {
                if arity(node.child_by_field_name("arguments")) != 0 {
                    return;
                }
                node.child_by_field_name("object")
            }
            (Language::Python, "call") => {
                if arity(node.child_by_field_name("arguments")) != 0 {
                    return;
                }
                node.child_by_field_name("function")
                    .filter(|f| f.kind() == "attribute")
                    .and_then(|f| f.child_by_field_name("object"))
            }
            _ => return,
        };
        let Some(receiver) = receiver else { return };
        if node.parent().is_none_or(|p| p.kind() == "expression_statement") {
            return;
        }
        let text = self.of(receiver);
        let class_name = receiver.kind() == "identifier"
            && text.starts_with(|c: char| c.is_ascii_uppercase())
            && (self.language == Language::Python || !self.visible_types(receiver).contains_key(text));
        if matches!(receiver.kind(), "this" | "super") || text == "self" || class_name {
            return;
        }
        // The receiver's type where the call's value was ([`super::typing`]).
        if self.refuses_type(node, self.static_type(receiver)) {
            return;
        }
        self.push(out, Template::DropCall, node, text.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::assert_fixes;
    use super::super::{Template, edits};
    use crate::Language;

    fn dropped(text: &str, language: Language) -> Vec<String> {
        let n = text.lines().count();
        edits(text, language, (1, n))
            .into_iter()
            .filter(|e| e.template == Template::DropCall)
            .map(|e| format!("{} -> {}", e.original, e.replacement))
            .collect()
    }

    #[test]
    fn a_used_zero_argument_call_is_dropped() {
        // The corpus's `mHostName = socketAddress.getAddress().getHostName();` →
        // `socketAddress.getHostName()` (Alluxio, ManySStuBs4J): a call inside a chain.
        let buggy =
            "void f(InetSocketAddress socketAddress) {\n    mHostName = socketAddress.getAddress().getHostName();\n}";
        assert_fixes(buggy, &buggy.replace(".getAddress()", ""), Language::Java, Template::DropCall);
        // Not a statement's own call, a static call, `this`, or a call with arguments.
        let java = "class A {\n  void f(Exception e, String s) {\n    s.trim();\n    log(s.length(), Math.random(), this.name(), s.substring(1), e.getMessage());\n  }\n}\n";
        assert_eq!(dropped(java, Language::Java), ["s.length() -> s", "e.getMessage() -> e"]);
        let py = "def f(s, xs):\n    xs.sort()\n    return s.strip().lower() == self.name()\n";
        assert_eq!(dropped(py, Language::Python), ["s.strip().lower() -> s.strip()", "s.strip() -> s"]);
    }
}
