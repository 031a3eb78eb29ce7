//! The MCP Skills extension (SEP-2640) over one catalog snapshot: `skill://`
//! URIs, manifests with `sha256:` digests of the exact bytes, the files
//! behind them, and directory listings.
//!
//! A skill's URI is `skill://<namespace folders>/<name>/SKILL.md`, each
//! segment percent-encoded; its files sit below `skill://…/<name>/`, mapped
//! back to the skill folder on disk through this index, never by joining
//! strings onto paths (reads go through `query::read::resolve_file`, which
//! refuses `..`, absolute paths and symlinks that leave the skill).
//!
//! The extension is stricter than the catalog: names must follow the Agent
//! Skills rules, the front matter must read the same to a strict YAML host,
//! and a skill holds at most 512 files and 16 MiB. A skill that breaks a
//! rule is left out of the extension with a diagnostic (it stays reachable
//! through the tools); it never breaks the listing of the others.
//!
//! The parts, by job: `uri` (spelling and checking `skill://` URIs),
//! `index` (which skills are served, paging), `manifest` (a skill's wire
//! entry), `files` (reading one file or folder of a skill).

mod files;
mod index;
mod manifest;
mod uri;

pub use files::{read_directory, read_file};
pub(crate) use index::decode_cursor;
pub use index::{cursor_after, SkillIndex};
pub use manifest::entry;
pub(crate) use manifest::entry_with;
pub use uri::{check_canonical, check_length, root_uri, skill_uri};

/// The extension's limits on one skill.
pub const MAX_FILES: usize = 512;
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;
/// Skills per `skills/list` page.
pub const PAGE_SIZE: usize = 100;

#[cfg(test)]
mod tests;
