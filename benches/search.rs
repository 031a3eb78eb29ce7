//! Search benchmarks on the generated 10k-skill corpus:
//! query latency in process, index build next to the scan it follows.
//!
//! ```sh
//! cargo run --release --example gen_corpus -- target/bench/c10k 10000
//! cargo bench --bench search
//! ```
//! `SKILLDEX_BENCH_CORPUS` points at another corpus. Besides criterion's
//! estimates, the run prints p50/p90/p99 over varied queries made from the
//! corpus (110 on c10k) and over the agent-style requests of `requests.txt`.
#![allow(clippy::print_stderr)]

use criterion::{criterion_group, criterion_main, Criterion};
use skilldex::search::{SearchIndex, SearchOptions};
use skilldex::{Catalog, CatalogBuilder};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn corpus() -> PathBuf {
    let path = std::env::var_os("SKILLDEX_BENCH_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench/c10k"));
    assert!(
        path.is_dir(),
        "{} is missing: run `cargo run --release --example gen_corpus -- target/bench/c10k 10000` first",
        path.display()
    );
    path
}

/// Queries of every kind, made from the corpus's own words so they hit.
fn queries(catalog: &Catalog) -> Vec<String> {
    let mut out = Vec::new();
    for (i, skill) in catalog.skills().iter().enumerate().step_by(97).take(200) {
        let words: Vec<&str> = skill.description.split_whitespace().collect();
        let q = match i % 4 {
            0 => words
                .iter()
                .skip(1)
                .take(4)
                .copied()
                .collect::<Vec<_>>()
                .join(" "),
            1 => skill.name.clone(),
            2 => {
                // A typo in a longer word.
                let w = words
                    .iter()
                    .find(|w| w.len() > 6)
                    .copied()
                    .unwrap_or("widget");
                let mut t: Vec<char> = w.chars().collect();
                t.swap(1, 2);
                format!(
                    "{} {}",
                    t.iter().collect::<String>(),
                    words.last().unwrap_or(&"")
                )
            }
            _ => format!(
                "how do I {}",
                words
                    .iter()
                    .rev()
                    .take(3)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        };
        out.push(q);
    }
    for q in [
        "book a flight to lisbon",
        "tune my guitar strings",
        "restore production database backup",
        "rotate webhook signature",
        "部署容器",
        "select:plan-profile-6730",
    ] {
        out.push(q.to_string());
    }
    out.truncate(300);
    out
}

/// Requests of the length agents send (`benches/requests.txt`).
fn requests() -> Vec<String> {
    include_str!("requests.txt")
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

fn percentiles(
    catalog: &Catalog,
    index: &skilldex::search::SearchIndex,
    queries: &[String],
    what: &str,
) {
    let options = SearchOptions::default();
    let mut times: Vec<Duration> = Vec::new();
    // At least 500 timings, every query the same number of times.
    let runs = 500usize.div_ceil(queries.len().max(1)).max(5);
    for _ in 0..runs {
        for q in queries {
            let start = Instant::now();
            black_box(index.search(catalog, q, &options));
            times.push(start.elapsed());
        }
    }
    times.sort();
    let at = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
    eprintln!(
        "search latency over {} runs of {} {what} on {} skills: p50 {:?}, p90 {:?}, p99 {:?}, max {:?}",
        runs,
        queries.len(),
        catalog.skills().len(),
        at(0.5),
        at(0.9),
        at(0.99),
        times[times.len() - 1]
    );
}

fn bench(c: &mut Criterion) {
    let builder = CatalogBuilder::new([corpus()]);
    let catalog = builder.build().expect("corpus builds");
    let started = Instant::now();
    let index = skilldex::search::SearchIndex::build(&catalog);
    eprintln!(
        "index: built in {:?} ({} skills), about {:.1} MB; scan+build of the catalog took {:?}",
        started.elapsed(),
        catalog.skills().len(),
        index.heap_bytes() as f64 / 1e6,
        catalog.stats().total,
    );
    let queries = queries(&catalog);
    percentiles(&catalog, &index, &queries, "varied queries");
    percentiles(&catalog, &index, &requests(), "agent-style requests");

    let mut group = c.benchmark_group("search");
    let options = SearchOptions::default();
    for (label, q) in [
        ("words", "restore production database backup"),
        ("name", "plan-profile-6730"),
        ("typo", "depolyment vulnerabilty"),
        ("no-match", "book a flight to lisbon"),
        ("cjk", "部署容器"),
    ] {
        group.bench_function(label, |b| {
            b.iter(|| black_box(index.search(&catalog, black_box(q), &options)))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("build");
    group.sample_size(10);
    group.bench_function("scan", |b| {
        b.iter(|| black_box(builder.build().expect("builds")))
    });
    group.bench_function("index", |b| {
        b.iter(|| black_box(SearchIndex::build(&catalog)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
