//! `skilldex publish DIR`: write the catalog as an Agent Skills discovery
//! index under `DIR/.well-known/agent-skills/` (see `skilldex::publish`).
//! stdout gets one line per published skill (or `--json`); stderr the
//! summary and each skill left out, with why. Exit 1 when a skill was left
//! out, 2 when nothing could be written.

use super::commands::*;
use super::{build, builder, Cli};
use clap::Args;
use skilldex::entry::Profile;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub(super) struct PublishArgs {
    /// The folder to publish into; the index is written to
    /// DIR/.well-known/agent-skills/index.json.
    dir: PathBuf,
    /// Print what was published as JSON.
    #[arg(long)]
    json: bool,
}

pub(super) fn publish_command(cli: &Cli, args: &PublishArgs) -> anyhow::Result<ExitCode> {
    let catalog = build(&cli.global, &builder(&cli.global, Profile::Spec)?)?;
    let published = skilldex::publish::publish(&catalog, &args.dir)?;
    // A skill file that did not load has no skill to publish: said, never
    // dropped in silence.
    let not_loaded = catalog.load_errors();
    if args.json {
        write_json(&serde_json::json!({
            "index": published.index,
            "skills": published.entries.iter().map(|e| serde_json::json!({
                "name": e.name,
                "type": e.kind.as_str(),
                "url": e.url,
                "digest": e.digest,
            })).collect::<Vec<_>>(),
            "left_out": published.left_out.iter().map(|(id, why)| serde_json::json!({
                "id": id,
                "reason": why,
            })).chain(not_loaded.iter().map(|d| serde_json::json!({
                "path": d.path,
                "line": d.line,
                "column": d.column,
                "reason": format!("this skill file did not load: {}", d.message),
            }))).collect::<Vec<_>>(),
        }))?;
    } else {
        let mut out = stdout();
        for entry in &published.entries {
            writeln!(
                out,
                "{:<9} {} {}",
                entry.kind.as_str(),
                entry.name,
                entry.digest
            )?;
        }
        out.flush()?;
    }
    for (id, why) in &published.left_out {
        say!("skilldex: warning: `{id}` is not published: {why}");
    }
    for d in &not_loaded {
        say!(
            "skilldex: warning: {}:{}:{}: this skill file did not load, so it is not published: {} — `skilldex lint` says how to fix it",
            skilldex::entry::printable(&d.path.to_string_lossy()),
            d.line,
            d.column,
            d.message
        );
    }
    let left_out = published.left_out.len() + not_loaded.len();
    if !cli.global.quiet {
        let archives = published
            .entries
            .iter()
            .filter(|e| e.kind == skilldex::install::ArtifactKind::Archive)
            .count();
        say!(
            "skilldex: published {} to {} ({} as SKILL.md, {archives} as .tar.gz archives){}",
            skilldex::text::plural(published.entries.len(), "skill", "skills"),
            published.index.display(),
            published.entries.len() - archives,
            if left_out == 0 {
                String::new()
            } else {
                format!(", {left_out} left out")
            }
        );
    }
    Ok(if left_out == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
