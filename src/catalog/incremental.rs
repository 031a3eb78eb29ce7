//! Building a catalog again after some files changed, reading only those.
//!
//! `Retained` keeps what the last walks of the roots found — every skill
//! file parsed, the namespace files, the findings, the symlinked folders
//! followed — so that a rebuild walks only the paths it is told changed
//! (`ScanScope`s, narrowed walks that still apply every ignore file above
//! them) and reuses the rest.
//!
//! When a change touches nothing other skills depend on (names that stay
//! unique, files reached by one path only), the new snapshot is the old one
//! patched: unchanged skills are shared, and only the namespaces, diagnostics
//! and stale marks of the changed paths are redone. Otherwise the snapshot
//! is assembled again from the retained files, still without reading them.
//! Either way the result is the snapshot a fresh `CatalogBuilder::build`
//! gives for the same files, except for one thing a fresh build cannot know:
//!
//! **Last known good.** When a skill file that loaded before stops loading
//! (broken YAML, a half-saved file, unreadable), the previous version of
//! the skill stays in the catalog, listed in `Catalog::stale`, next to the
//! diagnostics of the broken file. The next version that loads replaces it;
//! deleting the file removes it. A tool catalog (`mcp-tools.json`) that
//! stops loading keeps its last good server the same way, with a
//! `snapshot-stale` warning beside the file's own diagnostics.

use super::{check_root, members_of, namespace_of, Assembly, Catalog, CatalogBuilder, ScanInputs};
use crate::entry::{Code, Skill};
use crate::scan::{
    self, FileIdentity, FollowedLink, FoundNamespaceFile, FoundSkill, FoundToolCatalog,
    PathFinding, ScanResult, ScanScope,
};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the last walks of the roots found.
#[derive(Debug, Default)]
pub(crate) struct Retained {
    /// Whether each root existed at its last walk.
    present: Vec<bool>,
    /// Skill files by (root, path).
    records: BTreeMap<(usize, PathBuf), FoundSkill>,
    namespace_files: BTreeMap<(usize, PathBuf), FoundNamespaceFile>,
    /// Tool catalogs (`mcp-tools.json`) by (root, path).
    tool_catalogs: BTreeMap<(usize, PathBuf), FoundToolCatalog>,
    findings: Vec<(usize, PathFinding)>,
    links: Vec<(usize, FollowedLink)>,
    /// Skill files whose record holds the last good version of the skill.
    stale: HashSet<PathBuf>,
    /// How many loaded records carry each name, and each file identity:
    /// a change is patched in place only when these stay at one.
    names: HashMap<String, u32>,
    identities: HashMap<FileIdentity, u32>,
    /// Records named `skill.md` (their precedence needs the whole set).
    lowercase: usize,
    /// A walk bound cut the last walk of a root: narrowed walks cannot
    /// tell what the bound hides, so every rebuild walks everything.
    limited: BTreeSet<usize>,
}

/// What to read again.
#[derive(Debug, Default, Clone)]
pub(crate) struct Rescan {
    /// Roots to walk whole (their existence is checked again too).
    pub whole: BTreeSet<usize>,
    /// Paths to walk, by root.
    pub scopes: BTreeMap<usize, Vec<ScanScope>>,
    /// Skill folders where a file other than the skill file changed (a
    /// reference, a script): nothing to read again, but worth telling.
    pub files: BTreeSet<PathBuf>,
}

impl Rescan {
    pub fn is_empty(&self) -> bool {
        self.whole.is_empty() && self.scopes.is_empty()
    }

    pub fn everything(roots: usize) -> Self {
        Rescan {
            whole: (0..roots).collect(),
            scopes: BTreeMap::new(),
            files: BTreeSet::new(),
        }
    }
}

/// How a rebuild went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RebuildKind {
    /// The previous snapshot, patched.
    Patched,
    /// Assembled again from every retained file.
    Assembled,
}

