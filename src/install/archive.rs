//! A skill's folder as a `.tar.gz`, both ways.
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
//! **Unpacking** treats the archive as hostile: a path that is absolute,
//! climbs (`..`) or is not plain names is refused, as is a link whose
//! target leaves the folder; links that stay inside, and special files,
//! are left out (and said). The caps of a copy hold: at most
//! [`MAX_ENTRIES`] entries, [`MAX_BYTES`] unpacked (counted while reading,
//! so a gzip bomb stops there), folders [`MAX_DEPTH`] deep. Files are
//! created new (an entry given twice is refused) with 0644 or 0755, never
//! other bits. The archive must hold a `SKILL.md` at its top. Unpacking
//! writes into a fresh folder the caller stages and removes on failure.

use super::copy::{survey, Survey, MAX_BYTES, MAX_DEPTH, MAX_ENTRIES};
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

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

/// What an unpacked archive held that was not written.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Unpacked {
    pub files: usize,
    /// Links that stay inside the folder and special files, left out.
    pub left_out: Vec<String>,
}

/// `bytes` are a zip archive (its local-file magic).
pub fn is_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06")
}

/// Unpack the `.tar.gz` `bytes` into the empty folder `into`, or say why
/// the archive is refused (`into` then holds a part, for the caller to
/// remove).
pub fn unpack(bytes: &[u8], into: &Path) -> Result<Unpacked, String> {
    if is_zip(bytes) {
        return Err("it is a zip archive; skilldex unpacks .tar.gz archives only — ask the publisher for a .tar.gz".into());
    }
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Err("it is not a gzip-compressed tar archive (.tar.gz)".into());
    }
    // Bounded before tar sees it: headers and padding count too.
    let limit = MAX_BYTES + (MAX_ENTRIES as u64) * 2048 + 1;
    let decoder = flate2::read::GzDecoder::new(bytes).take(limit);
    let mut archive = tar::Archive::new(decoder);
    let mut unpacked = Unpacked::default();
    let mut total = 0u64;
    let mut entries = 0usize;
    let bad = |error: std::io::Error| format!("it cannot be read as a .tar.gz ({error})");
    for entry in archive.entries().map_err(bad)? {
        let mut entry = entry.map_err(bad)?;
        entries += 1;
        if entries > MAX_ENTRIES {
            return Err(format!(
                "it holds more than {} entries",
                crate::text::thousands(MAX_ENTRIES)
            ));
        }
        let raw_path = entry.path().map_err(bad)?.into_owned();
        let shown = raw_path.display().to_string();
        let relative = plain_path(&raw_path)
            .ok_or_else(|| format!("the entry {shown:?} is an absolute path or climbs out of the folder (path traversal)"))?;
        if relative.as_os_str().is_empty() {
            continue;
        }
        if relative.components().count() > MAX_DEPTH {
            return Err(format!(
                "{shown} is nested more than {MAX_DEPTH} folders deep"
            ));
        }
        let kind = entry.header().entry_type();
        let target = into.join(&relative);
        match kind {
            tar::EntryType::Directory => {
                std::fs::create_dir_all(&target).map_err(|e| format!("{shown}: {e}"))?;
            }
            tar::EntryType::Regular | tar::EntryType::Continuous => {
                let size = entry.header().size().map_err(bad)?;
                total = total.saturating_add(size);
                if total > MAX_BYTES {
                    return Err(format!(
                        "its files come to more than {} unpacked (at {shown})",
                        crate::text::bytes(MAX_BYTES)
                    ));
                }
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| format!("{shown}: {e}"))?;
                }
                let mode = entry.header().mode().unwrap_or(0o644);
                let mut file = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&target)
                    .map_err(|e| {
                        if e.kind() == std::io::ErrorKind::AlreadyExists {
                            format!("it holds {shown} twice")
                        } else {
                            format!("{shown}: {e}")
                        }
                    })?;
                let copied = std::io::copy(&mut (&mut entry).take(size), &mut file).map_err(bad)?;
                if copied != size {
                    return Err(format!("{shown} is cut short"));
                }
                set_mode(&file, if mode & 0o111 != 0 { 0o755 } else { 0o644 })
                    .map_err(|e| format!("{shown}: {e}"))?;
                unpacked.files += 1;
            }
            tar::EntryType::Symlink | tar::EntryType::Link => {
                let link = entry.link_name().map_err(bad)?.unwrap_or_default();
                // A symlink resolves from its own folder, a hard link from
                // the top of the archive.
                let base = if kind == tar::EntryType::Symlink {
                    relative.parent().map(Path::to_path_buf).unwrap_or_default()
                } else {
                    PathBuf::new()
                };
                if stays_inside(&base, &link) {
                    unpacked
                        .left_out
                        .push(format!("{shown} (a link; links are not unpacked)"));
                } else {
                    return Err(format!(
                        "the entry {shown} is a link to {:?}, outside the skill's folder",
                        link.display().to_string()
                    ));
                }
            }
            tar::EntryType::XGlobalHeader
            | tar::EntryType::XHeader
            | tar::EntryType::GNULongName
            | tar::EntryType::GNULongLink => {}
            _ => unpacked
                .left_out
                .push(format!("{shown} (not a regular file or folder)")),
        }
    }
    let has_skill = ["SKILL.md", "skill.md"]
        .iter()
        .any(|n| std::fs::symlink_metadata(into.join(n)).is_ok_and(|m| m.is_file()));
    if !has_skill {
        return Err("it holds no SKILL.md at its top (the archive's files must be the skill folder's, not inside a wrapper folder)".into());
    }
    Ok(unpacked)
}

