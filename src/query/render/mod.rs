//! The directory: the text an agent sees in its prompt, listing what skills
//! exist and how to reach them, within a budget.
//!
//! Rendering is a pure function of the catalog and the options, so the same
//! catalog gives the same bytes. When the full directory does not fit the
//! budget, the fitting (`fit.rs`) walks down one ladder of ever cheaper
//! forms and stops at the first that fits, so the budget is spent, not
//! wasted:
//! 1. cheaper paths: the common folder stated once and each path relative
//!    to it, then no paths at all (`read NAME` reaches every skill);
//! 2. descriptions shortened fairly — one common length cap, cut at a word
//!    boundary and marked `…`, so long ones lose text first — down to a
//!    short gist;
//! 3. name-only lines, for the skills last in the keep order first;
//! 4. only then part of the catalog collapsed: the skills first in the keep
//!    order are named, the rest counted under their namespace's heading,
//!    and when even the headings do not fit, only the largest namespaces
//!    keep one.
//!
//! Which skills keep their lines follows the keep order: pinned skills
//! (`pinned:` in `skilldex.yaml`) in the order written, then shallower
//! skills before nested ones, shorter names before longer, then by name.
//! Each step of the ladder names at least as many skills as the one below
//! it, so more budget never names fewer skills.
//!
//! Whenever anything is not shown, the text ends with a line telling the
//! agent how to reach it — with the command as it runs, global flags
//! included — so no skill is silently unreachable.
//!
//! The text is written for a model to act on: no revisions, token counts or
//! other engine internals appear in it. Those go to `RenderedDirectory`.

mod compose;
mod fit;
mod hosts;
mod text;
mod tools;

pub use hosts::{
    context_budget, Host, HostListing, HostProfile, ListingCut, ListingEntry, ListingFate,
    ShareUnit,
};
pub use tools::ShownServer;

pub(crate) use crate::paths::normalize;
pub use crate::paths::{display_path, PathStyle};
use crate::paths::{folder_path, is_normal};
use text::cap_bytes;
pub use text::{escape_xml, shorten};

use crate::catalog::{read_skill_text, Catalog};
use crate::entry::Skill;
use crate::tokens;
use serde::Serialize;
use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Descriptions are never longer than this in a directory (at a character
/// boundary, marked with `…`).
pub const MAX_DESCRIPTION_BYTES: usize = 1024;

/// Descriptions are not shortened below this many characters (the gist);
/// past that, lines lose their descriptions instead.
pub const MIN_DESCRIPTION_CHARS: usize = 48;

/// Bodies are inlined by `--mode auto` only for this many skills or fewer.
pub const FULL_MODE_MAX_SKILLS: usize = 4;

/// `--mode full` inlines no file larger than this.
pub const FULL_MODE_MAX_FILE_BYTES: u64 = 256 * 1024;

/// Without a budget, `--mode auto` inlines bodies only up to this size.
pub const FULL_MODE_MAX_BYTES: usize = 16 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    #[default]
    Markdown,
    Xml,
    Json,
    AgentsMd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Auto,
    Full,
    Directory,
    Namespaces,
}

/// A size limit for the rendered text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "unit", content = "limit", rename_all = "lowercase")]
pub enum Budget {
    /// o200k tokens.
    Tokens(usize),
    /// Unicode characters.
    Chars(usize),
}

impl Budget {
    pub fn limit(self) -> usize {
        match self {
            Budget::Tokens(n) | Budget::Chars(n) => n,
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Budget::Tokens(_) => "tokens",
            Budget::Chars(_) => "characters",
        }
    }

    /// Exact cost of `text` in this budget's unit.
    pub fn cost(self, text: &str) -> usize {
        match self {
            Budget::Tokens(_) => tokens::count(text),
            Budget::Chars(_) => text.chars().count(),
        }
    }

    /// A cost no larger than the exact one, computed without a tokenizer.
    fn cost_lower_bound(self, text: &str) -> usize {
        match self {
            Budget::Tokens(_) => tokens::lower_bound(text),
            Budget::Chars(_) => text.chars().count(),
        }
    }
}

/// How the closing line tells the agent to reach skills not shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reach {
    /// The `skilldex` command line.
    #[default]
    Cli,
    /// The tools of `skilldex serve`.
    Mcp,
}

