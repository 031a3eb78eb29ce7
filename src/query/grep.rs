//! Grep across the catalog: every text file of every skill (or of one skill
//! or namespace), searched with ripgrep's own searcher and matcher, answered
//! grouped by skill in a fixed order, with a global cap that says when it cut.
//!
//! Each file belongs to exactly one skill: the one whose folder is its
//! nearest ancestor, so a nested skill's files are its own and not its
//! parent's. A file a skill reaches twice (a symlink to a folder or file
//! of the same skill) is answered once, under its path without a link.
//!
//! The answer streams: lines are pushed into a `GrepSink` in answer order
//! as files are searched (`order`), through one place that applies the cap
//! (`sink::Emitter`), so the first line does not wait for the last file and
//! memory does not grow with the answer. `grep` collects the stream for
//! callers that want the whole answer (MCP); the CLI prints it as it comes.
//! Files are searched in parallel and answered in catalog order, so the
//! same catalog always gives the same answer.

mod order;
mod sink;

pub use sink::{GrepSink, GrepSummary, LineBatch};

use crate::catalog::Catalog;
use crate::entry::Skill;
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};
use order::{Job, Work};
use serde::Serialize;
use sink::{Emitter, FileSearch, Lines};
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

/// One line of the answer; its skill and path are those of its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrepLine {
    pub kind: LineKind,
    pub line: u64,
    /// The line without its line ending (invalid UTF-8 replaced).
    pub text: String,
}

impl FileMatches {
    /// One line as the JSON object `grep --json` prints:
    /// `{"type","skill","path","line","text"}`.
    pub fn line_json(&self, line: &GrepLine) -> serde_json::Value {
        let mut object = serde_json::Map::new();
        object.insert(
            "type".into(),
            serde_json::to_value(line.kind).unwrap_or_default(),
        );
        object.insert("skill".into(), self.skill.clone().into());
        object.insert("path".into(), self.path.clone().into());
        object.insert("line".into(), line.line.into());
        object.insert("text".into(), line.text.clone().into());
        serde_json::Value::Object(object)
    }
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
    #[error("skill `{0}` is disabled by configuration — {how}", how = crate::query::read::HOW_TO_ENABLE)]
    Disabled(String),
    #[error("{}", crate::query::read::unreadable_text(.name, .folder))]
    Unreadable {
        name: String,
        folder: std::path::PathBuf,
    },
    #[error("no namespace `{0}` — `skilldex list` shows the namespaces")]
    UnknownNamespace(String),
    /// The sink could not take a line (a `GrepSink` that writes failed).
    #[error("writing the answer: {0}")]
    Output(#[source] std::io::Error),
}

/// Lines the scan's search keeps in all before the answer can be put in
/// order. Past it (or `order::HOLD` in one file) a file is searched again
/// once the scan is done, streaming, instead of held: the common answer is
/// kept whole and a huge one costs a second read of some files, never
/// memory.
const PENDING_LIMIT: usize = 32 * 1024 * 1024;

/// Search the catalog's files and collect the answer.
pub fn grep(catalog: &Catalog, request: &GrepRequest) -> Result<GrepResult, GrepError> {
    let mut collect = sink::Collect::default();
    let summary = grep_into(catalog, request, &mut collect)?;
    Ok(collected(collect, summary))
}

/// The skill files that did not load inside the scope of `request` (their
/// folders have no skill, so grep does not search them), with why: none
/// when one skill is named; those of the namespace and below when one is.
pub fn not_loaded<'a>(
    catalog: &'a Catalog,
    request: &GrepRequest,
) -> Vec<&'a crate::entry::Diagnostic> {
    if request.skill.is_some() {
        return Vec::new();
    }
    let mut found = catalog.load_errors();
    if let Some(namespace) = request.namespace.as_deref().map(|n| n.trim_matches('/')) {
        if !namespace.is_empty() {
            // A skill's namespace is the folder path between its root and
            // its own folder.
            let inside = |d: &&crate::entry::Diagnostic| {
                let Some(folder) = d.path.parent().and_then(Path::parent) else {
                    return false;
                };
                catalog.roots().iter().any(|root| {
                    folder.strip_prefix(root).is_ok_and(|rel| {
                        let rel = rel.to_string_lossy();
                        rel == namespace || rel.starts_with(&format!("{namespace}/"))
                    })
                })
            };
            found.retain(inside);
        }
    }
    found
}

