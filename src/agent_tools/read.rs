//! `read_skill`: a skill's body, a section, a range of lines or one of its
//! files, cut with the call that continues; errors worded for a model.

use super::{at_least_one, too_long, ArgumentError, Arguments, ToolAnswer, READ_MAX_TOKENS};
use crate::catalog::Catalog;
use crate::query::{self, ReadError};
use serde_json::json;

/// The skill and file a `skill://` URI passed as `read_skill`'s `name`
/// stands for, as (skill id, path inside it; empty for SKILL.md).
fn skill_of_uri(
    catalog: &Catalog,
    uri: &str,
    locate: &dyn Fn(&str) -> Option<(usize, String)>,
) -> Result<(String, String), ToolAnswer> {
    match locate(uri) {
        Some((index, relative)) => {
            let relative = if relative == "SKILL.md" {
                String::new()
            } else {
                relative
            };
            Ok((catalog.skills()[index].id.clone(), relative))
        }
        None => Err(ToolAnswer::error(format!(
            "`{uri}` is not the URI of a skill this server serves — pass the skill's name as the directory or search_skills shows it (or the `uri` of a search_skills hit as it was given)"
        ))),
    }
}

/// Answer `read_skill`. `locate` maps a `skill://` URI to the skill (an
/// index into `catalog.skills()`) and the file inside it.
pub fn read_skill(
    catalog: &Catalog,
    arguments: &Arguments<'_>,
    locate: &dyn Fn(&str) -> Option<(usize, String)>,
) -> Result<ToolAnswer, ArgumentError> {
    let name = arguments.required_string("name")?;
    let mut path = arguments.string("path")?;
    // A blank section names no heading: absent, as strict callers that
    // must fill every argument send it.
    let section = arguments
        .string("section")?
        .filter(|s| !s.trim().is_empty());
    let start = arguments.whole_number("start_line")?;
    let end = arguments.whole_number("end_line")?;
    let max_tokens = arguments.whole_number("max_tokens")?;
    for (argument, value) in [("name", Some(name)), ("path", path), ("section", section)] {
        if let Some(answer) = value.and_then(|v| too_long(argument, v)) {
            return Ok(answer);
        }
    }
    if query::read::is_blank_target(name) {
        return Ok(ToolAnswer::error(
            "`name` is empty — pass a skill name from the directory or from search_skills",
        ));
    }
    // A skill:// URI (search_skills hands them out) names the skill, and
    // maybe one of its files.
    let owned;
    let name = if name.trim().starts_with("skill://") {
        let (id, file) = match skill_of_uri(catalog, name.trim(), locate) {
            Ok(found) => found,
            Err(answer) => return Ok(answer),
        };
        if !file.is_empty() {
            if path.is_some_and(|p| !p.trim().is_empty()) {
                return Ok(ToolAnswer::error(format!(
                    "`name` is the URI of the file `{file}` of skill `{id}` and `path` names another — pass the file in one of them"
                )));
            }
            owned = file;
            path = Some(owned.as_str());
        }
        id
    } else {
        name.to_string()
    };
    let name = name.as_str();
    if section.is_some() && (start.is_some() || end.is_some()) {
        return Ok(ToolAnswer::error(
            "pass either `section` or `start_line`/`end_line`, not both",
        ));
    }
    let lines_from_one = |argument: &str, value: Option<i64>| {
        at_least_one(argument, value, "line numbers start at 1")
    };
    let (start, end) = match (
        lines_from_one("start_line", start),
        lines_from_one("end_line", end),
    ) {
        (Ok(start), Ok(end)) => (start, end),
        (Err(answer), _) | (_, Err(answer)) => return Ok(answer),
    };
    let max_tokens = match at_least_one(
        "max_tokens",
        max_tokens,
        "leave it out for the default (5,000)",
    ) {
        Ok(max_tokens) => max_tokens.map_or(0, |n| n.min(READ_MAX_TOKENS)),
        Err(answer) => return Ok(answer),
    };
    if let (Some(a), Some(b)) = (start, end) {
        if a > b {
            return Ok(ToolAnswer::error(format!(
                "start_line {a} is after end_line {b}"
            )));
        }
    }
    let path = match path.map(|p| p.trim()).filter(|p| !p.is_empty()) {
        Some(path) => {
            if path.starts_with('/') || path.contains('\\') && path.contains(':') {
                return Ok(ToolAnswer::error(format!(
                    "`{path}` is an absolute path; `path` is relative to the skill folder (for example `references/forms.md`)"
                )));
            }
            path.to_string()
        }
        None => String::new(),
    };
    let lines = (start.is_some() || end.is_some()).then_some(query::LineRange { start, end });
    let request = query::ReadRequest {
        target: name.to_string(),
        path: Some(path),
        raw: false,
        section: section.map(str::to_string),
        lines,
        max_tokens,
    };
    let result = match query::read(catalog, &request) {
        Ok(result) => result,
        Err(error) => return Ok(ToolAnswer::error(read_error_text(&error))),
    };
    let mut text = String::with_capacity(result.content.len() + 256);
    text.push_str(&format!("skill {} — {}", result.skill, result.path));
    if result.start_line > result.end_line {
        text.push_str(" (nothing to show: the file ends here)\n");
    } else {
        text.push_str(&format!(
            ", lines {}–{} of {}\n",
            result.start_line, result.end_line, result.total_lines
        ));
    }
    if result.path == "SKILL.md" {
        if let Some(files) = result.files_line(40) {
            text.push_str(&format!("files: {files} — read one with `path`\n"));
        }
    }
    if let Some(note) = &result.note {
        // A long line cut by the cap: more of it fits in a larger one.
        let more = if note.contains("bytes are shown") && max_tokens < READ_MAX_TOKENS {
            " — pass a larger max_tokens (up to 50,000) to see more of it"
        } else {
            ""
        };
        text.push_str(&format!("note: {note}{more}\n"));
    }
    text.push('\n');
    text.push_str(&result.content);
    if !result.content.ends_with('\n') && !result.content.is_empty() {
        text.push('\n');
    }
    if let Some(next) = &result.next {
        // `A:` continues to the end of the file, `A:B` inside a section or range.
        let (next_start, next_end) = next.split_once(':').unwrap_or((next, ""));
        let mut call =
            json!({"name": result.skill, "start_line": next_start.parse::<u64>().unwrap_or(0)});
        if let Ok(end) = next_end.parse::<u64>() {
            call["end_line"] = end.into();
        }
        if result.path != "SKILL.md" {
            call["path"] = result.path.clone().into();
        }
        if max_tokens != 0 {
            call["max_tokens"] = max_tokens.into();
        }
        text.push_str(&format!(
            "\n[cut at about {} tokens; continue with read_skill {call}]\n",
            crate::rules::thousands(if max_tokens == 0 {
                query::read::DEFAULT_MAX_TOKENS
            } else {
                max_tokens
            })
        ));
    }
    Ok(ToolAnswer::ok(text))
}

fn read_error_text(error: &ReadError) -> String {
    match error {
        ReadError::Escapes { .. } => format!(
            "{}; paths may not leave the skill folder",
            error.for_client()
        ),
        ReadError::Lines { .. } => format!("{error} — pick lines inside the file"),
        ReadError::NotMarkdown { .. } => error
            .to_string()
            .replace("(`--lines A:B`)", "(start_line and end_line)"),
        ReadError::UnknownSkill { .. } | ReadError::ParentInName { .. } => {
            // The library's advice names the CLI; a model has tools.
            error.to_string().replace(
                " — list the skills with `skilldex list`",
                " — find skills with search_skills",
            )
        }
        ReadError::Section { .. } => error
            .section_message_with(&|candidate| {
                if candidate.slug_selects {
                    format!("section `{}`", candidate.slug)
                } else {
                    format!(
                        "start_line {}, end_line {}",
                        candidate.line, candidate.end_line
                    )
                }
            })
            .unwrap_or_else(|| error.to_string()),
        _ => error.to_string(),
    }
}
