//! The read service: a running `skilldex watch` vouches for the name
//! index, so a read by name need not check its stamps.
//!
//! Checking an index costs one `stat` per path that could change the
//! answer; for the last name of 10,000 skills in precedence order that is
//! nearly every path (about 25 ms). A process that holds an inotify watch
//! on every stamped path knows without looking whether any of them
//! changed. So `watch` runs a [`ReadService`]: it puts a watch on every
//! path the current index stamps (the file or folder itself, its parent
//! folder for the name, and for a symlink that is not a route every
//! folder its resolution passes through, for the name looked up there),
//! then checks every stamp
//! once. From then on, as long as no watched path has had an event that
//! could change a stamp, the index is current, and the service says so on
//! a Unix socket next to the index file (`names-KEY.sock` in the cache
//! folder).
//!
//! A read sends the index's key and checksum and waits at most
//! [`PATIENCE`] for `clean`; anything else (no socket, one another user
//! owns, a full queue of connections, a stopped `watch`, another index, an
//! event since the check) and it checks the stamps itself, as without a
//! service. Before answering, the service reads every
//! event already queued: the kernel queues an inotify event before the
//! call that made the change returns, so a change made before the read
//! asked is always counted. The read still checks the roots and symlinks
//! (their real paths and the folders on the way), which are few and not
//! all under a watch.
//!
//! After a change the service waits for quiet, checks the index again
//! and, when it is out of date, builds a new one (a whole scan, on its
//! own thread; an index is only written once the changed paths are
//! [`SETTLE`] old). Changes an inotify watch does not see are not
//! vouched away: a file system mounted over a watched folder, and writes
//! through a memory map (no editor saves that way).
//!
//! [`SETTLE`]: super::SETTLE

use super::NameCache;
use crate::catalog::CatalogBuilder;
use std::path::Path;
use std::time::Duration;

/// The first word of a request: which protocol the read speaks.
const HELLO: &str = "skilldex-names-1";

/// How long a read waits for the service to answer before it checks the
/// stamps itself (a `watch` stopped with Ctrl-Z, or busy).
pub(super) const PATIENCE: Duration = Duration::from_millis(100);

/// What a read sends for the index of `key` with checksum `sum`.
fn request(key: u64, sum: u64) -> String {
    format!("{HELLO} {key:016x} {sum:016x}\n")
}

/// Whether a service answers at `socket` that the index of `key` with
/// checksum `sum` is current. The whole exchange takes at most
/// [`PATIENCE`]: a full queue of connections (a stopped `watch` with many
/// reads behind it) is not waited on, nor is a socket another user owns
/// believed.
#[cfg(unix)]
pub(super) fn vouched(socket: &Path, key: u64, sum: u64) -> bool {
    use rustix::net::{AddressFamily, SocketAddrUnix, SocketFlags, SocketType};
    use std::io::Write;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let Ok(meta) = std::fs::symlink_metadata(socket) else {
        return false;
    };
    if !meta.file_type().is_socket() || meta.uid() != rustix::process::geteuid().as_raw() {
        return false;
    }
    let deadline = std::time::Instant::now() + PATIENCE;
    // Connecting without blocking: a full queue answers "try again".
    let connected = rustix::net::socket_with(
        AddressFamily::UNIX,
        SocketType::STREAM,
        SocketFlags::NONBLOCK | SocketFlags::CLOEXEC,
        None,
    )
    .and_then(|fd| {
        rustix::net::connect(&fd, &SocketAddrUnix::new(socket)?)?;
        Ok(fd)
    });
    let Ok(fd) = connected else {
        return false;
    };
    let mut stream = std::os::unix::net::UnixStream::from(fd);
    if stream.set_nonblocking(false).is_err()
        || stream.set_write_timeout(Some(PATIENCE)).is_err()
        || stream.write_all(request(key, sum).as_bytes()).is_err()
    {
        return false;
    }
    read_line(&mut stream, 16, Some(deadline)) == b"clean\n"
}