/// Search the catalog's files, pushing the answer into `sink` as it is
/// found (in answer order).
pub fn grep_into(
    catalog: &Catalog,
    request: &GrepRequest,
    sink: &mut dyn GrepSink,
) -> Result<GrepSummary, GrepError> {
    let matcher = matcher(request)?;
    let skills = selected_skills(catalog, request)?;
    let jobs = if request.max_count == Some(0) {
        Vec::new() // As with `rg -m 0`: no match is wanted.
    } else {
        files_in_order(catalog, &skills)
            .into_iter()
            .map(|(skill, file, path, root)| Job {
                skill: skill.to_string(),
                path,
                work: Work::Search(file, root),
            })
            .collect()
    };
    let locked = report_locked_folders(catalog, request, &skills, sink)?;
    let mut summary = answer(jobs, &matcher, request, sink)?;
    summary.unreadable += locked;
    Ok(summary)
}

/// Why a locked folder was not searched, as `GrepSink` is told.
const LOCKED_FOLDER: &str = "skilldex may not enter this folder";

/// Tell `sink` about the folders the walk could not enter (no permission)
/// that lie in a selected skill (as `path/` inside it), and, when no skill
/// or namespace was asked for, those outside every skill (skills may be
/// in them). Returns how many were told.
fn report_locked_folders(
    catalog: &Catalog,
    request: &GrepRequest,
    selected: &[&Skill],
    sink: &mut dyn GrepSink,
) -> Result<usize, GrepError> {
    let everything = request.skill.is_none() && request.namespace.is_none();
    let mut inside: Vec<(usize, String)> = Vec::new();
    let mut outside: Vec<&Path> = Vec::new();
    for diagnostic in catalog.diagnostics() {
        let path = diagnostic.path.as_path();
        if diagnostic.code != crate::entry::Code::WalkError
            || !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
        {
            continue;
        }
        // The deepest selected skill folder holding it.
        let owner = selected
            .iter()
            .enumerate()
            .filter(|(_, s)| path != s.dir() && path.starts_with(s.dir()))
            .max_by_key(|(_, s)| s.dir().as_os_str().len());
        match owner {
            Some((order, skill)) => {
                let relative = super::files::relative_name(skill.dir(), path);
                inside.push((order, format!("{relative}/")));
            }
            None if everything && !catalog.skills().iter().any(|s| path.starts_with(s.dir())) => {
                outside.push(path);
            }
            None => {}
        }
    }
    inside.sort();
    outside.sort();
    for path in &outside {
        sink.unreadable_folder(path, LOCKED_FOLDER)
            .map_err(GrepError::Output)?;
    }
    for (order, relative) in &inside {
        sink.unreadable(&selected[*order].id, relative, LOCKED_FOLDER)
            .map_err(GrepError::Output)?;
    }
    Ok(inside.len() + outside.len())
}

fn collected(collect: sink::Collect, summary: GrepSummary) -> GrepResult {
    GrepResult {
        files: collect.result.files,
        matches: summary.matches,
        truncated: summary.truncated,
    }
}

/// Push `jobs` into `sink` in order, under the cap.
fn answer(
    jobs: Vec<Job>,
    matcher: &grep_regex::RegexMatcher,
    request: &GrepRequest,
    sink: &mut dyn GrepSink,
) -> Result<GrepSummary, GrepError> {
    let mut emitter = Emitter::new(sink, request);
    order::run(jobs, matcher, request, &mut emitter).map_err(GrepError::Output)?;
    Ok(emitter.summary())
}