#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    pub format: Format,
    pub paths: PathStyle,
    pub mode: Mode,
    pub budget: Option<Budget>,
    /// Folder that relative paths are relative to (usually the current one).
    pub base: PathBuf,
    pub reach: Reach,
    /// Fill only the counts of the report (`skills` and `collapsed` stay
    /// empty): for callers that print the text and need no per-skill data.
    pub counts_only: bool,
    /// Skill names, ids or `namespace/name`s that keep their lines before
    /// any other, in this order (`pinned:` of the configuration).
    pub pinned: Vec<String>,
    /// The command, with the flags that chose the catalog, that the closing
    /// line and the instructions tell the agent to run (`skilldex --root
    /// X`); empty means `skilldex`.
    pub command: String,
}

/// One skill as the directory shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShownSkill {
    pub id: String,
    pub name: String,
    pub namespace: String,
    /// The description as shown (possibly shortened).
    pub description: String,
    pub path: Option<String>,
    /// o200k tokens of this skill's line in the Markdown directory (filled
    /// for JSON output; 0 otherwise).
    pub tokens: usize,
    pub shortened: bool,
    /// The version of the skill's file (a hash of its content): what
    /// `render --since` compares to tell a changed skill.
    pub hash: String,
}

/// One namespace (or merged group of namespaces) and how it was shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShownNamespace {
    pub name: String,
    pub description: String,
    /// Number of skills in it.
    pub skills: usize,
    /// True when some of its skills are not listed one by one.
    pub collapsed: bool,
    /// False when it has no heading of its own (its skills, if any are
    /// named, are listed under "Other namespaces").
    pub listed: bool,
    /// Number of its skills named one by one.
    pub named: usize,
    pub path: Option<String>,
}

/// The result of rendering: the text, and a report of what it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RenderedDirectory {
    #[serde(skip)]
    pub text: String,
    pub mode: Mode,
    pub skills: Vec<ShownSkill>,
    pub namespaces: Vec<ShownNamespace>,
    /// Ids of skills not listed one by one.
    pub collapsed: Vec<String>,
    /// Number of skills listed one by one (also filled with `counts_only`).
    pub listed_count: usize,
    /// Number of skills not listed one by one (also filled with `counts_only`).
    pub collapsed_count: usize,
    /// Number of shown descriptions that were shortened.
    pub shortened: usize,
    /// Number of skills named without a description.
    pub name_only: usize,
    /// Cost of `text` in the budget's unit (0 when there is no budget and
    /// the cost was not needed).
    pub cost: usize,
    pub budget: Option<Budget>,
    /// False when the budget is smaller than the shortest possible
    /// directory; the shortest one is returned anyway.
    pub fits: bool,
    /// The MCP tool servers, one line each (and their tools' lines when the
    /// budget left room); empty when the catalog has none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_servers: Vec<ShownServer>,
}

/// A skill prepared for display.
struct Entry<'a> {
    skill: &'a Skill,
    /// Description capped at `MAX_DESCRIPTION_BYTES`.
    description: Cow<'a, str>,
    capped: bool,
    chars: usize,
    path: Option<String>,
    /// Position in the keep order: the skills of lowest rank are the last
    /// to lose their descriptions and their lines.
    rank: usize,
}

/// A namespace and its entries (indices into `Renderer::entries`, in
/// catalog order).
struct Group {
    label: String,
    description: String,
    entries: Vec<usize>,
    path: Option<String>,
    /// Position in the order namespaces keep their heading when not every
    /// heading fits: largest first.
    heading_rank: usize,
}

/// How paths are shown, from the most to the least expensive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PathForm {
    /// As the options ask (absolute or relative to the base).
    Given,
    /// Relative to the folder all skills share, stated once.
    Rooted,
    /// None: `read NAME` reaches every skill.
    Dropped,
}

/// One step of the ladder: what the directory shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Plan {
    paths: PathForm,
    /// Maximum description length in characters (`None`: as written).
    cap: Option<usize>,
    /// The skills of rank below this are named one by one; the rest are
    /// counted.
    named: usize,
    /// Of the named, those of rank below this keep a description.
    described: usize,
    /// Namespaces of heading rank below this have a heading.
    headed: usize,
}

/// Render the directory of `catalog`: its skills, then its MCP tool
/// servers (see `tools.rs`).
pub fn render_directory(catalog: &Catalog, options: &RenderOptions) -> RenderedDirectory {
    tools::with_tool_servers(catalog, options, |options| {
        Renderer::new(catalog, options).render()
    })
}