/// `path` as plain names (a leading `./` dropped), or `None` when it is
/// absolute or has `..`.
fn plain_path(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Normal(name) => out.push(name),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// Whether the link target `link`, read from the folder `base` (relative
/// to the top), stays inside the top.
fn stays_inside(base: &Path, link: &Path) -> bool {
    if link.is_absolute() {
        return false;
    }
    let mut depth = base.components().count() as isize;
    for component in link.components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}

#[cfg(unix)]
fn set_mode(file: &std::fs::File, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_file: &std::fs::File, _mode: u32) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A `.tar.gz` of raw entries (path, type, link, content), written
    /// without the checks of `tar::Builder`'s path setters.
    fn hostile(entries: &[(&str, tar::EntryType, &str, &[u8])]) -> Vec<u8> {
        let mut tar = Vec::new();
        for (path, kind, link, content) in entries {
            let mut header = tar::Header::new_old();
            let bytes = header.as_mut_bytes();
            bytes[..path.len()].copy_from_slice(path.as_bytes());
            bytes[157..157 + link.len()].copy_from_slice(link.as_bytes());
            header.set_entry_type(*kind);
            header.set_mode(0o644);
            header.set_size(content.len() as u64);
            header.set_cksum();
            tar.extend_from_slice(header.as_bytes());
            tar.extend_from_slice(content);
            tar.resize(tar.len().div_ceil(512) * 512, 0);
        }
        tar.resize(tar.len() + 1024, 0);
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gzip.write_all(&tar).unwrap();
        gzip.finish().unwrap()
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
        let unpacked = unpack(&first.bytes, &into).unwrap();
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

    #[test]
    fn hostile_archives_are_refused() {
        let temp = tempfile::tempdir().unwrap();
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (
                hostile(&[
                    ("SKILL.md", tar::EntryType::Regular, "", b"x"),
                    ("../evil", tar::EntryType::Regular, "", b"x"),
                ]),
                "path traversal",
            ),
            (
                hostile(&[("/etc/evil", tar::EntryType::Regular, "", b"x")]),
                "path traversal",
            ),
            (
                hostile(&[
                    ("SKILL.md", tar::EntryType::Regular, "", b"x"),
                    ("out", tar::EntryType::Symlink, "../../etc/passwd", b""),
                ]),
                "outside the skill's folder",
            ),
            (
                hostile(&[
                    ("SKILL.md", tar::EntryType::Regular, "", b"x"),
                    ("hard", tar::EntryType::Link, "/etc/passwd", b""),
                ]),
                "outside the skill's folder",
            ),
            (
                hostile(&[
                    ("SKILL.md", tar::EntryType::Regular, "", b"x"),
                    ("SKILL.md", tar::EntryType::Regular, "", b"y"),
                ]),
                "twice",
            ),
            (
                hostile(&[("wrapper/SKILL.md", tar::EntryType::Regular, "", b"x")]),
                "no SKILL.md",
            ),
            (b"PK\x03\x04rest".to_vec(), "zip"),
            (b"not an archive".to_vec(), "not a gzip"),
            (vec![0x1f, 0x8b, 8, 0, 0, 0], "cannot be read"),
        ];
        for (i, (bytes, expected)) in cases.iter().enumerate() {
            let into = temp.path().join(format!("case{i}"));
            std::fs::create_dir(&into).unwrap();
            let error = unpack(bytes, &into).unwrap_err();
            assert!(error.contains(expected), "case {i}: {error}");
        }
        assert!(!temp.path().join("evil").exists());
        // A link that stays inside is left out, not refused.
        let into = temp.path().join("inside");
        std::fs::create_dir(&into).unwrap();
        let bytes = hostile(&[
            ("SKILL.md", tar::EntryType::Regular, "", b"x"),
            ("docs/link", tar::EntryType::Symlink, "../SKILL.md", b""),
        ]);
        let unpacked = unpack(&bytes, &into).unwrap();
        assert_eq!(unpacked.left_out.len(), 1);
        assert!(std::fs::symlink_metadata(into.join("docs/link")).is_err());
    }

    #[test]
    fn a_gzip_bomb_stops_at_the_cap() {
        // One entry that claims more than the cap: refused from its header.
        let mut header = tar::Header::new_gnu();
        header.set_path("SKILL.md").unwrap();
        header.set_size(MAX_BYTES + 1);
        header.set_mode(0o644);
        header.set_cksum();
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gzip.write_all(header.as_bytes()).unwrap();
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..4 {
            gzip.write_all(&zeros).unwrap();
        }
        let bytes = gzip.finish().unwrap();
        let temp = tempfile::tempdir().unwrap();
        let error = unpack(&bytes, temp.path()).unwrap_err();
        assert!(error.contains("more than"), "{error}");
    }
}
