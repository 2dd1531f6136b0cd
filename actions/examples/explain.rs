//! Prints the edit script and the actions of one pair: `explain BUGGY_FILE FIXED_FILE LANG`.

use std::str::FromStr;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [buggy, fixed, lang] = &args[..] else {
        return Err("usage: explain BUGGY_FILE FIXED_FILE java|python".into());
    };
    let (buggy, fixed) = (std::fs::read_to_string(buggy)?, std::fs::read_to_string(fixed)?);
    let lang = actions::Language::from_str(lang)?;
    println!("{}", actions::explain(&buggy, &fixed, lang));
    let c = actions::classify(&buggy, &fixed, lang);
    println!("label: {} {}", c.label, c.reason.unwrap_or_default());
    for a in &c.actions {
        println!("  {a}  [{:?} → {:?}]", a.buggy_lines, a.fixed_lines);
    }
    Ok(())
}
