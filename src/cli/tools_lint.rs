//! The tool catalogs' part of `skilldex lint`: every `mcp-tools.json`
//! under the roots, loaded as a namespace, and every diagnostic of the
//! file and of the sanitiser (file, line, column, tool, JSON Pointer).
//! Skills are linted as before; this only adds lines after theirs.

use super::style::Style;
use skilldex::model::Severity;
use skilldex::toolcat::{self, SnapshotDiagnostic, SnapshotError};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What the tool catalogs under the roots hold.
pub(super) struct ToolLint {
    /// Each snapshot found, with its tool count (`None` when unreadable).
    pub catalogs: Vec<(PathBuf, Option<usize>)>,
    pub diagnostics: Vec<SnapshotDiagnostic>,
}

/// Default depth of the search for snapshots, as the skills scan's.
const DEFAULT_DEPTH: usize = 16;

pub(super) fn lint_tool_catalogs(roots: &[PathBuf], max_depth: Option<usize>) -> ToolLint {
    let mut catalogs = Vec::new();
    let mut diagnostics = Vec::new();
    let existing: Vec<&Path> = roots
        .iter()
        .map(PathBuf::as_path)
        .filter(|r| r.is_dir())
        .collect();
    for path in toolcat::find_snapshots(&existing, max_depth.unwrap_or(DEFAULT_DEPTH)) {
        match toolcat::load_namespace(&path) {
            Ok((namespace, found)) => {
                catalogs.push((path, Some(namespace.tools.len())));
                diagnostics.extend(found);
            }
            Err(SnapshotError::Invalid(diagnostic)) => {
                catalogs.push((path, None));
                diagnostics.push(*diagnostic);
            }
            Err(error) => {
                diagnostics.push(SnapshotDiagnostic {
                    path: path.clone(),
                    line: 1,
                    column: 1,
                    severity: Severity::Error,
                    code: "snapshot-unreadable",
                    tool: None,
                    pointer: String::new(),
                    message: error.to_string(),
                });
                catalogs.push((path, None));
            }
        }
    }
    ToolLint {
        catalogs,
        diagnostics,
    }
}

impl ToolLint {
    pub fn errors(&self) -> usize {
        self.count(Severity::Error)
    }

    fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }

    fn tools(&self) -> usize {
        self.catalogs.iter().filter_map(|(_, n)| *n).sum()
    }

    pub fn write_text(&self, out: &mut impl Write, style: &Style) -> std::io::Result<()> {
        for d in &self.diagnostics {
            let tool = d
                .tool
                .as_deref()
                .map(|t| format!("{}: ", skilldex::model::printable(t)))
                .unwrap_or_default();
            let message = format!("{tool}{}", d.message);
            let line = super::commands::finding_line(
                &d.path, d.line, d.column, d.severity, d.code, &message, style,
            );
            writeln!(out, "{line}")?;
        }
        Ok(())
    }

    /// The tail of the summary line; empty when there are no catalogs, so
    /// a skills-only lint reads as before.
    pub fn summary(&self) -> String {
        if self.catalogs.is_empty() {
            return String::new();
        }
        format!(
            "; {} ({}): {}, {}, {}",
            super::commands::plural(self.catalogs.len(), "tool catalog", "tool catalogs"),
            super::commands::plural(self.tools(), "tool", "tools"),
            super::commands::plural(self.errors(), "error", "errors"),
            super::commands::plural(self.count(Severity::Warning), "warning", "warnings"),
            super::commands::plural(self.count(Severity::Info), "note", "notes"),
        )
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "files": self
                .catalogs
                .iter()
                .map(|(path, tools)| serde_json::json!({"path": path, "tools": tools}))
                .collect::<Vec<_>>(),
            "diagnostics": self.diagnostics,
            "summary": {
                "catalogs": self.catalogs.len(),
                "tools": self.tools(),
                "errors": self.errors(),
                "warnings": self.count(Severity::Warning),
                "infos": self.count(Severity::Info),
            }
        })
    }
}
