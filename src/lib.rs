//! skilldex: a filesystem skills catalog engine.
//!
//! It turns folders of Agent Skills (`SKILL.md` files with YAML front matter)
//! into a catalog an agent can discover and read on demand:
//!
//! ```text
//!  roots ──scan──▶ files ──parse──▶ skills ──CatalogBuilder──▶ Catalog (immutable, one revision)
//!                                                                 │
//!                         render / show (query, read-only) ◀──────┘
//!                                   │
//!                           CLI (cli/)  ·  MCP server
//! ```
//!
//! The library never prints and never exits: problems with individual files
//! are [`Diagnostic`]s inside the [`Catalog`]; only a missing root is an
//! error. Output is deterministic: the same files give the same bytes.
//!
//! ```no_run
//! use skilldex::{CatalogBuilder, query};
//! let catalog = CatalogBuilder::new(["skills"]).build()?;
//! let directory = query::render_directory(&catalog, &query::RenderOptions::default());
//! assert!(directory.text.contains("## Skills"));
//! # Ok::<(), skilldex::CatalogError>(())
//! ```

// Without the command line and its server, the code only they call
// (configuration edits, `link`, the tool catalogs' JSON views) goes unused.
#![cfg_attr(
    not(all(feature = "cli", feature = "mcp")),
    allow(dead_code, unused_imports)
)]

#[cfg(feature = "cli")]
pub(crate) mod agent_tools;
// The command line's code says `skilldex::` like any user of the library.
extern crate self as skilldex;

pub mod catalog;
#[cfg(feature = "cli")]
mod cli;
#[cfg(feature = "cli")]
pub(crate) mod config;
pub(crate) mod contain;
pub(crate) mod declared;
pub mod embed;
pub mod entry;
mod hash;
#[cfg(feature = "cli")]
pub(crate) mod install;
#[cfg(feature = "cli")]
pub(crate) mod link;
pub mod live;
#[cfg(all(feature = "cli", feature = "mcp"))]
pub(crate) mod mcp;
pub mod parse;
pub(crate) mod paths;
pub(crate) mod plugin;
#[cfg(feature = "cli")]
pub(crate) mod publish;
pub mod query;
pub(crate) mod rules;
pub(crate) mod scan;
pub mod schema;
pub mod search;
pub(crate) mod text;
pub mod tokens;
#[cfg(feature = "cli")]
pub(crate) mod tool_settings;
pub(crate) mod toolcat;

pub use catalog::{Catalog, CatalogBuilder, CatalogError};
pub use entry::{Code, Diagnostic, Namespace, Position, Profile, Severity, Skill};

/// The `skilldex` command line (feature `cli`): parses the process's
/// arguments, runs the command and returns its exit code. Only the binary
/// calls it; it is here so that the modules it uses can stay private.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub fn run_cli() -> std::process::ExitCode {
    cli::run()
}
