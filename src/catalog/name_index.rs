//! The name index: which skill file each plain skill name stands for, kept
//! on disk between runs so `read NAME` on a large catalog need not scan it
//! whole.
//!
//! A name lives inside its file, and which skill a name reads is decided by
//! every skill of the catalog (an earlier root or a shallower folder wins a
//! clash). So the index is used only while nothing the answer depends on
//! has changed. It keeps a [`Stamp`] (file identity, size, modification and
//! change times, type and permissions) of every folder the scan listed,
//! every symlink it followed, every ignore file and every skill file; and
//! the real path each root and symlink led to, with the identity of every
//! folder on the way. A read by name checks the roots and links and those
//! stamps that could change its answer: its own file and folder, the ignore
//! files, every skill file that comes before it in precedence order, and
//! the folders where a skill file would come before it
//! ([`View::bearing_on`]). Any difference — an edit in place, a file added,
//! renamed or removed, a link pointed elsewhere, a folder on the way
//! swapped, a permission or time change — and the caller scans the whole
//! catalog (which writes a new index). Checking costs one `stat` per path
//! checked, against a scan's listing of every folder and reading of every
//! skill file.
//!
//! One difference from a scan remains: a scan stops at its bound on
//! entries per root (a million by default) and then misses skills; a
//! catalog grown past it where no checked path changed is still answered
//! from the index, with the skill a smaller catalog would have given.
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
//!
//! While `skilldex watch` runs on the same roots, it watches every stamped
//! path and vouches that none changed: a read that gets its word checks
//! only the roots and links ([`ReadService`], in `watch.rs`).

mod watch;

pub use watch::{ReadService, ServiceNote};

use super::{Catalog, CatalogBuilder, CatalogError, Fnv};
use crate::scan::{PathLog, Route};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The first bytes of an index file; the digit is the format's version.
const MAGIC: &[u8; 8] = b"skdxnam5";

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
    /// File type and permissions.
    mode: u32,
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
            mode: s.st_mode as u32,
        })
    }

    /// What the index keeps: a digest of the fields. Each step of the
    /// hash is a bijection of its state, so two stamps that differ in one
    /// field never share a digest; several fields changed at once collide
    /// with odds of one in 2^64.
    fn digest(&self) -> u64 {
        let mut hash = Fnv::new();
        for word in [
            self.device,
            self.inode,
            self.size,
            self.modified.0 as u64,
            self.modified.1 as u64,
            self.changed.0 as u64,
            self.changed.1 as u64,
            u64::from(self.mode),
        ] {
            hash.write_u64(word);
        }
        hash.finish()
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
    /// The index has no skill that keeps that name (it may be the id of
    /// a skill that lost its name in a clash, a file that does not load,
    /// or no skill at all: a whole catalog says which). Nothing says the
    /// index is out of date.
    NotIndexed,
    /// The settings rule the index out.
    NotApplicable,
    /// The path after the name leads into a nested skill.
    Nested,
}

