//! The security boundary: open a file or folder of a skill without ever
//! leaving the skill's folder, and open any other file the user names
//! (a config file, a `--since` snapshot) without hanging on a pipe.
//!
//! Everything that serves a skill's files (CLI `read`/`show`/`grep`, MCP
//! `read_skill`, `resources/read`, `grep_skills`, `skills/get`,
//! `resources/directory/read`) opens them here, and only here.
//!
//! Checking a path and then opening it by name is a race: a folder swapped
//! for a symlink between the two makes the open land outside. So nothing
//! here is checked by name. The skill folder is opened once; every path
//! inside it is then opened from that open folder, on Linux with one
//! `openat2(RESOLVE_BENEATH)` (the kernel refuses any step out), and
//! otherwise (older kernels, a seccomp filter, other Unixes) by walking
//! one component at a time with `openat(O_NOFOLLOW)` and resolving each
//! symlink here, inside the folder, from the folders already open. What
//! was opened is then checked on the open file (`fstat`), never by name:
//! a pipe, socket or device is refused, and nothing blocks on opening one
//! (every open is non-blocking).
//!
//! Each answer carries the path the file really has inside the folder, so
//! callers judge a file reached through a link by where it really is (the
//! ignore rules and skipped folders apply to the target, not the link).

/// Files larger than this are refused (grep still searches them).
pub const MAX_READ_BYTES: u64 = 64 * 1024 * 1024;

/// Whether the first 8 KiB of `file` (a regular file) hold a NUL byte, what
/// marks a binary file here as in grep. Reads from the file's position.
pub fn starts_binary(file: &std::fs::File) -> bool {
    use std::io::Read;
    let mut head = [0u8; 8192];
    let mut got = 0;
    let mut reader = file;
    while got < head.len() {
        match reader.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    head[..got].contains(&0)
}

use std::ffi::OsString;
use std::fs::File;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// Symlinks followed in one path before it is refused, as the kernel's
/// own limit (`ELOOP` after 40).
pub const MAX_LINKS: usize = 40;

/// What the path led to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenedKind {
    File,
    Folder,
}

/// A file or folder opened inside a skill folder.
#[derive(Debug)]
pub struct Opened {
    pub file: File,
    pub kind: OpenedKind,
    /// Its size in bytes, from the open file.
    pub len: u64,
    /// Where it really is inside the folder, `/`-separated, every symlink
    /// resolved; empty for the folder itself.
    pub real: String,
    /// A symlink was followed on the way.
    pub through_link: bool,
    /// A skill file opened through a symlink to elsewhere in its root (see
    /// [`Folder::open_skill_file`]): `real` is then the link's own name.
    pub elsewhere_in_root: bool,
}

impl Opened {
    /// Its real path on disk.
    pub fn real_path(&self, folder: &Folder) -> PathBuf {
        if self.real.is_empty() {
            folder.real.clone()
        } else {
            folder.real.join(&self.real)
        }
    }
}

