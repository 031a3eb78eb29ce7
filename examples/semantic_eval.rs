//! The semantic mode's quality and speed on a labelled set: the lexical
//! ranking and the mix at several weights of the cosine, side by side, in
//! one process (the entries are embedded once).
//!
//! ```sh
//! scripts/fetch-test-model.sh
//! cargo run --release --features semantic --example semantic_eval -- \
//!     --model target/test-model                       # evals/search/
//! cargo run --release --features semantic --example semantic_eval -- \
//!     --model target/test-model --root DIR --queries FILE --weights 0.3,0.5,0.7
//! ```
//! Query files are JSON lines (`query`, `kind`, `relevant`), as in
//! `evals/search/`. `--tools` ranks tools (ids `server/tool`) instead of
//! skills, on `evals/tools/` unless `--root` and `--queries` say otherwise.
#![allow(clippy::print_stdout)]

use skilldex::search::{eval, Confidence, EntryKind, SearchIndex, SearchOptions, SemanticModel};
use skilldex::CatalogBuilder;
use std::path::PathBuf;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut roots: Vec<PathBuf> = Vec::new();
    let mut files: Vec<PathBuf> = Vec::new();
    let mut model_dir: Option<PathBuf> = None;
    let mut weights: Vec<f32> = vec![0.3, 0.4, 0.5, 0.6, 0.7];
    let mut limit = usize::MAX;
    let mut tools = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--root" => roots.push(args.next().ok_or("--root needs a folder")?.into()),
            "--queries" => files.push(args.next().ok_or("--queries needs a file")?.into()),
            "--model" => model_dir = Some(args.next().ok_or("--model needs a folder")?.into()),
            "--tools" => tools = true,
            "--first" => limit = args.next().ok_or("--first needs N")?.parse()?,
            "--weights" => {
                weights = args
                    .next()
                    .ok_or("--weights needs a list")?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?;
            }
            other => return Err(format!("unknown argument `{other}`").into()),
        }
    }
    let model_dir = model_dir.ok_or("--model DIR is required")?;
    if roots.is_empty() && tools {
        roots = vec![here.join("evals/tools/catalog")];
    }
    if files.is_empty() && tools {
        files = vec![here.join("evals/tools/queries.jsonl")];
    }
    if roots.is_empty() {
        roots = vec![here.join("skills"), here.join("evals/search/catalog")];
    }
    if files.is_empty() {
        files = vec![
            here.join("evals/search/queries.jsonl"),
            here.join("evals/search/unanswerable.jsonl"),
        ];
    }
    let catalog = CatalogBuilder::new(roots).build()?;
    let mut queries = Vec::new();
    for file in &files {
        queries.extend(eval::parse_queries(&std::fs::read_to_string(file)?)?);
    }
    queries.truncate(limit);
    println!(
        "catalog: {} skills, {} tools; {} queries",
        catalog.skills().len(),
        catalog.tool_count(),
        queries.len()
    );
    let started = Instant::now();
    let mut model = SemanticModel::load(&model_dir, None)?;
    println!(
        "model loaded in {:.0} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    let started = Instant::now();
    let vectors = model.index(&catalog)?;
    println!(
        "embedded {} entries in {:.1} s",
        vectors.stats().embedded,
        started.elapsed().as_secs_f64()
    );
    let index = SearchIndex::build(&catalog);
    let options = SearchOptions {
        limit: 10,
        kind: Some(if tools {
            EntryKind::Tool
        } else {
            EntryKind::Skill
        }),
    };
    let names = |results: &skilldex::search::SearchResults| -> Vec<String> {
        results
            .hits
            .iter()
            .map(|h| match h.kind {
                EntryKind::Skill => catalog.skills()[h.index].name.clone(),
                EntryKind::Tool => h.id(&catalog).to_string(),
            })
            .collect()
    };
    let lexical = eval::evaluate(&queries, &|query: &str| {
        let results = index.search(&catalog, query, &options);
        eval::Ranked {
            names: names(&results),
            no_match: results.no_match,
            low: results.confidence == Confidence::Low,
        }
    });
    println!("\nlexical\n{}", eval::table(&lexical));
    // Each query embedded once; the weights reuse its vector.
    let started = Instant::now();
    let _query_vectors: Vec<Vec<f32>> = queries
        .iter()
        .map(|q| model.query_vector(&q.query))
        .collect::<Result<_, _>>()?;
    println!(
        "queries embedded in {:.2} ms each",
        started.elapsed().as_secs_f64() * 1e3 / queries.len().max(1) as f64
    );
    for weight in weights {
        model = model.with_weight(weight);
        let model = &model;
        let ranker = |query: &str| {
            let results = index
                .search_semantic(&catalog, query, &options, model, &vectors)
                .expect("search");
            eval::Ranked {
                names: names(&results),
                no_match: results.no_match,
                low: results.confidence == Confidence::Low,
            }
        };
        let report = eval::evaluate(&queries, &ranker);
        println!("\nsemantic, weight {weight}\n{}", eval::table(&report));
    }
    Ok(())
}
