//! Search quality on the labelled set in `evals/search/`: Recall@1,
//! Recall@5, MRR and no-match precision, for skilldex and for a plain BM25
//! baseline on the same catalog.
//!
//! ```sh
//! cargo run --release --example search_eval            # table
//! cargo run --release --example search_eval -- --misses
//! ```
#![allow(clippy::print_stdout)]

use skilldex::search::eval;
use skilldex::CatalogBuilder;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let misses = std::env::args().any(|a| a == "--misses");
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let catalog =
        CatalogBuilder::new([here.join("skills"), here.join("evals/search/catalog")]).build()?;
    let queries = eval::parse_queries(&std::fs::read_to_string(
        here.join("evals/search/queries.jsonl"),
    )?)?;
    println!(
        "catalog: {} skills, {} namespaces; {} queries\n",
        catalog.skills().len(),
        catalog.namespaces().len(),
        queries.len()
    );
    let ours = eval::evaluate(&queries, &eval::skilldex_ranker(&catalog));
    println!("skilldex search\n{}", eval::table(&ours));
    let baseline = eval::evaluate(&queries, &eval::bm25_ranker(&catalog));
    println!(
        "plain BM25 (name + description, no stemming)\n{}",
        eval::table(&baseline)
    );
    if misses {
        println!("misses:");
        for m in &ours.misses {
            println!("  {m}");
        }
    }
    Ok(())
}
