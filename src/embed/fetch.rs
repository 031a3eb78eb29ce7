//! `skilldex model fetch`: download a sentence-transformers model's three
//! files from the Hugging Face hub into a folder.
//!
//! The URL of a file is `{endpoint}/{repo}/resolve/{revision}/{file}`
//! (the endpoint is `https://huggingface.co`, or `HF_ENDPOINT` as the hub's
//! own tools read it). Each file is streamed to a temporary file beside its
//! target and renamed over it only when complete, so an interrupted fetch
//! never leaves a partial `model.safetensors` that looks whole. The
//! transport is a trait: the command uses a blocking HTTPS client
//! ([`HttpTransport`], `semantic` feature); tests use a local server or a
//! fake.

use super::MODEL_FILES;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The model `model fetch` downloads by default.
pub const DEFAULT_REPO: &str = "sentence-transformers/all-MiniLM-L6-v2";
pub const DEFAULT_ENDPOINT: &str = "https://huggingface.co";

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("`{0}` is not a model repository name — write it as owner/name (letters, digits, `-`, `_`, `.`), e.g. {DEFAULT_REPO}")]
    BadRepo(String),
    #[error("`{0}` is not an endpoint URL — give one that starts with https:// (or http:// for a local mirror)")]
    BadEndpoint(String),
    #[error("{url}: the server answered {status}{hint}")]
    Status {
        url: String,
        status: u16,
        hint: &'static str,
    },
    #[error("{url}: {message} — check the network, or download the files by hand into the folder")]
    Network { url: String, message: String },
    #[error("{url}: the download ended after {got} of {expected} bytes — run the fetch again")]
    Short {
        url: String,
        got: u64,
        expected: u64,
    },
    #[error("{}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What a download sends the body to.
pub trait Transport {
    /// Write the body of `url` into `sink`; the number of bytes and the
    /// length the server announced, when it did.
    fn get(&self, url: &str, sink: &mut dyn Write) -> Result<(u64, Option<u64>), FetchError>;
}

/// Where one file of `repo` is.
pub fn file_url(
    endpoint: &str,
    repo: &str,
    revision: &str,
    file: &str,
) -> Result<String, FetchError> {
    let good = |part: &str| {
        !part.is_empty()
            && part != "."
            && part != ".."
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    match repo.split_once('/') {
        Some((owner, name)) if good(owner) && good(name) => {}
        _ => return Err(FetchError::BadRepo(repo.to_string())),
    }
    if !good(revision) {
        return Err(FetchError::BadRepo(format!("{repo}@{revision}")));
    }
    let endpoint = endpoint.trim_end_matches('/');
    if !(endpoint.starts_with("https://") || endpoint.starts_with("http://"))
        || endpoint.contains(char::is_whitespace)
    {
        return Err(FetchError::BadEndpoint(endpoint.to_string()));
    }
    Ok(format!("{endpoint}/{repo}/resolve/{revision}/{file}"))
}

/// What a fetch did to each file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    pub path: PathBuf,
    pub bytes: u64,
    /// False when the file was already there (and `force` was off).
    pub downloaded: bool,
}

