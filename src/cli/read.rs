//! `skilldex read`: a skill's body, a section, a range of lines or one of its files,
//! by name or by the path the directory prints.

use super::commands::*;
use super::style::Style;
use super::{build, builder, Cli, ReadArgs};
use skilldex::catalog::{Catalog, CatalogBuilder};
use skilldex::entry::printable;
use skilldex::entry::Profile;
use skilldex::query;
use skilldex::rules::thousands;
use std::io::Write;
use std::process::ExitCode;

/// How `read` takes a target that is a path on disk.
pub(super) enum PathRead {
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
pub(super) fn read_by_path(
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
                    skilldex::entry::printable(&located.skill_files[0].to_string_lossy()),
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

pub(super) fn read_command(cli: &Cli, args: &ReadArgs) -> anyhow::Result<ExitCode> {
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
                | ReadError::LinkIntoNotLoaded { .. }
                | ReadError::Section { .. }
                | ReadError::NotFound { .. }
                | ReadError::Disabled { .. } => 1,
                _ => 2,
            };
            return Ok(ExitCode::from(code));
        }
    };
    // The MCP tools the skill declares, beside its SKILL.md.
    let declared: Vec<(String, &'static str, String)> = catalog
        .get(&result.skill)
        .filter(|_| result.path == "SKILL.md")
        .map(|skill| {
            skilldex::declared::resolve(skill, &catalog)
                .into_iter()
                .map(|(d, r)| (d.id(), d.declared_in, r.status(d)))
                .collect()
        })
        .unwrap_or_default();
    if args.json {
        let mcp_tools: Vec<serde_json::Value> = declared
            .iter()
            .map(|(id, from, status)| serde_json::json!({"id": id, "declared_in": from, "status": status}))
            .collect();
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
            "mcp_tools": mcp_tools,
        }))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = stdout();
    writeln!(
        out,
        "skill {} — folder {}",
        result.skill,
        skilldex::entry::printable(&result.folder.to_string_lossy())
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
    if !declared.is_empty() {
        let tools: Vec<String> = declared
            .iter()
            .map(|(id, _, status)| format!("{id} ({status})"))
            .collect();
        writeln!(
            out,
            "mcp tools: {}",
            skilldex::entry::printable(&tools.join(", "))
        )?;
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
