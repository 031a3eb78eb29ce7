//! The folder walk under a scan: every entry below a start folder, handed to
//! a callback from a few threads, with the tree's `.gitignore` and `.ignore`
//! rules applied.
//!
//! This replaces `ignore`'s own parallel walker (DESIGN §12 allows a swap
//! kept inside one module) for one reason: on Unix every folder and file is
//! opened relative to its open parent folder (`openat`), so the system looks
//! up one name instead of the whole path, and folders are listed with
//! `getdents` and no `stat` per folder. Most of a scan's time is spent in the
//! kernel, and on a 10,000-skill tree this is what brings `render` well
//! under ripgrep's time. The rules themselves still come from `ignore`
//! (`Gitignore`), with its precedence: the deepest folder's rule wins, and
//! an `.ignore` rule beats a `.gitignore` one. As configured for skilldex,
//! the walk never reads rules above the start, the user's global excludes
//! or `.git/info/exclude`, and it applies `.gitignore` outside git
//! repositories too.
//!
//! Symlinks are handed over as they are (never entered here); the scan
//! decides what to do with them.

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// What an entry is, by its own type: a symlink is a symlink, not its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Dir,
    File,
    Symlink,
    /// A pipe, socket or device.
    Other,
}

/// One file, folder or link met by the walk.
pub(super) struct Entry<'a> {
    pub path: &'a Path,
    pub name: &'a OsStr,
    /// 0 for the start itself, 1 for its entries, and so on.
    pub depth: usize,
    pub kind: Kind,
    /// The open folder holding the entry (none for the start).
    folder: Option<&'a sys::Dir>,
}

impl Entry<'_> {
    /// Open the entry for reading (through a symlink, as `File::open` does).
    pub fn open(&self) -> std::io::Result<File> {
        match self.folder {
            Some(folder) => folder.open_file(self.name),
            None => File::open(self.path),
        }
    }

    /// Open the entry as it was listed: a regular file is opened from its
    /// open folder without following a symlink (one swapped in since the
    /// listing is refused); a listed symlink is followed.
    pub fn open_as_listed(&self) -> std::io::Result<File> {
        match self.folder {
            Some(folder) if self.kind != Kind::Symlink => folder.open_file_no_follow(self.name),
            _ => self.open(),
        }
    }
}

impl std::fmt::Debug for Entry<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("path", &self.path)
            .field("kind", &self.kind)
            .finish()
    }
}

/// What the walk hands to its callback.
pub(super) enum Event<'a> {
    Entry(Entry<'a>),
    /// A folder that could not be listed (or the start that could not be
    /// read), with the reason.
    Unreadable(&'a Path, std::io::Error),
    /// An ignore file that could not be read or has a bad pattern; the
    /// rest of its rules still apply.
    BadRules(ignore::Error),
}

/// Whether the walk goes on after an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flow {
    Continue,
    /// Stop the whole walk (a bound was reached).
    Quit,
}

/// A walk to run: where, how deep, on how many threads, and which entries
/// to leave out (with everything under them).
pub(super) struct Walk<'a> {
    pub start: &'a Path,
    /// Entries deeper than this are not visited; a folder at this depth is
    /// visited but not entered.
    pub max_depth: usize,
    /// Worker threads; 0 picks from the machine.
    pub threads: usize,
    /// False leaves an entry out, unvisited (a folder is not entered).
    pub keep: &'a (dyn Fn(&Entry<'_>) -> bool + Sync),
}

/// The rules of one folder's ignore files, chained to its parent's.
struct Rules {
    /// From `.ignore`.
    ignore: Option<Gitignore>,
    /// From `.gitignore`.
    git: Option<Gitignore>,
    parent: Option<Arc<Rules>>,
}

