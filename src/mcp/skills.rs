//! The MCP Skills extension (SEP-2640) over one catalog snapshot: `skill://`
//! URIs, manifests with `sha256:` digests of the exact bytes, the files
//! behind them, and directory listings.
//!
//! A skill's URI is `skill://<namespace folders>/<name>/SKILL.md`, each
//! segment percent-encoded; its files sit below `skill://…/<name>/`, mapped
//! back to the skill folder on disk through this index, never by joining
//! strings onto paths (reads go through `query::read::resolve_file`, which
//! refuses `..`, absolute paths and symlinks that leave the skill).
//!
//! The extension is stricter than the catalog: names must follow the Agent
//! Skills rules, the front matter must read the same to a strict YAML host,
//! and a skill holds at most 512 files and 16 MiB. A skill that breaks a
//! rule is left out of the extension with a diagnostic (it stays reachable
//! through the tools); it never breaks the listing of the others.

use crate::catalog::Catalog;
use crate::contain::{EntryType, Folder, OpenedKind, Refusal};
use crate::model::Skill;
use crate::query::read::DisabledInside;
use crate::scan::RulesCache;
use rmcp::model::{
    sha256_digest, Resource, ResourceContents, Skill as WireSkill, SkillFrontmatter, SkillResource,
    SkillResources, DIRECTORY_MIME_TYPE,
};
use std::collections::HashMap;
use std::path::Path;

/// The extension's limits on one skill.
pub const MAX_FILES: usize = 512;
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;
/// Skills per `skills/list` page.
pub const PAGE_SIZE: usize = 100;

/// Which skills of a snapshot the extension serves, by URI.
#[derive(Debug, Default)]
pub struct SkillIndex {
    /// (root URI without `/SKILL.md`, index into `catalog.skills()`), in
    /// catalog order.
    pub entries: Vec<(String, usize)>,
    by_root: HashMap<String, usize>,
    /// Why skills were left out, one message each.
    pub left_out: Vec<String>,
}

impl SkillIndex {
    pub fn new(catalog: &Catalog) -> Self {
        let skills = catalog.skills();
        let mut index = SkillIndex::default();
        // Valid names and distinct roots, in catalog order.
        let mut candidates: Vec<(String, usize)> = Vec::new();
        let mut taken: HashMap<String, usize> = HashMap::new();
        for (position, skill) in skills.iter().enumerate() {
            if let Err(reason) = valid_name(&skill.name) {
                index.left_out.push(format!(
                    "{}: not served through the MCP Skills extension: {reason}",
                    skill.path.display()
                ));
                continue;
            }
            let root = root_uri(skill);
            if let Some(&other) = taken.get(&root) {
                index.left_out.push(format!(
                    "{}: not served through the MCP Skills extension: its URI {root}/SKILL.md is already taken by {}",
                    skill.path.display(),
                    skills[other].path.display()
                ));
                continue;
            }
            taken.insert(root.clone(), position);
            candidates.push((root, position));
        }
        // A skill whose root lies below another's root shares that skill's
        // URIs: `<outer root>/<rest>` is both the outer skill's file
        // `<rest>` and the inner skill's root. That is one thing only when
        // the inner skill's folder is the outer one's folder `<rest>` (a
        // nested skill named after its folder). Otherwise the inner skill
        // is left out, so that every URI of the outer manifest reads the
        // file it lists. Outer roots are decided first (fewer segments).
        let mut order: Vec<usize> = (0..candidates.len()).collect();
        order.sort_by_key(|&i| candidates[i].0.matches('/').count());
        let mut kept: HashMap<&str, usize> = HashMap::new();
        for i in order {
            let (root, position) = &candidates[i];
            let skill = &skills[*position];
            let clash = outer_roots(root).find_map(|(outer_root, rest)| {
                let &outer = kept.get(outer_root)?;
                let folder = skills[outer].dir().join(decode(rest)?);
                (folder != skill.dir()).then_some((outer_root, outer, folder))
            });
            match clash {
                Some((outer_root, outer, folder)) => index.left_out.push(format!(
                    "{}: not served through the MCP Skills extension: its URI {root}/SKILL.md lies inside the URIs of {outer_root}/SKILL.md ({}), where it would stand for {} — name the skill after its folder (`{}`) to serve both",
                    skill.path.display(),
                    skills[outer].path.display(),
                    folder.display(),
                    skill
                        .dir()
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                )),
                None => {
                    kept.insert(root, *position);
                }
            }
        }
        for (root, position) in &candidates {
            if kept.contains_key(root.as_str()) {
                index.by_root.insert(root.clone(), index.entries.len());
                index.entries.push((root.clone(), *position));
            }
        }
        index
    }

