//! What a target names: a skill by id, qualified name or name, and a path
//! inside it (`resolve_target`), or a file on disk under a root
//! (`locate_path`); when nothing matches, the error with suggestions.

use super::errors::NamespacePart;
use super::errors::ReadError;
use crate::catalog::Catalog;
use crate::entry::Skill;
use std::path::PathBuf;

/// Whether `target` names nothing: empty, or only slashes and spaces.
pub fn is_blank_target(target: &str) -> bool {
    target.chars().all(|c| c == '/' || c.is_whitespace())
}

/// Find the skill and the path inside it that `target` names: the longest
/// leading part that is a skill id or qualified name is the skill.
pub fn resolve_target<'a>(
    catalog: &'a Catalog,
    target: &str,
) -> Result<(&'a Skill, String), ReadError> {
    resolve(catalog, target, false)
}

/// A skill found by a path on disk rather than by name: `read
/// skills/dev/git-bisect/SKILL.md`, the form the directory prints in
/// brackets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathTarget {
    /// The skill's file as a walk of each root holding it writes it (the
    /// root joined with the path inside it), `SKILL.md` before `skill.md`.
    pub skill_files: Vec<PathBuf>,
    /// The wanted file inside the skill folder, `/`-separated; empty for
    /// the skill file itself.
    pub inside: String,
}

/// When `target` is a path on disk to a skill's file, its folder or a file
/// inside it, under one of `roots`: where that skill is. `None` when no
/// root holds the path or no skill folder does — the caller says so.
/// Nothing is read; the folder holding the nearest skill file, climbing no
/// higher than the roots, is the skill. A path that reaches a root only
/// through symlinks (a linked root, a current folder reported by its real
/// path) is matched by real paths and written back under the root.
pub fn locate_path(roots: &[PathBuf], target: &str) -> Option<PathTarget> {
    use crate::query::render::normalize;
    let given = std::path::Path::new(target.trim());
    let mut wanted = normalize(&std::path::absolute(given).ok()?);
    let absolute_roots: Vec<PathBuf> = roots
        .iter()
        .map(|root| normalize(&std::path::absolute(root).unwrap_or_else(|_| root.clone())))
        .collect();
    if !absolute_roots.iter().any(|root| wanted.starts_with(root)) {
        // The same place by real paths: written under the first root that
        // holds it.
        let real = wanted.canonicalize().ok()?;
        wanted = roots
            .iter()
            .zip(&absolute_roots)
            .find_map(|(root, absolute)| {
                let inside = real.strip_prefix(root.canonicalize().ok()?).ok()?;
                Some(absolute.join(inside))
            })?;
    }
    let holding: Vec<(&PathBuf, &PathBuf)> = roots
        .iter()
        .zip(&absolute_roots)
        .filter(|(_, absolute)| wanted.starts_with(absolute))
        .collect();
    // A dangling link is a file of its folder (reading it says it dangles).
    let is_dir = std::fs::metadata(&wanted).is_ok_and(|m| m.is_dir());
    let mut folder = if is_dir {
        wanted.clone()
    } else {
        wanted.parent()?.to_path_buf()
    };
    let names = loop {
        let names: Vec<&str> = crate::scan::SKILL_FILE_NAMES
            .iter()
            .copied()
            .filter(|name| folder.join(name).is_file())
            .collect();
        if !names.is_empty() {
            break names;
        }
        // Climb while the folder is still below a root.
        if !holding
            .iter()
            .any(|(_, root)| folder != **root && folder.starts_with(root))
        {
            return None;
        }
        folder = folder.parent()?.to_path_buf();
    };
    let inside = crate::scan::slash_path(wanted.strip_prefix(&folder).ok()?);
    let inside = if inside == names[0] {
        String::new()
    } else {
        inside
    };
    let skill_files: Vec<PathBuf> = holding
        .iter()
        .filter_map(|(root, absolute)| folder.strip_prefix(absolute).ok().map(|rel| root.join(rel)))
        .flat_map(|folder| names.iter().map(move |name| folder.join(name)))
        .collect();
    if skill_files.is_empty() {
        return None;
    }
    Some(PathTarget {
        skill_files,
        inside,
    })
}

/// Find the skill `name` names (the MCP `name`, the CLI's `show NAME`).
/// A path after the name still works, as in `resolve_target`; what
/// differs is the error, which takes all of `name` for the name.
pub fn resolve_name<'a>(
    catalog: &'a Catalog,
    name: &str,
) -> Result<(&'a Skill, String), ReadError> {
    resolve(catalog, name, true)
}

/// The error for a skill name that names no skill (for commands that
/// look names up themselves, like `show`): as `resolve_name` words it.
pub fn unknown_name(catalog: &Catalog, name: &str) -> ReadError {
    let name = name.trim().trim_matches('/');
    let parts: Vec<&str> = name.split('/').collect();
    unknown(catalog, name, &parts, true)
}

pub(super) fn resolve<'a>(
    catalog: &'a Catalog,
    target: &str,
    whole_is_name: bool,
) -> Result<(&'a Skill, String), ReadError> {
    if is_blank_target(target) {
        return Err(ReadError::EmptyName);
    }
    let target = target.trim().trim_matches('/');
    let parts: Vec<&str> = target.split('/').collect();
    for cut in (1..=parts.len()).rev() {
        let name = parts[..cut].join("/");
        if let Some(skill) = catalog.get(&name) {
            return Ok((skill, parts[cut..].join("/")));
        }
    }
    for cut in (1..=parts.len()).rev() {
        if let Some(skill) = catalog.disabled_skill(&parts[..cut].join("/")) {
            return Err(ReadError::Disabled {
                name: skill.id.clone(),
            });
        }
    }
    Err(unknown(catalog, target, &parts, whole_is_name))
}