/// True when the rules in force say `path` is ignored. For each kind of
/// file the deepest match (an ignore or a `!` whitelist) decides, and
/// `.ignore` comes before `.gitignore`.
fn ignored(rules: Option<&Arc<Rules>>, path: &Path, is_dir: bool) -> bool {
    let mut by_ignore = ignore::Match::None;
    let mut by_git = ignore::Match::None;
    let mut node = rules;
    while let Some(level) = node {
        if by_ignore.is_none() {
            if let Some(matcher) = &level.ignore {
                by_ignore = matcher.matched(path, is_dir).map(|_| ());
            }
        }
        if by_git.is_none() {
            if let Some(matcher) = &level.git {
                by_git = matcher.matched(path, is_dir).map(|_| ());
            }
        }
        node = level.parent.as_ref();
    }
    if by_ignore.is_none() {
        by_git.is_ignore()
    } else {
        by_ignore.is_ignore()
    }
}

/// The `.ignore`/`.gitignore` rules in force for the entries of one folder,
/// for listings made outside a walk (a skill's files for `show`, `read` and
/// `grep`), so they leave out exactly what a scan leaves out.
#[derive(Clone, Default)]
pub(crate) struct FolderRules(Option<Arc<Rules>>);

impl FolderRules {
    /// The rules for the entries of `dir`, a child of the folder these
    /// rules are for: these, plus those of `dir`'s own ignore files (which
    /// the caller says it has, from a listing). A bad pattern is reported
    /// by the scan; here it is left out.
    pub(crate) fn enter(&self, dir: &Path, has_ignore: bool, has_git: bool) -> FolderRules {
        let mut quiet = |_| {};
        let ignore = load_rules(dir, ".ignore", has_ignore, &mut quiet);
        let git = load_rules(dir, ".gitignore", has_git, &mut quiet);
        if ignore.is_none() && git.is_none() {
            return self.clone();
        }
        FolderRules(Some(Arc::new(Rules {
            ignore,
            git,
            parent: self.0.clone(),
        })))
    }

    /// True when `path`, an entry of the folder, is ignored.
    pub(crate) fn ignores(&self, path: &Path, is_dir: bool) -> bool {
        ignored(self.0.as_ref(), path, is_dir)
    }
}

/// The rules in force inside folders of a root, read once per folder.
#[derive(Default)]
pub(crate) struct RulesCache {
    folders: std::collections::HashMap<PathBuf, FolderRules>,
}

impl RulesCache {
    /// The rules in force in the folder above `dir` for `dir`'s entries to
    /// start from: none when `dir` is the root or a symlinked folder (a
    /// walk follows it as a walk of its own).
    pub(crate) fn rules_above(&mut self, root: &Path, dir: &Path) -> FolderRules {
        let linked = std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink());
        match dir.parent() {
            Some(parent) if dir != root && !linked => self.rules_in(root, parent),
            _ => FolderRules::default(),
        }
    }

    /// The rules for the entries of `dir`, a folder at or below `root`:
    /// those of every ignore file from `root` down to `dir`, as a walk from
    /// `root` applies them.
    pub(crate) fn rules_in(&mut self, root: &Path, dir: &Path) -> FolderRules {
        if let Some(rules) = self.folders.get(dir) {
            return rules.clone();
        }
        // A walk follows a symlinked folder as a walk of its own, with no
        // rules from above the link.
        let linked = std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink());
        let above = match dir.parent() {
            Some(parent) if dir != root && dir.starts_with(root) && !linked => {
                self.rules_in(root, parent)
            }
            _ => FolderRules::default(),
        };
        let rules = above.enter(dir, true, true);
        self.folders.insert(dir.to_path_buf(), rules.clone());
        rules
    }
}

/// Read the ignore file `name` of folder `dir`, when it has one.
fn load_rules(
    dir: &Path,
    name: &str,
    present: bool,
    report: &mut dyn FnMut(ignore::Error),
) -> Option<Gitignore> {
    // A dangling link is reported as such by the scan, not again here; a
    // pipe or device of that name is not read (it could block the walk).
    if !present || !std::fs::metadata(dir.join(name)).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let mut builder = GitignoreBuilder::new(dir);
    if let Some(error) = builder.add(dir.join(name)) {
        report(error);
    }
    match builder.build() {
        Ok(rules) if !rules.is_empty() => Some(rules),
        Ok(_) => None,
        Err(error) => {
            report(error);
            None
        }
    }
}

