//! Installing skills that are offered but not part of the catalog: the
//! entries of `available:` in skilldex.yaml (or `skilldex install --from`)
//! — collection folders, discovery indexes (paths or `http(s)` URLs),
//! Claude Code and Codex marketplaces (see `sources.rs`) — into the first
//! writable root, as `ROOT/<name>`; and the lock file that records each
//! install so that `skilldex install --locked` rebuilds the same tree.
//!
//! An install from a folder copies it (`copy.rs`). An install from an
//! index fetches the artifact, checks it against the index's `sha256`
//! digest — a mismatch is an error and nothing is written — and writes a
//! `SKILL.md` or unpacks the archive (`unpack.rs`, `.tar.gz` or `.zip`,
//! which refuses path traversal and links out and holds the copy's caps). Either way the
//! skill is staged in a hidden folder of the root (with an `.ignore` of
//! `*`, so a watcher never sees half a skill) and renamed into place in
//! one step; on any failure the staging folder is removed and nothing is
//! left behind.
//!
//! This module never prints; it blocks (scans, reads, fetches).

pub mod archive;
mod copy;
pub mod fetch;
pub mod index;
pub mod lock;
pub mod sources;
pub mod unpack;

pub use copy::{copy_into_first_writable, OfferedSkill};
pub use fetch::{Location, WELL_KNOWN};
pub use index::ArtifactKind;

use crate::catalog::Catalog;
use copy::{move_into_place, Staged, MAX_BYTES};
use lock::Locked;
use sources::Source;
use std::path::{Path, PathBuf};

/// A skill an index offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedSkill {
    pub name: String,
    pub description: String,
    pub kind: ArtifactKind,
    /// The artifact, resolved against the index's location.
    pub url: Location,
    pub digest: String,
    /// The index, as the `available` entry names it.
    pub source: String,
}

/// A skill offered for installation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Offered {
    /// In a collection folder or a marketplace's plugin folder.
    Folder(OfferedSkill),
    /// In a discovery index.
    Artifact(IndexedSkill),
}

impl Offered {
    pub fn id(&self) -> &str {
        match self {
            Offered::Folder(skill) => &skill.id,
            Offered::Artifact(skill) => &skill.name,
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Offered::Folder(skill) => &skill.name,
            Offered::Artifact(skill) => &skill.name,
        }
    }

    pub fn description(&self) -> &str {
        match self {
            Offered::Folder(skill) => &skill.description,
            Offered::Artifact(skill) => &skill.description,
        }
    }

    /// How a person would install it by hand.
    pub fn by_hand(&self) -> String {
        match self {
            Offered::Folder(skill) => format!(
                "copying the folder {} into a skill root",
                skill.folder.display()
            ),
            Offered::Artifact(skill) => format!(
                "downloading {}, checking its {} and {} into a skill root",
                skill.url,
                skill.digest,
                match skill.kind {
                    ArtifactKind::SkillMd => "saving it as SKILL.md in a folder",
                    ArtifactKind::Archive => "unpacking it",
                }
            ),
        }
    }
}

/// Why a skill cannot be installed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("no skill collection is offered for installation — list collection folders, index.json files or URLs, or marketplace.json files under `available:` in skilldex.yaml, or pass --from")]
    NoCollections,
    #[error("no available collection offers a skill `{id}` (looked in {collections}){hint}")]
    Unknown {
        id: String,
        collections: String,
        hint: String,
    },
    #[error("`{id}` is already installed as `{installed}` — read it with read_skill")]
    AlreadyInstalled { id: String, installed: String },
    #[error("`{id}` is already installed but disabled — ask with `action: enable` instead")]
    Disabled { id: String },
    #[error("cannot install `{id}`: {} already exists — a folder of that name is in the way; rename or remove it, or install the skill by hand", .path.display())]
    NameClash { id: String, path: PathBuf },
    #[error(
        "cannot install `{id}`: {reason} — nothing was written; install the parts it needs by hand"
    )]
    TooLarge { id: String, reason: String },
    #[error("no root is writable, so `{id}` cannot be copied into one (roots: {roots}) — add a writable folder to `roots` in skilldex.yaml")]
    NoWritableRoot { id: String, roots: String },
    #[error("copying `{id}` from {} to {} failed: {error} — nothing was left behind", .from.display(), .to.display())]
    Copy {
        id: String,
        from: PathBuf,
        to: PathBuf,
        error: std::io::Error,
    },
    #[error("{0}")]
    Source(String),
    #[error("cannot install `{id}`: fetching {url} failed: {error} — nothing was written")]
    Fetch {
        id: String,
        url: String,
        error: String,
    },
    #[error("cannot install `{id}`: {url} does not match its digest (expected {expected}, got {actual}) — nothing was written; the file changed since it was published: publish the index again, or ask its publisher")]
    Digest {
        id: String,
        url: String,
        expected: String,
        actual: String,
    },
    #[error("cannot install `{id}`: the archive {url} is refused: {reason} — nothing was written")]
    Archive {
        id: String,
        url: String,
        reason: String,
    },
    #[error("cannot install `{id}` into {}: {error} — nothing was left behind", .path.display())]
    Write {
        id: String,
        path: PathBuf,
        error: String,
    },
    #[error("{} holds `{id}` but not as the lock file records it (its content differs) — remove the folder to install it again, or install it anew to update the lock", .path.display())]
    Differs { id: String, path: PathBuf },
}

