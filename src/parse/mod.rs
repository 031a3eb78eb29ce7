//! Parsing one skill file: bytes in, fields and findings out.
//!
//! `frontmatter` owns the YAML header, `markdown` the body. This module owns
//! decoding (BOM, invalid UTF-8) and ties the two together. Nothing here
//! touches the filesystem; callers hand in bytes.

pub mod bounds;
pub mod frontmatter;
pub mod markdown;

use crate::entry::{Code, Position};
pub use frontmatter::{Fields, Finding};
use std::borrow::Cow;

/// The result of parsing a `SKILL.md`.
#[derive(Debug, Clone, Default)]
pub struct ParsedFile {
    /// `None` when the header is missing or unreadable: the skill cannot load.
    pub fields: Option<Fields>,
    pub findings: Vec<Finding>,
    /// Byte offset of the body in the decoded text (after any BOM).
    pub body_offset: usize,
    /// 1-based line where the body starts.
    pub body_line: u32,
}

/// Decode file bytes as UTF-8, skipping a byte-order mark. Invalid bytes are
/// replaced with U+FFFD and reported once, at the first bad byte.
pub fn decode(bytes: &[u8]) -> (Cow<'_, str>, Option<Finding>) {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => (Cow::Borrowed(text), None),
        Err(error) => {
            let good = &bytes[..error.valid_up_to()];
            // The valid prefix is UTF-8 by construction.
            let prefix = String::from_utf8_lossy(good);
            let line = prefix.matches('\n').count() as u32 + 1;
            let column = prefix.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
            let finding = Finding::new(
                Code::InvalidUtf8,
                Position { line, column },
                "file is not valid UTF-8; the bad bytes were replaced with U+FFFD — re-save the file as UTF-8",
            );
            (String::from_utf8_lossy(bytes), Some(finding))
        }
    }
}

/// Parse the decoded text of a skill file.
pub fn parse_text(text: &str) -> ParsedFile {
    let mut parsed = ParsedFile {
        body_line: 1,
        ..ParsedFile::default()
    };
    match frontmatter::split(text) {
        Ok(split) => {
            parsed.body_offset = split.body_offset;
            parsed.body_line = split.body_line;
            if split.late_start {
                parsed.findings.push(Finding::new(
                    Code::FrontmatterNotAtStart,
                    Position {
                        line: split.yaml_line - 1,
                        column: 1,
                    },
                    "blank lines come before the opening `---`; other tools will not see the front matter — delete them",
                ));
            }
            let (fields, findings) = frontmatter::parse_fields(&split);
            parsed.fields = fields;
            parsed.findings.extend(findings);
        }
        Err(frontmatter::SplitError::Empty) => parsed.findings.push(Finding::new(
            Code::FrontmatterMissing,
            Position::START,
            "file is empty — start it with `---`, a `name:` and a `description:` line, and `---`",
        )),
        Err(frontmatter::SplitError::Missing) => parsed.findings.push(Finding::new(
            Code::FrontmatterMissing,
            Position::START,
            "no front matter: the file must start with a `---` line, then `name:` and `description:`, then `---`",
        )),
        Err(frontmatter::SplitError::Unterminated { open_line }) => {
            parsed.findings.push(Finding::new(
                Code::FrontmatterUnterminated,
                Position {
                    line: open_line,
                    column: 1,
                },
                format!(
                    "front matter opened on line {open_line} is never closed — add a `---` line after the last key"
                ),
            ))
        }
    }
    parsed
}

/// Parse raw bytes: decode, then parse. Never panics, whatever the bytes.
pub fn parse_bytes(bytes: &[u8]) -> ParsedFile {
    let (text, utf8) = decode(bytes);
    let mut parsed = parse_text(&text);
    if let Some(finding) = utf8 {
        parsed.findings.insert(0, finding);
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_is_skipped() {
        let parsed = parse_bytes(b"\xEF\xBB\xBF---\nname: a\ndescription: b\n---\n");
        assert!(parsed.findings.is_empty());
        assert_eq!(parsed.fields.unwrap().name.as_deref(), Some("a"));
    }

    #[test]
    fn invalid_utf8_is_reported_at_the_first_bad_byte() {
        let parsed = parse_bytes(b"---\nname: a\ndescription: caf\xE9 au lait\n---\n");
        assert_eq!(parsed.findings[0].code, Code::InvalidUtf8);
        assert_eq!(
            parsed.findings[0].position,
            Position {
                line: 3,
                column: 17
            }
        );
        assert!(parsed
            .fields
            .unwrap()
            .description
            .unwrap()
            .contains('\u{FFFD}'));
    }
}