/// The changes one merge made, for patching the previous snapshot.
#[derive(Default)]
struct Patch {
    /// False once something needs the whole assembly.
    patchable: bool,
    /// Skills of the records taken out (their old versions).
    removed: Vec<Arc<Skill>>,
    /// Keys of the records put in.
    added: Vec<(usize, PathBuf)>,
    /// Folders whose namespace file changed, as namespace names.
    namespaces: BTreeSet<String>,
    /// A tool catalog, or the README of its folder, went in or out: the
    /// servers are assembled again.
    tools: bool,
    /// What was walked again, for dropping old diagnostics.
    covered: Vec<Covered>,
    /// New findings about paths (not skill files).
    findings: Vec<PathFinding>,
    /// Names and identities that went in or out.
    names: BTreeSet<String>,
    identities: Vec<FileIdentity>,
}

/// The part of a root one walk re-read.
#[derive(Debug, Clone)]
enum Covered {
    Root(PathBuf),
    Scopes(Vec<ScanScope>),
}

impl Covered {
    fn covers(&self, path: &Path) -> bool {
        match self {
            Covered::Root(root) => path.starts_with(root),
            Covered::Scopes(scopes) => scopes.iter().any(|s| s.covers(path)),
        }
    }
}

impl Retained {
    pub fn is_present(&self, root: usize) -> bool {
        self.present.get(root).copied().unwrap_or(false)
    }

    /// Symlinked folders followed, with their root.
    pub fn links(&self) -> impl Iterator<Item = (usize, &FollowedLink)> {
        self.links.iter().map(|(root, link)| (*root, link))
    }

    /// Skill files, as (root, path), that are symlinks to the file at
    /// `path` elsewhere in their root: they changed when it did. Judged by
    /// real path (a file just removed, or renamed over, by its real
    /// folder); nothing is resolved when no skill file links out.
    pub fn skill_files_linked_to(&self, path: &Path) -> Vec<(usize, PathBuf)> {
        let linked = || {
            self.records
                .iter()
                .filter(|(_, record)| record.linked_target.is_some())
        };
        if linked().next().is_none() {
            return Vec::new();
        }
        let real = path.canonicalize().ok().or_else(|| {
            let folder = path.parent()?.canonicalize().ok()?;
            Some(folder.join(path.file_name()?))
        });
        linked()
            .filter(|(_, record)| record.linked_target.as_ref() == real.as_ref())
            .map(|(key, _)| key.clone())
            .collect()
    }

    /// True when the last walk found anything at or below `path`: a skill
    /// file, a namespace file, a finding or a followed link.
    pub fn knows_about(&self, root: usize, path: &Path) -> bool {
        let under = |(r, p): &(usize, PathBuf)| *r == root && p.starts_with(path);
        self.records
            .range((root, path.to_path_buf())..)
            .next()
            .is_some_and(|(key, _)| under(key))
            || self
                .namespace_files
                .range((root, path.to_path_buf())..)
                .next()
                .is_some_and(|(key, _)| under(key))
            || self
                .tool_catalogs
                .range((root, path.to_path_buf())..)
                .next()
                .is_some_and(|(key, _)| under(key))
            || self
                .findings
                .iter()
                .any(|(r, f)| *r == root && f.path.starts_with(path))
            || self
                .links
                .iter()
                .any(|(r, l)| *r == root && l.link.starts_with(path))
    }

    /// The folder of the deepest skill file of `root` that holds `path`.
    pub fn skill_folder_of(&self, root: usize, path: &Path) -> Option<PathBuf> {
        let mut folder = path.parent();
        while let Some(candidate) = folder {
            for name in scan::SKILL_FILE_NAMES {
                if self.records.contains_key(&(root, candidate.join(name))) {
                    return Some(candidate.to_path_buf());
                }
            }
            folder = candidate.parent();
        }
        None
    }