fn matcher(request: &GrepRequest) -> Result<grep_regex::RegexMatcher, GrepError> {
    RegexMatcherBuilder::new()
        .case_insensitive(request.ignore_case)
        .case_smart(request.smart_case && !request.ignore_case)
        .word(request.word)
        .fixed_strings(request.fixed_strings)
        // Lines never contain the terminator, which lets the searcher scan
        // whole buffers instead of going line by line (as `rg` does).
        .line_terminator(Some(b'\n'))
        .build(&request.pattern)
        .map_err(|e| GrepError::Pattern(pattern_error(request).unwrap_or_else(|| e.to_string())))
}

/// The syntax error of the pattern as the user wrote it. The matcher
/// builder parses it wrapped in a group (`(?:…)`), so its message quotes
/// and points into text the user never wrote; parsing the pattern alone
/// gives the same explanation against their own text. `None` when the
/// pattern alone parses (the builder refused it for another reason).
fn pattern_error(request: &GrepRequest) -> Option<String> {
    if request.fixed_strings {
        return None;
    }
    let config = regex_automata::util::syntax::Config::new()
        .utf8(false)
        .case_insensitive(request.ignore_case);
    regex_automata::util::syntax::parse_with(&request.pattern, &config)
        .err()
        .map(|e| e.to_string())
}

/// A search that runs inside the catalog scan: every file is searched in
/// the walker thread that finds it (skill files from the bytes the scan
/// read anyway), so the tree is walked and read once. The lines found are
/// held until the scan ends (the answer's order is the catalog's, known
/// only then), up to `PENDING_LIMIT`; a file past it is searched again
/// afterwards, streaming. `finish_into` then gives each file to its skill
/// and answers in order as `grep_into` does.
pub struct ScanSearch {
    inner: std::sync::Arc<ScanSearchInner>,
}

struct ScanSearchInner {
    /// Tells this search's thread-local searcher and matcher from those
    /// of an earlier search that ran on the same thread.
    id: u64,
    matcher: grep_regex::RegexMatcher,
    request: GrepRequest,
    /// Bytes of lines held in `hits`.
    pending: AtomicUsize,
    hits: std::sync::Mutex<Vec<(PathBuf, bool, Work)>>,
    /// Files the walk listed that could not be opened, with why.
    unreadable: std::sync::Mutex<Vec<(PathBuf, String)>>,
}

thread_local! {
    /// One searcher and one matcher per walker thread, for the search
    /// `ThreadSearch::id` names (a searcher owns a 64 KiB buffer). The
    /// matcher is the thread's own clone: a clone has its own pool of
    /// regex caches, which the thread that made it takes without a lock,
    /// where a matcher shared between threads hands every other thread its
    /// caches through a mutex, once per line searched.
    static THREAD_SEARCH: std::cell::RefCell<Option<ThreadSearch>> =
        const { std::cell::RefCell::new(None) };
}

struct ThreadSearch {
    id: u64,
    searcher: Searcher,
    matcher: grep_regex::RegexMatcher,
    /// The buffer each file's lines are gathered in (see `Lines`).
    lines: Lines,
}

