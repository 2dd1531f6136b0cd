//! What the corpus-split examples (`patterns_order`, `patterns_transplant`, `patterns_every`)
//! share: their arguments, the split rule and the pairs they read. Included with
//! `#[path = "shared/split.rs"] mod split;` (not an example of its own).
#![allow(dead_code)] // each example uses a part

use std::io::BufRead;
use std::path::PathBuf;

use anyhow::{Context, bail};
use repair::Language;
use repair::strategies::patterns::templates;
use serde_json::Value;

/// Benchmark sources never read: they are the measurements.
pub const SKIP_SOURCES: [&str; 3] = ["quixbugs", "defects4j", "bugsinpy"];

/// FNV-1a of `s`: a record is in split `K/M` when `fnv(id) % M == K`.
pub fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// `[--index I.fdx --model DIR] [--split K/M] [--max N] [--localized] DATA.jsonl...`.
pub struct Args {
    /// The index and its model; `None`: no retrieval.
    pub index: Option<(PathBuf, PathBuf)>,
    /// `(K, M)`; `(0, 1)`: every record.
    pub split: (u64, u64),
    /// Most pairs handed to the caller (what it counts; `usize::MAX`: all).
    pub max: usize,
    /// The corpus files.
    pub data: Vec<PathBuf>,
    /// Edits only within the lines the fix changes ([`changed_span`]), as Defects4J's
    /// perfect localization gives them; the examples that read it say so.
    pub localized: bool,
}

/// The command line's [`Args`].
///
/// # Errors
/// A malformed `--split` or `--max`, or `--index` without `--model` (or the reverse).
pub fn args() -> anyhow::Result<Args> {
    let mut it = std::env::args().skip(1);
    let (mut index, mut model, mut split, mut max, mut data) = (None, None, (0, 1), usize::MAX, Vec::new());
    let mut localized = false;
    while let Some(a) = it.next() {
        match a.as_str() {
            "--index" => index = it.next().map(PathBuf::from),
            "--model" => model = it.next().map(PathBuf::from),
            "--split" => {
                let v = it.next().context("--split K/M")?;
                let (k, m) = v.split_once('/').context("--split K/M")?;
                split = (k.parse()?, m.parse()?);
            }
            "--max" => max = it.next().context("--max N")?.parse()?,
            "--localized" => localized = true,
            _ => data.push(PathBuf::from(a)),
        }
    }
    let index = match (index, model) {
        (Some(index), Some(model)) => Some((index, model)),
        (None, None) => None,
        _ => bail!("--index and --model go together"),
    };
    Ok(Args { index, split, max, data, localized })
}

/// One pair of the split: its record, language, buggy and fixed code.
pub struct Pair<'r> {
    pub rec: &'r Value,
    pub lang: Language,
    pub buggy: &'r str,
    pub fixed: &'r str,
}

impl Pair<'_> {
    /// A string field of the record (`""` when missing).
    pub fn field(&self, k: &str) -> &str {
        self.rec.get(k).and_then(Value::as_str).unwrap_or("")
    }
}

/// Calls `f` on every pair of `a.data` in the split whose snippet the templates read (a
/// known language, at most `SNIPPET_MAX_LINES` lines, not cut with `...`), benchmark sources
/// skipped, until `f` has returned `true` (a pair it counted) `a.max` times. Returns the
/// pairs handed to `f`.
///
/// # Errors
/// An unreadable file, a line that is not JSON (naming the file and line), or `f`'s error.
pub fn for_each_pair(a: &Args, mut f: impl FnMut(&Pair<'_>) -> anyhow::Result<bool>) -> anyhow::Result<usize> {
    let (mut seen, mut counted) = (0usize, 0usize);
    for path in &a.data {
        let file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
        for (row, line) in std::io::BufReader::new(file).lines().enumerate() {
            if counted >= a.max {
                return Ok(seen);
            }
            let rec: Value = serde_json::from_str(&line?).with_context(|| format!("{}:{}", path.display(), row + 1))?;
            let field = |k: &str| rec.get(k).and_then(Value::as_str).unwrap_or("");
            if SKIP_SOURCES.contains(&field("source")) || fnv(field("id")) % a.split.1 != a.split.0 {
                continue;
            }
            let Some(lang) = Language::from_name(field("language")) else { continue };
            let (buggy, fixed) = (field("buggy_code"), field("fixed_code"));
            if buggy.lines().count() > templates::SNIPPET_MAX_LINES || buggy.contains("\n...\n") {
                continue;
            }
            seen += 1;
            counted += usize::from(f(&Pair { rec: &rec, lang, buggy, fixed })?);
        }
    }
    Ok(seen)
}

/// The 1-based lines `(first, last)` of `buggy` from the first to the last line the fix
/// changes: the lines before and after that `fixed` keeps as they are (whitespace aside,
/// blank lines skipped) are left out. This is Defects4J's perfect localization (first to
/// last line of the buggy file the developer's patch touches, `repair::bench::defects4j`).
/// `None` when the fix only inserts lines (no buggy line changes) or changes nothing.
pub fn changed_span(buggy: &str, fixed: &str) -> Option<(usize, usize)> {
    let solid = |t: &str| -> Vec<(usize, String)> {
        t.lines().enumerate().map(|(i, l)| (i + 1, templates::squash(l))).filter(|(_, l)| !l.is_empty()).collect()
    };
    let (b, f) = (solid(buggy), solid(fixed));
    let prefix = b.iter().zip(&f).take_while(|(x, y)| x.1 == y.1).count();
    let suffix = b[prefix..].iter().rev().zip(f[prefix..].iter().rev()).take_while(|(x, y)| x.1 == y.1).count();
    (prefix + suffix < b.len()).then(|| (b[prefix].0, b[b.len() - suffix - 1].0))
}

/// Whether `e` (an edit of `text`, lines 1-based) lies within lines `span`.
pub fn within(text: &str, e: &templates::Edit, span: (usize, usize)) -> bool {
    let last = e.line + text.get(e.start..e.end).map_or(0, |s| s.matches('\n').count());
    e.line >= span.0 && last <= span.1
}
