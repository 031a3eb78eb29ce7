//! From YAML values to JSON and text: field values as strings or lists,
//! unknown keys as JSON, and `strict_json` for hosts that need a header
//! JSON can carry exactly.

use super::count_aliases;
use super::fast::plain_text;
use super::split::split;
use super::split::SplitError;
use super::MAX_ALIASES;
use super::MAX_FRONTMATTER_BYTES;
use serde_yaml_ng::Value;
use std::collections::BTreeMap;

/// Text of a scalar (strings, numbers, booleans); `None` for null,
/// sequences and maps.
pub(super) fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Tagged(tagged) => scalar_text(&tagged.value),
        _ => None,
    }
}

/// A value without its YAML tag.
pub(super) fn untagged(value: &Value) -> &Value {
    match value {
        Value::Tagged(tagged) => untagged(&tagged.value),
        other => other,
    }
}

/// The items of a list of scalars, as text; `None` for anything else.
pub(super) fn list_of_text(value: &Value) -> Option<Vec<String>> {
    match untagged(value) {
        Value::Sequence(items) => items.iter().map(scalar_text).collect(),
        _ => None,
    }
}

/// A JSON value as one line of text: strings as they are, lists of
/// scalars joined with `, `, anything else as compact JSON.
pub fn json_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(items)
            if items.iter().all(|i| !i.is_array() && !i.is_object()) =>
        {
            items
                .iter()
                .map(|i| match i {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
                .join(", ")
        }
        other => other.to_string(),
    }
}

/// `text` written as a YAML scalar that reads back as exactly this text:
/// plain when YAML would take it as a string, else double-quoted.
pub fn yaml_scalar(text: &str) -> String {
    let plain = plain_text(text) == Some(text)
        && !text.is_empty()
        && !text.ends_with([' ', '\t'])
        && !text.contains(['\n', '\r', '"', '\''])
        && !matches!(text, "~" | "null" | "Null" | "NULL");
    if plain {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

pub(super) fn value_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Sequence(_) => "list",
        Value::Mapping(_) => "map",
        Value::Tagged(_) => "tagged value",
    }
}

/// Convert YAML into JSON for display and `--json` output. Map keys become
/// strings; maps come out in sorted key order so output is stable.
pub fn to_json(value: &Value) -> serde_json::Value {
    match value {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into()
            } else if let Some(u) = n.as_u64() {
                u.into()
            } else {
                n.as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map(serde_json::Value::Number)
                    .unwrap_or_else(|| serde_json::Value::String(n.to_string()))
            }
        }
        Value::String(s) => serde_json::Value::String(s.clone()),
        Value::Sequence(items) => serde_json::Value::Array(items.iter().map(to_json).collect()),
        Value::Mapping(map) => {
            let sorted: BTreeMap<String, serde_json::Value> = map
                .iter()
                .map(|(k, v)| {
                    (
                        scalar_text(k).unwrap_or_else(|| format!("{k:?}")),
                        to_json(v),
                    )
                })
                .collect();
            serde_json::Value::Object(sorted.into_iter().collect())
        }
        Value::Tagged(tagged) => to_json(&tagged.value),
    }
}

/// Why `strict_json` refused a file: what a strict YAML host would not read
/// the way skilldex does.
#[derive(Debug, thiserror::Error)]
pub enum StrictJsonError {
    #[error("the file is empty")]
    Empty,
    #[error("the file has no front matter")]
    Missing,
    #[error("the front matter opened on line {open_line} is never closed")]
    Unterminated { open_line: u32 },
    #[error("blank lines come before the opening `---`")]
    LateStart,
    #[error("the front matter is too large")]
    TooLarge,
    #[error("the front matter uses too many YAML aliases")]
    TooManyAliases,
    #[error("the front matter nests brackets too deeply")]
    TooDeep,
    /// The YAML error is part of the message (printed once).
    #[error("the front matter is not strict YAML ({0})")]
    Yaml(serde_yaml_ng::Error),
    #[error("the front matter is not a map of keys")]
    NotAMap,
    #[error("the front matter has a key that is not a string: {0}")]
    KeyNotText(String),
    #[error("`{0}` holds a map whose keys are not all strings")]
    NestedKeyNotText(String),
    #[error(
        "`{key}` holds `{number}`, a YAML float that JSON cannot carry — quote it to make it text"
    )]
    NonFinite { key: String, number: String },
}

