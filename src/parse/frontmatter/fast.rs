//! The fast path: a header of plain `key: text` lines, folded and literal
//! block scalars and one level of `metadata` is read without the YAML
//! parser. Anything else returns `None` and goes to the parser; a property
//! test checks that the two always agree.

use super::char_column;
use crate::entry::Position;
use serde_yaml_ng::Value;

/// Where each top-level key's value starts, in header coordinates.
pub(super) type KeyPositions = Vec<(String, Position)>;

/// A header as read: key/value pairs from the fast path, or the YAML
/// parser's value.
pub(super) enum Header {
    Pairs(Vec<(Value, Value)>),
    Value(Value),
}

/// The fast path for the headers most skills have. It accepts only:
/// `key: text` lines whose text YAML reads literally; `key: >-` (or `>`,
/// `|`, `|-`) followed by lines at one indentation, with no blank lines,
/// no deeper indentation and no trailing spaces; and `key:` followed by
/// `  sub: text` lines at one indentation. Anything else — quotes, numbers,
/// booleans, null, indicators, `: ` or ` #` inside a value, duplicate keys,
/// deeper nesting — returns `None` and goes to the YAML parser. A unit test
/// and a property test check that both paths give the same value.
///
/// Returns the mapping and where each key's value starts.
pub(super) fn simple_header(yaml: &str) -> Option<(Vec<(Value, Value)>, KeyPositions)> {
    let lines: Vec<&str> = yaml
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut pairs: Vec<(Value, Value)> = Vec::with_capacity(8);
    let mut positions = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.trim().is_empty() || line.starts_with('#') {
            i += 1;
            continue;
        }
        let (key, rest) = line.split_once(':')?;
        if !simple_key(key) {
            return None;
        }
        let value_start = key.len() + 1 + (rest.len() - rest.trim_start_matches(' ').len());
        let rest = rest.strip_prefix(' ').unwrap_or(rest);
        if !rest.is_empty() && !line[key.len() + 1..].starts_with(' ') {
            return None;
        }
        let indicator = rest.trim_matches(' ');
        let block: Vec<&str> = lines[i + 1..]
            .iter()
            .take_while(|l| l.starts_with(' '))
            .copied()
            .collect();
        let value = if indicator.is_empty() {
            // A nested map of plain values.
            if block.is_empty() {
                return None;
            }
            let indent = indentation(block[0])?;
            let mut nested = serde_yaml_ng::Mapping::new();
            for entry in &block {
                if indentation(entry)? != indent {
                    return None;
                }
                let (sub_key, sub_value) = entry[indent..].split_once(": ")?;
                if !simple_key(sub_key) {
                    return None;
                }
                let sub_value = plain_text(sub_value)?;
                let sub_key = Value::String(sub_key.to_string());
                if nested.contains_key(&sub_key) {
                    return None;
                }
                nested.insert(sub_key, Value::String(sub_value.to_string()));
            }
            Value::Mapping(nested)
        } else if matches!(indicator, ">" | ">-" | "|" | "|-") {
            if block.is_empty() {
                return None;
            }
            let indent = indentation(block[0])?;
            let mut parts = Vec::with_capacity(block.len());
            for entry in &block {
                if indentation(entry)? != indent || entry.ends_with([' ', '\t']) {
                    return None;
                }
                let text = &entry[indent..];
                if text.chars().any(non_printable) {
                    return None;
                }
                parts.push(text);
            }
            let separator = if indicator.starts_with('>') {
                " "
            } else {
                "\n"
            };
            let mut text = parts.join(separator);
            if !indicator.ends_with('-') {
                text.push('\n');
            }
            Value::String(text)
        } else {
            if !block.is_empty() {
                return None; // A plain value continued on the next lines.
            }
            Value::String(plain_text(rest)?.to_string())
        };
        if positions.iter().any(|(k, _): &(String, Position)| k == key) {
            return None;
        }
        pairs.push((Value::String(key.to_string()), value));
        positions.push((
            key.to_string(),
            Position {
                line: i as u32 + 1,
                column: char_column(line, value_start),
            },
        ));
        i += 1 + block.len();
    }
    Some((pairs, positions))
}

pub(super) fn simple_key(key: &str) -> bool {
    !key.is_empty()
        && key.as_bytes()[0].is_ascii_alphabetic()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Spaces before the text of a line; `None` for tabs or a blank line.
pub(super) fn indentation(line: &str) -> Option<usize> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[indent..];
    (indent > 0 && !rest.is_empty() && !rest.starts_with('\t')).then_some(indent)
}

pub(super) fn non_printable(c: char) -> bool {
    (c < ' ' && c != '\t')
        || (('\u{7f}'..='\u{9f}').contains(&c) && c != '\u{85}')
        || c == '\u{feff}'
        || c == '\u{fffe}'
        || c == '\u{ffff}'
}

