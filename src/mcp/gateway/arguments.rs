//! The arguments of a proxied call, fitted to the tool's schema before
//! they go upstream, the way skilldex's own tools take theirs:
//!
//! - **null means absent.** A host in OpenAI strict mode lists every
//!   property as required and sends `null` for the optional ones it does
//!   not use; an upstream that expects a string would refuse the call. A
//!   `null` for a property whose schema does not admit null is dropped.
//! - **Unknown arguments are ignored.** Hosts add their own (Gemini CLI's
//!   `wait_for_previous`); an argument the schema does not declare is
//!   dropped unless the schema allows more (`additionalProperties` true or
//!   a schema). Only one that looks like a misspelling of a declared one is
//!   worth a word to the model (see [`Fitted::note`]).

use serde_json::{Map, Value};

/// Arguments fitted to a schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    pub arguments: Option<Map<String, Value>>,
    /// A sentence for the model when an ignored argument looks like a
    /// misspelling of a declared one.
    pub note: Option<String>,
}

/// Fit `arguments` to the input schema `schema` of `tool`.
pub fn fit(tool: &str, schema: &Value, arguments: Option<Map<String, Value>>) -> Fitted {
    let Some(mut map) = arguments else {
        return Fitted {
            arguments: None,
            note: None,
        };
    };
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Fitted {
            arguments: Some(map),
            note: None,
        };
    };
    let open = matches!(
        schema.get("additionalProperties"),
        Some(Value::Bool(true)) | Some(Value::Object(_))
    );
    let mut misspelt = Vec::new();
    map.retain(|key, value| match properties.get(key) {
        Some(property) => !value.is_null() || admits_null(property),
        None if open => true,
        None => {
            if let Some(meant) = closest(key, properties.keys()) {
                let shown: String = key.chars().take(64).collect();
                misspelt.push(format!("ignored `{shown}`; did you mean `{meant}`?"));
            }
            false
        }
    });
    let note = (!misspelt.is_empty()).then(|| {
        let known: Vec<&str> = properties.keys().map(String::as_str).collect();
        format!(
            "note from skilldex: {} — the arguments of {tool} are {}",
            misspelt.join("; "),
            known.join(", ")
        )
    });
    Fitted {
        arguments: Some(map),
        note,
    }
}

/// Whether a property's schema accepts `null`.
fn admits_null(schema: &Value) -> bool {
    let Some(object) = schema.as_object() else {
        // `true` (or a schema that is not an object) admits anything.
        return schema != &Value::Bool(false);
    };
    match object.get("type") {
        Some(Value::String(t)) if t == "null" => return true,
        Some(Value::Array(types)) if types.iter().any(|t| t == "null") => return true,
        Some(_) => return false,
        None => {}
    }
    if let Some(Value::Array(values)) = object.get("enum") {
        return values.iter().any(Value::is_null);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = object.get(key) {
            return options.iter().any(admits_null);
        }
    }
    // No type at all: anything goes.
    true
}

/// The declared name `key` most likely meant: the same letters but for
/// case and separators, or at most one edit in three letters (two at most).
fn closest<'a>(key: &str, known: impl Iterator<Item = &'a String>) -> Option<&'a str> {
    let folded = |name: &str| -> String {
        name.chars()
            .filter(|c| !matches!(c, '_' | '-'))
            .flat_map(char::to_lowercase)
            .collect()
    };
    let key = folded(key);
    known
        .map(|name| (crate::text::edit_distance(&key, &folded(name)), name))
        .filter(|(distance, name)| *distance <= (name.chars().count() / 3).clamp(1, 2))
        .min_by_key(|(distance, name)| (*distance, name.len()))
        .map(|(_, name)| name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(value: Value) -> Option<Map<String, Value>> {
        value.as_object().cloned()
    }

    #[test]
    fn nulls_and_unknown_arguments_are_dropped_misspellings_noted() {
        let schema = json!({"type": "object", "properties": {
            "id": {"type": "string"}, "note": {"type": "string"},
            "limit": {"type": ["integer", "null"]}}, "required": ["id"]});
        let fitted = fit(
            "office__ticket_create",
            &schema,
            map(json!({"id": "t-1", "note": null, "limit": null, "wait_for_previous": true})),
        );
        assert_eq!(fitted.arguments, map(json!({"id": "t-1", "limit": null})));
        assert_eq!(
            fitted.note, None,
            "a host's own argument passes without a word"
        );
        let fitted = fit("office__ticket_create", &schema, map(json!({"idd": "t-1"})));
        assert_eq!(fitted.arguments, map(json!({})));
        let note = fitted.note.unwrap();
        assert!(note.contains("ignored `idd`; did you mean `id`?"), "{note}");
        // An open schema keeps what it does not declare.
        let open = json!({"type": "object", "properties": {}, "additionalProperties": true});
        let fitted = fit("t", &open, map(json!({"extra": 1})));
        assert_eq!(fitted.arguments, map(json!({"extra": 1})));
        assert_eq!(fit("t", &schema, None).arguments, None);
    }

    #[test]
    fn a_strict_call_of_a_loaded_tool_reaches_upstream_as_a_plain_one() {
        // A host converts the loaded definition to strict mode (every
        // property required, optional ones nullable) and fills the unused
        // ones with null: upstream gets what a plain call would send.
        let schema = json!({"type": "object", "properties": {
            "id": {"type": "string", "description": "The id."},
            "note": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["id"]});
        let strict = crate::schema::strict_schema(&schema).unwrap();
        assert_eq!(strict["required"], json!(["id", "note", "tags"]));
        assert!(crate::schema::check_strict(&strict).is_empty());
        let call = map(json!({"id": "a", "note": null, "tags": null}));
        assert_eq!(fit("t", &schema, call).arguments, map(json!({"id": "a"})));
    }
}
