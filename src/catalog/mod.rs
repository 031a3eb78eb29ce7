//! The catalog: an immutable snapshot of every skill, namespace and
//! diagnostic of a set of roots at one revision.
//!
//! `CatalogBuilder` holds the configuration (roots, bounds, profile) and
//! builds frozen `Catalog` values; a watcher keeps the builder and builds
//! again. This module owns what turns scanned files into skills: dropping
//! duplicates, resolving name collisions deterministically, naming
//! namespaces, and mapping findings to diagnostics under the chosen profile.

pub(crate) mod incremental;
mod load_errors;
mod namespaces;
mod tools;
pub use tools::ToolCatalogFile;

use namespaces::namespaces_of;
pub(crate) use namespaces::{members_of, namespace_descriptions, namespace_of};

use crate::entry::{Code, Diagnostic, Namespace, Position, Profile, Skill};
use crate::parse::{self, Finding};
pub use crate::rules::resolve_inside;
use crate::scan::{self, FoundSkill, ScanLimits, ScanOptions, ScanScope};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Failures that stop a catalog from being built at all. Problems with
/// individual files are diagnostics inside the catalog instead.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("skill root {} does not exist — check the path, or create the folder", .0.display())]
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
    /// Descriptions that replace tools' own, by id `server/tool`.
    tool_descriptions: std::collections::BTreeMap<String, String>,
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

    pub fn checks_bodies(&self) -> bool {
        self.check_bodies
    }

    /// What one walk of a root does (all of it when `scope` is `None`).
    pub(crate) fn scan_options(&self, scope: Option<Arc<[ScanScope]>>) -> ScanOptions {
        ScanOptions {
            limits: self.limits.clone(),
            check_bodies: self.check_bodies,
            visitor: self.visitor.clone(),
            scope,
        }
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

    /// Replace the descriptions of these tools (by id `server/tool`) with
    /// the text given: what search indexes and every command and the
    /// gateway show. A description is trimmed and cut at a character
    /// boundary to [`crate::toolcat::MAX_OVERRIDE_BYTES`]; an empty one, or
    /// one naming no tool, changes nothing (`lint` reports both, see
    /// `crate::tool_settings`).
    pub fn tool_descriptions<I, S, T>(mut self, descriptions: I) -> Self
    where
        I: IntoIterator<Item = (S, T)>,
        S: Into<String>,
        T: Into<String>,
    {
        self.tool_descriptions = descriptions
            .into_iter()
            .map(|(id, text)| (id.into().trim().to_string(), text.into()))
            .collect();
        self
    }

    /// The names given to `disabled`.
    pub fn disabled_names(&self) -> impl Iterator<Item = &str> {
        self.disabled.iter().map(String::as_str)
    }

    /// Scan the roots and build the snapshot.
    pub fn build(&self) -> Result<Catalog, CatalogError> {
        self.build_with(&self.scan_options(None))
    }

    fn build_with(&self, options: &scan::ScanOptions) -> Result<Catalog, CatalogError> {
        for root in &self.roots {
            check_root(root)?;
        }
        let started = std::time::Instant::now();
        let results: Vec<scan::ScanResult> = self
            .roots
            .iter()
            .enumerate()
            .map(|(index, root)| scan::scan_root(index, root, options))
            .collect();
        Ok(self.assemble_scans(results, started))
    }

    /// The catalog of finished scans begun at `started`.
    fn assemble_scans(
        &self,
        results: Vec<scan::ScanResult>,
        started: std::time::Instant,
    ) -> Catalog {
        let scanned = started.elapsed();
        let inputs = ScanInputs {
            skills: results.iter().flat_map(|r| &r.skills).collect(),
            namespace_files: results.iter().flat_map(|r| &r.namespace_files).collect(),
            tool_catalogs: results.iter().flat_map(|r| &r.tool_catalogs).collect(),
            findings: results.iter().flat_map(|r| &r.findings).collect(),
            stale: None,
        };
        let mut catalog = self.assemble(inputs);
        catalog.stats.scan = scanned;
        catalog.stats.total = started.elapsed();
        // Dropping the scan results last leaves each skill with one owner.
        drop(results);
        catalog
    }

    /// A catalog of only the skill files at `files` (each written as the
    /// walk writes it: a root joined with the path inside it). Only the
    /// folders leading to them are listed, so this costs a few folders, not
    /// the tree; ignore files, skipped folders, bounds and the disabled list
    /// apply as in a whole build. Name clashes with skills elsewhere are not
    /// seen: each skill keeps its plain name.
    pub fn build_files(&self, files: &[PathBuf]) -> Result<Catalog, CatalogError> {
        let started = std::time::Instant::now();
        let mut results = Vec::new();
        for (index, root) in self.roots.iter().enumerate() {
            let mut scopes: Vec<ScanScope> = files
                .iter()
                .filter(|file| file.starts_with(root))
                .map(|file| ScanScope {
                    path: file.clone(),
                    subtree: false,
                })
                .collect();
            if scopes.is_empty() {
                continue;
            }
            check_root(root)?;
            scopes.sort();
            scopes.dedup();
            let options = self.scan_options(Some(scopes.into()));
            results.push(scan::scan_root(index, root, &options));
        }
        Ok(self.assemble_scans(results, started))
    }

    /// The snapshot of scanned files: duplicates dropped, name clashes
    /// resolved, namespaces named, findings turned into diagnostics.
    pub(crate) fn assemble(&self, inputs: ScanInputs<'_>) -> Catalog {
        let mut assembly = Assembly::new(self.profile);
        for item in &inputs.findings {
            assembly.report(&item.path, &item.finding);
        }
        let files_read =
            inputs.skills.len() + inputs.namespace_files.len() + inputs.tool_catalogs.len();
        let mut skills = assembly.skills_from(inputs.skills);
        // Directory order: sorting moves pointers, not skills.
        skills.sort_by(|a, b| (&a.namespace, &a.id).cmp(&(&b.namespace, &b.id)));
        let namespaces = namespaces_of(&skills, &inputs.namespace_files);
        let stale = match inputs.stale {
            Some(paths) if !paths.is_empty() => {
                let mut ids: Vec<String> = skills
                    .iter()
                    .filter(|s| paths.contains(&s.path))
                    .map(|s| s.id.clone())
                    .collect();
                ids.sort();
                ids
            }
            _ => Vec::new(),
        };
        let tools = tools::tool_part_of(
            &inputs.tool_catalogs,
            &inputs.namespace_files,
            &self.tool_descriptions,
            &mut assembly.diagnostics,
        );
        let mut catalog = Catalog::assemble(
            self.roots.clone(),
            self.profile,
            skills,
            namespaces,
            assembly.diagnostics,
            stale,
        )
        .with_tools(Arc::new(tools))
        .with_disabled(&self.disabled);
        catalog.stats.files_read = files_read;
        catalog
    }
}

