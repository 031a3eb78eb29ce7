//! The rules of the Agent Skills format (and the stricter rules of hosted
//! products) applied to one skill file: its fields and, for `lint`, its body
//! (size, local links).
//!
//! The checks run per file inside the scan's walker threads, so a large
//! catalog is checked in parallel with reading it.
//!
//! Every rule emits its finding whatever the profile; the catalog maps codes
//! to severities per profile (`Code::severity`) and drops what a profile does
//! not report. Keeping the rules profile-free means one place decides what a
//! rule *is* and one place decides how much it matters.

mod orders;
pub use orders::orders_to_the_model;

use crate::entry::{Code, Position};
use crate::parse::frontmatter::{CLIENT_KEYS, SPEC_KEYS};
use crate::parse::{markdown, Fields, Finding, ParsedFile};
use std::path::{Component, Path, PathBuf};
use unicode_normalization::UnicodeNormalization;

/// Body size past which a skill is reported: the format's guidance is to
/// keep `SKILL.md` under 500 lines and about 5,000 tokens.
pub const MAX_BODY_LINES: usize = 500;
pub const MAX_BODY_TOKENS: usize = 5_000;

pub const MAX_NAME_CHARS: usize = 64;
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
pub const MAX_COMPATIBILITY_CHARS: usize = 500;
const RESERVED_WORDS: &[&str] = &["anthropic", "claude"];

pub use crate::text::thousands;

/// A kebab-case suggestion for a bad name: lowercase, runs of anything that
/// is not a letter or digit become one hyphen.
pub fn suggest_name(name: &str) -> String {
    let mut out = String::new();
    let mut pending_hyphen = false;
    for c in name.nfkc() {
        if c.is_alphanumeric() {
            if pending_hyphen && !out.is_empty() {
                out.push('-');
            }
            pending_hyphen = false;
            out.extend(c.to_lowercase());
        } else {
            pending_hyphen = true;
        }
    }
    out.chars()
        .take(MAX_NAME_CHARS)
        .collect::<String>()
        .trim_end_matches('-')
        .to_string()
}

fn is_name_char(c: char) -> bool {
    c == '-'
        || (c.is_alphanumeric() && !c.is_uppercase() && c.to_lowercase().eq(std::iter::once(c)))
}

/// Run every check on one parsed skill file and add the findings to it.
/// A skill without a description cannot load: its fields are dropped.
/// `text` is the whole decoded file when it was read completely; body
/// checks need it and are skipped without it.
pub fn check_file(
    path: &Path,
    folder: &str,
    parsed: &mut ParsedFile,
    text: Option<&str>,
    check_bodies: bool,
) {
    let Some(fields) = parsed.fields.as_ref() else {
        return;
    };
    if fields
        .description
        .as_deref()
        .is_none_or(|d| d.trim().is_empty())
    {
        let position = if fields.positions.contains_key("description") {
            fields.position("description")
        } else {
            Position::START
        };
        parsed.findings.push(Finding::new(
            Code::DescriptionMissing,
            position,
            "no `description`; the skill was not loaded — add `description:` saying what the skill does and when to use it",
        ));
        parsed.fields = None;
        return;
    }
    let mut findings = check_fields(fields, folder);
    if check_bodies {
        if let Some(text) = text {
            findings.extend(check_body(path, text, parsed.body_offset, parsed.body_line));
        }
    }
    parsed.findings.extend(findings);
}

