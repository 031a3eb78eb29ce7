//! The files of one skill folder, listed once for `show`, `read` and
//! `grep`, so all three agree on what belongs to a skill.
//!
//! A file the tree's `.ignore`/`.gitignore` rules leave out of a scan
//! (those of the root and every folder down to the file) is left out here
//! too, so `grep` through the CLI and through MCP search the same files.
//!
//! Symlinks are listed, not followed (a link may lead anywhere; `read`
//! decides per file whether its real target stays inside the skill). A
//! folder below that holds its own `SKILL.md` is a nested skill: it is named
//! by that file and not entered. Only regular files are listed, so a pipe
//! or device in a skill folder can never block a reader.

use crate::entry::Skill;
use crate::scan::{FolderRules, RulesCache};
use std::ffi::OsStr;
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

/// Every file of `skill`'s folder except its own `SKILL.md`; `root` is the
/// root the skill was found in (whose ignore rules apply).
pub fn list_skill_folder(root: &Path, skill: &Skill) -> FolderListing {
    list_skill_folder_with(&mut RulesCache::default(), root, skill)
}

/// `list_skill_folder` for many skills, reading each folder's ignore files
/// once.
pub(crate) fn list_skill_folder_with(
    cache: &mut RulesCache,
    root: &Path,
    skill: &Skill,
) -> FolderListing {
    let dir = skill.dir();
    let above = cache.rules_above(root, dir);
    let mut listing = FolderListing::default();
    walk(dir, dir, &skill.path, &above, &mut listing, 0);
    listing.entries.sort_by(|a, b| a.path.cmp(&b.path));
    listing
}

/// Why `path`, a file or folder inside `skill`'s folder (joined to it, no
/// `..`), is not part of the skill: it or a folder above it is one the
/// scan never enters (`.git`, `node_modules`, `target`) or is left out by
/// the tree's ignore rules. `None` when it is part of the skill.
pub fn left_out(root: &Path, skill: &Skill, path: &Path) -> Option<String> {
    let dir = skill.dir();
    let inside = path.strip_prefix(dir).ok()?;
    let mut rules = RulesCache::default();
    let mut current = dir.to_path_buf();
    let count = inside.components().count();
    for (i, component) in inside.components().enumerate() {
        let name = component.as_os_str();
        let parent_rules = rules.rules_in(root, &current);
        current.push(name);
        let is_dir = i + 1 < count || current.is_dir();
        let shown = relative_name(dir, &current);
        if is_dir
            && crate::scan::SKIPPED_DIRS
                .iter()
                .any(|s| name == OsStr::new(s))
        {
            return Some(format!(
                "`{shown}` is a folder skilldex never reads ({})",
                crate::scan::SKIPPED_DIRS.join(", ")
            ));
        }
        if parent_rules.ignores(&current, is_dir) {
            return Some(format!(
                "`{shown}` is left out by the tree's .gitignore/.ignore rules"
            ));
        }
    }
    None
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

/// List `dir` into `listing`; `above` are the rules in force in its parent.
fn walk(
    root: &Path,
    dir: &Path,
    skill_file: &Path,
    above: &FolderRules,
    listing: &mut FolderListing,
    depth: usize,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    // Ignore files that are folders are no rules; `enter` reads only files.
    let has = |name: &str| {
        paths
            .iter()
            .any(|p| p.file_name() == Some(OsStr::new(name)))
    };
    let rules = above.enter(dir, has(".ignore"), has(".gitignore"));
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
        if rules.ignores(&path, metadata.is_dir()) {
            continue;
        }
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
                None if depth < MAX_DEPTH => {
                    walk(root, &path, skill_file, &rules, listing, depth + 1)
                }
                None => {}
            }
        } else if metadata.is_file() && path != skill_file {
            push(path, EntryKind::File, metadata.len());
        }
    }
}
