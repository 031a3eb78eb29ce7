//! Progressive disclosure: read one skill, one section of it, a range of
//! lines, or one of its files — and nothing outside the skill's folder.
//!
//! Every path is resolved inside the skill folder twice: lexically (no
//! absolute paths, no `..` climbing out) and on disk (the real path of the
//! target must stay inside the real skill folder, so a symlink cannot lead
//! out). Reads are capped (about 5,000 tokens by default) at a line
//! boundary, with the exact `--lines` range to continue from.

use crate::catalog::{resolve_inside, Catalog};
use crate::contain;
use crate::model::Skill;
use crate::parse::{self, markdown};
use crate::tokens;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What every "is disabled" message says to do.
pub const HOW_TO_ENABLE: &str = "remove it from the `disabled` list of skilldex.yaml (or list it under `enabled`), or unset it in SKILLDEX_DISABLED; through MCP an agent can ask the user with the `request_skill_enable` tool";

/// Default cap of one read, in o200k tokens.
pub const DEFAULT_MAX_TOKENS: usize = 5_000;
pub use crate::contain::MAX_READ_BYTES;

/// A 1-based, inclusive range of lines; either end may be open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LineRange {
    pub start: Option<usize>,
    pub end: Option<usize>,
}

impl std::str::FromStr for LineRange {
    type Err = String;

    /// `A:B`, `A:`, `:B` or `A` (one line).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let number = |s: &str| -> Result<Option<usize>, String> {
            let s = s.trim();
            if s.is_empty() {
                return Ok(None);
            }
            match s.parse::<usize>() {
                Ok(0) => Err("line numbers start at 1".to_string()),
                Ok(n) => Ok(Some(n)),
                Err(_) => Err(format!("`{s}` is not a line number")),
            }
        };
        let (start, end) = match text.split_once(':') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => {
                let n = number(text)?;
                (n, n)
            }
        };
        if let (Some(a), Some(b)) = (start, end) {
            if a > b {
                return Err(format!("the range {a}:{b} ends before it starts"));
            }
        }
        Ok(LineRange { start, end })
    }
}

/// What to read.
#[derive(Debug, Clone, Default)]
pub struct ReadRequest {
    /// `NAME`, or `NAME/PATH/INSIDE/THE/SKILL` (NAME may be a qualified id).
    pub target: String,
    /// A file inside the skill, for callers that take it apart from the
    /// name (`read_skill`); empty for `SKILL.md`. When set, `target` is the
    /// skill's name, and a name that matches nothing is reported whole
    /// (`ns1/zeta` as namespace `ns1`, skill `zeta`) instead of read as
    /// `NAME/PATH`.
    pub path: Option<String>,
    /// The whole file, front matter included.
    pub raw: bool,
    /// A heading's text or slug.
    pub section: Option<String>,
    pub lines: Option<LineRange>,
    /// Cap in tokens (0 = the default).
    pub max_tokens: usize,
}

/// A file of a skill, as listed in read headers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListedFile {
    pub path: String,
    /// Set for nested skills and sub-skills.
    pub kind: Option<&'static str>,
}

/// The answer to a read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadResult {
    /// Id of the skill.
    pub skill: String,
    /// Path of the file inside the skill folder (`SKILL.md`, `references/x.md`).
    pub path: String,
    /// The skill folder.
    pub folder: PathBuf,
    pub content: String,
    pub start_line: usize,
    pub end_line: usize,
    pub total_lines: usize,
    pub truncated: bool,
    /// The `--lines` argument that continues the read, when truncated.
    pub next: Option<String>,
    /// Something the reader should know (lossy decoding, a cut line).
    pub note: Option<String>,
    /// The skill's other files (never their contents).
    pub files: Vec<ListedFile>,
    /// Local links of the file read, and whether each resolves.
    pub links: Vec<LinkState>,
}

impl ReadResult {
    /// The skill's files as one line (`a.md, scripts/run.sh (script)`),
    /// at most `max` named, then `and N more`; `None` when there are none.
    pub fn files_line(&self, max: usize) -> Option<String> {
        if self.files.is_empty() {
            return None;
        }
        let mut line = self
            .files
            .iter()
            .take(max)
            .map(|f| match f.kind {
                Some(kind) => format!("{} ({kind})", f.path),
                None => f.path.clone(),
            })
            .collect::<Vec<_>>()
            .join(", ");
        let more = self.files.len().saturating_sub(max);
        if more > 0 {
            line.push_str(&format!(" and {more} more"));
        }
        Some(line)
    }
}

/// A heading of the file, offered when `--section` named none or several.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SectionCandidate {
    pub heading: String,
    /// Unique in the file; `--section SLUG` picks exactly this heading.
    pub slug: String,
    /// Whether `--section SLUG` picks this heading alone. It does not when
    /// another heading's text is the same words (two `## Steps`: `steps`
    /// names both, `steps-1` only the second); read it by its lines then.
    pub slug_selects: bool,
    /// First and last line of the section.
    pub line: usize,
    pub end_line: usize,
    pub level: u8,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkState {
    pub target: String,
    pub resolves: bool,
}

