//! Reading newline-delimited JSON-RPC with a cap on a message's size, and
//! finding the `id` of a message that is too long (or not JSON) to be
//! parsed, so that whoever waits for its answer can be told at once.
//!
//! Both ends of skilldex use it: the guard on its own stdin (a client's
//! requests) and the guard on each upstream server's stdout (answers to
//! skilldex's calls).

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// How much of the start and the end of a cut line is kept, to find its
/// `id` and say what it was.
pub(crate) const KEPT: usize = 4096;

/// One line read by [`read_line`].
#[derive(Debug, Default)]
pub(crate) struct Line {
    /// The whole line (with its `\n`), or its first [`KEPT`] bytes when it
    /// was cut.
    pub(crate) bytes: Vec<u8>,
    /// When cut: about the last [`KEPT`] bytes.
    pub(crate) tail: Vec<u8>,
    /// Bytes read from the input (0 at its end).
    pub(crate) consumed: usize,
    /// The line was longer than the limit.
    pub(crate) cut: bool,
}

impl Line {
    fn clear(&mut self) {
        self.bytes.clear();
        if self.bytes.capacity() > 1 << 20 {
            // Do not keep a 10 MB buffer for one 10 MB message.
            self.bytes = Vec::new();
        }
        self.tail.clear();
        self.consumed = 0;
        self.cut = false;
    }
}

/// Read one line (with its `\n`) into `line`, keeping at most `limit`
/// bytes of it: a longer line is consumed to its end but only its start
/// and end are kept (`line.cut`).
pub(crate) async fn read_line<R: AsyncRead + Unpin>(
    input: &mut BufReader<R>,
    line: &mut Line,
    limit: usize,
) -> std::io::Result<()> {
    line.clear();
    loop {
        let buffer = input.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(());
        }
        let (take, done) = match buffer.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buffer.len(), false),
        };
        let piece = &buffer[..take];
        if !line.cut && line.bytes.len() + take > limit {
            line.cut = true;
            line.bytes.truncate(KEPT);
        }
        if line.cut {
            if line.bytes.len() < KEPT {
                let room = KEPT - line.bytes.len();
                line.bytes
                    .extend_from_slice(&piece[..room.min(piece.len())]);
            }
            line.tail.extend_from_slice(piece);
            if line.tail.len() > 2 * KEPT {
                let cut = line.tail.len() - KEPT;
                line.tail.drain(..cut);
            }
        } else {
            line.bytes.extend_from_slice(piece);
        }
        input.consume(take);
        line.consumed += take;
        if done {
            return Ok(());
        }
    }
}

/// What the start (and end) of a message that could not be parsed tell.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Sketch {
    /// Its top-level `id`, when one could be read.
    pub(crate) id: Option<Value>,
    /// It has a top-level `method` (a request or notification, not an
    /// answer).
    pub(crate) method: bool,
}

/// Read the top-level `id` and whether there is a `method` from `head`
/// (the start of a JSON object, possibly cut or broken later on) and, for
/// an `id` written last, from `tail` (its end).
pub(crate) fn sketch(head: &[u8], tail: &[u8]) -> Sketch {
    let mut found = scan_head(head);
    if found.id.is_none() {
        found.id = id_at_end(tail);
    }
    found
}

