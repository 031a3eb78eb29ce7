//! The tools skilldex offers a model (`search_skills`, `read_skill`,
//! `grep_skills`, `request_skill_enable`): their fixed names, descriptions
//! and input schemas, the checking of arguments, and the answers computed
//! from one catalog snapshot.
//!
//! Nothing here knows MCP: the server in `mcp/` wraps these answers in its
//! protocol types, and `skilldex agent-tools` prints the definitions. Two kinds of
//! failure are kept apart on purpose. A request that does not fit the
//! schema (a missing or mistyped argument, an unknown tool) is an
//! `ArgumentError`, which a protocol answers as a malformed request. A
//! request that fits but cannot be served (unknown skill, bad regex, a path
//! outside the skill) is a `ToolAnswer` with `is_error`, worded for the
//! model to act on.

mod grep;
mod read;
mod search;

pub use grep::grep_skills;
pub use read::read_skill;
pub use search::search_skills;

use crate::catalog::Catalog;
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
            description: "Find skills for a task. Searches skill names, descriptions, namespaces, headings, the first paragraph and the when-to-use list of each skill and returns the best matches (name, namespace, description, path, confidence), best first. `confidence` is `high` when a hit matches what the task is about and `low` when it is only the closest there is: then `advice` says so and `unmatched_terms` names the words no skill has; read a description before relying on a low hit. `no_match` is true only when no skill shares a meaningful word with the query. Use `read_skill` with a hit's name to load it.",
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

/// The definitions as MCP `tools/list` entries, exactly as `serve` lists
/// them: annotations (search, read and grep only read local files;
/// enabling a skill asks the user and may rewrite a config file) and the
/// `_meta` hints for hosts that defer tools behind a search of their own
/// (`anthropic/alwaysLoad` on the two every task starts with).
pub fn mcp_json(definitions: &[ToolDefinition]) -> Value {
    Value::Array(
        definitions
            .iter()
            .map(|d| {
                let read_only = d.name != REQUEST_SKILL_ENABLE;
                let mut entry = json!({
                    "name": d.name,
                    "description": d.description,
                    "inputSchema": d.input_schema,
                    "annotations": {
                        "readOnlyHint": read_only,
                        "destructiveHint": false,
                        "idempotentHint": read_only,
                        "openWorldHint": false,
                    },
                });
                let (hint, always_load) = match d.name {
                    SEARCH_SKILLS => (Some("find skills: instructions for a task"), true),
                    READ_SKILL => (Some("read a skill's instructions and files"), true),
                    GREP_SKILLS => (Some("search the text of skills' files"), false),
                    REQUEST_SKILL_ENABLE => {
                        (Some("ask the user to enable a disabled skill"), false)
                    }
                    _ => (None, false),
                };
                if let Some(meta) = crate::toolcat::hint_meta(hint, always_load) {
                    entry["_meta"] = meta;
                }
                entry
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

/// The checked arguments of `request_skill_enable`: the skill and the reason.
pub fn enable_request<'a>(
    catalog: &'a Catalog,
    arguments: &Arguments<'_>,
) -> Result<Result<(&'a crate::entry::Skill, String), ToolAnswer>, ArgumentError> {
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
