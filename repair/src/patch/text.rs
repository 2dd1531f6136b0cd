//! A file as lines that remember their own line endings, so unchanged lines come back
//! byte for byte.

/// One line: its text without the ending, and the ending (`"\n"`, `"\r\n"`, or `""` for a
/// last line without newline).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    pub text: String,
    pub eol: &'static str,
}

/// A file's text split into [`Line`]s.
#[derive(Debug, Clone)]
pub(crate) struct Doc {
    pub lines: Vec<Line>,
    /// The ending given to inserted lines: CRLF when most lines end so, else LF.
    pub eol: &'static str,
    /// Whether the original text ended with a line ending (an empty text counts as yes).
    pub final_newline: bool,
}

impl Doc {
    /// Splits `text` at `\n`; a `\r` before it belongs to the ending.
    pub fn new(text: &str) -> Self {
        let mut lines: Vec<Line> = text.split_inclusive('\n').map(split_eol).collect();
        let final_newline = lines.last().is_none_or(|l| !l.eol.is_empty());
        let crlf = lines.iter().filter(|l| l.eol == "\r\n").count();
        let lf = lines.iter().filter(|l| l.eol == "\n").count();
        let eol = if crlf > lf { "\r\n" } else { "\n" };
        lines.shrink_to_fit();
        Self { lines, eol, final_newline }
    }

    /// The line texts, for matching.
    pub fn texts(&self) -> Vec<&str> {
        self.lines.iter().map(|l| l.text.as_str()).collect()
    }

    /// Joins the lines back; every line but the last gets an ending, and the last one has
    /// an ending exactly when the original text had one.
    pub fn render(mut self) -> String {
        let n = self.lines.len();
        for (i, line) in self.lines.iter_mut().enumerate() {
            let last = i + 1 == n;
            if last && !self.final_newline {
                line.eol = "";
            } else if line.eol.is_empty() {
                line.eol = self.eol;
            }
        }
        self.lines.iter().flat_map(|l| [l.text.as_str(), l.eol]).collect()
    }
}

fn split_eol(piece: &str) -> Line {
    if let Some(text) = piece.strip_suffix("\r\n") {
        Line { text: text.to_owned(), eol: "\r\n" }
    } else if let Some(text) = piece.strip_suffix('\n') {
        Line { text: text.to_owned(), eol: "\n" }
    } else {
        Line { text: piece.to_owned(), eol: "" }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_lf_crlf_mixed_and_unterminated_text() {
        for text in ["", "a\n", "a\nb", "a\r\nb\r\n", "a\r\nb\nc", "\n\n", "x\r\n\r\ny"] {
            assert_eq!(Doc::new(text).render(), text, "{text:?}");
        }
    }

    #[test]
    fn dominant_ending_and_final_newline() {
        let doc = Doc::new("a\r\nb\r\nc\n");
        assert_eq!((doc.eol, doc.final_newline), ("\r\n", true));
        let doc = Doc::new("a\nb");
        assert_eq!((doc.eol, doc.final_newline), ("\n", false));
        assert_eq!(doc.texts(), ["a", "b"]);
    }
}