struct Renderer<'a> {
    catalog: &'a Catalog,
    options: &'a RenderOptions,
    entries: Vec<Entry<'a>>,
    groups: Vec<Group>,
    /// Format whose text the budget measures (JSON is measured as Markdown).
    text_format: Format,
    /// The folder every shown path starts with (ending in `/`), when
    /// stating it once saves something.
    common_folder: Option<String>,
    /// The command the text tells the agent to run.
    command: String,
}

impl<'a> Renderer<'a> {
    fn new(catalog: &'a Catalog, options: &'a RenderOptions) -> Self {
        let base =
            normalize(&std::path::absolute(&options.base).unwrap_or_else(|_| options.base.clone()));
        // Make each root absolute once, not each of thousands of paths.
        let absolute_roots: Vec<PathBuf> = catalog
            .roots()
            .iter()
            .map(|r| normalize(&std::path::absolute(r).unwrap_or_else(|_| r.clone())))
            .collect();
        let absolute = |skill: &Skill| -> PathBuf {
            if skill.path.is_absolute() && is_normal(&skill.path) {
                return skill.path.clone();
            }
            let root = catalog.roots().get(skill.root);
            match (
                root.map(|r| skill.path.strip_prefix(r)),
                absolute_roots.get(skill.root),
            ) {
                (Some(Ok(relative)), Some(absolute_root)) if is_normal(relative) => {
                    absolute_root.join(relative)
                }
                _ => normalize(
                    &std::path::absolute(&skill.path).unwrap_or_else(|_| skill.path.clone()),
                ),
            }
        };
        // Absolute paths by string: a skill path is its root joined with
        // plain components (the walk makes no `.` or `..`), so swapping the
        // root's text for the absolute root's text gives the absolute path
        // without taking every path apart.
        let root_texts: Vec<(String, String)> = catalog
            .roots()
            .iter()
            .zip(&absolute_roots)
            .map(|(r, a)| {
                (
                    r.to_string_lossy().into_owned(),
                    a.to_string_lossy().into_owned(),
                )
            })
            .collect();
        let absolute_text = |skill: &Skill| -> Option<String> {
            let path = skill.path.to_str()?;
            let (root, absolute_root) = root_texts.get(skill.root)?;
            let rest = path.strip_prefix(root.as_str())?;
            if !rest.starts_with('/') || rest.contains("/./") || rest.contains("/../") {
                return None;
            }
            let mut out = String::with_capacity(absolute_root.len() + rest.len());
            out.push_str(absolute_root.trim_end_matches('/'));
            out.push_str(rest);
            Some(out)
        };
        // Text shows control characters escaped (they could add lines to a
        // prompt); JSON carries them as they are, escaped by JSON itself.
        let json = options.format == Format::Json;
        let shown = |text: &str, json: bool| {
            if json {
                text.to_string()
            } else {
                crate::entry::printable(text).into_owned()
            }
        };
        // Character counts only matter when a budget may shorten.
        let count_chars = options.budget.is_some();
        let mut entries: Vec<Entry<'a>> = catalog
            .skills()
            .iter()
            .map(|skill| {
                let (description, capped) = cap_bytes(&skill.description, MAX_DESCRIPTION_BYTES);
                let path = match options.paths {
                    PathStyle::None => None,
                    PathStyle::Absolute => absolute_text(skill)
                        .or_else(|| display_path(&absolute(skill), PathStyle::Absolute, &base)),
                    style => display_path(&absolute(skill), style, &base),
                }
                .map(|path| shown(&path, json));
                Entry {
                    chars: if count_chars {
                        description.chars().count()
                    } else {
                        0
                    },
                    description,
                    capped,
                    path,
                    skill,
                    rank: 0,
                }
            })
            .collect();
        if options.budget.is_some() {
            for (rank, index) in keep_order(&entries, &options.pinned)
                .into_iter()
                .enumerate()
            {
                entries[index].rank = rank;
            }
        }
        let mut groups: Vec<Group> = Vec::new();
        for (index, entry) in entries.iter().enumerate() {
            let namespace = &entry.skill.namespace;
            match groups.last_mut() {
                Some(group) if entries[group.entries[0]].skill.namespace == *namespace => {
                    group.entries.push(index)
                }
                _ => {
                    let description = catalog
                        .namespace(namespace)
                        .map(|n| shown(&n.description, json))
                        .unwrap_or_default();
                    groups.push(Group {
                        label: shown(namespace, json),
                        description,
                        entries: vec![index],
                        path: None,
                        heading_rank: 0,
                    });
                }
            }
        }
        // A namespace can span roots: its folder is the one in the root of
        // highest precedence (the one whose skills win name clashes).
        for group in &mut groups {
            let first = group
                .entries
                .iter()
                .map(|&i| &entries[i])
                .min_by_key(|e| e.skill.root);
            group.path = first
                .and_then(|e| e.skill.dir().parent())
                .and_then(|p| folder_path(p, options.paths, &base))
                .map(|path| shown(&path, json));
        }
        let mut by_size: Vec<usize> = (0..groups.len()).collect();
        by_size.sort_by_key(|&g| (std::cmp::Reverse(groups[g].entries.len()), g));
        for (rank, g) in by_size.into_iter().enumerate() {
            groups[g].heading_rank = rank;
        }
        let common_folder = if options.budget.is_some() {
            common_folder(entries.iter().filter_map(|e| e.path.as_deref()))
        } else {
            None
        };
        let text_format = if options.format == Format::Json {
            Format::Markdown
        } else {
            options.format
        };
        let command = if options.command.is_empty() {
            "skilldex".to_string()
        } else {
            shown(&options.command, json)
        };
        Renderer {
            catalog,
            options,
            entries,
            groups,
            text_format,
            common_folder,
            command,
        }
    }

