//! Progressive disclosure: read one skill, one section of it, a range of
//! lines, or one of its files — and nothing outside the skill's folder.
//!
//! Every path is resolved inside the skill folder twice: lexically (no
//! absolute paths, no `..` climbing out) and on disk (the real path of the
//! target must stay inside the real skill folder, so a symlink cannot lead
//! out). Reads are capped (about 5,000 tokens by default) at a line
//! boundary, with the exact `--lines` range to continue from.
//!
//! Files: `targets` (what a target names), `folder` (listing and opening
//! the files of a skill), `sections` (sections and lines of a text),
//! `errors` (why a read was refused); this file holds the request, the
//! result and `read` itself.

use crate::catalog::Catalog;
use crate::contain;
use crate::parse::{self, markdown};
use crate::tokens;
use serde::Serialize;
use std::path::PathBuf;

/// What every "is disabled" message says to do.
pub const HOW_TO_ENABLE: &str = "remove it from the `disabled` list of skilldex.yaml (or list it under `enabled`), or unset it in SKILLDEX_DISABLED; through MCP an agent can ask the user with the `request_skill_enable` tool";

/// Default cap of one read, in o200k tokens.
pub const DEFAULT_MAX_TOKENS: usize = 5_000;
pub use crate::contain::MAX_READ_BYTES;

mod errors;
mod folder;
mod sections;
mod targets;

use folder::nested_owner;
use sections::floor_char_boundary;
use sections::line_starts;
use sections::line_text;
use sections::section_range;

pub use errors::{unreadable_text, NamespacePart, ReadError};
pub use folder::{open_file, resolve_file, skill_files, DisabledInside, NestedRefusal};
pub(crate) use targets::unreadable_folder;
pub use targets::{
    is_blank_target, locate_path, resolve_name, resolve_target, unknown_name, PathTarget,
};

/// A 1-based, inclusive range of lines; either end may be open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LineRange {
    pub start: Option<usize>,
    pub end: Option<usize>,
}

/// Why a `--lines` value is not a range of lines.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineRangeError {
    #[error("line numbers start at 1")]
    Zero,
    #[error("`{0}` is not a line number")]
    NotANumber(String),
    #[error("the range {start}:{end} ends before it starts")]
    Backwards { start: usize, end: usize },
}

impl std::str::FromStr for LineRange {
    type Err = LineRangeError;

    /// `A:B`, `A:`, `:B` or `A` (one line).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let number = |s: &str| -> Result<Option<usize>, LineRangeError> {
            let s = s.trim();
            if s.is_empty() {
                return Ok(None);
            }
            match s.parse::<usize>() {
                Ok(0) => Err(LineRangeError::Zero),
                Ok(n) => Ok(Some(n)),
                Err(_) => Err(LineRangeError::NotANumber(s.to_string())),
            }
        };
        let (start, end) = match text.split_once(':') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => {
                let n = number(text)?;
                (n, n)
            }
        };
        if let (Some(start), Some(end)) = (start, end) {
            if start > end {
                return Err(LineRangeError::Backwards { start, end });
            }
        }
        Ok(LineRange { start, end })
    }
}

/// What to read.
#[derive(Debug, Clone, Default)]
pub struct ReadRequest {
    /// `NAME`, or `NAME/PATH/INSIDE/THE/SKILL` (NAME may be a qualified id).
    pub target: String,
    /// A file inside the skill, for callers that take it apart from the
    /// name (`read_skill`); empty for `SKILL.md`. When set, `target` is the
    /// skill's name, and a name that matches nothing is reported whole
    /// (`ns1/zeta` as namespace `ns1`, skill `zeta`) instead of read as
    /// `NAME/PATH`.
    pub path: Option<String>,
    /// The whole file, front matter included.
    pub raw: bool,
    /// A heading's text or slug.
    pub section: Option<String>,
    pub lines: Option<LineRange>,
    /// Cap in tokens (0 = the default).
    pub max_tokens: usize,
}

/// A file of a skill, as listed in read headers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListedFile {
    pub path: String,
    /// Set for nested skills and sub-skills.
    pub kind: Option<&'static str>,
}