#[cfg(not(unix))]
pub(super) fn vouched(_: &Path, _: u64, _: u64) -> bool {
    false
}

/// What `stream` sends up to a newline (kept), at most `most` bytes; less
/// on an error, or once `deadline` passes (the stream's read timeout is
/// set to what is left before each read).
#[cfg(unix)]
fn read_line(
    stream: &mut std::os::unix::net::UnixStream,
    most: usize,
    deadline: Option<std::time::Instant>,
) -> Vec<u8> {
    use std::io::Read;
    let mut line = Vec::with_capacity(most);
    let mut buffer = [0u8; 64];
    while line.len() < most && !line.contains(&b'\n') {
        if let Some(deadline) = deadline {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
                break;
            }
        }
        match stream.read(&mut buffer[..(most - line.len()).min(64)]) {
            Ok(0) | Err(_) => break,
            Ok(n) => line.extend_from_slice(&buffer[..n]),
        }
    }
    line
}

#[cfg(not(unix))]
pub(super) fn vouched(_: &Path, _: u64, _: u64) -> bool {
    false
}

/// What the service has to say, for `watch -v`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServiceNote {
    /// Every path the index stamps is watched and was found unchanged:
    /// reads by name are answered without checking them.
    Vouching { paths: usize },
    /// Reads check the stamps themselves, and why.
    NotVouching(String),
    /// The same, for want of inotify watches: a limit to raise.
    Limit(String),
}

impl std::fmt::Display for ServiceNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServiceNote::Vouching { paths } => write!(
                f,
                "name index current and watched ({paths} paths): reads by name need not check it"
            ),
            ServiceNote::NotVouching(why) | ServiceNote::Limit(why) => {
                write!(f, "reads by name check the name index themselves: {why}")
            }
        }
    }
}

/// A running read service (see the module notes). Dropping it stops the
/// service and removes its socket.
pub struct ReadService {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    inner: linux::Running,
}

impl ReadService {
    /// Start answering for the index `builder`'s catalog has in `cache`.
    /// `notes` hears when the service starts or stops vouching. An error
    /// says why there is no service: no index for these settings (see
    /// [`NameCache::lookup`]), a system without inotify, a socket that
    /// cannot be made, or another service answering already.
    pub fn start(
        cache: NameCache,
        builder: CatalogBuilder,
        notes: impl Fn(ServiceNote) + Send + 'static,
    ) -> Result<ReadService, String> {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            linux::Running::start(cache, builder, Box::new(notes))
                .map(|inner| ReadService { inner })
        }
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        {
            let _ = (cache, builder, notes);
            Err("reads are vouched for only on Linux".into())
        }
    }

    /// Something under the roots changed: when not vouching, try again
    /// (the catalog may have grown large enough for an index, say).
    pub fn poke(&self) {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        self.inner.poke();
    }

    /// Where reads ask.
    pub fn socket(&self) -> &Path {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            &self.inner.socket
        }
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        {
            Path::new("")
        }
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
mod linux {
    use super::super::{read_regular, NameCache, Pick, View, SETTLE};
    use super::{read_line, request, ServiceNote, HELLO};
    use crate::catalog::CatalogBuilder;
    use inotify::{EventMask, Inotify, WatchMask};
    use std::collections::{HashMap, HashSet};
    use std::ffi::OsString;
    use std::io::{Read as _, Write};
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    use std::os::unix::net::{UnixListener, UnixStream};
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{mpsc, Arc};
    use std::thread::JoinHandle;
    use std::time::{Duration, Instant};

    /// Quiet time after an event before the index is checked again.
    const QUIET: Duration = Duration::from_millis(50);
    /// Least time between two whole scans started by the service, and
    /// between two checks a read asks for.
    const BETWEEN_BUILDS: Duration = Duration::from_secs(1);
    /// How long the service waits for a connected read to ask.
    const SILENCE: Duration = Duration::from_millis(20);