/// Why a path was not opened.
#[derive(Debug)]
pub enum Refusal {
    /// It leads out of the folder; the text says how ("is an absolute
    /// path", "leaves the skill folder"), never naming a place outside.
    Escapes(String),
    /// A symlink on the way leads outside the folder, to `target` (for an
    /// author's eyes only: an MCP client is told that it leads outside,
    /// never where — see [`Refusal::LINK_OUT`]).
    LinksOut {
        target: String,
    },
    /// Nothing is there.
    Missing,
    /// A symlink on the way points to nothing.
    Dangling,
    /// Not a regular file or folder; the text names what it is ("a named
    /// pipe (FIFO)").
    Special(&'static str),
    Io(std::io::Error),
}

impl Refusal {
    /// How a symlink out of the folder is described without its target.
    pub const LINK_OUT: &'static str = "leads through a symlink outside the skill folder";
    /// How a skill file that is a symlink out of its root is described
    /// without its target.
    pub const SKILL_FILE_OUT: &'static str = "is a symlink to a file outside the root";
}

impl Refusal {
    /// The refusal as a client outside the catalog may read it: a link out
    /// is said to lead outside, not where.
    pub fn told_to_client(&self) -> String {
        match self {
            Refusal::LinksOut { .. } => format!("it {}", Refusal::LINK_OUT),
            other => other.to_string(),
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Escapes(why) => write!(f, "it {why}"),
            Refusal::LinksOut { target } => write!(f, "it {} (to {target})", Refusal::LINK_OUT),
            Refusal::Missing => write!(f, "it does not exist"),
            Refusal::Dangling => write!(f, "it is a symlink whose target does not exist"),
            Refusal::Special(what) => {
                write!(f, "it is {what}, not a regular file, and is never read")
            }
            Refusal::Io(error) => write!(f, "it cannot be read ({error})"),
        }
    }
}

/// What a file's type is, in words, for a refusal.
pub fn kind_name(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
    }
    if file_type.is_dir() {
        return "a folder";
    }
    if file_type.is_symlink() {
        return "a symlink";
    }
    "a special file"
}

/// Open `path` (following symlinks: the user named it) for reading,
/// without blocking on a pipe, and refuse anything but a regular file with
/// an error that says what it is. For files the user names: `--config`,
/// `SKILLDEX_CONFIG`, `render --since`.
pub fn open_regular(path: &Path) -> std::io::Result<File> {
    let file = open_nonblocking(path).map_err(|error| {
        // A socket cannot be opened at all (ENXIO): say what it is.
        match std::fs::metadata(path) {
            Ok(metadata) if !metadata.is_file() && !metadata.is_dir() => std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "it is {}, not a regular file",
                    kind_name(metadata.file_type())
                ),
            ),
            _ => error,
        }
    })?;
    let metadata = file.metadata()?;
    if !metadata.is_file() && !is_null_device(&metadata) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "it is {}, not a regular file",
                kind_name(metadata.file_type())
            ),
        ));
    }
    Ok(file)
}

/// `/dev/null` (by device number, under any name): the usual way to say
/// "an empty file" (`--config /dev/null`); it reads as nothing at once.
#[cfg(unix)]
fn is_null_device(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    metadata.file_type().is_char_device()
        && std::fs::metadata("/dev/null").is_ok_and(|null| null.rdev() == metadata.rdev())
}

#[cfg(not(unix))]
fn is_null_device(_metadata: &std::fs::Metadata) -> bool {
    false
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

/// `open_regular`, then the whole file, refused past `max` bytes (checked
/// on the open file before anything is read).
pub fn read_regular(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let len = file.metadata()?.len();
    if len > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "it is {} bytes; the limit is {}",
                crate::text::thousands(len as usize),
                crate::text::thousands(max as usize)
            ),
        ));
    }
    read_at_most(file, max)
}