/// Why a read was refused. Every message names the thing and what to do.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("the skill name is empty — name the skill to read (`skilldex list` shows them)")]
    EmptyName,
    #[error("the name and path to read are {bytes} bytes long; they can be at most {MAX_TARGET_BYTES}, the longest path the system opens — name the skill and a file inside it")]
    TooLong { bytes: usize },
    #[error("{}{}", unknown_skill_text(.name, .namespace), suggest(.suggestions))]
    UnknownSkill {
        /// The skill's name as passed, without its namespace.
        name: String,
        /// For `namespace/name`: the namespace as passed.
        namespace: Option<NamespacePart>,
        suggestions: Vec<String>,
    },
    #[error("`{name}` is not a skill name: `..` is not allowed in a skill name or path{}", suggest(.suggestions))]
    ParentInName {
        /// What was passed.
        name: String,
        suggestions: Vec<String>,
    },
    #[error(
        "skill `{name}` is disabled by configuration — {}",
        crate::query::read::HOW_TO_ENABLE
    )]
    Disabled { name: String },
    #[error("`{path}` is not inside skill `{skill}`: it {reason} — paths are relative to the skill folder")]
    Escapes {
        skill: String,
        path: String,
        reason: String,
    },
    #[error("skill `{skill}` has no file `{path}`{}", list_files(.files))]
    NotFound {
        skill: String,
        path: String,
        files: Vec<String>,
    },
    #[error("`{path}` in skill `{skill}` is a folder; read one of its files{}", list_files(.files))]
    IsFolder {
        skill: String,
        path: String,
        files: Vec<String>,
    },
    #[error("`{path}` is not part of skill `{skill}`: {why} — skilldex does not list, search or read it")]
    LeftOut {
        skill: String,
        path: String,
        why: String,
    },
    #[error("`{path}` in skill `{skill}` is the folder of a nested skill whose file {} did not load — `skilldex lint` says why", .file.display())]
    NotLoaded {
        skill: String,
        path: String,
        file: PathBuf,
    },
    #[error(
        "skill `{name}` did not load: {}:{}:{}: {} (`skilldex lint` lists every problem)",
        crate::model::printable(&.diagnostic.path.to_string_lossy()),
        .diagnostic.line,
        .diagnostic.column,
        .diagnostic.message
    )]
    NotLoadedSkill {
        name: String,
        diagnostic: Box<crate::model::Diagnostic>,
    },
    #[error("`{path}` in skill `{skill}` is not Markdown, so it has no sections — read a range of its lines instead (`--lines A:B`)")]
    NotMarkdown { skill: String, path: String },
    #[error("`{path}` in skill `{skill}` is {what}, not a regular file, and cannot be read — replace it with a regular file")]
    NotAFile {
        skill: String,
        path: String,
        /// What it is ("a named pipe (FIFO)").
        what: &'static str,
    },
    #[error(
        "`{path}` in skill `{skill}` is a binary file ({bytes} bytes); skilldex shows text only"
    )]
    Binary {
        skill: String,
        path: String,
        bytes: u64,
    },
    #[error("`{path}` in skill `{skill}` is {bytes} bytes, more than skilldex reads at once")]
    TooLarge {
        skill: String,
        path: String,
        bytes: u64,
    },
    #[error("{}", section_message(.heading, .matches, .outline))]
    Section {
        skill: String,
        path: String,
        /// The section asked for, as given.
        heading: String,
        /// Indexes into `outline` of the headings that matched (none =
        /// unknown, several = ambiguous).
        matches: Vec<usize>,
        outline: Vec<SectionCandidate>,
    },
    #[error("lines {requested} are outside `{path}`, which has {total} lines")]
    Lines {
        path: String,
        requested: String,
        total: usize,
    },
    #[error("could not read {}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The namespace part of a qualified name that matched no skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespacePart {
    pub name: String,
    /// Whether the catalog has a namespace of that name (or below it).
    pub exists: bool,
}

fn unknown_skill_text(name: &str, namespace: &Option<NamespacePart>) -> String {
    match namespace {
        None => format!("no skill named `{name}`"),
        Some(NamespacePart { name: ns, exists }) if *exists => {
            format!("no skill `{name}` in namespace `{ns}`")
        }
        Some(NamespacePart { name: ns, .. }) => {
            format!("no skill `{name}` in namespace `{ns}`, and no namespace `{ns}` exists")
        }
    }
}

