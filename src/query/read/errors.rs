//! Why a read was refused: `ReadError` and the messages that name the
//! thing, offer the nearest names or headings, and say what to do.

use super::SectionCandidate;
use super::MAX_TARGET_BYTES;
use std::path::PathBuf;

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
    #[error("{}", unreadable_text(.name, .folder))]
    Unreadable {
        /// The skill's name as passed.
        name: String,
        /// The folder of that name skilldex may not enter.
        folder: PathBuf,
    },
    #[error(
        "skill `{name}` is disabled by configuration — {}",
        crate::query::read::HOW_TO_ENABLE
    )]
    Disabled { name: String },
    #[error("`{path}` is not inside skill `{skill}`: it {reason}{} — paths are relative to the skill folder", .target.as_ref().map(|t| format!(" (to {t})")).unwrap_or_default())]
    Escapes {
        skill: String,
        path: String,
        /// How it leaves the folder, never naming a place outside.
        reason: String,
        /// Where a symlink on the way leads, for the author (the CLI
        /// shows it; [`ReadError::for_client`] never does).
        target: Option<String>,
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
    #[error("`{path}` in skill `{skill}` is a symlink into the folder of a nested skill whose file {} did not load, so it is not part of `{skill}` — `skilldex lint` says why", .file.display())]
    LinkIntoNotLoaded {
        skill: String,
        path: String,
        file: PathBuf,
    },
    #[error(
        "skill `{name}` did not load: {}:{}:{}: {} (`skilldex lint` lists every problem)",
        crate::entry::printable(&.diagnostic.path.to_string_lossy()),
        .diagnostic.line,
        .diagnostic.column,
        .diagnostic.message
    )]
    NotLoadedSkill {
        name: String,
        diagnostic: Box<crate::entry::Diagnostic>,
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
    #[error("`{path}` in skill `{skill}` is {bytes} bytes, more than skilldex reads at once — find the lines you need with grep (`skilldex grep PATTERN --skill {skill}`, or the grep_skills tool with skill `{skill}`)")]
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

/// Why a skill in a folder that may not be read cannot be read.
pub fn unreadable_text(name: &str, folder: &std::path::Path) -> String {
    format!(
        "cannot read `{name}`: skilldex may not enter the folder {}, so whether it holds that skill is unknown — check its permissions (skilldex must read and enter it, e.g. `chmod u+rx`)",
        crate::entry::printable(&folder.to_string_lossy())
    )
}

pub(super) fn unknown_skill_text(name: &str, namespace: &Option<NamespacePart>) -> String {
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

pub(super) fn suggest(suggestions: &[String]) -> String {
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

pub(super) fn list_files(files: &[String]) -> String {
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

pub(super) fn section_message(
    heading: &str,
    matches: &[usize],
    outline: &[SectionCandidate],
) -> String {
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
pub(super) fn section_text(
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
    /// The message for a client that may not learn paths outside the
    /// catalog (an MCP agent): as [`Display`](std::fmt::Display), without
    /// where a symlink out of the skill leads.
    pub fn for_client(&self) -> String {
        match self {
            ReadError::Escapes {
                skill,
                path,
                reason,
                target: Some(_),
            } => ReadError::Escapes {
                skill: skill.clone(),
                path: path.clone(),
                reason: reason.clone(),
                target: None,
            }
            .to_string(),
            _ => self.to_string(),
        }
    }

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
