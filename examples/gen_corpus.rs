//! Synthetic skill corpus for the skilldex benchmarks (`benches/render.sh`).
//!
//! Usage: `cargo run --release --example gen_corpus -- OUT_DIR COUNT [--force] [--namespaces N]`
//!
//! `--namespaces N` spreads the skills over the first N namespace folders of
//! the layout only (the issue's "100k skills in 50 namespaces").
//!
//! Writes COUNT skills under OUT_DIR, laid out the way real catalogs are:
//! `OUT/<area>/<team>/skills/<name>/SKILL.md` (and one level deeper,
//! `OUT/<area>/<team>/<group>/skills/<name>/SKILL.md`, for some teams), with a
//! `README.md` describing each namespace folder. Each `SKILL.md` is about 2 KB:
//! front matter (`name`, a `description` with a "Use when" clause, sometimes
//! `license`, `metadata`, `allowed-tools`, sometimes a folded `>-` description)
//! and a body with an H1, 4–8 `##` sections, a bullet list and a fenced code
//! block. Every tenth skill has two `references/*.md` files linked from its
//! body, every twentieth a `scripts/run.sh`.
//!
//! The output depends only on COUNT: a fixed seed drives a splitmix64
//! generator, so the same arguments give a byte-identical tree. Skill `n` is
//! generated from its own seed, so a smaller corpus is a prefix of a larger one
//! (same names, same files) except for which namespaces end up empty.
//!
//! Only the standard library is used so the example adds no dependency to the
//! package. Nothing is printed to stdout; a one-line summary goes to stderr.

#![allow(
    clippy::print_stderr,
    reason = "a command-line generator: its summary and errors belong on stderr"
)]

use std::env;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const SEED: u64 = 0x5eed_c0de_2b1d_0001;
const USAGE: &str = "usage: gen_corpus OUT_DIR COUNT [--force] [--namespaces N]\n\
    \n\
    Writes COUNT synthetic skills under OUT_DIR (deterministic for a given COUNT).\n\
    OUT_DIR must be absent or empty; --force deletes and recreates it.\n\
    --namespaces N uses only the first N namespace folders.";

// ---------------------------------------------------------------------------
// Vocabulary. Single lowercase ASCII words only in NOUNS and NAME_VERBS: they
// are also used to build skill names.
// ---------------------------------------------------------------------------

const AREAS: &[&str] = &[
    "platform",
    "data",
    "security",
    "mobile",
    "web",
    "infra",
    "ml",
    "payments",
    "search",
    "observability",
    "devex",
    "growth",
];

const TEAMS: &[&str] = &[
    "api",
    "auth",
    "billing",
    "build",
    "ci",
    "cli",
    "compliance",
    "core",
    "design-system",
    "edge",
    "etl",
    "experiments",
    "frontend",
    "identity",
    "ingest",
    "k8s",
    "ledger",
    "messaging",
    "networking",
    "notifications",
    "onboarding",
    "perf",
    "pipelines",
    "privacy",
    "queueing",
    "ranking",
    "release",
    "reliability",
    "runtime",
    "sdk",
    "storage",
    "streaming",
    "tooling",
    "training",
    "warehouse",
    "workflows",
    "android",
    "ios",
    "serving",
    "catalog",
];

const GROUPS: &[&str] = &[
    "core",
    "tools",
    "experimental",
    "legacy",
    "shared",
    "internal",
];

