//! Discovery: walk the roots and hand back every skill file, parsed, plus
//! the namespace description files and what went wrong on the way.
//!
//! The walk (`walk.rs`, parallel, folders opened relative to their parent)
//! applies `.gitignore`/`.ignore` files of the tree with `ignore`'s matcher
//! (not the user's global excludes), hidden folders are searched (skills
//! live in `.claude/skills`, `.github/skills`, ...), `.git`, `node_modules`
//! and `target` are skipped, symlinks are followed with loop detection. Each
//! skill file is read and parsed in the walker threads (reading overlaps walking).
//!
//! Only the head of a large file is read: the directory needs the header,
//! and bodies are read on demand. Every bound (depth, entries, file size)
//! that cuts the walk short becomes a finding, never a silent gap.
//!
//! A scan can be narrowed to a few paths (`ScanOptions::scope`): the walk
//! still starts at the root, so the ignore files above those paths apply
//! exactly as in a whole scan, but it only enters the folders that lead to
//! them. The live catalog uses this to re-read what changed.

use crate::entry::{Code, Position, Skill};
use crate::parse::{self, Finding};
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

mod declared;
pub(crate) mod precedence;
mod read;
mod tools;
mod walk;
use read::{folder_name_of, open_linked_file, open_linked_skill_file, read_skill_file, skill_of};
pub use tools::FoundToolCatalog;
pub(crate) use walk::{FolderRules, RulesCache};

/// Folder names never searched.
pub const SKIPPED_DIRS: &[&str] = &[".git", "node_modules", "target"];

/// File names that make a folder a skill, in order of preference.
pub const SKILL_FILE_NAMES: &[&str] = &["SKILL.md", "skill.md"];

/// File names whose front matter describes the folder they are in.
pub const NAMESPACE_FILE_NAMES: &[&str] = &["README.md", "readme.md", "index.md"];

/// How much of a file is read when only its header is needed. Front matter
/// larger than this is refused anyway.
const HEAD_BYTES: usize = parse::frontmatter::MAX_FRONTMATTER_BYTES + 8 * 1024;

/// Bounds of the walk. Defaults are generous; every one that cuts is
/// reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanLimits {
    /// Depth below a root down to which entries are read (the root is 0,
    /// its entries 1): a folder at this depth is seen but not entered.
    pub max_depth: usize,
    /// Entries (files and folders) visited per root.
    pub max_entries: usize,
    /// Size of a `SKILL.md` above which it is reported (and only its head read).
    pub max_file_bytes: u64,
    /// Walker threads; 0 picks from the machine.
    pub threads: usize,
}

impl Default for ScanLimits {
    fn default() -> Self {
        ScanLimits {
            max_depth: 16,
            max_entries: 1_000_000,
            max_file_bytes: 1024 * 1024,
            threads: 0,
        }
    }
}

/// A regular file met by the walk, handed to a `FileVisitor`.
#[derive(Debug, Clone, Copy)]
pub struct VisitedFile<'a> {
    pub path: &'a Path,
    /// The file's bytes when the scan read it whole anyway (skill files);
    /// otherwise the visitor reads it if it wants to.
    pub bytes: Option<&'a [u8]>,
    /// Reached through a symlink (the file or a folder above it).
    pub through_link: bool,
    /// The walk's entry, to open the file from its open folder.
    entry: Option<&'a walk::Entry<'a>>,
}

impl VisitedFile<'_> {
    /// Open the file from the folder the walk holds open, as it was
    /// listed (never by its whole path, which a swapped folder could
    /// lead elsewhere); the file must be checked on the open handle.
    pub fn open(&self) -> std::io::Result<std::fs::File> {
        match self.entry {
            Some(entry) => entry.open_as_listed(),
            None => crate::contain::open_regular(self.path),
        }
    }
}

/// Called from the walker threads for every regular file, so work on file
/// contents (`grep`) can ride along with the scan instead of walking again.
pub type FileVisitor = std::sync::Arc<dyn Fn(VisitedFile<'_>) + Send + Sync>;

/// A path a narrowed scan looks at, written as the walk writes it (the
/// root joined with the path inside it).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ScanScope {
    pub path: PathBuf,
    /// Everything below `path` too (a folder); otherwise only `path` itself.
    pub subtree: bool,
}