impl std::fmt::Display for Miss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Miss::NoIndex => write!(f, "no index for these roots and settings yet"),
            Miss::Damaged => write!(f, "the index file is damaged or from another version"),
            Miss::Changed(path) => write!(f, "{} changed", printable(path)),
            Miss::NotIndexed => write!(f, "it names no skill that keeps its name"),
            Miss::Nested => write!(
                f,
                "the path leads into a nested skill, which the whole catalog reads"
            ),
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
    /// Paths whose stamps were checked, of all the index has.
    pub checked: usize,
    pub of: usize,
    /// A running `skilldex watch` vouched that no stamped path changed:
    /// none was checked (the roots and links were).
    pub vouched: bool,
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

    /// Where a running `skilldex watch` answers whether the index of
    /// `key` is current (see [`ReadService`]).
    fn socket_for(&self, key: u64) -> PathBuf {
        self.dir.join(format!("names-{key:016x}.sock"))
    }

    /// The catalog of the one skill the read target `name` names (a name
    /// or `namespace/name`, either with a path inside the skill after it),
    /// built from its file alone, when the saved index for `builder` is
    /// still valid and knows the skill. It answers as the whole catalog
    /// would: the index says which file wins the name, and the stamps that
    /// nothing changed since.
    pub fn lookup(&self, builder: &CatalogBuilder, name: &str) -> Lookup {
        let miss = |miss, checked, of| Lookup {
            result: Err(miss),
            checked,
            of,
            vouched: false,
        };
        let Some(key) = builder.index_key() else {
            return miss(Miss::NotApplicable, 0, 0);
        };
        let name = name.trim().trim_matches('/');
        let bytes = match read_regular(&self.file_for(key)) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return miss(Miss::Damaged, 0, 0),
            Err(_) => return miss(Miss::NoIndex, 0, 0),
        };
        let Some(index) = View::decode(&bytes, key) else {
            return miss(Miss::Damaged, 0, 0);
        };
        let (own, plain, rest) = match index.resolve(name) {
            Resolved::Skill { own, name, rest } => (Some(own), name, rest),
            // The whole catalog reads it; nothing says the index is out of
            // date.
            Resolved::Loser => return miss(Miss::NotIndexed, 0, index.count),
            Resolved::Nothing => (None, String::new(), String::new()),
        };
        // A name the index lacks may be new, and a target longer than a
        // plain name (`ns/name`, a path after it) may come to name another
        // skill anywhere (a new `ns/name`): every path is checked for them.
        let narrowed = own.filter(|_| !name.contains('/'));
        let Some(picks) = index.bearing_on(narrowed) else {
            return miss(Miss::Damaged, 0, 0);
        };
        // A running `watch` that saw no change to any stamped path since
        // it checked them all spares the checks; the roots and links are
        // checked all the same (a few paths, and not all watched).
        let vouched = watch::vouched(&self.socket_for(key), key, index.sum);
        let (checked, of) = (if vouched { 0 } else { picks.len() }, index.count);
        if let Some(changed) = index.first_change(if vouched { &[] } else { &picks }) {
            return miss(Miss::Changed(changed), checked, of);
        }
        // A current index without the name: it is no skill's name.
        let Some(own) = own else {
            return miss(Miss::NotIndexed, checked, of);
        };
        let Some(file) = picks
            .iter()
            .find(|p| p.index == own.named.file)
            .map(|p| index.path(p))
        else {
            return miss(Miss::Damaged, checked, of);
        };
        // A path into a skill nested in this one is read from that skill,
        // whose id only the whole catalog knows.
        if leads_into_nested_skill(&file, &rest) {
            return miss(Miss::Nested, checked, of);
        }
        // The file is read again now; its name must still be the one
        // indexed (it may have changed since the stamps were checked).
        let result = match builder.build_files(std::slice::from_ref(&file)) {
            Ok(catalog)
                if catalog
                    .skills()
                    .iter()
                    .any(|s| s.id == plain && s.name == plain && s.path == file) =>
            {
                Ok(catalog)
            }
            _ => Err(Miss::Changed(file)),
        };
        Lookup {
            result,
            checked,
            of,
            vouched,
        }
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
        let Some(roots) = roots.into_iter().collect::<Option<Vec<Route>>>() else {
            return Ok(Saved {
                catalog,
                index: Err("a root has no real path".into()),
            });
        };
        let index = self.save(&catalog, &paths, (&roots, &links), key, started);
        Ok(Saved { catalog, index })
    }

    fn save(
        &self,
        catalog: &Catalog,
        paths: &[PathBuf],
        (roots, links): (&[Route], &[Route]),
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
        let mut built = Built::new(paths, roots, links, catalog)?;
        if built.skill_files < MIN_SKILL_FILES {
            return Err(format!(
                "{} skill files: under {MIN_SKILL_FILES}, a scan is about as fast",
                built.skill_files
            ));
        }
        for route in roots.iter().chain(links) {
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
        built.no_narrowing_with_aliases();
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

/// What a stamped path is to the scan; it decides which reads by name
/// must check it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// An ignore file, or a path under no root: always checked.
    Other = 0,
    /// A folder the scan listed, or a symlink it followed.
    Folder = 1,
    /// A skill file.
    SkillFile = 2,
}

impl Kind {
    fn from_byte(byte: u8) -> Option<Kind> {
        [Kind::Other, Kind::Folder, Kind::SkillFile]
            .get(usize::from(byte))
            .copied()
    }
}

/// The root of a path under none.
const NO_ROOT: u32 = u32::MAX;
/// No entry.
const NONE: u32 = u32::MAX;

/// One stamped path: inside which anchor, what it is, where it stands in
/// the catalog, and its stamp.
struct Entry {
    anchor: u32,
    inside: PathBuf,
    kind: Kind,
    /// The root it is under ([`NO_ROOT`] for none) and its depth below it
    /// in names (a skill file at the top of a root: 2).
    root: u32,
    depth: u32,
    /// Skill files: place in precedence order (earlier root, shallower,
    /// then path order), from 1.
    rank: u32,
    /// Skill files: how many skill files of the root come before it in
    /// path order. Folders: how many come before the folder's path with a
    /// `/` after it; so a new skill file in the folder comes before a
    /// skill file in path order exactly when `order` is at most the
    /// skill file's (see [`View::bearing_on`]).
    order: u32,
    stamp: Option<Stamp>,
}

/// The skill file a plain name reads, its folder's entry ([`NONE`] when
/// the folder was not listed), and whether a read needs to check only the
/// paths that could change its answer (see [`View::bearing_on`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Named {
    file: u32,
    folder: u32,
    narrow: bool,
    /// Its namespace, in the index's table.
    namespace: u32,
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
    names: BTreeMap<String, Named>,
    /// The namespaces of the named skills.
    namespaces: Vec<String>,
    /// The ids of skills that lost their name to another (`ns/name`,
    /// `ns/name~2`): a target starting with one is read from the whole
    /// catalog.
    losers: std::collections::BTreeSet<String>,
    routes: Vec<Route>,
    skill_files: usize,
}