/// Read `file` to its end, but never more than `max` bytes (a file that
/// grows while it is read is cut there).
pub fn read_at_most(file: File, max: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(max).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Open `relative` inside the folder `dir` and read it whole, refused
/// (before anything is read) past `max` bytes or when it is not a regular
/// file inside the folder. For readers that only need the bytes and an
/// `io::Error` saying why not (`show`, `render`).
pub fn read_inside(dir: &Path, relative: &str, max: u64) -> std::io::Result<Vec<u8>> {
    let folder = Folder::open(dir)?;
    read_opened(relative, folder.open_path(relative), max)
}

/// `read_inside` for a skill's own file at `path` (under `root`), which
/// may be a symlink to a file elsewhere in the root
/// ([`Folder::open_skill_file`]).
pub fn read_skill_file(root: &Path, path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let folder = Folder::open(path.parent().unwrap_or(Path::new(".")))?;
    let opened = folder
        .open_skill_file(&name, root, path)
        .map_err(|refusal| match refusal {
            Refusal::LinksOut { target } => {
                Refusal::Escapes(format!("{} (to {target})", Refusal::SKILL_FILE_OUT))
            }
            other => other,
        });
    read_opened(&name, opened, max)
}

/// The bytes of what `relative` opened to, refused as `read_inside` says.
fn read_opened(
    relative: &str,
    opened: Result<Opened, Refusal>,
    max: u64,
) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind};
    let shown = || crate::entry::printable(relative);
    let opened = opened.map_err(|refusal| match refusal {
        Refusal::Io(error) => error,
        Refusal::Missing => {
            Error::new(ErrorKind::NotFound, format!("`{}` does not exist", shown()))
        }
        other => Error::new(
            ErrorKind::InvalidInput,
            format!("`{}` is not read: {other}", shown()),
        ),
    })?;
    if opened.kind == OpenedKind::Folder {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!("`{}` is a folder, not a file", shown()),
        ));
    }
    if opened.len > max {
        return Err(Error::new(
            ErrorKind::InvalidData,
            format!(
                "`{}` is {} bytes, more than the {} skilldex reads at once",
                shown(),
                crate::text::thousands(opened.len as usize),
                crate::text::thousands(max as usize)
            ),
        ));
    }
    read_at_most(opened.file, max)
}

/// Split `relative` into the names it walks; `Err` for a path that is
/// absolute or climbs out of the folder on paper.
fn parts(relative: &str) -> Result<Vec<OsString>, Refusal> {
    if relative.contains('\0') {
        return Err(Refusal::Escapes("contains a NUL byte".to_string()));
    }
    let path = Path::new(relative);
    if path.is_absolute() || relative.starts_with(['/', '\\']) {
        return Err(Refusal::Escapes("is an absolute path".to_string()));
    }
    let mut out: Vec<OsString> = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => out.push(part.to_os_string()),
            Component::CurDir => {}
            Component::ParentDir => {
                if out.pop().is_none() {
                    return Err(Refusal::Escapes("leaves the skill folder".to_string()));
                }
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(Refusal::Escapes("is an absolute path".to_string()))
            }
        }
    }
    Ok(out)
}

/// One skill folder, opened: every path inside it is opened from here.
#[derive(Debug)]
pub struct Folder {
    #[cfg(unix)]
    base: rustix::fd::OwnedFd,
    /// The folder's real path (for messages and absolute links into it).
    pub real: PathBuf,
}

/// How `Folder::open_with` resolves: the kernel's `RESOLVE_BENEATH` when
/// it has it, or always the walk (so tests cover both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolver {
    Best,
    Walk,
}