/// Download the model files of `repo` into `dir` (created if needed).
/// Files already there are kept unless `force`.
pub fn fetch_model(
    transport: &dyn Transport,
    endpoint: &str,
    repo: &str,
    revision: &str,
    dir: &Path,
    force: bool,
) -> Result<Vec<Fetched>, FetchError> {
    // Every URL is checked before anything is written.
    let urls = MODEL_FILES
        .iter()
        .map(|file| file_url(endpoint, repo, revision, file))
        .collect::<Result<Vec<_>, _>>()?;
    std::fs::create_dir_all(dir).map_err(|source| FetchError::Write {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut done = Vec::new();
    for (file, url) in MODEL_FILES.iter().zip(urls) {
        let path = dir.join(file);
        if !force {
            if let Ok(meta) = std::fs::metadata(&path) {
                if meta.is_file() && meta.len() > 0 {
                    done.push(Fetched {
                        path,
                        bytes: meta.len(),
                        downloaded: false,
                    });
                    continue;
                }
            }
        }
        let bytes = download(transport, &url, &path)?;
        done.push(Fetched {
            path,
            bytes,
            downloaded: true,
        });
    }
    Ok(done)
}

/// One file: into `.NAME.part` beside it, then renamed over it.
fn download(transport: &dyn Transport, url: &str, path: &Path) -> Result<u64, FetchError> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let part = path.with_file_name(format!(".{name}.part"));
    let write_error = |source| FetchError::Write {
        path: part.clone(),
        source,
    };
    let result = (|| {
        let file = std::fs::File::create(&part).map_err(write_error)?;
        let mut sink = std::io::BufWriter::new(file);
        let (got, expected) = transport.get(url, &mut sink)?;
        let file = sink.into_inner().map_err(|e| write_error(e.into_error()))?;
        file.sync_all().map_err(write_error)?;
        if let Some(expected) = expected.filter(|&e| e != got) {
            return Err(FetchError::Short {
                url: url.to_string(),
                got,
                expected,
            });
        }
        std::fs::rename(&part, path).map_err(|source| FetchError::Write {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(got)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&part);
    }
    result
}

/// What to say about an HTTP status.
pub fn status_hint(status: u16) -> &'static str {
    match status {
        401 | 403 => " — the repository may be gated or private; download its files by hand",
        404 => " — no such repository, revision or file; check --repo",
        429 => " — too many requests; wait and run the fetch again",
        500..=599 => " — the hub has a problem; run the fetch again later",
        _ => "",
    }
}

/// Blocking HTTP(S) over `ureq` (rustls), redirects followed (the hub
/// redirects large files to its storage).
#[cfg(feature = "semantic")]
pub struct HttpTransport {
    agent: ureq::Agent,
}

#[cfg(feature = "semantic")]
impl Default for HttpTransport {
    fn default() -> Self {
        use std::time::Duration;
        let config = ureq::Agent::config_builder()
            .timeout_connect(Some(Duration::from_secs(30)))
            .timeout_recv_response(Some(Duration::from_secs(60)))
            .timeout_per_read(Some(Duration::from_secs(60)))
            .http_status_as_error(false)
            .user_agent(concat!("skilldex/", env!("CARGO_PKG_VERSION")))
            .build();
        HttpTransport {
            agent: config.into(),
        }
    }
}

#[cfg(feature = "semantic")]
impl Transport for HttpTransport {
    fn get(&self, url: &str, sink: &mut dyn Write) -> Result<(u64, Option<u64>), FetchError> {
        let network = |e: &dyn std::fmt::Display| FetchError::Network {
            url: url.to_string(),
            message: e.to_string(),
        };
        let mut response = self.agent.get(url).call().map_err(|e| network(&e))?;
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            return Err(FetchError::Status {
                url: url.to_string(),
                status,
                hint: status_hint(status),
            });
        }
        let expected = response
            .headers()
            .get("content-length")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok());
        let mut reader = response.body_mut().with_config().limit(u64::MAX).reader();
        let got = std::io::copy(&mut reader, sink).map_err(|e| network(&e))?;
        Ok((got, expected))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// Serves fixed bodies, or fails, and records what was asked.
    struct Fake {
        asked: RefCell<Vec<String>>,
        fail_on: Option<(&'static str, FetchError)>,
        short: bool,
    }

    impl Fake {
        fn new() -> Fake {
            Fake {
                asked: RefCell::new(Vec::new()),
                fail_on: None,
                short: false,
            }
        }
    }

    impl Transport for Fake {
        fn get(&self, url: &str, sink: &mut dyn Write) -> Result<(u64, Option<u64>), FetchError> {
            self.asked.borrow_mut().push(url.to_string());
            if let Some((file, error)) = &self.fail_on {
                if url.ends_with(file) {
                    // Part of a body, then the failure.
                    sink.write_all(b"partial").unwrap();
                    return Err(match error {
                        FetchError::Status { status, .. } => FetchError::Status {
                            url: url.to_string(),
                            status: *status,
                            hint: status_hint(*status),
                        },
                        _ => FetchError::Network {
                            url: url.to_string(),
                            message: "reset".into(),
                        },
                    });
                }
            }
            let body = format!("body of {url}");
            sink.write_all(body.as_bytes()).unwrap();
            let announced = body.len() as u64 + u64::from(self.short);
            Ok((body.len() as u64, Some(announced)))
        }
    }

    #[test]
    fn urls_follow_the_hub_layout_and_bad_names_are_refused() {
        assert_eq!(
            file_url("https://huggingface.co/", DEFAULT_REPO, "main", "config.json").unwrap(),
            "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main/config.json"
        );
        for repo in ["noslash", "a/b/c", "../x", "a/..", "a b/c", "/x", "a/"] {
            let error = file_url(DEFAULT_ENDPOINT, repo, "main", "config.json").unwrap_err();
            assert!(matches!(error, FetchError::BadRepo(_)), "{repo}: {error}");
        }
        assert!(matches!(
            file_url("ftp://x", DEFAULT_REPO, "main", "config.json"),
            Err(FetchError::BadEndpoint(_))
        ));
    }

    #[test]
    fn a_fetch_writes_the_three_files_and_keeps_them_on_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("model");
        let fake = Fake::new();
        let done = fetch_model(&fake, "http://mirror", "o/n", "main", &target, false).unwrap();
        assert_eq!(done.len(), 3);
        assert!(done.iter().all(|f| f.downloaded));
        assert_eq!(
            std::fs::read_to_string(target.join("tokenizer.json")).unwrap(),
            "body of http://mirror/o/n/resolve/main/tokenizer.json"
        );
        let again = fetch_model(&fake, "http://mirror", "o/n", "main", &target, false).unwrap();
        assert!(again.iter().all(|f| !f.downloaded));
        assert_eq!(fake.asked.borrow().len(), 3);
        fetch_model(&fake, "http://mirror", "o/n", "main", &target, true).unwrap();
        assert_eq!(fake.asked.borrow().len(), 6);
    }

    #[test]
    fn a_failed_or_short_download_leaves_no_file_that_looks_whole() {
        let dir = tempfile::tempdir().unwrap();
        let mut fake = Fake::new();
        fake.fail_on = Some((
            "model.safetensors",
            FetchError::Status {
                url: String::new(),
                status: 404,
                hint: "",
            },
        ));
        let error = fetch_model(&fake, "http://m", "o/n", "main", dir.path(), false).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("answered 404"), "{message}");
        assert!(message.contains("check --repo"), "{message}");
        assert!(!dir.path().join("model.safetensors").exists());
        assert!(!dir.path().join(".model.safetensors.part").exists());

        let short = tempfile::tempdir().unwrap();
        let mut fake = Fake::new();
        fake.short = true;
        let error = fetch_model(&fake, "http://m", "o/n", "main", short.path(), false).unwrap_err();
        assert!(matches!(error, FetchError::Short { .. }), "{error}");
        assert_eq!(std::fs::read_dir(short.path()).unwrap().count(), 0);
    }
}
