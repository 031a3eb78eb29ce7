//! Where a top-level list of a `skilldex.yaml` is written in its text:
//! the byte range, line and column of each item, for positions in messages
//! and for edits that keep every other byte. Only layouts this can read
//! exactly are accepted (plain or quoted scalars in a flow or block list).

/// A list written in a way these functions cannot read exactly (a scalar,
/// nested collections, anchors, aliases, tags, block scalars, multi-line
/// items): callers fall back to another edit or to the key's position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the list is not written in a layout skilldex can edit exactly")]
pub(super) struct NotEditable;

/// The key of a line that sets a top-level key (`key:` at column 1).
pub(super) fn top_level_key(line: &str) -> Option<&str> {
    let (key, _) = line.split_once(':')?;
    let key = key.trim_end();
    let bare = key.trim_matches(|c| c == '"' || c == '\'');
    (!key.is_empty() && !line.starts_with([' ', '\t', '#', '-'])).then_some(bare)
}

/// How a top-level list is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Layout {
    /// `key: [a, b]` (possibly over several lines): byte offsets of the
    /// brackets.
    Flow { open: usize, close: usize },
    /// `key:` then `- a` lines.
    Block,
    /// `key:` with nothing after it.
    Empty,
}

/// A top-level list as written in the text.
#[derive(Debug, Clone)]
pub(super) struct ListText {
    /// Byte offset just after the colon of `key:`.
    pub(super) after_colon: usize,
    pub(super) layout: Layout,
    pub(super) items: Vec<ItemText>,
}

/// One item of a list as written.
#[derive(Debug, Clone)]
pub(super) struct ItemText {
    /// The value (quotes and escapes resolved).
    pub(super) value: String,
    /// Byte range of the item as written, quotes included.
    pub(super) start: usize,
    pub(super) end: usize,
    /// Byte range of the item's line, line break included.
    pub(super) line_start: usize,
    pub(super) line_end: usize,
    /// 1-based line and column of `start`.
    pub(super) line: usize,
    pub(super) column: usize,
}

/// A line of the text: byte offsets of its start, of the end of its
/// content (before `\r\n` or `\n`) and of its end (after them).
#[derive(Debug, Clone, Copy)]
struct LineSpan {
    start: usize,
    content_end: usize,
    end: usize,
}

fn line_spans(text: &str) -> Vec<LineSpan> {
    let mut spans = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let end = start + line.len();
        let content = line.trim_end_matches('\n').trim_end_matches('\r');
        spans.push(LineSpan {
            start,
            content_end: start + content.len(),
            end,
        });
        start = end;
    }
    spans
}

