//! The text of one plan: Markdown (and its AGENTS.md block) or XML. Pure
//! string building; which plan to compose is `fit.rs`'s question.

use super::{
    escape_xml, markdown_line, shorten, Entry, Format, PathForm, PathStyle, Plan, Reach, Renderer,
    MIN_DESCRIPTION_CHARS,
};
use std::fmt::Write as _;

/// What a plan leaves out, for the closing line.
#[derive(Default)]
struct Hidden {
    /// Skills not named one by one.
    skills: usize,
    /// Namespaces neither headed nor holding a named skill.
    namespaces: usize,
    /// Some shown description is shortened.
    shortened: bool,
    /// Some skill is named without its description.
    name_only: bool,
}

impl Renderer<'_> {
    pub(super) fn open(&self, text: &mut String) {
        if self.text_format == Format::AgentsMd {
            text.push_str("<!-- skilldex:begin -->\n");
        }
        text.push_str("## Skills\n\n");
    }

    pub(super) fn close(&self, text: &mut String) {
        if self.text_format == Format::AgentsMd {
            text.push_str("<!-- skilldex:end -->\n");
        }
    }

    /// The path of `entry` as `plan` shows it.
    fn shown_path<'e>(&self, entry: &'e Entry<'_>, plan: &Plan) -> Option<&'e str> {
        let path = entry.path.as_deref()?;
        match (plan.paths, &self.common_folder) {
            (PathForm::Given, _) => Some(path),
            (PathForm::Rooted, Some(folder)) => Some(path.get(folder.len()..).unwrap_or(path)),
            (PathForm::Rooted, None) => Some(path),
            (PathForm::Dropped, _) => None,
        }
    }

    /// Whether `plan` reaches skills by name rather than by path.
    fn by_name(&self, plan: &Plan) -> bool {
        self.options.paths == PathStyle::None || plan.paths == PathForm::Dropped
    }

    fn intro(&self, plan: &Plan) -> String {
        let command = &self.command;
        match (self.by_name(plan), self.options.reach) {
            (true, Reach::Cli) => format!(
                "Skills are instructions for specific tasks. When a task matches a skill's description, read it with `{command} read <name>` and follow it before you start; `{command} read <name>/<file>` opens the files it mentions.\n"
            ),
            (true, Reach::Mcp) => "Skills are instructions for specific tasks. When a task matches a skill's description, read it with the `read_skill` tool and follow it before you start.\n".to_string(),
            (false, _) => match (plan.paths, &self.common_folder) {
                (PathForm::Rooted, Some(folder)) => format!(
                    "Skills are instructions for specific tasks. When a task matches a skill's description, read its SKILL.md (path in brackets, relative to `{folder}`) and follow it before you start; open the files it mentions only when you need them.\n"
                ),
                _ => "Skills are instructions for specific tasks. When a task matches a skill's description, read its SKILL.md (path in brackets) and follow it before you start; open the files it mentions only when you need them.\n".to_string(),
            },
        }
    }

    fn is_named(&self, index: usize, plan: &Plan) -> bool {
        self.entries[index].rank < plan.named
    }

    /// The description of `entry` as `plan` shows it (`None`: name only).
    fn shown_description<'e>(
        &self,
        entry: &'e Entry<'_>,
        plan: &Plan,
    ) -> Option<std::borrow::Cow<'e, str>> {
        (entry.rank < plan.described)
            .then(|| shorten(&entry.description, plan.cap.unwrap_or(usize::MAX)).0)
    }

    /// One skill's Markdown line under `plan`.
    pub(super) fn entry_line(&self, text: &mut String, entry: &Entry<'_>, plan: &Plan) {
        let path = self.shown_path(entry, plan);
        match self.shown_description(entry, plan) {
            Some(description) => markdown_line(text, &entry.skill.id, &description, path),
            None => {
                text.push_str("- ");
                text.push_str(&entry.skill.id);
                if let Some(path) = path {
                    text.push_str(" [");
                    text.push_str(path);
                    text.push(']');
                }
                text.push('\n');
            }
        }
    }

    fn hidden(&self, plan: &Plan) -> Hidden {
        let mut hidden = Hidden::default();
        for group in &self.groups {
            let mut named_here = 0;
            for &i in &group.entries {
                let entry = &self.entries[i];
                if entry.rank >= plan.named {
                    hidden.skills += 1;
                    continue;
                }
                named_here += 1;
                if entry.rank >= plan.described {
                    hidden.name_only = true;
                } else if entry.capped || plan.cap.is_some_and(|cap| entry.chars > cap) {
                    hidden.shortened = true;
                }
            }
            if named_here == 0 && group.heading_rank >= plan.headed {
                hidden.namespaces += 1;
            }
        }
        hidden
    }

    /// The closing line: how to reach what is not shown, and what the
    /// shortened forms mean. `None` when everything is shown in full.
    fn reach_line(&self, plan: &Plan, hidden: &Hidden) -> Option<String> {
        if hidden.skills == 0 && !hidden.shortened && !hidden.name_only {
            return None;
        }
        let command = &self.command;
        let mut line = String::new();
        if hidden.skills > 0 {
            let count = hidden.skills;
            let noun = if count == 1 { "skill is" } else { "skills are" };
            let namespaces = if hidden.namespaces == 1 {
                "namespace"
            } else {
                "namespaces"
            };
            if plan.named == 0 && plan.headed == 0 {
                let _ = write!(
                    line,
                    "{count} {noun} available in {} {namespaces}. To find one, ",
                    hidden.namespaces
                );
            } else if hidden.namespaces > 0 {
                let _ = write!(
                    line,
                    "{count} more {noun} not listed one by one, {} {namespaces} not at all. To find one, ",
                    hidden.namespaces
                );
            } else {
                let _ = write!(
                    line,
                    "{count} more {noun} not listed one by one. To find one, "
                );
            }
            let bare = plan.named == 0 && plan.headed == 0;
            match (self.options.reach, hidden.namespaces > 0) {
                // The shortest form: two commands, no more.
                (Reach::Cli, _) if bare => {
                    let _ = write!(
                        line,
                        "search with `{command} search \"<what you need>\"` or see them all with `{command} list`"
                    );
                }
                (Reach::Cli, true) => {
                    let _ = write!(
                        line,
                        "search with `{command} search \"<what you need>\"`, or run `{command} list` to see every namespace, then `{command} list --namespace <name>`"
                    );
                }
                (Reach::Cli, false) => {
                    let _ = write!(
                        line,
                        "search with `{command} search \"<what you need>\"` or list a namespace with `{command} list --namespace <name>`"
                    );
                    if !self.by_name(plan) {
                        line.push_str(
                            ", or open the namespace folder and read the SKILL.md files in it",
                        );
                    }
                }
                (Reach::Mcp, _) => line.push_str(
                    "call the `search_skills` tool with what you need, then `read_skill` with its name",
                ),
            }
            line.push('.');
        }
        if hidden.name_only {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str("Skills listed by name alone say what they do in their files.");
        }
        if hidden.shortened {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(
                "Descriptions ending in … are shortened; the skill's file has the full text.",
            );
        }
        Some(line)
    }

    /// A namespace's description as `plan` shows it.
    fn group_description<'g>(
        &self,
        description: &'g str,
        plan: &Plan,
    ) -> std::borrow::Cow<'g, str> {
        shorten(
            description,
            plan.cap.unwrap_or(usize::MAX).max(MIN_DESCRIPTION_CHARS),
        )
        .0
    }

    /// The directory text of `plan` (Markdown, AGENTS.md or XML).
    pub(super) fn compose(&self, plan: &Plan) -> String {
        let mut text = String::with_capacity(256 + plan.named.min(self.entries.len()) * 96);
        let hidden = self.hidden(plan);
        if self.text_format == Format::Xml {
            self.compose_xml(plan, &hidden, &mut text);
            return text;
        }
        self.open(&mut text);
        // With nothing listed the instructions have nothing to refer to:
        // the closing line alone says how to reach the skills.
        if plan.named > 0 {
            text.push_str(&self.intro(plan));
        }
        let headings = self.groups.len() > 1
            || self.groups.first().is_some_and(|g| !g.label.is_empty())
            || hidden.skills > 0;
        let mut others = false;
        for group in &self.groups {
            if group.heading_rank >= plan.headed {
                others |= group.entries.iter().any(|&i| self.is_named(i, plan));
                continue;
            }
            if headings {
                let label = if group.label.is_empty() {
                    "Top level"
                } else {
                    &group.label
                };
                let _ = write!(text, "\n### {label}");
                if !group.description.is_empty() {
                    let _ = write!(
                        text,
                        ": {}",
                        self.group_description(&group.description, plan)
                    );
                }
                let count = group.entries.len();
                let named = group
                    .entries
                    .iter()
                    .filter(|&&i| self.is_named(i, plan))
                    .count();
                if named < count {
                    let noun = if count == 1 { "skill" } else { "skills" };
                    if named == 0 {
                        let _ = write!(text, " ({count} {noun}, not listed");
                        if let (Some(path), false) = (&group.path, self.by_name(plan)) {
                            let _ = write!(text, "; folder `{path}`");
                        }
                        text.push(')');
                    } else {
                        let _ = write!(text, " ({count} {noun}, {named} listed)");
                    }
                }
            }
            text.push('\n');
            for &i in &group.entries {
                if self.is_named(i, plan) {
                    self.entry_line(&mut text, &self.entries[i], plan);
                }
            }
        }
        if others {
            if plan.headed > 0 {
                text.push_str("\n### Other namespaces\n");
            } else {
                text.push('\n');
            }
            for group in &self.groups {
                if group.heading_rank < plan.headed {
                    continue;
                }
                for &i in &group.entries {
                    if self.is_named(i, plan) {
                        self.entry_line(&mut text, &self.entries[i], plan);
                    }
                }
            }
        }
        if let Some(line) = self.reach_line(plan, &hidden) {
            if plan.named > 0 || plan.headed > 0 {
                text.push('\n');
            }
            let _ = writeln!(text, "{line}");
        }
        self.close(&mut text);
        text
    }

    fn xml_entry(&self, text: &mut String, entry: &Entry<'_>, plan: &Plan) {
        let _ = write!(
            text,
            "<skill>\n<name>{}</name>\n",
            escape_xml(&entry.skill.id)
        );
        if let Some(description) = self.shown_description(entry, plan) {
            let _ = writeln!(
                text,
                "<description>{}</description>",
                escape_xml(&description)
            );
        }
        if let Some(path) = self.shown_path(entry, plan) {
            let _ = writeln!(text, "<location>{}</location>", escape_xml(path));
        }
        text.push_str("</skill>\n");
    }

    fn compose_xml(&self, plan: &Plan, hidden: &Hidden, text: &mut String) {
        text.push_str("<available_skills>\n");
        if plan.named > 0 && self.options.paths != PathStyle::None {
            match (plan.paths, &self.common_folder, self.options.reach) {
                (PathForm::Rooted, Some(folder), _) => {
                    let _ = writeln!(
                        text,
                        "<note>Locations are relative to {}</note>",
                        escape_xml(folder)
                    );
                }
                (PathForm::Dropped, _, Reach::Cli) => {
                    let _ = writeln!(
                        text,
                        "<note>Read a skill with `{} read &lt;name&gt;`.</note>",
                        escape_xml(&self.command)
                    );
                }
                _ => {}
            }
        }
        let mut others = false;
        for group in &self.groups {
            if group.heading_rank >= plan.headed {
                others |= group.entries.iter().any(|&i| self.is_named(i, plan));
                continue;
            }
            let named = group
                .entries
                .iter()
                .filter(|&&i| self.is_named(i, plan))
                .count();
            if named < group.entries.len() {
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
                if named > 0 {
                    let _ = write!(text, " listed=\"{named}\"");
                }
                if let (Some(path), false) = (&group.path, self.by_name(plan)) {
                    let _ = write!(text, " location=\"{}\"", escape_xml(path));
                }
                let description = shorten(
                    &group.description,
                    MIN_DESCRIPTION_CHARS.max(plan.cap.unwrap_or(0)),
                )
                .0;
                let _ = writeln!(text, ">{}</namespace>", escape_xml(&description));
            }
            for &i in &group.entries {
                if self.is_named(i, plan) {
                    self.xml_entry(text, &self.entries[i], plan);
                }
            }
        }
        if others {
            for group in &self.groups {
                if group.heading_rank < plan.headed {
                    continue;
                }
                for &i in &group.entries {
                    if self.is_named(i, plan) {
                        self.xml_entry(text, &self.entries[i], plan);
                    }
                }
            }
        }
        if let Some(line) = self.reach_line(plan, hidden) {
            let _ = writeln!(text, "<note>{}</note>", escape_xml(&line));
        }
        text.push_str("</available_skills>\n");
    }
}
