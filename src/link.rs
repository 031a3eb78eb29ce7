//! Native folders: a catalog laid out where and as a host's own skill
//! loader reads it, so one catalog serves every agent.
//!
//! Hosts read skills from one folder level: Claude Code reads only
//! `<skills>/<name>/SKILL.md` (`.claude/skills`, `~/.claude/skills`), not
//! namespace folders or skills nested in others; Codex reads
//! `.agents/skills` and `~/.agents/skills`; Gemini CLI `.gemini/skills` and
//! `~/.gemini/skills`; opencode `.opencode/skills` and
//! `~/.config/opencode/skills`. A plan links each skill of the catalog
//! there under its flat name, as a symlink to the skill's folder:
//!
//! - two skills with one name: the one of higher precedence is linked, the
//!   other reported;
//! - an entry already there that skilldex did not make (a folder, a file,
//!   someone's link) is left alone and reported;
//! - the links skilldex made are recorded in `.skilldex-links.json` in the
//!   folder; a recorded link whose skill is gone (or disabled) is removed,
//!   and nothing else is ever removed;
//! - a plan of a folder already laid out changes nothing (idempotent).
//!
//! Planning only reads; `apply` makes the changes. Nothing here prints.

use crate::catalog::Catalog;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The record of the links skilldex made in a folder.
pub const RECORD: &str = ".skilldex-links.json";

/// A host whose own loader reads a folder of skills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    Claude,
    Codex,
    Gemini,
    Opencode,
}

impl Host {
    pub fn name(self) -> &'static str {
        match self {
            Host::Claude => "claude",
            Host::Codex => "codex",
            Host::Gemini => "gemini",
            Host::Opencode => "opencode",
        }
    }

    /// The folder of a project's skills, relative to the project.
    pub fn project_dir(self) -> &'static str {
        match self {
            Host::Claude => ".claude/skills",
            Host::Codex => ".agents/skills",
            Host::Gemini => ".gemini/skills",
            Host::Opencode => ".opencode/skills",
        }
    }

    /// The folder of the user's skills, relative to their home.
    pub fn user_dir(self) -> &'static str {
        match self {
            Host::Claude => ".claude/skills",
            Host::Codex => ".agents/skills",
            Host::Gemini => ".gemini/skills",
            Host::Opencode => ".config/opencode/skills",
        }
    }
}

impl Host {
    /// The host's skill-listing budget and limits (`render --host`'s).
    pub fn listing_host(self) -> crate::query::Host {
        match self {
            Host::Claude => crate::query::Host::Claude,
            Host::Codex => crate::query::Host::Codex,
            Host::Gemini => crate::query::Host::Gemini,
            Host::Opencode => crate::query::Host::Opencode,
        }
    }

    /// Whether the host's loader also finds skills in sub-folders of a
    /// skill folder (opencode globs `**/SKILL.md`), so a nested skill is
    /// already reached through its parent's link.
    pub fn reads_nested(self) -> bool {
        matches!(self, Host::Opencode)
    }
}

/// What a plan does with one name in the folder.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// Create the link `name` → `target`.
    Link { name: String, target: PathBuf },
    /// The link is there already (or the skill's own folder is).
    Keep { name: String, target: PathBuf },
    /// A link skilldex made points elsewhere now: point it at `target`.
    Relink {
        name: String,
        target: PathBuf,
        was: PathBuf,
    },
    /// A link skilldex made whose skill is gone: remove it.
    Remove { name: String, target: PathBuf },
    /// Not linked on its own: the host finds it inside the link `via`
    /// (a skill nested in another, for a host that reads sub-folders).
    Within {
        name: String,
        target: PathBuf,
        via: String,
    },
    /// A link skilldex made whose skill file did not load (a broken
    /// front matter, say): left in place, and why, so one bad edit does
    /// not take the skill from the host.
    Hold {
        name: String,
        target: PathBuf,
        reason: String,
    },
    /// Not linked, and why.
    Skip {
        name: String,
        target: PathBuf,
        reason: String,
    },
}

impl Action {
    pub fn name(&self) -> &str {
        match self {
            Action::Link { name, .. }
            | Action::Keep { name, .. }
            | Action::Relink { name, .. }
            | Action::Remove { name, .. }
            | Action::Within { name, .. }
            | Action::Hold { name, .. }
            | Action::Skip { name, .. } => name,
        }
    }

    /// Whether applying it changes the folder.
    pub fn changes(&self) -> bool {
        matches!(
            self,
            Action::Link { .. } | Action::Relink { .. } | Action::Remove { .. }
        )
    }
}

/// What `plan` found to do in one folder, by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub dir: PathBuf,
    pub actions: Vec<Action>,
}

