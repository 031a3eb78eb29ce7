//! The two ends of a streamed grep. `FileSearch` is the searcher's sink for
//! one file: it turns what the searcher reports into `Lines`, a compact
//! buffer (no allocation per line), and asks its caller after every line
//! whether to go on, hand the lines over or give up. `Emitter` takes each
//! file's lines in answer order, applies the answer's cap (`max_results`)
//! and pushes what is kept into a `GrepSink`: the CLI's printer, the MCP
//! tool's collector. The cap lives here and nowhere else, so every caller
//! cuts the same way and says `truncated` for the same reason.

use super::{FileMatches, GrepLine, GrepResult, LineKind};
use grep_searcher::{Searcher, Sink, SinkContext, SinkContextKind, SinkMatch};

/// Where a grep answer goes, line by line, in answer order (skills in
/// catalog order; in each, `SKILL.md` first, then the other files by path).
/// Nothing is called for a file without a line in the answer.
pub trait GrepSink {
    /// One line of the file `path` of skill `skill`: its number and its
    /// text without the line ending (invalid UTF-8 replaced).
    fn line(
        &mut self,
        skill: &str,
        path: &str,
        kind: LineKind,
        number: u64,
        text: &str,
    ) -> std::io::Result<()>;

    /// The end of a file with matches: `matches` of them are in the answer
    /// (with `files_with_matches`, the only call a file gets).
    fn file_end(&mut self, skill: &str, path: &str, matches: usize) -> std::io::Result<()>;

    /// Lines of one file in a row, in order: how the answer's lines come
    /// wherever the cap cannot fall among them. The default gives each to
    /// `line`; a sink that writes can take them in one go.
    fn lines(&mut self, skill: &str, path: &str, lines: LineBatch<'_>) -> std::io::Result<()> {
        for (kind, number, text) in lines.iter() {
            self.line(skill, path, kind, number, &text)?;
        }
        Ok(())
    }

    /// A file of skill `skill` that could not be read, so was not searched
    /// (`error` says why). Called before the answer's lines for what the
    /// scan met, after them for a file that failed when opened for the
    /// answer; by default the file is only counted in
    /// `GrepSummary::unreadable`.
    fn unreadable(&mut self, skill: &str, path: &str, error: &str) -> std::io::Result<()> {
        let _ = (skill, path, error);
        Ok(())
    }

    /// A folder outside every skill that the walk could not enter, so the
    /// skills it may hold were not searched (only when no skill or
    /// namespace was asked for). Called before the answer's lines; by
    /// default only counted in `GrepSummary::unreadable`.
    fn unreadable_folder(&mut self, path: &std::path::Path, error: &str) -> std::io::Result<()> {
        let _ = (path, error);
        Ok(())
    }
}

/// What a streamed answer held, once it ends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GrepSummary {
    pub matches: usize,
    pub files: usize,
    /// The cap (`max_results`) cut the answer.
    pub truncated: bool,
    /// Files and folders of the selected skills that could not be read
    /// (each was handed to `GrepSink::unreadable` or `unreadable_folder`).
    pub unreadable: usize,
}

/// The lines of one file (or the part not handed on yet) as the search
/// finds them: a head per line (its kind, number and length) and the texts
/// back to back, each followed by `\n`. No allocation per line: a searching
/// thread keeps one `Lines` for file after file (its room stays), and what
/// is handed on is copied out into a `Chunk` of exactly its size — two
/// allocations per chunk, where growing a fresh buffer line by line cost a
/// dozen reallocations per file.
#[derive(Debug, Default)]
pub(super) struct Lines {
    heads: Vec<Head>,
    text: Vec<u8>,
    /// Matches counted in the file so far (with `-m`, at most that many).
    pub(super) matches: usize,
}

/// Lines handed on, their texts checked as UTF-8 in one pass on the thread
/// that searched them: the `\n` after each text keeps every line's end on a
/// character boundary, so the whole is valid only if each line is, and the
/// thread that answers slices them without checking again.
#[derive(Debug)]
pub(super) struct Chunk {
    heads: Vec<Head>,
    text: Text,
    /// The file's matches, when the chunk is the rest of a finished file
    /// (`Lines::finish`); 0 for a chunk handed on mid-file.
    pub(super) matches: usize,
}

#[derive(Debug, Clone, Copy)]
struct Head {
    number: u64,
    /// Of the text, without the `\n` that follows it.
    len: u32,
    kind: LineKind,
}

