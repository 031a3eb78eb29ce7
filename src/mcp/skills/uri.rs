//! `skill://` URIs: how this server spells them (each segment
//! percent-encoded one way), the checks on a URI a client sends (length,
//! canonical spelling), and the MIME type of a file.

use crate::entry::Skill;

/// The longest URI read: a path the system can open (4,096 bytes), each
/// byte percent-encoded, and the scheme and namespace around it.
pub const MAX_URI_BYTES: usize = 16 * 1024;

/// Refuse a URI longer than `MAX_URI_BYTES` before anything else looks
/// at it; the message quotes its start only.
pub fn check_length(uri: &str) -> Result<(), String> {
    if uri.len() <= MAX_URI_BYTES {
        return Ok(());
    }
    let shown: String = uri.chars().take(80).collect();
    Err(format!(
        "the URI {shown}… is {} bytes; the longest this server reads is {} — use a URI from skills/list or resources/list",
        crate::rules::thousands(uri.len()),
        crate::rules::thousands(MAX_URI_BYTES)
    ))
}

/// Check that `uri` is spelled the one way this server spells its URIs:
/// no empty, `.` or `..` segments, no encoded `/`, no query or fragment,
/// and each segment percent-encoded exactly as `encode_segment` does it.
/// `Err` carries that spelling of what `uri` most likely meant, when there
/// is one. URIs of other schemes are left to the caller.
pub fn check_canonical(uri: &str) -> Result<(), Option<String>> {
    let Some(rest) = uri.strip_prefix("skill://") else {
        return Ok(());
    };
    let cut = rest.find(['?', '#']).unwrap_or(rest.len());
    let mut canonical = true;
    let mut segments: Vec<String> = Vec::new();
    for written in rest[..cut].split('/') {
        let decoded = decode(written).ok_or(None)?;
        if decoded.contains('/') || encode_segment(&decoded) != written {
            canonical = false;
        }
        for part in decoded.split('/') {
            match part {
                "" | "." => canonical = false,
                ".." => {
                    canonical = false;
                    segments.pop().ok_or(None)?;
                }
                _ => segments.push(part.to_string()),
            }
        }
    }
    if canonical && cut == rest.len() {
        return Ok(());
    }
    if segments.is_empty() {
        return Err(None);
    }
    let path: Vec<String> = segments.iter().map(|s| encode_segment(s)).collect();
    Err(Some(format!("skill://{}", path.join("/"))))
}

/// Characters kept as they are in a URI segment (RFC 3986 unreserved).
pub(super) fn encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

pub(super) fn encode_path(path: &str) -> String {
    path.split('/')
        .map(encode_segment)
        .collect::<Vec<_>>()
        .join("/")
}

pub(super) fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// `skill://<namespace>/<name>` (no trailing slash).
pub fn root_uri(skill: &Skill) -> String {
    if skill.namespace.is_empty() {
        format!("skill://{}", encode_segment(&skill.name))
    } else {
        format!(
            "skill://{}/{}",
            encode_path(&skill.namespace),
            encode_segment(&skill.name)
        )
    }
}

pub fn skill_uri(skill: &Skill) -> String {
    format!("{}/SKILL.md", root_uri(skill))
}

/// A MIME type from a file name; text types for what hosts show as text.
pub fn mime_type(path: &str) -> &'static str {
    let extension = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" | "text" => "text/plain",
        "py" => "text/x-python",
        "sh" | "bash" => "text/x-shellscript",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        _ => "application/octet-stream",
    }
}
