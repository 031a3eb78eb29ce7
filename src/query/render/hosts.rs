//! Host-shaped directories: the skill-listing budget and per-entry limit
//! each agent host applies to the skills it shows its model, as data, so
//! `render --host NAME` fits a directory where that host would put it.
//!
//! A host's budget is a share of the model's context window. Claude Code
//! gives its skills listing 1 % of the context, in characters at about four
//! per token, and cuts an entry at 1,536 characters; Codex gives 2 % of
//! the context counted as characters (5,440 for a 272,000-token context)
//! and cuts a description at 1,024 characters. Gemini CLI, GitHub Copilot
//! and opencode list every skill without a published budget: for them
//! the directory gets 1 % of the context in tokens, the low end of the
//! share MCP's client guidance suggests for progressive discovery. Every
//! directory caps a description at [`super::MAX_DESCRIPTION_BYTES`]
//! (1,024 bytes, so at most 1,024 characters), within every host's entry
//! limit.
//!
//! A host that reads skills from a folder of its own (`skilldex link`)
//! lists them with that same budget, in its own form: [`HostProfile::listing`]
//! models that listing — one `- name: description` line per skill, in name
//! order, each description cut at the host's entry limit; over the budget,
//! every description shortened to one common length (Claude Code's
//! "truncate"), down to a gist of [`super::MIN_DESCRIPTION_CHARS`]; then
//! names alone ("names-only"); then the last names in order left out. It is
//! a model of what the hosts are documented to do, not their code, so it
//! says which skills are at risk and why rather than the host's exact bytes.

use super::{shorten, Budget, MIN_DESCRIPTION_CHARS};
use serde::Serialize;

/// An agent host whose skill listing a directory can be shaped for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Host {
    Claude,
    Codex,
    Gemini,
    Copilot,
    Opencode,
}

/// How a host budgets its skill listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostProfile {
    /// The host's name as `--host` takes it.
    pub name: &'static str,
    /// The context window assumed when none is given, in tokens.
    pub context_tokens: usize,
    /// The listing's share of the context, in hundredths of a percent.
    pub share_basis_points: usize,
    /// What the share is counted in.
    pub unit: ShareUnit,
    /// The longest entry the host shows whole, in characters; `None`
    /// when it publishes no limit.
    pub entry_chars: Option<usize>,
    /// The most characters of an MCP server's instructions the host
    /// keeps for its model (Claude Code 2,048; Codex shows the first
    /// 247); `None` when it publishes no limit.
    pub instructions_chars: Option<usize>,
}

/// How a host turns its share of the context into a budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShareUnit {
    /// Characters, at this many per context token.
    CharsPerToken(usize),
    /// Tokens.
    Tokens,
}

impl Host {
    /// Every host, in `--host`'s order.
    pub const ALL: [Host; 5] = [
        Host::Claude,
        Host::Codex,
        Host::Gemini,
        Host::Copilot,
        Host::Opencode,
    ];

    /// The host named `name` (`claude`, `codex`, `gemini`, `copilot`,
    /// `opencode`).
    pub fn named(name: &str) -> Option<Host> {
        Host::ALL.into_iter().find(|h| h.profile().name == name)
    }

    pub fn profile(self) -> HostProfile {
        let profile = |name, context_tokens, share_basis_points, unit, entry_chars| HostProfile {
            name,
            context_tokens,
            share_basis_points,
            unit,
            entry_chars,
            instructions_chars: None,
        };
        match self {
            Host::Claude => HostProfile {
                instructions_chars: Some(2_048),
                ..profile(
                    "claude",
                    200_000,
                    100,
                    ShareUnit::CharsPerToken(4),
                    Some(1_536),
                )
            },
            Host::Codex => HostProfile {
                instructions_chars: Some(247),
                ..profile(
                    "codex",
                    272_000,
                    200,
                    ShareUnit::CharsPerToken(1),
                    Some(1_024),
                )
            },
            Host::Gemini => profile("gemini", 1_048_576, 100, ShareUnit::Tokens, None),
            Host::Copilot => profile("copilot", 128_000, 100, ShareUnit::Tokens, None),
            Host::Opencode => profile("opencode", 200_000, 100, ShareUnit::Tokens, None),
        }
    }
}

impl HostProfile {
    /// The listing budget for a context of `context_tokens` (the
    /// profile's own when `None`).
    pub fn budget(&self, context_tokens: Option<usize>) -> Budget {
        let share = context_budget(
            context_tokens.unwrap_or(self.context_tokens),
            self.share_basis_points,
        );
        match self.unit {
            ShareUnit::CharsPerToken(n) => Budget::Chars(share.saturating_mul(n)),
            ShareUnit::Tokens => Budget::Tokens(share),
        }
    }