/// Checks that need the body: size and local links.
pub fn check_body(path: &Path, text: &str, body_offset: usize, body_line: u32) -> Vec<Finding> {
    let mut findings = Vec::new();
    let body = &text[body_offset.min(text.len())..];
    let lines = body.lines().count();
    let tokens = crate::tokens::count(body);
    if lines > MAX_BODY_LINES || tokens > MAX_BODY_TOKENS {
        findings.push(Finding::new(
            Code::BodyTooLong,
            Position {
                line: body_line,
                column: 1,
            },
            format!(
                "body is {} lines and {} tokens; keep it under {MAX_BODY_LINES} lines and {} tokens — move detail into reference files and link them",
                thousands(lines),
                thousands(tokens),
                thousands(MAX_BODY_TOKENS)
            ),
        ));
    }
    let skill_dir = path.parent().unwrap_or(Path::new("."));
    for link in markdown::outline(text, body_offset).links {
        let position = Position {
            line: link.line,
            column: link.column,
        };
        match link_state(skill_dir, skill_dir, &link.target) {
            LinkState::Resolves => {}
            LinkState::Escapes(reason) => findings.push(Finding::new(
                Code::LinkEscapes,
                position,
                format!(
                    "link `{}` {reason}; agents cannot follow it — copy the file into the skill folder and link it relatively",
                    link.target
                ),
            )),
            LinkState::Missing => findings.push(Finding::new(
                Code::LinkBroken,
                position,
                format!(
                    "link `{}` points to a file that does not exist — fix the path or add the file",
                    link.target
                ),
            )),
        }
    }
    findings
}

/// Where a local link of a skill leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkState {
    /// To a file inside the skill folder (real path included).
    Resolves,
    /// Inside the folder on paper, but nothing is there.
    Missing,
    /// Out of the skill folder; the text says how.
    Escapes(String),
}

/// Judge a link `target` written in a file that sits in `from_dir` (the
/// skill folder or a folder inside it). `show`, `read` and `lint` all ask
/// this one function, so they agree.
pub fn link_state(skill_dir: &Path, from_dir: &Path, target: &str) -> LinkState {
    match placeholder(target) {
        Some((Placeholder::SkillDir, rest)) => return state_inside(skill_dir, rest),
        Some((Placeholder::PluginRoot, rest)) => {
            return match crate::plugin::plugin_root_of(skill_dir) {
                Some(plugin) => state_inside(&plugin, rest),
                None => LinkState::Escapes(
                    "starts with `${CLAUDE_PLUGIN_ROOT}`, but the skill is not in a plugin (no `.claude-plugin/plugin.json` above it, no `skills/` folder holding it)".to_string(),
                ),
            };
        }
        None => {}
    }
    if Path::new(target).is_absolute() || target.starts_with(['/', '\\']) {
        return LinkState::Escapes("is an absolute path".to_string());
    }
    let prefix = from_dir.strip_prefix(skill_dir).unwrap_or(Path::new(""));
    let combined = if prefix.as_os_str().is_empty() {
        target.to_string()
    } else {
        format!("{}/{target}", prefix.to_string_lossy())
    };
    state_inside(skill_dir, &combined)
}

/// What a path placeholder at the start of a link stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placeholder {
    /// The skill folder: `{baseDir}` (the Agent Skills convention),
    /// `${CLAUDE_SKILL_DIR}` (Claude Code).
    SkillDir,
    /// The plugin folder: `${CLAUDE_PLUGIN_ROOT}` (Claude Code plugins).
    PluginRoot,
}

/// The placeholder `target` starts with, and the path after it (without
/// its leading `/`).
fn placeholder(target: &str) -> Option<(Placeholder, &str)> {
    const FORMS: &[(&str, Placeholder)] = &[
        ("{baseDir}", Placeholder::SkillDir),
        ("${baseDir}", Placeholder::SkillDir),
        ("${CLAUDE_SKILL_DIR}", Placeholder::SkillDir),
        ("$CLAUDE_SKILL_DIR", Placeholder::SkillDir),
        ("${CLAUDE_PLUGIN_ROOT}", Placeholder::PluginRoot),
        ("$CLAUDE_PLUGIN_ROOT", Placeholder::PluginRoot),
    ];
    if !target.starts_with(['{', '$']) {
        return None;
    }
    FORMS.iter().find_map(|(form, kind)| {
        let rest = target.strip_prefix(form)?;
        // `$CLAUDE_SKILL_DIRS` is another variable.
        (rest.is_empty() || rest.starts_with(['/', '\\']))
            .then(|| (*kind, rest.trim_start_matches(['/', '\\'])))
    })
}

