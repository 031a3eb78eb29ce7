//! The watcher side of the live catalog: what is watched, and what an event
//! means for the catalog.
//!
//! Each root that exists is watched recursively (symlinked folders
//! included: notify follows them, and links that appear later are added
//! after the rebuild that finds them). A root that does not exist is
//! waited for by watching its nearest existing ancestor, not recursively.
//!
//! An event counts only if it may change a file's content or a folder's
//! entries: creations, modifications, removals, renames and closes after
//! writing. Opens, reads and read-only closes — every scan of ours causes
//! them — are dropped, and so is anything under `.git`, `node_modules` or
//! `target`. A path that counts becomes a `ScanScope` of the catalog's own
//! path form (the root as given, joined with the path inside it):
//! - a skill file: both skill file names of its folder (`SKILL.md` wins
//!   over `skill.md`, so either may change which one loads);
//! - a namespace file (`README.md`, `index.md`): that file;
//! - a folder, or a path that is gone but held something: everything below;
//! - `.gitignore` / `.ignore`: the whole root (what they hide may be anywhere);
//! - a plugin manifest or marketplace: the whole root (it names namespaces);
//! - any other file: nothing, unless bodies are checked (then its skill),
//!   or the last walk reported something about it (a dangling link).
//!
//! Backup and swap files of editors (`SKILL.md~`, `.SKILL.md.swp`, vim's
//! `4913` probe) are other files: they cost no rebuild.

use super::{LiveError, WatchOptions};
use crate::catalog::incremental::{Rescan, Retained};
use crate::catalog::CatalogBuilder;
use crate::scan::{ScanScope, NAMESPACE_FILE_NAMES, SKILL_FILE_NAMES, SKIPPED_DIRS};
use notify::event::{AccessKind, AccessMode, ModifyKind};
use notify::{EventKind, RecursiveMode};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// `EMFILE`: `inotify_init` fails with it when the per-user instance limit
/// is reached (Linux).
const EMFILE: i32 = 24;

/// Where a root stands.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Watching {
    /// The root itself, recursively.
    Root,
    /// Its nearest existing ancestor, waiting for the root to appear.
    Ancestor(PathBuf),
    /// Nothing could be watched (reported as a problem).
    Nothing,
}

#[derive(Debug)]
struct RootWatch {
    /// As given to the builder: the catalog's paths start with it.
    path: PathBuf,
    /// What notify reports paths under.
    absolute: PathBuf,
    /// With symlinks resolved, to match symlink targets.
    canonical: Option<PathBuf>,
    watching: Watching,
    /// The root's parent folder, watched (not recursively) beside the
    /// root: a root that is a symlink retargeted (`ln -sfn v2 current`),
    /// or a folder swapped for a link, changes only there.
    parent: Option<PathBuf>,
    /// An event touched the root or a folder above it.
    check: bool,
    /// The root folder itself was removed or renamed: watch it again.
    rewatch: bool,
    /// Folders below the root that could not be watched (no permission to
    /// read them), absolute; everything around them is watched.
    locked: BTreeSet<PathBuf>,
}

pub(super) struct Watcher {
    inner: Box<dyn notify::Watcher + Send>,
    roots: Vec<RootWatch>,
    check_bodies: bool,
    /// Symlinked folders watched (absolute link paths).
    links: BTreeSet<PathBuf>,
    /// Problems met while (re)establishing watches, not yet handed out.
    problems: Vec<LiveError>,
    /// Folders the poller could not read that were already reported.
    reported: BTreeSet<PathBuf>,
}

