//! Lists the patterns strategy's candidate edits of one method in the prior's order (no
//! index, perfect localization), one line each: rank, template, line, original → replacement.
//!
//! `cargo run -p fixdex-repair --example patterns_list -- FILE FIRST LAST [java|python] [PROJECT]`
//!
//! With `PROJECT` (a Java project root), the templates also see its classes
//! ([`templates::ProjectTypes::scan`]), as `--strategy patterns` does with the bug's root.
use repair::Language;
use repair::fl::LineWeights;
use repair::strategies::patterns::{order, templates};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, file, first, last, rest @ ..] = args.as_slice() else {
        eprintln!("usage: patterns_list FILE FIRST LAST [java|python] [PROJECT]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(file).expect("readable file");
    let language = match rest.first().map(String::as_str) {
        Some("python") => Language::Python,
        Some("java") | None => Language::Java,
        Some(other) => panic!("unknown language {other}"),
    };
    let lines = (first.parse().expect("FIRST"), last.parse().expect("LAST"));
    let project = rest.get(1).map(|root| templates::ProjectTypes::scan(std::path::Path::new(root))).unwrap_or_default();
    let edits = templates::edits_in(&text, language, lines, &project);
    for (rank, i) in order::order(&edits, &[], &LineWeights::Uniform).into_iter().enumerate() {
        let e = &edits[i];
        println!("{:4} {:?} l{}: {:?} -> {:?}", rank + 1, e.template, e.line, e.original, e.replacement);
    }
}
