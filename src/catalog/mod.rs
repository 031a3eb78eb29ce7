//! The catalog: an immutable snapshot of every skill, namespace and
//! diagnostic of a set of roots at one revision.
//!
//! `CatalogBuilder` holds the configuration (roots, bounds, profile) and
//! builds frozen `Catalog` values; a watcher keeps the builder and builds
//! again. This module owns what turns scanned files into skills: dropping
//! duplicates, resolving name collisions deterministically, naming
//! namespaces, and mapping findings to diagnostics under the chosen profile.

use crate::model::{Code, Diagnostic, Namespace, Position, Profile, Skill};
use crate::parse::{self, Finding};
pub use crate::rules::resolve_inside;
use crate::scan::{self, slash_path, FoundSkill, ScanLimits, ScanOptions};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Failures that stop a catalog from being built at all. Problems with
/// individual files are diagnostics inside the catalog instead.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("skill root {} does not exist — check the path given to --root", .0.display())]
    RootNotFound(PathBuf),
    #[error("skill root {} is not a folder — pass the folder that holds the skills", .0.display())]
    RootNotADirectory(PathBuf),
}

impl std::fmt::Debug for CatalogBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatalogBuilder")
            .field("roots", &self.roots)
            .field("limits", &self.limits)
            .field("profile", &self.profile)
            .field("check_bodies", &self.check_bodies)
            .field("visitor", &self.visitor.is_some())
            .field("disabled", &self.disabled)
            .finish()
    }
}

/// Configuration of a catalog build.
#[derive(Clone, Default)]
pub struct CatalogBuilder {
    roots: Vec<PathBuf>,
    limits: ScanLimits,
    profile: Profile,
    check_bodies: bool,
    visitor: Option<scan::FileVisitor>,
    /// Names, ids or qualified names kept out of `Catalog::skills`.
    disabled: std::collections::BTreeSet<String>,
}

impl CatalogBuilder {
    /// Roots in precedence order: on a name collision the earlier root wins.
    pub fn new<I, P>(roots: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        CatalogBuilder {
            roots: roots.into_iter().map(Into::into).collect(),
            ..CatalogBuilder::default()
        }
    }

    pub fn max_depth(mut self, depth: usize) -> Self {
        self.limits.max_depth = depth;
        self
    }

    pub fn max_entries(mut self, entries: usize) -> Self {
        self.limits.max_entries = entries;
        self
    }

    pub fn max_file_bytes(mut self, bytes: u64) -> Self {
        self.limits.max_file_bytes = bytes;
        self
    }

    pub fn threads(mut self, threads: usize) -> Self {
        self.limits.threads = threads;
        self
    }

    pub fn profile(mut self, profile: Profile) -> Self {
        self.profile = profile;
        self
    }

    /// Also read every body to check links and size (what `lint` needs; the
    /// directory does not).
    pub fn check_bodies(mut self, check: bool) -> Self {
        self.check_bodies = check;
        self
    }

