//! `skilldex tools sync`: start each configured MCP server over stdio, page
//! through `tools/list`, and write `<dir>/<server>/mcp-tools.json`
//! (byte-stable, atomically). The snapshot is what the server said; the
//! sanitiser runs when it is loaded (`skilldex lint` shows its findings).
//!
//! Servers come from `mcp_servers` of the configuration files and from
//! `--import` files (`.mcp.json`, `.cursor/mcp.json`, `~/.codex/config.toml`);
//! an imported entry replaces a configured one of the same name, as flags
//! beat files. Servers are listed in parallel, each under its own timeout.
//! A server that fails leaves its last snapshot as it was. Exit status: 0
//! when every snapshot was written or already current, 1 when a server
//! failed or (with `--check`) a snapshot is out of date, 2 on usage errors.

use super::Cli;
use clap::Args;
#[cfg(feature = "mcp")]
use skilldex::toolcat::servers::{self, ConfiguredServer};
#[cfg(feature = "mcp")]
use std::path::Path;
use std::path::PathBuf;
use std::process::ExitCode;
#[cfg(feature = "mcp")]
use std::time::Duration;

#[derive(Debug, Args)]
pub(super) struct SyncArgs {
    /// Where the server folders go [default: the first skill root].
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Also take servers from this MCP client config: `.mcp.json`,
    /// `.cursor/mcp.json`, `.vscode/mcp.json`, or Codex's `config.toml`
    /// (`[mcp_servers.*]`). Repeat for several.
    #[arg(long, value_name = "FILE")]
    import: Vec<PathBuf>,
    /// Only this server (repeat for several).
    #[arg(long, value_name = "NAME")]
    server: Vec<String>,
    /// Seconds each server gets to start and list every page, unless its
    /// entry sets `timeout`.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    timeout: f64,
    /// Write nothing; exit 1 when a snapshot is missing or differs from
    /// what its server says now (for CI).
    #[arg(long)]
    check: bool,
    /// Print a JSON report on stdout.
    #[arg(long)]
    json: bool,
}

#[cfg(feature = "mcp")]
/// What happened to one server.
#[derive(Debug, serde::Serialize)]
struct Outcome {
    server: String,
    /// `created`, `updated`, `unchanged`, `out-of-date`, `failed`, `skipped`.
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pages: Option<usize>,
    /// Wall time of the listing, start to stop.
    #[serde(skip_serializing_if = "Option::is_none")]
    milliseconds: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stderr_tail: Option<String>,
}

#[cfg(feature = "mcp")]
impl Outcome {
    fn new(server: &str, status: &'static str) -> Self {
        Outcome {
            server: server.to_string(),
            status,
            path: None,
            tools: None,
            pages: None,
            milliseconds: None,
            message: None,
            stderr_tail: None,
        }
    }
}