/// The front matter of `text` as a JSON object, read the way a strict YAML
/// host reads it: no repair of unquoted `: `, string keys only.
/// The MCP Skills extension serves this next to the file, and hosts compare
/// the two field by field, so anything a strict reader would see
/// differently is an error here.
pub fn strict_json(
    text: &str,
) -> Result<serde_json::Map<String, serde_json::Value>, StrictJsonError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let split = split(text).map_err(|e| match e {
        SplitError::Empty => StrictJsonError::Empty,
        SplitError::Missing => StrictJsonError::Missing,
        SplitError::Unterminated { open_line } => StrictJsonError::Unterminated { open_line },
    })?;
    if split.late_start {
        return Err(StrictJsonError::LateStart);
    }
    if split.yaml.len() > MAX_FRONTMATTER_BYTES {
        return Err(StrictJsonError::TooLarge);
    }
    if count_aliases(split.yaml) > MAX_ALIASES {
        return Err(StrictJsonError::TooManyAliases);
    }
    if crate::parse::bounds::check_flow_nesting(split.yaml).is_err() {
        return Err(StrictJsonError::TooDeep);
    }
    let value: Value = serde_yaml_ng::from_str(split.yaml).map_err(StrictJsonError::Yaml)?;
    let Value::Mapping(map) = value else {
        return Err(StrictJsonError::NotAMap);
    };
    let mut out = serde_json::Map::new();
    for (key, value) in &map {
        let Value::String(key) = key else {
            return Err(StrictJsonError::KeyNotText(format!("{key:?}")));
        };
        if contains_non_string_keys(value) {
            return Err(StrictJsonError::NestedKeyNotText(key.clone()));
        }
        if let Some(number) = non_finite_number(value) {
            return Err(StrictJsonError::NonFinite {
                key: key.clone(),
                number,
            });
        }
        out.insert(key.clone(), to_json(value));
    }
    Ok(out)
}

/// The first infinity or NaN in `value`, as YAML writes it.
pub(super) fn non_finite_number(value: &Value) -> Option<String> {
    match value {
        Value::Number(n) if n.is_infinite() || n.is_nan() => Some(n.to_string()),
        Value::Mapping(map) => map.values().find_map(non_finite_number),
        Value::Sequence(items) => items.iter().find_map(non_finite_number),
        Value::Tagged(tagged) => non_finite_number(&tagged.value),
        _ => None,
    }
}

pub(super) fn contains_non_string_keys(value: &Value) -> bool {
    match value {
        Value::Mapping(map) => map
            .iter()
            .any(|(k, v)| !matches!(k, Value::String(_)) || contains_non_string_keys(v)),
        Value::Sequence(items) => items.iter().any(contains_non_string_keys),
        Value::Tagged(tagged) => contains_non_string_keys(&tagged.value),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_json_refuses_floats_json_cannot_carry() {
        let error = strict_json("---\nname: a\ndescription: d\nlim: .inf\n---\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("`lim`"), "{error}");
        assert!(error.contains("JSON cannot carry"), "{error}");
        assert!(error.contains("quote it"), "{error}");
        let error = strict_json("---\nname: a\ndescription: d\nmetadata:\n  x: [1, .nan]\n---\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("`metadata`"), "{error}");
        let ok = strict_json("---\nname: a\ndescription: d\nlim: \".inf\"\nn: 1.5\n---\n").unwrap();
        assert_eq!(ok["lim"], ".inf");
        assert_eq!(ok["n"], 1.5);
    }
}
