//! The name index: which skill file each plain skill name stands for, kept
//! on disk between runs so `read NAME` on a large catalog need not scan it
//! whole.
//!
//! A name lives inside its file, and which skill a name reads is decided by
//! every skill of the catalog (an earlier root or a shallower folder wins a
//! clash). So the index is used only while nothing the answer depends on
//! has changed. It keeps a [`Stamp`] (file identity, size, modification and
//! change times) of every folder the scan listed, every symlink it
//! followed, every ignore file and every skill file; and the real path
//! each root and symlink led to, with the identity of every folder on the
//! way. A lookup checks them all again. Any difference — an edit in place, a
//! file added, renamed or removed, a link pointed elsewhere, a folder on
//! the way swapped, a permission or time change — and the caller scans the
//! whole catalog (which writes a new index). Checking costs one `stat` per
//! folder and skill file, against a scan's listing of every folder and
//! reading of every skill file.
//!
//! The stamps are taken after the scan, and an index is written only when
//! every stamped path last changed at least [`SETTLE`] before the scan
//! began (git's "racily clean" problem): then nothing changed while the
//! scan read it, and a later change, even within one tick of a coarse
//! clock (two seconds on FAT), gets a change time the stamp does not have.
//!
//! The index file is keyed by everything besides the files that decides
//! the names: the roots (and the current folder, for relative ones), the
//! scan bounds, the profile and skilldex's version. It is written to a
//! fresh temporary file and renamed into place, and ends with a checksum:
//! a torn or foreign file is a miss, never a wrong answer. There is no
//! index for catalogs with disabled skills, under [`MIN_SKILL_FILES`]
//! skills, or on network file systems (whose `stat` may answer from a
//! cache); and only on Linux, where this was tested.

use super::{Catalog, CatalogBuilder, CatalogError, Fnv};
use crate::scan::{PathLog, Route};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The first bytes of an index file; the digit is the format's version.
const MAGIC: &[u8; 8] = b"skdxnam2";

/// Catalogs with fewer skill files get no index: scanning them costs
/// about what checking an index would.
pub const MIN_SKILL_FILES: usize = 500;

/// How long before a scan every stamped path must have last changed for
/// its index to be written: FAT's clock ticks every two seconds.
const SETTLE: std::time::Duration = std::time::Duration::from_secs(2);

/// Index files kept in the cache folder (the most recently written).
const KEPT_INDEXES: usize = 8;

/// What a path looked like on disk, to tell later whether it changed: the
/// file it stands for, its size and its modification and change times. The
/// change time moves on every write, rename into place, permission change
/// or time reset, and cannot be set back by hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    device: u64,
    inode: u64,
    size: u64,
    /// Seconds and nanoseconds.
    modified: (i64, i64),
    changed: (i64, i64),
}

impl Stamp {
    /// The stamp of `path` inside the open folder `dir` (following
    /// symlinks); `None` when it cannot be read (missing, dangling, a loop,
    /// no permission).
    #[cfg(unix)]
    fn at(dir: impl std::os::fd::AsFd, path: &Path) -> Option<Stamp> {
        let s = rustix::fs::statat(dir, path, rustix::fs::AtFlags::empty()).ok()?;
        // The field types vary across systems; these casts only widen.
        #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
        Some(Stamp {
            device: s.st_dev as u64,
            inode: s.st_ino as u64,
            size: s.st_size as u64,
            modified: (s.st_mtime as i64, s.st_mtime_nsec as i64),
            changed: (s.st_ctime as i64, s.st_ctime_nsec as i64),
        })
    }
}

/// Why a lookup did not give a catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Miss {
    /// No index was saved for these settings.
    NoIndex,
    /// The index file is damaged or from another version.
    Damaged,
    /// A path the index depends on changed since it was written.
    Changed(PathBuf),
    /// The index is current but has no skill of that plain name (it may
    /// be a qualified id, a file that does not load, or no skill at all:
    /// a whole catalog says which).
    NotIndexed,
    /// The settings rule the index out.
    NotApplicable,
}

