//! Reading what a skill folder serves: one file as resource contents, one
//! folder as a listing, and the rule (shared with the manifest) of which
//! entries are served at all — through the `contain` boundary, never
//! outside the skill, never ignored files or disabled nested skills.

use super::uri::{encode_segment, mime_type};
use super::MAX_BYTES;
use crate::catalog::Catalog;
use crate::contain::{EntryType, Folder, OpenedKind, Refusal};
use crate::entry::Skill;
use crate::query::read::DisabledInside;
use crate::scan::RulesCache;
use rmcp::model::{Resource, ResourceContents, DIRECTORY_MIME_TYPE};
use std::path::Path;

/// True when `path`, inside a skill's folder, is in the folder of a
/// disabled skill nested in it (`inside`).
fn in_disabled_skill(inside: &DisabledInside, path: &Path) -> bool {
    // By real paths: a symlink inside the skill may lead into one.
    inside.owner_of_path(path).is_some()
}

/// What one entry of a skill folder is when served.
pub(super) enum Served {
    /// A file of this many bytes.
    File(u64),
    Folder,
}

/// Whether the entry `relative` of `skill`'s folder (listed as `kind` in
/// a folder whose ignore rules are `rules`) is served, and as what. A
/// symlink is judged by where it really is: served only when its target
/// is inside the skill, outside the disabled skills nested in it, and not
/// left out by a skipped folder or the ignore rules there; a pipe or
/// device never is.
pub(super) fn served(
    folder: &Folder,
    catalog: &Catalog,
    skill: &Skill,
    disabled: &DisabledInside,
    rules: &crate::scan::FolderRules,
    relative: &str,
    kind: EntryType,
) -> Option<Served> {
    let dir = skill.dir();
    let path = dir.join(relative);
    let name = relative.rsplit('/').next().unwrap_or(relative);
    match kind {
        EntryType::Other => None,
        EntryType::Folder => {
            let skipped = crate::scan::SKIPPED_DIRS.contains(&name);
            (!skipped && !rules.ignores(&path, true) && !in_disabled_skill(disabled, &path))
                .then_some(Served::Folder)
        }
        EntryType::File => {
            // Sized from the open file: a file swapped for a link since
            // the listing is judged as the link.
            let opened = open_in(folder, catalog, skill, relative).ok()?;
            (opened.real == relative && !rules.ignores(&path, false))
                .then_some(Served::File(opened.len))
                .filter(|_| opened.kind == OpenedKind::File)
        }
        EntryType::Symlink => {
            if rules.ignores(&path, false) {
                return None;
            }
            let opened = open_in(folder, catalog, skill, relative).ok()?;
            let real = dir.join(&opened.real);
            if crate::query::files::left_out(catalog.root_of(skill), skill, &real).is_some()
                || disabled.owner_of(&opened.real_path(folder)).is_some()
            {
                return None;
            }
            Some(match opened.kind {
                OpenedKind::File => Served::File(opened.len),
                OpenedKind::Folder => Served::Folder,
            })
        }
    }
}

/// Open `relative` of `skill` from its open `folder`: the skill file
/// through `Folder::open_skill_file` (it may be a symlink to a file
/// elsewhere in the root), any other path through `open_path`.
pub(super) fn open_in(
    folder: &Folder,
    catalog: &Catalog,
    skill: &Skill,
    relative: &str,
) -> Result<crate::contain::Opened, Refusal> {
    if skill.path.file_name() == Some(std::ffi::OsStr::new(relative)) {
        folder.open_skill_file(relative, catalog.root_of(skill), &skill.path)
    } else {
        folder.open_path(relative)
    }
}

/// `parent/name`, or `name` at the top.
pub(super) fn child(parent: &str, name: &std::ffi::OsStr) -> Option<String> {
    // A name that is not UTF-8 has no URI that reads it back: not served.
    let name = name.to_str()?;
    Some(if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}/{name}")
    })
}

