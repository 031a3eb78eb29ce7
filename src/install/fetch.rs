//! Where an index or an artifact is, and its bytes: a file path or an
//! `http(s)://` URL, read whole but never past a cap, with timeouts, so a
//! huge or endless answer ends as an error instead of a full memory or a
//! hang. References inside an index (`url` of an entry) are resolved
//! against the index's own location as the discovery format says
//! (absolute, path-absolute against the origin, or relative to the index's
//! folder); a reference from an `http(s)` index never reaches the local
//! file system.
//!
//! URLs are fetched with `ureq` (feature `remote`, on by default); built
//! without it, a URL is an error that says so.

use std::path::{Path, PathBuf};

/// The folder, under a published folder, that holds the index and artifacts.
pub const WELL_KNOWN: &str = ".well-known/agent-skills";

/// Where something is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Location {
    File(PathBuf),
    Url(String),
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::File(path) => write!(f, "{}", path.display()),
            Location::Url(url) => f.write_str(url),
        }
    }
}

/// Why bytes could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FetchError(pub String);

/// `http://` or `https://` (any case), the only schemes fetched.
pub fn is_http(text: &str) -> bool {
    let lower = text.get(..8).unwrap_or(text).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// The scheme of a URI reference (`https` of `https://…`), when it has one.
fn scheme(reference: &str) -> Option<&str> {
    let (head, _) = reference.split_once(':')?;
    let mut chars = head.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(head)
}

impl Location {
    /// A location as the user wrote it: a URL when it starts with
    /// `http(s)://`, the path of a `file:` URL (percent escapes decoded),
    /// else a path taken as written.
    pub fn parse(text: &str) -> Result<Location, FetchError> {
        if is_http(text) {
            Ok(Location::Url(text.to_string()))
        } else if is_file_url(text) {
            file_url_path(text).map(Location::File)
        } else {
            Ok(Location::File(PathBuf::from(text)))
        }
    }

    /// A location held in a path (configuration keeps URLs as written).
    pub fn from_path(path: &Path) -> Result<Location, FetchError> {
        match path.to_str() {
            Some(text) if is_http(text) || is_file_url(text) => Location::parse(text),
            _ => Ok(Location::File(path.to_path_buf())),
        }
    }

    /// The reference `reference` (an index entry's `url`) resolved against
    /// this location (the index's).
    pub fn join(&self, reference: &str) -> Result<Location, FetchError> {
        let reference = reference.split('#').next().unwrap_or("");
        if reference.is_empty() {
            return Err(FetchError("the `url` is empty".into()));
        }
        if reference.chars().any(|c| c.is_control() || c == '\\') {
            return Err(FetchError(format!(
                "the `url` {reference:?} holds a control character or a backslash"
            )));
        }
        if let Some(scheme) = scheme(reference) {
            if scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https") {
                check_escapes(reference)?;
                return Ok(Location::Url(reference.to_string()));
            }
            if scheme.eq_ignore_ascii_case("file") && matches!(self, Location::File(_)) {
                // An index read from disk may name files on the same disk;
                // one fetched from a server never does.
                return file_url_path(reference).map(Location::File);
            }
            return Err(FetchError(format!(
                "the `url` {reference:?} is a `{scheme}:` URL; only http(s) URLs, paths relative to the index{} are fetched",
                if matches!(self, Location::File(_)) { " and `file:` URLs" } else { "" }
            )));
        }
        check_escapes(reference)?;
        match self {
            Location::Url(base) => Ok(Location::Url(join_url(base, reference))),
            Location::File(index) => {
                if reference.starts_with("//") {
                    return Err(FetchError(format!(
                        "the `url` {reference:?} names another host, which an index read from a file has not — write it with `https:`"
                    )));
                }
                let path = decode_path(reference.split('?').next().unwrap_or(""), reference)?;
                let path = path.as_path();
                let base = if let Ok(rest) = path.strip_prefix("/") {
                    // Path-absolute: against the folder the index was
                    // published in (the one holding `.well-known`).
                    let published = published_folder(index).ok_or_else(|| {
                        FetchError(format!(
                            "the `url` {reference:?} starts at the site's root, but this index is not at `…/{WELL_KNOWN}/index.json` of a folder — write it relative to the index"
                        ))
                    })?;
                    published.join(rest)
                } else {
                    index.parent().unwrap_or(Path::new(".")).join(path)
                };
                Ok(Location::File(crate::paths::normalize(&base)))
            }
        }
    }

    /// The bytes there, refused past `max` bytes.
    pub fn read(&self, max: u64) -> Result<Vec<u8>, FetchError> {
        match self {
            Location::File(path) => crate::contain::read_regular(path, max)
                .map_err(|error| FetchError(format!("{error}"))),
            Location::Url(url) => get(url, max),
        }
    }
}

