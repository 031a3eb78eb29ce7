//! Prefix-stable directories: what changed since a directory was shown,
//! written so that it can be appended to it.
//!
//! A host that keeps the directory in a model's prompt gets a cached prefix
//! only while the text does not change. So a later revision is never
//! rendered afresh in a running session: the old text stays as it is and a
//! block is appended that lists the skills added, changed and removed since
//! (`DirectorySession`). Entries already shown are never reordered or edited
//! in place; a changed skill's new line comes in the appended block, and the
//! block says that its lines win.
//!
//! What a model was shown is a `ShownState`: each listed skill with its path
//! and the version (content hash) of its file, and the namespaces shown only
//! as one line. It comes from a rendered directory, or from the JSON of
//! `render --format json`, which is how `render --since PREVIOUS.json` gives
//! the same block in another process.
//!
//! A skill counts as changed when its file's content or its path changed: a
//! model that already read the old instructions must read them again. A
//! skill added to a namespace the model saw only as one line is reachable
//! the way its neighbours are, and is not listed. Like the directory, the
//! block holds no revisions, hashes or other engine internals.

use super::render::{
    escape_xml, markdown_line, render_directory, Format, RenderOptions, RenderedDirectory,
    ShownSkill,
};
use crate::catalog::Catalog;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// One skill as a model last saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShownEntry {
    pub path: Option<String>,
    /// Version of the skill's file (`ShownSkill::hash`); empty if unknown
    /// (then the description is compared).
    pub hash: String,
    /// The description as shown.
    pub description: String,
}

/// What a model has been shown of a catalog.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShownState {
    /// Skills listed one by one, by id.
    pub skills: BTreeMap<String, ShownEntry>,
    /// Namespaces (or groups of namespaces) shown as one line only.
    pub collapsed_namespaces: BTreeSet<String>,
    /// Skills that are only counted in those lines.
    pub collapsed: BTreeSet<String>,
}

/// Why a previous directory could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{0} — pass the output of `skilldex render --format json`")]
pub struct ShownStateError(String);

impl ShownState {
    /// What `rendered` (rendered with per-skill data, not `counts_only`) shows.
    pub fn of(rendered: &RenderedDirectory) -> ShownState {
        ShownState {
            skills: rendered
                .skills
                .iter()
                .map(|s| {
                    (
                        s.id.clone(),
                        ShownEntry {
                            path: s.path.clone(),
                            hash: s.hash.clone(),
                            description: s.description.clone(),
                        },
                    )
                })
                .collect(),
            collapsed_namespaces: rendered
                .namespaces
                .iter()
                .filter(|n| n.collapsed)
                .map(|n| n.name.clone())
                .collect(),
            collapsed: rendered.collapsed.iter().cloned().collect(),
        }
    }

    /// Read the JSON of `render --format json` (or of `render --since
    /// --format json`, which has the same fields).
    pub fn from_json(value: &serde_json::Value) -> Result<ShownState, ShownStateError> {
        let skills = value
            .get("skills")
            .and_then(|s| s.as_array())
            .ok_or_else(|| ShownStateError("it has no `skills` list".into()))?;
        let mut state = ShownState::default();
        for skill in skills {
            let text = |key: &str| skill.get(key).and_then(|v| v.as_str()).map(str::to_string);
            let id = text("id")
                .ok_or_else(|| ShownStateError(format!("a skill without an `id`: {skill}")))?;
            state.skills.insert(
                id,
                ShownEntry {
                    path: text("path"),
                    hash: text("hash").unwrap_or_default(),
                    description: text("description").unwrap_or_default(),
                },
            );
        }
        for namespace in value
            .get("namespaces")
            .and_then(|n| n.as_array())
            .into_iter()
            .flatten()
        {
            if namespace.get("collapsed").and_then(|c| c.as_bool()) == Some(true) {
                if let Some(name) = namespace.get("name").and_then(|n| n.as_str()) {
                    state.collapsed_namespaces.insert(name.to_string());
                }
            }
        }
        for id in value
            .get("collapsed")
            .and_then(|c| c.as_array())
            .into_iter()
            .flatten()
        {
            if let Some(id) = id.as_str() {
                state.collapsed.insert(id.to_string());
            }
        }
        Ok(state)
    }

    /// The JSON form `from_json` reads back.
    pub fn to_json(&self) -> serde_json::Value {
        let skills: Vec<serde_json::Value> = self
            .skills
            .iter()
            .map(|(id, entry)| {
                serde_json::json!({
                    "id": id,
                    "path": entry.path,
                    "hash": entry.hash,
                    "description": entry.description,
                })
            })
            .collect();
        let namespaces: Vec<serde_json::Value> = self
            .collapsed_namespaces
            .iter()
            .map(|name| serde_json::json!({"name": name, "collapsed": true}))
            .collect();
        serde_json::json!({
            "skills": skills,
            "namespaces": namespaces,
            "collapsed": self.collapsed,
        })
    }

    /// True when a skill of `namespace` would be reachable through a
    /// namespace line already shown.
    fn in_collapsed_namespace(&self, namespace: &str) -> bool {
        self.collapsed_namespaces.iter().any(|label| {
            namespace == label
                || (!label.is_empty()
                    && namespace
                        .strip_prefix(label.as_str())
                        .is_some_and(|rest| rest.starts_with('/')))
        })
    }
}

/// What changed since a `ShownState`, and the text to append.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DirectoryDelta {
    /// New skills, in directory order, as they are shown.
    pub added: Vec<ShownSkill>,
    /// Skills with a new file or path, in directory order.
    pub changed: Vec<ShownSkill>,
    /// Ids of skills shown before that are gone.
    pub removed: Vec<String>,
    /// The block to append; empty when nothing changed.
    #[serde(skip)]
    pub text: String,
}

