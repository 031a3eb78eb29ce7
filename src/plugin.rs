//! Plugin layouts: which plugin a skill belongs to, so that the plugin, not
//! the folder path `plugins/<p>/skills`, is its namespace.
//!
//! Claude Code (and Codex, Cursor) package skills in plugins: a folder with
//! a manifest (`.claude-plugin/plugin.json`, `.codex-plugin/plugin.json`,
//! `.cursor-plugin/plugin.json`) whose skills sit in `skills/<skill>/`
//! (custom `skills` paths in a manifest are not followed: finding them
//! would cost a probe in every folder of every catalog). A marketplace
//! (`.claude-plugin/marketplace.json` at the top of a root) lists plugins by
//! their `source` folder, and may list a plugin's skill folders itself
//! (`skills: ["./skills/pdf", …]`, several plugins sharing one source).
//! Repositories copied without their JSON files keep the shape: a folder
//! `plugins/<p>/skills/` is taken for plugin `<p>`.
//!
//! A skill's plugin is found from its folder alone, in this order: the
//! marketplace entry that lists the folder; else the nearest folder above
//! it that is a plugin (a manifest, a marketplace source, or the
//! `plugins/<p>/skills/` shape). A skill directly in one of the plugin's
//! skills folders gets the plugin's name as its namespace; one deeper (a
//! nested skill, a group folder) gets `plugin/rest-of-path`.
//!
//! Manifests are read lazily by the walker threads and cached per folder,
//! and only folders that hold a `skills/` folder on a skill's path are
//! probed, so a catalog without that shape pays nothing. Only `name`, `description` and `skills` are read; a
//! manifest that does not parse is reported and the plugin still counts,
//! named by its folder.

use crate::entry::{one_line, Code, Position};
use crate::parse::Finding;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Folders that hold a plugin manifest, in order of preference.
pub const MANIFEST_DIRS: &[&str] = &[".claude-plugin", ".codex-plugin", ".cursor-plugin"];

/// The manifest file inside a `MANIFEST_DIRS` folder.
pub const MANIFEST_FILE: &str = "plugin.json";

/// The marketplace file inside `.claude-plugin/` at the top of a root.
pub const MARKETPLACE_FILE: &str = "marketplace.json";

/// Manifests larger than this are not read.
const MAX_MANIFEST_BYTES: u64 = 1024 * 1024;

/// One plugin: a folder inside a root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plugin {
    pub name: String,
    /// From the manifest, else the marketplace entry; `None` when neither says.
    pub description: Option<String>,
    /// The plugin folder, relative to the root.
    pub folder: PathBuf,
    /// Its skills folders, relative to the root: `skills/`, or the
    /// folders its marketplace entry lists.
    pub skill_folders: Vec<PathBuf>,
    /// The file that describes it (a manifest or the marketplace), when
    /// there is one.
    pub source: Option<PathBuf>,
}

/// Where a skill sits: its namespace, and whether that namespace is a plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub namespace: String,
    /// The namespace is a plugin's name (qualified as `plugin:skill`).
    pub plugin: bool,
}

/// A marketplace entry with a local source.
#[derive(Debug, Clone)]
struct Entry {
    name: String,
    description: Option<String>,
    /// The plugin folder, relative to the root.
    folder: PathBuf,
    /// Skill folders the entry lists, relative to the root (empty: by folder).
    skills: Vec<PathBuf>,
}

/// The plugins of one root, found as skills are met. Shared by the walker
/// threads of one scan.
#[derive(Debug, Default)]
pub struct PluginIndex {
    root: PathBuf,
    entries: Vec<Entry>,
    marketplace: Option<PathBuf>,
    /// Folder (relative) → the plugin it is, if any.
    folders: Mutex<HashMap<PathBuf, Option<Arc<Plugin>>>>,
    findings: Mutex<Vec<(PathBuf, Finding)>>,
}

impl PluginIndex {
    /// The index of `root`, with its marketplace (if any) read.
    pub fn new(root: &Path) -> Self {
        let mut index = PluginIndex {
            root: root.to_path_buf(),
            ..PluginIndex::default()
        };
        let path = root.join(MANIFEST_DIRS[0]).join(MARKETPLACE_FILE);
        match read_json(&path) {
            None => {}
            Some(Err(finding)) => index.note(&path, finding),
            Some(Ok(value)) => {
                index.entries = marketplace_entries(&value);
                index.marketplace = Some(path);
            }
        }
        index
    }

    fn note(&self, path: &Path, finding: Finding) {
        self.findings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((path.to_path_buf(), finding));
    }