fn suggest(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        " — list the skills with `skilldex list`".to_string()
    } else {
        format!(
            " — did you mean {}?",
            suggestions
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

fn list_files(files: &[String]) -> String {
    if files.is_empty() {
        String::new()
    } else {
        let shown: Vec<&str> = files.iter().take(20).map(String::as_str).collect();
        let more = if files.len() > shown.len() {
            format!(" and {} more", files.len() - shown.len())
        } else {
            String::new()
        };
        format!(" (its files: {}{more})", shown.join(", "))
    }
}

fn section_message(heading: &str, matches: &[usize], outline: &[SectionCandidate]) -> String {
    section_text(heading, matches, outline, &|candidate| {
        if candidate.slug_selects && candidate.slug.starts_with('-') {
            // `--section -x` would read as another flag.
            format!("--section={}", candidate.slug)
        } else if candidate.slug_selects {
            format!("--section {}", candidate.slug)
        } else {
            format!("--lines {}:{}", candidate.line, candidate.end_line)
        }
    })
}

/// The answer to a `--section` that named none or several headings: the
/// outline, each heading followed by how to pick it (`pick`, in the words
/// of the caller: CLI flags or tool arguments).
fn section_text(
    heading: &str,
    matches: &[usize],
    outline: &[SectionCandidate],
    pick: &dyn Fn(&SectionCandidate) -> String,
) -> String {
    if outline.is_empty() {
        return format!("no section `{heading}`: the file has no headings");
    }
    // At most this many headings are listed: a file can have thousands.
    const SHOWN: usize = 50;
    let mut message = if matches.is_empty() {
        format!("no section `{heading}`; the headings are:")
    } else {
        format!(
            "`{heading}` matches {} headings; pick one as shown after it. The headings are:",
            matches.len()
        )
    };
    for candidate in outline.iter().take(SHOWN) {
        message.push_str(&format!(
            "\n  L{:<5} {} {}  ({})",
            candidate.line,
            "#".repeat(usize::from(candidate.level)),
            candidate.heading,
            pick(candidate)
        ));
    }
    if outline.len() > SHOWN {
        message.push_str(&format!(
            "\n  … and {} more, not listed; read a range of lines instead",
            outline.len() - SHOWN
        ));
    }
    message
}

impl ReadError {
    /// For a `Section` error, the headings to choose from: those that
    /// matched when the section was ambiguous, else the whole outline.
    pub fn section_candidates(&self) -> Option<Vec<&SectionCandidate>> {
        match self {
            ReadError::Section {
                matches, outline, ..
            } if matches.is_empty() => Some(outline.iter().collect()),
            ReadError::Section {
                matches, outline, ..
            } => Some(matches.iter().filter_map(|&i| outline.get(i)).collect()),
            _ => None,
        }
    }

    /// For a `Section` error, its message with each heading followed by
    /// `pick(heading)` instead of the CLI flags that select it.
    pub fn section_message_with(
        &self,
        pick: &dyn Fn(&SectionCandidate) -> String,
    ) -> Option<String> {
        match self {
            ReadError::Section {
                heading,
                matches,
                outline,
                ..
            } => Some(section_text(heading, matches, outline, pick)),
            _ => None,
        }
    }
}

/// Whether `target` names nothing: empty, or only slashes and spaces.
pub fn is_blank_target(target: &str) -> bool {
    target.chars().all(|c| c == '/' || c.is_whitespace())
}

/// Find the skill and the path inside it that `target` names: the longest
/// leading part that is a skill id or qualified name is the skill.
pub fn resolve_target<'a>(
    catalog: &'a Catalog,
    target: &str,
) -> Result<(&'a Skill, String), ReadError> {
    resolve(catalog, target, false)
}

/// A skill found by a path on disk rather than by name: `read
/// skills/dev/git-bisect/SKILL.md`, the form the directory prints in
/// brackets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathTarget {
    /// The skill's file as a walk of each root holding it writes it (the
    /// root joined with the path inside it), `SKILL.md` before `skill.md`.
    pub skill_files: Vec<PathBuf>,
    /// The wanted file inside the skill folder, `/`-separated; empty for
    /// the skill file itself.
    pub inside: String,
}

/// When `target` is a path on disk to a skill's file, its folder or a file
/// inside it, under one of `roots`: where that skill is. `None` when no
/// root holds the path or no skill folder does — the caller says so.
/// Nothing is read; the folder holding the nearest skill file, climbing no
/// higher than the roots, is the skill. A path that reaches a root only
/// through symlinks (a linked root, a current folder reported by its real
/// path) is matched by real paths and written back under the root.
pub fn locate_path(roots: &[PathBuf], target: &str) -> Option<PathTarget> {
    use super::render::normalize;
    let given = std::path::Path::new(target.trim());
    let mut wanted = normalize(&std::path::absolute(given).ok()?);
    let absolute_roots: Vec<PathBuf> = roots
        .iter()
        .map(|root| normalize(&std::path::absolute(root).unwrap_or_else(|_| root.clone())))
        .collect();
    if !absolute_roots.iter().any(|root| wanted.starts_with(root)) {
        // The same place by real paths: written under the first root that
        // holds it.
        let real = wanted.canonicalize().ok()?;
        wanted = roots
            .iter()
            .zip(&absolute_roots)
            .find_map(|(root, absolute)| {
                let inside = real.strip_prefix(root.canonicalize().ok()?).ok()?;
                Some(absolute.join(inside))
            })?;
    }
    let holding: Vec<(&PathBuf, &PathBuf)> = roots
        .iter()
        .zip(&absolute_roots)
        .filter(|(_, absolute)| wanted.starts_with(absolute))
        .collect();
    // A dangling link is a file of its folder (reading it says it dangles).
    let is_dir = std::fs::metadata(&wanted).is_ok_and(|m| m.is_dir());
    let mut folder = if is_dir {
        wanted.clone()
    } else {
        wanted.parent()?.to_path_buf()
    };
    let names = loop {
        let names: Vec<&str> = crate::scan::SKILL_FILE_NAMES
            .iter()
            .copied()
            .filter(|name| folder.join(name).is_file())
            .collect();
        if !names.is_empty() {
            break names;
        }
        // Climb while the folder is still below a root.
        if !holding
            .iter()
            .any(|(_, root)| folder != **root && folder.starts_with(root))
        {
            return None;
        }
        folder = folder.parent()?.to_path_buf();
    };
    let inside = crate::scan::slash_path(wanted.strip_prefix(&folder).ok()?);
    let inside = if inside == names[0] {
        String::new()
    } else {
        inside
    };
    let skill_files: Vec<PathBuf> = holding
        .iter()
        .filter_map(|(root, absolute)| folder.strip_prefix(absolute).ok().map(|rel| root.join(rel)))
        .flat_map(|folder| names.iter().map(move |name| folder.join(name)))
        .collect();
    if skill_files.is_empty() {
        return None;
    }
    Some(PathTarget {
        skill_files,
        inside,
    })
}

/// Find the skill `name` names (the MCP `name`, the CLI's `show NAME`).
/// A path after the name still works, as in `resolve_target`; what
/// differs is the error, which takes all of `name` for the name.
pub fn resolve_name<'a>(
    catalog: &'a Catalog,
    name: &str,
) -> Result<(&'a Skill, String), ReadError> {
    resolve(catalog, name, true)
}