    /// Hand every regular file under the roots to `visitor` while
    /// scanning (see `scan::FileVisitor`).
    pub fn file_visitor(mut self, visitor: scan::FileVisitor) -> Self {
        self.visitor = Some(visitor);
        self
    }

    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Keep these skills (by name, id or `namespace/name`) out of the
    /// catalog's skills: render, search and grep do not see them. They stay
    /// in `Catalog::disabled_skills`, so reads can say why they are missing
    /// and a user can enable them again.
    pub fn disabled<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.disabled = names
            .into_iter()
            .map(|n| n.into().trim().trim_matches('/').to_string())
            .filter(|n| !n.is_empty())
            .collect();
        self
    }

    /// The names given to `disabled`.
    pub fn disabled_names(&self) -> impl Iterator<Item = &str> {
        self.disabled.iter().map(String::as_str)
    }

    /// Scan the roots and build the snapshot.
    pub fn build(&self) -> Result<Catalog, CatalogError> {
        for root in &self.roots {
            match std::fs::metadata(root) {
                Err(_) => return Err(CatalogError::RootNotFound(root.clone())),
                Ok(m) if !m.is_dir() => return Err(CatalogError::RootNotADirectory(root.clone())),
                Ok(_) => {}
            }
        }
        let started = std::time::Instant::now();
        let mut assembly = Assembly::new(self.profile);
        let mut found = Vec::new();
        let mut namespace_files = Vec::new();
        for (index, root) in self.roots.iter().enumerate() {
            let options = ScanOptions {
                limits: self.limits.clone(),
                check_bodies: self.check_bodies,
                visitor: self.visitor.clone(),
            };
            let result = scan::scan_root(index, root, &options);
            for item in result.findings {
                assembly.report(&item.path, &item.finding);
            }
            found.extend(result.skills);
            namespace_files.extend(result.namespace_files);
        }
        let scanned = started.elapsed();
        let files_read = found.len() + namespace_files.len();
        let mut boxed = assembly.skills_from(found);
        // Directory order; each skill is moved out of its box exactly once.
        boxed.sort_by(|a, b| (&a.namespace, &a.id).cmp(&(&b.namespace, &b.id)));
        let skills: Vec<Skill> = boxed.into_iter().map(|skill| *skill).collect();
        let namespaces = namespaces_of(&skills, &namespace_files);
        let (skills, disabled) = if self.disabled.is_empty() {
            (skills, Vec::new())
        } else {
            skills.into_iter().partition(|skill| {
                !self.disabled.iter().any(|entry| {
                    entry == &skill.name || entry == &skill.id || *entry == skill.qualified_name()
                })
            })
        };
        let mut catalog = Catalog::assemble(
            self.roots.clone(),
            self.profile,
            skills,
            disabled,
            namespaces,
            assembly.diagnostics,
        );
        catalog.stats = BuildStats {
            scan: scanned,
            total: started.elapsed(),
            files_read,
        };
        Ok(catalog)
    }
}

/// Turns findings into diagnostics for one profile while skills are built.
struct Assembly {
    profile: Profile,
    diagnostics: Vec<Diagnostic>,
}

impl Assembly {
    fn new(profile: Profile) -> Self {
        Assembly {
            profile,
            diagnostics: Vec::new(),
        }
    }

    fn report(&mut self, path: &Path, finding: &Finding) {
        if let Some(severity) = finding.code.severity(self.profile) {
            self.diagnostics.push(Diagnostic {
                path: path.to_path_buf(),
                line: finding.position.line,
                column: finding.position.column,
                severity,
                code: finding.code,
                message: finding.message.clone(),
            });
        }
    }

    /// The skills of the found files in precedence order, boxed so that
    /// ordering them moves pointers, not whole skills.
    #[allow(clippy::vec_box)] // deliberate: a skill is ~0.5 KB, sorting moves pointers
    fn skills_from(&mut self, found: Vec<FoundSkill>) -> Vec<Box<Skill>> {
        // Precedence: earlier root, then shallower path, then path order.
        // Paths under one root share its prefix, so comparing whole paths
        // orders them as their paths inside the root.
        let found = sorted_by(found, |a, b| {
            (a.root, a.depth, a.path.as_os_str().as_encoded_bytes()).cmp(&(
                b.root,
                b.depth,
                b.path.as_os_str().as_encoded_bytes(),
            ))
        });
        // Folders holding a `SKILL.md`, needed only when a lower-case
        // `skill.md` exists somewhere.
        let any_lowercase = found.iter().any(|f| !f.upper_case_name);
        let preferred: HashSet<PathBuf> = if any_lowercase {
            found
                .iter()
                .filter(|f| f.upper_case_name)
                .filter_map(|f| f.path.parent().map(Path::to_path_buf))
                .collect()
        } else {
            HashSet::new()
        };
        let mut seen_files = HashSet::new();
        let mut skills = Vec::with_capacity(found.len());
        for file in found {
            if any_lowercase
                && !file.upper_case_name
                && file
                    .path
                    .parent()
                    .is_some_and(|folder| preferred.contains(folder))
            {
                continue; // `skill.md` next to a `SKILL.md`: the upper-case one wins.
            }
            if let Some(identity) = file.identity {
                if !seen_files.insert(identity) {
                    continue; // The same file reached through another path.
                }
            }
            for finding in &file.findings {
                self.report(&file.path, finding);
            }
            skills.extend(file.skill);
        }
        self.resolve_collisions(&mut skills);
        skills
    }