impl DirectoryDelta {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty()
    }
}

/// The changes of `catalog` since `previous`, and what has been shown once
/// they are appended.
pub fn render_delta(
    previous: &ShownState,
    catalog: &Catalog,
    options: &RenderOptions,
) -> (DirectoryDelta, ShownState) {
    let mut next = previous.clone();
    let mut added = BTreeSet::new();
    let mut present = BTreeSet::new();
    for (index, skill) in catalog.skills().iter().enumerate() {
        present.insert(skill.id.as_str());
        if previous.skills.contains_key(&skill.id) || previous.collapsed.contains(&skill.id) {
            continue;
        }
        if previous.in_collapsed_namespace(&skill.namespace) {
            next.collapsed.insert(skill.id.clone());
        } else {
            added.insert(index);
        }
    }
    let shown = super::render::entries_where(catalog, options, |index, skill, path| {
        if added.contains(&index) {
            return true;
        }
        let Some(before) = previous.skills.get(&skill.id) else {
            return false;
        };
        let same_file = match u64::from_str_radix(&before.hash, 16) {
            Ok(hash) => hash == skill.content_hash,
            // Written without versions: compare what was shown.
            Err(_) => before.description == skill.description,
        };
        // A path counts only when both sides show one in the same style: a
        // directory rendered without paths (or relative to another folder)
        // does not make every skill look moved.
        let moved = match (before.path.as_deref(), path) {
            (Some(a), Some(b)) => {
                std::path::Path::new(a).is_absolute() == std::path::Path::new(b).is_absolute()
                    && a != b
            }
            _ => false,
        };
        !same_file || moved
    });
    let mut delta = DirectoryDelta::default();
    for entry in shown {
        if previous.skills.contains_key(&entry.id) {
            delta.changed.push(entry);
        } else {
            delta.added.push(entry);
        }
    }
    delta.removed = previous
        .skills
        .keys()
        .filter(|id| !present.contains(id.as_str()))
        .cloned()
        .collect();
    next.collapsed.retain(|id| present.contains(id.as_str()));
    for id in &delta.removed {
        next.skills.remove(id);
    }
    for entry in delta.added.iter().chain(&delta.changed) {
        next.skills.insert(
            entry.id.clone(),
            ShownEntry {
                path: entry.path.clone(),
                hash: entry.hash.clone(),
                description: entry.description.clone(),
            },
        );
    }
    if !delta.is_empty() {
        delta.text = delta_text(&delta, options.format);
    }
    (delta, next)
}

const LEAD: &str = "These skills changed after the list above was written. Where an entry here differs from the list, this one is current.";

/// The block appended to a directory.
fn delta_text(delta: &DirectoryDelta, format: Format) -> String {
    let mut text = String::new();
    if format == Format::Xml {
        text.push_str("<skill_updates>\n<note>");
        text.push_str(LEAD);
        text.push_str("</note>\n");
        for (status, entries) in [("new", &delta.added), ("changed", &delta.changed)] {
            for entry in entries {
                text.push_str(&format!(
                    "<skill status=\"{status}\">\n<name>{}</name>\n<description>{}</description>\n",
                    escape_xml(&entry.id),
                    escape_xml(&entry.description)
                ));
                if let Some(path) = &entry.path {
                    text.push_str(&format!("<location>{}</location>\n", escape_xml(path)));
                }
                text.push_str("</skill>\n");
            }
        }
        for id in &delta.removed {
            text.push_str(&format!(
                "<skill status=\"removed\">\n<name>{}</name>\n</skill>\n",
                escape_xml(id)
            ));
        }
        text.push_str("</skill_updates>\n");
        return text;
    }
    text.push_str("\n## Skill updates\n\n");
    text.push_str(LEAD);
    text.push('\n');
    let sections = [
        ("New skills:", &delta.added),
        (
            "Changed skills (read a skill again before you use it, even if you read it before):",
            &delta.changed,
        ),
    ];
    for (heading, entries) in sections {
        if entries.is_empty() {
            continue;
        }
        text.push('\n');
        text.push_str(heading);
        text.push('\n');
        for entry in entries {
            markdown_line(
                &mut text,
                &entry.id,
                &entry.description,
                entry.path.as_deref(),
            );
        }
    }
    if !delta.removed.is_empty() {
        text.push_str("\nRemoved skills (no longer available; do not use them):\n");
        for id in &delta.removed {
            text.push_str("- ");
            text.push_str(id);
            text.push('\n');
        }
    }
    text
}

/// A directory kept in a long-running session: rendered once, then only
/// ever appended to.
#[derive(Debug, Clone)]
pub struct DirectorySession {
    options: RenderOptions,
    text: String,
    shown: ShownState,
}

impl DirectorySession {
    /// Render `catalog`'s directory to start the session.
    pub fn new(catalog: &Catalog, options: RenderOptions) -> (DirectorySession, RenderedDirectory) {
        let mut full = options.clone();
        full.counts_only = false;
        let rendered = render_directory(catalog, &full);
        let session = DirectorySession {
            text: rendered.text.clone(),
            shown: ShownState::of(&rendered),
            options,
        };
        (session, rendered)
    }

    /// Everything shown so far: the first directory and every block since.
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn shown(&self) -> &ShownState {
        &self.shown
    }

    /// Append what changed in `catalog`; the delta's text is empty (and
    /// nothing is appended) when no skill changed.
    pub fn update(&mut self, catalog: &Catalog) -> DirectoryDelta {
        let (delta, next) = render_delta(&self.shown, catalog, &self.options);
        self.text.push_str(&delta.text);
        self.shown = next;
        delta
    }
}
