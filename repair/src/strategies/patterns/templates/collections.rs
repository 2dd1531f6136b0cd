//! Java: a hash collection made insertion-ordered where it is created
//! ([`Template::OrderedCollection`]): `new HashSet<>()` → `new LinkedHashSet<>()`,
//! `new HashMap<K, V>(m)` → `new LinkedHashMap<K, V>(m)`.
//!
//! Code that iterates a `HashSet` or `HashMap` and expects the order its elements went in
//! depends on a hash order the specification leaves open; the fix developers make is the
//! linked variant, which keeps insertion order with the same interface (Shi, Gyori,
//! Legunsen and Marinov, "Detecting Assumptions on Deterministic Implementations of
//! Non-deterministic Specifications", ICST 2016). The new class is imported as the file
//! imports: nothing to do under `import java.util.*;` or a qualified `new java.util.HashSet`;
//! else `import java.util.LinkedHashSet;` goes among the file's imports in sorted place, in
//! place of `import java.util.HashSet;` when the file no longer uses `HashSet`. The import and
//! the creation are one [`Edit`] (the text from the first import line it changes to the
//! class name), so the candidate compiles on its own.

use tree_sitter::Node;

use super::literals::enclosing;
use super::{Cx, Edit, Template, descendants};
use crate::Language;

/// The hash collections and their insertion-ordered variants (`java.util`).
const ORDERED: &[(&str, &str)] = &[("HashSet", "LinkedHashSet"), ("HashMap", "LinkedHashMap")];

/// One change of the file's text: replace `start..end` with `text`.
struct Splice {
    start: usize,
    end: usize,
    text: String,
}

