//! The YAML 1.1 lint: plain values that YAML 1.1 hosts (PyYAML) read
//! differently from YAML 1.2 (`yes` as a boolean, dates, octal, base 60,
//! merges, `.inf`).

use super::char_column;

/// Who reads YAML 1.1, named in messages.
pub(super) const YAML11_HOSTS: &str = "YAML 1.1 hosts (PyYAML: fast-agent, FastMCP)";

/// True when some key or value of `yaml` may begin a YAML 1.1 reading
/// (`yaml11_findings`): a key that is such a word or starts like a number,
/// or a value (what follows a `:`, a sequence entry, an item of a flow
/// collection) starting with a digit, sign, `.`, `<` or a letter of
/// yes/no/on/off. Most headers
/// have none and skip the scan.
pub(super) fn may_read_differently(yaml: &str) -> bool {
    let starts = |text: &str| {
        text.trim_start_matches([' ', '\t', '-'])
            .trim_start()
            .starts_with(|c: char| c.is_ascii_digit() || "+.<yYnNoO".contains(c))
    };
    // In a flow collection, every item counts; one left open at the end
    // of its line goes on over the next lines, which are scanned.
    let flow = |text: &str| {
        let text = text.trim_start_matches([' ', '\t', '-']).trim_start();
        let depth = |open: char, close: char| {
            text.matches(open).count() as isize - text.matches(close).count() as isize
        };
        text.starts_with(['[', '{'])
            && (depth('[', ']') > 0
                || depth('{', '}') > 0
                || text
                    .match_indices(['[', '{', ',', ':'])
                    .any(|(i, _)| starts(&text[i + 1..])))
    };
    // A key is read differently only as a whole word (`on:`, `no:`), or
    // when it starts like a number or a merge key.
    let key_differs = |line: &str| {
        let text = line.trim_start_matches([' ', '\t', '-']).trim_start();
        let key = text.split(':').next().unwrap_or("").trim_end();
        key.starts_with(|c: char| c.is_ascii_digit() || "+.<".contains(c))
            || (key.len() <= 3
                && ["y", "n", "yes", "no", "on", "off"]
                    .iter()
                    .any(|word| key.eq_ignore_ascii_case(word)))
    };
    // A merge key anywhere (behind an anchor or a tag, say).
    yaml.contains("<<")
        || yaml.lines().any(|line| {
            key_differs(line)
                || flow(line)
                || line
                    .match_indices(':')
                    .any(|(i, _)| starts(&line[i + 1..]) || flow(&line[i + 1..]))
        })
}

/// Plain (unquoted) scalars and merge keys of the header that YAML 1.1
/// readers take differently from skilldex's YAML 1.2: `yes`/`on` as
/// booleans, dates, octal `010`, base-60 `1:30`, and `<<` merges; and
/// `.inf`/`.nan`, floats JSON cannot carry. Returns (line, column, message)
/// in header coordinates.
///
/// The header has already parsed, so this line scan can rely on its
/// structure: it skips block scalars, multi-line plain and quoted scalars
/// (their text is never one of these tokens) and reads flow collections
/// token by token. `None` when the quick check finds nothing to scan.
pub(super) fn yaml11_findings(yaml: &str) -> Option<Vec<(u32, u32, String)>> {
    may_read_differently(yaml).then(|| yaml11_scan(yaml))
}

/// The scan behind `yaml11_findings`, on every header.
pub(super) fn yaml11_scan(yaml: &str) -> Vec<(u32, u32, String)> {
    let lines: Vec<&str> = yaml
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut out = Vec::new();
    // Lines indented deeper than this continue a scalar: skip them.
    let mut skip_deeper: Option<usize> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start_matches(' ');
        let indent = line.len() - trimmed.len();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            i += 1;
            continue;
        }
        match skip_deeper {
            Some(limit) if indent > limit => {
                i += 1;
                continue;
            }
            _ => skip_deeper = None,
        }
        // `- ` sequence entries, possibly nested on one line.
        let mut pos = indent;
        let mut parent = indent;
        while line[pos..] == *"-" || line[pos..].starts_with("- ") || line[pos..].starts_with("-\t")
        {
            parent = pos;
            pos += 1;
            pos += line[pos..].len() - line[pos..].trim_start_matches([' ', '\t']).len();
        }
        let mut value_at = pos;
        if let Some((key, value_start)) = block_key(&line[pos..]) {
            if !key.starts_with(['"', '\'']) {
                if let Some(message) = yaml11_key_message(key) {
                    out.push((i as u32 + 1, char_column(line, pos), message));
                }
            }
            parent = pos;
            value_at = pos + value_start;
        }
        i = yaml11_value(&lines, i, value_at, parent, &mut skip_deeper, &mut out);
    }
    out
}