impl ScanScope {
    /// True when the walk must enter or visit `path` for `scopes` (sorted
    /// by path, none inside a folder scope): it is on the way to a scope,
    /// or inside a folder scope.
    fn wanted(scopes: &[ScanScope], path: &Path) -> bool {
        // Paths at or below `path` follow it in component order; a folder
        // scope holding `path` is the last scope before it.
        let index = scopes.partition_point(|s| s.path.as_path() < path);
        scopes.get(index).is_some_and(|s| s.path.starts_with(path))
            || index
                .checked_sub(1)
                .is_some_and(|i| scopes[i].subtree && path.starts_with(&scopes[i].path))
    }

    /// True when a finding or file at `path` is one this scope re-reads.
    pub fn covers(&self, path: &Path) -> bool {
        if self.subtree {
            path.starts_with(&self.path)
        } else {
            path == self.path
        }
    }
}

/// What a scan does: the bounds, whether bodies are checked, and an
/// optional visitor of every file.
#[derive(Clone, Default)]
pub struct ScanOptions {
    pub limits: ScanLimits,
    /// Run the body checks (size, links) of `lint` while reading.
    pub check_bodies: bool,
    pub visitor: Option<FileVisitor>,
    /// Only these paths (all of the root when `None`), sorted by path,
    /// none inside a folder scope.
    pub scope: Option<Arc<[ScanScope]>>,
}

impl std::fmt::Debug for ScanOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScanOptions")
            .field("limits", &self.limits)
            .field("check_bodies", &self.check_bodies)
            .field("visitor", &self.visitor.is_some())
            .field("scope", &self.scope)
            .finish()
    }
}

/// Identity of a file on disk, so one file reached through two paths (a
/// symlinked folder, a case-insensitive name) is one skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileIdentity {
    device: u64,
    inode: u64,
}

/// A skill file found and parsed.
#[derive(Debug, Clone)]
pub struct FoundSkill {
    pub root: usize,
    /// Named `SKILL.md` (rather than the fallback `skill.md`).
    pub upper_case_name: bool,
    /// The folder carries the skill's name as written (or the skill
    /// gives none): of several paths to one file, such a path is preferred.
    pub folder_named: bool,
    /// Folder depth of the file below the root.
    pub depth: usize,
    /// Some folder between the root and the file is hidden (`.gemini/`,
    /// `.cursor/`): a tool-specific copy, outranked on a name clash by a
    /// skill in plain folders.
    pub hidden: bool,
    /// The root joined with `relative`.
    pub path: PathBuf,
    pub identity: Option<FileIdentity>,
    /// Reached through a symlink (to the file or a folder above it).
    pub through_link: bool,
    /// The real path of the file elsewhere in the root that this
    /// `SKILL.md`, a symlink, leads to (`None` for a skill file in its
    /// folder): the live catalog reads the skill again when it changes.
    pub linked_target: Option<PathBuf>,
    /// The skill, or `None` when the file cannot load. Built here, in the
    /// walker threads, so the catalog only has to order and dedupe; shared,
    /// so that successive snapshots of a live catalog hold one copy.
    pub skill: Option<Arc<Skill>>,
    /// Every finding about the file, rule checks included.
    pub findings: Vec<Finding>,
}

/// A `README.md`/`index.md` that may describe a namespace folder.
#[derive(Debug, Clone)]
pub struct FoundNamespaceFile {
    pub root: usize,
    /// The folder it sits in, relative to the root.
    pub folder: PathBuf,
    pub path: PathBuf,
    /// The namespace it describes: the folder's path, or the name of the
    /// plugin the folder is.
    pub describes: String,
    /// A plugin manifest (or marketplace entry), which outranks a README.
    pub plugin: bool,
    /// The `description` of its front matter, if it has one.
    pub description: Option<String>,
    /// The `name` of its front matter, when it has a description too (a
    /// tool server's title).
    pub name: Option<String>,
}

/// A finding about a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathFinding {
    pub path: PathBuf,
    pub finding: Finding,
}

/// A symlinked folder the scan followed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct FollowedLink {
    /// The link, as the walk wrote it.
    pub link: PathBuf,
    /// Its real folder.
    pub target: PathBuf,
}