const NOUNS: &[&str] = &[
    "api",
    "cache",
    "schema",
    "index",
    "query",
    "pipeline",
    "cluster",
    "container",
    "image",
    "registry",
    "deployment",
    "rollout",
    "rollback",
    "migration",
    "database",
    "table",
    "column",
    "partition",
    "shard",
    "replica",
    "snapshot",
    "backup",
    "bucket",
    "object",
    "queue",
    "topic",
    "stream",
    "consumer",
    "producer",
    "broker",
    "event",
    "webhook",
    "endpoint",
    "gateway",
    "proxy",
    "router",
    "balancer",
    "certificate",
    "secret",
    "token",
    "credential",
    "permission",
    "role",
    "policy",
    "audit",
    "log",
    "metric",
    "trace",
    "span",
    "alert",
    "dashboard",
    "incident",
    "runbook",
    "pager",
    "budget",
    "quota",
    "limit",
    "latency",
    "throughput",
    "error",
    "exception",
    "crash",
    "timeout",
    "retry",
    "backoff",
    "dependency",
    "package",
    "module",
    "crate",
    "library",
    "binary",
    "artifact",
    "build",
    "release",
    "tag",
    "branch",
    "commit",
    "review",
    "changelog",
    "version",
    "manifest",
    "lockfile",
    "config",
    "template",
    "variable",
    "environment",
    "namespace",
    "tenant",
    "account",
    "session",
    "cookie",
    "header",
    "payload",
    "request",
    "response",
    "protocol",
    "socket",
    "connection",
    "pool",
    "thread",
    "process",
    "worker",
    "job",
    "task",
    "scheduler",
    "cron",
    "batch",
    "workflow",
    "runner",
    "node",
    "pod",
    "service",
    "volume",
    "disk",
    "memory",
    "network",
    "firewall",
    "subnet",
    "dns",
    "domain",
    "route",
    "provider",
    "resource",
    "state",
    "drift",
    "plan",
    "lint",
    "test",
    "fixture",
    "mock",
    "coverage",
    "benchmark",
    "profile",
    "flamegraph",
    "regression",
    "bug",
    "patch",
    "hotfix",
    "feature",
    "flag",
    "experiment",
    "cohort",
    "funnel",
    "report",
    "notebook",
    "dataset",
    "model",
    "embedding",
    "vector",
    "prompt",
    "tokenizer",
    "checkpoint",
    "inference",
    "label",
    "annotation",
    "sample",
    "warehouse",
    "lake",
    "parquet",
    "csv",
    "json",
    "yaml",
    "markdown",
    "document",
    "spec",
    "contract",
    "interface",
    "component",
    "widget",
    "layout",
    "stylesheet",
    "bundle",
    "asset",
    "font",
    "icon",
    "screenshot",
    "form",
    "validation",
    "locale",
    "translation",
    "accessibility",
    "invoice",
    "payment",
    "refund",
    "ledger",
    "subscription",
    "order",
    "cart",
    "catalog",
    "inventory",
    "shipment",
    "notification",
    "email",
    "ranking",
    "relevance",
    "synonym",
    "crawler",
    "sitemap",
    "sandbox",
    "kernel",
    "driver",
    "firmware",
    "device",
    "sensor",
    "telemetry",
    "storage",
    "archive",
    "retention",
    "compliance",
    "encryption",
    "key",
    "signature",
    "vulnerability",
    "scanner",
    "sbom",
    "license",
    "owner",
    "handoff",
    "ticket",
    "issue",
    "milestone",
    "roadmap",
    "estimate",
    "migration",
    "graph",
    "webhook",
    "ingress",
    "egress",
    "quorum",
    "leader",
    "heartbeat",
    "checksum",
    "digest",
];

const ADJECTIVES: &[&str] = &[
    "stale",
    "flaky",
    "slow",
    "large",
    "nested",
    "cached",
    "encrypted",
    "public",
    "private",
    "internal",
    "external",
    "legacy",
    "deprecated",
    "experimental",
    "stable",
    "critical",
    "optional",
    "required",
    "incremental",
    "partial",
    "orphaned",
    "duplicate",
    "missing",
    "broken",
    "pending",
    "failed",
    "noisy",
    "idle",
    "hot",
    "cold",
    "primary",
    "secondary",
    "regional",
    "global",
    "local",
    "remote",
    "shared",
    "isolated",
    "immutable",
    "mutable",
    "versioned",
    "signed",
    "unsigned",
    "compressed",
    "sparse",
    "dense",
    "asynchronous",
    "blocking",
    "concurrent",
    "distributed",
    "containerized",
    "serverless",
    "multi-tenant",
    "read-only",
    "ephemeral",
    "persistent",
    "canary",
    "staged",
    "production",
    "staging",
    "unused",
    "oversized",
    "misconfigured",
    "long-running",
    "high-traffic",
];