#[cfg(feature = "mcp")]
pub(super) fn sync_command(cli: &Cli, args: &SyncArgs) -> anyhow::Result<ExitCode> {
    let settings = super::settings(&cli.global)?;
    let mut by_name: std::collections::BTreeMap<String, ConfiguredServer> =
        skilldex::config::configured_servers(&settings.files)
            .into_iter()
            .map(|s| (s.name.clone(), s))
            .collect();
    for path in &args.import {
        for server in servers::import(path)? {
            by_name.insert(server.name.clone(), server);
        }
    }
    if by_name.is_empty() {
        anyhow::bail!(
            "no MCP servers to sync — add `mcp_servers` to skilldex.yaml, or pass --import .mcp.json (or .cursor/mcp.json, ~/.codex/config.toml)"
        );
    }
    for name in &args.server {
        if !by_name.contains_key(name) {
            anyhow::bail!(
                "no server named `{name}` — the configured ones are {}",
                by_name
                    .keys()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        anyhow::bail!("--timeout must be a positive number of seconds");
    }
    let chosen: Vec<ConfiguredServer> = by_name
        .into_values()
        .filter(|s| args.server.is_empty() || args.server.contains(&s.name))
        .collect();
    let dir = match &args.dir {
        Some(dir) => dir.clone(),
        None => super::resolve_roots(&cli.global, &settings)?
            .into_iter()
            .next()
            .map(|(root, _)| root)
            .ok_or_else(|| anyhow::anyhow!("no skill root to write into — pass --dir DIR"))?,
    };
    let outcomes: Vec<Outcome> = std::thread::scope(|scope| {
        let handles: Vec<_> = chosen
            .iter()
            .map(|server| scope.spawn(|| sync_one(server, &dir, args)))
            .collect();
        handles
            .into_iter()
            .zip(&chosen)
            .map(|(handle, server)| {
                handle.join().unwrap_or_else(|_| {
                    let mut outcome = Outcome::new(&server.name, "failed");
                    outcome.message = Some("the sync of this server stopped unexpectedly".into());
                    outcome
                })
            })
            .collect()
    });
    report(cli, args, &outcomes)?;
    let bad = outcomes
        .iter()
        .any(|o| o.status == "failed" || o.status == "out-of-date");
    Ok(if bad {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(feature = "mcp")]
fn lookup(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

#[cfg(feature = "mcp")]
/// How to start `server`, with `${VAR}`s expanded (the gateway's rule);
/// `Err` is `(status, message)`: a remote server is skipped, a broken
/// entry failed.
fn command_of(
    server: &ConfiguredServer,
    default_timeout: f64,
) -> Result<skilldex::mcp::upstream::UpstreamCommand, (&'static str, String)> {
    let config = &server.config;
    if config
        .command
        .as_deref()
        .is_none_or(|c| c.trim().is_empty())
    {
        if let Some(url) = &config.url {
            return Err((
                "skipped",
                format!("a remote server ({url}); only stdio servers are synced"),
            ));
        }
    }
    let command = skilldex::mcp::upstream::UpstreamCommand::for_server(
        server,
        Duration::from_secs_f64(default_timeout),
        &lookup,
    )
    .map_err(|message| ("failed", message))?;
    if !command.cwd.is_dir() {
        return Err((
            "failed",
            format!(
                "`cwd` {} is not a folder — fix `cwd` in {}",
                command.cwd.display(),
                server.source.display()
            ),
        ));
    }
    Ok(command)
}

#[cfg(feature = "mcp")]
fn sync_one(server: &ConfiguredServer, dir: &Path, args: &SyncArgs) -> Outcome {
    if server.config.enabled == Some(false) {
        let mut outcome = Outcome::new(&server.name, "skipped");
        outcome.message = Some("disabled in its configuration".into());
        return outcome;
    }
    let command = match command_of(server, args.timeout) {
        Ok(command) => command,
        Err((status, message)) => {
            let mut outcome = Outcome::new(&server.name, status);
            outcome.message = Some(message);
            return outcome;
        }
    };
    let path = dir
        .join(&server.name)
        .join(skilldex::toolcat::SNAPSHOT_FILE);
    let started = std::time::Instant::now();
    let listing = skilldex::mcp::upstream::list_tools(&command);
    let milliseconds = Some(started.elapsed().as_millis() as u64);
    let listing = match listing {
        Ok(listing) => listing,
        Err(failure) => {
            let mut outcome = Outcome::new(&server.name, "failed");
            outcome.path = Some(path);
            outcome.milliseconds = milliseconds;
            outcome.message = Some(failure.message);
            outcome.stderr_tail = Some(failure.stderr_tail).filter(|t| !t.is_empty());
            return outcome;
        }
    };
    let bytes = skilldex::toolcat::snapshot_bytes(Some(&listing.server), &listing.tools);
    let existing = std::fs::read(&path).ok();
    let status = match &existing {
        Some(old) if *old == bytes => "unchanged",
        _ if args.check => "out-of-date",
        Some(_) => "updated",
        None => "created",
    };
    let mut outcome = Outcome::new(&server.name, status);
    outcome.tools = Some(listing.tools.len());
    outcome.pages = Some(listing.pages);
    outcome.milliseconds = milliseconds;
    if matches!(status, "updated" | "created") {
        if let Err(error) = skilldex::toolcat::write_atomically(&path, &bytes) {
            outcome.status = "failed";
            outcome.message = Some(error.to_string());
        }
    }
    if status == "out-of-date" {
        outcome.message = Some(if existing.is_some() {
            "the server's tools differ from the snapshot — run `skilldex tools sync` and commit the change".into()
        } else {
            "no snapshot yet — run `skilldex tools sync`".into()
        });
    }
    outcome.path = Some(path);
    outcome
}

#[cfg(feature = "mcp")]
fn report(cli: &Cli, args: &SyncArgs, outcomes: &[Outcome]) -> anyhow::Result<()> {
    if args.json {
        let value = serde_json::json!({
            "check": args.check,
            "servers": outcomes,
        });
        super::commands::write_json(&value)?;
    }
    for outcome in outcomes {
        let failed = matches!(outcome.status, "failed" | "out-of-date");
        if cli.global.quiet && !failed {
            continue;
        }
        let mut line = format!(
            "skilldex tools sync: {}: {}",
            outcome.server, outcome.status
        );
        if let (Some(tools), Some(pages)) = (outcome.tools, outcome.pages) {
            line.push_str(&format!(
                ", {} in {}",
                super::commands::plural(tools, "tool", "tools"),
                super::commands::plural(pages, "page", "pages")
            ));
        }
        if let Some(ms) = outcome.milliseconds {
            line.push_str(&format!(" ({:.2} s)", ms as f64 / 1000.0));
        }
        if let Some(path) = &outcome.path {
            if outcome.status != "failed" {
                line.push_str(&format!(" — {}", path.display()));
            }
        }
        if let Some(message) = &outcome.message {
            line.push_str(&format!(" — {message}"));
        }
        if outcome.status == "failed" && outcome.path.as_deref().is_some_and(Path::exists) {
            line.push_str(" (its last snapshot is kept)");
        }
        say!("{line}");
        if let Some(tail) = &outcome.stderr_tail {
            say!("  its stderr ended with:");
            for l in tail.lines() {
                say!("  | {l}");
            }
        }
    }
    Ok(())
}

/// Without the `mcp` feature there is no MCP client to start servers with.
#[cfg(not(feature = "mcp"))]
pub(super) fn sync_command(_cli: &Cli, _args: &SyncArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("this skilldex was built without the `mcp` feature, which `tools sync` needs")
}