    /// The first skill of a name (in precedence order) keeps it; the others
    /// get `namespace/name` and a warning naming the winner's file.
    fn resolve_collisions(&mut self, skills: &mut [Box<Skill>]) {
        // Borrowed names first: clashes are rare, so the common case
        // allocates nothing.
        let mut losers = Vec::new();
        let mut winners: HashMap<usize, usize> = HashMap::new();
        {
            let mut first: HashMap<&str, usize> = HashMap::with_capacity(skills.len());
            for (index, skill) in skills.iter().enumerate() {
                match first.get(skill.name.as_str()) {
                    Some(&winner) => {
                        losers.push(index);
                        winners.insert(index, winner);
                    }
                    None => {
                        first.insert(&skill.name, index);
                    }
                }
            }
        }
        if losers.is_empty() {
            return;
        }
        let mut taken: HashSet<String> = skills.iter().map(|s| s.name.clone()).collect();
        for index in losers {
            let winner = winners[&index];
            let base = skills[index].qualified_name();
            let mut id = base.clone();
            let mut n = 2;
            while taken.contains(&id) {
                id = format!("{base}~{n}");
                n += 1;
            }
            taken.insert(id.clone());
            let message = format!(
                "`{}` is also the name of {}, which takes precedence; this skill is listed as `{id}` — rename one of them to make both reachable by name",
                skills[index].name,
                skills[winner].path.display()
            );
            let position = skills[index].name_position.unwrap_or(Position::START);
            let path = skills[index].path.clone();
            self.report(&path, &Finding::new(Code::NameShadowed, position, message));
            skills[index].id = id;
            skills[index].shadowed = true;
        }
    }
}

/// `items` sorted by `compare`, stable. Sorts indices and moves each item
/// once: skills are large, and a sort that swaps them in place spends its
/// time copying memory.
fn sorted_by<T>(items: Vec<T>, compare: impl Fn(&T, &T) -> std::cmp::Ordering) -> Vec<T> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| compare(&items[a], &items[b]));
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// Read a file as text for display: BOM skipped, invalid UTF-8 replaced.
pub fn read_text(path: &Path) -> std::io::Result<String> {
    let bytes = std::fs::read(path)?;
    Ok(parse::decode(&bytes).0.into_owned())
}

/// Namespaces of the skills, sorted by name, with descriptions from the
/// folder's README/index front matter where one exists.
fn namespaces_of(skills: &[Skill], files: &[scan::FoundNamespaceFile]) -> Vec<Namespace> {
    let mut by_name: BTreeMap<&str, Vec<&Skill>> = BTreeMap::new();
    for skill in skills {
        by_name.entry(&skill.namespace).or_default().push(skill);
    }
    let mut descriptions: HashMap<String, String> = HashMap::new();
    // Files are ordered by root precedence through their paths' roots only
    // loosely; sort explicitly so the first root's README wins.
    let mut files: Vec<&scan::FoundNamespaceFile> = files.iter().collect();
    files.sort_by(|a, b| (a.root, &a.path).cmp(&(b.root, &b.path)));
    for file in files {
        let name = slash_path(&file.folder);
        if !by_name.contains_key(name.as_str()) || descriptions.contains_key(&name) {
            continue;
        }
        if let Some(description) = &file.description {
            descriptions.insert(name, description.clone());
        }
    }
    // A namespace that is itself a skill folder (nested skills) says so.
    let parent_skill = |name: &str| -> Option<&str> {
        let (parent, folder) = name.rsplit_once('/').unwrap_or(("", name));
        by_name.get(parent)?.iter().find_map(|s| {
            s.dir()
                .file_name()
                .is_some_and(|f| f == std::ffi::OsStr::new(folder))
                .then_some(s.name.as_str())
        })
    };
    by_name
        .iter()
        .map(|(name, members)| {
            let description =
                descriptions
                    .remove(*name)
                    .unwrap_or_else(|| match parent_skill(name) {
                        Some(parent) => format!("Skills nested inside the {parent} skill."),
                        None => Namespace::default_description(name),
                    });
            let mut ids: Vec<String> = members.iter().map(|s| s.id.clone()).collect();
            ids.sort();
            Namespace {
                name: name.to_string(),
                description,
                skills: ids,
            }
        })
        .collect()
}