impl std::fmt::Display for Miss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Miss::NoIndex => write!(f, "no index for these roots and settings yet"),
            Miss::Damaged => write!(f, "the index file is damaged or from another version"),
            Miss::Changed(path) => write!(f, "{} changed", printable(path)),
            Miss::NotIndexed => write!(f, "the name is not a plain skill name in it"),
            Miss::NotApplicable => write!(
                f,
                "none is kept with disabled skills, from an unreadable current folder, or outside Linux"
            ),
        }
    }
}

fn printable(path: &Path) -> String {
    crate::model::printable(&path.to_string_lossy()).into_owned()
}

/// What a lookup found: the catalog of the one skill, or why not.
pub struct Lookup {
    pub result: Result<Catalog, Miss>,
    /// Paths whose stamps were checked.
    pub checked: usize,
}

/// What a whole build left behind.
pub struct Saved {
    pub catalog: Catalog,
    /// `Ok(names)` when an index was written; otherwise why not.
    pub index: Result<usize, String>,
}

/// Index files kept in one folder (`~/.cache/skilldex` for the CLI).
#[derive(Debug, Clone)]
pub struct NameCache {
    dir: PathBuf,
}

impl NameCache {
    pub fn new(dir: impl Into<PathBuf>) -> NameCache {
        NameCache { dir: dir.into() }
    }

    fn file_for(&self, key: u64) -> PathBuf {
        self.dir.join(format!("names-{key:016x}.idx"))
    }

