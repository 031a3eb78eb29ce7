//! Unpacking an index's archive — a `.tar.gz` or a `.zip`, told apart by
//! their first bytes — into a fresh folder, treating it as hostile.
//!
//! Both formats go through one [`Writer`], so they keep the same rules: a
//! path that is absolute, climbs (`..`), holds a backslash or a NUL, or is
//! not plain names is refused, as is a link whose target leaves the
//! folder; links that stay inside, and special files, are left out (and
//! said). Nothing but folders and regular files is ever created, so no
//! later entry can be written through a link. The caps of a copy hold: at
//! most [`MAX_ENTRIES`] entries, [`MAX_BYTES`] unpacked (counted while
//! reading, not taken from the headers, so a compression bomb stops
//! there), folders [`MAX_DEPTH`] deep. Files are created new (an entry
//! given twice is refused) with 0644 or 0755, never other bits. The
//! archive must hold a `SKILL.md` at its top. A zip's entries are checked
//! against their CRC-32 as they are read; encrypted entries, and
//! compression methods other than stored and deflate, are refused.
//!
//! The caller stages `into` and removes it on failure (`mod.rs` `place`).

use super::copy::{MAX_BYTES, MAX_DEPTH, MAX_ENTRIES};
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// What an unpacked archive held that was not written.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Unpacked {
    pub files: usize,
    /// Links that stay inside the folder and special files, left out.
    pub left_out: Vec<String>,
}

/// `bytes` are a zip archive (a local file header, or the end of an
/// empty archive's central directory).
pub fn is_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06")
}

/// `bytes` are gzip-compressed.
fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// Unpack the archive `bytes` (`.tar.gz` or `.zip`) into the empty folder
/// `into`, or say why it is refused (`into` then holds a part, for the
/// caller to remove).
pub fn unpack(bytes: &[u8], into: &Path) -> Result<Unpacked, String> {
    let mut writer = Writer::new(into);
    if is_zip(bytes) {
        unpack_zip(bytes, &mut writer)?;
    } else if is_gzip(bytes) {
        unpack_tar_gz(bytes, &mut writer)?;
    } else {
        return Err(
            "it is neither a gzip-compressed tar archive (.tar.gz) nor a zip archive".into(),
        );
    }
    writer.finish()
}

fn unpack_tar_gz(bytes: &[u8], writer: &mut Writer) -> Result<(), String> {
    // Bounded before tar sees it: headers and padding count too.
    let limit = MAX_BYTES + (MAX_ENTRIES as u64) * 2048 + 1;
    let decoder = flate2::read::GzDecoder::new(bytes).take(limit);
    let mut archive = tar::Archive::new(decoder);
    let bad = |error: std::io::Error| format!("it cannot be read as a .tar.gz ({error})");
    for entry in archive.entries().map_err(bad)? {
        let mut entry = entry.map_err(bad)?;
        let raw_path = entry.path().map_err(bad)?.into_owned();
        let shown = raw_path.display().to_string();
        let kind = entry.header().entry_type();
        match kind {
            tar::EntryType::XGlobalHeader
            | tar::EntryType::XHeader
            | tar::EntryType::GNULongName
            | tar::EntryType::GNULongLink => continue,
            _ => {}
        }
        let Some(relative) = writer.entry(&raw_path, &shown)? else {
            continue;
        };
        match kind {
            tar::EntryType::Directory => writer.folder(&relative, &shown)?,
            tar::EntryType::Regular | tar::EntryType::Continuous => {
                let size = entry.header().size().map_err(bad)?;
                let executable = entry.header().mode().unwrap_or(0o644) & 0o111 != 0;
                writer.file(&relative, &shown, size, executable, &mut entry)?;
            }
            tar::EntryType::Symlink | tar::EntryType::Link => {
                let link = entry.link_name().map_err(bad)?.unwrap_or_default();
                // A symlink resolves from its own folder, a hard link from
                // the top of the archive.
                writer.link(&relative, &shown, &link, kind == tar::EntryType::Link)?;
            }
            _ => writer.special(&shown),
        }
    }
    Ok(())
}

