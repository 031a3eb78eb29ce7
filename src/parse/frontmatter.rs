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

use crate::model::{Code, Position};
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

/// Where the header and the body sit in the (BOM-stripped) text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split<'a> {
    /// The YAML text between the delimiters.
    pub yaml: &'a str,
    /// 1-based line of the first YAML line.
    pub yaml_line: u32,
    /// Byte offset of the body in the text.
    pub body_offset: usize,
    /// 1-based line of the first body line.
    pub body_line: u32,
    /// True when blank lines came before the opening delimiter.
    pub late_start: bool,
}

/// Why a file has no usable front matter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SplitError {
    Empty,
    Missing,
    Unterminated { open_line: u32 },
}

/// Iterate lines with their byte offsets; each line excludes its `\n` and
/// any `\r` before it.
fn lines_with_offsets(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut ends = super::markdown::line_ends(text);
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let end = ends.next().unwrap_or(text.len());
        let raw = &text[start..end];
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let item = (start, line);
        start = end;
        Some(item)
    })
}

fn is_delimiter(line: &str, closing: bool) -> bool {
    let trimmed = line.trim_end_matches([' ', '\t']);
    trimmed == "---" || (closing && trimmed == "...")
}

/// Split `text` into header and body. Delimiters must stand on their own
/// line; trailing spaces are tolerated.
pub fn split(text: &str) -> Result<Split<'_>, SplitError> {
    if text.trim().is_empty() {
        return Err(SplitError::Empty);
    }
    let mut lines = lines_with_offsets(text).enumerate();
    let mut open = None;
    for (index, (offset, line)) in lines.by_ref() {
        if line.trim().is_empty() {
            continue;
        }
        if is_delimiter(line, false) {
            open = Some((index, offset + line.len()));
        }
        break;
    }
    let Some((open_index, _)) = open else {
        return Err(SplitError::Missing);
    };
    let mut yaml_start = None;
    for (index, (offset, line)) in lines {
        if yaml_start.is_none() {
            yaml_start = Some(offset);
        }
        if is_delimiter(line, true) {
            let start = yaml_start.unwrap_or(offset);
            let body_offset = next_line_offset(text, offset);
            return Ok(Split {
                yaml: &text[start..offset],
                yaml_line: open_index as u32 + 2,
                body_offset,
                body_line: index as u32 + 2,
                late_start: open_index > 0,
            });
        }
    }
    Err(SplitError::Unterminated {
        open_line: open_index as u32 + 1,
    })
}

