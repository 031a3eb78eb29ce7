//! What an `available:` entry (or `install --from`) offers. An entry is
//! one of:
//!
//! - a **collection folder** of skills (scanned like a root, not part of
//!   the catalog); a folder holding `.well-known/agent-skills/index.json`
//!   (what `publish` writes) is read as that index instead;
//! - a **discovery index** (`index.json`, a path or an `http(s)://` URL);
//! - a **Claude Code marketplace** (`.claude-plugin/marketplace.json`) or a
//!   **Codex marketplace** (`.agents/plugins/marketplace.json`): the skills
//!   of the plugins it lists with a local source folder (`"./plugins/x"`,
//!   or Codex's `{"source": "local", "path": …}`). Plugins from a git
//!   repository or a URL are not fetched; each is named in a note.

use super::fetch::{FetchError, Location, WELL_KNOWN};
use super::index::{self, MAX_INDEX_BYTES};
use super::{IndexedSkill, Offered, OfferedSkill};
use crate::catalog::CatalogBuilder;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A marketplace larger than this is not read.
const MAX_MARKETPLACE_BYTES: u64 = 4 << 20;

/// What kind of entry a location is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Folder(PathBuf),
    Index(Location),
    /// A marketplace file and the folder its sources are relative to.
    Marketplace {
        file: PathBuf,
        root: PathBuf,
    },
}

/// The kind of the entry at `location`, by what is there.
pub fn classify(location: &Location) -> Source {
    let Location::File(path) = location else {
        return Source::Index(location.clone());
    };
    if path.is_dir() {
        let published = path.join(WELL_KNOWN).join("index.json");
        return if published.is_file() {
            Source::Index(Location::File(published))
        } else {
            Source::Folder(path.clone())
        };
    }
    if path.file_name().is_some_and(|n| n == "marketplace.json") {
        let parent = path.parent().unwrap_or(Path::new("."));
        let root = match parent.file_name().and_then(|n| n.to_str()) {
            // `.claude-plugin/marketplace.json` (and Cursor's).
            Some(".claude-plugin" | ".cursor-plugin") => parent.parent(),
            // `.agents/plugins/marketplace.json` (Codex).
            Some("plugins")
                if parent
                    .parent()
                    .and_then(Path::file_name)
                    .is_some_and(|n| n == ".agents") =>
            {
                parent.parent().and_then(Path::parent)
            }
            _ => Some(parent),
        };
        return Source::Marketplace {
            file: path.clone(),
            root: root.unwrap_or(Path::new(".")).to_path_buf(),
        };
    }
    Source::Index(location.clone())
}

/// The skills an entry offers, and notes on what it could not offer
/// (entries left out, remote plugins), each naming where.
#[derive(Debug, Default)]
pub struct Offers {
    pub skills: Vec<Offered>,
    pub notes: Vec<String>,
}

/// Read what `source` offers. An entry that cannot be read at all is an
/// error naming it (and the line and column, for a file that is parsed).
pub fn offers(source: &Source) -> Result<Offers, String> {
    match source {
        Source::Folder(folder) => Ok(Offers {
            skills: folder_offers(std::slice::from_ref(folder), None),
            notes: Vec::new(),
        }),
        Source::Index(location) => index_offers(location),
        Source::Marketplace { file, root } => marketplace_offers(file, root),
    }
}

/// The skills of the collection folders `folders`, those under one of
/// `only` when given.
fn folder_offers(folders: &[PathBuf], only: Option<&[PathBuf]>) -> Vec<Offered> {
    let Ok(catalog) = CatalogBuilder::new(folders).build() else {
        return Vec::new();
    };
    catalog
        .skills()
        .iter()
        .filter_map(|skill| {
            let folder = skill.path.parent()?.to_path_buf();
            if let Some(only) = only {
                if !only.iter().any(|o| folder.starts_with(o)) {
                    return None;
                }
            }
            let collection = catalog
                .roots()
                .get(skill.root)
                .cloned()
                .unwrap_or_else(|| folder.clone());
            Some(Offered::Folder(OfferedSkill {
                id: skill.id.clone(),
                name: skill.name.clone(),
                description: skill.description.clone(),
                skill_file: skill.path.clone(),
                folder,
                collection,
            }))
        })
        .collect()
}

