//! Markdown bodies: the heading outline (sections) and local links.
//!
//! The only place that constructs `pulldown-cmark` parsers. Headings inside
//! code fences are not headings, setext headings are, and every heading and
//! link carries its 1-based line in the whole file, so diagnostics and
//! `--lines` ranges agree with what an editor shows.

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde::Serialize;

/// One heading of a body: a section starts here and runs to the next
/// heading of the same or a higher level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Heading {
    pub level: u8,
    pub text: String,
    /// A GitHub-style anchor for the heading (`## Quick start` → `quick-start`),
    /// unique in the file: repeated headings are numbered the way GitHub
    /// numbers their anchors (`steps`, `steps-1`, `steps-2`).
    pub slug: String,
    /// 1-based line in the file.
    pub line: u32,
    /// Byte offset in the file where the heading starts.
    pub offset: usize,
}

/// A link from the body to something that is not a web address.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LocalLink {
    /// The target as written, without any `#fragment`.
    pub target: String,
    pub line: u32,
    pub column: u32,
}

/// What the body parse yields.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Outline {
    pub headings: Vec<Heading>,
    pub links: Vec<LocalLink>,
}

/// Offsets just past each line ending: `\n`, `\r\n`, or a lone `\r` (old
/// Mac files), the same endings the Markdown parser recognises, so line
/// numbers agree everywhere.
pub fn line_ends(text: &str) -> impl Iterator<Item = usize> + '_ {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().filter_map(move |(i, &b)| {
        let ends = b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
        ends.then_some(i + 1)
    })
}

/// Byte offsets of line starts, for turning offsets into line/column.
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(line_ends(text));
        LineIndex { starts }
    }

    /// 1-based (line, column-in-characters) of a byte offset.
    pub fn position(&self, text: &str, offset: usize) -> (u32, u32) {
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts[line - 1];
        let column = text
            .get(start..offset.min(text.len()))
            .map_or(offset - start, |s| s.chars().count())
            + 1;
        (line as u32, column as u32)
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }
}

/// Parse `body`, which starts at byte `body_offset` of `text` (the whole
/// file), into its outline.
pub fn outline(text: &str, body_offset: usize) -> Outline {
    let body = &text[body_offset.min(text.len())..];
    let index = LineIndex::new(text);
    let mut result = Outline::default();
    let mut heading: Option<(u8, usize, String)> = None;
    let mut slugs = UniqueSlugs::default();
    let parser = Parser::new_ext(body, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH);
    for (event, range) in parser.into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                heading = Some((level_number(level), range.start, String::new()));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, start, text_so_far)) = heading.take() {
                    let offset = body_offset + start;
                    let (line, _) = index.position(text, offset);
                    let title = crate::entry::one_line(&text_so_far);
                    result.headings.push(Heading {
                        level,
                        slug: slugs.next(&title),
                        text: title,
                        line,
                        offset,
                    });
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, _, buffer)) = heading.as_mut() {
                    buffer.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, _, buffer)) = heading.as_mut() {
                    buffer.push(' ');
                }
            }
            Event::Start(Tag::Link { dest_url, .. })
            | Event::Start(Tag::Image { dest_url, .. }) => {
                if let Some(target) = local_target(&dest_url) {
                    let (line, column) = index.position(text, body_offset + range.start);
                    result.links.push(LocalLink {
                        target,
                        line,
                        column,
                    });
                }
            }
            _ => {}
        }
    }
    result
}