/// The answer to a read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadResult {
    /// Id of the skill.
    pub skill: String,
    /// Path of the file inside the skill folder (`SKILL.md`, `references/x.md`).
    pub path: String,
    /// The skill folder.
    pub folder: PathBuf,
    pub content: String,
    pub start_line: usize,
    pub end_line: usize,
    pub total_lines: usize,
    pub truncated: bool,
    /// The `--lines` argument that continues the read, when truncated.
    pub next: Option<String>,
    /// Something the reader should know (lossy decoding, a cut line).
    pub note: Option<String>,
    /// The skill's other files (never their contents).
    pub files: Vec<ListedFile>,
    /// Local links of the file read, and whether each resolves.
    pub links: Vec<LinkState>,
}

impl ReadResult {
    /// The skill's files as one line (`a.md, scripts/run.sh (script)`),
    /// at most `max` named, then `and N more`; `None` when there are none.
    pub fn files_line(&self, max: usize) -> Option<String> {
        if self.files.is_empty() {
            return None;
        }
        let mut line = self
            .files
            .iter()
            .take(max)
            .map(|f| match f.kind {
                Some(kind) => format!("{} ({kind})", f.path),
                None => f.path.clone(),
            })
            .collect::<Vec<_>>()
            .join(", ");
        let more = self.files.len().saturating_sub(max);
        if more > 0 {
            line.push_str(&format!(" and {more} more"));
        }
        Some(line)
    }
}

/// A heading of the file, offered when `--section` named none or several.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SectionCandidate {
    pub heading: String,
    /// Unique in the file; `--section SLUG` picks exactly this heading.
    pub slug: String,
    /// Whether `--section SLUG` picks this heading alone. It does not when
    /// another heading's text is the same words (two `## Steps`: `steps`
    /// names both, `steps-1` only the second); read it by its lines then.
    pub slug_selects: bool,
    /// First and last line of the section.
    pub line: usize,
    pub end_line: usize,
    pub level: u8,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkState {
    pub target: String,
    pub resolves: bool,
}

/// The longest skill name and path inside it that `read` looks up:
/// Linux's `PATH_MAX`, beyond which no path opens.
pub const MAX_TARGET_BYTES: usize = 4096;

