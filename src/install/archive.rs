//! A skill's folder packed as a `.tar.gz`.
//!
//! **Packing** is byte-stable: the same files give the same bytes on every
//! run and machine, so a digest says "same content". Entries are sorted by
//! path, folders before what they hold; every header has mtime 0, uid and
//! gid 0, no user or group names, and mode 0755 (folders, and files with
//! any execute bit) or 0644; gzip has mtime 0 and no file name. What is
//! packed is what an install would copy (`copy::survey`: no links, no
//! special files, no `.git`/`node_modules`/`target`), without the folders
//! of nested skills (published on their own); the skill file is stored as
//! `SKILL.md` at the top. Every file is opened through `contain.rs`.
//!
//! Unpacking (a `.tar.gz` or a `.zip`, treated as hostile) is
//! `unpack.rs`.

use super::copy::{survey, Survey, MAX_BYTES};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why a folder could not be packed.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    #[error("{0}")]
    TooLarge(String),
    #[error("{path}: {message}")]
    Read { path: String, message: String },
}

/// A packed folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packed {
    pub bytes: Vec<u8>,
    /// Files packed (the skill file included).
    pub files: usize,
    /// Whether it holds anything besides the skill file.
    pub has_more_than_skill_file: bool,
}

/// Pack the skill folder `folder`, whose skill file is `skill_file`
/// (under the root `root`, where it may be a link to).
pub fn pack(folder: &Path, skill_file: &Path, root: &Path) -> Result<Packed, PackError> {
    let skill_name = skill_file
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "SKILL.md".into());
    let plan = survey(folder, Some(&skill_name), false).map_err(|error| match error {
        Survey::Refused(reason) => PackError::TooLarge(reason),
        Survey::Io(error) => PackError::Read {
            path: folder.display().to_string(),
            message: error.to_string(),
        },
    })?;
    let opened_folder = crate::contain::Folder::open(folder).map_err(|error| PackError::Read {
        path: folder.display().to_string(),
        message: error.to_string(),
    })?;
    let read = |relative: &str, skill: bool| -> Result<(Vec<u8>, bool), PackError> {
        let failed = |message: String| PackError::Read {
            path: folder.join(relative).display().to_string(),
            message,
        };
        let opened = if skill {
            opened_folder.open_skill_file(relative, root, skill_file)
        } else {
            opened_folder.open_path(relative)
        }
        .map_err(|refusal| failed(refusal.to_string()))?;
        if opened.kind != crate::contain::OpenedKind::File || (!skill && opened.through_link) {
            return Err(failed("it changed while the skill was packed".into()));
        }
        let executable = is_executable(&opened.file);
        let bytes = crate::contain::read_at_most(opened.file, MAX_BYTES)
            .map_err(|error| failed(error.to_string()))?;
        Ok((bytes, executable))
    };
    // (path in the archive, content or None for a folder, executable)
    let mut entries: Vec<(PathBuf, Option<Vec<u8>>, bool)> = Vec::new();
    for dir in &plan.folders {
        entries.push((dir.clone(), None, true));
    }
    let mut skill_found = false;
    for (file, _) in &plan.files {
        let relative = crate::paths::slash_path(file);
        let is_skill_file = file.as_os_str() == skill_name.as_os_str();
        let (bytes, executable) = read(&relative, is_skill_file)?;
        let name = if is_skill_file {
            skill_found = true;
            PathBuf::from("SKILL.md")
        } else {
            file.clone()
        };
        entries.push((name, Some(bytes), executable));
    }
    if let Some(file) = &plan.linked_skill_file {
        let (bytes, _) = read(&crate::paths::slash_path(file), true)?;
        skill_found = true;
        entries.push((PathBuf::from("SKILL.md"), Some(bytes), false));
    }
    if !skill_found {
        return Err(PackError::Read {
            path: skill_file.display().to_string(),
            message: "the skill file is not a regular file in its folder".into(),
        });
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let files = entries.iter().filter(|e| e.1.is_some()).count();
    let has_more_than_skill_file = entries.len() > 1;
    let mut builder = tar::Builder::new(Vec::new());
    for (path, content, executable) in &entries {
        let mut header = tar::Header::new_gnu();
        header.set_mtime(0);
        header.set_uid(0);
        header.set_gid(0);
        let _ = header.set_username("");
        let _ = header.set_groupname("");
        let failed = |error: std::io::Error| PackError::Read {
            path: path.display().to_string(),
            message: error.to_string(),
        };
        match content {
            None => {
                header.set_entry_type(tar::EntryType::Directory);
                header.set_mode(0o755);
                header.set_size(0);
                builder
                    .append_data(&mut header, path, std::io::empty())
                    .map_err(failed)?;
            }
            Some(bytes) => {
                header.set_entry_type(tar::EntryType::Regular);
                header.set_mode(if *executable { 0o755 } else { 0o644 });
                header.set_size(bytes.len() as u64);
                builder
                    .append_data(&mut header, path, bytes.as_slice())
                    .map_err(failed)?;
            }
        }
    }
    let tar = builder.into_inner().map_err(|error| PackError::Read {
        path: folder.display().to_string(),
        message: error.to_string(),
    })?;
    let mut gzip = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::default());
    let written = gzip.write_all(&tar).and_then(|()| gzip.finish());
    let bytes = written.map_err(|error| PackError::Read {
        path: folder.display().to_string(),
        message: error.to_string(),
    })?;
    Ok(Packed {
        bytes,
        files,
        has_more_than_skill_file,
    })
}

#[cfg(unix)]
fn is_executable(file: &std::fs::File) -> bool {
    use std::os::unix::fs::PermissionsExt;
    file.metadata()
        .is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(_file: &std::fs::File) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn packing_is_byte_stable_and_unpacks_to_the_same_files() {
        let temp = tempfile::tempdir().unwrap();
        let skill = temp.path().join("root/tool");
        write(
            &skill.join("SKILL.md"),
            "---\nname: tool\ndescription: d\n---\n",
        );
        write(&skill.join("scripts/run.sh"), "echo hi\n");
        write(&skill.join("nested/SKILL.md"), "---\nname: nested\n---\n");
        write(&skill.join(".git/HEAD"), "x");
        let root = temp.path().join("root");
        let first = pack(&skill, &skill.join("SKILL.md"), &root).unwrap();
        // Touching times does not change the bytes.
        std::thread::sleep(std::time::Duration::from_millis(10));
        write(&skill.join("scripts/run.sh"), "echo hi\n");
        let second = pack(&skill, &skill.join("SKILL.md"), &root).unwrap();
        assert_eq!(first, second);
        assert_eq!(first.files, 2, "the nested skill and .git are not packed");
        let into = temp.path().join("out");
        std::fs::create_dir(&into).unwrap();
        let unpacked = super::super::unpack::unpack(&first.bytes, &into).unwrap();
        assert_eq!(unpacked.files, 2);
        assert_eq!(
            std::fs::read_to_string(into.join("scripts/run.sh")).unwrap(),
            "echo hi\n"
        );
        assert!(!into.join("nested").exists());
        let again = pack(&into, &into.join("SKILL.md"), &into).unwrap();
        assert_eq!(
            again.bytes, first.bytes,
            "an unpacked archive packs to the same bytes"
        );
    }
}
