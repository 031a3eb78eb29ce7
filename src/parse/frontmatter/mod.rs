//! Front matter: split a Markdown file into its YAML header and body, and
//! read the header into typed fields.
//!
//! This is the only file that touches the YAML library. It owns the rules
//! that make real-world skills load: a UTF-8 byte-order mark is skipped, CRLF
//! works, delimiters are `---` lines (a `---` inside a value is text), and the
//! most common breakage — an unquoted value containing `: ` — is repaired by
//! quoting the value and retrying, with a warning; a known key indented under
//! the previous value is moved back to the margin, with a warning, instead of
//! being folded into that value. Aliases are counted before parsing so an
//! alias bomb costs nothing. A line scan of the parsed header reports plain
//! values that YAML 1.1 hosts (PyYAML) read differently from YAML 1.2.
//!
//! Why not `gray_matter`: it does not skip a BOM, its body offsets do not map
//! to file lines, and it brings a second YAML stack. Splitting is a few lines
//! of line-anchored scanning; the YAML itself goes to `serde_yaml_ng`, the
//! maintained drop-in for the archived `serde_yaml`.

use fast::simple_header;
use fast::Header;
use json::list_of_text;
use json::scalar_text;
use json::untagged;
use json::value_kind;
use positions::yaml_error;
use repair::quote_values;
use repair::scan_layout;
use repair::Layout;
use yaml11::yaml11_findings;

use crate::entry::{Code, Position};
use serde_yaml_ng::Value;
use std::collections::BTreeMap;

/// Front matter larger than this is refused: no honest header needs it, and
/// the YAML parser's cost grows with it.
pub const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

/// More alias references than this in one header are refused before parsing.
pub const MAX_ALIASES: usize = 64;

/// A finding produced while parsing one file, positioned in that file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub code: Code,
    pub position: Position,
    pub message: String,
}

impl Finding {
    pub fn new(code: Code, position: Position, message: impl Into<String>) -> Self {
        Finding {
            code,
            position,
            message: message.into(),
        }
    }
}

mod fast;
mod json;
mod positions;
mod repair;
mod split;
mod yaml11;

pub use json::{json_text, strict_json, to_json, yaml_scalar, StrictJsonError};
pub use split::{split, Split, SplitError};

/// The fields of a skill header, typed where the format gives a type.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fields {
    pub name: Option<String>,
    pub description: Option<String>,
    pub license: Option<String>,
    pub compatibility: Option<String>,
    pub allowed_tools: Option<String>,
    pub metadata: BTreeMap<String, String>,
    /// Keys the format does not define, as JSON.
    pub extra: BTreeMap<String, serde_json::Value>,
    /// Where each top-level key's value starts.
    pub positions: BTreeMap<String, Position>,
}

impl Fields {
    pub fn position(&self, key: &str) -> Position {
        self.positions.get(key).copied().unwrap_or(Position::START)
    }
}