/// Walk the top level of the object `head` starts, as far as it goes.
fn scan_head(head: &[u8]) -> Sketch {
    let mut found = Sketch::default();
    let mut depth = 0usize;
    let mut i = 0;
    // At depth 1, the next string is a key.
    let mut expect_key = false;
    let mut key: Option<&[u8]> = None;
    while i < head.len() {
        match head[i] {
            b'"' => {
                let Some(end) = string_end(head, i) else {
                    return found;
                };
                if depth == 1 && expect_key {
                    key = Some(&head[i + 1..end]);
                    expect_key = false;
                }
                i = end + 1;
                continue;
            }
            b':' if depth == 1 => {
                if let Some(name) = key.take() {
                    if name == b"method" {
                        found.method = true;
                    } else if name == b"id" && found.id.is_none() {
                        found.id = scalar_at(&head[i + 1..]);
                    }
                }
            }
            b',' if depth == 1 => expect_key = true,
            b'{' | b'[' => {
                depth += 1;
                if depth == 1 {
                    expect_key = head[i] == b'{';
                }
            }
            b'}' | b']' => {
                if depth <= 1 {
                    return found;
                }
                depth -= 1;
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// The index of the quote that closes the string opened at `start`.
fn string_end(text: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// A JSON-RPC id (an integer or a string) at the start of `text`.
fn scalar_at(text: &[u8]) -> Option<Value> {
    let start = text.iter().position(|b| !b.is_ascii_whitespace())?;
    let text = &text[start..];
    let end = if text.first() == Some(&b'"') {
        string_end(text, 0)? + 1
    } else {
        let end = text
            .iter()
            .position(|b| !(b.is_ascii_digit() || *b == b'-'))
            .unwrap_or(text.len());
        // An integer ends there; `1.5` or `1e3` is no id.
        match text.get(end) {
            None | Some(b',' | b'}' | b' ' | b'\t' | b'\r' | b'\n') => end,
            Some(_) => return None,
        }
    };
    id_value(&text[..end])
}

fn id_value(text: &[u8]) -> Option<Value> {
    match serde_json::from_slice::<Value>(text).ok()? {
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(Value::Number(n)),
        Value::String(s) => Some(Value::String(s)),
        _ => None,
    }
}

/// The `id` of an object whose last member is `"id": …`.
fn id_at_end(tail: &[u8]) -> Option<Value> {
    let text = trim_end(tail);
    let text = trim_end(text.strip_suffix(b"}")?);
    // The value: a string or an integer.
    let start = if text.last() == Some(&b'"') {
        let mut i = text.len() - 1;
        loop {
            i = text[..i].iter().rposition(|&b| b == b'"')?;
            let slashes = text[..i].iter().rev().take_while(|&&b| b == b'\\').count();
            if slashes % 2 == 0 {
                break i;
            }
        }
    } else {
        text.iter()
            .rposition(|b| !(b.is_ascii_digit() || *b == b'-'))
            .map_or(0, |i| i + 1)
    };
    let value = id_value(&text[start..])?;
    let before = trim_end(&text[..start]);
    let before = trim_end(before.strip_suffix(b":")?);
    let before = trim_end(before.strip_suffix(b"\"id\"")?);
    matches!(before.last(), Some(b',' | b'{')).then_some(value)
}

fn trim_end(text: &[u8]) -> &[u8] {
    let end = text
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_id_is_found_first_last_or_not_at_all() {
        let cases: [(&str, Option<Value>, bool); 9] = [
            (
                r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"xxx"#,
                Some(json!(7)),
                false,
            ),
            (
                r#"{"result":{"id":1,"t":"}"},"jsonrpc":"2.0","id":"a\"b"}"#,
                Some(json!("a\"b")),
                false,
            ),
            (
                r#"{"result": {"x": [1, {"id": 3}]}, "id" : 12 }"#,
                Some(json!(12)),
                false,
            ),
            (r#"{"result":{"id":3}}"#, None, false),
            (
                r#"{"method":"tools/call","id":-4,"params":{"#,
                Some(json!(-4)),
                true,
            ),
            (
                r#"{"params":{"method":"x"},"text":"\"id\":5"}"#,
                None,
                false,
            ),
            (r#"{"id":1.5,"result":1}"#, None, false),
            ("not json at all", None, false),
            (
                r#"{"jsonrpc": "2.0", "id": 1, "result": {oops"#,
                Some(json!(1)),
                false,
            ),
        ];
        for (text, id, method) in cases {
            let found = sketch(text.as_bytes(), text.as_bytes());
            assert_eq!(found, Sketch { id, method }, "{text}");
        }
    }

    #[tokio::test]
    async fn a_long_line_keeps_its_ends_and_the_next_line_is_whole() {
        let long = format!("{{\"id\":1,\"result\":\"{}\"}}\n", "x".repeat(100_000));
        let input = format!("{long}{{\"id\":2}}\n");
        let mut reader = BufReader::with_capacity(1000, input.as_bytes());
        let mut line = Line::default();
        read_line(&mut reader, &mut line, 50_000).await.unwrap();
        assert!(line.cut);
        assert_eq!(line.consumed, long.len());
        assert_eq!(line.bytes, long.as_bytes()[..KEPT]);
        assert!(long.as_bytes().ends_with(&line.tail));
        assert!(line.tail.len() >= KEPT.min(long.len()));
        read_line(&mut reader, &mut line, 50_000).await.unwrap();
        assert!(!line.cut);
        assert_eq!(line.bytes, b"{\"id\":2}\n");
        read_line(&mut reader, &mut line, 50_000).await.unwrap();
        assert_eq!(line.consumed, 0);
    }
}
