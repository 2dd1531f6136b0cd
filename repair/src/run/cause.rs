//! Root causes as text: the one normal form in which a model's root cause is compared
//! (ReinFix's "none" answers and echoed prompts, [`crate::strategies`]; the corpus
//! labeller's refusals, [`crate::label`]).

/// `cause` lower-cased, without markdown and quote characters (`` ` * _ " ' < > [ ] ``
/// except an apostrophe inside a word), with its whitespace collapsed and trailing
/// punctuation (`. , ; : ! ?`) removed.
#[must_use]
pub fn normalize_cause(cause: &str) -> String {
    let lower = cause.to_lowercase();
    let chars: Vec<char> = lower.chars().collect();
    let kept = chars.iter().enumerate().filter(|&(i, &c)| {
        let inside_word = c == '\''
            && i > 0
            && chars[i - 1].is_alphanumeric()
            && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric());
        inside_word || !matches!(c, '`' | '*' | '_' | '"' | '\'' | '<' | '>' | '[' | ']')
    });
    let text: String = kept.map(|(_, &c)| c).collect();
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    words.trim_end_matches(['.', ',', ';', ':', '!', '?']).trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_case_and_trailing_punctuation_go_apostrophes_in_words_stay() {
        assert_eq!(normalize_cause(" **`NONE`**. "), "none");
        assert_eq!(normalize_cause("It doesn't stop"), "it doesn't stop");
        assert_eq!(normalize_cause("'quoted'  \n [x] <y>!?"), "quoted x y");
    }
}
