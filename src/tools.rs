//! The tools skilldex offers a model (`search_skills`, `read_skill`,
//! `grep_skills`, `request_skill_enable`): their fixed names, descriptions
//! and input schemas, the checking of arguments, and the answers computed
//! from one catalog snapshot.
//!
//! Nothing here knows MCP: the server in `mcp/` wraps these answers in its
//! protocol types, and `skilldex tools` prints the definitions. Two kinds of
//! failure are kept apart on purpose. A request that does not fit the
//! schema (a missing or mistyped argument, an unknown tool) is an
//! `ArgumentError`, which a protocol answers as a malformed request. A
//! request that fits but cannot be served (unknown skill, bad regex, a path
//! outside the skill) is a `ToolAnswer` with `is_error`, worded for the
//! model to act on.

use crate::catalog::Catalog;
use crate::query::{self, GrepError, ReadError};
use crate::text::plural;
use serde_json::{json, Map, Value};

pub const SEARCH_SKILLS: &str = "search_skills";
pub const READ_SKILL: &str = "read_skill";
pub const GREP_SKILLS: &str = "grep_skills";
pub const REQUEST_SKILL_ENABLE: &str = "request_skill_enable";

/// Default and largest `limit` of `search_skills`.
pub const SEARCH_DEFAULT_LIMIT: usize = 8;
pub const SEARCH_MAX_LIMIT: usize = 50;
/// Default and largest `max_results` of `grep_skills`.
pub const GREP_DEFAULT_MAX_RESULTS: usize = 200;
pub const GREP_MAX_RESULTS: usize = 1_000;
/// The largest `max_tokens` a `read_skill` call may ask for.
pub const READ_MAX_TOKENS: usize = 50_000;
/// A grep answer shows at most this many characters of one line.
pub const GREP_MAX_LINE_CHARS: usize = 300;
/// Longest accepted text of a name, path, section, query or pattern. Longer
/// text cannot name anything real and would only cost time.
pub const MAX_ARGUMENT_BYTES: usize = 4_096;

/// One tool as published.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    pub name: &'static str,
    pub description: &'static str,
    /// A JSON Schema of the `schema` subset, keys sorted.
    pub input_schema: Value,
}

/// Every tool, in a fixed order.
pub fn definitions() -> Vec<ToolDefinition> {
    let string = |description: &str| json!({"type": "string", "description": description});
    let integer = |description: &str| json!({"type": "integer", "description": description});
    let boolean = |description: &str| json!({"type": "boolean", "description": description});
    let object = |properties: Value, required: &[&str]| {
        crate::schema::sorted(json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        }))
    };
    vec![
        ToolDefinition {
            name: SEARCH_SKILLS,
            description: "Find skills for a task. Searches skill names, descriptions, namespaces, headings and the first paragraph of each skill and returns the best matches (name, namespace, description, path, confidence), best first. `confidence` is `high` when a hit matches what the task is about and `low` when it is only the closest there is: then `advice` says so and `unmatched_terms` names the words no skill has; read a description before relying on a low hit. `no_match` is true only when no skill shares a meaningful word with the query. Use `read_skill` with a hit's name to load it.",
            input_schema: object(
                json!({
                    "query": string("What you need to do, in a few words (for example `fill a pdf form`), or `select:name1,name2` for exactly those skills."),
                    "limit": integer("Most hits to return (default 8, at most 50)."),
                }),
                &["query"],
            ),
        },
        ToolDefinition {
            name: READ_SKILL,
            description: "Read a skill: its instructions (the body of SKILL.md), one section of it, a range of lines, or one of the skill's other files. Read a skill before doing the task it describes. Long answers are cut at about 5,000 tokens and end with the start_line (and, inside a section or range, the end_line) to continue with.",
            input_schema: object(
                json!({
                    "name": string("The skill's name (or `namespace/name` when the directory shows it that way), or a skill:// URI from search_skills."),
                    "path": string("A file inside the skill folder, relative to it (for example `references/forms.md`); default SKILL.md."),
                    "section": string("Only the section under this heading (its text or slug)."),
                    "start_line": integer("First line to read (1-based, inclusive); reads the whole file from there when end_line is absent."),
                    "end_line": integer("Last line to read (1-based, inclusive)."),
                    "max_tokens": integer("Cut the answer at about this many tokens (default 5,000, at most 50,000); raise it to see more of a very long line."),
                }),
                &["name"],
            ),
        },
        ToolDefinition {
            name: GREP_SKILLS,
            description: "Search the text of every skill file (or of one skill or namespace) for a regular expression or a fixed string; answers `skill/path:line: text` lines in a fixed order, at most max_results matches (default 200), and says when it cut.",
            input_schema: object(
                json!({
                    "pattern": string("A regular expression (Rust regex syntax), or plain text with fixed_strings."),
                    "skill": string("Only the files of this skill (name or `namespace/name`)."),
                    "namespace": string("Only the skills of this namespace and those below it (for example `dev`)."),
                    "fixed_strings": boolean("Treat the pattern as plain text, not a regex."),
                    "ignore_case": boolean("Match without regard to case."),
                    "max_results": integer("Most matching lines to return (default 200, at most 1000)."),
                }),
                &["pattern"],
            ),
        },
        ToolDefinition {
            name: REQUEST_SKILL_ENABLE,
            description: "Ask the user to enable a skill that exists but is disabled by configuration (reads of it say so). Call it only when that skill is clearly what the task needs; the user sees suggest_reason and decides. Answers {completed, user_confirmed, name}. IMPORTANT: do not call this tool in parallel with other tools.",
            input_schema: object(
                json!({
                    "name": string("The disabled skill's name."),
                    "suggest_reason": string("One sentence for the user: why this skill helps with the current task."),
                }),
                &["name", "suggest_reason"],
            ),
        },
    ]
}

