//! Everything about one skill: metadata, extra front-matter keys, the
//! heading outline with line numbers, local links, and the files in its
//! folder with sizes and token estimates.
//!
//! Sub-files are listed, never returned: an agent decides what to open.
//! Nested skill folders are named but not entered (they are skills of their
//! own); symlinks are listed but not followed out of the skill folder.

use crate::catalog::{read_skill_text, read_text, Catalog};
use crate::entry::{Diagnostic, Skill};
use crate::parse::{self, markdown};
use crate::tokens;
use serde::Serialize;
use std::path::Path;

/// Text files up to this size are counted with the tokenizer; larger ones
/// are estimated at four bytes a token.
const EXACT_TOKENS_MAX_BYTES: u64 = 256 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SubFileKind {
    /// A Markdown file with a described front matter: a skill inside the skill.
    SubSkill,
    /// A folder below that holds its own `SKILL.md`: a separate skill.
    NestedSkill,
    Markdown,
    Script,
    Text,
    Binary,
    Symlink,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SubFile {
    /// Path inside the skill folder, `/`-separated.
    pub path: String,
    pub kind: SubFileKind,
    pub bytes: u64,
    /// Token count (exact for text up to 256 KiB, else estimated).
    pub tokens: Option<usize>,
    pub estimated: bool,
    /// For sub-skills and nested skills: their description.
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkInfo {
    pub target: String,
    pub line: u32,
    /// Whether the target exists inside the skill folder.
    pub resolves: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct SkillDetail<'a> {
    pub skill: &'a Skill,
    pub headings: Vec<markdown::Heading>,
    pub links: Vec<LinkInfo>,
    pub body_lines: usize,
    pub body_tokens: usize,
    /// True when the body is too large to count and `body_tokens` is an
    /// estimate (four bytes a token).
    pub body_tokens_estimated: bool,
    pub sub_files: Vec<SubFile>,
    /// True when the folder had more files than are listed.
    pub sub_files_truncated: bool,
    pub diagnostics: Vec<&'a Diagnostic>,
}

/// Gather the detail of `skill`. Reads its file and lists its folder.
pub fn skill_detail<'a>(
    catalog: &'a Catalog,
    skill: &'a Skill,
) -> std::io::Result<SkillDetail<'a>> {
    let text = read_skill_text(catalog.root_of(skill), &skill.path)?;
    let parsed = parse::parse_text(&text);
    let body = &text[parsed.body_offset.min(text.len())..];
    let outline = markdown::outline(&text, parsed.body_offset);
    let dir = skill.dir();
    let links = outline
        .links
        .iter()
        .map(|link| LinkInfo {
            target: link.target.clone(),
            line: link.line,
            resolves: crate::rules::link_state(dir, dir, &link.target)
                == crate::rules::LinkState::Resolves,
        })
        .collect();
    let (sub_files, truncated) = sub_files(catalog, skill);
    let diagnostics = catalog
        .diagnostics()
        .iter()
        .filter(|d| d.path == skill.path)
        .collect();
    Ok(SkillDetail {
        skill,
        headings: outline.headings,
        links,
        body_lines: body.lines().count(),
        body_tokens: if body.len() as u64 > EXACT_TOKENS_MAX_BYTES {
            body.len() / 4
        } else {
            tokens::count(body)
        },
        body_tokens_estimated: body.len() as u64 > EXACT_TOKENS_MAX_BYTES,
        sub_files,
        sub_files_truncated: truncated,
        diagnostics,
    })
}

fn sub_files(catalog: &Catalog, skill: &Skill) -> (Vec<SubFile>, bool) {
    use super::files::{list_skill_folder, EntryKind};
    let listing = list_skill_folder(catalog.root_of(skill), skill);
    let files = listing
        .entries
        .into_iter()
        // A disabled skill nested in this one is not announced.
        .filter(|entry| {
            entry.kind != EntryKind::NestedSkill
                || !catalog
                    .disabled_skills()
                    .iter()
                    .any(|d| d.path == entry.absolute)
        })
        .map(|entry| match entry.kind {
            EntryKind::File => describe_file(skill.dir(), &entry.path, entry.bytes),
            EntryKind::NestedSkill => SubFile {
                description: read_text(&entry.absolute)
                    .ok()
                    .and_then(|t| parse::frontmatter::description_of(&t))
                    .map(|d| crate::entry::one_line(&d)),
                path: entry.path,
                kind: SubFileKind::NestedSkill,
                bytes: entry.bytes,
                tokens: None,
                estimated: false,
            },
            EntryKind::Symlink => SubFile {
                description: std::fs::read_link(&entry.absolute)
                    .ok()
                    .map(|t| format!("→ {}", t.display())),
                path: entry.path,
                kind: SubFileKind::Symlink,
                bytes: 0,
                tokens: None,
                estimated: false,
            },
        })
        .collect();
    (files, listing.truncated)
}

/// Describe the file `relative` of the skill folder `dir`, opened inside
/// that folder (`contain`), as every read of a skill's files is.
fn describe_file(dir: &Path, relative: &str, bytes: u64) -> SubFile {
    let path = &dir.join(relative);
    let head = read_head(dir, relative, 8192);
    let relative = relative.to_string();
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let binary = head.contains(&0);
    let mut kind = if binary {
        SubFileKind::Binary
    } else if extension == "md" || extension == "markdown" {
        SubFileKind::Markdown
    } else if matches!(
        extension.as_str(),
        "sh" | "bash" | "py" | "js" | "ts" | "rb" | "pl" | "ps1"
    ) || head.starts_with(b"#!")
    {
        SubFileKind::Script
    } else {
        SubFileKind::Text
    };
    let mut description = None;
    let (tokens, estimated) = if binary {
        (None, false)
    } else if bytes <= EXACT_TOKENS_MAX_BYTES {
        match crate::contain::read_inside(dir, &relative, EXACT_TOKENS_MAX_BYTES)
            .map(|bytes| parse::decode(&bytes).0.into_owned())
        {
            Ok(text) => {
                if kind == SubFileKind::Markdown {
                    if let Some(d) = parse::frontmatter::description_of(&text) {
                        kind = SubFileKind::SubSkill;
                        description = Some(crate::entry::one_line(&d));
                    }
                }
                (Some(tokens::count(&text)), false)
            }
            Err(_) => (None, false),
        }
    } else {
        (Some((bytes / 4) as usize), true)
    };
    SubFile {
        path: relative,
        kind,
        bytes,
        tokens,
        estimated,
        description,
    }
}

fn read_head(dir: &Path, relative: &str, limit: u64) -> Vec<u8> {
    let opened = crate::contain::Folder::open(dir)
        .ok()
        .and_then(|folder| folder.open_path(relative).ok())
        .filter(|opened| opened.kind == crate::contain::OpenedKind::File);
    opened
        .and_then(|opened| crate::contain::read_at_most(opened.file, limit).ok())
        .unwrap_or_default()
}