/// The type bits of a Unix mode (`S_IFMT`) and the types a zip made on
/// Unix records in them.
const S_IFMT: u32 = 0o170_000;
const S_IFDIR: u32 = 0o040_000;
const S_IFREG: u32 = 0o100_000;
const S_IFLNK: u32 = 0o120_000;

/// A symlink's target is its entry's content; one longer than this is not
/// a path.
const MAX_LINK_TARGET: u64 = 4096;

fn unpack_zip(bytes: &[u8], writer: &mut Writer) -> Result<(), String> {
    let bad = |error: zip::result::ZipError| format!("it cannot be read as a .zip ({error})");
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(bad)?;
    // The central directory says how many entries there are: refused
    // before any is read.
    if archive.len() > MAX_ENTRIES {
        return Err(format!(
            "it holds more than {} entries",
            crate::text::thousands(MAX_ENTRIES)
        ));
    }
    for index in 0..archive.len() {
        let mut entry = archive.by_index(index).map_err(bad)?;
        // The name as stored: the crate's own sanitising (`mangled_name`)
        // would turn `../x` into `x`, and a refusal must not be silent.
        let raw = String::from_utf8_lossy(entry.name_raw()).into_owned();
        let shown = raw.clone();
        if raw.contains('\\') || raw.contains('\0') {
            return Err(format!(
                "the entry {shown:?} holds a backslash or a NUL; zip paths are plain names joined by `/`"
            ));
        }
        let Some(relative) = writer.entry(Path::new(&raw), &shown)? else {
            continue;
        };
        if entry.encrypted() {
            return Err(format!(
                "the entry {shown} is encrypted; skilldex unpacks no encrypted archives"
            ));
        }
        let mode = entry.unix_mode();
        let kind = mode.map(|m| m & S_IFMT).filter(|&t| t != 0);
        if raw.ends_with('/') || kind == Some(S_IFDIR) {
            writer.folder(&relative, &shown)?;
        } else if kind == Some(S_IFLNK) {
            let mut target = Vec::new();
            (&mut entry)
                .take(MAX_LINK_TARGET + 1)
                .read_to_end(&mut target)
                .map_err(|error| format!("{shown}: {error}"))?;
            if target.len() as u64 > MAX_LINK_TARGET {
                return Err(format!(
                    "the entry {shown} is a link with a target past {MAX_LINK_TARGET} bytes"
                ));
            }
            let target = String::from_utf8_lossy(&target).into_owned();
            writer.link(&relative, &shown, Path::new(&target), false)?;
        } else if kind.is_none() || kind == Some(S_IFREG) {
            let executable = mode.is_some_and(|m| m & 0o111 != 0);
            let size = entry.size();
            writer.file(&relative, &shown, size, executable, &mut entry)?;
        } else {
            writer.special(&shown);
        }
    }
    Ok(())
}

/// Writes one archive's entries under `into`, holding the rules and caps
/// whatever the format.
struct Writer<'a> {
    into: &'a Path,
    entries: usize,
    total: u64,
    unpacked: Unpacked,
}