impl Cx<'_> {
    /// The ordered collection of `node`, an `object_creation_expression` of `HashSet` or
    /// `HashMap` (module docs). Where the import would change a line outside the localized
    /// lines ([`Cx::lines`], which the strategy keeps edits within), the class is written
    /// qualified instead (`new java.util.LinkedHashSet<>()`). None where the file imports
    /// another class of the linked variant's name (`import my.LinkedHashSet;`) or declares one.
    pub(super) fn ordered_collection(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if self.language != Language::Java || node.kind() != "object_creation_expression" {
            return;
        }
        let Some(name) = node.child_by_field_name("type").and_then(simple_name) else { return };
        let Some(&(hash, linked)) = ORDERED.iter().find(|(h, _)| *h == self.of(name)) else { return };
        let qualified = name.parent().is_some_and(|p| p.kind() == "scoped_type_identifier");
        let mut splices =
            if qualified { Vec::new() } else { self.import_splices(hash, linked, name).unwrap_or_default() };
        if !qualified && self.declares_or_imports_other(linked) {
            return;
        }
        let first_line = self.lines.0;
        let outside = |at: usize| self.text[..at].matches('\n').count() + 1 < first_line;
        let (new_name, how) = if splices.iter().any(|s| outside(s.start)) {
            splices.clear();
            (format!("java.util.{linked}"), " (qualified: the imports are outside the localized lines)".to_string())
        } else if splices.is_empty() {
            (linked.to_string(), String::new())
        } else {
            (linked.to_string(), format!(" (import java.util.{linked})"))
        };
        splices.push(Splice { start: name.start_byte(), end: name.end_byte(), text: new_name });
        splices.sort_by_key(|s| (s.start, s.end));
        let (start, end) = (splices[0].start, name.end_byte());
        let replacement = self.spliced(&splices, end);
        out.push(Edit {
            template: Template::OrderedCollection,
            start,
            end,
            original: self.text[start..end].to_string(),
            replacement,
            line: self.text[..start].matches('\n').count() + 1,
            summary: format!("new {hash} → new {linked}{how}"),
            from: None,
        });
    }

    /// The text from the first of `splices` (sorted by start) to `end`, with each made.
    fn spliced(&self, splices: &[Splice], end: usize) -> String {
        let mut out = String::new();
        let mut at = splices.first().map_or(end, |s| s.start);
        for s in splices {
            out.push_str(&self.text[at..s.start.max(at)]);
            out.push_str(&self.breaks(s.text.clone()));
            at = s.end.max(at);
        }
        out.push_str(&self.text[at..end]);
        out
    }

    /// Whether the file declares a class named `linked` or imports one from elsewhere than
    /// `java.util` (then `linked` in the file is not `java.util`'s).
    fn declares_or_imports_other(&self, linked: &str) -> bool {
        descendants(self.root).into_iter().any(|n| match n.kind() {
            "class_declaration" | "interface_declaration" | "enum_declaration" | "record_declaration" => {
                n.child_by_field_name("name").is_some_and(|x| self.of(x) == linked)
            }
            "import_declaration" => {
                let path = import_path(self.of(n));
                path.rsplit('.').next() == Some(linked) && path != format!("java.util.{linked}")
            }
            _ => false,
        })
    }

    /// The import changes that make `linked` (of `java.util`) visible where `name` (the
    /// creation's `hash`) is: none when the file imports it or `java.util.*`; else its import
    /// in sorted place among the single-type imports (after the last of them when it sorts
    /// last; after the last import, or the package line, when there is none), and `hash`'s
    /// import removed when `name` was the file's only use of it (only that import: another
    /// on its line stays). `None` when nothing is needed.
    fn import_splices(&self, hash: &str, linked: &str, name: Node<'_>) -> Option<Vec<Splice>> {
        let wanted = format!("java.util.{linked}");
        let imports: Vec<(Node<'_>, String)> = descendants(self.root)
            .into_iter()
            .filter(|n| n.kind() == "import_declaration")
            .map(|n| (n, import_path(self.of(n))))
            .collect();
        if imports.iter().any(|(_, p)| *p == wanted || p == "java.util.*") {
            return None;
        }
        let single = |(n, p): &&(Node<'_>, String)| !is_static(self.of(*n)) && !p.ends_with(".*");
        let mut splices = Vec::new();
        let old = format!("java.util.{hash}");
        let other_uses = descendants(self.root)
            .into_iter()
            .filter(|n| matches!(n.kind(), "type_identifier" | "identifier") && self.of(*n) == hash && *n != name)
            .any(|n| enclosing(n, &["import_declaration"]).is_none());
        let removed = imports.iter().find(|(_, p)| *p == old).filter(|_| !other_uses).map(|(n, _)| *n);
        if let Some(n) = removed {
            let (a, b) = self.import_span(n);
            splices.push(Splice { start: a, end: b, text: String::new() });
        }
        let line = format!("import {wanted};\n");
        let kept: Vec<&(Node<'_>, String)> = imports.iter().filter(|i| Some(i.0) != removed).collect();
        let next = kept.iter().copied().filter(single).find(|(_, p)| *p > wanted);
        let last_single = kept.iter().copied().rfind(single).or(kept.last().copied());
        let insert = match (next, last_single.or(imports.last()), self.package()) {
            (Some((n, _)), _, _) if self.starts_line(*n) => {
                let at = self.line_start(n.start_byte());
                Splice { start: at, end: at, text: line }
            }
            (Some((n, _)), _, _) => {
                Splice { start: n.start_byte(), end: n.start_byte(), text: format!("import {wanted}; ") }
            }
            (None, Some((last, _)), _) => {
                let at = self.line_end(last.end_byte());
                Splice { start: at, end: at, text: format!("\n{}", line.trim_end()) }
            }
            (None, None, Some(package)) => {
                let at = self.line_end(package.end_byte());
                Splice { start: at, end: at, text: format!("\n\n{}", line.trim_end()) }
            }
            (None, None, None) => Splice { start: 0, end: 0, text: format!("{line}\n") },
        };
        splices.push(insert);
        Some(splices)
    }

    /// The file's `package` declaration, if any.
    fn package(&self) -> Option<Node<'_>> {
        let mut cursor = self.root.walk();
        self.root.named_children(&mut cursor).find(|n| n.kind() == "package_declaration")
    }

    /// The bytes an import's removal takes: its line with its break when nothing else is on
    /// it, else the import and the spaces after it.
    fn import_span(&self, import: Node<'_>) -> (usize, usize) {
        let (a, b) = (self.line_start(import.start_byte()), self.line_end(import.end_byte()));
        let before = &self.text[a..import.start_byte()];
        let after = &self.text[import.end_byte()..b];
        if before.trim().is_empty() && after.trim().is_empty() {
            let past_break = self.text[b..].find('\n').map_or(self.text.len(), |i| b + i + 1);
            return (a, past_break);
        }
        if after.trim().is_empty() {
            // The last on its line: the spaces before it go with it.
            return (import.start_byte() - (before.len() - before.trim_end().len()), import.end_byte());
        }
        let spaces = after.len() - after.trim_start().len();
        (import.start_byte(), import.end_byte() + spaces)
    }

    /// Whether only whitespace precedes `node` on its line.
    fn starts_line(&self, node: Node<'_>) -> bool {
        self.text[self.line_start(node.start_byte())..node.start_byte()].trim().is_empty()
    }

    /// The start of the line holding byte `at`.
    fn line_start(&self, at: usize) -> usize {
        self.text[..at].rfind('\n').map_or(0, |i| i + 1)
    }

    /// The end of the line holding byte `at`, before its break (`\r\n` or `\n`).
    fn line_end(&self, at: usize) -> usize {
        let end = self.text[at..].find('\n').map_or(self.text.len(), |i| at + i);
        if end > at && self.text.as_bytes()[end - 1] == b'\r' { end - 1 } else { end }
    }
}

/// The class name of a created type: `HashSet` of `HashSet`, `HashSet<String>`,
/// `java.util.HashSet<>` (the last identifier).
fn simple_name(ty: Node<'_>) -> Option<Node<'_>> {
    match ty.kind() {
        "type_identifier" => Some(ty),
        "generic_type" => simple_name(ty.named_child(0)?),
        "scoped_type_identifier" => {
            let mut cursor = ty.walk();
            ty.named_children(&mut cursor).filter(|n| n.kind() == "type_identifier").last()
        }
        _ => None,
    }
}

/// The imported path of an `import` declaration's text: `java.util.HashSet` of
/// `import java.util.HashSet;`, `java.util.*` of `import java.util.*;`, whitespace and
/// `static` dropped.
fn import_path(decl: &str) -> String {
    let body = decl.trim().trim_start_matches("import").trim_end_matches(';');
    let body = body.trim().strip_prefix("static ").unwrap_or(body.trim());
    body.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Whether an `import` declaration's text is a static import.
fn is_static(decl: &str) -> bool {
    decl.trim_start().trim_start_matches("import").trim_start().starts_with("static")
}

#[cfg(test)]
mod tests {
    use super::super::testing::{apply, parses};
    use super::super::{Template, edits};
    use crate::Language;

    /// The ordered-collection edits on all of `text`, as patched programs.
    fn made(text: &str) -> Vec<String> {
        let n = text.lines().count();
        edits(text, Language::Java, (1, n))
            .iter()
            .filter(|e| e.template == Template::OrderedCollection)
            .map(|e| apply(text, e))
            .collect()
    }

    #[test]
    fn the_import_is_swapped_in_sorted_place_when_the_hash_class_is_no_longer_used() {
        // Defects4J Cli-7's shape: the fix swaps the import and the creation.
        let text = "package p;\n\nimport java.util.HashSet;\nimport java.util.Iterator;\nimport java.util.Set;\n\n\
                    class B {\n    private final Set options = new HashSet();\n}\n";
        let got = made(text);
        assert_eq!(
            got,
            ["package p;\n\nimport java.util.Iterator;\nimport java.util.LinkedHashSet;\nimport java.util.Set;\n\n\
              class B {\n    private final Set options = new LinkedHashSet();\n}\n"]
        );
        assert!(parses(&got[0], Language::Java));
    }

    #[test]
    fn a_hash_class_still_used_keeps_its_import_and_a_wildcard_or_qualified_name_needs_none() {
        let text = "import java.util.HashMap;\nimport java.util.Map;\n\nclass C {\n    \
                    Map<String, Integer> a = new HashMap<>();\n    Map<String, Integer> b = new HashMap<String, Integer>(a);\n}\n";
        let got = made(text);
        assert_eq!(got.len(), 2, "{got:#?}");
        assert!(
            got[0].starts_with("import java.util.HashMap;\nimport java.util.LinkedHashMap;\nimport java.util.Map;\n")
        );
        assert!(
            got[0].contains("a = new LinkedHashMap<>();") && got[0].contains("b = new HashMap<String, Integer>(a);")
        );
        assert!(got[1].contains("b = new LinkedHashMap<String, Integer>(a);"));
        let wildcard = "import java.util.*;\nclass C { Set<String> s = new HashSet<>(); }\n";
        assert_eq!(made(wildcard), ["import java.util.*;\nclass C { Set<String> s = new LinkedHashSet<>(); }\n"]);
        let qualified = "class C { java.util.Set<String> s = new java.util.HashSet<>(); }\n";
        assert_eq!(made(qualified), ["class C { java.util.Set<String> s = new java.util.LinkedHashSet<>(); }\n"]);
    }

    #[test]
    fn the_import_goes_last_or_after_the_package_and_a_clashing_name_makes_no_edit() {
        let last = "import java.util.HashSet;\nimport java.util.Collection;\nclass C { Collection<String> s = new HashSet<String>(); }\n";
        assert_eq!(
            made(last),
            [
                "import java.util.Collection;\nimport java.util.LinkedHashSet;\nclass C { Collection<String> s = new LinkedHashSet<String>(); }\n"
            ]
        );
        let bare = "package a.b;\nclass C { Object s = new HashMap(); }\n";
        assert_eq!(
            made(bare),
            ["package a.b;\n\nimport java.util.LinkedHashMap;\nclass C { Object s = new LinkedHashMap(); }\n"]
        );
        let clash = "import my.LinkedHashSet;\nclass C { Object s = new HashSet(); }\n";
        assert!(made(clash).is_empty());
        // Other classes, and Python, have no ordered variant here.
        assert!(made("class C { Object s = new TreeSet(); Object l = new ArrayList(); }\n").is_empty());
        let py = edits("s = set()\nd = dict()\n", Language::Python, (1, 2));
        assert!(!py.iter().any(|e| e.template == Template::OrderedCollection));
    }

    #[test]
    fn imports_outside_the_localized_lines_give_the_qualified_name() {
        // The strategy drops an edit reaching outside its lines (`--method`, or the creation's
        // line alone): the class is then written qualified, and the candidate is tried.
        let text = "import java.util.HashMap;\nimport java.util.Map;\n\nclass C {\n    \
                    Map<String, Integer> keys() {\n        Map<String, Integer> m = new HashMap<>();\n        \
                    return m;\n    }\n}\n";
        let got: Vec<_> = edits(text, Language::Java, (5, 8))
            .into_iter()
            .filter(|e| e.template == Template::OrderedCollection)
            .collect();
        assert_eq!(got.len(), 1, "{got:#?}");
        assert_eq!((got[0].original.as_str(), got[0].replacement.as_str()), ("HashMap", "java.util.LinkedHashMap"));
        assert!(got[0].summary.contains("qualified"), "{}", got[0].summary);
        assert!(parses(&apply(text, &got[0]), Language::Java));
    }

    #[test]
    fn imports_sharing_a_line_or_after_a_static_import_are_kept_apart() {
        // Two imports on one line: only the hash class's goes (found by the fresh-user pass:
        // the whole line went, and a line shared with the next import panicked).
        let shared = "import java.util.Set; import java.util.HashSet;\nclass C { Set<String> f() { return new HashSet<>(); } }\n";
        assert_eq!(
            made(shared),
            [
                "import java.util.LinkedHashSet;\nimport java.util.Set;\nclass C { Set<String> f() { return new LinkedHashSet<>(); } }\n"
            ]
        );
        let first = "import java.util.ArrayList; import java.util.HashSet;\nclass C { Object s = new HashSet(); List a = new ArrayList(); }\n";
        assert_eq!(
            made(first),
            [
                "import java.util.ArrayList;\nimport java.util.LinkedHashSet;\nclass C { Object s = new LinkedHashSet(); List a = new ArrayList(); }\n"
            ]
        );
        // Sorting last, the import goes after the last single-type import, not a static one.
        let statics = "import java.util.ArrayList;\nimport java.util.HashMap;\n\nimport static java.lang.Math.max;\n\n\
                       class C { Object m = new HashMap(); }\n";
        assert_eq!(
            made(statics),
            ["import java.util.ArrayList;\nimport java.util.LinkedHashMap;\n\nimport static java.lang.Math.max;\n\n\
              class C { Object m = new LinkedHashMap(); }\n"]
        );
        // A class of the linked name declared in the file wins even under `java.util.*`.
        assert!(
            made("import java.util.*;\nclass C { Object s = new HashSet<>(); static class LinkedHashSet<E> {} }\n")
                .is_empty()
        );
    }

    #[test]
    fn crlf_files_get_crlf_imports() {
        let text = "import java.util.Set;\r\nclass C {\r\n    Set s = new HashSet();\r\n}\r\n";
        let got = made(text);
        assert_eq!(
            got,
            [
                "import java.util.LinkedHashSet;\r\nimport java.util.Set;\r\nclass C {\r\n    Set s = new LinkedHashSet();\r\n}\r\n"
            ]
        );
    }
}