/// The entries of `available` as sources (a folder that is a root of
/// `installed` is left out: its skills are installed already).
pub fn sources_of(available: &[Location], installed: Option<&Catalog>) -> Vec<Source> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    available
        .iter()
        .map(sources::classify)
        .filter(|source| match (source, installed) {
            (Source::Folder(folder), Some(catalog)) => {
                folder.is_dir() && !catalog.roots().iter().any(|r| same(r, folder))
            }
            (Source::Folder(folder), None) => folder.is_dir(),
            _ => true,
        })
        .collect()
}

/// Every skill `available` offers, in order (an earlier entry's skill of
/// a name hides a later one's), with the notes and errors of the entries.
pub fn list_offered(sources: &[Source]) -> (Vec<Offered>, Vec<String>) {
    let mut all: Vec<Offered> = Vec::new();
    let mut notes = Vec::new();
    for source in sources {
        match sources::offers(source) {
            Ok(offers) => {
                notes.extend(offers.notes);
                for skill in offers.skills {
                    if !all.iter().any(|o| o.name() == skill.name()) {
                        all.push(skill);
                    }
                }
            }
            Err(error) => notes.push(error),
        }
    }
    (all, notes)
}

/// The skill `id` (an id or a name) of the entries `available`, when
/// `installed` (every skill of the catalog, disabled ones too) does not
/// have it yet. Blocks: it scans, reads and fetches.
pub fn find_offered(
    available: &[Location],
    installed: &Catalog,
    id: &str,
) -> Result<Offered, InstallError> {
    if let Some(there) = installed.get(id) {
        return Err(InstallError::AlreadyInstalled {
            id: id.to_string(),
            installed: there.id.clone(),
        });
    }
    if installed.disabled_skill(id).is_some() {
        return Err(InstallError::Disabled { id: id.to_string() });
    }
    if available.is_empty() {
        return Err(InstallError::NoCollections);
    }
    let sources = sources_of(available, Some(installed));
    let (offered, notes) = list_offered(&sources);
    let found = offered
        .iter()
        .find(|o| o.id() == id)
        .or_else(|| offered.iter().find(|o| o.name() == id));
    let Some(skill) = found else {
        let mut near: Vec<(usize, &str)> = offered
            .iter()
            .map(|o| (crate::text::edit_distance(id, o.name()), o.name()))
            .filter(|(distance, name)| *distance <= 2.max(name.len() / 4))
            .collect();
        near.sort();
        let near: Vec<String> = near.iter().take(3).map(|(_, n)| format!("`{n}`")).collect();
        let mut hint = if near.is_empty() {
            String::new()
        } else {
            format!(" — did you mean {}?", near.join(", "))
        };
        for note in notes.iter().filter(|n| !n.contains("is left out")) {
            hint.push_str(&format!("; {note}"));
        }
        return Err(InstallError::Unknown {
            id: id.to_string(),
            collections: available
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            hint,
        });
    };
    if let Some(there) = installed.get(skill.name()) {
        return Err(InstallError::AlreadyInstalled {
            id: id.to_string(),
            installed: there.id.clone(),
        });
    }
    if installed.disabled_skill(skill.name()).is_some() {
        return Err(InstallError::Disabled { id: id.to_string() });
    }
    Ok(skill.clone())
}

/// An installed skill and its lock entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Done {
    pub folder: PathBuf,
    /// What was not copied or unpacked, in words; empty when nothing.
    pub left_out: String,
    /// Its lock entry (its `destination` is the absolute folder; the
    /// caller makes it relative to the lock file).
    pub locked: Locked,
}