/// Everything one scan produced, in deterministic order.
#[derive(Debug, Default)]
pub struct ScanResult {
    pub skills: Vec<FoundSkill>,
    pub namespace_files: Vec<FoundNamespaceFile>,
    /// Tool catalogs (`mcp-tools.json`), sorted by path.
    pub tool_catalogs: Vec<FoundToolCatalog>,
    pub findings: Vec<PathFinding>,
    /// Symlinked folders walked through, sorted by link.
    pub links: Vec<FollowedLink>,
}

#[derive(Default)]
struct Shared {
    skills: Mutex<Vec<FoundSkill>>,
    namespace_files: Mutex<Vec<FoundNamespaceFile>>,
    tool_catalogs: Mutex<Vec<FoundToolCatalog>>,
    findings: Mutex<Vec<PathFinding>>,
    entries: AtomicUsize,
    entry_limit_hit: AtomicBool,
    /// Folders at the depth limit that were not descended into: count and
    /// the smallest path, so the report is the same on every run.
    depth_cut: Mutex<(usize, Option<PathBuf>)>,
    /// Symlinked folders found by the current walk: (depth, link, real folder).
    links: Mutex<Vec<(usize, PathBuf, PathBuf)>>,
    /// The plugins skills are met in.
    plugins: crate::plugin::PluginIndex,
}

impl Shared {
    /// A folder at the depth limit, seen but not entered.
    fn note_depth_cut(&self, path: &Path) {
        let mut cut = self.depth_cut.lock().unwrap_or_else(|e| e.into_inner());
        cut.0 += 1;
        if cut.1.as_deref().is_none_or(|p| path < p) {
            cut.1 = Some(path.to_path_buf());
        }
    }

    /// Record a finding about `path` (positioned at its start).
    fn report(&self, path: &Path, code: Code, message: impl Into<String>) {
        push(
            &self.findings,
            PathFinding {
                path: path.to_path_buf(),
                finding: Finding::new(code, Position::START, message),
            },
        );
    }
}

fn push<T>(list: &Mutex<Vec<T>>, item: T) {
    // A poisoned lock only means another walker thread panicked; the data
    // is still a valid Vec.
    list.lock().unwrap_or_else(|e| e.into_inner()).push(item);
}