impl Built {
    /// The index of `catalog`, whose scan depended on `paths` and followed
    /// the symlinks `links` from `roots` (with their real paths). Nothing
    /// is stamped yet.
    fn new(
        paths: &[PathBuf],
        roots: &[Route],
        links: &[Route],
        catalog: &Catalog,
    ) -> Result<Built, String> {
        let is_skill_file = |whole: &[u8]| {
            let name = file_name(whole);
            crate::scan::SKILL_FILE_NAMES
                .iter()
                .any(|s| name == s.as_bytes())
        };
        let root_bytes: Vec<&[u8]> = roots
            .iter()
            .map(|r| r.given.as_os_str().as_encoded_bytes())
            .collect();
        let mut skill_files = 0;
        // (anchor, path inside it, whole path), split and sorted as bytes:
        // paths compare and hash component by component, too slowly for
        // 20,000 of them.
        let mut split: Vec<(&[u8], &[u8], &[u8])> = paths
            .iter()
            .map(|path| {
                let whole = path.as_os_str().as_encoded_bytes();
                let levels = if is_skill_file(whole) { 2 } else { 1 };
                match split_anchor(whole, levels) {
                    Some((anchor, inside)) => (anchor, inside, whole),
                    // A path without that many folders above it (a short
                    // relative one) is checked whole, under the anchor `.`.
                    None => (&b"."[..], whole, whole),
                }
            })
            .collect();
        split.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        let mut built = Built {
            anchors: Vec::new(),
            entries: Vec::with_capacity(split.len()),
            names: BTreeMap::new(),
            namespaces: Vec::new(),
            losers: Default::default(),
            routes: roots.iter().chain(links).cloned().collect(),
            skill_files: 0,
        };
        let mut position: std::collections::HashMap<&[u8], u32> =
            std::collections::HashMap::with_capacity(split.len());
        for &(anchor, inside, whole) in &split {
            let (Some(anchor), Some(inside)) = (path_of(anchor), path_of(inside)) else {
                return Err("a path is not valid here".into());
            };
            if built.anchors.last().map(PathBuf::as_path) != Some(anchor) {
                built.anchors.push(anchor.to_path_buf());
            }
            let (root, depth) = place(whole, &root_bytes);
            let name = file_name(whole);
            skill_files += usize::from(is_skill_file(whole));
            let kind = if root == NO_ROOT || name == b".gitignore" || name == b".ignore" {
                Kind::Other
            } else if is_skill_file(whole) {
                Kind::SkillFile
            } else {
                Kind::Folder
            };
            position.insert(whole, built.entries.len() as u32);
            built.entries.push(Entry {
                anchor: (built.anchors.len() - 1) as u32,
                inside: inside.to_path_buf(),
                kind,
                root,
                depth,
                rank: 0,
                order: 0,
                stamp: None,
            });
        }
        built.skill_files = skill_files;
        let parent = |whole: &[u8]| -> Option<u32> {
            let cut = whole.iter().rposition(|&b| b == b'/')?;
            position.get(&whole[..cut]).copied()
        };
        // Precedence order, as the catalog decides name clashes.
        let mut files: Vec<(u32, u32, &[u8], u32)> = split
            .iter()
            .filter_map(|&(_, _, whole)| {
                let i = position[whole];
                let entry = &built.entries[i as usize];
                (entry.kind == Kind::SkillFile).then_some((entry.root, entry.depth, whole, i))
            })
            .collect();
        files.sort_unstable();
        for (rank, &(.., i)) in files.iter().enumerate() {
            built.entries[i as usize].rank = rank as u32 + 1;
        }
        // Path order within each root.
        let mut by_path: Vec<(u32, &[u8])> = files.iter().map(|f| (f.0, f.2)).collect();
        by_path.sort_unstable();
        let mut with_slash = Vec::new();
        for &(_, _, whole) in &split {
            let i = position[whole] as usize;
            let root = built.entries[i].root;
            if root == NO_ROOT {
                continue;
            }
            let key: &[u8] = if built.entries[i].kind == Kind::SkillFile {
                whole
            } else {
                with_slash.clear();
                with_slash.extend_from_slice(whole);
                with_slash.push(b'/');
                &with_slash
            };
            let first = by_path.partition_point(|&(r, _)| r < root);
            let before = by_path.partition_point(|&(r, p)| (r, p) < (root, key));
            built.entries[i].order = (before - first) as u32;
        }
        // A skill reached through a symlink, or one whose folder is not
        // named after it as the catalog judges it, may lose its file to a
        // new path to it anywhere (the catalog prefers a real path in a
        // folder of the skill's name); and with roots inside one another a
        // path has two places. Such names check every path.
        let link_paths: std::collections::HashSet<&Path> =
            links.iter().map(|l| l.given.as_path()).collect();
        let nested_roots = roots.iter().enumerate().any(|(i, a)| {
            roots.iter().enumerate().any(|(j, b)| {
                i != j && (a.given.starts_with(&b.given) || a.real.starts_with(&b.real))
            })
        });
        // Skill files not named after their folder as the catalog judges
        // it (the name as written, before it is made one line).
        let mismatched: std::collections::HashSet<&Path> = catalog
            .diagnostics()
            .iter()
            .filter(|d| d.code == crate::model::Code::NameMismatch)
            .map(|d| d.path.as_path())
            .collect();
        let mut namespaces: BTreeMap<&str, u32> = BTreeMap::new();
        for skill in catalog.skills() {
            if skill.id != skill.name {
                built.losers.insert(skill.id.clone());
                continue;
            }
            let whole = skill.path.as_os_str().as_encoded_bytes();
            // Every skill file is noted; one that is not means the index
            // would not notice it change.
            let Some(&file) = position.get(whole) else {
                return Err(format!(
                    "{} was not noted by the scan",
                    printable(&skill.path)
                ));
            };
            let folder = skill.path.parent();
            let named = folder
                .and_then(Path::file_name)
                .is_some_and(|f| f == skill.name.as_str())
                && !mismatched.contains(skill.path.as_path());
            let through_link = skill.path.ancestors().any(|a| link_paths.contains(a));
            let narrow = named
                && !through_link
                && !nested_roots
                && built.entries[file as usize].kind == Kind::SkillFile;
            let next = namespaces.len() as u32;
            let namespace = *namespaces.entry(skill.namespace.as_str()).or_insert(next);
            built.names.insert(
                skill.name.clone(),
                Named {
                    file,
                    folder: parent(whole).unwrap_or(NONE),
                    narrow,
                    namespace,
                },
            );
        }
        built.namespaces = vec![String::new(); namespaces.len()];
        for (namespace, i) in namespaces {
            built.namespaces[i as usize] = namespace.to_string();
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

    /// When one folder or file is reached by two paths (a symlink and
    /// its target, two links to one folder, hard links, a bind mount), the
    /// catalog keeps one of them by rules that look at every path to it,
    /// and a link's folder is walked once, through whichever link the walk
    /// met first. A change anywhere can then make an earlier path count:
    /// every name checks every path. (A path to a file made after the
    /// index was written is not seen here; it cannot take the place of a
    /// narrowed name's own path, which is real and in a folder of the
    /// name, the catalog's first choice; and a file of another name stays
    /// of that name wherever it is kept.)
    fn no_narrowing_with_aliases(&mut self) {
        let mut seen = std::collections::HashSet::with_capacity(self.entries.len());
        let aliased = self
            .entries
            .iter()
            .filter(|e| e.kind != Kind::Other)
            .filter_map(|e| e.stamp)
            .any(|s| !seen.insert((s.device, s.inode)));
        if aliased {
            for named in self.names.values_mut() {
                named.narrow = false;
            }
        }
    }

    fn encode(&self, key: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.entries.len() * 40);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&key.to_le_bytes());
        put_var(&mut out, self.anchors.len() as u64);
        for anchor in &self.anchors {
            put_bytes(&mut out, anchor.as_os_str().as_encoded_bytes());
        }
        put_var(&mut out, self.routes.len() as u64);
        for route in &self.routes {
            put_bytes(&mut out, route.given.as_os_str().as_encoded_bytes());
            put_bytes(&mut out, route.real.as_os_str().as_encoded_bytes());
            put_var(&mut out, route.chain.len() as u64);
            for &(device, inode) in &route.chain {
                out.extend_from_slice(&device.to_le_bytes());
                out.extend_from_slice(&inode.to_le_bytes());
            }
        }
        put_var(&mut out, self.namespaces.len() as u64);
        for namespace in &self.namespaces {
            put_bytes(&mut out, namespace.as_bytes());
        }
        put_var(&mut out, self.losers.len() as u64);
        for id in &self.losers {
            put_bytes(&mut out, id.as_bytes());
        }
        put_var(&mut out, self.names.len() as u64);
        for (name, named) in &self.names {
            let own = &self.entries[named.file as usize];
            put_bytes(&mut out, name.as_bytes());
            for value in [
                named.file,
                named.folder.wrapping_add(1),
                u32::from(named.narrow),
                named.namespace,
                own.root,
                own.depth,
                own.rank,
                own.order,
            ] {
                put_var(&mut out, u64::from(value));
            }
        }
        // Entries, grouped by anchor: how many, then each.
        put_var(&mut out, self.entries.len() as u64);
        let mut start = 0;
        while start < self.entries.len() {
            let anchor = self.entries[start].anchor;
            let end = self.entries[start..]
                .iter()
                .position(|e| e.anchor != anchor)
                .map_or(self.entries.len(), |n| start + n);
            put_var(&mut out, u64::from(anchor));
            put_var(&mut out, (end - start) as u64);
            for entry in &self.entries[start..end] {
                out.push(
                    entry.kind as u8
                        | if entry.stamp.is_some() { STAMPED } else { 0 }
                        | if entry.root == NO_ROOT { ROOTLESS } else { 0 },
                );
                put_bytes(&mut out, entry.inside.as_os_str().as_encoded_bytes());
                if entry.root != NO_ROOT {
                    put_var(&mut out, u64::from(entry.root));
                    put_var(&mut out, u64::from(entry.depth));
                    put_var(&mut out, u64::from(entry.order));
                    if entry.kind == Kind::SkillFile {
                        put_var(&mut out, u64::from(entry.rank));
                    }
                }
                if let Some(stamp) = entry.stamp {
                    out.extend_from_slice(&stamp.digest().to_le_bytes());
                }
            }
            start = end;
        }
        let mut hash = Fnv::new();
        hash.write(&out);
        out.extend_from_slice(&hash.finish().to_le_bytes());
        out
    }
}

