//! The directory: the text an agent sees in its prompt, listing what skills
//! exist and how to reach them, within a budget.
//!
//! Rendering is a pure function of the catalog and the options, so the same
//! catalog gives the same bytes. When the full directory does not fit the
//! budget, the fitting goes in three stages, each only as far as needed:
//! 1. shorten descriptions fairly — one common length cap, so long ones lose
//!    text first and short ones keep theirs (marked with `…`);
//! 2. collapse whole namespaces, largest first, into one line each (name,
//!    description, skill count, folder);
//! 3. merge collapsed namespaces into their parent folders, and as a last
//!    resort list only as many groups as fit.
//!
//! Whenever anything is not shown, the text ends with a line telling the
//! agent how to reach it, so no skill is silently unreachable.
//!
//! The text is written for a model to act on: no revisions, token counts or
//! other engine internals appear in it. Those go to `RenderedDirectory`.

use crate::catalog::{read_text, Catalog};
use crate::model::Skill;
use crate::tokens;
use serde::Serialize;
use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

/// Descriptions are never longer than this in a directory (at a character
/// boundary, marked with `…`).
pub const MAX_DESCRIPTION_BYTES: usize = 1024;

/// Descriptions are not shortened below this many characters; past that,
/// namespaces are collapsed instead.
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
pub enum PathStyle {
    #[default]
    Absolute,
    Relative,
    None,
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