/// (base, third person, gerund)
const VERBS: &[(&str, &str, &str)] = &[
    ("audit", "audits", "auditing"),
    ("build", "builds", "building"),
    ("bump", "bumps", "bumping"),
    ("cache", "caches", "caching"),
    ("check", "checks", "checking"),
    ("clean", "cleans", "cleaning"),
    ("compare", "compares", "comparing"),
    ("configure", "configures", "configuring"),
    ("debug", "debugs", "debugging"),
    ("deploy", "deploys", "deploying"),
    ("diagnose", "diagnoses", "diagnosing"),
    ("document", "documents", "documenting"),
    ("generate", "generates", "generating"),
    ("index", "indexes", "indexing"),
    ("inspect", "inspects", "inspecting"),
    ("investigate", "investigates", "investigating"),
    ("lint", "lints", "linting"),
    ("migrate", "migrates", "migrating"),
    ("monitor", "monitors", "monitoring"),
    ("optimize", "optimizes", "optimizing"),
    ("package", "packages", "packaging"),
    ("parse", "parses", "parsing"),
    ("patch", "patches", "patching"),
    ("plan", "plans", "planning"),
    ("profile", "profiles", "profiling"),
    ("provision", "provisions", "provisioning"),
    ("publish", "publishes", "publishing"),
    ("rebuild", "rebuilds", "rebuilding"),
    ("reconcile", "reconciles", "reconciling"),
    ("refactor", "refactors", "refactoring"),
    ("release", "releases", "releasing"),
    ("repair", "repairs", "repairing"),
    ("replay", "replays", "replaying"),
    ("review", "reviews", "reviewing"),
    ("rotate", "rotates", "rotating"),
    ("route", "routes", "routing"),
    ("scaffold", "scaffolds", "scaffolding"),
    ("scan", "scans", "scanning"),
    ("schedule", "schedules", "scheduling"),
    ("seed", "seeds", "seeding"),
    ("shard", "shards", "sharding"),
    ("summarize", "summarizes", "summarizing"),
    ("sync", "syncs", "syncing"),
    ("tag", "tags", "tagging"),
    ("test", "tests", "testing"),
    ("trace", "traces", "tracing"),
    ("triage", "triages", "triaging"),
    ("tune", "tunes", "tuning"),
    ("update", "updates", "updating"),
    ("upgrade", "upgrades", "upgrading"),
    ("validate", "validates", "validating"),
    ("verify", "verifies", "verifying"),
    ("backfill", "backfills", "backfilling"),
    ("benchmark", "benchmarks", "benchmarking"),
    ("archive", "archives", "archiving"),
    ("restore", "restores", "restoring"),
    ("revert", "reverts", "reverting"),
    ("merge", "merges", "merging"),
    ("split", "splits", "splitting"),
    ("translate", "translates", "translating"),
    ("annotate", "annotates", "annotating"),
    ("label", "labels", "labeling"),
    ("export", "exports", "exporting"),
    ("import", "imports", "importing"),
    ("query", "queries", "querying"),
    ("estimate", "estimates", "estimating"),
    ("deduplicate", "deduplicates", "deduplicating"),
    ("throttle", "throttles", "throttling"),
    ("quarantine", "quarantines", "quarantining"),
    ("bootstrap", "bootstraps", "bootstrapping"),
];

const TOOLS: &[&str] = &[
    "git",
    "cargo",
    "kubectl",
    "helm",
    "terraform",
    "docker",
    "podman",
    "bazel",
    "make",
    "npm",
    "pnpm",
    "yarn",
    "pytest",
    "jest",
    "go",
    "gradle",
    "maven",
    "psql",
    "redis-cli",
    "kcat",
    "jq",
    "curl",
    "grpcurl",
    "aws",
    "gcloud",
    "ansible",
    "promtool",
    "rg",
    "fd",
    "sqlite3",
    "duckdb",
    "dbt",
    "airflow",
    "spark-submit",
    "mlflow",
    "ruff",
    "eslint",
    "prettier",
    "clang-tidy",
    "valgrind",
    "perf",
    "strace",
    "openssl",
    "vault",
    "sops",
    "trivy",
    "semgrep",
];

const HEADINGS: &[&str] = &[
    "When to use",
    "Prerequisites",
    "Inputs",
    "Workflow",
    "Configuration",
    "Examples",
    "Troubleshooting",
    "Safety checks",
    "Outputs",
    "Limitations",
    "Verification",
    "Related skills",
    "Notes",
];

const REFERENCE_TOPICS: &[&str] = &[
    "api",
    "architecture",
    "configuration",
    "examples",
    "glossary",
    "troubleshooting",
    "checklist",
    "migration-guide",
];

/// Sentence templates for body paragraphs. Placeholders: `%n` noun, `%a`
/// adjective, `%v` verb, `%s` verb (third person), `%g` gerund, `%G` / `%V` /
/// `%S` capitalised gerund / verb / third person, `%t` tool.
const SENTENCES: &[&str] = &[
    "%G the %n %n early keeps the %a %n predictable.",
    "The skill %s each %n %n and records the %n in the %n log.",
    "Always %v the %n %n before you %v any %a %n.",
    "If the %n %n looks %a, %v it with `%t` and retry the %n.",
    "Prefer %a %n %n over %a %n when the %n is shared across teams.",
    "This step %s the %n so that later %n %n checks stay %a.",
    "Document every %n %n change in the %n runbook.",
    "Expect %g the %n %n to take longer on %a %n clusters.",
    "%V the %a %n first, then %v the %n %n in small batches.",
    "Keep the %n %n under version control so reviewers can %v it.",
    "A %a %n usually means the %n %n was not %a enough.",
    "Run `%t` against the %n and compare the %n %n with the previous %n.",
    "Ask the owner of the %n %n before %g anything %a.",
    "Stop and report when the %n %n is %a or the %n is missing.",
    "The %n %n is the source of truth for the %a %n.",
    "Avoid %g the %n while a %a %n %n is still in progress.",
    "Most failures come from a %a %n or a %a %n %n.",
    "Use `%t` to %v the %n %n and keep the output for the %n.",
];

