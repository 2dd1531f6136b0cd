//! Tool output: plain text lines, capped to a character budget with an explicit notice.

use tree_sitter::Node;

use super::source::{SourceFile, end_line_of, line_of};

/// Lines of one tool answer, in the order they were pushed.
#[derive(Debug, Default)]
pub(crate) struct Output {
    lines: Vec<String>,
}

impl Output {
    /// Appends one line.
    pub(crate) fn push(&mut self, line: impl Into<String>) {
        self.lines.push(line.into());
    }

    /// Appends every line of `lines`, or `  (none)` when there are none.
    pub(crate) fn push_all_or_none(&mut self, lines: impl IntoIterator<Item = String>) {
        let before = self.lines.len();
        self.lines.extend(lines);
        if self.lines.len() == before {
            self.push("  (none)");
        }
    }

    /// Appends source line `line` of `file` as `{line}: {text}`, indented by `indent` spaces.
    pub(crate) fn code_line(&mut self, file: &SourceFile, line: usize, indent: usize) {
        self.push(format!("{:indent$}{line}: {}", "", file.line(line)));
    }

    /// Appends every source line `node` spans, numbered.
    pub(crate) fn code_block(&mut self, file: &SourceFile, node: Node<'_>) {
        for line in line_of(node)..=end_line_of(node) {
            self.code_line(file, line, 0);
        }
    }

    /// Joins the lines, keeping whole lines while they fit in `budget_chars` (counting line
    /// breaks) and ending with `... [truncated: N more lines]` when some were left off.
    pub(crate) fn finish(self, budget_chars: usize) -> String {
        let total: usize = self.lines.iter().map(|l| l.len() + 1).sum();
        if total <= budget_chars {
            return self.lines.join("\n");
        }
        let reserve = "... [truncated: 0000000 more lines]".len() + 1;
        let mut used = 0;
        let mut kept = Vec::new();
        for line in &self.lines {
            if used + line.len() + 1 + reserve > budget_chars {
                break;
            }
            used += line.len() + 1;
            kept.push(line.as_str());
        }
        let left = self.lines.len() - kept.len();
        format!("{}\n... [truncated: {left} more lines]", kept.join("\n")).trim_start().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_output_is_untouched() {
        let mut out = Output::default();
        out.push("a");
        out.push("b");
        assert_eq!(out.finish(100), "a\nb");
    }

    #[test]
    fn long_output_keeps_whole_lines_and_counts_the_rest() {
        let mut out = Output::default();
        (0..100).for_each(|i| out.push(format!("line {i:03}")));
        let text = out.finish(120);
        assert!(text.len() <= 120, "{}", text.len());
        assert!(text.starts_with("line 000\nline 001\n"));
        let kept = text.lines().count() - 1;
        assert!(text.ends_with(&format!("... [truncated: {} more lines]", 100 - kept)));
    }
}
