//! `skilldex link --host claude|codex|gemini|opencode`: lay the catalog out
//! in a host's own skills folder (flat names, symlinks to the skill
//! folders), so the host's loader sees every skill without an MCP server.
//! The plan and the changes are `skilldex::link`'s; this file maps the
//! flags, prints the report, and picks the exit code (1 when a skill could
//! not be linked). It also says which linked skills the host's own
//! listing would shorten or leave out, with that host's budget
//! (`query::HostProfile::listing`; `--context-tokens` sets the context
//! size): on stderr, and under `listing` in `--json`.

use super::commands::*;
use super::{build, builder, Cli};
use clap::{Args, ValueEnum};
use skilldex::entry::Profile;
use skilldex::link::{self, Action, Host};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub(super) struct LinkArgs {
    /// The host whose skills folder to fill.
    #[arg(long, value_enum)]
    host: HostArg,
    /// The folder to fill instead of the host's folder in this project.
    #[arg(long, value_name = "DIR", conflicts_with = "user")]
    dir: Option<PathBuf>,
    /// Fill the host's folder in your home (e.g. ~/.claude/skills) instead
    /// of the project's.
    #[arg(long)]
    user: bool,
    /// Print what would change, and change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the plan as JSON.
    #[arg(long)]
    json: bool,
    /// The model's context window, in tokens, for the host's listing
    /// budget (its share of it) [default: the host's usual context].
    #[arg(long, value_name = "N")]
    context_tokens: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum HostArg {
    /// Claude Code: .claude/skills (--user: ~/.claude/skills).
    Claude,
    /// Codex: .agents/skills (--user: ~/.agents/skills).
    Codex,
    /// Gemini CLI: .gemini/skills (--user: ~/.gemini/skills).
    Gemini,
    /// opencode: .opencode/skills (--user: ~/.config/opencode/skills).
    Opencode,
}

impl HostArg {
    fn host(self) -> Host {
        match self {
            HostArg::Claude => Host::Claude,
            HostArg::Codex => Host::Codex,
            HostArg::Gemini => Host::Gemini,
            HostArg::Opencode => Host::Opencode,
        }
    }
}

pub(super) fn link_command(cli: &Cli, args: &LinkArgs) -> anyhow::Result<ExitCode> {
    let host = args.host.host();
    let dir = match (&args.dir, args.user) {
        (Some(dir), _) => dir.clone(),
        (None, true) => {
            let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) else {
                say!("skilldex: --user needs $HOME — set it, or pass --dir");
                return Ok(ExitCode::from(2));
            };
            PathBuf::from(home).join(host.user_dir())
        }
        (None, false) => PathBuf::from(host.project_dir()),
    };
    let catalog = build(&cli.global, &builder(&cli.global, Profile::Spec)?)?;
    let plan = link::plan(&catalog, &dir, host)?;
    if !args.dry_run {
        link::apply(&plan)?;
    }
    let skipped = plan
        .actions
        .iter()
        .filter(|a| matches!(a, Action::Skip { .. }))
        .count();
    let held = plan
        .actions
        .iter()
        .filter(|a| matches!(a, Action::Hold { .. }))
        .count();
    // Skill files that did not load and had no link to hold: not linked.
    let real = |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let held_folders: Vec<PathBuf> = plan
        .actions
        .iter()
        .filter_map(|a| match a {
            Action::Hold { target, .. } => Some(real(target)),
            _ => None,
        })
        .collect();
    // A broken skill kept in the folder itself is in place, not unlinked.
    let real_dir = real(&plan.dir);
    let not_linked: Vec<&skilldex::entry::Diagnostic> = catalog
        .load_errors()
        .into_iter()
        .filter(|d| {
            d.path.parent().is_none_or(|folder| {
                let folder = real(folder);
                !held_folders.contains(&folder) && folder.parent() != Some(real_dir.as_path())
            })
        })
        .collect();
    let profile = host.listing_host().profile();
    let entries: Vec<skilldex::query::ListingEntry<'_>> = plan
        .listed(&catalog)
        .into_iter()
        .map(|(name, skill)| skilldex::query::ListingEntry {
            name,
            description: &skill.description,
        })
        .collect();
    let listing = profile.listing(&entries, args.context_tokens);
    if args.json {
        write_json(&serde_json::json!({
            "host": host.name(),
            "dir": plan.dir,
            "dry_run": args.dry_run,
            "actions": plan.actions,
            "listing": listing,
            "not_loaded": not_linked
                .iter()
                .map(|d| serde_json::json!({
                    "path": d.path,
                    "line": d.line,
                    "column": d.column,
                    "message": d.message,
                }))
                .collect::<Vec<_>>(),
        }))?;
    } else {
        let within = |name: &str| {
            plan.actions.iter().find_map(|a| match a {
                Action::Within { name: n, via, .. } if n == name => Some(via.clone()),
                _ => None,
            })
        };
        let mut out = stdout();
        let verb =
            |done: &'static str, would: &'static str| if args.dry_run { would } else { done };
        for action in &plan.actions {
            match action {
                Action::Link { name, target } => writeln!(
                    out,
                    "{} {name} -> {}",
                    verb("linked  ", "would link"),
                    target.display()
                )?,
                Action::Relink { name, target, was } => writeln!(
                    out,
                    "{} {name} -> {} (was {})",
                    verb("relinked", "would relink"),
                    target.display(),
                    was.display()
                )?,
                Action::Remove { name, target } => match within(name) {
                    Some(via) => writeln!(
                        out,
                        "{} {name} ({} finds it inside {via}, which reads nested skills)",
                        verb("removed ", "would remove"),
                        host.name()
                    )?,
                    None => writeln!(
                        out,
                        "{} {name} (its skill at {} is gone)",
                        verb("removed ", "would remove"),
                        target.display()
                    )?,
                },
                Action::Keep { .. } => {}
                // In place already: the host reads it inside its parent.
                Action::Within { .. } => {}
                Action::Skip {
                    name,
                    target,
                    reason,
                } => writeln!(out, "skipped  {name} ({}): {reason}", target.display())?,
                Action::Hold { name, reason, .. } => writeln!(out, "held     {name}: {reason}")?,
            }
        }
        out.flush()?;
        let count = |f: fn(&Action) -> bool| plan.actions.iter().filter(|a| f(a)).count();
        let kept = count(|a| matches!(a, Action::Keep { .. } | Action::Within { .. }));
        let changed = count(Action::changes);
        for d in &not_linked {
            say!(
                "skilldex: {}:{}:{}: this skill file did not load, so it is not linked: {}",
                skilldex::entry::printable(&d.path.to_string_lossy()),
                d.line,
                d.column,
                d.message
            );
        }
        if !cli.global.quiet {
            report_listing(&listing, &profile.explain(args.context_tokens));
        }
        say!(
            "skilldex: {} for {} in {}: {changed} {}, {kept} already in place, {skipped} skipped{}",
            if args.dry_run { "plan" } else { "links" },
            host.name(),
            plan.dir.display(),
            if args.dry_run { "to change" } else { "changed" },
            if held > 0 {
                format!(", {held} held (skill file did not load)")
            } else {
                String::new()
            },
        );
    }
    Ok(if skipped + held > 0 || !not_linked.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// On stderr: what the host's own listing of the folder would cut, and why.
fn report_listing(listing: &skilldex::query::HostListing, explained: &str) {
    use skilldex::query::ListingFate;
    use skilldex::text::thousands;
    let used = format!(
        "{} of {} {}",
        thousands(listing.used),
        thousands(listing.budget.limit()),
        listing.budget.unit()
    );
    if listing.cut.is_empty() {
        say!(
            "skilldex: {} lists all {} whole in {used}; {explained}",
            listing.host,
            plural(listing.skills, "linked skill", "linked skills")
        );
        return;
    }
    say!(
        "skilldex: {}'s own listing of these {} would use {used}: {} whole, {} shortened, {} by name only, {} left out; {explained}",
        listing.host,
        plural(listing.skills, "skill", "skills"),
        listing.whole,
        listing.count(ListingFate::Shortened),
        listing.count(ListingFate::NameOnly),
        listing.count(ListingFate::LeftOut)
    );
    // One line per reason, naming the skills (the first few).
    let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
    for cut in &listing.cut {
        match reasons.iter_mut().find(|(r, _)| *r == cut.reason) {
            Some((_, names)) => names.push(&cut.name),
            None => reasons.push((&cut.reason, vec![&cut.name])),
        }
    }
    const SHOWN: usize = 8;
    for (reason, names) in reasons {
        let mut named = names[..names.len().min(SHOWN)].join(", ");
        if names.len() > SHOWN {
            named.push_str(&format!(" and {} more", thousands(names.len() - SHOWN)));
        }
        say!("skilldex:   {named}: {reason}");
    }
    say!(
        "skilldex:   (--json lists each; `skilldex search` and `skilldex serve` reach every skill)"
    );
}