    /// Borrowed inputs for a whole assembly.
    fn inputs(&self) -> ScanInputs<'_> {
        ScanInputs {
            skills: self.records.values().collect(),
            namespace_files: self.namespace_files.values().collect(),
            tool_catalogs: self.tool_catalogs.values().collect(),
            findings: self.findings.iter().map(|(_, f)| f).collect(),
            stale: Some(&self.stale),
        }
    }

    fn count(&mut self, record: &FoundSkill, up: bool) {
        if !record.upper_case_name {
            if up {
                self.lowercase += 1;
            } else {
                self.lowercase -= 1;
            }
        }
        let Some(skill) = &record.skill else {
            return;
        };
        bump(&mut self.names, skill.name.clone(), up);
        if let Some(identity) = record.identity {
            bump(&mut self.identities, identity, up);
        }
    }

    /// Replace what `covered` holds in root `root` with `result`, keeping
    /// last good versions of skills whose file broke.
    fn merge(&mut self, root: usize, covered: Covered, result: ScanResult, patch: &mut Patch) {
        // Take out the old entries.
        let old_keys: Vec<(usize, PathBuf)> = match &covered {
            Covered::Root(_) => self
                .records
                .range((root, PathBuf::new())..(root + 1, PathBuf::new()))
                .map(|(k, _)| k.clone())
                .collect(),
            Covered::Scopes(scopes) => keys_under(&self.records, root, scopes),
        };
        let mut old_good: HashMap<PathBuf, FoundSkill> = HashMap::new();
        for key in old_keys {
            let Some(record) = self.records.remove(&key) else {
                continue;
            };
            self.count(&record, false);
            if let Some(skill) = &record.skill {
                if self.names.get(&skill.name).copied().unwrap_or(0) > 0 {
                    patch.patchable = false; // its name was shared
                }
                patch.names.insert(skill.name.clone());
                patch.identities.extend(record.identity);
                patch.removed.push(skill.clone());
                old_good.insert(record.path.clone(), record);
            }
        }
        let old_namespace_keys: Vec<(usize, PathBuf)> = match &covered {
            Covered::Root(_) => self
                .namespace_files
                .range((root, PathBuf::new())..(root + 1, PathBuf::new()))
                .map(|(k, _)| k.clone())
                .collect(),
            Covered::Scopes(scopes) => keys_under(&self.namespace_files, root, scopes),
        };
        for key in old_namespace_keys {
            if let Some(file) = self.namespace_files.remove(&key) {
                patch.tools |= self.holds_tools(root, &file.folder);
                patch.namespaces.insert(file.describes.clone());
            }
        }
        let old_tool_keys: Vec<(usize, PathBuf)> = match &covered {
            Covered::Root(_) => self
                .tool_catalogs
                .range((root, PathBuf::new())..(root + 1, PathBuf::new()))
                .map(|(k, _)| k.clone())
                .collect(),
            Covered::Scopes(scopes) => keys_under(&self.tool_catalogs, root, scopes),
        };
        let mut old_tools: HashMap<PathBuf, FoundToolCatalog> = HashMap::new();
        for key in old_tool_keys {
            if let Some(old) = self.tool_catalogs.remove(&key) {
                old_tools.insert(key.1, old);
            }
            patch.tools = true;
        }
        self.findings
            .retain(|(r, f)| *r != root || !covered.covers(&f.path));
        self.links
            .retain(|(r, l)| *r != root || !covered.covers(&l.link));

        // Put in the new ones.
        let mut new_paths = HashSet::new();
        for mut record in result.skills {
            if record.skill.is_none() {
                match old_good.get(&record.path) {
                    Some(old) => {
                        // Broken now: the last good version stays, marked.
                        record.skill = old.skill.clone();
                        self.stale.insert(record.path.clone());
                    }
                    None => {
                        self.stale.remove(&record.path);
                    }
                }
            } else {
                self.stale.remove(&record.path);
            }
            new_paths.insert(record.path.clone());
            self.insert(root, record, patch);
        }
        for item in &result.findings {
            // A file that exists but cannot be read keeps its last good version too.
            let unreadable = matches!(item.finding.code, Code::ReadFailed | Code::NotAFile);
            if unreadable && !new_paths.contains(&item.path) {
                if let Some(old) = old_good.get(&item.path) {
                    let mut record = old.clone();
                    record.findings = Vec::new();
                    self.stale.insert(record.path.clone());
                    new_paths.insert(record.path.clone());
                    self.insert(root, record, patch);
                }
            }
        }
        for path in old_good.keys() {
            if !new_paths.contains(path) {
                self.stale.remove(path);
            }
        }
        for mut catalog in result.tool_catalogs {
            patch.tools = true;
            if catalog.namespace.is_none() {
                // Broken now (unreadable, not JSON, not a tool list): the
                // last good server stays, marked, as a broken skill does.
                if let Some(old) = old_tools.get(&catalog.path) {
                    catalog.namespace = old.namespace.clone();
                    catalog.stale = catalog.namespace.is_some();
                }
            }
            self.tool_catalogs
                .insert((root, catalog.path.clone()), catalog);
        }
        for file in result.namespace_files {
            patch.tools |= self.holds_tools(root, &file.folder);
            patch.namespaces.insert(file.describes.clone());
            self.namespace_files.insert((root, file.path.clone()), file);
        }
        for finding in result.findings {
            patch.findings.push(finding.clone());
            self.findings.push((root, finding));
        }
        self.links
            .extend(result.links.into_iter().map(|link| (root, link)));
        self.links.sort();
        patch.covered.push(covered);
    }

    /// Does `folder` (inside root `root`) hold a tool catalog?
    fn holds_tools(&self, root: usize, folder: &Path) -> bool {
        self.tool_catalogs
            .range((root, PathBuf::new())..(root + 1, PathBuf::new()))
            .any(|(_, catalog)| catalog.folder == folder)
    }

    fn insert(&mut self, root: usize, record: FoundSkill, patch: &mut Patch) {
        self.count(&record, true);
        if let Some(skill) = &record.skill {
            patch.names.insert(skill.name.clone());
            patch.identities.extend(record.identity);
        }
        let key = (root, record.path.clone());
        patch.added.push(key.clone());
        if let Some(replaced) = self.records.insert(key, record) {
            // The same file twice in one walk cannot happen; keep counts right anyway.
            self.count(&replaced, false);
        }
    }
}