fn next_line_offset(text: &str, line_start: usize) -> usize {
    super::markdown::line_ends(&text[line_start..])
        .next()
        .map_or(text.len(), |end| line_start + end)
}

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
    if let Err((line, column)) = super::bounds::check_flow_nesting(split.yaml) {
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
        Err(original) => match repair(split.yaml, &layout) {
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

fn yaml_error(
    error: &serde_yaml_ng::Error,
    split: &Split<'_>,
    at: &dyn Fn(u32, u32) -> Position,
) -> Finding {
    let (mut line, mut column) = error
        .location()
        .map(|l| (l.line() as u32, l.column() as u32))
        .unwrap_or((1, 1));
    // The library appends "at line N column M" (counted inside the header)
    // and sometimes ", while scanning X at line N column M" naming where the
    // broken construct began. Keep the words, drop the header-relative
    // positions, and point at where the construct began: that is where the
    // author has to look (the opening quote, not the end of the file).
    let full = error.to_string();
    let mut message = full.clone();
    if let Some(i) = message.find(" at line ") {
        message.truncate(i);
    }
    let mut context = String::new();
    if let Some(i) = full.find(", while ") {
        let rest = &full[i + 2..];
        if let Some(j) = rest.find(" at line ") {
            context = rest[..j].to_string();
            // An unclosed quote or bracket is reported where the input ran
            // out; the place to fix is where it opened. Other errors (a tab,
            // a bad escape inside a closed quote) are where the library says.
            if let (true, Some((l, c))) = (
                message.contains("end of stream"),
                parse_line_column(&rest[j + " at line ".len()..]),
            ) {
                (line, column) = (l, c);
            }
        }
    }
    let all = format!("{message} {context}");
    let mut duplicate_hint = None;
    if let Some(key) = duplicate_key(&message) {
        // The library points at the start of the mapping that holds the
        // duplicate; the author has to look at the second occurrence.
        if let Some((first, second)) = find_duplicate(split.yaml, line, column, &key) {
            (line, column) = (second.line, second.column);
            duplicate_hint = Some(format!(
                "`{key}` is already set on line {}; keep one of the two",
                at(first.line, first.column).line
            ));
        }
    }
    let hint = if let Some(hint) = &duplicate_hint {
        hint.as_str()
    } else if message.contains("duplicate entry") {
        "remove one of the duplicate keys"
    } else if all.contains("tab") {
        "indent with spaces, not tabs"
    } else if message.contains("escape") && context.contains("quoted scalar") {
        "inside double quotes a backslash starts an escape such as `\\n` or `\\u00e9`: write `\\\\` for a backslash, or use single quotes"
    } else if all.contains("quoted scalar") && message.contains("end of stream") {
        "close the quote, or remove it"
    } else if all.contains("mapping values") {
        "quote the value: it contains `: `"
    } else if all.contains("flow") {
        "close the `[` or `{` on the same value"
    } else {
        "fix the YAML between the `---` lines"
    };
    let header_lines = split.yaml.lines().count() as u32;
    let position = if line > header_lines {
        // Errors "at end of stream" point past the header; show the closing
        // delimiter instead.
        at(header_lines + 1, 1)
    } else {
        at(line, column)
    };
    let message = if context.is_empty() {
        message
    } else {
        format!("{message}, {context}")
    };
    Finding::new(
        Code::YamlInvalid,
        position,
        format!("invalid YAML in front matter: {message} — {hint}"),
    )
}

/// The key named by a "duplicate entry with key …" message, unquoted.
fn duplicate_key(message: &str) -> Option<String> {
    let (_, key) = message.split_once("duplicate entry with key ")?;
    let key = key.trim();
    Some(
        key.strip_prefix('"')
            .and_then(|k| k.strip_suffix('"'))
            .unwrap_or(key)
            .to_string(),
    )
}

/// The first and second occurrence of `key` in the block mapping whose
/// first key is at (`line`, `column`) of the header (1-based). `None` when
/// the mapping is not a block mapping this line scan can follow (a flow
/// map `{a: 1, a: 2}`); the caller keeps the library's position then.
fn find_duplicate(yaml: &str, line: u32, column: u32, key: &str) -> Option<(Position, Position)> {
    let lines: Vec<&str> = yaml
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let start = (line as usize).checked_sub(1)?;
    // Byte offset of the mapping's column on its first line (the line may
    // start with `- ` or hold multi-byte text before it).
    let first_line = lines.get(start)?;
    let indent = first_line
        .char_indices()
        .nth(column.saturating_sub(1) as usize)
        .map(|(i, _)| i)?;
    let mut found: Vec<Position> = Vec::new();
    for (index, text) in lines.iter().enumerate().skip(start) {
        let trimmed = text.trim_start_matches(' ');
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let entry = if index == start {
            &text[indent..]
        } else {
            let this_indent = text.len() - trimmed.len();
            if this_indent < indent {
                break;
            }
            if this_indent > indent {
                continue;
            }
            trimmed
        };
        if entry_key(entry).as_deref() == Some(key) {
            found.push(Position {
                line: index as u32 + 1,
                column: char_column(text, text.len() - entry.len()),
            });
            if found.len() == 2 {
                return Some((found[0], found[1]));
            }
        }
    }
    None
}

/// The key of a block mapping entry `key: value` (quotes removed).
fn entry_key(entry: &str) -> Option<String> {
    for quote in ['"', '\''] {
        if let Some(rest) = entry.strip_prefix(quote) {
            let end = rest.find(quote)?;
            let after = rest[end + 1..].trim_start_matches(' ');
            return after.starts_with(':').then(|| rest[..end].to_string());
        }
    }
    let colon = entry
        .match_indices(':')
        .map(|(i, _)| i)
        .find(|&i| entry[i + 1..].is_empty() || entry[i + 1..].starts_with([' ', '\t']))?;
    Some(entry[..colon].trim_end().to_string())
}

/// Parse "N column M…" into (N, M).
fn parse_line_column(text: &str) -> Option<(u32, u32)> {
    let (line, rest) = text.split_once(" column ")?;
    let column: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((line.trim().parse().ok()?, column.parse().ok()?))
}

/// Where each top-level key's value starts, in header coordinates.
type KeyPositions = Vec<(String, Position)>;

/// A header as read: key/value pairs from the fast path, or the YAML
/// parser's value.
enum Header {
    Pairs(Vec<(Value, Value)>),
    Value(Value),
}

/// The fast path for the headers most skills have. It accepts only:
/// `key: text` lines whose text YAML reads literally; `key: >-` (or `>`,
/// `|`, `|-`) followed by lines at one indentation, with no blank lines,
/// no deeper indentation and no trailing spaces; and `key:` followed by
/// `  sub: text` lines at one indentation. Anything else — quotes, numbers,
/// booleans, null, indicators, `: ` or ` #` inside a value, duplicate keys,
/// deeper nesting — returns `None` and goes to the YAML parser. A unit test
/// and a property test check that both paths give the same value.
///
/// Returns the mapping and where each key's value starts.
fn simple_header(yaml: &str) -> Option<(Vec<(Value, Value)>, KeyPositions)> {
    let lines: Vec<&str> = yaml
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut pairs: Vec<(Value, Value)> = Vec::with_capacity(8);
    let mut positions = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.trim().is_empty() || line.starts_with('#') {
            i += 1;
            continue;
        }
        let (key, rest) = line.split_once(':')?;
        if !simple_key(key) {
            return None;
        }
        let value_start = key.len() + 1 + (rest.len() - rest.trim_start_matches(' ').len());
        let rest = rest.strip_prefix(' ').unwrap_or(rest);
        if !rest.is_empty() && !line[key.len() + 1..].starts_with(' ') {
            return None;
        }
        let indicator = rest.trim_matches(' ');
        let block: Vec<&str> = lines[i + 1..]
            .iter()
            .take_while(|l| l.starts_with(' '))
            .copied()
            .collect();
        let value = if indicator.is_empty() {
            // A nested map of plain values.
            if block.is_empty() {
                return None;
            }
            let indent = indentation(block[0])?;
            let mut nested = serde_yaml_ng::Mapping::new();
            for entry in &block {
                if indentation(entry)? != indent {
                    return None;
                }
                let (sub_key, sub_value) = entry[indent..].split_once(": ")?;
                if !simple_key(sub_key) {
                    return None;
                }
                let sub_value = plain_text(sub_value)?;
                let sub_key = Value::String(sub_key.to_string());
                if nested.contains_key(&sub_key) {
                    return None;
                }
                nested.insert(sub_key, Value::String(sub_value.to_string()));
            }
            Value::Mapping(nested)
        } else if matches!(indicator, ">" | ">-" | "|" | "|-") {
            if block.is_empty() {
                return None;
            }
            let indent = indentation(block[0])?;
            let mut parts = Vec::with_capacity(block.len());
            for entry in &block {
                if indentation(entry)? != indent || entry.ends_with([' ', '\t']) {
                    return None;
                }
                let text = &entry[indent..];
                if text.chars().any(non_printable) {
                    return None;
                }
                parts.push(text);
            }
            let separator = if indicator.starts_with('>') {
                " "
            } else {
                "\n"
            };
            let mut text = parts.join(separator);
            if !indicator.ends_with('-') {
                text.push('\n');
            }
            Value::String(text)
        } else {
            if !block.is_empty() {
                return None; // A plain value continued on the next lines.
            }
            Value::String(plain_text(rest)?.to_string())
        };
        if positions.iter().any(|(k, _): &(String, Position)| k == key) {
            return None;
        }
        pairs.push((Value::String(key.to_string()), value));
        positions.push((
            key.to_string(),
            Position {
                line: i as u32 + 1,
                column: char_column(line, value_start),
            },
        ));
        i += 1 + block.len();
    }
    Some((pairs, positions))
}

fn simple_key(key: &str) -> bool {
    !key.is_empty()
        && key.as_bytes()[0].is_ascii_alphabetic()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Spaces before the text of a line; `None` for tabs or a blank line.
fn indentation(line: &str) -> Option<usize> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[indent..];
    (indent > 0 && !rest.is_empty() && !rest.starts_with('\t')).then_some(indent)
}

fn non_printable(c: char) -> bool {
    (c < ' ' && c != '\t')
        || (('\u{7f}'..='\u{9f}').contains(&c) && c != '\u{85}')
        || c == '\u{feff}'
        || c == '\u{fffe}'
        || c == '\u{ffff}'
}

/// `value` when YAML would read it as exactly this text, else `None`.
fn plain_text(value: &str) -> Option<&str> {
    let value = value.trim_matches([' ', '\t']);
    // A quoted value without escapes or inner quotes is its inside.
    for quote in ['"', '\''] {
        if let Some(inner) = value
            .strip_prefix(quote)
            .and_then(|v| v.strip_suffix(quote))
        {
            let simple = !inner.contains(quote)
                && !inner.contains('\\')
                && !inner.chars().any(non_printable)
                && !inner.contains('\t');
            return simple.then_some(inner);
        }
    }
    let first = value.chars().next()?;
    if first.is_ascii_digit()
        || "-?:,[]{}#&*!|>'\"%@`+.~".contains(first)
        || value.contains(": ")
        || value.contains(":\t")
        || value.contains(" #")
        || value.contains("\t#")
        || value.ends_with(':')
        || value.chars().any(non_printable)
    {
        return None;
    }
    if value.len() <= 5
        && matches!(
            value.to_ascii_lowercase().as_str(),
            "null" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n"
        )
    {
        return None;
    }
    Some(value)
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

/// What a line-level look at the header tells: where each top-level key's
/// value starts, which plain values need repair, and which lost text to a
/// ` #` comment.
#[derive(Debug, Default)]
struct Layout {
    /// (key, position of its value) in header coordinates (1-based).
    keys: Vec<(String, Position)>,
    /// Top-level plain values: (key, first line index, last line index, value column).
    plain: Vec<(String, usize, usize, usize)>,
    comment_values: Vec<(String, u32, u32)>,
    /// Known keys indented under a one-line value, which YAML reads as part
    /// of that value: (line index, indentation in bytes, key, parent key).
    indented_keys: Vec<(usize, usize, String, String)>,
}

fn top_level_key(line: &str) -> Option<(&str, usize)> {
    let first = line.as_bytes().first()?;
    if first.is_ascii_whitespace() || matches!(first, b'#' | b'-' | b'"' | b'\'' | b'[' | b'{') {
        return None;
    }
    let colon = line.find(':')?;
    let key = &line[..colon];
    if key.is_empty() || key.contains(' ') && key.trim() != key {
        return None;
    }
    let rest = &line[colon + 1..];
    if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')) {
        return None;
    }
    let value_start = colon + 1 + (rest.len() - rest.trim_start().len());
    Some((key.trim(), value_start))
}

fn scan_layout(yaml: &str) -> Layout {
    let mut layout = Layout::default();
    let lines: Vec<&str> = yaml
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let Some((key, value_start)) = top_level_key(line) else {
            i += 1;
            continue;
        };
        let value = line[value_start..].trim_end();
        let column = char_column(line, value_start);
        layout.keys.push((
            key.to_string(),
            Position {
                line: i as u32 + 1,
                column,
            },
        ));
        // Continuation lines of a plain scalar are indented and non-empty.
        let mut last = i;
        while last + 1 < lines.len() {
            let next = lines[last + 1];
            if next.starts_with(' ') && !next.trim().is_empty() {
                last += 1;
            } else {
                break;
            }
        }
        let is_plain = !value.is_empty()
            && !value.starts_with([
                '"', '\'', '|', '>', '[', '{', '&', '*', '!', '%', '#', '-', '?',
            ])
            || value.starts_with(['@', '`']);
        let one_line_quoted = value.len() >= 2
            && ['"', '\'']
                .iter()
                .any(|&q| value.starts_with(q) && value.ends_with(q));
        if is_plain || one_line_quoted {
            for (index, next) in lines.iter().enumerate().take(last + 1).skip(i + 1) {
                let text = next.trim_start_matches(' ');
                if let Some((indented, _)) = top_level_key(text) {
                    if SPEC_KEYS.contains(&indented) || CLIENT_KEYS.contains(&indented) {
                        layout.indented_keys.push((
                            index,
                            next.len() - text.len(),
                            indented.to_string(),
                            key.to_string(),
                        ));
                    }
                }
            }
        }
        if is_plain {
            layout.plain.push((key.to_string(), i, last, value_start));
            if let Some(hash) = value.find(" #") {
                layout.comment_values.push((
                    key.to_string(),
                    i as u32 + 1,
                    char_column(line, value_start + hash + 1),
                ));
            }
        }
        i = last + 1;
    }
    layout
}