/// Walk `root` (index `root_index` in precedence order).
pub fn scan_root(root_index: usize, root: &Path, options: &ScanOptions) -> ScanResult {
    let limits = &options.limits;
    let mut shared = Shared {
        plugins: crate::plugin::PluginIndex::new(root),
        ..Shared::default()
    };
    let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    // A root that is itself a symlink is walked through it: the trailing
    // separator makes the system resolve the link.
    let start = if std::fs::symlink_metadata(root).is_ok_and(|m| m.file_type().is_symlink()) {
        root.join("")
    } else {
        root.to_path_buf()
    };
    // Symlinks are followed by hand rather than by the walker, which would
    // otherwise stat every entry: a symlinked folder found during a walk is
    // queued and walked afterwards, at its depth, once per real folder.
    // Links are gathered per round and the shallowest, then the one named
    // like its folder, then first by path, wins each real folder, so the
    // choice does not depend on which walker thread got there first.
    let mut linked = std::collections::HashSet::new();
    let mut links = Vec::new();
    let mut pending = vec![(start, 0usize)];
    while !pending.is_empty() {
        for (start, offset) in std::mem::take(&mut pending) {
            walk(
                root_index,
                root,
                &start,
                offset,
                &canonical_root,
                options,
                &shared,
            );
        }
        let mut found =
            std::mem::take(&mut *shared.links.lock().unwrap_or_else(|e| e.into_inner()));
        // Among links to one folder, a link named like the folder is the
        // one whose path keeps a skill's name and folder in agreement.
        found.sort_by(|a, b| {
            let renamed = |(_, link, target): &(usize, PathBuf, PathBuf)| {
                link.file_name() != target.file_name()
            };
            (a.0, renamed(a), &a.1, &a.2).cmp(&(b.0, renamed(b), &b.1, &b.2))
        });
        for (depth, link, target) in found {
            if depth >= limits.max_depth && depth > 0 {
                // Seen but not entered, as a folder at that depth is.
                shared.note_depth_cut(&link);
                continue;
            }
            if linked.insert(target.clone()) {
                links.push(FollowedLink {
                    link: link.clone(),
                    target,
                });
                pending.push((link, depth));
            }
        }
    }

    let (plugins, plugin_findings) = std::mem::take(&mut shared.plugins).into_parts();
    let mut out = ScanResult {
        skills: shared
            .skills
            .into_inner()
            .unwrap_or_else(|e| e.into_inner()),
        namespace_files: shared
            .namespace_files
            .into_inner()
            .unwrap_or_else(|e| e.into_inner()),
        tool_catalogs: shared
            .tool_catalogs
            .into_inner()
            .unwrap_or_else(|e| e.into_inner()),
        findings: shared
            .findings
            .into_inner()
            .unwrap_or_else(|e| e.into_inner()),
        links,
    };
    out.links.sort();
    for (path, finding) in plugin_findings {
        out.findings.push(PathFinding { path, finding });
    }
    for plugin in plugins {
        let (Some(description), Some(source)) = (&plugin.description, &plugin.source) else {
            continue;
        };
        // One marketplace may describe several plugins: each gets its own key.
        let path = if source.ends_with(crate::plugin::MANIFEST_FILE) {
            source.clone()
        } else {
            let mut path = source.clone().into_os_string();
            path.push(format!("#{}", plugin.name));
            PathBuf::from(path)
        };
        out.namespace_files.push(FoundNamespaceFile {
            root: root_index,
            folder: plugin.folder.clone(),
            path,
            describes: plugin.name.clone(),
            plugin: true,
            description: Some(description.clone()),
            name: None,
        });
    }
    if shared.entry_limit_hit.load(Ordering::Relaxed) {
        out.findings.push(PathFinding {
            path: root.to_path_buf(),
            finding: Finding::new(
                Code::WalkLimit,
                Position::START,
                format!(
                    "stopped after {} files and folders; skills beyond that were not loaded — raise --max-entries or point --root at a smaller folder",
                    limits.max_entries
                ),
            ),
        });
    }
    let (cut, first) = shared
        .depth_cut
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(first) = first {
        out.findings.push(PathFinding {
            path: first,
            finding: Finding::new(
                Code::WalkLimit,
                Position::START,
                format!(
                    "{cut} folder(s) at depth {} were not searched (this is the first) — raise --max-depth if skills live deeper",
                    limits.max_depth
                ),
            ),
        });
    }
    // Skills are put in precedence order by the catalog; only the small
    // lists are sorted here.
    out.namespace_files.sort_by(|a, b| a.path.cmp(&b.path));
    out.tool_catalogs.sort_by(|a, b| a.path.cmp(&b.path));
    out.findings.sort_by(|a, b| {
        (&a.path, a.finding.position.line).cmp(&(&b.path, b.finding.position.line))
    });
    out.findings.dedup();
    out
}

/// Walk `start` (the root, or a symlinked folder inside it whose link sits
/// at depth `offset`) in parallel.
fn walk(
    root_index: usize,
    root: &Path,
    start: &Path,
    offset: usize,
    canonical_root: &Path,
    options: &ScanOptions,
    shared: &Shared,
) {
    let limits = &options.limits;
    let keep = |entry: &walk::Entry<'_>| {
        if entry.depth == 0 {
            return true;
        }
        if entry.kind == walk::Kind::Dir
            && SKIPPED_DIRS
                .iter()
                .any(|skip| entry.name == OsStr::new(skip))
        {
            return false;
        }
        match &options.scope {
            Some(scope) => ScanScope::wanted(scope, entry.path),
            None => true,
        }
    };
    let walk = walk::Walk {
        start,
        max_depth: limits.max_depth.saturating_sub(offset),
        threads: limits.threads,
        keep: &keep,
    };
    walk.run(&|event| {
        if shared.entries.fetch_add(1, Ordering::Relaxed) >= limits.max_entries {
            shared.entry_limit_hit.store(true, Ordering::Relaxed);
            return walk::Flow::Quit;
        }
        match event {
            // The start of a walk through a link was visited as the link.
            walk::Event::Entry(entry) if offset > 0 && entry.depth == 0 => {}
            walk::Event::Entry(entry) => visit(
                root_index,
                root,
                canonical_root,
                offset,
                options,
                shared,
                entry,
            ),
            walk::Event::Unreadable(path, error) => {
                let finding = describe_unreadable(path, &error);
                push(
                    &shared.findings,
                    PathFinding {
                        path: path.to_path_buf(),
                        finding,
                    },
                );
            }
            walk::Event::BadRules(error) => report_walk_error(shared, error),
        }
        walk::Flow::Continue
    });
}