    pub(super) struct Running {
        pub(super) socket: PathBuf,
        /// The socket file as bound: removed on drop only while it is
        /// still this one.
        identity: Option<(u64, u64)>,
        stop: Arc<AtomicBool>,
        pokes: UnixStream,
        thread: Option<JoinHandle<()>>,
    }

    impl Running {
        pub(super) fn start(
            cache: NameCache,
            builder: CatalogBuilder,
            notes: Box<dyn Fn(ServiceNote) + Send>,
        ) -> Result<Running, String> {
            let key = builder
                .index_key()
                .ok_or("no name index is kept with disabled skills")?;
            let socket = cache.socket_for(key);
            let listener = bind(&socket)?;
            let identity = std::fs::symlink_metadata(&socket)
                .ok()
                .map(|m| (m.dev(), m.ino()));
            let (pokes, poked) = UnixStream::pair().map_err(|e| e.to_string())?;
            pokes
                .set_nonblocking(true)
                .and_then(|()| poked.set_nonblocking(true))
                .and_then(|()| listener.set_nonblocking(true))
                .map_err(|e| e.to_string())?;
            let stop = Arc::new(AtomicBool::new(false));
            let mut service = Service {
                cache,
                builder,
                key,
                listener,
                poked,
                watched: None,
                clean: false,
                next_try: Some(Instant::now()),
                retry_once: true,
                last_build: None,
                last_adopt: None,
                tried: None,
                retired: false,
                building: None,
                notes,
                said: None,
                stop: Arc::clone(&stop),
                buffer: vec![0; 64 * 1024],
            };
            let thread = std::thread::Builder::new()
                .name("skilldex-names".into())
                .spawn(move || service.run())
                .map_err(|e| e.to_string())?;
            Ok(Running {
                socket,
                identity,
                stop,
                pokes,
                thread: Some(thread),
            })
        }

        pub(super) fn poke(&self) {
            let _ = (&self.pokes).write(&[1]);
        }
    }

    impl Drop for Running {
        fn drop(&mut self) {
            self.stop.store(true, Ordering::Relaxed);
            self.poke();
            if let Some(thread) = self.thread.take() {
                let _ = thread.join();
            }
            let now = std::fs::symlink_metadata(&self.socket)
                .ok()
                .map(|m| (m.dev(), m.ino()));
            if now.is_some() && now == self.identity {
                let _ = std::fs::remove_file(&self.socket);
            }
        }
    }

    /// Listen at `socket`, in a private cache folder. A socket left by a
    /// service that stopped is replaced; one that answers is not.
    fn bind(socket: &Path) -> Result<UnixListener, String> {
        let shown = || socket.display().to_string();
        if let Some(dir) = socket.parent() {
            let mut folder = std::fs::DirBuilder::new();
            folder.recursive(true);
            std::os::unix::fs::DirBuilderExt::mode(&mut folder, 0o700);
            folder
                .create(dir)
                .map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        }
        match UnixListener::bind(socket) {
            Ok(listener) => Ok(listener),
            Err(error) if error.kind() == std::io::ErrorKind::AddrInUse => {
                if UnixStream::connect(socket).is_ok() {
                    return Err(format!(
                        "another `skilldex watch` answers for these roots at {}",
                        shown()
                    ));
                }
                // Only a socket is replaced, never a file put there.
                let stale =
                    std::fs::symlink_metadata(socket).is_ok_and(|m| m.file_type().is_socket());
                if !stale {
                    return Err(format!("{} is in the way (not a socket)", shown()));
                }
                let _ = std::fs::remove_file(socket);
                UnixListener::bind(socket).map_err(|e| format!("cannot listen at {}: {e}", shown()))
            }
            Err(error) => Err(format!("cannot listen at {}: {error}", shown())),
        }
    }

