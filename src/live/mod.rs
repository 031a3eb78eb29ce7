//! The live catalog: a snapshot that follows the roots as files change.
//!
//! ```text
//!  notify (inotify / polling) ──events──▶ debouncer thread ──Rescan──▶ CatalogBuilder::rebuild
//!        callback only forwards          filters, waits for quiet         re-reads what changed
//!                                              │
//!                          swap Arc<Catalog> ◀─┘──▶ Change to every subscriber
//! ```
//!
//! `LiveCatalog` owns one named thread (`skilldex-live`) besides notify's own.
//! The notify callback drops (and counts) events that are not changes —
//! opens, reads and read-only closes, which every scan causes on Linux —
//! and forwards the rest into a channel. The thread drops events inside
//! `.git`, `node_modules` and `target`; the rest become paths to read again
//! (`watch::Watcher::classify`). Before a rebuild reads the disk it waits
//! for notify to have watched the new folders it told of
//! (`watch::Watcher::catch_up`). It rebuilds once the events have been quiet for
//! `WatchOptions::debounce`, or after `max_delay` in a steady stream, or at
//! once on `flush`. A rebuild reads only the touched skill folders and
//! namespace files (see `catalog::incremental`); an overflow of the event
//! queue, a changed ignore file or a root that appears or disappears makes
//! it walk everything.
//!
//! Readers call `snapshot` and get an `Arc<Catalog>`: a rebuild happens
//! outside the lock, and the swap holds it only to replace a pointer. A
//! rebuild that changes nothing visible (same revision) swaps nothing and
//! tells no one.
//!
//! A root that does not exist yet is not an error: its nearest existing
//! ancestor is watched until it appears, and it is walked then.

mod watch;

use crate::catalog::incremental::{RebuildKind, Rescan, Retained};
use crate::catalog::{Catalog, CatalogBuilder, CatalogError};
use crate::entry::{Diagnostic, Skill};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::Duration;

/// How the live catalog watches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchOptions {
    /// Quiet time after the last event before the rebuild starts. Editors
    /// save in several steps (write a temporary file, rename, delete a
    /// backup) within a few milliseconds; this waits them out.
    pub debounce: Duration,
    /// Longest wait from the first event of a burst to its rebuild, so a
    /// steady stream of writes still shows up.
    pub max_delay: Duration,
    /// Poll the filesystem instead of using native events (network and
    /// virtual filesystems that send none).
    pub poll: bool,
    /// Time between two polls. Each poll reads every file under the roots
    /// (modification times alone miss a second save within one second).
    pub poll_interval: Duration,
}

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            debounce: Duration::from_millis(DEFAULT_DEBOUNCE_MS),
            max_delay: Duration::from_millis(250),
            poll: false,
            poll_interval: Duration::from_secs(2),
        }
    }
}

/// The default quiet time, in milliseconds.
pub const DEFAULT_DEBOUNCE_MS: u64 = 50;

/// What one swap changed. Ids are the catalog's ids, sorted.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Change {
    /// The revision now live.
    pub revision: String,
    /// The revision it replaced.
    pub previous: String,
    pub added: Vec<String>,
    /// Skills whose file or directory entry changed (a new version, a new
    /// description, a new path).
    pub changed: Vec<String>,
    pub removed: Vec<String>,
    /// Diagnostics that are new in this revision.
    pub diagnostics: Vec<Diagnostic>,
    /// Skills served from their last good version because their file is
    /// broken (all of them, not only new ones).
    pub stale: Vec<String>,
    /// Skills whose other files (references, scripts) changed while their
    /// skill file did not; sorted. A change of only these keeps the
    /// revision: the catalog is the same, the files behind it are not.
    pub files: Vec<String>,
}