/// Decide what to do with a symlink: queue a folder (unless it loops or was
/// queued before), hand back a file's type, report a dangling link.
fn follow_link(
    path: &Path,
    depth: usize,
    canonical_root: &Path,
    shared: &Shared,
) -> Option<std::fs::FileType> {
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(error) => {
            push(
                &shared.findings,
                PathFinding {
                    path: path.to_path_buf(),
                    finding: broken_link(path, &error),
                },
            );
            return None;
        }
    };
    let target = path.canonicalize().ok()?;
    if !target.starts_with(canonical_root) {
        shared.report(
            path,
            Code::SymlinkOutsideRoot,
            format!(
                "symlink leads outside the root, to {}; followed",
                target.display()
            ),
        );
    }
    if metadata.is_dir() {
        let parent = path.parent().and_then(|p| p.canonicalize().ok());
        if parent.as_deref().is_some_and(|p| p.starts_with(&target)) {
            shared.report(path, Code::SymlinkLoop, format!(
                            "symlink loop: this leads back to {}, which contains it; not followed — remove the link or point it elsewhere",
                            target.display()
                        ));
            return None;
        }
        push(&shared.links, (depth, path.to_path_buf(), target));
        return None;
    }
    Some(metadata.file_type())
}

fn visit(
    root_index: usize,
    root: &Path,
    canonical_root: &Path,
    offset: usize,
    options: &ScanOptions,
    shared: &Shared,
    entry: walk::Entry<'_>,
) {
    let limits = &options.limits;
    let mut kind = entry.kind;
    let path = entry.path;
    let depth = entry.depth + offset;
    let through_link = offset > 0 || kind == walk::Kind::Symlink;
    // A skill file that is a symlink is opened here, once, through the
    // boundary; the read uses that open file.
    let mut linked_skill_file = None;
    if kind == walk::Kind::Symlink && SKILL_FILE_NAMES.iter().any(|n| entry.name == OsStr::new(n)) {
        match open_linked_skill_file(root, path, entry.name) {
            Ok(opened) => linked_skill_file = opened,
            Err(finding) => {
                let path = path.to_path_buf();
                return push(&shared.findings, PathFinding { path, finding });
            }
        }
    }
    // So is a tool snapshot: the same rule for every file the catalog reads.
    let mut linked_snapshot = None;
    if kind == walk::Kind::Symlink && entry.name == OsStr::new(crate::toolcat::SNAPSHOT_FILE) {
        match open_linked_file(root, path, entry.name) {
            Ok(opened) => linked_snapshot = opened,
            Err(target) => {
                let relative = path.strip_prefix(root).unwrap_or(path);
                let folder = relative.parent().map(Path::to_path_buf).unwrap_or_default();
                let hidden = in_hidden_folder(relative);
                let found =
                    tools::outside_tool_catalog(root_index, folder, depth, hidden, path, &target);
                return push(&shared.tool_catalogs, found);
            }
        }
    }
    if kind == walk::Kind::Symlink {
        match follow_link(path, depth, canonical_root, shared) {
            Some(target) => kind = walk::kind_of(target),
            None => return,
        }
    }
    if kind == walk::Kind::Dir {
        if SKILL_FILE_NAMES.iter().any(|n| entry.name == OsStr::new(n)) {
            shared.report(path, Code::NotAFile, "this is a folder, not a regular file; the skill around it was not loaded — replace it with a Markdown file");
        }
        if depth == limits.max_depth && depth > 0 {
            shared.note_depth_cut(path);
        }
        return;
    }
    let name = entry.name;
    let relative = path.strip_prefix(root).unwrap_or(path).to_path_buf();
    if SKILL_FILE_NAMES.iter().any(|n| name == OsStr::new(n)) {
        if kind != walk::Kind::File {
            shared.report(path, Code::NotAFile, "this is not a regular file (a pipe, socket or device?) and was not read — replace it with a Markdown file");
            return;
        }
        let folder_name = folder_name_of(path);
        match read_skill_file(
            &entry,
            linked_skill_file,
            &folder_name,
            options,
            through_link,
        ) {
            Ok(found) => {
                let placement = shared
                    .plugins
                    .place(relative.parent().unwrap_or(Path::new("")));
                let mut parsed = found.parsed;
                let fields = parsed.fields.take();
                let folder_named = fields
                    .as_ref()
                    .and_then(|f| f.name.as_deref())
                    .is_none_or(|name| crate::rules::name_fits_folder(name, &folder_name));
                let skill = skill_of(
                    fields,
                    path,
                    root_index,
                    placement,
                    folder_name,
                    &parsed,
                    found.facts,
                )
                .map(|mut skill| {
                    skill.body = found.body;
                    Arc::new(skill)
                });
                push(
                    &shared.skills,
                    FoundSkill {
                        root: root_index,
                        upper_case_name: name == OsStr::new("SKILL.md"),
                        folder_named,
                        depth,
                        hidden: in_hidden_folder(&relative),
                        path: path.to_path_buf(),
                        identity: found.identity,
                        through_link,
                        linked_target: found.linked_target,
                        skill,
                        findings: parsed.findings,
                    },
                )
            }
            Err(finding) => push(
                &shared.findings,
                PathFinding {
                    path: path.to_path_buf(),
                    finding,
                },
            ),
        }
    } else if name == OsStr::new(crate::toolcat::SNAPSHOT_FILE) {
        let folder = relative.parent().map(Path::to_path_buf).unwrap_or_default();
        let hidden = in_hidden_folder(&relative);
        // A pipe, socket or device is named, never opened.
        let found = if kind == walk::Kind::File {
            tools::read_tool_catalog(root_index, folder, depth, hidden, &entry, linked_snapshot)
        } else {
            tools::special_tool_catalog(root_index, folder, depth, hidden, path)
        };
        push(&shared.tool_catalogs, found);
    } else if NAMESPACE_FILE_NAMES.iter().any(|n| name == OsStr::new(n)) && kind == walk::Kind::File
    {
        let folder = relative.parent().map(Path::to_path_buf).unwrap_or_default();
        let (description, readme_name, finding) = namespace_description(&entry);
        if let Some(finding) = finding {
            push(
                &shared.findings,
                PathFinding {
                    path: path.to_path_buf(),
                    finding,
                },
            );
        }
        push(
            &shared.namespace_files,
            FoundNamespaceFile {
                root: root_index,
                describes: shared.plugins.folder_namespace(&folder),
                folder,
                path: path.to_path_buf(),
                plugin: false,
                description,
                name: readme_name,
            },
        );
    }
    if let Some(visitor) = &options.visitor {
        let is_skill_file = SKILL_FILE_NAMES.iter().any(|n| name == OsStr::new(n));
        if kind == walk::Kind::File && !is_skill_file {
            visitor(VisitedFile {
                path,
                bytes: None,
                through_link,
                entry: Some(&entry),
            });
        }
    }
}

