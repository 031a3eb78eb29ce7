//! One function per command: build the catalog, ask the query, write the
//! answer. Data goes to stdout through one buffered writer; everything
//! meant for the person at the terminal goes to stderr.

use super::style::Style;
use super::{build, builder, Cli, Command, GrepArgs, ListArgs, ReadArgs, RenderArgs, ShowArgs};
use anyhow::Context as _;
use skilldex::catalog::{Catalog, CatalogBuilder};
use skilldex::model::printable;
use skilldex::model::{Diagnostic, Profile, Severity, Skill};
use skilldex::query::{self, render, Budget, Format, RenderOptions};
use skilldex::rules::thousands;
use skilldex::tokens;
use std::io::Write;
use std::process::ExitCode;

pub(super) fn dispatch(cli: &Cli) -> anyhow::Result<ExitCode> {
    match &cli.command {
        Command::Render(args) => render_command(cli, args),
        Command::Lint(args) => super::lint::lint_command(cli, args),
        Command::List(args) => list_command(cli, args),
        Command::Show(args) => show_command(cli, args),
        Command::Read(args) => read_command(cli, args),
        Command::Grep(args) => grep_command(cli, args),
        Command::Serve(args) => super::serve::serve_command(cli, args),
        Command::Tools(args) => super::tools::tools_command(cli, args),
        Command::Search(args) => super::search::search_command(cli, args),
        Command::Watch(args) => super::watch::watch_command(cli, args),
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

pub(super) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

pub(super) fn diagnostic_line(d: &Diagnostic, style: &Style) -> String {
    let severity = match d.severity {
        Severity::Error => style.red("error"),
        Severity::Warning => style.yellow("warning"),
        Severity::Info => style.cyan("info"),
    };
    format!(
        "{}:{}:{}: {}[{}]: {}",
        skilldex::model::printable(&d.path.to_string_lossy()),
        d.line,
        d.column,
        severity,
        d.code,
        d.message
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

fn render_command(cli: &Cli, args: &RenderArgs) -> anyhow::Result<ExitCode> {
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
    let budget = match (
        args.budget_tokens,
        args.budget_chars,
        settings.budget_tokens,
    ) {
        (Some(n), _, _) => Some(Budget::Tokens(n)),
        (None, Some(n), _) => Some(Budget::Chars(n)),
        (None, None, Some(n)) => Some(Budget::Tokens(n)),
        (None, None, None) => None,
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

/// The directory line cost of each skill, as `render` prints it by
/// default: with its absolute path, however the root was spelled.
fn entry_tokens(skill: &Skill) -> usize {
    let base = std::path::Path::new("");
    let path = render::display_path(&skill.path, query::PathStyle::Absolute, base)
        .unwrap_or_else(|| skill.path.to_string_lossy().into_owned());
    tokens::count(&format!(
        "- {}: {} [{}]\n",
        skill.id,
        skill.description,
        skilldex::model::printable(&path)
    ))
}

fn in_namespace(namespace: &str, filter: &str) -> bool {
    let filter = filter.trim_matches('/');
    filter.is_empty() || namespace == filter || namespace.starts_with(&format!("{filter}/"))
}

fn list_command(cli: &Cli, args: &ListArgs) -> anyhow::Result<ExitCode> {
    tokens::warm_up();
    let catalog = build(&cli.global, &builder(&cli.global, Profile::Spec)?)?;
    let filter = args.namespace.as_deref().unwrap_or("");
    if !filter.is_empty()
        && !catalog
            .namespaces()
            .iter()
            .any(|n| in_namespace(&n.name, filter))
    {
        let names: Vec<&str> = catalog
            .namespaces()
            .iter()
            .map(|n| n.display_name())
            .collect();
        say!(
            "skilldex: no namespace `{filter}` — the namespaces are: {}",
            names.join(", ")
        );
        return Ok(ExitCode::from(1));
    }
    let skills: Vec<&Skill> = catalog
        .skills()
        .iter()
        .filter(|s| in_namespace(&s.namespace, filter))
        .map(|s| &**s)
        .collect();
    let counts = count(catalog.diagnostics());
    if args.json {
        let entries: Vec<serde_json::Value> = skills
            .iter()
            .map(|s| {
                serde_json::json!({
                    "id": s.id,
                    "name": s.name,
                    "namespace": s.namespace,
                    "description": s.description,
                    "path": s.path,
                    "tokens": entry_tokens(s),
                    "shadowed": s.shadowed,
                })
            })
            .collect();
        let namespaces: Vec<&skilldex::model::Namespace> = catalog
            .namespaces()
            .iter()
            .filter(|n| in_namespace(&n.name, filter))
            .collect();
        write_json(&serde_json::json!({
            "revision": catalog.revision(),
            "skills": entries,
            "namespaces": namespaces,
            "diagnostics": {
                "errors": counts.errors,
                "warnings": counts.warnings,
                "infos": counts.infos,
            }
        }))?;
        return Ok(ExitCode::SUCCESS);
    }
    let style = Style::stdout(cli.global.color);
    let mut out = stdout();
    let total_tokens: usize = skills.iter().map(|s| entry_tokens(s)).sum();
    let namespace_count = catalog
        .namespaces()
        .iter()
        .filter(|n| in_namespace(&n.name, filter))
        .count();
    writeln!(
        out,
        "{} in {} · directory ≈ {} tokens",
        style.bold(&plural(skills.len(), "skill", "skills")),
        plural(namespace_count, "namespace", "namespaces"),
        thousands(total_tokens)
    )?;
    let name_width = skills
        .iter()
        .map(|s| super::style::text_width(&s.id))
        .max()
        .unwrap_or(0)
        .min(40);
    // The namespaces as a tree of folders: every folder on the way to a
    // namespace is a node, so `area/team/skills` nests under `area/`.
    let namespaces: Vec<&skilldex::model::Namespace> = catalog
        .namespaces()
        .iter()
        .filter(|n| in_namespace(&n.name, filter))
        .collect();
    let mut nodes: std::collections::BTreeSet<Vec<&str>> = std::collections::BTreeSet::new();
    for namespace in &namespaces {
        let parts: Vec<&str> = namespace
            .name
            .split('/')
            .filter(|p| !p.is_empty())
            .collect();
        for end in 0..=parts.len() {
            nodes.insert(parts[..end].to_vec());
        }
    }
    for node in &nodes {
        let name = node.join("/");
        let namespace = namespaces.iter().find(|n| n.name == name);
        let depth = node.len().saturating_sub(1);
        let indent = "  ".repeat(depth);
        if node.is_empty() && namespace.is_none() {
            continue; // No skills at the top of the roots.
        }
        writeln!(out)?;
        let label = match node.last() {
            Some(last) => format!("{}/", skilldex::model::printable(last)),
            None => "(top level)".to_string(),
        };
        match namespace {
            Some(namespace) => writeln!(
                out,
                "{indent}{}  {}",
                style.bold(&label),
                style.dim(
                    &render::shorten(&skilldex::model::printable(&namespace.description), 80).0
                )
            )?,
            None => {
                let below = skills
                    .iter()
                    .filter(|s| s.namespace.starts_with(&format!("{name}/")))
                    .count();
                writeln!(
                    out,
                    "{indent}{}  {}",
                    style.bold(&label),
                    style.dim(&plural(below, "skill below", "skills below"))
                )?
            }
        }
        let members: Vec<&&Skill> = skills.iter().filter(|s| s.namespace == name).collect();
        for (i, skill) in members.iter().enumerate() {
            let branch = if i + 1 == members.len() {
                "└─"
            } else {
                "├─"
            };
            let id = &skill.id;
            let pad = name_width.saturating_sub(super::style::text_width(id));
            let description = super::style::fit_width(&skill.description, 62);
            writeln!(
                out,
                "{indent}{branch} {}{}  {}  {}",
                if skill.shadowed {
                    style.yellow(id)
                } else {
                    style.cyan(id)
                },
                " ".repeat(pad),
                description,
                style.dim(&format!("{} tok", entry_tokens(skill)))
            )?;
        }
    }
    out.flush()?;
    // The state of the catalog is a note, not part of the tree: stderr.
    if !cli.global.quiet {
        let style = Style::stderr(cli.global.color);
        if counts.errors + counts.warnings == 0 {
            say!("{}", style.green("no problems found"));
        } else {
            say!(
                "{}, {} — run `skilldex lint` for details",
                style.red(&plural(counts.errors, "error", "errors")),
                style.yellow(&plural(counts.warnings, "warning", "warnings"))
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A skill name that is empty (or only slashes and spaces) is a usage
/// error, not an unknown skill: exit 2 with what to pass instead.
fn refuse_blank_name(name: &str, command: &str) -> Option<ExitCode> {
    if !query::read::is_blank_target(name) {
        return None;
    }
    say!(
        "skilldex: the skill name is empty — `skilldex {command} NAME` needs the name of a skill (`skilldex list` shows them)"
    );
    Some(ExitCode::from(2))
}

fn show_command(cli: &Cli, args: &ShowArgs) -> anyhow::Result<ExitCode> {
    if let Some(code) = refuse_blank_name(&args.name, "show") {
        return Ok(code);
    }
    tokens::warm_up();
    let builder = builder(&cli.global, Profile::Spec)?;
    // A path shows the skill it is in, as `read` takes it.
    let (catalog, name) = match read_by_path(&cli.global, &builder, &args.name)? {
        PathRead::Found { catalog, id, .. } => (*catalog, id),
        PathRead::Refused(message, code) => {
            say!("skilldex: {message}");
            return Ok(ExitCode::from(code));
        }
        PathRead::NotAPath => (build(&cli.global, &builder)?, args.name.clone()),
    };
    let Some(skill) = catalog.get(&name) else {
        if let Some(skill) = catalog.disabled_skill(&name) {
            say!(
                "skilldex: skill `{}` is disabled by configuration — {}",
                skill.id,
                skilldex::query::read::HOW_TO_ENABLE
            );
            return Ok(ExitCode::from(1));
        }
        let error = query::read::unknown_name(&catalog, &name);
        say!("skilldex: {error}");
        if matches!(error, query::ReadError::ParentInName { .. }) {
            return Ok(ExitCode::from(2));
        }
        return Ok(ExitCode::from(1));
    };
    let detail = query::skill_detail(&catalog, skill)
        .with_context(|| format!("reading {}", skill.path.display()))?;
    if args.json {
        write_json(&detail)?;
        return Ok(ExitCode::SUCCESS);
    }
    let style = Style::stdout(cli.global.color);
    let mut out = stdout();
    writeln!(out, "{}", style.bold(&skill.id))?;
    writeln!(out, "  {}", skill.description)?;
    writeln!(out)?;
    let mut field = |key: &str, value: &str| writeln!(out, "{:<15}{}", format!("{key}:"), value);
    field("name", &skill.name)?;
    field(
        "namespace",
        &if skill.namespace.is_empty() {
            "(top level)".into()
        } else {
            skilldex::model::printable(&skill.namespace)
        },
    )?;
    field(
        "path",
        &skilldex::model::printable(&skill.path.to_string_lossy()),
    )?;
    if let Some(v) = &skill.license {
        field("license", v)?;
    }
    if let Some(v) = &skill.compatibility {
        field("compatibility", v)?;
    }
    if let Some(v) = &skill.allowed_tools {
        field("allowed-tools", v)?;
    }
    for (k, v) in &skill.metadata {
        field("metadata", &format!("{k} = {v}"))?;
    }
    for (k, v) in &skill.extra {
        field("extra", &format!("{k} = {v}"))?;
    }
    field(
        "body",
        &format!(
            "{} lines, {}{} tokens (from line {})",
            thousands(detail.body_lines),
            if detail.body_tokens_estimated {
                "~"
            } else {
                ""
            },
            thousands(detail.body_tokens),
            skill.body_line
        ),
    )?;
    if skill.shadowed {
        field(
            "note",
            "another skill of higher precedence has this name; use the id above",
        )?;
    }
    if !detail.headings.is_empty() {
        writeln!(out, "\n{}", style.bold("Outline"))?;
        for heading in &detail.headings {
            writeln!(
                out,
                "  {:>5}  {}{} {}",
                style.dim(&format!("L{}", heading.line)),
                "  ".repeat(usize::from(heading.level.saturating_sub(1))),
                "#".repeat(usize::from(heading.level)),
                heading.text
            )?;
        }
    }
    if !detail.links.is_empty() {
        writeln!(out, "\n{}", style.bold("Links"))?;
        for link in &detail.links {
            let mark = if link.resolves {
                style.green("ok")
            } else {
                style.red("missing")
            };
            writeln!(
                out,
                "  {:>5}  {}  {}",
                style.dim(&format!("L{}", link.line)),
                link.target,
                mark
            )?;
        }
    }
    if !detail.sub_files.is_empty() {
        writeln!(out, "\n{}", style.bold("Files"))?;
        let width = detail
            .sub_files
            .iter()
            .map(|f| f.path.chars().count())
            .max()
            .unwrap_or(0);
        for file in &detail.sub_files {
            let kind = serde_json::to_value(file.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            let tokens = match file.tokens {
                Some(t) if file.estimated => format!("~{} tokens", thousands(t)),
                Some(t) => format!("{} tokens", thousands(t)),
                None => String::new(),
            };
            writeln!(
                out,
                "  {:<width$}  {:<12} {:>10}  {}{}",
                file.path,
                kind,
                human_bytes(file.bytes),
                tokens,
                file.description
                    .as_deref()
                    .map(|d| format!("  {}", style.dim(&render::shorten(d, 60).0)))
                    .unwrap_or_default(),
            )?;
        }
        if detail.sub_files_truncated {
            writeln!(out, "  … more files not listed")?;
        }
    }
    if !detail.diagnostics.is_empty() {
        writeln!(out, "\n{}", style.bold("Diagnostics"))?;
        for d in &detail.diagnostics {
            writeln!(out, "  {}", diagnostic_line(d, &style))?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn human_bytes(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    }
}

/// How `read` takes a target that is a path on disk.
enum PathRead {
    /// A skill folder, its `SKILL.md` or a file in it: a catalog of that
    /// skill alone, its id, and the file inside it.
    Found {
        catalog: Box<Catalog>,
        id: String,
        inside: String,
    },
    /// A path that leads to no skill: what to say, and the exit code.
    Refused(String, u8),
    /// A name (or a `NAME/PATH`): resolved against the whole catalog.
    NotAPath,
}

/// `read` (or `show`) of a path — the form the directory prints in
/// brackets — needs only the folders leading to the skill, not the whole
/// catalog: on 10,000 skills a few milliseconds instead of a full scan. A
/// target is a path when it is absolute or starts with `./` or `../`;
/// anything else is a name, whatever the current folder holds.
fn read_by_path(
    global: &super::GlobalArgs,
    builder: &CatalogBuilder,
    target: &str,
) -> anyhow::Result<PathRead> {
    let trimmed = target.trim();
    let given = std::path::Path::new(trimmed);
    if !given.is_absolute() && !trimmed.starts_with("./") && !trimmed.starts_with("../") {
        return Ok(PathRead::NotAPath);
    }
    if std::fs::symlink_metadata(given).is_err() {
        if trimmed.starts_with("../") {
            // `../x` that is not there: the name's answer says why `..` is
            // refused in a name, with a did-you-mean.
            return Ok(PathRead::NotAPath);
        }
        return Ok(PathRead::Refused(
            format!(
                "no file or folder at {trimmed} — pass a skill name, or a path the directory lists"
            ),
            1,
        ));
    }
    // A skill file that is a pipe or a device: say what it is, not that
    // no skill folder holds it.
    let named_like_a_skill_file = given
        .file_name()
        .is_some_and(|n| skilldex::scan::SKILL_FILE_NAMES.iter().any(|s| n == *s));
    if let Ok(metadata) = std::fs::metadata(given) {
        if named_like_a_skill_file && !metadata.is_file() && !metadata.is_dir() {
            return Ok(PathRead::Refused(
                format!(
                    "{} is {}, not a regular file, and is never read — a skill file must be a regular Markdown file",
                    printable(trimmed),
                    skilldex::contain::kind_name(metadata.file_type())
                ),
                2,
            ));
        }
    }
    let Some(located) = query::read::locate_path(builder.roots(), trimmed) else {
        let roots: Vec<String> = builder
            .roots()
            .iter()
            .map(|r| r.display().to_string())
            .collect();
        return Ok(PathRead::Refused(
            format!(
                "{trimmed} is not inside a skill folder under the roots ({}) — skilldex reads only skills; pass a skill name, or a path the directory lists",
                roots.join(", ")
            ),
            2,
        ));
    };
    // With skills disabled, the whole catalog is built: a disabled skill
    // may be nested in this one (its files are then out of reach, even
    // through symlinks), and a `name~2` names a skill by its place among
    // skills of one name. Only a catalog of every skill knows either.
    let catalog = if builder.disabled_names().next().is_some() {
        build(global, builder)?
    } else {
        match builder.build_files(&located.skill_files) {
            Ok(catalog) => catalog,
            // A root that cannot be walked is reported by the whole build.
            Err(_) => return Ok(PathRead::NotAPath),
        }
    };
    let found = located.skill_files.iter().find_map(|file| {
        catalog
            .skills()
            .iter()
            .chain(catalog.disabled_skills())
            .find(|s| &s.path == file)
    });
    Ok(match found {
        Some(skill) => PathRead::Found {
            id: skill.id.clone(),
            inside: located.inside,
            catalog: Box::new(catalog),
        },
        None => PathRead::Refused(
            match located
                .skill_files
                .iter()
                .find_map(|file| catalog.load_error(file))
            {
                Some(d) => format!(
                    "{} did not load: {} (`skilldex lint` lists every problem)",
                    skilldex::model::printable(&located.skill_files[0].to_string_lossy()),
                    diagnostic_line(d, &Style::new(super::ColorChoice::Never, false)),
                ),
                None => format!(
                "{} is not in the catalog: it is ignored (by a .gitignore or .ignore, or in a skipped folder), deeper than --max-depth, or its header does not load (`skilldex lint` lists load errors)",
                located.skill_files[0].display()
            ),
            },
            1,
        ),
    })
}

fn read_command(cli: &Cli, args: &ReadArgs) -> anyhow::Result<ExitCode> {
    use skilldex::query::ReadError;
    if let Some(code) = refuse_blank_name(&args.target, "read") {
        return Ok(code);
    }
    let builder = builder(&cli.global, Profile::Spec)?;
    let (catalog, target, path) = match read_by_path(&cli.global, &builder, &args.target)? {
        PathRead::Found {
            catalog,
            id,
            inside,
        } => (*catalog, id, Some(inside)),
        PathRead::Refused(message, code) => {
            say!("skilldex: {message}");
            return Ok(ExitCode::from(code));
        }
        PathRead::NotAPath => (build(&cli.global, &builder)?, args.target.clone(), None),
    };
    let by_path = path.is_some();
    let request = query::ReadRequest {
        target,
        path,
        raw: args.raw,
        section: args.section.clone(),
        lines: args.lines,
        max_tokens: args.max_tokens,
    };
    let result = match query::read(&catalog, &request) {
        Ok(result) => result,
        Err(error) => {
            // A section that names no heading or several is still an
            // answer an agent reads as data: which headings to pick from.
            if let (
                true,
                ReadError::Section {
                    skill,
                    path,
                    heading,
                    matches,
                    ..
                },
            ) = (args.json, &error)
            {
                let candidates = error.section_candidates().unwrap_or_default();
                write_json(&serde_json::json!({
                    "skill": skill,
                    "path": path,
                    "section": heading,
                    "error": if matches.is_empty() { "unknown section" } else { "ambiguous section" },
                    "candidates": candidates,
                }))?;
                if matches.is_empty() {
                    say!("skilldex: no section `{heading}` in {skill}/{path}; the headings are in the JSON answer");
                } else {
                    say!(
                        "skilldex: `{heading}` matches {} headings in {skill}/{path}; they are in the JSON answer",
                        matches.len()
                    );
                }
                return Ok(ExitCode::from(1));
            }
            say!("skilldex: {error}");
            let target = args.target.trim();
            if matches!(error, ReadError::UnknownSkill { .. })
                && target.contains('/')
                && std::path::Path::new(target).exists()
            {
                say!("skilldex: `{target}` is a path here; to read it as one, write ./{target}");
            }
            // Unknown names, files and sections are "no match"; everything else
            // (paths outside the skill, binary files, bad ranges) is refused.
            let code = match error {
                ReadError::UnknownSkill { .. }
                | ReadError::NotLoadedSkill { .. }
                | ReadError::NotLoaded { .. }
                | ReadError::Section { .. }
                | ReadError::NotFound { .. }
                | ReadError::Disabled { .. } => 1,
                _ => 2,
            };
            return Ok(ExitCode::from(code));
        }
    };
    if args.json {
        write_json(&serde_json::json!({
            "skill": result.skill,
            "path": result.path,
            // Not UTF-8 is shown with replacement characters, not refused.
            "folder": result.folder.to_string_lossy(),
            "content": result.content,
            "start_line": result.start_line,
            "end_line": result.end_line,
            "total_lines": result.total_lines,
            "truncated": result.truncated,
            "next": result.next,
            "note": result.note,
            "files": result.files,
            "links": result.links,
        }))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = stdout();
    writeln!(
        out,
        "skill {} — folder {}",
        result.skill,
        skilldex::model::printable(&result.folder.to_string_lossy())
    )?;
    if let Some(files) = result.files_line(30) {
        writeln!(out, "files: {files}")?;
    }
    let broken: Vec<&str> = result
        .links
        .iter()
        .filter(|l| !l.resolves)
        .map(|l| l.target.as_str())
        .collect();
    if !broken.is_empty() {
        writeln!(out, "broken links: {}", broken.join(", "))?;
    }
    if result.start_line > result.end_line {
        writeln!(
            out,
            "{}: nothing to show (the file ends here)\n",
            result.path
        )?;
    } else {
        writeln!(
            out,
            "{} lines {}–{} of {}\n",
            result.path, result.start_line, result.end_line, result.total_lines
        )?;
    }
    out.write_all(result.content.as_bytes())?;
    if !result.content.ends_with('\n') && !result.content.is_empty() {
        writeln!(out)?;
    }
    if let Some(next) = &result.next {
        // Read by path, the next part is read by the same file's path: the
        // skill's id in a one-skill catalog may name another skill.
        let target = if by_path {
            path_of(&result.folder.join(&result.path))
        } else if result.path == "SKILL.md" {
            result.skill.clone()
        } else {
            format!("{}/{}", result.skill, result.path)
        };
        let mut command = format!("skilldex read {} --lines {next}", shell_word(&target));
        if args.max_tokens != 0 && args.max_tokens != skilldex::query::read::DEFAULT_MAX_TOKENS {
            command.push_str(&format!(" --max-tokens {}", args.max_tokens));
        }
        command.push_str(&global_flags(&cli.global));
        writeln!(
            out,
            "\n[cut at about {} tokens; continue with `{command}`]",
            thousands(if args.max_tokens == 0 {
                skilldex::query::read::DEFAULT_MAX_TOKENS
            } else {
                args.max_tokens
            }),
        )?;
    }
    out.flush()?;
    if let Some(note) = &result.note {
        if !cli.global.quiet {
            let more = if note.contains("bytes are shown") {
                " — a larger --max-tokens shows more of it"
            } else {
                ""
            };
            say!("skilldex: note: {note}{more}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `path` as `read` takes a path: absolute, or starting with `./` or `../`.
fn path_of(path: &std::path::Path) -> String {
    let text = path.to_string_lossy().into_owned();
    if path.is_absolute() || text.starts_with("./") || text.starts_with("../") {
        text
    } else {
        format!("./{text}")
    }
}

/// `word` as one shell word: as it is when it holds only characters no
/// shell treats specially, else in single quotes.
fn shell_word(word: &str) -> String {
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

fn grep_command(cli: &Cli, args: &GrepArgs) -> anyhow::Result<ExitCode> {
    use skilldex::query::GrepError;
    use std::io::IsTerminal as _;
    if args.max_results == Some(0) {
        say!("skilldex: --max-results must be at least 1 (leave it out for no cap)");
        return Ok(ExitCode::from(2));
    }
    if let Some(skill) = &args.skill {
        if let Some(code) = refuse_blank_name(skill, "grep --skill") {
            return Ok(code);
        }
    }
    let request = query::GrepRequest {
        pattern: args.pattern.clone(),
        fixed_strings: args.fixed_strings,
        ignore_case: args.ignore_case,
        smart_case: args.smart_case,
        word: args.word_regexp,
        before_context: args.before_context.or(args.context).unwrap_or(0),
        after_context: args.after_context.or(args.context).unwrap_or(0),
        max_count: args.max_count,
        max_results: args.max_results,
        files_with_matches: args.files_with_matches,
        skill: args.skill.clone(),
        namespace: args.namespace.clone(),
    };
    let report = |error: GrepError| {
        say!("skilldex: {error}");
        // A bad pattern is a usage error; an unknown skill or namespace
        // is "no match".
        match error {
            GrepError::Pattern(_) | GrepError::Output(_) => ExitCode::from(2),
            GrepError::UnknownSkill { .. }
            | GrepError::UnknownNamespace(_)
            | GrepError::Disabled(_) => ExitCode::from(1),
        }
    };
    // The search rides along with the scan: one walk, each file read once.
    let search = match query::grep::ScanSearch::new(&request) {
        Ok(search) => search,
        Err(error) => return Ok(report(error)),
    };
    let catalog = build(
        &cli.global,
        &builder(&cli.global, Profile::Spec)?.file_visitor(search.visitor()),
    )?;
    // Lines are printed as the answer streams, in its order.
    let mut printer = GrepPrinter {
        out: stdout(),
        json: args.json,
        files_only: args.files_with_matches,
        context: request.before_context + request.after_context > 0,
        // As rg: a line at a time to a terminal, in blocks to a pipe.
        each_line: std::io::stdout().is_terminal(),
        previous: None,
    };
    let result = match search.finish_into(&catalog, &mut printer) {
        Ok(result) => result,
        Err(GrepError::Output(error)) => return Err(error.into()),
        Err(error) => return Ok(report(error)),
    };
    let mut out = printer.out;
    if args.json {
        serde_json::to_writer(
            &mut out,
            &serde_json::json!({
                "type": "summary",
                "matches": result.matches,
                "files": result.files,
                "truncated": result.truncated,
            }),
        )?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    // As in `render`: the process ends now; skip freeing the catalog.
    std::mem::forget(catalog);
    if result.truncated && !cli.global.quiet {
        say!(
            "skilldex: stopped at {} matches (--max-results); narrow the pattern or pick a skill with --skill",
            thousands(result.matches)
        );
    }
    Ok(if result.matches > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `grep`'s answer as it streams: `skill/path:N:text` (`-` for a context
/// line, `--` between a file's groups with context), JSON lines
/// (`--json`), or one line per file (`-l`).
struct GrepPrinter<W: Write> {
    out: W,
    json: bool,
    files_only: bool,
    context: bool,
    each_line: bool,
    /// The number of the current file's last line printed.
    previous: Option<u64>,
}

impl<W: Write> skilldex::query::GrepSink for GrepPrinter<W> {
    fn line(
        &mut self,
        skill: &str,
        path: &str,
        kind: skilldex::query::LineKind,
        number: u64,
        text: &str,
    ) -> std::io::Result<()> {
        let matched = kind == skilldex::query::LineKind::Match;
        let out = &mut self.out;
        if self.json {
            // The keys in the order a JSON object of them is written.
            out.write_all(b"{\"line\":")?;
            write_decimal(out, number)?;
            out.write_all(b",\"path\":")?;
            serde_json::to_writer(&mut *out, path)?;
            out.write_all(b",\"skill\":")?;
            serde_json::to_writer(&mut *out, skill)?;
            out.write_all(b",\"text\":")?;
            serde_json::to_writer(&mut *out, text)?;
            out.write_all(if matched {
                b",\"type\":\"match\"}\n"
            } else {
                b",\"type\":\"context\"}\n"
            })?;
        } else {
            if self.context && self.previous.is_some_and(|p| number > p + 1) {
                out.write_all(b"--\n")?;
            }
            let separator = if matched { b":" } else { b"-" };
            out.write_all(skill.as_bytes())?;
            out.write_all(b"/")?;
            // A control character in a file name must not reach the
            // terminal or split the line.
            out.write_all(printable(path).as_bytes())?;
            out.write_all(separator)?;
            write_decimal(out, number)?;
            out.write_all(separator)?;
            out.write_all(text.as_bytes())?;
            out.write_all(b"\n")?;
            self.previous = Some(number);
        }
        if self.each_line {
            out.flush()?;
        }
        Ok(())
    }

    fn file_end(&mut self, skill: &str, path: &str, matches: usize) -> std::io::Result<()> {
        self.previous = None;
        if !self.files_only {
            return Ok(());
        }
        if self.json {
            serde_json::to_writer(
                &mut self.out,
                &serde_json::json!({"type": "file", "skill": skill, "path": path, "matches": matches}),
            )?;
            self.out.write_all(b"\n")?;
        } else {
            writeln!(self.out, "{skill}/{}", printable(path))?;
        }
        if self.each_line {
            self.out.flush()?;
        }
        Ok(())
    }
}

/// `n` in decimal, without going through `fmt`.
fn write_decimal(out: &mut impl Write, mut n: u64) -> std::io::Result<()> {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.write_all(&digits[at..])
}