const BULLETS: &[&str] = &[
    "%V the %n %n and note the %a %n.",
    "Check that the %n %n is %a.",
    "%V the %a %n with `%t`.",
    "Confirm the %n owner has approved the %n.",
    "Record the %n %n in the %n.",
    "Re-run the %n %n until it is %a.",
    "Open a %n for any %a %n.",
];

const CODE_BLOCKS: &[&str] = &[
    "```bash\n%t %v --%n=%n ./%n\n%t %v --dry-run %n | tee %n.log\ngrep -c %n %n.log\n```",
    "```yaml\n%n:\n  %n: %a\n  %n: 3\n  %n:\n    - %n\n    - %n\n```",
    "```json\n{\n  \"%n\": \"%a\",\n  \"%n\": 30,\n  \"%n\": [\"%n\", \"%n\"]\n}\n```",
    "```python\ndef %v_%n(%n):\n    \"\"\"%V the %a %n.\"\"\"\n    return [x for x in %n if x.%n]\n```",
    "```sh\nexport %n_%n=%a\n%t %v %n\n%t %v %n --check\n```",
];

// ---------------------------------------------------------------------------
// Deterministic random numbers.
// ---------------------------------------------------------------------------

/// splitmix64: tiny, fast, and good enough for picking words.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        let mut rng = Rng(seed);
        rng.next_u64();
        rng
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform-enough integer in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Integer in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    fn percent(&mut self, p: u64) -> bool {
        self.next_u64() % 100 < p
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn verb(&mut self) -> (&'static str, &'static str, &'static str) {
        VERBS[self.below(VERBS.len())]
    }

    /// `k` distinct indices of `0..n`, in ascending order.
    fn distinct_sorted(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut all: Vec<usize> = (0..n).collect();
        for i in 0..k.min(n) {
            let j = i + self.below(n - i);
            all.swap(i, j);
        }
        all.truncate(k.min(n));
        all.sort_unstable();
        all
    }
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// Expands a `%x` template (see `SENTENCES`).
fn fill(rng: &mut Rng, template: &str) -> String {
    let mut out = String::with_capacity(template.len() + 64);
    let mut chars = template.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let word = match chars.next() {
            Some('n') => rng.pick(NOUNS).to_string(),
            Some('a') => rng.pick(ADJECTIVES).to_string(),
            Some('t') => rng.pick(TOOLS).to_string(),
            Some('v') => rng.verb().0.to_string(),
            Some('s') => rng.verb().1.to_string(),
            Some('g') => rng.verb().2.to_string(),
            Some('V') => capitalize(rng.verb().0),
            Some('S') => capitalize(rng.verb().1),
            Some('G') => capitalize(rng.verb().2),
            Some(other) => format!("%{other}"),
            None => "%".to_string(),
        };
        push_word(&mut out, &word);
    }
    out
}

/// Appends `word`, turning a preceding article "a" into "an" before a vowel.
fn push_word(out: &mut String, word: &str) {
    let vowel = word.starts_with(['a', 'e', 'i', 'o', 'u']);
    if vowel && (out.ends_with(" a ") || out == "A " || out.ends_with(". A ")) {
        out.pop();
        out.push_str("n ");
    }
    out.push_str(word);
}

/// Joins words with spaces, breaking lines at `width` columns. Each break
/// replaces a space, so the byte length equals the space-joined text.
fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut line_len = 0;
    for word in text.split(' ') {
        if line_len == 0 {
            out.push_str(indent);
            line_len = indent.len();
        } else if line_len + 1 + word.len() > width {
            out.push('\n');
            out.push_str(indent);
            line_len = indent.len();
        } else {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(word);
        line_len += word.len();
    }
    out
}

// ---------------------------------------------------------------------------
// Corpus layout.
// ---------------------------------------------------------------------------

struct Namespace {
    /// Path relative to OUT_DIR, ending in `skills`.
    rel: PathBuf,
    area: &'static str,
    team: &'static str,
    group: Option<&'static str>,
    used: bool,
}

