//! `skilldex.lock`: what was installed, so that another machine (or an
//! empty checkout) gets the same tree. JSON, byte-stable (entries sorted
//! by destination, two-space indent, a final newline), written atomically
//! beside the configuration file.
//!
//! Each entry records the skill's `name`, the `source` it was offered by
//! (the `available` entry or `--from`), the artifact's `type` and resolved
//! `url` with the `digest` its index gave, the `tree` digest (of the
//! installed folder packed byte-stably, see `archive.rs`) and the
//! `destination` folder, relative to the lock file's folder when inside
//! it. A replay fetches each `url` again, checks `digest`, unpacks, checks
//! `tree`, and only then moves the folder into place.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The lock file's name.
pub const LOCK_FILE: &str = "skilldex.lock";
/// The format version written in it.
pub const LOCK_VERSION: u32 = 1;
/// A lock file larger than this is not read.
const MAX_LOCK_BYTES: u64 = 16 << 20;

/// One installed skill.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Locked {
    pub destination: String,
    pub name: String,
    pub source: String,
    /// `skill-md`, `archive`, or `folder` (copied from a collection folder).
    #[serde(rename = "type")]
    pub kind: String,
    pub url: String,
    pub digest: String,
    pub tree: String,
}

/// The lock file's content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    pub version: u32,
    pub skills: Vec<Locked>,
}

impl Default for Lock {
    fn default() -> Self {
        Lock {
            version: LOCK_VERSION,
            skills: Vec::new(),
        }
    }
}

/// Why a lock file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("{}:{line}:{column}: {message}", .path.display())]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("could not read the lock file {}: {error} — check the path (`--lock FILE`)", .path.display())]
    Read { path: PathBuf, error: String },
    #[error("could not write the lock file {}: {error} — check that its folder is writable", .path.display())]
    Write { path: PathBuf, error: String },
}

/// Read the lock file at `path`; a missing file is an empty lock.
pub fn read(path: &Path) -> Result<Lock, LockError> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(Lock::default());
    }
    let bytes =
        crate::contain::read_regular(path, MAX_LOCK_BYTES).map_err(|error| LockError::Read {
            path: path.to_path_buf(),
            error: error.to_string(),
        })?;
    let lock: Lock = serde_json::from_slice(&bytes).map_err(|error| LockError::Invalid {
        path: path.to_path_buf(),
        line: error.line().max(1),
        column: error.column().max(1),
        message: format!(
            "this is not a skilldex lock file ({error}) — fix it, or delete it and install again"
        ),
    })?;
    if lock.version != LOCK_VERSION {
        return Err(LockError::Invalid {
            path: path.to_path_buf(),
            line: 1,
            column: 1,
            message: format!(
                "lock file version {} is not the {LOCK_VERSION} this skilldex writes — update skilldex",
                lock.version
            ),
        });
    }
    Ok(lock)
}

/// The lock as byte-stable JSON.
pub fn to_json(lock: &Lock) -> String {
    let mut lock = lock.clone();
    lock.skills.sort();
    let mut out = serde_json::to_string_pretty(&lock).unwrap_or_default();
    out.push('\n');
    out
}

/// Record `entry` in the lock file at `path` (replacing an entry of the
/// same destination), written atomically.
pub fn record(path: &Path, entry: Locked) -> Result<(), LockError> {
    let mut lock = read(path)?;
    lock.skills.retain(|e| e.destination != entry.destination);
    lock.skills.push(entry);
    write(path, &lock)
}

fn write(path: &Path, lock: &Lock) -> Result<(), LockError> {
    let failed = |error: std::io::Error| LockError::Write {
        path: path.to_path_buf(),
        error: error.to_string(),
    };
    let temporary = crate::paths::temporary_beside(path);
    std::fs::write(&temporary, to_json(lock)).map_err(failed)?;
    std::fs::rename(&temporary, path).map_err(|error| {
        let _ = std::fs::remove_file(&temporary);
        failed(error)
    })
}

/// How `folder` is written in a lock file at `lock`: relative to the lock
/// file's folder when inside it (`/`-separated), else absolute.
pub fn destination_of(folder: &Path, lock: &Path) -> String {
    let base = lock
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let absolute = |p: &Path| {
        crate::paths::normalize(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
    };
    let folder = absolute(folder);
    match folder.strip_prefix(absolute(base)) {
        Ok(inside) if !inside.as_os_str().is_empty() => crate::paths::slash_path(inside),
        _ => folder.display().to_string(),
    }
}

/// The folder a `destination` of the lock file at `lock` names.
pub fn folder_of(destination: &str, lock: &Path) -> PathBuf {
    let base = lock.parent().unwrap_or(Path::new("."));
    let path = Path::new(destination);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(destination: &str) -> Locked {
        Locked {
            destination: destination.into(),
            name: "a".into(),
            source: "s".into(),
            kind: "archive".into(),
            url: "u".into(),
            digest: "d".into(),
            tree: "t".into(),
        }
    }

    #[test]
    fn records_replace_by_destination_and_are_written_sorted() {
        let temp = tempfile::tempdir().unwrap();
        let path = temp.path().join(LOCK_FILE);
        record(&path, entry("skills/b")).unwrap();
        record(&path, entry("skills/a")).unwrap();
        let mut changed = entry("skills/b");
        changed.digest = "e".into();
        record(&path, changed).unwrap();
        let lock = read(&path).unwrap();
        assert_eq!(lock.skills.len(), 2);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.find("skills/a").unwrap() < text.find("skills/b").unwrap());
        assert_eq!(text, to_json(&lock));
        std::fs::write(&path, "{\"version\": 1,\n \"skills\": [}").unwrap();
        let error = read(&path).unwrap_err().to_string();
        assert!(error.contains("skilldex.lock:2:"), "{error}");
        assert_eq!(
            destination_of(&temp.path().join("skills/x"), &path),
            "skills/x"
        );
        assert_eq!(folder_of("skills/x", &path), temp.path().join("skills/x"));
        // A lock file named without a folder is in the current one.
        let here = std::env::current_dir().unwrap();
        assert_eq!(
            destination_of(&here.join("skills/x"), Path::new(LOCK_FILE)),
            "skills/x"
        );
    }
}