/// Where `relative` leads inside `skill_dir` (a skill folder, or the
/// plugin folder a placeholder named), which it must stay in.
fn state_inside(skill_dir: &Path, relative: &str) -> LinkState {
    if Path::new(relative).is_absolute() || relative.starts_with(['/', '\\']) {
        return LinkState::Escapes("is an absolute path".to_string());
    }
    let path = match resolve_inside(skill_dir, relative) {
        Ok(path) => path,
        Err(reason) => return LinkState::Escapes(reason.to_string()),
    };
    if !path.exists() {
        return LinkState::Missing;
    }
    match (path.canonicalize(), skill_dir.canonicalize()) {
        (Ok(real), Ok(real_dir)) if real.starts_with(&real_dir) => LinkState::Resolves,
        (Ok(real), Ok(_)) => LinkState::Escapes(format!(
            "resolves through a symlink to {}, outside the skill folder",
            real.display()
        )),
        _ => LinkState::Missing,
    }
}

/// Why `resolve_inside` refused a target; the message completes "the path
/// …".
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Outside {
    #[error("is an absolute path")]
    Absolute,
    #[error("leaves the skill folder")]
    Climbs,
}

/// Resolve a relative link target inside `dir` without touching the disk;
/// refuse absolute paths and `..` that climb out of `dir`.
pub fn resolve_inside(dir: &Path, target: &str) -> Result<PathBuf, Outside> {
    let target_path = Path::new(target);
    if target_path.is_absolute() || target.starts_with('/') || target.starts_with('\\') {
        return Err(Outside::Absolute);
    }
    let mut depth: usize = 0;
    let mut out = dir.to_path_buf();
    for component in target_path.components() {
        match component {
            Component::Normal(part) => {
                depth += 1;
                out.push(part);
            }
            Component::CurDir => {}
            Component::ParentDir => {
                if depth == 0 {
                    return Err(Outside::Climbs);
                }
                depth -= 1;
                out.pop();
            }
            Component::RootDir | Component::Prefix(_) => return Err(Outside::Absolute),
        }
    }
    Ok(out)
}

/// Check a skill's fields. `folder` is the skill folder's name.
pub fn check_fields(fields: &Fields, folder: &str) -> Vec<Finding> {
    let mut findings = Vec::new();
    check_name(fields, folder, &mut findings);
    for (key, value) in [
        ("name", fields.name.as_deref()),
        ("description", fields.description.as_deref()),
    ] {
        if let Some(value) = value {
            check_hidden_characters(key, value, fields.position(key), &mut findings);
        }
    }
    if let Some(description) = fields.description.as_deref() {
        check_description(description, fields.position("description"), &mut findings);
    }
    if let Some(compatibility) = fields.compatibility.as_deref() {
        let chars = compatibility.chars().count();
        if chars > MAX_COMPATIBILITY_CHARS {
            findings.push(Finding::new(
                Code::CompatibilityTooLong,
                fields.position("compatibility"),
                format!(
                    "compatibility is {} characters; the limit is {MAX_COMPATIBILITY_CHARS} — keep only the requirements an agent must check",
                    thousands(chars)
                ),
            ));
        }
    }
    for key in fields.extra.keys() {
        if key == "metadata" || SPEC_KEYS.contains(&key.as_str()) {
            continue;
        }
        let position = fields.position(key);
        if CLIENT_KEYS.contains(&key.as_str()) {
            findings.push(Finding::new(
                Code::ClientKey,
                position,
                format!(
                    "`{key}` is a host-specific key (not in the Agent Skills format); it is kept, but other hosts ignore it and some reject the skill"
                ),
            ));
        } else {
            // Under `metadata:` a value must be text: the advice writes it so.
            let value = fields
                .extra
                .get(key)
                .map(crate::parse::frontmatter::json_text)
                .unwrap_or_default();
            findings.push(Finding::new(
                Code::UnknownKey,
                position,
                format!(
                    "`{key}` is not an Agent Skills field; it is kept as extra metadata — move it under `metadata:` as `{key}: {}` (the allowed keys are {})",
                    crate::parse::frontmatter::yaml_scalar(&value),
                    SPEC_KEYS.join(", ")
                ),
            ));
        }
    }
    findings
}

