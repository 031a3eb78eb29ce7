//! A skill's wire entry: its front matter as the extension's JSON and the
//! manifest of every file it serves, with `sha256:` digests of the exact
//! bytes and the extension's limits on count and size.

use super::files::{child, served, Served};
use super::uri::{encode_path, root_uri, skill_uri};
use super::{MAX_BYTES, MAX_FILES};
use crate::catalog::Catalog;
use crate::contain::{EntryType, Folder, OpenedKind, Refusal};
use crate::entry::Skill;
use crate::query::read::DisabledInside;
use crate::scan::RulesCache;
use rmcp::model::{
    sha256_digest, Skill as WireSkill, SkillFrontmatter, SkillResource, SkillResources,
};

/// Every file of a skill folder (nested skills' files included), as
/// (path inside the folder, size), sorted; `Err` when a limit cuts. Folders
/// are listed from the open folder (`contain`), never by a name a
/// symlink could have replaced; symlinked folders are not entered.
fn manifest_files(
    rules_cache: &mut RulesCache,
    catalog: &Catalog,
    skill: &Skill,
) -> Result<Vec<(String, u64)>, String> {
    let root = catalog.root_of(skill);
    let dir = skill.dir();
    let folder = Folder::open(dir).map_err(|e| format!("its folder cannot be read ({e})"))?;
    let mut files = Vec::new();
    let mut total = 0u64;
    let disabled = DisabledInside::new(catalog, skill);
    // Files the tree's ignore rules leave out of the catalog are not served.
    let above = rules_cache.rules_above(root, dir);
    let mut stack = vec![(String::new(), above)];
    while let Some((relative, above)) = stack.pop() {
        let shown = if relative.is_empty() {
            "."
        } else {
            relative.as_str()
        };
        let opened = folder
            .open_path(&relative)
            .map_err(|e| format!("its folder `{shown}` cannot be read: {e}"))?;
        if opened.kind != OpenedKind::Folder || opened.real != relative {
            continue; // Swapped for a file or a link since it was listed.
        }
        let entries = crate::contain::list(&opened.file)
            .map_err(|e| format!("its folder `{shown}` cannot be read ({e})"))?;
        let has = |name: &str| entries.iter().any(|(n, _)| n == name);
        let rules = above.enter(&dir.join(&relative), has(".ignore"), has(".gitignore"));
        for (name, kind) in entries {
            let Some(path) = child(&relative, &name) else {
                continue;
            };
            match served(&folder, catalog, skill, &disabled, &rules, &path, kind) {
                None => {}
                // A linked folder is not entered (its files are reached
                // by their own paths).
                Some(Served::Folder) if kind == EntryType::Symlink => {}
                Some(Served::Folder) => stack.push((path, rules.clone())),
                Some(Served::File(len)) => {
                    total += len;
                    files.push((path, len));
                    if files.len() > MAX_FILES {
                        return Err(format!(
                            "it has more than {MAX_FILES} files, the extension's limit — move files \
                             the agent does not need out of the skill, or list them in an \
                             `.ignore` file in its folder"
                        ));
                    }
                    if total > MAX_BYTES {
                        return Err(
                            "its files add up to more than 16 MiB, the extension's limit — move \
                             large files out of the skill, or list them in an `.ignore` file in \
                             its folder"
                                .to_string(),
                        );
                    }
                }
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The bytes of the regular file `relative` inside `folder`, opened
/// through the boundary and sized before it is read; `Err` is the rest
/// of a sentence ("cannot be read: …").
fn read_served(
    folder: &Folder,
    catalog: &Catalog,
    skill: &Skill,
    relative: &str,
) -> Result<Vec<u8>, String> {
    let opened = super::files::open_in(folder, catalog, skill, relative).map_err(|e| match e {
        // Never where a link leads: only that it leads out.
        Refusal::LinksOut { .. } if skill.path.ends_with(relative) => {
            format!("cannot be read: it {}", Refusal::SKILL_FILE_OUT)
        }
        Refusal::LinksOut { .. } => format!("cannot be read: it {}", Refusal::LINK_OUT),
        e => format!("cannot be read: {e}"),
    })?;
    if opened.kind != OpenedKind::File {
        return Err("cannot be read: it is a folder".to_string());
    }
    if opened.len > MAX_BYTES {
        return Err("is larger than 16 MiB, the extension's limit".to_string());
    }
    crate::contain::read_at_most(opened.file, MAX_BYTES)
        .map_err(|e| format!("cannot be read ({e})"))
}

/// The wire entry of one skill: front matter as JSON, and the manifest of
/// every file with digest and size. `Err` says why it is not served.
pub fn entry(catalog: &Catalog, skill: &Skill) -> Result<WireSkill, String> {
    entry_with(&mut RulesCache::default(), catalog, skill)
}

/// `entry` for many skills (a page of `skills/list`), reading each folder's
/// ignore files once.
pub(crate) fn entry_with(
    rules_cache: &mut RulesCache,
    catalog: &Catalog,
    skill: &Skill,
) -> Result<WireSkill, String> {
    let uri = skill_uri(skill);
    let base = root_uri(skill);
    let folder =
        Folder::open(skill.dir()).map_err(|e| format!("its folder cannot be read ({e})"))?;
    let bytes =
        read_served(&folder, catalog, skill, "SKILL.md").map_err(|e| format!("SKILL.md {e}"))?;
    let text =
        std::str::from_utf8(&bytes).map_err(|_| "SKILL.md is not valid UTF-8".to_string())?;
    let mut frontmatter =
        crate::parse::frontmatter::strict_json(text).map_err(|e| e.to_string())?;
    let name = match frontmatter.remove("name") {
        Some(serde_json::Value::String(name)) if name == skill.name => name,
        Some(serde_json::Value::String(name)) => {
            return Err(format!(
                "the front matter name `{name}` differs from the skill's"
            ))
        }
        _ => return Err("the front matter has no `name` field".to_string()),
    };
    let description = match frontmatter.remove("description") {
        Some(serde_json::Value::String(d)) => d,
        _ => return Err("the front matter `description` is not a string".to_string()),
    };
    let mut wire_frontmatter = SkillFrontmatter::new(name, description);
    wire_frontmatter.extra = frontmatter;
    let files = manifest_files(rules_cache, catalog, skill)?;
    let skill_file_name = skill
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if skill_file_name != "SKILL.md" {
        return Err("its file is named skill.md; the extension needs SKILL.md".to_string());
    }
    let mut resources = Vec::with_capacity(files.len());
    for (relative, _) in &files {
        let file_uri = format!("{base}/{}", encode_path(relative));
        let content = if relative == "SKILL.md" {
            bytes.clone()
        } else {
            // Listed but unreadable: said, not silently left out.
            read_served(&folder, catalog, skill, relative)
                .map_err(|e| format!("its file `{}` {e}", crate::entry::printable(relative)))?
        };
        resources.push(SkillResource::new(
            file_uri,
            sha256_digest(&content),
            content.len() as u64,
        ));
    }
    let wire = WireSkill::new(uri, wire_frontmatter, SkillResources::Files(resources));
    wire.validate().map_err(|e| e.to_string())?;
    Ok(wire)
}