/// The definitions as MCP `tools/list` entries.
pub fn mcp_json(definitions: &[ToolDefinition]) -> Value {
    Value::Array(
        definitions
            .iter()
            .map(|d| {
                json!({
                    "name": d.name,
                    "description": d.description,
                    "inputSchema": d.input_schema,
                })
            })
            .collect(),
    )
}

/// The definitions as OpenAI Responses API function tools.
pub fn openai_json(definitions: &[ToolDefinition]) -> Value {
    Value::Array(
        definitions
            .iter()
            .map(|d| {
                json!({
                    "type": "function",
                    "name": d.name,
                    "description": d.description,
                    "parameters": d.input_schema,
                    "strict": false,
                })
            })
            .collect(),
    )
}

/// The definitions as OpenAI function tools for strict function calling
/// (`"strict": true`): every property required, optional ones nullable,
/// every object closed (`schema::strict_schema`). The tools read `null` as
/// "not given", so a strict call means what it would without its nulls.
pub fn openai_strict_json(
    definitions: &[ToolDefinition],
) -> Result<Value, crate::schema::StrictError> {
    let mut tools = Vec::with_capacity(definitions.len());
    for d in definitions {
        tools.push(json!({
            "type": "function",
            "name": d.name,
            "description": d.description,
            "parameters": crate::schema::strict_schema(&d.input_schema)?,
            "strict": true,
        }));
    }
    Ok(Value::Array(tools))
}

/// A request that does not fit the tool's schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgumentError {
    #[error("no tool named `{0}` — the tools are search_skills, read_skill, grep_skills and request_skill_enable")]
    UnknownTool(String),
    #[error("{tool}: missing required argument `{argument}`")]
    Missing { tool: String, argument: String },
    #[error("{tool}: argument `{argument}` must be {expected}, not {found}")]
    Type {
        tool: String,
        argument: String,
        expected: &'static str,
        found: String,
    },
}

