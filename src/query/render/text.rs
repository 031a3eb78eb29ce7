//! Text helpers of the directory: descriptions capped and shortened, XML
//! escaped. Leaf functions; `list` and `show` use `shorten` too.

use std::borrow::Cow;

/// `text` cut to at most `max` bytes at a character boundary, with `…`
/// when cut. Returns whether it was cut.
pub(super) fn cap_bytes(text: &str, max: usize) -> (Cow<'_, str>, bool) {
    if text.len() <= max {
        return (Cow::Borrowed(text), false);
    }
    let ellipsis = '…'.len_utf8();
    let mut end = max - ellipsis;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (Cow::Owned(format!("{}…", text[..end].trim_end())), true)
}

/// `text` cut to at most `max` characters (the `…` included) at a word
/// boundary, so no word is left half written; text without a space in
/// reach (one long word, or a script written without spaces) is cut at a
/// character boundary.
pub fn shorten(text: &str, max: usize) -> (Cow<'_, str>, bool) {
    if max == usize::MAX || text.chars().count() <= max {
        return (Cow::Borrowed(text), false);
    }
    let keep = max.saturating_sub(1);
    let cut = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
    let mut head = &text[..cut];
    // The cut falls inside a word unless the next character starts a new one.
    let inside_word = !text[cut..].starts_with(char::is_whitespace);
    if inside_word {
        if let Some(space) = head.rfind(char::is_whitespace) {
            head = &head[..space];
        }
    }
    let head = head.trim_end_matches(|c: char| {
        c.is_whitespace() || matches!(c, ',' | ';' | ':' | '-' | '(' | '/' | '—' | '–')
    });
    (Cow::Owned(format!("{head}…")), true)
}

pub fn escape_xml(text: &str) -> Cow<'_, str> {
    if !text.contains(['&', '<', '>', '"', '\'']) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorten_cuts_at_word_boundaries() {
        let (s, cut) = shorten("Fill in PDF forms from structured data quickly", 20);
        assert!(cut);
        assert!(s.chars().count() <= 20, "{s}");
        assert_eq!(s, "Fill in PDF forms…");
        assert_eq!(shorten("short", 20), (Cow::Borrowed("short"), false));
        assert_eq!(shorten("exactly", 7), (Cow::Borrowed("exactly"), false));
        // A word is never left half written, however long the last one.
        let (s, _) = shorten("Runs long-running cryptographically signed jobs", 30);
        assert_eq!(s, "Runs long-running…");
        // The next character a space: the word before it is whole.
        let (s, _) = shorten("one two three", 8);
        assert_eq!(s, "one two…");
        // No space in reach: a character boundary.
        let (s, _) = shorten("面向中文团队的技能集合", 5);
        assert_eq!(s, "面向中文…");
    }

    #[test]
    fn cap_bytes_respects_char_boundaries() {
        let text = "技".repeat(500); // 1,500 bytes
        let (capped, cut) = cap_bytes(&text, super::super::MAX_DESCRIPTION_BYTES);
        assert!(cut);
        assert!(capped.len() <= super::super::MAX_DESCRIPTION_BYTES);
        assert!(capped.ends_with('…'));
    }

    #[test]
    fn xml_escaping() {
        assert_eq!(escape_xml("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;");
    }
}
