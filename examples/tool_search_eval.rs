//! Tool search quality on a labelled set: Recall@1, Recall@5 and MRR of
//! skilldex's tool search with hierarchical scoring (a server's evidence
//! apart, lifting its tools) against flat scoring (the server's text a
//! field of each tool), on the same catalog, and a plain BM25 over each
//! tool's name, description and parameters.
//!
//! ```sh
//! cargo run --release --example tool_search_eval             # evals/tools/
//! cargo run --release --example tool_search_eval -- --misses
//! cargo run --release --example tool_search_eval -- --root DIR --queries FILE
//! ```
#![allow(clippy::print_stdout)]

use skilldex::search::{eval, ToolScoring};
use skilldex::CatalogBuilder;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut misses = false;
    let mut root = here.join("evals/tools/catalog");
    let mut queries = here.join("evals/tools/queries.jsonl");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--misses" => misses = true,
            "--root" => root = PathBuf::from(args.next().ok_or("--root needs a folder")?),
            "--queries" => queries = PathBuf::from(args.next().ok_or("--queries needs a file")?),
            other => return Err(format!("unknown argument `{other}`").into()),
        }
    }
    let catalog = CatalogBuilder::new([root]).build()?;
    let labelled = eval::parse_queries(&std::fs::read_to_string(&queries)?)?;
    println!(
        "{} tools on {} servers, {} queries",
        catalog.tool_count(),
        catalog.tool_servers().len(),
        labelled.len()
    );
    println!("scoring       R@1    R@5    MRR    answered  high");
    for (label, scoring) in [
        ("hierarchical", ToolScoring::Hierarchical),
        ("flat", ToolScoring::Flat),
    ] {
        let ranker = eval::tool_ranker(&catalog, scoring);
        let report = eval::evaluate(&labelled, &ranker);
        let s = &report.overall;
        println!(
            "{label:<13} {:.3}  {:.3}  {:.3}  {:.3}     {:.3}",
            s.r1(),
            s.r5(),
            s.mrr(),
            s.answered_share(),
            s.high_share()
        );
        if misses {
            for miss in &report.misses {
                println!("  {miss}");
            }
        }
    }
    let report = eval::evaluate(&labelled, &eval::tool_bm25_ranker(&catalog));
    let s = &report.overall;
    println!(
        "{:<13} {:.3}  {:.3}  {:.3}  {:.3}     {:.3}",
        "plain BM25",
        s.r1(),
        s.r5(),
        s.mrr(),
        s.answered_share(),
        s.high_share()
    );
    Ok(())
}
