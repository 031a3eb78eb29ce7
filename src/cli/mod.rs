//! The command line: argument parsing, the mapping of flags onto the
//! library's builders (in exactly one function), and all terminal output.
//!
//! This is the only module (with the MCP server) that writes to stdout or
//! stderr. stdout carries data only; summaries, notes and errors go to
//! stderr. Exit codes: 0 ok, 1 findings (lint errors, unknown skill), 2 usage
//! or I/O errors. A closed pipe is not an error.

/// `eprintln!` that never panics: with stderr closed (`2>&-`, a reader
/// that went away) the message is lost, not the run. Every `skilldex …`
/// command a message suggests gets the global flags of this run (see
/// [`runnable`]), so it runs as printed.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let line = format!($($arg)*);
        let _ = writeln!(std::io::stderr().lock(), "{}", $crate::cli::runnable(&line));
    }};
}

mod commands;
mod eval;
mod grep;
mod install;
mod link;
mod lint;
mod list;
mod model;
mod publish;
mod read;
mod render_cmd;
mod search;
mod serve;
mod show;
mod style;
mod tools;
mod tools_lint;
mod tools_spec;
mod tools_sync;
mod watch;

use clap::{Args, Parser, Subcommand, ValueEnum};
use skilldex::catalog::{Catalog, CatalogBuilder};
use skilldex::entry::Profile;
use skilldex::query::{Format, Mode, PathStyle};
use std::path::PathBuf;
use std::process::ExitCode;

/// skilldex — turn folders of Markdown skills into a directory an agent can
/// discover, search and read on demand.
#[derive(Debug, Parser)]
#[command(name = "skilldex", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Args)]
struct GlobalArgs {
    /// A folder of skills; repeat for several (earlier ones win name
    /// collisions). Default: ./skills, ./.agents/skills, ./.claude/skills,
    /// ./.codex/skills, ~/.agents/skills, ~/.claude/skills (those that exist),
    /// or the folders in SKILLDEX_ROOTS.
    #[arg(long = "root", value_name = "DIR", global = true)]
    roots: Vec<PathBuf>,
    /// Read this configuration file instead of ./skilldex.yaml and the
    /// user's ~/.config/skilldex/skilldex.yaml (also SKILLDEX_CONFIG).
    #[arg(long = "config", value_name = "FILE", global = true)]
    config: Option<PathBuf>,
    /// When to color output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    color: ColorChoice,
    /// Print nothing on stderr but errors.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// Print every diagnostic on stderr, not only a summary.
    #[arg(short, long, global = true)]
    verbose: bool,
    /// How deep below a root entries are read (default 16): a folder at
    /// depth N is seen but not entered, so `root/a/b/SKILL.md` needs 3.
    #[arg(long, value_name = "N", global = true)]
    max_depth: Option<usize>,
    /// Files and folders visited per root before the walk stops.
    #[arg(long, value_name = "N", global = true)]
    max_entries: Option<usize>,
    /// SKILL.md size above which it is reported and only its header is read.
    #[arg(long, value_name = "BYTES", global = true)]
    max_file_bytes: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the skills directory for an agent's prompt.
    Render(RenderArgs),
    /// Check skills against the Agent Skills rules and report problems.
    Lint(LintArgs),
    /// Show the catalog as a tree: namespaces, skills, token costs.
    List(ListArgs),
    /// Show everything about one skill: metadata, outline, files.
    Show(ShowArgs),
    /// Read a skill's body, one section, a range of lines, or one of its files.
    Read(ReadArgs),
    /// Search every file of every skill for a pattern (a regex by default).
    Grep(GrepArgs),
    /// Serve the catalog to an agent over MCP (stdio).
    Serve(serve::ServeArgs),
    /// Print skilldex's own tool definitions, the ones `serve` publishes
    /// (MCP or OpenAI shape), for hosts that wire the tools themselves.
    AgentTools(tools::AgentToolsArgs),
    /// Act on the tool catalogs: sync them from MCP servers, print a
    /// catalog tool's full definition.
    Tools(tools::ToolsArgs),
    /// Find the skills that fit a task, ranked by relevance.
    Search(search::SearchArgs),
    /// Measure search on a file of requests and the entries they expect.
    Eval(eval::EvalArgs),
    /// Follow the skill folders live: the directory, then each change as it lands.
    Watch(watch::WatchArgs),
    /// Lay the catalog out in a host's own skills folder (flat names, links).
    Link(link::LinkArgs),
    /// Get a sentence-embedding model for the semantic search mode.
    Model(model::ModelCommandArgs),
    /// Write the catalog as an Agent Skills discovery index (index.json,
    /// SKILL.md files and .tar.gz archives) under DIR/.well-known/agent-skills.
    Publish(publish::PublishArgs),
    /// Install skills offered by `available:` (or --from) and record them
    /// in skilldex.lock; --locked installs what the lock file records.
    Install(install::InstallArgs),
}