/// The next `ScanSearchInner::id`.
static NEXT_SEARCH_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl ScanSearch {
    /// Compile the pattern; fails on a bad pattern before anything is read.
    pub fn new(request: &GrepRequest) -> Result<Self, GrepError> {
        Ok(ScanSearch {
            inner: std::sync::Arc::new(ScanSearchInner {
                id: NEXT_SEARCH_ID.fetch_add(1, Ordering::Relaxed),
                matcher: matcher(request)?,
                request: request.clone(),
                pending: AtomicUsize::new(0),
                hits: std::sync::Mutex::new(Vec::new()),
                unreadable: std::sync::Mutex::new(Vec::new()),
            }),
        })
    }

    /// The visitor to give `CatalogBuilder::file_visitor`.
    pub fn visitor(&self) -> crate::scan::FileVisitor {
        let inner = std::sync::Arc::clone(&self.inner);
        std::sync::Arc::new(move |file: crate::scan::VisitedFile<'_>| {
            let request = &inner.request;
            if request.max_count == Some(0) {
                return; // As with `rg -m 0`: no match is wanted.
            }
            let work = THREAD_SEARCH.with(|cell| {
                let mut cell = cell.borrow_mut();
                if cell.as_ref().is_none_or(|t| t.id != inner.id) {
                    *cell = Some(ThreadSearch {
                        id: inner.id,
                        searcher: searcher(request),
                        matcher: inner.matcher.clone(),
                        lines: Lines::default(),
                    });
                }
                let ThreadSearch {
                    searcher,
                    matcher,
                    lines: kept,
                    ..
                } = cell.as_mut()?;
                let too_much = std::cell::Cell::new(false);
                let lines = std::mem::take(kept);
                let mut sink = FileSearch::new(request, lines, |lines: &mut Lines| {
                    let held = lines.held();
                    if held > order::HOLD
                        || inner.pending.load(Ordering::Relaxed) + held > PENDING_LIMIT
                    {
                        too_much.set(true);
                        return false;
                    }
                    true
                });
                let searched = match file.bytes {
                    Some(bytes) => searcher.search_slice(&*matcher, bytes, &mut sink).is_ok(),
                    // Opened from the walk's open folder, never by path.
                    None => match file.open() {
                        Ok(opened) => searcher.search_file(&*matcher, &opened, &mut sink).is_ok(),
                        Err(error) => {
                            inner
                                .unreadable
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .push((file.path.to_path_buf(), error.to_string()));
                            false
                        }
                    },
                };
                let mut lines = sink.lines;
                let work = if too_much.get() {
                    lines.reset();
                    Some(Work::Search(file.path.to_path_buf(), None))
                } else if !searched || lines.matches == 0 {
                    lines.reset();
                    None
                } else {
                    inner.pending.fetch_add(lines.held(), Ordering::Relaxed);
                    Some(Work::Found(lines.finish()))
                };
                *kept = lines;
                work
            });
            if let Some(work) = work {
                inner.hits.lock().unwrap_or_else(|e| e.into_inner()).push((
                    file.path.to_path_buf(),
                    file.through_link,
                    work,
                ));
            }
        })
    }

    /// Give each hit to its skill and collect the answer.
    pub fn finish(self, catalog: &Catalog) -> Result<GrepResult, GrepError> {
        let mut collect = sink::Collect::default();
        let summary = self.finish_into(catalog, &mut collect)?;
        Ok(collected(collect, summary))
    }

    /// Give each hit to its skill and push the answer into `sink` in
    /// order; files the scan did not finish are searched now.
    pub fn finish_into(
        self,
        catalog: &Catalog,
        sink: &mut dyn GrepSink,
    ) -> Result<GrepSummary, GrepError> {
        let request = &self.inner.request;
        let selected = selected_skills(catalog, request)?;
        let hits = std::mem::take(&mut *self.inner.hits.lock().unwrap_or_else(|e| e.into_inner()));
        let all = catalog.skills();
        // Keyed by bytes: hashing a `Path` walks its components.
        let folders: FolderMap = all
            .iter()
            .enumerate()
            .map(|(i, s)| (s.dir().as_os_str().as_encoded_bytes(), i))
            .collect();
        // Each skill's place in the answer, by its place in the catalog
        // (the same when every skill is selected).
        let order_of: Vec<Option<usize>> = if selected.len() == all.len() {
            (0..all.len()).map(Some).collect()
        } else {
            let wanted: crate::hash::FastMap<&str, usize> = selected
                .iter()
                .enumerate()
                .map(|(order, s)| (s.id.as_str(), order))
                .collect();
            all.iter()
                .map(|s| wanted.get(s.id.as_str()).copied())
                .collect()
        };
        let mut per_skill: Vec<Vec<SkillHit>> = Vec::new();
        per_skill.resize_with(selected.len(), Vec::new);
        // Each selected skill's real folder, by answer order, found the
        // first time one of its files is reached through a link.
        let mut real_folders: HashMap<usize, Option<PathBuf>> = HashMap::new();
        // And the disabled skills nested in it, which links must not reach.
        let mut disabled_inside: HashMap<usize, super::read::DisabledInside> = HashMap::new();
        let mut holds = HoldsSkillFile::default();
        for (path, through_link, work) in hits {
            let Some(owner) = owner_of(&path, &folders, &mut holds) else {
                continue;
            };
            let skill = &all[owner];
            let Some(order) = order_of[owner] else {
                continue;
            };
            // The path inside the skill folder: the bytes after the folder
            // and its separator (the file was found under that folder).
            let folder_len = skill.dir().as_os_str().len();
            let bytes = path.as_os_str().as_encoded_bytes();
            let relative = match bytes.get(folder_len + 1..) {
                Some(rest) if folder_len > 0 => String::from_utf8_lossy(rest).into_owned(),
                _ => super::files::relative_name(skill.dir(), &path),
            };
            let mut work = work;
            let mut real_path = None;
            if through_link {
                // Same rule as `read`: opened again through the boundary
                // (inside the skill's real folder, judged where it really
                // is), and searched again through it, so a link swapped
                // since the walk cannot lead out.
                let real_folder = real_folders
                    .entry(order)
                    .or_insert_with(|| skill.dir().canonicalize().ok());
                if real_folder.is_none() {
                    continue;
                }
                let disabled = disabled_inside
                    .entry(order)
                    .or_insert_with(|| super::read::DisabledInside::new(catalog, skill));
                let Ok((opened, folder)) =
                    super::read::open_file(catalog.root_of(skill), skill, &relative)
                else {
                    continue;
                };
                let real = opened.real_path(&folder);
                if disabled.owner_of(&real).is_some() {
                    continue;
                }
                real_path = Some(real);
                let is_skill_file = opened.elsewhere_in_root;
                work = Work::Search(
                    path.clone(),
                    is_skill_file.then(|| catalog.root_of(skill).to_path_buf()),
                );
            }
            per_skill[order].push(SkillHit {
                other_file: path.as_os_str() != skill.path.as_os_str(),
                relative,
                real_path,
                work,
            });
        }
        // Unreadable files of the selected skills, named before the answer,
        // in answer order.
        let mut unreadable: Vec<(usize, String, String)> = std::mem::take(
            &mut *self
                .inner
                .unreadable
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
        )
        .into_iter()
        .filter_map(|(path, error)| {
            let owner = owner_of(&path, &folders, &mut holds)?;
            let order = order_of[owner]?;
            let relative = super::files::relative_name(all[owner].dir(), &path);
            Some((order, relative, error))
        })
        .collect();
        unreadable.sort();
        let locked = report_locked_folders(catalog, request, &selected, sink)?;
        for (order, relative, error) in &unreadable {
            sink.unreadable(&selected[*order].id, relative, error)
                .map_err(GrepError::Output)?;
        }
        let mut jobs = Vec::new();
        for (order, mut files) in per_skill.into_iter().enumerate() {
            if let Some(Some(real_folder)) = real_folders.get(&order) {
                once_per_real_file(&mut files, real_folder);
            }
            // The skill file first, then the others by path.
            files.sort_by(|a, b| (a.other_file, &a.relative).cmp(&(b.other_file, &b.relative)));
            jobs.extend(files.into_iter().map(|hit| Job {
                skill: selected[order].id.clone(),
                path: hit.relative,
                work: hit.work,
            }));
        }
        let mut summary = answer(jobs, &self.inner.matcher, request, sink)?;
        summary.unreadable += unreadable.len() + locked;
        Ok(summary)
    }
}