/// How a build went, for `-v` output and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BuildStats {
    /// Walking, reading, parsing and checking.
    pub scan: std::time::Duration,
    /// The whole build.
    pub total: std::time::Duration,
    /// Skill and namespace files read.
    pub files_read: usize,
}

/// An immutable snapshot of the skills under a set of roots.
#[derive(Debug, Clone)]
pub struct Catalog {
    revision: String,
    roots: Vec<PathBuf>,
    profile: Profile,
    /// Sorted by namespace, then id.
    skills: Vec<Skill>,
    /// Skills kept out by configuration, sorted like `skills`.
    disabled: Vec<Skill>,
    namespaces: Vec<Namespace>,
    /// The namespaces of all skills, disabled ones included (empty when
    /// nothing is disabled): enabling a skill takes its namespace from here.
    all_namespaces: Vec<Namespace>,
    diagnostics: Vec<Diagnostic>,
    /// Built on the first lookup: a render never needs it.
    by_id: std::sync::OnceLock<HashMap<String, usize>>,
    /// Built on the first search.
    search: std::sync::OnceLock<crate::search::SearchIndex>,
    stats: BuildStats,
}

impl Catalog {
    fn assemble(
        roots: Vec<PathBuf>,
        profile: Profile,
        skills: Vec<Skill>,
        disabled: Vec<Skill>,
        all_namespaces: Vec<Namespace>,
        mut diagnostics: Vec<Diagnostic>,
    ) -> Self {
        // Skills arrive in directory order (namespace, then id).
        diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        diagnostics.dedup();
        let (namespaces, all_namespaces) = if disabled.is_empty() {
            (all_namespaces, Vec::new())
        } else {
            (
                enabled_namespaces(&all_namespaces, &disabled),
                all_namespaces,
            )
        };
        let by_id = std::sync::OnceLock::new();
        let revision = revision_of(&skills, &disabled, &namespaces);
        Catalog {
            revision,
            roots,
            profile,
            skills,
            disabled,
            namespaces,
            all_namespaces,
            diagnostics,
            by_id,
            search: std::sync::OnceLock::new(),
            stats: BuildStats::default(),
        }
    }

    /// Skills kept out by configuration (`CatalogBuilder::disabled`).
    pub fn disabled_skills(&self) -> &[Skill] {
        &self.disabled
    }

    /// The disabled skill that `key` names (id, name or qualified name).
    pub fn disabled_skill(&self, key: &str) -> Option<&Skill> {
        let key = key.trim().trim_matches('/');
        self.disabled
            .iter()
            .find(|s| s.id == key || s.qualified_name() == key)
            .or_else(|| self.disabled.iter().find(|s| s.name == key))
    }

    /// A new snapshot in which the disabled skills named by `keys` are
    /// enabled (a user said yes for this session). Everything else is
    /// shared in content with `self`.
    pub fn enabling(&self, keys: &[&str]) -> Catalog {
        let matches = |skill: &Skill| {
            keys.iter().any(|key| {
                let key = key.trim().trim_matches('/');
                key == skill.id || key == skill.name || key == skill.qualified_name()
            })
        };
        let (now_enabled, still_disabled): (Vec<Skill>, Vec<Skill>) =
            self.disabled.iter().cloned().partition(|s| matches(s));
        if now_enabled.is_empty() {
            return self.clone();
        }
        let mut skills = self.skills.clone();
        skills.extend(now_enabled);
        skills.sort_by(|a, b| (&a.namespace, &a.id).cmp(&(&b.namespace, &b.id)));
        let all = if self.all_namespaces.is_empty() {
            self.namespaces.clone()
        } else {
            self.all_namespaces.clone()
        };
        let mut catalog = Catalog::assemble(
            self.roots.clone(),
            self.profile,
            skills,
            still_disabled,
            all,
            Vec::new(),
        );
        catalog.diagnostics = self.diagnostics.clone();
        catalog.stats = self.stats;
        catalog
    }

    pub fn stats(&self) -> BuildStats {
        self.stats
    }

    /// A content hash of what the directory shows: same files, same revision.
    pub fn revision(&self) -> &str {
        &self.revision
    }

    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// All skills, sorted by namespace, then id.
    pub fn skills(&self) -> &[Skill] {
        &self.skills
    }