/// Read what `request` asks for.
pub fn read(catalog: &Catalog, request: &ReadRequest) -> Result<ReadResult, ReadError> {
    let bytes = request.target.len() + request.path.as_ref().map_or(0, String::len);
    if bytes > MAX_TARGET_BYTES {
        return Err(ReadError::TooLong { bytes });
    }
    let (skill, relative) = match &request.path {
        None => resolve_target(catalog, &request.target)?,
        Some(path) => {
            let (skill, inside) = resolve_name(catalog, &request.target)?;
            let relative = match (inside.is_empty(), path.is_empty()) {
                (_, true) => inside,
                (true, false) => path.clone(),
                (false, false) => format!("{inside}/{path}"),
            };
            (skill, relative)
        }
    };
    // A file of a skill nested in this one is that skill's: read there,
    // and refused when that skill is disabled.
    let (skill, relative) = match nested_owner(catalog, skill, &relative)? {
        Some((nested, rest)) => (nested, rest),
        None => (skill, relative),
    };
    let is_skill_file =
        relative.is_empty() || relative == "SKILL.md" && skill.path.ends_with("SKILL.md");
    let relative = if is_skill_file {
        skill
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    } else {
        relative
    };
    let (opened, folder) = open_file(catalog.root_of(skill), skill, &relative)?;
    let file = skill.dir().join(&opened.real);
    match DisabledInside::new(catalog, skill).refusal(&opened.real_path(&folder)) {
        Some(NestedRefusal::Disabled(id)) => {
            return Err(ReadError::Disabled {
                name: id.to_string(),
            })
        }
        Some(NestedRefusal::NotLoaded(real_folder)) => {
            let file = crate::scan::SKILL_FILE_NAMES
                .iter()
                .map(|n| real_folder.join(n))
                .find(|f| f.is_file())
                .unwrap_or(real_folder);
            return Err(ReadError::LinkIntoNotLoaded {
                skill: skill.id.clone(),
                path: relative,
                file,
            });
        }
        None => {}
    }
    let size = opened.len;
    if size > MAX_READ_BYTES {
        // Too large to read, and what grep cannot search either: say which.
        if contain::starts_binary(&opened.file) {
            return Err(ReadError::Binary {
                skill: skill.id.clone(),
                path: relative,
                bytes: size,
            });
        }
        return Err(ReadError::TooLarge {
            skill: skill.id.clone(),
            path: relative,
            bytes: size,
        });
    }
    let bytes =
        contain::read_at_most(opened.file, MAX_READ_BYTES).map_err(|source| ReadError::Io {
            path: file.clone(),
            source,
        })?;
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return Err(ReadError::Binary {
            skill: skill.id.clone(),
            path: relative,
            bytes: size,
        });
    }
    let (text, utf8) = parse::decode(&bytes);
    let mut note = utf8.map(|f| {
        format!(
            "the file is not valid UTF-8 (first bad byte at line {}, column {}); invalid bytes are shown as U+FFFD",
            f.position.line, f.position.column
        )
    });
    let text = text.as_ref();
    let line_starts = line_starts(text);
    let total_lines = line_starts.len();
    let is_markdown = relative.ends_with(".md") || relative.ends_with(".markdown");
    let header_end_line = if is_markdown {
        let parsed = parse::parse_text(text);
        // The skill file's header is stripped even when its YAML is broken;
        // another file's only when it is a YAML mapping (a reference that
        // opens with a `---` rule keeps its first lines).
        let is_skill_file = file == skill.path;
        (parsed.fields.is_some() || is_skill_file && parse::frontmatter::split(text).is_ok())
            .then_some(parsed.body_line as usize)
    } else {
        None
    };
    let body_offset = match header_end_line {
        Some(line) => line_starts.get(line - 1).copied().unwrap_or(text.len()),
        None => 0,
    };

    // Pick the lines: a section, a range, the body, or everything.
    // A continuation stays inside what was asked for: a section, or a range
    // with an end. Whole-file and open-ended reads continue to the end.
    let mut bounded = false;
    let (first, last) = if let Some(heading) = &request.section {
        if !is_markdown {
            return Err(ReadError::NotMarkdown {
                skill: skill.id.clone(),
                path: relative,
            });
        }
        let outline = markdown::outline(text, body_offset).headings;
        bounded = true;
        let source_line = |number: usize| {
            line_starts
                .get(number.wrapping_sub(1))
                .map(|_| line_text(text, &line_starts, number).to_string())
                .unwrap_or_default()
        };
        section_range(&outline, heading, total_lines, &source_line).map_err(
            |(matches, outline)| ReadError::Section {
                skill: skill.id.clone(),
                path: relative.clone(),
                heading: heading.clone(),
                matches,
                outline,
            },
        )?
    } else if let Some(range) = request.lines {
        bounded = range.end.is_some();
        let start = range.start.unwrap_or(1);
        let end = range.end.unwrap_or(total_lines).min(total_lines);
        if start > total_lines.max(1) {
            return Err(ReadError::Lines {
                path: relative,
                requested: format!(
                    "{}:{}",
                    start,
                    range.end.map(|e| e.to_string()).unwrap_or_default()
                ),
                total: total_lines,
            });
        }
        (start, end)
    } else if request.raw {
        (1, total_lines)
    } else {
        // The body; a file that is all header has an empty one.
        (header_end_line.unwrap_or(1), total_lines)
    };

    let max_tokens = if request.max_tokens == 0 {
        DEFAULT_MAX_TOKENS
    } else {
        request.max_tokens
    };
    let mut content = String::new();
    let mut used = 0;
    let mut end_line = first.saturating_sub(1);
    let mut truncated = false;
    // A token covers at least one byte: a selection no longer in bytes than
    // the cap fits without loading the tokenizer.
    let selected_bytes = if first <= last {
        line_starts.get(last).copied().unwrap_or(text.len()) - line_starts[first - 1]
    } else {
        0
    };
    let exact = selected_bytes > max_tokens;
    for number in first..=last {
        let line = line_text(text, &line_starts, number);
        // A line longer than 64 bytes per token of the cap cannot fit in
        // practice; it is not tokenized (a 10 MB line would take seconds).
        let cost = if !exact {
            line.len()
        } else if line.len() > max_tokens.saturating_mul(64) {
            usize::MAX / 2
        } else {
            tokens::count(line)
        };
        if used + cost > max_tokens {
            if number == first {
                // One line larger than the whole cap: show its start.
                let keep = floor_char_boundary(line, max_tokens.saturating_mul(3));
                content.push_str(&line[..keep]);
                content.push_str("…\n");
                note = Some(format!(
                    "line {number} is {} bytes; only its first {keep} bytes are shown",
                    line.len()
                ));
                end_line = number;
            }
            truncated = true;
            break;
        }
        used += cost;
        content.push_str(line);
        end_line = number;
    }
    if !truncated && first > last {
        end_line = last;
    }
    let next = (truncated && end_line < last).then(|| {
        if bounded {
            format!("{}:{last}", end_line + 1)
        } else {
            format!("{}:", end_line + 1)
        }
    });
    let links = if is_markdown {
        // The folder of the file as the skill sees it (not its real path),
        // so relative links resolve the way the author wrote them.
        let logical = skill.dir().join(&relative);
        let folder_of_file = logical.parent().unwrap_or(skill.dir());
        markdown::outline(text, body_offset)
            .links
            .into_iter()
            .map(|link| LinkState {
                resolves: crate::rules::link_state(skill.dir(), folder_of_file, &link.target)
                    == crate::rules::LinkState::Resolves,
                target: link.target,
            })
            .collect()
    } else {
        Vec::new()
    };
    // A live catalog keeps a broken skill's last good name and description;
    // the file itself is read as it is now, so say so.
    if file == skill.path && catalog.is_stale(&skill.id) {
        let problem = catalog
            .diagnostics()
            .iter()
            .find(|d| d.path == skill.path && d.severity == crate::entry::Severity::Error)
            .map(|d| {
                format!(
                    " ({}:{}: {}: {})",
                    d.line,
                    d.column,
                    d.code.as_str(),
                    d.message
                )
            })
            .unwrap_or_default();
        let stale = format!(
            "this SKILL.md is broken on disk right now{problem}; the directory and search keep its last good name and description until it is fixed, and what follows is the file as it is now"
        );
        note = Some(match note {
            Some(other) => format!("{stale}; {other}"),
            None => stale,
        });
    }
    Ok(ReadResult {
        skill: skill.id.clone(),
        path: relative,
        folder: skill.dir().to_path_buf(),
        content,
        start_line: first,
        end_line,
        total_lines,
        truncated,
        next,
        note,
        // A disabled skill nested in this one is not announced.
        files: skill_files(catalog.root_of(skill), skill)
            .into_iter()
            .filter(|f| {
                f.kind != Some("nested skill")
                    || !catalog
                        .disabled_skills()
                        .iter()
                        .any(|d| d.path == skill.dir().join(&f.path))
            })
            .collect(),
        links,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_ranges_parse() {
        assert_eq!(
            "3:7".parse(),
            Ok(LineRange {
                start: Some(3),
                end: Some(7)
            })
        );
        assert_eq!(
            "3:".parse(),
            Ok(LineRange {
                start: Some(3),
                end: None
            })
        );
        assert_eq!(
            ":7".parse(),
            Ok(LineRange {
                start: None,
                end: Some(7)
            })
        );
        assert_eq!(
            "5".parse(),
            Ok(LineRange {
                start: Some(5),
                end: Some(5)
            })
        );
        assert!("7:3".parse::<LineRange>().is_err());
        assert!("0:3".parse::<LineRange>().is_err());
        assert!("x".parse::<LineRange>().is_err());
    }
}