impl Plan {
    /// The skills of `catalog` the host finds in the folder once the plan
    /// is applied (linked, kept, relinked, or inside a linked folder), by
    /// the names it finds them under: what its own listing shows.
    pub fn listed<'c>(&self, catalog: &'c Catalog) -> Vec<(&str, &'c crate::entry::Skill)> {
        let by_folder: std::collections::HashMap<PathBuf, &crate::entry::Skill> = catalog
            .skills()
            .iter()
            .map(|skill| {
                let folder = skill.dir();
                let real = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
                (real, skill.as_ref())
            })
            .collect();
        self.actions
            .iter()
            .filter_map(|action| match action {
                Action::Link { name, target }
                | Action::Keep { name, target }
                | Action::Relink { name, target, .. }
                | Action::Within { name, target, .. } => {
                    by_folder.get(target).map(|skill| (name.as_str(), *skill))
                }
                Action::Remove { .. } | Action::Hold { .. } | Action::Skip { .. } => None,
            })
            .collect()
    }
}

/// Why a folder cannot be planned or changed.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("{path}:{line}:{column}: not a record of skilldex links ({message}) — remove the file to start over; the links stay and are reported as not made by skilldex")]
    Record {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> LinkError + '_ {
    move |source| LinkError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The links recorded in `dir`: name → target.
fn read_record(dir: &Path) -> Result<BTreeMap<String, PathBuf>, LinkError> {
    let path = dir.join(RECORD);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(io(&path)(e)),
    };
    #[derive(serde::Deserialize)]
    struct Record {
        links: BTreeMap<String, PathBuf>,
    }
    serde_json::from_str::<Record>(&text)
        .map(|r| r.links)
        .map_err(|e| LinkError::Record {
            path,
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })
}

/// A name that is one plain folder name everywhere.
fn plain_name(name: &str) -> Result<(), String> {
    if name.is_empty()
        || name == "."
        || name == ".."
        || name.starts_with('.')
        || name.contains(['/', '\\', '\0', ':'])
    {
        return Err(format!("`{name}` cannot be a folder name"));
    }
    Ok(())
}

/// The links that lay `catalog` out in `dir` for `host`, and the stale
/// ones to remove.
pub fn plan(catalog: &Catalog, dir: &Path, host: Host) -> Result<Plan, LinkError> {
    let record = read_record(dir)?;
    let real_dir = std::fs::canonicalize(dir).ok();
    // name → (target, skill file shown in messages)
    let mut wanted: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut actions: Vec<Action> = Vec::new();
    for skill in catalog.skills() {
        let folder = skill.dir();
        let target = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
        // The folder's own entries (our links, or skills kept there) are
        // what is being laid out, not more skills to lay out.
        if let Some(real_dir) = &real_dir {
            if folder
                .parent()
                .and_then(|p| std::fs::canonicalize(p).ok())
                .as_ref()
                == Some(real_dir)
                && folder.file_name().and_then(|n| n.to_str()) == Some(skill.name.as_str())
            {
                if !wanted.contains_key(&skill.name) {
                    wanted.insert(skill.name.clone(), target.clone());
                }
                continue;
            }
        }
        if wanted.values().any(|t| t == &target) {
            continue; // the same folder, seen through another root
        }
        let name = skill.name.clone();
        if let Err(reason) = plain_name(&name) {
            actions.push(Action::Skip {
                name,
                target,
                reason,
            });
            continue;
        }
        if skill.path.file_name().and_then(|n| n.to_str()) != Some("SKILL.md") {
            actions.push(Action::Skip {
                name,
                target,
                reason: "its file is not named SKILL.md, the only name hosts read".to_string(),
            });
            continue;
        }
        if let Some(holder) = wanted.get(&name) {
            actions.push(Action::Skip {
                name,
                target,
                reason: format!(
                    "the name is taken by {} (higher precedence); hosts read one skill per name",
                    holder.display()
                ),
            });
            continue;
        }
        wanted.insert(name, target);
    }
    if host.reads_nested() {
        // A skill inside another linked skill's folder is found through
        // that link; a link of its own would show the host the same skill
        // twice (opencode warns "duplicate skill name").
        let folders: Vec<(String, PathBuf)> =
            wanted.iter().map(|(n, t)| (n.clone(), t.clone())).collect();
        for (name, target) in &folders {
            let holder = folders
                .iter()
                .filter(|(other, t)| other != name && target.starts_with(t) && target != t)
                .min_by_key(|(_, t)| t.components().count());
            // Only where both names are free for skilldex: the holder's
            // link can be made, and no one else's entry has the name.
            let free = |name: &str, target: &Path| {
                let entry = dir.join(name);
                match std::fs::read_link(&entry) {
                    Ok(points) => points == target || record.get(name) == Some(&points),
                    Err(_) => entry.symlink_metadata().is_err(),
                }
            };
            if let Some((via, via_target)) = holder {
                if free(via, via_target) && free(name, target) {
                    wanted.remove(name);
                    actions.push(Action::Within {
                        name: name.clone(),
                        target: target.clone(),
                        via: via.clone(),
                    });
                }
            }
        }
    }
    for (name, target) in &wanted {
        let entry = dir.join(name);
        let action = match std::fs::symlink_metadata(&entry) {
            Err(_) => Action::Link {
                name: name.clone(),
                target: target.clone(),
            },
            Ok(meta) if meta.file_type().is_symlink() => {
                let points = std::fs::read_link(&entry).map_err(io(&entry))?;
                if &points == target {
                    Action::Keep {
                        name: name.clone(),
                        target: target.clone(),
                    }
                } else if record.get(name) == Some(&points) {
                    Action::Relink {
                        name: name.clone(),
                        target: target.clone(),
                        was: points,
                    }
                } else {
                    Action::Skip {
                        name: name.clone(),
                        target: target.clone(),
                        reason: format!(
                            "{} is a link to {} that skilldex did not make; left as it is",
                            entry.display(),
                            points.display()
                        ),
                    }
                }
            }
            Ok(_) => {
                let here = std::fs::canonicalize(&entry).ok();
                if here.as_ref() == Some(target) {
                    Action::Keep {
                        name: name.clone(),
                        target: target.clone(),
                    }
                } else {
                    Action::Skip {
                        name: name.clone(),
                        target: target.clone(),
                        reason: format!(
                            "{} exists and is not a link skilldex made; left as it is",
                            entry.display()
                        ),
                    }
                }
            }
        };
        actions.push(action);
    }
    // Folders whose skill file did not load: their links stay.
    let not_loaded: Vec<(PathBuf, &crate::entry::Diagnostic)> = catalog
        .load_errors()
        .into_iter()
        .filter_map(|d| {
            let folder = d.path.parent()?;
            Some((
                std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf()),
                d,
            ))
        })
        .collect();
    for (name, target) in &record {
        if wanted.contains_key(name) {
            continue;
        }
        let entry = dir.join(name);
        let ours = std::fs::symlink_metadata(&entry).is_ok_and(|m| m.file_type().is_symlink())
            && std::fs::read_link(&entry).is_ok_and(|p| &p == target);
        if !ours {
            continue;
        }
        let real_target = std::fs::canonicalize(target).unwrap_or_else(|_| target.clone());
        match not_loaded.iter().find(|(folder, _)| *folder == real_target) {
            Some((_, d)) => actions.push(Action::Hold {
                name: name.clone(),
                target: target.clone(),
                reason: format!(
                    "{}:{}:{}: its skill file did not load ({}); the link stays — fix the file and link again",
                    crate::entry::printable(&d.path.to_string_lossy()),
                    d.line,
                    d.column,
                    d.message
                ),
            }),
            None => actions.push(Action::Remove {
                name: name.clone(),
                target: target.clone(),
            }),
        }
    }
    actions.sort_by(|a, b| a.name().cmp(b.name()).then_with(|| rank(a).cmp(&rank(b))));
    Ok(Plan {
        dir: dir.to_path_buf(),
        actions,
    })
}

