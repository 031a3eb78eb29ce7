//! The files of a skill: listing them, resolving a relative path inside
//! the skill folder and opening it through `contain` (the security
//! boundary), and which folders inside a skill belong to a nested skill
//! that is disabled.

use super::errors::ReadError;
use super::ListedFile;
use crate::catalog::resolve_inside;
use crate::catalog::Catalog;
use crate::contain;
use crate::entry::Skill;
use std::path::Path;
use std::path::PathBuf;

/// Every file of a skill folder, relative, sorted (see `files`); `root` is
/// the root the skill was found in (`Catalog::root_of`).
pub fn skill_files(root: &Path, skill: &Skill) -> Vec<ListedFile> {
    use crate::query::files::{list_skill_folder, EntryKind};
    list_skill_folder(root, skill)
        .entries
        .into_iter()
        .map(|entry| ListedFile {
            kind: match entry.kind {
                EntryKind::File => None,
                EntryKind::NestedSkill => Some("nested skill"),
                EntryKind::Symlink => Some("symlink"),
            },
            path: entry.path,
        })
        .collect()
}

/// Resolve `relative` inside the skill folder, on paper and on disk; `root`
/// is the root the skill was found in (`Catalog::root_of`). The file's real
/// path; reading it by that name again would race, so readers use
/// `open_file`.
pub fn resolve_file(root: &Path, skill: &Skill, relative: &str) -> Result<PathBuf, ReadError> {
    let (opened, folder) = open_file(root, skill, relative)?;
    Ok(opened.real_path(&folder))
}

/// Open `relative` inside the skill folder through the boundary
/// (`contain`): never outside the skill's real folder, never a pipe or
/// device, and never a file the scan leaves out, judged where it really is
/// (a link to `.git/config` or to an ignored file is left out like them).
pub fn open_file(
    root: &Path,
    skill: &Skill,
    relative: &str,
) -> Result<(contain::Opened, contain::Folder), ReadError> {
    let escapes = |reason: &str| ReadError::Escapes {
        skill: skill.id.clone(),
        path: relative.to_string(),
        reason: reason.to_string(),
        target: None,
    };
    if relative.contains('\0') {
        return Err(escapes("contains a NUL byte"));
    }
    let dir = skill.dir();
    let candidate = resolve_inside(dir, relative).map_err(|e| escapes(&e.to_string()))?;
    let not_found = || ReadError::NotFound {
        skill: skill.id.clone(),
        path: relative.to_string(),
        files: skill_files(root, skill)
            .into_iter()
            .map(|f| f.path)
            .collect(),
    };
    let folder = contain::Folder::open(dir).map_err(|source| ReadError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    // The skill file itself may be a symlink to elsewhere in the root.
    let is_skill_file = skill.path.file_name() == Some(std::ffi::OsStr::new(relative));
    let opened = if is_skill_file {
        folder.open_skill_file(relative, root, &skill.path)
    } else {
        folder.open_path(relative)
    };
    let opened = opened.map_err(|refusal| match refusal {
        contain::Refusal::Escapes(reason) => escapes(&reason),
        contain::Refusal::LinksOut { target } => ReadError::Escapes {
            skill: skill.id.clone(),
            path: relative.to_string(),
            reason: if is_skill_file {
                contain::Refusal::SKILL_FILE_OUT
            } else {
                contain::Refusal::LINK_OUT
            }
            .to_string(),
            target: Some(target),
        },
        contain::Refusal::Dangling => escapes("is a symlink whose target does not exist"),
        contain::Refusal::Missing => not_found(),
        contain::Refusal::Special(what) => ReadError::NotAFile {
            skill: skill.id.clone(),
            path: relative.to_string(),
            what,
        },
        contain::Refusal::Io(source) => ReadError::Io {
            path: candidate.clone(),
            source,
        },
    })?;
    // Only what a scan sees is part of the skill (as `show` lists it and
    // `grep` searches it): the path as asked, and where it really is.
    let real = dir.join(&opened.real);
    for path in [&candidate, &real] {
        if let Some(why) = crate::query::files::left_out(root, skill, path) {
            return Err(ReadError::LeftOut {
                skill: skill.id.clone(),
                path: relative.to_string(),
                why,
            });
        }
        if !opened.through_link {
            break;
        }
    }
    if opened.kind == contain::OpenedKind::Folder {
        let files = skill_files(root, skill)
            .into_iter()
            .map(|f| f.path)
            .filter(|p| p.starts_with(&format!("{}/", relative.trim_end_matches('/'))))
            .collect();
        return Err(ReadError::IsFolder {
            skill: skill.id.clone(),
            path: relative.to_string(),
            files,
        });
    }
    Ok((opened, folder))
}

/// When `relative` (inside `skill`'s folder) lies in a folder below that
/// holds a skill file, the skill of the deepest such folder and the path
/// inside it: every file belongs to its nearest skill, as `grep` answers
/// it. A folder reached through a symlink is matched by its real place. A
/// disabled skill, or a skill file that did not load, refuses; a folder the
/// scan leaves out is left to `resolve_file` to refuse.
pub(super) fn nested_owner<'a>(
    catalog: &'a Catalog,
    skill: &Skill,
    relative: &str,
) -> Result<Option<(&'a Skill, String)>, ReadError> {
    let parts: Vec<&str> = relative.split('/').filter(|p| !p.is_empty()).collect();
    if parts.iter().any(|p| *p == "." || *p == "..") {
        return Ok(None); // Refused by `resolve_file`.
    }
    let root = catalog.root_of(skill);
    let mut folder = skill.dir().to_path_buf();
    let mut owner = None;
    for (i, part) in parts.iter().enumerate() {
        folder.push(part);
        if crate::query::files::left_out(root, skill, &folder).is_some() {
            return Ok(None);
        }
        // Nothing below a file or a missing folder holds a skill file; the
        // rest of the path is checked in one pass (one per part would make
        // a long target cost its square).
        if !folder.is_dir() {
            let rest = &parts[i + 1..];
            if !rest.is_empty() {
                let mut whole = folder.clone();
                whole.extend(rest);
                if crate::query::files::left_out(root, skill, &whole).is_some() {
                    return Ok(None);
                }
            }
            break;
        }
        if let Some(file) = crate::scan::SKILL_FILE_NAMES
            .iter()
            .map(|n| folder.join(n))
            .find(|f| f.is_file())
        {
            owner = Some((file, i + 1));
        }
    }
    let Some((file, used)) = owner else {
        return Ok(None);
    };
    let rest = parts[used..].join("/");
    let dir = file.parent().unwrap_or(&file);
    // Skills nested in this one, by their folder as written, else by their
    // real folder (an alias symlink inside the skill).
    let nested = || {
        catalog
            .skills()
            .iter()
            .map(|s| (s, false))
            .chain(catalog.disabled_skills().iter().map(|s| (s, true)))
            .filter(|(s, _)| s.dir() != skill.dir() && s.dir().starts_with(skill.dir()))
    };
    let found = nested().find(|(s, _)| s.dir() == dir).or_else(|| {
        let real = dir.canonicalize().ok()?;
        nested().find(|(s, _)| s.dir().canonicalize().is_ok_and(|d| d == real))
    });
    match found {
        Some((nested, false)) => Ok(Some((nested, rest))),
        Some((disabled, true)) => Err(ReadError::Disabled {
            name: disabled.id.clone(),
        }),
        None => match catalog.load_error(&file) {
            Some(diagnostic) => Err(ReadError::NotLoadedSkill {
                name: parts[used - 1].to_string(),
                diagnostic: Box::new(diagnostic.clone()),
            }),
            None => Err(ReadError::NotLoaded {
                path: parts[..used].join("/"),
                skill: skill.id.clone(),
                file,
            }),
        },
    }
}