fn check_name(fields: &Fields, folder: &str, findings: &mut Vec<Finding>) {
    let position = fields.position("name");
    let name = match fields.name.as_deref().map(str::trim) {
        Some(name) if !name.is_empty() => name,
        _ => {
            let present = fields.positions.contains_key("name");
            let message = if present {
                format!("`name` is empty; the folder name is used — set `name: {folder}`")
            } else {
                format!(
                    "no `name` in the front matter; the folder name is used — add `name: {folder}`"
                )
            };
            findings.push(Finding::new(
                Code::NameMissing,
                if present { position } else { Position::START },
                message,
            ));
            return;
        }
    };
    let normalized: String = if name.is_ascii() {
        name.to_string()
    } else {
        name.nfkc().collect()
    };
    let chars = normalized.chars().count();
    let folder_normalized: String = if folder.is_ascii() {
        folder.to_string()
    } else {
        folder.nfkc().collect()
    };
    let folder_valid = is_valid_name(&folder_normalized);
    let mut problems = name_problems(&normalized);
    let too_long = chars > MAX_NAME_CHARS;
    if too_long {
        problems.insert(0, "is too long");
    }
    if !problems.is_empty() {
        // One finding for a bad name, whatever its folder: every fix it
        // offers passes the name rules and matches the folder.
        let suggestion = suggest_name(&normalized);
        let fix = if folder_valid && (suggestion == folder_normalized || suggestion.is_empty()) {
            format!("set `name: {folder}`")
        } else if folder_valid {
            format!("set `name: {folder}` (the folder's name), or rename the folder to `{suggestion}` and set `name: {suggestion}`")
        } else {
            let suggestion = if suggestion.is_empty() {
                suggest_name(&folder_normalized)
            } else {
                suggestion
            };
            if suggestion.is_empty() {
                "choose a name of lowercase letters, digits and hyphens and give the folder the same name".to_string()
            } else {
                format!("rename the folder to `{suggestion}` and set `name: {suggestion}`")
            }
        };
        let what = if too_long {
            format!(
                "name is {chars} characters; the limit is {MAX_NAME_CHARS}{}",
                if problems.len() > 1 {
                    format!(", and it {}", problems[1..].join(", "))
                } else {
                    String::new()
                }
            )
        } else {
            format!("name `{name}` {}", problems.join(", "))
        };
        let code = if too_long && problems.len() == 1 {
            Code::NameTooLong
        } else {
            Code::NameInvalid
        };
        let fix = if code == Code::NameTooLong {
            format!("shorten it: {fix}")
        } else {
            fix
        };
        findings.push(Finding::new(code, position, format!("{what} — {fix}")));
    } else if normalized != folder_normalized {
        // Offer only fixes that pass the name rules: a folder called
        // `data_tools` must not be suggested as a name.
        let fix = if folder_valid {
            format!("rename the folder to `{name}` or set `name: {folder}`")
        } else {
            format!("rename the folder to `{name}` (`{folder}` is not a valid skill name)")
        };
        findings.push(Finding::new(
            Code::NameMismatch,
            position,
            format!("name `{name}` does not match its folder `{folder}` — {fix}"),
        ));
    }
    if !normalized.is_ascii() {
        findings.push(Finding::new(
            Code::NameNotAscii,
            position,
            format!("name `{name}` is not ASCII; hosted products accept only a-z, 0-9 and `-` — use an ASCII name"),
        ));
    }
    for word in RESERVED_WORDS {
        if normalized.contains(word) {
            findings.push(Finding::new(
                Code::NameReservedWord,
                position,
                format!("name `{name}` contains the reserved word `{word}` — choose another name"),
            ));
        }
    }
    if has_xml_tag(name) {
        findings.push(Finding::new(
            Code::XmlTag,
            position,
            format!("name `{name}` contains an XML tag — remove the angle brackets"),
        ));
    }
}