    /// The namespace of a skill whose folder is `skill_folder` (relative to
    /// the root).
    pub fn place(&self, skill_folder: &Path) -> Placement {
        let parent = skill_folder.parent().unwrap_or(Path::new(""));
        // Listed by a marketplace entry: that plugin, whatever the folders.
        if let Some(entry) = self
            .entries
            .iter()
            .find(|e| e.skills.iter().any(|s| s == skill_folder))
        {
            return Placement {
                namespace: entry.name.clone(),
                plugin: true,
            };
        }
        // The names along the skill's path: `folder` below holds the first
        // `depth` of them, so the name after it is `names[depth]` (no path
        // is joined or compared to find it).
        let names: Vec<&std::ffi::OsStr> = skill_folder.iter().collect();
        let mut depth = names.len().saturating_sub(1);
        for folder in parent.ancestors() {
            // Only folders the path leaves through `skills/` (or that a
            // marketplace names) can be this skill's plugin: a catalog
            // without that shape costs no probe for manifests at all.
            let through_skills = names.get(depth).is_some_and(|name| *name == "skills");
            debug_assert_eq!(
                through_skills,
                skill_folder.starts_with(folder.join("skills")),
                "{folder:?} in {skill_folder:?}"
            );
            depth = depth.saturating_sub(1);
            let probe = through_skills || self.entries.iter().any(|e| e.folder == folder);
            if !probe {
                continue;
            }
            if let Some(plugin) = self.plugin_at(folder, skill_folder) {
                return placement_in(&plugin, parent);
            }
        }
        Placement {
            namespace: crate::paths::slash_path(parent),
            plugin: false,
        }
    }

    /// The namespace a `README.md` in `folder` describes: the plugin's when
    /// the folder is a plugin or one of its skills folders, else the one
    /// of the skills directly inside it.
    pub fn folder_namespace(&self, folder: &Path) -> String {
        let skills = folder.join("skills");
        if self.root.join(&skills).is_dir() {
            if let Some(plugin) = self.plugin_at(folder, &skills) {
                return plugin.name.clone();
            }
        }
        self.place(&folder.join("_")).namespace
    }

    /// The plugin that `folder` is, for a skill at `skill_folder` below it.
    fn plugin_at(&self, folder: &Path, skill_folder: &Path) -> Option<Arc<Plugin>> {
        let cached = self
            .folders
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(folder)
            .cloned();
        let plugin = match cached {
            Some(plugin) => plugin,
            None => {
                let found = self.find_plugin(folder).map(Arc::new);
                self.folders
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .entry(folder.to_path_buf())
                    .or_insert(found)
                    .clone()
            }
        }?;
        // A plugin found only by its shape holds only what is in `skills/`.
        let shaped = plugin.source.is_none();
        (!shaped
            || plugin
                .skill_folders
                .iter()
                .any(|d| skill_folder.starts_with(d)))
        .then_some(plugin)
    }

    /// Read what makes `folder` a plugin, if anything does.
    fn find_plugin(&self, folder: &Path) -> Option<Plugin> {
        let entry = self
            .entries
            .iter()
            .find(|e| e.folder == folder && e.skills.is_empty());
        let default_skills = folder.join("skills");
        for dir in MANIFEST_DIRS {
            let path = self.root.join(folder).join(dir).join(MANIFEST_FILE);
            let value = match read_json(&path) {
                None => continue,
                Some(Err(finding)) => {
                    self.note(&path, finding);
                    serde_json::Value::Null
                }
                Some(Ok(value)) => value,
            };
            return Some(Plugin {
                name: text(&value["name"])
                    .or_else(|| entry.map(|e| e.name.clone()))
                    .unwrap_or_else(|| folder_name(folder)),
                description: text(&value["description"])
                    .or_else(|| entry.and_then(|e| e.description.clone())),
                folder: folder.to_path_buf(),
                skill_folders: vec![default_skills],
                source: Some(path),
            });
        }
        if let Some(entry) = entry {
            return Some(Plugin {
                name: entry.name.clone(),
                description: entry.description.clone(),
                folder: folder.to_path_buf(),
                skill_folders: vec![default_skills],
                source: self.marketplace.clone(),
            });
        }
        // The shape alone: `plugins/<p>/` holding `skills/`.
        let parent_is_plugins = folder
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|n| n == "plugins");
        parent_is_plugins.then(|| Plugin {
            name: folder_name(folder),
            description: None,
            folder: folder.to_path_buf(),
            skill_folders: vec![default_skills],
            source: None,
        })
    }

    /// Every plugin met, sorted by folder, and what went wrong reading
    /// their manifests.
    pub fn into_parts(self) -> (Vec<Arc<Plugin>>, Vec<(PathBuf, Finding)>) {
        let folders = self.folders.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut plugins: Vec<Arc<Plugin>> = folders.into_values().flatten().collect();
        plugins.sort_by(|a, b| a.folder.cmp(&b.folder));
        // Entries that list their skills are plugins too.
        let mut listed: Vec<Arc<Plugin>> = self
            .entries
            .iter()
            .filter(|e| !e.skills.is_empty())
            .map(|e| {
                Arc::new(Plugin {
                    name: e.name.clone(),
                    description: e.description.clone(),
                    folder: e.folder.clone(),
                    skill_folders: e.skills.clone(),
                    source: self.marketplace.clone(),
                })
            })
            .collect();
        plugins.append(&mut listed);
        let mut findings = self
            .findings
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        findings.sort_by(|a, b| a.0.cmp(&b.0));
        findings.dedup();
        (plugins, findings)
    }
}