    /// The budget and how it was reached, for a report: "a budget of
    /// 5,440 characters (2% of a 272,000-token context, counted in
    /// characters); codex shows an entry of up to 1,024 characters, and
    /// every description here is at most 1,024".
    pub fn explain(&self, context_tokens: Option<usize>) -> String {
        let context = context_tokens.unwrap_or(self.context_tokens);
        let share = self.share_basis_points as f64 / 100.0;
        let unit = match self.unit {
            ShareUnit::CharsPerToken(1) => ", counted in characters".to_string(),
            ShareUnit::CharsPerToken(n) => format!(", at {n} characters a token"),
            ShareUnit::Tokens => String::new(),
        };
        let budget = self.budget(context_tokens);
        let entry = match self.entry_chars {
            Some(n) => format!(
                "; {} shows an entry of up to {} characters, and every description here is at most {}",
                self.name,
                crate::text::thousands(n),
                crate::text::thousands(super::MAX_DESCRIPTION_BYTES)
            ),
            None => format!(
                "; {} publishes no listing budget, so this is skilldex's own share",
                self.name
            ),
        };
        format!(
            "a budget of {} {} ({share}% of a {}-token context{unit}){entry}",
            crate::text::thousands(budget.limit()),
            budget.unit(),
            crate::text::thousands(context)
        )
    }
}

/// One skill of a host's folder, as its listing would show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListingEntry<'a> {
    pub name: &'a str,
    pub description: &'a str,
}

/// A host's own listing of the skills of its folder, as
/// [`HostProfile::listing`] models it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HostListing {
    /// The host, as `--host` names it.
    pub host: &'static str,
    pub budget: Budget,
    /// What the listing costs as fitted, in the budget's unit.
    pub used: usize,
    /// Every skill of the folder.
    pub skills: usize,
    /// The skills listed with their whole description.
    pub whole: usize,
    /// The skills listed shorter or not at all, in the listing's order.
    pub cut: Vec<ListingCut>,
}

/// A skill the listing shows shorter than written, or not at all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListingCut {
    pub name: String,
    pub fate: ListingFate,
    /// Characters of the description as written.
    pub chars: usize,
    /// Characters of it the listing shows.
    pub shown_chars: usize,
    /// Why, in a sentence.
    pub reason: String,
}

/// What the listing does with a skill it cannot show whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ListingFate {
    /// The description is cut short (at the entry limit, or to fit).
    Shortened,
    /// Only the name is listed.
    NameOnly,
    /// Not listed: even the names of every skill do not fit.
    LeftOut,
}

impl HostListing {
    /// The skills whose fate is `fate`.
    pub fn count(&self, fate: ListingFate) -> usize {
        self.cut.iter().filter(|c| c.fate == fate).count()
    }
}

