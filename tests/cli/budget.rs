//! The budgeted directory on catalogs shaped like real ones: a sweep of
//! budgets from 500 to 50,000 tokens checks that whenever something is cut
//! the directory spends at least 90 % of the budget, that more budget never
//! names fewer skills, and that at least `min(skills, budget / 16)` skills
//! are named one by one. The fixtures are generated here (our own words),
//! modelled on the shapes public repositories have: one flat namespace of
//! long descriptions, a plugin layout of many small namespaces, a large
//! catalog of many namespaces, and nested skills beside top-level ones.

use super::*;
use skilldex::query::{render_directory, Budget, PathStyle, RenderOptions, RenderedDirectory};
use skilldex::CatalogBuilder;

const WORDS: &[&str] = &[
    "analyse",
    "sequence",
    "protein",
    "structure",
    "pipeline",
    "records",
    "spectra",
    "cluster",
    "notebook",
    "dataset",
    "imaging",
    "statistics",
    "regression",
    "survey",
    "genome",
    "variant",
    "reads",
    "alignment",
    "phylogeny",
    "metabolic",
    "network",
    "simulation",
    "quantum",
    "circuit",
    "molecule",
    "docking",
    "assay",
    "plate",
    "reporting",
    "citation",
    "manuscript",
    "figure",
    "deploy",
    "service",
    "cluster",
    "ingress",
    "secrets",
    "rotation",
    "billing",
    "latency",
    "tracing",
    "dashboard",
    "incident",
    "review",
    "migration",
    "schema",
    "index",
    "query",
    "when",
    "working",
    "with",
    "files",
    "the",
    "and",
    "for",
    "across",
    "using",
    "large",
];

/// A deterministic generator, so every run sees the same catalogs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn words(&mut self, count: usize) -> String {
        (0..count)
            .map(|_| WORDS[self.below(WORDS.len())])
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A description of about `chars` characters with a "Use when" clause.
    fn description(&mut self, chars: usize) -> String {
        let mut text = String::new();
        while text.len() < chars {
            let words = 4 + self.below(8);
            let sentence = self.words(words);
            text.push_str(&sentence[..1].to_uppercase());
            text.push_str(&sentence[1..]);
            text.push_str(if self.below(3) == 0 { ", " } else { ". " });
        }
        format!("{} Use when {}.", text.trim_end(), self.words(5))
    }

    fn name(&mut self, index: usize) -> String {
        let words = 1 + self.below(3);
        let name: Vec<&str> = (0..words).map(|_| WORDS[self.below(48)]).collect();
        format!("{}-{index}", name.join("-"))
    }
}

fn skill(root: &std::path::Path, folder: &str, name: &str, description: &str) {
    write(
        root,
        &format!("{folder}/SKILL.md"),
        skill_md(name, &serde_json::to_string(description).unwrap()),
    );
}

/// One flat namespace of long descriptions (a scientific collection).
fn flat(count: usize) -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let mut rng = Rng(1);
    for i in 0..count {
        let name = rng.name(i);
        let chars = 150 + rng.below(450);
        let description = rng.description(chars);
        skill(
            temp.path(),
            &format!("collection/{name}"),
            &name,
            &description,
        );
    }
    temp
}

/// A plugin marketplace: `plugins/<plugin>/skills/<skill>`, one to six
/// skills a plugin.
fn plugins(count: usize) -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let mut rng = Rng(2);
    let (mut made, mut plugin) = (0, 0);
    while made < count {
        let in_plugin = (1 + rng.below(6)).min(count - made);
        let plugin_name = format!("{}-tools", rng.name(plugin));
        for _ in 0..in_plugin {
            let name = rng.name(made);
            let chars = 120 + rng.below(300);
            let description = rng.description(chars);
            let folder = format!("plugins/{plugin_name}/skills/{name}");
            skill(temp.path(), &folder, &name, &description);
            made += 1;
        }
        plugin += 1;
    }
    temp
}

/// Many skills in `namespaces` team folders (`area/team/skills/<skill>`).
fn teams(count: usize, namespaces: usize) -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let mut rng = Rng(3);
    for i in 0..count {
        let team = rng.below(namespaces);
        let name = rng.name(i);
        let chars = 80 + rng.below(160);
        let description = rng.description(chars);
        let folder = format!("area{}/team{team}/skills/{name}", team % 7);
        skill(temp.path(), &folder, &name, &description);
    }
    temp
}

/// Top-level skills, namespaces, and skills nested inside skills.
fn mixed() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let mut rng = Rng(4);
    for i in 0..40 {
        let name = rng.name(i);
        let chars = 60 + rng.below(400);
        let description = rng.description(chars);
        let folder = match i % 4 {
            0 => name.clone(),
            1 => format!("writing/{name}"),
            2 => format!("ops/deep/{name}"),
            _ => format!("{}/{name}", rng.name(i + 100)),
        };
        skill(temp.path(), &folder, &name, &description);
    }
    temp
}

