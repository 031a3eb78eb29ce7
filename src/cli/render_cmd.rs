//! `skilldex render`: the directory for a prompt, and the render flags as options.

use super::commands::*;
use super::{build, builder, Cli, RenderArgs};
use anyhow::Context as _;
use skilldex::entry::Profile;
use skilldex::query::{self, render, Budget, Format, RenderOptions};
use skilldex::rules::thousands;
use skilldex::tokens;
use std::io::Write;
use std::process::ExitCode;

pub(super) fn render_command(cli: &Cli, args: &RenderArgs) -> anyhow::Result<ExitCode> {
    if let Some(previous) = &args.since {
        return super::watch::render_since(cli, args, previous);
    }
    let options = render_options(cli, args)?;
    let (format, budget, asked_full) = (
        options.format,
        options.budget,
        options.mode == query::Mode::Full,
    );
    let catalog = build(&cli.global, &builder(&cli.global, Profile::Spec)?)?;
    let rendered = query::render_directory(&catalog, &options);
    if !cli.global.quiet {
        for name in options
            .pinned
            .iter()
            .filter(|n| !catalog.names_any_skill(n))
        {
            say!("skilldex: warning: `pinned` names `{name}`, which matches no skill — check the spelling (`skilldex list` shows the skills)");
        }
    }
    if format == Format::Json {
        write_json(&render::to_json(&catalog, &rendered))?;
    } else {
        let mut out = stdout();
        out.write_all(rendered.text.as_bytes())?;
        out.flush()?;
    }
    report_diagnostics(cli, &catalog);
    if !cli.global.quiet {
        if catalog.skills().is_empty() {
            say!(
                "skilldex: no skills found under {} — a skill is a folder with a SKILL.md",
                catalog
                    .roots()
                    .iter()
                    .map(|r| r.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if let (true, false, Some(budget)) =
            (asked_full, rendered.mode == query::Mode::Full, budget)
        {
            say!(
                "skilldex: note: --mode full: the skills' bodies do not fit in {} {}, so the directory is shown instead (raise the budget to get the bodies)",
                thousands(budget.limit()),
                budget.unit()
            );
        }
        if let Some(host) = args.host {
            let profile = query::Host::from(host).profile();
            say!(
                "skilldex: --host {}: {}",
                profile.name,
                profile.explain(args.context_tokens)
            );
        }
        if let Some(budget) = budget {
            let mut parts = Vec::new();
            if rendered.shortened > 0 {
                parts.push(format!(
                    "{} shortened",
                    plural(rendered.shortened, "description", "descriptions")
                ));
            }
            if rendered.name_only > 0 {
                parts.push(format!(
                    "{} named without a description",
                    plural(rendered.name_only, "skill", "skills")
                ));
            }
            if rendered.collapsed_count > 0 {
                let unlisted = rendered
                    .namespaces
                    .iter()
                    .filter(|n| !n.listed && n.named == 0)
                    .count();
                let mut part = format!(
                    "{} of {} named one by one, the rest counted",
                    thousands(rendered.listed_count),
                    plural(
                        rendered.listed_count + rendered.collapsed_count,
                        "skill",
                        "skills"
                    )
                );
                if unlisted > 0 {
                    part.push_str(&format!(
                        " ({} without a line of their own; the closing line says how to list them)",
                        plural(unlisted, "namespace", "namespaces")
                    ));
                }
                parts.push(part);
            }
            if !rendered.fits {
                say!(
                    "skilldex: warning: the budget of {} {} is smaller than the shortest directory ({} {}); printed that anyway",
                    thousands(budget.limit()),
                    budget.unit(),
                    thousands(rendered.cost),
                    budget.unit()
                );
            } else if !parts.is_empty() {
                say!(
                    "skilldex: fitted in {} of {} {}: {}",
                    thousands(rendered.cost),
                    thousands(budget.limit()),
                    budget.unit(),
                    parts.join("; ")
                );
            }
        }
    }
    // The process ends right after: freeing ten thousand skills one by one
    // would only delay the exit.
    std::mem::forget(rendered);
    std::mem::forget(catalog);
    Ok(ExitCode::SUCCESS)
}

/// The render flags as options (and the tokenizer loading, when needed).
/// Render settings from the flags, with the configuration's `format` and
/// `budget_tokens` where no flag says otherwise.
pub(super) fn render_options(cli: &Cli, args: &RenderArgs) -> anyhow::Result<RenderOptions> {
    let settings = super::settings(&cli.global)?;
    let format = if args.json {
        Format::Json
    } else {
        match (args.format, settings.format.as_deref()) {
            (Some(format), _) => format.into(),
            (None, Some(name)) => <super::FormatArg as clap::ValueEnum>::from_str(name, false)
                .map_err(|e| anyhow::anyhow!("format `{name}` of the configuration: {e}"))?
                .into(),
            (None, None) => Format::Markdown,
        }
    };
    let host = args.host.map(|h| query::Host::from(h).profile());
    let budget = match (
        args.budget_tokens,
        args.budget_chars,
        host,
        args.context_tokens,
        settings.budget_tokens,
    ) {
        (Some(n), ..) => Some(Budget::Tokens(n)),
        (None, Some(n), ..) => Some(Budget::Chars(n)),
        (None, None, Some(host), context, _) => Some(host.budget(context)),
        (None, None, None, Some(context), _) => {
            Some(Budget::Tokens(query::render::context_budget(context, 100)))
        }
        (None, None, None, None, Some(n)) => Some(Budget::Tokens(n)),
        (None, None, None, None, None) => None,
    };
    if format == Format::Json || matches!(budget, Some(Budget::Tokens(_))) {
        // Load the tokenizer while the roots are scanned.
        tokens::warm_up();
    }
    Ok(RenderOptions {
        format,
        paths: args.paths.into(),
        mode: args.mode.into(),
        budget,
        base: std::env::current_dir().context("reading the current folder")?,
        reach: query::Reach::Cli,
        counts_only: format != Format::Json,
        pinned: settings.pinned,
        command: format!("skilldex{}", global_flags(&cli.global)),
    })
}
