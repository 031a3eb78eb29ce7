//! Copying a skill's folder from a collection folder (an `available:`
//! entry that is a folder of skills) into the first writable root. A copy
//! keeps working when the collection moves or changes, and reads stay
//! inside the root's tree (the security boundary of `contain.rs` never
//! follows a link out).
//!
//! The copy is staged in a hidden folder of the root that holds an
//! `.ignore` of `*`, so a watcher never sees a half-copied skill, then
//! renamed into place in one step; on any failure the staging folder is
//! removed and nothing is left behind. The survey of a folder (what is
//! copied, what is left out, the caps) is shared with `archive.rs`, which
//! packs the same files.

use super::InstallError;
use std::path::{Path, PathBuf};

/// At most this many files and folders are copied for one skill.
pub(crate) const MAX_ENTRIES: usize = 10_000;
/// Folders nested deeper than this are not copied.
pub(crate) const MAX_DEPTH: usize = 32;
/// At most this many bytes (all its files) are copied for one skill.
pub(crate) const MAX_BYTES: u64 = 256 << 20;

/// A skill an `available` collection offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfferedSkill {
    pub id: String,
    pub name: String,
    pub description: String,
    /// The skill's folder in its collection.
    pub folder: PathBuf,
    /// Its skill file as the catalog found it, and the collection root
    /// it is in (a `SKILL.md` may be a link to elsewhere in that root).
    pub skill_file: PathBuf,
    pub collection: PathBuf,
}

/// A skill copied into a root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// The new folder.
    pub folder: PathBuf,
    /// What of the offered folder was not copied, in words ("3 symbolic
    /// links, 1 named pipe, the folder .git"); empty when nothing was.
    pub left_out: String,
}

/// Copy `skill`'s folder into the first of `roots` that can be written,
/// as `ROOT/<folder name>`. The folder is surveyed first: one that holds
/// more than [`MAX_ENTRIES`] files and folders, more than [`MAX_BYTES`]
/// or folders nested deeper than [`MAX_DEPTH`] is refused before anything
/// is written. Blocks.
pub fn copy_into_first_writable(
    skill: &OfferedSkill,
    roots: &[PathBuf],
) -> Result<Installed, InstallError> {
    let name = skill
        .folder
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| skill.name.clone().into());
    let skill_file_name = skill.skill_file.file_name().map(|n| n.to_os_string());
    let plan =
        survey(&skill.folder, skill_file_name.as_deref(), true).map_err(|error| match error {
            Survey::Refused(reason) => InstallError::TooLarge {
                id: skill.id.clone(),
                reason,
            },
            Survey::Io(error) => InstallError::Copy {
                id: skill.id.clone(),
                from: skill.folder.clone(),
                to: PathBuf::from(&name),
                error,
            },
        })?;
    for root in roots.iter().filter(|r| r.is_dir()) {
        // One staging folder per install: two at once never share one.
        let staging = crate::paths::temporary_beside(&root.join("skilldex-install"));
        match std::fs::create_dir(&staging) {
            Ok(()) => {}
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
                ) =>
            {
                continue
            }
            Err(error) => {
                return Err(InstallError::Copy {
                    id: skill.id.clone(),
                    from: skill.folder.clone(),
                    to: root.join(&name),
                    error,
                })
            }
        }
        let target = root.join(&name);
        let result = stage_and_move(skill, &plan, &staging, &name, &target);
        let _ = std::fs::remove_dir_all(&staging);
        return match result {
            Ok(()) => Ok(Installed {
                folder: target,
                left_out: plan.left_out.to_string(),
            }),
            Err(Staged::Exists) if same_skill_file(&skill.folder, &target) => {
                Err(InstallError::AlreadyInstalled {
                    id: skill.id.clone(),
                    installed: skill.name.clone(),
                })
            }
            Err(Staged::Exists) => Err(InstallError::NameClash {
                id: skill.id.clone(),
                path: target,
            }),
            Err(Staged::Io(error)) => Err(InstallError::Copy {
                id: skill.id.clone(),
                from: skill.folder.clone(),
                to: target,
                error,
            }),
        };
    }
    Err(InstallError::NoWritableRoot {
        id: skill.id.clone(),
        roots: roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// Whether the folder `there` holds the same skill file as `offered` (an
/// install of the same skill that finished first).
fn same_skill_file(offered: &Path, there: &Path) -> bool {
    crate::scan::SKILL_FILE_NAMES.iter().any(|name| {
        match (
            crate::contain::read_regular(&offered.join(name), MAX_BYTES),
            crate::contain::read_regular(&there.join(name), MAX_BYTES),
        ) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    })
}

/// What an install copies: folders and regular files, by path relative
/// to the skill's folder, in a stable order; and what it leaves out.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    pub(crate) folders: Vec<PathBuf>,
    pub(crate) files: Vec<(PathBuf, u64)>,
    /// The skill file, when it is a link (to elsewhere in the collection).
    pub(crate) linked_skill_file: Option<PathBuf>,
    pub(crate) left_out: LeftOut,
}

/// Entries of an offered folder that are not copied.
#[derive(Debug, Default)]
pub(crate) struct LeftOut {
    /// Links are never copied: one could lead anywhere.
    pub(crate) links: usize,
    /// Pipes, sockets and devices: not files.
    pub(crate) special: usize,
    /// Folders that are not part of a skill (`.git`, `node_modules`, …).
    pub(crate) folders: std::collections::BTreeSet<String>,
}

impl std::fmt::Display for LeftOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        use crate::text::plural;
        if self.links > 0 {
            parts.push(format!(
                "{} (links are not followed: copy what one leads to into the skill if it belongs there)",
                plural(self.links, "symbolic link", "symbolic links")
            ));
        }
        if self.special > 0 {
            parts.push(format!(
                "{} (not a regular file)",
                plural(
                    self.special,
                    "named pipe, socket or device",
                    "named pipes, sockets or devices"
                )
            ));
        }
        if !self.folders.is_empty() {
            let names: Vec<&str> = self.folders.iter().map(String::as_str).collect();
            parts.push(format!(
                "the {} {} (not part of a skill)",
                if names.len() == 1 {
                    "folder"
                } else {
                    "folders"
                },
                names.join(", ")
            ));
        }
        f.write_str(&parts.join("; "))
    }
}