    /// Where the page after `cursor` starts: the first entry that sorts
    /// after the skill the cursor names, in the current snapshot. A skill
    /// added or removed between two pages neither repeats nor hides
    /// another; a cursor naming a skill that is gone still continues at
    /// the next one. `Err` says why the cursor is not one of ours.
    pub fn start_after(&self, catalog: &Catalog, cursor: &str) -> Result<usize, String> {
        let (namespace, id) = decode_cursor(cursor).ok_or_else(|| {
            let shown: String = cursor.chars().take(64).collect();
            let cut = if shown.len() < cursor.len() { "…" } else { "" };
            format!(
                "invalid cursor `{shown}{cut}`: pass the `nextCursor` of the previous page as it was given, or no cursor to start from the first page"
            )
        })?;
        let skills = catalog.skills();
        // Entries are in catalog order, which sorts by (namespace, id).
        Ok(self.entries.partition_point(|(_, index)| {
            let skill = &skills[*index];
            (skill.namespace.as_str(), skill.id.as_str()) <= (namespace.as_str(), id.as_str())
        }))
    }

    /// `SKILL.md` URIs of served skills whose last segment is the one
    /// `uri` ends with (ignoring a final `/SKILL.md`): what a client that
    /// left out the namespace, or the `/SKILL.md`, most likely meant.
    pub fn uris_like(&self, uri: &str) -> Vec<String> {
        let Some(rest) = uri.strip_prefix("skill://") else {
            return Vec::new();
        };
        let rest = rest.strip_suffix("/SKILL.md").unwrap_or(rest);
        let Some(last) = rest.trim_end_matches('/').rsplit('/').next() else {
            return Vec::new();
        };
        if last.is_empty() {
            return Vec::new();
        }
        self.entries
            .iter()
            .filter(|(root, _)| root.rsplit('/').next() == Some(last))
            .take(5)
            .map(|(root, _)| format!("{root}/SKILL.md"))
            .collect()
    }

    /// The skill whose root URI is `root`.
    pub fn by_root(&self, root: &str) -> Option<usize> {
        self.by_root.get(root).map(|&i| self.entries[i].1)
    }

    /// The skill and the path inside it that a `skill://` URI names (the
    /// longest root that is a prefix wins, so nested skills own their
    /// files). The path is percent-decoded; empty for the root itself.
    pub fn locate(&self, uri: &str) -> Option<(usize, String)> {
        let trimmed = uri.trim_end_matches('/');
        // No root is longer than the longest: prefixes start there, so a
        // URI of a million segments costs one pass, not one per segment.
        let longest = self.entries.iter().map(|(r, _)| r.len()).max()?;
        let mut end = trimmed.len();
        if end > longest {
            let mut cut = longest + 1;
            while !trimmed.is_char_boundary(cut) {
                cut -= 1;
            }
            end = trimmed[..cut].rfind('/')?;
        }
        loop {
            let prefix = &trimmed[..end];
            if let Some(skill) = self.by_root(prefix) {
                let rest = trimmed[end..].trim_start_matches('/');
                return Some((skill, decode(rest)?));
            }
            end = prefix.rfind('/')?;
            if end <= "skill://".len() {
                return None;
            }
        }
    }
}

/// The longest URI read: a path the system can open (4,096 bytes), each
/// byte percent-encoded, and the scheme and namespace around it.
pub const MAX_URI_BYTES: usize = 16 * 1024;