/// `file:` (any case) at the start.
fn is_file_url(text: &str) -> bool {
    text.get(..5)
        .is_some_and(|head| head.eq_ignore_ascii_case("file:"))
}

/// The path a `file:` URL names: `file:///abs`, `file://localhost/abs` or
/// `file:/abs`, percent escapes decoded; a query and a fragment dropped.
fn file_url_path(url: &str) -> Result<PathBuf, FetchError> {
    let rest = &url[5..];
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let path = match rest.strip_prefix("//") {
        Some(authority_and_path) => {
            let cut = authority_and_path
                .find('/')
                .unwrap_or(authority_and_path.len());
            let (host, path) = authority_and_path.split_at(cut);
            if !host.is_empty() && !host.eq_ignore_ascii_case("localhost") {
                return Err(FetchError(format!(
                    "the URL {url:?} names the host {host:?}; a `file:` URL must name this machine (`file:///path`)"
                )));
            }
            path
        }
        None => rest,
    };
    if !path.starts_with('/') {
        return Err(FetchError(format!(
            "the URL {url:?} has no absolute path; write it as `file:///path`"
        )));
    }
    Ok(crate::paths::normalize(&decode_path(path, url)?))
}

/// A URL path's segments with their percent escapes decoded, as a path.
/// A segment whose escapes decode to a `/`, a NUL, a backslash, or to
/// `.` or `..` is refused: an escape must not add structure the path did
/// not show. `..` written plainly is kept for the caller to resolve.
fn decode_path(path: &str, whole: &str) -> Result<PathBuf, FetchError> {
    let mut out = String::new();
    for (i, segment) in path.split('/').enumerate() {
        if i > 0 {
            out.push('/');
        }
        out.push_str(&decode_segment(segment, whole)?);
    }
    Ok(PathBuf::from(out))
}

/// One segment decoded (see [`decode_path`]).
fn decode_segment(segment: &str, whole: &str) -> Result<String, FetchError> {
    if !segment.contains('%') {
        return Ok(segment.to_string());
    }
    let decoded = decode_bytes(segment, whole)?;
    String::from_utf8(decoded).map_err(|_| {
        FetchError(format!(
            "the `url` {whole:?} has percent escapes that are not UTF-8"
        ))
    })
}

/// The bytes of one segment with its escapes decoded, refused when they
/// hide structure (see [`decode_path`]).
fn decode_bytes(segment: &str, whole: &str) -> Result<Vec<u8>, FetchError> {
    let bytes = segment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = segment
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| {
                    FetchError(format!(
                        "the `url` {whole:?} has a `%` that is not followed by two hex digits — write a literal `%` as `%25`"
                    ))
                })?;
            decoded.push(hex);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    if decoded.iter().any(|b| matches!(b, b'/' | b'\\' | 0)) || decoded == b"." || decoded == b".."
    {
        return Err(FetchError(format!(
            "the `url` {whole:?} hides {:?} behind percent escapes (in the segment {segment:?}); an escaped `/`, `\\`, NUL, `.` or `..` is refused",
            String::from_utf8_lossy(&decoded)
        )));
    }
    Ok(decoded)
}

/// [`decode_bytes`]'s refusals for a reference that is kept encoded (an
/// `http(s)` URL), which a server would decode.
fn check_escapes(reference: &str) -> Result<(), FetchError> {
    let path = reference.split(['?', '#']).next().unwrap_or("");
    for segment in path.split('/').filter(|s| s.contains('%')) {
        decode_bytes(segment, reference)?;
    }
    Ok(())
}