impl Watcher {
    pub fn new<F>(
        handler: F,
        builder: &CatalogBuilder,
        options: &WatchOptions,
    ) -> Result<Watcher, LiveError>
    where
        F: notify::EventHandler,
    {
        let inner: Box<dyn notify::Watcher + Send> = if options.poll {
            // The poller compares modification times in whole seconds, so a
            // second save within the same second would go unseen: compare
            // contents too (each poll reads the files; skill files are small).
            let config = notify::Config::default()
                .with_poll_interval(options.poll_interval)
                .with_compare_contents(true)
                .with_follow_symlinks(true);
            Box::new(notify::PollWatcher::new(handler, config).map_err(start_error)?)
        } else {
            let config = notify::Config::default().with_follow_symlinks(true);
            Box::new(
                <notify::RecommendedWatcher as notify::Watcher>::new(handler, config)
                    .map_err(start_error)?,
            )
        };
        let mut watcher = Watcher {
            inner,
            roots: Vec::new(),
            check_bodies: builder.checks_bodies(),
            links: BTreeSet::new(),
            problems: Vec::new(),
            reported: BTreeSet::new(),
        };
        for root in builder.roots() {
            let absolute = std::path::absolute(root).unwrap_or_else(|_| root.clone());
            watcher.roots.push(RootWatch {
                path: root.clone(),
                canonical: root.canonicalize().ok(),
                absolute,
                watching: Watching::Nothing,
                parent: None,
                check: false,
                rewatch: false,
                locked: BTreeSet::new(),
            });
        }
        for index in 0..watcher.roots.len() {
            watcher.establish(index)?;
        }
        Ok(watcher)
    }

    /// Watch root `index`, or the nearest ancestor it would appear in.
    fn establish(&mut self, index: usize) -> Result<(), LiveError> {
        self.release(index);
        let root = &self.roots[index];
        let absolute = root.absolute.clone();
        if absolute.is_dir() {
            self.roots[index].canonical = absolute.canonicalize().ok();
            self.watch_around_locked(index, &absolute)?;
            self.roots[index].watching = Watching::Root;
            if let Some(parent) = absolute.parent().filter(|p| p.is_dir()) {
                let parent = parent.to_path_buf();
                if !self.folder_in_use(&parent, index) {
                    // Best effort: without it only a retarget goes unseen.
                    let _ = self.inner.watch(&parent, RecursiveMode::NonRecursive);
                }
                self.roots[index].parent = Some(parent);
            }
            return Ok(());
        }
        let mut ancestor = absolute.parent();
        while let Some(folder) = ancestor {
            if folder.is_dir() {
                break;
            }
            ancestor = folder.parent();
        }
        let Some(ancestor) = ancestor.map(Path::to_path_buf) else {
            return Ok(());
        };
        // An ancestor inside another watched root already sends its events.
        let covered = self.roots.iter().enumerate().any(|(other, r)| {
            other != index && r.watching == Watching::Root && ancestor.starts_with(&r.absolute)
        });
        if !covered && !self.ancestor_in_use(&ancestor, index) {
            self.inner
                .watch(&ancestor, RecursiveMode::NonRecursive)
                .map_err(|e| watch_error(&ancestor, e))?;
        }
        self.roots[index].watching = Watching::Ancestor(ancestor);
        Ok(())
    }

    /// Watch root `index` (at `root`) recursively, going round folders
    /// below it that may not be read: each is reported once (by path, with
    /// what to do) and the rest of the tree is watched. Only a root that
    /// cannot be watched at all is an error.
    fn watch_around_locked(&mut self, index: usize, root: &Path) -> Result<(), LiveError> {
        let mut locked = BTreeSet::new();
        let mut visited = BTreeSet::new();
        self.watch_tree(root, root, &mut locked, &mut visited)?;
        for folder in &locked {
            if !self.roots[index].locked.contains(folder) {
                self.problems.push(LiveError::Unreadable {
                    path: folder.clone(),
                });
            }
        }
        self.roots[index].locked = locked;
        Ok(())
    }