/// The top-level list `key` of `text`: `Ok(None)` when the key is absent,
/// `Err(NotEditable)` when its value is not a list this module can edit exactly
/// (a scalar, nested collections, anchors, aliases, tags, block scalars,
/// multi-line items).
pub(super) fn find_list(text: &str, key: &str) -> Result<Option<ListText>, NotEditable> {
    let lines = line_spans(text);
    let content = |span: &LineSpan| &text[span.start..span.content_end];
    let Some(index) = lines
        .iter()
        .position(|span| top_level_key(content(span)) == Some(key))
    else {
        return Ok(None);
    };
    let key_line = lines[index];
    let after_colon = key_line.start + content(&key_line).find(':').ok_or(NotEditable)? + 1;
    let rest = &text[after_colon..key_line.content_end];
    let value_start = after_colon + (rest.len() - rest.trim_start().len());
    let column_of = |offset: usize, span: &LineSpan| text[span.start..offset].chars().count() + 1;
    if rest.trim_start().starts_with('[') {
        let (close, found) = scan_flow(text, value_start)?;
        let mut items = Vec::new();
        for (start, end) in found {
            let line = lines.partition_point(|span| span.end <= start);
            let span = lines[line];
            items.push(ItemText {
                value: decode_scalar(&text[start..end])?,
                start,
                end,
                line_start: span.start,
                line_end: span.end,
                line: line + 1,
                column: column_of(start, &span),
            });
        }
        // After `]`: nothing but a comment.
        let close_line = lines[lines.partition_point(|span| span.end <= close)];
        let after = text[close + 1..close_line.content_end].trim_start();
        if !(after.is_empty() || after.starts_with('#')) {
            return Err(NotEditable);
        }
        return Ok(Some(ListText {
            after_colon,
            layout: Layout::Flow {
                open: value_start,
                close,
            },
            items,
        }));
    }
    if !(rest.trim().is_empty() || rest.trim_start().starts_with('#')) {
        return Err(NotEditable);
    }
    // A block list: `- item` lines at one indentation, with blank lines
    // and comments between them; it ends at the next line at column 0.
    let mut items = Vec::new();
    let mut indent = None;
    for (line, span) in lines.iter().enumerate().skip(index + 1) {
        let line_text = content(span);
        let body = line_text.trim_start_matches(' ');
        let spaces = line_text.len() - body.len();
        if body.trim().is_empty() || body.starts_with('#') {
            continue;
        }
        let Some(after_dash) = body
            .strip_prefix('-')
            .filter(|after| after.starts_with([' ', '\t']))
        else {
            if spaces > 0 || body == "-" {
                return Err(NotEditable); // an item continued or a nested value
            }
            break;
        };
        if *indent.get_or_insert(spaces) != spaces {
            return Err(NotEditable);
        }
        let value = after_dash.trim_start();
        let start = span.content_end - value.len();
        let end = start + scalar_length(value)?;
        let after = text[end..span.content_end].trim_start();
        if end == start || !(after.is_empty() || after.starts_with('#')) {
            return Err(NotEditable);
        }
        items.push(ItemText {
            value: decode_scalar(&text[start..end])?,
            start,
            end,
            line_start: span.start,
            line_end: span.end,
            line: line + 1,
            column: column_of(start, span),
        });
    }
    let layout = if items.is_empty() {
        Layout::Empty
    } else {
        Layout::Block
    };
    Ok(Some(ListText {
        after_colon,
        layout,
        items,
    }))
}

/// The entries of the top-level block mapping `key` of `text` (`key:`
/// then indented `name: value` lines): each name with the line and
/// column of the name and of its value. Entries this cannot read exactly
/// (a flow mapping, a complex key) are left out; callers fall back to the
/// key's position.
pub(super) fn mapping_entries(text: &str, key: &str) -> Vec<super::MappingEntry> {
    let lines = line_spans(text);
    let content = |span: &LineSpan| &text[span.start..span.content_end];
    let Some(index) = lines
        .iter()
        .position(|span| top_level_key(content(span)) == Some(key))
    else {
        return Vec::new();
    };
    let mut entries = Vec::new();
    let mut indent = None;
    for (line, span) in lines.iter().enumerate().skip(index + 1) {
        let line_text = content(span);
        let body = line_text.trim_start_matches(' ');
        let spaces = line_text.len() - body.len();
        if body.trim().is_empty() || body.starts_with('#') {
            continue;
        }
        if spaces == 0 {
            break; // the next top-level key
        }
        // Deeper lines continue a value (a block scalar, a folded line).
        if *indent.get_or_insert(spaces) != spaces {
            continue;
        }
        let Ok(length) = scalar_length(body) else {
            continue;
        };
        let (name, after) = if body.starts_with(['"', '\'']) {
            (&body[..length], &body[length..])
        } else {
            match body.split_once(':') {
                Some((name, _)) => (name.trim_end(), &body[name.len()..]),
                None => continue,
            }
        };
        let Some(value) = after.trim_start().strip_prefix(':') else {
            continue;
        };
        let Ok(name) = decode_scalar(name) else {
            continue;
        };
        let value_offset = line_text.len() - value.trim_start().len();
        let column_of = |offset: usize| line_text[..offset].chars().count() + 1;
        let value_at = if value.trim().is_empty() {
            (line + 2, spaces + 3) // the value starts on the next line
        } else {
            (line + 1, column_of(value_offset))
        };
        entries.push(super::MappingEntry {
            key: name,
            key_at: (line + 1, spaces + 1),
            value_at,
        });
    }
    entries
}

