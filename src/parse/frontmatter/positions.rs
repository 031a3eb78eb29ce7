//! Where a YAML error is: the YAML library's message turned into a
//! finding at the right line and column of the file (a duplicate key at
//! its second occurrence, an unclosed quote at the quote, a bad escape at
//! the escape).

use super::char_column;
use super::split::Split;
use super::Finding;
use crate::entry::Code;
use crate::entry::Position;

pub(super) fn yaml_error(
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
pub(super) fn duplicate_key(message: &str) -> Option<String> {
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
pub(super) fn find_duplicate(
    yaml: &str,
    line: u32,
    column: u32,
    key: &str,
) -> Option<(Position, Position)> {
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
pub(super) fn entry_key(entry: &str) -> Option<String> {
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
pub(super) fn parse_line_column(text: &str) -> Option<(u32, u32)> {
    let (line, rest) = text.split_once(" column ")?;
    let column: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((line.trim().parse().ok()?, column.parse().ok()?))
}