impl Folder {
    /// Open the folder `dir` (a skill folder as the catalog knows it; a
    /// symlink to it is followed: the catalog chose it).
    pub fn open(dir: &Path) -> std::io::Result<Folder> {
        #[cfg(unix)]
        {
            use rustix::fs::{openat, Mode, OFlags, CWD};
            let base = openat(
                CWD,
                dir,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            let real = fd_path(&base)
                .or_else(|| dir.canonicalize().ok())
                .unwrap_or_else(|| dir.to_path_buf());
            Ok(Folder { base, real })
        }
        #[cfg(not(unix))]
        {
            let real = dir.canonicalize()?;
            Ok(Folder { real })
        }
    }

    /// Open `relative` inside the folder (empty: the folder itself).
    pub fn open_path(&self, relative: &str) -> Result<Opened, Refusal> {
        self.open_with(relative, Resolver::Best)
    }

    pub fn open_with(&self, relative: &str, resolver: Resolver) -> Result<Opened, Refusal> {
        let parts = parts(relative)?;
        #[cfg(target_os = "linux")]
        if resolver == Resolver::Best {
            if let Some(opened) = self.open_beneath(&parts) {
                return Ok(opened);
            }
        }
        let _ = resolver;
        self.walk(parts)
    }

    /// Open the skill file `name` of this skill folder (`path`, a path
    /// under `root`, is the same file as the catalog wrote it). A skill
    /// file may be a symlink out of its folder to a file elsewhere in the
    /// root (a repository that keeps its skills' text in `docs/`): only
    /// that link is then followed, from the root opened here, with the
    /// same boundary as any other path (the opened file is judged inside
    /// the root, never by name), so a link retargeted outside meanwhile is
    /// refused. The skill stays this folder's: `real` is `name`.
    pub fn open_skill_file(&self, name: &str, root: &Path, path: &Path) -> Result<Opened, Refusal> {
        let refusal = match self.open_path(name) {
            Err(refusal @ (Refusal::LinksOut { .. } | Refusal::Escapes(_))) => refusal,
            other => return other,
        };
        let Some(inside) = path
            .strip_prefix(root)
            .ok()
            .filter(|p| p.file_name().is_some())
        else {
            return Err(refusal);
        };
        let root = Folder::open(root).map_err(Refusal::Io)?;
        let mut opened = root
            .open_path(&crate::paths::slash_path(inside))
            .map_err(|refusal| match refusal {
                Refusal::LinksOut { target } => Refusal::LinksOut { target },
                Refusal::Escapes(why) => Refusal::Escapes(why.replace("skill folder", "root")),
                other => other,
            })?;
        if opened.kind != OpenedKind::File {
            return Err(Refusal::Special("a folder"));
        }
        opened.real = name.to_string();
        opened.through_link = true;
        opened.elsewhere_in_root = true;
        Ok(opened)
    }

    /// `openat2` with `RESOLVE_BENEATH`: `None` when the kernel lacks it
    /// or refuses the path (the walk then says why, in words).
    #[cfg(target_os = "linux")]
    fn open_beneath(&self, parts: &[OsString]) -> Option<Opened> {
        use rustix::fs::{openat2, Mode, OFlags, ResolveFlags};
        let joined: PathBuf = if parts.is_empty() {
            PathBuf::from(".")
        } else {
            parts.iter().collect()
        };
        let fd = openat2(
            &self.base,
            &joined,
            OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY,
            Mode::empty(),
            ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
        )
        .ok()?;
        // Where it really is: the kernel's name for the open file.
        let real = fd_path(&fd)?;
        let inside = real.strip_prefix(&self.real).ok()?;
        let real_relative = crate::paths::slash_path(inside);
        // A link was followed when the real path is not the path asked.
        let asked: PathBuf = parts.iter().collect();
        let through_link = inside != asked;
        finish(File::from(fd), real_relative, through_link).ok()
    }

    /// Walk `parts` one name at a time from the open folder, never
    /// following a symlink by name: each link is read and its target
    /// walked from the folders already open.
    #[cfg(unix)]
    fn walk(&self, parts: Vec<OsString>) -> Result<Opened, Refusal> {
        use rustix::fs::{openat, readlinkat, Mode, OFlags};
        use rustix::io::Errno;
        use std::collections::VecDeque;
        use std::os::unix::ffi::OsStrExt;
        let mut pending: VecDeque<OsString> = parts.into();
        // The folders open below the base, with their names.
        let mut stack: Vec<(rustix::fd::OwnedFd, OsString)> = Vec::new();
        let mut links = 0usize;
        let mut through_link = false;
        let real_of = |stack: &[(rustix::fd::OwnedFd, OsString)], last: Option<&OsString>| {
            let mut names: Vec<String> = stack
                .iter()
                .map(|(_, name)| name.to_string_lossy().into_owned())
                .collect();
            names.extend(last.map(|n| n.to_string_lossy().into_owned()));
            names.join("/")
        };
        if pending.is_empty() {
            let fd = openat(
                &self.base,
                ".",
                OFlags::RDONLY | OFlags::CLOEXEC | OFlags::DIRECTORY,
                Mode::empty(),
            )
            .map_err(|e| Refusal::Io(e.into()))?;
            return finish(File::from(fd), String::new(), false);
        }
        while let Some(part) = pending.pop_front() {
            if part == ".." {
                if stack.pop().is_none() {
                    return Err(Refusal::Escapes(
                        "leads through a symlink out of the skill folder".to_string(),
                    ));
                }
                continue;
            }
            if part == "." || part.is_empty() {
                continue;
            }
            let last = pending.is_empty();
            let parent = match stack.last() {
                Some((fd, _)) => rustix::fd::AsFd::as_fd(fd),
                None => rustix::fd::AsFd::as_fd(&self.base),
            };
            let mut flags = OFlags::RDONLY
                | OFlags::CLOEXEC
                | OFlags::NOFOLLOW
                | OFlags::NONBLOCK
                | OFlags::NOCTTY;
            if !last {
                flags |= OFlags::DIRECTORY;
            }
            match openat(parent, &part, flags, Mode::empty()) {
                Ok(fd) if last => {
                    let real = real_of(&stack, Some(&part));
                    return finish(File::from(fd), real, through_link);
                }
                Ok(fd) => stack.push((fd, part)),
                Err(Errno::LOOP | Errno::NOTDIR | Errno::MLINK) => {
                    // A symlink (O_NOFOLLOW refused it), or a file where a
                    // folder was wanted.
                    let target = match readlinkat(parent, &part, Vec::new()) {
                        Ok(target) => target,
                        Err(Errno::INVAL) => return Err(Refusal::Missing),
                        Err(Errno::NOENT) => return Err(Refusal::Missing),
                        Err(error) => return Err(Refusal::Io(error.into())),
                    };
                    links += 1;
                    through_link = true;
                    if links > MAX_LINKS {
                        return Err(Refusal::Escapes(format!(
                            "goes through more than {MAX_LINKS} symlinks (a symlink loop?)"
                        )));
                    }
                    let target = PathBuf::from(std::ffi::OsStr::from_bytes(target.as_bytes()));
                    let here = self.real.join(real_of(&stack, None));
                    let outside = |target: &Path| Refusal::LinksOut {
                        target: crate::entry::printable(
                            &crate::paths::normalize(&here.join(target)).to_string_lossy(),
                        )
                        .into_owned(),
                    };
                    let rest: Vec<OsString> = if target.is_absolute() {
                        // Absolute, but into this folder: walked from it.
                        let Ok(inside) = target.strip_prefix(&self.real) else {
                            return Err(outside(&target));
                        };
                        stack.clear();
                        inside.iter().map(|p| p.to_os_string()).collect()
                    } else {
                        target.iter().map(|p| p.to_os_string()).collect()
                    };
                    // The target's names, then what was left of the path;
                    // a `..` that climbs above the base is refused above.
                    let climbs = {
                        let mut depth = stack.len() as isize;
                        rest.iter().any(|p| {
                            if p == ".." {
                                depth -= 1;
                            } else if p != "." {
                                depth += 1;
                            }
                            depth < 0
                        })
                    };
                    if climbs {
                        return Err(outside(&target));
                    }
                    for name in rest.into_iter().rev() {
                        pending.push_front(name);
                    }
                }
                Err(Errno::NOENT) if through_link => return Err(Refusal::Dangling),
                Err(Errno::NOENT) => return Err(Refusal::Missing),
                // A socket (or a device without a driver) cannot be
                // opened: say what it is, as for a pipe.
                Err(Errno::NXIO) => return Err(Refusal::Special(special_at(parent, &part))),
                Err(error) => return Err(Refusal::Io(error.into())),
            }
        }
        // Only reached when the path ended in `..` or `.`: the folder now
        // on top of the stack.
        let fd = match stack.last() {
            Some((fd, _)) => rustix::fs::openat(
                fd,
                ".",
                OFlags::RDONLY | OFlags::CLOEXEC | OFlags::DIRECTORY,
                Mode::empty(),
            ),
            None => rustix::fs::openat(
                &self.base,
                ".",
                OFlags::RDONLY | OFlags::CLOEXEC | OFlags::DIRECTORY,
                Mode::empty(),
            ),
        }
        .map_err(|e| Refusal::Io(e.into()))?;
        finish(File::from(fd), real_of(&stack, None), through_link)
    }

    #[cfg(not(unix))]
    fn walk(&self, parts: Vec<OsString>) -> Result<Opened, Refusal> {
        // No `openat` here: resolve by real paths (racy, but never by a
        // name that was not checked just before).
        let joined: PathBuf = parts.iter().collect();
        let path = self.real.join(&joined);
        let real = match path.canonicalize() {
            Ok(real) => real,
            Err(_) if std::fs::symlink_metadata(&path).is_ok() => return Err(Refusal::Dangling),
            Err(_) => return Err(Refusal::Missing),
        };
        let Ok(inside) = real.strip_prefix(&self.real) else {
            return Err(Refusal::LinksOut {
                target: real.display().to_string(),
            });
        };
        let file = File::open(&real).map_err(Refusal::Io)?;
        finish(
            file,
            crate::paths::slash_path(inside),
            inside != joined.as_path(),
        )
    }
}

/// Check what was opened, on the open file.
/// What the entry `name` of the open folder `parent` is, in words, when
/// opening it failed with ENXIO (a socket, a device with no driver).
#[cfg(unix)]
fn special_at(parent: rustix::fd::BorrowedFd<'_>, name: &OsString) -> &'static str {
    use rustix::fs::{statat, AtFlags, FileType};
    match statat(parent, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW)
        .map(|stat| FileType::from_raw_mode(stat.st_mode))
    {
        Ok(FileType::Socket) => "a socket",
        Ok(FileType::CharacterDevice) => "a character device",
        Ok(FileType::BlockDevice) => "a block device",
        Ok(FileType::Fifo) => "a named pipe (FIFO)",
        _ => "a special file",
    }
}

fn finish(file: File, real: String, through_link: bool) -> Result<Opened, Refusal> {
    let metadata = file.metadata().map_err(Refusal::Io)?;
    let kind = if metadata.is_file() {
        OpenedKind::File
    } else if metadata.is_dir() {
        OpenedKind::Folder
    } else {
        return Err(Refusal::Special(kind_name(metadata.file_type())));
    };
    Ok(Opened {
        file,
        kind,
        len: metadata.len(),
        real,
        through_link,
        elsewhere_in_root: false,
    })
}

/// The path the kernel gives an open file (`/proc/self/fd/N`).
#[cfg(unix)]
fn fd_path(fd: &rustix::fd::OwnedFd) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let link = std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd())).ok()?;
        // A deleted file or folder is named "… (deleted)": not a path.
        link.is_absolute().then_some(link).filter(|p| p.exists())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = fd;
        None
    }
}