/// Some folder of `relative` (a path inside a root) is hidden.
fn in_hidden_folder(relative: &Path) -> bool {
    relative.parent().is_some_and(|folder| {
        folder.components().any(|c| {
            matches!(c, std::path::Component::Normal(n) if n.as_encoded_bytes().starts_with(b"."))
        })
    })
}

/// The front-matter `description` of a README/index file, and why its
/// front matter did not load when it is broken YAML. Only the head is
/// read, and only files that start with `---` are parsed: most READMEs
/// have no front matter and cost one small read.
fn namespace_description(
    entry: &walk::Entry<'_>,
) -> (Option<String>, Option<String>, Option<Finding>) {
    let Ok(mut file) = entry.open() else {
        return (None, None, None);
    };
    let mut head = Vec::with_capacity(4096);
    if (&mut file).take(4096).read_to_end(&mut head).is_err() {
        return (None, None, None);
    }
    let start = if head.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    if !head[start..].starts_with(b"---")
        || file
            .take((HEAD_BYTES - head.len()) as u64)
            .read_to_end(&mut head)
            .is_err()
    {
        return (None, None, None);
    }
    let (text, _) = parse::decode(&head);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    // A `---` rule opening a README is not front matter: only a block that
    // closes and holds YAML syntax errors is reported.
    let Ok(split) = parse::frontmatter::split(text) else {
        return (None, None, None);
    };
    // Only a block that sets `description` is front matter that describes
    // the namespace; another (a table, prose between two rules) is Markdown.
    let describes = split.yaml.lines().any(|l| {
        l.strip_prefix("description")
            .is_some_and(|rest| rest.trim_start().starts_with(':'))
    });
    if !describes {
        return (None, None, None);
    }
    let (fields, findings) = parse::frontmatter::parse_fields(&split);
    let name = fields
        .as_ref()
        .and_then(|f| f.name.as_deref())
        .map(crate::entry::one_line)
        .filter(|n| !n.is_empty());
    let description = fields
        .and_then(|f| f.description)
        .filter(|d| !d.trim().is_empty())
        .map(|d| crate::entry::one_line(&d));
    let broken = findings
        .into_iter()
        .find(|f| f.code == Code::YamlInvalid)
        .map(|f| {
            Finding::new(
                Code::NamespaceFileInvalid,
                f.position,
                format!(
                    "the front matter of this namespace file does not load ({}), so the namespace gets a default description — fix it, or remove the front matter",
                    f.message
                ),
            )
        });
    (description, name, broken)
}