#[derive(Debug, Args)]
struct RenderArgs {
    /// Output format [default: markdown, or `format` of skilldex.yaml].
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// Same as --format json.
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// How skill paths are shown.
    #[arg(long, value_enum, default_value_t = PathsArg::Absolute)]
    paths: PathsArg,
    /// Fit the directory in this many tokens (o200k tokenizer).
    #[arg(long, value_name = "N", conflicts_with_all = ["budget_chars", "host", "context_tokens"])]
    budget_tokens: Option<usize>,
    /// Fit the directory in this many characters.
    #[arg(long, value_name = "N", conflicts_with_all = ["host", "context_tokens"])]
    budget_chars: Option<usize>,
    /// Fit the directory in the skill-listing budget of this agent host
    /// (its share of the context window; see docs/render.md), and say
    /// what it left out.
    #[arg(long, value_enum)]
    host: Option<HostArg>,
    /// The model's context window, in tokens: the budget is the host's
    /// share of it (with --host), else 1% of it.
    #[arg(long, value_name = "N")]
    context_tokens: Option<usize>,
    /// What to show: bodies inline (full), one line per skill (directory),
    /// one line per namespace (namespaces), or pick by size (auto).
    #[arg(long, value_enum, default_value_t = ModeArg::Auto)]
    mode: ModeArg,
    /// Print only what changed since PREVIOUS.json (the output of an
    /// earlier `render --format json`), as a block to append to that
    /// directory; nothing when nothing changed.
    #[arg(long, value_name = "PREVIOUS.json")]
    since: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    Markdown,
    Xml,
    Json,
    AgentsMd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum HostArg {
    Claude,
    Codex,
    Gemini,
    Copilot,
    Opencode,
}

impl From<HostArg> for skilldex::query::Host {
    fn from(host: HostArg) -> Self {
        use skilldex::query::Host;
        match host {
            HostArg::Claude => Host::Claude,
            HostArg::Codex => Host::Codex,
            HostArg::Gemini => Host::Gemini,
            HostArg::Copilot => Host::Copilot,
            HostArg::Opencode => Host::Opencode,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum PathsArg {
    Absolute,
    Relative,
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ModeArg {
    Auto,
    Full,
    Directory,
    Namespaces,
}

#[derive(Debug, Args)]
struct LintArgs {
    /// Which rules apply.
    #[arg(long, value_enum, default_value_t = ProfileArg::Spec)]
    profile: ProfileArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = LintFormat::Text)]
    format: LintFormat,
    /// Same as --format json.
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// Report only findings at least this serious.
    #[arg(long, value_enum, value_name = "LEVEL")]
    severity: Option<SeverityArg>,
    /// Report only these codes (repeat, or separate with commas; `link-*`
    /// names a family).
    #[arg(long = "code", value_name = "CODE", value_delimiter = ',')]
    codes: Vec<String>,
    /// Leave these codes out (repeat, or separate with commas): they are
    /// neither reported nor fail the run.
    #[arg(long = "allow", value_name = "CODE", value_delimiter = ',')]
    allow: Vec<String>,
    /// Print at most N findings; the rest are counted by code.
    #[arg(long, value_name = "N")]
    max_findings: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SeverityArg {
    Error,
    Warning,
    Info,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ProfileArg {
    Spec,
    Strict,
    Lenient,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum LintFormat {
    Text,
    Json,
}

#[derive(Debug, Args)]
struct ListArgs {
    /// Only this namespace (and the namespaces below it).
    #[arg(long, value_name = "NAME")]
    namespace: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct ShowArgs {
    /// Skill name or qualified id (`namespace/name`).
    name: String,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct ReadArgs {
    /// `NAME` for the skill's body, or `NAME/PATH` for a file inside it
    /// (e.g. `pdf-extract/references/tools.md`).
    target: String,
    /// The whole file, front matter included.
    #[arg(long, conflicts_with_all = ["section", "lines"])]
    raw: bool,
    /// Only the section under this heading (its text or its slug).
    #[arg(long, value_name = "HEADING", conflicts_with = "lines")]
    section: Option<String>,
    /// Only these lines of the file: `A:B`, `A:` or `:B` (1-based, inclusive).
    #[arg(long, value_name = "A:B")]
    lines: Option<skilldex::query::LineRange>,
    /// Cut the answer at about this many tokens (at a line boundary).
    #[arg(long, value_name = "N", default_value_t = skilldex::query::read::DEFAULT_MAX_TOKENS)]
    max_tokens: usize,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct GrepArgs {
    /// A regular expression (Rust regex syntax), or text with -F.
    pattern: String,
    /// Only this skill (name or `namespace/name`).
    #[arg(long, value_name = "NAME")]
    skill: Option<String>,
    /// Only skills in this namespace (and those below it).
    #[arg(long, value_name = "NS", conflicts_with = "skill")]
    namespace: Option<String>,
    /// Match case-insensitively.
    #[arg(short = 'i', long)]
    ignore_case: bool,
    /// Case-insensitive unless the pattern has an upper-case letter.
    #[arg(short = 'S', long)]
    smart_case: bool,
    /// Treat the pattern as literal text.
    #[arg(short = 'F', long)]
    fixed_strings: bool,
    /// Match whole words only.
    #[arg(short = 'w', long)]
    word_regexp: bool,
    /// Lines of context before and after each match.
    #[arg(short = 'C', long, value_name = "N")]
    context: Option<usize>,
    /// Lines of context after each match.
    #[arg(short = 'A', long, value_name = "N")]
    after_context: Option<usize>,
    /// Lines of context before each match.
    #[arg(short = 'B', long, value_name = "N")]
    before_context: Option<usize>,
    /// Stop after N matches in each file.
    #[arg(short = 'm', long, value_name = "N")]
    max_count: Option<u64>,
    /// Stop after N matches in all; the answer then says it was cut.
    #[arg(long, value_name = "N")]
    max_results: Option<usize>,
    /// Print only the files that match.
    #[arg(short = 'l', long)]
    files_with_matches: bool,
    /// Print JSON lines: matches, context, and a last summary.
    #[arg(long)]
    json: bool,
}

/// The global flags that chose this run's catalog (` --root R` …), set
/// once the arguments are parsed.
static GLOBAL_FLAGS: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// `message` with the global flags of this run after every backquoted
/// `` `skilldex `` command it suggests (`skilldex lint`, `skilldex list`
/// …), so the command finds the same skills when run as printed. A command
/// that already carries them is left as it is.
pub(crate) fn runnable(message: &str) -> std::borrow::Cow<'_, str> {
    const COMMAND: &str = "`skilldex ";
    let flags = GLOBAL_FLAGS.get().map_or("", String::as_str);
    if flags.is_empty() || !message.contains(COMMAND) {
        return std::borrow::Cow::Borrowed(message);
    }
    let mut out = String::with_capacity(message.len() + flags.len() * 2);
    let mut rest = message;
    while let Some(at) = rest.find(COMMAND) {
        let (head, tail) = rest.split_at(at + COMMAND.len() - 1);
        out.push_str(head);
        // A command that already names its roots or configuration (search
        // quotes the ones it was given) is left as it is.
        let command = &tail[..tail[1..].find('`').map_or(tail.len(), |end| end + 1)];
        let placed = command.contains(" --root ") || command.contains(" --config ");
        if !placed && !tail.starts_with(flags) {
            out.push_str(flags);
        }
        rest = tail;
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// Parse arguments, run the command, and map the outcome to an exit code.
pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let code = if error.use_stderr() { 2 } else { 0 };
            let _ = error.print();
            return ExitCode::from(code);
        }
    };
    let _ = GLOBAL_FLAGS.set(commands::global_flags(&cli.global));
    match commands::dispatch(&cli) {
        Ok(code) => code,
        Err(error) => {
            if is_broken_pipe(&error) {
                return ExitCode::SUCCESS;
            }
            say!("skilldex: error: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .and_then(serde_json::Error::io_error_kind)
                == Some(std::io::ErrorKind::BrokenPipe)
    })
}

/// The configuration files and `SKILLDEX_*` variables, merged.
fn settings(global: &GlobalArgs) -> anyhow::Result<skilldex::config::Settings> {
    let sources = skilldex::config::Sources::from_environment(global.config.clone());
    Ok(skilldex::config::load(&sources)?)
}

/// Where a root came from, so that a message about it can say what to fix.
#[derive(Debug, Clone, PartialEq, Eq)]
enum RootOrigin {
    Flag,
    Config(skilldex::config::Origin),
    Default,
}

/// The roots to scan, each with its origin: flags, else `SKILLDEX_ROOTS`,
/// else the configuration files' `roots`, else the default locations that
/// exist.
fn resolve_roots(
    global: &GlobalArgs,
    settings: &skilldex::config::Settings,
) -> anyhow::Result<Vec<(PathBuf, RootOrigin)>> {
    if !global.roots.is_empty() {
        return Ok(global
            .roots
            .iter()
            .map(|root| (root.clone(), RootOrigin::Flag))
            .collect());
    }
    if let Some(roots) = &settings.roots {
        let origins = settings
            .roots_origin
            .iter()
            .cloned()
            .map(RootOrigin::Config);
        return Ok(roots.iter().cloned().zip(origins).collect());
    }
    let mut candidates: Vec<PathBuf> = [
        "skills",
        ".agents/skills",
        ".claude/skills",
        ".codex/skills",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        let home = PathBuf::from(home);
        candidates.push(home.join(".agents/skills"));
        candidates.push(home.join(".claude/skills"));
    }
    let existing: Vec<PathBuf> = candidates.iter().filter(|p| p.is_dir()).cloned().collect();
    if existing.is_empty() {
        anyhow::bail!(
            "no skill folders found (looked in {}) — pass --root DIR",
            candidates
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(existing
        .into_iter()
        .map(|root| (root, RootOrigin::Default))
        .collect())
}

/// The one place flags become builder settings.
fn builder(global: &GlobalArgs, profile: Profile) -> anyhow::Result<CatalogBuilder> {
    let settings = settings(global)?;
    let roots = resolve_roots(global, &settings)?;
    let mut builder = CatalogBuilder::new(roots.into_iter().map(|(root, _)| root))
        .profile(profile)
        .disabled(settings.disabled.iter().cloned())
        .tool_descriptions(
            settings
                .tool_descriptions
                .iter()
                .map(|d| (d.id.clone(), d.description.clone())),
        );
    if let Some(depth) = global.max_depth {
        builder = builder.max_depth(depth);
    }
    if let Some(entries) = global.max_entries {
        builder = builder.max_entries(entries);
    }
    if let Some(bytes) = global.max_file_bytes {
        builder = builder.max_file_bytes(bytes);
    }
    Ok(builder)
}

/// Build the catalog; a bad root is reported with where it came from, and
/// names in the configuration that match no skill are warned about.
fn build(global: &GlobalArgs, builder: &CatalogBuilder) -> anyhow::Result<Catalog> {
    let catalog = builder
        .build()
        .map_err(|error| explain_root_error(global, error))?;
    warn_unknown_names(global, &catalog);
    Ok(catalog)
}

/// A missing root or a file given as a root, with what to fix: the flag,
/// the variable, or the entry of the configuration file.
fn explain_root_error(global: &GlobalArgs, error: skilldex::CatalogError) -> anyhow::Error {
    use skilldex::config::Origin;
    use skilldex::CatalogError;
    let (root, problem) = match &error {
        // A link to nothing (or to itself) exists, but leads nowhere.
        CatalogError::RootNotFound(root)
            if std::fs::symlink_metadata(root).is_ok_and(|m| m.file_type().is_symlink()) =>
        {
            (
                root,
                "is a symlink that leads nowhere (its target is missing, or it loops back to itself)",
            )
        }
        CatalogError::RootNotFound(root) => (root, "does not exist"),
        CatalogError::RootNotADirectory(root) => (root, "is not a folder"),
    };
    let origin = settings(global)
        .ok()
        .and_then(|settings| resolve_roots(global, &settings).ok())
        .and_then(|roots| roots.into_iter().find(|(path, _)| path == root))
        .map(|(_, origin)| origin);
    let what_to_do = match origin {
        Some(RootOrigin::Flag) => "check the path given to --root".to_string(),
        Some(RootOrigin::Config(Origin::Variable(variable))) => format!(
            "it comes from {variable} (a `:`-separated list of folders); fix or unset the variable, or pass --root"
        ),
        Some(RootOrigin::Config(origin @ Origin::File { .. })) => format!(
            "it comes from `roots` at {origin} (relative paths start at that file's folder); fix the entry, or pass --root"
        ),
        Some(RootOrigin::Default) | None => return error.into(),
    };
    anyhow::anyhow!("skill root {} {problem} — {what_to_do}", root.display())
}

/// One warning on stderr for each `disabled`/`enabled` name that matches
/// no skill: it changes nothing, so it is most likely misspelt.
fn warn_unknown_names(global: &GlobalArgs, catalog: &Catalog) {
    if global.quiet {
        return;
    }
    let Ok(settings) = settings(global) else {
        return;
    };
    for unknown in settings.unknown_names(|name| catalog.names_any_skill(name)) {
        let similar = catalog.similar_including_disabled(&unknown.name, 3);
        let advice = if similar.is_empty() {
            "check the spelling (`skilldex list` shows the skills)".to_string()
        } else {
            format!(
                "did you mean {}?",
                similar
                    .iter()
                    .map(|id| format!("`{id}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        say!(
            "skilldex: warning: {}: `{}` names `{}`, which matches no skill — {advice}",
            unknown.origin,
            unknown.key,
            unknown.name
        );
    }
}

impl From<FormatArg> for Format {
    fn from(value: FormatArg) -> Self {
        match value {
            FormatArg::Markdown => Format::Markdown,
            FormatArg::Xml => Format::Xml,
            FormatArg::Json => Format::Json,
            FormatArg::AgentsMd => Format::AgentsMd,
        }
    }
}

impl From<PathsArg> for PathStyle {
    fn from(value: PathsArg) -> Self {
        match value {
            PathsArg::Absolute => PathStyle::Absolute,
            PathsArg::Relative => PathStyle::Relative,
            PathsArg::None => PathStyle::None,
        }
    }
}

impl From<ModeArg> for Mode {
    fn from(value: ModeArg) -> Self {
        match value {
            ModeArg::Auto => Mode::Auto,
            ModeArg::Full => Mode::Full,
            ModeArg::Directory => Mode::Directory,
            ModeArg::Namespaces => Mode::Namespaces,
        }
    }
}

impl From<ProfileArg> for Profile {
    fn from(value: ProfileArg) -> Self {
        match value {
            ProfileArg::Spec => Profile::Spec,
            ProfileArg::Strict => Profile::Strict,
            ProfileArg::Lenient => Profile::Lenient,
        }
    }
}
