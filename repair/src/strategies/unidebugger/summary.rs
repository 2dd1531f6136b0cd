//! The Summarizer's signature summary (UniDebugger, ../shared/papers/unidebugger.txt, Knowl 3
//! agent 3): one line per function or method,
//! `class ~~~ function ~~~ parameters ~~~ return type ~~~ description`, the paper's
//! `<class>~~~<function>~~~<parameters>~~~<return_type>~~~<description>`, to fit
//! repository-level context into the prompt.
//!
//! [`parse`] reads the lines out of the Summarizer's answer, [`render`] writes them back, and
//! [`signatures`] builds the summary without a model from the file's declarations (the
//! fallback when the answer has no usable line).

use std::path::Path;

use serde::Serialize;

use super::marks::collapse_whitespace;
use crate::Language;
use crate::tools::MethodSpan;

/// The field separator of a summary line.
const SEPARATOR: &str = "~~~";

/// The most lines of a declaration [`signatures`] reads.
const MAX_HEADER_LINES: usize = 5;

/// Java modifiers: a constructor's last word before its name is one of these (or an
/// annotation, or type parameters), never a return type.
const JAVA_MODIFIERS: [&str; 14] = [
    "public",
    "protected",
    "private",
    "static",
    "final",
    "abstract",
    "synchronized",
    "native",
    "strictfp",
    "default",
    "transient",
    "volatile",
    "sealed",
    "non-sealed",
];

/// One summarised function or method.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SummaryLine {
    /// The enclosing class (a Python top-level function: its module), as written.
    pub class: String,
    /// The function or method name (a constructor: its class's name).
    pub function: String,
    /// The parameter list without its parentheses, as written (may be empty).
    pub parameters: String,
    /// The return type as written; empty for a constructor or an unannotated Python
    /// function.
    pub return_type: String,
    /// What it does, in prose; empty from [`signatures`].
    pub description: String,
}

/// The summary lines of a Summarizer `answer`: each of its lines that has exactly five
/// `~~~`-separated fields, trimmed, after removing a leading list marker (`- `, `* `, `1. `,
/// `1) `) and surrounding backticks. A header line (fields `class`, `function`, ..., with or
/// without `<>`) is dropped; other lines are ignored. Never fails; empty when nothing fits.
pub fn parse(answer: &str) -> Vec<SummaryLine> {
    answer.lines().filter_map(parse_line).filter(|line| !is_header(line)).collect()
}

/// One line per entry, `class ~~~ function ~~~ parameters ~~~ return type ~~~ description`,
/// each ending in `\n` (trailing spaces trimmed); [`parse`] reads it back.
pub fn render(lines: &[SummaryLine]) -> String {
    lines.iter().map(|line| render_line(line) + "\n").collect()
}

/// A deterministic summary of the Java or Python file at `path`, without a model: one line
/// per method, constructor and function ([`crate::tools::method_spans`], in source order)
/// with class = the owner (a Python top-level function: the module, the file's stem),
/// parameters = the text between the declaration's parentheses (whitespace collapsed),
/// return type = the Java type before the name (`void`; empty for a constructor) or the
/// Python `-> X` annotation (empty without one), and an empty description. The declaration
/// is read from the span's first line up to the first line that ends the header (Java: one
/// containing `{` or ending in `;`; Python: one ending in `:`), at most 5 lines; a field that
/// cannot be read from it is empty. Empty for other languages and unreadable files.
pub fn signatures(path: &Path) -> Vec<SummaryLine> {
    let Some(lang) = Language::from_path(path) else { return Vec::new() };
    let Ok(bytes) = std::fs::read(path) else { return Vec::new() };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    let module = path.file_stem().map_or(String::new(), |stem| stem.to_string_lossy().into_owned());
    let spans = crate::tools::method_spans(path);
    spans.iter().map(|span| signature(&lines, span, lang, &module)).collect()
}

/// `line` as a summary line, if it has exactly five fields.
fn parse_line(line: &str) -> Option<SummaryLine> {
    let text = strip_list_marker(line.trim()).trim().trim_matches('`').trim();
    let fields: Vec<&str> = text.split(SEPARATOR).map(str::trim).collect();
    let [class, function, parameters, return_type, description] = fields.as_slice() else { return None };
    Some(SummaryLine {
        class: class.to_string(),
        function: function.to_string(),
        parameters: parameters.to_string(),
        return_type: return_type.to_string(),
        description: description.to_string(),
    })
}

/// `text` without a leading `- `, `* `, `<digits>. ` or `<digits>) `.
fn strip_list_marker(text: &str) -> &str {
    if let Some(rest) = text.strip_prefix("- ").or_else(|| text.strip_prefix("* ")) {
        return rest;
    }
    let number = text.trim_start_matches(|c: char| c.is_ascii_digit());
    if number.len() == text.len() {
        return text;
    }
    number.strip_prefix(". ").or_else(|| number.strip_prefix(") ")).unwrap_or(text)
}