    /// The catalog of the one skill the plain name `name` reads, built from
    /// its file alone, when the saved index for `builder` is still valid
    /// and knows the name. It answers as the whole catalog would: the
    /// index says which file wins the name, and the stamps that nothing
    /// changed since.
    pub fn lookup(&self, builder: &CatalogBuilder, name: &str) -> Lookup {
        let miss = |miss, checked| Lookup {
            result: Err(miss),
            checked,
        };
        let Some(key) = builder.index_key() else {
            return miss(Miss::NotApplicable, 0);
        };
        let name = name.trim().trim_matches('/');
        let bytes = match read_regular(&self.file_for(key)) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return miss(Miss::Damaged, 0),
            Err(_) => return miss(Miss::NoIndex, 0),
        };
        let Some(index) = View::decode(&bytes, key) else {
            return miss(Miss::Damaged, 0);
        };
        let checked = index.entries.len();
        if let Some(changed) = index.first_change() {
            return miss(Miss::Changed(changed), checked);
        }
        // A current index without the name: it is no plain skill name.
        let Some(file) = index.file_of(name) else {
            return miss(Miss::NotIndexed, checked);
        };
        // The file is read again now; its name must still be the one
        // indexed (it may have changed since the stamps were checked).
        let result = match builder.build_files(std::slice::from_ref(&file)) {
            Ok(catalog)
                if catalog
                    .skills()
                    .iter()
                    .any(|s| s.id == name && s.name == name && s.path == file) =>
            {
                Ok(catalog)
            }
            _ => Err(Miss::Changed(file)),
        };
        Lookup { result, checked }
    }

    /// Build the whole catalog and save its index. An index is not saved
    /// for a small catalog, when a path it depends on changed shortly
    /// before or during the scan, when a bound cut the walk, on a network
    /// file system, or when the folder cannot be written; the catalog is
    /// returned all the same.
    pub fn build(&self, builder: &CatalogBuilder) -> Result<Saved, CatalogError> {
        let Some(key) = builder.index_key() else {
            return Ok(Saved {
                catalog: builder.build()?,
                index: Err(Miss::NotApplicable.to_string()),
            });
        };
        let started = std::time::SystemTime::now();
        // Where each root leads, before the scan reads it.
        let roots: Vec<Option<Route>> = builder.roots().iter().map(|r| Route::of(r)).collect();
        let log = Arc::new(PathLog::default());
        let catalog = builder.build_recorded(Arc::clone(&log))?;
        let (paths, links) = Arc::try_unwrap(log).unwrap_or_default().into_parts();
        let Some(mut routes) = roots.into_iter().collect::<Option<Vec<Route>>>() else {
            return Ok(Saved {
                catalog,
                index: Err("a root has no real path".into()),
            });
        };
        routes.extend(links);
        let index = self.save(&catalog, &paths, &routes, key, started);
        Ok(Saved { catalog, index })
    }

    fn save(
        &self,
        catalog: &Catalog,
        paths: &[PathBuf],
        routes: &[Route],
        key: u64,
        started: std::time::SystemTime,
    ) -> Result<usize, String> {
        use crate::model::Code;
        if catalog
            .diagnostics()
            .iter()
            .any(|d| d.code == Code::WalkLimit)
        {
            return Err("a bound cut the walk".into());
        }
        // A folder or file that could not be read (permissions, too many
        // open files) may be readable next time, by another user, with
        // nothing stamped changing: that answer is not kept.
        if let Some(d) = catalog
            .diagnostics()
            .iter()
            .find(|d| matches!(d.code, Code::ReadFailed | Code::WalkError))
        {
            return Err(format!("{} could not be read", printable(&d.path)));
        }
        let mut built = Built::new(paths, routes, catalog)?;
        if built.skill_files < MIN_SKILL_FILES {
            return Err(format!(
                "{} skill files: under {MIN_SKILL_FILES}, a scan is about as fast",
                built.skill_files
            ));
        }
        for route in routes {
            if remote(&route.real) {
                return Err(format!(
                    "{} is on a network file system, whose `stat` may answer from a cache",
                    printable(&route.given)
                ));
            }
            // A root or link pointed elsewhere, or a folder on its way
            // swapped, while the scan ran.
            if Route::of(&route.given).as_ref() != Some(route) {
                return Err(format!(
                    "{} changed during the scan",
                    printable(&route.given)
                ));
            }
        }
        built.stamp(started)?;
        // A network file system mounted inside a root: one path of each
        // file system met says which it is.
        let mut devices = std::collections::HashSet::new();
        for entry in &built.entries {
            if let Some(stamp) = entry.stamp {
                if devices.insert(stamp.device) {
                    let path = whole(&built.anchors[entry.anchor as usize], &entry.inside);
                    if remote(&path) {
                        return Err(format!(
                            "{} is on a network file system, whose `stat` may answer from a cache",
                            printable(&path)
                        ));
                    }
                }
            }
        }
        // The cache folder inside a root (through a symlink, say) would
        // change with every index written into it.
        if let Some(cache) = stamp_of(&self.dir) {
            let inside = built.entries.iter().any(|e| {
                e.stamp
                    .is_some_and(|s| (s.device, s.inode) == (cache.device, cache.inode))
            });
            if inside {
                return Err(format!(
                    "the cache folder {} is inside a root",
                    printable(&self.dir)
                ));
            }
        }
        let bytes = built.encode(key);
        let file = self.file_for(key);
        write_privately(&file, &bytes)
            .map_err(|error| format!("could not write to {}: {error}", self.dir.display()))?;
        self.prune(&file);
        Ok(built.names.len())
    }

    /// Remove all but the [`KEPT_INDEXES`] most recently written index
    /// files (one per set of roots and settings), `keep` among them, and
    /// temporary files left by runs that were stopped.
    fn prune(&self, keep: &Path) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let now = std::time::SystemTime::now();
        let mut files: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Some(modified) = entry.metadata().ok().and_then(|m| m.modified().ok()) else {
                continue;
            };
            if !name.starts_with("names-") {
                continue;
            }
            if name.ends_with(".idx") {
                files.push((modified, entry.path()));
            } else if name.ends_with(".tmp")
                && now
                    .duration_since(modified)
                    .is_ok_and(|age| age.as_secs() > 60)
            {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        files.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        for (_, path) in files.iter().skip(KEPT_INDEXES) {
            if path != keep {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

impl CatalogBuilder {
    /// What decides the names besides the files: `None` when there is no
    /// index (disabled skills, a visitor that must see every file, a
    /// system other than Linux).
    fn index_key(&self) -> Option<u64> {
        let linux = cfg!(any(target_os = "linux", target_os = "android"));
        if !linux || !self.disabled.is_empty() || self.visitor.is_some() {
            return None;
        }
        let mut hash = Fnv::new();
        hash.write(MAGIC);
        hash.write(env!("CARGO_PKG_VERSION").as_bytes());
        // Paths are kept as the walk writes them, relative to the current
        // folder when a root is: then it is part of the key.
        if self.roots.iter().any(|root| root.is_relative()) {
            hash.write(std::env::current_dir().ok()?.as_os_str().as_encoded_bytes());
        }
        for root in &self.roots {
            hash.write(root.as_os_str().as_encoded_bytes());
        }
        hash.write(format!("{:?} {:?}", self.limits, self.profile).as_bytes());
        Some(hash.finish())
    }
}

/// True for a path on a network file system (NFS, SMB, FUSE, 9P, Ceph,
/// AFS and the like), where `stat` may answer from a cache of attributes.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn remote(path: &Path) -> bool {
    const REMOTE: &[u64] = &[
        0x6969,      // NFS
        0x517b,      // SMB
        0xff53_4d42, // CIFS
        0xfe53_4d42, // SMB2
        0x6573_5546, // FUSE (sshfs, …)
        0x0102_1997, // 9P
        0x00c3_6400, // Ceph
        0x5346_414f, // AFS
        0x7375_7245, // Coda
        0x0bd0_0bd0, // Lustre
        0x0116_1970, // GFS2
        0x7461_636f, // OCFS2
        0x6a65_6a63, // virtiofs
    ];
    // Unknown means not known to be local.
    rustix::fs::statfs(path).map_or(true, |s| {
        #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
        let kind = s.f_type as u64;
        REMOTE.contains(&kind)
    })
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn remote(_: &Path) -> bool {
    true
}

/// One stamped path: inside which anchor, and its stamp.
struct Entry {
    anchor: u32,
    inside: PathBuf,
    stamp: Option<Stamp>,
}

/// An index being written: every path as an *anchor* folder and a short
/// path inside it (a folder or link inside its parent, a skill file inside
/// its folder's parent), so a check looks up one or two names inside an
/// open anchor instead of a whole path; each plain name's skill file; and
/// the real path of each root and symlink.
struct Built {
    anchors: Vec<PathBuf>,
    /// Grouped by anchor, in order.
    entries: Vec<Entry>,
    /// Plain name → index into `entries` of its skill file.
    names: BTreeMap<String, u32>,
    routes: Vec<Route>,
    skill_files: usize,
}

impl Built {
    /// The index of `catalog`, whose scan depended on `paths` and followed
    /// `routes` (roots and symlinks, with their real paths). Nothing is
    /// stamped yet.
    fn new(paths: &[PathBuf], routes: &[Route], catalog: &Catalog) -> Result<Built, String> {
        let is_skill_file = |path: &Path| {
            path.file_name()
                .is_some_and(|n| crate::scan::SKILL_FILE_NAMES.iter().any(|s| n == *s))
        };
        let mut skill_files = 0;
        // (anchor, path inside it, is a skill file), split and sorted as
        // bytes: paths compare and hash component by component, too slowly
        // for 20,000 of them.
        let mut split: Vec<(&[u8], &[u8], bool)> = paths
            .iter()
            .map(|path| {
                let skill_file = is_skill_file(path);
                skill_files += usize::from(skill_file);
                let whole = path.as_os_str().as_encoded_bytes();
                match split_anchor(whole, if skill_file { 2 } else { 1 }) {
                    Some((anchor, inside)) => (anchor, inside, skill_file),
                    // A path without that many folders above it (a short
                    // relative one) is checked whole, under the anchor `.`.
                    None => (&b"."[..], whole, skill_file),
                }
            })
            .collect();
        split.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        let mut built = Built {
            anchors: Vec::new(),
            entries: Vec::with_capacity(split.len()),
            names: BTreeMap::new(),
            routes: routes.to_vec(),
            skill_files,
        };
        let mut position: std::collections::HashMap<Vec<u8>, u32> = Default::default();
        for (anchor, inside, skill_file) in split {
            let (Some(anchor), Some(inside)) = (path_of(anchor), path_of(inside)) else {
                return Err("a path is not valid here".into());
            };
            if built.anchors.last().map(PathBuf::as_path) != Some(anchor) {
                built.anchors.push(anchor.to_path_buf());
            }
            if skill_file {
                let whole = whole(anchor, inside);
                position.insert(
                    whole.as_os_str().as_encoded_bytes().to_vec(),
                    built.entries.len() as u32,
                );
            }
            built.entries.push(Entry {
                anchor: (built.anchors.len() - 1) as u32,
                inside: inside.to_path_buf(),
                stamp: None,
            });
        }
        for skill in catalog.skills() {
            if skill.id != skill.name {
                continue;
            }
            match position.get(skill.path.as_os_str().as_encoded_bytes()) {
                Some(&i) => {
                    built.names.insert(skill.name.clone(), i);
                }
                // Every skill file is noted; one that is not means the
                // index would not notice it change.
                None => {
                    return Err(format!(
                        "{} was not noted by the scan",
                        printable(&skill.path)
                    ))
                }
            }
        }
        Ok(built)
    }

    /// Stamp every path now. Fails on the first that changed less than
    /// [`SETTLE`] before `started` (or after it: the scan may have read it
    /// before or after the change, and another change within the same
    /// tick of a coarse clock would keep its stamp).
    fn stamp(&mut self, started: std::time::SystemTime) -> Result<(), String> {
        let settled = started
            .checked_sub(SETTLE)
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|t| (t.as_secs() as i64, i64::from(t.subsec_nanos())))
            .ok_or("the clock is before 1970")?;
        let anchors: Vec<&Path> = self.anchors.iter().map(PathBuf::as_path).collect();
        let entries: Vec<(u32, &Path)> = self
            .entries
            .iter()
            .map(|e| (e.anchor, e.inside.as_path()))
            .collect();
        let recent = Mutex::new(None);
        let stamps = stamp_all(&anchors, &entries, &|i, stamp| {
            let settled_then = stamp.is_none_or(|s| s.changed < settled);
            if !settled_then {
                *recent.lock().unwrap_or_else(|e| e.into_inner()) = Some(i);
            }
            settled_then
        });
        match stamps {
            Some(stamps) => {
                for (entry, stamp) in self.entries.iter_mut().zip(stamps) {
                    entry.stamp = stamp;
                }
                Ok(())
            }
            None => {
                let i = recent.into_inner().unwrap_or_else(|e| e.into_inner());
                let path = i.map_or_else(
                    || PathBuf::from("(a checking thread failed)"),
                    |i| whole(anchors[entries[i].0 as usize], entries[i].1),
                );
                Err(format!(
                    "{} changed less than {} seconds before the scan; a later read writes it",
                    printable(&path),
                    SETTLE.as_secs()
                ))
            }
        }
    }

    fn encode(&self, key: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.entries.len() * 80);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&key.to_le_bytes());
        put_u32(&mut out, self.anchors.len() as u32);
        for anchor in &self.anchors {
            put_bytes(&mut out, anchor.as_os_str().as_encoded_bytes());
        }
        put_u32(&mut out, self.entries.len() as u32);
        for entry in &self.entries {
            put_u32(&mut out, entry.anchor);
            put_bytes(&mut out, entry.inside.as_os_str().as_encoded_bytes());
            out.push(u8::from(entry.stamp.is_some()));
            if let Some(s) = entry.stamp {
                for value in [
                    s.device,
                    s.inode,
                    s.size,
                    s.modified.0 as u64,
                    s.modified.1 as u64,
                    s.changed.0 as u64,
                    s.changed.1 as u64,
                ] {
                    out.extend_from_slice(&value.to_le_bytes());
                }
            }
        }
        put_u32(&mut out, self.names.len() as u32);
        for (name, &i) in &self.names {
            put_bytes(&mut out, name.as_bytes());
            put_u32(&mut out, i);
        }
        put_u32(&mut out, self.routes.len() as u32);
        for route in &self.routes {
            put_bytes(&mut out, route.given.as_os_str().as_encoded_bytes());
            put_bytes(&mut out, route.real.as_os_str().as_encoded_bytes());
            put_u32(&mut out, route.chain.len() as u32);
            for &(device, inode) in &route.chain {
                out.extend_from_slice(&device.to_le_bytes());
                out.extend_from_slice(&inode.to_le_bytes());
            }
        }
        let mut hash = Fnv::new();
        hash.write(&out);
        out.extend_from_slice(&hash.finish().to_le_bytes());
        out
    }
}

