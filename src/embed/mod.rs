//! Sentence embeddings for the semantic search mode: the model folder, the
//! encoder, the on-disk cache of vectors, and `model fetch`'s download.
//!
//! A model is a local folder in the sentence-transformers layout
//! (`config.json`, `tokenizer.json`, `model.safetensors`); all-MiniLM-L6-v2
//! is the one we test with. [`Embedder`] (the `semantic` feature) runs it in
//! process on the CPU (our encoder over `gemm`): no server, no network at search time.
//! [`EmbeddingCache`] keeps the vectors of texts already embedded, keyed by
//! the model's id (a hash of its files) and the text's hash, so a vector
//! can never belong to another text or model, and only new texts cost an
//! embedding. What an entry's text is, and how its vector is mixed with the
//! lexical score, is the search module's business (`search::semantic`);
//! this module knows texts and vectors only. It imports nothing of ours but
//! the hasher, and never prints.
//!
//! The cache, the model folder check and the download logic build without
//! the feature (they are plain Rust), so they are tested in every build.

#[cfg(feature = "semantic")]
mod bert;
mod cache;
pub mod fetch;
#[cfg(feature = "semantic")]
mod model;

pub use cache::{cache_dir, text_key, EmbeddingCache};
#[cfg(all(test, feature = "semantic"))]
pub(crate) use model::tests::test_model;
#[cfg(feature = "semantic")]
pub use model::{EmbedPlan, Embedder};

use std::path::{Path, PathBuf};

/// The files of a model folder, in the order they are checked.
pub const MODEL_FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

/// Why a model could not be loaded or run.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("{}: the model folder does not exist — get all-MiniLM-L6-v2 there with `skilldex model fetch --dir {}`, or pass the folder of a sentence-transformers model", dir.display(), dir.display())]
    NoFolder { dir: PathBuf },
    #[error("{}: no {file} in the model folder — a model folder holds config.json, tokenizer.json and model.safetensors (the sentence-transformers layout); get them with `skilldex model fetch --dir {}`", dir.display(), dir.display())]
    MissingFile { dir: PathBuf, file: &'static str },
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A model file that is there but unusable; `at` is `path[:line:column]`.
    #[error("{at}: {message}")]
    Invalid { at: String, message: String },
    #[error("embedding failed: {0}")]
    Inference(String),
    #[error("semantic search is not built into this skilldex — build it with `cargo install skilldex --features semantic`")]
    NotBuilt,
}

/// Check that `dir` is a model folder with every file the encoder needs,
/// naming the first one missing.
pub fn check_model_dir(dir: &Path) -> Result<(), EmbedError> {
    if !dir.is_dir() {
        return Err(EmbedError::NoFolder {
            dir: dir.to_path_buf(),
        });
    }
    for file in MODEL_FILES {
        if !dir.join(file).is_file() {
            return Err(EmbedError::MissingFile {
                dir: dir.to_path_buf(),
                file,
            });
        }
    }
    Ok(())
}

/// Cosine of two unit vectors (their dot product).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_model_file_is_named_with_the_way_to_get_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("config.json"), "{}").unwrap();
        let message = check_model_dir(dir.path()).unwrap_err().to_string();
        assert!(message.contains("no tokenizer.json"), "{message}");
        assert!(message.contains("skilldex model fetch --dir"), "{message}");
        let gone = dir.path().join("nope");
        let message = check_model_dir(&gone).unwrap_err().to_string();
        assert!(message.contains("does not exist"), "{message}");
    }
}