    /// A cost no smaller than the exact one, computed without a tokenizer.
    fn cost_upper_bound(self, text: &str) -> usize {
        match self {
            Budget::Tokens(_) => tokens::upper_bound(text),
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
    /// True when its skills are not listed one by one.
    pub collapsed: bool,
    /// False when even its one-line summary did not fit.
    pub listed: bool,
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
    /// Cost of `text` in the budget's unit (0 when there is no budget and
    /// the cost was not needed).
    pub cost: usize,
    pub budget: Option<Budget>,
    /// False when the budget is smaller than the shortest possible
    /// directory; the shortest one is returned anyway.
    pub fits: bool,
}

/// A skill prepared for display.
struct Entry<'a> {
    skill: &'a Skill,
    /// Description capped at `MAX_DESCRIPTION_BYTES`.
    description: Cow<'a, str>,
    capped: bool,
    chars: usize,
    path: Option<String>,
}

/// A namespace (or merged group) of entries.
#[derive(Clone)]
struct Group {
    label: String,
    description: String,
    entries: Vec<usize>,
    path: Option<String>,
}

/// What to show: which groups are expanded, and the description cap.
#[derive(Clone)]
struct Plan {
    groups: Vec<Group>,
    expanded: Vec<bool>,
    /// Maximum description length in characters for expanded entries.
    cap: Option<usize>,
    /// Groups listed; groups past this index are only counted in the
    /// closing line.
    listed: usize,
}

impl Plan {
    fn anything_hidden(&self) -> bool {
        self.listed < self.groups.len() || self.expanded.iter().any(|e| !e)
    }
}

/// Render the directory of `catalog`.
pub fn render_directory(catalog: &Catalog, options: &RenderOptions) -> RenderedDirectory {
    let renderer = Renderer::new(catalog, options);
    renderer.render()
}

struct Renderer<'a> {
    catalog: &'a Catalog,
    options: &'a RenderOptions,
    entries: Vec<Entry<'a>>,
    namespace_groups: Vec<Group>,
    /// Format whose text the budget measures (JSON is measured as Markdown).
    text_format: Format,
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
                crate::model::printable(text).into_owned()
            }
        };
        // Character counts only matter when a budget may shorten.
        let count_chars = options.budget.is_some();
        let entries: Vec<Entry<'a>> = catalog
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
                }
            })
            .collect();
        let mut namespace_groups: Vec<Group> = Vec::new();
        for (index, entry) in entries.iter().enumerate() {
            let namespace = &entry.skill.namespace;
            match namespace_groups.last_mut() {
                Some(group) if entries[group.entries[0]].skill.namespace == *namespace => {
                    group.entries.push(index)
                }
                _ => {
                    let description = catalog
                        .namespace(namespace)
                        .map(|n| shown(&n.description, json))
                        .unwrap_or_default();
                    namespace_groups.push(Group {
                        label: shown(namespace, json),
                        description,
                        entries: vec![index],
                        path: None,
                    });
                }
            }
        }
        // A namespace can span roots: its folder is the one in the root of
        // highest precedence (the one whose skills win name clashes).
        for group in &mut namespace_groups {
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
        let text_format = if options.format == Format::Json {
            Format::Markdown
        } else {
            options.format
        };
        Renderer {
            catalog,
            options,
            entries,
            namespace_groups,
            text_format,
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
            let plan = Plan {
                groups: Vec::new(),
                expanded: Vec::new(),
                cap: None,
                listed: 0,
            };
            let cost = budget.map_or(0, |b| b.cost(&text));
            return self.report(Mode::Directory, &plan, text, cost, true);
        }
        let mut mode = self.pick_mode();
        if mode == Mode::Full {
            if let Some(result) = self.render_full() {
                return result;
            }
            // The bodies do not fit: the directory it is.
            mode = Mode::Directory;
        }
        let full_plan = Plan {
            expanded: vec![mode != Mode::Namespaces; self.namespace_groups.len()],
            groups: self.namespace_groups.clone(),
            cap: None,
            listed: self.namespace_groups.len(),
        };
        let (plan, text, cost, fits) = match budget {
            None => {
                let text = self.compose(&full_plan, self.text_format);
                (full_plan, text, 0, true)
            }
            Some(budget) => self.fit(full_plan, budget),
        };
        self.report(mode, &plan, text, cost, fits)
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
                match read_text(&entry.skill.path) {
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
        let plan = Plan {
            groups: self.namespace_groups.clone(),
            expanded: vec![true; self.namespace_groups.len()],
            cap: None,
            listed: self.namespace_groups.len(),
        };
        Some(self.report(Mode::Full, &plan, text, cost, true))
    }

    /// Find the largest plan that fits `budget`, following the stages in the
    /// module docs. Returns the plan, its text, its exact cost and whether
    /// it fits.
    fn fit(&self, plan: Plan, budget: Budget) -> (Plan, String, usize, bool) {
        let limit = budget.limit();
        let text = self.compose(&plan, self.text_format);
        // Cheap acceptance: the upper bound already fits.
        if plan.expanded.iter().all(|e| *e) && budget.cost_upper_bound(&text) <= limit {
            let cost = budget.cost(&text);
            return (plan, text, cost, true);
        }
        // Stage 1: shorten descriptions, if even the floor might fit.
        if plan.expanded.iter().all(|e| *e) {
            let floor = Plan {
                cap: Some(MIN_DESCRIPTION_CHARS),
                ..plan.clone()
            };
            let floor_text = self.compose(&floor, self.text_format);
            if budget.cost_lower_bound(&floor_text) <= limit {
                let cost = budget.cost(&text);
                if cost <= limit {
                    return (plan, text, cost, true);
                }
                if let Some(found) = self.shorten(&plan, budget) {
                    return found;
                }
            }
        }
        // Stage 2: collapse namespaces, largest first.
        // Stage 2, with `--mode namespaces` only checks that the collapsed
        // form fits: that mode never lists skills one by one.
        let expand = plan.expanded.iter().any(|e| *e);
        if let Some(found) = self.collapse(budget, expand) {
            return found;
        }
        // Stage 3: merge into parent folders, then cut the list.
        self.merge_and_cut(budget)
    }

    /// Water-fill: the largest common description cap that fits.
    fn shorten(&self, plan: &Plan, budget: Budget) -> Option<(Plan, String, usize, bool)> {
        let longest = self.entries.iter().map(|e| e.chars).max().unwrap_or(0);
        let (mut low, mut high) = (MIN_DESCRIPTION_CHARS, longest);
        let mut best = None;
        // Binary search over the cap with exact costs of the whole text;
        // each probe costs one count of a text close to the budget's size.
        while low <= high {
            let middle = low + (high - low) / 2;
            let candidate = Plan {
                cap: Some(middle),
                ..plan.clone()
            };
            let text = self.compose(&candidate, self.text_format);
            let cost = budget.cost(&text);
            if cost <= budget.limit() {
                best = Some((candidate, text, cost, true));
                low = middle + 1;
            } else {
                if middle == 0 {
                    break;
                }
                high = middle - 1;
            }
        }
        best
    }

    /// Collapse namespaces largest-first until the rest fits with
    /// descriptions at the floor, then give the freed room back to the
    /// descriptions that remain.
    fn collapse(&self, budget: Budget, expand: bool) -> Option<(Plan, String, usize, bool)> {
        let groups = self.namespace_groups.clone();
        let count = groups.len();
        let all_collapsed = Plan {
            expanded: vec![false; count],
            groups,
            cap: Some(MIN_DESCRIPTION_CHARS),
            listed: count,
        };
        let text = self.compose(&all_collapsed, self.text_format);
        let cost = budget.cost(&text);
        if cost > budget.limit() {
            return None;
        }
        // Expanding in the reverse of the collapse order (smallest first)
        // and stopping at the first that does not fit is the same as
        // collapsing largest first until it fits.
        let mut order: Vec<usize> = (0..count).collect();
        order.sort_by(|&a, &b| {
            let (ga, gb) = (&all_collapsed.groups[a], &all_collapsed.groups[b]);
            (ga.entries.len(), &ga.label).cmp(&(gb.entries.len(), &gb.label))
        });
        let mut best = (all_collapsed.clone(), text, cost);
        let mut plan = all_collapsed;
        for index in order.into_iter().filter(|_| expand) {
            plan.expanded[index] = true;
            let text = self.compose(&plan, self.text_format);
            // Cheap rejection before the exact count.
            if budget.cost_lower_bound(&text) > budget.limit() {
                break;
            }
            let cost = budget.cost(&text);
            if cost > budget.limit() {
                break;
            }
            best = (plan.clone(), text, cost);
        }
        let (plan, text, cost) = best;
        if plan.expanded.iter().any(|e| *e) {
            if let Some(found) = self.shorten(&plan, budget) {
                return Some(found);
            }
        }
        Some((plan, text, cost, true))
    }

    /// Merge collapsed namespaces into parent folders, level by level; if
    /// even the top level does not fit, list as many groups as fit.
    fn merge_and_cut(&self, budget: Budget) -> (Plan, String, usize, bool) {
        let deepest = self
            .namespace_groups
            .iter()
            .map(|g| g.label.split('/').filter(|s| !s.is_empty()).count())
            .max()
            .unwrap_or(0);
        let mut groups = self.namespace_groups.clone();
        for depth in (1..deepest).rev() {
            groups = self.merge_groups(&groups, depth);
            let plan = Plan {
                expanded: vec![false; groups.len()],
                groups: groups.clone(),
                cap: Some(MIN_DESCRIPTION_CHARS),
                listed: groups.len(),
            };
            let text = self.compose(&plan, self.text_format);
            let cost = budget.cost(&text);
            if cost <= budget.limit() {
                return (plan, text, cost, true);
            }
        }
        // List as many top-level groups as fit (binary search on the count).
        let count = groups.len();
        let mut plan = Plan {
            expanded: vec![false; count],
            groups,
            cap: Some(MIN_DESCRIPTION_CHARS),
            listed: 0,
        };
        let (mut low, mut high) = (1, count);
        let mut best_listed = 0;
        while low <= high {
            let middle = low + (high - low) / 2;
            plan.listed = middle;
            let text = self.compose(&plan, self.text_format);
            if budget.cost(&text) <= budget.limit() {
                best_listed = middle;
                low = middle + 1;
            } else {
                high = middle - 1;
            }
        }
        plan.listed = best_listed;
        let text = self.compose(&plan, self.text_format);
        let cost = budget.cost(&text);
        let fits = cost <= budget.limit();
        (plan, text, cost, fits)
    }

    /// Groups merged to their first `depth` folder components.
    fn merge_groups(&self, groups: &[Group], depth: usize) -> Vec<Group> {
        let mut merged: Vec<(Group, Vec<String>)> = Vec::new();
        for group in groups {
            let prefix: Vec<&str> = group
                .label
                .split('/')
                .filter(|s| !s.is_empty())
                .take(depth)
                .collect();
            let label = prefix.join("/");
            let child = group.label.clone();
            match merged.iter_mut().find(|(g, _)| g.label == label) {
                Some((target, children)) => {
                    target.entries.extend(group.entries.iter().copied());
                    children.push(child);
                }
                None => {
                    let path = group.path.as_ref().map(|p| {
                        let extra =
                            group.label.split('/').filter(|s| !s.is_empty()).count() - prefix.len();
                        parent_folder_path(p, extra)
                    });
                    let description = self
                        .catalog
                        .namespace(&label)
                        .map(|n| n.description.clone())
                        .unwrap_or_default();
                    merged.push((
                        Group {
                            label,
                            description,
                            entries: group.entries.clone(),
                            path,
                        },
                        vec![child],
                    ));
                }
            }
        }
        merged
            .into_iter()
            .map(|(mut group, children)| {
                let mut names: Vec<&str> = children
                    .iter()
                    .filter(|c| **c != group.label)
                    .map(|c| c.strip_prefix(&format!("{}/", group.label)).unwrap_or(c))
                    .collect();
                names.dedup();
                let shown: Vec<&str> = names.iter().take(6).copied().collect();
                let more = if names.len() > shown.len() {
                    ", …"
                } else {
                    ""
                };
                if group.description.is_empty() {
                    group.description =
                        format!("{} namespaces: {}{more}.", names.len(), shown.join(", "));
                } else if !names.is_empty() {
                    let description = group.description.trim_end_matches('.').to_string();
                    group.description =
                        format!("{description} (also: {}{more}).", shown.join(", "));
                }
                group
            })
            .collect()
    }

    // ----- composing text -----

    fn open(&self, text: &mut String) {
        if self.text_format == Format::AgentsMd {
            text.push_str("<!-- skilldex:begin -->\n");
        }
        text.push_str("## Skills\n\n");
    }

    fn close(&self, text: &mut String) {
        if self.text_format == Format::AgentsMd {
            text.push_str("<!-- skilldex:end -->\n");
        }
    }

    fn intro(&self) -> &'static str {
        match (self.options.paths, self.options.reach) {
            (PathStyle::None, Reach::Cli) => {
                "Skills are instructions for specific tasks. When a task matches a skill's description, read it with `skilldex read <name>` and follow it before you start; `skilldex read <name>/<file>` opens the files it mentions.\n"
            }
            (PathStyle::None, Reach::Mcp) => {
                "Skills are instructions for specific tasks. When a task matches a skill's description, read it with the `read_skill` tool and follow it before you start.\n"
            }
            _ => {
                "Skills are instructions for specific tasks. When a task matches a skill's description, read its SKILL.md (path in brackets) and follow it before you start; open the files it mentions only when you need them.\n"
            }
        }
    }

    fn reach_line(&self, plan: &Plan) -> Option<String> {
        let hidden = plan.anything_hidden();
        let shortened = plan.cap.is_some_and(|cap| {
            plan.groups
                .iter()
                .zip(&plan.expanded)
                .take(plan.listed)
                .any(|(g, e)| *e && g.entries.iter().any(|&i| self.entries[i].chars > cap))
        }) || self.entries.iter().any(|e| e.capped);
        if !hidden && !shortened {
            return None;
        }
        let mut line = String::new();
        if hidden {
            let unlisted_groups = plan.groups.len() - plan.listed;
            let hidden_skills: usize = plan
                .groups
                .iter()
                .zip(&plan.expanded)
                .enumerate()
                .filter(|(i, (_, e))| *i >= plan.listed || !**e)
                .map(|(_, (g, _))| g.entries.len())
                .sum();
            let noun = if hidden_skills == 1 {
                "skill is"
            } else {
                "skills are"
            };
            if plan.listed == 0 {
                let _ = write!(
                    line,
                    "{hidden_skills} {noun} available in {unlisted_groups} namespaces. To find one, "
                );
            } else if unlisted_groups > 0 {
                let _ = write!(
                    line,
                    "{hidden_skills} more {noun} not listed one by one, {unlisted_groups} namespaces not at all. To find one, "
                );
            } else {
                let _ = write!(
                    line,
                    "{hidden_skills} more {noun} not listed one by one. To find one, "
                );
            }
            match (self.options.reach, unlisted_groups > 0) {
                (Reach::Cli, true) => line.push_str(
                    "search with `skilldex search \"<what you need>\"`, or run `skilldex list` to see every namespace, then `skilldex list --namespace <name>`",
                ),
                (Reach::Cli, false) => {
                    line.push_str("search with `skilldex search \"<what you need>\"` or list a namespace with `skilldex list --namespace <name>`");
                    if self.options.paths != PathStyle::None {
                        line.push_str(", or open the namespace folder and read the SKILL.md files in it");
                    }
                }
                (Reach::Mcp, _) => line.push_str(
                    "call the `search_skills` tool with what you need, then `read_skill` with its name",
                ),
            }
            line.push('.');
        }
        if shortened {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(
                "Descriptions ending in … are shortened; the skill's file has the full text.",
            );
        }
        Some(line)
    }

    /// The directory text of `plan` in `format` (Markdown, AGENTS.md or XML).
    fn compose(&self, plan: &Plan, format: Format) -> String {
        let mut text = String::with_capacity(128 + self.entries.len() * 160);
        if format == Format::Xml {
            self.compose_xml(plan, &mut text);
            return text;
        }
        self.open(&mut text);
        // With nothing listed the instructions have nothing to refer to:
        // the closing line alone says how to reach the skills.
        if plan.listed > 0 {
            text.push_str(self.intro());
        }
        let headings = plan.groups.len() > 1
            || plan.groups.first().is_some_and(|g| !g.label.is_empty())
            || plan.expanded.iter().any(|e| !e);
        for (index, group) in plan.groups.iter().enumerate().take(plan.listed) {
            let expanded = plan.expanded[index];
            if headings {
                let label = if group.label.is_empty() {
                    "Top level"
                } else {
                    &group.label
                };
                let _ = write!(text, "\n### {label}");
                if !group.description.is_empty() {
                    let (description, _) = shorten(
                        &group.description,
                        plan.cap.unwrap_or(usize::MAX).max(MIN_DESCRIPTION_CHARS),
                    );
                    let _ = write!(text, ": {description}");
                }
                if !expanded {
                    let count = group.entries.len();
                    let noun = if count == 1 { "skill" } else { "skills" };
                    let _ = write!(text, " ({count} {noun}, not listed");
                    if let Some(path) = &group.path {
                        let _ = write!(text, "; folder `{path}`");
                    }
                    text.push(')');
                }
                text.push('\n');
            } else {
                text.push('\n');
            }
            if expanded {
                for &i in &group.entries {
                    self.markdown_entry(&mut text, &self.entries[i], plan.cap);
                }
            }
        }
        if let Some(line) = self.reach_line(plan) {
            if plan.listed > 0 {
                text.push('\n');
            }
            let _ = writeln!(text, "{line}");
        }
        self.close(&mut text);
        text
    }

    fn markdown_entry(&self, text: &mut String, entry: &Entry<'_>, cap: Option<usize>) {
        let (description, _) = shorten(&entry.description, cap.unwrap_or(usize::MAX));
        markdown_line(text, &entry.skill.id, &description, entry.path.as_deref());
    }

    fn compose_xml(&self, plan: &Plan, text: &mut String) {
        text.push_str("<available_skills>\n");
        for (index, group) in plan.groups.iter().enumerate().take(plan.listed) {
            if plan.expanded[index] {
                for &i in &group.entries {
                    let entry = &self.entries[i];
                    let (description, _) =
                        shorten(&entry.description, plan.cap.unwrap_or(usize::MAX));
                    let _ = write!(
                        text,
                        "<skill>\n<name>{}</name>\n<description>{}</description>\n",
                        escape_xml(&entry.skill.id),
                        escape_xml(&description)
                    );
                    if let Some(path) = &entry.path {
                        let _ = writeln!(text, "<location>{}</location>", escape_xml(path));
                    }
                    text.push_str("</skill>\n");
                }
            } else {
                let (description, _) = shorten(
                    &group.description,
                    MIN_DESCRIPTION_CHARS.max(plan.cap.unwrap_or(0)),
                );
                let _ = write!(
                    text,
                    "<namespace name=\"{}\" skills=\"{}\"",
                    escape_xml(if group.label.is_empty() {
                        "."
                    } else {
                        &group.label
                    }),
                    group.entries.len()
                );
                if let Some(path) = &group.path {
                    let _ = write!(text, " location=\"{}\"", escape_xml(path));
                }
                let _ = writeln!(text, ">{}</namespace>", escape_xml(&description));
            }
        }
        if let Some(line) = self.reach_line(plan) {
            let _ = writeln!(text, "<note>{}</note>", escape_xml(&line));
        }
        text.push_str("</available_skills>\n");
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
        let mut listed_count = 0;
        let mut collapsed_count = 0;
        for (index, group) in plan.groups.iter().enumerate() {
            let listed = index < plan.listed;
            let expanded = listed && plan.expanded[index];
            namespaces.push(ShownNamespace {
                name: group.label.clone(),
                description: group.description.clone(),
                skills: group.entries.len(),
                collapsed: !expanded,
                listed,
                path: group.path.clone(),
            });
            for &i in &group.entries {
                let entry = &self.entries[i];
                if !expanded {
                    collapsed_count += 1;
                    if !self.options.counts_only {
                        collapsed.push(entry.skill.id.clone());
                    }
                    continue;
                }
                listed_count += 1;
                let shortened = entry.capped || plan.cap.is_some_and(|cap| entry.chars > cap);
                shortened_count += usize::from(shortened);
                if self.options.counts_only {
                    continue;
                }
                let (description, _) = shorten(&entry.description, plan.cap.unwrap_or(usize::MAX));
                let tokens = if json {
                    let mut line = String::new();
                    self.markdown_entry(&mut line, entry, plan.cap);
                    tokens::count(&line)
                } else {
                    0
                };
                skills.push(ShownSkill {
                    id: entry.skill.id.clone(),
                    name: entry.skill.name.clone(),
                    namespace: entry.skill.namespace.clone(),
                    description: description.into_owned(),
                    path: entry.path.clone(),
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
            cost,
            budget: self.options.budget,
            fits,
        }
    }
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
    serde_json::json!({
        "revision": catalog.revision(),
        "mode": rendered.mode,
        "budget": rendered.budget,
        "fits": rendered.fits,
        "tokens": rendered.cost,
        "skills": rendered.skills,
        "namespaces": rendered.namespaces,
        "collapsed": rendered.collapsed,
        "shortened": rendered.shortened,
    })
}

/// `text` cut to at most `max` bytes at a character boundary, with `…`
/// when cut. Returns whether it was cut.
fn cap_bytes(text: &str, max: usize) -> (Cow<'_, str>, bool) {
    if text.len() <= max {
        return (Cow::Borrowed(text), false);
    }
    let ellipsis = '…'.len_utf8();
    let mut end = max - ellipsis;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (Cow::Owned(format!("{}…", text[..end].trim_end())), true)
}

/// `text` cut to at most `max` characters (the `…` included), preferring a
/// word boundary near the end.
pub fn shorten(text: &str, max: usize) -> (Cow<'_, str>, bool) {
    if max == usize::MAX || text.chars().count() <= max {
        return (Cow::Borrowed(text), false);
    }
    let keep = max.saturating_sub(1);
    let cut = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
    let mut head = &text[..cut];
    // Prefer to cut at a space in the last fifth, so words stay whole.
    if let Some(space) = head.rfind(' ') {
        if space >= head.len() - head.len() / 5 {
            head = &head[..space];
        }
    }
    let head =
        head.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '-'));
    (Cow::Owned(format!("{head}…")), true)
}