/// A root must be an existing folder.
pub fn check_root(root: &Path) -> Result<(), CatalogError> {
    match std::fs::metadata(root) {
        Err(_) => Err(CatalogError::RootNotFound(root.to_path_buf())),
        Ok(m) if !m.is_dir() => Err(CatalogError::RootNotADirectory(root.to_path_buf())),
        Ok(_) => Ok(()),
    }
}

/// What the walks of the roots found, borrowed, in any order.
pub(crate) struct ScanInputs<'a> {
    pub skills: Vec<&'a FoundSkill>,
    pub namespace_files: Vec<&'a scan::FoundNamespaceFile>,
    pub tool_catalogs: Vec<&'a scan::FoundToolCatalog>,
    pub findings: Vec<&'a scan::PathFinding>,
    /// Skill files whose skill is a last good version kept over a broken
    /// edit (live catalogs only).
    pub stale: Option<&'a HashSet<PathBuf>>,
}

/// Turns findings into diagnostics for one profile while skills are built.
pub(crate) struct Assembly {
    profile: Profile,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl Assembly {
    pub(crate) fn new(profile: Profile) -> Self {
        Assembly {
            profile,
            diagnostics: Vec::new(),
        }
    }

    pub(crate) fn report(&mut self, path: &Path, finding: &Finding) {
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

    /// The skills of the found files in precedence order.
    fn skills_from(&mut self, mut found: Vec<&FoundSkill>) -> Vec<Arc<Skill>> {
        crate::scan::precedence::by_precedence(&mut found);
        // Folders holding a `SKILL.md`, needed only when a lower-case
        // `skill.md` exists somewhere.
        let any_lowercase = found.iter().any(|f| !f.upper_case_name);
        let preferred: HashSet<&Path> = if any_lowercase {
            found
                .iter()
                .filter(|f| f.upper_case_name)
                .filter_map(|f| f.path.parent())
                .collect()
        } else {
            HashSet::new()
        };
        // One file reached through several paths (symlinked folders) is
        // one skill: the first path whose folder carries the skill's name
        // (the other paths would break the name rule for the same file),
        // then the first without a symlink in it (its real place, where
        // its nested skills and namespace are), then the first in
        // precedence order.
        let mut chosen: HashMap<scan::FileIdentity, usize> = HashMap::new();
        let named = |file: &FoundSkill| file.folder_named;
        let shadowed = |file: &FoundSkill| {
            any_lowercase
                && !file.upper_case_name
                && file
                    .path
                    .parent()
                    .is_some_and(|folder| preferred.contains(folder))
        };
        for (index, file) in found.iter().enumerate() {
            if shadowed(file) {
                continue; // Skipped below: it must not stand for its file.
            }
            if let Some(identity) = file.identity {
                match chosen.get(&identity) {
                    None => {
                        chosen.insert(identity, index);
                    }
                    Some(&first)
                        if (named(file), !file.through_link)
                            > (named(found[first]), !found[first].through_link) =>
                    {
                        chosen.insert(identity, index);
                    }
                    Some(_) => {}
                }
            }
        }
        let mut skills = Vec::with_capacity(found.len());
        for (index, file) in found.into_iter().enumerate() {
            if shadowed(file) {
                continue; // `skill.md` next to a `SKILL.md`: the upper-case one wins.
            }
            if let Some(identity) = file.identity {
                if chosen.get(&identity) != Some(&index) {
                    continue; // The same file reached through another path.
                }
            }
            for finding in &file.findings {
                self.report(&file.path, finding);
            }
            skills.extend(file.skill.clone());
        }
        self.resolve_collisions(&mut skills);
        skills
    }

    /// The first skill of a name (in precedence order) keeps it; the others
    /// get `namespace/name` and a warning naming the winner's file.
    fn resolve_collisions(&mut self, skills: &mut [Arc<Skill>]) {
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
            // A copy only when another snapshot shares this skill.
            let loser = Arc::make_mut(&mut skills[index]);
            loser.id = id;
            loser.shadowed = true;
        }
    }
}

/// Read a file as text for display: BOM skipped, invalid UTF-8 replaced.
/// The file is opened inside its own folder (`contain`): a skill
/// file that is a symlink out of its folder, a pipe, or larger than
/// `contain::MAX_READ_BYTES` is refused before anything is read.
pub fn read_text(path: &Path) -> std::io::Result<String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let bytes = crate::contain::read_inside(
        path.parent().unwrap_or(Path::new(".")),
        &name,
        crate::contain::MAX_READ_BYTES,
    )?;
    Ok(parse::decode(&bytes).0.into_owned())
}

