//! Path helpers every layer may use (a leaf module: it imports nothing of
//! ours): how paths are shown (absolute, relative to a base, or not at
//! all), lexical normalisation, and `/`-joined relative paths. Lexical
//! only — nothing here touches the file system.

use serde::Serialize;
use std::path::{Component, Path, PathBuf};

/// How the directory and search answers show file paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PathStyle {
    #[default]
    Absolute,
    Relative,
    None,
}

/// `/`-joined components of a relative path.
pub fn slash_path(path: &Path) -> String {
    let mut out = String::new();
    for component in path.components() {
        if let std::path::Component::Normal(part) = component {
            if !out.is_empty() {
                out.push('/');
            }
            out.push_str(&part.to_string_lossy());
        }
    }
    out
}

/// How a file path is shown under `style`.
pub fn display_path(path: &Path, style: PathStyle, base: &Path) -> Option<String> {
    match style {
        PathStyle::None => None,
        PathStyle::Absolute if path.is_absolute() && is_normal(path) => {
            Some(path.to_string_lossy().into_owned())
        }
        PathStyle::Absolute => Some(
            std::path::absolute(path)
                .map(|p| normalize(&p))
                .unwrap_or_else(|_| path.to_path_buf())
                .to_string_lossy()
                .into_owned(),
        ),
        PathStyle::Relative => Some(relative_to(path, base).to_string_lossy().into_owned()),
    }
}

pub(crate) fn folder_path(path: &Path, style: PathStyle, base: &Path) -> Option<String> {
    display_path(path, style, base).map(|mut p| {
        if p.is_empty() {
            p.push('.');
        }
        if !p.ends_with('/') {
            p.push('/');
        }
        p
    })
}

pub(crate) fn is_normal(path: &Path) -> bool {
    path.components()
        .all(|c| !matches!(c, Component::CurDir | Component::ParentDir))
}

/// Remove `.` and resolve `..` lexically.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// `path` relative to `base` (both made absolute lexically).
fn relative_to(path: &Path, base: &Path) -> PathBuf {
    let path = normalize(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()));
    let base = normalize(&std::path::absolute(base).unwrap_or_else(|_| base.to_path_buf()));
    let path_parts: Vec<Component> = path.components().collect();
    let base_parts: Vec<Component> = base.components().collect();
    let common = path_parts
        .iter()
        .zip(&base_parts)
        .take_while(|(a, b)| a == b)
        .count();
    if common == 0 {
        return path;
    }
    let mut out = PathBuf::new();
    for _ in common..base_parts.len() {
        out.push("..");
    }
    for part in &path_parts[common..] {
        out.push(part);
    }
    out
}

/// A name for a temporary file or folder beside `path` (in its folder),
/// unique to this process and this call: `.NAME.skilldex-PID-N.tmp`.
/// Two writers at once, in one process or two, never share one (or
/// delete the other's).
pub(crate) fn temporary_beside(path: &Path) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.skilldex-{}-{n}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative_to(Path::new("/a/b/c/SKILL.md"), Path::new("/a/b")),
            PathBuf::from("c/SKILL.md")
        );
        assert_eq!(
            relative_to(Path::new("/a/x/SKILL.md"), Path::new("/a/b")),
            PathBuf::from("../x/SKILL.md")
        );
    }
}
