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

use super::Budget;

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
        };
        match self {
            Host::Claude => profile(
                "claude",
                200_000,
                100,
                ShareUnit::CharsPerToken(4),
                Some(1_536),
            ),
            Host::Codex => profile(
                "codex",
                272_000,
                200,
                ShareUnit::CharsPerToken(1),
                Some(1_024),
            ),
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
}
