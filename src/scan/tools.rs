//! Tool catalogs met by the walk: every `mcp-tools.json` is read from its
//! open folder and loaded as a [`ToolNamespace`] right in the walker
//! thread (sanitising schemas is the expensive part, and it overlaps the
//! walk), with every finding as a catalog [`Diagnostic`].
//!
//! A snapshot that cannot be read or is not a tool list at all loads no
//! namespace, only its diagnostic: the rest of the catalog loads. (A live
//! catalog keeps the last good namespace of such a file, marked `stale`;
//! see `catalog::incremental`.)

use super::walk;
use crate::entry::Severity;
use crate::toolcat::{self, SnapshotDiagnostic, SnapshotError, ToolNamespace};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The largest snapshot read (a server with thousands of tools writes a
/// few megabytes); a larger file is reported and not loaded.
pub const MAX_SNAPSHOT_BYTES: u64 = 64 * 1024 * 1024;

/// An `mcp-tools.json` found and loaded.
#[derive(Debug, Clone)]
pub struct FoundToolCatalog {
    pub root: usize,
    /// The folder holding it, relative to the root (its README may
    /// describe the server).
    pub folder: PathBuf,
    /// The root joined with the path inside it.
    pub path: PathBuf,
    /// Folder depth below the root.
    pub depth: usize,
    /// Some folder between the root and the file is hidden.
    pub hidden: bool,
    /// The server's namespace, or `None` when the file does not load.
    pub namespace: Option<Arc<ToolNamespace>>,
    /// Every finding about the file.
    pub diagnostics: Vec<SnapshotDiagnostic>,
    /// A hash of the file's bytes (for the catalog's revision).
    pub content_hash: u64,
    /// `namespace` is the last good version, kept by a live catalog over
    /// an edit that broke the file (whose findings `diagnostics` holds).
    pub stale: bool,
}

impl super::precedence::Found for FoundToolCatalog {
    fn place(&self) -> (usize, bool, usize, &std::path::Path) {
        (self.root, self.hidden, self.depth, &self.path)
    }
}

/// Read and load the snapshot the walk met at `entry`.
pub(super) fn read_tool_catalog(
    root: usize,
    folder: PathBuf,
    depth: usize,
    hidden: bool,
    entry: &walk::Entry<'_>,
    linked: Option<crate::contain::Opened>,
) -> FoundToolCatalog {
    let path = entry.path;
    let mut found = FoundToolCatalog {
        root,
        folder,
        path: path.to_path_buf(),
        depth,
        hidden,
        namespace: None,
        diagnostics: Vec::new(),
        content_hash: 0,
        stale: false,
    };
    let opened = match linked {
        Some(opened) => Ok(opened.file),
        None => entry.open(),
    };
    let text = match read_text(opened) {
        Ok(text) => text,
        Err((message, line, column)) => {
            let mut diagnostic = unreadable(path, message);
            (diagnostic.line, diagnostic.column) = (line, column);
            found.diagnostics.push(diagnostic);
            return found;
        }
    };
    let mut hash = crate::hash::StableHasher::new();
    hash.write(text.as_bytes());
    found.content_hash = hash.finish();
    match toolcat::load_namespace_text(path, &text) {
        Ok((namespace, diagnostics)) => {
            found.diagnostics = diagnostics;
            found.namespace = Some(Arc::new(namespace));
        }
        Err(SnapshotError::Invalid(diagnostic)) => {
            found.diagnostics.push(*diagnostic);
        }
        Err(error) => found.diagnostics.push(unreadable(path, error.to_string())),
    }
    found
}

/// A snapshot path that is not a regular file (a pipe, socket or device):
/// reported, never opened.
pub(super) fn special_tool_catalog(
    root: usize,
    folder: PathBuf,
    depth: usize,
    hidden: bool,
    path: &Path,
) -> FoundToolCatalog {
    FoundToolCatalog {
        root,
        folder,
        path: path.to_path_buf(),
        depth,
        hidden,
        namespace: None,
        diagnostics: vec![unreadable(
            path,
            "this is not a regular file (a pipe, socket or device?) and was not read — replace it with the JSON snapshot (`skilldex tools sync` writes it)".to_string(),
        )],
        content_hash: 0,
        stale: false,
    }
}

/// The file's text, or why not with the line and column it concerns.
fn read_text(file: std::io::Result<std::fs::File>) -> Result<String, (String, u32, u32)> {
    let at_start = |message: String| (message, 1, 1);
    read_bytes(file).map_err(at_start).and_then(|bytes| {
        String::from_utf8(bytes).map_err(|e| {
            let bytes = e.as_bytes();
            let bad = e.utf8_error().valid_up_to();
            let line_start = bytes[..bad].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let line = bytes[..bad].iter().filter(|&&b| b == b'\n').count() + 1;
            let column = std::str::from_utf8(&bytes[line_start..bad]).map_or(1, |t| t.chars().count() + 1);
            (
                format!(
                    "the file is not UTF-8 (byte 0x{:02X} here) — a snapshot is JSON text; run `skilldex tools sync` to write it again",
                    bytes[bad]
                ),
                u32::try_from(line).unwrap_or(u32::MAX),
                u32::try_from(column).unwrap_or(u32::MAX),
            )
        })
    })
}

fn read_bytes(file: std::io::Result<std::fs::File>) -> Result<Vec<u8>, String> {
    let mut file =
        file.map_err(|e| format!("could not read the file: {e} — check its permissions"))?;
    let metadata = file
        .metadata()
        .map_err(|e| format!("could not read the file: {e} — check its permissions"))?;
    if !metadata.is_file() {
        return Err("this is not a regular file and was not read".to_string());
    }
    if metadata.len() > MAX_SNAPSHOT_BYTES {
        return Err(format!(
            "the snapshot is {} bytes; the limit is {} — split the server's tools, or leave this file out",
            crate::text::thousands(metadata.len() as usize),
            crate::text::thousands(MAX_SNAPSHOT_BYTES as usize)
        ));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.read_to_end(&mut bytes)
        .map_err(|e| format!("could not read the file: {e} — check its permissions"))?;
    Ok(bytes)
}

/// A snapshot that is a symlink to `target`, outside the root: reported,
/// never read.
pub(super) fn outside_tool_catalog(
    root: usize,
    folder: PathBuf,
    depth: usize,
    hidden: bool,
    path: &Path,
    target: &str,
) -> FoundToolCatalog {
    let mut diagnostic = unreadable(
        path,
        format!(
            "this mcp-tools.json is a symlink to {target}, outside the root, and was not loaded: a catalog is read from inside its roots alone — move the file into the root (or point the link at a file inside it)"
        ),
    );
    diagnostic.code = "snapshot-outside";
    FoundToolCatalog {
        root,
        folder,
        path: path.to_path_buf(),
        depth,
        hidden,
        namespace: None,
        diagnostics: vec![diagnostic],
        content_hash: 0,
        stale: false,
    }
}

fn unreadable(path: &Path, message: String) -> SnapshotDiagnostic {
    SnapshotDiagnostic {
        path: path.to_path_buf(),
        line: 1,
        column: 1,
        severity: Severity::Error,
        code: "snapshot-unreadable",
        tool: None,
        pointer: String::new(),
        message,
    }
}