/// Whether the path `rest` inside the folder of the skill file `file`
/// passes through a folder holding a skill file (a nested skill). Paths
/// with `.` or `..` in them are refused by the read whatever they lead to.
fn leads_into_nested_skill(file: &Path, rest: &str) -> bool {
    let Some(mut folder) = file.parent().map(Path::to_path_buf) else {
        return false;
    };
    let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
    if parts.iter().any(|p| *p == "." || *p == "..") {
        return false;
    }
    for part in parts {
        folder.push(part);
        // Nothing below a file or a missing folder holds a skill file.
        if !folder.is_dir() {
            return false;
        }
        // Any entry of that name, loaded or not: the whole catalog says
        // what it is.
        if crate::scan::SKILL_FILE_NAMES
            .iter()
            .any(|n| std::fs::symlink_metadata(folder.join(n)).is_ok())
        {
            return true;
        }
    }
    false
}

/// The last name of a path.
fn file_name(whole: &[u8]) -> &[u8] {
    whole
        .iter()
        .rposition(|&b| b == b'/')
        .map_or(whole, |cut| &whole[cut + 1..])
}

/// The root `whole` is under (the first of `roots` it is inside) and its
/// depth below it in names; [`NO_ROOT`] for none.
fn place(whole: &[u8], roots: &[&[u8]]) -> (u32, u32) {
    let depth = |rest: &[u8]| {
        rest.split(|&b| b == b'/')
            .filter(|name| !name.is_empty() && *name != b".")
            .count() as u32
    };
    // As the walk writes paths: the root as given, then the names below.
    for (i, root) in roots.iter().enumerate() {
        let Some(rest) = whole.strip_prefix(*root) else {
            continue;
        };
        let rest = if root.ends_with(b"/") || rest.is_empty() {
            Some(rest)
        } else {
            rest.strip_prefix(b"/")
        };
        if let Some(rest) = rest {
            return (i as u32, depth(rest));
        }
    }
    // A root given as `skills//` or `skills/.`: by whole names.
    let path = path_of(whole);
    for (i, root) in roots.iter().enumerate() {
        if let Some(rest) = path
            .zip(path_of(root))
            .and_then(|(path, root)| path.strip_prefix(root).ok())
        {
            return (i as u32, depth(rest.as_os_str().as_encoded_bytes()));
        }
    }
    (NO_ROOT, 0)
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
/// two threads, which take runs of entries in turn; each anchor is opened
/// once per run.
/// `keep` sees each stamp as it is taken, with its entry's index; on the
/// first it refuses, the rest are left unstamped and the answer is `None`.
fn stamp_all(
    anchors: &[&Path],
    entries: &[(u32, &Path)],
    keep: &(dyn Fn(usize, Option<Stamp>) -> bool + Sync),
) -> Option<Vec<Option<Stamp>>> {
    /// Entries per run: small enough to share the work evenly, large
    /// enough that few anchors are opened twice.
    const RUN: usize = 512;
    let stop = AtomicBool::new(false);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let runs = entries.len().div_ceil(RUN);
    // Each thread's runs: (run, stamps), or `None` once one refused.
    let work = || -> Option<Vec<(usize, Vec<Option<Stamp>>)>> {
        let mut done = Vec::new();
        loop {
            let run = next.fetch_add(1, Ordering::Relaxed);
            if run >= runs {
                return Some(done);
            }
            let range = run * RUN..((run + 1) * RUN).min(entries.len());
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
            done.push((run, out));
        }
    };
    let mut done = if runs < 2 {
        work()?
    } else {
        std::thread::scope(|scope| {
            let other = scope.spawn(work);
            let mine = work();
            // A thread that panicked stamped nothing.
            let theirs = other.join().ok().flatten();
            let mut mine = mine?;
            mine.extend(theirs?);
            Some(mine)
        })?
    };
    done.sort_unstable_by_key(|&(run, _)| run);
    Some(done.into_iter().flat_map(|(_, out)| out).collect())
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

/// An entry's head byte: its [`Kind`] in the low bits, and these flags.
const STAMPED: u8 = 0x10;
const ROOTLESS: u8 = 0x20;

/// An entry of an index file chosen to be checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pick<'a> {
    /// Its place among all entries.
    index: u32,
    anchor: u32,
    inside: &'a Path,
    /// The stamp's digest.
    stamp: Option<u64>,
}

/// An index file read back, borrowing its bytes: the anchors and routes
/// decoded, the names and entries left to be read for one name.
struct View<'a> {
    anchors: Vec<&'a Path>,
    routes: Vec<Route>,
    namespaces: Vec<&'a [u8]>,
    /// The ids section: the ids of skills that lost their name.
    losers: &'a [u8],
    /// The names section: records sorted by name.
    names: &'a [u8],
    /// The entries section, and how many it holds.
    entries: &'a [u8],
    count: usize,
    /// The longest id or `namespace/name` in the index, in bytes.
    longest: usize,
    /// The file's checksum: which index this is, for a running `watch`.
    sum: u64,
}

