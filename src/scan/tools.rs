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
use crate::model::Severity;
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

/// Read and load the snapshot the walk met at `entry`.
pub(super) fn read_tool_catalog(
    root: usize,
    folder: PathBuf,
    depth: usize,
    hidden: bool,
    entry: &walk::Entry<'_>,
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
    let text = match read_text(entry) {
        Ok(text) => text,
        Err(message) => {
            found.diagnostics.push(unreadable(path, message));
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

fn read_text(entry: &walk::Entry<'_>) -> Result<String, String> {
    let mut file = entry
        .open()
        .map_err(|e| format!("could not read the file: {e} — check its permissions"))?;
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
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "the file is not UTF-8 (byte {}) — a snapshot is JSON text; run `skilldex tools sync` to write it again",
            e.utf8_error().valid_up_to()
        )
    })
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