/// Does a skill `name` (as written) match its `folder` the way the
/// `name-mismatch` rule judges it? An empty name uses the folder's.
pub fn name_fits_folder(name: &str, folder: &str) -> bool {
    let name = name.trim();
    if name.is_empty() {
        return true;
    }
    let normalize = |text: &str| -> String {
        if text.is_ascii() {
            text.to_string()
        } else {
            text.nfkc().collect()
        }
    };
    normalize(name) == normalize(folder)
}

/// What is wrong with a (NFKC-normalised) name under the format's rules,
/// length aside; empty when nothing is.
fn name_problems(normalized: &str) -> Vec<&'static str> {
    let mut problems = Vec::new();
    if normalized.chars().any(|c| c.is_uppercase()) {
        problems.push("must be lowercase");
    }
    if normalized
        .chars()
        .any(|c| !is_name_char(c) && !c.is_uppercase())
    {
        problems.push("may only contain letters, digits and hyphens");
    }
    if normalized.starts_with('-') || normalized.ends_with('-') {
        problems.push("must not start or end with a hyphen");
    }
    if normalized.contains("--") {
        problems.push("must not contain `--`");
    }
    problems
}

/// Would `normalized` pass every `spec` name rule?
fn is_valid_name(normalized: &str) -> bool {
    !normalized.is_empty()
        && normalized.chars().count() <= MAX_NAME_CHARS
        && name_problems(normalized).is_empty()
}

fn check_description(description: &str, position: Position, findings: &mut Vec<Finding>) {
    let chars = description.chars().count();
    if chars > MAX_DESCRIPTION_CHARS {
        findings.push(Finding::new(
            Code::DescriptionTooLong,
            position,
            format!(
                "description is {} characters; the limit is {} — shorten it or move detail into the body",
                thousands(chars),
                thousands(MAX_DESCRIPTION_CHARS)
            ),
        ));
    }
    if has_xml_tag(description) {
        findings.push(Finding::new(
            Code::XmlTag,
            position,
            "description contains an XML tag; hosted products reject it — write the text without angle brackets",
        ));
    }
    if let Some(why) = orders_to_the_model(description) {
        findings.push(Finding::new(
            Code::PromptInjection,
            position,
            format!("description reads as orders to the agent: {why} — describe what the skill does and when to use it; instructions belong in the body"),
        ));
    }
    if !says_when(description) {
        findings.push(Finding::new(
            Code::DescriptionNoTrigger,
            position,
            "description does not say when to use the skill — add a sentence such as \"Use when …\" with the words a user would say",
        ));
    }
}

/// A character that hides or reorders text where a name or description is
/// shown (a prompt, a terminal): C0/C1 controls other than the whitespace
/// `one_line` collapses, and the Unicode bidi embeddings, overrides and
/// isolates. Returns what to call it in a message.
pub fn hidden_character(c: char) -> Option<&'static str> {
    match c {
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => Some("a bidirectional override"),
        _ if c.is_control() && !c.is_whitespace() => Some("a control character"),
        _ => None,
    }
}

/// Report control and bidi characters in `key`'s value: they reach agents'
/// prompts unseen and can make the text read differently than it looks.
fn check_hidden_characters(
    key: &str,
    value: &str,
    position: Position,
    findings: &mut Vec<Finding>,
) {
    if let Some(message) = hidden_characters_note(key, value) {
        findings.push(Finding::new(Code::ControlCharacter, position, message));
    }
}

/// What to say of the control and bidi characters in `key`'s value, if it
/// has any (skills' fields and tools' descriptions alike).
pub fn hidden_characters_note(key: &str, value: &str) -> Option<String> {
    // Printable ASCII and whitespace, the usual case, holds none: checked
    // bytewise, without decoding characters.
    let plain = value
        .bytes()
        .all(|b| (b' '..0x7f).contains(&b) || matches!(b, b'\t' | b'\n' | b'\r' | 0x0b | 0x0c));
    if plain {
        return None;
    }
    let mut found: Vec<(char, &str)> = Vec::new();
    for c in value.chars() {
        if let Some(kind) = hidden_character(c) {
            if !found.iter().any(|(seen, _)| *seen == c) {
                found.push((c, kind));
            }
        }
    }
    if found.is_empty() {
        return None;
    }
    let listed: Vec<String> = found
        .iter()
        .map(|(c, kind)| format!("U+{:04X} ({kind})", u32::from(*c)))
        .collect();
    Some(format!(
        "`{key}` contains {}; such characters are invisible or reorder text in an agent's prompt and in terminals — remove them (check escapes such as `\\u202e` in quoted values)",
        listed.join(", ")
    ))
}