/// Why `target` (split into `parts`) names no skill, in the terms it was
/// passed in.
pub(super) fn unknown(
    catalog: &Catalog,
    target: &str,
    parts: &[&str],
    whole_is_name: bool,
) -> ReadError {
    if parts.contains(&"..") {
        // What it would name without the climbing, if anything.
        let rest: Vec<&str> = parts
            .iter()
            .copied()
            .filter(|p| !matches!(*p, ".." | "." | ""))
            .collect();
        let suggestions = match resolve_target(catalog, &rest.join("/")) {
            Ok((skill, _)) if !rest.is_empty() => vec![skill.id.clone()],
            _ => Vec::new(),
        };
        return ReadError::ParentInName {
            name: target.to_string(),
            suggestions,
        };
    }
    let has_namespace = |namespace: &str| {
        catalog.namespaces().iter().any(|n| {
            n.name == namespace
                || n.name.len() > namespace.len()
                    && n.name.starts_with(namespace)
                    && n.name.as_bytes()[namespace.len()] == b'/'
        })
    };
    // How many leading parts name the skill (namespace folders, then its
    // name); the rest, for `NAME/PATH` targets, is a path inside it.
    let name_parts = if whole_is_name {
        parts.len()
    } else {
        match (1..parts.len())
            .rev()
            .find(|&k| has_namespace(&parts[..k].join("/")))
        {
            Some(k) => k + 1,
            // `a/b` with no namespace `a`: a qualified name more likely
            // than a file without an extension.
            None if parts.len() == 2 && !parts[1].contains('.') => 2,
            None => 1,
        }
    };
    let (name, namespace) = match parts[..name_parts].split_last() {
        Some((name, namespace)) => (*name, namespace.join("/")),
        None => (target, String::new()),
    };
    // A skill file in a folder of that name that did not load: say why.
    let in_namespace = |d: &&crate::entry::Diagnostic| {
        namespace.is_empty()
            || d.path
                .parent()
                .and_then(std::path::Path::parent)
                .is_some_and(|p| p.ends_with(&namespace))
    };
    if let Some(d) = catalog
        .load_errors_named(name)
        .into_iter()
        .find(in_namespace)
    {
        return ReadError::NotLoadedSkill {
            name: name.to_string(),
            diagnostic: Box::new(d.clone()),
        };
    }
    if let Some(folder) = unreadable_folder(catalog, name, &namespace) {
        return ReadError::Unreadable {
            name: name.to_string(),
            folder,
        };
    }
    if namespace.is_empty() {
        return ReadError::UnknownSkill {
            name: name.to_string(),
            namespace: None,
            suggestions: catalog
                .similar(name, 5)
                .into_iter()
                .map(str::to_string)
                .collect(),
        };
    }
    let exists = has_namespace(&namespace);
    // Skills of that name elsewhere, then skills like the qualified name,
    // like the name alone, and (in a `NAME/PATH` target with no such
    // namespace, the first part may be a misspelt skill) like the
    // namespace; all written the way they were asked for, `namespace/name`.
    let mut found: Vec<&Skill> = catalog
        .skills()
        .iter()
        .filter(|s| s.name.eq_ignore_ascii_case(name))
        .map(|s| &**s)
        .collect();
    let qualified = format!("{namespace}/{name}");
    let mut similar = catalog.similar(&qualified, 5);
    similar.extend(catalog.similar(name, 5));
    if !exists && !whole_is_name {
        similar.extend(catalog.similar(&namespace, 5));
    }
    for id in similar {
        if let Some(skill) = catalog.get(id) {
            if !found.iter().any(|f| std::ptr::eq(*f, skill)) {
                found.push(skill);
            }
        }
    }
    let suggestions = found
        .into_iter()
        .take(5)
        .map(|skill| {
            // `namespace/id` when that reads this skill: a skill that lost
            // the name in the same namespace may have it as its id.
            let qualified = format!("{}/{}", skill.namespace, skill.id);
            let reads_it = catalog
                .get(&qualified)
                .is_some_and(|s| std::ptr::eq(s, skill));
            if skill.namespace.is_empty() || skill.id.contains('/') || !reads_it {
                skill.id.clone()
            } else {
                qualified
            }
        })
        .collect();
    ReadError::UnknownSkill {
        name: name.to_string(),
        namespace: Some(NamespacePart {
            exists,
            name: namespace,
        }),
        suggestions,
    }
}

/// A folder named `name` (in `namespace`, when one is given) that the walk
/// could not enter: a skill asked for by that name may be in it, so "no
/// such skill" would not be true.
pub(crate) fn unreadable_folder(
    catalog: &Catalog,
    name: &str,
    namespace: &str,
) -> Option<std::path::PathBuf> {
    catalog
        .diagnostics()
        .iter()
        .filter(|d| d.code == crate::entry::Code::WalkError)
        .map(|d| d.path.as_path())
        .find(|path| {
            path.file_name().is_some_and(|n| n == name)
                && (namespace.is_empty() || path.parent().is_some_and(|p| p.ends_with(namespace)))
                && std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
        })
        .map(std::path::Path::to_path_buf)
}