    /// All namespaces that hold skills, sorted by name.
    pub fn namespaces(&self) -> &[Namespace] {
        &self.namespaces
    }

    pub fn namespace(&self, name: &str) -> Option<&Namespace> {
        self.namespaces
            .binary_search_by(|n| n.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.namespaces[i])
    }

    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Find a skill by id, by qualified name (`namespace/name`), or by name
    /// when only shadowed skills carry it.
    pub fn get(&self, key: &str) -> Option<&Skill> {
        self.position(key).map(|i| &self.skills[i])
    }

    /// Like [`Catalog::get`], the skill's index in [`Catalog::skills`].
    pub fn position(&self, key: &str) -> Option<usize> {
        let by_id = self.by_id.get_or_init(|| {
            self.skills
                .iter()
                .enumerate()
                .map(|(i, s)| (s.id.clone(), i))
                .collect()
        });
        if let Some(&i) = by_id.get(key) {
            return Some(i);
        }
        // `namespace/name` of a skill that holds its plain name as its id.
        let (namespace, name) = key.rsplit_once('/')?;
        let i = *by_id.get(name)?;
        (self.skills[i].namespace == namespace).then_some(i)
    }

    /// The search index of this snapshot, built on first use.
    pub fn search_index(&self) -> &crate::search::SearchIndex {
        self.search
            .get_or_init(|| crate::search::SearchIndex::build(self))
    }

    /// Ids that look like `key`, for "did you mean" answers.
    pub fn similar(&self, key: &str, limit: usize) -> Vec<&str> {
        let key = key.to_lowercase();
        let mut scored: Vec<(usize, &str)> = self
            .skills
            .iter()
            .map(|s| (edit_distance(&key, &s.id.to_lowercase()), s.id.as_str()))
            .filter(|(d, id)| *d <= 3.max(key.chars().count() / 3) || id.contains(key.as_str()))
            .collect();
        scored.sort();
        scored.into_iter().take(limit).map(|(_, id)| id).collect()
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let current = row[j + 1];
            row[j + 1] = (previous + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(current + 1);
            previous = current;
        }
    }
    row[b.len()]
}

/// A small word-at-a-time hash (FxHash's multiply-rotate step over
/// little-endian 8-byte words): stable across platforms and releases, and
/// fast enough to hash every description on each build.
pub(crate) struct Fnv(u64);

impl Fnv {
    const K: u64 = 0x517c_c1b7_2722_0a95;

    pub(crate) fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::K);
    }

    pub(crate) fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let mut tail = [0u8; 8];
        tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.add(u64::from_le_bytes(tail));
        // The length separates ("ab","c") from ("a","bc").
        self.add(bytes.len() as u64);
    }

    pub(crate) fn finish(&self) -> u64 {
        self.0
    }
}

/// The namespaces of `all` without the disabled skills; namespaces left
/// with none are dropped.
fn enabled_namespaces(all: &[Namespace], disabled: &[Skill]) -> Vec<Namespace> {
    let gone: HashSet<(&str, &str)> = disabled
        .iter()
        .map(|s| (s.namespace.as_str(), s.id.as_str()))
        .collect();
    all.iter()
        .filter_map(|namespace| {
            let skills: Vec<String> = namespace
                .skills
                .iter()
                .filter(|id| !gone.contains(&(namespace.name.as_str(), id.as_str())))
                .cloned()
                .collect();
            (!skills.is_empty()).then(|| Namespace {
                skills,
                ..namespace.clone()
            })
        })
        .collect()
}

fn revision_of(skills: &[Skill], disabled: &[Skill], namespaces: &[Namespace]) -> String {
    let mut hash = Fnv::new();
    for skill in disabled {
        hash.write(b"disabled");
        hash.write(skill.id.as_bytes());
    }
    for skill in skills {
        hash.write(skill.id.as_bytes());
        hash.write(skill.namespace.as_bytes());
        hash.write(skill.description.as_bytes());
        hash.write(skill.path.to_string_lossy().as_bytes());
    }
    for namespace in namespaces {
        hash.write(namespace.name.as_bytes());
        hash.write(namespace.description.as_bytes());
    }
    format!("{:016x}", hash.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ab"), 2);
    }
}