/// 1-based column in characters of byte offset `byte` in `line`.
fn char_column(line: &str, byte: usize) -> u32 {
    line.get(..byte).map_or(byte, |s| s.chars().count()) as u32 + 1
}

/// A finding of the repair: (code, line, column, message) in header
/// coordinates.
type RepairNote = (Code, u32, u32, String);

/// A header rewritten so that the YAML parser reads what the author meant.
struct Repaired {
    text: String,
    notes: Vec<RepairNote>,
    /// Key positions when lines moved (an indented key was dedented).
    keys: Option<KeyPositions>,
}

/// Repair the two common breakages of a header that does not parse:
/// a known key indented under the previous value (the key is moved back to
/// the margin) and an unquoted value holding `: ` (the value is quoted,
/// continuation lines folded the way YAML would). `None` when neither
/// applies.
fn repair(yaml: &str, layout: &Layout) -> Option<Repaired> {
    if layout.indented_keys.is_empty() {
        let (text, notes) = quote_values(yaml, layout)?;
        return Some(Repaired {
            text,
            notes,
            keys: None,
        });
    }
    // Dedent first: a key indented under `description` must not be folded
    // into the description by the quoting below.
    let mut removed: BTreeMap<usize, u32> = BTreeMap::new();
    let mut notes = Vec::new();
    for (index, indent, key, parent) in &layout.indented_keys {
        removed.insert(*index, *indent as u32);
        notes.push((
            Code::YamlIndentedKey,
            *index as u32 + 1,
            *indent as u32 + 1,
            format!(
                "`{key}` is indented, so YAML reads it as part of the value of `{parent}` and the header is invalid YAML; skilldex read it as a key — remove the spaces before `{key}:`"
            ),
        ));
    }
    let dedented: String = yaml
        .split('\n')
        .enumerate()
        .map(|(index, line)| {
            if removed.contains_key(&index) {
                line.trim_start_matches(' ')
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let shift =
        |line: u32, column: u32| column + removed.get(&(line as usize - 1)).copied().unwrap_or(0);
    let moved = scan_layout(&dedented);
    let keys = moved
        .keys
        .iter()
        .map(|(key, position)| {
            (
                key.clone(),
                Position {
                    line: position.line,
                    column: shift(position.line, position.column),
                },
            )
        })
        .collect();
    let text =
        match quote_values(&dedented, &moved) {
            Some((text, quoted)) => {
                notes.extend(quoted.into_iter().map(|(code, line, column, message)| {
                    (code, line, shift(line, column), message)
                }));
                text
            }
            None => dedented,
        };
    Some(Repaired {
        text,
        notes,
        keys: Some(keys),
    })
}

/// Quote every top-level plain value that holds `: ` (or starts with a
/// reserved indicator), folding its continuation lines the way YAML would.
/// Returns the repaired text and a `yaml-repaired` note per value, placed
/// at its first `: `.
fn quote_values(yaml: &str, layout: &Layout) -> Option<(String, Vec<RepairNote>)> {
    let lines: Vec<&str> = yaml
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut replaced: BTreeMap<usize, (usize, String)> = BTreeMap::new();
    let mut notes = Vec::new();
    for (key, first, last, value_start) in &layout.plain {
        let mut parts = vec![lines[*first][*value_start..].trim()];
        parts.extend(lines[first + 1..=*last].iter().map(|l| l.trim()));
        let joined = parts.join(" ");
        let needs = joined.contains(": ")
            || joined.ends_with(':')
            || joined.starts_with(['@', '`'])
            || lines[first + 1..=*last].iter().any(|l| l.contains(": "));
        if !needs {
            continue;
        }
        let plain_text = "without quotes, which is invalid YAML; it was read as plain text — wrap the value in quotes";
        let note = match lines[*first][*value_start..].find(": ") {
            Some(offset) => (
                *first as u32 + 1,
                char_column(lines[*first], value_start + offset),
                format!("the value of `{key}` contains `: ` {plain_text}"),
            ),
            None => match (first + 1..=*last).find(|&i| lines[i].contains(": ")) {
                // The `: ` is on a continuation line: point there, and if
                // that line reads like an indented key, say so.
                Some(index) => {
                    let line = lines[index];
                    let text = line.trim_start_matches(' ');
                    let message = match top_level_key(text) {
                        Some((word, _)) if simple_key(word) => format!(
                            "line {} of the value of `{key}` reads like a key `{word}:` indented under it; YAML reads it as text, and without quotes it is invalid — if it is a key, remove the spaces before `{word}:`; if it is text, wrap the value in quotes",
                            index - first + 1
                        ),
                        _ => format!("the value of `{key}` contains `: ` {plain_text}"),
                    };
                    let column = match top_level_key(text) {
                        Some((word, _)) if simple_key(word) => {
                            char_column(line, line.len() - text.len())
                        }
                        _ => char_column(line, line.find(": ").unwrap_or(0)),
                    };
                    (index as u32 + 1, column, message)
                }
                None => match (*first..=*last).find(|&i| lines[i].trim_end().ends_with(':')) {
                    Some(index) => (
                        index as u32 + 1,
                        char_column(lines[index], lines[index].trim_end().len() - 1),
                        format!("the value of `{key}` has a line ending in `:` {plain_text}"),
                    ),
                    None => (
                        *first as u32 + 1,
                        char_column(lines[*first], *value_start),
                        format!(
                            "the value of `{key}` starts with `{}`, which YAML reserves, {plain_text}",
                            joined.chars().next().unwrap_or(' ')
                        ),
                    ),
                },
            },
        };
        let quoted = format!("{key}: '{}'", joined.replace('\'', "''"));
        replaced.insert(*first, (*last, quoted));
        notes.push((Code::YamlRepaired, note.0, note.1, note.2));
    }
    if replaced.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(yaml.len() + 16);
    let mut i = 0;
    while i < lines.len() {
        if let Some((last, text)) = replaced.get(&i) {
            out.push_str(text);
            out.push('\n');
            i = last + 1;
        } else {
            out.push_str(lines[i]);
            out.push('\n');
            i += 1;
        }
    }
    Some((out, notes))
}

/// Who reads YAML 1.1, named in messages.
const YAML11_HOSTS: &str = "YAML 1.1 hosts (PyYAML: fast-agent, FastMCP)";

/// Plain (unquoted) scalars and merge keys of the header that YAML 1.1
/// readers take differently from skilldex's YAML 1.2: `yes`/`on` as
/// booleans, dates, octal `010`, base-60 `1:30`, and `<<` merges; and
/// `.inf`/`.nan`, floats JSON cannot carry. Returns (line, column, message)
/// in header coordinates.
///
/// The header has already parsed, so this line scan can rely on its
/// structure: it skips block scalars, multi-line plain and quoted scalars
/// (their text is never one of these tokens) and reads flow collections
/// token by token.
/// True when some key or value of `yaml` may begin a YAML 1.1 reading
/// (`yaml11_findings`): a key that is such a word or starts like a number,
/// or a value (what follows a `:`, a sequence entry, an item of a flow
/// collection) starting with a digit, sign, `.`, `<` or a letter of
/// yes/no/on/off. Most headers
/// have none and skip the scan.
fn may_read_differently(yaml: &str) -> bool {
    let starts = |text: &str| {
        text.trim_start_matches([' ', '\t', '-'])
            .trim_start()
            .starts_with(|c: char| c.is_ascii_digit() || "+.<yYnNoO".contains(c))
    };
    // In a flow collection, every item counts.
    let flow = |text: &str| {
        let text = text.trim_start_matches([' ', '\t', '-']).trim_start();
        text.starts_with(['[', '{'])
            && text
                .match_indices(['[', '{', ',', ':'])
                .any(|(i, _)| starts(&text[i + 1..]))
    };
    // A key is read differently only as a whole word (`on:`, `no:`), or
    // when it starts like a number or a merge key.
    let key_differs = |line: &str| {
        let text = line.trim_start_matches([' ', '\t', '-']).trim_start();
        let key = text.split(':').next().unwrap_or("").trim_end();
        key.starts_with(|c: char| c.is_ascii_digit() || "+.<".contains(c))
            || (key.len() <= 3
                && ["y", "n", "yes", "no", "on", "off"]
                    .iter()
                    .any(|word| key.eq_ignore_ascii_case(word)))
    };
    yaml.lines().any(|line| {
        key_differs(line)
            || flow(line)
            || line
                .match_indices(':')
                .any(|(i, _)| starts(&line[i + 1..]) || flow(&line[i + 1..]))
    })
}

fn yaml11_findings(yaml: &str) -> Option<Vec<(u32, u32, String)>> {
    may_read_differently(yaml).then(|| yaml11_scan(yaml))
}

/// The scan behind `yaml11_findings`, on every header.
fn yaml11_scan(yaml: &str) -> Vec<(u32, u32, String)> {
    let lines: Vec<&str> = yaml
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut out = Vec::new();
    // Lines indented deeper than this continue a scalar: skip them.
    let mut skip_deeper: Option<usize> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start_matches(' ');
        let indent = line.len() - trimmed.len();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            i += 1;
            continue;
        }
        match skip_deeper {
            Some(limit) if indent > limit => {
                i += 1;
                continue;
            }
            _ => skip_deeper = None,
        }
        // `- ` sequence entries, possibly nested on one line.
        let mut pos = indent;
        let mut parent = indent;
        while line[pos..] == *"-" || line[pos..].starts_with("- ") || line[pos..].starts_with("-\t")
        {
            parent = pos;
            pos += 1;
            pos += line[pos..].len() - line[pos..].trim_start_matches([' ', '\t']).len();
        }
        let mut value_at = pos;
        if let Some((key, value_start)) = block_key(&line[pos..]) {
            if !key.starts_with(['"', '\'']) {
                if let Some(message) = yaml11_key_message(key) {
                    out.push((i as u32 + 1, char_column(line, pos), message));
                }
            }
            parent = pos;
            value_at = pos + value_start;
        }
        i = yaml11_value(&lines, i, value_at, parent, &mut skip_deeper, &mut out);
    }
    out
}

/// A block mapping entry's key and where its value starts, relative to
/// `entry`; `None` when `entry` is not `key: value` / `key:`.
fn block_key(entry: &str) -> Option<(&str, usize)> {
    if entry.starts_with(['[', '{', '?', '|', '>', '*', '!', '&', '#']) {
        return None;
    }
    let key_end = if let Some(quote) = entry.chars().next().filter(|c| matches!(c, '"' | '\'')) {
        let close = closing_quote(entry, 1, quote)?;
        let after = entry[close + 1..].trim_start_matches([' ', '\t']);
        if !after.starts_with(':') {
            return None;
        }
        entry.len() - after.len()
    } else {
        let mut found = None;
        for (index, _) in entry.match_indices(':') {
            let before = &entry[..index];
            if before.contains(" #") || before.contains("\t#") {
                return None;
            }
            let next = entry[index + 1..].chars().next();
            if next.is_none_or(|c| c == ' ' || c == '\t') {
                found = Some(index);
                break;
            }
        }
        found?
    };
    let after = &entry[key_end + 1..];
    let value_start = key_end + 1 + (after.len() - after.trim_start_matches([' ', '\t']).len());
    Some((entry[..key_end].trim_end(), value_start))
}

/// Byte offset of the quote closing a scalar opened by `quote` before
/// `from`, on this line.
fn closing_quote(text: &str, from: usize, quote: char) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = from;
    while i < bytes.len() {
        match (quote, bytes[i]) {
            ('"', b'\\') => i += 2,
            ('"', b'"') => return Some(i),
            ('\'', b'\'') if bytes.get(i + 1) == Some(&b'\'') => i += 2,
            ('\'', b'\'') => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Check the value starting at byte `at` of line `i`; returns the index of
/// the next line to read.
fn yaml11_value(
    lines: &[&str],
    i: usize,
    at: usize,
    parent: usize,
    skip_deeper: &mut Option<usize>,
    out: &mut Vec<(u32, u32, String)>,
) -> usize {
    let line = lines[i];
    let mut at = at;
    // Anchors name the value; a tag decides its type, so a tagged value is
    // read alike everywhere.
    while line[at..].starts_with('&') {
        let rest = &line[at..];
        let end = rest.find([' ', '\t']).unwrap_or(rest.len());
        at += end + (rest[end..].len() - rest[end..].trim_start_matches([' ', '\t']).len());
    }
    let value = &line[at..];
    let value_end = [" #", "\t#"]
        .iter()
        .filter_map(|c| value.find(c))
        .min()
        .unwrap_or(value.len());
    let value = value[..value_end].trim_end();
    if value.is_empty() || value.starts_with(['*', '!', '#']) {
        return i + 1;
    }
    if value.starts_with(['|', '>']) {
        *skip_deeper = Some(parent);
        return i + 1;
    }
    if let Some(quote) = value.chars().next().filter(|c| matches!(c, '"' | '\'')) {
        // Follow a quoted scalar to its closing quote, across lines.
        let mut from = at + 1;
        for (j, text) in lines.iter().enumerate().skip(i) {
            if closing_quote(text, from, quote).is_some() {
                return j + 1;
            }
            from = 0;
        }
        return lines.len();
    }
    if value.starts_with(['[', '{']) {
        return yaml11_flow(lines, i, at, out);
    }
    // A plain scalar continued on deeper lines is prose, not a token.
    let continued = lines[i + 1..]
        .iter()
        .map(|l| (l, l.trim_start_matches(' ')))
        .find(|(_, t)| !t.is_empty() && !t.starts_with('#'))
        .is_some_and(|(l, t)| l.len() - t.len() > parent);
    if continued {
        *skip_deeper = Some(parent);
    } else if let Some(message) = yaml11_value_message(value) {
        out.push((i as u32 + 1, char_column(line, at), message));
    }
    i + 1
}

/// Read a flow collection starting at byte `at` of line `i`, checking each
/// plain token; returns the index of the line after it.
fn yaml11_flow(lines: &[&str], i: usize, at: usize, out: &mut Vec<(u32, u32, String)>) -> usize {
    let mut depth = 0usize;
    let mut token = String::new();
    let mut start: Option<(usize, usize)> = None;
    let mut quoted = false;
    let mut flush = |token: &mut String,
                     start: &mut Option<(usize, usize)>,
                     quoted: &mut bool,
                     is_key: bool| {
        let text = token.trim();
        let mut text = text;
        while text.starts_with('&') {
            text = text
                .find([' ', '\t'])
                .map_or("", |end| text[end..].trim_start());
        }
        if let (false, Some((line, byte))) = (*quoted || text.starts_with(['!', '*']), *start) {
            let message = if is_key {
                yaml11_key_message(text)
            } else {
                yaml11_value_message(text)
            };
            if let Some(message) = message {
                out.push((line as u32 + 1, char_column(lines[line], byte), message));
            }
        }
        token.clear();
        *start = None;
        *quoted = false;
    };
    for (j, line) in lines.iter().enumerate().skip(i) {
        let from = if j == i { at } else { 0 };
        let mut chars = line[from..]
            .char_indices()
            .map(|(k, c)| (k + from, c))
            .peekable();
        let mut previous = ' ';
        while let Some((k, c)) = chars.next() {
            match c {
                '"' | '\'' if token.trim().is_empty() => {
                    quoted = true;
                    start.get_or_insert((j, k));
                    let close = closing_quote(line, k + 1, c).unwrap_or(line.len());
                    while chars.peek().is_some_and(|(n, _)| *n <= close) {
                        chars.next();
                    }
                    token.push('"');
                }
                '[' | '{' => {
                    depth += 1;
                    flush(&mut token, &mut start, &mut quoted, false);
                }
                ']' | '}' => {
                    flush(&mut token, &mut start, &mut quoted, false);
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return j + 1;
                    }
                }
                ',' => flush(&mut token, &mut start, &mut quoted, false),
                ':' if chars
                    .peek()
                    .is_none_or(|(_, n)| matches!(n, ' ' | '\t' | ',' | ']' | '}')) =>
                {
                    flush(&mut token, &mut start, &mut quoted, true)
                }
                '#' if previous == ' ' || previous == '\t' => break,
                _ => {
                    if !c.is_whitespace() {
                        start.get_or_insert((j, k));
                    }
                    token.push(c);
                }
            }
            previous = c;
        }
        token.push(' ');
    }
    lines.len()
}

/// What YAML 1.1 hosts make of a plain key that is not a string to them.
fn yaml11_key_message(key: &str) -> Option<String> {
    if key == "<<" {
        return Some(format!(
            "`<<` is a merge key: {YAML11_HOSTS} copy the keys of the referenced map into this one, while skilldex (YAML 1.2) keeps `<<` as an ordinary key — write the keys out instead of merging"
        ));
    }
    let reading = yaml11_reading(key)?;
    Some(format!(
        "the key `{key}` is read as {reading} by {YAML11_HOSTS}, but as the text \"{key}\" by skilldex (YAML 1.2) — quote it: `\"{key}\":`"
    ))
}

/// What YAML 1.1 hosts make of a plain value that is not a string to them.
fn yaml11_value_message(value: &str) -> Option<String> {
    let unsigned = value.trim_start_matches(['-', '+']);
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(value, ".nan" | ".NaN" | ".NAN") {
        return Some(format!(
            "`{value}` is read as a floating-point {} by skilldex and {YAML11_HOSTS} alike, and JSON cannot carry it, so the MCP server cannot serve this front matter — quote it: `\"{value}\"`",
            if unsigned.eq_ignore_ascii_case(".inf") { "infinity" } else { "NaN" }
        ));
    }
    let reading = yaml11_reading(value)?;
    Some(format!(
        "`{value}` is read as {reading} by {YAML11_HOSTS}, but as the text \"{value}\" by skilldex (YAML 1.2) — quote it: `\"{value}\"`"
    ))
}

/// How YAML 1.1 (PyYAML) reads a plain scalar that YAML 1.2 reads as
/// text; `None` when both read it alike. The boolean words count in the
/// three spellings YAML 1.1 defines (`yes`, `Yes`, `YES`); PyYAML reads
/// `yEs`, `y` and `n` as text, so they are not reported.
fn yaml11_reading(token: &str) -> Option<String> {
    match token {
        "yes" | "Yes" | "YES" | "on" | "On" | "ON" => return Some("the boolean true".into()),
        "no" | "No" | "NO" | "off" | "Off" | "OFF" => return Some("the boolean false".into()),
        _ => {}
    }
    if let Some(kind) = yaml11_timestamp(token) {
        return Some(kind.into());
    }
    let digits = token.strip_prefix(['-', '+']).unwrap_or(token);
    let negative = token.starts_with('-');
    let sign = if negative { "-" } else { "" };
    let is_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    // Octal: 0[0-7_]+.
    if digits.len() > 1
        && digits.starts_with('0')
        && digits
            .bytes()
            .all(|b| (b'0'..=b'7').contains(&b) || b == b'_')
    {
        let value = digits.bytes().filter(|b| *b != b'_').fold(0u128, |n, b| {
            n.saturating_mul(8).saturating_add(u128::from(b - b'0'))
        });
        return Some(format!("the octal number {sign}{value}"));
    }
    // Base 60: [1-9][0-9_]*(:[0-5]?[0-9])+, optionally with a fraction.
    if let Some((head, tail)) = digits.split_once(':') {
        let (tail, fraction) = match tail.split_once('.') {
            Some((t, f)) if f.bytes().all(|b| b.is_ascii_digit() || b == b'_') => (t, true),
            Some(_) => return None,
            None => (tail, false),
        };
        let parts_ok = tail.split(':').all(|p| {
            matches!(p.len(), 1 | 2)
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p.len() == 1 || p.as_bytes()[0] <= b'5')
        });
        let head_ok = is_digits(head)
            && head.as_bytes()[0].is_ascii_digit()
            && (fraction || head.as_bytes()[0] != b'0');
        if head_ok && parts_ok {
            let value = std::iter::once(head)
                .chain(tail.split(':'))
                .map(|p| p.replace('_', "").parse::<u128>().unwrap_or(0))
                .fold(0u128, |n, p| n.saturating_mul(60).saturating_add(p));
            return Some(if fraction {
                "a base-60 number".to_string()
            } else {
                format!("the base-60 number {sign}{value}")
            });
        }
        return None;
    }
    // Digits with underscores: 1_000.
    if digits.contains('_') && is_digits(digits) && digits.as_bytes()[0].is_ascii_digit() {
        return Some(format!("the number {sign}{}", digits.replace('_', "")));
    }
    None
}

/// `Some("a date")` / `Some("a date and time")` when YAML 1.1 reads `token`
/// as a timestamp.
fn yaml11_timestamp(token: &str) -> Option<&'static str> {
    let b = token.as_bytes();
    let digits = |from: usize, min: usize, max: usize| -> Option<usize> {
        let n = b[from.min(b.len())..]
            .iter()
            .take(max)
            .take_while(|c| c.is_ascii_digit())
            .count();
        (n >= min).then_some(from + n)
    };
    let year = digits(0, 4, 4)?;
    if b.get(year) != Some(&b'-') {
        return None;
    }
    let month = digits(year + 1, 1, 2)?;
    if b.get(month) != Some(&b'-') {
        return None;
    }
    let day = digits(month + 1, 1, 2)?;
    if day == b.len() {
        // A date alone needs two-digit month and day.
        return (month - year == 3 && day - month == 3).then_some("a date");
    }
    let mut i = day;
    if matches!(b[i], b'T' | b't') {
        i += 1;
    } else {
        let spaces = b[i..]
            .iter()
            .take_while(|c| matches!(c, b' ' | b'\t'))
            .count();
        if spaces == 0 {
            return None;
        }
        i += spaces;
    }
    let hour = digits(i, 1, 2)?;
    if b.get(hour) != Some(&b':') {
        return None;
    }
    let minute = digits(hour + 1, 2, 2)?;
    if b.get(minute) != Some(&b':') {
        return None;
    }
    let mut i = digits(minute + 1, 2, 2)?;
    if b.get(i) == Some(&b'.') {
        i += 1 + b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
    }
    i += b[i..]
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t'))
        .count();
    if i < b.len() {
        if b[i] == b'Z' {
            i += 1;
        } else if matches!(b[i], b'+' | b'-') {
            i = digits(i + 1, 1, 2)?;
            if b.get(i) == Some(&b':') {
                i = digits(i + 1, 2, 2)?;
            }
        } else {
            return None;
        }
    }
    (i == b.len()).then_some("a date and time")
}