    /// The plan that shows everything.
    fn full_plan(&self) -> Plan {
        Plan {
            paths: PathForm::Given,
            cap: None,
            named: self.entries.len(),
            described: self.entries.len(),
            headed: self.groups.len(),
        }
    }

    fn render(&self) -> RenderedDirectory {
        let budget = self.options.budget;
        if budget.is_some_and(|b| matches!(b, Budget::Tokens(_))) {
            tokens::warm_up();
        }
        if self.entries.is_empty() {
            // No skills, no directory: a host should not tell a model about
            // skills that do not exist. XML keeps its (empty) envelope.
            let text = if self.text_format == Format::Xml {
                "<available_skills>\n</available_skills>\n".to_string()
            } else {
                String::new()
            };
            let cost = budget.map_or(0, |b| b.cost(&text));
            return self.report(Mode::Directory, &self.full_plan(), text, cost, true);
        }
        let mut mode = self.pick_mode();
        if mode == Mode::Full {
            if let Some(result) = self.render_full() {
                return result;
            }
            // The bodies do not fit: the directory it is.
            mode = Mode::Directory;
        }
        let namespaces_only = mode == Mode::Namespaces;
        let fitted = match budget {
            None => {
                let plan = if namespaces_only {
                    Plan {
                        named: 0,
                        described: 0,
                        ..self.full_plan()
                    }
                } else {
                    self.full_plan()
                };
                let text = self.compose(&plan);
                fit::Fitted {
                    plan,
                    text,
                    cost: 0,
                    fits: true,
                }
            }
            Some(budget) => self.fit(budget, namespaces_only),
        };
        self.report(mode, &fitted.plan, fitted.text, fitted.cost, fitted.fits)
    }

    fn pick_mode(&self) -> Mode {
        match self.options.mode {
            Mode::Auto => {
                let small = !self.entries.is_empty() && self.entries.len() <= FULL_MODE_MAX_SKILLS;
                let bytes: u64 = self.entries.iter().map(|e| e.skill.file_bytes).sum();
                let limit = match self.options.budget {
                    // Bytes bound tokens from above: if the files fit in
                    // bytes, the bodies fit in tokens.
                    Some(budget) => budget.limit() as u64,
                    None => FULL_MODE_MAX_BYTES as u64,
                };
                if small && self.options.format != Format::Json && bytes <= limit {
                    Mode::Full
                } else {
                    Mode::Directory
                }
            }
            other => other,
        }
    }