    /// Watch `folder` and everything below it. notify walks the tree and
    /// stops at the first folder it may not read, keeping the watches it
    /// added before (the folder itself comes first); so on such an error
    /// each sub-folder is watched the same way, and the locked one is noted.
    fn watch_tree(
        &mut self,
        root: &Path,
        folder: &Path,
        locked: &mut BTreeSet<PathBuf>,
        visited: &mut BTreeSet<PathBuf>,
    ) -> Result<(), LiveError> {
        let error = match self.inner.watch(folder, RecursiveMode::Recursive) {
            Ok(()) => return Ok(()),
            Err(error) => error,
        };
        let Some(at) = denied_path(&error) else {
            return Err(watch_error(folder, error));
        };
        if at == folder || !at.starts_with(folder) {
            if folder == root {
                return Err(watch_error(folder, error));
            }
            locked.insert(at);
            return Ok(());
        }
        // A symlink loop leads back to a folder already gone round.
        if let Ok(canonical) = folder.canonicalize() {
            if !visited.insert(canonical) {
                return Ok(());
            }
        }
        let Ok(entries) = std::fs::read_dir(folder) else {
            locked.insert(folder.to_path_buf());
            return Ok(());
        };
        let mut children: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.is_dir())
            .collect();
        children.sort();
        for child in children {
            self.watch_tree(root, &child, locked, visited)?;
        }
        Ok(())
    }

    /// Return once notify has handled every event it handed out so far.
    /// inotify watches a new folder only after handing out the batch that
    /// told of it, and a flood of other events (opens of every file read)
    /// keeps that batch going: a walk of the folder before then may find it
    /// empty, and the files written into it meanwhile send no event. So a
    /// rebuild waits for this first; a request goes through notify's loop
    /// only between batches.
    pub fn catch_up(&mut self) {
        let _ = self.inner.configure(notify::Config::default());
    }

    /// Problems met since the last call (folders that could not be
    /// watched), each once.
    pub fn take_problems(&mut self) -> Vec<LiveError> {
        std::mem::take(&mut self.problems)
    }

    /// Whether `folder` is already watched for another root: as its
    /// parent, as the ancestor it waits in, or inside a root watched whole.
    fn folder_in_use(&self, folder: &Path, except: usize) -> bool {
        self.ancestor_in_use(folder, except)
            || self.roots.iter().enumerate().any(|(other, r)| {
                other != except
                    && (r.parent.as_deref() == Some(folder)
                        || r.watching == Watching::Root && folder.starts_with(&r.absolute))
            })
    }

    fn ancestor_in_use(&self, ancestor: &Path, except: usize) -> bool {
        self.roots.iter().enumerate().any(|(other, r)| {
            other != except && matches!(&r.watching, Watching::Ancestor(a) if a == ancestor)
        })
    }

    /// Stop the watch of root `index` (errors ignored: a removed folder's
    /// watch is already gone).
    fn release(&mut self, index: usize) {
        if let Some(parent) = self.roots[index].parent.take() {
            if !self.folder_in_use(&parent, index) {
                let _ = self.inner.unwatch(&parent);
            }
        }
        match std::mem::replace(&mut self.roots[index].watching, Watching::Nothing) {
            Watching::Root => {
                let _ = self.inner.unwatch(&self.roots[index].absolute);
            }
            Watching::Ancestor(ancestor) => {
                let inside_root = self
                    .roots
                    .iter()
                    .any(|r| r.watching == Watching::Root && ancestor.starts_with(&r.absolute));
                if !inside_root && !self.folder_in_use(&ancestor, index) {
                    let _ = self.inner.unwatch(&ancestor);
                }
            }
            Watching::Nothing => {}
        }
    }

    /// Turn one event into paths to read again. Returns whether it counted.
    pub fn classify(
        &mut self,
        event: &notify::Event,
        retained: &Retained,
        pending: &mut Rescan,
    ) -> bool {
        if event.need_rescan() {
            // Events were lost: walk everything, and look at the roots again.
            pending.whole.extend(0..self.roots.len());
            for root in &mut self.roots {
                root.check = true;
            }
            return true;
        }
        if not_a_change(event) {
            return false;
        }
        let moved_or_removed = matches!(
            event.kind,
            EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(_))
        );
        let mut relevant = false;
        for path in &event.paths {
            relevant |= self.touch(path, moved_or_removed, retained, pending);
        }
        relevant
    }

    fn touch(
        &mut self,
        path: &Path,
        moved_or_removed: bool,
        retained: &Retained,
        pending: &mut Rescan,
    ) -> bool {
        let mut relevant = false;
        let mut touched = Vec::new();
        for (index, root) in self.roots.iter_mut().enumerate() {
            if root.absolute.starts_with(path) {
                // The root or a folder above it: it may have appeared or gone.
                root.check = true;
                if path == root.absolute {
                    root.rewatch |= moved_or_removed;
                    pending.whole.insert(index);
                }
                relevant = true;
                continue;
            }
            let Ok(relative) = path.strip_prefix(&root.absolute) else {
                continue;
            };
            if root.locked.contains(path) {
                // Its permissions may have changed: try to watch it again.
                root.check = true;
                root.rewatch = true;
                relevant = true;
            }
            if relative
                .components()
                .any(|c| SKIPPED_DIRS.iter().any(|skip| c.as_os_str() == *skip))
            {
                continue;
            }
            touched.push((index, relative.to_path_buf()));
        }
        // A file elsewhere in a root that a `SKILL.md` links to.
        for (index, skill_file) in retained.skill_files_linked_to(path) {
            relevant |= scope(index, &skill_file, self.check_bodies, retained, pending);
        }
        for (index, relative) in touched {
            let scoped = self.roots[index].path.join(&relative);
            relevant |= scope(index, &scoped, self.check_bodies, retained, pending);
            for (other, alias) in self.aliases(index, &relative, &scoped, retained) {
                relevant |= scope(other, &alias, self.check_bodies, retained, pending);
            }
        }
        relevant
    }

    /// The same path reached through a symlinked folder, or the real path
    /// behind one: a file seen through two paths is watched under one of
    /// them, and the catalog may know it under the other.
    fn aliases(
        &self,
        root: usize,
        relative: &Path,
        scoped: &Path,
        retained: &Retained,
    ) -> Vec<(usize, PathBuf)> {
        let mut out = Vec::new();
        let real = self.roots[root]
            .canonical
            .as_ref()
            .map(|canonical| canonical.join(relative));
        for (link_root, link) in retained.links() {
            if link_root == root {
                if let Ok(rest) = scoped.strip_prefix(&link.link) {
                    let target = link.target.join(rest);
                    for (other, watch) in self.roots.iter().enumerate() {
                        if let Some(inside) = watch
                            .canonical
                            .as_ref()
                            .and_then(|c| target.strip_prefix(c).ok())
                        {
                            out.push((other, watch.path.join(inside)));
                        }
                    }
                }
            }
            if let Some(rest) = real
                .as_ref()
                .and_then(|r| r.strip_prefix(&link.target).ok())
            {
                out.push((link_root, link.link.join(rest)));
            }
        }
        out.retain(|(r, p)| !(*r == root && p == scoped));
        out.sort();
        out.dedup();
        out
    }

    /// A watcher error met while running: a watch limit is a problem to
    /// report; anything else may have lost events, so walk everything.
    pub fn runtime_error(
        &mut self,
        error: notify::Error,
        pending: &mut Rescan,
    ) -> Option<LiveError> {
        if matches!(error.kind, notify::ErrorKind::MaxFilesWatch) {
            let path = error.paths.first().cloned().unwrap_or_default();
            return Some(watch_error(&path, error));
        }
        // The poller meets a folder it may not read on every poll: tell it
        // once; nothing was lost, so nothing is walked again.
        if let Some(path) = denied_path(&error) {
            if self.roots.iter().any(|r| path.starts_with(&r.absolute)) {
                return self
                    .reported
                    .insert(path.clone())
                    .then_some(LiveError::Unreadable { path });
            }
        }
        pending.whole.extend(0..self.roots.len());
        None
    }

    /// Look again at roots an event touched: watch a root that appeared,
    /// wait for one that went. Marks roots to walk whole.
    pub fn update_roots(
        &mut self,
        _builder: &CatalogBuilder,
        retained: &Retained,
        pending: &mut Rescan,
    ) -> Vec<LiveError> {
        let mut problems = Vec::new();
        for index in 0..self.roots.len() {
            let root = &mut self.roots[index];
            let exists = root.absolute.is_dir();
            if exists != retained.is_present(index) {
                pending.whole.insert(index);
                root.check = true;
            }
            if !std::mem::take(&mut root.check) {
                continue;
            }
            let rewatch = std::mem::take(&mut root.rewatch);
            let settled = match &root.watching {
                // A symlinked root that now leads elsewhere is watched anew.
                Watching::Root => {
                    exists && !rewatch && root.canonical == root.absolute.canonicalize().ok()
                }
                Watching::Ancestor(ancestor) => {
                    !exists && nearest_existing(&root.absolute).as_deref() == Some(ancestor)
                }
                Watching::Nothing => false,
            };
            if settled {
                continue;
            }
            pending.whole.insert(index);
            if let Err(problem) = self.establish(index) {
                problems.push(problem);
            }
        }
        problems.append(&mut self.problems);
        problems
    }

    /// Watch symlinked folders the last walk followed that are not watched
    /// yet (links made after the start), forget those that went.
    pub fn note_links(&mut self, retained: &Retained) -> Vec<LiveError> {
        let mut problems = Vec::new();
        let current: BTreeSet<PathBuf> = retained
            .links()
            .filter_map(|(root, link)| {
                let watch = self.roots.get(root)?;
                let inside = link.link.strip_prefix(&watch.path).ok()?;
                Some(watch.absolute.join(inside))
            })
            .collect();
        for gone in self.links.difference(&current) {
            let _ = self.inner.unwatch(gone);
        }
        for new in current.difference(&self.links) {
            if let Err(error) = self.inner.watch(new, RecursiveMode::Recursive) {
                problems.push(watch_error(new, error));
            }
        }
        self.links = current;
        problems
    }
}

