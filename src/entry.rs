//! The nouns of skilldex: skills, namespaces, diagnostics and the codes that
//! classify them.
//!
//! Everything here is plain data. Types are built by `scan`/`parse`/`catalog`
//! and read by `query`, the CLI and the MCP server; none of them does I/O.
//! Diagnostic codes are a closed enum so that the stable code strings and the
//! per-profile severity table live in exactly one place.

use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// How serious a finding is. Ordered from most to least serious.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which rule set decides the severity of each finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Profile {
    /// The Agent Skills specification's rules (the default).
    #[default]
    Spec,
    /// The specification plus the stricter rules of hosted products: ASCII
    /// names, no XML tags, no reserved words, only the specified keys.
    Strict,
    /// Only what stops a skill from loading.
    Lenient,
}

impl Profile {
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Spec => "spec",
            Profile::Strict => "strict",
            Profile::Lenient => "lenient",
        }
    }
}

/// Stable identifiers of every finding skilldex reports. The string form
/// (`as_str`) is part of the public contract: scripts filter on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Code {
    // discovery
    ReadFailed,
    NotAFile,
    /// A `SKILL.md` that is a symlink to a file outside its root.
    SkillFileOutside,
    FileTooLarge,
    DanglingSymlink,
    SymlinkLoop,
    SymlinkOutsideRoot,
    WalkLimit,
    WalkError,
    // parsing
    FrontmatterMissing,
    FrontmatterUnterminated,
    FrontmatterNotAtStart,
    FrontmatterTooLarge,
    YamlInvalid,
    YamlNotMapping,
    YamlRepaired,
    YamlIndentedKey,
    YamlCommentInValue,
    YamlAliasLimit,
    Yaml11Value,
    InvalidUtf8,
    // fields
    NameMissing,
    NameInvalid,
    NameTooLong,
    NameMismatch,
    NameNotAscii,
    NameReservedWord,
    DescriptionMissing,
    DescriptionTooLong,
    DescriptionNoTrigger,
    FieldType,
    CompatibilityTooLong,
    MetadataNotStringMap,
    MetadataValueNotText,
    AllowedToolsList,
    UnknownKey,
    ClientKey,
    XmlTag,
    ControlCharacter,
    PromptInjection,
    // catalog
    NamespaceFileInvalid,
    PluginManifestInvalid,
    NameShadowed,
    BodyTooLong,
    LinkBroken,
    LinkEscapes,
    DeclaredToolUnknown,
    DeclaredServerUnknown,
    /// A finding about a tool catalog (`mcp-tools.json`): one of
    /// [`TOOL_CODES`], whose severity does not depend on the profile.
    Tool(&'static str),
}

/// The codes of tool catalogs (the snapshot file, its tools, and every
/// change the schema sanitiser makes), with their severity. Tool findings
/// do not depend on the profile: a schema a model refuses is refused by
/// every host.
pub const TOOL_CODES: &[(&str, Severity)] = &[
    ("snapshot-unreadable", Severity::Error),
    ("snapshot-invalid", Severity::Error),
    ("tool-invalid", Severity::Error),
    ("tool-name-missing", Severity::Error),
    ("tool-name-duplicate", Severity::Error),
    ("input-schema-refused", Severity::Error),
    ("snapshot-incomplete", Severity::Warning),
    ("snapshot-stale", Severity::Warning),
    ("server-invalid", Severity::Warning),
    ("tool-name-unusual", Severity::Warning),
    ("tool-description-missing", Severity::Warning),
    ("input-schema-missing", Severity::Warning),
    ("input-schema-invalid", Severity::Warning),
    ("tool-field-invalid", Severity::Warning),
    ("pinned-tool-unknown", Severity::Warning),
    ("pinned-tool-disabled", Severity::Warning),
    ("tool-description-unknown", Severity::Warning),
    ("tool-description-empty", Severity::Warning),
    ("tool-description-too-long", Severity::Warning),
    ("type-unknown", Severity::Warning),
    ("type-union-narrowed", Severity::Warning),
    ("ref-unresolved", Severity::Warning),
    ("boolean-schema", Severity::Warning),
    ("items-tuple", Severity::Warning),
    ("required-unknown", Severity::Warning),
    ("keyword-malformed", Severity::Warning),
    ("schema-not-an-object", Severity::Warning),
    ("not-an-object-schema", Severity::Warning),
    ("description-cut", Severity::Warning),
    ("schema-compacted", Severity::Warning),
    ("snapshot-unknown-key", Severity::Info),
    ("server-description-default", Severity::Info),
    ("type-renamed", Severity::Info),
    ("type-inferred", Severity::Info),
    ("const-to-enum", Severity::Info),
    ("keyword-dropped", Severity::Info),
    ("annotation-dropped", Severity::Info),
    ("properties-added", Severity::Info),
    ("items-added", Severity::Info),
    ("definitions-renamed", Severity::Info),
    ("definition-pruned", Severity::Info),
    ("description-empty", Severity::Info),
    ("description-not-a-string", Severity::Info),
    ("required-malformed", Severity::Info),
];