    /// The watches on one index's paths.
    struct Watched {
        inotify: Inotify,
        /// Per watch, the names inside it whose every event counts.
        names: HashMap<i32, HashSet<OsString>>,
        /// The watches on stamped paths themselves: a name added, removed
        /// or renamed in one counts, whichever name (it changes the
        /// folder's stamp). Other watches count only their names.
        whole: HashSet<i32>,
        sum: u64,
        paths: usize,
        /// The index file as read (see [`file_identity`]).
        file: Option<FileIdentity>,
    }

    /// What tells one index file from the next written in its place.
    type FileIdentity = (u64, u64, i64, i64, u64);

    fn file_identity(path: &Path) -> Option<FileIdentity> {
        let m = std::fs::metadata(path).ok()?;
        Some((m.dev(), m.ino(), m.mtime(), m.mtime_nsec(), m.size()))
    }

    struct Service {
        cache: NameCache,
        builder: CatalogBuilder,
        key: u64,
        listener: UnixListener,
        poked: UnixStream,
        watched: Option<Watched>,
        /// Every stamp was found unchanged, and no watch has had an event
        /// that counts since.
        clean: bool,
        /// When to check the index again.
        next_try: Option<Instant>,
        /// A build that wrote no index is tried once more after
        /// [`SETTLE`] (the usual reason: a path changed too recently).
        retry_once: bool,
        last_build: Option<Instant>,
        last_adopt: Option<Instant>,
        /// The index file as the last check found it.
        tried: Option<FileIdentity>,
        /// No longer answering for its key (see `adopt`).
        retired: bool,
        /// A whole scan on its own thread: whether it wrote an index, or
        /// why not.
        building: Option<mpsc::Receiver<Result<(), String>>>,
        notes: Box<dyn Fn(ServiceNote) + Send>,
        said: Option<ServiceNote>,
        stop: Arc<AtomicBool>,
        buffer: Vec<u8>,
    }

    impl Service {
        fn run(&mut self) {
            use rustix::event::{poll, PollFd, PollFlags, Timespec};
            while !self.stop.load(Ordering::Relaxed) {
                let now = Instant::now();
                let wait = if self.building.is_some() {
                    Duration::from_millis(20)
                } else {
                    self.next_try.map_or(Duration::from_secs(3600), |t| {
                        t.saturating_duration_since(now)
                    })
                };
                let timeout = Timespec {
                    tv_sec: i64::try_from(wait.as_secs()).unwrap_or(i64::MAX),
                    tv_nsec: i64::from(wait.subsec_nanos()),
                };
                {
                    let mut fds = vec![
                        PollFd::new(&self.listener, PollFlags::IN),
                        PollFd::new(&self.poked, PollFlags::IN),
                    ];
                    if let Some(watched) = &self.watched {
                        fds.push(PollFd::new(&watched.inotify, PollFlags::IN));
                    }
                    // Interrupted or not, everything below looks for itself.
                    let _ = poll(&mut fds, Some(&timeout));
                }
                if self.stop.load(Ordering::Relaxed) {
                    break;
                }
                let mut poke = [0u8; 64];
                let mut poked = false;
                while matches!((&self.poked).read(&mut poke), Ok(n) if n > 0) {
                    poked = true;
                }
                if poked && !self.clean {
                    self.retry_once = true;
                    self.schedule(QUIET);
                }
                self.drain();
                while let Ok((stream, _)) = self.listener.accept() {
                    self.answer(stream);
                }
                if let Some(building) = &self.building {
                    match building.try_recv() {
                        Ok(wrote) => {
                            self.building = None;
                            if let Err(why) = &wrote {
                                self.say(ServiceNote::NotVouching(format!(
                                    "no name index written: {why}"
                                )));
                            }
                            if wrote.is_ok() {
                                self.schedule(Duration::ZERO);
                            } else if std::mem::take(&mut self.retry_once) {
                                self.schedule(SETTLE + QUIET);
                            }
                        }
                        // The scan panicked: as a scan that wrote nothing.
                        Err(mpsc::TryRecvError::Disconnected) => {
                            self.building = None;
                            if std::mem::take(&mut self.retry_once) {
                                self.schedule(SETTLE + QUIET);
                            }
                        }
                        Err(mpsc::TryRecvError::Empty) => {}
                    }
                }
                let due = self.next_try.is_some_and(|t| t <= Instant::now());
                if due && !self.clean && self.building.is_none() && !self.retired {
                    self.next_try = None;
                    self.adopt();
                }
            }
        }