/// Order of actions on one name: what is done before what is skipped.
fn rank(action: &Action) -> u8 {
    match action {
        Action::Keep { .. } | Action::Link { .. } | Action::Relink { .. } => 0,
        Action::Remove { .. } | Action::Within { .. } | Action::Hold { .. } => 1,
        Action::Skip { .. } => 2,
    }
}

/// Make the changes of `plan` and record the links skilldex made.
pub fn apply(plan: &Plan) -> Result<(), LinkError> {
    let dir = &plan.dir;
    let record_before = read_record(dir)?;
    if !plan.actions.iter().any(Action::changes) && !record_before.is_empty() {
        return Ok(());
    }
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let mut record: BTreeMap<String, PathBuf> = BTreeMap::new();
    for action in &plan.actions {
        match action {
            Action::Link { name, target } => {
                let entry = dir.join(name);
                symlink(target, &entry).map_err(io(&entry))?;
                record.insert(name.clone(), target.clone());
            }
            Action::Relink { name, target, .. } => {
                let entry = dir.join(name);
                std::fs::remove_file(&entry).map_err(io(&entry))?;
                symlink(target, &entry).map_err(io(&entry))?;
                record.insert(name.clone(), target.clone());
            }
            Action::Hold { name, target, .. } => {
                record.insert(name.clone(), target.clone());
            }
            Action::Keep { name, target } => {
                // Ours only if it is a link (a skill kept in the folder
                // itself is the user's).
                let entry = dir.join(name);
                if std::fs::symlink_metadata(&entry).is_ok_and(|m| m.file_type().is_symlink()) {
                    record.insert(name.clone(), target.clone());
                }
            }
            Action::Remove { name, .. } => {
                let entry = dir.join(name);
                std::fs::remove_file(&entry).map_err(io(&entry))?;
            }
            Action::Skip { .. } | Action::Within { .. } => {}
        }
    }
    let path = dir.join(RECORD);
    if record.is_empty() {
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(&path)(e)),
            _ => return Ok(()),
        }
    }
    let text = serde_json::to_string_pretty(&serde_json::json!({
        "generator": "skilldex link",
        "links": record,
    }))
    .unwrap_or_default()
        + "\n";
    let temporary = dir.join(format!("{RECORD}.tmp"));
    std::fs::write(&temporary, text).map_err(io(&temporary))?;
    std::fs::rename(&temporary, &path).map_err(io(&path))
}

#[cfg(unix)]
fn symlink(target: &Path, entry: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, entry)
}

#[cfg(not(unix))]
fn symlink(_target: &Path, _entry: &Path) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "symbolic links are not supported here",
    ))
}