pub fn escape_xml(text: &str) -> Cow<'_, str> {
    if !text.contains(['&', '<', '>', '"', '\'']) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// How a file path is shown under `style`.
pub fn display_path(path: &Path, style: PathStyle, base: &Path) -> Option<String> {
    match style {
        PathStyle::None => None,
        PathStyle::Absolute if path.is_absolute() && is_normal(path) => {
            Some(path.to_string_lossy().into_owned())
        }
        PathStyle::Absolute => Some(
            std::path::absolute(path)
                .map(|p| normalize(&p))
                .unwrap_or_else(|_| path.to_path_buf())
                .to_string_lossy()
                .into_owned(),
        ),
        PathStyle::Relative => Some(relative_to(path, base).to_string_lossy().into_owned()),
    }
}

fn folder_path(path: &Path, style: PathStyle, base: &Path) -> Option<String> {
    display_path(path, style, base).map(|mut p| {
        if p.is_empty() {
            p.push('.');
        }
        if !p.ends_with('/') {
            p.push('/');
        }
        p
    })
}

/// `path` with `levels` trailing folders removed (keeps the trailing `/`).
fn parent_folder_path(path: &str, levels: usize) -> String {
    let mut p = PathBuf::from(path.trim_end_matches('/'));
    for _ in 0..levels {
        p.pop();
    }
    let mut s = p.to_string_lossy().into_owned();
    s.push('/');
    s
}