        /// Check the index again after `after`, or later if a later check
        /// is set already (a stream of events keeps pushing it back).
        fn schedule(&mut self, after: Duration) {
            let at = Instant::now() + after;
            self.next_try = Some(self.next_try.map_or(at, |t| t.max(at)));
        }

        fn say(&mut self, note: ServiceNote) {
            if self.said.as_ref() != Some(&note) {
                (self.notes)(note.clone());
                self.said = Some(note);
            }
        }

        /// Read every queued event; one that could change a stamp ends
        /// vouching until the index is checked again.
        fn drain(&mut self) {
            let Some(watched) = &mut self.watched else {
                return;
            };
            if !drain(watched, &mut self.buffer) {
                return;
            }
            // A new change: a scan that comes too early gets its retry.
            self.retry_once = true;
            if self.clean {
                self.clean = false;
                self.say(ServiceNote::NotVouching(
                    "a watched path changed; checking again once it is quiet".into(),
                ));
            }
            // Wait for quiet: each event pushes the check back.
            self.next_try = Some(Instant::now() + QUIET);
        }

        /// Answer one read.
        fn answer(&mut self, mut stream: UnixStream) {
            // A read writes its question as soon as it is connected; one
            // that does not is not waited for long (others are queued).
            if stream.set_nonblocking(false).is_err()
                || stream.set_read_timeout(Some(SILENCE)).is_err()
                || stream.set_write_timeout(Some(SILENCE)).is_err()
            {
                return;
            }
            let asked = read_line(&mut stream, 128, Some(Instant::now() + SILENCE));
            // Every change made before the read asked is queued by now.
            self.drain();
            let current = match &self.watched {
                Some(watched) if self.clean => asked == request(self.key, watched.sum).as_bytes(),
                _ => false,
            };
            let _ = stream.write_all(if current { b"clean\n" } else { b"unknown\n" });
            // A read that loaded another index than the one vouched for:
            // a scan wrote a new one (the same catalog, maybe other bytes).
            // Take that one once it is there, or reads would all check.
            let same_key = asked.starts_with(format!("{HELLO} {:016x} ", self.key).as_bytes());
            let idle = !self.clean && self.next_try.is_none() && self.building.is_none();
            if idle && same_key && file_identity(&self.cache.file_for(self.key)) != self.tried {
                // Nothing planned, and a read wrote an index since the
                // last try: try that one.
                let at = self
                    .last_adopt
                    .map_or(Instant::now(), |t| t + BETWEEN_BUILDS);
                self.next_try = Some(at.max(Instant::now()));
            }
            if self.clean && !current && same_key {
                let moved = self.watched.as_ref().is_some_and(|watched| {
                    watched.file != file_identity(&self.cache.file_for(self.key))
                });
                if moved {
                    self.clean = false;
                    self.say(ServiceNote::NotVouching(
                        "a new name index was written".into(),
                    ));
                    self.next_try = Some(Instant::now());
                }
            }
        }