/// The folder holding `.well-known/agent-skills/index.json`, for an index
/// at that place.
fn published_folder(index: &Path) -> Option<PathBuf> {
    let folder = index.parent()?;
    let well_known = folder.parent()?;
    (folder.file_name()? == "agent-skills" && well_known.file_name()? == ".well-known")
        .then(|| well_known.parent().map(Path::to_path_buf))
        .flatten()
}

/// RFC 3986 §5.2 for the references an index holds (no scheme: a
/// network-path, path-absolute or relative reference) against an
/// `http(s)` base.
fn join_url(base: &str, reference: &str) -> String {
    let (scheme, rest) = base.split_once("://").unwrap_or(("https", base));
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    if let Some(network) = reference.strip_prefix("//") {
        return format!("{scheme}://{network}");
    }
    let path = path.split(['?', '#']).next().unwrap_or("");
    let (reference_path, query) = match reference.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (reference, None),
    };
    let merged = if reference_path.starts_with('/') {
        reference_path.to_string()
    } else if reference_path.is_empty() {
        path.to_string()
    } else {
        let directory = path.rfind('/').map_or("/", |cut| &path[..=cut]);
        format!("{directory}{reference_path}")
    };
    let mut out = format!("{scheme}://{authority}{}", remove_dot_segments(&merged));
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    out
}

/// RFC 3986 §5.2.4, on a path that starts with `/`.
fn remove_dot_segments(path: &str) -> String {
    let mut segments: Vec<&str> = Vec::new();
    let parts: Vec<&str> = path.split('/').skip(1).collect();
    for (i, segment) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        match *segment {
            "." => {
                if last {
                    segments.push("");
                }
            }
            ".." => {
                segments.pop();
                if last {
                    segments.push("");
                }
            }
            other => segments.push(other),
        }
    }
    format!("/{}", segments.join("/"))
}

#[cfg(feature = "remote")]
fn get(url: &str, max: u64) -> Result<Vec<u8>, FetchError> {
    use std::io::Read;
    use std::time::Duration;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(10)))
        .timeout_recv_response(Some(Duration::from_secs(30)))
        .timeout_per_read(Some(Duration::from_secs(30)))
        .timeout_global(Some(Duration::from_secs(300)))
        .http_status_as_error(false)
        .max_redirects(5)
        .user_agent(concat!("skilldex/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut response = agent.get(url).call().map_err(|error| {
        FetchError(format!(
            "could not fetch it ({error}) — check the URL and that the server is up"
        ))
    })?;
    let status = response.status().as_u16();
    if !(200..300).contains(&status) {
        return Err(FetchError(format!(
            "the server answered HTTP {status} — check the URL{}",
            if status == 404 {
                " (it was not found)"
            } else {
                ""
            }
        )));
    }
    let mut bytes = Vec::new();
    response
        .body_mut()
        .with_config()
        .limit(max.saturating_add(1))
        .reader()
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|error| FetchError(format!("reading the answer failed: {error}")))?;
    if bytes.len() as u64 > max {
        return Err(FetchError(format!(
            "the answer is larger than {} — it is not read",
            crate::text::bytes(max)
        )));
    }
    Ok(bytes)
}

