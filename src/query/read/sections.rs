//! Sections and lines of a text: the lines one `--section` names, written
//! headings, line offsets and cutting at a line or char boundary.

use super::SectionCandidate;
use crate::parse::markdown;

/// The lines of the one section `wanted` names, or (the indexes of the
/// headings that matched, every heading) when it names none or several.
pub(super) fn section_range(
    outline: &[markdown::Heading],
    wanted: &str,
    total_lines: usize,
    source_line: &dyn Fn(usize) -> String,
) -> Result<(usize, usize), (Vec<usize>, Vec<SectionCandidate>)> {
    let lookup = SectionLookup::new(outline, source_line);
    let matches = lookup.find(wanted);
    if let [index] = matches[..] {
        let line = outline[index].line as usize;
        return Ok((line, section_end(outline, index, total_lines)));
    }
    let candidates = outline
        .iter()
        .enumerate()
        .map(|(index, h)| SectionCandidate {
            heading: h.text.clone(),
            slug: h.slug.clone(),
            slug_selects: lookup.find(&h.slug) == [index],
            line: h.line as usize,
            end_line: section_end(outline, index, total_lines),
            level: h.level,
        })
        .collect();
    Err((matches, candidates))
}

/// The last line of the section under heading `index`: the line before the
/// next heading of the same or a higher level, or the end of the file.
pub(super) fn section_end(
    outline: &[markdown::Heading],
    index: usize,
    total_lines: usize,
) -> usize {
    let heading = &outline[index];
    let end = outline[index + 1..]
        .iter()
        .find(|h| h.level <= heading.level)
        .map_or(total_lines, |h| (h.line as usize).saturating_sub(1));
    end.max(heading.line as usize)
}

/// A heading line as written: without its opening `#` marks, a closing
/// `#` sequence or the spaces around them, on one line.
pub(super) fn written_heading(line: &str) -> String {
    let text = line.trim().trim_start_matches('#').trim();
    let closed = text.trim_end_matches('#');
    let text = if closed.len() < text.len() && (closed.is_empty() || closed.ends_with([' ', '\t']))
    {
        closed.trim_end()
    } else {
        text
    };
    crate::entry::one_line(text)
}

/// Which headings a `--section` value names: those whose text is the value
/// (any case, with or without its `#` marks, as shown or as written in the
/// file with its inline markup) and the one whose slug is its slug.
/// Indexed, so checking every heading's slug stays linear.
pub(super) struct SectionLookup<'a> {
    by_text: std::collections::HashMap<String, Vec<usize>>,
    by_slug: std::collections::HashMap<&'a str, usize>,
}

impl<'a> SectionLookup<'a> {
    fn new(outline: &'a [markdown::Heading], source_line: &dyn Fn(usize) -> String) -> Self {
        let mut by_text: std::collections::HashMap<String, Vec<usize>> = Default::default();
        let mut by_slug = std::collections::HashMap::new();
        for (index, heading) in outline.iter().enumerate() {
            let shown = heading.text.to_lowercase();
            let written = written_heading(&source_line(heading.line as usize)).to_lowercase();
            if written != shown && !written.is_empty() {
                by_text.entry(written).or_default().push(index);
            }
            by_text.entry(shown).or_default().push(index);
            by_slug.entry(heading.slug.as_str()).or_insert(index);
        }
        SectionLookup { by_text, by_slug }
    }

    /// Indexes of the matching headings, in file order.
    fn find(&self, wanted: &str) -> Vec<usize> {
        let wanted_text = crate::entry::one_line(wanted).to_lowercase();
        let wanted_bare = written_heading(&wanted_text);
        let mut found: Vec<usize> = [&wanted_text, &wanted_bare]
            .into_iter()
            .filter_map(|text| self.by_text.get(text.as_str()))
            .flatten()
            .copied()
            .collect();
        // A heading's own text wins over another heading's slug: with
        // `Steps`, `Steps`, `Steps 1`, "Steps 1" is the third heading even
        // though the second one's slug is `steps-1`.
        if found.is_empty() {
            found.extend(self.by_slug.get(markdown::slug(wanted).as_str()).copied());
        }
        found.sort_unstable();
        found.dedup();
        found
    }
}

pub(super) fn line_starts(text: &str) -> Vec<usize> {
    if text.is_empty() {
        return Vec::new();
    }
    let mut starts = vec![0];
    starts.extend(markdown::line_ends(text).filter(|&i| i < text.len()));
    starts
}

/// Line `number` (1-based) with its line ending.
pub(super) fn line_text<'t>(text: &'t str, starts: &[usize], number: usize) -> &'t str {
    let start = starts[number - 1];
    let end = starts.get(number).copied().unwrap_or(text.len());
    &text[start..end]
}

pub(super) fn floor_char_boundary(text: &str, max: usize) -> usize {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_starts_and_text() {
        let text = "a\r\nb\nc";
        let starts = line_starts(text);
        assert_eq!(starts, vec![0, 3, 5]);
        assert_eq!(line_starts("a\rb\rc"), vec![0, 2, 4]);
        assert_eq!(line_text(text, &starts, 1), "a\r\n");
        assert_eq!(line_text(text, &starts, 3), "c");
        assert!(line_starts("").is_empty());
        assert_eq!(line_starts("a\n"), vec![0]);
    }
}
