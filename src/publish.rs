//! `skilldex publish DIR`: the catalog as an Agent Skills discovery index
//! (format 0.2.0) that a web server can serve as it is:
//!
//! ```text
//! DIR/.well-known/agent-skills/index.json
//! DIR/.well-known/agent-skills/<name>/SKILL.md     a skill that is only its SKILL.md
//! DIR/.well-known/agent-skills/<name>.tar.gz       a skill with more files
//! ```
//!
//! Entries are sorted by name; `url` is relative to the index (so the
//! folder can be served from any path, or read from disk), and `digest` is
//! the `sha256:` of the artifact's bytes. Archives are packed byte-stably
//! (`install::archive`), so publishing the same files twice writes the same
//! bytes. A skill is left out, with the reason, when its name breaks the
//! format's naming rule, its description is empty or over 1,024
//! characters, another skill holds its plain name, or its files cannot be
//! read; a nested skill is published on its own, not inside its parent's
//! archive. The new `agent-skills` folder is written beside the old one
//! and swapped in only when complete, so stale artifacts never linger and
//! a failed publish leaves the last one in place.

use crate::catalog::Catalog;
use crate::install::archive;
use crate::install::index::{self, ArtifactKind, IndexEntry, MAX_DESCRIPTION_CHARS};
use crate::install::WELL_KNOWN;
use std::path::{Path, PathBuf};

/// What `publish` wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Published {
    /// The index file.
    pub index: PathBuf,
    /// Its entries, sorted by name.
    pub entries: Vec<IndexEntry>,
    /// Skills not published: (id, why).
    pub left_out: Vec<(String, String)>,
}

/// Why nothing could be published.
#[derive(Debug, thiserror::Error)]
#[error("could not publish into {}: {error} — check that the folder is writable", .path.display())]
pub struct PublishError {
    pub path: PathBuf,
    pub error: std::io::Error,
}

/// Publish `catalog` into `dir` (created when missing).
pub fn publish(catalog: &Catalog, dir: &Path) -> Result<Published, PublishError> {
    let failed = |path: &Path| {
        let path = path.to_path_buf();
        move |error: std::io::Error| PublishError {
            path: path.clone(),
            error,
        }
    };
    let target = dir.join(WELL_KNOWN);
    let well_known = target.parent().unwrap_or(dir).to_path_buf();
    std::fs::create_dir_all(&well_known).map_err(failed(&well_known))?;
    let staging = crate::paths::temporary_beside(&target);
    std::fs::create_dir(&staging).map_err(failed(&staging))?;
    let result = write_all(catalog, &staging);
    let (entries, left_out) = match result {
        Ok(written) => written,
        Err(error) => {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(error);
        }
    };
    // Swap: the old folder aside, the new one in, the old one removed.
    let old = crate::paths::temporary_beside(&target);
    let had_old = std::fs::rename(&target, &old).is_ok();
    if let Err(error) = std::fs::rename(&staging, &target) {
        if had_old {
            let _ = std::fs::rename(&old, &target);
        }
        let _ = std::fs::remove_dir_all(&staging);
        return Err(PublishError {
            path: target,
            error,
        });
    }
    if had_old {
        let _ = std::fs::remove_dir_all(&old);
    }
    Ok(Published {
        index: target.join("index.json"),
        entries,
        left_out,
    })
}

type Written = (Vec<IndexEntry>, Vec<(String, String)>);

fn write_all(catalog: &Catalog, out: &Path) -> Result<Written, PublishError> {
    let failed = |path: &Path| {
        let path = path.to_path_buf();
        move |error: std::io::Error| PublishError {
            path: path.clone(),
            error,
        }
    };
    let mut skills: Vec<&crate::entry::Skill> = catalog.skills().iter().map(|s| &**s).collect();
    skills.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.id.cmp(&b.id)));
    let mut entries = Vec::new();
    let mut left_out = Vec::new();
    for skill in skills {
        let name = &skill.name;
        let why = if !index::is_valid_name(name) {
            Some(format!("its name {name:?} is not 1-64 characters of a-z, 0-9 and single hyphens, as the discovery format requires — rename it"))
        } else if catalog.get(name).is_some_and(|owner| owner.id != skill.id) {
            Some(format!(
                "`{}` holds the name `{name}`; an index lists a name once — rename one",
                catalog.get(name).map_or("", |s| s.id.as_str())
            ))
        } else if skill.description.trim().is_empty() {
            Some("its description is empty — write one".to_string())
        } else if skill.description.chars().count() > MAX_DESCRIPTION_CHARS {
            Some(format!(
                "its description is longer than {MAX_DESCRIPTION_CHARS} characters — shorten it"
            ))
        } else {
            None
        };
        if let Some(why) = why {
            left_out.push((skill.id.clone(), why));
            continue;
        }
        let folder = skill.dir();
        let packed = match archive::pack(folder, &skill.path, catalog.root_of(skill)) {
            Ok(packed) => packed,
            Err(error) => {
                left_out.push((
                    skill.id.clone(),
                    format!("its files cannot be packed: {error}"),
                ));
                continue;
            }
        };
        let (kind, url, bytes) = if packed.has_more_than_skill_file {
            let url = format!("{name}.tar.gz");
            (ArtifactKind::Archive, url, packed.bytes)
        } else {
            let bytes = match crate::contain::read_skill_file(
                catalog.root_of(skill),
                &skill.path,
                crate::contain::MAX_READ_BYTES,
            ) {
                Ok(bytes) => bytes,
                Err(error) => {
                    left_out.push((
                        skill.id.clone(),
                        format!("its SKILL.md cannot be read: {error}"),
                    ));
                    continue;
                }
            };
            let folder = out.join(name);
            std::fs::create_dir(&folder).map_err(failed(&folder))?;
            (ArtifactKind::SkillMd, format!("{name}/SKILL.md"), bytes)
        };
        let path = out.join(&url);
        std::fs::write(&path, &bytes).map_err(failed(&path))?;
        entries.push(IndexEntry {
            name: name.clone(),
            kind,
            description: skill.description.clone(),
            url,
            digest: index::digest_of(&bytes),
        });
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    let path = out.join("index.json");
    std::fs::write(&path, index::to_json(&entries)).map_err(failed(&path))?;
    Ok((entries, left_out))
}