impl<'a> Writer<'a> {
    fn new(into: &'a Path) -> Writer<'a> {
        Writer {
            into,
            entries: 0,
            total: 0,
            unpacked: Unpacked::default(),
        }
    }

    /// Count an entry and check its path: the plain relative path, `None`
    /// for the top itself (`./`), or why the archive is refused.
    fn entry(&mut self, raw: &Path, shown: &str) -> Result<Option<PathBuf>, String> {
        self.entries += 1;
        if self.entries > MAX_ENTRIES {
            return Err(format!(
                "it holds more than {} entries",
                crate::text::thousands(MAX_ENTRIES)
            ));
        }
        let relative = plain_path(raw).ok_or_else(|| {
            format!("the entry {shown:?} is an absolute path or climbs out of the folder (path traversal)")
        })?;
        if relative.as_os_str().is_empty() {
            return Ok(None);
        }
        if relative.components().count() > MAX_DEPTH {
            return Err(format!(
                "{shown} is nested more than {MAX_DEPTH} folders deep"
            ));
        }
        Ok(Some(relative))
    }

    fn folder(&mut self, relative: &Path, shown: &str) -> Result<(), String> {
        std::fs::create_dir_all(self.into.join(relative)).map_err(|e| format!("{shown}: {e}"))
    }

    /// Write the file `relative` from `content`, whose header says it
    /// holds `size` bytes; what is read is counted, not the header.
    fn file(
        &mut self,
        relative: &Path,
        shown: &str,
        size: u64,
        executable: bool,
        content: &mut dyn Read,
    ) -> Result<(), String> {
        let too_large = |shown: &str| {
            format!(
                "its files come to more than {} unpacked (at {shown})",
                crate::text::bytes(MAX_BYTES)
            )
        };
        if self.total.saturating_add(size) > MAX_BYTES {
            return Err(too_large(shown));
        }
        let target = self.into.join(relative);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{shown}: {e}"))?;
        }
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
        let room = MAX_BYTES - self.total;
        let copied = std::io::copy(&mut content.take(room + 1), &mut file)
            .map_err(|e| format!("{shown} cannot be read ({e})"))?;
        if copied > room {
            return Err(too_large(shown));
        }
        if copied != size {
            return Err(format!(
                "{shown} holds {copied} bytes where its header says {size}"
            ));
        }
        self.total += copied;
        set_mode(&file, if executable { 0o755 } else { 0o644 })
            .map_err(|e| format!("{shown}: {e}"))?;
        self.unpacked.files += 1;
        Ok(())
    }

    /// A link entry: left out when its target stays inside the folder
    /// (a symlink resolves from its own folder, a hard link from the top),
    /// else the archive is refused.
    fn link(
        &mut self,
        relative: &Path,
        shown: &str,
        target: &Path,
        hard: bool,
    ) -> Result<(), String> {
        let base = if hard {
            PathBuf::new()
        } else {
            relative.parent().map(Path::to_path_buf).unwrap_or_default()
        };
        if stays_inside(&base, target) {
            self.unpacked
                .left_out
                .push(format!("{shown} (a link; links are not unpacked)"));
            Ok(())
        } else {
            Err(format!(
                "the entry {shown} is a link to {:?}, outside the skill's folder",
                target.display().to_string()
            ))
        }
    }

    fn special(&mut self, shown: &str) {
        self.unpacked
            .left_out
            .push(format!("{shown} (not a regular file or folder)"));
    }

    fn finish(self) -> Result<Unpacked, String> {
        let has_skill = ["SKILL.md", "skill.md"]
            .iter()
            .any(|n| std::fs::symlink_metadata(self.into.join(n)).is_ok_and(|m| m.is_file()));
        if !has_skill {
            return Err("it holds no SKILL.md at its top (the archive's files must be the skill folder's, not inside a wrapper folder)".into());
        }
        Ok(self.unpacked)
    }
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
    use std::io::Write;

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
            (b"PK\x03\x04rest".to_vec(), "cannot be read as a .zip"),
            (b"not an archive".to_vec(), "neither"),
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

