//! `skilldex grep`: every file of every skill searched for a pattern, printed as
//! the answer streams.

use super::commands::*;
use super::{build, builder, Cli, GrepArgs};
use skilldex::entry::printable;
use skilldex::entry::Profile;
use skilldex::query;
use skilldex::rules::thousands;
use std::io::Write;
use std::process::ExitCode;

pub(super) fn grep_command(cli: &Cli, args: &GrepArgs) -> anyhow::Result<ExitCode> {
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
            GrepError::Pattern(_) | GrepError::Output(_) | GrepError::Unreadable { .. } => {
                ExitCode::from(2)
            }
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
        file: FilePrefix::default(),
        batch: Vec::new(),
    };
    let result = match search.finish_into(&catalog, &mut printer) {
        Ok(result) => result,
        Err(GrepError::Output(error)) => return Err(error.into()),
        Err(error) => return Ok(report(error)),
    };
    let mut out = printer.out;
    // A skill file that did not load has no skill: its folder is not
    // searched. Said, so a missing match is not taken for an absent word.
    let not_loaded = query::grep::not_loaded(&catalog, &request);
    let not_loaded_count = not_loaded.len();
    let not_loaded_note = (!not_loaded.is_empty()).then(|| not_searched(&not_loaded));
    drop(not_loaded);
    if args.json {
        serde_json::to_writer(
            &mut out,
            &serde_json::json!({
                "type": "summary",
                "matches": result.matches,
                "files": result.files,
                "truncated": result.truncated,
                "unreadable": result.unreadable,
                "not_loaded": not_loaded_count,
            }),
        )?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    // As in `render`: the process ends now; skip freeing the catalog.
    std::mem::forget(catalog);
    if let Some(note) = not_loaded_note.filter(|_| !cli.global.quiet) {
        say!("skilldex: {note}");
    }
    if result.truncated && !cli.global.quiet {
        say!(
            "skilldex: stopped at {} matches (--max-results); narrow the pattern or pick a skill with --skill",
            thousands(result.matches)
        );
    }
    // As rg: a file that could not be searched is an error, matches or not.
    let code = if result.unreadable > 0 {
        2
    } else if result.matches > 0 {
        0
    } else {
        1
    };
    drop(out);
    Ok(end_now(code))
}

/// What grep could not search because these skill files did not load.
fn not_searched(not_loaded: &[&skilldex::entry::Diagnostic]) -> String {
    let shown = |d: &skilldex::entry::Diagnostic| printable(&d.path.to_string_lossy()).to_string();
    match not_loaded {
        [one] => format!(
            "{}:{}:{}: this skill file did not load, so its folder was not searched: {}",
            shown(one),
            one.line,
            one.column,
            one.message
        ),
        many => {
            let listed: Vec<String> = many.iter().take(3).map(|d| shown(d)).collect();
            let more = if many.len() > 3 {
                format!(" and {} more", many.len() - 3)
            } else {
                String::new()
            };
            format!(
                "not searched: the folders of {} skill files that did not load ({}{more}) — `skilldex lint` says why and how to fix each",
                thousands(many.len()),
                listed.join(", ")
            )
        }
    }
}

/// The answer is written and flushed: the process ends here. On Linux it
/// ends without the clean-up at exit, where the allocator would collect
/// every heap, block by block, for pages the kernel takes back anyway
/// (2 % of the CPU samples of `grep -F the` on c10k, serial at the very
/// end: ~5 % of its wall time, measured); elsewhere the code goes
/// back to `main`.
fn end_now(code: u8) -> ExitCode {
    #[cfg(target_os = "linux")]
    {
        // stdout was flushed above and stderr is unbuffered; no thread
        // of this process has anything left to write.
        let _ = std::io::stderr().flush();
        // SAFETY: `_exit` takes a plain integer and never returns; no
        // Rust value is observed after it (skipping destructors is safe).
        #[allow(unsafe_code)]
        unsafe {
            libc::_exit(i32::from(code))
        }
    }
    #[allow(unreachable_code)]
    ExitCode::from(code)
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
    file: FilePrefix,
    /// Where a batch of lines is put together before it is written.
    batch: Vec<u8>,
}

/// What every line of one file prints about the file, made once per file
/// (a path is checked for control characters once, not on every line).
#[derive(Default)]
struct FilePrefix {
    skill: String,
    path: String,
    /// `skill/path` (text), or `,"path":…,"skill":…` (JSON).
    bytes: Vec<u8>,
}