/// 12 areas × 8–14 teams, a fifth of the teams split into two groups:
/// about 160 namespace folders, fixed for every COUNT.
fn layout() -> Vec<Namespace> {
    let mut rng = Rng::new(SEED);
    let mut namespaces = Vec::new();
    for &area in AREAS {
        let team_count = rng.range(8, 14);
        for t in rng.distinct_sorted(TEAMS.len(), team_count) {
            let team = TEAMS[t];
            if rng.percent(20) {
                for g in rng.distinct_sorted(GROUPS.len(), 2) {
                    let group = GROUPS[g];
                    namespaces.push(Namespace {
                        rel: [area, team, group, "skills"].iter().collect(),
                        area,
                        team,
                        group: Some(group),
                        used: false,
                    });
                }
            } else {
                namespaces.push(Namespace {
                    rel: [area, team, "skills"].iter().collect(),
                    area,
                    team,
                    group: None,
                    used: false,
                });
            }
        }
    }
    namespaces
}

// ---------------------------------------------------------------------------
// Content.
// ---------------------------------------------------------------------------

struct Skill {
    name: String,
    namespace: usize,
    skill_md: String,
    references: Vec<(String, String)>,
    script: Option<String>,
}

/// 120–400 characters, plain sentences, always with a "Use when" clause.
/// Never contains `: `, `#` or quotes, so it is a valid plain YAML scalar.
fn description(rng: &mut Rng) -> String {
    loop {
        let target = rng.range(130, 380);
        let (_, third, _) = rng.verb();
        let mut text = format!(
            "{} {} {} {} for {} {} and {} {}.",
            capitalize(third),
            rng.pick(ADJECTIVES),
            rng.pick(NOUNS),
            rng.pick(NOUNS),
            rng.pick(ADJECTIVES),
            rng.pick(NOUNS),
            rng.pick(NOUNS),
            rng.pick(NOUNS),
        );
        if target > 260 && rng.percent(60) {
            text.push(' ');
            text.push_str(&fill(rng, "Covers %n %n, %n %n and %a %n."));
        }
        text.push_str(&format!(
            " Use when {} {} {}",
            rng.verb().2,
            rng.pick(NOUNS),
            rng.pick(NOUNS)
        ));
        let mut clauses: Vec<String> = Vec::new();
        loop {
            let clause = format!(
                "{} {} {}",
                rng.verb().2,
                rng.pick(ADJECTIVES),
                rng.pick(NOUNS)
            );
            if text.len() + clauses.iter().map(|c| c.len() + 2).sum::<usize>() + clause.len() + 5
                > target
            {
                break;
            }
            clauses.push(clause);
        }
        match clauses.len() {
            0 => {}
            1 => {
                text.push_str(" or ");
                text.push_str(&clauses[0]);
            }
            n => {
                for clause in &clauses[..n - 1] {
                    text.push_str(", ");
                    text.push_str(clause);
                }
                text.push_str(", or ");
                text.push_str(&clauses[n - 1]);
            }
        }
        text.push('.');
        if (120..=400).contains(&text.len()) {
            return text;
        }
    }
}

struct Section {
    heading: String,
    paragraphs: Vec<Vec<String>>,
    extra: Vec<String>,
}

fn render_sections(out: &mut String, sections: &[Section]) {
    for section in sections {
        out.push_str("## ");
        out.push_str(&section.heading);
        out.push_str("\n\n");
        for paragraph in &section.paragraphs {
            out.push_str(&wrap(&paragraph.join(" "), 80, ""));
            out.push_str("\n\n");
        }
        for block in &section.extra {
            out.push_str(block);
            out.push_str("\n\n");
        }
    }
}

/// Adds sentences round-robin to the sections' paragraphs until the estimated
/// size reaches `target` bytes.
fn fill_sections(rng: &mut Rng, sections: &mut [Section], mut size: usize, target: usize) {
    let mut i = 0;
    let mut misses = 0;
    while misses < 4 {
        let template = sentence_template(rng);
        let sentence = fill(rng, template);
        if size + sentence.len() + 2 > target {
            misses += 1;
            continue;
        }
        size += sentence.len() + 1;
        let section = &mut sections[i % sections.len()];
        match section.paragraphs.last_mut() {
            Some(p) if p.len() < 4 => p.push(sentence),
            _ => {
                size += 1;
                section.paragraphs.push(vec![sentence]);
            }
        }
        i += 1;
    }
}

fn sentence_template(rng: &mut Rng) -> &'static str {
    SENTENCES[rng.below(SENTENCES.len())]
}

fn bullet_template(rng: &mut Rng) -> &'static str {
    BULLETS[rng.below(BULLETS.len())]
}

