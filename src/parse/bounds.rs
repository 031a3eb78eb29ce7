//! Bounds checked before a YAML parser sees a text (a skill's front
//! matter, a `skilldex.yaml`), so one hostile file costs linear time.
//!
//! The YAML scanner re-checks every open flow collection (`[`, `{`) at
//! each token: 64 KB of unclosed `[` took seconds, and a 200 KB
//! `roots: [[[[…` in a cloned repository's `skilldex.yaml` most of a
//! minute. Real headers nest two or three levels; past `MAX_FLOW_NESTING`
//! the text is refused, at the bracket that went too deep, before it is
//! parsed. One linear pass, aware of quotes and comments, finds it.

/// Deepest nesting of flow collections (`[…]`, `{…}`) read.
pub const MAX_FLOW_NESTING: usize = 32;

/// A text whose flow collections nest deeper than `MAX_FLOW_NESTING`, at
/// the bracket that went too deep (1-based line and column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{}", flow_nesting_message())]
pub struct TooDeep {
    pub line: usize,
    pub column: usize,
}

/// Where `yaml` first nests flow collections deeper than
/// `MAX_FLOW_NESTING`.
pub fn check_flow_nesting(yaml: &str) -> Result<(), TooDeep> {
    let mut depth = 0usize;
    let mut line = 1usize;
    let mut line_start = 0usize;
    // Inside a quoted scalar: the quote that closes it.
    let mut quote: Option<u8> = None;
    let bytes = yaml.as_bytes();
    // Depth grows only at an opening bracket: a text with no more of them
    // than the limit cannot pass it (most headers have none), and this
    // count is one vectorised pass instead of the byte-by-byte walk.
    let opening = bytes.iter().filter(|&&b| b == b'[' || b == b'{').count();
    if opening <= MAX_FLOW_NESTING {
        return Ok(());
    }
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' {
            line += 1;
            line_start = i + 1;
            i += 1;
            continue;
        }
        match quote {
            Some(b'"') if b == b'\\' => i += 1, // An escaped character.
            Some(q) if b == q => {
                if q == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                    i += 1; // `''` inside single quotes.
                } else {
                    quote = None;
                }
            }
            Some(_) => {}
            None => match b {
                b'#' if i == line_start || matches!(bytes[i - 1], b' ' | b'\t') => {
                    // A comment: to the end of the line.
                    while i + 1 < bytes.len() && bytes[i + 1] != b'\n' {
                        i += 1;
                    }
                }
                b'"' | b'\'' => {
                    // A quote opens a scalar only where one may start.
                    let opens = i == line_start
                        || matches!(bytes[i - 1], b' ' | b'\t' | b'[' | b'{' | b',' | b':');
                    if opens {
                        quote = Some(b);
                    }
                }
                b'[' | b'{' => {
                    depth += 1;
                    if depth > MAX_FLOW_NESTING {
                        let column = yaml[line_start..i].chars().count() + 1;
                        return Err(TooDeep { line, column });
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
        i += 1;
    }
    Ok(())
}

/// The message for a text refused by `check_flow_nesting`.
pub fn flow_nesting_message() -> String {
    format!(
        "brackets (`[` or `{{`) nest more than {MAX_FLOW_NESTING} levels deep here; the YAML is not parsed — close the brackets or write the value as a block list"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_at_the_limit_passes_and_one_more_is_refused() {
        let at = format!(
            "a: {}{}\n",
            "[".repeat(MAX_FLOW_NESTING),
            "]".repeat(MAX_FLOW_NESTING)
        );
        assert_eq!(check_flow_nesting(&at), Ok(()));
        let over = format!("a: {}\n", "[".repeat(MAX_FLOW_NESTING + 1));
        assert_eq!(
            check_flow_nesting(&over),
            Err(TooDeep {
                line: 1,
                column: 4 + MAX_FLOW_NESTING
            })
        );
        // Many brackets, none deep: the count alone does not refuse.
        let wide = format!("a: {}\n", "[1], ".repeat(4 * MAX_FLOW_NESTING));
        assert_eq!(check_flow_nesting(&wide), Ok(()));
    }

    #[test]
    fn deep_flow_nesting_is_found_at_its_bracket() {
        assert_eq!(check_flow_nesting("a: [1, [2, {b: c}]]\n"), Ok(()));
        let deep = format!("name: x\nroots: {}", "[".repeat(10_000));
        assert_eq!(
            check_flow_nesting(&deep),
            Err(TooDeep {
                line: 2,
                column: 8 + MAX_FLOW_NESTING
            })
        );
        // Brackets in quotes and comments do not count.
        let quoted = format!(
            "a: '{}'\nb: \"{}\\\"\"\n# {}\n",
            "[".repeat(99),
            "{".repeat(99),
            "[".repeat(99)
        );
        assert_eq!(check_flow_nesting(&quoted), Ok(()));
        // Closed brackets do not add up.
        assert_eq!(check_flow_nesting(&"[]".repeat(10_000)), Ok(()));
    }
}
