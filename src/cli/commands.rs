//! What the commands share: the dispatch to each command's file (render,
//! lint, list, show, read, grep, serve, tools, search, watch, link, publish,
//! install), the one
//! buffered stdout writer, diagnostic lines, and the words that make a
//! suggested command run as printed. Data goes to stdout; everything meant
//! for the person at the terminal goes to stderr.

use super::style::Style;
use super::{Cli, Command};
use anyhow::Context as _;
use skilldex::catalog::Catalog;
use skilldex::entry::{Diagnostic, Severity};
use skilldex::query::{self};
use skilldex::rules::thousands;
use std::io::Write;
use std::process::ExitCode;

pub(super) fn dispatch(cli: &Cli) -> anyhow::Result<ExitCode> {
    match &cli.command {
        Command::Render(args) => super::render_cmd::render_command(cli, args),
        Command::Lint(args) => super::lint::lint_command(cli, args),
        Command::List(args) => super::list::list_command(cli, args),
        Command::Show(args) => super::show::show_command(cli, args),
        Command::Read(args) => super::read::read_command(cli, args),
        Command::Grep(args) => super::grep::grep_command(cli, args),
        Command::Serve(args) => super::serve::serve_command(cli, args),
        Command::AgentTools(args) => super::tools::agent_tools_command(args),
        Command::Tools(args) => super::tools::tools_command(cli, args),
        Command::Search(args) => super::search::search_command(cli, args),
        Command::Eval(args) => super::eval::eval_command(cli, args),
        Command::Watch(args) => super::watch::watch_command(cli, args),
        Command::Link(args) => super::link::link_command(cli, args),
        Command::Model(args) => super::model::model_command(cli, args),
        Command::Publish(args) => super::publish::publish_command(cli, args),
        Command::Install(args) => super::install::install_command(cli, args),
    }
}

pub(super) fn stdout() -> std::io::BufWriter<std::io::StdoutLock<'static>> {
    std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock())
}

pub(super) fn write_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    let mut out = stdout();
    serde_json::to_writer_pretty(&mut out, value).context("writing JSON")?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

pub(super) struct Counts {
    pub(super) errors: usize,
    pub(super) warnings: usize,
    pub(super) infos: usize,
}

pub(super) fn count(diagnostics: &[Diagnostic]) -> Counts {
    let of = |s| diagnostics.iter().filter(|d| d.severity == s).count();
    Counts {
        errors: of(Severity::Error),
        warnings: of(Severity::Warning),
        infos: of(Severity::Info),
    }
}

pub(super) use skilldex::text::plural;

pub(super) fn diagnostic_line(d: &Diagnostic, style: &Style) -> String {
    finding_line(
        &d.path, d.line, d.column, d.severity, d.code, &d.message, style,
    )
}

/// `path:line:column: severity[code]: message`, as compilers write it.
pub(super) fn finding_line(
    path: &std::path::Path,
    line: impl std::fmt::Display,
    column: impl std::fmt::Display,
    severity: Severity,
    code: impl std::fmt::Display,
    message: &str,
    style: &Style,
) -> String {
    let severity = match severity {
        Severity::Error => style.red("error"),
        Severity::Warning => style.yellow("warning"),
        Severity::Info => style.cyan("info"),
    };
    format!(
        "{}:{line}:{column}: {severity}[{code}]: {message}",
        skilldex::entry::printable(&path.to_string_lossy()),
    )
}

/// After commands that are not `lint`: a one-line summary of problems on
/// stderr (every diagnostic with -v), so authors notice without asking.
pub(super) fn report_diagnostics(cli: &Cli, catalog: &Catalog) {
    if cli.global.quiet {
        return;
    }
    let style = Style::stderr(cli.global.color);
    let diagnostics = catalog.diagnostics();
    if cli.global.verbose {
        for d in diagnostics {
            say!("{}", diagnostic_line(d, &style));
        }
        let stats = catalog.stats();
        say!(
            "skilldex: {} skills from {} files in {:.1} ms (scan {:.1} ms), revision {}",
            thousands(catalog.skills().len()),
            thousands(stats.files_read),
            stats.total.as_secs_f64() * 1000.0,
            stats.scan.as_secs_f64() * 1000.0,
            catalog.revision()
        );
    }
    let counts = count(diagnostics);
    if counts.errors + counts.warnings > 0 {
        let mut files: Vec<&std::path::Path> = diagnostics
            .iter()
            .filter(|d| d.severity != Severity::Info)
            .map(|d| d.path.as_path())
            .collect();
        files.sort();
        files.dedup();
        say!(
            "skilldex: {}, {} in {}{}",
            plural(counts.errors, "error", "errors"),
            plural(counts.warnings, "warning", "warnings"),
            plural(files.len(), "file", "files"),
            if cli.global.verbose {
                ""
            } else {
                " — run `skilldex lint` for details"
            }
        );
    }
}

/// A skill name that is empty (or only slashes and spaces) is a usage
/// error, not an unknown skill: exit 2 with what to pass instead.
pub(super) fn refuse_blank_name(name: &str, command: &str) -> Option<ExitCode> {
    if !query::read::is_blank_target(name) {
        return None;
    }
    say!(
        "skilldex: the skill name is empty — `skilldex {command} NAME` needs the name of a skill (`skilldex list` shows them)"
    );
    Some(ExitCode::from(2))
}

/// `path` as `read` takes a path: absolute, or starting with `./` or `../`.
pub(super) fn path_of(path: &std::path::Path) -> String {
    let text = path.to_string_lossy().into_owned();
    if path.is_absolute() || text.starts_with("./") || text.starts_with("../") {
        text
    } else {
        format!("./{text}")
    }
}

/// `word` as one shell word: as it is when it holds only characters no
/// shell treats specially, else in single quotes.
pub(super) fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:@%+=,~".contains(c))
        && !word.starts_with('~');
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The global flags that chose the catalog, as given (` --root R` …), so a
/// command printed for the user finds the same skills.
pub(super) fn global_flags(global: &super::GlobalArgs) -> String {
    let mut flags = String::new();
    if let Some(config) = &global.config {
        flags.push_str(&format!(
            " --config {}",
            shell_word(&config.to_string_lossy())
        ));
    }
    for root in &global.roots {
        flags.push_str(&format!(" --root {}", shell_word(&root.to_string_lossy())));
    }
    for (flag, value) in [
        ("--max-depth", global.max_depth.map(|v| v as u64)),
        ("--max-entries", global.max_entries.map(|v| v as u64)),
        ("--max-file-bytes", global.max_file_bytes),
    ] {
        if let Some(value) = value {
            flags.push_str(&format!(" {flag} {value}"));
        }
    }
    flags
}
