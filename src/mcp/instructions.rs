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
//!
//! `serve --host NAME` fits them to that host instead ([`Fit`]): its
//! limit on instructions (`HostProfile::instructions_chars`) and its
//! skill-listing budget for the directory.

use crate::catalog::Catalog;
use crate::query::{self, Budget, Format, Host, Mode, PathStyle, Reach, RenderOptions};

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

/// What the instructions are fitted to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fit {
    /// The directory's budget in tokens (`--budget-tokens`); without it,
    /// the host's listing budget, else [`DEFAULT_BUDGET_TOKENS`].
    pub budget_tokens: Option<usize>,
    /// The host the instructions are for (`serve --host`): its limit on
    /// instructions and its listing budget. Without one, the text stays
    /// within [`MAX_CHARS`], what the strictest host keeps whole.
    pub host: Option<Host>,
    /// The model's context window, for the host's listing budget.
    pub context_tokens: Option<usize>,
}

/// The instructions and what they hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fitted {
    pub text: String,
    /// The most characters the host keeps (`None`: no limit).
    pub max_chars: Option<usize>,
    /// The directory's budget.
    pub budget: Budget,
    /// Skills the directory in the text names one by one.
    pub named: usize,
    /// Skills of the catalog.
    pub skills: usize,
}

/// The instructions for `catalog` as `fit` asks: within what the host
/// keeps of them (Claude Code 2,048 characters; Codex shows 247, so the
/// lead alone; hosts that publish no limit, the host's listing budget),
/// saying what is left out and that `search_skills` finds it.
pub fn fitted(catalog: &Catalog, fit: &Fit) -> Fitted {
    let profile = fit.host.map(Host::profile);
    let max_chars = match profile {
        Some(profile) => profile.instructions_chars,
        None => Some(MAX_CHARS),
    };
    let budget = match (fit.budget_tokens, profile) {
        (Some(tokens), _) => Budget::Tokens(tokens),
        (None, Some(profile)) => profile.budget(fit.context_tokens),
        (None, None) => Budget::Tokens(DEFAULT_BUDGET_TOKENS),
    };
    let skills = catalog.skills().len();
    let head = format!("{LEAD}\n\n{MORE}\n\n");
    if max_chars.is_some_and(|max| host_len(&head) > max) {
        // Only the lead is seen: it says on its own to search.
        return Fitted {
            text: format!("{LEAD}\n"),
            max_chars,
            budget,
            named: 0,
            skills,
        };
    }
    let room = max_chars.map(|max| max.saturating_sub(host_len(&head)));
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
    };
    let directory = match room {
        None => Some(render(budget)),
        Some(room) => fit_in(room, budget, &render),
    };
    let mut text = head;
    let named = match directory {
        Some(directory) => {
            text.push_str(&directory.text);
            directory.listed_count
        }
        None => {
            // Not even the shortest directory fits: say so, if that fits.
            let note = format!(
                "The {} not listed here: `search_skills` finds {}.",
                crate::text::plural(skills, "skill is", "skills are"),
                if skills == 1 { "it" } else { "each of them" }
            );
            if fit.host.is_some() && skills > 0 && room.is_none_or(|room| host_len(&note) <= room) {
                text.push_str(&note);
            }
            0
        }
    };
    text.truncate(text.trim_end().len());
    text.push('\n');
    Fitted {
        text,
        max_chars,
        budget,
        named,
        skills,
    }
}

/// The richest directory within `budget` that is at most `room` long as
/// hosts count it, if any is.
fn fit_in(
    room: usize,
    budget: Budget,
    render: &dyn Fn(Budget) -> query::RenderedDirectory,
) -> Option<query::RenderedDirectory> {
    // A token holds at least one character, so when the token budget is
    // no smaller than the room left, the room is what binds: one render.
    let first = match budget {
        Budget::Tokens(tokens) if tokens < room => Some(render(budget)),
        Budget::Chars(chars) if chars < room => Some(render(budget)),
        _ => None,
    };
    if let Some(directory) = first.filter(|d| host_len(&d.text) <= room) {
        return Some(directory);
    }
    // Budgets count characters (not UTF-16 units) and a plan may
    // overshoot a little: shrink by what is over until it fits, a few
    // times at most.
    let mut chars = room;
    let mut directory = render(Budget::Chars(chars));
    for _ in 0..4 {
        let over = host_len(&directory.text).saturating_sub(room);
        if over == 0 {
            break;
        }
        chars = chars.saturating_sub(over.max(16));
        directory = render(Budget::Chars(chars));
    }
    (host_len(&directory.text) <= room).then_some(directory)
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