/// The error for a skill name that names no skill (for commands that
/// look names up themselves, like `show`): as `resolve_name` words it.
pub fn unknown_name(catalog: &Catalog, name: &str) -> ReadError {
    let name = name.trim().trim_matches('/');
    let parts: Vec<&str> = name.split('/').collect();
    unknown(catalog, name, &parts, true)
}

fn resolve<'a>(
    catalog: &'a Catalog,
    target: &str,
    whole_is_name: bool,
) -> Result<(&'a Skill, String), ReadError> {
    if is_blank_target(target) {
        return Err(ReadError::EmptyName);
    }
    let target = target.trim().trim_matches('/');
    let parts: Vec<&str> = target.split('/').collect();
    for cut in (1..=parts.len()).rev() {
        let name = parts[..cut].join("/");
        if let Some(skill) = catalog.get(&name) {
            return Ok((skill, parts[cut..].join("/")));
        }
    }
    for cut in (1..=parts.len()).rev() {
        if let Some(skill) = catalog.disabled_skill(&parts[..cut].join("/")) {
            return Err(ReadError::Disabled {
                name: skill.id.clone(),
            });
        }
    }
    Err(unknown(catalog, target, &parts, whole_is_name))
}

/// Why `target` (split into `parts`) names no skill, in the terms it was
/// passed in.
fn unknown(catalog: &Catalog, target: &str, parts: &[&str], whole_is_name: bool) -> ReadError {
    if parts.contains(&"..") {
        // What it would name without the climbing, if anything.
        let rest: Vec<&str> = parts
            .iter()
            .copied()
            .filter(|p| !matches!(*p, ".." | "." | ""))
            .collect();
        let suggestions = match resolve_target(catalog, &rest.join("/")) {
            Ok((skill, _)) if !rest.is_empty() => vec![skill.id.clone()],
            _ => Vec::new(),
        };
        return ReadError::ParentInName {
            name: target.to_string(),
            suggestions,
        };
    }
    let has_namespace = |namespace: &str| {
        catalog.namespaces().iter().any(|n| {
            n.name == namespace
                || n.name.len() > namespace.len()
                    && n.name.starts_with(namespace)
                    && n.name.as_bytes()[namespace.len()] == b'/'
        })
    };
    // How many leading parts name the skill (namespace folders, then its
    // name); the rest, for `NAME/PATH` targets, is a path inside it.
    let name_parts = if whole_is_name {
        parts.len()
    } else {
        match (1..parts.len())
            .rev()
            .find(|&k| has_namespace(&parts[..k].join("/")))
        {
            Some(k) => k + 1,
            // `a/b` with no namespace `a`: a qualified name more likely
            // than a file without an extension.
            None if parts.len() == 2 && !parts[1].contains('.') => 2,
            None => 1,
        }
    };
    let (name, namespace) = match parts[..name_parts].split_last() {
        Some((name, namespace)) => (*name, namespace.join("/")),
        None => (target, String::new()),
    };
    // A skill file in a folder of that name that did not load: say why.
    let in_namespace = |d: &&crate::model::Diagnostic| {
        namespace.is_empty()
            || d.path
                .parent()
                .and_then(std::path::Path::parent)
                .is_some_and(|p| p.ends_with(&namespace))
    };
    if let Some(d) = catalog
        .load_errors_named(name)
        .into_iter()
        .find(in_namespace)
    {
        return ReadError::NotLoadedSkill {
            name: name.to_string(),
            diagnostic: Box::new(d.clone()),
        };
    }
    if namespace.is_empty() {
        return ReadError::UnknownSkill {
            name: name.to_string(),
            namespace: None,
            suggestions: catalog
                .similar(name, 5)
                .into_iter()
                .map(str::to_string)
                .collect(),
        };
    }
    let exists = has_namespace(&namespace);
    // Skills of that name elsewhere, then skills like the qualified name,
    // like the name alone, and (in a `NAME/PATH` target with no such
    // namespace, the first part may be a misspelt skill) like the
    // namespace; all written the way they were asked for, `namespace/name`.
    let mut found: Vec<&Skill> = catalog
        .skills()
        .iter()
        .filter(|s| s.name.eq_ignore_ascii_case(name))
        .map(|s| &**s)
        .collect();
    let qualified = format!("{namespace}/{name}");
    let mut similar = catalog.similar(&qualified, 5);
    similar.extend(catalog.similar(name, 5));
    if !exists && !whole_is_name {
        similar.extend(catalog.similar(&namespace, 5));
    }
    for id in similar {
        if let Some(skill) = catalog.get(id) {
            if !found.iter().any(|f| std::ptr::eq(*f, skill)) {
                found.push(skill);
            }
        }
    }
    let suggestions = found
        .into_iter()
        .take(5)
        .map(|skill| {
            // `namespace/id` when that reads this skill: a skill that lost
            // the name in the same namespace may have it as its id.
            let qualified = format!("{}/{}", skill.namespace, skill.id);
            let reads_it = catalog
                .get(&qualified)
                .is_some_and(|s| std::ptr::eq(s, skill));
            if skill.namespace.is_empty() || skill.id.contains('/') || !reads_it {
                skill.id.clone()
            } else {
                qualified
            }
        })
        .collect();
    ReadError::UnknownSkill {
        name: name.to_string(),
        namespace: Some(NamespacePart {
            exists,
            name: namespace,
        }),
        suggestions,
    }
}

/// Every file of a skill folder, relative, sorted (see `files`); `root` is
/// the root the skill was found in (`Catalog::root_of`).
pub fn skill_files(root: &Path, skill: &Skill) -> Vec<ListedFile> {
    use super::files::{list_skill_folder, EntryKind};
    list_skill_folder(root, skill)
        .entries
        .into_iter()
        .map(|entry| ListedFile {
            kind: match entry.kind {
                EntryKind::File => None,
                EntryKind::NestedSkill => Some("nested skill"),
                EntryKind::Symlink => Some("symlink"),
            },
            path: entry.path,
        })
        .collect()
}