pub(crate) enum Survey {
    Refused(String),
    Io(std::io::Error),
}

impl From<std::io::Error> for Survey {
    fn from(error: std::io::Error) -> Survey {
        Survey::Io(error)
    }
}

/// Walk the folder `from` (links not followed) and plan its copy, or say
/// why it is too big to install.
/// With `nested_skills` false, a folder below the top that holds a skill
/// file of its own is another skill and is not part of this one's plan.
pub(crate) fn survey(
    from: &Path,
    skill_file: Option<&std::ffi::OsStr>,
    nested_skills: bool,
) -> Result<Plan, Survey> {
    let mut plan = Plan::default();
    let mut bytes = 0u64;
    let mut entries = 0usize;
    let mut stack = vec![(PathBuf::new(), 0usize)];
    while let Some((relative, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            return Err(Survey::Refused(format!(
                "{} is nested more than {MAX_DEPTH} folders deep",
                relative.display()
            )));
        }
        let mut listed: Vec<_> =
            std::fs::read_dir(from.join(&relative))?.collect::<Result<_, _>>()?;
        listed.sort_by_key(|e| e.file_name());
        for entry in listed {
            entries += 1;
            if entries > MAX_ENTRIES {
                return Err(Survey::Refused(format!(
                    "the skill holds more than {} files and folders",
                    crate::text::thousands(MAX_ENTRIES)
                )));
            }
            let path = relative.join(entry.file_name());
            let kind = entry.file_type()?;
            if kind.is_symlink() {
                if relative.as_os_str().is_empty()
                    && Some(entry.file_name().as_os_str()) == skill_file
                {
                    // A skill file linked to elsewhere in the collection
                    // is the skill's text: copied as a file.
                    plan.linked_skill_file = Some(path);
                } else {
                    plan.left_out.links += 1;
                }
                continue;
            }
            if kind.is_dir() {
                let name = entry.file_name();
                if let Some(skipped) = crate::scan::SKIPPED_DIRS
                    .iter()
                    .find(|s| name.as_os_str() == **s)
                {
                    plan.left_out.folders.insert((*skipped).to_string());
                    continue;
                }
            } else if !kind.is_file() {
                plan.left_out.special += 1;
                continue;
            }
            if kind.is_dir() {
                let holds_a_skill = || {
                    crate::scan::SKILL_FILE_NAMES
                        .iter()
                        .any(|n| std::fs::symlink_metadata(entry.path().join(n)).is_ok())
                };
                if !nested_skills && holds_a_skill() {
                    continue;
                }
                plan.folders.push(path.clone());
                stack.push((path, depth + 1));
                continue;
            }
            let size = entry.metadata()?.len();
            bytes = bytes.saturating_add(size);
            if bytes > MAX_BYTES {
                return Err(Survey::Refused(format!(
                    "its files come to more than {} (at {}, {})",
                    crate::text::bytes(MAX_BYTES),
                    path.display(),
                    crate::text::bytes(size)
                )));
            }
            plan.files.push((path, size));
        }
    }
    plan.folders.sort();
    plan.files.sort();
    Ok(plan)
}