/// `path` cut at the separator `levels` names from its end: the anchor
/// folder and the path inside it, which joined with a `/` give `path` back
/// byte for byte. `None` when there are not that many names or the cut
/// would not give the path back (`a//b`, a trailing `/`, `.` or `..`
/// inside, an anchor `/`).
fn split_anchor(path: &[u8], levels: usize) -> Option<(&[u8], &[u8])> {
    let mut cut = path.len();
    for _ in 0..levels {
        cut = path[..cut].iter().rposition(|&b| b == b'/')?;
    }
    let (anchor, inside) = (&path[..cut], &path[cut + 1..]);
    let clean = inside
        .split(|&b| b == b'/')
        .all(|name| !name.is_empty() && name != b"." && name != b"..");
    (anchor.len() > 1 && !anchor.ends_with(b"/") && clean).then_some((anchor, inside))
}

/// `inside` under `anchor`, as the walk wrote it.
fn whole(anchor: &Path, inside: &Path) -> PathBuf {
    if anchor == Path::new(".") {
        inside.to_path_buf()
    } else {
        anchor.join(inside)
    }
}

/// Stamp `entries` (an anchor and a path inside it, grouped by anchor) on
/// two threads, each anchor opened once.
/// `keep` sees each stamp as it is taken, with its entry's index; on the
/// first it refuses, the rest are left unstamped and the answer is `None`.
fn stamp_all(
    anchors: &[&Path],
    entries: &[(u32, &Path)],
    keep: &(dyn Fn(usize, Option<Stamp>) -> bool + Sync),
) -> Option<Vec<Option<Stamp>>> {
    let stop = AtomicBool::new(false);
    let run = |range: std::ops::Range<usize>| -> Option<Vec<Option<Stamp>>> {
        let mut out = Vec::with_capacity(range.len());
        let mut i = range.start;
        while i < range.end {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let anchor = entries[i].0;
            let end = (i..range.end)
                .find(|&j| entries[j].0 != anchor)
                .unwrap_or(range.end);
            // The current folder is not opened: its paths are whole.
            let here = anchors[anchor as usize] == Path::new(".");
            let dir = if here {
                None
            } else {
                open_folder(anchors[anchor as usize])
            };
            for (j, &(_, inside)) in entries.iter().enumerate().take(end).skip(i) {
                let stamp = match &dir {
                    Some(dir) => stamp_at(dir, inside),
                    // Not a folder now (or unreadable): each path says
                    // for itself.
                    None => stamp_of(&whole(anchors[anchor as usize], inside)),
                };
                if !keep(j, stamp) {
                    stop.store(true, Ordering::Relaxed);
                    return None;
                }
                out.push(stamp);
            }
            i = end;
        }
        Some(out)
    };
    let all = entries.len();
    if all < 256 {
        return run(0..all);
    }
    let half = all / 2;
    std::thread::scope(|scope| {
        let other = scope.spawn(|| run(half..all));
        let mine = run(0..half);
        // A thread that panicked stamped nothing.
        let theirs = other.join().ok().flatten();
        let mut mine = mine?;
        mine.extend(theirs?);
        Some(mine)
    })
}