    /// Skills with their bodies inline. `None` when the bodies do not fit
    /// the budget (the caller falls back to the directory).
    fn render_full(&self) -> Option<RenderedDirectory> {
        if self.options.format == Format::Json {
            return None;
        }
        let mut text = String::new();
        let xml = self.text_format == Format::Xml;
        if xml {
            text.push_str("<skills>\n");
        } else {
            self.open(&mut text);
            text.push_str("Each skill below is shown in full. Follow the one that matches your task; open the files it mentions only when needed.\n");
        }
        for entry in &self.entries {
            // The file is read again (it may have changed since the scan):
            // parse it afresh rather than trust the old offset, and do not
            // inline a file too large for any prompt.
            let body = if entry.skill.file_bytes > FULL_MODE_MAX_FILE_BYTES {
                format!(
                    "(this skill's file is {} bytes; read it from its path)",
                    entry.skill.file_bytes
                )
            } else {
                match read_skill_text(self.catalog.root_of(entry.skill), &entry.skill.path) {
                    Ok(file) => {
                        let offset = crate::parse::parse_text(&file).body_offset;
                        file.get(offset..).unwrap_or("").trim().to_string()
                    }
                    Err(error) => format!("(this skill's file could not be read: {error})"),
                }
            };
            if xml {
                let _ = write!(
                    text,
                    "<skill name=\"{}\"{}>\n<description>{}</description>\n<instructions>\n{}\n</instructions>\n</skill>\n",
                    escape_xml(&entry.skill.id),
                    entry
                        .path
                        .as_deref()
                        .map(|p| format!(" location=\"{}\"", escape_xml(p)))
                        .unwrap_or_default(),
                    escape_xml(&entry.description),
                    escape_xml(&body)
                );
            } else {
                let _ = write!(text, "\n### {}\n\n{}\n", entry.skill.id, entry.description);
                if let Some(path) = &entry.path {
                    let _ = writeln!(
                        text,
                        "\nFile: `{path}`. Paths in it are relative to its folder."
                    );
                }
                let _ = write!(text, "\n{body}\n");
            }
        }
        if xml {
            text.push_str("</skills>\n");
        } else {
            self.close(&mut text);
        }
        let cost = match self.options.budget {
            Some(budget) => {
                let cost = budget.cost(&text);
                if cost > budget.limit() {
                    return None;
                }
                cost
            }
            None => 0,
        };
        Some(self.report(Mode::Full, &self.full_plan(), text, cost, true))
    }

    fn report(
        &self,
        mode: Mode,
        plan: &Plan,
        text: String,
        cost: usize,
        fits: bool,
    ) -> RenderedDirectory {
        let json = self.options.format == Format::Json;
        let mut skills = Vec::new();
        let mut collapsed = Vec::new();
        let mut namespaces = Vec::new();
        let mut shortened_count = 0;
        let mut name_only = 0;
        let mut listed_count = 0;
        let mut collapsed_count = 0;
        for group in &self.groups {
            let named_here = group
                .entries
                .iter()
                .filter(|&&i| self.entries[i].rank < plan.named)
                .count();
            namespaces.push(ShownNamespace {
                name: group.label.clone(),
                description: group.description.clone(),
                skills: group.entries.len(),
                collapsed: named_here < group.entries.len(),
                listed: group.heading_rank < plan.headed,
                named: named_here,
                path: group.path.clone(),
            });
            for &i in &group.entries {
                let entry = &self.entries[i];
                if entry.rank >= plan.named {
                    collapsed_count += 1;
                    if !self.options.counts_only {
                        collapsed.push(entry.skill.id.clone());
                    }
                    continue;
                }
                listed_count += 1;
                let described = entry.rank < plan.described;
                let shortened =
                    described && (entry.capped || plan.cap.is_some_and(|cap| entry.chars > cap));
                shortened_count += usize::from(shortened);
                name_only += usize::from(!described);
                if self.options.counts_only {
                    continue;
                }
                let description = if described {
                    shorten(&entry.description, plan.cap.unwrap_or(usize::MAX))
                        .0
                        .into_owned()
                } else {
                    String::new()
                };
                let tokens = if json {
                    let mut line = String::new();
                    self.entry_line(&mut line, entry, plan);
                    tokens::count(&line)
                } else {
                    0
                };
                skills.push(ShownSkill {
                    id: entry.skill.id.clone(),
                    name: entry.skill.name.clone(),
                    namespace: entry.skill.namespace.clone(),
                    description,
                    // The whole path, also where the text states the
                    // common folder once; none where the text shows none.
                    path: match plan.paths {
                        PathForm::Dropped => None,
                        _ => entry.path.clone(),
                    },
                    tokens,
                    shortened,
                    hash: version_of(entry.skill),
                });
            }
        }
        collapsed.sort();
        let cost = if json && cost == 0 {
            tokens::count(&text)
        } else {
            cost
        };
        RenderedDirectory {
            text,
            mode,
            skills,
            namespaces,
            collapsed,
            listed_count,
            collapsed_count,
            shortened: shortened_count,
            name_only,
            cost,
            budget: self.options.budget,
            fits,
            tool_servers: Vec::new(),
        }
    }
}

