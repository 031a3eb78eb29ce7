//! The Agent Skills discovery index (format 0.2.0): `index.json` with a
//! `$schema` and `skills: [{name, type, description, url, digest}]`, where
//! `type` is `skill-md` (the artifact at `url` is a `SKILL.md`) or
//! `archive` (a `.tar.gz` of the skill's folder) and `digest` is
//! `sha256:` and 64 lowercase hex digits of the artifact's bytes.
//!
//! Reading is strict about the document and forgiving about entries, as
//! the format asks: an index that is not JSON, has no or an unknown
//! `$schema`, or no `skills` array is an error at `file:line:column`; an
//! entry that breaks a rule (a missing field, a bad name or digest, a type
//! this reader does not know, a name listed twice) is left out with a
//! problem at its line and column, and the rest are offered. Unknown
//! fields are ignored. Writing is byte-stable: entries sorted by name,
//! two-space JSON, a final newline.

use crate::toolcat::Positions;
use serde_json::Value;

/// The schema URI of the format this module reads and writes.
pub const SCHEMA: &str = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
/// An index larger than this is not read.
pub const MAX_INDEX_BYTES: u64 = 8 << 20;
/// An index with more entries than this is refused.
pub const MAX_INDEX_ENTRIES: usize = 10_000;
/// The longest description the format allows, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;

/// What the artifact at an entry's `url` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ArtifactKind {
    /// A `SKILL.md` alone.
    SkillMd,
    /// A `.tar.gz` of the skill's folder.
    Archive,
}

impl ArtifactKind {
    /// The `type` value of the format.
    pub fn as_str(self) -> &'static str {
        match self {
            ArtifactKind::SkillMd => "skill-md",
            ArtifactKind::Archive => "archive",
        }
    }

    pub fn parse(text: &str) -> Option<ArtifactKind> {
        match text {
            "skill-md" => Some(ArtifactKind::SkillMd),
            "archive" => Some(ArtifactKind::Archive),
            _ => None,
        }
    }
}

/// One skill of an index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexEntry {
    pub name: String,
    pub kind: ArtifactKind,
    pub description: String,
    /// As written (resolved against the index's location when fetched).
    pub url: String,
    /// `sha256:` and 64 lowercase hex digits.
    pub digest: String,
}

/// An entry left out, with where it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryProblem {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// A read index: its usable entries, in file order, and those left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Index {
    pub entries: Vec<IndexEntry>,
    pub problems: Vec<EntryProblem>,
}