/// Text of a scalar (strings, numbers, booleans); `None` for null,
/// sequences and maps.
fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Tagged(tagged) => scalar_text(&tagged.value),
        _ => None,
    }
}

/// A value without its YAML tag.
fn untagged(value: &Value) -> &Value {
    match value {
        Value::Tagged(tagged) => untagged(&tagged.value),
        other => other,
    }
}

/// The items of a list of scalars, as text; `None` for anything else.
fn list_of_text(value: &Value) -> Option<Vec<String>> {
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

fn value_kind(value: &Value) -> &'static str {
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

/// The front matter of `text` as a JSON object, read the way a strict YAML
/// host reads it: no repair of unquoted `: `, string keys only.
/// The MCP Skills extension serves this next to the file, and hosts compare
/// the two field by field, so anything a strict reader would see
/// differently is an error here.
pub fn strict_json(text: &str) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let split = split(text).map_err(|e| match e {
        SplitError::Empty => "the file is empty".to_string(),
        SplitError::Missing => "the file has no front matter".to_string(),
        SplitError::Unterminated { open_line } => {
            format!("the front matter opened on line {open_line} is never closed")
        }
    })?;
    if split.late_start {
        return Err("blank lines come before the opening `---`".to_string());
    }
    if split.yaml.len() > MAX_FRONTMATTER_BYTES {
        return Err("the front matter is too large".to_string());
    }
    if count_aliases(split.yaml) > MAX_ALIASES {
        return Err("the front matter uses too many YAML aliases".to_string());
    }
    if super::bounds::check_flow_nesting(split.yaml).is_err() {
        return Err("the front matter nests brackets too deeply".to_string());
    }
    let value: Value = serde_yaml_ng::from_str(split.yaml)
        .map_err(|e| format!("the front matter is not strict YAML ({e})"))?;
    let Value::Mapping(map) = value else {
        return Err("the front matter is not a map of keys".to_string());
    };
    let mut out = serde_json::Map::new();
    for (key, value) in &map {
        let Value::String(key) = key else {
            return Err(format!(
                "the front matter has a key that is not a string: {key:?}"
            ));
        };
        if contains_non_string_keys(value) {
            return Err(format!(
                "`{key}` holds a map whose keys are not all strings"
            ));
        }
        if let Some(number) = non_finite_number(value) {
            return Err(format!(
                "`{key}` holds `{number}`, a YAML float that JSON cannot carry — quote it to make it text"
            ));
        }
        out.insert(key.clone(), to_json(value));
    }
    Ok(out)
}

