//! Fitting the directory to a budget: the ladder of plans from the full
//! directory down to a closing line alone, and the search for the richest
//! plan that fits.
//!
//! The ladder, richest first (the module docs of `render` say why):
//! paths as given → the common folder stated once → no paths; descriptions
//! capped at a common length, from the longest down to the gist; the gist
//! kept by fewer and fewer skills (the rest named alone); then fewer and
//! fewer skills named. Each rung names at least as many skills as every
//! rung below it and costs about one line more than the next one down, so
//! taking the richest rung that fits spends the budget (≥ 90 % of it on
//! catalogs with lines much shorter than the budget) and more budget never
//! names fewer skills.
//!
//! The named part has one more knob, the namespace headings. A heading
//! costs as much as a few names, so the ladder adds headings only once the
//! named skills are dense enough that at least one skill is named per
//! [`TOKENS_PER_NAMED_SKILL`] of text; below that, names are listed without
//! headings. Between the two, headings come back one at a time, largest
//! namespace first, with the number named held still.

use super::{Budget, PathForm, PathStyle, Plan, Renderer, MIN_DESCRIPTION_CHARS};

/// The density the ladder keeps when namespace headings come back: one
/// named skill per this many tokens (or characters, for a character budget
/// times four). Below the promise of one per 16 tokens, to leave room for
/// lines that cost more than the estimate.
pub const TOKENS_PER_NAMED_SKILL: usize = 15;

/// A plan, its text and its exact cost.
pub(super) struct Fitted {
    pub plan: Plan,
    pub text: String,
    pub cost: usize,
    pub fits: bool,
}