/// The keys the Agent Skills specification defines.
pub const SPEC_KEYS: &[&str] = &[
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// Keys that well-known hosts (Claude Code, Codex) read. They are kept and
/// reported more gently than keys nobody defines.
pub const CLIENT_KEYS: &[&str] = &[
    "agent",
    "argument-hint",
    "arguments",
    "background",
    "context",
    "disable-model-invocation",
    "disallowed-tools",
    "effort",
    "hooks",
    "model",
    "paths",
    "shell",
    "user-invocable",
    "version",
    "when_to_use",
];

/// Parse the YAML header. Returns the fields (or `None` when the header
/// cannot be read) and the findings, positioned in the file.
pub fn parse_fields(split: &Split<'_>) -> (Option<Fields>, Vec<Finding>) {
    let mut findings = Vec::new();
    let at = |line: u32, column: u32| Position {
        line: split.yaml_line + line.saturating_sub(1),
        column: column.max(1),
    };
    if split.yaml.len() > MAX_FRONTMATTER_BYTES {
        findings.push(Finding::new(
            Code::FrontmatterTooLarge,
            at(1, 1),
            format!(
                "front matter is {} bytes; the limit is {} — keep only name, description and short fields in it and move the rest into the body",
                split.yaml.len(),
                MAX_FRONTMATTER_BYTES
            ),
        ));
        return (None, findings);
    }
    let aliases = count_aliases(split.yaml);
    if aliases > MAX_ALIASES {
        findings.push(Finding::new(
            Code::YamlAliasLimit,
            at(1, 1),
            format!(
                "front matter uses {aliases} YAML aliases (`*name`); the limit is {MAX_ALIASES} — write the values out instead of referencing anchors"
            ),
        ));
        return (None, findings);
    }
    if let Err(super::bounds::TooDeep { line, column }) =
        super::bounds::check_flow_nesting(split.yaml)
    {
        findings.push(Finding::new(
            Code::YamlInvalid,
            at(line as u32, column as u32),
            super::bounds::flow_nesting_message(),
        ));
        return (None, findings);
    }
    let (parsed, mut layout) = match simple_header(split.yaml) {
        Some((pairs, keys)) => (
            Ok(Header::Pairs(pairs)),
            Layout {
                keys,
                ..Layout::default()
            },
        ),
        None => (
            serde_yaml_ng::from_str::<Value>(split.yaml).map(Header::Value),
            scan_layout(split.yaml),
        ),
    };
    let value = match parsed {
        Ok(value) => value,
        Err(original) => match repair::repair(split.yaml, &layout) {
            Some(repaired) => match serde_yaml_ng::from_str::<Value>(&repaired.text) {
                Ok(value) => {
                    for (code, line, column, message) in repaired.notes {
                        findings.push(Finding::new(code, at(line, column), message));
                    }
                    if let Some(keys) = repaired.keys {
                        layout.keys = keys;
                    }
                    Header::Value(value)
                }
                Err(_) => {
                    // Read as keys, the indented lines break the header
                    // (a key twice, say): read them as part of the value
                    // before, quoting it, as the header was written.
                    let as_written = (!layout.indented_keys.is_empty())
                        .then(|| quote_values(split.yaml, &layout))
                        .flatten()
                        .and_then(|(text, notes)| {
                            serde_yaml_ng::from_str::<Value>(&text)
                                .ok()
                                .map(|value| (value, notes))
                        });
                    match as_written {
                        Some((value, notes)) => {
                            for (code, line, column, message) in notes {
                                findings.push(Finding::new(code, at(line, column), message));
                            }
                            Header::Value(value)
                        }
                        None => {
                            findings.push(yaml_error(&original, split, &at));
                            // An indented key is still worth naming: it is
                            // usually why the header does not parse.
                            for (code, line, column, message) in repaired.notes {
                                if code == Code::YamlIndentedKey {
                                    findings.push(Finding::new(code, at(line, column), message));
                                }
                            }
                            return (None, findings);
                        }
                    }
                }
            },
            None => {
                findings.push(yaml_error(&original, split, &at));
                return (None, findings);
            }
        },
    };
    let map: Vec<(Value, Value)> = match value {
        Header::Pairs(pairs) => pairs,
        Header::Value(Value::Mapping(map)) => map.into_iter().collect(),
        Header::Value(Value::Null) => {
            findings.push(Finding::new(
                Code::YamlNotMapping,
                at(1, 1),
                "front matter is empty — add `name:` and `description:` lines between the `---` delimiters",
            ));
            return (None, findings);
        }
        Header::Value(other) => {
            findings.push(Finding::new(
                Code::YamlNotMapping,
                at(1, 1),
                format!(
                    "front matter is a YAML {}, not a mapping — write `key: value` lines such as `name:` and `description:`",
                    value_kind(&other)
                ),
            ));
            return (None, findings);
        }
    };

    for (line, column, message) in yaml11_findings(split.yaml).unwrap_or_default() {
        findings.push(Finding::new(Code::Yaml11Value, at(line, column), message));
    }

    for (key, line, column) in &layout.comment_values {
        findings.push(Finding::new(
            Code::YamlCommentInValue,
            at(*line, *column),
            format!(
                "the value of `{key}` contains ` #`, which starts a YAML comment: the text after it was dropped — wrap the value in quotes"
            ),
        ));
    }

    let mut fields = Fields::default();
    for (key, position) in layout.keys {
        fields
            .positions
            .insert(key, at(position.line, position.column));
    }
    for (key, value) in map {
        let key = match key {
            Value::String(s) => s,
            other => scalar_text(&other).unwrap_or_else(|| format!("{other:?}")),
        };
        let position = fields.position(&key);
        match key.as_str() {
            // Claude Code reads a YAML list of tool names too (and its own
            // plugins write one): kept, joined the way the format writes it.
            "allowed-tools" if list_of_text(&value).is_some() => {
                let tools = list_of_text(&value).unwrap_or_default().join(" ");
                findings.push(Finding::new(
                    Code::AllowedToolsList,
                    position,
                    format!(
                        "`allowed-tools` is a YAML list; the Agent Skills format wants one space-separated string (Claude Code reads both) — write `allowed-tools: {}`",
                        yaml_scalar(&tools)
                    ),
                ));
                fields.allowed_tools = Some(tools);
            }
            "name" | "description" | "license" | "compatibility" | "allowed-tools" => {
                let text = match value {
                    Value::Null => None,
                    // Owned strings move; only other scalars are formatted.
                    Value::String(text) => Some(text),
                    ref other => match scalar_text(other) {
                        Some(text) => Some(text),
                        None => {
                            findings.push(Finding::new(
                                Code::FieldType,
                                position,
                                format!(
                                    "`{key}` is a YAML {}; it must be text — write it as a single string",
                                    value_kind(other)
                                ),
                            ));
                            None
                        }
                    },
                };
                match key.as_str() {
                    "name" => fields.name = text,
                    "description" => fields.description = text,
                    "license" => fields.license = text,
                    "compatibility" => fields.compatibility = text,
                    _ => fields.allowed_tools = text,
                }
            }
            "metadata" => match &value {
                Value::Mapping(entries) => {
                    // Values that are not text: lists and maps (which have
                    // no text form) and numbers and booleans (which do).
                    let mut bad = Vec::new();
                    let mut typed = Vec::new();
                    for (k, v) in entries {
                        let k = scalar_text(k).unwrap_or_else(|| format!("{k:?}"));
                        match scalar_text(v) {
                            Some(text) => {
                                if matches!(untagged(v), Value::Number(_) | Value::Bool(_)) {
                                    typed.push(format!("`{k}: {}`", yaml_scalar(&text)));
                                }
                                fields.metadata.insert(k, text);
                            }
                            None => bad.push((k, to_json(v))),
                        }
                    }
                    if !bad.is_empty() {
                        let names: Vec<&str> = bad.iter().map(|(k, _)| k.as_str()).collect();
                        let written: Vec<String> = bad
                            .iter()
                            .map(|(k, v)| format!("`{k}: {}`", yaml_scalar(&json_text(v))))
                            .collect();
                        findings.push(Finding::new(
                            Code::MetadataNotStringMap,
                            position,
                            format!(
                                "`metadata` values must be text; {} {} not — write {} as one string: {}",
                                names.join(", "),
                                if names.len() == 1 { "is" } else { "are" },
                                if names.len() == 1 { "it" } else { "each" },
                                written.join(", ")
                            ),
                        ));
                        fields.extra.insert("metadata".into(), to_json(&value));
                    } else if !typed.is_empty() {
                        findings.push(Finding::new(
                            Code::MetadataValueNotText,
                            position,
                            format!(
                                "`metadata` values are text, and YAML reads {} as {} — quote {}: {}",
                                if typed.len() == 1 { "this one" } else { "these" },
                                if typed.len() == 1 { "a number or a boolean" } else { "numbers or booleans" },
                                if typed.len() == 1 { "it" } else { "them" },
                                typed.join(", ")
                            ),
                        ));
                    }
                }
                Value::Null => {}
                other => {
                    findings.push(Finding::new(
                        Code::MetadataNotStringMap,
                        position,
                        format!(
                            "`metadata` is a YAML {}; it must be a map of text keys to text values",
                            value_kind(other)
                        ),
                    ));
                    fields.extra.insert("metadata".into(), to_json(other));
                }
            },
            _ => {
                fields.extra.insert(key, to_json(&value));
            }
        }
    }
    (Some(fields), findings)
}

/// 1-based column in characters of byte offset `byte` in `line`.
fn char_column(line: &str, byte: usize) -> u32 {
    line.get(..byte).map_or(byte, |s| s.chars().count()) as u32 + 1
}

/// Count `*alias` references outside quotes and comments. Over-counting a
/// `*` inside a plain scalar is harmless: the limit is generous.
fn count_aliases(yaml: &str) -> usize {
    let mut count = 0;
    for line in yaml.lines() {
        let bytes = line.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'*' {
                let prev_ok = i == 0 || matches!(bytes[i - 1], b' ' | b'[' | b',' | b'{' | b'\t');
                let next_ok = bytes
                    .get(i + 1)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-');
                if prev_ok && next_ok {
                    count += 1;
                }
            }
        }
    }
    count
}