#[cfg(not(feature = "remote"))]
fn get(_url: &str, _max: u64) -> Result<Vec<u8>, FetchError> {
    Err(FetchError(
        "this skilldex was built without the `remote` feature, so it reads no URLs — download the file and name its path, or rebuild with `--features remote`".into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_resolve_against_the_index_as_rfc_3986_says() {
        let index = Location::Url("https://example.com/.well-known/agent-skills/index.json".into());
        let url = |r: &str| match index.join(r).unwrap() {
            Location::Url(u) => u,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            url("pdf/SKILL.md"),
            "https://example.com/.well-known/agent-skills/pdf/SKILL.md"
        );
        assert_eq!(url("/x/a.tar.gz"), "https://example.com/x/a.tar.gz");
        assert_eq!(
            url("../../up.tar.gz?v=1#f"),
            "https://example.com/up.tar.gz?v=1"
        );
        assert_eq!(url("//cdn.example.com/a"), "https://cdn.example.com/a");
        assert_eq!(url("https://other.org/b"), "https://other.org/b");
        assert!(index.join("file:///etc/passwd").is_err());
        assert!(index.join("").is_err());

        let file = Location::File(PathBuf::from("/site/.well-known/agent-skills/index.json"));
        assert_eq!(
            file.join("a/SKILL.md").unwrap(),
            Location::File(PathBuf::from("/site/.well-known/agent-skills/a/SKILL.md"))
        );
        assert_eq!(
            file.join("/.well-known/agent-skills/b.tar.gz").unwrap(),
            Location::File(PathBuf::from("/site/.well-known/agent-skills/b.tar.gz"))
        );
        let loose = Location::File(PathBuf::from("/tmp/index.json"));
        assert!(loose.join("/a").is_err());
        assert!(loose.join("//host/a").is_err());
    }

    #[test]
    fn percent_escapes_are_decoded_for_files_and_may_not_hide_structure() {
        let file = Location::File(PathBuf::from("/site/.well-known/agent-skills/index.json"));
        assert_eq!(
            file.join("my%20skill/SKILL.md").unwrap(),
            Location::File(PathBuf::from(
                "/site/.well-known/agent-skills/my skill/SKILL.md"
            ))
        );
        assert_eq!(
            file.join("caf%C3%A9.tar.gz?x=%2F").unwrap(),
            Location::File(PathBuf::from("/site/.well-known/agent-skills/café.tar.gz"))
        );
        assert_eq!(
            file.join("file:///srv/my%20skills/a.tar.gz").unwrap(),
            Location::File(PathBuf::from("/srv/my skills/a.tar.gz"))
        );
        assert_eq!(
            file.join("file://localhost/srv/a%25b").unwrap(),
            Location::File(PathBuf::from("/srv/a%b"))
        );
        for hidden in [
            "%2e%2e/%2e%2e/etc/passwd",
            "a/%2E%2E/b",
            "a%2Fb",
            "a%2f..%2fb",
            "a%5Cb",
            "a%00b",
            "file:///srv/%2e%2e/etc",
            "file:///a%2Fb",
        ] {
            let error = file.join(hidden).unwrap_err().to_string();
            assert!(
                error.contains("behind percent escapes"),
                "{hidden}: {error}"
            );
        }
        assert!(file
            .join("a%zz")
            .unwrap_err()
            .to_string()
            .contains("two hex digits"));
        assert!(file
            .join("a%FF")
            .unwrap_err()
            .to_string()
            .contains("not UTF-8"));
        assert!(file
            .join("file://other.host/a")
            .unwrap_err()
            .to_string()
            .contains("this machine"));

        // An http index keeps escapes for the server, refuses the hidden
        // ones, and never reaches the disk.
        let url = Location::Url("https://example.com/.well-known/agent-skills/index.json".into());
        assert_eq!(
            url.join("my%20skill/SKILL.md").unwrap(),
            Location::Url(
                "https://example.com/.well-known/agent-skills/my%20skill/SKILL.md".into()
            )
        );
        assert!(url.join("%2e%2e/%2e%2e/x").is_err());
        assert!(url.join("https://example.com/a%2Fb").is_err());
        assert!(url.join("file:///etc/passwd").is_err());

        // What a user writes.
        assert_eq!(
            Location::parse("file:///tmp/my%20site/index.json").unwrap(),
            Location::File(PathBuf::from("/tmp/my site/index.json"))
        );
        assert_eq!(
            Location::parse("FILE:/tmp/a%20b").unwrap(),
            Location::File(PathBuf::from("/tmp/a b"))
        );
        assert_eq!(
            Location::parse("plain%20path").unwrap(),
            Location::File(PathBuf::from("plain%20path")),
            "a path is taken as written"
        );
        assert!(Location::parse("file:relative").is_err());
    }
}
