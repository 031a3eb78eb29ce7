//! Skill files that did not load, and why: what `read` names when asked for
//! one, what grep says it could not search.

use super::Catalog;
use crate::entry::Diagnostic;
use crate::scan;
use std::path::Path;

impl Catalog {
    /// Why a skill file did not load: the first error reported against
    /// `file` when no skill (enabled or disabled) came from it.
    pub fn load_error(&self, file: &Path) -> Option<&Diagnostic> {
        if self
            .skills
            .iter()
            .chain(self.disabled_skills())
            .any(|s| s.path == file)
        {
            return None;
        }
        self.diagnostics
            .iter()
            .find(|d| d.path == file && d.severity == crate::entry::Severity::Error)
    }

    /// Every skill file that did not load, with why (its first error), in
    /// path order: what grep cannot search and a listing cannot show.
    pub fn load_errors(&self) -> Vec<&Diagnostic> {
        let mut found: Vec<&Diagnostic> = self
            .diagnostics
            .iter()
            .filter(|d| {
                d.severity == crate::entry::Severity::Error
                    && d.path
                        .file_name()
                        .is_some_and(|n| scan::SKILL_FILE_NAMES.iter().any(|s| n == *s))
            })
            .collect();
        if found.is_empty() {
            return found;
        }
        found.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        found.dedup_by(|later, first| later.path == first.path);
        let loaded: std::collections::HashSet<&Path> = self
            .skills
            .iter()
            .chain(self.disabled_skills())
            .map(|s| s.path.as_path())
            .collect();
        found.retain(|d| !loaded.contains(d.path.as_path()));
        found
    }

    /// The skill files that did not load, with why, whose folder is named
    /// `folder_name`.
    pub fn load_errors_named(&self, folder_name: &str) -> Vec<&Diagnostic> {
        let mut files: Vec<&Path> = self
            .diagnostics
            .iter()
            .filter(|d| d.severity == crate::entry::Severity::Error)
            .map(|d| d.path.as_path())
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| scan::SKILL_FILE_NAMES.iter().any(|s| n == *s))
                    && p.parent()
                        .and_then(Path::file_name)
                        .is_some_and(|n| n == folder_name)
            })
            .collect();
        files.dedup();
        files
            .into_iter()
            .filter_map(|f| self.load_error(f))
            .collect()
    }
}
