//! Reading one skill file in a walker thread: its head (the whole file
//! when it is small or bodies are checked), parsed, checked by the rules,
//! and turned into a [`Skill`]. The thread's read buffer is reused from
//! file to file.

use super::{walk, FileIdentity, ScanOptions, VisitedFile, HEAD_BYTES};
use crate::entry::{one_line, Code, Position, Skill};
use crate::parse::{self, Fields, Finding, ParsedFile};
use std::io::Read;
use std::path::Path;

/// The skill a parsed file describes (its id is its name until the catalog
/// resolves clashes). Moves the fields: no copies.
pub(super) fn skill_of(
    fields: Option<Fields>,
    path: &Path,
    root: usize,
    placement: crate::plugin::Placement,
    folder_name: String,
    parsed: &ParsedFile,
    facts: FileFacts,
) -> Option<Skill> {
    let fields = fields?;
    let mut declared_tools = super::declared::from_fields(
        fields.allowed_tools.as_deref(),
        fields.position("allowed-tools"),
        fields
            .metadata
            .get(super::declared::METADATA_KEY)
            .map(String::as_str),
        fields.position("metadata"),
        path,
    );
    declared_tools.extend(codex_declarations(path));
    let description = fields
        .description
        .as_deref()
        .map(one_line)
        .unwrap_or_default();
    let name = fields
        .name
        .as_deref()
        .map(one_line)
        .filter(|n| !n.is_empty())
        .unwrap_or(folder_name);
    Some(Skill {
        id: name.clone(),
        name,
        namespace: placement.namespace,
        plugin: placement.plugin,
        description,
        raw_description: fields.description.unwrap_or_default(),
        path: path.to_path_buf(),
        root,
        license: fields.license,
        compatibility: fields.compatibility,
        allowed_tools: fields.allowed_tools,
        metadata: fields.metadata,
        extra: fields.extra,
        file_bytes: facts.bytes,
        content_hash: facts.hash,
        body_line: parsed.body_line,
        body_offset: parsed.body_offset,
        name_position: fields.positions.get("name").copied(),
        description_position: fields.positions.get("description").copied(),
        shadowed: false,
        body: Default::default(),
        declared_tools,
    })
}

/// Size and content hash of a skill file.
#[derive(Debug, Clone, Copy)]
pub(super) struct FileFacts {
    pub(super) bytes: u64,
    pub(super) hash: u64,
}

pub(super) struct ReadSkill {
    pub(super) identity: Option<FileIdentity>,
    /// See `FoundSkill::linked_target`.
    pub(super) linked_target: Option<std::path::PathBuf>,
    pub(super) facts: FileFacts,
    pub(super) parsed: ParsedFile,
    pub(super) body: crate::entry::BodyText,
}

pub(super) fn identity_of(metadata: &std::fs::Metadata) -> Option<FileIdentity> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(FileIdentity {
            device: metadata.dev(),
            inode: metadata.ino(),
        })
    }
    #[cfg(not(unix))]
    {
        let _ = metadata;
        None
    }
}

/// The name of the folder holding `path` (made absolute when the path has
/// no folder name, as `./SKILL.md` does).
pub(super) fn folder_name_of(path: &Path) -> String {
    let folder = |p: &Path| {
        p.parent()
            .and_then(|d| d.file_name())
            .map(|n| n.to_string_lossy().into_owned())
    };
    folder(path)
        .or_else(|| std::path::absolute(path).ok().and_then(|p| folder(&p)))
        .unwrap_or_default()
}

/// The servers the skill's `agents/openai.yaml` declares (Codex), read
/// through the skill folder's boundary; none when there is no such file.
fn codex_declarations(skill_file: &Path) -> Vec<crate::entry::DeclaredTool> {
    use std::io::Read as _;
    let Some(dir) = skill_file.parent() else {
        return Vec::new();
    };
    // Most skills have no `agents/` folder: one stat, not two opens.
    if !dir.join("agents").is_dir() {
        return Vec::new();
    }
    let Ok(folder) = crate::contain::Folder::open(dir) else {
        return Vec::new();
    };
    let Ok(opened) = folder.open_path(super::declared::CODEX_FILE) else {
        return Vec::new();
    };
    // A sidecar of a few lines; anything past 64 KiB is not one.
    if opened.kind != crate::contain::OpenedKind::File || opened.len > 64 * 1024 {
        return Vec::new();
    }
    let mut text = String::new();
    if opened
        .file
        .take(64 * 1024)
        .read_to_string(&mut text)
        .is_err()
    {
        return Vec::new();
    }
    super::declared::from_codex_file(&text, &dir.join(super::declared::CODEX_FILE))
}