fn level_number(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// The local part of a link target, or `None` for web addresses, e-mail,
/// in-page anchors and other schemes.
fn local_target(dest: &str) -> Option<String> {
    let dest = dest.trim();
    if dest.is_empty() || dest.starts_with('#') || dest.starts_with("//") {
        return None;
    }
    if let Some(colon) = dest.find(':') {
        let scheme = &dest[..colon];
        // `C:` style drive letters are paths; `https:`, `mailto:` are not.
        let is_scheme = scheme.len() > 1
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        if is_scheme && !dest[..colon].contains('/') {
            return None;
        }
    }
    let without_fragment = dest.split(['#', '?']).next().unwrap_or(dest);
    if without_fragment.is_empty() {
        return None;
    }
    Some(percent_decode(without_fragment))
}

fn percent_decode(text: &str) -> String {
    if !text.contains('%') {
        return text.to_string();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(high), Some(low)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((high * 16 + low) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A GitHub-style heading anchor: lowercase, spaces to hyphens, punctuation
/// dropped; letters of every script kept.
pub fn slug(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.trim().chars() {
        if c.is_alphanumeric() || c == '_' || c == '-' {
            out.extend(c.to_lowercase());
        } else if c.is_whitespace() {
            out.push('-');
        }
    }
    out
}

/// Hands out GitHub's anchors for the headings of one file, in order: the
/// first heading with a slug gets it bare, later ones get `-1`, `-2`, … (the
/// algorithm of `github-slugger`, so a suffixed slug that is itself taken
/// is skipped too).
#[derive(Default)]
struct UniqueSlugs {
    /// Every slug handed out, and for each base slug the last number used.
    taken: std::collections::HashMap<String, usize>,
}

impl UniqueSlugs {
    fn next(&mut self, text: &str) -> String {
        let base = slug(text);
        let mut result = base.clone();
        while self.taken.contains_key(&result) {
            let count = self.taken.entry(base.clone()).or_insert(0);
            *count += 1;
            result = format!("{base}-{count}");
        }
        self.taken.insert(result.clone(), 0);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outline_skips_code_fences_and_reads_setext() {
        let text = "---\nname: a\n---\n# Title\n\n```\n# not a heading\n```\n\nSetext\n======\n\n## Use `it` now\n";
        let o = outline(text, 16);
        let got: Vec<(u8, &str, u32)> = o
            .headings
            .iter()
            .map(|h| (h.level, h.text.as_str(), h.line))
            .collect();
        assert_eq!(
            got,
            vec![(1, "Title", 4), (1, "Setext", 10), (2, "Use it now", 13)]
        );
        assert_eq!(o.headings[2].slug, "use-it-now");
    }

    #[test]
    fn local_links_only() {
        let text = "See [a](references/a.md#part), [b](https://x.y), [c](#top), [d](mailto:x@y), ![i](assets/i%20x.png)\n";
        let o = outline(text, 0);
        let targets: Vec<&str> = o.links.iter().map(|l| l.target.as_str()).collect();
        assert_eq!(targets, vec!["references/a.md", "assets/i x.png"]);
        assert_eq!((o.links[0].line, o.links[0].column), (1, 5));
    }

    #[test]
    fn percent_escapes_next_to_multibyte_text_do_not_panic() {
        let o = outline("See [x](%€x) and [y](a%2Fb%zz%4).\n", 0);
        let targets: Vec<&str> = o.links.iter().map(|l| l.target.as_str()).collect();
        assert_eq!(targets, vec!["%€x", "a/b%zz%4"]);
    }

    proptest::proptest! {
        #[test]
        fn any_text_has_an_outline(text in "(\\PC|[\\[\\]()%a-f0-9€技#\n ]){0,300}", offset in 0usize..400) {
            let offset = (0..=offset.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
            let _ = outline(&text, offset);
        }
    }

    #[test]
    fn repeated_headings_get_numbered_slugs() {
        let text = "# Steps\n## Steps\n## Steps 1\n## Steps\n## Other\n";
        let slugs: Vec<String> = outline(text, 0)
            .headings
            .into_iter()
            .map(|h| h.slug)
            .collect();
        assert_eq!(slugs, ["steps", "steps-1", "steps-1-1", "steps-2", "other"]);
    }

    #[test]
    fn slugs_keep_other_scripts() {
        assert_eq!(slug("Quick Start!"), "quick-start");
        assert_eq!(slug("提交 信息"), "提交-信息");
    }
}

/// The ATX headings of a Markdown body (outside fenced code), one per line,
/// without their `#` marks. A line scan, not a parse: it runs on every skill
/// during a scan, for search, and must cost next to nothing. Setext headings
/// are not seen; [`outline`] has the exact structure.
pub fn quick_headings(body: &str) -> String {
    let bytes = body.as_bytes();
    let mut out = String::new();
    let mut fence: Option<(u8, usize)> = None;
    // Only lines whose first mark is one of `#`, `` ` ``, `~` can matter:
    // jump from mark to mark, and look at a line only when its first mark
    // opens it (after at most three spaces).
    let mut from = 0;
    while let Some(found) = memchr::memchr3(b'#', b'`', b'~', &bytes[from..]) {
        let at = from + found;
        let line_end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
        from = line_end;
        let mut start = at;
        while start > 0 && at - start < 4 && bytes[start - 1] == b' ' {
            start -= 1;
        }
        if at - start > 3 || (start > 0 && bytes[start - 1] != b'\n') {
            continue;
        }
        if !heading_line(&body[at..line_end], &mut fence, &mut out) {
            break;
        }
    }
    out
}

/// The first paragraph of prose of a Markdown body (headings, fenced code
/// and blank lines before it skipped), its lines joined by spaces and cut
/// to at most 400 bytes at a character boundary: what a skill says about
/// itself right under its title, for search. A line scan of the start of
/// the body, like [`quick_headings`].
pub fn quick_lead(body: &str) -> String {
    const MAX_BYTES: usize = 400;
    const LOOK_BYTES: usize = 8192;
    let mut out = String::new();
    let mut fence: Option<(char, usize)> = None;
    let mut looked = 0;
    for line in body.lines() {
        looked += line.len() + 1;
        if looked > LOOK_BYTES || out.len() >= MAX_BYTES {
            break;
        }
        let text = line.trim();
        let mark = text.chars().next().unwrap_or(' ');
        if fence_mark(text, &mut fence) {
            if !out.is_empty() {
                break;
            }
            continue;
        }
        if fence.is_some() {
            continue;
        }
        if text.is_empty() || mark == '#' || text.starts_with("<!--") {
            if out.is_empty() {
                continue;
            }
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(text);
    }
    if out.len() > MAX_BYTES {
        let mut end = MAX_BYTES;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
    }
    out
}

/// What search reads of a Markdown body ([`crate::entry::BodyText`]): its
/// headings ([`quick_headings`]), its lead ([`quick_lead`]), and, by a line
/// scan like theirs (fenced code skipped; tables and HTML are not list
/// items), the list items of its "when to use" sections, cut to at most
/// 1,024 bytes at a character boundary.
///
/// The first sentence of every other section was measured too: on three
/// public repositories it found a few more skills (R@5 +1.5 to +4 points),
/// but made a lexical query over 10,000 generated skills 35 % slower, as
/// every indexed word is a posting each query with that word walks.
pub fn body_text(body: &str) -> crate::entry::BodyText {
    const MAX_BYTES: usize = 1024;
    const LOOK_BYTES: usize = 64 * 1024;
    let mut out = crate::entry::BodyText {
        headings: quick_headings(body),
        lead: quick_lead(body),
        ..Default::default()
    };
    let mut fence: Option<(char, usize)> = None;
    // Inside a "when to use" section (until a heading of its level or
    // higher), and the level of its heading.
    let mut triggers: Option<usize> = None;
    // The last line was (part of) a list item.
    let mut item = false;
    let mut looked = 0;
    for line in body.lines() {
        looked += line.len() + 1;
        if looked > LOOK_BYTES || out.triggers.len() >= MAX_BYTES {
            break;
        }
        let text = line.trim();
        let mark = text.chars().next().unwrap_or(' ');
        if fence_mark(text, &mut fence) {
            continue;
        }
        if fence.is_some() || text.is_empty() {
            continue;
        }
        if let Some((level, title)) = atx_heading(line) {
            if triggers.is_some_and(|open| level <= open) {
                triggers = None;
            }
            if triggers.is_none() && when_to_use(title) == Some(true) {
                triggers = Some(level);
            }
            item = false;
            continue;
        }
        if triggers.is_none() || mark == '|' || mark == '<' {
            continue;
        }
        let listed = strip_list_mark(text);
        // A list item, or a line of one (indented under it). The
        // situations are the section's list; prose around it is more often
        // a caveat ("this skill does not apply when …").
        item = listed.len() < text.len() || (item && line.starts_with([' ', '\t']));
        if item {
            push_capped(&mut out.triggers, listed, MAX_BYTES);
        }
    }
    out
}

/// Whether the trimmed line `text` is a code fence mark (three or more
/// `` ` `` or `~`), opening or closing `fence` as it does.
fn fence_mark(text: &str, fence: &mut Option<(char, usize)>) -> bool {
    let mark = text.chars().next().unwrap_or(' ');
    if mark != '`' && mark != '~' {
        return false;
    }
    let run = text.chars().take_while(|&c| c == mark).count();
    if run < 3 {
        return false;
    }
    match *fence {
        None => *fence = Some((mark, run)),
        Some((c, n)) if c == mark && run >= n && text[run..].trim().is_empty() => *fence = None,
        Some(_) => {}
    }
    true
}

/// An ATX heading's level and text (up to three spaces before its marks).
fn atx_heading(line: &str) -> Option<(usize, &str)> {
    let rest = line.strip_prefix("   ").or_else(|| line.strip_prefix("  "));
    let rest = rest.or_else(|| line.strip_prefix(' ')).unwrap_or(line);
    let level = rest.bytes().take_while(|&b| b == b'#').count();
    let text = &rest[level..];
    if level == 0 || level > 6 || !(text.is_empty() || text.starts_with([' ', '\t'])) {
        return None;
    }
    Some((level, text.trim().trim_end_matches('#').trim_end()))
}

/// Whether a heading says when (or for what) to use the skill ("When to
/// use this skill", "When to Use", "Use cases": `Some(true)`) or when not
/// to ("When not to use": `Some(false)`); `None` for any other heading.
fn when_to_use(title: &str) -> Option<bool> {
    let words: Vec<String> = title
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let has = |w: &str| words.iter().any(|x| x == w);
    let when_used = has("when") && ["use", "using", "apply", "invoke"].iter().any(|w| has(w));
    let use_cases = words
        .windows(2)
        .any(|pair| pair[0] == "use" && (pair[1] == "cases" || pair[1] == "case"));
    if !(when_used || use_cases) {
        return None;
    }
    let negated = ["not", "don't", "never", "avoid", "without"]
        .iter()
        .any(|w| has(w));
    Some(!negated)
}

/// A line without its list or quote mark (`- `, `* `, `+ `, `1. `, `> `).
fn strip_list_mark(text: &str) -> &str {
    let text = text.trim_start_matches('>').trim_start();
    for mark in ["- ", "* ", "+ "] {
        if let Some(rest) = text.strip_prefix(mark) {
            return rest.trim_start();
        }
    }
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && digits < 4 {
        if let Some(rest) = text[digits..]
            .strip_prefix(". ")
            .or(text[digits..].strip_prefix(") "))
        {
            return rest.trim_start();
        }
    }
    text
}

/// Append `text` to `out` (a space between) while `out` stays within `max`
/// bytes; the last piece is cut to fit.
fn push_capped(out: &mut String, text: &str, max: usize) {
    let room = max.saturating_sub(out.len() + usize::from(!out.is_empty()));
    if room == 0 || text.is_empty() {
        return;
    }
    if !out.is_empty() {
        out.push(' ');
    }
    out.push_str(crate::text::cut_at_char_boundary(text, room));
}

/// One line of [`quick_headings`], from its first mark: track fences,
/// collect a heading. False once the collected text is full.
fn heading_line(rest: &str, fence: &mut Option<(u8, usize)>, out: &mut String) -> bool {
    const MAX_BYTES: usize = 2048;
    let first = rest.as_bytes()[0];
    if first == b'`' || first == b'~' {
        let run = rest.bytes().take_while(|&b| b == first).count();
        if run >= 3 {
            match *fence {
                None => *fence = Some((first, run)),
                Some((c, n)) if c == first && run >= n && rest[run..].trim().is_empty() => {
                    *fence = None
                }
                Some(_) => {}
            }
        }
        return true;
    }
    if fence.is_some() {
        return true;
    }
    let level = rest.bytes().take_while(|&b| b == b'#').count();
    let text = &rest[level..];
    if level > 6 || !(text.is_empty() || text.starts_with([' ', '\t'])) {
        return true;
    }
    let text = text.trim().trim_end_matches('#').trim_end();
    if text.is_empty() {
        return true;
    }
    if out.len() + text.len() + 1 > MAX_BYTES {
        return false;
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(text);
    true
}

#[cfg(test)]
mod body_text_tests {
    use super::body_text;

    #[test]
    fn the_items_of_when_to_use_sections() {
        let body = "# Title\n\nThe lead. More lead.\n\n## When to Use This Skill\n\n- Starting a threat model\n* Reviewing a design\n1. Audit prep\n\n### Detail\n\nStill inside.\n\n## Core Concepts\n\nSTRIDE names six threats. Each has a mitigation.\n\n```text\n## Not a heading\n```\n\n## When not to use\n\nPen testing is not for this.\n\n| a | b |\n\n## Use cases\n\n> Compliance reviews\n";
        let found = body_text(body);
        assert_eq!(
            found.triggers,
            "Starting a threat model Reviewing a design Audit prep Compliance reviews"
        );
    }

    #[test]
    fn parts_are_capped_at_character_boundaries() {
        let many = "- é situation here\n".repeat(200);
        let body = format!("## When to use\n\n{many}\n## Next\n\n{}\n", "ü".repeat(400));
        let found = body_text(&body);
        assert!(found.triggers.len() <= 1024, "{}", found.triggers.len());
        assert!(found.triggers.len() > 1000);
        assert_eq!(body_text("").triggers, "");
    }
}

#[cfg(test)]
mod quick_heading_tests {
    use super::quick_headings;
    use proptest::prelude::*;

    /// The plain line-by-line scan the fast one must agree with.
    fn reference(body: &str) -> String {
        const MAX_BYTES: usize = 2048;
        let mut out = String::new();
        let mut fence: Option<(u8, usize)> = None;
        for line in body.split('\n') {
            let indent = line.len() - line.trim_start_matches(' ').len();
            if indent > 3 {
                continue;
            }
            let rest = &line[indent..];
            let first = match rest.as_bytes().first() {
                Some(&b) => b,
                None => continue,
            };
            if first == b'`' || first == b'~' {
                let run = rest.bytes().take_while(|&b| b == first).count();
                if run >= 3 {
                    match fence {
                        None => fence = Some((first, run)),
                        Some((c, n)) if c == first && run >= n && rest[run..].trim().is_empty() => {
                            fence = None
                        }
                        Some(_) => {}
                    }
                }
                continue;
            }
            if first != b'#' || fence.is_some() {
                continue;
            }
            let level = rest.bytes().take_while(|&b| b == b'#').count();
            let text = &rest[level..];
            if level > 6 || !(text.is_empty() || text.starts_with([' ', '\t'])) {
                continue;
            }
            let text = text.trim().trim_end_matches('#').trim_end();
            if text.is_empty() {
                continue;
            }
            if out.len() + text.len() + 1 > MAX_BYTES {
                break;
            }
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(text);
        }
        out
    }

    proptest! {
        #[test]
        fn agrees_with_a_line_by_line_scan(
            lines in proptest::collection::vec(
                "( {0,5})(#{0,8}|`{0,4}|~{0,4})( |\t)?[a-z #`~]{0,12}(\r)?",
                0..40,
            )
        ) {
            let body = lines.join("\n");
            prop_assert_eq!(quick_headings(&body), reference(&body));
        }
    }

    #[test]
    fn the_lead_is_the_first_paragraph_of_prose() {
        use super::quick_lead;
        let body = "\n# Title\n\n```sh\nnot prose\n```\n\nFirst line\nsecond line.\n\nLater.\n";
        assert_eq!(quick_lead(body), "First line second line.");
        assert_eq!(quick_lead("# Only a title\n## And a section\n"), "");
        assert_eq!(quick_lead("Text\n## Next\nmore"), "Text");
        let long = format!("{}é", "a".repeat(399));
        assert_eq!(quick_lead(&long).len(), 399);
    }

    #[test]
    fn finds_atx_headings_outside_fences() {
        let body = "# Title\n\ntext\n## Steps ##\n```sh\n# not a heading\n```\n   ### Deep\n    # code\n#hashtag\n~~~\n## no\n~~~\n## Last\r\n";
        assert_eq!(quick_headings(body), "Title\nSteps\nDeep\nLast");
    }
}