fn index_offers(location: &Location) -> Result<Offers, String> {
    let bytes = location
        .read(MAX_INDEX_BYTES)
        .map_err(|FetchError(error)| format!("{location}: {error}"))?;
    let index = index::parse(&bytes).map_err(|error| format!("{location}:{error}"))?;
    let mut offers = Offers::default();
    for problem in &index.problems {
        offers.notes.push(format!(
            "{location}:{}:{}: {}",
            problem.line, problem.column, problem.message
        ));
    }
    for entry in index.entries {
        let url = match location.join(&entry.url) {
            Ok(url) => url,
            Err(FetchError(error)) => {
                offers
                    .notes
                    .push(format!("{location}: `{}` is left out: {error}", entry.name));
                continue;
            }
        };
        offers.skills.push(Offered::Artifact(IndexedSkill {
            name: entry.name,
            description: entry.description,
            kind: entry.kind,
            url,
            digest: entry.digest,
            source: location.to_string(),
        }));
    }
    Ok(offers)
}

fn marketplace_offers(file: &Path, root: &Path) -> Result<Offers, String> {
    let shown = file.display();
    let bytes = crate::contain::read_regular(file, MAX_MARKETPLACE_BYTES)
        .map_err(|error| format!("{shown}: could not read it: {error}"))?;
    let text = String::from_utf8_lossy(&bytes);
    let value: Value =
        serde_json::from_str(text.trim_start_matches('\u{feff}')).map_err(|error| {
            format!(
                "{shown}:{}:{}: this marketplace is not valid JSON ({error}) — fix the JSON",
                error.line().max(1),
                error.column().max(1)
            )
        })?;
    let positions = crate::toolcat::Positions::of(text.trim_start_matches('\u{feff}'));
    let Some(plugins) = value.get("plugins").and_then(Value::as_array) else {
        return Err(format!(
            "{shown}:1:1: this marketplace has no `plugins` array — is it a marketplace file?"
        ));
    };
    let plugin_root = value["metadata"]["pluginRoot"]
        .as_str()
        .and_then(|r| relative_inside(root, r));
    let mut offers = Offers::default();
    let mut folders = Vec::new();
    for (i, plugin) in plugins.iter().enumerate() {
        let (line, column) = positions.get(&format!("/plugins/{i}"));
        let name = plugin["name"].as_str().unwrap_or("(unnamed)");
        let local = match &plugin["source"] {
            Value::String(path) => Some(path.as_str()),
            Value::Object(source)
                if source.get("source").and_then(Value::as_str) == Some("local") =>
            {
                source.get("path").and_then(Value::as_str)
            }
            _ => None,
        };
        let Some(local) = local else {
            offers.notes.push(format!(
                "{shown}:{line}:{column}: the plugin `{name}` comes from a repository or URL, which skilldex does not fetch — clone it and list its folder under `available:`"
            ));
            continue;
        };
        let base = match (
            &plugin_root,
            local.starts_with("./") || local.starts_with("../"),
        ) {
            (Some(plugin_root), false) => plugin_root.clone(),
            _ => root.to_path_buf(),
        };
        match relative_inside(&base, local) {
            Some(folder) if folder.is_dir() => folders.push(folder),
            _ => offers.notes.push(format!(
                "{shown}:{line}:{column}: the plugin `{name}`'s source {local:?} is not a folder inside {} — fix the path",
                root.display()
            )),
        }
    }
    if !folders.is_empty() {
        offers.skills = folder_offers(&[root.to_path_buf()], Some(&folders));
    }
    Ok(offers)
}

/// `base` joined with the relative path `listed`, when it stays inside
/// `base`'s tree; `None` for absolute paths, URLs and climbs out.
fn relative_inside(base: &Path, listed: &str) -> Option<PathBuf> {
    let listed = listed.trim();
    if listed.contains("://") || Path::new(listed).is_absolute() {
        return None;
    }
    let mut out = base.to_path_buf();
    let mut depth = 0usize;
    for component in Path::new(listed).components() {
        match component {
            std::path::Component::Normal(part) => {
                out.push(part);
                depth += 1;
            }
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if depth == 0 {
                    return None;
                }
                out.pop();
                depth -= 1;
            }
            _ => return None,
        }
    }
    Some(out)
}
