//! The tool catalogs' part of `skilldex lint`. Their findings are catalog
//! diagnostics like the skills' (printed, filtered by `--allow`, `--code`
//! and `--severity`, and counted the same way); this adds the summary's
//! tail (`N tool catalogs (T tools)`) and the JSON `tool_catalogs` object,
//! whose findings keep their tool and JSON Pointer.

use skilldex::catalog::Catalog;
use skilldex::entry::{Code, Diagnostic};

/// The tail of the summary's "loaded" part; empty when there are no
/// catalogs, so a skills-only lint reads as before.
pub(super) fn loaded_tail(catalog: &Catalog) -> String {
    let files = catalog.tool_catalog_files();
    if files.is_empty() {
        return String::new();
    }
    format!(
        ", {} ({})",
        super::commands::plural(files.len(), "tool catalog", "tool catalogs"),
        super::commands::plural(catalog.tool_count(), "tool", "tools"),
    )
}

/// `tool_catalogs` of `lint --json`: the files, and the findings about them
/// that the filters kept (`kept`), with tool and pointer.
pub(super) fn json(catalog: &Catalog, kept: &[&Diagnostic]) -> Option<serde_json::Value> {
    let files = catalog.tool_catalog_files();
    if files.is_empty() {
        return None;
    }
    let kept_here = |finding: &skilldex::toolcat::SnapshotDiagnostic| {
        let code = Code::parse(finding.code).unwrap_or(Code::tool(finding.code));
        kept.iter().any(|d| {
            d.code == code
                && d.path == finding.path
                && d.line == finding.line
                && d.column == finding.column
        })
    };
    let findings: Vec<_> = catalog
        .tool_findings()
        .iter()
        .filter(|f| kept_here(f))
        .collect();
    Some(serde_json::json!({
        "files": files,
        "diagnostics": findings,
        "summary": {
            "catalogs": files.len(),
            "servers": catalog.tool_servers().len(),
            "tools": catalog.tool_count(),
        }
    }))
}