#[derive(Debug)]
enum Text {
    /// All valid UTF-8.
    Checked(String),
    /// Not valid UTF-8 as a whole: each line is checked alone.
    Bytes(Vec<u8>),
}

/// Room a `Lines` keeps between files: more (a file with a long answer)
/// is given back when the file ends.
const KEEP: usize = 64 * 1024;

impl Lines {
    fn push(&mut self, kind: LineKind, number: u64, text: &[u8]) {
        // A line longer than 4 GiB keeps its first 4 GiB.
        let text = &text[..text.len().min(u32::MAX as usize)];
        self.heads.push(Head {
            number,
            len: text.len() as u32,
            kind,
        });
        self.text.reserve(text.len() + 1);
        self.text.extend_from_slice(text);
        self.text.push(b'\n');
    }

    /// Bytes held: what the buffer costs.
    pub(super) fn held(&self) -> usize {
        held(&self.heads, self.text.len())
    }

    /// The lines held, to hand on; the count stays (it is the file's).
    pub(super) fn take_chunk(&mut self) -> Chunk {
        if self.text.capacity() > KEEP {
            // A long answer (or one very long line) goes as it is: a copy
            // would hold it twice, and its room is not kept anyway.
            return Chunk::new(
                std::mem::take(&mut self.heads),
                std::mem::take(&mut self.text),
                0,
            );
        }
        let chunk = Chunk::new(self.heads.to_vec(), self.text.to_vec(), 0);
        self.heads.clear();
        self.text.clear();
        chunk
    }

    /// The rest of a finished file, with its count; `self` is ready for
    /// the next file.
    pub(super) fn finish(&mut self) -> Chunk {
        let mut chunk = self.take_chunk();
        chunk.matches = self.matches;
        self.reset();
        chunk
    }

    /// Empty, for the next file, with no more than `KEEP` of room; what
    /// was held is dropped (a file given up on).
    pub(super) fn reset(&mut self) {
        self.heads.clear();
        self.text.clear();
        self.matches = 0;
        self.text.shrink_to(KEEP);
        self.heads.shrink_to(KEEP / std::mem::size_of::<Head>());
    }
}

/// The text of one line, invalid UTF-8 replaced.
fn line_text(bytes: &[u8], range: std::ops::Range<usize>) -> std::borrow::Cow<'_, str> {
    let bytes = bytes.get(range).unwrap_or_default();
    // Checking is much cheaper than the lossy conversion's scan.
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

fn held(heads: &[Head], text: usize) -> usize {
    std::mem::size_of_val(heads) + text
}

impl Chunk {
    fn new(heads: Vec<Head>, text: Vec<u8>, matches: usize) -> Self {
        let text = match String::from_utf8(text) {
            Ok(text) => Text::Checked(text),
            Err(error) => Text::Bytes(error.into_bytes()),
        };
        Chunk {
            heads,
            text,
            matches,
        }
    }

    /// Bytes held: what the buffer costs.
    pub(super) fn held(&self) -> usize {
        let text = match &self.text {
            Text::Checked(text) => text.len(),
            Text::Bytes(bytes) => bytes.len(),
        };
        held(&self.heads, text)
    }

    /// Each line: its kind, number and text (invalid UTF-8 replaced).
    fn iter(&self) -> impl Iterator<Item = (LineKind, u64, std::borrow::Cow<'_, str>)> + '_ {
        let mut start = 0;
        self.heads.iter().map(move |head| {
            let range = start..start + head.len as usize;
            start = range.end + 1;
            let text = match &self.text {
                // Always on a boundary (see `Chunk`); `get` only checks.
                Text::Checked(text) => match text.get(range.clone()) {
                    Some(text) => std::borrow::Cow::Borrowed(text),
                    None => line_text(text.as_bytes(), range),
                },
                Text::Bytes(bytes) => line_text(bytes, range),
            };
            (head.kind, head.number, text)
        })
    }
}

/// Consecutive lines of one file, as [`GrepSink::lines`] is given them.
#[derive(Clone, Copy)]
pub struct LineBatch<'a> {
    chunk: &'a Chunk,
}