        /// Watch every path of the saved index, then check every stamp;
        /// vouch when all match and nothing moved meanwhile. An index that
        /// is missing or out of date is built again.
        fn adopt(&mut self) {
            self.last_adopt = Some(Instant::now());
            self.watched = None;
            self.clean = false;
            // Relative roots, and the current folder renamed: reads now
            // ask at another socket, and scans write another index.
            if self.builder.index_key() != Some(self.key) {
                self.retired = true;
                return self.say(ServiceNote::NotVouching(
                    "the current folder was renamed (the roots are relative to it): restart `skilldex watch` for reads to ask it".into(),
                ));
            }
            let file = file_identity(&self.cache.file_for(self.key));
            self.tried = file;
            let bytes = match read_regular(&self.cache.file_for(self.key)) {
                Ok(Some(bytes)) => bytes,
                _ => return self.build("no name index yet".into()),
            };
            let Some(view) = View::decode(&bytes, self.key) else {
                return self.build("the name index is damaged or from another version".into());
            };
            let Some(picks) = view.bearing_on(None) else {
                return self.build("the name index is damaged".into());
            };
            let mut watched = match watch_all(&view, &picks) {
                Ok(watched) => Watched { file, ..watched },
                Err(Unwatched::Limit(why)) => return self.say(ServiceNote::Limit(why)),
                // A path gone since the index was written, most likely.
                Err(Unwatched::Other(why)) => match view.first_change(&picks) {
                    Some(changed) => {
                        let changed = super::super::printable(&changed);
                        return self.build(format!(
                            "{changed} changed since the name index was written"
                        ));
                    }
                    None => return self.say(ServiceNote::NotVouching(why)),
                },
            };
            // What happened while the watches were put in place is in the
            // stamps checked now.
            drain(&mut watched, &mut self.buffer);
            if let Some(changed) = view.first_change(&picks) {
                let changed = super::super::printable(&changed);
                return self.build(format!(
                    "{changed} changed since the name index was written"
                ));
            }
            // A change while checking: a stamp may have been read before it.
            if drain(&mut watched, &mut self.buffer) {
                self.watched = Some(watched);
                self.next_try = Some(Instant::now() + QUIET);
                return;
            }
            let paths = watched.paths;
            self.watched = Some(watched);
            self.clean = true;
            self.say(ServiceNote::Vouching { paths });
        }

        /// Scan the whole catalog on another thread, which writes a new
        /// index when it can.
        fn build(&mut self, why: String) {
            self.say(ServiceNote::NotVouching(why));
            if let Some(last) = self.last_build {
                if last.elapsed() < BETWEEN_BUILDS {
                    self.next_try = Some(last + BETWEEN_BUILDS);
                    return;
                }
            }
            self.last_build = Some(Instant::now());
            let (done, building) = mpsc::channel();
            let (cache, builder) = (self.cache.clone(), self.builder.clone());
            let spawned = std::thread::Builder::new()
                .name("skilldex-names-scan".into())
                .spawn(move || {
                    let wrote = match cache.build(&builder) {
                        Ok(saved) => saved.index.map(|_| ()),
                        Err(error) => Err(error.to_string()),
                    };
                    let _ = done.send(wrote);
                });
            if spawned.is_ok() {
                self.building = Some(building);
            }
        }
    }

    /// Read every queued event of `watched`: true when one could change a
    /// stamp (or the queue overflowed, or reading failed).
    fn drain(watched: &mut Watched, buffer: &mut [u8]) -> bool {
        let mut counts = false;
        loop {
            match watched.inotify.read_events(buffer) {
                Ok(events) => {
                    for event in events {
                        counts |= event_counts(watched, &event);
                    }
                }
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => return counts,
                Err(_) => return true,
            }
        }
    }

    /// Whether an event could change a stamp: anything that happened to a
    /// watched file or folder itself (written, attributes, moved, removed,
    /// unmounted), a name added, removed or renamed in a stamped folder
    /// (its modification time moves), anything to a name watched in its
    /// folder, and an overflowed queue. A file inside a watched folder
    /// written or touched does not count by itself (a stamped file has its
    /// own watch), nor does a new name in a folder watched only for others
    /// (above a root, on the way to a link's target).
    fn event_counts(watched: &Watched, event: &inotify::Event<&std::ffi::OsStr>) -> bool {
        if event.mask.contains(EventMask::Q_OVERFLOW) {
            return true;
        }
        let Some(name) = event.name else {
            return true;
        };
        let wd = event.wd.get_watch_descriptor_id();
        let binding =
            EventMask::CREATE | EventMask::DELETE | EventMask::MOVED_FROM | EventMask::MOVED_TO;
        (event.mask.intersects(binding) && watched.whole.contains(&wd))
            || watched
                .names
                .get(&wd)
                .is_some_and(|names| names.contains(name))
    }

