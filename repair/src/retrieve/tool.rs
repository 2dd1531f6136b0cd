//! The pipeline as the model-facing tool `search_similar_fixes` (ReinFix's external
//! ingredients, served by `fixdex serve` and called by the repair workflow): its JSON
//! schema ([`spec`]) and its JSON arguments read into a query and [`RetrieveParams`]
//! ([`arguments`]), with model-facing messages for what is wrong.

use engine::Space;
use engine::embed::LineRange;
use serde_json::{Value, json};

use super::error::RetrieveError;
use super::params::RetrieveParams;
use super::rank::Rank;
use crate::tools::ToolSpec;

/// The name of the tool.
pub const NAME: &str = "search_similar_fixes";

/// The query and options of one tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct Arguments {
    /// The buggy code.
    pub code: String,
    /// The root cause.
    pub root_cause: String,
    /// The buggy lines of `code`, when given.
    pub lines: Option<LineRange>,
    /// The options: the defaults with `rank` and the call's `k`, `threshold` and `space`.
    pub params: RetrieveParams,
}

/// The space a call without `space` searches: `code+cause` when the index has it, else its
/// first (`spaces` in canonical order).
pub fn default_space<'a>(spaces: &[&'a str]) -> &'a str {
    let code_cause = Space::CodeCause.name();
    if spaces.contains(&code_cause) { code_cause } else { spaces.first().copied().unwrap_or(code_cause) }
}

/// `search_similar_fixes` offering `spaces` (canonical order) as its `space` argument, with
/// no argument outside the schema (`additionalProperties: false`).
pub fn spec(spaces: &[&str]) -> ToolSpec {
    let default = default_space(spaces);
    ToolSpec {
        name: NAME.into(),
        description: "Search a corpus of historical bug-fix pairs for fixes similar to the given buggy code \
                      and its root cause (ReinFix external repair ingredients). Returns the top matches with \
                      their similarity score, root cause, what each fix did (its repair actions, e.g. \
                      `change operator < → <= in for condition`) and the fix as a unified diff. The bug under \
                      repair is never returned."
            .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "code": {"type": "string", "description": "The buggy code (a function or hunk)."},
                "root_cause": {"type": "string", "description": "One or two sentences: why the code is wrong."},
                "k": {"type": "integer", "minimum": 1, "maximum": 20, "description": "Number of fixes (default 3)."},
                "threshold": {"type": "number", "minimum": -1, "maximum": 1,
                              "description": "Minimum cosine similarity (optional)."},
                "space": {"type": "string", "enum": spaces,
                          "description": format!("What to match on (default {default}).")},
                "lines": {"type": "string",
                          "description": "The buggy lines of `code`, `A-B` or `A` (1-based, optional): a long \
                                          function is then matched around them."}
            },
            "required": ["code", "root_cause"],
            "additionalProperties": false
        }),
    }
}

/// Reads the JSON arguments `args` of a call to an index with `spaces`, ranked by `rank`.
///
/// # Errors
/// [`RetrieveError::Arguments`] with a model-facing message for a missing or invalid
/// argument.
pub fn arguments(args: &Value, spaces: &[&str], rank: Rank) -> Result<Arguments, RetrieveError> {
    let code = text(args, "code")?;
    let root_cause = text(args, "root_cause")?;
    let space = default_space(spaces).parse().unwrap_or_default();
    let mut params = RetrieveParams { rank, space, ..RetrieveParams::default() };
    if let Some(k) = arg(args, "k") {
        params.k = top_k(k)?;
    }
    if let Some(t) = arg(args, "threshold") {
        params.threshold = Some(threshold(t)?);
    }
    if let Some(s) = arg(args, "space") {
        params.space = space_of(s, spaces)?;
    }
    let lines = arg(args, "lines").map(|v| line_range(v, &code)).transpose()?;
    Ok(Arguments { code, root_cause, lines, params })
}

/// Argument `name`, unless absent or `null`.
fn arg<'a>(args: &'a Value, name: &str) -> Option<&'a Value> {
    args.get(name).filter(|v| !v.is_null())
}

/// The string argument `name`, which is required.
fn text(args: &Value, name: &str) -> Result<String, RetrieveError> {
    arg(args, name)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| RetrieveError::Arguments(format!("argument `{name}` (a string) is required")))
}

/// The `k` argument: an integer in 1..=20 (`3.0` counts as 3).
fn top_k(k: &Value) -> Result<usize, RetrieveError> {
    k.as_u64()
        .or_else(|| k.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0).map(|f| f as u64))
        .filter(|&k| (1..=20).contains(&k))
        .map(|k| k as usize)
        .ok_or_else(|| RetrieveError::Arguments(format!("`k` must be an integer in 1..=20, got {k}")))
}

/// The `threshold` argument: a number in [-1, 1].
fn threshold(t: &Value) -> Result<f32, RetrieveError> {
    t.as_f64()
        .filter(|t| (-1.0..=1.0).contains(t))
        .map(|t| t as f32)
        .ok_or_else(|| RetrieveError::Arguments(format!("`threshold` must be a number in [-1, 1], got {t}")))
}

/// The `space` argument: one of `spaces`.
fn space_of(s: &Value, spaces: &[&str]) -> Result<Space, RetrieveError> {
    let name = s.as_str().unwrap_or_default();
    let known = name.parse::<Space>().ok();
    known.filter(|sp| spaces.contains(&sp.name())).ok_or_else(|| {
        let why = if known.is_some() { format!("the index has no vector space `{name}`; ") } else { String::new() };
        RetrieveError::Arguments(format!("{why}`space` must be one of {}; got {s}", spaces.join(", ")))
    })
}

/// The `lines` argument: `A-B` or `A`, 1-based, within `code`.
fn line_range(v: &Value, code: &str) -> Result<LineRange, RetrieveError> {
    let bad = |why: String| {
        RetrieveError::Arguments(format!("`lines` must be `A-B` or `A` (1-based lines of `code`): {why}"))
    };
    let r: LineRange =
        v.as_str().ok_or_else(|| bad(format!("got {v}")))?.parse().map_err(|e: engine::Error| bad(e.to_string()))?;
    let n = code.lines().count();
    if r.last > n {
        return Err(bad(format!("{r} is past the code's {n} lines")));
    }
    Ok(r)
}
