//! Checking a tool call's arguments against the tool's JSON schema: names and types.
//!
//! Only what the schemas of fixdex's tools use is checked: the arguments form an object,
//! every name is one of the schema's `properties` (whatever `additionalProperties` says:
//! an unknown name is almost always a misspelt one, and ignoring it would answer another
//! question than the one asked), and every value that is not `null` has the property's
//! `type`. `null` stands for an absent argument. Required arguments, ranges and enums are
//! left to the tool, whose messages name the exact rule.

use serde_json::Value;

use super::ToolSpec;

/// Checks `args` against `spec.parameters` (see the module docs). O(arguments × properties).
///
/// # Errors
/// A caller-facing message: the arguments are not an object; an argument name the schema
/// does not list (all such names, and the known ones); or a value of the wrong JSON type.
pub fn check_arguments(spec: &ToolSpec, args: &Value) -> Result<(), String> {
    let tool = &spec.name;
    let Some(args) = args.as_object() else {
        return Err(format!("the arguments of `{tool}` must be a JSON object, got {}", json_type(args)));
    };
    let properties = spec.parameters.get("properties").and_then(Value::as_object);
    let known = |name: &str| properties.and_then(|p| p.get(name));
    let unknown: Vec<String> = args.keys().filter(|k| known(k).is_none()).map(|k| format!("`{k}`")).collect();
    if !unknown.is_empty() {
        let names: Vec<&str> = properties.map(|p| p.keys().map(String::as_str).collect()).unwrap_or_default();
        let s = if unknown.len() == 1 { "" } else { "s" };
        return Err(format!(
            "unknown argument{s} {} for tool `{tool}`; its arguments are: {}",
            unknown.join(", "),
            names.join(", ")
        ));
    }
    for (name, value) in args.iter().filter(|(_, v)| !v.is_null()) {
        let types = known(name).and_then(|p| p.get("type")).map(type_names).unwrap_or_default();
        if !types.is_empty() && !types.iter().any(|t| has_type(value, t)) {
            let got = excerpt(value);
            return Err(format!(
                "argument `{name}` of tool `{tool}` must be {}, got {} {got}",
                types.iter().map(|t| article(t)).collect::<Vec<_>>().join(" or "),
                json_type(value)
            ));
        }
    }
    Ok(())
}

/// The type names of a schema's `type` (a name or a list of names).
fn type_names(t: &Value) -> Vec<String> {
    match t {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        _ => Vec::new(),
    }
}

/// Whether `v` is of JSON schema type `t` (`integer`: a number without a fractional part).
fn has_type(v: &Value, t: &str) -> bool {
    match t {
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "null" => v.is_null(),
        _ => true,
    }
}

/// `v`'s JSON type with its article, for messages: `a string`, `an object`, `null`.
pub(crate) fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn article(t: &str) -> String {
    match t {
        "integer" | "array" | "object" => format!("an {t}"),
        _ => format!("a {t}"),
    }
}

/// The value as JSON, cut to 60 characters.
fn excerpt(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec() -> ToolSpec {
        ToolSpec {
            name: "t".into(),
            description: String::new(),
            parameters: json!({"type": "object", "properties": {
                "code": {"type": "string"}, "k": {"type": "integer"}, "x": {"type": ["number", "string"]}}}),
        }
    }

    #[test]
    fn known_names_of_the_right_type_pass() {
        let ok = [json!({}), json!({"code": "a", "k": 3, "x": 0.5}), json!({"k": 3.0, "x": "s"}), json!({"k": null})];
        for args in ok {
            assert_eq!(check_arguments(&spec(), &args), Ok(()), "{args}");
        }
    }

    #[test]
    fn unknown_names_are_listed_with_the_known_ones() {
        let err = check_arguments(&spec(), &json!({"code": "a", "kk": 3})).unwrap_err();
        assert_eq!(err, "unknown argument `kk` for tool `t`; its arguments are: code, k, x");
        let err = check_arguments(&spec(), &json!({"a": 1, "b": 2})).unwrap_err();
        assert!(err.starts_with("unknown arguments `a`, `b` for tool `t`"), "{err}");
    }

    #[test]
    fn wrong_types_name_the_argument_and_both_types() {
        let err = check_arguments(&spec(), &json!({"k": "3"})).unwrap_err();
        assert_eq!(err, r#"argument `k` of tool `t` must be an integer, got a string "3""#);
        let err = check_arguments(&spec(), &json!({"k": 2.5})).unwrap_err();
        assert_eq!(err, "argument `k` of tool `t` must be an integer, got a number 2.5");
        let err = check_arguments(&spec(), &json!({"x": [1]})).unwrap_err();
        assert_eq!(err, "argument `x` of tool `t` must be a number or a string, got an array [1]");
        let err = check_arguments(&spec(), &json!({"k": "x".repeat(100)})).unwrap_err();
        assert!(err.ends_with("…"), "{err}");
        let err = check_arguments(&spec(), &json!([1])).unwrap_err();
        assert_eq!(err, "the arguments of `t` must be a JSON object, got an array");
    }
}