/// The bytes of the file `relative` of `skill`, as one resource content
/// item: text when it is UTF-8 without NUL bytes, else base64.
pub fn read_file(
    catalog: &Catalog,
    skill: &Skill,
    relative: &str,
    uri: &str,
) -> Result<ResourceContents, String> {
    if relative.is_empty() {
        return Err(format!("{uri} is a directory; read {uri}/SKILL.md"));
    }
    let file_name = if relative == "SKILL.md" {
        skill
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    } else {
        relative.to_string()
    };
    let (opened, folder) = crate::query::read::open_file(catalog.root_of(skill), skill, &file_name)
        .map_err(|e| e.for_client())?;
    match DisabledInside::new(catalog, skill).refusal(&opened.real_path(&folder)) {
        Some(crate::query::read::NestedRefusal::Disabled(_)) => {
            return Err(format!(
                "{uri} belongs to a skill nested in `{}` that is disabled by configuration",
                skill.id
            ))
        }
        Some(crate::query::read::NestedRefusal::NotLoaded(_)) => {
            return Err(format!(
                "{uri} belongs to a skill nested in `{}` whose skill file did not load — the catalog's diagnostics say why",
                skill.id
            ))
        }
        None => {}
    }
    let mime = mime_type(relative);
    let binary_type = matches!(
        mime,
        "image/png"
            | "image/jpeg"
            | "image/gif"
            | "image/webp"
            | "application/pdf"
            | "application/zip"
    );
    // Sized on the open file, before a byte is read (past its first 8 KiB
    // to tell text, which grep searches, from binary, which nothing reads).
    if opened.len > MAX_BYTES {
        if binary_type || crate::contain::starts_binary(&opened.file) {
            return Err(format!(
                "{uri} is larger than 16 MiB, the extension's limit, and binary: it cannot be \
                 served — the skill's author can move it out of the skill"
            ));
        }
        return Err(format!(
            "{uri} is larger than 16 MiB, the extension's limit — find the lines you need with \
             the grep_skills tool (skill `{}`)",
            skill.id
        ));
    }
    let bytes = crate::contain::read_at_most(opened.file, MAX_BYTES)
        .map_err(|e| format!("{uri} cannot be read ({e})"))?;
    let text = if binary_type || bytes.contains(&0) {
        Err(bytes)
    } else {
        String::from_utf8(bytes).map_err(|e| e.into_bytes())
    };
    Ok(match text {
        Ok(text) => {
            let mime = if mime == "application/octet-stream" {
                "text/plain"
            } else {
                mime
            };
            ResourceContents::text(text, uri).with_mime_type(mime)
        }
        Err(bytes) => {
            use base64::Engine as _;
            ResourceContents::blob(
                base64::engine::general_purpose::STANDARD.encode(&bytes),
                uri,
            )
            .with_mime_type(mime)
        }
    })
}

/// The direct children of the folder `relative` of `skill`.
pub fn read_directory(
    catalog: &Catalog,
    skill: &Skill,
    relative: &str,
    uri: &str,
) -> Result<Vec<Resource>, String> {
    let root = catalog.root_of(skill);
    let dir = skill.dir();
    let disabled = DisabledInside::new(catalog, skill);
    let not_directory = || format!("{uri} is not a directory resource");
    let folder = Folder::open(dir).map_err(|_| not_directory())?;
    let opened = match folder.open_path(relative) {
        Ok(opened) => opened,
        Err(Refusal::Escapes(reason)) => {
            return Err(format!("{uri} is not inside the skill: it {reason}"))
        }
        Err(Refusal::LinksOut { .. }) => {
            return Err(format!(
                "{uri} is not inside the skill: it {}",
                Refusal::LINK_OUT
            ))
        }
        Err(_) => return Err(not_directory()),
    };
    // A folder the catalog leaves out (`.git`, ignored) is not listed: its
    // files would never be served. Judged where it really is.
    let real = dir.join(&opened.real);
    if opened.kind != OpenedKind::Folder
        || crate::query::files::left_out(root, skill, &dir.join(relative)).is_some()
        || crate::query::files::left_out(root, skill, &real).is_some()
        || in_disabled_skill(&disabled, &real)
    {
        return Err(not_directory());
    }
    let base = uri.trim_end_matches('/');
    let mut children: Vec<(String, bool, u64)> = Vec::new();
    let entries = crate::contain::list(&opened.file).map_err(|_| not_directory())?;
    // What the tree's ignore rules leave out of the catalog is not listed.
    let rules = RulesCache::default().rules_in(root, &real);
    for (name, kind) in entries {
        let Some(path) = child(&opened.real, &name) else {
            continue;
        };
        let name = name.to_string_lossy().into_owned();
        match served(&folder, catalog, skill, &disabled, &rules, &path, kind) {
            None => {}
            Some(Served::Folder) => children.push((name, true, 0)),
            Some(Served::File(len)) => children.push((name, false, len)),
        }
    }
    children.sort();
    Ok(children
        .into_iter()
        .map(|(name, is_dir, size)| {
            let child = format!("{base}/{}", encode_segment(&name));
            if is_dir {
                Resource::new(child, name).with_mime_type(DIRECTORY_MIME_TYPE)
            } else {
                let mime = mime_type(&name);
                Resource::new(child, name)
                    .with_mime_type(mime)
                    .with_size(size)
            }
        })
        .collect())
}
