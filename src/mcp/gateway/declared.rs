//! A read skill's declared tools (`crate::declared`), appended to the
//! session's tool list: each tool it names, or the first [`MAX_LIMIT`]
//! tools of a server it names whole, loaded like `tool_search` loads
//! (appended at the end, never reordering what is listed). What cannot be
//! loaded is said in words: a server that is offered but not installed
//! (or configured but disabled) comes with the `request_install` call that
//! would add it, and is remembered: when that install is accepted, the
//! tools the skill declares of it are appended too
//! ([`Gateway::load_wanted`]).

use super::{definition, lock, Gateway, MAX_LIMIT, REQUEST_INSTALL};
use crate::declared::{resolve, Resolved};
use crate::entry::Skill;
use crate::search::Searchable;

/// What loading one skill's declarations did.
#[derive(Default)]
struct Loading {
    /// Newly appended: (callable name, id).
    added: Vec<(String, String)>,
    /// Listed before: (callable name, id).
    already: Vec<(String, String)>,
    /// What could not be loaded, in words.
    problems: Vec<String>,
    /// Pinned tools were appended first (the list grew by them).
    pinned_grew: bool,
}

impl Gateway {
    /// Load `skill`'s declared tools; a note for the agent (`None` when it
    /// declares none) and whether the tool list grew.
    pub fn load_declared(
        &self,
        skill: &Skill,
        searchable: &Searchable,
        reserved: &dyn Fn(&str) -> bool,
    ) -> (Option<String>, bool) {
        if skill.declared_tools.is_empty() {
            return (None, false);
        }
        let loading = self.load(skill, searchable, reserved, None);
        let grew = !loading.added.is_empty() || loading.pinned_grew;
        let mut note = String::from("This skill uses MCP tools.");
        if !loading.added.is_empty() {
            note.push_str(&format!(
                " Added to the end of your tool list: {}.",
                named(&loading.added)
            ));
        }
        if !loading.already.is_empty() {
            note.push_str(&format!(
                " Already in your tool list: {}.",
                named(&loading.already)
            ));
        }
        if grew || !loading.already.is_empty() {
            note.push_str(" If your tool list does not refresh, run them with `call_tool`.");
        }
        for problem in loading.problems {
            note.push_str(&format!(" Note: {problem}."));
        }
        (Some(note), grew)
    }

    /// After the server `server` was installed or enabled: append the
    /// tools of it that the skills read in this session declare (those
    /// whose reading found it missing). The callable names appended.
    pub fn load_wanted(
        &self,
        server: &str,
        skills: &crate::catalog::Catalog,
        searchable: &Searchable,
        reserved: &dyn Fn(&str) -> bool,
    ) -> Vec<String> {
        let wanting = lock(&self.wanted).remove(server).unwrap_or_default();
        let mut added = Vec::new();
        for name in wanting {
            if let Some(skill) = skills.get(&name) {
                let loading = self.load(skill, searchable, reserved, Some(server));
                added.extend(loading.added.into_iter().map(|(name, _)| name));
            }
        }
        added
    }

    /// Load `skill`'s declarations (only those of `only`, when given).
    fn load(
        &self,
        skill: &Skill,
        searchable: &Searchable,
        reserved: &dyn Fn(&str) -> bool,
        only: Option<&str>,
    ) -> Loading {
        let catalog = searchable.catalog();
        let mut out = Loading::default();
        let mut loaded = lock(&self.loaded);
        // Pinned tools lead whatever a skill appends.
        out.pinned_grew = self.pin_into(&mut loaded, catalog, reserved);
        for (declared, resolved) in resolve(skill, catalog) {
            if only.is_some_and(|s| s != declared.server) {
                continue;
            }
            match resolved {
                Resolved::Tools(ids) => {
                    let more = ids.len().saturating_sub(MAX_LIMIT);
                    for id in ids.iter().take(MAX_LIMIT) {
                        let Some((server, tool)) = catalog.tool_entry(id) else {
                            continue;
                        };
                        let (entry, new) = loaded.load(
                            &tool.id,
                            &server.name,
                            &tool.name,
                            definition(server, tool, false),
                            reserved,
                        );
                        let named = (entry.name.clone(), tool.id.clone());
                        if new {
                            out.added.push(named);
                        } else {
                            out.already.push(named);
                        }
                    }
                    if more > 0 {
                        out.problems.push(format!(
                            "`{}` has {more} more tools: find them with `tool_search`",
                            declared.server
                        ));
                    }
                }
                Resolved::NoSuchTool(similar) => out.problems.push(format!(
                    "`{}` is not a tool of `{}`{}",
                    declared.id(),
                    declared.server,
                    if similar.is_empty() {
                        String::new()
                    } else {
                        format!(" (similar: {})", similar.join(", "))
                    }
                )),
                Resolved::NoSuchServer => {
                    let server = &declared.server;
                    let action = if self.offered_server(server).is_some() {
                        Some(("offered but not installed", "install"))
                    } else if lock(&self.disabled).contains_key(server) {
                        Some(("configured but disabled", "enable"))
                    } else {
                        None
                    };
                    match action {
                        Some((state, action)) => {
                            lock(&self.wanted)
                                .entry(server.clone())
                                .or_default()
                                .insert(skill.name.clone());
                            out.problems.push(format!(
                                "it needs the MCP server `{server}`, which is {state}: if the task needs it, call `{REQUEST_INSTALL}` with type `mcp_server`, action `{action}`, id `{server}` and a reason that names the skill `{skill}`; once the user agrees, the skill's tools of it are added to your tool list",
                                skill = skill.name
                            ));
                        }
                        None => out.problems.push(format!(
                            "it names the MCP server `{server}`, which skilldex does not serve here"
                        )),
                    }
                }
            }
        }
        out
    }
}

/// "`callable` (id)", joined.
fn named(tools: &[(String, String)]) -> String {
    tools
        .iter()
        .map(|(name, id)| format!("`{name}` ({id})"))
        .collect::<Vec<_>>()
        .join(", ")
}