/// Resolve `relative` inside the skill folder, on paper and on disk; `root`
/// is the root the skill was found in (`Catalog::root_of`). The file's real
/// path; reading it by that name again would race, so readers use
/// `open_file`.
pub fn resolve_file(root: &Path, skill: &Skill, relative: &str) -> Result<PathBuf, ReadError> {
    let (opened, folder) = open_file(root, skill, relative)?;
    Ok(opened.real_path(&folder))
}

/// Open `relative` inside the skill folder through the boundary
/// (`contain`): never outside the skill's real folder, never a pipe or
/// device, and never a file the scan leaves out, judged where it really is
/// (a link to `.git/config` or to an ignored file is left out like them).
pub fn open_file(
    root: &Path,
    skill: &Skill,
    relative: &str,
) -> Result<(contain::Opened, contain::Folder), ReadError> {
    let escapes = |reason: &str| ReadError::Escapes {
        skill: skill.id.clone(),
        path: relative.to_string(),
        reason: reason.to_string(),
    };
    if relative.contains('\0') {
        return Err(escapes("contains a NUL byte"));
    }
    let dir = skill.dir();
    let candidate = resolve_inside(dir, relative).map_err(escapes)?;
    let not_found = || ReadError::NotFound {
        skill: skill.id.clone(),
        path: relative.to_string(),
        files: skill_files(root, skill)
            .into_iter()
            .map(|f| f.path)
            .collect(),
    };
    let folder = contain::Folder::open(dir).map_err(|source| ReadError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let opened = folder
        .open_path(relative)
        .map_err(|refusal| match refusal {
            contain::Refusal::Escapes(reason) => escapes(&reason),
            contain::Refusal::Dangling => escapes("is a symlink whose target does not exist"),
            contain::Refusal::Missing => not_found(),
            contain::Refusal::Special(what) => ReadError::NotAFile {
                skill: skill.id.clone(),
                path: relative.to_string(),
                what,
            },
            contain::Refusal::Io(source) => ReadError::Io {
                path: candidate.clone(),
                source,
            },
        })?;
    // Only what a scan sees is part of the skill (as `show` lists it and
    // `grep` searches it): the path as asked, and where it really is.
    let real = dir.join(&opened.real);
    for path in [&candidate, &real] {
        if let Some(why) = super::files::left_out(root, skill, path) {
            return Err(ReadError::LeftOut {
                skill: skill.id.clone(),
                path: relative.to_string(),
                why,
            });
        }
        if !opened.through_link {
            break;
        }
    }
    if opened.kind == contain::OpenedKind::Folder {
        let files = skill_files(root, skill)
            .into_iter()
            .map(|f| f.path)
            .filter(|p| p.starts_with(&format!("{}/", relative.trim_end_matches('/'))))
            .collect();
        return Err(ReadError::IsFolder {
            skill: skill.id.clone(),
            path: relative.to_string(),
            files,
        });
    }
    Ok((opened, folder))
}

/// When `relative` (inside `skill`'s folder) lies in a folder below that
/// holds a skill file, the skill of the deepest such folder and the path
/// inside it: every file belongs to its nearest skill, as `grep` answers
/// it. A folder reached through a symlink is matched by its real place. A
/// disabled skill, or a skill file that did not load, refuses; a folder the
/// scan leaves out is left to `resolve_file` to refuse.
fn nested_owner<'a>(
    catalog: &'a Catalog,
    skill: &Skill,
    relative: &str,
) -> Result<Option<(&'a Skill, String)>, ReadError> {
    let parts: Vec<&str> = relative.split('/').filter(|p| !p.is_empty()).collect();
    if parts.iter().any(|p| *p == "." || *p == "..") {
        return Ok(None); // Refused by `resolve_file`.
    }
    let root = catalog.root_of(skill);
    let mut folder = skill.dir().to_path_buf();
    let mut owner = None;
    for (i, part) in parts.iter().enumerate() {
        folder.push(part);
        if super::files::left_out(root, skill, &folder).is_some() {
            return Ok(None);
        }
        // Nothing below a file or a missing folder holds a skill file; the
        // rest of the path is checked in one pass (one per part would make
        // a long target cost its square).
        if !folder.is_dir() {
            let rest = &parts[i + 1..];
            if !rest.is_empty() {
                let mut whole = folder.clone();
                whole.extend(rest);
                if super::files::left_out(root, skill, &whole).is_some() {
                    return Ok(None);
                }
            }
            break;
        }
        if let Some(file) = crate::scan::SKILL_FILE_NAMES
            .iter()
            .map(|n| folder.join(n))
            .find(|f| f.is_file())
        {
            owner = Some((file, i + 1));
        }
    }
    let Some((file, used)) = owner else {
        return Ok(None);
    };
    let rest = parts[used..].join("/");
    let dir = file.parent().unwrap_or(&file);
    // Skills nested in this one, by their folder as written, else by their
    // real folder (an alias symlink inside the skill).
    let nested = || {
        catalog
            .skills()
            .iter()
            .map(|s| (s, false))
            .chain(catalog.disabled_skills().iter().map(|s| (s, true)))
            .filter(|(s, _)| s.dir() != skill.dir() && s.dir().starts_with(skill.dir()))
    };
    let found = nested().find(|(s, _)| s.dir() == dir).or_else(|| {
        let real = dir.canonicalize().ok()?;
        nested().find(|(s, _)| s.dir().canonicalize().is_ok_and(|d| d == real))
    });
    match found {
        Some((nested, false)) => Ok(Some((nested, rest))),
        Some((disabled, true)) => Err(ReadError::Disabled {
            name: disabled.id.clone(),
        }),
        None => match catalog.load_error(&file) {
            Some(diagnostic) => Err(ReadError::NotLoadedSkill {
                name: parts[used - 1].to_string(),
                diagnostic: Box::new(diagnostic.clone()),
            }),
            None => Err(ReadError::NotLoaded {
                path: parts[..used].join("/"),
                skill: skill.id.clone(),
                file,
            }),
        },
    }
}