/// Install `offered` into the first writable of `roots`.
pub fn install(offered: &Offered, roots: &[PathBuf]) -> Result<Done, InstallError> {
    match offered {
        Offered::Folder(skill) => {
            let installed = copy_into_first_writable(skill, roots)?;
            let tree = tree_digest(&installed.folder).map_err(|error| InstallError::Write {
                id: skill.id.clone(),
                path: installed.folder.clone(),
                error,
            })?;
            Ok(Done {
                locked: Locked {
                    destination: installed.folder.display().to_string(),
                    name: skill.name.clone(),
                    source: skill.collection.display().to_string(),
                    kind: "folder".into(),
                    url: skill.folder.display().to_string(),
                    digest: tree.clone(),
                    tree,
                },
                folder: installed.folder,
                left_out: installed.left_out,
            })
        }
        Offered::Artifact(skill) => {
            let bytes = fetch_verified(&skill.name, &skill.url, &skill.digest)?;
            for root in roots.iter().filter(|r| r.is_dir()) {
                let target = root.join(&skill.name);
                let url = skill.url.to_string();
                match place(&skill.name, skill.kind, &bytes, &url, &target, None) {
                    Err(InstallError::NoWritableRoot { .. }) => continue,
                    Err(error) => return Err(error),
                    Ok((left_out, tree)) => {
                        return Ok(Done {
                            locked: Locked {
                                destination: target.display().to_string(),
                                name: skill.name.clone(),
                                source: skill.source.clone(),
                                kind: skill.kind.as_str().into(),
                                url: skill.url.to_string(),
                                digest: skill.digest.clone(),
                                tree,
                            },
                            folder: target,
                            left_out,
                        })
                    }
                }
            }
            Err(InstallError::NoWritableRoot {
                id: skill.name.clone(),
                roots: roots
                    .iter()
                    .map(|r| r.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
        }
    }
}

/// The bytes at `url`, checked against `digest`.
fn fetch_verified(id: &str, url: &Location, digest: &str) -> Result<Vec<u8>, InstallError> {
    let bytes = url.read(MAX_BYTES).map_err(|error| InstallError::Fetch {
        id: id.to_string(),
        url: url.to_string(),
        error: error.0,
    })?;
    let actual = index::digest_of(&bytes);
    if actual != digest {
        return Err(InstallError::Digest {
            id: id.to_string(),
            url: url.to_string(),
            expected: digest.to_string(),
            actual,
        });
    }
    Ok(bytes)
}

/// The digest of the folder `folder` packed byte-stably: the same files
/// give the same digest wherever they are.
pub fn tree_digest(folder: &Path) -> Result<String, String> {
    let skill_file = crate::scan::SKILL_FILE_NAMES
        .iter()
        .map(|n| folder.join(n))
        .find(|p| std::fs::symlink_metadata(p).is_ok())
        .unwrap_or_else(|| folder.join("SKILL.md"));
    archive::pack(folder, &skill_file, folder)
        .map(|packed| index::digest_of(&packed.bytes))
        .map_err(|error| error.to_string())
}

/// Write the verified artifact `bytes` as the skill folder `target`
/// (staged beside it, checked against `tree` when given, then renamed
/// into place). Returns what was left out and the tree digest.
fn place(
    id: &str,
    kind: ArtifactKind,
    bytes: &[u8],
    url: &str,
    target: &Path,
    tree: Option<&str>,
) -> Result<(String, String), InstallError> {
    let write_error = |path: &Path, error: String| InstallError::Write {
        id: id.to_string(),
        path: path.to_path_buf(),
        error,
    };
    if std::fs::symlink_metadata(target).is_ok() {
        return Err(InstallError::NameClash {
            id: id.to_string(),
            path: target.to_path_buf(),
        });
    }
    let parent = target.parent().unwrap_or(Path::new("."));
    let staging = crate::paths::temporary_beside(&parent.join("skilldex-install"));
    match std::fs::create_dir(&staging) {
        Ok(()) => {}
        Err(error)
            if matches!(
                error.kind(),
                std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
            ) =>
        {
            return Err(InstallError::NoWritableRoot {
                id: id.to_string(),
                roots: parent.display().to_string(),
            })
        }
        Err(error) => return Err(write_error(parent, error.to_string())),
    }
    let result = (|| {
        std::fs::write(staging.join(".ignore"), "*\n")
            .map_err(|e| write_error(parent, e.to_string()))?;
        let copy = staging.join("skill");
        std::fs::create_dir(&copy).map_err(|e| write_error(parent, e.to_string()))?;
        let left_out = match kind {
            ArtifactKind::SkillMd => {
                std::fs::write(copy.join("SKILL.md"), bytes)
                    .map_err(|e| write_error(parent, e.to_string()))?;
                String::new()
            }
            ArtifactKind::Archive => {
                let unpacked =
                    unpack::unpack(bytes, &copy).map_err(|reason| InstallError::Archive {
                        id: id.to_string(),
                        url: url.to_string(),
                        reason,
                    })?;
                unpacked.left_out.join("; ")
            }
        };
        let actual = tree_digest(&copy).map_err(|e| write_error(parent, e))?;
        if let Some(expected) = tree {
            if actual != expected {
                return Err(InstallError::Differs {
                    id: id.to_string(),
                    path: target.to_path_buf(),
                });
            }
        }
        match move_into_place(&copy, target) {
            Ok(()) => Ok((left_out, actual)),
            Err(Staged::Exists) => Err(InstallError::NameClash {
                id: id.to_string(),
                path: target.to_path_buf(),
            }),
            Err(Staged::Io(error)) => Err(write_error(target, error.to_string())),
        }
    })();
    let _ = std::fs::remove_dir_all(&staging);
    result
}

/// What a replay did with one lock entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replayed {
    Installed(PathBuf),
    /// Already there with the same tree.
    UpToDate(PathBuf),
}

/// Install the lock entry `entry` of the lock file `lock_file` at its
/// destination: fetch its `url`, check `digest`, unpack, check `tree`,
/// move into place. A destination already holding the same tree is left
/// alone; one holding another is an error.
pub fn replay(entry: &Locked, lock_file: &Path) -> Result<Replayed, InstallError> {
    let target = lock::folder_of(&entry.destination, lock_file);
    if std::fs::symlink_metadata(&target).is_ok() {
        return match tree_digest(&target) {
            Ok(tree) if tree == entry.tree => Ok(Replayed::UpToDate(target)),
            _ => Err(InstallError::Differs {
                id: entry.name.clone(),
                path: target,
            }),
        };
    }
    let (kind, bytes) = match entry.kind.as_str() {
        "folder" => {
            let folder = PathBuf::from(&entry.url);
            let digest = tree_digest(&folder).map_err(|error| InstallError::Fetch {
                id: entry.name.clone(),
                url: entry.url.clone(),
                error,
            })?;
            if digest != entry.digest {
                return Err(InstallError::Digest {
                    id: entry.name.clone(),
                    url: entry.url.clone(),
                    expected: entry.digest.clone(),
                    actual: digest,
                });
            }
            let skill_file = crate::scan::SKILL_FILE_NAMES
                .iter()
                .map(|n| folder.join(n))
                .find(|p| std::fs::symlink_metadata(p).is_ok())
                .unwrap_or_else(|| folder.join("SKILL.md"));
            let packed = archive::pack(&folder, &skill_file, &folder).map_err(|error| {
                InstallError::Fetch {
                    id: entry.name.clone(),
                    url: entry.url.clone(),
                    error: error.to_string(),
                }
            })?;
            (ArtifactKind::Archive, packed.bytes)
        }
        other => {
            let kind = ArtifactKind::parse(other).ok_or_else(|| {
                InstallError::Source(format!(
                    "{}: `{}` has the type {other:?}, which skilldex does not know (`skill-md`, `archive` or `folder`) — fix the lock file",
                    lock_file.display(),
                    entry.name
                ))
            })?;
            let location = Location::parse(&entry.url).map_err(|error| InstallError::Fetch {
                id: entry.name.clone(),
                url: entry.url.clone(),
                error: error.to_string(),
            })?;
            let bytes = fetch_verified(&entry.name, &location, &entry.digest)?;
            (kind, bytes)
        }
    };
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(|error| InstallError::Write {
            id: entry.name.clone(),
            path: parent.to_path_buf(),
            error: error.to_string(),
        })?;
    }
    place(
        &entry.name,
        kind,
        &bytes,
        &entry.url,
        &target,
        Some(&entry.tree),
    )?;
    Ok(Replayed::Installed(target))
}

/// Record the install `done` in the lock file `lock_file` (its
/// destination relative to the lock file's folder).
pub fn record(lock_file: &Path, done: &Done) -> Result<(), lock::LockError> {
    let mut entry = done.locked.clone();
    entry.destination = lock::destination_of(&done.folder, lock_file);
    lock::record(lock_file, entry)
}

/// The lock file of the configuration file `config`: beside it.
pub fn lock_beside(config: &Path) -> PathBuf {
    config
        .parent()
        .unwrap_or(Path::new("."))
        .join(lock::LOCK_FILE)
}
