//! Method and function spans (the tools' extractor, [`crate::tools::method_spans`]), to
//! aggregate line scores to methods.

use std::path::Path;

pub(super) use crate::tools::MethodSpan as Span;

/// The method spans of the Java or Python file at `path`, in source order
/// ([`crate::tools::method_spans`]); empty for other extensions and unreadable files.
pub(super) fn spans(path: &Path) -> Vec<Span> {
    crate::tools::method_spans(path)
}

/// Index of the innermost span holding 1-based `line` (the latest start, then the earliest
/// end).
pub(super) fn innermost(spans: &[Span], line: u32) -> Option<usize> {
    let line = usize::try_from(line).ok()?;
    spans
        .iter()
        .enumerate()
        .filter(|(_, s)| s.lines.contains(line))
        .max_by(|(_, a), (_, b)| a.lines.first.cmp(&b.lines.first).then(b.lines.last.cmp(&a.lines.last)))
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans_of(name: &str, text: &str) -> Vec<Span> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(name), text).unwrap();
        spans(&dir.path().join(name))
    }

    #[test]
    fn java_methods_and_constructors_are_named_after_their_class() {
        let s =
            spans_of("A.java", "class A {\n  A() {}\n  int f() {\n    return 1;\n  }\n  class B { void g() {} }\n}\n");
        let got: Vec<_> = s.iter().map(|s| (s.name.as_str(), s.lines.first, s.lines.last)).collect();
        assert_eq!(got, [("A.A", 2, 2), ("A.f", 3, 5), ("B.g", 6, 6)]);
    }

    #[test]
    fn python_nested_functions_and_innermost_lookup() {
        let s = spans_of(
            "a.py",
            "def f(x):\n    def g():\n        return x\n    return g()\n\nclass C:\n    def m(self):\n        pass\n",
        );
        let got: Vec<_> = s.iter().map(|s| (s.name.as_str(), s.lines.first, s.lines.last)).collect();
        assert_eq!(got, [("f", 1, 4), ("g", 2, 3), ("C.m", 7, 8)]);
        assert_eq!(innermost(&s, 3), Some(1));
        assert_eq!(innermost(&s, 4), Some(0));
        assert_eq!(innermost(&s, 6), None);
        assert!(spans_of("a.txt", "def f(): pass").is_empty());
    }
}
