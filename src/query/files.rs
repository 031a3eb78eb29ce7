//! The files of one skill folder, listed once for `show`, `read` and
//! `grep`, so all three agree on what belongs to a skill.
//!
//! Symlinks are listed, not followed (a link may lead anywhere; `read`
//! decides per file whether its real target stays inside the skill). A
//! folder below that holds its own `SKILL.md` is a nested skill: it is named
//! by that file and not entered. Only regular files are listed, so a pipe
//! or device in a skill folder can never block a reader.

use crate::model::Skill;
use std::path::{Path, PathBuf};

/// Stop listing a skill folder after this many entries.
pub const MAX_ENTRIES: usize = 2_000;
/// Deepest folder level listed inside a skill.
pub const MAX_DEPTH: usize = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File,
    /// The `SKILL.md` of a skill nested in a sub-folder.
    NestedSkill,
    /// A symlink (to a file or a folder), not followed.
    Symlink,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderEntry {
    /// Path inside the skill folder, `/`-separated.
    pub path: String,
    pub absolute: PathBuf,
    pub kind: EntryKind,
    pub bytes: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FolderListing {
    /// Sorted by path.
    pub entries: Vec<FolderEntry>,
    /// True when the folder had more entries than are listed.
    pub truncated: bool,
}

/// Every file of `skill`'s folder except its own `SKILL.md`.
pub fn list_skill_folder(skill: &Skill) -> FolderListing {
    let mut listing = FolderListing::default();
    walk(skill.dir(), skill.dir(), &skill.path, &mut listing, 0);
    listing.entries.sort_by(|a, b| a.path.cmp(&b.path));
    listing
}

/// `path` relative to `root`, `/`-separated.
pub fn relative_name(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

fn walk(root: &Path, dir: &Path, skill_file: &Path, listing: &mut FolderListing, depth: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if listing.entries.len() >= MAX_ENTRIES {
            listing.truncated = true;
            return;
        }
        let skipped = path.file_name().is_some_and(|n| {
            crate::scan::SKIPPED_DIRS
                .iter()
                .any(|s| n == std::ffi::OsStr::new(s))
        });
        let Ok(metadata) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let mut push = |absolute: PathBuf, kind: EntryKind, bytes: u64| {
            listing.entries.push(FolderEntry {
                path: relative_name(root, &absolute),
                absolute,
                kind,
                bytes,
            })
        };
        if metadata.file_type().is_symlink() {
            push(path, EntryKind::Symlink, 0);
        } else if metadata.is_dir() {
            if skipped {
                continue;
            }
            let nested = crate::scan::SKILL_FILE_NAMES
                .iter()
                .map(|n| path.join(n))
                .find(|p| p.is_file());
            match nested {
                Some(nested) => {
                    let bytes = std::fs::metadata(&nested).map_or(0, |m| m.len());
                    push(nested, EntryKind::NestedSkill, bytes);
                }
                None if depth < MAX_DEPTH => walk(root, &path, skill_file, listing, depth + 1),
                None => {}
            }
        } else if metadata.is_file() && path != skill_file {
            push(path, EntryKind::File, metadata.len());
        }
    }
}
