//! Repairs that make real-world headers load: a line-level look at the
//! layout of the header, then an unquoted value holding `: ` is quoted, and
//! a known key indented under the previous value is moved back to the
//! margin, each with a warning.

use super::char_column;
use super::fast::simple_key;
use super::fast::KeyPositions;
use super::CLIENT_KEYS;
use super::SPEC_KEYS;
use crate::entry::Code;
use crate::entry::Position;
use std::collections::BTreeMap;

/// What a line-level look at the header tells: where each top-level key's
/// value starts, which plain values need repair, and which lost text to a
/// ` #` comment.
#[derive(Debug, Default)]
pub(super) struct Layout {
    /// (key, position of its value) in header coordinates (1-based).
    pub(super) keys: Vec<(String, Position)>,
    /// Top-level plain values: (key, first line index, last line index, value column).
    pub(super) plain: Vec<(String, usize, usize, usize)>,
    pub(super) comment_values: Vec<(String, u32, u32)>,
    /// Known keys indented under a one-line value, which YAML reads as part
    /// of that value: (line index, indentation in bytes, key, parent key).
    pub(super) indented_keys: Vec<(usize, usize, String, String)>,
}

pub(super) fn top_level_key(line: &str) -> Option<(&str, usize)> {
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

pub(super) fn scan_layout(yaml: &str) -> Layout {
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

/// A finding of the repair: (code, line, column, message) in header
/// coordinates.
pub(super) type RepairNote = (Code, u32, u32, String);

/// A header rewritten so that the YAML parser reads what the author meant.
pub(super) struct Repaired {
    pub(super) text: String,
    pub(super) notes: Vec<RepairNote>,
    /// Key positions when lines moved (an indented key was dedented).
    pub(super) keys: Option<KeyPositions>,
}

/// Repair the two common breakages of a header that does not parse:
/// a known key indented under the previous value (the key is moved back to
/// the margin) and an unquoted value holding `: ` (the value is quoted,
/// continuation lines folded the way YAML would). `None` when neither
/// applies.
pub(super) fn repair(yaml: &str, layout: &Layout) -> Option<Repaired> {
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
pub(super) fn quote_values(yaml: &str, layout: &Layout) -> Option<(String, Vec<RepairNote>)> {
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
