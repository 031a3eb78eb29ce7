//! Small text helpers every layer may use (a leaf module: it imports
//! nothing of ours): cutting at a character boundary, counts as messages
//! quote them, and edit distance for "did you mean" answers.

/// The largest byte index `<= max` that is a character boundary of `text`
/// (`text.len()` when `max` is past the end).
pub fn floor_char_boundary(text: &str, max: usize) -> usize {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// `text` cut to at most `max` bytes, at a character boundary.
pub fn cut_at_char_boundary(text: &str, max: usize) -> &str {
    &text[..floor_char_boundary(text, max)]
}

/// A count with thousands separators (`1,100`), as messages quote it.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `n` with the noun that fits it: `1 skill`, `1,200 skills`.
/// A size for people: `512 B`, `3.4 KiB`, `12.0 MiB`, `8.0 GiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 3] = ["KiB", "MiB", "GiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// Levenshtein distance between `a` and `b`, by characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let current = row[j + 1];
            row[j + 1] = (previous + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(current + 1);
            previous = current;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_never_split_a_character() {
        assert_eq!(cut_at_char_boundary("héllo", 2), "h");
        assert_eq!(cut_at_char_boundary("héllo", 3), "hé");
        assert_eq!(cut_at_char_boundary("abc", 10), "abc");
        assert_eq!(floor_char_boundary("日本", 4), 3);
        assert_eq!(floor_char_boundary("", 4), 0);
    }

    #[test]
    fn counts_read_as_messages_quote_them() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_100), "1,100");
        assert_eq!(thousands(12_345_678), "12,345,678");
        assert_eq!(plural(1, "skill", "skills"), "1 skill");
        assert_eq!(plural(1_200, "skill", "skills"), "1,200 skills");
    }

    #[test]
    fn distance() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ab"), 2);
        assert_eq!(edit_distance("pdf", "pdf"), 0);
        assert_eq!(edit_distance("é", "e"), 1);
    }
}