fn budgets() -> Vec<usize> {
    // Geometric steps from 500 to 50,000, plus odd values between them.
    let mut budgets = Vec::new();
    let mut budget = 500.0_f64;
    while budget <= 50_000.0 {
        budgets.push(budget as usize);
        budgets.push((budget * 1.13) as usize + 7);
        budget *= 1.35;
    }
    budgets.push(50_000);
    budgets.sort_unstable();
    budgets.retain(|&b| (500..=50_000).contains(&b));
    budgets
}

fn render(
    catalog: &skilldex::Catalog,
    root: &std::path::Path,
    paths: PathStyle,
    budget: Option<usize>,
) -> RenderedDirectory {
    render_directory(
        catalog,
        &RenderOptions {
            paths,
            budget: budget.map(Budget::Tokens),
            base: root.to_path_buf(),
            command: format!("skilldex --root {}", root.display()),
            ..RenderOptions::default()
        },
    )
}

/// The directory at each budget, in budget order, rendered on every core
/// (the renders are independent; the checks compare them in order).
fn render_each(
    catalog: &skilldex::Catalog,
    root: &std::path::Path,
    paths: PathStyle,
    budgets: Vec<usize>,
) -> Vec<(usize, RenderedDirectory)> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut rendered: Vec<(usize, RenderedDirectory)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&budget) = budgets.get(index) else {
                            break done;
                        };
                        done.push((budget, render(catalog, root, paths, Some(budget))));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| handle.join().expect("a render panicked"))
            .collect()
    });
    rendered.sort_by_key(|(budget, _)| *budget);
    rendered
}

/// Sweep the budgets over the catalog at `root` and check the promises.
fn sweep(label: &str, root: &std::path::Path, paths: PathStyle) {
    let catalog = CatalogBuilder::new([root]).build().unwrap();
    let full = render(&catalog, root, paths, None);
    let skills = full.skills.len();
    // Descriptions over 1,024 bytes are capped with or without a budget:
    // that is no cut of the budget's.
    let capped_anyway = full.shortened;
    let mut previous_named = 0;
    let mut failures = Vec::new();
    for (budget, rendered) in render_each(&catalog, root, paths, budgets()) {
        let named = rendered.listed_count;
        let cost = skilldex::tokens::count(&rendered.text);
        assert_eq!(cost, rendered.cost, "{label} @{budget}: cost reported");
        assert_eq!(
            named + rendered.collapsed_count,
            skills,
            "{label} @{budget}"
        );
        if !rendered.fits {
            failures.push(format!(
                "@{budget}: does not fit (shortest form {cost} tokens)"
            ));
            continue;
        }
        if cost > budget {
            failures.push(format!("@{budget}: {cost} tokens"));
        }
        let cut = rendered.shortened > capped_anyway
            || rendered.name_only > 0
            || rendered.collapsed_count > 0;
        if cut && cost * 10 < budget * 9 {
            failures.push(format!(
                "@{budget}: something is cut but only {cost} tokens are used"
            ));
        }
        if named < previous_named {
            failures.push(format!(
                "@{budget}: names {named} skills, a smaller budget named {previous_named}"
            ));
        }
        if named < skills.min(budget / 16) {
            failures.push(format!("@{budget}: names only {named} of {skills}"));
        }
        if rendered.collapsed_count > 0 || cut {
            let last = rendered.text.trim_end().lines().last().unwrap_or("");
            if rendered.collapsed_count > 0 {
                assert!(
                    last.contains(&format!("skilldex --root {} search", root.display())),
                    "{label} @{budget}: the closing line says how to reach the rest: {last}"
                );
            }
        }
        previous_named = named;
    }
    assert!(
        failures.is_empty(),
        "{label} ({skills} skills):\n{}",
        failures.join("\n")
    );
}

#[test]
fn budgets_are_spent_on_one_flat_namespace() {
    let temp = flat(134);
    sweep("flat", temp.path(), PathStyle::Absolute);
}

#[test]
fn budgets_are_spent_on_a_plugin_layout() {
    let temp = plugins(180);
    sweep("plugins", temp.path(), PathStyle::Absolute);
}

#[test]
fn budgets_are_spent_on_many_namespaces() {
    let temp = teams(3000, 50);
    sweep("teams", temp.path(), PathStyle::None);
}

#[test]
fn budgets_are_spent_on_nested_and_top_level_skills() {
    let temp = mixed();
    sweep("mixed", temp.path(), PathStyle::Relative);
}

#[test]
fn budgets_are_spent_on_the_bundled_catalog() {
    sweep("bundled", &repo().join("skills"), PathStyle::Absolute);
}