impl Change {
    /// The difference between two snapshots.
    pub fn between(previous: &Catalog, next: &Catalog) -> Change {
        let (old, new) = (previous.skills(), next.skills());
        fn key(s: &Skill) -> (&str, &str) {
            (&s.namespace, &s.id)
        }
        let (mut added, mut changed, mut removed) = (Vec::new(), Vec::new(), Vec::new());
        let (mut i, mut j) = (0, 0);
        while i < old.len() || j < new.len() {
            let order = match (old.get(i), new.get(j)) {
                (Some(a), Some(b)) => key(a).cmp(&key(b)),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            match order {
                std::cmp::Ordering::Less => {
                    removed.push(old[i].id.clone());
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    added.push(new[j].id.clone());
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    if !Arc::ptr_eq(&old[i], &new[j]) && old[i] != new[j] {
                        changed.push(new[j].id.clone());
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        // A skill that moved to another namespace keeps its id: changed.
        added.sort();
        removed.sort();
        let moved: Vec<String> = added
            .iter()
            .filter(|id| removed.binary_search(id).is_ok())
            .cloned()
            .collect();
        added.retain(|id| moved.binary_search(id).is_err());
        removed.retain(|id| moved.binary_search(id).is_err());
        changed.extend(moved);
        changed.sort();
        let diagnostics = new_diagnostics(previous.diagnostics(), next.diagnostics());
        Change {
            revision: next.revision().to_string(),
            previous: previous.revision().to_string(),
            added,
            changed,
            removed,
            diagnostics,
            stale: next.stale().to_vec(),
            files: Vec::new(),
        }
    }

    /// True when no skill was added, changed or removed (only diagnostics,
    /// stale marks or other files moved).
    pub fn skills_unchanged(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty()
    }
}

/// Diagnostics of `next` that `previous` does not have (both sorted).
fn new_diagnostics(previous: &[Diagnostic], next: &[Diagnostic]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut i = 0;
    for diagnostic in next {
        while i < previous.len() && previous[i].sort_key() < diagnostic.sort_key() {
            i += 1;
        }
        if previous.get(i) != Some(diagnostic) {
            out.push(diagnostic.clone());
        }
    }
    out
}

/// Why the live catalog could not start, or what went wrong while it runs.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    #[error("cannot watch {}: the system limit on inotify watches is reached (fs.inotify.max_user_watches = {limit}) — raise it, e.g. `sudo sysctl fs.inotify.max_user_watches=524288` (and in /etc/sysctl.d/ to keep it), or watch by polling (--poll); changes below it may go unseen", .path.display())]
    WatchLimit { path: PathBuf, limit: String },
    #[error("cannot start watching: the system limit on inotify instances is reached (fs.inotify.max_user_instances = {limit}) — raise it, e.g. `sudo sysctl fs.inotify.max_user_instances=512`, stop other programs that watch files, or watch by polling (--poll)")]
    InstanceLimit { limit: String },
    #[error("cannot watch {}: {message}", .path.display())]
    Watch { path: PathBuf, message: String },
    #[error("cannot watch {}: permission denied — let skilldex read and enter it (check its permissions, e.g. `chmod u+rx`); the rest is watched, changes inside it go unseen until then", .path.display())]
    Unreadable { path: PathBuf },
}

/// Counters of what the live catalog did, for tests, `-v` and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LiveStats {
    /// Events received from the watcher.
    pub events: u64,
    /// Of those, events dropped as not being changes (opens, reads,
    /// read-only closes, paths that cannot matter).
    pub ignored: u64,
    /// Rebuilds run.
    pub rebuilds: u64,
    /// Rebuilds that walked whole roots.
    pub full_rescans: u64,
    /// Rebuilds that patched the previous snapshot (the others assembled
    /// the whole snapshot again from the retained files).
    pub patched: u64,
    /// Swaps (new revisions).
    pub swaps: u64,
    /// How long the last rebuild took, and how much of it was walking and
    /// reading files.
    pub last_rebuild: Duration,
    pub last_rebuild_scan: Duration,
}

/// State shared between the handle and the thread.
struct Shared {
    current: RwLock<Arc<Catalog>>,
    subscribers: Mutex<Vec<Sender<Arc<Change>>>>,
    problem_subscribers: Mutex<Vec<Sender<Arc<LiveError>>>>,
    /// Problems met while no one listened (while starting, before the
    /// first `problems` call: folders that could not be watched); each new
    /// problem subscriber gets them first. At most `BACKLOG` are kept.
    backlog: Mutex<Vec<Arc<LiveError>>>,
    /// Shared with notify's callback too, which counts what it drops.
    stats: Arc<Mutex<LiveStats>>,
}

impl Shared {
    fn publish(&self, catalog: Catalog, change: Change) {
        let change = Arc::new(change);
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(catalog);
        self.stats.lock().unwrap_or_else(|e| e.into_inner()).swaps += 1;
        self.subscribers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|s| s.send(change.clone()).is_ok());
    }

    /// Tell the subscribers without a new snapshot.
    fn announce(&self, change: Change) {
        let change = Arc::new(change);
        self.subscribers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|s| s.send(change.clone()).is_ok());
    }

    fn problem(&self, error: LiveError) {
        let error = Arc::new(error);
        let mut subscribers = self
            .problem_subscribers
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        subscribers.retain(|s| s.send(error.clone()).is_ok());
        if subscribers.is_empty() {
            let mut backlog = self.backlog.lock().unwrap_or_else(|e| e.into_inner());
            if backlog.len() < BACKLOG {
                backlog.push(error);
            }
        }
    }

    fn stats(&self) -> std::sync::MutexGuard<'_, LiveStats> {
        self.stats.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Problems kept for a subscriber to come.
const BACKLOG: usize = 1000;

/// Messages to the thread.
enum Message {
    Event(notify::Result<notify::Event>),
    Flush(Sender<()>),
    Stop,
}

/// A catalog that follows its roots. See the module docs.
pub struct LiveCatalog {
    shared: Arc<Shared>,
    control: Sender<Message>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for LiveCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveCatalog")
            .field("revision", &self.snapshot().revision())
            .finish()
    }
}

impl LiveCatalog {
    /// Start watching `builder`'s roots, build the first snapshot and
    /// return once it is live. Roots that do not exist yet are waited for;
    /// a root that is a file is an error, and so is a watcher that cannot
    /// start (inotify limits: the message names the setting to raise).
    pub fn start(builder: CatalogBuilder, options: WatchOptions) -> Result<LiveCatalog, LiveError> {
        for root in builder.roots() {
            if let Ok(metadata) = std::fs::metadata(root) {
                if !metadata.is_dir() {
                    return Err(CatalogError::RootNotADirectory(root.clone()).into());
                }
            }
        }
        let (control, inbox) = mpsc::channel();
        let forward = control.clone();
        let stats = Arc::new(Mutex::new(LiveStats::default()));
        let counted = stats.clone();
        let handler = move |event: notify::Result<notify::Event>| {
            // Opens and reads — every scan, ours or a reader's, sends one
            // per file — are counted and dropped here, without a trip
            // through the thread.
            if event.as_ref().is_ok_and(watch::not_a_change) {
                let mut stats = counted.lock().unwrap_or_else(|e| e.into_inner());
                stats.events += 1;
                stats.ignored += 1;
                return;
            }
            // The callback only forwards; a closed channel means we stopped.
            let _ = forward.send(Message::Event(event));
        };
        // Watch before the first walk, so nothing written during it is missed.
        let mut watcher = watch::Watcher::new(handler, &builder, &options)?;
        let (catalog, retained) = builder.build_retained();
        let mut start_problems = watcher.take_problems();
        start_problems.extend(watcher.note_links(&retained));
        let shared = Arc::new(Shared {
            current: RwLock::new(Arc::new(catalog)),
            subscribers: Mutex::new(Vec::new()),
            problem_subscribers: Mutex::new(Vec::new()),
            backlog: Mutex::new(start_problems.into_iter().map(Arc::new).collect()),
            stats,
        });
        let worker = Worker {
            builder,
            options,
            shared: shared.clone(),
            retained,
            watcher,
            pending: Rescan::default(),
            first_event: None,
            last_event: None,
        };
        let thread = std::thread::Builder::new()
            .name("skilldex-live".into())
            .spawn(move || worker.run(inbox))
            .map_err(|error| LiveError::Watch {
                path: PathBuf::new(),
                message: format!("could not start the watching thread: {error}"),
            })?;
        Ok(LiveCatalog {
            shared,
            control,
            thread: Some(thread),
        })
    }