fn skill(n: usize, namespace_count: usize) -> Skill {
    let mut rng = Rng::new(SEED ^ (n as u64).wrapping_mul(0xd1b5_4a32_d192_ed03));
    let namespace = rng.below(namespace_count);

    // Name: verb + one or two nouns + the skill number (unique).
    let mut words = vec![rng.verb().0, rng.pick(NOUNS)];
    if rng.percent(40) {
        words.push(rng.pick(NOUNS));
    }
    let name = format!("{}-{:04}", words.join("-"), n);
    let title = words
        .iter()
        .map(|w| capitalize(w))
        .collect::<Vec<_>>()
        .join(" ");

    // Front matter.
    let desc = description(&mut rng);
    let mut fm = String::from("---\n");
    fm.push_str(&format!("name: {name}\n"));
    if rng.percent(20) {
        fm.push_str("description: >-\n");
        fm.push_str(&wrap(&desc, 78, "  "));
        fm.push('\n');
    } else {
        fm.push_str(&format!("description: {desc}\n"));
    }
    if rng.percent(30) {
        fm.push_str("license: MIT\n");
    }
    if rng.percent(25) {
        fm.push_str("metadata:\n");
        fm.push_str(&format!("  author: {}-team\n", rng.pick(TEAMS)));
        fm.push_str(&format!(
            "  version: \"{}.{}\"\n",
            rng.range(0, 3),
            rng.range(0, 12)
        ));
        if rng.percent(50) {
            fm.push_str(&format!("  category: {}\n", rng.pick(AREAS)));
        }
    }
    if rng.percent(15) {
        fm.push_str("allowed-tools: Bash(git:*) Read\n");
    }
    fm.push_str("---\n\n");

    let has_references = n.is_multiple_of(10);
    let has_script = n.is_multiple_of(20);

    // Body structure: "Overview" plus 3–7 other sections (one fewer when a
    // "References" section is added, so there are always 4–8).
    let mut section_count = rng.range(4, 8);
    if has_references {
        section_count = section_count.min(7);
    }
    let mut sections: Vec<Section> = std::iter::once("Overview")
        .chain(
            rng.distinct_sorted(HEADINGS.len(), section_count - 1)
                .into_iter()
                .map(|i| HEADINGS[i]),
        )
        .map(|h| Section {
            heading: h.to_string(),
            paragraphs: Vec::new(),
            extra: Vec::new(),
        })
        .collect();

    let bullets: Vec<String> = (0..rng.range(3, 6))
        .map(|_| {
            let template = bullet_template(&mut rng);
            format!("- {}", fill(&mut rng, template))
        })
        .collect();
    let list_at = sections
        .iter()
        .position(|s| s.heading == "Workflow")
        .unwrap_or(1 + rng.below(sections.len() - 1));
    sections[list_at].extra.push(bullets.join("\n"));
    let template = rng.pick(CODE_BLOCKS);
    let code = fill(&mut rng, template);
    let code_at = sections
        .iter()
        .position(|s| s.heading == "Examples")
        .unwrap_or(1 + rng.below(sections.len() - 1));
    sections[code_at].extra.push(code);

    let mut references = Vec::new();
    if has_references {
        let topics: Vec<&str> = rng
            .distinct_sorted(REFERENCE_TOPICS.len(), 2)
            .into_iter()
            .map(|i| REFERENCE_TOPICS[i])
            .collect();
        let mut links = Vec::new();
        for topic in topics {
            let file = format!("{topic}.md");
            links.push(format!(
                "- [{}](references/{file}) - {}",
                capitalize(&topic.replace('-', " ")),
                fill(&mut rng, "%a %n %n details.")
            ));
            let target = rng.range(2100, 4000);
            references.push((file, reference_doc(&mut rng, &title, topic, target)));
        }
        sections.push(Section {
            heading: "References".to_string(),
            paragraphs: vec![vec![
                "Load these only when the task needs the detail.".to_string()
            ]],
            extra: vec![links.join("\n")],
        });
    }
    let script = has_script.then(|| {
        sections[0].paragraphs.push(vec![format!(
            "Run `scripts/run.sh` to {} the {} {} before editing anything.",
            rng.verb().0,
            rng.pick(NOUNS),
            rng.pick(NOUNS)
        )]);
        run_script(&mut rng, &name)
    });

    // Size: fill paragraphs until the file is about 2 KB.
    let mut skill_md = fm;
    skill_md.push_str(&format!("# {title}\n\n"));
    skill_md.push_str(&wrap(
        &fill(&mut rng, "This skill %s %a %n %n for the team."),
        80,
        "",
    ));
    skill_md.push_str("\n\n");
    let mut fixed = String::new();
    render_sections(&mut fixed, &sections);
    let size = skill_md.len() + fixed.len();
    let target = rng.range(1950, 2250);
    let fillable = sections.len() - usize::from(has_references);
    fill_sections(&mut rng, &mut sections[..fillable], size, target);
    render_sections(&mut skill_md, &sections);
    while skill_md.ends_with("\n\n") {
        skill_md.pop();
    }

    Skill {
        name,
        namespace,
        skill_md,
        references,
        script,
    }
}