/// Skill folders (as bytes) to their place in the catalog (FxHash: SipHash
/// over 10,000 paths showed in profiles of `finish_into`; the keys are the
/// catalog's own paths, not input an attacker picks per request).
type FolderMap<'a> = crate::hash::FastMap<&'a [u8], usize>;

/// A file of one skill with matches, as `ScanSearch::finish` orders them.
struct SkillHit {
    /// Not the skill's own `SKILL.md` (which is answered first).
    other_file: bool,
    /// The path inside the skill folder, as the walk reached the file.
    relative: String,
    /// The real path, for a file reached through a symlink.
    real_path: Option<PathBuf>,
    work: Work,
}

/// Keep one hit per real file of a skill whose folder is `real_folder`: a
/// symlink to a folder or file of the same skill makes the walk reach a
/// file twice. The path without a symlink in it is kept; when every path
/// goes through one, the smallest. A file reached once keeps its path, and
/// nothing here widens what counts as inside the skill.
fn once_per_real_file(hits: &mut Vec<SkillHit>, real_folder: &Path) {
    // A file reached without a link sits at `real_folder/relative`.
    let on_disk = |hit: &SkillHit| real_folder.join(&hit.relative);
    let through_link = |hit: &SkillHit| {
        hit.real_path
            .as_ref()
            .is_some_and(|real| *real != on_disk(hit))
    };
    hits.sort_by_cached_key(|hit| (through_link(hit), hit.relative.clone()));
    let mut seen = std::collections::HashSet::new();
    hits.retain(|hit| seen.insert(hit.real_path.clone().unwrap_or_else(|| on_disk(hit))));
}