/// Open a file the catalog reads (`SKILL.md`, `mcp-tools.json`) that is
/// a symlink, through the boundary (`contain`): to a file in its folder,
/// or elsewhere in the root, judged on the opened file. `Err` is where a
/// link that leads outside the root ends (for the author's message);
/// `Ok(None)` leaves a link that does not open to `follow_link`, which
/// says why.
pub(super) fn open_linked_file(
    root: &Path,
    path: &Path,
    name: &std::ffi::OsStr,
) -> Result<Option<crate::contain::Opened>, String> {
    use crate::contain::{Folder, Refusal};
    let Ok(folder) = Folder::open(path.parent().unwrap_or(Path::new("."))) else {
        return Ok(None);
    };
    match folder.open_skill_file(&name.to_string_lossy(), root, path) {
        Ok(opened) => Ok(Some(opened)),
        // Where the chain of links really ends, for the author.
        Err(Refusal::LinksOut { target }) => Err(path
            .canonicalize()
            .map_or(target, |t| t.display().to_string())),
        Err(_) => Ok(None),
    }
}

/// [`open_linked_file`] for a `SKILL.md`, with its finding.
pub(super) fn open_linked_skill_file(
    root: &Path,
    path: &Path,
    name: &std::ffi::OsStr,
) -> Result<Option<crate::contain::Opened>, Finding> {
    open_linked_file(root, path, name).map_err(|target| {
        Finding::new(
            Code::SkillFileOutside,
            Position::START,
            format!(
                "this SKILL.md is a symlink to {target}, outside the root, and was not loaded: a skill is read from inside its root alone — move the file into the skill folder (or elsewhere in the root, and point the link there)"
            ),
        )
    })
}

