//! The semantic mode's speed on a large catalog, side by side in one run:
//! a query's embedding, the first embedding of every entry, a new snapshot
//! with nothing changed, and one with one skill changed (as `serve` and
//! `watch` see it: the file edited, the snapshot rebuilt by the watcher,
//! then its vectors).
//!
//! ```sh
//! scripts/fetch-test-model.sh
//! cargo run --release --example gen_corpus -- target/bench/c10k 10000
//! cargo run --release --features semantic --example semantic_bench -- \
//!     --model target/test-model --root target/bench/c10k
//! ```
//! `--plans` compares ways of cutting the catalog into forward passes
//! (`batch_tokens:max_rows:workers`)
//! on the first `--sample` entries; `--skip-full` leaves out the whole
//! catalog's first embedding.
#![allow(clippy::print_stdout)]

use skilldex::embed::EmbedPlan;
use skilldex::live::{LiveCatalog, WatchOptions};
use skilldex::search::{skill_text, SemanticModel};
use skilldex::CatalogBuilder;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Requests of the length agents send (`benches/requests.txt`).
fn queries() -> Vec<&'static str> {
    include_str!("../benches/requests.txt")
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let queries = queries();
    let mut root: Option<PathBuf> = None;
    let mut model_dir: Option<PathBuf> = None;
    let mut plans: Vec<String> = Vec::new();
    let mut sample = 500usize;
    let mut skip_full = false;
    let mut rounds = 20usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--root" => root = Some(args.next().ok_or("--root needs a folder")?.into()),
            "--model" => model_dir = Some(args.next().ok_or("--model needs a folder")?.into()),
            "--plans" => {
                plans = args
                    .next()
                    .ok_or("--plans needs a list")?
                    .split(',')
                    .map(String::from)
                    .collect()
            }
            "--sample" => sample = args.next().ok_or("--sample needs N")?.parse()?,
            "--rounds" => rounds = args.next().ok_or("--rounds needs N")?.parse()?,
            "--skip-full" => skip_full = true,
            other => return Err(format!("unknown argument `{other}`").into()),
        }
    }
    let root = root.ok_or("--root DIR is required")?;
    let model_dir = model_dir.ok_or("--model DIR is required")?;
    let started = Instant::now();
    let catalog = CatalogBuilder::new([root.clone()]).build()?;
    println!(
        "catalog: {} skills, built in {:.0} ms",
        catalog.skills().len(),
        ms(started.elapsed())
    );
    let started = Instant::now();
    let load = |cache: Option<&Path>| -> Result<SemanticModel, Box<dyn std::error::Error>> {
        Ok(SemanticModel::load(&model_dir, cache)?)
    };
    let mut model = load(None)?;
    println!("model loaded in {:.0} ms", ms(started.elapsed()));
    // Lexical search, no model: the path every search without one takes.
    let index = skilldex::search::SearchIndex::build(&catalog);
    let options = skilldex::search::SearchOptions::skills(8);
    let mut lexical = Vec::new();
    for round in 0..rounds.max(2) * 5 {
        for query in &queries {
            let started = Instant::now();
            std::hint::black_box(index.search(&catalog, query, &options));
            if round > 0 {
                lexical.push(started.elapsed().as_secs_f64() * 1e6);
            }
        }
    }
    println!(
        "lexical search (no model): p50 {:.0} µs, p90 {:.0} µs",
        percentile(&mut lexical, 0.5),
        percentile(&mut lexical, 0.9)
    );
    let default_plan = model.embedder().plan();
    println!("default plan: {default_plan:?}");

    // Queries, one at a time on this thread, as a search embeds them.
    let mut times = Vec::new();
    let mut cpu = 0.0f64;
    for round in 0..rounds {
        let cpu_started = cpu_seconds();
        for query in &queries {
            let started = Instant::now();
            // Each query differs from the one before (the last one's
            // vector is kept), so every one is embedded.
            model.query_vector(query)?;
            if round > 0 {
                times.push(ms(started.elapsed()));
            }
        }
        if round > 0 {
            cpu += cpu_seconds() - cpu_started;
        }
    }
    println!(
        "query embedding: p50 {:.2} ms, p90 {:.2} ms, {:.2} ms of CPU on average, over {} queries",
        percentile(&mut times, 0.5),
        percentile(&mut times, 0.9),
        cpu * 1e3 / times.len().max(1) as f64,
        times.len()
    );

    let texts: Vec<String> = (0..catalog.skills().len())
        .map(|i| skill_text(&catalog, i))
        .collect();
    let started = Instant::now();
    let tokens: usize = texts.iter().map(|t| model.embedder().token_count(t)).sum();
    println!(
        "entry texts: {:.1} tokens on average; tokenized one by one in {:.0} ms",
        tokens as f64 / texts.len().max(1) as f64,
        ms(started.elapsed())
    );

    if !plans.is_empty() {
        // Plans take turns on the same slices of the sample, so a change
        // of the machine's load falls on all of them alike.
        let plans: Vec<EmbedPlan> = plans
            .iter()
            .map(|p| parse_plan(p))
            .collect::<Result<_, _>>()?;
        let sample: Vec<&str> = texts.iter().take(sample).map(String::as_str).collect();
        let slices = 4usize;
        let per_slice = sample.len().div_ceil(slices).max(1);
        let mut wall = vec![0.0f64; plans.len()];
        let mut cpu = vec![0.0f64; plans.len()];
        for slice in sample.chunks(per_slice) {
            for (p, plan) in plans.iter().enumerate() {
                model.embedder_mut().set_plan(*plan);
                let (started, cpu_started) = (Instant::now(), cpu_seconds());
                model.embedder().embed(slice)?;
                wall[p] += started.elapsed().as_secs_f64();
                cpu[p] += cpu_seconds() - cpu_started;
            }
        }
        for (p, plan) in plans.iter().enumerate() {
            println!(
                "plan {plan:?}: {} entries, {:.2} ms/entry wall, {:.2} ms/entry CPU",
                sample.len(),
                wall[p] * 1e3 / sample.len().max(1) as f64,
                cpu[p] * 1e3 / sample.len().max(1) as f64
            );
        }
        model.embedder_mut().set_plan(default_plan);
    }
    if skip_full {
        return Ok(());
    }

    // The first embedding, into an empty cache folder, then a new process
    // (the model loaded again) finding every vector there.
    let cache = tempfile::tempdir()?;
    let model = load(Some(cache.path()))?;
    let (started, cpu_started) = (Instant::now(), cpu_seconds());
    let vectors = model.index(&catalog)?;
    let took = started.elapsed();
    println!(
        "first embedding: {} of {} entries in {:.1} s ({:.2} ms/entry; {:.1} s of CPU)",
        vectors.stats().embedded,
        vectors.stats().entries,
        took.as_secs_f64(),
        ms(took) / vectors.stats().entries.max(1) as f64,
        cpu_seconds() - cpu_started
    );
    let started = Instant::now();
    let again = load(Some(cache.path()))?;
    let loaded = started.elapsed();
    let started = Instant::now();
    let vectors = again.index(&catalog)?;
    println!(
        "a new process: model and cache loaded in {:.0} ms, vectors of {} entries ({} embedded) in {:.1} ms",
        ms(loaded),
        vectors.stats().entries,
        vectors.stats().embedded,
        ms(started.elapsed())
    );

    // One skill changed, as `serve` sees it.
    let copy = tempfile::tempdir()?;
    copy_tree(&root, copy.path())?;
    let live = LiveCatalog::start(
        CatalogBuilder::new([copy.path().to_path_buf()]),
        WatchOptions::default(),
    )?;
    let first = live.snapshot();
    let started = Instant::now();
    let vectors = model.index(&first)?;
    println!(
        "the copy's first snapshot: {} embedded, vectors in {:.1} ms",
        vectors.stats().embedded,
        ms(started.elapsed())
    );
    let mut ends = Vec::new();
    let mut rebuilds = Vec::new();
    for round in 0..5 {
        let skill = &first.skills()[round * 997 % first.skills().len()];
        let text = std::fs::read_to_string(&skill.path)?;
        let edited = text.replacen(
            "description: ",
            &format!("description: Round {round} of the edit bench. "),
            1,
        );
        let before = live.snapshot();
        let started = Instant::now();
        std::fs::write(&skill.path, edited)?;
        let deadline = Instant::now() + Duration::from_secs(30);
        let next = loop {
            let now = live.snapshot();
            if now.revision() != before.revision() {
                break now;
            }
            if Instant::now() > deadline {
                return Err("the watcher saw no change in 30 s".into());
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        let swapped = started.elapsed();
        let indexed = Instant::now();
        let vectors = model.index(&next)?;
        let index_took = indexed.elapsed();
        assert_eq!(vectors.stats().embedded, 1, "{:?}", vectors.stats());
        rebuilds.push(ms(swapped));
        ends.push(ms(index_took));
    }
    live.stop();
    println!(
        "one skill edited: the watcher's new snapshot after {:.0} ms (p50; debounce {} ms included), its vectors (1 embedded) {:.1} ms p50, {:.1} ms max",
        percentile(&mut rebuilds, 0.5),
        WatchOptions::default().debounce.as_millis(),
        percentile(&mut ends, 0.5),
        ends.iter().copied().fold(0.0, f64::max)
    );
    Ok(())
}

fn parse_plan(text: &str) -> Result<EmbedPlan, Box<dyn std::error::Error>> {
    let parts: Vec<usize> = text.split(':').map(str::parse).collect::<Result<_, _>>()?;
    let [batch_tokens, max_rows, workers] = parts[..] else {
        return Err(format!("a plan is batch_tokens:max_rows:workers, not `{text}`").into());
    };
    Ok(EmbedPlan {
        batch_tokens,
        max_rows,
        workers,
    })
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            std::fs::create_dir_all(&target)?;
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

/// CPU time of this process so far (user and system, every thread), from
/// `/proc/self/stat` on Linux; 0 elsewhere.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // After the command name in parentheses: utime and stime are the 12th
    // and 13th fields, in clock ticks (100 a second on Linux).
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn percentile(values: &mut [f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    values[((values.len() - 1) as f64 * p).round() as usize]
}