impl Code {
    /// Every code, in declaration order (for `--code` / `--allow` and
    /// their error messages).
    pub const ALL: &'static [Code] = &[
        Code::ReadFailed,
        Code::NotAFile,
        Code::SkillFileOutside,
        Code::FileTooLarge,
        Code::DanglingSymlink,
        Code::SymlinkLoop,
        Code::SymlinkOutsideRoot,
        Code::WalkLimit,
        Code::WalkError,
        Code::FrontmatterMissing,
        Code::FrontmatterUnterminated,
        Code::FrontmatterNotAtStart,
        Code::FrontmatterTooLarge,
        Code::YamlInvalid,
        Code::YamlNotMapping,
        Code::YamlRepaired,
        Code::YamlIndentedKey,
        Code::YamlCommentInValue,
        Code::YamlAliasLimit,
        Code::Yaml11Value,
        Code::InvalidUtf8,
        Code::NameMissing,
        Code::NameInvalid,
        Code::NameTooLong,
        Code::NameMismatch,
        Code::NameNotAscii,
        Code::NameReservedWord,
        Code::DescriptionMissing,
        Code::DescriptionTooLong,
        Code::DescriptionNoTrigger,
        Code::FieldType,
        Code::CompatibilityTooLong,
        Code::MetadataNotStringMap,
        Code::MetadataValueNotText,
        Code::AllowedToolsList,
        Code::UnknownKey,
        Code::ClientKey,
        Code::XmlTag,
        Code::ControlCharacter,
        Code::PromptInjection,
        Code::NamespaceFileInvalid,
        Code::PluginManifestInvalid,
        Code::NameShadowed,
        Code::BodyTooLong,
        Code::LinkBroken,
        Code::LinkEscapes,
        Code::DeclaredToolUnknown,
        Code::DeclaredServerUnknown,
    ];

    /// Every code: the skill codes of [`Code::ALL`], then the tool codes
    /// of [`TOOL_CODES`].
    pub fn every() -> impl Iterator<Item = Code> {
        Code::ALL
            .iter()
            .copied()
            .chain(TOOL_CODES.iter().map(|(code, _)| Code::Tool(code)))
    }

    /// The code whose `as_str` is `text`.
    pub fn parse(text: &str) -> Option<Code> {
        Code::every().find(|c| c.as_str() == text)
    }

    /// The tool code `text` (a sanitiser or snapshot code), as a
    /// [`Code::Tool`]; an unknown one is kept as written.
    pub fn tool(text: &'static str) -> Code {
        Code::Tool(
            TOOL_CODES
                .iter()
                .find(|(code, _)| *code == text)
                .map_or(text, |(code, _)| code),
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Code::ReadFailed => "read-failed",
            Code::NotAFile => "not-a-file",
            Code::SkillFileOutside => "skill-file-outside",
            Code::FileTooLarge => "file-too-large",
            Code::DanglingSymlink => "dangling-symlink",
            Code::SymlinkLoop => "symlink-loop",
            Code::SymlinkOutsideRoot => "symlink-outside-root",
            Code::WalkLimit => "walk-limit",
            Code::WalkError => "walk-error",
            Code::FrontmatterMissing => "frontmatter-missing",
            Code::FrontmatterUnterminated => "frontmatter-unterminated",
            Code::FrontmatterNotAtStart => "frontmatter-not-at-start",
            Code::FrontmatterTooLarge => "frontmatter-too-large",
            Code::YamlInvalid => "yaml-invalid",
            Code::YamlNotMapping => "yaml-not-mapping",
            Code::YamlRepaired => "yaml-repaired",
            Code::YamlIndentedKey => "yaml-indented-key",
            Code::YamlCommentInValue => "yaml-comment-in-value",
            Code::YamlAliasLimit => "yaml-alias-limit",
            Code::Yaml11Value => "yaml11-value",
            Code::InvalidUtf8 => "invalid-utf8",
            Code::NameMissing => "name-missing",
            Code::NameInvalid => "name-invalid",
            Code::NameTooLong => "name-too-long",
            Code::NameMismatch => "name-mismatch",
            Code::NameNotAscii => "name-not-ascii",
            Code::NameReservedWord => "name-reserved-word",
            Code::DescriptionMissing => "description-missing",
            Code::DescriptionTooLong => "description-too-long",
            Code::DescriptionNoTrigger => "description-no-trigger",
            Code::FieldType => "field-type",
            Code::CompatibilityTooLong => "compatibility-too-long",
            Code::MetadataNotStringMap => "metadata-not-string-map",
            Code::MetadataValueNotText => "metadata-value-not-text",
            Code::AllowedToolsList => "allowed-tools-list",
            Code::UnknownKey => "unknown-key",
            Code::ClientKey => "client-key",
            Code::XmlTag => "xml-tag",
            Code::ControlCharacter => "control-character",
            Code::PromptInjection => "prompt-injection",
            Code::NamespaceFileInvalid => "namespace-file-invalid",
            Code::PluginManifestInvalid => "plugin-manifest-invalid",
            Code::NameShadowed => "name-shadowed",
            Code::BodyTooLong => "body-too-long",
            Code::LinkBroken => "link-broken",
            Code::LinkEscapes => "link-escapes",
            Code::DeclaredToolUnknown => "declared-tool-unknown",
            Code::DeclaredServerUnknown => "declared-server-unknown",
            Code::Tool(code) => code,
        }
    }

    /// The severity of this finding under `profile`, or `None` when the
    /// profile does not report it at all.
    ///
    /// Findings that stop a skill from loading are errors in every profile;
    /// the rest follow the profile's intent.
    pub fn severity(self, profile: Profile) -> Option<Severity> {
        use Severity::*;
        let (spec, strict, lenient) = match self {
            // A skill cannot load: error everywhere.
            Code::ReadFailed
            | Code::NotAFile
            | Code::SkillFileOutside
            | Code::FrontmatterMissing
            | Code::FrontmatterUnterminated
            | Code::FrontmatterTooLarge
            | Code::YamlInvalid
            | Code::YamlNotMapping
            | Code::YamlAliasLimit
            | Code::DescriptionMissing => (Some(Error), Some(Error), Some(Error)),
            // Loaded, but the file breaks a rule of the format.
            Code::FileTooLarge
            | Code::InvalidUtf8
            | Code::NameMissing
            | Code::NameInvalid
            | Code::NameTooLong
            | Code::NameMismatch
            | Code::DescriptionTooLong
            | Code::CompatibilityTooLong
            | Code::MetadataNotStringMap
            | Code::FieldType => (Some(Error), Some(Error), Some(Warning)),
            // Discovery problems: the tree is odd, the catalog still loads.
            Code::DanglingSymlink | Code::SymlinkLoop | Code::WalkLimit | Code::WalkError => {
                (Some(Warning), Some(Warning), Some(Warning))
            }
            Code::SymlinkOutsideRoot => (Some(Info), Some(Info), None),
            Code::FrontmatterNotAtStart
            | Code::YamlRepaired
            | Code::YamlIndentedKey
            | Code::YamlCommentInValue
            | Code::ControlCharacter => (Some(Warning), Some(Error), Some(Warning)),
            // A value with a text form (a number, a boolean, a list of tool
            // names) that hosts read as they are: worth fixing, not fatal.
            Code::MetadataValueNotText | Code::AllowedToolsList | Code::PromptInjection => {
                (Some(Warning), Some(Error), None)
            }
            Code::NameShadowed | Code::NamespaceFileInvalid | Code::PluginManifestInvalid => {
                (Some(Warning), Some(Warning), Some(Warning))
            }
            Code::Yaml11Value => (Some(Warning), Some(Warning), None),
            Code::UnknownKey => (Some(Warning), Some(Error), None),
            Code::ClientKey => (Some(Info), Some(Warning), None),
            Code::NameNotAscii | Code::NameReservedWord | Code::XmlTag => (None, Some(Error), None),
            Code::DescriptionNoTrigger => (Some(Info), Some(Warning), None),
            Code::BodyTooLong => (Some(Warning), Some(Warning), None),
            Code::LinkBroken | Code::LinkEscapes | Code::DeclaredToolUnknown => {
                (Some(Warning), Some(Error), None)
            }
            Code::DeclaredServerUnknown => (Some(Info), Some(Warning), None),
            Code::Tool(code) => {
                // The same in every profile; an unknown tool code is a
                // sanitiser's note.
                let severity = TOOL_CODES
                    .iter()
                    .find(|(c, _)| *c == code)
                    .map_or(Info, |(_, severity)| *severity);
                (Some(severity), Some(severity), Some(severity))
            }
        };
        match profile {
            Profile::Spec => spec,
            Profile::Strict => strict,
            Profile::Lenient => lenient,
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A finding about one file: where, how serious, which rule, and what to do.
///
/// Lines and columns are 1-based; a finding about a whole file or folder
/// points at line 1, column 1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub path: PathBuf,
    pub line: u32,
    pub column: u32,
    pub severity: Severity,
    pub code: Code,
    pub message: String,
}

impl Diagnostic {
    /// Sort key giving a stable, reader-friendly order: by file, then
    /// position, then code.
    pub fn sort_key(&self) -> (&Path, u32, u32, Code, &str) {
        (&self.path, self.line, self.column, self.code, &self.message)
    }
}

/// A position inside a file, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

impl Position {
    pub const START: Position = Position { line: 1, column: 1 };
}

/// One skill of the catalog: what the directory shows and where to find the
/// rest. The body is not kept: it is read from disk when asked for, so a
/// catalog of thousands of skills stays small.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skill {
    /// Unique within a catalog: the name, or `namespace/name` when another
    /// skill of higher precedence holds the plain name.
    pub id: String,
    /// The name, normalised to one line (front matter `name`, else the folder).
    pub name: String,
    /// Folder path between the root and the skill folder, `/`-separated;
    /// empty for skills at the top of a root. In a plugin, the plugin's
    /// name instead of the path to its skills folder (`scan::plugin`).
    pub namespace: String,
    /// The namespace is a plugin: the name is qualified `plugin:name`, as
    /// Claude Code writes it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub plugin: bool,
    /// The description, normalised to one line.
    pub description: String,
    /// The description exactly as the YAML parser produced it.
    pub raw_description: String,
    /// The `SKILL.md` file (the root joined with the path inside it).
    pub path: PathBuf,
    /// Index of the root this skill came from (0 = highest precedence).
    pub root: usize,
    /// Optional fields of the format, kept when they have the right type.
    pub license: Option<String>,
    pub compatibility: Option<String>,
    pub allowed_tools: Option<String>,
    pub metadata: BTreeMap<String, String>,
    /// Every other front-matter key, as JSON values, in key order.
    pub extra: BTreeMap<String, serde_json::Value>,
    /// Size of `SKILL.md` in bytes.
    pub file_bytes: u64,
    /// A hash of the `SKILL.md` bytes (of its head, size and modification
    /// time when only the head was read): a new value means a new version.
    #[serde(skip)]
    pub content_hash: u64,
    /// 1-based line where the Markdown body starts.
    pub body_line: u32,
    /// Byte offset where the Markdown body starts.
    pub body_offset: usize,
    /// Where the `name` and `description` values sit in the file, for
    /// diagnostics and editors.
    pub name_position: Option<Position>,
    pub description_position: Option<Position>,
    /// True when the plain name is held by a skill of higher precedence and
    /// this one is reachable only by its qualified id.
    pub shadowed: bool,
    /// What search reads of the body (headings, lead, "when to use"
    /// items). Not serialized: `show` reports the full
    /// outline.
    #[serde(skip)]
    pub body: BodyText,
    /// The MCP tools the skill declares it needs (`allowed-tools`,
    /// `metadata.mcp-tools`, `agents/openai.yaml`), in that order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub declared_tools: Vec<DeclaredTool>,
}