/// A block mapping entry's key and where its value starts, relative to
/// `entry`; `None` when `entry` is not `key: value` / `key:`.
pub(super) fn block_key(entry: &str) -> Option<(&str, usize)> {
    if entry.starts_with(['[', '{', '?', '|', '>', '*', '!', '&', '#']) {
        return None;
    }
    let key_end = if let Some(quote) = entry.chars().next().filter(|c| matches!(c, '"' | '\'')) {
        let close = closing_quote(entry, 1, quote)?;
        let after = entry[close + 1..].trim_start_matches([' ', '\t']);
        if !after.starts_with(':') {
            return None;
        }
        entry.len() - after.len()
    } else {
        let mut found = None;
        for (index, _) in entry.match_indices(':') {
            let before = &entry[..index];
            if before.contains(" #") || before.contains("\t#") {
                return None;
            }
            let next = entry[index + 1..].chars().next();
            if next.is_none_or(|c| c == ' ' || c == '\t') {
                found = Some(index);
                break;
            }
        }
        found?
    };
    let after = &entry[key_end + 1..];
    let value_start = key_end + 1 + (after.len() - after.trim_start_matches([' ', '\t']).len());
    Some((entry[..key_end].trim_end(), value_start))
}

/// Byte offset of the quote closing a scalar opened by `quote` before
/// `from`, on this line.
pub(super) fn closing_quote(text: &str, from: usize, quote: char) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = from;
    while i < bytes.len() {
        match (quote, bytes[i]) {
            ('"', b'\\') => i += 2,
            ('"', b'"') => return Some(i),
            ('\'', b'\'') if bytes.get(i + 1) == Some(&b'\'') => i += 2,
            ('\'', b'\'') => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Check the value starting at byte `at` of line `i`; returns the index of
/// the next line to read.
pub(super) fn yaml11_value(
    lines: &[&str],
    i: usize,
    at: usize,
    parent: usize,
    skip_deeper: &mut Option<usize>,
    out: &mut Vec<(u32, u32, String)>,
) -> usize {
    let line = lines[i];
    let mut at = at;
    // Anchors name the value; a tag decides its type, so a tagged value is
    // read alike everywhere.
    while line[at..].starts_with('&') {
        let rest = &line[at..];
        let end = rest.find([' ', '\t']).unwrap_or(rest.len());
        at += end + (rest[end..].len() - rest[end..].trim_start_matches([' ', '\t']).len());
    }
    let value = &line[at..];
    let value_end = [" #", "\t#"]
        .iter()
        .filter_map(|c| value.find(c))
        .min()
        .unwrap_or(value.len());
    let value = value[..value_end].trim_end();
    if value.is_empty() || value.starts_with(['*', '!', '#']) {
        return i + 1;
    }
    if value.starts_with(['|', '>']) {
        *skip_deeper = Some(parent);
        return i + 1;
    }
    if let Some(quote) = value.chars().next().filter(|c| matches!(c, '"' | '\'')) {
        // Follow a quoted scalar to its closing quote, across lines.
        let mut from = at + 1;
        for (j, text) in lines.iter().enumerate().skip(i) {
            if closing_quote(text, from, quote).is_some() {
                return j + 1;
            }
            from = 0;
        }
        return lines.len();
    }
    if value.starts_with(['[', '{']) {
        return yaml11_flow(lines, i, at, out);
    }
    // A plain scalar continued on deeper lines is prose, not a token.
    let continued = lines[i + 1..]
        .iter()
        .map(|l| (l, l.trim_start_matches(' ')))
        .find(|(_, t)| !t.is_empty() && !t.starts_with('#'))
        .is_some_and(|(l, t)| l.len() - t.len() > parent);
    if continued {
        *skip_deeper = Some(parent);
    } else if let Some(message) = yaml11_value_message(value) {
        out.push((i as u32 + 1, char_column(line, at), message));
    }
    i + 1
}

/// Read a flow collection starting at byte `at` of line `i`, checking each
/// plain token; returns the index of the line after it.
pub(super) fn yaml11_flow(
    lines: &[&str],
    i: usize,
    at: usize,
    out: &mut Vec<(u32, u32, String)>,
) -> usize {
    let mut depth = 0usize;
    let mut token = String::new();
    let mut start: Option<(usize, usize)> = None;
    let mut quoted = false;
    let mut flush = |token: &mut String,
                     start: &mut Option<(usize, usize)>,
                     quoted: &mut bool,
                     is_key: bool| {
        let text = token.trim();
        let mut text = text;
        while text.starts_with('&') {
            text = text
                .find([' ', '\t'])
                .map_or("", |end| text[end..].trim_start());
        }
        if let (false, Some((line, byte))) = (*quoted || text.starts_with(['!', '*']), *start) {
            let message = if is_key {
                yaml11_key_message(text)
            } else {
                yaml11_value_message(text)
            };
            if let Some(message) = message {
                out.push((line as u32 + 1, char_column(lines[line], byte), message));
            }
        }
        token.clear();
        *start = None;
        *quoted = false;
    };
    for (j, line) in lines.iter().enumerate().skip(i) {
        let from = if j == i { at } else { 0 };
        let mut chars = line[from..]
            .char_indices()
            .map(|(k, c)| (k + from, c))
            .peekable();
        let mut previous = ' ';
        while let Some((k, c)) = chars.next() {
            match c {
                '"' | '\'' if token.trim().is_empty() => {
                    quoted = true;
                    start.get_or_insert((j, k));
                    let close = closing_quote(line, k + 1, c).unwrap_or(line.len());
                    while chars.peek().is_some_and(|(n, _)| *n <= close) {
                        chars.next();
                    }
                    token.push('"');
                }
                '[' | '{' => {
                    depth += 1;
                    flush(&mut token, &mut start, &mut quoted, false);
                }
                ']' | '}' => {
                    flush(&mut token, &mut start, &mut quoted, false);
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return j + 1;
                    }
                }
                ',' => flush(&mut token, &mut start, &mut quoted, false),
                ':' if chars
                    .peek()
                    .is_none_or(|(_, n)| matches!(n, ' ' | '\t' | ',' | ']' | '}')) =>
                {
                    flush(&mut token, &mut start, &mut quoted, true)
                }
                '#' if previous == ' ' || previous == '\t' => break,
                _ => {
                    if !c.is_whitespace() {
                        start.get_or_insert((j, k));
                    }
                    token.push(c);
                }
            }
            previous = c;
        }
        token.push(' ');
    }
    lines.len()
}

/// What YAML 1.1 hosts make of a plain key that is not a string to them.
pub(super) fn yaml11_key_message(key: &str) -> Option<String> {
    if key == "<<" {
        return Some(format!(
            "`<<` is a merge key: {YAML11_HOSTS} copy the keys of the referenced map into this one, while skilldex (YAML 1.2) keeps `<<` as an ordinary key — write the keys out instead of merging"
        ));
    }
    let reading = yaml11_reading(key)?;
    Some(format!(
        "the key `{key}` is read as {reading} by {YAML11_HOSTS}, but as the text \"{key}\" by skilldex (YAML 1.2) — quote it: `\"{key}\":`"
    ))
}

/// What YAML 1.1 hosts make of a plain value that is not a string to them.
pub(super) fn yaml11_value_message(value: &str) -> Option<String> {
    let unsigned = value.trim_start_matches(['-', '+']);
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(value, ".nan" | ".NaN" | ".NAN") {
        return Some(format!(
            "`{value}` is read as a floating-point {} by skilldex and {YAML11_HOSTS} alike, and JSON cannot carry it, so the MCP server cannot serve this front matter — quote it: `\"{value}\"`",
            if unsigned.eq_ignore_ascii_case(".inf") { "infinity" } else { "NaN" }
        ));
    }
    let reading = yaml11_reading(value)?;
    Some(format!(
        "`{value}` is read as {reading} by {YAML11_HOSTS}, but as the text \"{value}\" by skilldex (YAML 1.2) — quote it: `\"{value}\"`"
    ))
}

/// How YAML 1.1 (PyYAML) reads a plain scalar that YAML 1.2 reads as
/// text; `None` when both read it alike. The boolean words count in the
/// three spellings YAML 1.1 defines (`yes`, `Yes`, `YES`); PyYAML reads
/// `yEs`, `y` and `n` as text, so they are not reported.
pub(super) fn yaml11_reading(token: &str) -> Option<String> {
    match token {
        "yes" | "Yes" | "YES" | "on" | "On" | "ON" => return Some("the boolean true".into()),
        "no" | "No" | "NO" | "off" | "Off" | "OFF" => return Some("the boolean false".into()),
        _ => {}
    }
    if let Some(kind) = yaml11_timestamp(token) {
        return Some(kind.into());
    }
    let digits = token.strip_prefix(['-', '+']).unwrap_or(token);
    let negative = token.starts_with('-');
    let sign = if negative { "-" } else { "" };
    let is_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    // Octal: 0[0-7_]+.
    if digits.len() > 1
        && digits.starts_with('0')
        && digits
            .bytes()
            .all(|b| (b'0'..=b'7').contains(&b) || b == b'_')
    {
        let value = digits.bytes().filter(|b| *b != b'_').fold(0u128, |n, b| {
            n.saturating_mul(8).saturating_add(u128::from(b - b'0'))
        });
        return Some(format!("the octal number {sign}{value}"));
    }
    // Base 60: [1-9][0-9_]*(:[0-5]?[0-9])+, optionally with a fraction.
    if let Some((head, tail)) = digits.split_once(':') {
        let (tail, fraction) = match tail.split_once('.') {
            Some((t, f)) if f.bytes().all(|b| b.is_ascii_digit() || b == b'_') => (t, true),
            Some(_) => return None,
            None => (tail, false),
        };
        let parts_ok = tail.split(':').all(|p| {
            matches!(p.len(), 1 | 2)
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p.len() == 1 || p.as_bytes()[0] <= b'5')
        });
        let head_ok = is_digits(head)
            && head.as_bytes()[0].is_ascii_digit()
            && (fraction || head.as_bytes()[0] != b'0');
        if head_ok && parts_ok {
            let value = std::iter::once(head)
                .chain(tail.split(':'))
                .map(|p| p.replace('_', "").parse::<u128>().unwrap_or(0))
                .fold(0u128, |n, p| n.saturating_mul(60).saturating_add(p));
            return Some(if fraction {
                "a base-60 number".to_string()
            } else {
                format!("the base-60 number {sign}{value}")
            });
        }
        return None;
    }
    // Digits with underscores: 1_000.
    if digits.contains('_') && is_digits(digits) && digits.as_bytes()[0].is_ascii_digit() {
        return Some(format!("the number {sign}{}", digits.replace('_', "")));
    }
    None
}