/// Refuse a URI longer than `MAX_URI_BYTES` before anything else looks
/// at it; the message quotes its start only.
pub fn check_length(uri: &str) -> Result<(), String> {
    if uri.len() <= MAX_URI_BYTES {
        return Ok(());
    }
    let shown: String = uri.chars().take(80).collect();
    Err(format!(
        "the URI {shown}… is {} bytes; the longest this server reads is {} — use a URI from skills/list or resources/list",
        crate::rules::thousands(uri.len()),
        crate::rules::thousands(MAX_URI_BYTES)
    ))
}

/// Check that `uri` is spelled the one way this server spells its URIs:
/// no empty, `.` or `..` segments, no encoded `/`, no query or fragment,
/// and each segment percent-encoded exactly as `encode_segment` does it.
/// `Err` carries that spelling of what `uri` most likely meant, when there
/// is one. URIs of other schemes are left to the caller.
pub fn check_canonical(uri: &str) -> Result<(), Option<String>> {
    let Some(rest) = uri.strip_prefix("skill://") else {
        return Ok(());
    };
    let cut = rest.find(['?', '#']).unwrap_or(rest.len());
    let mut canonical = true;
    let mut segments: Vec<String> = Vec::new();
    for written in rest[..cut].split('/') {
        let decoded = decode(written).ok_or(None)?;
        if decoded.contains('/') || encode_segment(&decoded) != written {
            canonical = false;
        }
        for part in decoded.split('/') {
            match part {
                "" | "." => canonical = false,
                ".." => {
                    canonical = false;
                    segments.pop().ok_or(None)?;
                }
                _ => segments.push(part.to_string()),
            }
        }
    }
    if canonical && cut == rest.len() {
        return Ok(());
    }
    if segments.is_empty() {
        return Err(None);
    }
    let path: Vec<String> = segments.iter().map(|s| encode_segment(s)).collect();
    Err(Some(format!("skill://{}", path.join("/"))))
}

/// The proper prefixes of a root URI that could be other skills' roots,
/// longest first, each with the rest of the root below it.
fn outer_roots(root: &str) -> impl Iterator<Item = (&str, &str)> {
    let scheme = "skill://".len();
    let mut end = root.len();
    std::iter::from_fn(move || {
        let slash = root[..end].rfind('/').filter(|&s| s > scheme)?;
        end = slash;
        Some((&root[..slash], &root[slash + 1..]))
    })
}

/// A paging cursor: the last skill served, by its place in the catalog
/// order (namespace, then id), as base64url JSON so that clients treat it
/// as opaque.
pub fn cursor_after(skill: &Skill) -> String {
    use base64::Engine as _;
    let key = serde_json::json!([skill.namespace, skill.id]).to_string();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(key)
}

fn decode_cursor(cursor: &str) -> Option<(String, String)> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()?;
    let (namespace, id): (String, String) = serde_json::from_slice(&bytes).ok()?;
    Some((namespace, id))
}

/// The Agent Skills naming rule as the extension's conformance suite checks
/// it: 1–64 of `a-z 0-9 -`, no leading, trailing or doubled hyphen.
fn valid_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--");
    if ok {
        Ok(())
    } else {
        Err(format!(
            "the name `{name}` is not 1–64 lowercase letters, digits and single hyphens"
        ))
    }
}

/// Characters kept as they are in a URI segment (RFC 3986 unreserved).
fn encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn encode_path(path: &str) -> String {
    path.split('/')
        .map(encode_segment)
        .collect::<Vec<_>>()
        .join("/")
}

fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// `skill://<namespace>/<name>` (no trailing slash).
pub fn root_uri(skill: &Skill) -> String {
    if skill.namespace.is_empty() {
        format!("skill://{}", encode_segment(&skill.name))
    } else {
        format!(
            "skill://{}/{}",
            encode_path(&skill.namespace),
            encode_segment(&skill.name)
        )
    }
}

pub fn skill_uri(skill: &Skill) -> String {
    format!("{}/SKILL.md", root_uri(skill))
}