/// An open, a read or a read-only close: nothing changed. (An overflow is
/// an `Other` event too, flagged: that one counts.)
pub(super) fn not_a_change(event: &notify::Event) -> bool {
    match event.kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => false,
        EventKind::Access(_) | EventKind::Other => !event.need_rescan(),
        EventKind::Any | EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) => {
            false
        }
    }
}

/// The path a watch was refused for lack of permission, if that is what
/// `error` says.
fn denied_path(error: &notify::Error) -> Option<PathBuf> {
    match &error.kind {
        notify::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::PermissionDenied => {
            error.paths.first().cloned()
        }
        _ => None,
    }
}

/// The nearest folder at or above `path` that exists.
fn nearest_existing(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .skip(1)
        .find(|a| a.is_dir())
        .map(Path::to_path_buf)
}

/// Add what an event at `path` (in root `root`'s path form) means to
/// `pending`. Returns whether it means anything.
fn scope(
    root: usize,
    path: &Path,
    check_bodies: bool,
    retained: &Retained,
    pending: &mut Rescan,
) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    // A plugin manifest names the namespace of every skill in its plugin.
    let manifest = (name == crate::plugin::MANIFEST_FILE
        || name == crate::plugin::MARKETPLACE_FILE)
        && path
            .parent()
            .and_then(Path::file_name)
            .and_then(|d| d.to_str())
            .is_some_and(|d| crate::plugin::MANIFEST_DIRS.contains(&d));
    if name == ".gitignore" || name == ".ignore" || manifest {
        pending.whole.insert(root);
        return true;
    }
    let scopes = pending.scopes.entry(root).or_default();
    let file = |path: PathBuf| ScanScope {
        path,
        subtree: false,
    };
    let skill_files = |folder: &Path| -> Vec<ScanScope> {
        SKILL_FILE_NAMES
            .iter()
            .map(|n| file(folder.join(n)))
            .collect()
    };
    if SKILL_FILE_NAMES.contains(&name) {
        if let Some(folder) = path.parent() {
            scopes.extend(skill_files(folder));
        }
        return true;
    }
    let mut relevant = false;
    // A namespace file describes its folder's skills or tool server; a
    // tool catalog is a server.
    if NAMESPACE_FILE_NAMES.contains(&name) || name == crate::toolcat::SNAPSHOT_FILE {
        scopes.push(file(path.to_path_buf()));
        relevant = true;
    }
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    match std::fs::metadata(path) {
        Ok(metadata) if metadata.is_dir() => {
            scopes.push(ScanScope {
                path: path.to_path_buf(),
                subtree: true,
            });
            // A folder in a skill (`references/`, copied or moved in whole):
            // the files in it may land before it is watched, so the skill's
            // files changed.
            if let Some(folder) = retained.skill_folder_of(root, path) {
                pending.files.insert(folder);
            }
            return true;
        }
        Ok(_) => {
            if is_link || retained.knows_about(root, path) {
                scopes.push(file(path.to_path_buf()));
                relevant = true;
            }
        }
        Err(_) => {
            // Gone, or a dangling link: read again whatever was known there.
            if is_link || retained.knows_about(root, path) {
                scopes.push(ScanScope {
                    path: path.to_path_buf(),
                    subtree: true,
                });
                relevant = true;
            }
        }
    }
    // A file of a skill (a reference, a script): its skill's files changed.
    // Editors' swap, backup and probe files are not the skill's files.
    if let Some(folder) = retained.skill_folder_of(root, path) {
        if check_bodies {
            // The body may link to it: check that skill again.
            scopes.extend(skill_files(&folder));
            relevant = true;
        }
        if !editor_scratch(name) {
            pending.files.insert(folder);
            relevant = true;
        }
    }
    if scopes.is_empty() {
        pending.scopes.remove(&root);
    }
    relevant
}