/// What a read target names in the index.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Resolved {
    /// A named skill, and the path inside it (empty for its body).
    Skill {
        own: Own,
        /// Its plain name.
        name: String,
        rest: String,
    },
    /// A skill that lost its name to another: the whole catalog reads it.
    Loser,
    /// No skill: the whole catalog says what the target is.
    Nothing,
}

/// Where the skill file of a name stands: its entry, its root, depth,
/// precedence rank and path order (see [`Entry`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Own {
    named: Named,
    root: u32,
    depth: u32,
    rank: u32,
    order: u32,
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
        let sum = hash.finish();
        let mut r = Reader(body);
        if r.take(8)? != MAGIC || r.u64()? != key {
            return None;
        }
        let count = r.len()?;
        let mut anchors = Vec::with_capacity(count);
        for _ in 0..count {
            anchors.push(path_of(r.bytes()?)?);
        }
        let count = r.len()?;
        let mut routes = Vec::with_capacity(count);
        for _ in 0..count {
            let given = path_of(r.bytes()?)?.to_path_buf();
            let real = path_of(r.bytes()?)?.to_path_buf();
            let links = r.len()?;
            let mut chain = Vec::with_capacity(links);
            for _ in 0..links {
                chain.push((r.u64()?, r.u64()?));
            }
            routes.push(Route { given, real, chain });
        }
        let count = r.len()?;
        let mut namespaces = Vec::with_capacity(count);
        for _ in 0..count {
            namespaces.push(r.bytes()?);
        }
        let count = r.len()?;
        let losers_start = r.0;
        let mut longest_loser = 0;
        for _ in 0..count {
            longest_loser = longest_loser.max(r.bytes()?.len());
        }
        let losers = &losers_start[..losers_start.len() - r.0.len()];
        let count = r.len()?;
        let names_start = r.0;
        let mut longest_name = 0;
        for _ in 0..count {
            longest_name = longest_name.max(r.bytes()?.len());
            for _ in 0..8 {
                r.u32()?;
            }
        }
        let longest_namespace = namespaces.iter().map(|n| n.len()).max().unwrap_or(0);
        let longest = longest_loser.max(longest_namespace + 1 + longest_name);
        let names = &names_start[..names_start.len() - r.0.len()];
        let count = r.len()?;
        Some(View {
            anchors,
            routes,
            namespaces,
            losers,
            names,
            entries: r.0,
            count,
            longest,
            sum,
        })
    }

    /// What the index has for the plain name `name`.
    fn own(&self, name: &str) -> Option<Own> {
        let mut r = Reader(self.names);
        while !r.0.is_empty() {
            let found = r.bytes()?;
            let mut v = [0u32; 8];
            for slot in &mut v {
                *slot = r.u32()?;
            }
            // Written in name order: past it, it is not there.
            if found > name.as_bytes() {
                return None;
            }
            if found == name.as_bytes() {
                if v[0] as usize >= self.count || v[2] > 1 || v[3] as usize >= self.namespaces.len()
                {
                    return None;
                }
                return Some(Own {
                    named: Named {
                        file: v[0],
                        folder: v[1].wrapping_sub(1),
                        narrow: v[2] == 1,
                        namespace: v[3],
                    },
                    root: v[4],
                    depth: v[5],
                    rank: v[6],
                    order: v[7],
                });
            }
        }
        None
    }

    /// Whether `id` is the id of a skill that lost its name.
    fn is_loser(&self, id: &str) -> bool {
        let mut r = Reader(self.losers);
        while let Some(found) = r.bytes() {
            if found == id.as_bytes() {
                return true;
            }
        }
        false
    }

    /// What the read target `target` (a name, `namespace/name`, either
    /// with a path after it) names, as a whole catalog resolves it: the
    /// longest leading part that is a skill's id or `namespace/name`.
    fn resolve(&self, target: &str) -> Resolved {
        let parts: Vec<&str> = target.split('/').collect();
        // The length of the first `cut` parts joined, to skip those longer
        // than any id without joining them.
        let mut length = target.len();
        for cut in (1..=parts.len()).rev() {
            if cut < parts.len() {
                length -= parts[cut].len() + 1;
            }
            if length > self.longest {
                continue;
            }
            let key = parts[..cut].join("/");
            let rest = parts[cut..].join("/");
            if let Some(own) = self.own(&key) {
                return Resolved::Skill {
                    own,
                    name: key,
                    rest,
                };
            }
            if self.is_loser(&key) {
                return Resolved::Loser;
            }
            if let Some((namespace, name)) = key.rsplit_once('/') {
                if let Some(own) = self.own(name) {
                    if self.namespaces[own.named.namespace as usize] == namespace.as_bytes() {
                        return Resolved::Skill {
                            own,
                            name: name.to_string(),
                            rest,
                        };
                    }
                }
            }
        }
        Resolved::Nothing
    }

    /// The entries to check for `own` (every entry for `None`), in order;
    /// `None` when the entries section is damaged.
    ///
    /// A name reads the first skill of that name in precedence order
    /// (earlier root, then shallower, then path order). Unless some file or
    /// folder is reached by two paths (then every name checks every path:
    /// see [`Built::no_narrowing_with_aliases`]), each skill file is at one
    /// path and stands for itself, and the answer changes only when the
    /// name's own file or a folder above it changes (an ignore file, a
    /// rename), an ignore file is edited, or a skill that comes first takes
    /// the name: a skill file before it edited or replaced, or a skill file
    /// that did not count before now counting where it comes first.
    ///
    /// Such a skill file is new, was left out by an ignore file or stood
    /// beside a `SKILL.md` as a `skill.md`; each way, a folder above it that
    /// the scan listed changes: the deepest one it was already in (a new
    /// entry, or a new ignore file there) or one with an ignore file
    /// removed. It lies at least one level below that folder, and comes
    /// before the name's file in path order exactly when the folder's path
    /// does (the `order` of both). So a folder is checked when a skill file
    /// in it could come first, by depth or, at the same depth, by path.
    /// Later roots, later skill files and all other folders cannot change
    /// the answer. Names whose own file is reached through a symlink or sits
    /// in a folder not named after it, and roots inside one another, check
    /// every path. (A catalog grown past the scan's bound on entries is the
    /// exception: see the module notes.)
    fn bearing_on(&self, own: Option<Own>) -> Option<Vec<Pick<'a>>> {
        let own = own.filter(|own| own.named.narrow);
        let bears = |index: u32, kind: Kind, place: Option<(u32, u32, u32, u32)>| {
            let (Some(own), Some((root, depth, order, rank))) = (own, place) else {
                return true;
            };
            if kind == Kind::Other || index == own.named.file || index == own.named.folder {
                return true;
            }
            if root != own.root {
                return root < own.root;
            }
            if kind == Kind::SkillFile {
                return rank <= own.rank;
            }
            // A skill file in the folder, a level below it or more, would
            // come first by depth, or by path at the same depth.
            let below = depth.saturating_add(1);
            below < own.depth || (below == own.depth && order <= own.order)
        };
        let mut picks = Vec::new();
        let mut r = Reader(self.entries);
        let mut index = 0u32;
        let mut last = 0;
        while (index as usize) < self.count {
            let anchor = r.u32()?;
            // Grouped by anchor, in order: the check relies on it.
            if anchor as usize >= self.anchors.len() || anchor < last {
                return None;
            }
            last = anchor;
            for _ in 0..r.len()? {
                let head = r.take(1)?[0];
                if head & !(0x0f | STAMPED | ROOTLESS) != 0 {
                    return None;
                }
                let kind = Kind::from_byte(head & 0x0f)?;
                let inside = path_of(r.bytes()?)?;
                let place = if head & ROOTLESS == 0 {
                    let (root, depth, order) = (r.u32()?, r.u32()?, r.u32()?);
                    let rank = if kind == Kind::SkillFile { r.u32()? } else { 0 };
                    Some((root, depth, order, rank))
                } else {
                    None
                };
                let stamp = if head & STAMPED != 0 {
                    Some(r.u64()?)
                } else {
                    None
                };
                if bears(index, kind, place) {
                    picks.push(Pick {
                        index,
                        anchor,
                        inside,
                        stamp,
                    });
                }
                index += 1;
            }
        }
        (index as usize == self.count && r.0.is_empty()).then_some(picks)
    }

    /// The whole path of `pick`.
    fn path(&self, pick: &Pick<'_>) -> PathBuf {
        whole(self.anchors[pick.anchor as usize], pick.inside)
    }

    /// The first root or link that leads elsewhere now, or the first of
    /// the `picks` (in the order checked) that no longer matches its stamp.
    fn first_change(&self, picks: &[Pick<'_>]) -> Option<PathBuf> {
        for route in &self.routes {
            if Route::of(&route.given).as_ref() != Some(route) {
                return Some(route.given.clone());
            }
        }
        let entries: Vec<(u32, &Path)> = picks.iter().map(|p| (p.anchor, p.inside)).collect();
        let changed = Mutex::new(None);
        let same = |j: usize, now: Option<Stamp>| {
            let same = now.map(|s| s.digest()) == picks[j].stamp;
            if !same {
                *changed.lock().unwrap_or_else(|e| e.into_inner()) = Some(j);
            }
            same
        };
        if stamp_all(&self.anchors, &entries, &same).is_some() {
            return None;
        }
        let j = changed.into_inner().unwrap_or_else(|e| e.into_inner());
        Some(j.map_or_else(
            || PathBuf::from("(a checking thread failed)"),
            |j| self.path(&picks[j]),
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

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    /// A number written by [`put_var`].
    fn var(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.take(1)?[0];
            // The tenth group holds the top bit only.
            if shift == 63 && byte > 1 {
                return None;
            }
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                // One way to write each number: no trailing zero groups.
                return (byte != 0 || shift == 0).then_some(value);
            }
        }
        None
    }

    fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.var()?).ok()
    }

    /// A count of things each at least a byte long: no more than are left.
    fn len(&mut self) -> Option<usize> {
        usize::try_from(self.var()?)
            .ok()
            .filter(|&n| n <= self.0.len())
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.len()?;
        self.take(n)
    }
}

