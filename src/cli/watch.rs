//! `skilldex watch` and `skilldex render --since`: the live side of the
//! command line.
//!
//! `watch` is a preview for authors: the directory first, then every change
//! as it lands — which skills came, changed or went, the new diagnostics,
//! skills kept at their last good version, and token totals. With `--json`
//! it prints JSON lines instead (`ready`, then one `revision` per swap).
//! Ctrl-C (or SIGTERM) stops the watcher and exits with 0.
//!
//! `render --since PREVIOUS.json` prints the block a running session would
//! append to the directory of PREVIOUS.json (see `query::delta`).

use super::commands::{diagnostic_line, plural, report_diagnostics, stdout, write_json};
use super::render_cmd::render_options;
use super::style::Style;
use super::{build, builder, Cli, PathsArg, RenderArgs};
use anyhow::Context as _;
use clap::Args;
use skilldex::entry::{Profile, Severity};
use skilldex::live::{Change, LiveCatalog, LiveError, WatchOptions};
use skilldex::query::{self, DirectorySession, Format, RenderOptions, ShownState};
use skilldex::rules::thousands;
use skilldex::tokens;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, Args)]
pub(super) struct WatchArgs {
    /// Print JSON lines: `{"type":"ready",…}`, then one
    /// `{"type":"revision",…}` per change.
    #[arg(long)]
    json: bool,
    /// Poll the folders instead of using file events (network and virtual
    /// filesystems that send none).
    #[arg(long)]
    poll: bool,
    /// Milliseconds between two polls (with --poll).
    #[arg(long, value_name = "MS", default_value_t = 2000)]
    poll_interval: u64,
    /// Milliseconds of quiet after a change before the catalog is rebuilt.
    #[arg(long, value_name = "MS", default_value_t = skilldex::live::DEFAULT_DEBOUNCE_MS)]
    debounce: u64,
    /// How skill paths are shown in the directory.
    #[arg(long, value_enum, default_value_t = PathsArg::Absolute)]
    paths: PathsArg,
}

/// The first JSON line: the catalog is live.
#[derive(serde::Serialize)]
struct ReadyLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    revision: &'a str,
    skills: usize,
}

/// One JSON line per swap.
#[derive(serde::Serialize)]
struct RevisionLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    revision: &'a str,
    added: &'a [String],
    changed: &'a [String],
    removed: &'a [String],
    diagnostics: &'a [skilldex::entry::Diagnostic],
    /// Skills kept at their last good version.
    stale: &'a [String],
}

/// What the main loop waits for.
enum Wake {
    Change(Arc<Change>),
    Problem(Arc<LiveError>),
    Interrupt,
}

pub(super) fn watch_command(cli: &Cli, args: &WatchArgs) -> anyhow::Result<ExitCode> {
    let builder = builder(&cli.global, Profile::Spec)?;
    let quiet = cli.global.quiet;
    if !quiet {
        for root in builder.roots() {
            if !root.exists() {
                say!(
                    "skilldex: {} does not exist yet; watching for it to appear",
                    root.display()
                );
            }
        }
    }
    let options = WatchOptions {
        debounce: Duration::from_millis(args.debounce),
        poll: args.poll,
        poll_interval: Duration::from_millis(args.poll_interval.max(10)),
        ..WatchOptions::default()
    };
    let live = LiveCatalog::start(builder, options)?;
    super::warn_unknown_names(&cli.global, &live.snapshot());
    let (wake, wakes) = mpsc::channel();
    {
        let wake = wake.clone();
        ctrlc::set_handler(move || {
            let _ = wake.send(Wake::Interrupt);
        })
        .context("installing the Ctrl-C handler")?;
    }
    let changes = live.subscribe();
    let problems = live.problems();
    {
        let wake = wake.clone();
        std::thread::spawn(move || {
            for change in changes {
                if wake.send(Wake::Change(change)).is_err() {
                    break;
                }
            }
        });
    }
    std::thread::spawn(move || {
        for problem in problems {
            if wake.send(Wake::Problem(problem)).is_err() {
                break;
            }
        }
    });

    let render_options = RenderOptions {
        paths: args.paths.into(),
        base: std::env::current_dir().context("reading the current folder")?,
        reach: query::Reach::Cli,
        command: format!("skilldex{}", super::commands::global_flags(&cli.global)),
        ..RenderOptions::default()
    };
    let mut view = View::start(cli, args, &live, render_options)?;
    loop {
        match wakes.recv() {
            Ok(Wake::Change(change)) => {
                // Later changes may be queued already: show the snapshot they
                // lead to once, with each change's own list.
                view.change(&live, &change)?;
            }
            Ok(Wake::Problem(problem)) => {
                say!("skilldex: warning: {problem}");
            }
            Ok(Wake::Interrupt) | Err(_) => break,
        }
    }
    live.stop();
    if !quiet && !args.json {
        say!("skilldex: stopped watching");
    }
    Ok(ExitCode::SUCCESS)
}

