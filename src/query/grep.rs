//! Grep across the catalog: every text file of every skill (or of one skill
//! or namespace), searched with ripgrep's own searcher and matcher, answered
//! grouped by skill in a fixed order, with a global cap that says when it cut.
//!
//! Each file belongs to exactly one skill: the one whose folder is its
//! nearest ancestor, so a nested skill's files are its own and not its
//! parent's. Files are searched in parallel in batches and results are kept
//! in catalog order, so the same catalog always gives the same answer.

use crate::catalog::Catalog;
use crate::model::Skill;
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// What to search for and where.
#[derive(Debug, Clone, Default)]
pub struct GrepRequest {
    pub pattern: String,
    pub fixed_strings: bool,
    pub ignore_case: bool,
    /// Case-insensitive unless the pattern has an upper-case letter.
    pub smart_case: bool,
    pub word: bool,
    pub before_context: usize,
    pub after_context: usize,
    /// Matches per file (as `rg --max-count`).
    pub max_count: Option<u64>,
    /// Matches in the whole answer; past it the answer says `truncated`.
    pub max_results: Option<usize>,
    pub files_with_matches: bool,
    /// Only this skill (id or qualified name).
    pub skill: Option<String>,
    /// Only this namespace and those below it.
    pub namespace: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LineKind {
    Match,
    Context,
}

/// One line of the answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrepLine {
    #[serde(rename = "type")]
    pub kind: LineKind,
    pub skill: String,
    /// Path inside the skill folder.
    pub path: String,
    pub line: u64,
    /// The line without its line ending (invalid UTF-8 replaced).
    pub text: String,
}

/// The matches of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileMatches {
    pub skill: String,
    pub path: String,
    pub lines: Vec<GrepLine>,
    pub matches: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GrepResult {
    pub files: Vec<FileMatches>,
    pub matches: usize,
    pub truncated: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum GrepError {
    #[error("invalid pattern: {0}")]
    Pattern(String),
    #[error("no skill named `{name}`{}", if .suggestions.is_empty() { String::new() } else { format!(" — did you mean {}?", .suggestions.join(", ")) })]
    UnknownSkill {
        name: String,
        suggestions: Vec<String>,
    },
    #[error("no namespace `{0}` — `skilldex list` shows the namespaces")]
    UnknownNamespace(String),
}

/// Files searched together before results are merged in order.
const BATCH: usize = 512;

/// Search the catalog's files.
pub fn grep(catalog: &Catalog, request: &GrepRequest) -> Result<GrepResult, GrepError> {
    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(request.ignore_case)
        .case_smart(request.smart_case && !request.ignore_case)
        .word(request.word)
        .fixed_strings(request.fixed_strings)
        .build(&request.pattern)
        .map_err(|e| GrepError::Pattern(e.to_string()))?;
    let skills = selected_skills(catalog, request)?;
    let files = match catalog.files() {
        Some(all) => files_from_list(&skills, all),
        None => files_in_order(&skills),
    };
    let mut result = GrepResult::default();
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 8);
    for batch in files.chunks(BATCH) {
        let slots: Vec<std::sync::Mutex<Option<FileMatches>>> =
            batch.iter().map(|_| std::sync::Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..threads.min(batch.len()) {
                scope.spawn(|| {
                    let mut searcher = searcher(request);
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some((skill, path, relative)) = batch.get(i) else {
                            break;
                        };
                        let found =
                            search_file(&mut searcher, &matcher, request, skill, path, relative);
                        *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = found;
                    }
                });
            }
        });
        for slot in slots {
            let Some(mut file) = slot.into_inner().unwrap_or_else(|e| e.into_inner()) else {
                continue;
            };
            if let Some(cap) = request.max_results {
                let room = cap.saturating_sub(result.matches);
                if file.matches > room {
                    // More matches than the cap allows: keep what fits and
                    // say that the answer was cut.
                    cut_to(&mut file, room, request.after_context);
                    result.truncated = true;
                }
            }
            if file.matches > 0 {
                result.matches += file.matches;
                result.files.push(file);
            }
            if result.truncated {
                return Ok(result);
            }
        }
    }
    Ok(result)
}

/// Keep the first `room` matches of a file, and the after-context lines
/// of the last one kept.
fn cut_to(file: &mut FileMatches, room: usize, after_context: usize) {
    let cut = file
        .lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.kind == LineKind::Match)
        .nth(room)
        .map_or(file.lines.len(), |(i, _)| i);
    file.lines.truncate(cut);
    match file.lines.iter().rposition(|l| l.kind == LineKind::Match) {
        Some(last) => file
            .lines
            .truncate((last + 1 + after_context).min(file.lines.len())),
        None => file.lines.clear(),
    }
    file.matches = room.min(file.matches);
}

fn searcher(request: &GrepRequest) -> Searcher {
    SearcherBuilder::new()
        .line_number(true)
        .before_context(request.before_context)
        .after_context(request.after_context)
        .binary_detection(BinaryDetection::quit(0))
        .build()
}

fn selected_skills<'a>(
    catalog: &'a Catalog,
    request: &GrepRequest,
) -> Result<Vec<&'a Skill>, GrepError> {
    if let Some(name) = &request.skill {
        return match catalog.get(name) {
            Some(skill) => Ok(vec![skill]),
            None => Err(GrepError::UnknownSkill {
                name: name.clone(),
                suggestions: catalog
                    .similar(name, 5)
                    .into_iter()
                    .map(|s| format!("`{s}`"))
                    .collect(),
            }),
        };
    }
    if let Some(namespace) = &request.namespace {
        let namespace = namespace.trim_matches('/');
        let inside = |n: &str| {
            namespace.is_empty() || n == namespace || n.starts_with(&format!("{namespace}/"))
        };
        if !catalog.namespaces().iter().any(|n| inside(&n.name)) {
            return Err(GrepError::UnknownNamespace(namespace.to_string()));
        }
        return Ok(catalog
            .skills()
            .iter()
            .filter(|s| inside(&s.namespace))
            .collect());
    }
    Ok(catalog.skills().iter().collect())
}