/// `value` in 7-bit groups, low first, the high bit marking more to come.
fn put_var(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_var(out, bytes.len() as u64);
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
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Ok(None);
    }
    // One allocation of the right size; the file is read as it is now.
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0) + 1);
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
            mode: 0o100_644,
        };
        let entry = |inside: &str, kind, stamp| Entry {
            anchor: 0,
            inside: PathBuf::from(inside),
            kind,
            root: 0,
            depth: 2,
            rank: 1,
            order: 0,
            stamp,
        };
        let named = Named {
            file: 1,
            folder: 0,
            narrow: true,
            namespace: 0,
        };
        let built = Built {
            anchors: vec![PathBuf::from("/r")],
            entries: vec![
                entry("a", Kind::Folder, Some(stamp)),
                entry("a/SKILL.md", Kind::SkillFile, None),
            ],
            names: [("a".to_string(), named)].into_iter().collect(),
            namespaces: vec!["ns".to_string()],
            losers: ["ns/b".to_string()].into_iter().collect(),
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
        assert_eq!(view.routes, built.routes);
        let pick = |index, inside, stamp| Pick {
            index,
            anchor: 0,
            inside: Path::new(inside),
            stamp,
        };
        let all = [
            pick(0, "a", Some(stamp.digest())),
            pick(1, "a/SKILL.md", None),
        ];
        assert_eq!(view.bearing_on(None).unwrap(), all);
        let own = view.own("a").expect("a name of the index");
        assert_eq!(
            own,
            Own {
                named,
                root: 0,
                depth: 2,
                rank: 1,
                order: 0,
            }
        );
        // Its own file and folder bear on the name.
        assert_eq!(view.bearing_on(Some(own)).unwrap(), all);
        assert_eq!(view.path(&all[1]), PathBuf::from("/r/a/SKILL.md"));
        assert_eq!(view.own("b"), None);
        // Targets resolve as a whole catalog resolves them: the longest
        // leading id or `namespace/name`.
        let skill = |name: &str, rest: &str| Resolved::Skill {
            own,
            name: name.to_string(),
            rest: rest.to_string(),
        };
        assert_eq!(view.resolve("a"), skill("a", ""));
        assert_eq!(view.resolve("a/x/y.md"), skill("a", "x/y.md"));
        assert_eq!(view.resolve("ns/a"), skill("a", ""));
        assert_eq!(view.resolve("ns/a/y.md"), skill("a", "y.md"));
        assert_eq!(view.resolve("ns/b/y.md"), Resolved::Loser);
        assert_eq!(view.resolve("other/a"), Resolved::Nothing);
        assert_eq!(view.resolve("b"), Resolved::Nothing);
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
    fn a_stamp_with_any_one_field_changed_has_another_digest() {
        let stamp = Stamp {
            device: 1,
            inode: 2,
            size: 3,
            modified: (4, 5),
            changed: (6, 7),
            mode: 0o40_755,
        };
        let others = [
            Stamp { device: 9, ..stamp },
            Stamp { inode: 9, ..stamp },
            Stamp { size: 9, ..stamp },
            Stamp {
                modified: (4, 6),
                ..stamp
            },
            Stamp {
                modified: (5, 5),
                ..stamp
            },
            Stamp {
                changed: (6, 8),
                ..stamp
            },
            Stamp {
                mode: 0o40_700,
                ..stamp
            },
        ];
        for other in others {
            assert_ne!(stamp.digest(), other.digest(), "{other:?}");
        }
    }

    #[test]
    fn numbers_read_back_one_way_only() {
        for value in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut out = Vec::new();
            put_var(&mut out, value);
            let mut r = Reader(&out);
            assert_eq!(r.var(), Some(value));
            assert!(r.0.is_empty());
        }
        // A trailing zero group, a number past 32 bits where one is
        // expected, a count larger than what is left, a cut number.
        assert_eq!(Reader(&[0x81, 0x00]).var(), None);
        assert_eq!(Reader(&[0x80, 0x80, 0x80, 0x80, 0x10]).u32(), None);
        assert_eq!(Reader(&[5, b'a']).bytes(), None);
        assert_eq!(Reader(&[0x80]).var(), None);
        // A tenth group above the one bit left.
        let mut over = vec![0x80; 9];
        over.push(0x02);
        assert_eq!(Reader(&over).var(), None);
    }

    #[test]
    fn paths_are_placed_under_the_first_root_they_are_in() {
        let roots: [&[u8]; 4] = [b"skills", b"./other", b"/abs/", b"."];
        for (path, placed) in [
            (&b"skills/x/SKILL.md"[..], (0, 2)),
            (b"skills", (0, 0)),
            (b"skills-more/x", (NO_ROOT, 0)),
            (b"./other/ns/x", (1, 2)),
            (b"/abs/x/SKILL.md", (2, 2)),
            (b"./x", (3, 1)),
            (b"/elsewhere/x", (NO_ROOT, 0)),
        ] {
            assert_eq!(
                place(path, &roots),
                placed,
                "{:?}",
                std::str::from_utf8(path)
            );
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