/// The items of the flow list whose `[` is at `open`: the offset of its
/// `]` and the byte range of each item.
fn scan_flow(text: &str, open: usize) -> Result<(usize, Vec<(usize, usize)>), NotEditable> {
    let bytes = text.as_bytes();
    let mut items = Vec::new();
    // The item being read: its start and the end of its last character.
    let mut current: Option<(usize, usize)> = None;
    let mut quoted = false;
    let mut i = open + 1;
    while i < bytes.len() {
        let byte = bytes[i];
        match byte {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'#' if bytes[i - 1].is_ascii_whitespace() => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b',' | b']' => {
                match current.take() {
                    Some(item) => items.push(item),
                    None if byte == b',' => return Err(NotEditable), // `[,` or `,,`
                    None => {}                                       // `[]`, or `[a,]`
                }
                quoted = false;
                if byte == b']' {
                    return Ok((i, items));
                }
                i += 1;
            }
            b'[' | b'{' | b'}' => return Err(NotEditable),
            _ if quoted => return Err(NotEditable), // text after a closing quote
            b'"' | b'\'' if current.is_none() => {
                let length = scalar_length(&text[i..])?;
                current = Some((i, i + length));
                quoted = true;
                i += length;
            }
            _ => {
                let start = current.map_or(i, |(start, _)| start);
                let char_length = text[i..].chars().next().map_or(1, char::len_utf8);
                current = Some((start, i + char_length));
                i += char_length;
            }
        }
    }
    Err(NotEditable)
}

/// The length in bytes of the scalar at the start of `text` (one line of
/// a block item, or the rest of the text from a quote): up to the closing
/// quote, or for a plain scalar up to a ` #` comment or the end.
fn scalar_length(text: &str) -> Result<usize, NotEditable> {
    let bytes = text.as_bytes();
    match bytes.first() {
        Some(b'"') => {
            let mut i = 1;
            while i < bytes.len() {
                match bytes[i] {
                    b'\\' => i += 2,
                    b'"' => return Ok(i + 1),
                    b'\n' => return Err(NotEditable),
                    _ => i += 1,
                }
            }
            Err(NotEditable)
        }
        Some(b'\'') => {
            let mut i = 1;
            while i < bytes.len() {
                match bytes[i] {
                    b'\'' if bytes.get(i + 1) == Some(&b'\'') => i += 2,
                    b'\'' => return Ok(i + 1),
                    b'\n' => return Err(NotEditable),
                    _ => i += 1,
                }
            }
            Err(NotEditable)
        }
        // Anchors, aliases, tags, block scalars, nested collections,
        // directives: not a plain name.
        Some(b'&' | b'*' | b'!' | b'|' | b'>' | b'[' | b'{' | b'%' | b'@' | b'`') | None => {
            Err(NotEditable)
        }
        Some(_) => {
            let end = text
                .find(" #")
                .into_iter()
                .chain(text.find("\t#"))
                .min()
                .unwrap_or(text.len());
            Ok(text[..end].trim_end().len())
        }
    }
}

/// The string a YAML scalar as written stands for.
fn decode_scalar(written: &str) -> Result<String, NotEditable> {
    serde_yaml_ng::from_str::<String>(written).map_err(|_| NotEditable)
}

/// A YAML scalar for `text`: plain when that reads back as the same
/// string, else double-quoted.
pub(super) fn yaml_scalar(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '/' | '.' | '~'))
        && !matches!(
            text,
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "~"
        )
        && text.parse::<f64>().is_err();
    if plain {
        text.to_string()
    } else {
        serde_json::to_string(text).unwrap_or_else(|_| format!("{text:?}"))
    }
}