fn is_normal(path: &Path) -> bool {
    path.components()
        .all(|c| !matches!(c, Component::CurDir | Component::ParentDir))
}

/// Remove `.` and resolve `..` lexically.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// `path` relative to `base` (both made absolute lexically).
fn relative_to(path: &Path, base: &Path) -> PathBuf {
    let path = normalize(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()));
    let base = normalize(&std::path::absolute(base).unwrap_or_else(|_| base.to_path_buf()));
    let path_parts: Vec<Component> = path.components().collect();
    let base_parts: Vec<Component> = base.components().collect();
    let common = path_parts
        .iter()
        .zip(&base_parts)
        .take_while(|(a, b)| a == b)
        .count();
    if common == 0 {
        return path;
    }
    let mut out = PathBuf::new();
    for _ in common..base_parts.len() {
        out.push("..");
    }
    for part in &path_parts[common..] {
        out.push(part);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorten_prefers_word_boundaries() {
        let (s, cut) = shorten("Fill in PDF forms from structured data quickly", 20);
        assert!(cut);
        assert!(s.chars().count() <= 20, "{s}");
        assert!(s.ends_with('…'));
        assert_eq!(shorten("short", 20), (Cow::Borrowed("short"), false));
        assert_eq!(shorten("exactly", 7), (Cow::Borrowed("exactly"), false));
    }

    #[test]
    fn cap_bytes_respects_char_boundaries() {
        let text = "技".repeat(500); // 1,500 bytes
        let (capped, cut) = cap_bytes(&text, MAX_DESCRIPTION_BYTES);
        assert!(cut);
        assert!(capped.len() <= MAX_DESCRIPTION_BYTES);
        assert!(capped.ends_with('…'));
    }

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative_to(Path::new("/a/b/c/SKILL.md"), Path::new("/a/b")),
            PathBuf::from("c/SKILL.md")
        );
        assert_eq!(
            relative_to(Path::new("/a/x/SKILL.md"), Path::new("/a/b")),
            PathBuf::from("../x/SKILL.md")
        );
    }

    #[test]
    fn xml_escaping() {
        assert_eq!(escape_xml("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;");
    }
}