/// What `watch` shows.
struct View {
    json: bool,
    quiet: bool,
    verbose: bool,
    style: Style,
    session: DirectorySession,
    /// Tokens of the session text so far.
    tokens: usize,
}

impl View {
    fn start(
        cli: &Cli,
        args: &WatchArgs,
        live: &LiveCatalog,
        options: RenderOptions,
    ) -> anyhow::Result<View> {
        let catalog = live.snapshot();
        let (session, _) = DirectorySession::new(&catalog, options);
        let tokens = tokens::count(session.text());
        let view = View {
            json: args.json,
            quiet: cli.global.quiet,
            verbose: cli.global.verbose,
            style: Style::stdout(cli.global.color),
            session,
            tokens,
        };
        let mut out = stdout();
        if view.json {
            let line = ReadyLine {
                kind: "ready",
                revision: catalog.revision(),
                skills: catalog.skills().len(),
            };
            writeln!(out, "{}", serde_json::to_string(&line)?)?;
        } else {
            out.write_all(view.session.text().as_bytes())?;
            writeln!(
                out,
                "{}",
                view.style.dim(&format!(
                    "── watching: {}, {} tokens, {} — Ctrl-C to stop ──",
                    plural(catalog.skills().len(), "skill", "skills"),
                    thousands(tokens),
                    problems_summary(&catalog)
                ))
            )?;
        }
        out.flush()?;
        if !view.json {
            report_diagnostics(cli, &catalog);
        }
        Ok(view)
    }

    fn change(&mut self, live: &LiveCatalog, change: &Change) -> anyhow::Result<()> {
        let mut out = stdout();
        let files_only = change.revision == change.previous;
        if self.json {
            if !change.files.is_empty() {
                let line = serde_json::json!({
                    "type": "files",
                    "revision": change.revision,
                    "skills": change.files,
                });
                if files_only {
                    writeln!(out, "{line}")?;
                    out.flush()?;
                    return Ok(());
                }
            }
            let line = RevisionLine {
                kind: "revision",
                revision: &change.revision,
                added: &change.added,
                changed: &change.changed,
                removed: &change.removed,
                diagnostics: &change.diagnostics,
                stale: &change.stale,
            };
            writeln!(out, "{}", serde_json::to_string(&line)?)?;
            if !change.files.is_empty() {
                let files = serde_json::json!({
                    "type": "files",
                    "revision": change.revision,
                    "skills": change.files,
                });
                writeln!(out, "{files}")?;
            }
            out.flush()?;
            return Ok(());
        }
        if files_only {
            let style = &self.style;
            writeln!(
                out,
                "\n{}",
                style.bold(&format!("── {} · other files changed ──", clock()))
            )?;
            for id in &change.files {
                writeln!(
                    out,
                    "{} {id}: a file of this skill changed (the directory is the same)",
                    style.yellow("~")
                )?;
            }
            out.flush()?;
            return Ok(());
        }
        let catalog = live.snapshot();
        let delta = self.session.update(&catalog);
        let delta_tokens = tokens::count(&delta.text);
        self.tokens += delta_tokens;
        let style = &self.style;
        let time = clock();
        writeln!(
            out,
            "\n{}",
            style.bold(&format!("── {time} · {} ──", summary(change)))
        )?;
        let description = |id: &str| {
            catalog
                .get(id)
                .map(|s| s.description.clone())
                .unwrap_or_default()
        };
        for id in &change.added {
            writeln!(out, "{} {id}: {}", style.green("+"), description(id))?;
        }
        for id in &change.changed {
            writeln!(out, "{} {id}: {}", style.yellow("~"), description(id))?;
        }
        for id in &change.removed {
            writeln!(out, "{} {id}", style.red("-"))?;
        }
        for id in &change.files {
            writeln!(
                out,
                "{} {id}: a file of this skill changed",
                style.yellow("~")
            )?;
        }
        for id in &change.stale {
            writeln!(
                out,
                "{} {id}: its file is broken; the last good version stays live until it is fixed",
                style.yellow("!")
            )?;
        }
        for diagnostic in &change.diagnostics {
            if diagnostic.severity == Severity::Info && !self.verbose {
                continue;
            }
            writeln!(out, "  {}", diagnostic_line(diagnostic, style))?;
        }
        if !self.quiet {
            let appended = if delta.text.is_empty() {
                "nothing appended to the directory".to_string()
            } else {
                format!("{} tokens appended", thousands(delta_tokens))
            };
            writeln!(
                out,
                "{}",
                style.dim(&format!(
                    "   {}, {} tokens shown in all ({appended}); {}",
                    plural(catalog.skills().len(), "skill", "skills"),
                    thousands(self.tokens),
                    problems_summary(&catalog)
                ))
            )?;
        }
        out.flush()?;
        Ok(())
    }
}

