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

pub mod agent_tools;
pub mod catalog;
pub mod config;
pub mod contain;
pub mod declared;
pub mod embed;
mod hash;
pub mod link;
pub mod live;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod model;
pub mod parse;
pub mod paths;
pub mod plugin;
pub mod query;
pub mod rules;
pub mod scan;
pub mod schema;
pub mod search;
pub mod text;
pub mod tokens;
pub mod tool_settings;
pub mod toolcat;

pub use catalog::{Catalog, CatalogBuilder, CatalogError};
pub use model::{Code, Diagnostic, Namespace, Position, Profile, Severity, Skill};