/// Folders (as bytes) found to hold a skill file or not, so that a folder
/// with many files in the answer is looked at once.
type HoldsSkillFile = crate::hash::FastMap<Vec<u8>, bool>;

/// The skill whose folder is the nearest ancestor of `path`, stopping at a
/// folder that holds a skill file of a skill that did not load.
fn owner_of(path: &Path, folders: &FolderMap, holds: &mut HoldsSkillFile) -> Option<usize> {
    // Most files sit right in their skill's folder: that folder's bytes,
    // cut at the last separator, without parsing the path's components.
    let bytes = path.as_os_str().as_encoded_bytes();
    if let Some(at) = bytes
        .iter()
        .rposition(|&b| std::path::is_separator(char::from(b)))
    {
        if let Some(&i) = folders.get(&bytes[..at]) {
            return Some(i);
        }
    }
    let mut dir = path.parent();
    while let Some(d) = dir {
        let key = d.as_os_str().as_encoded_bytes();
        if let Some(&i) = folders.get(key) {
            return Some(i);
        }
        let skill_file = match holds.get(key) {
            Some(&skill_file) => skill_file,
            None => {
                let skill_file = crate::scan::SKILL_FILE_NAMES
                    .iter()
                    .any(|n| d.join(n).is_file());
                holds.insert(key.to_vec(), skill_file);
                skill_file
            }
        };
        if skill_file {
            return None;
        }
        dir = d.parent();
    }
    None
}

fn searcher(request: &GrepRequest) -> Searcher {
    SearcherBuilder::new()
        .line_number(true)
        .before_context(request.before_context)
        .after_context(request.after_context)
        // The searcher counts: past the last counted match it still gives
        // the after-context, as `grep -m N -A M` prints it (a line there
        // that matches too is shown as context by `FileSearch`, as GNU grep
        // does; rg would show it as a match).
        .max_matches(request.max_count)
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
            None if catalog.disabled_skill(name).is_some() => {
                Err(GrepError::Disabled(name.clone()))
            }
            None => match crate::query::read::unreadable_folder(catalog, name, "") {
                Some(folder) => Err(GrepError::Unreadable {
                    name: name.clone(),
                    folder,
                }),
                None => Err(GrepError::UnknownSkill {
                    name: name.clone(),
                    suggestions: catalog
                        .similar(name, 5)
                        .into_iter()
                        .map(|s| format!("`{s}`"))
                        .collect(),
                }),
            },
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
            .map(|s| &**s)
            .collect());
    }
    Ok(catalog.skills().iter().map(|s| &**s).collect())
}