/// Does the description tell an agent *when* to reach for the skill?
fn says_when(description: &str) -> bool {
    // ASCII lowering is enough: the non-English cues have no case.
    let lower = description.to_ascii_lowercase();
    const CUES: &[&str] = &[
        "use when",
        "use this",
        "use it",
        "use for",
        "used when",
        "used for",
        "when ",
        "whenever",
        "if you",
        "if the",
        "if a",
        "trigger",
        "invoke",
        "helps ",
        "for tasks",
        "for requests",
        "当",
        "时使用",
        "适用",
        "用于",
        "在需要",
        "とき",
        "場合",
        "때 ",
    ];
    CUES.iter().any(|cue| lower.contains(cue))
}

fn has_xml_tag(text: &str) -> bool {
    if !text.contains('<') {
        return false;
    }
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        b == b'<'
            && bytes
                .get(i + 1)
                .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'/')
            && text[i..].find('>').is_some_and(|end| {
                let inner = &text[i + 1..i + end];
                !inner.is_empty() && !inner.contains(' ') || inner.contains('=')
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The findings for a skill `name` in folder `folder`.
    fn name_findings(name: &str, folder: &str) -> Vec<Finding> {
        let fields = Fields {
            name: Some(name.into()),
            description: Some("Does x. Use when y.".into()),
            ..Fields::default()
        };
        check_fields(&fields, folder)
    }

    fn codes(name: &str, folder: &str) -> Vec<Code> {
        name_findings(name, folder)
            .into_iter()
            .map(|f| f.code)
            .collect()
    }

    #[test]
    fn name_rules() {
        assert!(codes("pdf-forms", "pdf-forms").is_empty());
        assert_eq!(codes("PDF Forms", "PDF Forms"), vec![Code::NameInvalid]);
        assert_eq!(codes("-a", "-a"), vec![Code::NameInvalid]);
        assert_eq!(codes("a--b", "a--b"), vec![Code::NameInvalid]);
        assert_eq!(codes("a", "b"), vec![Code::NameMismatch]);
        assert_eq!(codes("技能", "技能"), vec![Code::NameNotAscii]);
        assert_eq!(codes("мой-навык", "мой-навык"), vec![Code::NameNotAscii]);
        assert_eq!(
            codes("НАВЫК", "НАВЫК"),
            vec![Code::NameInvalid, Code::NameNotAscii]
        );
        assert_eq!(
            codes("claude-helper", "claude-helper"),
            vec![Code::NameReservedWord]
        );
        let long = "a".repeat(65);
        assert_eq!(codes(&long, &long), vec![Code::NameTooLong]);
        // NFKC: decomposed name matches a composed folder.
        assert!(!codes("cafe\u{301}", "café").contains(&Code::NameMismatch));
    }

    fn mismatch_message(name: &str, folder: &str) -> String {
        name_findings(name, folder)
            .into_iter()
            .find(|f| f.code == Code::NameMismatch)
            .expect("a name-mismatch finding")
            .message
    }

    #[test]
    fn name_mismatch_offers_only_valid_names() {
        let both = mismatch_message("a", "b");
        assert!(
            both.contains("rename the folder to `a` or set `name: b`"),
            "{both}"
        );
        for folder in ["data_tools", "Mixed", "-x", "a--b"] {
            let message = mismatch_message("data-tools", folder);
            assert!(
                !message.contains("set `name:"),
                "{folder}: suggests an invalid name: {message}"
            );
            assert!(
                message.contains("rename the folder to `data-tools`"),
                "{message}"
            );
        }
    }

    /// The one finding about a bad name, and its message.
    fn bad_name(name: &str, folder: &str) -> (Vec<Code>, String) {
        let findings = name_findings(name, folder);
        let message = findings
            .first()
            .map(|f| f.message.clone())
            .unwrap_or_default();
        (findings.into_iter().map(|f| f.code).collect(), message)
    }

    #[test]
    fn a_bad_name_is_one_finding_whose_fixes_match_the_folder() {
        let (codes, message) = bad_name("Data Tools", "data-tools");
        assert_eq!(codes, [Code::NameInvalid]);
        assert!(message.ends_with("— set `name: data-tools`"), "{message}");
        let (codes, message) = bad_name("Data Tools", "data_tools");
        assert_eq!(codes, [Code::NameInvalid]);
        assert!(
            message.ends_with("rename the folder to `data-tools` and set `name: data-tools`"),
            "{message}"
        );
        // A suggestion that is not the folder's name comes with the rename.
        let (codes, message) = bad_name("21RISK Automation", "21risk");
        assert_eq!(codes, [Code::NameInvalid]);
        assert!(
            message.ends_with("set `name: 21risk` (the folder's name), or rename the folder to `21risk-automation` and set `name: 21risk-automation`"),
            "{message}"
        );
        let long = format!("{}-x", "a".repeat(70));
        let (codes, message) = bad_name(&long, "short");
        assert_eq!(codes, [Code::NameTooLong]);
        assert!(message.contains("set `name: short`"), "{message}");
        let (codes, message) = bad_name(&format!("{long} Y"), "short");
        assert_eq!(codes, [Code::NameInvalid]);
        assert!(
            message.contains("the limit is 64, and it must be lowercase"),
            "{message}"
        );
    }

    #[test]
    fn control_and_bidi_characters_are_reported() {
        let check = |name: &str, description: &str| {
            let fields = Fields {
                name: Some(name.into()),
                description: Some(description.into()),
                ..Fields::default()
            };
            check_fields(&fields, name)
                .into_iter()
                .filter(|f| f.code == Code::ControlCharacter)
                .map(|f| f.message)
                .collect::<Vec<_>>()
        };
        let found = check(
            "x4",
            "Use when \u{0} nul \u{1b}[31m red \u{202e} rtl \u{0} again",
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("`description` contains U+0000 (a control character), U+001B (a control character), U+202E (a bidirectional override)"),
            "{}",
            found[0]
        );
        assert!(found[0].contains("remove them"), "{}", found[0]);
        for c in [
            '\u{7f}', '\u{9b}', '\u{1c}', '\u{202a}', '\u{2066}', '\u{2069}',
        ] {
            assert_eq!(
                check("x", &format!("Use when {c}.")).len(),
                1,
                "U+{:04X}",
                u32::from(c)
            );
        }
        assert_eq!(check("a\u{202d}b", "Use when y.").len(), 1);
        // Whitespace the normaliser collapses, and ordinary marks, pass.
        for text in [
            "Use when\ttabs\nand lines\r\u{b}\u{c}\u{85}.",
            "Use when \u{200f} é 技能.",
        ] {
            assert!(check("x", text).is_empty(), "{text:?}");
        }
    }

    #[test]
    fn resolve_inside_refuses_escapes() {
        let dir = Path::new("/s/skill");
        assert_eq!(
            resolve_inside(dir, "references/a.md").unwrap(),
            PathBuf::from("/s/skill/references/a.md")
        );
        assert_eq!(
            resolve_inside(dir, "./a/../b.md").unwrap(),
            PathBuf::from("/s/skill/b.md")
        );
        assert!(resolve_inside(dir, "../other/SKILL.md").is_err());
        assert!(resolve_inside(dir, "a/../../x").is_err());
        assert!(resolve_inside(dir, "/etc/passwd").is_err());
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest_name("My Cool_Skill!"), "my-cool-skill");
        assert_eq!(suggest_name("--"), "");
    }

    #[test]
    fn xml_tags() {
        assert!(has_xml_tag("use <b>bold</b>"));
        assert!(!has_xml_tag("a < b and c > d"));
    }
}