/// `read_text` for a skill's own file at `path`, found under `root`: it
/// may be a symlink to a file elsewhere in the root, never outside it
/// (`contain::read_skill_file`).
pub fn read_skill_text(root: &Path, path: &Path) -> std::io::Result<String> {
    let bytes = crate::contain::read_skill_file(root, path, crate::contain::MAX_READ_BYTES)?;
    Ok(parse::decode(&bytes).0.into_owned())
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
///
/// Skills are shared (`Arc`) so that the snapshots of a live catalog hold
/// one copy of every skill that did not change between them.
#[derive(Debug, Clone)]
pub struct Catalog {
    revision: String,
    roots: Vec<PathBuf>,
    profile: Profile,
    /// Sorted by namespace, then id.
    skills: Vec<Arc<Skill>>,
    namespaces: Vec<Namespace>,
    diagnostics: Vec<Diagnostic>,
    /// Ids of skills served from their last good version, sorted.
    stale: Vec<String>,
    /// Built on the first lookup: a render never needs it.
    by_id: std::sync::OnceLock<HashMap<String, usize>>,
    stats: BuildStats,
    /// Skills kept out by configuration, sorted like `skills`.
    disabled: Vec<Arc<Skill>>,
    /// Their real folders (with their ids), found on first need.
    disabled_real: std::sync::OnceLock<Vec<(PathBuf, String)>>,
    /// When some are disabled: every skill and every namespace, disabled
    /// ones included (a rebuild or `enabling` starts from these).
    all_skills: Vec<Arc<Skill>>,
    all_namespaces: Vec<Namespace>,
    /// MCP tool servers and their files (see `tools.rs`).
    tools: Arc<tools::ToolPart>,
}

impl Catalog {
    pub(crate) fn assemble(
        roots: Vec<PathBuf>,
        profile: Profile,
        skills: Vec<Arc<Skill>>,
        namespaces: Vec<Namespace>,
        mut diagnostics: Vec<Diagnostic>,
        stale: Vec<String>,
    ) -> Self {
        // Skills arrive in directory order (namespace, then id).
        diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        diagnostics.dedup();
        let by_id = std::sync::OnceLock::new();
        let revision = revision_of(&skills, &namespaces, &diagnostics, &stale);
        Catalog {
            revision,
            roots,
            profile,
            skills,
            namespaces,
            diagnostics,
            stale,
            by_id,
            stats: BuildStats::default(),
            disabled: Vec::new(),
            disabled_real: std::sync::OnceLock::new(),
            all_skills: Vec::new(),
            all_namespaces: Vec::new(),
            tools: Arc::default(),
        }
    }

    /// This snapshot with the skills that `names` name (name, id or
    /// `namespace/name`) moved out of `skills` into `disabled_skills`.
    pub(crate) fn with_disabled(mut self, names: &std::collections::BTreeSet<String>) -> Catalog {
        if names.is_empty() || !self.disabled.is_empty() {
            return self;
        }
        let named = |skill: &Skill| names.iter().any(|name| skill.answers_to(name));
        if !self.skills.iter().any(|s| named(s)) {
            return self;
        }
        let all = std::mem::take(&mut self.skills);
        let (enabled, disabled): (Vec<Arc<Skill>>, Vec<Arc<Skill>>) =
            all.iter().cloned().partition(|s| !named(s));
        let all_namespaces = std::mem::take(&mut self.namespaces);
        self.namespaces = enabled_namespaces(&all_namespaces, &disabled);
        self.all_namespaces = all_namespaces;
        self.skills = enabled;
        self.all_skills = all;
        // Enabling or disabling a skill changes what the directory shows.
        let mut hash = crate::hash::StableHasher::new();
        hash.write(self.revision.as_bytes());
        for skill in &disabled {
            hash.write(skill.id.as_bytes());
        }
        self.revision = hash.finish_hex();
        self.disabled = disabled;
        self.disabled_real = std::sync::OnceLock::new();
        self.by_id = std::sync::OnceLock::new();
        self
    }

    /// Every skill, disabled ones included, sorted like `skills`.
    pub(crate) fn every_skill(&self) -> &[Arc<Skill>] {
        if self.disabled.is_empty() {
            &self.skills
        } else {
            &self.all_skills
        }
    }

    /// Every namespace, those holding only disabled skills included.
    pub(crate) fn every_namespace(&self) -> &[Namespace] {
        if self.disabled.is_empty() {
            &self.namespaces
        } else {
            &self.all_namespaces
        }
    }

    /// Skills kept out by configuration (`CatalogBuilder::disabled`).
    pub fn disabled_skills(&self) -> &[Arc<Skill>] {
        &self.disabled
    }

    /// The real folders of the disabled skills (those that exist), with
    /// their ids, found once per snapshot.
    pub fn disabled_real_folders(&self) -> &[(PathBuf, String)] {
        self.disabled_real.get_or_init(|| {
            self.disabled
                .iter()
                .filter_map(|s| Some((s.dir().canonicalize().ok()?, s.id.clone())))
                .collect()
        })
    }

    /// The disabled skill that `key` names (id, name or qualified name).
    pub fn disabled_skill(&self, key: &str) -> Option<&Skill> {
        let key = key.trim().trim_matches('/');
        self.disabled
            .iter()
            .find(|s| s.id == key || s.qualified_name() == key)
            .or_else(|| self.disabled.iter().find(|s| s.name == key))
            .map(|s| s.as_ref())
    }

    /// A new snapshot in which the disabled skills named by `keys` are
    /// enabled (a user said yes for this session).
    pub fn enabling(&self, keys: &[&str]) -> Catalog {
        let named = |skill: &Skill| keys.iter().any(|key| skill.answers_to(key));
        if !self.disabled.iter().any(|s| named(s)) {
            return self.clone();
        }
        let still: std::collections::BTreeSet<String> = self
            .disabled
            .iter()
            .filter(|s| !named(s))
            .map(|s| s.id.clone())
            .collect();
        let mut catalog = Catalog::assemble(
            self.roots.clone(),
            self.profile,
            self.every_skill().to_vec(),
            self.every_namespace().to_vec(),
            self.diagnostics.clone(),
            self.stale.clone(),
        )
        .with_tools(self.tools.clone())
        .with_disabled(&still);
        catalog.stats = self.stats;
        catalog
    }

    /// An empty catalog of `roots` (none of them scanned).
    pub(crate) fn empty(roots: Vec<PathBuf>, profile: Profile) -> Self {
        Catalog::assemble(
            roots,
            profile,
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
        )
    }

    pub fn stats(&self) -> BuildStats {
        self.stats
    }

    /// A content hash of the snapshot (what the directory shows, the
    /// diagnostics, the stale skills): same files, same revision.
    pub fn revision(&self) -> &str {
        &self.revision
    }

    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The root `skill` was found in.
    pub fn root_of<'a>(&'a self, skill: &'a Skill) -> &'a Path {
        self.roots
            .get(skill.root)
            .map_or_else(|| skill.dir(), PathBuf::as_path)
    }

    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// All skills, sorted by namespace, then id.
    pub fn skills(&self) -> &[Arc<Skill>] {
        &self.skills
    }

    /// Ids of the skills served from their last good version because their
    /// file is broken now (see the diagnostics); sorted. Only a live catalog
    /// has any.
    pub fn stale(&self) -> &[String] {
        &self.stale
    }

    pub fn is_stale(&self, id: &str) -> bool {
        self.stale.binary_search_by(|s| s.as_str().cmp(id)).is_ok()
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

    /// Find a skill by id, or by qualified name (`namespace/name`, and
    /// `plugin:name` for a plugin's skill).
    pub fn get(&self, key: &str) -> Option<&Skill> {
        self.position(key).map(|i| &*self.skills[i])
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
        // `namespace/name` of a skill that holds its plain name as its id,
        // and `plugin:name` of a plugin's skill.
        if let Some((plugin, name)) = key.split_once(':') {
            if let Some(&i) = by_id.get(name) {
                let skill = &self.skills[i];
                if skill.plugin && skill.namespace == plugin {
                    return Some(i);
                }
            }
        }
        let (namespace, name) = key.rsplit_once('/')?;
        if let Some(&i) = by_id.get(name) {
            if self.skills[i].namespace == namespace {
                return Some(i);
            }
        }
        // A plugin's skill that lost its plain name, written `plugin/name`.
        by_id
            .get(&format!("{namespace}:{name}"))
            .copied()
            .filter(|&i| self.skills[i].plugin)
    }

    /// Ids that look like `key`, for "did you mean" answers.
    pub fn similar(&self, key: &str, limit: usize) -> Vec<&str> {
        similar_ids(&self.skills, key, limit)
    }

    /// Like `similar`, disabled skills included (for names in the
    /// configuration, which may well mean a disabled skill).
    pub fn similar_including_disabled(&self, key: &str, limit: usize) -> Vec<&str> {
        similar_ids(self.every_skill(), key, limit)
    }

    /// Does a skill of this snapshot, disabled ones included, answer to
    /// `key` (name, id or `namespace/name`)?
    pub fn names_any_skill(&self, key: &str) -> bool {
        self.every_skill().iter().any(|skill| skill.answers_to(key))
    }
}

fn similar_ids<'a>(skills: &'a [Arc<Skill>], key: &str, limit: usize) -> Vec<&'a str> {
    let key = key.to_lowercase();
    let mut scored: Vec<(usize, &str)> = skills
        .iter()
        .map(|s| {
            (
                crate::text::edit_distance(&key, &s.id.to_lowercase()),
                s.id.as_str(),
            )
        })
        .filter(|(d, id)| *d <= 3.max(key.chars().count() / 3) || id.contains(key.as_str()))
        .collect();
    scored.sort();
    scored.into_iter().take(limit).map(|(_, id)| id).collect()
}