/// The real folders of the disabled skills nested in one skill: what a
/// symlink inside that skill must never lead into. Built once per skill;
/// with nothing disabled it checks nothing.
pub struct DisabledInside {
    /// (real folder, id), deepest first.
    folders: Vec<(PathBuf, String)>,
}

impl DisabledInside {
    pub fn new(catalog: &Catalog, skill: &Skill) -> Self {
        let all = catalog.disabled_real_folders();
        let mut folders = Vec::new();
        if !all.is_empty() {
            if let Ok(real_dir) = skill.dir().canonicalize() {
                folders = all
                    .iter()
                    .filter(|(f, _)| *f != real_dir && f.starts_with(&real_dir))
                    .cloned()
                    .collect();
                folders.sort_by_key(|(f, _)| std::cmp::Reverse(f.components().count()));
            }
        }
        DisabledInside { folders }
    }

    /// The id of the disabled skill that owns `real` (a real path): one of
    /// these folders holds it, and no enabled skill folder lies between.
    pub fn owner_of(&self, real: &Path) -> Option<&str> {
        let (folder, id) = self.folders.iter().find(|(f, _)| real.starts_with(f))?;
        let mut dir = if real.is_dir() {
            Some(real)
        } else {
            real.parent()
        };
        while let Some(d) = dir {
            if d == folder {
                return Some(id);
            }
            let holds_skill = crate::scan::SKILL_FILE_NAMES
                .iter()
                .any(|n| d.join(n).is_file());
            if holds_skill {
                // The nearest skill: disabled too, or one that owns it.
                return self
                    .folders
                    .iter()
                    .find(|(f, _)| f == d)
                    .map(|(_, id)| id.as_str());
            }
            dir = d.parent().filter(|p| p.starts_with(folder));
        }
        Some(id)
    }

    /// `owner_of` for a path that may go through symlinks.
    pub fn owner_of_path(&self, path: &Path) -> Option<&str> {
        if self.folders.is_empty() {
            return None;
        }
        self.owner_of(&path.canonicalize().ok()?)
    }
}

/// The longest skill name and path inside it that `read` looks up:
/// Linux's `PATH_MAX`, beyond which no path opens.
pub const MAX_TARGET_BYTES: usize = 4096;