pub(crate) enum Staged {
    Exists,
    Io(std::io::Error),
}

impl From<std::io::Error> for Staged {
    fn from(error: std::io::Error) -> Staged {
        Staged::Io(error)
    }
}

fn stage_and_move(
    skill: &OfferedSkill,
    plan: &Plan,
    staging: &Path,
    name: &std::ffi::OsStr,
    target: &Path,
) -> Result<(), Staged> {
    if std::fs::symlink_metadata(target).is_ok() {
        return Err(Staged::Exists);
    }
    // Every file is opened from the folder opened once, never by a path
    // that a link swapped in since the survey could lead elsewhere.
    let folder = crate::contain::Folder::open(&skill.folder)?;
    // Nothing under the staging folder is scanned.
    std::fs::write(staging.join(".ignore"), "*\n")?;
    let copy = staging.join(name);
    std::fs::create_dir(&copy)?;
    for dir in &plan.folders {
        std::fs::create_dir(copy.join(dir))?;
    }
    for (file, size) in &plan.files {
        let relative = crate::paths::slash_path(file);
        let opened = folder.open_path(&relative).map_err(refused(&relative))?;
        if opened.kind != crate::contain::OpenedKind::File
            || opened.through_link
            || opened.len > *size
        {
            return Err(changed(&relative));
        }
        copy_file(opened, &copy.join(file), *size)?;
    }
    if let Some(file) = &plan.linked_skill_file {
        let relative = crate::paths::slash_path(file);
        let opened = folder
            .open_skill_file(&relative, &skill.collection, &skill.skill_file)
            .map_err(refused(&relative))?;
        if opened.kind != crate::contain::OpenedKind::File || opened.len > MAX_BYTES {
            return Err(changed(&relative));
        }
        let len = opened.len;
        copy_file(opened, &copy.join(file), len)?;
    }
    move_into_place(&copy, target)
}

/// A file that is no longer what the survey saw.
pub(crate) fn changed(relative: &str) -> Staged {
    Staged::Io(std::io::Error::other(format!(
        "{relative} changed while the skill was copied"
    )))
}

/// A file the folder refuses to open, said as a client may read it.
pub(crate) fn refused(relative: &str) -> impl Fn(crate::contain::Refusal) -> Staged + '_ {
    move |refusal| {
        Staged::Io(std::io::Error::other(format!(
            "{relative}: {}",
            refusal.told_to_client()
        )))
    }
}