impl HostProfile {
    /// How this host would list `entries` (the skills of its folder) in
    /// its budget for a context of `context_tokens` (see the module docs).
    pub fn listing(
        &self,
        entries: &[ListingEntry<'_>],
        context_tokens: Option<usize>,
    ) -> HostListing {
        let budget = self.budget(context_tokens);
        let mut entries: Vec<ListingEntry<'_>> = entries.to_vec();
        entries.sort_by(|a, b| a.name.cmp(b.name).then(a.description.cmp(b.description)));
        let entry_cap = self.entry_chars.unwrap_or(usize::MAX);
        // The text of the first `named` entries, descriptions cut at `cap`
        // (`None`: names only).
        let text = |cap: Option<usize>, named: usize| {
            let mut text = String::new();
            for entry in &entries[..named] {
                text.push_str("- ");
                text.push_str(entry.name);
                if let Some(cap) = cap {
                    text.push_str(": ");
                    text.push_str(&shorten(entry.description, cap.min(entry_cap)).0);
                }
                text.push('\n');
            }
            text
        };
        let all = entries.len();
        let fits =
            |cap: Option<usize>, named: usize| budget.cost(&text(cap, named)) <= budget.limit();
        let longest = entries
            .iter()
            .map(|e| e.description.chars().count())
            .max()
            .unwrap_or(0)
            .min(entry_cap);
        // (description cap, entries named): the richest form that fits.
        let (cap, named) = if fits(Some(longest), all) {
            (Some(longest), all)
        } else if longest > MIN_DESCRIPTION_CHARS && fits(Some(MIN_DESCRIPTION_CHARS), all) {
            // The largest common length that fits: more text never costs less.
            let (mut low, mut high) = (MIN_DESCRIPTION_CHARS, longest);
            while low + 1 < high {
                let middle = low + (high - low) / 2;
                if fits(Some(middle), all) {
                    low = middle;
                } else {
                    high = middle;
                }
            }
            (Some(low), all)
        } else if fits(None, all) {
            (None, all)
        } else {
            let (mut low, mut high) = (0, all);
            while low + 1 < high {
                let middle = low + (high - low) / 2;
                if fits(None, middle) {
                    low = middle;
                } else {
                    high = middle;
                }
            }
            (None, low)
        };
        let limit = format!(
            "{} {}",
            crate::text::thousands(budget.limit()),
            budget.unit()
        );
        let mut cut = Vec::new();
        for (position, entry) in entries.iter().enumerate() {
            let chars = entry.description.chars().count();
            let (fate, shown_chars, reason) = if position >= named {
                (
                    ListingFate::LeftOut,
                    0,
                    format!(
                        "the names of all {all} skills do not fit in {limit}; {} lists the first {named} by name",
                        self.name
                    ),
                )
            } else if let Some(cap) = cap {
                let shown = chars.min(cap).min(entry_cap);
                if shown == chars {
                    continue;
                }
                let reason = if chars > entry_cap && cap >= entry_cap {
                    format!(
                        "its description is {} characters; {} shows at most {} of an entry",
                        crate::text::thousands(chars),
                        self.name,
                        crate::text::thousands(entry_cap)
                    )
                } else {
                    format!(
                        "the whole listing is over {limit}, so every description is cut to {} characters",
                        crate::text::thousands(cap)
                    )
                };
                (ListingFate::Shortened, shown, reason)
            } else {
                (
                    ListingFate::NameOnly,
                    0,
                    format!(
                        "even with descriptions of {MIN_DESCRIPTION_CHARS} characters the listing is over {limit}, so {} lists names only",
                        self.name
                    ),
                )
            };
            cut.push(ListingCut {
                name: entry.name.to_string(),
                fate,
                chars,
                shown_chars,
                reason,
            });
        }
        HostListing {
            host: self.name,
            budget,
            used: budget.cost(&text(cap, named)),
            skills: all,
            whole: all - cut.len(),
            cut,
        }
    }
}

/// `basis_points` hundredths of a percent of `context_tokens`.
pub fn context_budget(context_tokens: usize, basis_points: usize) -> usize {
    context_tokens.saturating_mul(basis_points) / 10_000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_host_budget_is_its_share_of_the_context() {
        assert_eq!(Host::Claude.profile().budget(None), Budget::Chars(8_000));
        assert_eq!(Host::Codex.profile().budget(None), Budget::Chars(5_440));
        assert_eq!(
            Host::Claude.profile().budget(Some(1_000_000)),
            Budget::Chars(40_000)
        );
        assert_eq!(Host::Copilot.profile().budget(None), Budget::Tokens(1_280));
        assert_eq!(Host::named("opencode"), Some(Host::Opencode));
        assert_eq!(Host::named("cursor"), None);
        for host in Host::ALL {
            let profile = host.profile();
            assert_eq!(Host::named(profile.name), Some(host));
            // Every directory's description cap is within the host's.
            assert!(profile
                .entry_chars
                .is_none_or(|n| n >= super::super::MAX_DESCRIPTION_BYTES));
        }
        assert_eq!(
            Host::Codex.profile().explain(None),
            "a budget of 5,440 characters (2% of a 272,000-token context, counted in characters); codex shows an entry of up to 1,024 characters, and every description here is at most 1,024"
        );
    }

    #[test]
    fn a_host_listing_shortens_then_names_then_leaves_out() {
        let long = "word ".repeat(400);
        let short = "Fill in a form.";
        let claude = Host::Claude.profile();
        let entries = [
            ListingEntry {
                name: "b",
                description: &long,
            },
            ListingEntry {
                name: "a",
                description: short,
            },
        ];
        // Within the budget, the long description is cut at the entry limit.
        let listing = claude.listing(&entries, None);
        assert_eq!((listing.skills, listing.whole), (2, 1));
        assert_eq!(listing.cut[0].name, "b");
        assert_eq!(listing.cut[0].fate, ListingFate::Shortened);
        assert_eq!(listing.cut[0].shown_chars, 1_536);
        assert!(
            listing.cut[0].reason.contains("at most 1,536"),
            "{}",
            listing.cut[0].reason
        );
        assert!(listing.used <= listing.budget.limit());
        // 500 skills of 60-character descriptions in 8,000 characters:
        // cut to one length, at least the gist.
        let names: Vec<String> = (0..500).map(|i| format!("skill-{i:03}")).collect();
        let description = "Turn a spreadsheet into charts for a weekly report, quickly.";
        let many: Vec<ListingEntry<'_>> = names
            .iter()
            .map(|name| ListingEntry { name, description })
            .collect();
        let listing = claude.listing(&many, Some(200_000));
        assert!(listing.used <= 8_000, "{}", listing.used);
        assert_eq!(listing.count(ListingFate::NameOnly), 500);
        let listing = claude.listing(&many, Some(900_000));
        assert_eq!(listing.count(ListingFate::Shortened), 500, "{listing:?}");
        assert!(listing.cut[0]
            .reason
            .contains("every description is cut to"));
        // Names that do not fit: the last in name order are left out.
        let listing = claude.listing(&many, Some(50_000));
        let left_out = listing.count(ListingFate::LeftOut);
        assert!(left_out > 0 && left_out < 500, "{left_out}");
        assert_eq!(listing.cut.last().unwrap().name, "skill-499");
        assert!(listing.used <= 2_000);
    }
}
