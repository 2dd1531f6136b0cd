//! Replays the compile pre-check ([`templates::refused`]) on validated candidates: reads
//! JSON lines `{"original": FILE TEXT, "candidate": FILE TEXT, "language": "java"|"python"}`
//! on stdin and prints, per line, `refused\t<why>` or `kept`. The changed region is the span
//! between the two texts' common prefix and suffix.
//!
//! `cargo run -p fixdex-repair --example refuse_check < pairs.jsonl`
use std::io::BufRead;

use repair::Language;
use repair::strategies::patterns::templates;

fn main() {
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin");
        let v: serde_json::Value = serde_json::from_str(&line).expect("a JSON line");
        let (original, candidate) = (v["original"].as_str().unwrap_or(""), v["candidate"].as_str().unwrap_or(""));
        let language = if v["language"] == "python" { Language::Python } else { Language::Java };
        let prefix = original.bytes().zip(candidate.bytes()).take_while(|(a, b)| a == b).count();
        let suffix =
            original[prefix..].bytes().rev().zip(candidate[prefix..].bytes().rev()).take_while(|(a, b)| a == b).count();
        // back to char boundaries
        let mut start = prefix;
        while !candidate.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = candidate.len() - suffix;
        while !candidate.is_char_boundary(end) {
            end += 1;
        }
        match templates::refused(original, candidate, language, start..end) {
            Some(why) => println!("refused\t{why}"),
            None => println!("kept"),
        }
    }
}