/// The argument names `tool`'s schema declares, in schema order; `None`
/// for a tool that does not exist.
fn known_arguments(tool: &str) -> Option<Vec<String>> {
    let definition = definitions().into_iter().find(|d| d.name == tool)?;
    Some(
        definition.input_schema["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default(),
    )
}

/// A sentence for the model about the arguments of a call that `tool` does
/// not know and ignored, when that matters: only an argument that looks
/// like a misspelling of a known one (`sectoin`, `startLine`) is named, with
/// the one it most likely meant. Arguments a host adds for itself
/// (`wait_for_previous`) pass without a word.
pub fn ignored_note(tool: &str, map: &Map<String, Value>) -> Option<String> {
    let known = known_arguments(tool)?;
    let folded = |name: &str| -> String {
        name.chars()
            .filter(|c| !matches!(c, '_' | '-'))
            .flat_map(char::to_lowercase)
            .collect()
    };
    let mut notes = Vec::new();
    for argument in map.keys().filter(|k| !known.contains(k)) {
        let key = folded(argument);
        // The closest known name, if it is close: the same letters but for
        // case and separators, or at most one edit in three letters (two at most).
        let meant = known
            .iter()
            .map(|name| (crate::text::edit_distance(&key, &folded(name)), name))
            .filter(|(distance, name)| *distance <= (name.chars().count() / 3).clamp(1, 2))
            .min_by_key(|(distance, name)| (*distance, name.len()))
            .map(|(_, name)| name);
        if let Some(meant) = meant {
            let shown: String = argument.chars().take(64).collect();
            notes.push(format!("ignored `{shown}`; did you mean `{meant}`?"));
        }
    }
    (!notes.is_empty()).then(|| {
        format!(
            "note: {} — the arguments of {tool} are {}",
            notes.join("; "),
            known.join(", ")
        )
    })
}

/// The answer to a tool call: text for the model, and whether it reports a
/// failure the model should act on.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolAnswer {
    pub text: String,
    pub is_error: bool,
}

impl ToolAnswer {
    pub fn ok(text: impl Into<String>) -> Self {
        ToolAnswer {
            text: text.into(),
            is_error: false,
        }
    }

    pub fn error(text: impl Into<String>) -> Self {
        ToolAnswer {
            text: text.into(),
            is_error: true,
        }
    }
}

/// Checked access to one call's arguments.
pub struct Arguments<'a> {
    tool: &'a str,
    map: &'a Map<String, Value>,
}

impl<'a> Arguments<'a> {
    /// The arguments of a call to `tool`. Arguments the tool's schema does
    /// not name are accepted and ignored: hosts add their own (Gemini CLI
    /// sends `wait_for_previous: true` with every call), and refusing them
    /// would fail every call of such a host. `ignored_note` tells the
    /// model when one of them looks like a misspelt argument.
    pub fn new(tool: &'a str, map: &'a Map<String, Value>) -> Result<Self, ArgumentError> {
        known_arguments(tool).ok_or_else(|| ArgumentError::UnknownTool(tool.to_string()))?;
        Ok(Arguments { tool, map })
    }

    fn type_error(&self, argument: &str, expected: &'static str, found: &Value) -> ArgumentError {
        let found = match found {
            Value::Null => "null".to_string(),
            Value::Bool(_) => "a boolean".to_string(),
            Value::Number(n) => format!("the number {n}"),
            Value::String(_) => "a string".to_string(),
            Value::Array(_) => "a list".to_string(),
            Value::Object(_) => "an object".to_string(),
        };
        ArgumentError::Type {
            tool: self.tool.to_string(),
            argument: argument.to_string(),
            expected,
            found,
        }
    }