/// The nested skills of one skill that a symlink inside it must never lead
/// into: those disabled, and skill files below it that did not load (a
/// broken one, one the scan left out). Every file belongs to its nearest
/// skill, so a link to such a file is judged as that file is when asked for
/// by its own path. Built once per skill; with no nested skill file it
/// checks nothing.
pub struct DisabledInside {
    /// The skill's real folder (`None`: it could not be resolved).
    real_dir: Option<PathBuf>,
    /// (real folder, id) of the disabled nested skills.
    folders: Vec<(PathBuf, String)>,
    /// Real folders of the enabled nested skills: their files are theirs.
    enabled: Vec<PathBuf>,
}

/// Why a link inside a skill may not lead to a file (`DisabledInside`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NestedRefusal<'a> {
    /// The file is in the folder of this disabled skill (its id).
    Disabled(&'a str),
    /// The file belongs to the skill file in this (real) folder, which did
    /// not load.
    NotLoaded(PathBuf),
}

impl DisabledInside {
    pub fn new(catalog: &Catalog, skill: &Skill) -> Self {
        let real_dir = skill.dir().canonicalize().ok();
        let mut folders = Vec::new();
        let mut enabled = Vec::new();
        if let Some(real_dir) = &real_dir {
            folders = catalog
                .disabled_real_folders()
                .iter()
                .filter(|(f, _)| f != real_dir && f.starts_with(real_dir))
                .cloned()
                .collect();
            enabled = catalog
                .skills()
                .iter()
                .filter(|s| s.dir() != skill.dir() && s.dir().starts_with(skill.dir()))
                .filter_map(|s| s.dir().canonicalize().ok())
                .collect();
        }
        DisabledInside {
            real_dir,
            folders,
            enabled,
        }
    }

    /// Why the file (or folder) at `real`, a real path, may not be served
    /// as part of this skill: the nearest folder between it and the skill's
    /// own that holds a skill file is a disabled skill's, or one whose
    /// skill file did not load. `None` when it is the skill's own, or an
    /// enabled nested skill's.
    pub fn refusal(&self, real: &Path) -> Option<NestedRefusal<'_>> {
        let real_dir = self.real_dir.as_deref()?;
        let mut dir = if real.is_dir() {
            Some(real)
        } else {
            real.parent()
        };
        while let Some(d) = dir {
            if d == real_dir || !d.starts_with(real_dir) {
                return None;
            }
            if let Some((_, id)) = self.folders.iter().find(|(f, _)| f == d) {
                return Some(NestedRefusal::Disabled(id));
            }
            let holds_skill = crate::scan::SKILL_FILE_NAMES
                .iter()
                .any(|n| d.join(n).is_file());
            if holds_skill {
                return if self.enabled.iter().any(|f| f == d) {
                    None
                } else {
                    Some(NestedRefusal::NotLoaded(d.to_path_buf()))
                };
            }
            dir = d.parent();
        }
        None
    }

    /// The nested skill that keeps `real` (a real path) from being served
    /// as part of this skill, named: a disabled skill's id, or the folder of
    /// a skill file that did not load. See `refusal`.
    pub fn owner_of(&self, real: &Path) -> Option<String> {
        match self.refusal(real)? {
            NestedRefusal::Disabled(id) => Some(id.to_string()),
            NestedRefusal::NotLoaded(folder) => Some(folder.to_string_lossy().into_owned()),
        }
    }

    /// `owner_of` for a path that may go through symlinks.
    pub fn owner_of_path(&self, path: &Path) -> Option<String> {
        self.owner_of(&path.canonicalize().ok()?)
    }
}
