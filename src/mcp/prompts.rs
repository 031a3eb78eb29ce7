//! Every skill as an MCP prompt: `prompts/list` names them (paged like
//! `resources/list`), `prompts/get` gives the skill's instructions as one
//! user message. Claude Code shows a server's prompts as slash commands
//! (`/mcp__skilldex__<skill>`), so a user can start a task with a skill
//! the way they would with one of their own.
//!
//! A prompt's name is the skill's id (the name, or `namespace/name` when
//! another skill holds the name). Arguments come from the front matter:
//! an `arguments` list (names, or `{name, description, required}`), else
//! one optional `arguments` argument when the skill has an `argument-hint`
//! (Claude Code's field); else none. The values replace `$ARGUMENTS` in the
//! instructions, or are added after them as `ARGUMENTS: …` — what Claude
//! Code does with its own skills.

use super::skills;
use crate::catalog::Catalog;
use crate::entry::Skill;
use rmcp::model::{
    GetPromptResult, JsonObject, ListPromptsResult, Prompt, PromptArgument, PromptMessage, Role,
};
use serde_json::Value;

/// Prompts per `prompts/list` page (as resources).
pub const PAGE_SIZE: usize = 1_000;
/// The longest instructions a prompt carries, in tokens (as `read_skill`
/// at most); the rest is read with `read_skill`.
const MAX_TOKENS: usize = crate::agent_tools::READ_MAX_TOKENS;

/// Why `prompts/get` cannot answer; the message says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PromptError(pub String);

/// The arguments `skill` declares.
pub fn arguments_of(skill: &Skill) -> Vec<PromptArgument> {
    if let Some(Value::Array(declared)) = skill.extra.get("arguments") {
        return declared
            .iter()
            .filter_map(|entry| match entry {
                Value::String(name) if !name.trim().is_empty() => {
                    Some(PromptArgument::new(name.trim()))
                }
                Value::Object(fields) => {
                    let name = fields.get("name")?.as_str()?.trim();
                    if name.is_empty() {
                        return None;
                    }
                    let mut argument = PromptArgument::new(name);
                    if let Some(description) = fields.get("description").and_then(Value::as_str) {
                        argument = argument.with_description(description);
                    }
                    if let Some(required) = fields.get("required").and_then(Value::as_bool) {
                        argument = argument.with_required(required);
                    }
                    Some(argument)
                }
                _ => None,
            })
            .collect();
    }
    match skill.extra.get("argument-hint").and_then(Value::as_str) {
        Some(hint) if !hint.trim().is_empty() => vec![PromptArgument::new("arguments")
            .with_description(format!("What to pass, as {}", hint.trim()))
            .with_required(false)],
        _ => Vec::new(),
    }
}

fn prompt_of(skill: &Skill) -> Prompt {
    let arguments = arguments_of(skill);
    let mut prompt = Prompt::new(
        skill.id.clone(),
        Some(skill.description.clone()),
        (!arguments.is_empty()).then_some(arguments),
    );
    prompt.title = Some(skill.name.clone());
    prompt
}

/// One page of prompts, after `cursor` (the `nextCursor` of the page
/// before, which names the last skill served, as for resources).
pub fn list(catalog: &Catalog, cursor: Option<&str>) -> Result<ListPromptsResult, String> {
    let skills = catalog.skills();
    let start = match cursor {
        None => 0,
        Some(cursor) => {
            let (namespace, id) = skills::decode_cursor(cursor).ok_or_else(|| {
                let shown: String = cursor.chars().take(64).collect();
                format!("invalid cursor `{shown}`: pass the `nextCursor` of the previous page as it was given, or no cursor to start from the first page")
            })?;
            skills.partition_point(|skill| {
                (skill.namespace.as_str(), skill.id.as_str()) <= (namespace.as_str(), id.as_str())
            })
        }
    };
    let end = skills.len().min(start + PAGE_SIZE);
    let page = skills.get(start..end).unwrap_or(&[]);
    let mut result = ListPromptsResult::with_all_items(page.iter().map(|s| prompt_of(s)).collect());
    if end < skills.len() && end > start {
        result.next_cursor = Some(skills::cursor_after(&skills[end - 1]));
    }
    Ok(result)
}

/// The prompt `name`: the skill's instructions as a user message, with
/// the values of `arguments` in them.
pub fn get(
    catalog: &Catalog,
    name: &str,
    arguments: Option<&JsonObject>,
) -> Result<GetPromptResult, PromptError> {
    let Some(skill) = catalog.get(name) else {
        let similar = catalog.similar(name, 3);
        let shown: String = name.chars().take(100).collect();
        return Err(PromptError(format!(
            "no prompt named `{shown}`{} — prompts/list names one prompt per skill",
            if similar.is_empty() {
                String::new()
            } else {
                format!(" (did you mean {}?)", similar.join(", "))
            }
        )));
    };
    let request = crate::query::ReadRequest {
        target: skill.id.clone(),
        path: Some(String::new()),
        raw: false,
        section: None,
        lines: None,
        max_tokens: MAX_TOKENS,
    };
    let read = crate::query::read(catalog, &request)
        .map_err(|e| PromptError(format!("the skill `{}` cannot be read: {e}", skill.id)))?;
    let mut text = format!(
        "Use the skill `{id}`: follow its instructions below. Open the files it mentions with read_skill (name `{id}`, path).\n\n",
        id = skill.id
    );
    let body = read.content.trim_matches('\n');
    let values = argument_values(skill, arguments);
    match values {
        Some(values) if body.contains("$ARGUMENTS") => {
            text.push_str(&body.replace("$ARGUMENTS", &values));
        }
        Some(values) => {
            text.push_str(body);
            text.push_str("\n\nARGUMENTS: ");
            text.push_str(&values);
        }
        None => text.push_str(body),
    }
    text.push('\n');
    if let Some(next) = &read.next {
        let start = next.split(':').next().unwrap_or(next);
        text.push_str(&format!(
            "\n[cut at about {} tokens; read the rest with read_skill {{\"name\": \"{}\", \"start_line\": {start}}}]\n",
            crate::text::thousands(MAX_TOKENS),
            skill.id
        ));
    }
    Ok(
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
            .with_description(skill.description.clone()),
    )
}

/// The values passed for `skill`'s arguments, in the order it declares
/// them (then any others, by name), joined by spaces; `None` when none
/// has a value.
fn argument_values(skill: &Skill, arguments: Option<&JsonObject>) -> Option<String> {
    let arguments = arguments?;
    let text = |value: &Value| match value {
        Value::String(s) => s.trim().to_string(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    let declared: Vec<String> = arguments_of(skill).into_iter().map(|a| a.name).collect();
    let mut values: Vec<String> = declared
        .iter()
        .filter_map(|name| arguments.get(name).map(text))
        .collect();
    values.extend(
        arguments
            .iter()
            .filter(|(name, _)| !declared.contains(name))
            .map(|(_, value)| text(value)),
    );
    values.retain(|v| !v.is_empty());
    (!values.is_empty()).then(|| values.join(" "))
}