    pub fn string(&self, argument: &str) -> Result<Option<&'a str>, ArgumentError> {
        match self.map.get(argument) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(self.type_error(argument, "a string", other)),
        }
    }

    pub fn required_string(&self, argument: &str) -> Result<&'a str, ArgumentError> {
        self.string(argument)?
            .ok_or_else(|| ArgumentError::Missing {
                tool: self.tool.to_string(),
                argument: argument.to_string(),
            })
    }

    /// A whole number (JSON integers, or floats with no fraction), held at
    /// the bounds of `i64`. Whether it is in range is the tool's business
    /// (see `at_least_one`): the schema says `integer`, so -3 fits it.
    pub fn whole_number(&self, argument: &str) -> Result<Option<i64>, ArgumentError> {
        match self.map.get(argument) {
            None | Some(Value::Null) => Ok(None),
            Some(value @ Value::Number(n)) => {
                let whole = n
                    .as_i64()
                    .or_else(|| n.as_u64().map(|_| i64::MAX))
                    .or_else(|| {
                        // `as` saturates at the bounds of i64.
                        n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64)
                    });
                match whole {
                    Some(v) => Ok(Some(v)),
                    None => Err(self.type_error(argument, "a whole number", value)),
                }
            }
            Some(other) => Err(self.type_error(argument, "a whole number", other)),
        }
    }

    pub fn boolean(&self, argument: &str) -> Result<bool, ArgumentError> {
        match self.map.get(argument) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(self.type_error(argument, "true or false", other)),
        }
    }
}

/// A count or line number: `Err` (a model-visible refusal naming the
/// value, followed by `advice`) when it is below 1.
fn at_least_one(
    argument: &str,
    value: Option<i64>,
    advice: &str,
) -> Result<Option<usize>, ToolAnswer> {
    match value {
        None => Ok(None),
        Some(v) if v >= 1 => Ok(Some(usize::try_from(v).unwrap_or(usize::MAX))),
        Some(v) => Err(ToolAnswer::error(format!(
            "`{argument}` is {v}; it must be at least 1 — {advice}"
        ))),
    }
}

/// A model-visible refusal when a text argument is too long to be real.
fn too_long(argument: &str, text: &str) -> Option<ToolAnswer> {
    (text.len() > MAX_ARGUMENT_BYTES).then(|| {
        ToolAnswer::error(format!(
            "`{argument}` is {} bytes; the limit is {MAX_ARGUMENT_BYTES} — pass a shorter value",
            text.len()
        ))
    })
}

/// Answer `search_skills`. `uri_of` adds each hit's resource URI when the
/// caller serves one.
pub fn search_skills(
    searchable: &crate::search::Searchable,
    arguments: &Arguments<'_>,
    uri_of: &dyn Fn(&crate::model::Skill) -> Option<String>,
    everything: Option<&crate::search::Searchable>,
) -> Result<ToolAnswer, ArgumentError> {
    let catalog = searchable.catalog();
    let query = arguments.required_string("query")?;
    let limit = arguments.whole_number("limit")?;
    if let Some(answer) = too_long("query", query) {
        return Ok(answer);
    }
    if query.trim().is_empty() {
        return Ok(ToolAnswer::error(
            "`query` is empty — describe the task in a few words",
        ));
    }
    let advice = format!("leave it out for the default ({SEARCH_DEFAULT_LIMIT})");
    let limit = match at_least_one("limit", limit, &advice) {
        Ok(limit) => limit,
        Err(answer) => return Ok(answer),
    };
    let limit = limit.unwrap_or(SEARCH_DEFAULT_LIMIT).min(SEARCH_MAX_LIMIT);
    let results = searchable.search(query, &crate::search::SearchOptions::skills(limit));
    let mut value = crate::search::results_json(catalog, &results, query::PathStyle::Absolute);
    if let Some(hits) = value.get_mut("results").and_then(Value::as_array_mut) {
        for (hit, found) in hits.iter_mut().zip(&results.hits) {
            if let Some(uri) = uri_of(&catalog.skills()[found.index]) {
                hit["uri"] = uri.into();
            }
        }
    }
    // Disabled skills that match are named apart, never as results: a
    // model cannot read them, but can ask the user to enable one.
    let disabled = everything
        .map(|everything| disabled_matches(catalog, everything, query, limit))
        .unwrap_or_default();
    if !disabled.is_empty() {
        if let Some(terms) = value
            .get_mut("unmatched_terms")
            .and_then(Value::as_array_mut)
        {
            terms.retain(|t| {
                t.as_str()
                    .is_none_or(|t| catalog.disabled_skill(t).is_none())
            });
        }
        value["disabled_matches"] = json!(disabled
            .iter()
            .map(|s| json!({"name": s.name, "id": s.id, "namespace": s.namespace, "description": s.description}))
            .collect::<Vec<_>>());
        value["disabled_note"] = json!(
            "disabled_matches are disabled by configuration: they cannot be read or grepped. If one is clearly what the task needs, call request_skill_enable with its id and a suggest_reason; the user decides."
        );
    }
    // The same words as the CLI's text answer.
    if let Some(advice) = crate::search::advice(&results) {
        value["advice"] = json!(advice);
    }
    let text = serde_json::to_string_pretty(&value).unwrap_or_default();
    Ok(ToolAnswer::ok(text))
}

