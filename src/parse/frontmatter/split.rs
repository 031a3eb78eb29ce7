//! Splitting a Markdown file into its YAML header and its body at `---`
//! delimiter lines (a `---` inside a value is text), with the offsets and
//! lines of each.

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
pub(super) fn lines_with_offsets(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut ends = crate::parse::markdown::line_ends(text);
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

pub(super) fn is_delimiter(line: &str, closing: bool) -> bool {
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

pub(super) fn next_line_offset(text: &str, line_start: usize) -> usize {
    crate::parse::markdown::line_ends(&text[line_start..])
        .next()
        .map_or(text.len(), |end| line_start + end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::frontmatter::parse_fields;

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
}