/// The namespace of a skill whose folder's parent is `parent`, inside `plugin`.
fn placement_in(plugin: &Plugin, parent: &Path) -> Placement {
    let base = plugin
        .skill_folders
        .iter()
        .filter(|d| parent.starts_with(d))
        .max_by_key(|d| d.components().count())
        .unwrap_or(&plugin.folder);
    let rest = parent
        .strip_prefix(base)
        .map(crate::paths::slash_path)
        .unwrap_or_default();
    if rest.is_empty() {
        Placement {
            namespace: plugin.name.clone(),
            plugin: true,
        }
    } else {
        Placement {
            namespace: format!("{}/{rest}", plugin.name),
            plugin: false,
        }
    }
}

fn folder_name(folder: &Path) -> String {
    folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A manifest's text field, on one line; `None` when absent or empty.
fn text(value: &serde_json::Value) -> Option<String> {
    value.as_str().map(one_line).filter(|t| !t.is_empty())
}

/// A string or a list of strings.
fn string_list(value: &serde_json::Value) -> Vec<String> {
    match value {
        serde_json::Value::String(s) => vec![s.clone()],
        serde_json::Value::Array(items) => items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// `base` joined with the relative path `listed` (`./skills/`), when it
/// stays inside the root; `None` for absolute paths, URLs and climbs out.
fn relative_inside(base: &Path, listed: &str) -> Option<PathBuf> {
    let listed = listed.trim();
    if listed.contains("://") || Path::new(listed).is_absolute() {
        return None;
    }
    let mut out = base.to_path_buf();
    for component in Path::new(listed).components() {
        match component {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            _ => return None,
        }
    }
    Some(out)
}

/// The plugins a marketplace lists with a local source folder.
fn marketplace_entries(value: &serde_json::Value) -> Vec<Entry> {
    let plugin_root = value["metadata"]["pluginRoot"]
        .as_str()
        .and_then(|r| relative_inside(Path::new(""), r))
        .unwrap_or_default();
    let Some(plugins) = value["plugins"].as_array() else {
        return Vec::new();
    };
    plugins
        .iter()
        .filter_map(|plugin| {
            let name = text(&plugin["name"])?;
            // Sources that are not a local folder (a git repository) have
            // no skills under this root.
            let source = plugin["source"].as_str()?;
            let folder = if source.starts_with("./") || source.starts_with("../") {
                relative_inside(Path::new(""), source)?
            } else {
                relative_inside(&plugin_root, source)?
            };
            let skills = string_list(&plugin["skills"])
                .iter()
                .filter_map(|s| relative_inside(&folder, s))
                .collect();
            Some(Entry {
                name,
                description: text(&plugin["description"]),
                folder,
                skills,
            })
        })
        .collect()
}

/// Read a JSON object: `None` when there is no such file, the finding when
/// it cannot be used.
fn read_json(path: &Path) -> Option<Result<serde_json::Value, Finding>> {
    let metadata = std::fs::metadata(path).ok()?;
    if !metadata.is_file() {
        return None;
    }
    let unusable = |what: String| {
        Some(Err(Finding::new(
            Code::PluginManifestInvalid,
            Position::START,
            format!("{what}; its plugin's skills are still found, named by the plugin folder — fix the JSON"),
        )))
    };
    if metadata.len() > MAX_MANIFEST_BYTES {
        return unusable(format!(
            "this manifest is {} bytes, larger than the {} read",
            crate::text::thousands(metadata.len() as usize),
            crate::text::thousands(MAX_MANIFEST_BYTES as usize)
        ));
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) => return unusable(format!("could not read this manifest: {error}")),
    };
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(value) if value.is_object() => Some(Ok(value)),
        Ok(_) => unusable("this manifest is not a JSON object".to_string()),
        Err(error) => {
            let position = Position {
                line: u32::try_from(error.line()).unwrap_or(u32::MAX).max(1),
                column: u32::try_from(error.column()).unwrap_or(u32::MAX).max(1),
            };
            let mut finding =
                unusable(format!("this manifest is not valid JSON ({error})"))?.err()?;
            finding.position = position;
            Some(Err(finding))
        }
    }
}

/// The plugin folder of a skill folder on disk, for `${CLAUDE_PLUGIN_ROOT}`:
/// the nearest folder above it with a plugin manifest, else the folder
/// holding the `skills/` folder the skill sits in.
pub fn plugin_root_of(skill_dir: &Path) -> Option<PathBuf> {
    for folder in skill_dir.ancestors().skip(1) {
        if MANIFEST_DIRS
            .iter()
            .any(|d| folder.join(d).join(MANIFEST_FILE).is_file())
        {
            return Some(folder.to_path_buf());
        }
    }
    let parent = skill_dir.parent()?;
    (parent.file_name()? == "skills")
        .then(|| parent.parent().map(Path::to_path_buf))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, relative: &str, text: &str) {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn place(index: &PluginIndex, folder: &str) -> (String, bool) {
        let p = index.place(Path::new(folder));
        (p.namespace, p.plugin)
    }

    #[test]
    fn plugins_by_manifest_marketplace_and_shape() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path();
        write(
            root,
            ".claude-plugin/marketplace.json",
            r#"{"name": "m", "plugins": [
                {"name": "docs", "source": "./", "skills": ["./tools/pdf"]},
                {"name": "listed", "source": "./extra/listed", "description": "From the list."},
                {"name": "remote", "source": {"source": "github", "repo": "a/b"}}
            ]}"#,
        );
        write(
            root,
            "plugins/alpha/.claude-plugin/plugin.json",
            r#"{"name": "alpha-kit", "description": "Alpha things."}"#,
        );
        let index = PluginIndex::new(root);
        assert_eq!(place(&index, "tools/pdf"), ("docs".into(), true));
        assert_eq!(place(&index, "tools/other"), ("tools".into(), false));
        assert_eq!(
            place(&index, "plugins/alpha/skills/a"),
            ("alpha-kit".into(), true)
        );
        // Outside `skills/`, a plugin folder is an ordinary folder.
        assert_eq!(
            place(&index, "plugins/alpha/more/b"),
            ("plugins/alpha/more".into(), false)
        );
        assert_eq!(
            place(&index, "plugins/alpha/skills/a/nested"),
            ("alpha-kit/a".into(), false)
        );
        assert_eq!(
            place(&index, "extra/listed/skills/c"),
            ("listed".into(), true)
        );
        // The shape alone, and a `plugins/` folder that is not that shape.
        assert_eq!(
            place(&index, "plugins/beta/skills/d"),
            ("beta".into(), true)
        );
        assert_eq!(
            place(&index, "plugins/beta/agents/e"),
            ("plugins/beta/agents".into(), false)
        );
        let (plugins, findings) = index.into_parts();
        assert!(findings.is_empty(), "{findings:?}");
        let described: Vec<(&str, Option<&str>)> = plugins
            .iter()
            .map(|p| (p.name.as_str(), p.description.as_deref()))
            .collect();
        assert!(described.contains(&("alpha-kit", Some("Alpha things."))));
        assert!(described.contains(&("listed", Some("From the list."))));
    }

    #[test]
    fn a_broken_manifest_is_reported_and_the_folder_names_the_plugin() {
        let temp = tempfile::tempdir().unwrap();
        write(temp.path(), "kit/.claude-plugin/plugin.json", "{\"name\": ");
        let index = PluginIndex::new(temp.path());
        assert_eq!(place(&index, "kit/skills/a"), ("kit".into(), true));
        let (_, findings) = index.into_parts();
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].1.code, Code::PluginManifestInvalid);
    }

    #[test]
    fn plugin_roots_on_disk() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path();
        write(root, "p/.claude-plugin/plugin.json", "{}");
        assert_eq!(
            plugin_root_of(&root.join("p/skills/a")),
            Some(root.join("p"))
        );
        assert_eq!(
            plugin_root_of(&root.join("q/skills/b")),
            Some(root.join("q"))
        );
        assert_eq!(plugin_root_of(&root.join("q/other/b")), None);
    }
}