fn limit(name: &str) -> String {
    std::fs::read_to_string(format!("/proc/sys/fs/inotify/{name}"))
        .map(|v| v.trim().to_string())
        .unwrap_or_else(|_| "unknown".to_string())
}

/// An error from creating the watcher.
fn start_error(error: notify::Error) -> LiveError {
    match &error.kind {
        notify::ErrorKind::Io(io) if io.raw_os_error() == Some(EMFILE) => {
            LiveError::InstanceLimit {
                limit: limit("max_user_instances"),
            }
        }
        _ => watch_error(Path::new(""), error),
    }
}

/// An error from watching `path`.
pub(super) fn watch_error(path: &Path, error: notify::Error) -> LiveError {
    match error.kind {
        notify::ErrorKind::MaxFilesWatch => LiveError::WatchLimit {
            path: path.to_path_buf(),
            limit: limit("max_user_watches"),
        },
        notify::ErrorKind::Io(io) if io.raw_os_error() == Some(EMFILE) => {
            LiveError::InstanceLimit {
                limit: limit("max_user_instances"),
            }
        }
        notify::ErrorKind::Io(io) => LiveError::Watch {
            path: path.to_path_buf(),
            message: io.to_string(),
        },
        other => LiveError::Watch {
            path: path.to_path_buf(),
            message: notify::Error::new(other).to_string(),
        },
    }
}