    /// A zip of `(name, unix mode or None, content)`, stored or deflated.
    fn zip_of(entries: &[(&str, Option<u32>, &[u8])], deflate: bool) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, mode, content) in entries {
            let mut options =
                zip::write::SimpleFileOptions::default().compression_method(if deflate {
                    zip::CompressionMethod::Deflated
                } else {
                    zip::CompressionMethod::Stored
                });
            if let Some(mode) = mode {
                options = options.unix_permissions(*mode);
            }
            if mode.is_some_and(|m| m & S_IFMT == S_IFLNK) {
                writer
                    .add_symlink(*name, std::str::from_utf8(content).unwrap(), options)
                    .unwrap();
            } else if name.ends_with('/') {
                writer.add_directory(*name, options).unwrap();
            } else {
                writer.start_file(*name, options).unwrap();
                writer.write_all(content).unwrap();
            }
        }
        writer.finish().unwrap().into_inner()
    }

    #[test]
    fn zip_archives_unpack_like_tar_ones() {
        let temp = tempfile::tempdir().unwrap();
        for deflate in [false, true] {
            let bytes = zip_of(
                &[
                    ("SKILL.md", None, b"---\nname: z\n---\n"),
                    ("scripts/", None, b""),
                    ("scripts/run.sh", Some(0o100_755), b"echo hi\n"),
                    ("docs/a b.md", Some(0o100_600), b"text"),
                    ("docs/link", Some(S_IFLNK | 0o777), b"a b.md"),
                ],
                deflate,
            );
            assert!(is_zip(&bytes));
            let into = temp.path().join(format!("out-{deflate}"));
            std::fs::create_dir(&into).unwrap();
            let unpacked = unpack(&bytes, &into).unwrap();
            assert_eq!(unpacked.files, 3);
            assert_eq!(unpacked.left_out.len(), 1, "{:?}", unpacked.left_out);
            assert_eq!(
                std::fs::read_to_string(into.join("docs/a b.md")).unwrap(),
                "text"
            );
            assert!(std::fs::symlink_metadata(into.join("docs/link")).is_err());
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = |p: &str| {
                    std::fs::metadata(into.join(p))
                        .unwrap()
                        .permissions()
                        .mode()
                        & 0o777
                };
                assert_eq!(mode("scripts/run.sh"), 0o755);
                assert_eq!(mode("docs/a b.md"), 0o644);
            }
        }
    }

    #[test]
    fn hostile_zips_are_refused() {
        let temp = tempfile::tempdir().unwrap();
        let skill: (&str, Option<u32>, &[u8]) = ("SKILL.md", None, b"x");
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (
                zip_of(&[skill, ("../evil", None, b"x")], false),
                "path traversal",
            ),
            (
                zip_of(&[skill, ("a/../../evil", None, b"x")], true),
                "path traversal",
            ),
            (
                zip_of(&[("/etc/evil", None, b"x"), skill], false),
                "path traversal",
            ),
            (
                zip_of(&[skill, ("a\\..\\evil", None, b"x")], false),
                "backslash",
            ),
            (
                zip_of(
                    &[skill, ("out", Some(S_IFLNK | 0o777), b"../../etc/passwd")],
                    false,
                ),
                "outside the skill's folder",
            ),
            (
                zip_of(
                    &[skill, ("abs", Some(S_IFLNK | 0o777), b"/etc/passwd")],
                    false,
                ),
                "outside the skill's folder",
            ),
            (
                zip_of(&[("wrapper/SKILL.md", None, b"x")], false),
                "no SKILL.md",
            ),
        ];
        for (i, (bytes, expected)) in cases.iter().enumerate() {
            let into = temp.path().join(format!("case{i}"));
            std::fs::create_dir(&into).unwrap();
            let error = unpack(bytes, &into).unwrap_err();
            assert!(error.contains(expected), "case {i}: {error}");
        }
        assert!(!temp.path().join("evil").exists());
    }

    #[test]
    fn a_zip_that_lies_about_its_sizes_is_refused() {
        // The header says 1 byte; the deflated stream holds 4 MiB. Reading
        // counts bytes, so the lie is caught (here by the size check, the
        // cap the same way on a larger stream).
        let content = vec![b'a'; 4 << 20];
        let mut bytes = zip_of(&[("SKILL.md", None, &content)], true);
        // Patch the uncompressed size in the local and central headers.
        let size = (content.len() as u32).to_le_bytes();
        let mut patched = 0;
        for i in 0..bytes.len() - 4 {
            if bytes[i..i + 4] == size {
                bytes[i..i + 4].copy_from_slice(&1u32.to_le_bytes());
                patched += 1;
            }
        }
        assert!(patched >= 2);
        let temp = tempfile::tempdir().unwrap();
        let error = unpack(&bytes, temp.path()).unwrap_err();
        assert!(
            error.contains("header says") || error.contains("cannot be read"),
            "{error}"
        );
    }
}
