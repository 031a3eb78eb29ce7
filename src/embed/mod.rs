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
//! the hasher, `contain`'s reader of regular files and `paths`' temporary names, and never prints.
//!
//! **Hostile folders.** Every file of a model folder (and the cache file)
//! is opened without blocking, checked to be a regular file on the open
//! descriptor and sized before a byte is read ([`MAX_CONFIG_BYTES`],
//! [`MAX_TOKENIZER_BYTES`], [`MAX_WEIGHTS_BYTES`]): a pipe or a device in
//! its place is refused by name at once, never waited on or read forever.
//! `config.json`'s sizes are bounded and every tensor's shape is checked
//! against them before it is used.
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

/// `config.json` and `sentence_bert_config.json` are refused past this
/// (all-MiniLM-L6-v2's are under 1 KiB).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// `tokenizer.json` is refused past this (all-MiniLM-L6-v2's is 455 KiB;
/// the largest multilingual ones are under 20 MiB).
pub const MAX_TOKENIZER_BYTES: u64 = 64 << 20;
/// `model.safetensors` is refused past this (all-MiniLM-L6-v2's is 87 MiB,
/// BERT-large's 1.3 GiB): the file is read whole and its tensors copied
/// as f32, so twice this is the memory a model may take.
pub const MAX_WEIGHTS_BYTES: u64 = 2 << 30;

/// Why a model could not be loaded or run.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("{}: the model folder does not exist — get all-MiniLM-L6-v2 there with `skilldex model fetch --dir {}`, or pass the folder of a sentence-transformers model", dir.display(), dir.display())]
    NoFolder { dir: PathBuf },
    #[error("{}: it is {what}, not a folder — pass the folder of a sentence-transformers model (config.json, tokenizer.json, model.safetensors); `skilldex model fetch --dir DIR` writes one", dir.display())]
    NotAFolder { dir: PathBuf, what: &'static str },
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
/// A file that is there but not a regular one (a pipe, a device, a folder)
/// is not "missing": reading it says what it is.
pub fn check_model_dir(dir: &Path) -> Result<(), EmbedError> {
    match std::fs::metadata(dir) {
        Ok(metadata) if metadata.is_dir() => {}
        Ok(metadata) => {
            return Err(EmbedError::NotAFolder {
                dir: dir.to_path_buf(),
                what: if metadata.is_file() {
                    "a file"
                } else {
                    crate::contain::kind_name(metadata.file_type())
                },
            })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(EmbedError::NoFolder {
                dir: dir.to_path_buf(),
            })
        }
        Err(source) => {
            return Err(EmbedError::Read {
                path: dir.to_path_buf(),
                source,
            })
        }
    }
    for file in MODEL_FILES {
        if let Err(e) = std::fs::metadata(dir.join(file)) {
            if e.kind() == std::io::ErrorKind::NotFound {
                return Err(EmbedError::MissingFile {
                    dir: dir.to_path_buf(),
                    file,
                });
            }
        }
    }
    Ok(())
}

/// The bytes of the model file `path`: a regular file (opened without
/// blocking, checked on the open descriptor) of at most `max` bytes.
pub fn read_model_file(path: &Path, max: u64) -> Result<Vec<u8>, EmbedError> {
    crate::contain::read_regular(path, max).map_err(|source| match source.kind() {
        // Not a regular file, or too large: say what to put there.
        std::io::ErrorKind::InvalidInput | std::io::ErrorKind::InvalidData => {
            EmbedError::Invalid {
                at: path.display().to_string(),
                message: format!(
                    "{source} — a model folder holds the model's own regular files; `skilldex model fetch --dir DIR` writes them"
                ),
            }
        }
        _ => EmbedError::Read {
            path: path.to_path_buf(),
            source,
        },
    })
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