/// A folder waiting to be listed: by path, or by name inside an open folder.
struct Job {
    path: PathBuf,
    parent: Option<(Arc<Held>, OsString)>,
    depth: usize,
    rules: Option<Arc<Rules>>,
}

/// Open folders kept for their subfolders, across every walk of the
/// process. Each waiting subfolder keeps its parent open, and a deep tree
/// walked depth first keeps a folder per level and thread; past this many
/// the rest are opened by path, so a deep tree never runs out of file
/// descriptors (macOS allows 256 by default).
const MAX_HELD: usize = 64;
static HELD: AtomicUsize = AtomicUsize::new(0);

/// An open folder, counted in `HELD` while subfolders may be opened
/// relative to it.
struct Held {
    dir: sys::Dir,
    counted: bool,
}

impl Held {
    fn new(dir: sys::Dir, wanted: bool) -> Held {
        let counted = wanted && HELD.fetch_add(1, Ordering::Relaxed) < MAX_HELD;
        if wanted && !counted {
            HELD.fetch_sub(1, Ordering::Relaxed);
        }
        Held { dir, counted }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if self.counted {
            HELD.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// Stops the walk when its worker unwinds from a panic.
struct StopOnPanic<'a>(&'a Queue);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.stop();
        }
    }
}

struct Queue {
    state: Mutex<QueueState>,
    wake: Condvar,
    quit: AtomicBool,
}

#[derive(Default)]
struct QueueState {
    /// Folders to list.
    jobs: Vec<Job>,
    /// Workers listing a folder now.
    busy: usize,
    /// Workers waiting for a folder: woken only when there are some, since
    /// a wake-up is a system call and most folders are picked up by a
    /// worker that is already awake.
    idle: usize,
}

impl Queue {
    /// The next folder, or `None` when every folder is done (or the walk
    /// was stopped).
    fn next(&self) -> Option<Job> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if self.quit.load(Ordering::Relaxed) {
                return None;
            }
            if let Some(job) = state.jobs.pop() {
                state.busy += 1;
                return Some(job);
            }
            if state.busy == 0 {
                return None;
            }
            state.idle += 1;
            state = self.wake.wait(state).unwrap_or_else(|e| e.into_inner());
            state.idle -= 1;
        }
    }

    /// A worker finished a folder and found `more` below it.
    fn done(&self, more: Vec<Job>) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.busy -= 1;
        let finished = state.busy == 0 && state.jobs.is_empty() && more.is_empty();
        let woken = more.len().min(state.idle);
        state.jobs.extend(more);
        let idle = state.idle;
        drop(state);
        if finished && idle > 0 {
            self.wake.notify_all();
        } else {
            for _ in 0..woken {
                self.wake.notify_one();
            }
        }
    }

    fn stop(&self) {
        self.quit.store(true, Ordering::Relaxed);
        let _guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        self.wake.notify_all();
    }
}

