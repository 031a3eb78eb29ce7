//! The server instructions: what a model must know to use the tools, and as
//! much of the directory as fits, within what hosts keep of them.
//!
//! Hosts cut instructions short: Claude Code keeps the first 2,048
//! characters, Codex shows the model only the first 247. So the text leads
//! with one paragraph of at most 247 characters that is enough on its own
//! (search, then read and follow), then the rest of the tools, then the
//! directory, rendered to fit in what is left of 2,048. The whole directory
//! is the resource `skilldex://directory`, and `search_skills` reaches
//! every skill, listed here or not.

use crate::catalog::Catalog;
use crate::query::{self, Budget, Format, Mode, PathStyle, Reach, RenderOptions};

/// Most characters of instructions a host keeps (Claude Code), counted as
/// JavaScript counts them (UTF-16 code units).
pub const MAX_CHARS: usize = 2_048;
/// The directory's budget in tokens when none is configured.
pub const DEFAULT_BUDGET_TOKENS: usize = 4_000;

/// What the model must know, standing alone (at most the 247 characters Codex shows).
const LEAD: &str = "This server has skills: tested instructions for specific tasks. Before a task, call `search_skills` with a few words of it; when a hit fits, call `read_skill` with its name and follow it before you start.";

/// The other tools, and where the rest of the directory is.
const MORE: &str = "`read_skill` with `path` opens a file the skill mentions; `grep_skills` finds text inside skills. If an answer says a skill is disabled by configuration and it is clearly what the task needs, `request_skill_enable` asks the user to enable it. The resource skilldex://directory lists every skill.";

/// Length as hosts written in JavaScript count it.
fn host_len(text: &str) -> usize {
    text.encode_utf16().count()
}

/// The instructions for `catalog`: the lead, the tools, and the directory
/// within `budget_tokens` (default 4,000) and within `MAX_CHARS` in all.
pub fn text(catalog: &Catalog, budget_tokens: Option<usize>) -> String {
    let head = format!("{LEAD}\n\n{MORE}\n\n");
    let room = MAX_CHARS.saturating_sub(host_len(&head));
    let render = |budget: Budget| {
        query::render_directory(
            catalog,
            &RenderOptions {
                format: Format::Markdown,
                paths: PathStyle::None,
                mode: Mode::Auto,
                budget: Some(budget),
                base: std::path::PathBuf::from("/"),
                reach: Reach::Mcp,
                counts_only: true,
                ..RenderOptions::default()
            },
        )
        .text
    };
    let tokens = budget_tokens.unwrap_or(DEFAULT_BUDGET_TOKENS);
    // A token holds at least one character, so when the token budget is
    // no smaller than the room left, the room is what binds: one render.
    let by_tokens = (tokens < room)
        .then(|| render(Budget::Tokens(tokens)))
        .filter(|directory| host_len(directory) <= room);
    let directory = by_tokens.unwrap_or_else(|| {
        // Budgets count characters (not UTF-16 units) and a plan may
        // overshoot a little: shrink by what is over until it fits, a few
        // times at most.
        let mut chars = room;
        let mut directory = render(Budget::Chars(chars));
        for _ in 0..4 {
            let over = host_len(&directory).saturating_sub(room);
            if over == 0 {
                break;
            }
            chars = chars.saturating_sub(over.max(16));
            directory = render(Budget::Chars(chars));
        }
        directory
    });
    let mut text = head;
    if host_len(&directory) <= room {
        text.push_str(&directory);
    }
    text.truncate(text.trim_end().len());
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lead_stands_alone_within_what_codex_shows() {
        // Characters of instructions Codex shows the model.
        const LEAD_CHARS: usize = 247;
        assert!(host_len(LEAD) <= LEAD_CHARS, "{}", host_len(LEAD));
        assert!(LEAD.contains("`search_skills`") && LEAD.contains("`read_skill`"));
        assert!(LEAD.ends_with('.'));
    }
}