fn reference_doc(rng: &mut Rng, title: &str, topic: &str, target: usize) -> String {
    let mut doc = format!("# {title}: {}\n\n", capitalize(&topic.replace('-', " ")));
    doc.push_str(&wrap(
        &fill(
            rng,
            "This reference %s the %a %n %n in more depth than SKILL.md.",
        ),
        80,
        "",
    ));
    doc.push_str("\n\n| Option | Default | Meaning |\n| --- | --- | --- |\n");
    for _ in 0..rng.range(3, 6) {
        doc.push_str(&fill(rng, "| `%n_%n` | `%a` | %V the %n %n. |\n"));
    }
    doc.push('\n');
    let heading_count = rng.range(3, 5);
    let headings = rng.distinct_sorted(HEADINGS.len(), heading_count);
    let mut sections: Vec<Section> = headings
        .into_iter()
        .map(|i| Section {
            heading: HEADINGS[i].to_string(),
            paragraphs: Vec::new(),
            extra: Vec::new(),
        })
        .collect();
    let template = rng.pick(CODE_BLOCKS);
    let code = fill(rng, template);
    sections[0].extra.push(code);
    let mut fixed = String::new();
    render_sections(&mut fixed, &sections);
    let size = doc.len() + fixed.len();
    fill_sections(rng, &mut sections, size, target);
    render_sections(&mut doc, &sections);
    while doc.ends_with("\n\n") {
        doc.pop();
    }
    doc
}

fn run_script(rng: &mut Rng, name: &str) -> String {
    let tool = rng.pick(TOOLS);
    let (verb, _, _) = rng.verb();
    let noun = rng.pick(NOUNS);
    format!(
        "#!/usr/bin/env bash\n\
         # Helper for the {name} skill: {verb} the {noun} and print a short report.\n\
         set -euo pipefail\n\
         \n\
         target=\"${{1:-.}}\"\n\
         if ! command -v {tool} >/dev/null 2>&1; then\n\
         \x20 echo \"{name}: {tool} is not installed\" >&2\n\
         \x20 exit 2\n\
         fi\n\
         echo \"{verb} {noun} in $target\"\n\
         find \"$target\" -name '*.md' | sort | head -n 20\n"
    )
}

fn namespace_readme(rng: &mut Rng, ns: &Namespace) -> String {
    let owner = match ns.group {
        Some(group) => format!("the {} group of the {} team", group, ns.team),
        None => format!("the {} team", ns.team),
    };
    let description = format!(
        "Skills maintained by {owner} in the {} area, covering {} {} and {} {}.",
        ns.area,
        rng.pick(NOUNS),
        rng.pick(NOUNS),
        rng.pick(ADJECTIVES),
        rng.pick(NOUNS)
    );
    let heading = match ns.group {
        Some(group) => format!("{} / {} / {}", ns.area, ns.team, group),
        None => format!("{} / {}", ns.area, ns.team),
    };
    format!(
        "---\ndescription: {description}\n---\n\n# {heading} skills\n\n{}\n",
        wrap(
            &fill(
                rng,
                "Ask in the team channel before %g a %a %n. %S the %n %n weekly."
            ),
            80,
            ""
        )
    )
}

// ---------------------------------------------------------------------------
// Writing.
// ---------------------------------------------------------------------------

#[derive(Default)]
struct Totals {
    files: u64,
    bytes: u64,
}

impl Totals {
    fn write(&mut self, path: &Path, contents: &str) -> io::Result<()> {
        fs::write(path, contents)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        self.files += 1;
        self.bytes += contents.len() as u64;
        Ok(())
    }
}