impl Walk<'_> {
    /// Visit the start and everything below it. Entries of one folder are
    /// handed over in the order the system lists them; folders are spread
    /// over the threads, so the overall order is not fixed.
    pub fn run(&self, visit: &(dyn Fn(Event<'_>) -> Flow + Sync)) {
        let kind = match std::fs::metadata(self.start) {
            Ok(metadata) => kind_of(metadata.file_type()),
            Err(error) => {
                visit(Event::Unreadable(self.start, error));
                return;
            }
        };
        let name = self.start.file_name().unwrap_or(self.start.as_os_str());
        let root = Entry {
            path: self.start,
            name,
            depth: 0,
            kind,
            folder: None,
        };
        if visit(Event::Entry(root)) == Flow::Quit || kind != Kind::Dir || self.max_depth == 0 {
            return;
        }
        let queue = Queue {
            state: Mutex::new(QueueState {
                jobs: vec![Job {
                    path: self.start.to_path_buf(),
                    parent: None,
                    depth: 0,
                    rules: None,
                }],
                ..QueueState::default()
            }),
            wake: Condvar::new(),
            quit: AtomicBool::new(false),
        };
        let threads = match self.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get().min(12)),
            n => n,
        };
        let work = || {
            // A worker that panics stops the others, so the panic reaches
            // the caller instead of leaving them waiting for its folder.
            let _stop_on_panic = StopOnPanic(&queue);
            let mut buffer = sys::Buffer::default();
            while let Some(job) = queue.next() {
                let more = self.list(job, &mut buffer, &queue, visit);
                queue.done(more);
            }
        };
        if threads == 1 {
            work();
        } else {
            std::thread::scope(|scope| {
                for _ in 1..threads {
                    scope.spawn(work);
                }
                work();
            });
        }
    }

    /// List one folder: visit its entries and hand back the folders to enter.
    fn list(
        &self,
        job: Job,
        buffer: &mut sys::Buffer,
        queue: &Queue,
        visit: &(dyn Fn(Event<'_>) -> Flow + Sync),
    ) -> Vec<Job> {
        let opened = match &job.parent {
            None => sys::Dir::open(&job.path),
            Some((parent, name)) => parent.dir.open_dir(name),
        };
        let unreadable = |error| {
            if visit(Event::Unreadable(&job.path, error)) == Flow::Quit {
                queue.stop();
            }
        };
        let folder = match opened {
            Ok(folder) => folder,
            Err(error) => {
                unreadable(error);
                return Vec::new();
            }
        };
        let mut entries: Vec<(OsString, Kind)> = Vec::new();
        if let Err(error) = folder.list(buffer, &mut entries) {
            unreadable(error);
        }
        // Subfolders are opened relative to this folder while it can stay
        // open; past the budget they are opened by path.
        let enters =
            job.depth + 1 < self.max_depth && entries.iter().any(|(_, kind)| *kind == Kind::Dir);
        let folder = Arc::new(Held::new(folder, enters));
        let has_file = |name: &str| {
            entries
                .iter()
                .any(|(n, kind)| n == OsStr::new(name) && *kind != Kind::Dir)
        };
        let (has_ignore, has_git) = (has_file(".ignore"), has_file(".gitignore"));
        let rules = if has_ignore || has_git {
            let mut report = |error| {
                if visit(Event::BadRules(error)) == Flow::Quit {
                    queue.stop();
                }
            };
            let ignore = load_rules(&job.path, ".ignore", has_ignore, &mut report);
            let git = load_rules(&job.path, ".gitignore", has_git, &mut report);
            if ignore.is_some() || git.is_some() {
                Some(Arc::new(Rules {
                    ignore,
                    git,
                    parent: job.rules.clone(),
                }))
            } else {
                job.rules.clone()
            }
        } else {
            job.rules.clone()
        };
        let depth = job.depth + 1;
        let mut more = Vec::new();
        let mut path = job.path;
        for (name, kind) in entries {
            if queue.quit.load(Ordering::Relaxed) {
                break;
            }
            path.push(&name);
            let is_dir = kind == Kind::Dir;
            let entry = Entry {
                path: &path,
                name: &name,
                depth,
                kind,
                folder: Some(&folder.dir),
            };
            if !ignored(rules.as_ref(), &path, is_dir) && (self.keep)(&entry) {
                if visit(Event::Entry(entry)) == Flow::Quit {
                    queue.stop();
                    break;
                }
                if is_dir && depth < self.max_depth {
                    more.push(Job {
                        path: path.clone(),
                        parent: folder.counted.then(|| (Arc::clone(&folder), name)),
                        depth,
                        rules: rules.clone(),
                    });
                }
            }
            path.pop();
        }
        more
    }
}

pub(super) fn kind_of(file_type: std::fs::FileType) -> Kind {
    if file_type.is_dir() {
        Kind::Dir
    } else if file_type.is_file() {
        Kind::File
    } else if file_type.is_symlink() {
        Kind::Symlink
    } else {
        Kind::Other
    }
}

/// Open folders and their listings, relative to the open parent on Unix.
#[cfg(unix)]
mod sys {
    use super::Kind;
    use rustix::fs::{openat, AtFlags, FileType, Mode, OFlags, CWD};
    use std::ffi::{OsStr, OsString};
    use std::fs::File;
    use std::os::fd::OwnedFd;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    /// An open folder.
    pub struct Dir(OwnedFd);

    /// Room for a listing, reused by one worker from folder to folder.
    #[derive(Default)]
    pub struct Buffer(#[allow(dead_code)] Vec<std::mem::MaybeUninit<u8>>);

    const FOLDER: OFlags = OFlags::RDONLY
        .union(OFlags::DIRECTORY)
        .union(OFlags::CLOEXEC);

    impl Dir {
        /// Open the folder at `path` (following a symlink to it).
        pub fn open(path: &Path) -> std::io::Result<Dir> {
            Ok(Dir(openat(CWD, path, FOLDER, Mode::empty())?))
        }

        /// Open the folder `name` inside this one; a symlink is not followed
        /// (one that replaced the folder since the listing is refused).
        pub fn open_dir(&self, name: &OsStr) -> std::io::Result<Dir> {
            Ok(Dir(openat(
                &self.0,
                name,
                FOLDER | OFlags::NOFOLLOW,
                Mode::empty(),
            )?))
        }

        /// Open the file `name` inside this folder for reading.
        pub fn open_file(&self, name: &OsStr) -> std::io::Result<File> {
            // Non-blocking, so a pipe put in place of a file since the
            // listing cannot hold the walk (it is refused once opened).
            let fd = openat(
                &self.0,
                name,
                OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK,
                Mode::empty(),
            )?;
            Ok(File::from(fd))
        }

        /// `open_file`, refusing a symlink.
        pub fn open_file_no_follow(&self, name: &OsStr) -> std::io::Result<File> {
            let fd = openat(
                &self.0,
                name,
                OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOFOLLOW,
                Mode::empty(),
            )?;
            Ok(File::from(fd))
        }

        /// Append the folder's entries (without `.` and `..`) to `out`.
        pub fn list(
            &self,
            buffer: &mut Buffer,
            out: &mut Vec<(OsString, Kind)>,
        ) -> std::io::Result<()> {
            self.list_into(buffer, out)
        }

        #[cfg(any(target_os = "linux", target_os = "android"))]
        fn list_into(
            &self,
            buffer: &mut Buffer,
            out: &mut Vec<(OsString, Kind)>,
        ) -> std::io::Result<()> {
            use rustix::fs::RawDir;
            if buffer.0.is_empty() {
                buffer.0.resize(32 * 1024, std::mem::MaybeUninit::uninit());
            }
            let mut listing = RawDir::new(&self.0, &mut buffer.0);
            while let Some(entry) = listing.next() {
                let entry = entry?;
                self.push(entry.file_name(), entry.file_type(), out);
            }
            Ok(())
        }

        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        fn list_into(
            &self,
            _buffer: &mut Buffer,
            out: &mut Vec<(OsString, Kind)>,
        ) -> std::io::Result<()> {
            let mut listing = rustix::fs::Dir::read_from(&self.0)?;
            while let Some(entry) = listing.read() {
                let entry = entry?;
                self.push(entry.file_name(), entry.file_type(), out);
            }
            Ok(())
        }

        /// Add a listed entry to `out`, unless it is `.` or `..`.
        fn push(&self, name: &std::ffi::CStr, listed: FileType, out: &mut Vec<(OsString, Kind)>) {
            let name = OsStr::from_bytes(name.to_bytes());
            if name != "." && name != ".." {
                out.push((name.to_os_string(), self.kind(name, listed)));
            }
        }

        /// The kind of entry `name`, asking the system when the listing
        /// does not say (some file systems leave the type out).
        fn kind(&self, name: &OsStr, listed: FileType) -> Kind {
            let file_type = match listed {
                FileType::Unknown => {
                    match rustix::fs::statat(&self.0, name, AtFlags::SYMLINK_NOFOLLOW) {
                        Ok(stat) => FileType::from_raw_mode(stat.st_mode),
                        Err(_) => FileType::Unknown,
                    }
                }
                known => known,
            };
            match file_type {
                FileType::Directory => Kind::Dir,
                FileType::RegularFile => Kind::File,
                FileType::Symlink => Kind::Symlink,
                _ => Kind::Other,
            }
        }
    }
}

/// Folders by path elsewhere.
#[cfg(not(unix))]
mod sys {
    use super::Kind;
    use std::ffi::{OsStr, OsString};
    use std::fs::File;
    use std::path::{Path, PathBuf};

    pub struct Dir(PathBuf);

    #[derive(Default)]
    pub struct Buffer;

    impl Dir {
        pub fn open(path: &Path) -> std::io::Result<Dir> {
            Ok(Dir(path.to_path_buf()))
        }

        pub fn open_dir(&self, name: &OsStr) -> std::io::Result<Dir> {
            Ok(Dir(self.0.join(name)))
        }

        pub fn open_file(&self, name: &OsStr) -> std::io::Result<File> {
            File::open(self.0.join(name))
        }

        pub fn open_file_no_follow(&self, name: &OsStr) -> std::io::Result<File> {
            File::open(self.0.join(name))
        }

        pub fn list(
            &self,
            _buffer: &mut Buffer,
            out: &mut Vec<(OsString, Kind)>,
        ) -> std::io::Result<()> {
            for entry in std::fs::read_dir(&self.0)? {
                let entry = entry?;
                out.push((entry.file_name(), super::kind_of(entry.file_type()?)));
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> tempfile::TempDir {
        let temp = tempfile::tempdir().unwrap();
        for folder in ["a/b/c", "a/d", "e/f/g", "e/h"] {
            std::fs::create_dir_all(temp.path().join(folder)).unwrap();
            std::fs::write(temp.path().join(folder).join("x.md"), "x").unwrap();
        }
        temp
    }

    /// Every path the walk visits, sorted.
    fn visited(start: &Path, threads: usize, max_depth: usize) -> Vec<PathBuf> {
        let seen = Mutex::new(Vec::new());
        let keep = |_: &Entry<'_>| true;
        let walk = Walk {
            start,
            max_depth,
            threads,
            keep: &keep,
        };
        walk.run(&|event| {
            if let Event::Entry(entry) = event {
                let relative = entry.path.strip_prefix(start).unwrap().to_path_buf();
                seen.lock().unwrap().push(relative);
            }
            Flow::Continue
        });
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        seen
    }

    #[test]
    fn every_entry_is_visited_once_on_any_number_of_threads() {
        let temp = tree();
        let one = visited(temp.path(), 1, 16);
        assert_eq!(one.len(), 1 + 8 + 4, "{one:?}");
        for threads in [2, 3, 8] {
            assert_eq!(visited(temp.path(), threads, 16), one);
        }
        // A folder at the depth limit is visited, not entered.
        let shallow = visited(temp.path(), 2, 1);
        assert_eq!(shallow, [PathBuf::new(), "a".into(), "e".into()]);
    }

    #[test]
    fn a_panicking_callback_reaches_the_caller_instead_of_hanging() {
        let temp = tree();
        let start = temp.path().to_path_buf();
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let outcome = std::panic::catch_unwind(|| {
                let keep = |_: &Entry<'_>| true;
                let walk = Walk {
                    start: &start,
                    max_depth: 16,
                    threads: 2,
                    keep: &keep,
                };
                walk.run(&|event| {
                    if let Event::Entry(entry) = event {
                        assert!(entry.name != "c", "boom");
                    }
                    Flow::Continue
                });
            });
            done.send(outcome.is_err()).unwrap();
        });
        let panicked = finished
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the walk returned");
        assert!(panicked);
    }

    #[cfg(unix)]
    #[test]
    fn a_dangling_ignore_file_adds_no_rules_and_no_error() {
        let temp = tree();
        std::os::unix::fs::symlink("/nonexistent/rules", temp.path().join("a/.gitignore")).unwrap();
        let errors = Mutex::new(0);
        let keep = |_: &Entry<'_>| true;
        let walk = Walk {
            start: temp.path(),
            max_depth: 16,
            threads: 1,
            keep: &keep,
        };
        walk.run(&|event| {
            if !matches!(event, Event::Entry(_)) {
                *errors.lock().unwrap() += 1;
            }
            Flow::Continue
        });
        assert_eq!(*errors.lock().unwrap(), 0);
    }
}