pub use crate::paths::slash_path;

fn report_walk_error(shared: &Shared, error: ignore::Error) {
    let mut found = Vec::new();
    describe_walk_error(error, None, None, &mut found);
    shared
        .findings
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .extend(found);
}

/// Findings for an ignore file the walk could not fully use: each bad
/// pattern at its line, or the file when it could not be read.
fn describe_walk_error(
    error: ignore::Error,
    path: Option<&Path>,
    line: Option<u64>,
    out: &mut Vec<PathFinding>,
) {
    match error {
        ignore::Error::Partial(errors) => {
            for error in errors {
                describe_walk_error(error, path, line, out);
            }
        }
        ignore::Error::WithDepth { err, .. } => describe_walk_error(*err, path, line, out),
        ignore::Error::WithLineNumber { line, err } => {
            describe_walk_error(*err, path, Some(line), out)
        }
        ignore::Error::WithPath { path, err } => describe_walk_error(*err, Some(&path), line, out),
        other => {
            let position = Position {
                line: line.map_or(1, |l| u32::try_from(l).unwrap_or(u32::MAX)),
                column: 1,
            };
            let message = match &other {
                ignore::Error::Io(_) => format!("could not read this ignore file: {other} — its rules were not applied; check its permissions"),
                _ => format!("this ignore pattern is not valid, so it was skipped: {other} — fix or escape it; the file's other rules still apply"),
            };
            out.push(PathFinding {
                path: path.map(Path::to_path_buf).unwrap_or_default(),
                finding: Finding::new(Code::WalkError, position, message),
            });
        }
    }
}

/// A finding for a path the walk could not read: a dangling link, or a
/// folder it may not list.
fn describe_unreadable(path: &Path, error: &std::io::Error) -> Finding {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    match std::fs::metadata(path) {
        Err(link_error) if is_link => broken_link(path, &link_error),
        _ => Finding::new(
            Code::WalkError,
            Position::START,
            format!(
                "could not search this path: {error} — check that skilldex may read and list it"
            ),
        ),
    }
}

/// A finding for a symlink that cannot be followed (`error` is what
/// following it gave): a loop, a target that does not exist, or one that
/// may not be read.
fn broken_link(path: &Path, error: &std::io::Error) -> Finding {
    let target = std::fs::read_link(path)
        .map(|t| t.display().to_string())
        .unwrap_or_else(|_| "?".into());
    #[cfg(unix)]
    let looped = error.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error());
    #[cfg(not(unix))]
    let looped = false;
    if looped {
        Finding::new(
            Code::SymlinkLoop,
            Position::START,
            format!("symlink loop: its target {target} leads back through links to itself and never reaches a file or folder — fix or delete the link"),
        )
    } else if error.kind() == std::io::ErrorKind::NotFound {
        Finding::new(
            Code::DanglingSymlink,
            Position::START,
            format!(
                "dangling symlink: its target {target} does not exist — fix or delete the link"
            ),
        )
    } else {
        Finding::new(
            Code::WalkError,
            Position::START,
            format!("could not follow this symlink to {target}: {error} — check that skilldex may read its target"),
        )
    }
}