/// Whether `line` is the format's header (`class ~~~ function ~~~ ...`).
fn is_header(line: &SummaryLine) -> bool {
    let name = |field: &str| field.trim_matches(['<', '>']).to_ascii_lowercase();
    name(&line.class) == "class" && name(&line.function) == "function"
}

/// `line` in the summary format, trailing spaces trimmed.
fn render_line(line: &SummaryLine) -> String {
    let fields = [&line.class, &line.function, &line.parameters, &line.return_type, &line.description];
    let joined = fields.map(String::as_str).join(&format!(" {SEPARATOR} "));
    joined.trim_end().to_string()
}

/// The summary line of the method `span` of a file with `lines` in `lang`.
fn signature(lines: &[&str], span: &MethodSpan, lang: Language, module: &str) -> SummaryLine {
    let (class, function) = match span.name.rsplit_once('.') {
        Some((owner, name)) => (owner.to_string(), name.to_string()),
        None if lang == Language::Python => (module.to_string(), span.name.clone()),
        None => (String::new(), span.name.clone()),
    };
    let header = header_text(lines, span, lang);
    let (before, parameters, after) = split_declaration(&header, &function).unwrap_or(("", "", ""));
    let return_type = match lang {
        Language::Java => java_return_type(before),
        Language::Python => python_return_type(after),
    };
    let parameters = collapse_whitespace(parameters);
    SummaryLine { class, function, parameters, return_type, description: String::new() }
}

/// The declaration header of `span`: its lines joined with spaces, from its first line to
/// the first that ends the header, at most [`MAX_HEADER_LINES`].
fn header_text(lines: &[&str], span: &MethodSpan, lang: Language) -> String {
    let first = span.lines.first.saturating_sub(1).min(lines.len());
    let last = span.lines.last.min(first + MAX_HEADER_LINES).min(lines.len()).max(first);
    let window = &lines[first..last];
    let taken = window.iter().position(|line| ends_header(line, lang)).map_or(window.len(), |at| at + 1);
    window[..taken].join(" ")
}

/// Whether `line` ends a declaration header in `lang`.
fn ends_header(line: &str, lang: Language) -> bool {
    match lang {
        Language::Java => line.contains('{') || line.trim_end().ends_with(';'),
        Language::Python => line.trim_end().ends_with(':'),
    }
}

/// `header` split around the parameter list of `name`: the text before the name, between
/// the parentheses, and after the closing parenthesis.
fn split_declaration<'h>(header: &'h str, name: &str) -> Option<(&'h str, &'h str, &'h str)> {
    let at = name_position(header, name)?;
    let open = at + name.len() + header[at + name.len()..].find('(')?;
    let close = matching_close(header, open)?;
    Some((&header[..at], &header[open + 1..close], &header[close + 1..]))
}

/// The byte offset of the first whole-word `name` in `header` followed by `(`.
fn name_position(header: &str, name: &str) -> Option<usize> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    header.match_indices(name).map(|(at, _)| at).find(|&at| {
        let starts_word = header[..at].chars().next_back().is_none_or(|c| !is_word(c));
        starts_word && header[at + name.len()..].trim_start().starts_with('(')
    })
}

/// The byte offset of the bracket that closes the one at `open`.
fn matching_close(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (at, c) in text[open..].char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.checked_sub(1)?,
            _ => {}
        }
        if depth == 0 {
            return Some(open + at);
        }
    }
    None
}

/// The Java return type at the end of `before` (the declaration before the name): its last
/// word, generic arguments included; empty for a constructor (a modifier, an annotation,
/// type parameters or nothing there).
fn java_return_type(before: &str) -> String {
    let word = last_word(before.trim_end());
    let constructor = word.is_empty() || word.starts_with(['@', '<']) || JAVA_MODIFIERS.contains(&word);
    if constructor { String::new() } else { collapse_whitespace(word) }
}

/// The last whitespace-separated word of `text`, treating `<...>` and `(...)` as one word.
fn last_word(text: &str) -> &str {
    let mut depth = 0i32;
    for (at, c) in text.char_indices().rev() {
        match c {
            '>' | ')' => depth += 1,
            '<' | '(' => depth -= 1,
            c if c.is_whitespace() && depth <= 0 => return &text[at + c.len_utf8()..],
            _ => {}
        }
    }
    text
}