    /// The snapshot live now. Never waits for a rebuild.
    pub fn snapshot(&self) -> Arc<Catalog> {
        self.shared
            .current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// A channel that receives every later swap, in order.
    pub fn subscribe(&self) -> Receiver<Arc<Change>> {
        let (sender, receiver) = mpsc::channel();
        self.shared
            .subscribers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(sender);
        receiver
    }

    /// A channel that receives problems met while watching (a watch limit
    /// hit on a new folder, a root that can no longer be watched, a folder
    /// that may not be read), those met before anyone listened first.
    pub fn problems(&self) -> Receiver<Arc<LiveError>> {
        let (sender, receiver) = mpsc::channel();
        let mut subscribers = self
            .shared
            .problem_subscribers
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for problem in self
            .shared
            .backlog
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            let _ = sender.send(problem.clone());
        }
        subscribers.push(sender);
        receiver
    }

    /// Rebuild now from the events received so far, without waiting for
    /// quiet; returns once the new snapshot (if any) is live.
    pub fn flush(&self) {
        let (ack, done) = mpsc::channel();
        if self.control.send(Message::Flush(ack)).is_ok() {
            let _ = done.recv();
        }
    }

    pub fn stats(&self) -> LiveStats {
        *self.shared.stats()
    }

    /// Stop watching and wait for the thread to end. Subscribers' channels
    /// close.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        let _ = self.control.send(Message::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        self.shared
            .subscribers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        self.shared
            .problem_subscribers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}

impl Drop for LiveCatalog {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The thread: debounces events and rebuilds.
struct Worker {
    builder: CatalogBuilder,
    options: WatchOptions,
    shared: Arc<Shared>,
    retained: Retained,
    watcher: watch::Watcher,
    pending: Rescan,
    first_event: Option<std::time::Instant>,
    last_event: Option<std::time::Instant>,
}

impl Worker {
    fn run(mut self, inbox: Receiver<Message>) {
        loop {
            let message = match self.deadline() {
                None => match inbox.recv() {
                    Ok(message) => message,
                    Err(_) => return,
                },
                Some(deadline) => {
                    let wait = deadline.saturating_duration_since(std::time::Instant::now());
                    match inbox.recv_timeout(wait) {
                        Ok(message) => message,
                        Err(mpsc::RecvTimeoutError::Timeout) => {
                            self.rebuild();
                            continue;
                        }
                        Err(mpsc::RecvTimeoutError::Disconnected) => return,
                    }
                }
            };
            match message {
                Message::Event(event) => self.receive(event),
                Message::Flush(ack) => {
                    // Take in what already arrived, then rebuild.
                    let mut acks = vec![ack];
                    let mut stop = false;
                    while let Ok(message) = inbox.try_recv() {
                        match message {
                            Message::Event(event) => self.receive(event),
                            Message::Flush(ack) => acks.push(ack),
                            Message::Stop => stop = true,
                        }
                    }
                    self.rebuild();
                    for ack in acks {
                        let _ = ack.send(());
                    }
                    if stop {
                        return;
                    }
                }
                Message::Stop => return,
            }
        }
    }