/// The namespaces of `all` without the disabled skills; namespaces left
/// with none are dropped.
fn enabled_namespaces(all: &[Namespace], disabled: &[Arc<Skill>]) -> Vec<Namespace> {
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

fn revision_of(
    skills: &[Arc<Skill>],
    namespaces: &[Namespace],
    diagnostics: &[Diagnostic],
    stale: &[String],
) -> String {
    let mut hash = crate::hash::StableHasher::new();
    for skill in skills {
        // The description comes from the file, so the file's hash stands
        // for it (and for every other field read from the file).
        hash.write(skill.id.as_bytes());
        hash.write(skill.namespace.as_bytes());
        hash.write(skill.path.as_os_str().as_encoded_bytes());
        hash.write(&skill.content_hash.to_le_bytes());
    }
    for namespace in namespaces {
        hash.write(namespace.name.as_bytes());
        hash.write(namespace.description.as_bytes());
    }
    for diagnostic in diagnostics {
        hash.write(diagnostic.path.as_os_str().as_encoded_bytes());
        hash.write(
            &[diagnostic.line, diagnostic.column]
                .map(u32::to_le_bytes)
                .concat(),
        );
        hash.write(diagnostic.code.as_str().as_bytes());
        hash.write(diagnostic.message.as_bytes());
    }
    for id in stale {
        hash.write(id.as_bytes());
    }
    hash.finish_hex()
}