/// Indices of `entries` in keep order: pinned skills in the order pinned,
/// then shallower before nested, shorter ids before longer, then by id.
fn keep_order(entries: &[Entry<'_>], pinned: &[String]) -> Vec<usize> {
    let pin = |skill: &Skill| -> usize {
        pinned
            .iter()
            .position(|entry| skill.answers_to(entry))
            .unwrap_or(usize::MAX)
    };
    let mut keys: Vec<(usize, usize, usize, &str, usize)> = entries
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            let skill = entry.skill;
            let depth = skill.namespace.split('/').filter(|s| !s.is_empty()).count();
            (
                pin(skill),
                depth,
                skill.id.chars().count(),
                skill.id.as_str(),
                index,
            )
        })
        .collect();
    keys.sort_unstable();
    keys.into_iter().map(|k| k.4).collect()
}

/// The longest folder (ending in `/`) that every path starts with, when it
/// is long enough that stating it once saves something.
fn common_folder<'t>(mut paths: impl Iterator<Item = &'t str>) -> Option<String> {
    let first = paths.next()?;
    let mut common = &first[..first.rfind('/').map_or(0, |i| i + 1)];
    for path in paths {
        let same = common
            .bytes()
            .zip(path.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        if same < common.len() {
            let folder = common.as_bytes()[..same]
                .iter()
                .rposition(|&b| b == b'/')
                .map_or(0, |i| i + 1);
            common = &common[..folder];
        }
        if common.is_empty() {
            return None;
        }
    }
    (common.chars().count() > 2).then(|| common.to_string())
}

/// One skill's line of the Markdown directory.
pub(crate) fn markdown_line(text: &mut String, id: &str, description: &str, path: Option<&str>) {
    text.push_str("- ");
    text.push_str(id);
    text.push_str(": ");
    text.push_str(description);
    if let Some(path) = path {
        text.push_str(" [");
        text.push_str(path);
        text.push(']');
    }
    text.push('\n');
}

/// The version string of a skill's file, as `ShownSkill::hash` carries it.
pub(crate) fn version_of(skill: &Skill) -> String {
    format!("{:016x}", skill.content_hash)
}

/// Directory entries of the skills of `catalog` for which `keep` (given
/// the skill's index in `catalog.skills()`, the skill, and its path as
/// shown) says yes, in directory order; paths as `options` shows them and
/// descriptions never shortened (only capped at `MAX_DESCRIPTION_BYTES`).
pub(crate) fn entries_where(
    catalog: &Catalog,
    options: &RenderOptions,
    keep: impl Fn(usize, &Skill, Option<&str>) -> bool,
) -> Vec<ShownSkill> {
    let renderer = Renderer::new(catalog, options);
    renderer
        .entries
        .iter()
        .enumerate()
        .filter(|(index, entry)| keep(*index, entry.skill, entry.path.as_deref()))
        .map(|(_, entry)| ShownSkill {
            id: entry.skill.id.clone(),
            name: entry.skill.name.clone(),
            namespace: entry.skill.namespace.clone(),
            description: entry.description.clone().into_owned(),
            path: entry.path.clone(),
            tokens: 0,
            shortened: entry.capped,
            hash: version_of(entry.skill),
        })
        .collect()
}

/// The JSON document for `--format json`.
pub fn to_json(catalog: &Catalog, rendered: &RenderedDirectory) -> serde_json::Value {
    let mut value = serde_json::json!({
        "revision": catalog.revision(),
        "mode": rendered.mode,
        "budget": rendered.budget,
        "fits": rendered.fits,
        "tokens": rendered.cost,
        "skills": rendered.skills,
        "namespaces": rendered.namespaces,
        "collapsed": rendered.collapsed,
        "shortened": rendered.shortened,
        "name_only": rendered.name_only,
    });
    if !rendered.tool_servers.is_empty() {
        value["tool_servers"] = serde_json::json!(rendered.tool_servers);
    }
    value
}