fn mkdir(path: &Path) -> io::Result<()> {
    fs::create_dir_all(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

#[cfg(unix)]
fn make_executable(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) -> io::Result<()> {
    Ok(())
}

/// Checks OUT_DIR and, with `--force`, clears it. Refuses to clear a folder
/// that holds the current directory or looks like a repository.
fn prepare_out_dir(out: &Path, force: bool) -> Result<(), String> {
    match fs::metadata(out) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("{}: {e}", out.display())),
        Ok(meta) if !meta.is_dir() => {
            return Err(format!(
                "{} exists and is not a directory; choose another OUT_DIR",
                out.display()
            ))
        }
        Ok(_) => {
            let non_empty = fs::read_dir(out)
                .map_err(|e| format!("{}: {e}", out.display()))?
                .next()
                .is_some();
            if non_empty {
                if !force {
                    return Err(format!(
                        "{} is not empty; pass --force to delete and regenerate it",
                        out.display()
                    ));
                }
                let real = fs::canonicalize(out).map_err(|e| format!("{}: {e}", out.display()))?;
                let cwd = env::current_dir().map_err(|e| format!("current directory: {e}"))?;
                if real.parent().is_none()
                    || cwd.starts_with(&real)
                    || real.join(".git").exists()
                    || real.join("Cargo.toml").exists()
                {
                    return Err(format!(
                        "refusing to delete {}: it is the current directory, one of its \
                         parents, or a repository; choose a dedicated OUT_DIR",
                        out.display()
                    ));
                }
                fs::remove_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
            }
        }
    }
    mkdir(out).map_err(|e| e.to_string())
}

fn generate(out: &Path, count: usize, limit: Option<usize>) -> io::Result<(Totals, usize)> {
    let mut namespaces = layout();
    if let Some(limit) = limit {
        namespaces.truncate(limit.max(1));
    }
    let mut totals = Totals::default();
    let mut skills_dirs_made = vec![false; namespaces.len()];
    for n in 1..=count {
        let skill = skill(n, namespaces.len());
        let ns_dir = out.join(&namespaces[skill.namespace].rel);
        if !skills_dirs_made[skill.namespace] {
            mkdir(&ns_dir)?;
            skills_dirs_made[skill.namespace] = true;
        }
        namespaces[skill.namespace].used = true;
        let dir = ns_dir.join(&skill.name);
        mkdir(&dir)?;
        totals.write(&dir.join("SKILL.md"), &skill.skill_md)?;
        if !skill.references.is_empty() {
            let refs = dir.join("references");
            mkdir(&refs)?;
            for (file, text) in &skill.references {
                totals.write(&refs.join(file), text)?;
            }
        }
        if let Some(script) = &skill.script {
            let scripts = dir.join("scripts");
            mkdir(&scripts)?;
            let path = scripts.join("run.sh");
            totals.write(&path, script)?;
            make_executable(&path)?;
        }
    }
    let mut rng = Rng::new(SEED ^ 0x4e41_4d45_5350_4143);
    let mut used = 0;
    for ns in &namespaces {
        // Draw for every namespace so the text does not depend on COUNT.
        let readme = namespace_readme(&mut rng, ns);
        if ns.used {
            used += 1;
            totals.write(&out.join(&ns.rel).join("README.md"), &readme)?;
        }
    }
    Ok((totals, used))
}

fn main() -> ExitCode {
    let mut force = false;
    let mut limit = None;
    let mut positional = Vec::new();
    let mut args = env::args_os().skip(1);
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("--force") | Some("-f") => force = true,
            Some("--namespaces") => {
                match args
                    .next()
                    .and_then(|v| v.to_str().and_then(|s| s.parse::<usize>().ok()))
                {
                    Some(n) if n > 0 => limit = Some(n),
                    _ => {
                        eprintln!("gen_corpus: --namespaces needs a positive integer\n\n{USAGE}");
                        return ExitCode::from(2);
                    }
                }
            }
            Some("--help") | Some("-h") => {
                eprintln!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            Some(s) if s.starts_with('-') && s.len() > 1 => {
                eprintln!("gen_corpus: unknown option {s:?}\n\n{USAGE}");
                return ExitCode::from(2);
            }
            _ => positional.push(arg),
        }
    }
    if positional.len() != 2 {
        eprintln!("gen_corpus: expected OUT_DIR and COUNT\n\n{USAGE}");
        return ExitCode::from(2);
    }
    let out = PathBuf::from(&positional[0]);
    let count = match positional[1].to_str().and_then(|s| s.parse::<usize>().ok()) {
        Some(c) if c > 0 => c,
        _ => {
            eprintln!(
                "gen_corpus: COUNT must be a positive integer, got {:?}\n\n{USAGE}",
                positional[1]
            );
            return ExitCode::from(2);
        }
    };
    if let Err(e) = prepare_out_dir(&out, force) {
        eprintln!("gen_corpus: {e}");
        return ExitCode::from(2);
    }
    match generate(&out, count, limit) {
        Ok((totals, namespaces)) => {
            eprintln!(
                "gen_corpus: {count} skills in {namespaces} namespaces, {} files, {} bytes ({:.1} MiB) in {}",
                totals.files,
                totals.bytes,
                totals.bytes as f64 / (1024.0 * 1024.0),
                out.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gen_corpus: {e}");
            ExitCode::from(1)
        }
    }
}