/// Read a skill file's header (and the whole file when it is small), parse
/// it and run the rule checks.
pub(super) fn read_skill_file(
    entry: &walk::Entry<'_>,
    linked: Option<crate::contain::Opened>,
    folder_name: &str,
    options: &ScanOptions,
    through_link: bool,
) -> Result<ReadSkill, Finding> {
    let read_error = |error: std::io::Error| {
        Finding::new(
            Code::ReadFailed,
            Position::START,
            format!("could not read the file: {error} — check its permissions"),
        )
    };
    let path = entry.path;
    // A skill file that is a symlink comes opened through the boundary
    // (`open_linked_skill_file`), never opened again by its name here.
    let elsewhere = linked.as_ref().is_some_and(|o| o.elsewhere_in_root);
    let mut file = match linked {
        Some(opened) => opened.file,
        None if entry.kind == walk::Kind::Symlink => {
            return Err(read_error(std::io::Error::from(
                std::io::ErrorKind::NotFound,
            )))
        }
        None => entry.open().map_err(read_error)?,
    };
    let metadata = file.metadata().map_err(read_error)?;
    if !metadata.is_file() {
        return Err(Finding::new(
            Code::NotAFile,
            Position::START,
            "this is not a regular file and was not read — replace it with a Markdown file",
        ));
    }
    // Checking bodies (`lint`) needs the whole file, up to the size limit.
    let limit = if options.check_bodies && metadata.len() <= options.limits.max_file_bytes {
        usize::MAX
    } else {
        HEAD_BYTES
    };
    let want = (metadata.len() as usize).min(limit);
    // Read exactly the size reported (no extra probe for end-of-file: one
    // read call for a typical skill). A file that shrank meanwhile ends early.
    // The bytes go into the thread's buffer, reused from file to file: a
    // fresh one each time cost page faults on every read.
    let mut bytes = HEAD.take();
    bytes.clear();
    bytes.resize(want, 0);
    let mut filled = 0;
    while filled < want {
        match file.read(&mut bytes[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(read_error(error)),
        }
    }
    bytes.truncate(filled);
    let mut result = parse_skill_head(path, folder_name, options, through_link, &bytes, &metadata);
    if elsewhere {
        // A file elsewhere in the root is this folder's skill file: the
        // link, not its target, is the skill (two skill folders may link
        // to one file; one folder reached by two paths is one skill).
        let identity = std::fs::symlink_metadata(path)
            .ok()
            .and_then(|m| identity_of(&m));
        if let Ok(found) = &mut result {
            found.identity = identity;
            found.linked_target = path.canonicalize().ok();
        }
    }
    HEAD.set(bytes);
    result
}

thread_local! {
    /// The buffer a walker thread reads skill files into.
    static HEAD: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Parse and check the head of a skill file read by `read_skill_file`.
fn parse_skill_head(
    path: &Path,
    folder_name: &str,
    options: &ScanOptions,
    through_link: bool,
    bytes: &[u8],
    metadata: &std::fs::Metadata,
) -> Result<ReadSkill, Finding> {
    let max_file_bytes = options.limits.max_file_bytes;
    let size = metadata.len();
    let partial = (bytes.len() as u64) < size;
    let mut bytes = bytes;
    if partial {
        // Cut at the last complete line so a multi-byte character split by
        // the read does not look like invalid UTF-8.
        if let Some(newline) = bytes.iter().rposition(|&b| b == b'\n') {
            bytes = &bytes[..=newline];
        }
    }
    if let Some(visitor) = &options.visitor {
        visitor(VisitedFile {
            path,
            bytes: (!partial).then_some(bytes),
            through_link,
            entry: None,
        });
    }
    // What a reader needs to tell versions of the file apart: its bytes, or
    // for a file read only in part, its head, size and modification time.
    let mut hash = crate::hash::StableHasher::new();
    hash.write(bytes);
    if partial {
        hash.write(&size.to_le_bytes());
        let modified = metadata
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        hash.write(&modified.to_le_bytes());
    }
    let content_hash = hash.finish();
    let (text, utf8) = parse::decode(bytes);
    let mut parsed = parse::parse_text(&text);
    if let Some(finding) = utf8 {
        parsed.findings.insert(0, finding);
    }
    if partial {
        // Only the head was read: a front matter that does not close in it
        // is longer than the limit, not unclosed.
        for finding in &mut parsed.findings {
            if finding.code == Code::FrontmatterUnterminated {
                *finding = Finding::new(
                    Code::FrontmatterTooLarge,
                    finding.position,
                    format!(
                        "front matter does not close within the first {} bytes; the limit is {} — keep only name, description and short fields in it and move the rest into the body",
                        HEAD_BYTES,
                        parse::frontmatter::MAX_FRONTMATTER_BYTES
                    ),
                );
            }
        }
    }
    let body = match parsed.fields {
        Some(_) => crate::parse::markdown::body_text(text.get(parsed.body_offset..).unwrap_or("")),
        None => Default::default(),
    };
    let complete = (!partial).then_some(text.as_ref());
    crate::rules::check_file(
        path,
        folder_name,
        &mut parsed,
        complete,
        options.check_bodies,
    );
    if size > max_file_bytes {
        // `read`, `show` and `grep` still open the whole file; only the scan
        // stops at the head, and only when the file is larger than that head.
        let scanned = if partial {
            "when scanning, the catalog read only its head (the front matter), so the body's length and links were not checked; "
        } else {
            ""
        };
        parsed.findings.push(Finding::new(
            Code::FileTooLarge,
            Position::START,
            format!(
                "file is {} bytes; the limit is {} — {scanned}split the body into reference files next to it and link them from it (or raise --max-file-bytes)",
                crate::rules::thousands(size as usize),
                crate::rules::thousands(max_file_bytes as usize)
            ),
        ));
    }
    Ok(ReadSkill {
        identity: identity_of(metadata),
        linked_target: None,
        facts: FileFacts {
            bytes: size,
            hash: content_hash,
        },
        parsed,
        body,
    })
}