impl<'a> LineBatch<'a> {
    /// Each line: what it is, its number, its text without line ending
    /// (invalid UTF-8 replaced).
    pub fn iter(&self) -> impl Iterator<Item = (LineKind, u64, std::borrow::Cow<'a, str>)> + 'a {
        self.chunk.iter()
    }

    /// How many lines there are.
    pub fn len(&self) -> usize {
        self.chunk.heads.len()
    }

    /// The bytes of their texts together (a `\n` after each counted).
    pub fn text_len(&self) -> usize {
        match &self.chunk.text {
            Text::Checked(text) => text.len(),
            Text::Bytes(bytes) => bytes.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.chunk.heads.is_empty()
    }
}

/// The searcher's sink for one file. After each line it calls `after_line`
/// with what it holds; `false` stops the search of this file.
pub(super) struct FileSearch<F> {
    pub(super) lines: Lines,
    /// `-m`: matching lines past it (in the after-context of the last
    /// counted match) are shown as context, so the count stays exact.
    max_count: Option<u64>,
    files_only: bool,
    /// Past this many matches nothing more of the file can be in the
    /// answer (the cap and one more, which tells that the cap cut).
    enough: Option<usize>,
    after_line: F,
}

impl<F: FnMut(&mut Lines) -> bool> FileSearch<F> {
    /// A search of one file into `lines` (empty: a finished file's
    /// `Lines`, kept for its room).
    pub(super) fn new(request: &super::GrepRequest, lines: Lines, after_line: F) -> Self {
        debug_assert!(lines.heads.is_empty() && lines.matches == 0);
        FileSearch {
            lines,
            max_count: request.max_count,
            files_only: request.files_with_matches,
            enough: request.max_results.map(|cap| cap.saturating_add(1)),
            after_line,
        }
    }

    fn push(&mut self, kind: LineKind, number: Option<u64>, bytes: &[u8]) -> bool {
        let mut end = bytes.len();
        while end > 0 && matches!(bytes[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        self.lines.push(kind, number.unwrap_or(0), &bytes[..end]);
        (self.after_line)(&mut self.lines)
    }
}

impl<F: FnMut(&mut Lines) -> bool> Sink for FileSearch<F> {
    type Error = std::io::Error;

    fn matched(&mut self, searcher: &Searcher, found: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let counted = self
            .max_count
            .is_none_or(|max| (self.lines.matches as u64) < max);
        if counted {
            self.lines.matches += 1;
        }
        let enough = self
            .enough
            .is_some_and(|enough| self.lines.matches >= enough);
        if self.files_only {
            // Only the file is printed, but its count is exact (`-l --json`
            // reports it).
            return Ok(!enough && (self.after_line)(&mut self.lines));
        }
        let kind = if counted {
            LineKind::Match
        } else {
            LineKind::Context
        };
        let bytes = found.bytes();
        // A multi-line match arrives as one block; report each line. (The
        // searcher only gives one in multi-line mode, which grep never
        // asks for: every match is one line, not scanned again here.)
        if !searcher.multi_line()
            || memchr::memchr(b'\n', bytes).is_none_or(|at| at + 1 == bytes.len())
        {
            return Ok(self.push(kind, found.line_number(), bytes) && !enough);
        }
        let mut number = found.line_number();
        for line in bytes.split_inclusive(|&b| b == b'\n') {
            if !self.push(kind, number, line) {
                return Ok(false);
            }
            number = number.map(|n| n + 1);
        }
        Ok(!enough)
    }

    fn context(
        &mut self,
        _searcher: &Searcher,
        context: &SinkContext<'_>,
    ) -> Result<bool, Self::Error> {
        if self.files_only || matches!(context.kind(), SinkContextKind::Other) {
            return Ok(true);
        }
        Ok(self.push(LineKind::Context, context.line_number(), context.bytes()))
    }
}

/// Takes files' lines in answer order and gives a `GrepSink` what fits
/// under the cap: the first `max_results` matches, and the after-context
/// of the last one up to the next match. Any line past that means the cap
/// cut the answer (`truncated`), and the answer ends there.
pub(super) struct Emitter<'s> {
    sink: &'s mut dyn GrepSink,
    cap: Option<usize>,
    after_context: usize,
    files_only: bool,
    summary: GrepSummary,
    /// Nothing more can be in the answer.
    done: bool,
    /// Matches of the current file in the answer.
    file_matches: usize,
    /// Context lines given since the cap was reached (in its file).
    context_after_cap: usize,
}

impl<'s> Emitter<'s> {
    pub(super) fn new(sink: &'s mut dyn GrepSink, request: &super::GrepRequest) -> Self {
        Emitter {
            sink,
            cap: request.max_results,
            after_context: request.after_context,
            files_only: request.files_with_matches,
            summary: GrepSummary::default(),
            done: false,
            file_matches: 0,
            context_after_cap: 0,
        }
    }

    pub(super) fn summary(&self) -> GrepSummary {
        self.summary
    }

    /// A file that could not be opened, so was not searched.
    pub(super) fn unreadable(
        &mut self,
        skill: &str,
        path: &str,
        error: &str,
    ) -> std::io::Result<()> {
        self.summary.unreadable += 1;
        self.sink.unreadable(skill, path, error)
    }

    fn at_cap(&self) -> bool {
        self.cap.is_some_and(|cap| self.summary.matches >= cap)
    }

    /// The next lines of the current file. `Ok(false)`: the answer is
    /// complete (the file's search can stop).
    pub(super) fn lines(
        &mut self,
        skill: &str,
        path: &str,
        lines: &Chunk,
    ) -> std::io::Result<bool> {
        if self.done {
            return Ok(false);
        }
        if self.files_only {
            return Ok(true);
        }
        // Where the cap cannot be reached inside the chunk, it goes whole.
        let room = self
            .cap
            .map_or(usize::MAX, |cap| cap.saturating_sub(self.summary.matches));
        let matches = lines
            .heads
            .iter()
            .filter(|h| h.kind == LineKind::Match)
            .count();
        if matches < room {
            self.summary.matches += matches;
            self.file_matches += matches;
            self.sink.lines(skill, path, LineBatch { chunk: lines })?;
            return Ok(true);
        }
        for (kind, number, text) in lines.iter() {
            if self.at_cap() {
                // A counted match past the cap, or the first line of a file
                // after it (a file's first line is a match or the context
                // before one): the cap cut the answer.
                if kind == LineKind::Match || self.file_matches == 0 {
                    self.summary.truncated = true;
                    self.done = true;
                    return Ok(false);
                }
                // The after-context of the last match kept.
                if self.context_after_cap >= self.after_context {
                    continue;
                }
                self.context_after_cap += 1;
            } else if kind == LineKind::Match {
                self.summary.matches += 1;
                self.file_matches += 1;
            }
            self.sink.line(skill, path, kind, number, &text)?;
        }
        Ok(true)
    }

    /// End the current file where the answer stopped inside it.
    pub(super) fn close(&mut self, skill: &str, path: &str) -> std::io::Result<()> {
        if self.file_matches > 0 {
            self.summary.files += 1;
            self.sink.file_end(skill, path, self.file_matches)?;
        }
        self.file_matches = 0;
        self.context_after_cap = 0;
        Ok(())
    }

    /// The end of the current file, which counted `matches` (with
    /// `files_with_matches`, the only record of them). `Ok(false)`: the
    /// answer is complete.
    pub(super) fn end_file(
        &mut self,
        skill: &str,
        path: &str,
        matches: usize,
    ) -> std::io::Result<bool> {
        if self.done {
            return Ok(false);
        }
        if self.files_only && matches > 0 {
            let room = self
                .cap
                .map_or(usize::MAX, |cap| cap.saturating_sub(self.summary.matches));
            if matches > room {
                self.summary.truncated = true;
                self.done = true;
            }
            self.file_matches = matches.min(room);
            self.summary.matches += self.file_matches;
        }
        self.close(skill, path)?;
        Ok(!self.done)
    }
}

/// A sink that keeps the answer, as `grep` returns it.
#[derive(Debug, Default)]
pub(super) struct Collect {
    pub(super) result: GrepResult,
    lines: Vec<GrepLine>,
}

impl GrepSink for Collect {
    fn line(
        &mut self,
        _skill: &str,
        _path: &str,
        kind: LineKind,
        number: u64,
        text: &str,
    ) -> std::io::Result<()> {
        self.lines.push(GrepLine {
            kind,
            line: number,
            text: text.to_string(),
        });
        Ok(())
    }

    fn file_end(&mut self, skill: &str, path: &str, matches: usize) -> std::io::Result<()> {
        self.result.files.push(FileMatches {
            skill: skill.to_string(),
            path: path.to_string(),
            lines: std::mem::take(&mut self.lines),
            matches,
        });
        Ok(())
    }
}