fn bump<K: std::hash::Hash + Eq>(map: &mut HashMap<K, u32>, key: K, up: bool) {
    if up {
        *map.entry(key).or_insert(0) += 1;
    } else if let Some(count) = map.get_mut(&key) {
        *count -= 1;
        if *count == 0 {
            map.remove(&key);
        }
    }
}

/// Keys of `map` in `root` that `scopes` cover.
fn keys_under<V>(
    map: &BTreeMap<(usize, PathBuf), V>,
    root: usize,
    scopes: &[ScanScope],
) -> Vec<(usize, PathBuf)> {
    let mut keys = Vec::new();
    for scope in scopes {
        let start = (root, scope.path.clone());
        if scope.subtree {
            // Paths below a folder follow it in component order.
            for (key, _) in map.range(start..) {
                if key.0 != root || !key.1.starts_with(&scope.path) {
                    break;
                }
                keys.push(key.clone());
            }
        } else if map.contains_key(&start) {
            keys.push(start);
        }
    }
    keys.sort();
    keys.dedup();
    keys
}

/// Scopes without duplicates or scopes inside folder scopes.
fn normalized(mut scopes: Vec<ScanScope>) -> Vec<ScanScope> {
    // Folder scopes first at equal paths, so the file scope is dropped.
    scopes.sort_by(|a, b| (&a.path, !a.subtree).cmp(&(&b.path, !b.subtree)));
    let mut kept: Vec<ScanScope> = Vec::with_capacity(scopes.len());
    for scope in scopes {
        if kept
            .iter()
            .any(|k| k.subtree && scope.path.starts_with(&k.path))
        {
            continue;
        }
        kept.push(scope);
    }
    kept
}

