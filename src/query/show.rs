//! Everything about one skill: metadata, extra front-matter keys, the
//! heading outline with line numbers, local links, and the files in its
//! folder with sizes and token estimates.
//!
//! Sub-files are listed, never returned: an agent decides what to open.
//! Nested skill folders are named but not entered (they are skills of their
//! own); symlinks are listed but not followed out of the skill folder.

use crate::catalog::{read_text, Catalog};
use crate::model::{Diagnostic, Skill};
use crate::parse::{self, markdown};
use crate::tokens;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Stop listing a skill folder after this many files.
pub const MAX_SUB_FILES: usize = 2_000;
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
    let text = read_text(&skill.path)?;
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
    let mut sub_files = Vec::new();
    let mut truncated = false;
    list_folder(dir, dir, skill, &mut sub_files, &mut truncated, 0);
    sub_files.sort_by(|a, b| a.path.cmp(&b.path));
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
        body_tokens: tokens::count(body),
        sub_files,
        sub_files_truncated: truncated,
        diagnostics,
    })
}

fn relative_name(dir: &Path, path: &Path) -> String {
    path.strip_prefix(dir)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

fn list_folder(
    root: &Path,
    dir: &Path,
    skill: &Skill,
    out: &mut Vec<SubFile>,
    truncated: &mut bool,
    depth: usize,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if out.len() >= MAX_SUB_FILES {
            *truncated = true;
            return;
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if crate::scan::SKIPPED_DIRS.contains(&name.as_str()) {
            continue;
        }
        let Ok(link_meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if link_meta.file_type().is_symlink() {
            out.push(SubFile {
                path: relative_name(root, &path),
                kind: SubFileKind::Symlink,
                bytes: 0,
                tokens: None,
                estimated: false,
                description: std::fs::read_link(&path)
                    .ok()
                    .map(|t| format!("→ {}", t.display())),
            });
            continue;
        }
        if link_meta.is_dir() {
            let nested = crate::scan::SKILL_FILE_NAMES
                .iter()
                .map(|n| path.join(n))
                .find(|p| p.is_file());
            if let Some(nested) = nested {
                let description = read_text(&nested)
                    .ok()
                    .and_then(|t| parse::frontmatter::description_of(&t));
                out.push(SubFile {
                    path: relative_name(root, &nested),
                    kind: SubFileKind::NestedSkill,
                    bytes: std::fs::metadata(&nested).map(|m| m.len()).unwrap_or(0),
                    tokens: None,
                    estimated: false,
                    description: description.map(|d| crate::model::one_line(&d)),
                });
            } else if depth < 8 {
                list_folder(root, &path, skill, out, truncated, depth + 1);
            }
            continue;
        }
        if path == skill.path || !link_meta.is_file() {
            continue;
        }
        out.push(describe_file(root, &path, link_meta.len()));
    }
}

fn describe_file(root: &Path, path: &Path, bytes: u64) -> SubFile {
    let relative = relative_name(root, path);
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let head = read_head(path, 8192);
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
        match read_text(path) {
            Ok(text) => {
                if kind == SubFileKind::Markdown {
                    if let Some(d) = parse::frontmatter::description_of(&text) {
                        kind = SubFileKind::SubSkill;
                        description = Some(crate::model::one_line(&d));
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

fn read_head(path: &Path, limit: u64) -> Vec<u8> {
    use std::io::Read;
    let mut buffer = Vec::new();
    if let Ok(file) = std::fs::File::open(path) {
        let _ = file.take(limit).read_to_end(&mut buffer);
    }
    buffer
}