/// Read what `request` asks for.
pub fn read(catalog: &Catalog, request: &ReadRequest) -> Result<ReadResult, ReadError> {
    let bytes = request.target.len() + request.path.as_ref().map_or(0, String::len);
    if bytes > MAX_TARGET_BYTES {
        return Err(ReadError::TooLong { bytes });
    }
    let (skill, relative) = match &request.path {
        None => resolve_target(catalog, &request.target)?,
        Some(path) => {
            let (skill, inside) = resolve_name(catalog, &request.target)?;
            let relative = match (inside.is_empty(), path.is_empty()) {
                (_, true) => inside,
                (true, false) => path.clone(),
                (false, false) => format!("{inside}/{path}"),
            };
            (skill, relative)
        }
    };
    // A file of a skill nested in this one is that skill's: read there,
    // and refused when that skill is disabled.
    let (skill, relative) = match nested_owner(catalog, skill, &relative)? {
        Some((nested, rest)) => (nested, rest),
        None => (skill, relative),
    };
    let is_skill_file =
        relative.is_empty() || relative == "SKILL.md" && skill.path.ends_with("SKILL.md");
    let relative = if is_skill_file {
        skill
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    } else {
        relative
    };
    let (opened, folder) = open_file(catalog.root_of(skill), skill, &relative)?;
    let file = skill.dir().join(&opened.real);
    if let Some(id) = DisabledInside::new(catalog, skill).owner_of(&opened.real_path(&folder)) {
        return Err(ReadError::Disabled {
            name: id.to_string(),
        });
    }
    let size = opened.len;
    if size > MAX_READ_BYTES {
        return Err(ReadError::TooLarge {
            skill: skill.id.clone(),
            path: relative,
            bytes: size,
        });
    }
    let bytes =
        contain::read_at_most(opened.file, MAX_READ_BYTES).map_err(|source| ReadError::Io {
            path: file.clone(),
            source,
        })?;
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return Err(ReadError::Binary {
            skill: skill.id.clone(),
            path: relative,
            bytes: size,
        });
    }
    let (text, utf8) = parse::decode(&bytes);
    let mut note = utf8.map(|f| {
        format!(
            "the file is not valid UTF-8 (first bad byte at line {}, column {}); invalid bytes are shown as U+FFFD",
            f.position.line, f.position.column
        )
    });
    let text = text.as_ref();
    let line_starts = line_starts(text);
    let total_lines = line_starts.len();
    let is_markdown = relative.ends_with(".md") || relative.ends_with(".markdown");
    let header_end_line = if is_markdown {
        let parsed = parse::parse_text(text);
        // The skill file's header is stripped even when its YAML is broken;
        // another file's only when it is a YAML mapping (a reference that
        // opens with a `---` rule keeps its first lines).
        let is_skill_file = file == skill.path;
        (parsed.fields.is_some() || is_skill_file && parse::frontmatter::split(text).is_ok())
            .then_some(parsed.body_line as usize)
    } else {
        None
    };
    let body_offset = match header_end_line {
        Some(line) => line_starts.get(line - 1).copied().unwrap_or(text.len()),
        None => 0,
    };

    // Pick the lines: a section, a range, the body, or everything.
    // A continuation stays inside what was asked for: a section, or a range
    // with an end. Whole-file and open-ended reads continue to the end.
    let mut bounded = false;
    let (first, last) = if let Some(heading) = &request.section {
        if !is_markdown {
            return Err(ReadError::NotMarkdown {
                skill: skill.id.clone(),
                path: relative,
            });
        }
        let outline = markdown::outline(text, body_offset).headings;
        bounded = true;
        let source_line = |number: usize| {
            line_starts
                .get(number.wrapping_sub(1))
                .map(|_| line_text(text, &line_starts, number).to_string())
                .unwrap_or_default()
        };
        section_range(&outline, heading, total_lines, &source_line).map_err(
            |(matches, outline)| ReadError::Section {
                skill: skill.id.clone(),
                path: relative.clone(),
                heading: heading.clone(),
                matches,
                outline,
            },
        )?
    } else if let Some(range) = request.lines {
        bounded = range.end.is_some();
        let start = range.start.unwrap_or(1);
        let end = range.end.unwrap_or(total_lines).min(total_lines);
        if start > total_lines.max(1) {
            return Err(ReadError::Lines {
                path: relative,
                requested: format!(
                    "{}:{}",
                    start,
                    range.end.map(|e| e.to_string()).unwrap_or_default()
                ),
                total: total_lines,
            });
        }
        (start, end)
    } else if request.raw {
        (1, total_lines)
    } else {
        // The body; a file that is all header has an empty one.
        (header_end_line.unwrap_or(1), total_lines)
    };

    let max_tokens = if request.max_tokens == 0 {
        DEFAULT_MAX_TOKENS
    } else {
        request.max_tokens
    };
    let mut content = String::new();
    let mut used = 0;
    let mut end_line = first.saturating_sub(1);
    let mut truncated = false;
    // A token covers at least one byte: a selection no longer in bytes than
    // the cap fits without loading the tokenizer.
    let selected_bytes = if first <= last {
        line_starts.get(last).copied().unwrap_or(text.len()) - line_starts[first - 1]
    } else {
        0
    };
    let exact = selected_bytes > max_tokens;
    for number in first..=last {
        let line = line_text(text, &line_starts, number);
        // A line longer than 64 bytes per token of the cap cannot fit in
        // practice; it is not tokenized (a 10 MB line would take seconds).
        let cost = if !exact {
            line.len()
        } else if line.len() > max_tokens.saturating_mul(64) {
            usize::MAX / 2
        } else {
            tokens::count(line)
        };
        if used + cost > max_tokens {
            if number == first {
                // One line larger than the whole cap: show its start.
                let keep = floor_char_boundary(line, max_tokens.saturating_mul(3));
                content.push_str(&line[..keep]);
                content.push_str("…\n");
                note = Some(format!(
                    "line {number} is {} bytes; only its first {keep} bytes are shown",
                    line.len()
                ));
                end_line = number;
            }
            truncated = true;
            break;
        }
        used += cost;
        content.push_str(line);
        end_line = number;
    }
    if !truncated && first > last {
        end_line = last;
    }
    let next = (truncated && end_line < last).then(|| {
        if bounded {
            format!("{}:{last}", end_line + 1)
        } else {
            format!("{}:", end_line + 1)
        }
    });
    let links = if is_markdown {
        // The folder of the file as the skill sees it (not its real path),
        // so relative links resolve the way the author wrote them.
        let logical = skill.dir().join(&relative);
        let folder_of_file = logical.parent().unwrap_or(skill.dir());
        markdown::outline(text, body_offset)
            .links
            .into_iter()
            .map(|link| LinkState {
                resolves: crate::rules::link_state(skill.dir(), folder_of_file, &link.target)
                    == crate::rules::LinkState::Resolves,
                target: link.target,
            })
            .collect()
    } else {
        Vec::new()
    };
    // A live catalog keeps a broken skill's last good name and description;
    // the file itself is read as it is now, so say so.
    if file == skill.path && catalog.is_stale(&skill.id) {
        let problem = catalog
            .diagnostics()
            .iter()
            .find(|d| d.path == skill.path && d.severity == crate::model::Severity::Error)
            .map(|d| {
                format!(
                    " ({}:{}: {}: {})",
                    d.line,
                    d.column,
                    d.code.as_str(),
                    d.message
                )
            })
            .unwrap_or_default();
        let stale = format!(
            "this SKILL.md is broken on disk right now{problem}; the directory and search keep its last good name and description until it is fixed, and what follows is the file as it is now"
        );
        note = Some(match note {
            Some(other) => format!("{stale}; {other}"),
            None => stale,
        });
    }
    Ok(ReadResult {
        skill: skill.id.clone(),
        path: relative,
        folder: skill.dir().to_path_buf(),
        content,
        start_line: first,
        end_line,
        total_lines,
        truncated,
        next,
        note,
        // A disabled skill nested in this one is not announced.
        files: skill_files(catalog.root_of(skill), skill)
            .into_iter()
            .filter(|f| {
                f.kind != Some("nested skill")
                    || !catalog
                        .disabled_skills()
                        .iter()
                        .any(|d| d.path == skill.dir().join(&f.path))
            })
            .collect(),
        links,
    })
}