fn walk_limited(result: &ScanResult) -> bool {
    result
        .findings
        .iter()
        .any(|f| f.finding.code == Code::WalkLimit)
}

impl CatalogBuilder {
    /// Build the snapshot with every missing root counted as empty (a
    /// server that waits for its roots to appear starts from this).
    pub fn build_allowing_missing(&self) -> Catalog {
        self.build_retained().0
    }

    /// Walk every root that exists (a missing one counts as empty) and keep
    /// what was found.
    pub(crate) fn build_retained(&self) -> (Catalog, Retained) {
        let mut retained = Retained {
            present: vec![false; self.roots.len()],
            ..Retained::default()
        };
        let previous = Catalog::empty(self.roots.clone(), self.profile);
        let (catalog, _) = self.rebuild(
            &previous,
            &mut retained,
            Rescan::everything(self.roots.len()),
        );
        (catalog, retained)
    }

    /// Read `rescan` again and build the next snapshot from `previous` and
    /// `retained` (updated in place).
    pub(crate) fn rebuild(
        &self,
        previous: &Catalog,
        retained: &mut Retained,
        mut rescan: Rescan,
    ) -> (Catalog, RebuildKind) {
        let started = std::time::Instant::now();
        let mut scanning = std::time::Duration::ZERO;
        if !retained.limited.is_empty() {
            rescan = Rescan::everything(self.roots.len());
        }
        let mut patch = Patch {
            patchable: rescan.whole.is_empty() && retained.lowercase == 0,
            ..Patch::default()
        };
        for (index, root) in self.roots.iter().enumerate() {
            let whole = rescan.whole.contains(&index);
            let scopes = rescan.scopes.remove(&index);
            if !whole && scopes.is_none() {
                continue;
            }
            let exists = check_root(root).is_ok();
            if exists != retained.is_present(index) {
                patch.patchable = false;
            }
            retained.present[index] = exists;
            let mut covered = Covered::Root(root.clone());
            let mut result = ScanResult::default();
            if exists && !whole {
                let scopes = normalized(scopes.unwrap_or_default());
                if scopes.iter().any(|s| s.subtree && s.path == *root) {
                    patch.patchable = false;
                } else {
                    let options = self.scan_options(Some(scopes.clone().into()));
                    let walk = std::time::Instant::now();
                    result = scan::scan_root(index, root, &options);
                    scanning += walk.elapsed();
                    covered = Covered::Scopes(scopes);
                    if walk_limited(&result) {
                        // What a bound hides cannot be told from a narrowed walk.
                        covered = Covered::Root(root.clone());
                        result = ScanResult::default();
                        patch.patchable = false;
                    }
                }
            }
            if exists && matches!(covered, Covered::Root(_)) {
                patch.patchable = false;
                let walk = std::time::Instant::now();
                result = scan::scan_root(index, root, &self.scan_options(None));
                scanning += walk.elapsed();
                if walk_limited(&result) {
                    retained.limited.insert(index);
                } else {
                    retained.limited.remove(&index);
                }
            } else if !exists {
                covered = Covered::Root(root.clone());
                patch.patchable = false;
                retained.limited.remove(&index);
            }
            retained.merge(index, covered, result, &mut patch);
        }
        if retained.lowercase > 0 || patch.tools {
            patch.patchable = false;
        }
        let unique = |retained: &Retained| {
            patch.names.iter().all(|n| {
                retained.names.get(n).copied().unwrap_or(0) <= 1 && !n.contains(['/', '~'])
            }) && patch
                .identities
                .iter()
                .all(|i| retained.identities.get(i).copied().unwrap_or(0) <= 1)
        };
        let (mut catalog, kind) = if patch.patchable && unique(retained) {
            (
                self.patched(previous, retained, patch),
                RebuildKind::Patched,
            )
        } else {
            (self.assemble(retained.inputs()), RebuildKind::Assembled)
        };
        catalog.stats.files_read =
            retained.records.len() + retained.namespace_files.len() + retained.tool_catalogs.len();
        catalog.stats.scan = scanning;
        catalog.stats.total = started.elapsed();
        (catalog, kind)
    }