/// Like `files_in_order`, from the list of files the scan collected: each
/// file goes to the skill whose folder is its nearest ancestor.
fn files_from_list<'a>(
    skills: &[&'a Skill],
    all: &[crate::scan::ListedFile],
) -> Vec<(&'a str, PathBuf, String)> {
    let folders: HashMap<&Path, usize> = skills
        .iter()
        .enumerate()
        .map(|(i, s)| (s.dir(), i))
        .collect();
    // Folders of skills that were not selected still own their files.
    let mut per_skill: Vec<Vec<(PathBuf, String)>> = vec![Vec::new(); skills.len()];
    let mut real_folders: HashMap<usize, Option<PathBuf>> = HashMap::new();
    for listed in all {
        let path = &listed.path;
        let mut dir = path.parent();
        while let Some(d) = dir {
            if let Some(&i) = folders.get(d) {
                // A file reached through a symlink is searched only if its
                // real location is inside the skill's real folder, the rule
                // `read` applies.
                if listed.through_link {
                    let real_folder = real_folders
                        .entry(i)
                        .or_insert_with(|| skills[i].dir().canonicalize().ok());
                    let inside = match (real_folder.as_deref(), path.canonicalize()) {
                        (Some(folder), Ok(real)) => real.starts_with(folder),
                        _ => false,
                    };
                    if !inside {
                        break;
                    }
                }
                let relative = path
                    .strip_prefix(d)
                    .unwrap_or(path)
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                per_skill[i].push((path.clone(), relative));
                break;
            }
            if crate::scan::SKILL_FILE_NAMES
                .iter()
                .any(|n| d.join(n).is_file())
            {
                break; // A skill that is not selected (or did not load) owns it.
            }
            dir = d.parent();
        }
    }
    let mut out = Vec::new();
    for (skill, mut files) in skills.iter().zip(per_skill) {
        out.push((
            skill.id.as_str(),
            skill.path.clone(),
            file_name(&skill.path),
        ));
        files.sort_by(|a, b| a.1.cmp(&b.1));
        out.extend(
            files
                .into_iter()
                .map(|(path, relative)| (skill.id.as_str(), path, relative)),
        );
    }
    out
}

/// (skill id, file, path inside the skill) for every file of `skills`, in
/// answer order: skills in catalog order, `SKILL.md` first, then by path.
/// Used when the catalog was built without its file list.
fn files_in_order<'a>(skills: &[&'a Skill]) -> Vec<(&'a str, PathBuf, String)> {
    use super::files::{list_skill_folder, EntryKind};
    let mut out = Vec::new();
    for skill in skills {
        out.push((
            skill.id.as_str(),
            skill.path.clone(),
            file_name(&skill.path),
        ));
        out.extend(
            list_skill_folder(skill)
                .entries
                .into_iter()
                .filter(|e| e.kind == EntryKind::File)
                .map(|e| (skill.id.as_str(), e.absolute, e.path)),
        );
    }
    out
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Search one file; `None` when it has no match (or is binary/unreadable).
fn search_file(
    searcher: &mut Searcher,
    matcher: &grep_regex::RegexMatcher,
    request: &GrepRequest,
    skill: &str,
    path: &Path,
    relative: &str,
) -> Option<FileMatches> {
    if request.max_count == Some(0) {
        return None; // As with `rg -m 0`: no match is wanted.
    }
    let mut sink = Collect {
        skill,
        relative,
        lines: Vec::new(),
        matches: 0,
        max_count: request.max_count,
        files_only: request.files_with_matches,
    };
    searcher.search_path(matcher, path, &mut sink).ok()?;
    (sink.matches > 0).then(|| FileMatches {
        skill: skill.to_string(),
        path: relative.to_string(),
        lines: sink.lines,
        matches: sink.matches,
    })
}

struct Collect<'a> {
    skill: &'a str,
    relative: &'a str,
    lines: Vec<GrepLine>,
    matches: usize,
    max_count: Option<u64>,
    files_only: bool,
}

impl Collect<'_> {
    fn line(&self, kind: LineKind, number: Option<u64>, bytes: &[u8]) -> GrepLine {
        let text = String::from_utf8_lossy(bytes);
        GrepLine {
            kind,
            skill: self.skill.to_string(),
            path: self.relative.to_string(),
            line: number.unwrap_or(0),
            text: text.trim_end_matches(['\n', '\r']).to_string(),
        }
    }
}

impl Sink for Collect<'_> {
    type Error = std::io::Error;

    fn matched(
        &mut self,
        _searcher: &Searcher,
        found: &SinkMatch<'_>,
    ) -> Result<bool, Self::Error> {
        self.matches += 1;
        if self.files_only {
            return Ok(false);
        }
        // A multi-line match arrives as one block; report each line.
        let mut number = found.line_number();
        for line in found.bytes().split_inclusive(|&b| b == b'\n') {
            self.lines.push(self.line(LineKind::Match, number, line));
            number = number.map(|n| n + 1);
        }
        Ok(self.max_count.is_none_or(|max| (self.matches as u64) < max))
    }

    fn context(
        &mut self,
        _searcher: &Searcher,
        context: &SinkContext<'_>,
    ) -> Result<bool, Self::Error> {
        if !matches!(context.kind(), SinkContextKind::Other) {
            self.lines
                .push(self.line(LineKind::Context, context.line_number(), context.bytes()));
        }
        Ok(true)
    }
}