/// A folder opened only to look names up inside it.
#[cfg(unix)]
fn open_folder(path: &Path) -> Option<std::os::fd::OwnedFd> {
    use rustix::fs::{Mode, OFlags};
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    rustix::fs::open(path, flags, Mode::empty()).ok()
}

#[cfg(unix)]
fn stamp_at(dir: &std::os::fd::OwnedFd, inside: &Path) -> Option<Stamp> {
    Stamp::at(dir, inside)
}

#[cfg(unix)]
fn stamp_of(path: &Path) -> Option<Stamp> {
    Stamp::at(rustix::fs::CWD, path)
}

// Without change times there is nothing to check: `index_key` keeps the
// index off, and these are never called.
#[cfg(not(unix))]
fn open_folder(_: &Path) -> Option<()> {
    None
}

#[cfg(not(unix))]
fn stamp_at(_: &(), _: &Path) -> Option<Stamp> {
    None
}

#[cfg(not(unix))]
fn stamp_of(_: &Path) -> Option<Stamp> {
    None
}

/// An index file read back, borrowing its bytes.
struct View<'a> {
    anchors: Vec<&'a Path>,
    entries: Vec<(u32, &'a Path, Option<Stamp>)>,
    /// The names section: (name, entry index) records, sorted by name.
    names: &'a [u8],
    routes: Vec<Route>,
}