/// The disabled skills of `catalog` that the same search finds among the
/// best `limit` of `everything` (the catalog with them enabled).
fn disabled_matches<'a>(
    catalog: &Catalog,
    everything: &'a crate::search::Searchable,
    query: &str,
    limit: usize,
) -> Vec<&'a crate::model::Skill> {
    let wider = everything.search(query, &crate::search::SearchOptions::skills(limit));
    if wider.no_match && crate::search::select_list(query).is_none() {
        return Vec::new();
    }
    wider
        .hits
        .iter()
        .map(|hit| everything.catalog().skills()[hit.index].as_ref())
        .filter(|skill| {
            catalog
                .disabled_skills()
                .iter()
                .any(|d| d.path == skill.path)
        })
        .collect()
}

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
        ReadError::Escapes { .. } => format!("{error}; paths may not leave the skill folder"),
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

/// Answer `grep_skills`.
pub fn grep_skills(
    catalog: &Catalog,
    arguments: &Arguments<'_>,
) -> Result<ToolAnswer, ArgumentError> {
    let pattern = arguments.required_string("pattern")?;
    let skill = arguments.string("skill")?;
    let namespace = arguments.string("namespace")?;
    let fixed_strings = arguments.boolean("fixed_strings")?;
    let ignore_case = arguments.boolean("ignore_case")?;
    let max_results = arguments.whole_number("max_results")?;
    for (argument, value) in [
        ("pattern", Some(pattern)),
        ("skill", skill),
        ("namespace", namespace),
    ] {
        if let Some(answer) = value.and_then(|v| too_long(argument, v)) {
            return Ok(answer);
        }
    }
    if pattern.is_empty() {
        return Ok(ToolAnswer::error(
            "`pattern` is empty — pass text to look for",
        ));
    }
    let skill = skill.map(str::trim).filter(|s| !s.is_empty());
    let namespace = namespace
        .map(|n| n.trim().trim_matches('/'))
        .filter(|n| !n.is_empty());
    if skill.is_some() && namespace.is_some() {
        return Ok(ToolAnswer::error(
            "pass either `skill` or `namespace`, not both",
        ));
    }
    if let Some(name) = skill {
        let key = name.trim_matches('/');
        if catalog.get(name).is_none()
            && catalog.disabled_skill(name).is_none()
            && catalog.namespaces().iter().any(|n| n.name == key)
        {
            return Ok(ToolAnswer::error(format!(
                "`{name}` is a namespace, not a skill — pass it as `namespace` to search its skills"
            )));
        }
    }
    let advice = format!("leave it out for the default ({GREP_DEFAULT_MAX_RESULTS})");
    let max_results = match at_least_one("max_results", max_results, &advice) {
        Ok(max_results) => max_results,
        Err(answer) => return Ok(answer),
    };
    let cap = max_results
        .unwrap_or(GREP_DEFAULT_MAX_RESULTS)
        .min(GREP_MAX_RESULTS);
    let request = query::GrepRequest {
        pattern: pattern.to_string(),
        fixed_strings,
        ignore_case,
        max_results: Some(cap),
        skill: skill.map(str::to_string),
        namespace: namespace.map(str::to_string),
        ..query::GrepRequest::default()
    };
    let mut lines = GrepText::default();
    let result = match query::grep::grep_into(catalog, &request, &mut lines) {
        Ok(result) => result,
        Err(GrepError::Pattern(message)) => {
            return Ok(ToolAnswer::error(format!(
                "the pattern is not a valid regular expression: {message} — fix it, or pass fixed_strings: true to search for the text as written"
            )))
        }
        Err(GrepError::UnknownNamespace(namespace)) => {
            return Ok(ToolAnswer::error(format!(
                "no namespace `{namespace}` — the directory in the server instructions shows the namespaces"
            )))
        }
        Err(error) => return Ok(ToolAnswer::error(error.to_string())),
    };
    if result.matches == 0 {
        let scope = match (skill, namespace) {
            (Some(s), _) => format!(" in skill {s}"),
            (_, Some(n)) => format!(" in namespace {n}"),
            _ => String::new(),
        };
        return Ok(ToolAnswer::ok(format!(
            "no matches for `{pattern}`{scope} — try other words, ignore_case, or search_skills"
        )));
    }
    let mut text = format!(
        "{} in {}{}\n",
        plural(result.matches, "match", "matches"),
        plural(result.files, "file", "files"),
        if result.truncated {
            format!(" (stopped at {cap}: narrow the pattern, pass `skill`, or raise max_results)")
        } else {
            String::new()
        }
    );
    text.push_str(&lines.text);
    Ok(ToolAnswer::ok(text))
}