/// `value` when YAML would read it as exactly this text, else `None`.
pub(super) fn plain_text(value: &str) -> Option<&str> {
    let value = value.trim_matches([' ', '\t']);
    // A quoted value without escapes or inner quotes is its inside.
    for quote in ['"', '\''] {
        if let Some(inner) = value
            .strip_prefix(quote)
            .and_then(|v| v.strip_suffix(quote))
        {
            let simple = !inner.contains(quote)
                && !inner.contains('\\')
                && !inner.chars().any(non_printable)
                && !inner.contains('\t');
            return simple.then_some(inner);
        }
    }
    let first = value.chars().next()?;
    if first.is_ascii_digit()
        || "-?:,[]{}#&*!|>'\"%@`+.~".contains(first)
        || value.contains(": ")
        || value.contains(":\t")
        || value.contains(" #")
        || value.contains("\t#")
        || value.ends_with(':')
        || value.chars().any(non_printable)
    {
        return None;
    }
    if value.len() <= 5
        && matches!(
            value.to_ascii_lowercase().as_str(),
            "null" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n"
        )
    {
        return None;
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_path_agrees_with_the_yaml_parser() {
        let cases = [
            "name: pdf-forms\ndescription: Fill PDF forms. Use when asked.\n",
            "name: a\r\ndescription: Ünïcödé text, with commas\r\n",
            "description: 技能描述，适用于中文。\nlicense: MIT\n",
            "name: a\ndescription: x\tand tab\n",
            "description: >-\n  Folded text\n  over lines.\nname: x\n",
            "description: >\n  Folded\n  clip\n",
            "description: |\n  Literal\n  lines\n",
            "description: |-\n    Literal\n    strip\n",
            "metadata:\n  version: v1\n  author: me\nlicense: MIT\n",
            "metadata:\n  version: \"1.3\"\n  other: 'x y'\nname: \"quoted: yes\"\n",
            "# comment\nname: a\n",
        ];
        for case in cases {
            let (fast, _) = simple_header(case).expect("simple");
            let slow: Value = serde_yaml_ng::from_str(case).unwrap();
            assert_eq!(Value::Mapping(fast.into_iter().collect()), slow, "{case:?}");
        }
        for not_simple in [
            "name: 123\n",
            "name: true\n",
            "name: ~\n",
            "description: 'it''s'\n",
            "description: \"a \\\" b\"\n",
            "a: b: c\n",
            "a: x #c\n",
            "a: x\na: y\n",
            "metadata:\n  k: v\n    deeper: x\n",
            "metadata:\n  k: 1\n",
            "a: -x\n",
            "a: >\n  x\n\n  y\n",
            "a: >\n  x\n    more\n",
            "a: |+\n  x\n",
            "a: >2\n  x\n",
            "a: plain\n  continued\n",
        ] {
            assert!(simple_header(not_simple).is_none(), "{not_simple:?}");
        }
    }

    use proptest::prelude::*;

    proptest::proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// Whenever the fast path accepts a header, the YAML parser reads
        /// the same value from it.
        #[test]
        fn fast_path_never_disagrees(
            entries in proptest::collection::vec(
                (
                    "[a-z][a-z_-]{0,6}",
                    proptest::prop_oneof![
                        "[ a-zA-Z0-9:#'\"@&*!|>%,.?\\-\\[\\]{}\t~éß技]{0,24}".prop_map(|v| format!(" {v}")),
                        ("[>|]-?", proptest::collection::vec("[ a-zA-Z0-9:#'\"-]{0,16}", 1..4), 1usize..4)
                            .prop_map(|(ind, lines, n)| {
                                let pad = " ".repeat(n);
                                format!(" {ind}\n{}", lines.iter().map(|l| format!("{pad}{l}")).collect::<Vec<_>>().join("\n"))
                            }),
                        (proptest::collection::vec(("[a-z]{1,5}", "[ a-zA-Z0-9:#'-]{0,12}"), 1..3), 1usize..4)
                            .prop_map(|(pairs, n)| {
                                let pad = " ".repeat(n);
                                format!("\n{}", pairs.iter().map(|(k, v)| format!("{pad}{k}: {v}")).collect::<Vec<_>>().join("\n"))
                            }),
                    ],
                ),
                1..5,
            ),
        ) {
            let yaml: String = entries.iter().map(|(k, v)| format!("{k}:{v}\n")).collect();
            if let Some((fast, _)) = simple_header(&yaml) {
                let slow: Value = serde_yaml_ng::from_str(&yaml)
                    .unwrap_or_else(|e| panic!("fast path accepted invalid YAML {yaml:?}: {e}"));
                proptest::prop_assert_eq!(Value::Mapping(fast.into_iter().collect()), slow, "{:?}", yaml);
            }
        }
    }
}