    /// `previous` with the merged change applied: names unique, files
    /// reached once, no `skill.md` anywhere (checked by the caller).
    fn patched(&self, previous: &Catalog, retained: &Retained, patch: Patch) -> Catalog {
        let mut skills: Vec<Arc<Skill>> = previous.every_skill().to_vec();
        let position = |skills: &[Arc<Skill>], skill: &Skill| {
            skills.binary_search_by(|s| {
                (s.namespace.as_str(), s.id.as_str())
                    .cmp(&(skill.namespace.as_str(), skill.id.as_str()))
            })
        };
        let mut namespaces: BTreeSet<String> = patch.namespaces;
        let mut removed_ids = HashSet::new();
        for old in &patch.removed {
            // With unique names, a skill's id is its name.
            if let Ok(index) = position(&skills, old) {
                if skills[index].path == old.path {
                    skills.remove(index);
                }
            }
            removed_ids.insert(old.id.clone());
            namespaces.insert(old.namespace.clone());
            namespaces.insert(nested_namespace(old));
        }
        let mut stale = previous.stale.clone();
        stale.retain(|id| !removed_ids.contains(id));
        let mut assembly = Assembly::new(self.profile);
        for key in &patch.added {
            let Some(record) = retained.records.get(key) else {
                continue;
            };
            for finding in &record.findings {
                assembly.report(&record.path, finding);
            }
            let Some(skill) = &record.skill else {
                continue;
            };
            if let Err(index) = position(&skills, skill) {
                skills.insert(index, skill.clone());
            }
            namespaces.insert(skill.namespace.clone());
            namespaces.insert(nested_namespace(skill));
            if retained.stale.contains(&record.path) {
                stale.push(skill.id.clone());
            }
        }
        stale.sort();
        stale.dedup();
        for item in &patch.findings {
            assembly.report(&item.path, &item.finding);
        }
        let mut diagnostics: Vec<_> = previous
            .diagnostics
            .iter()
            .filter(|d| !patch.covered.iter().any(|c| c.covers(&d.path)))
            .cloned()
            .collect();
        diagnostics.append(&mut assembly.diagnostics);

        // The namespaces the change touched, done again.
        let files: Vec<&FoundNamespaceFile> = retained
            .namespace_files
            .values()
            .filter(|f| namespaces.contains(&f.describes))
            .collect();
        let mut descriptions = super::namespace_descriptions(&files);
        let mut all = previous.every_namespace().to_vec();
        for name in &namespaces {
            let members = members_of(&skills, name);
            let found = all.binary_search_by(|n| n.name.as_str().cmp(name));
            if members.is_empty() {
                if let Ok(index) = found {
                    all.remove(index);
                }
                continue;
            }
            let namespace = namespace_of(name, members, &skills, descriptions.remove(name));
            match found {
                Ok(index) => all[index] = namespace,
                Err(index) => all.insert(index, namespace),
            }
        }
        Catalog::assemble(
            self.roots.clone(),
            self.profile,
            skills,
            all,
            diagnostics,
            stale,
        )
        .with_tools(previous.tools.clone())
        .with_disabled(&self.disabled)
    }
}

/// The namespace of skills nested directly inside `skill`'s folder.
fn nested_namespace(skill: &Skill) -> String {
    let folder = skill
        .dir()
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    if skill.namespace.is_empty() {
        folder
    } else {
        format!("{}/{folder}", skill.namespace)
    }
}