/// The lines of a `grep_skills` answer as they stream, each cut at
/// `GREP_MAX_LINE_CHARS` characters.
#[derive(Default)]
struct GrepText {
    text: String,
}

impl query::GrepSink for GrepText {
    fn line(
        &mut self,
        skill: &str,
        path: &str,
        _kind: query::LineKind,
        number: u64,
        text: &str,
    ) -> std::io::Result<()> {
        let shown = match text.char_indices().nth(GREP_MAX_LINE_CHARS) {
            Some((end, _)) => &text[..end],
            None => text,
        };
        let cut = if shown.len() < text.len() { "…" } else { "" };
        use std::fmt::Write as _;
        let path = crate::model::printable(path);
        let _ = writeln!(self.text, "{skill}/{path}:{number}: {shown}{cut}");
        Ok(())
    }

    fn file_end(&mut self, _skill: &str, _path: &str, _matches: usize) -> std::io::Result<()> {
        Ok(())
    }
}

/// The checked arguments of `request_skill_enable`: the skill and the reason.
pub fn enable_request<'a>(
    catalog: &'a Catalog,
    arguments: &Arguments<'_>,
) -> Result<Result<(&'a crate::model::Skill, String), ToolAnswer>, ArgumentError> {
    let name = arguments.required_string("name")?;
    let reason = arguments.required_string("suggest_reason")?;
    if let Some(answer) = too_long("name", name).or_else(|| too_long("suggest_reason", reason)) {
        return Ok(Err(answer));
    }
    if reason.trim().is_empty() {
        return Ok(Err(ToolAnswer::error(
            "`suggest_reason` is empty — say in one sentence why the skill helps with the current task; the user reads it",
        )));
    }
    let name = name.trim();
    if let Some(skill) = catalog.disabled_skill(name) {
        return Ok(Ok((skill, reason.trim().to_string())));
    }
    if let Some(skill) = catalog.get(name) {
        return Ok(Err(ToolAnswer::error(format!(
            "skill `{}` is already enabled — read it with read_skill",
            skill.id
        ))));
    }
    // Only a disabled skill can be enabled: suggest those.
    let similar: Vec<&str> = catalog
        .similar_including_disabled(name, 20)
        .into_iter()
        .filter(|id| catalog.get(id).is_none() && catalog.disabled_skill(id).is_some())
        .take(5)
        .collect();
    Ok(Err(ToolAnswer::error(format!(
        "no disabled skill named `{name}`{}",
        if similar.is_empty() {
            " — search_skills names the disabled skills that match a task".to_string()
        } else {
            format!(" — did you mean {}?", similar.join(", "))
        }
    ))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_fits_the_subset() {
        for tool in definitions() {
            let issues = crate::schema::validate(&tool.input_schema);
            assert!(issues.is_empty(), "{}: {issues:?}", tool.name);
            assert!(!tool.description.is_empty() && tool.description.len() <= 1_000);
            // The sanitiser leaves a fitting schema as it is.
            assert_eq!(
                crate::schema::sanitize(&tool.input_schema).unwrap(),
                tool.input_schema,
                "{}",
                tool.name
            );
        }
    }

    #[test]
    fn arguments_are_checked() {
        // Unknown arguments are accepted; a misspelt one is named.
        let map: Map<String, Value> = serde_json::from_value(
            json!({"name": "x", "wait_for_previous": true, "sectoin": "Steps", "startLine": 3}),
        )
        .unwrap();
        assert!(Arguments::new(READ_SKILL, &map).is_ok());
        let note = ignored_note(READ_SKILL, &map).unwrap();
        assert!(
            note.contains("ignored `sectoin`; did you mean `section`?")
                && note.contains("ignored `startLine`; did you mean `start_line`?")
                && !note.contains("wait_for_previous"),
            "{note}"
        );
        let map: Map<String, Value> =
            serde_json::from_value(json!({"query": "x", "wait_for_previous": true, "q": 1}))
                .unwrap();
        assert_eq!(ignored_note(SEARCH_SKILLS, &map), None);
        let map: Map<String, Value> = serde_json::from_value(json!({"name": 3})).unwrap();
        let arguments = Arguments::new(READ_SKILL, &map).unwrap();
        assert_eq!(
            arguments.required_string("name").unwrap_err().to_string(),
            "read_skill: argument `name` must be a string, not the number 3"
        );
        assert!(Arguments::new("nope", &map).is_err());
    }

    fn read_with(catalog: &Catalog, arguments: Value) -> ToolAnswer {
        let map: Map<String, Value> = serde_json::from_value(arguments).unwrap();
        read_skill(catalog, &Arguments::new(READ_SKILL, &map).unwrap(), &|_| {
            None
        })
        .unwrap()
    }

    #[test]
    fn a_cut_section_continues_inside_it_and_repeated_headings_are_named() {
        let temp = tempfile::tempdir().unwrap();
        let steps: String = (1..=1_500)
            .map(|i| format!("{i}. step number {i} of the procedure\n"))
            .collect();
        let folder = temp.path().join("procedure");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("SKILL.md"),
            format!("---\nname: procedure\ndescription: Steps. Use when following steps.\n---\n# Procedure\n\n## Steps\n\n{steps}\n## After\n\nNot a step.\n\n## Steps\n\nAgain.\n"),
        )
        .unwrap();
        let catalog = crate::CatalogBuilder::new([temp.path()]).build().unwrap();
        let first = read_with(&catalog, json!({"name": "procedure", "section": "steps-1"}));
        assert!(!first.is_error, "{}", first.text);
        assert!(first.text.contains("Again."), "{}", first.text);
        let first = read_with(&catalog, json!({"name": "procedure", "section": "steps"}));
        assert!(first.is_error, "{}", first.text);
        assert!(
            first
                .text
                .contains("## Steps  (start_line 7, end_line 1509)")
                && first.text.contains("## Steps  (section `steps-1`)"),
            "{}",
            first.text
        );
        // Read the long one by the lines offered; every continuation stays
        // inside them.
        let mut answer = read_with(
            &catalog,
            json!({"name": "procedure", "start_line": 7, "end_line": 1509}),
        );
        let mut chunks = 1;
        while let Some(call) = answer.text.split("continue with read_skill ").nth(1) {
            let call: Value = serde_json::from_str(call.trim().trim_end_matches(']')).unwrap();
            assert_eq!(call["end_line"], 1509, "{call}");
            answer = read_with(&catalog, call);
            assert!(!answer.is_error, "{}", answer.text);
            chunks += 1;
            assert!(chunks < 10, "{}", answer.text);
        }
        assert!(chunks > 1);
        assert!(
            answer.text.contains("1500. step number 1500"),
            "{}",
            answer.text
        );
        assert!(!answer.text.contains("## After"), "{}", answer.text);
    }
}