/// What search reads of a skill's body, beyond its front matter: a line
/// scan of it during the scan (`parse::markdown::body_text`), each part
/// capped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BodyText {
    /// The ATX headings (outside code fences), one per line.
    pub headings: String,
    /// The first paragraph of prose (at most 400 bytes).
    pub lead: String,
    /// The list items of the sections whose heading says when to use the
    /// skill ("When to Use This Skill", "Use cases"; not "When not to
    /// use"), their marks dropped: the situations the author names.
    pub triggers: String,
}

impl Skill {
    /// The skill folder.
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new(""))
    }

    /// `namespace/name`, the form that stays unique across namespaces;
    /// `plugin:name` for a skill of a plugin.
    pub fn qualified_name(&self) -> String {
        if self.namespace.is_empty() {
            self.name.clone()
        } else if self.plugin {
            format!("{}:{}", self.namespace, self.name)
        } else {
            format!("{}/{}", self.namespace, self.name)
        }
    }

    /// Does `key` name this skill? A key names a skill by its name, its id
    /// or its qualified name (`namespace/name`), with surrounding space and
    /// slashes ignored. Every place that matches a user's key to a skill
    /// (configuration lists, enable requests, lookups of disabled skills)
    /// asks this, so they cannot disagree.
    pub fn answers_to(&self, key: &str) -> bool {
        let key = key.trim().trim_matches('/');
        key == self.name
            || key == self.id
            || key
                .strip_prefix(self.namespace.as_str())
                .and_then(|rest| {
                    // `plugin:name` for a plugin's skill, as Claude Code writes it.
                    rest.strip_prefix('/')
                        .or_else(|| rest.strip_prefix(':').filter(|_| self.plugin))
                })
                .is_some_and(|rest| !self.namespace.is_empty() && rest == self.name)
    }
}

