//! Read-only questions asked of a `Catalog`: the rendered directory, and
//! the detail of one skill. Nothing here prints; the CLI and the MCP server
//! decide how answers reach the user.

pub mod delta;
pub mod files;
pub mod grep;
pub mod read;
pub mod render;
pub mod show;

pub use delta::{render_delta, DirectoryDelta, DirectorySession, ShownState};
pub use grep::{
    grep, GrepError, GrepLine, GrepRequest, GrepResult, GrepSink, GrepSummary, LineBatch, LineKind,
};
pub use read::{
    read, LineRange, LineRangeError, ReadError, ReadRequest, ReadResult, SectionCandidate,
};
pub use render::{
    render_directory, Budget, Format, Host, HostListing, HostProfile, ListingCut, ListingEntry,
    ListingFate, Mode, PathStyle, Reach, RenderOptions, RenderedDirectory,
};
pub use show::{skill_detail, SkillDetail, SubFile};