    /// Why the paths of an index could not all be watched.
    enum Unwatched {
        /// The per-user limit on inotify watches.
        Limit(String),
        Other(String),
    }

    /// The watches being put on an index's paths.
    struct Adder {
        watches: inotify::Watches,
        /// Every path watched so far: most folders hold many paths.
        by_path: HashMap<PathBuf, i32>,
        names: HashMap<i32, HashSet<OsString>>,
        whole: HashSet<i32>,
    }

    impl Adder {
        fn add(&mut self, path: &Path) -> std::io::Result<i32> {
            if let Some(&wd) = self.by_path.get(path) {
                return Ok(wd);
            }
            let mask = WatchMask::MODIFY
                | WatchMask::ATTRIB
                | WatchMask::CLOSE_WRITE
                | WatchMask::CREATE
                | WatchMask::DELETE
                | WatchMask::MOVED_FROM
                | WatchMask::MOVED_TO
                | WatchMask::DELETE_SELF
                | WatchMask::MOVE_SELF;
            let wd = self.watches.add(path, mask)?.get_watch_descriptor_id();
            self.by_path.insert(path.to_path_buf(), wd);
            Ok(wd)
        }

        /// A stamped path: the file or folder it leads to, all of it.
        fn whole(&mut self, path: &Path) -> Result<(), Unwatched> {
            let wd = self.add(path).map_err(|e| explain(path, e))?;
            self.whole.insert(wd);
            Ok(())
        }

        /// The name `name` in the folder `folder`.
        fn name(&mut self, folder: &Path, name: &std::ffi::OsStr) -> std::io::Result<()> {
            let folder = if folder.as_os_str().is_empty() {
                Path::new(".")
            } else {
                folder
            };
            let wd = self.add(folder)?;
            self.names
                .entry(wd)
                .or_default()
                .insert(name.to_os_string());
            Ok(())
        }

