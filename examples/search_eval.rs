//! Search quality on a labelled set: Recall@1, Recall@5, MRR, and how
//! honest the answers are (answered, flagged high, declined), for skilldex
//! and for a plain BM25 baseline on the same catalog.
//!
//! ```sh
//! cargo run --release --example search_eval            # evals/search/, table
//! cargo run --release --example search_eval -- --misses
//! # another catalog and query file (JSON lines: query, kind, relevant)
//! cargo run --release --example search_eval -- --root DIR --queries FILE
//! ```
//! With no `--queries`, both files of `evals/search/` are scored: the
//! labelled queries and the requests no skill answers.
#![allow(clippy::print_stdout)]

use skilldex::search::eval;
use skilldex::CatalogBuilder;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut misses = false;
    let mut roots: Vec<PathBuf> = Vec::new();
    let mut files: Vec<PathBuf> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--misses" => misses = true,
            "--root" => roots.push(args.next().ok_or("--root needs a folder")?.into()),
            "--queries" => files.push(args.next().ok_or("--queries needs a file")?.into()),
            other => return Err(format!("unknown argument `{other}`").into()),
        }
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