/// `Some("a date")` / `Some("a date and time")` when YAML 1.1 reads `token`
/// as a timestamp.
pub(super) fn yaml11_timestamp(token: &str) -> Option<&'static str> {
    let b = token.as_bytes();
    let digits = |from: usize, min: usize, max: usize| -> Option<usize> {
        let n = b[from.min(b.len())..]
            .iter()
            .take(max)
            .take_while(|c| c.is_ascii_digit())
            .count();
        (n >= min).then_some(from + n)
    };
    let year = digits(0, 4, 4)?;
    if b.get(year) != Some(&b'-') {
        return None;
    }
    let month = digits(year + 1, 1, 2)?;
    if b.get(month) != Some(&b'-') {
        return None;
    }
    let day = digits(month + 1, 1, 2)?;
    if day == b.len() {
        // A date alone needs two-digit month and day.
        return (month - year == 3 && day - month == 3).then_some("a date");
    }
    let mut i = day;
    if matches!(b[i], b'T' | b't') {
        i += 1;
    } else {
        let spaces = b[i..]
            .iter()
            .take_while(|c| matches!(c, b' ' | b'\t'))
            .count();
        if spaces == 0 {
            return None;
        }
        i += spaces;
    }
    let hour = digits(i, 1, 2)?;
    if b.get(hour) != Some(&b':') {
        return None;
    }
    let minute = digits(hour + 1, 2, 2)?;
    if b.get(minute) != Some(&b':') {
        return None;
    }
    let mut i = digits(minute + 1, 2, 2)?;
    if b.get(i) == Some(&b'.') {
        i += 1 + b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
    }
    i += b[i..]
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t'))
        .count();
    if i < b.len() {
        if b[i] == b'Z' {
            i += 1;
        } else if matches!(b[i], b'+' | b'-') {
            i = digits(i + 1, 1, 2)?;
            if b.get(i) == Some(&b':') {
                i = digits(i + 1, 2, 2)?;
            }
        } else {
            return None;
        }
    }
    (i == b.len()).then_some("a date and time")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::Code;

    fn fields(text: &str) -> (Option<crate::parse::Fields>, Vec<crate::parse::Finding>) {
        super::super::parse_fields(&super::super::split(text).expect("split"))
    }

    /// (line, column, first words) of the yaml11-value findings.
    fn yaml11(text: &str) -> Vec<(u32, u32, String)> {
        let (f, findings) = fields(text);
        assert!(f.is_some(), "{findings:?}");
        findings
            .into_iter()
            .filter(|f| f.code == Code::Yaml11Value)
            .map(|f| (f.position.line, f.position.column, f.message))
            .collect()
    }

    #[test]
    fn yaml11_readings_are_reported_where_the_value_is() {
        let found = yaml11(
            "---\nname: a\ndescription: Use when x\nlicense: 2024-01-01\nmetadata:\n  enabled: yes\n  at: 2024-01-01 10:00:00\n  mode: 010\n  time: 1:30\n  lim: .inf\ntags: [Off, \"no\", {on: 1}]\nbase: &b {x: 1}\nother:\n  <<: *b\nlist:\n  - NO\n  - k: 0777\n---\n",
        );
        let at: Vec<(u32, u32)> = found.iter().map(|(l, c, _)| (*l, *c)).collect();
        assert_eq!(
            at,
            [
                (4, 10),
                (6, 12),
                (7, 7),
                (8, 9),
                (9, 9),
                (10, 8),
                (11, 8),
                (11, 20),
                (14, 3),
                (16, 5),
                (17, 8)
            ],
            "{found:#?}"
        );
        let message = |line: u32, column: u32| {
            &found
                .iter()
                .find(|(l, c, _)| (*l, *c) == (line, column))
                .unwrap()
                .2
        };
        assert!(message(4, 10).contains("`2024-01-01` is read as a date by YAML 1.1 hosts (PyYAML: fast-agent, FastMCP), but as the text \"2024-01-01\" by skilldex"));
        assert!(message(4, 10).ends_with("quote it: `\"2024-01-01\"`"));
        assert!(message(6, 12).contains("the boolean true"));
        assert!(message(7, 7).contains("a date and time"));
        assert!(message(8, 9).contains("the octal number 8"));
        assert!(message(9, 9).contains("the base-60 number 90"));
        assert!(message(10, 8).contains("JSON cannot carry"));
        assert!(message(11, 20).contains("the key `on`"));
        assert!(message(14, 3).contains("merge key"));
        assert!(message(17, 8).contains("the octal number 511"));
    }

    #[test]
    fn yaml11_leaves_text_alone() {
        for header in [
            "name: a\ndescription: Use when x\n",
            "description: \"yes\"\nlicense: '2024-01-01'\n",
            "description: |\n  on: yes\n  010\n",
            "description: >-\n  yes\n",
            "description: first\n  yes\n",
            "description: \"multi\n  on: yes\"\n",
            "description: url http://x:80 and 1:30 pm\n",
            "a: y\nb: n\nc: yEs\nd: 1e3\ne: 0b11\nf: 0x1F\ng: 10\nh: 1.5\ni: true\nj: 2024-1-1\nk: 09\n",
            "a: !!str yes\nb: &x on-call\nc: [\"on\", 'off', x y]\n",
            "metadata:\n  version: 1:3a\n  date: 2024-01-01x\n",
        ] {
            let text = format!("---\n{header}---\n");
            let found = yaml11(&text);
            assert!(found.is_empty(), "{header:?}: {found:#?}");
        }
    }

    #[test]
    fn a_plain_header_skips_the_yaml11_scan() {
        let yaml = "name: plan-profile-6730\ndescription: Estimates pending prompt inference for long-running roadmap and deployment vulnerability. Use when upgrading yaml domain, deduplicating cold node, or splitting public variable.\nlicense: MIT\n";
        assert!(!may_read_differently(yaml));
        assert!(may_read_differently("name: a\nflag: yes\n"));
    }

    proptest::proptest! {
        /// The YAML 1.1 scan is a line scan over any text: it never panics.
        #[test]
        fn yaml11_scan_never_panics(text in "[-a-z0-9 :#'\"\\[\\]{},&*!|>.<\n\téß]{0,80}") {
            let found = yaml11_scan(&text);
            // The quick check never hides what the scan finds.
            proptest::prop_assert!(found.is_empty() || may_read_differently(&text), "{text:?}: {found:?}");
        }
    }
}
