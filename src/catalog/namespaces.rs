//! Namespaces of skills: one per folder (or plugin) holding skills, with
//! the description of its README/index front matter or plugin manifest,
//! else a default that says what the folder is.

use crate::entry::{Namespace, Skill};
use crate::scan;
use std::collections::HashMap;
use std::sync::Arc;

/// Namespaces of the skills (in directory order), sorted by name, with
/// descriptions from the folder's README/index front matter where one
/// exists.
pub(crate) fn namespaces_of(
    skills: &[Arc<Skill>],
    files: &[&scan::FoundNamespaceFile],
) -> Vec<Namespace> {
    let mut descriptions = namespace_descriptions(files);
    let mut namespaces = Vec::new();
    let mut start = 0;
    while start < skills.len() {
        let name = skills[start].namespace.as_str();
        let end = start
            + skills[start..]
                .iter()
                .position(|s| s.namespace != name)
                .unwrap_or(skills.len() - start);
        let description = descriptions.remove(name);
        namespaces.push(namespace_of(name, &skills[start..end], skills, description));
        start = end;
    }
    namespaces
}

/// Descriptions from plugin manifests and README/index files by namespace
/// name; the first root's wins, then a manifest over a README, then the
/// first by path.
pub(crate) fn namespace_descriptions(
    files: &[&scan::FoundNamespaceFile],
) -> HashMap<String, String> {
    let mut files: Vec<&scan::FoundNamespaceFile> = files.to_vec();
    files.sort_by(|a, b| (a.root, !a.plugin, &a.path).cmp(&(b.root, !b.plugin, &b.path)));
    let mut descriptions: HashMap<String, String> = HashMap::new();
    for file in files {
        if let Some(description) = &file.description {
            descriptions
                .entry(file.describes.clone())
                .or_insert_with(|| description.clone());
        }
    }
    descriptions
}

/// One namespace: `members` are its skills in directory order, `skills` the
/// whole catalog in directory order (to find a skill the namespace is nested
/// in), `description` from its README if it has one.
pub(crate) fn namespace_of(
    name: &str,
    members: &[Arc<Skill>],
    skills: &[Arc<Skill>],
    description: Option<String>,
) -> Namespace {
    // A namespace that is itself a skill folder (nested skills) says so.
    let parent_skill = || -> Option<&str> {
        let (parent, folder) = name.rsplit_once('/').unwrap_or(("", name));
        members_of(skills, parent).iter().find_map(|s| {
            s.dir()
                .file_name()
                .is_some_and(|f| f == std::ffi::OsStr::new(folder))
                .then_some(s.name.as_str())
        })
    };
    let description = description.unwrap_or_else(|| match parent_skill() {
        Some(parent) => format!("Skills nested inside the {parent} skill."),
        None if members.first().is_some_and(|s| s.plugin) => {
            format!("Skills of the {name} plugin.")
        }
        None => Namespace::default_description(name),
    });
    Namespace {
        name: name.to_string(),
        description,
        // Members are in directory order, which is id order within a namespace.
        skills: members.iter().map(|s| s.id.clone()).collect(),
    }
}

/// The skills of namespace `name` in `skills` (directory order).
pub(crate) fn members_of<'a>(skills: &'a [Arc<Skill>], name: &str) -> &'a [Arc<Skill>] {
    let start = skills.partition_point(|s| s.namespace.as_str() < name);
    let end = start + skills[start..].partition_point(|s| s.namespace.as_str() == name);
    &skills[start..end]
}