/// Why an index cannot be used at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct IndexError {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// Whether `name` follows the Agent Skills naming rule: 1 to 64 of
/// `a-z`, `0-9` and `-`, no hyphen first, last or twice in a row.
pub fn is_valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// Whether `digest` is `sha256:` and 64 lowercase hex digits.
pub fn is_valid_digest(digest: &str) -> bool {
    digest.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// `sha256:<hex>` of `bytes`.
pub fn digest_of(bytes: &[u8]) -> String {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(bytes);
    let mut out = String::with_capacity(71);
    out.push_str("sha256:");
    for byte in hash.iter() {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// Read an index from its bytes.
pub fn parse(bytes: &[u8]) -> Result<Index, IndexError> {
    let at_start = |message: String| IndexError {
        line: 1,
        column: 1,
        message,
    };
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|error| {
        at_start(format!(
            "the index is not UTF-8 text (at byte {}) — it must be a JSON file",
            error.valid_up_to()
        ))
    })?;
    let value: Value = serde_json::from_str(text).map_err(|error| IndexError {
        line: u32::try_from(error.line()).unwrap_or(u32::MAX).max(1),
        column: u32::try_from(error.column()).unwrap_or(u32::MAX).max(1),
        message: format!("the index is not valid JSON ({error}) — fix the JSON"),
    })?;
    let positions = Positions::of(text);
    let error_at = |pointer: &str, message: String| {
        let (line, column) = positions.get(pointer);
        IndexError {
            line,
            column,
            message,
        }
    };
    let Some(object) = value.as_object() else {
        return Err(error_at(
            "",
            "the index is not a JSON object — a discovery index is `{\"$schema\": …, \"skills\": […]}`".into(),
        ));
    };
    match object.get("$schema") {
        None => {
            return Err(error_at(
                "",
                format!("the index has no `$schema`, so it is the 0.1.0 format, which lists files without digests — skilldex installs from 0.2.0 indexes only (`\"$schema\": \"{SCHEMA}\"`): publish it again")
            ))
        }
        Some(Value::String(schema)) if schema == SCHEMA => {}
        Some(other) => {
            return Err(error_at(
                "/$schema",
                format!(
                    "the index's `$schema` is {other}, which skilldex does not know — it reads `{SCHEMA}`"
                ),
            ))
        }
    }
    let Some(skills) = object.get("skills").and_then(Value::as_array) else {
        return Err(error_at(
            if object.contains_key("skills") {
                "/skills"
            } else {
                ""
            },
            "the index has no `skills` array — list the skills as `\"skills\": [{…}]`".into(),
        ));
    };
    if skills.len() > MAX_INDEX_ENTRIES {
        return Err(error_at(
            "/skills",
            format!(
                "the index lists {} skills; skilldex reads at most {} — split it",
                crate::text::thousands(skills.len()),
                crate::text::thousands(MAX_INDEX_ENTRIES)
            ),
        ));
    }
    let mut index = Index::default();
    let mut seen = std::collections::HashSet::new();
    for (i, skill) in skills.iter().enumerate() {
        let pointer = format!("/skills/{i}");
        match entry(skill, &pointer) {
            Ok(entry) if !seen.insert(entry.name.clone()) => {
                let (line, column) = positions.get(&format!("{pointer}/name"));
                index.problems.push(EntryProblem {
                    line,
                    column,
                    message: format!(
                        "`{}` is listed twice; the first entry is used — remove one",
                        entry.name
                    ),
                });
            }
            Ok(entry) => index.entries.push(entry),
            Err((field, message)) => {
                let (line, column) = positions.get(&format!("{pointer}{field}"));
                index.problems.push(EntryProblem {
                    line,
                    column,
                    message,
                });
            }
        }
    }
    Ok(index)
}

/// One entry, or the field (`/digest`) it is refused at and why.
fn entry(skill: &Value, pointer: &str) -> Result<IndexEntry, (String, String)> {
    let at = |field: &str, message: String| (field.to_string(), message);
    let Some(object) = skill.as_object() else {
        return Err(at(
            "",
            format!("{pointer} is not an object; it is left out"),
        ));
    };
    let text = |field: &str| -> Result<&str, (String, String)> {
        match object.get(field) {
            Some(Value::String(s)) => Ok(s.as_str()),
            Some(other) => Err(at(
                &format!("/{field}"),
                format!("`{field}` is {other}, not a string; the entry is left out"),
            )),
            None => Err(at(
                "",
                format!("the entry has no `{field}`; it is left out — add it"),
            )),
        }
    };
    let name = text("name")?;
    if !is_valid_name(name) {
        return Err(at("/name", format!("the name {name:?} is not 1-64 characters of a-z, 0-9 and single hyphens; the entry is left out")));
    }
    let kind_text = text("type")?;
    let Some(kind) = ArtifactKind::parse(kind_text) else {
        return Err(at(
            "/type",
            format!("`{name}` has the type {kind_text:?}, which skilldex does not know (`skill-md` or `archive`); it is left out"),
        ));
    };
    let description = text("description")?;
    if description.trim().is_empty() {
        return Err(at(
            "/description",
            format!("`{name}` has an empty description; it is left out"),
        ));
    }
    if description.chars().count() > MAX_DESCRIPTION_CHARS {
        return Err(at(
            "/description",
            format!("`{name}`'s description is longer than {MAX_DESCRIPTION_CHARS} characters; it is left out"),
        ));
    }
    let url = text("url")?;
    if url.is_empty() {
        return Err(at(
            "/url",
            format!("`{name}` has an empty url; it is left out"),
        ));
    }
    let digest = text("digest")?;
    if !is_valid_digest(digest) {
        return Err(at(
            "/digest",
            format!("`{name}`'s digest {digest:?} is not `sha256:` and 64 lowercase hex digits; it is left out"),
        ));
    }
    Ok(IndexEntry {
        name: name.to_string(),
        kind,
        description: description.to_string(),
        url: url.to_string(),
        digest: digest.to_string(),
    })
}

/// The index of `entries` as byte-stable JSON (sorted by name).
pub fn to_json(entries: &[IndexEntry]) -> String {
    let mut sorted: Vec<&IndexEntry> = entries.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let skills: Vec<Value> = sorted
        .iter()
        .map(|e| {
            // serde_json's map sorts keys: the order is fixed.
            let mut map = serde_json::Map::new();
            map.insert("name".into(), e.name.clone().into());
            map.insert("type".into(), e.kind.as_str().into());
            map.insert("description".into(), e.description.clone().into());
            map.insert("url".into(), e.url.clone().into());
            map.insert("digest".into(), e.digest.clone().into());
            Value::Object(map)
        })
        .collect();
    let mut document = serde_json::Map::new();
    document.insert("$schema".into(), SCHEMA.into());
    document.insert("skills".into(), Value::Array(skills));
    let mut out = serde_json::to_string_pretty(&Value::Object(document)).unwrap_or_default();
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_that_break_a_rule_are_left_out_at_their_line() {
        let digest = format!("sha256:{}", "a".repeat(64));
        let text = format!(
            "{{\"$schema\": \"{SCHEMA}\",\n \"skills\": [\n  {{\"name\": \"ok\", \"type\": \"skill-md\", \"description\": \"d\", \"url\": \"ok/SKILL.md\", \"digest\": \"{digest}\", \"extra\": 1}},\n  {{\"name\": \"Bad Name\", \"type\": \"skill-md\", \"description\": \"d\", \"url\": \"u\", \"digest\": \"{digest}\"}},\n  {{\"name\": \"zip\", \"type\": \"zip\", \"description\": \"d\", \"url\": \"u\", \"digest\": \"{digest}\"}},\n  {{\"name\": \"short\", \"type\": \"archive\", \"description\": \"d\", \"url\": \"u\", \"digest\": \"sha256:AB\"}},\n  {{\"name\": \"ok\", \"type\": \"archive\", \"description\": \"d\", \"url\": \"u\", \"digest\": \"{digest}\"}},\n  7\n ]}}"
        );
        let index = parse(text.as_bytes()).unwrap();
        assert_eq!(index.entries.len(), 1);
        assert_eq!(index.entries[0].name, "ok");
        let lines: Vec<u32> = index.problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, vec![4, 5, 6, 7, 8], "{:?}", index.problems);
        assert!(index.problems[2].message.contains("sha256"));
    }

    #[test]
    fn documents_that_are_not_0_2_0_indexes_are_errors_with_a_position() {
        let error = parse(b"{\"skills\": [\n}").unwrap_err();
        assert_eq!((error.line, error.column), (2, 1), "{error}");
        let error = parse(b"{\"skills\": []}").unwrap_err();
        assert!(error.message.contains("0.1.0"), "{error}");
        let error = parse(b"{\"$schema\": \"x\",\n \"skills\": []}").unwrap_err();
        assert_eq!(error.line, 1);
        assert!(error.message.contains("does not know"), "{error}");
        let error =
            parse(format!("{{\"$schema\": \"{SCHEMA}\",\n\"skills\": 3}}").as_bytes()).unwrap_err();
        assert_eq!(error.line, 2);
        assert!(parse(&[0xff, 0xfe]).is_err());
        // Deep nesting is serde_json's error, not a stack overflow.
        let deep = "[".repeat(100_000);
        assert!(parse(deep.as_bytes()).is_err());
    }

    #[test]
    fn the_written_index_is_sorted_and_reads_back() {
        let entry = |name: &str| IndexEntry {
            name: name.into(),
            kind: ArtifactKind::Archive,
            description: "The skill.".into(),
            url: format!("{name}.tar.gz"),
            digest: digest_of(name.as_bytes()),
        };
        let json = to_json(&[entry("b"), entry("a")]);
        assert!(json.find("\"a\"").unwrap() < json.find("\"b\"").unwrap());
        assert!(json.ends_with("}\n"));
        let back = parse(json.as_bytes()).unwrap();
        assert_eq!(back.entries, vec![entry("a"), entry("b")]);
        assert_eq!(
            digest_of(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