impl Renderer<'_> {
    /// The richest plan that fits `budget`; when none does, the shortest
    /// one, with `fits: false`.
    pub(super) fn fit(&self, budget: Budget, namespaces_only: bool) -> Fitted {
        let full = self.full_plan();
        if namespaces_only {
            let none = Plan {
                named: 0,
                described: 0,
                cap: Some(MIN_DESCRIPTION_CHARS),
                ..full
            };
            if let Some(found) = self.accept(Plan { cap: None, ..none }, budget) {
                return found;
            }
            return self
                .highest(
                    0,
                    self.groups.len(),
                    |headed| Plan { headed, ..none },
                    budget,
                )
                .unwrap_or_else(|| self.shortest(Plan { headed: 0, ..none }, budget));
        }
        let n = self.entries.len();
        // Every named line costs at least its dash and its name: a quick
        // refusal of the rungs that name every skill of a large catalog.
        if self.least_cost(n) <= budget.limit() {
            let mut forms = vec![PathForm::Given];
            if self.options.paths != PathStyle::None {
                if self.common_folder.is_some() {
                    forms.push(PathForm::Rooted);
                }
                forms.push(PathForm::Dropped);
            }
            for &paths in &forms {
                if let Some(found) = self.accept(Plan { paths, ..full }, budget) {
                    return found;
                }
            }
            let paths = *forms.last().unwrap_or(&PathForm::Given);
            let gist = Plan {
                paths,
                cap: Some(MIN_DESCRIPTION_CHARS),
                ..full
            };
            if let Some(found) = self.accept(gist, budget) {
                let longest = self.entries.iter().map(|e| e.chars).max().unwrap_or(0);
                return self
                    .highest(
                        MIN_DESCRIPTION_CHARS + 1,
                        longest,
                        |cap| Plan {
                            cap: Some(cap),
                            ..gist
                        },
                        budget,
                    )
                    .unwrap_or(found);
            }
            let names = Plan {
                described: 0,
                ..gist
            };
            if let Some(found) = self.accept(names, budget) {
                return self
                    .highest(
                        1,
                        n.saturating_sub(1),
                        |described| Plan { described, ..names },
                        budget,
                    )
                    .unwrap_or(found);
            }
        }
        self.collapse(budget)
    }

    /// The collapsing rungs: `named` skills by name, without headings up to
    /// the density point, then headings one by one, then more names.
    fn collapse(&self, budget: Budget) -> Fitted {
        let n = self.entries.len();
        let headings = self.groups.len();
        let paths = if self.options.paths == PathStyle::None {
            PathForm::Given
        } else {
            PathForm::Dropped
        };
        let bare = Plan {
            paths,
            cap: Some(MIN_DESCRIPTION_CHARS),
            named: 0,
            described: 0,
            headed: 0,
        };
        let dense = self.density_point(budget, bare);
        let rung = |r: usize| -> Plan {
            if r <= dense {
                Plan { named: r, ..bare }
            } else if r <= dense + headings {
                Plan {
                    named: dense,
                    headed: r - dense,
                    ..bare
                }
            } else {
                Plan {
                    named: (dense + r - dense - headings).min(n.saturating_sub(1)),
                    headed: headings,
                    ..bare
                }
            }
        };
        // No rung naming more skills than the budget has room for dashes
        // and names.
        let room = self.named_room(budget).min(n.saturating_sub(1));
        let top = if room < dense { room } else { room + headings };
        self.highest(0, top, rung, budget)
            .unwrap_or_else(|| self.shortest(bare, budget))
    }

    /// The number named at which headings come back: the smallest count
    /// whose text with every heading holds one named skill per
    /// `TOKENS_PER_NAMED_SKILL`. Estimated from line costs (the rungs are
    /// measured exactly when fitted).
    fn density_point(&self, budget: Budget, bare: Plan) -> usize {
        let n = self.entries.len();
        let per_skill = match budget {
            Budget::Tokens(_) => TOKENS_PER_NAMED_SKILL,
            Budget::Chars(_) => TOKENS_PER_NAMED_SKILL * 4,
        };
        let headed = Plan {
            headed: self.groups.len(),
            ..bare
        };
        let mut cost = budget.cost(&self.compose(&headed));
        let mut by_rank: Vec<usize> = (0..n).collect();
        by_rank.sort_unstable_by_key(|&i| self.entries[i].rank);
        let mut line = String::new();
        for (named, &index) in by_rank.iter().enumerate() {
            if per_skill * named >= cost {
                return named;
            }
            line.clear();
            self.entry_line(&mut line, &self.entries[index], &bare);
            cost += budget.cost(&line);
        }
        n.saturating_sub(1)
    }

    /// An upper bound on how many skills can be named in `budget`.
    fn named_room(&self, budget: Budget) -> usize {
        match budget {
            Budget::Tokens(limit) => limit / 2,
            Budget::Chars(limit) => limit / 4,
        }
    }

    /// A lower bound on the cost of naming `count` skills.
    fn least_cost(&self, count: usize) -> usize {
        match self.options.budget {
            Some(Budget::Tokens(_)) => count * 2,
            _ => count * 4,
        }
    }

    /// `plan` with its text and cost, when it fits.
    fn accept(&self, plan: Plan, budget: Budget) -> Option<Fitted> {
        let text = self.compose(&plan);
        let limit = budget.limit();
        if budget.cost_lower_bound(&text) > limit {
            return None;
        }
        let cost = budget.cost(&text);
        (cost <= limit).then_some(Fitted {
            plan,
            text,
            cost,
            fits: true,
        })
    }

    /// The richest of the rungs `low..=high` of `rung` that fits, searched
    /// by bisection (costs grow with the rung, up to a token or two of
    /// tokenizer noise, so the two rungs above the found one are tried
    /// too).
    fn highest(
        &self,
        low: usize,
        high: usize,
        rung: impl Fn(usize) -> Plan,
        budget: Budget,
    ) -> Option<Fitted> {
        if low > high {
            return None;
        }
        let mut best: Option<(usize, Fitted)> = None;
        let (mut lo, mut hi) = (low, high);
        while lo <= hi {
            let middle = lo + (hi - lo) / 2;
            match self.accept(rung(middle), budget) {
                Some(found) => {
                    best = Some((middle, found));
                    lo = middle + 1;
                }
                None => {
                    if middle == 0 {
                        break;
                    }
                    hi = middle - 1;
                }
            }
        }
        let (mut at, mut found) = best?;
        for next in (at + 1)..=(at + 2).min(high) {
            if let Some(better) = self.accept(rung(next), budget) {
                (at, found) = (next, better);
            }
        }
        let _ = at;
        Some(found)
    }

    /// The cheapest form, printed when nothing fits.
    fn shortest(&self, plan: Plan, budget: Budget) -> Fitted {
        let text = self.compose(&plan);
        let cost = budget.cost(&text);
        Fitted {
            plan,
            text,
            cost,
            fits: cost <= budget.limit(),
        }
    }
}
