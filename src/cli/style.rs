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
