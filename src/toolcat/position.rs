//! Where each value of a JSON text starts, by JSON Pointer, so a finding
//! about `/tools/3/inputSchema/properties/x` can name `file:line:column`.
//!
//! serde_json keeps no positions; this scanner walks text that serde_json
//! has already accepted, so it assumes well-formed JSON (on anything else
//! it stops and the positions it has are still right).

use std::collections::HashMap;

/// 1-based line and column (in characters) of the start of every value.
#[derive(Debug, Default)]
pub struct Positions {
    text: String,
    /// Line, and byte offsets of the line's start and of the value: the
    /// column (in characters) is counted only when asked for, so a file
    /// written on one long line costs no more than a pretty one.
    by_pointer: HashMap<String, (u32, usize, usize)>,
}

impl Positions {
    pub fn of(text: &str) -> Positions {
        let mut scanner = Scanner {
            bytes: text.as_bytes(),
            text,
            at: 0,
            line: 1,
            line_start: 0,
            found: HashMap::new(),
        };
        scanner.skip_space();
        let _ = scanner.value(String::new());
        Positions {
            text: text.to_string(),
            by_pointer: scanner.found,
        }
    }

    /// The position of the value at `pointer`, or of its nearest ancestor
    /// that the text holds (a pointer into a repaired node may name a place
    /// that is not written).
    pub fn get(&self, pointer: &str) -> (u32, u32) {
        let mut pointer = pointer;
        loop {
            if let Some(&(line, line_start, at)) = self.by_pointer.get(pointer) {
                let column = self.text[line_start..at].chars().count() as u32 + 1;
                return (line, column);
            }
            match pointer.rfind('/') {
                Some(cut) => pointer = &pointer[..cut],
                None => return (1, 1),
            }
        }
    }
}

struct Scanner<'a> {
    bytes: &'a [u8],
    text: &'a str,
    at: usize,
    line: u32,
    line_start: usize,
    found: HashMap<String, (u32, usize, usize)>,
}

impl Scanner<'_> {
    fn position(&self) -> (u32, usize, usize) {
        (self.line, self.line_start, self.at)
    }

    fn skip_space(&mut self) {
        while let Some(&b) = self.bytes.get(self.at) {
            match b {
                b'\n' => {
                    self.at += 1;
                    self.line += 1;
                    self.line_start = self.at;
                }
                b' ' | b'\t' | b'\r' => self.at += 1,
                _ => break,
            }
        }
    }

    fn value(&mut self, pointer: String) -> Option<()> {
        let position = self.position();
        self.found.insert(pointer.clone(), position);
        match *self.bytes.get(self.at)? {
            b'{' => {
                self.at += 1;
                loop {
                    self.skip_space();
                    match *self.bytes.get(self.at)? {
                        b'}' => {
                            self.at += 1;
                            return Some(());
                        }
                        b',' => {
                            self.at += 1;
                            continue;
                        }
                        b'"' => {
                            let key = self.string()?;
                            self.skip_space();
                            if *self.bytes.get(self.at)? != b':' {
                                return None;
                            }
                            self.at += 1;
                            self.skip_space();
                            let escaped = key.replace('~', "~0").replace('/', "~1");
                            self.value(format!("{pointer}/{escaped}"))?;
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.at += 1;
                let mut index = 0usize;
                loop {
                    self.skip_space();
                    match *self.bytes.get(self.at)? {
                        b']' => {
                            self.at += 1;
                            return Some(());
                        }
                        b',' => {
                            self.at += 1;
                            continue;
                        }
                        _ => {
                            self.value(format!("{pointer}/{index}"))?;
                            index += 1;
                        }
                    }
                }
            }
            b'"' => self.string().map(|_| ()),
            _ => {
                // A number, true, false or null: up to the next delimiter.
                while let Some(&b) = self.bytes.get(self.at) {
                    if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                        break;
                    }
                    self.at += 1;
                }
                Some(())
            }
        }
    }

    /// A string starting at `"`, decoded (the text is known to be valid).
    fn string(&mut self) -> Option<String> {
        let start = self.at;
        self.at += 1;
        while let Some(&b) = self.bytes.get(self.at) {
            match b {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    return serde_json::from_str(&self.text[start..self.at]).ok();
                }
                _ => self.at += 1,
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_values_by_pointer() {
        let text =
            "{\n  \"tools\": [\n    {\"name\": \"é\", \"a/b\": [1, {\"x\": null}]}\n  ]\n}\n";
        let positions = Positions::of(text);
        assert_eq!(positions.get(""), (1, 1));
        assert_eq!(positions.get("/tools"), (2, 12));
        assert_eq!(positions.get("/tools/0"), (3, 5));
        assert_eq!(positions.get("/tools/0/name"), (3, 14));
        assert_eq!(positions.get("/tools/0/a~1b/1/x"), (3, 36));
        // Not written: the nearest ancestor.
        assert_eq!(positions.get("/tools/0/inputSchema/properties"), (3, 5));
    }
}