/// The first infinity or NaN in `value`, as YAML writes it.
fn non_finite_number(value: &Value) -> Option<String> {
    match value {
        Value::Number(n) if n.is_infinite() || n.is_nan() => Some(n.to_string()),
        Value::Mapping(map) => map.values().find_map(non_finite_number),
        Value::Sequence(items) => items.iter().find_map(non_finite_number),
        Value::Tagged(tagged) => non_finite_number(&tagged.value),
        _ => None,
    }
}

fn contains_non_string_keys(value: &Value) -> bool {
    match value {
        Value::Mapping(map) => map
            .iter()
            .any(|(k, v)| !matches!(k, Value::String(_)) || contains_non_string_keys(v)),
        Value::Sequence(items) => items.iter().any(contains_non_string_keys),
        Value::Tagged(tagged) => contains_non_string_keys(&tagged.value),
        _ => false,
    }
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
            crate::model::one_line(fields.description.as_deref().unwrap()),
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
    fn splits_on_delimiter_lines_only() {
        let text = "---\nname: a\ndescription: x --- y\n---\n# Body\n";
        let split = split(text).unwrap();
        assert_eq!(split.yaml, "name: a\ndescription: x --- y\n");
        assert_eq!(split.yaml_line, 2);
        assert_eq!(split.body_line, 5);
        assert_eq!(&text[split.body_offset..], "# Body\n");
    }

    #[test]
    fn crlf_and_trailing_spaces() {
        let text = "--- \r\nname: a\r\ndescription: b\r\n---\r\nbody\r\n";
        let split = split(text).unwrap();
        assert_eq!(split.body_line, 5);
        let (f, findings) = parse_fields(&split);
        assert!(findings.is_empty(), "{findings:?}");
        assert_eq!(f.unwrap().description.as_deref(), Some("b"));
    }

    #[test]
    fn lone_carriage_returns_end_lines() {
        let text = "---\rname: a\rdescription: b\r---\rbody\r";
        let split = split(text).unwrap();
        assert_eq!(split.body_line, 5);
        assert_eq!(&text[split.body_offset..], "body\r");
        let (f, _) = parse_fields(&split);
        assert_eq!(f.unwrap().description.as_deref(), Some("b"));
    }

    #[test]
    fn split_errors() {
        assert_eq!(split(""), Err(SplitError::Empty));
        assert_eq!(split("# Title\n"), Err(SplitError::Missing));
        assert_eq!(
            split("---\nname: a\n"),
            Err(SplitError::Unterminated { open_line: 1 })
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
    fn fast_path_agrees_with_the_yaml_parser() {
        let cases = [
            "name: pdf-forms\ndescription: Fill PDF forms. Use when asked.\n",
            "name: a\r\ndescription: Ünïcödé text, with commas\r\n",
            "description: 技能描述，适用于中文。\nlicense: MIT\n",
            "name: a\ndescription: x\tand tab\n",
            "description: >-\n  Folded text\n  over lines.\nname: x\n",
            "description: >\n  Folded\n  clip\n",
            "description: |\n  Literal\n  lines\n",
            "description: |-\n    Literal\n    strip\n",
            "metadata:\n  version: v1\n  author: me\nlicense: MIT\n",
            "metadata:\n  version: \"1.3\"\n  other: 'x y'\nname: \"quoted: yes\"\n",
            "# comment\nname: a\n",
        ];
        for case in cases {
            let (fast, _) = simple_header(case).expect("simple");
            let slow: Value = serde_yaml_ng::from_str(case).unwrap();
            assert_eq!(Value::Mapping(fast.into_iter().collect()), slow, "{case:?}");
        }
        for not_simple in [
            "name: 123\n",
            "name: true\n",
            "name: ~\n",
            "description: 'it''s'\n",
            "description: \"a \\\" b\"\n",
            "a: b: c\n",
            "a: x #c\n",
            "a: x\na: y\n",
            "metadata:\n  k: v\n    deeper: x\n",
            "metadata:\n  k: 1\n",
            "a: -x\n",
            "a: >\n  x\n\n  y\n",
            "a: >\n  x\n    more\n",
            "a: |+\n  x\n",
            "a: >2\n  x\n",
            "a: plain\n  continued\n",
        ] {
            assert!(simple_header(not_simple).is_none(), "{not_simple:?}");
        }
    }

    use proptest::prelude::*;

    proptest::proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// Whenever the fast path accepts a header, the YAML parser reads
        /// the same value from it.
        #[test]
        fn fast_path_never_disagrees(
            entries in proptest::collection::vec(
                (
                    "[a-z][a-z_-]{0,6}",
                    proptest::prop_oneof![
                        "[ a-zA-Z0-9:#'\"@&*!|>%,.?\\-\\[\\]{}\t~éß技]{0,24}".prop_map(|v| format!(" {v}")),
                        ("[>|]-?", proptest::collection::vec("[ a-zA-Z0-9:#'\"-]{0,16}", 1..4), 1usize..4)
                            .prop_map(|(ind, lines, n)| {
                                let pad = " ".repeat(n);
                                format!(" {ind}\n{}", lines.iter().map(|l| format!("{pad}{l}")).collect::<Vec<_>>().join("\n"))
                            }),
                        (proptest::collection::vec(("[a-z]{1,5}", "[ a-zA-Z0-9:#'-]{0,12}"), 1..3), 1usize..4)
                            .prop_map(|(pairs, n)| {
                                let pad = " ".repeat(n);
                                format!("\n{}", pairs.iter().map(|(k, v)| format!("{pad}{k}: {v}")).collect::<Vec<_>>().join("\n"))
                            }),
                    ],
                ),
                1..5,
            ),
        ) {
            let yaml: String = entries.iter().map(|(k, v)| format!("{k}:{v}\n")).collect();
            if let Some((fast, _)) = simple_header(&yaml) {
                let slow: Value = serde_yaml_ng::from_str(&yaml)
                    .unwrap_or_else(|e| panic!("fast path accepted invalid YAML {yaml:?}: {e}"));
                proptest::prop_assert_eq!(Value::Mapping(fast.into_iter().collect()), slow, "{:?}", yaml);
            }
        }
    }

    /// (line, column, first words) of the yaml11-value findings.
    fn yaml11(text: &str) -> Vec<(u32, u32, String)> {
        let (f, findings) = fields(text);
        assert!(f.is_some(), "{findings:?}");
        findings
            .into_iter()
            .filter(|f| f.code == Code::Yaml11Value)
            .map(|f| (f.position.line, f.position.column, f.message))
            .collect()
    }

    #[test]
    fn yaml11_readings_are_reported_where_the_value_is() {
        let found = yaml11(
            "---\nname: a\ndescription: Use when x\nlicense: 2024-01-01\nmetadata:\n  enabled: yes\n  at: 2024-01-01 10:00:00\n  mode: 010\n  time: 1:30\n  lim: .inf\ntags: [Off, \"no\", {on: 1}]\nbase: &b {x: 1}\nother:\n  <<: *b\nlist:\n  - NO\n  - k: 0777\n---\n",
        );
        let at: Vec<(u32, u32)> = found.iter().map(|(l, c, _)| (*l, *c)).collect();
        assert_eq!(
            at,
            [
                (4, 10),
                (6, 12),
                (7, 7),
                (8, 9),
                (9, 9),
                (10, 8),
                (11, 8),
                (11, 20),
                (14, 3),
                (16, 5),
                (17, 8)
            ],
            "{found:#?}"
        );
        let message = |line: u32, column: u32| {
            &found
                .iter()
                .find(|(l, c, _)| (*l, *c) == (line, column))
                .unwrap()
                .2
        };
        assert!(message(4, 10).contains("`2024-01-01` is read as a date by YAML 1.1 hosts (PyYAML: fast-agent, FastMCP), but as the text \"2024-01-01\" by skilldex"));
        assert!(message(4, 10).ends_with("quote it: `\"2024-01-01\"`"));
        assert!(message(6, 12).contains("the boolean true"));
        assert!(message(7, 7).contains("a date and time"));
        assert!(message(8, 9).contains("the octal number 8"));
        assert!(message(9, 9).contains("the base-60 number 90"));
        assert!(message(10, 8).contains("JSON cannot carry"));
        assert!(message(11, 20).contains("the key `on`"));
        assert!(message(14, 3).contains("merge key"));
        assert!(message(17, 8).contains("the octal number 511"));
    }

    #[test]
    fn yaml11_leaves_text_alone() {
        for header in [
            "name: a\ndescription: Use when x\n",
            "description: \"yes\"\nlicense: '2024-01-01'\n",
            "description: |\n  on: yes\n  010\n",
            "description: >-\n  yes\n",
            "description: first\n  yes\n",
            "description: \"multi\n  on: yes\"\n",
            "description: url http://x:80 and 1:30 pm\n",
            "a: y\nb: n\nc: yEs\nd: 1e3\ne: 0b11\nf: 0x1F\ng: 10\nh: 1.5\ni: true\nj: 2024-1-1\nk: 09\n",
            "a: !!str yes\nb: &x on-call\nc: [\"on\", 'off', x y]\n",
            "metadata:\n  version: 1:3a\n  date: 2024-01-01x\n",
        ] {
            let text = format!("---\n{header}---\n");
            let found = yaml11(&text);
            assert!(found.is_empty(), "{header:?}: {found:#?}");
        }
    }

    #[test]
    fn strict_json_refuses_floats_json_cannot_carry() {
        let error = strict_json("---\nname: a\ndescription: d\nlim: .inf\n---\n").unwrap_err();
        assert!(error.contains("`lim`"), "{error}");
        assert!(error.contains("JSON cannot carry"), "{error}");
        assert!(error.contains("quote it"), "{error}");
        let error = strict_json("---\nname: a\ndescription: d\nmetadata:\n  x: [1, .nan]\n---\n")
            .unwrap_err();
        assert!(error.contains("`metadata`"), "{error}");
        let ok = strict_json("---\nname: a\ndescription: d\nlim: \".inf\"\nn: 1.5\n---\n").unwrap();
        assert_eq!(ok["lim"], ".inf");
        assert_eq!(ok["n"], 1.5);
    }

    #[test]
    fn a_plain_header_skips_the_yaml11_scan() {
        let yaml = "name: plan-profile-6730\ndescription: Estimates pending prompt inference for long-running roadmap and deployment vulnerability. Use when upgrading yaml domain, deduplicating cold node, or splitting public variable.\nlicense: MIT\n";
        assert!(!may_read_differently(yaml));
        assert!(may_read_differently("name: a\nflag: yes\n"));
    }

    proptest::proptest! {
        /// The YAML 1.1 scan is a line scan over any text: it never panics.
        #[test]
        fn yaml11_scan_never_panics(text in "[-a-z0-9 :#'\"\\[\\]{},&*!|>.<\n\téß]{0,80}") {
            let found = yaml11_scan(&text);
            // The quick check never hides what the scan finds.
            proptest::prop_assert!(found.is_empty() || may_read_differently(&text), "{text:?}: {found:?}");
        }
    }

    #[test]
    fn unknown_keys_are_kept() {
        let (f, _) = fields("---\ndescription: d\nfoo: [1, 2]\nbar: {x: y}\n---\n");
        let f = f.unwrap();
        assert_eq!(f.extra["foo"], serde_json::json!([1, 2]));
        assert_eq!(f.extra["bar"], serde_json::json!({"x": "y"}));
    }
}
