//! Tool search on a generated 10,000-tool catalog (100 servers of 100
//! tools): query latency in process, hierarchical and flat scoring side by
//! side in one run, and what building the catalog and the index costs.
//!
//! ```sh
//! python3 benches/gen_tools.py target/bench/t10k 100 100
//! cargo bench --bench tool_search
//! ```
//! `SKILLDEX_BENCH_TOOLS` points at another catalog.
#![allow(clippy::print_stderr)]

use skilldex::search::{EntryKind, SearchIndex, SearchOptions, ToolScoring};
use skilldex::{Catalog, CatalogBuilder};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn catalog_path() -> PathBuf {
    let path = std::env::var_os("SKILLDEX_BENCH_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench/t10k"));
    assert!(
        path.is_dir(),
        "{} is missing: run `python3 benches/gen_tools.py target/bench/t10k 100 100` first",
        path.display()
    );
    path
}

/// Queries made from the catalog's own words: a tool's words, a name, a
/// server and a task, a typo, and a few that match nothing.
fn queries(catalog: &Catalog) -> Vec<String> {
    let mut out = Vec::new();
    for (i, (server, tool)) in catalog.tools().enumerate().step_by(41).take(240) {
        let words: Vec<&str> = tool.description.split_whitespace().collect();
        out.push(match i % 4 {
            0 => words.iter().take(5).copied().collect::<Vec<_>>().join(" "),
            1 => tool.name.clone(),
            2 => format!(
                "{} {}",
                server.name.split('-').next().unwrap_or(""),
                words[..3].join(" ")
            ),
            _ => {
                let mut t: Vec<char> = words[2].chars().collect();
                if t.len() > 3 {
                    t.swap(1, 2);
                }
                format!("{} {}", t.iter().collect::<String>(), words[0])
            }
        });
    }
    for q in [
        "book a flight to lisbon",
        "tune my guitar strings",
        "部署容器",
    ] {
        out.push(q.to_string());
    }
    out
}

fn latency(
    catalog: &Catalog,
    index: &SearchIndex,
    queries: &[String],
    kind: Option<EntryKind>,
) -> Vec<Duration> {
    let options = SearchOptions { limit: 8, kind };
    let mut times = Vec::new();
    for _ in 0..5 {
        for q in queries {
            let start = Instant::now();
            black_box(index.search(catalog, q, &options));
            times.push(start.elapsed());
        }
    }
    times.sort();
    times
}

fn main() {
    let started = Instant::now();
    let catalog = CatalogBuilder::new([catalog_path()])
        .build()
        .expect("the catalog builds");
    eprintln!(
        "catalog: {} tools on {} servers, built (scan, parse, sanitise) in {:?}",
        catalog.tool_count(),
        catalog.tool_servers().len(),
        started.elapsed()
    );
    let queries = queries(&catalog);
    eprintln!("{} queries, 5 runs each", queries.len());
    for (label, scoring) in [
        ("hierarchical", ToolScoring::Hierarchical),
        ("flat", ToolScoring::Flat),
    ] {
        let started = Instant::now();
        let index = SearchIndex::build_with(&catalog, scoring);
        let built = started.elapsed();
        for (kinds, kind) in [("tools", Some(EntryKind::Tool)), ("all", None)] {
            let times = latency(&catalog, &index, &queries, kind);
            let at = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
            eprintln!(
                "{label:<12} {kinds:<5} p50 {:>9?}  p90 {:>9?}  p99 {:>9?}  max {:>9?}  (index built in {built:?}, {:.1} MB)",
                at(0.5),
                at(0.9),
                at(0.99),
                times[times.len() - 1],
                index.heap_bytes() as f64 / 1e6
            );
        }
    }
}