/// Copy at most `size` bytes of the opened file to the new file `to`,
/// with its permission bits.
fn copy_file(opened: crate::contain::Opened, to: &Path, size: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    let mode = {
        use std::os::unix::fs::PermissionsExt;
        opened.file.metadata()?.permissions().mode() & 0o777
    };
    let mut target = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(to)?;
    std::io::copy(&mut std::io::Read::take(opened.file, size), &mut target)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        target.set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

/// Rename the staged copy to `target`, never over something there: on
/// Linux in one step (`RENAME_NOREPLACE`), elsewhere after a check.
pub(crate) fn move_into_place(copy: &Path, target: &Path) -> Result<(), Staged> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{renameat_with, RenameFlags, CWD};
        match renameat_with(CWD, copy, CWD, target, RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(()),
            Err(rustix::io::Errno::EXIST) => return Err(Staged::Exists),
            // A file system without the flag: check, then rename.
            Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {}
            Err(error) => return Err(Staged::Io(error.into())),
        }
    }
    if std::fs::symlink_metadata(target).is_ok() {
        return Err(Staged::Exists);
    }
    std::fs::rename(copy, target)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Catalog, CatalogBuilder};

    /// The folder offer `id` of the collection folders `available`.
    fn find(
        available: &[PathBuf],
        installed: &Catalog,
        id: &str,
    ) -> Result<OfferedSkill, InstallError> {
        let locations: Vec<super::super::Location> = available
            .iter()
            .map(|p| super::super::Location::File(p.clone()))
            .collect();
        match super::super::find_offered(&locations, installed, id)? {
            super::super::Offered::Folder(skill) => Ok(skill),
            other => panic!("not a folder offer: {other:?}"),
        }
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn skill(dir: &Path, name: &str) {
        write(
            &dir.join(name).join("SKILL.md"),
            &format!("---\nname: {name}\ndescription: The {name} skill. Use when testing.\n---\n# {name}\n"),
        );
        write(&dir.join(name).join("scripts/run.py"), "print(1)\n");
    }

    #[test]
    fn an_offered_skill_is_copied_into_the_first_writable_root() {
        let temp = tempfile::tempdir().unwrap();
        let collection = temp.path().join("collection");
        let root = temp.path().join("root");
        skill(&collection, "pdf-tools");
        skill(&root, "demo");
        let installed = CatalogBuilder::new([&root]).build().unwrap();
        let offered = find(std::slice::from_ref(&collection), &installed, "pdf-tools").unwrap();
        assert_eq!(offered.name, "pdf-tools");
        let copied = copy_into_first_writable(&offered, std::slice::from_ref(&root)).unwrap();
        assert_eq!(copied.folder, root.join("pdf-tools"));
        assert_eq!(copied.left_out, "");
        assert_eq!(
            std::fs::read_to_string(copied.folder.join("scripts/run.py")).unwrap(),
            "print(1)\n"
        );
        let names: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names.len(), 2, "no staging folder is left: {names:?}");
        // Installed now: a second request says so.
        let installed = CatalogBuilder::new([&root]).build().unwrap();
        let error = find(std::slice::from_ref(&collection), &installed, "pdf-tools").unwrap_err();
        assert!(
            matches!(error, InstallError::AlreadyInstalled { .. }),
            "{error}"
        );
        let error = find(std::slice::from_ref(&collection), &installed, "pdf-tool").unwrap_err();
        assert!(
            error.to_string().contains("did you mean `pdf-tools`"),
            "{error}"
        );
        let error = find(&[], &installed, "csv-tools").unwrap_err();
        assert!(matches!(error, InstallError::NoCollections), "{error}");
    }

    #[test]
    fn a_folder_in_the_way_is_a_clash_and_leaves_nothing_behind() {
        let temp = tempfile::tempdir().unwrap();
        let collection = temp.path().join("collection");
        let root = temp.path().join("root");
        skill(&collection, "pdf-tools");
        write(&root.join("pdf-tools/notes.txt"), "mine\n");
        let installed = CatalogBuilder::new([&root]).build().unwrap();
        let offered = find(&[collection], &installed, "pdf-tools").unwrap();
        let error = copy_into_first_writable(&offered, std::slice::from_ref(&root)).unwrap_err();
        assert!(matches!(error, InstallError::NameClash { .. }), "{error}");
        assert_eq!(std::fs::read_dir(&root).unwrap().count(), 1);
        assert_eq!(
            std::fs::read_to_string(root.join("pdf-tools/notes.txt")).unwrap(),
            "mine\n"
        );
    }

    #[cfg(unix)]
    #[test]
    fn read_only_roots_are_skipped_and_a_failed_copy_is_cleaned_up() {
        use std::os::unix::fs::PermissionsExt;
        let temp = tempfile::tempdir().unwrap();
        let collection = temp.path().join("collection");
        let locked = temp.path().join("locked");
        let open = temp.path().join("open");
        skill(&collection, "pdf-tools");
        std::fs::create_dir_all(&locked).unwrap();
        std::fs::create_dir_all(&open).unwrap();
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
        let probe = locked.join("probe");
        let running_as_root = std::fs::write(&probe, "").is_ok();
        let offered = OfferedSkill {
            id: "pdf-tools".into(),
            name: "pdf-tools".into(),
            description: String::new(),
            folder: collection.join("pdf-tools"),
            skill_file: collection.join("pdf-tools/SKILL.md"),
            collection: collection.clone(),
        };
        if !running_as_root {
            let copied =
                copy_into_first_writable(&offered, &[locked.clone(), open.clone()]).unwrap();
            assert_eq!(copied.folder, open.join("pdf-tools"));
            let error =
                copy_into_first_writable(&offered, std::slice::from_ref(&locked)).unwrap_err();
            assert!(
                matches!(error, InstallError::NoWritableRoot { .. }),
                "{error}"
            );
        }
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn a_folder_nested_too_deep_is_refused_before_anything_is_written() {
        let temp = tempfile::tempdir().unwrap();
        let collection = temp.path().join("collection");
        skill(&collection, "deep");
        let mut deep = collection.join("deep");
        for level in 0..=MAX_DEPTH {
            deep.push(format!("d{level}"));
        }
        write(&deep.join("leaf.txt"), "x\n");
        let offered = OfferedSkill {
            id: "deep".into(),
            name: "deep".into(),
            description: String::new(),
            folder: collection.join("deep"),
            skill_file: collection.join("deep/SKILL.md"),
            collection: collection.clone(),
        };
        let root = temp.path().join("root");
        std::fs::create_dir_all(&root).unwrap();
        let error = copy_into_first_writable(&offered, std::slice::from_ref(&root)).unwrap_err();
        assert!(matches!(error, InstallError::TooLarge { .. }), "{error}");
        assert!(
            error
                .to_string()
                .contains("nested more than 32 folders deep")
                && error.to_string().contains("nothing was written"),
            "{error}"
        );
        assert_eq!(
            std::fs::read_dir(&root).unwrap().count(),
            0,
            "nothing is left behind"
        );
    }
}