/// Files editors write next to the one being edited: vim's swap files
/// (`.SKILL.md.swp`, `.swo`, …) and `4913` probe, backups (`SKILL.md~`),
/// emacs's lock and autosave files (`.#SKILL.md`, `#SKILL.md#`).
fn editor_scratch(name: &str) -> bool {
    let vim_swap =
        name.starts_with('.') && name.len() > 4 && name.is_char_boundary(name.len() - 4) && {
            let tail = &name[name.len() - 4..];
            tail.starts_with(".sw") && tail.as_bytes()[3].is_ascii_lowercase()
        };
    vim_swap
        || name == "4913"
        || name.ends_with('~')
        || name.starts_with(".#")
        || (name.len() > 1 && name.starts_with('#') && name.ends_with('#'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{CreateKind, Flag};

    fn watcher(root: &Path) -> Watcher {
        let builder = CatalogBuilder::new([root]);
        Watcher::new(|_| {}, &builder, &WatchOptions::default()).unwrap()
    }

    #[test]
    fn reads_do_not_count_and_an_overflow_rereads_everything() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().join("skills");
        std::fs::create_dir_all(root.join("pdf")).unwrap();
        let file = root.join("pdf/SKILL.md");
        std::fs::write(&file, "x").unwrap();
        let mut watcher = watcher(&root);
        let retained = Retained::default();
        let mut pending = Rescan::default();
        for kind in [
            EventKind::Access(AccessKind::Open(AccessMode::Any)),
            EventKind::Access(AccessKind::Read),
            EventKind::Access(AccessKind::Close(AccessMode::Read)),
            EventKind::Other,
        ] {
            let event = notify::Event::new(kind).add_path(file.clone());
            assert!(not_a_change(&event), "{kind:?}");
            assert!(
                !watcher.classify(&event, &retained, &mut pending),
                "{kind:?}"
            );
        }
        assert!(pending.is_empty());
        let write = notify::Event::new(EventKind::Access(AccessKind::Close(AccessMode::Write)))
            .add_path(file.clone());
        assert!(watcher.classify(&write, &retained, &mut pending));
        assert_eq!(pending.scopes[&0].len(), 2, "{pending:?}");
        assert!(pending.whole.is_empty());

        // Backup and swap files: nothing to read again.
        let mut pending = Rescan::default();
        for name in ["SKILL.md~", ".SKILL.md.swp", "4913"] {
            std::fs::write(root.join("pdf").join(name), "x").unwrap();
            let event = notify::Event::new(EventKind::Create(CreateKind::File))
                .add_path(root.join("pdf").join(name));
            assert!(!watcher.classify(&event, &retained, &mut pending), "{name}");
        }
        assert!(pending.is_empty(), "{pending:?}");

        let overflow = notify::Event::new(EventKind::Other).set_flag(Flag::Rescan);
        assert!(!not_a_change(&overflow), "it must reach the thread");
        assert!(watcher.classify(&overflow, &retained, &mut pending));
        assert!(pending.whole.contains(&0));
        // So does a new ignore file.
        let mut pending = Rescan::default();
        let event = notify::Event::new(EventKind::Create(CreateKind::File))
            .add_path(root.join("pdf/.gitignore"));
        assert!(watcher.classify(&event, &retained, &mut pending));
        assert!(pending.whole.contains(&0));
    }

    #[test]
    fn a_skills_other_files_are_told_apart_from_editor_scratch() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().join("skills");
        std::fs::create_dir_all(root.join("pdf")).unwrap();
        std::fs::write(
            root.join("pdf/SKILL.md"),
            "---\nname: pdf\ndescription: PDFs. Use when a PDF is given.\n---\n",
        )
        .unwrap();
        let builder = CatalogBuilder::new([&root]);
        let (_, retained) = builder.build_retained();
        let mut watcher = watcher(&root);
        let create =
            |path: PathBuf| notify::Event::new(EventKind::Create(CreateKind::File)).add_path(path);
        // Swap, backup, probe and lock files of editors: nothing to tell.
        let mut pending = Rescan::default();
        for name in [
            "SKILL.md~",
            ".SKILL.md.swp",
            ".SKILL.md.swo",
            "4913",
            ".#SKILL.md",
            "#SKILL.md#",
        ] {
            let path = root.join("pdf").join(name);
            std::fs::write(&path, "x").unwrap();
            assert!(
                !watcher.classify(&create(path), &retained, &mut pending),
                "{name}"
            );
        }
        assert!(
            pending.files.is_empty() && pending.is_empty(),
            "{pending:?}"
        );
        // A reference file: the skill's files changed, nothing to read again.
        let notes = root.join("pdf/notes.md");
        std::fs::write(&notes, "x").unwrap();
        assert!(watcher.classify(&create(notes), &retained, &mut pending));
        assert_eq!(
            pending.files.iter().collect::<Vec<_>>(),
            [&root.join("pdf")]
        );
        assert!(pending.is_empty(), "{pending:?}");
        // A folder copied in whole: the same, plus a walk of it.
        let mut pending = Rescan::default();
        std::fs::create_dir_all(root.join("pdf/references")).unwrap();
        let folder = notify::Event::new(EventKind::Create(CreateKind::Folder))
            .add_path(root.join("pdf/references"));
        assert!(watcher.classify(&folder, &retained, &mut pending));
        assert_eq!(
            pending.files.iter().collect::<Vec<_>>(),
            [&root.join("pdf")]
        );
        assert!(!pending.is_empty());
    }

    #[test]
    fn catching_up_waits_until_a_new_folder_is_watched() {
        use std::sync::mpsc;
        use std::time::{Duration, Instant};
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().join("skills");
        std::fs::create_dir_all(&root).unwrap();
        let folder = root.join("new");
        // The handler holds notify's loop at the event of the new folder,
        // before notify watches it, until the gate opens.
        let (told, events) = mpsc::channel();
        let (open, gate) = mpsc::channel::<()>();
        let held = folder.clone();
        let handler = move |event: notify::Result<notify::Event>| {
            let Ok(event) = event else { return };
            let hold = event.kind.is_create() && event.paths.contains(&held);
            let _ = told.send(event);
            if hold {
                let _ = gate.recv();
            }
        };
        let builder = CatalogBuilder::new([&root]);
        let mut watcher = Watcher::new(handler, &builder, &WatchOptions::default()).unwrap();
        std::fs::create_dir(&folder).unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        let seen = |path: &Path| loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match events.recv_timeout(left) {
                Ok(event) if event.kind.is_create() && event.paths.iter().any(|p| p == path) => {
                    break;
                }
                Ok(_) => {}
                Err(_) => panic!("no event for {}", path.display()),
            }
        };
        seen(&folder);
        let (done, caught_up) = mpsc::channel();
        let waiting = std::thread::spawn(move || {
            watcher.catch_up();
            done.send(()).unwrap();
            watcher
        });
        // Held at the folder's event, notify has not watched it yet.
        assert!(caught_up.recv_timeout(Duration::from_millis(300)).is_err());
        open.send(()).unwrap();
        caught_up.recv_timeout(Duration::from_secs(30)).unwrap();
        let _watcher = waiting.join().unwrap();
        // Now watched: a file written into it is told of.
        std::fs::write(folder.join("SKILL.md"), "x").unwrap();
        seen(&folder.join("SKILL.md"));
    }

    #[test]
    fn watch_limits_name_the_setting_to_raise() {
        let error = watch_error(
            Path::new("/skills"),
            notify::Error::new(notify::ErrorKind::MaxFilesWatch),
        );
        let message = error.to_string();
        assert!(message.contains("fs.inotify.max_user_watches"), "{message}");
        assert!(message.contains("/skills"), "{message}");
        assert!(message.contains("--poll"), "{message}");
        let error = start_error(notify::Error::io(std::io::Error::from_raw_os_error(EMFILE)));
        let message = error.to_string();
        assert!(
            message.contains("fs.inotify.max_user_instances"),
            "{message}"
        );
    }
}
