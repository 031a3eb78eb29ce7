//! `skill://index.json`: the Agent Skills discovery document, for hosts
//! built on the pre-final MCP Skills extension (Claude Code's MCP-skills
//! loader, Claude desktop, Microsoft's agent framework), which read it to
//! learn a server's skills in one request (as GitHub's MCP server serves
//! it beside SEP-2640, github/github-mcp-server#2762).
//!
//! The format is the Agent Skills Discovery RFC v0.2.0
//! (<https://github.com/cloudflare/agent-skills-discovery-rfc>, "Discovery
//! Index"; schema `https://schemas.agentskills.io/discovery/0.2.0/schema.json`):
//! `{"$schema", "skills": [{name, type: "skill-md", description, url,
//! digest}]}`, where `url` is the skill's `skill://…/SKILL.md` URI (the RFC
//! resolves it against the index's own URI) and `digest` the `sha256:` of
//! that file's exact bytes, as the manifests of `skills/get` give it. It
//! lists the skills the extension serves (`SkillIndex`), in catalog order;
//! one whose `SKILL.md` cannot be read now is left out, as from
//! `skills/list`.

use super::skills::{skill_uri, SkillIndex};
use crate::catalog::Catalog;
use crate::contain::{Folder, OpenedKind};
use serde_json::{json, Value};

/// The URI of the discovery document.
pub const INDEX_URI: &str = "skill://index.json";
/// The schema the document names.
pub const SCHEMA: &str = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

/// The discovery document of the skills `index` serves, as pretty JSON.
pub fn index_json(catalog: &Catalog, index: &SkillIndex) -> String {
    let skills = catalog.skills();
    let entries: Vec<Value> = index
        .entries
        .iter()
        .filter_map(|(_, position)| {
            let skill = &skills[*position];
            let bytes = skill_md_bytes(catalog, skill)?;
            Some(json!({
                "name": skill.name,
                "type": "skill-md",
                "description": skill.description,
                "url": skill_uri(skill),
                "digest": rmcp::model::sha256_digest(&bytes),
            }))
        })
        .collect();
    let document = json!({"$schema": SCHEMA, "skills": entries});
    serde_json::to_string_pretty(&document).unwrap_or_default()
}

/// The bytes of `skill`'s `SKILL.md`, read through the boundary.
fn skill_md_bytes(catalog: &Catalog, skill: &crate::entry::Skill) -> Option<Vec<u8>> {
    let folder = Folder::open(skill.dir()).ok()?;
    let path = skill.dir().join("SKILL.md");
    let opened = folder
        .open_skill_file("SKILL.md", catalog.root_of(skill), &path)
        .ok()?;
    if opened.kind != OpenedKind::File || opened.len > super::skills::MAX_BYTES {
        return None;
    }
    crate::contain::read_at_most(opened.file, super::skills::MAX_BYTES).ok()
}