/// A folder that groups skills. Namespaces are the first level of
/// hierarchical navigation: find the namespace, then the skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Namespace {
    /// `/`-separated folder path inside its root; empty for the top level.
    pub name: String,
    /// From the folder's `README.md`/`index.md` front matter, else a default
    /// sentence. Never empty.
    pub description: String,
    /// Ids of the skills directly in this namespace, in directory order.
    pub skills: Vec<String>,
}

impl Namespace {
    /// How the namespace is named to a reader: the top level gets a word
    /// instead of an empty string.
    pub fn display_name(&self) -> &str {
        if self.name.is_empty() {
            "(top level)"
        } else {
            &self.name
        }
    }

    pub fn default_description(name: &str) -> String {
        if name.is_empty() {
            "Skills at the top level of the skill roots.".to_string()
        } else {
            format!("Skills in the {name} namespace.")
        }
    }
}

/// Characters that must not reach a prompt or a terminal as they are:
/// control characters (C0 and C1, DEL) and the bidirectional overrides
/// and isolates, which can make text read other than it is.
pub fn is_hidden_control(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with each hidden control character (`is_hidden_control`) written
/// as a visible escape (`\n`, `\u{1b}`): for paths and folder names, which
/// must stay recognisable.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(is_hidden_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_hidden_control(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Collapse every run of whitespace (including newlines) into one space and
/// trim the ends: the one-line form used in directories. Other control
/// characters and bidirectional overrides count as whitespace, so they
/// never reach a prompt.
pub fn one_line(text: &str) -> String {
    // Most descriptions already are one line: ASCII with single spaces
    // inside, checked in one pass.
    let bytes = text.as_bytes();
    let mut already = bytes.first() != Some(&b' ') && bytes.last() != Some(&b' ');
    let mut previous = 0u8;
    for &b in bytes {
        // Other ASCII whitespace or control characters, a second space
        // in a row, or any non-ASCII byte.
        if !(b' '..0x7f).contains(&b) || (b == b' ' && previous == b' ') {
            already = false;
            break;
        }
        previous = b;
    }
    if already {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for word in text
        .split(|c: char| c.is_whitespace() || is_hidden_control(c))
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// One MCP tool a skill declares it needs (or every tool of a server);
/// read and resolved by `crate::declared`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DeclaredTool {
    pub server: String,
    /// `None`: every tool of the server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Where it is declared: `allowed-tools`, `metadata.mcp-tools` or
    /// `agents/openai.yaml`.
    pub declared_in: &'static str,
    /// The file that declares it (the skill file, or the Codex file).
    pub path: std::path::PathBuf,
    pub line: u32,
    pub column: u32,
}

impl DeclaredTool {
    /// `server/tool`, or `server` for a whole server.
    pub fn id(&self) -> String {
        match &self.tool {
            Some(tool) => format!("{}/{tool}", self.server),
            None => self.server.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_names_a_skill_by_name_id_or_qualified_name() {
        let skill = Skill {
            id: "docs/pdf".into(),
            name: "pdf".into(),
            namespace: "docs".into(),
            plugin: false,
            description: String::new(),
            raw_description: String::new(),
            path: PathBuf::from("skills/docs/pdf/SKILL.md"),
            root: 0,
            license: None,
            compatibility: None,
            allowed_tools: None,
            metadata: BTreeMap::new(),
            extra: BTreeMap::new(),
            file_bytes: 0,
            content_hash: 0,
            body_line: 1,
            body_offset: 0,
            name_position: None,
            description_position: None,
            shadowed: true,
            body: Default::default(),
            declared_tools: Vec::new(),
        };
        for key in ["pdf", "docs/pdf", " /docs/pdf/ ", "pdf/"] {
            assert!(skill.answers_to(key), "{key}");
        }
        for key in ["docs", "pd", "other/pdf", "docs/pdf/x", "", "/"] {
            assert!(!skill.answers_to(key), "{key}");
        }
        let top = Skill {
            namespace: String::new(),
            id: "pdf".into(),
            ..skill.clone()
        };
        assert!(top.answers_to("pdf"));
        assert!(!top.answers_to("/pdf/x"));
        // `plugin:name` names a plugin's skill, and only a plugin's.
        assert!(!skill.answers_to("docs:pdf"));
        let in_plugin = Skill {
            plugin: true,
            namespace: "docs".into(),
            ..top.clone()
        };
        assert!(in_plugin.answers_to("docs:pdf"));
        assert!(in_plugin.answers_to("docs/pdf"));
        assert!(!in_plugin.answers_to("other:pdf"));
    }

    proptest::proptest! {
        #[test]
        fn one_line_is_the_words_joined_by_single_spaces(text in "[a b\t\n\r\u{b}\u{c}\u{3000}é]{0,12}") {
            let words: Vec<&str> = text.split_whitespace().collect();
            proptest::prop_assert_eq!(one_line(&text), words.join(" "));
        }
    }

    #[test]
    fn control_characters_are_dropped_or_shown() {
        assert_eq!(
            one_line("a \u{0} b\u{1b}[31m c\u{202e}d\u{7f}"),
            "a b [31m c d"
        );
        assert_eq!(printable("new\nline\u{1b}"), "new\\nline\\u{1b}");
        assert!(matches!(
            printable("plain é"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn one_line_collapses_whitespace() {
        assert_eq!(one_line("  a\n  b\t\tc \r\n"), "a b c");
        assert_eq!(one_line("a b"), "a b");
        assert_eq!(one_line("a\u{b}b"), "a b");
        assert_eq!(one_line("a\u{3000}b"), "a b");
        assert_eq!(one_line(""), "");
    }

    #[test]
    fn every_code_is_listed_once_and_parses_back() {
        let mut names: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        for code in Code::ALL {
            assert_eq!(Code::parse(code.as_str()), Some(*code));
        }
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Code::ALL.len());
        // A code left out of `ALL` would still be reported but could not
        // be filtered: the last one declared is the canary.
        assert_eq!(Code::ALL.last(), Some(&Code::DeclaredServerUnknown));
    }

    #[test]
    fn loading_failures_are_errors_in_every_profile() {
        for profile in [Profile::Spec, Profile::Strict, Profile::Lenient] {
            assert_eq!(
                Code::DescriptionMissing.severity(profile),
                Some(Severity::Error)
            );
        }
        assert_eq!(Code::NameNotAscii.severity(Profile::Spec), None);
        assert_eq!(
            Code::NameNotAscii.severity(Profile::Strict),
            Some(Severity::Error)
        );
    }
}
