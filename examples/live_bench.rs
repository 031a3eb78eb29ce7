//! Live catalog benchmark: how fast an edit becomes visible, what one
//! edit costs against a full scan, and whether memory stays flat.
//!
//! `cargo run --release --example live_bench -- CORPUS [EDITS] [RSS_EDITS]`
//!
//! CORPUS is a folder of skills it may edit (benches/live.sh copies the
//! generated 10k corpus for it). With default watch settings it:
//! 1. builds the catalog from scratch 5 times (the full-scan reference);
//! 2. starts a `LiveCatalog`, then EDITS times (default 200) rewrites one
//!    skill's SKILL.md with a new description and waits until a snapshot
//!    shows it: write → visible latency, and the rebuild's own time;
//! 3. makes RSS_EDITS more edits (default 1,000) and samples the
//!    process's resident memory every 100.
//!
//! It prints a summary and one JSON line (`{"p50_ms",…}`) at the end.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use skilldex::live::{LiveCatalog, WatchOptions};
use skilldex::CatalogBuilder;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let corpus = PathBuf::from(
        args.next()
            .expect("usage: live_bench CORPUS [EDITS] [RSS_EDITS]"),
    );
    let edits: usize = args
        .next()
        .map_or(200, |a| a.parse().expect("EDITS is a number"));
    let rss_edits: usize = args
        .next()
        .map_or(1000, |a| a.parse().expect("RSS_EDITS is a number"));
    let builder = CatalogBuilder::new([&corpus]);

    let mut full = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let catalog = builder.build().expect("the corpus builds");
        full.push(started.elapsed());
        drop(catalog);
    }
    full.sort();
    let full_median = full[full.len() / 2];
    eprintln!("full scan: median {:.1} ms", ms(full_median));

    let options = WatchOptions::default();
    let started = Instant::now();
    let live =
        LiveCatalog::start(builder.clone(), options.clone()).expect("the live catalog starts");
    let start_time = started.elapsed();
    let skills: Vec<PathBuf> = live
        .snapshot()
        .skills()
        .iter()
        .map(|s| s.path.clone())
        .collect();
    eprintln!(
        "live start (watch + first build): {:.1} ms, {} skills, debounce {} ms",
        ms(start_time),
        skills.len(),
        options.debounce.as_millis()
    );

    // EDIT_SPREAD=N edits only the first N skills (default: all of them).
    let spread = std::env::var("EDIT_SPREAD")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(skills.len())
        .clamp(1, skills.len());
    let mut latencies = Vec::new();
    let mut rebuilds = Vec::new();
    let mut scans = Vec::new();
    let mut counter = 0usize;
    // Descriptions unique to this run, so a corpus edited before still changes.
    let run = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let mut edit = |index: usize, live: &LiveCatalog| -> Duration {
        counter += 1;
        let path = &skills[(index * 7919) % spread];
        let description =
            format!("Edited description {run}-{counter}. Use when benchmarking edits.");
        let written = rewrite(path, &description);
        let deadline = written + Duration::from_secs(30);
        loop {
            let snapshot = live.snapshot();
            if snapshot
                .skills()
                .iter()
                .any(|s| s.path == *path && s.description == description)
            {
                return written.elapsed();
            }
            assert!(Instant::now() < deadline, "edit {counter} never showed up");
            std::thread::sleep(Duration::from_micros(500));
        }
    };
    let patched_before = live.stats().patched;
    for index in 0..edits {
        latencies.push(edit(index, &live));
        rebuilds.push(live.stats().last_rebuild);
        scans.push(live.stats().last_rebuild_scan);
        // Let each edit stand alone (no debouncing of two edits into one).
        std::thread::sleep(Duration::from_millis(20));
    }
    let patched = live.stats().patched - patched_before;
    latencies.sort();
    rebuilds.sort();
    scans.sort();
    let p50 = latencies[latencies.len() / 2];
    let p99 = latencies[(latencies.len() * 99 / 100).min(latencies.len() - 1)];
    let rebuild = rebuilds[rebuilds.len() / 2];
    let share = rebuild.as_secs_f64() / full_median.as_secs_f64() * 100.0;
    eprintln!(
        "write → visible over {edits} edits: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        ms(p50),
        ms(p99),
        ms(*latencies.last().unwrap())
    );
    eprintln!(
        "one-file rebuild: median {:.2} ms (walking and reading {:.2} ms) = {share:.2}% of a full scan ({patched} of {edits} patched in place)",
        ms(rebuild),
        ms(scans[scans.len() / 2])
    );

    let mut rss = vec![resident_kb()];
    for index in 0..rss_edits {
        edit(edits + index, &live);
        if (index + 1) % 100 == 0 {
            rss.push(resident_kb());
        }
    }
    let first = rss[1.min(rss.len() - 1)];
    let last = *rss.last().unwrap();
    eprintln!(
        "RSS over {rss_edits} more edits (every 100): {:?} KB; after the first 100 → end: {:+} KB",
        rss,
        last as i64 - first as i64
    );
    let stats = live.stats();
    eprintln!("stats: {stats:?}");
    live.stop();
    println!(
        "{}",
        serde_json::json!({
            "skills": skills.len(),
            "debounce_ms": options.debounce.as_millis() as u64,
            "full_scan_ms": ms(full_median),
            "p50_ms": ms(p50),
            "p99_ms": ms(p99),
            "rebuild_ms": ms(rebuild),
            "rebuild_share_percent": share,
            "rss_kb": rss,
        })
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Replace the description line of a generated SKILL.md; returns when the
/// write is done.
fn rewrite(path: &Path, description: &str) -> Instant {
    let text = std::fs::read_to_string(path).expect("a skill file");
    let mut out = String::with_capacity(text.len() + 64);
    let mut in_header = false;
    let mut replaced = false;
    let mut skipping = false;
    for (n, line) in text.lines().enumerate() {
        if n == 0 && line == "---" {
            in_header = true;
            out.push_str(line);
            out.push('\n');
            continue;
        }
        if in_header && line == "---" {
            in_header = false;
            skipping = false;
        }
        if in_header && line.starts_with("description:") {
            out.push_str("description: ");
            out.push_str(description);
            out.push('\n');
            replaced = true;
            skipping = true; // drop continuation lines of a folded description
            continue;
        }
        if skipping && (line.starts_with(' ') || line.is_empty()) {
            continue;
        }
        skipping = false;
        out.push_str(line);
        out.push('\n');
    }
    assert!(replaced, "no description line in {}", path.display());
    std::fs::write(path, out).expect("the write");
    Instant::now()
}

fn resident_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}
