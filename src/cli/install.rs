//! `skilldex install`: install skills that `available:` (or `--from`)
//! offers into the first writable root, recording each in the lock file;
//! `--list` shows what is offered; `--locked` replays the lock file into
//! the folders it names. The work is `skilldex::install`'s; this file maps
//! the flags, prints one line per skill on stdout and everything else on
//! stderr. Exit 1 when a named skill is offered by none, 2 on any other
//! failure (a digest mismatch, a refused archive, an unreachable URL).

use super::commands::*;
use super::{build, builder, settings, Cli};
use clap::Args;
use skilldex::entry::Profile;
use skilldex::install::{self, InstallError, Location, Offered, Replayed};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub(super) struct InstallArgs {
    /// Skills to install (names, or ids of a collection folder).
    #[arg(required_unless_present_any = ["list", "locked"], conflicts_with_all = ["list", "locked"])]
    names: Vec<String>,
    /// Where to look instead of `available:` of skilldex.yaml: a collection
    /// folder, an index.json (path or http(s) URL), a folder `publish`
    /// wrote, or a marketplace.json. Repeatable; the first that offers a
    /// name wins.
    #[arg(long = "from", value_name = "SOURCE")]
    from: Vec<String>,
    /// Print the skills offered, and change nothing.
    #[arg(long, conflicts_with = "locked")]
    list: bool,
    /// Install every skill of the lock file where it records, checking
    /// each digest; skills already there with the same content are kept.
    #[arg(long)]
    locked: bool,
    /// The lock file [default: skilldex.lock beside the configuration
    /// file, else ./skilldex.lock].
    #[arg(long, value_name = "FILE")]
    lock: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub(super) fn install_command(cli: &Cli, args: &InstallArgs) -> anyhow::Result<ExitCode> {
    let settings = settings(&cli.global)?;
    let lock_file = match &args.lock {
        Some(path) => path.clone(),
        None => settings
            .files
            .last()
            .map(|f| install::lock_beside(&f.path))
            .unwrap_or_else(|| PathBuf::from(install::lock::LOCK_FILE)),
    };
    if args.locked {
        return replay(args, &lock_file);
    }
    let available: Vec<Location> = if args.from.is_empty() {
        settings
            .available
            .iter()
            .map(|p| {
                Location::from_path(p).map_err(|error| {
                    anyhow::anyhow!("the `available` entry {}: {error}", p.display())
                })
            })
            .collect::<anyhow::Result<_>>()?
    } else {
        args.from
            .iter()
            .map(|text| match Location::parse(text) {
                Ok(Location::File(path)) => {
                    Ok(Location::File(std::path::absolute(&path).unwrap_or(path)))
                }
                Ok(url) => Ok(url),
                Err(error) => Err(anyhow::anyhow!("--from {text}: {error}")),
            })
            .collect::<anyhow::Result<_>>()?
    };
    if args.list {
        return list(args, &available);
    }
    let catalog = build(&cli.global, &builder(&cli.global, Profile::Spec)?)?;
    let roots = catalog.roots().to_vec();
    let mut code = 0u8;
    let mut done = Vec::new();
    let mut out = stdout();
    for name in &args.names {
        if let Some(refused) = refuse_blank_name(name, "install") {
            return Ok(refused);
        }
        let result = install::find_offered(&available, &catalog, name)
            .and_then(|offered| install::install(&offered, &roots).map(|d| (offered, d)));
        match result {
            Ok((offered, installed)) => {
                let recorded = install::record(&lock_file, &installed);
                if !args.json {
                    writeln!(
                        out,
                        "installed {} -> {}",
                        offered.name(),
                        installed.folder.display()
                    )?;
                }
                if !installed.left_out.is_empty() {
                    say!(
                        "skilldex: note: `{}`: left out {}",
                        offered.name(),
                        installed.left_out
                    );
                }
                if let Err(error) = &recorded {
                    say!("skilldex: error: {error}");
                    code = code.max(2);
                }
                done.push(serde_json::json!({
                    "name": offered.name(),
                    "folder": installed.folder,
                    "type": installed.locked.kind,
                    "url": installed.locked.url,
                    "digest": installed.locked.digest,
                    "lock_file": recorded.is_ok().then(|| lock_file.clone()),
                }));
            }
            Err(error) => {
                say!("skilldex: error: {error}");
                code = code.max(match error {
                    InstallError::Unknown { .. } | InstallError::NoCollections => 1,
                    _ => 2,
                });
            }
        }
    }
    out.flush()?;
    if args.json {
        write_json(&serde_json::json!({ "installed": done }))?;
    }
    if !done.is_empty() && !cli.global.quiet {
        say!(
            "skilldex: installed {}; recorded in {}",
            skilldex::text::plural(done.len(), "skill", "skills"),
            lock_file.display()
        );
    }
    Ok(ExitCode::from(code))
}

/// `--list`: every offered skill, one per line (or JSON), and the notes.
fn list(args: &InstallArgs, available: &[Location]) -> anyhow::Result<ExitCode> {
    if available.is_empty() {
        say!("skilldex: {}", InstallError::NoCollections);
        return Ok(ExitCode::from(1));
    }
    let sources = install::sources_of(available, None);
    let (offered, notes) = install::list_offered(&sources);
    for note in &notes {
        say!("skilldex: warning: {note}");
    }
    let described: Vec<serde_json::Value> = offered
        .iter()
        .map(|o| {
            let (kind, source) = match o {
                Offered::Folder(skill) => ("folder", skill.folder.display().to_string()),
                Offered::Artifact(skill) => (skill.kind.as_str(), skill.url.to_string()),
            };
            serde_json::json!({
                "name": o.name(),
                "id": o.id(),
                "type": kind,
                "description": o.description(),
                "from": source,
            })
        })
        .collect();
    if args.json {
        write_json(&serde_json::json!({ "offered": described }))?;
    } else {
        let mut out = stdout();
        for skill in &described {
            writeln!(
                out,
                "{} ({}) {}",
                skill["id"].as_str().unwrap_or(""),
                skill["type"].as_str().unwrap_or(""),
                skill["from"].as_str().unwrap_or("")
            )?;
        }
        out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `--locked`: every lock entry installed where it records.
fn replay(args: &InstallArgs, lock_file: &Path) -> anyhow::Result<ExitCode> {
    if std::fs::symlink_metadata(lock_file).is_err() {
        say!(
            "skilldex: error: there is no lock file at {} — install skills first (`skilldex install NAME`), or name it with --lock",
            lock_file.display()
        );
        return Ok(ExitCode::from(2));
    }
    let lock = install::lock::read(lock_file)?;
    let mut code = 0u8;
    let mut results = Vec::new();
    let mut out = stdout();
    for entry in &lock.skills {
        match install::replay(entry, lock_file) {
            Ok(replayed) => {
                let (verb, folder) = match &replayed {
                    Replayed::Installed(folder) => ("installed", folder),
                    Replayed::UpToDate(folder) => ("unchanged", folder),
                };
                if !args.json {
                    writeln!(out, "{verb} {} -> {}", entry.name, folder.display())?;
                }
                results.push(
                    serde_json::json!({"name": entry.name, "folder": folder, "status": verb}),
                );
            }
            Err(error) => {
                say!("skilldex: error: {error}");
                results.push(serde_json::json!({"name": entry.name, "error": error.to_string()}));
                code = 2;
            }
        }
    }
    out.flush()?;
    if args.json {
        write_json(&serde_json::json!({ "lock_file": lock_file, "skills": results }))?;
    }
    Ok(ExitCode::from(code))
}