impl<'a> View<'a> {
    /// The index in `bytes`, when they are a whole index file for `key`.
    fn decode(bytes: &'a [u8], key: u64) -> Option<View<'a>> {
        let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
        let mut hash = Fnv::new();
        hash.write(body);
        if hash.finish().to_le_bytes() != sum {
            return None;
        }
        let mut r = Reader(body);
        if r.take(8)? != MAGIC || r.u64()? != key {
            return None;
        }
        let count = r.u32()? as usize;
        let mut anchors = Vec::with_capacity(count.min(body.len() / 4));
        for _ in 0..count {
            anchors.push(path_of(r.bytes()?)?);
        }
        let count = r.u32()? as usize;
        let mut entries = Vec::with_capacity(count.min(body.len() / 9));
        let mut last = 0;
        for _ in 0..count {
            let anchor = r.u32()?;
            // Grouped by anchor, in order: the check relies on it.
            if anchor as usize >= anchors.len() || anchor < last {
                return None;
            }
            last = anchor;
            let inside = path_of(r.bytes()?)?;
            let stamp = match r.take(1)?[0] {
                0 => None,
                1 => {
                    let mut v = [0u64; 7];
                    for slot in &mut v {
                        *slot = r.u64()?;
                    }
                    Some(Stamp {
                        device: v[0],
                        inode: v[1],
                        size: v[2],
                        modified: (v[3] as i64, v[4] as i64),
                        changed: (v[5] as i64, v[6] as i64),
                    })
                }
                _ => return None,
            };
            entries.push((anchor, inside, stamp));
        }
        let count = r.u32()?;
        let names_start = r.0;
        for _ in 0..count {
            r.bytes()?;
            if r.u32()? as usize >= entries.len() {
                return None;
            }
        }
        let names = &names_start[..names_start.len() - r.0.len()];
        let count = r.u32()?;
        let mut routes = Vec::new();
        for _ in 0..count {
            let given = path_of(r.bytes()?)?.to_path_buf();
            let real = path_of(r.bytes()?)?.to_path_buf();
            let links = r.u32()? as usize;
            let mut chain = Vec::with_capacity(links.min(r.0.len() / 16));
            for _ in 0..links {
                chain.push((r.u64()?, r.u64()?));
            }
            routes.push(Route { given, real, chain });
        }
        r.0.is_empty().then_some(View {
            anchors,
            entries,
            names,
            routes,
        })
    }

    /// The whole path of entry `i`.
    fn path(&self, i: usize) -> PathBuf {
        let (anchor, inside, _) = self.entries[i];
        whole(self.anchors[anchor as usize], inside)
    }

    /// The skill file of the plain name `name`.
    fn file_of(&self, name: &str) -> Option<PathBuf> {
        let mut r = Reader(self.names);
        while !r.0.is_empty() {
            let (found, i) = (r.bytes()?, r.u32()?);
            if found == name.as_bytes() {
                return Some(self.path(i as usize));
            }
        }
        None
    }

    /// The first root or link that leads elsewhere now, or the first
    /// stamped path (in the order checked) that no longer matches its
    /// stamp.
    fn first_change(&self) -> Option<PathBuf> {
        for route in &self.routes {
            if Route::of(&route.given).as_ref() != Some(route) {
                return Some(route.given.clone());
            }
        }
        let entries: Vec<(u32, &Path)> = self
            .entries
            .iter()
            .map(|&(anchor, inside, _)| (anchor, inside))
            .collect();
        let changed = Mutex::new(None);
        let same = |i: usize, now: Option<Stamp>| {
            let same = now == self.entries[i].2;
            if !same {
                *changed.lock().unwrap_or_else(|e| e.into_inner()) = Some(i);
            }
            same
        };
        if stamp_all(&self.anchors, &entries, &same).is_some() {
            return None;
        }
        let i = changed.into_inner().unwrap_or_else(|e| e.into_inner());
        Some(i.map_or_else(
            || PathBuf::from("(a checking thread failed)"),
            |i| self.path(i),
        ))
    }
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}

fn put_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_u32(out, bytes.len() as u32);
    out.extend_from_slice(bytes);
}