/// (skill id, file, path inside the skill) for every file of `skills`, in
/// answer order: skills in catalog order, `SKILL.md` first, then by path.
/// Used when the catalog was built without its file list.
#[allow(clippy::type_complexity)]
fn files_in_order<'a>(
    catalog: &Catalog,
    skills: &[&'a Skill],
) -> Vec<(&'a str, PathBuf, String, Option<PathBuf>)> {
    use super::files::{list_skill_folder_with, EntryKind};
    let mut rules = crate::scan::RulesCache::default();
    let mut out = Vec::new();
    for skill in skills {
        out.push((
            skill.id.as_str(),
            skill.path.clone(),
            file_name(&skill.path),
            Some(catalog.root_of(skill).to_path_buf()),
        ));
        let entries = list_skill_folder_with(&mut rules, catalog.root_of(skill), skill).entries;
        let linked = linked_files(catalog, skill, &entries);
        out.extend(
            entries
                .into_iter()
                .filter(|e| e.kind == EntryKind::File || linked.contains(&e.path))
                .map(|e| (skill.id.as_str(), e.absolute, e.path, None)),
        );
    }
    out
}

/// The symlinks among a skill's `entries` that a scan searches as files
/// of the skill: links to a file inside the skill's real folder (not in a
/// disabled skill nested in it) that no regular file, nor an earlier link,
/// already stands for. The scan follows them the same way.
fn linked_files(
    catalog: &Catalog,
    skill: &Skill,
    entries: &[super::files::FolderEntry],
) -> std::collections::HashSet<String> {
    use super::files::EntryKind;
    let mut linked = std::collections::HashSet::new();
    if !entries.iter().any(|e| e.kind == EntryKind::Symlink) {
        return linked;
    }
    let Ok(real_dir) = skill.dir().canonicalize() else {
        return linked;
    };
    // Regular files are listed without entering linked folders, so each
    // sits at its path inside the real folder.
    let mut seen: std::collections::HashSet<PathBuf> = entries
        .iter()
        .filter(|e| e.kind == EntryKind::File)
        .map(|e| real_dir.join(&e.path))
        .collect();
    seen.insert(real_dir.join(file_name(&skill.path)));
    let disabled = super::read::DisabledInside::new(catalog, skill);
    for entry in entries.iter().filter(|e| e.kind == EntryKind::Symlink) {
        let Ok(real) = entry.absolute.canonicalize() else {
            continue;
        };
        if real.is_file()
            && real.starts_with(&real_dir)
            && disabled.owner_of(&real).is_none()
            // Judged where it really is, as the scan's search judges it.
            && super::read::open_file(catalog.root_of(skill), skill, &entry.path).is_ok()
            && seen.insert(real)
        {
            linked.insert(entry.path.clone());
        }
    }
    linked
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Open a file of a skill to search it.
/// `path` is the skill folder joined with `relative`: the file is opened
/// inside that folder through the boundary (links resolved inside it),
/// never by its whole name. A skill's own file comes with its `root`: it
/// may be a symlink to a file elsewhere in that root.
fn open(path: &Path, relative: &str, root: Option<&Path>) -> std::io::Result<std::fs::File> {
    let folder = path
        .ancestors()
        .nth(Path::new(relative).components().count())
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))?;
    let folder =
        crate::contain::Folder::open(folder).map_err(|e| std::io::Error::other(e.to_string()))?;
    let opened = match root {
        Some(root) => folder.open_skill_file(relative, root, path),
        None => folder.open_path(relative),
    }
    // Grep's note on a file it skipped is also an MCP answer: it says that
    // a link leads outside, never where (`read` tells the author).
    .map_err(|e| std::io::Error::other(e.told_to_client()))?;
    if opened.kind != crate::contain::OpenedKind::File {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok(opened.file)
}

/// Search one file into `sink`: whether the search ran to its end, or why
/// the file could not be opened.
fn search_file<S: grep_searcher::Sink<Error = std::io::Error>>(
    searcher: &mut Searcher,
    matcher: &grep_regex::RegexMatcher,
    request: &GrepRequest,
    (path, relative, root): (&Path, &str, Option<&Path>),
    sink: &mut S,
) -> std::io::Result<bool> {
    if request.max_count == Some(0) {
        return Ok(true); // As with `rg -m 0`: no match is wanted.
    }
    let file = open(path, relative, root)?;
    Ok(searcher.search_file(matcher, &file, sink).is_ok())
}