        /// Each name the symlink `path` is resolved through, in the folder
        /// it is looked up in, following every link on the way: a link on
        /// the way pointed elsewhere, or a folder on the way renamed, then
        /// counts. It starts from the link's own folder (the way there is
        /// watched, or checked by the read as a root's route), and stops
        /// at the first name that is missing (its creation counts) or
        /// after 40 links (a loop: each of its names is watched by then).
        fn links(&mut self, path: &Path) -> Result<(), Unwatched> {
            use std::path::Component;
            let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
                return Ok(());
            };
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            let mut dir = std::fs::canonicalize(parent).map_err(|e| explain(parent, e))?;
            let mut todo = std::collections::VecDeque::from([PathBuf::from(name)]);
            let mut followed = 0;
            while let Some(part) = todo.pop_front() {
                match part.components().next() {
                    Some(Component::RootDir) => dir = PathBuf::from("/"),
                    Some(Component::ParentDir) => {
                        dir.pop();
                    }
                    Some(Component::Normal(name)) => {
                        self.name(&dir, name).map_err(|e| explain(&dir, e))?;
                        let next = dir.join(name);
                        match std::fs::symlink_metadata(&next) {
                            Ok(meta) if meta.file_type().is_symlink() => {
                                followed += 1;
                                if followed > 40 {
                                    return Ok(());
                                }
                                let target =
                                    std::fs::read_link(&next).map_err(|e| explain(&next, e))?;
                                for (i, part) in target.components().enumerate() {
                                    todo.insert(i, PathBuf::from(part.as_os_str()));
                                }
                            }
                            Ok(_) => dir = next,
                            Err(_) => return Ok(()),
                        }
                    }
                    _ => {}
                }
            }
            Ok(())
        }
    }

    fn explain(path: &Path, error: std::io::Error) -> Unwatched {
        let path = super::super::printable(path);
        if error.raw_os_error() == Some(28) {
            // ENOSPC: the per-user limit on watches.
            Unwatched::Limit(format!(
                "the inotify watch limit is reached at {path} (raise fs.inotify.max_user_watches, e.g. `sudo sysctl fs.inotify.max_user_watches=524288`)"
            ))
        } else {
            Unwatched::Other(format!("cannot watch {path}: {error}"))
        }
    }

    /// Watch every path `picks` names: the file or folder itself, and its
    /// folder for its name (for a missing path, the nearest folder on its
    /// way that exists, for the first missing name); for a symlink, every
    /// name its resolution goes through.
    fn watch_all(view: &View<'_>, picks: &[Pick<'_>]) -> Result<Watched, Unwatched> {
        let inotify = Inotify::init()
            .map_err(|e| Unwatched::Other(format!("inotify is not available: {e}")))?;
        let mut adder = Adder {
            watches: inotify.watches(),
            by_path: HashMap::new(),
            names: HashMap::new(),
            whole: HashSet::new(),
        };
        let routes: HashSet<&Path> = view.routes.iter().map(|r| r.given.as_path()).collect();
        for pick in picks {
            let path = view.path(pick);
            if pick.stamp.is_some() {
                adder.whole(&path)?;
            }
            let link = std::fs::symlink_metadata(&path).map(|m| m.file_type().is_symlink());
            if let Ok(true) = link {
                // A link the scan followed is a route, which every read
                // checks whole; the others (an ignore file hidden by its
                // own rules, a link leading nowhere or in a loop) are
                // watched along their way.
                if !routes.contains(path.as_path()) {
                    adder.links(&path)?;
                }
                continue;
            }
            if pick.stamp.is_none() && link.is_ok() {
                // There, but `stat` failed when the index was written (no
                // permission, say), and nothing of it is watched.
                return Err(Unwatched::Other(format!(
                    "{} could not be read when the index was written",
                    super::super::printable(&path)
                )));
            }
            let mut child = path.as_path();
            while let (Some(name), Some(parent)) = (child.file_name(), child.parent()) {
                match adder.name(parent, name) {
                    Ok(()) => break,
                    Err(error)
                        if pick.stamp.is_none() && error.kind() == std::io::ErrorKind::NotFound =>
                    {
                        child = parent;
                    }
                    Err(error) => return Err(explain(parent, error)),
                }
            }
        }
        Ok(Watched {
            inotify,
            names: adder.names,
            whole: adder.whole,
            sum: view.sum,
            paths: picks.len(),
            file: None,
        })
    }
}

#[cfg(all(test, any(target_os = "linux", target_os = "android")))]
mod tests {
    use super::vouched;
    use rustix::net::{AddressFamily, SocketAddrUnix, SocketFlags, SocketType};
    use std::time::Duration;

    #[test]
    fn a_service_that_never_answers_is_not_waited_on_even_with_a_full_queue() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("names.sock");
        let listener = rustix::net::socket_with(
            AddressFamily::UNIX,
            SocketType::STREAM,
            SocketFlags::CLOEXEC,
            None,
        )
        .unwrap();
        rustix::net::bind(&listener, &SocketAddrUnix::new(&socket).unwrap()).unwrap();
        // Never accepted, as by a `watch` stopped with Ctrl-Z: the queue
        // holds a connection or two, then is full.
        rustix::net::listen(&listener, 0).unwrap();
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let answers: Vec<bool> = (0..6).map(|_| vouched(&socket, 1, 2)).collect();
            let _ = done.send(answers);
        });
        let answers = finished
            .recv_timeout(Duration::from_secs(20))
            .expect("asking a service that does not answer does not hang");
        assert_eq!(answers, [false; 6]);
        drop(listener);
    }
}
