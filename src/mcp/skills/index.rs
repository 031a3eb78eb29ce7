//! Which skills of a snapshot the extension serves (names that follow the
//! Agent Skills rules, one skill per URI, nested skills only where their
//! URIs cannot stand for another skill's files), and the paging cursor of
//! `skills/list`.

use super::uri::{decode, root_uri};
use crate::catalog::Catalog;
use crate::entry::Skill;
use std::collections::HashMap;

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

pub(crate) fn decode_cursor(cursor: &str) -> Option<(String, String)> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()?;
    let (namespace, id): (String, String) = serde_json::from_slice(&bytes).ok()?;
    Some((namespace, id))
}

/// The Agent Skills naming rule as the extension's conformance suite checks
/// it: 1–64 of `a-z 0-9 -`, no leading, trailing or doubled hyphen.
pub(super) fn valid_name(name: &str) -> Result<(), String> {
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