#[cfg(unix)]
fn path_of(bytes: &[u8]) -> Option<&Path> {
    use std::os::unix::ffi::OsStrExt;
    Some(Path::new(std::ffi::OsStr::from_bytes(bytes)))
}

#[cfg(not(unix))]
fn path_of(bytes: &[u8]) -> Option<&Path> {
    std::str::from_utf8(bytes).ok().map(Path::new)
}

/// The bytes of the regular file at `path`; `None` when it is something
/// else (opened without blocking, so a pipe put there cannot hold the read).
fn read_regular(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut options,
        rustix::fs::OFlags::NONBLOCK.bits() as i32,
    );
    let mut file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(Some(bytes))
}

/// Write `bytes` to `path`, readable by the user only (an index lists
/// every skill's path), through a fresh temporary file in the same folder
/// renamed into place: a reader sees the old file or the new one, never
/// half of one, and no file planted at the temporary name is written
/// through.
fn write_privately(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut folder = std::fs::DirBuilder::new();
    folder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut folder, 0o700);
    folder.create(dir)?;
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.tmp", std::process::id()));
    let temp = dir.join(name);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options
        .open(&temp)
        .and_then(|mut file| file.write_all(bytes))
        .and_then(|()| std::fs::rename(&temp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_reads_back_as_written_and_nothing_else_does() {
        let stamp = Stamp {
            device: 1,
            inode: 2,
            size: 3,
            modified: (4, 5),
            changed: (-6, 7),
        };
        let entry = |inside: &str, stamp| Entry {
            anchor: 0,
            inside: PathBuf::from(inside),
            stamp,
        };
        let built = Built {
            anchors: vec![PathBuf::from("/r")],
            entries: vec![entry("a", Some(stamp)), entry("a/SKILL.md", None)],
            names: [("a".to_string(), 1)].into_iter().collect(),
            routes: vec![Route {
                given: PathBuf::from("r"),
                real: PathBuf::from("/r"),
                chain: vec![(1, 2), (1, 1)],
            }],
            skill_files: 1,
        };
        let bytes = built.encode(42);
        let view = View::decode(&bytes, 42).expect("reads back");
        assert_eq!(view.anchors, [Path::new("/r")]);
        assert_eq!(
            view.entries,
            [
                (0, Path::new("a"), Some(stamp)),
                (0, Path::new("a/SKILL.md"), None),
            ]
        );
        assert_eq!(view.routes, built.routes);
        assert_eq!(view.file_of("a"), Some(PathBuf::from("/r/a/SKILL.md")));
        assert_eq!(view.file_of("b"), None);
        // Another key, a torn file, a flipped byte: misses.
        assert!(View::decode(&bytes, 43).is_none());
        for cut in 0..bytes.len() {
            assert!(View::decode(&bytes[..cut], 42).is_none(), "cut at {cut}");
        }
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            assert!(View::decode(&bad, 42).is_none(), "byte {at}");
        }
    }

    #[test]
    fn anchors_give_each_path_back_byte_for_byte() {
        let split = |p: &str, levels| {
            split_anchor(p.as_bytes(), levels).map(|(a, i)| {
                (
                    String::from_utf8(a.to_vec()).unwrap(),
                    String::from_utf8(i.to_vec()).unwrap(),
                )
            })
        };
        let pair = |a: &str, i: &str| Some((a.to_string(), i.to_string()));
        assert_eq!(split("/r/ns/x/SKILL.md", 2), pair("/r/ns", "x/SKILL.md"));
        assert_eq!(split("r/ns/x", 1), pair("r/ns", "x"));
        assert_eq!(split("skills/x", 1), pair("skills", "x"));
        // Not cut: too short, doubled or trailing separators, `.`/`..`
        // inside, an anchor `/` or nothing.
        for (path, levels) in [
            ("x", 1),
            ("x/SKILL.md", 2),
            ("/x", 1),
            ("r//x", 1),
            ("r/x/", 1),
            ("r/./SKILL.md", 2),
            ("r/../x", 2),
        ] {
            assert_eq!(split(path, levels), None, "{path}");
        }
    }
}
