//! Classifies bug-fix pairs: JSON lines with `buggy_code`, `fixed_code`, `language` (and
//! an optional `id`) on stdin; one JSON line `{id, label, reason, actions}` per input line
//! on stdout, where each action carries its one-line description in `text`. A line that is
//! not such a record gives `{id, error}`. Prints pairs/s to stderr at the end.
//!
//! ```sh
//! cargo run --release --example classify < pairs.jsonl > actions.jsonl
//! ```

use std::io::{BufRead, Write};
use std::str::FromStr;
use std::time::Instant;

use actions::{Language, classify};
use serde_json::{Value, json};

fn main() -> std::io::Result<()> {
    let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
    let mut out = std::io::BufWriter::new(stdout.lock());
    let (start, mut n) = (Instant::now(), 0u64);
    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        writeln!(out, "{}", answer(&line))?;
        n += 1;
    }
    out.flush()?;
    let secs = start.elapsed().as_secs_f64();
    eprintln!("{n} pairs in {secs:.2} s: {:.0} pairs/s", n as f64 / secs.max(1e-9));
    Ok(())
}

fn answer(line: &str) -> Value {
    let rec: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return json!({"id": null, "error": format!("not JSON: {e}")}),
    };
    let field = |k: &str| rec.get(k).and_then(Value::as_str);
    let id = rec.get("id").cloned().unwrap_or(Value::Null);
    let lang = match Language::from_str(field("language").unwrap_or("")) {
        Ok(l) => l,
        Err(e) => return json!({"id": id, "error": e.to_string()}),
    };
    let c = classify(field("buggy_code").unwrap_or(""), field("fixed_code").unwrap_or(""), lang);
    let acts: Vec<Value> = c
        .actions
        .iter()
        .map(|a| {
            let mut v = serde_json::to_value(a).unwrap_or(Value::Null);
            v["text"] = Value::String(a.to_string());
            v
        })
        .collect();
    json!({"id": id, "label": c.label, "reason": c.reason, "actions": acts})
}