    /// When the pending events are due, if any are pending.
    fn deadline(&self) -> Option<std::time::Instant> {
        let (first, last) = (self.first_event?, self.last_event?);
        Some((last + self.options.debounce).min(first + self.options.max_delay))
    }

    fn receive(&mut self, event: notify::Result<notify::Event>) {
        let relevant = match event {
            Ok(event) => self
                .watcher
                .classify(&event, &self.retained, &mut self.pending),
            Err(error) => {
                if let Some(problem) = self.watcher.runtime_error(error, &mut self.pending) {
                    self.shared.problem(problem);
                }
                true
            }
        };
        let mut stats = self.shared.stats();
        stats.events += 1;
        if !relevant {
            stats.ignored += 1;
            return;
        }
        drop(stats);
        let now = std::time::Instant::now();
        self.first_event.get_or_insert(now);
        self.last_event = Some(now);
    }

    fn rebuild(&mut self) {
        self.first_event = None;
        self.last_event = None;
        for problem in self
            .watcher
            .update_roots(&self.builder, &self.retained, &mut self.pending)
        {
            self.shared.problem(problem);
        }
        let files = std::mem::take(&mut self.pending.files);
        let previous = self
            .shared
            .current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if self.pending.is_empty() {
            let files = skills_in(&previous, &files);
            if !files.is_empty() {
                let mut change = Change::between(&previous, &previous);
                change.files = files;
                self.shared.announce(change);
            }
            return;
        }
        // Walk only once the folders already told of are watched.
        self.watcher.catch_up();
        let rescan = std::mem::take(&mut self.pending);
        let full = !rescan.whole.is_empty();
        let (catalog, kind) = self.builder.rebuild(&previous, &mut self.retained, rescan);
        let mut problems = self.watcher.note_links(&self.retained);
        problems.extend(self.watcher.take_problems());
        for problem in problems {
            self.shared.problem(problem);
        }
        {
            let mut stats = self.shared.stats();
            stats.rebuilds += 1;
            stats.full_rescans += u64::from(full);
            stats.patched += u64::from(kind == RebuildKind::Patched);
            stats.last_rebuild = catalog.stats().total;
            stats.last_rebuild_scan = catalog.stats().scan;
        }
        let mut files = skills_in(&catalog, &files);
        if catalog.revision() == previous.revision() {
            // Nothing is published, so nothing of `catalog` is told either.
            if !files.is_empty() {
                let mut change = Change::between(&previous, &previous);
                change.files = files;
                self.shared.announce(change);
            }
            return;
        }
        let mut change = Change::between(&previous, &catalog);
        files.retain(|id| !change.added.contains(id) && !change.changed.contains(id));
        change.files = files;
        drop(previous);
        self.shared.publish(catalog, change);
    }
}

/// Ids of the skills of `catalog` whose folder is one of `folders`, sorted.
fn skills_in(catalog: &Catalog, folders: &std::collections::BTreeSet<PathBuf>) -> Vec<String> {
    if folders.is_empty() {
        return Vec::new();
    }
    let mut ids: Vec<String> = catalog
        .skills()
        .iter()
        .filter(|s| folders.contains(s.dir()))
        .map(|s| s.id.clone())
        .collect();
    ids.sort();
    ids
}