/// What an entry of a listed folder is, by its own type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryType {
    File,
    Folder,
    Symlink,
    /// A pipe, socket or device.
    Other,
}

/// The names in an open folder (without `.` and `..`), sorted, with the
/// type of each entry itself (a symlink is a symlink). Listed from the
/// open folder, so a folder swapped for a link meanwhile is not listed.
#[cfg(unix)]
pub fn list(folder: &File) -> std::io::Result<Vec<(OsString, EntryType)>> {
    use rustix::fs::FileType;
    use std::os::unix::ffi::OsStrExt;
    let mut out = Vec::new();
    let fd = rustix::fd::AsFd::as_fd(folder);
    let mut listing = rustix::fs::Dir::read_from(fd)?;
    while let Some(entry) = listing.read() {
        let entry = entry?;
        let name = std::ffi::OsStr::from_bytes(entry.file_name().to_bytes());
        if name == "." || name == ".." {
            continue;
        }
        let file_type = match entry.file_type() {
            FileType::Unknown => {
                match rustix::fs::statat(fd, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW) {
                    Ok(stat) => FileType::from_raw_mode(stat.st_mode),
                    Err(_) => continue,
                }
            }
            known => known,
        };
        let kind = match file_type {
            FileType::RegularFile => EntryType::File,
            FileType::Directory => EntryType::Folder,
            FileType::Symlink => EntryType::Symlink,
            _ => EntryType::Other,
        };
        out.push((name.to_os_string(), kind));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

#[cfg(not(unix))]
pub fn list(_folder: &File) -> std::io::Result<Vec<(OsString, EntryType)>> {
    Err(std::io::Error::other("listing an open folder needs Unix"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(folder: &Folder, relative: &str) -> Vec<Result<Opened, Refusal>> {
        vec![
            folder.open_with(relative, Resolver::Best),
            folder.open_with(relative, Resolver::Walk),
        ]
    }

    #[cfg(unix)]
    #[test]
    fn links_inside_resolve_and_links_out_are_refused() {
        let temp = tempfile::tempdir().unwrap();
        let skill = temp.path().join("skill");
        std::fs::create_dir_all(skill.join("refs/deep")).unwrap();
        std::fs::write(skill.join("refs/a.md"), "a").unwrap();
        std::fs::write(temp.path().join("SECRET"), "secret").unwrap();
        let link = |target: &str, name: &str| {
            std::os::unix::fs::symlink(target, skill.join(name)).unwrap();
        };
        link("refs/a.md", "alias.md");
        link("../a.md", "refs/deep/up.md");
        link("../SECRET", "out.md");
        link(temp.path().join("SECRET").to_str().unwrap(), "abs-out.md");
        link(skill.join("refs/a.md").to_str().unwrap(), "abs-in.md");
        link("refs", "folder-link");
        link("loop", "loop");
        link("nothing", "dangling");
        let folder = Folder::open(&skill).unwrap();
        for (path, real) in [
            ("alias.md", "refs/a.md"),
            ("refs/deep/up.md", "refs/a.md"),
            ("abs-in.md", "refs/a.md"),
            ("folder-link/a.md", "refs/a.md"),
            ("refs/./deep/../a.md", "refs/a.md"),
        ] {
            for opened in both(&folder, path) {
                let opened = opened.unwrap_or_else(|e| panic!("{path}: {e}"));
                assert_eq!(opened.real, real, "{path}");
                assert_eq!(opened.kind, OpenedKind::File);
            }
        }
        for path in ["out.md", "abs-out.md", "../SECRET", "/etc/passwd"] {
            for opened in both(&folder, path) {
                assert!(
                    matches!(opened, Err(Refusal::Escapes(_) | Refusal::LinksOut { .. })),
                    "{path}: {opened:?}"
                );
            }
        }
        for opened in both(&folder, "loop") {
            assert!(matches!(opened, Err(Refusal::Escapes(_))), "{opened:?}");
        }
        for opened in both(&folder, "dangling") {
            assert!(matches!(opened, Err(Refusal::Dangling)), "{opened:?}");
        }
        for opened in both(&folder, "folder-link") {
            let opened = opened.unwrap();
            assert_eq!(
                (opened.kind, opened.real.as_str()),
                (OpenedKind::Folder, "refs")
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_pipe_is_refused_without_blocking() {
        let temp = tempfile::tempdir().unwrap();
        let fifo = temp.path().join("pipe");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )
        .unwrap();
        let folder = Folder::open(temp.path()).unwrap();
        for opened in both(&folder, "pipe") {
            assert!(
                matches!(opened, Err(Refusal::Special("a named pipe (FIFO)"))),
                "{opened:?}"
            );
        }
        let error = open_regular(&fifo).unwrap_err();
        assert!(error.to_string().contains("a named pipe (FIFO)"), "{error}");
    }
}