/// The lines of the one section `wanted` names, or (the indexes of the
/// headings that matched, every heading) when it names none or several.
fn section_range(
    outline: &[markdown::Heading],
    wanted: &str,
    total_lines: usize,
    source_line: &dyn Fn(usize) -> String,
) -> Result<(usize, usize), (Vec<usize>, Vec<SectionCandidate>)> {
    let lookup = SectionLookup::new(outline, source_line);
    let matches = lookup.find(wanted);
    if let [index] = matches[..] {
        let line = outline[index].line as usize;
        return Ok((line, section_end(outline, index, total_lines)));
    }
    let candidates = outline
        .iter()
        .enumerate()
        .map(|(index, h)| SectionCandidate {
            heading: h.text.clone(),
            slug: h.slug.clone(),
            slug_selects: lookup.find(&h.slug) == [index],
            line: h.line as usize,
            end_line: section_end(outline, index, total_lines),
            level: h.level,
        })
        .collect();
    Err((matches, candidates))
}

/// The last line of the section under heading `index`: the line before the
/// next heading of the same or a higher level, or the end of the file.
fn section_end(outline: &[markdown::Heading], index: usize, total_lines: usize) -> usize {
    let heading = &outline[index];
    let end = outline[index + 1..]
        .iter()
        .find(|h| h.level <= heading.level)
        .map_or(total_lines, |h| (h.line as usize).saturating_sub(1));
    end.max(heading.line as usize)
}

/// A heading line as written: without its opening `#` marks, a closing
/// `#` sequence or the spaces around them, on one line.
fn written_heading(line: &str) -> String {
    let text = line.trim().trim_start_matches('#').trim();
    let closed = text.trim_end_matches('#');
    let text = if closed.len() < text.len() && (closed.is_empty() || closed.ends_with([' ', '\t']))
    {
        closed.trim_end()
    } else {
        text
    };
    crate::model::one_line(text)
}

/// Which headings a `--section` value names: those whose text is the value
/// (any case, with or without its `#` marks, as shown or as written in the
/// file with its inline markup) and the one whose slug is its slug.
/// Indexed, so checking every heading's slug stays linear.
struct SectionLookup<'a> {
    by_text: std::collections::HashMap<String, Vec<usize>>,
    by_slug: std::collections::HashMap<&'a str, usize>,
}

impl<'a> SectionLookup<'a> {
    fn new(outline: &'a [markdown::Heading], source_line: &dyn Fn(usize) -> String) -> Self {
        let mut by_text: std::collections::HashMap<String, Vec<usize>> = Default::default();
        let mut by_slug = std::collections::HashMap::new();
        for (index, heading) in outline.iter().enumerate() {
            let shown = heading.text.to_lowercase();
            let written = written_heading(&source_line(heading.line as usize)).to_lowercase();
            if written != shown && !written.is_empty() {
                by_text.entry(written).or_default().push(index);
            }
            by_text.entry(shown).or_default().push(index);
            by_slug.entry(heading.slug.as_str()).or_insert(index);
        }
        SectionLookup { by_text, by_slug }
    }

    /// Indexes of the matching headings, in file order.
    fn find(&self, wanted: &str) -> Vec<usize> {
        let wanted_text = crate::model::one_line(wanted).to_lowercase();
        let wanted_bare = written_heading(&wanted_text);
        let mut found: Vec<usize> = [&wanted_text, &wanted_bare]
            .into_iter()
            .filter_map(|text| self.by_text.get(text.as_str()))
            .flatten()
            .copied()
            .collect();
        // A heading's own text wins over another heading's slug: with
        // `Steps`, `Steps`, `Steps 1`, "Steps 1" is the third heading even
        // though the second one's slug is `steps-1`.
        if found.is_empty() {
            found.extend(self.by_slug.get(markdown::slug(wanted).as_str()).copied());
        }
        found.sort_unstable();
        found.dedup();
        found
    }
}

fn line_starts(text: &str) -> Vec<usize> {
    if text.is_empty() {
        return Vec::new();
    }
    let mut starts = vec![0];
    starts.extend(markdown::line_ends(text).filter(|&i| i < text.len()));
    starts
}

/// Line `number` (1-based) with its line ending.
fn line_text<'t>(text: &'t str, starts: &[usize], number: usize) -> &'t str {
    let start = starts[number - 1];
    let end = starts.get(number).copied().unwrap_or(text.len());
    &text[start..end]
}

fn floor_char_boundary(text: &str, max: usize) -> usize {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_ranges_parse() {
        assert_eq!(
            "3:7".parse(),
            Ok(LineRange {
                start: Some(3),
                end: Some(7)
            })
        );
        assert_eq!(
            "3:".parse(),
            Ok(LineRange {
                start: Some(3),
                end: None
            })
        );
        assert_eq!(
            ":7".parse(),
            Ok(LineRange {
                start: None,
                end: Some(7)
            })
        );
        assert_eq!(
            "5".parse(),
            Ok(LineRange {
                start: Some(5),
                end: Some(5)
            })
        );
        assert!("7:3".parse::<LineRange>().is_err());
        assert!("0:3".parse::<LineRange>().is_err());
        assert!("x".parse::<LineRange>().is_err());
    }

    #[test]
    fn line_starts_and_text() {
        let text = "a\r\nb\nc";
        let starts = line_starts(text);
        assert_eq!(starts, vec![0, 3, 5]);
        assert_eq!(line_starts("a\rb\rc"), vec![0, 2, 4]);
        assert_eq!(line_text(text, &starts, 1), "a\r\n");
        assert_eq!(line_text(text, &starts, 3), "c");
        assert!(line_starts("").is_empty());
        assert_eq!(line_starts("a\n"), vec![0]);
    }
}