/// The Python `-> X` annotation at the start of `after` (the header after the parameters),
/// up to the header's `:`; empty without one.
fn python_return_type(after: &str) -> String {
    let Some(rest) = after.trim_start().strip_prefix("->") else { return String::new() };
    let mut depth = 0usize;
    for (at, c) in rest.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            ':' if depth == 0 => return collapse_whitespace(&rest[..at]),
            _ => {}
        }
    }
    collapse_whitespace(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(class: &str, function: &str, parameters: &str, return_type: &str, description: &str) -> SummaryLine {
        SummaryLine {
            class: class.to_string(),
            function: function.to_string(),
            parameters: parameters.to_string(),
            return_type: return_type.to_string(),
            description: description.to_string(),
        }
    }

    /// `signatures` of a file named `name` holding `text`.
    fn signatures_of(name: &str, text: &str) -> Vec<SummaryLine> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        signatures(&path)
    }

    #[test]
    fn parse_keeps_five_field_lines_and_drops_noise_and_header() {
        let answer = "Here is the summary:\n\n```\n<class>~~~<function>~~~<parameters>~~~<return_type>~~~<description>\n\
                      - Calc ~~~ sum ~~~ int[] xs ~~~ int ~~~ Adds the elements.\n\
                      * Calc~~~Calc~~~~~~~~~Creates a calculator.\n\
                      12. `Calc ~~~ mean ~~~ int[] xs ~~~ double ~~~ The average.`\n\
                      3) util ~~~ clamp ~~~ x, lo, hi ~~~ ~~~\n\
                      Calc ~~~ broken ~~~ only four ~~~ fields\n\
                      Calc ~~~ a ~~~ b ~~~ c ~~~ d ~~~ six\n```\nThat is all.";
        let expected = vec![
            line("Calc", "sum", "int[] xs", "int", "Adds the elements."),
            line("Calc", "Calc", "", "", "Creates a calculator."),
            line("Calc", "mean", "int[] xs", "double", "The average."),
            line("util", "clamp", "x, lo, hi", "", ""),
        ];
        assert_eq!(parse(answer), expected);
    }

    #[test]
    fn parse_drops_a_plain_header_and_ignores_prose() {
        let answer = "Class ~~~ Function ~~~ Parameters ~~~ Return type ~~~ Description\nNo summary lines here.";
        assert_eq!(parse(answer), vec![]);
    }

    #[test]
    fn render_exact_and_parse_round_trip() {
        let lines = vec![line("Calc", "sum", "int[] xs", "int", "Adds them."), line("", "main", "", "", "")];
        let text = render(&lines);
        assert_eq!(text, "Calc ~~~ sum ~~~ int[] xs ~~~ int ~~~ Adds them.\n ~~~ main ~~~  ~~~  ~~~\n");
        assert_eq!(parse(&text), lines);
        assert_eq!(render(&[]), "");
    }

    #[test]
    fn java_signatures() {
        let java = "\
package demo;

public class Registry<K> {
    private final Map<K, List<String>> items = new HashMap<>();

    public Registry(int capacity) {
        this.capacity = capacity;
    }

    @Override
    public <T extends Comparable<T>> Map<K, List<T>> group(
            List<T> values,
            Function<T, K> key) throws IOException {
        return null;
    }

    void clear() { items.clear(); }

    static class Entry {
        Entry(String name, int[] counts) {}

        protected final String[] names() {
            return null;
        }
    }
}
";
        let expected = vec![
            line("Registry", "Registry", "int capacity", "", ""),
            line("Registry", "group", "List<T> values, Function<T, K> key", "Map<K, List<T>>", ""),
            line("Registry", "clear", "", "void", ""),
            line("Entry", "Entry", "String name, int[] counts", "", ""),
            line("Entry", "names", "", "String[]", ""),
        ];
        assert_eq!(signatures_of("Registry.java", java), expected);
    }

    #[test]
    fn python_signatures() {
        let python = "\
import os

class Counter:
    def __init__(self, start=0):
        self.n = start

    @property
    def value(self) -> int:
        return self.n

def total(counts: dict[str, int],
          scale: float = 1.0) -> Optional[int]:
    return sum(counts.values())

def helper(x): return x
";
        let expected = vec![
            line("Counter", "__init__", "self, start=0", "", ""),
            line("Counter", "value", "self", "int", ""),
            line("stats", "total", "counts: dict[str, int], scale: float = 1.0", "Optional[int]", ""),
            line("stats", "helper", "x", "", ""),
        ];
        assert_eq!(signatures_of("stats.py", python), expected);
    }

    #[test]
    fn signatures_of_other_or_missing_files_are_empty() {
        assert_eq!(signatures_of("notes.txt", "def f(): pass\n"), vec![]);
        assert_eq!(signatures(Path::new("/nonexistent/Missing.java")), vec![]);
    }

    #[test]
    fn summary_lines_serialize_by_field_name() {
        let json = serde_json::to_string(&line("C", "f", "", "void", "d")).unwrap();
        let expected = r#"{"class":"C","function":"f","parameters":"","return_type":"void","description":"d"}"#;
        assert_eq!(json, expected);
    }
}
