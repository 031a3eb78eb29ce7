//! Terminal styling: ANSI colors when stdout is a terminal and `NO_COLOR`
//! is not set (or when forced), plain text otherwise.

use super::ColorChoice;
use std::io::IsTerminal;

#[derive(Debug, Clone, Copy)]
pub struct Style {
    enabled: bool,
}

impl Style {
    pub fn new(choice: ColorChoice, stream_is_terminal: bool) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let enabled = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => stream_is_terminal && !no_color,
        };
        Style { enabled }
    }

    pub fn stdout(choice: ColorChoice) -> Self {
        Style::new(choice, std::io::stdout().is_terminal())
    }

    pub fn stderr(choice: ColorChoice) -> Self {
        Style::new(choice, std::io::stderr().is_terminal())
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    pub fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }

    pub fn dim(&self, text: &str) -> String {
        self.paint("2", text)
    }

    pub fn red(&self, text: &str) -> String {
        self.paint("1;31", text)
    }

    pub fn yellow(&self, text: &str) -> String {
        self.paint("1;33", text)
    }

    pub fn cyan(&self, text: &str) -> String {
        self.paint("36", text)
    }

    pub fn green(&self, text: &str) -> String {
        self.paint("32", text)
    }
}

/// Columns `c` takes in a terminal: East Asian wide and full-width
/// characters take two.
pub fn char_width(c: char) -> usize {
    let wide = matches!(u32::from(c),
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x1F900..=0x1F9FF
        | 0x20000..=0x3FFFD);
    if wide {
        2
    } else {
        1
    }
}

pub fn text_width(text: &str) -> usize {
    text.chars().map(char_width).sum()
}

/// `text` cut to at most `columns` terminal columns (with `…` when cut)
/// and padded with spaces to exactly that width.
pub fn fit_width(text: &str, columns: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    if text_width(text) <= columns {
        out.push_str(text);
        used = text_width(text);
    } else {
        for c in text.chars() {
            let w = char_width(c);
            if used + w + 1 > columns {
                break;
            }
            out.push(c);
            used += w;
        }
        let trimmed = out.trim_end().len();
        used -= text_width(&out[trimmed..]);
        out.truncate(trimmed);
        out.push('…');
        used += 1;
    }
    out.extend(std::iter::repeat_n(' ', columns.saturating_sub(used)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_count_wide_characters_twice() {
        assert_eq!(text_width("ab"), 2);
        assert_eq!(text_width("中文"), 4);
        assert_eq!(fit_width("abc", 5), "abc  ");
        assert_eq!(fit_width("abcdef", 4), "abc…");
        assert_eq!(text_width(&fit_width("中文中文中文", 7)), 7);
    }
}