/// Read the front matter of any Markdown file and return its `description`
/// (used for namespace README files and sub-skills). Silent on errors: the
/// caller falls back to a default.
pub fn description_of(text: &str) -> Option<String> {
    let split = split(text.strip_prefix('\u{feff}').unwrap_or(text)).ok()?;
    let (fields, _) = parse_fields(&split);
    fields?.description.filter(|d| !d.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(text: &str) -> (Option<Fields>, Vec<Finding>) {
        let split = split(text).expect("split");
        parse_fields(&split)
    }

    /// An indented line that would be a second `name` when read as a key
    /// is read as part of the description before it, as written.
    #[test]
    fn an_indented_key_that_would_repeat_a_key_stays_text() {
        let (fields, findings) =
            fields("---\nname: o\ndescription: Do o. Use when testing\n  name: the field.\n---\n");
        let fields = fields.expect("the header loads");
        assert_eq!(
            crate::entry::one_line(fields.description.as_deref().unwrap()),
            "Do o. Use when testing name: the field."
        );
        assert!(
            findings.iter().any(|f| f.code == Code::YamlRepaired),
            "{findings:?}"
        );
        assert!(
            !findings.iter().any(|f| f.code == Code::YamlIndentedKey),
            "{findings:?}"
        );
    }

    #[test]
    fn repairs_unquoted_colon() {
        let (f, findings) =
            fields("---\nname: pdf\ndescription: Use this skill when: the user asks\n---\n");
        let f = f.unwrap();
        assert_eq!(
            f.description.as_deref(),
            Some("Use this skill when: the user asks")
        );
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].code, Code::YamlRepaired);
        assert_eq!(
            findings[0].position,
            Position {
                line: 3,
                column: 33
            }
        );
    }

    #[test]
    fn repairs_colon_in_continuation_line() {
        let (f, findings) = fields("---\ndescription: first\n  then: second\n---\n");
        assert_eq!(
            f.unwrap().description.as_deref(),
            Some("first then: second")
        );
        assert_eq!(findings[0].code, Code::YamlRepaired);
    }

    #[test]
    fn colon_in_continuation_line_points_at_that_line() {
        let (_, findings) = fields("---\ndescription: first\n  then: second\n---\n");
        assert_eq!(findings[0].position, Position { line: 3, column: 3 });
        assert!(
            findings[0].message.contains("reads like a key `then:`"),
            "{}",
            findings[0].message
        );
    }

    #[test]
    fn indented_known_key_is_read_as_a_key_with_a_warning() {
        let (f, findings) =
            fields("---\nname: foo\ndescription: Use when x\n  license: MIT\n---\n");
        let f = f.unwrap();
        assert_eq!(f.description.as_deref(), Some("Use when x"));
        assert_eq!(f.license.as_deref(), Some("MIT"));
        assert_eq!(
            f.position("license"),
            Position {
                line: 4,
                column: 12
            }
        );
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].code, Code::YamlIndentedKey);
        assert_eq!(findings[0].position, Position { line: 4, column: 3 });
        let message = &findings[0].message;
        assert!(message.contains("`license` is indented"), "{message}");
        assert!(message.contains("value of `description`"), "{message}");
        assert!(message.contains("remove the spaces"), "{message}");

        // The worse variant: the description would vanish into `name`.
        let (f, findings) = fields("---\nname: x\n  description: Use when y\n---\n");
        let f = f.unwrap();
        assert_eq!(f.name.as_deref(), Some("x"));
        assert_eq!(f.description.as_deref(), Some("Use when y"));
        assert_eq!(
            f.position("description"),
            Position {
                line: 3,
                column: 16
            }
        );
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].position, Position { line: 3, column: 3 });
        assert!(findings[0].message.contains("value of `name`"));

        // After a quoted value, and with a `: ` to quote in the moved key.
        let (f, findings) =
            fields("---\nname: b\ndescription: \"Use when x\"\n  license: MIT: y\n---\n");
        let f = f.unwrap();
        assert_eq!(f.license.as_deref(), Some("MIT: y"));
        let got: Vec<_> = findings.iter().map(|f| (f.code, f.position)).collect();
        assert_eq!(
            got,
            [
                (Code::YamlIndentedKey, Position { line: 4, column: 3 }),
                (
                    Code::YamlRepaired,
                    Position {
                        line: 4,
                        column: 15
                    }
                ),
            ]
        );
    }

    #[test]
    fn block_scalars() {
        let (f, _) = fields("---\ndescription: >-\n  one\n  two\n---\n");
        assert_eq!(f.unwrap().description.as_deref(), Some("one two"));
        let (f, _) = fields("---\ndescription: |\n  one\n  two\n---\n");
        assert_eq!(f.unwrap().description.as_deref(), Some("one\ntwo\n"));
    }

    #[test]
    fn alias_bomb_is_refused_before_parsing() {
        let mut yaml = String::from("---\na: &a [x, x]\n");
        for i in 0..40 {
            yaml.push_str(&format!("b{i}: &b{i} [*a, *a]\n"));
        }
        yaml.push_str("---\n");
        let (f, findings) = fields(&yaml);
        assert!(f.is_none());
        assert_eq!(findings[0].code, Code::YamlAliasLimit);
    }

    #[test]
    fn tab_indentation_is_reported_with_position() {
        let (f, findings) = fields("---\nname: a\n\tdescription: x\n---\n");
        assert!(f.is_none());
        assert_eq!(findings[0].code, Code::YamlInvalid);
        assert_eq!(findings[0].position.line, 3);
        assert!(
            findings[0].message.contains("tabs"),
            "{}",
            findings[0].message
        );
    }

    #[test]
    fn unclosed_quote_points_at_the_quote() {
        let (f, findings) = fields("---\nname: a\ndescription: \"unclosed\nlicense: MIT\n---\n");
        assert!(f.is_none());
        assert_eq!(
            findings[0].position,
            Position {
                line: 3,
                column: 14
            }
        );
        assert!(
            findings[0].message.contains("close the quote"),
            "{}",
            findings[0].message
        );
    }

    #[test]
    fn duplicate_keys_point_at_the_second_occurrence() {
        let (f, findings) = fields(
            "---\nname: d\nlicense: MIT\ncompatibility: x\ndescription: a\nmetadata:\n  k: v\ndescription: b\n---\n",
        );
        assert!(f.is_none());
        assert_eq!(findings[0].code, Code::YamlInvalid);
        assert_eq!(findings[0].position, Position { line: 8, column: 1 });
        assert!(
            findings[0]
                .message
                .contains("`description` is already set on line 5; keep one of the two"),
            "{}",
            findings[0].message
        );
        let (_, findings) = fields("---\nname: d\nmetadata:\n  k: v\n  j: w\n  \"k\": x\n---\n");
        assert_eq!(findings[0].position, Position { line: 6, column: 3 });
        assert!(
            findings[0].message.contains("line 4"),
            "{}",
            findings[0].message
        );
        let (_, findings) = fields(
            "---\nname: d\nmetadata:\n  a:\n    k: v\n    deeper:\n      k: 1\n    k: x\n---\n",
        );
        assert_eq!(findings[0].position, Position { line: 8, column: 5 });
        let (_, findings) = fields("---\nname: d\nlist:\n  - a: 1\n    b: 2\n    a: 3\n---\n");
        assert_eq!(findings[0].position, Position { line: 6, column: 5 });
        // A flow map keeps the library's position (its opening brace).
        let (_, findings) = fields("---\nname: d\nx: {a: 1, a: 2}\n---\n");
        assert_eq!(findings[0].code, Code::YamlInvalid);
        assert_eq!(findings[0].position, Position { line: 3, column: 4 });
    }

    #[test]
    fn bad_escape_points_at_the_escape_and_says_so() {
        let (f, findings) = fields("---\nname: d\ndescription: \"Use when \\q\"\n---\n");
        assert!(f.is_none());
        let message = &findings[0].message;
        assert_eq!(
            findings[0].position,
            Position {
                line: 3,
                column: 24
            }
        );
        assert!(!message.contains("close the quote"), "{message}");
        assert!(message.contains("escape"), "{message}");
        assert!(message.contains("single quotes"), "{message}");
    }

    #[test]
    fn comment_in_value_warns() {
        let (f, findings) = fields("---\ndescription: Fix issue #42 fast\n---\n");
        assert_eq!(f.unwrap().description.as_deref(), Some("Fix issue"));
        assert_eq!(findings[0].code, Code::YamlCommentInValue);
    }

    #[test]
    fn unknown_keys_are_kept() {
        let (f, _) = fields("---\ndescription: d\nfoo: [1, 2]\nbar: {x: y}\n---\n");
        let f = f.unwrap();
        assert_eq!(f.extra["foo"], serde_json::json!([1, 2]));
        assert_eq!(f.extra["bar"], serde_json::json!({"x": "y"}));
    }
}
