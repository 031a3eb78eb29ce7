//! `grep_skills`: matching lines of the skills' files, in a fixed order,
//! capped, each line cut at `GREP_MAX_LINE_CHARS` characters.

use super::{
    at_least_one, too_long, ArgumentError, Arguments, ToolAnswer, GREP_DEFAULT_MAX_RESULTS,
    GREP_MAX_LINE_CHARS, GREP_MAX_RESULTS,
};
use crate::catalog::Catalog;
use crate::query::{self, GrepError};
use crate::text::plural;

/// Skill files that did not load named one by one in an answer; past
/// this, counted.
const MAX_NOT_LOADED_SHOWN: usize = 10;

/// Answer `grep_skills`.
pub fn grep_skills(
    catalog: &Catalog,
    arguments: &Arguments<'_>,
) -> Result<ToolAnswer, ArgumentError> {
    let pattern = arguments.required_string("pattern")?;
    let skill = arguments.string("skill")?;
    let namespace = arguments.string("namespace")?;
    let fixed_strings = arguments.boolean("fixed_strings")?;
    let ignore_case = arguments.boolean("ignore_case")?;
    let max_results = arguments.whole_number("max_results")?;
    for (argument, value) in [
        ("pattern", Some(pattern)),
        ("skill", skill),
        ("namespace", namespace),
    ] {
        if let Some(answer) = value.and_then(|v| too_long(argument, v)) {
            return Ok(answer);
        }
    }
    if pattern.is_empty() {
        return Ok(ToolAnswer::error(
            "`pattern` is empty — pass text to look for",
        ));
    }
    let skill = skill.map(str::trim).filter(|s| !s.is_empty());
    let namespace = namespace
        .map(|n| n.trim().trim_matches('/'))
        .filter(|n| !n.is_empty());
    if skill.is_some() && namespace.is_some() {
        return Ok(ToolAnswer::error(
            "pass either `skill` or `namespace`, not both",
        ));
    }
    if let Some(name) = skill {
        let key = name.trim_matches('/');
        if catalog.get(name).is_none()
            && catalog.disabled_skill(name).is_none()
            && catalog.namespaces().iter().any(|n| n.name == key)
        {
            return Ok(ToolAnswer::error(format!(
                "`{name}` is a namespace, not a skill — pass it as `namespace` to search its skills"
            )));
        }
    }
    let advice = format!("leave it out for the default ({GREP_DEFAULT_MAX_RESULTS})");
    let max_results = match at_least_one("max_results", max_results, &advice) {
        Ok(max_results) => max_results,
        Err(answer) => return Ok(answer),
    };
    let cap = max_results
        .unwrap_or(GREP_DEFAULT_MAX_RESULTS)
        .min(GREP_MAX_RESULTS);
    let request = query::GrepRequest {
        pattern: pattern.to_string(),
        fixed_strings,
        ignore_case,
        max_results: Some(cap),
        skill: skill.map(str::to_string),
        namespace: namespace.map(str::to_string),
        ..query::GrepRequest::default()
    };
    let mut lines = GrepText::default();
    let result = match query::grep::grep_into(catalog, &request, &mut lines) {
        Ok(result) => result,
        Err(GrepError::Pattern(message)) => {
            return Ok(ToolAnswer::error(format!(
                "the pattern is not a valid regular expression: {message} — fix it, or pass fixed_strings: true to search for the text as written"
            )))
        }
        Err(GrepError::UnknownNamespace(namespace)) => {
            return Ok(ToolAnswer::error(format!(
                "no namespace `{namespace}` — the directory in the server instructions shows the namespaces"
            )))
        }
        Err(error) => return Ok(ToolAnswer::error(error.to_string())),
    };
    let mut unread = std::mem::take(&mut lines.unreadable);
    // A skill file that did not load has no skill: its folder is not
    // searched. Said, so a missing match is not taken for an absent word.
    let not_loaded = query::grep::not_loaded(catalog, &request);
    {
        use std::fmt::Write as _;
        for d in not_loaded.iter().take(MAX_NOT_LOADED_SHOWN) {
            let _ = write!(
                unread,
                "\nnot searched: the folder of {0}, whose skill file did not load ({0}:{1}:{2}: {3})",
                crate::entry::printable(&d.path.to_string_lossy()),
                d.line,
                d.column,
                d.message
            );
        }
        if not_loaded.len() > MAX_NOT_LOADED_SHOWN {
            let _ = write!(
                unread,
                "\nnot searched either: the folders of {} more skill files that did not load",
                not_loaded.len() - MAX_NOT_LOADED_SHOWN
            );
        }
    }
    if result.matches == 0 {
        let scope = match (skill, namespace) {
            (Some(s), _) => format!(" in skill {s}"),
            (_, Some(n)) => format!(" in namespace {n}"),
            _ => String::new(),
        };
        return Ok(ToolAnswer::ok(format!(
            "no matches for `{pattern}`{scope} — try other words, ignore_case, or search_skills{unread}"
        )));
    }
    let mut text = format!(
        "{} in {}{}\n",
        plural(result.matches, "match", "matches"),
        plural(result.files, "file", "files"),
        if result.truncated {
            format!(" (stopped at {cap}: narrow the pattern, pass `skill`, or raise max_results)")
        } else {
            String::new()
        }
    );
    text.push_str(&lines.text);
    text.push_str(unread.trim_start_matches('\n'));
    Ok(ToolAnswer::ok(text))
}

/// The lines of a `grep_skills` answer as they stream, each cut at
/// `GREP_MAX_LINE_CHARS` characters.
#[derive(Default)]
struct GrepText {
    text: String,
    /// Notes on what could not be searched, each on a line of its own.
    unreadable: String,
}

impl query::GrepSink for GrepText {
    fn line(
        &mut self,
        skill: &str,
        path: &str,
        _kind: query::LineKind,
        number: u64,
        text: &str,
    ) -> std::io::Result<()> {
        let shown = match text.char_indices().nth(GREP_MAX_LINE_CHARS) {
            Some((end, _)) => &text[..end],
            None => text,
        };
        let cut = if shown.len() < text.len() { "…" } else { "" };
        use std::fmt::Write as _;
        let path = crate::entry::printable(path);
        let _ = writeln!(self.text, "{skill}/{path}:{number}: {shown}{cut}");
        Ok(())
    }

    fn file_end(&mut self, _skill: &str, _path: &str, _matches: usize) -> std::io::Result<()> {
        Ok(())
    }

    fn unreadable(&mut self, skill: &str, path: &str, error: &str) -> std::io::Result<()> {
        use std::fmt::Write as _;
        let path = crate::entry::printable(path);
        let _ = write!(
            self.unreadable,
            "\nnot searched: {skill}/{path}: {error} (the server may not read it; its permissions must change)"
        );
        Ok(())
    }

    fn unreadable_folder(&mut self, path: &std::path::Path, error: &str) -> std::io::Result<()> {
        use std::fmt::Write as _;
        let path = path.to_string_lossy();
        let path = crate::entry::printable(&path);
        let _ = write!(
            self.unreadable,
            "\nnot searched: {path}: {error}, and skills in it were not searched (its permissions must change)"
        );
        Ok(())
    }
}