impl FilePrefix {
    fn of(&mut self, skill: &str, path: &str, json: bool) -> std::io::Result<&[u8]> {
        if self.skill != skill || self.path != path || self.bytes.is_empty() {
            self.skill.clear();
            self.skill.push_str(skill);
            self.path.clear();
            self.path.push_str(path);
            let out = &mut self.bytes;
            out.clear();
            if json {
                // The keys in the order a JSON object of them is written.
                out.extend_from_slice(b",\"path\":");
                serde_json::to_writer(&mut *out, path)?;
                out.extend_from_slice(b",\"skill\":");
                serde_json::to_writer(&mut *out, skill)?;
            } else {
                out.extend_from_slice(skill.as_bytes());
                out.push(b'/');
                // A control character in a file name must not reach the
                // terminal or split the line.
                out.extend_from_slice(printable(path).as_bytes());
            }
        }
        Ok(&self.bytes)
    }
}

impl<W: Write> skilldex::query::GrepSink for GrepPrinter<W> {
    fn unreadable(&mut self, skill: &str, path: &str, error: &str) -> std::io::Result<()> {
        say!(
            "skilldex: could not read {}/{}: {error} — it was not searched; check its permissions",
            printable(skill),
            printable(path)
        );
        Ok(())
    }

    fn unreadable_folder(&mut self, path: &std::path::Path, error: &str) -> std::io::Result<()> {
        say!(
            "skilldex: could not read {}: {error} — nothing in it was searched (skills in it included); check its permissions",
            printable(&path.to_string_lossy())
        );
        Ok(())
    }

    fn line(
        &mut self,
        skill: &str,
        path: &str,
        kind: skilldex::query::LineKind,
        number: u64,
        text: &str,
    ) -> std::io::Result<()> {
        let file = self.file.of(skill, path, self.json)?;
        let form = LineForm {
            json: self.json,
            context: self.context,
        };
        let batch = &mut self.batch;
        batch.clear();
        form.write(batch, file, &mut self.previous, kind, number, text)?;
        self.out.write_all(batch)?;
        if self.each_line {
            self.out.flush()?;
        }
        Ok(())
    }

    fn lines(
        &mut self,
        skill: &str,
        path: &str,
        lines: skilldex::query::LineBatch<'_>,
    ) -> std::io::Result<()> {
        if self.each_line {
            for (kind, number, text) in lines.iter() {
                self.line(skill, path, kind, number, &text)?;
            }
            return Ok(());
        }
        // The prefix made once, the lines gathered, then one write.
        let file = self.file.of(skill, path, self.json)?;
        let form = LineForm {
            json: self.json,
            context: self.context,
        };
        let batch = &mut self.batch;
        batch.clear();
        // Room for the texts and, per line, the prefix and its number.
        batch.reserve(lines.text_len() + lines.len() * (file.len() + 24));
        for (kind, number, text) in lines.iter() {
            form.write(batch, file, &mut self.previous, kind, number, &text)?;
        }
        self.out.write_all(batch)
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

/// How one line is printed: `skill/path:N:text` (`-` for context, `--`
/// between a file's groups when context is shown) or a JSON line.
#[derive(Clone, Copy)]
struct LineForm {
    json: bool,
    context: bool,
}

impl LineForm {
    /// Write one line of the file whose prefix is `file`; `previous` is
    /// the number of that file's last line written.
    #[inline]
    fn write(
        self,
        out: &mut Vec<u8>,
        file: &[u8],
        previous: &mut Option<u64>,
        kind: skilldex::query::LineKind,
        number: u64,
        text: &str,
    ) -> std::io::Result<()> {
        let matched = kind == skilldex::query::LineKind::Match;
        if self.json {
            out.extend_from_slice(b"{\"line\":");
            push_decimal(out, number);
            out.extend_from_slice(file);
            out.extend_from_slice(b",\"text\":");
            serde_json::to_writer(&mut *out, text)?;
            out.extend_from_slice(if matched {
                b",\"type\":\"match\"}\n"
            } else {
                b",\"type\":\"context\"}\n"
            });
        } else {
            if self.context && previous.is_some_and(|p| number > p + 1) {
                out.extend_from_slice(b"--\n");
            }
            let separator = if matched { b':' } else { b'-' };
            out.extend_from_slice(file);
            out.push(separator);
            push_decimal(out, number);
            out.push(separator);
            out.extend_from_slice(text.as_bytes());
            out.push(b'\n');
            *previous = Some(number);
        }
        Ok(())
    }
}

/// `n` in decimal, without going through `fmt`.
#[inline]
fn push_decimal(out: &mut Vec<u8>, mut n: u64) {
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
    out.extend_from_slice(&digits[at..]);
}