fn summary(change: &Change) -> String {
    let mut parts = Vec::new();
    for (count, word) in [
        (change.added.len(), "added"),
        (change.changed.len(), "changed"),
        (change.removed.len(), "removed"),
    ] {
        if count > 0 {
            parts.push(format!("{count} {word}"));
        }
    }
    if !change.stale.is_empty() {
        parts.push(format!(
            "{} kept at the last good version",
            change.stale.len()
        ));
    }
    if parts.is_empty() {
        parts.push("diagnostics changed".into());
    }
    parts.join(", ")
}

fn problems_summary(catalog: &skilldex::Catalog) -> String {
    let errors = catalog
        .diagnostics()
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let warnings = catalog
        .diagnostics()
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .count();
    format!(
        "{}, {}",
        plural(errors, "error", "errors"),
        plural(warnings, "warning", "warnings")
    )
}

/// Wall-clock time of day (UTC), for the change headers.
fn clock() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let day = seconds % 86_400;
    format!("{:02}:{:02}:{:02} UTC", day / 3600, day / 60 % 60, day % 60)
}

/// `render --since PREVIOUS.json`.
pub(super) fn render_since(
    cli: &Cli,
    args: &RenderArgs,
    previous: &Path,
) -> anyhow::Result<ExitCode> {
    // Never a pipe (it would wait for a writer), never more than a
    // snapshot can hold.
    let bytes = skilldex::contain::read_regular(previous, 256 * 1024 * 1024)
        .with_context(|| format!("reading {}", previous.display()))?;
    let text =
        String::from_utf8(bytes).with_context(|| format!("reading {}", previous.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not JSON", previous.display()))?;
    let shown =
        ShownState::from_json(&value).with_context(|| format!("reading {}", previous.display()))?;
    let options = render_options(cli, args)?;
    let catalog = build(&cli.global, &builder(&cli.global, Profile::Spec)?)?;
    let (delta, next) = query::render_delta(&shown, &catalog, &options);
    if !delta.is_empty() {
        if options.format == Format::Json {
            let mut document = next.to_json();
            let object = document.as_object_mut().expect("an object");
            object.insert("revision".into(), catalog.revision().into());
            object.insert("added".into(), serde_json::to_value(&delta.added)?);
            object.insert("changed".into(), serde_json::to_value(&delta.changed)?);
            object.insert("removed".into(), serde_json::to_value(&delta.removed)?);
            // The block as Markdown (a JSON directory is measured as Markdown too).
            object.insert("text".into(), delta.text.clone().into());
            write_json(&document)?;
        } else {
            let mut out = stdout();
            out.write_all(delta.text.as_bytes())?;
            out.flush()?;
        }
    }
    report_diagnostics(cli, &catalog);
    std::mem::forget(catalog);
    Ok(ExitCode::SUCCESS)
}