/// A MIME type from a file name; text types for what hosts show as text.
pub fn mime_type(path: &str) -> &'static str {
    let extension = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" | "text" => "text/plain",
        "py" => "text/x-python",
        "sh" | "bash" => "text/x-shellscript",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        _ => "application/octet-stream",
    }
}

/// True when `path`, inside a skill's folder, is in the folder of a
/// disabled skill nested in it (`inside`).
fn in_disabled_skill(inside: &DisabledInside, path: &Path) -> bool {
    // By real paths: a symlink inside the skill may lead into one.
    inside.owner_of_path(path).is_some()
}

/// What one entry of a skill folder is when served.
enum Served {
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
fn served(
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
            let opened = folder.open_path(relative).ok()?;
            (opened.real == relative && !rules.ignores(&path, false))
                .then_some(Served::File(opened.len))
                .filter(|_| opened.kind == OpenedKind::File)
        }
        EntryType::Symlink => {
            if rules.ignores(&path, false) {
                return None;
            }
            let opened = folder.open_path(relative).ok()?;
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

/// `parent/name`, or `name` at the top.
fn child(parent: &str, name: &std::ffi::OsStr) -> Option<String> {
    // A name that is not UTF-8 has no URI that reads it back: not served.
    let name = name.to_str()?;
    Some(if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}/{name}")
    })
}

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
                            "it has more than {MAX_FILES} files, the extension's limit"
                        ));
                    }
                    if total > MAX_BYTES {
                        return Err(
                            "its files add up to more than 16 MiB, the extension's limit"
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
fn read_served(folder: &Folder, relative: &str) -> Result<Vec<u8>, String> {
    let opened = folder
        .open_path(relative)
        .map_err(|e| format!("cannot be read: {e}"))?;
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
    let bytes = read_served(&folder, "SKILL.md").map_err(|e| format!("SKILL.md {e}"))?;
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
            read_served(&folder, relative)
                .map_err(|e| format!("its file `{}` {e}", crate::model::printable(relative)))?
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
        .map_err(|e| e.to_string())?;
    if DisabledInside::new(catalog, skill)
        .owner_of(&opened.real_path(&folder))
        .is_some()
    {
        return Err(format!(
            "{uri} belongs to a skill nested in `{}` that is disabled by configuration",
            skill.id
        ));
    }
    // Sized on the open file, before a byte is read.
    if opened.len > MAX_BYTES {
        return Err(format!("{uri} is larger than 16 MiB"));
    }
    let bytes = crate::contain::read_at_most(opened.file, MAX_BYTES)
        .map_err(|e| format!("{uri} cannot be read ({e})"))?;
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
            return Err(format!("{uri} is not inside the skill: {reason}"))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_encoding() {
        assert!(valid_name("pdf-tools").is_ok());
        assert!(valid_name("PDF").is_err());
        assert!(valid_name("a--b").is_err());
        assert_eq!(encode_path("a b/.claude"), "a%20b/.claude");
        assert_eq!(decode("a%20b").as_deref(), Some("a b"));
        assert_eq!(decode("a%2"), None);
        assert_eq!(mime_type("x/y.MD"), "text/markdown");
        assert_eq!(check_canonical("skill://ns/a%20b/SKILL.md"), Ok(()));
        for (alias, meant) in [
            ("skill://ns/a/refs//g.md", "skill://ns/a/refs/g.md"),
            ("skill://ns/a/./refs/g.md", "skill://ns/a/refs/g.md"),
            ("skill://ns/a/refs/g.md/", "skill://ns/a/refs/g.md"),
            ("skill://ns/a/refs%2Fg.md", "skill://ns/a/refs/g.md"),
            ("skill://ns/a/refs/..", "skill://ns/a"),
            ("skill://ns/%61/SKILL.md", "skill://ns/a/SKILL.md"),
            ("skill://ns/a/SKILL.md?x=1", "skill://ns/a/SKILL.md"),
        ] {
            assert_eq!(
                check_canonical(alias),
                Err(Some(meant.to_string())),
                "{alias}"
            );
        }
        assert_eq!(check_canonical("skill://a/../.."), Err(None));
    }

    fn catalog_of(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Catalog) {
        let temp = tempfile::tempdir().unwrap();
        for (path, bytes) in files {
            let path = temp.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
        let catalog = crate::CatalogBuilder::new([temp.path()]).build().unwrap();
        (temp, catalog)
    }

    #[test]
    fn entries_follow_the_extension_rules() {
        let skill_md: &[u8] =
            b"---\nname: ok-skill\ndescription: Fine. Use when testing.\nlicense: MIT\n---\n# Ok\n";
        let big = vec![b'x'; 9 * 1024 * 1024];
        let (_temp, catalog) = catalog_of(&[
            ("ns/ok-skill/SKILL.md", skill_md),
            ("ns/ok-skill/refs/a b.md", b"# A\n"),
            (
                "ns/ok-skill/inner/SKILL.md",
                b"---\nname: inner\ndescription: Nested. Use when testing.\n---\n",
            ),
            (
                "ns/huge/SKILL.md",
                b"---\nname: huge\ndescription: Too big. Use when testing.\n---\n",
            ),
            ("ns/huge/one.bin", &big),
            ("ns/huge/two.bin", &big),
            (
                "ns/Upper/SKILL.md",
                b"---\nname: Upper\ndescription: Bad name. Use when testing.\n---\n",
            ),
        ]);
        let index = SkillIndex::new(&catalog);
        assert_eq!(index.left_out.len(), 1, "{:?}", index.left_out);
        assert!(index.left_out[0].contains("`Upper`"));
        let ok = catalog.get("ok-skill").unwrap();
        let entry = entry(&catalog, ok).unwrap();
        assert_eq!(entry.uri, "skill://ns/ok-skill/SKILL.md");
        assert_eq!(entry.frontmatter.extra["license"], "MIT");
        let SkillResources::Files(files) = &entry.resources else {
            panic!("a manifest")
        };
        let uris: Vec<&str> = files.iter().map(|f| f.uri.as_str()).collect();
        // Nested skills' files belong to the enclosing manifest too.
        assert_eq!(
            uris,
            [
                "skill://ns/ok-skill/SKILL.md",
                "skill://ns/ok-skill/inner/SKILL.md",
                "skill://ns/ok-skill/refs/a%20b.md"
            ]
        );
        let (owner, path) = index.locate("skill://ns/ok-skill/refs/a%20b.md").unwrap();
        assert_eq!(
            (catalog.skills()[owner].id.as_str(), path.as_str()),
            ("ok-skill", "refs/a b.md")
        );
        let (owner, _) = index.locate("skill://ns/ok-skill/inner/SKILL.md").unwrap();
        assert_eq!(catalog.skills()[owner].id, "inner");
        let huge = catalog.get("huge").unwrap();
        assert!(entry_error(&catalog, huge).contains("16 MiB"));
        assert!(read_file(&catalog, ok, "../huge/SKILL.md", "skill://x").is_err());
    }

    /// What the tree's ignore rules leave out of the catalog is neither in
    /// a manifest, nor in a folder listing, nor readable.
    #[test]
    fn ignored_files_are_not_served() {
        let skill_md: &[u8] = b"---\nname: kept\ndescription: Fine. Use when testing.\n---\n";
        let (_temp, catalog) = catalog_of(&[
            (".gitignore", b"*.env\n/ns/kept/build/\n"),
            ("ns/kept/SKILL.md", skill_md),
            ("ns/kept/.ignore", b"!keep.env\n"),
            ("ns/kept/keep.env", b"A=1\n"),
            ("ns/kept/secret.env", b"B=2\n"),
            ("ns/kept/build/out.md", b"# Out\n"),
            ("ns/kept/refs/a.md", b"# A\n"),
        ]);
        let kept = catalog.get("kept").unwrap();
        let entry = entry(&catalog, kept).unwrap();
        let SkillResources::Files(files) = &entry.resources else {
            panic!("a manifest")
        };
        let uris: Vec<&str> = files.iter().map(|f| f.uri.as_str()).collect();
        assert_eq!(
            uris,
            [
                "skill://ns/kept/.ignore",
                "skill://ns/kept/SKILL.md",
                "skill://ns/kept/keep.env",
                "skill://ns/kept/refs/a.md"
            ]
        );
        let listed: Vec<String> = read_directory(&catalog, kept, "", "skill://ns/kept")
            .unwrap()
            .into_iter()
            .map(|r| r.name.clone())
            .collect();
        assert_eq!(listed, [".ignore", "SKILL.md", "keep.env", "refs"]);
        let refused = read_file(&catalog, kept, "secret.env", "skill://ns/kept/secret.env");
        assert!(refused.unwrap_err().contains(".gitignore"));
        assert!(read_file(&catalog, kept, "build/out.md", "skill://x").is_err());
        assert!(read_file(&catalog, kept, "keep.env", "skill://x").is_ok());
    }

    /// A disabled skill nested in another is not served through it: not
    /// in its manifest, not in a folder listing, not readable by URI.
    #[test]
    fn a_disabled_nested_skill_is_not_served_through_its_parent() {
        let temp = tempfile::tempdir().unwrap();
        let files: [(&str, &[u8]); 3] = [
            (
                "outer/SKILL.md",
                b"---\nname: outer\ndescription: Outer. Use when testing.\n---\n",
            ),
            (
                "outer/inner/SKILL.md",
                b"---\nname: inner\ndescription: Inner. Use when testing.\n---\n",
            ),
            ("outer/inner/refs/a.md", b"# A\n"),
        ];
        for (path, bytes) in files {
            let path = temp.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("inner", temp.path().join("outer/alias")).unwrap();
            std::fs::create_dir_all(temp.path().join("outer/refs")).unwrap();
            std::os::unix::fs::symlink(
                "../inner/refs/a.md",
                temp.path().join("outer/refs/link.md"),
            )
            .unwrap();
        }
        let builder = crate::CatalogBuilder::new([temp.path()]);
        for (disabled, served) in [(false, true), (true, false)] {
            let names: &[&str] = if disabled { &["inner"] } else { &[] };
            let catalog = builder
                .clone()
                .disabled(names.iter().copied())
                .build()
                .unwrap();
            let outer = catalog.get("outer").unwrap();
            let SkillResources::Files(files) = &entry(&catalog, outer).unwrap().resources else {
                panic!("a manifest")
            };
            let uris: Vec<&str> = files.iter().map(|f| f.uri.as_str()).collect();
            assert_eq!(
                uris.contains(&"skill://outer/inner/refs/a.md"),
                served,
                "{uris:?}"
            );
            let read = read_file(
                &catalog,
                outer,
                "inner/refs/a.md",
                "skill://outer/inner/refs/a.md",
            );
            assert_eq!(read.is_ok(), served, "{:?}", read.err());
            let listed: Vec<String> = read_directory(&catalog, outer, "", "skill://outer")
                .unwrap()
                .into_iter()
                .map(|r| r.name.clone())
                .collect();
            assert_eq!(listed.contains(&"inner".to_string()), served, "{listed:?}");
            assert_eq!(
                read_directory(&catalog, outer, "inner", "skill://outer/inner").is_ok(),
                served
            );
            // Nor through a symlink inside the parent.
            #[cfg(unix)]
            for (path, uri) in [
                ("alias/refs/a.md", "skill://outer/alias/refs/a.md"),
                ("refs/link.md", "skill://outer/refs/link.md"),
            ] {
                let read = read_file(&catalog, outer, path, uri);
                assert_eq!(read.is_ok(), served, "{path}: {:?}", read.err());
            }
            // Symlinked folders are not entered; a linked file is listed
            // only when it may be read.
            #[cfg(unix)]
            assert_eq!(
                uris.contains(&"skill://outer/refs/link.md"),
                served,
                "{uris:?}"
            );
            #[cfg(unix)]
            assert_eq!(
                read_directory(&catalog, outer, "alias", "skill://outer/alias").is_ok(),
                served
            );
        }
    }

    fn entry_error(catalog: &Catalog, skill: &Skill) -> String {
        entry(catalog, skill).unwrap_err()
    }
}
