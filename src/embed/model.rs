//! [`Embedder`]: a model folder loaded for inference — its tokenizer with
//! padding and truncation set by us, its BERT encoder, and its id.

use super::bert::{Bert, BertConfig};
use super::{check_model_dir, EmbedError};
use crate::hash::StableHasher;
use candle_core::{DType, Device};
use candle_nn::VarBuilder;
use std::path::{Path, PathBuf};
use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

/// Texts are cut to this many tokens (sentence-transformers' `max_seq_length`
/// for all-MiniLM-L6-v2; `sentence_bert_config.json` may say otherwise).
const DEFAULT_MAX_TOKENS: usize = 256;
/// Texts embedded in one forward pass, sorted by length so that a batch
/// pads little.
const BATCH: usize = 32;

/// A sentence encoder loaded from a model folder.
pub struct Embedder {
    tokenizer: Tokenizer,
    bert: Bert,
    id: String,
    dimension: usize,
    dir: PathBuf,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("dir", &self.dir)
            .field("id", &self.id)
            .field("dimension", &self.dimension)
            .finish()
    }
}

fn invalid(path: &Path, message: impl std::fmt::Display) -> EmbedError {
    EmbedError::Invalid {
        at: path.display().to_string(),
        message: message.to_string(),
    }
}

fn read(path: &Path) -> Result<Vec<u8>, EmbedError> {
    std::fs::read(path).map_err(|source| EmbedError::Read {
        path: path.to_path_buf(),
        source,
    })
}

impl Embedder {
    /// Load the model in `dir` (sentence-transformers layout).
    pub fn load(dir: &Path) -> Result<Embedder, EmbedError> {
        check_model_dir(dir)?;
        let config_path = dir.join("config.json");
        let config_bytes = read(&config_path)?;
        let config: BertConfig =
            serde_json::from_slice(&config_bytes).map_err(|e| EmbedError::Invalid {
                at: format!("{}:{}:{}", config_path.display(), e.line(), e.column()),
                message: format!("{e} — config.json should be the model's own (a BERT config)"),
            })?;
        config.check().map_err(|m| invalid(&config_path, m))?;

        let tokenizer_path = dir.join("tokenizer.json");
        let tokenizer_bytes = read(&tokenizer_path)?;
        let mut tokenizer = Tokenizer::from_bytes(&tokenizer_bytes)
            .map_err(|e| invalid(&tokenizer_path, format!("not a tokenizer: {e}")))?;
        // The shipped tokenizer pads every text to 128 tokens: off, since a
        // batch is padded by us with an attention mask. Truncation at the
        // model's sequence length, never at the tokenizer's 128.
        let max_tokens = max_tokens(dir).min(config.max_position_embeddings);
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                direction: TruncationDirection::Right,
                max_length: max_tokens,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
            }))
            .map_err(|e| invalid(&tokenizer_path, e))?;

        let weights_path = dir.join("model.safetensors");
        let weights = read(&weights_path)?;
        let mut hasher = StableHasher::new();
        for part in [&config_bytes, &tokenizer_bytes, &weights] {
            hasher.write(part);
        }
        hasher.write(&(max_tokens as u64).to_le_bytes());
        let id = format!("{:016x}", hasher.finish());
        let device = Device::Cpu;
        let vb = VarBuilder::from_slice_safetensors(&weights, DType::F32, &device)
            .map_err(|e| invalid(&weights_path, format!("not a safetensors file: {e}")))?;
        let bert = Bert::load(vb, &config).map_err(|e| {
            invalid(
                &weights_path,
                format!("the weights do not fit config.json: {e}"),
            )
        })?;
        Ok(Embedder {
            tokenizer,
            bert,
            id,
            dimension: config.hidden_size,
            dir: dir.to_path_buf(),
        })
    }

    /// A hash of the model's files (and its sequence length): vectors made
    /// with one id are comparable with each other only.
    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn dimension(&self) -> usize {
        self.dimension
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Unit vectors for `texts`, in their order.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| EmbedError::Inference(format!("tokenizing failed: {e}")))?;
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let mut vectors = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(BATCH) {
            let length = chunk
                .iter()
                .map(|&i| encodings[i].get_ids().len())
                .max()
                .unwrap_or(0)
                .max(1);
            let mut ids = vec![0u32; chunk.len() * length];
            let mut mask = vec![0u32; chunk.len() * length];
            for (row, &i) in chunk.iter().enumerate() {
                let own = encodings[i].get_ids();
                ids[row * length..row * length + own.len()].copy_from_slice(own);
                mask[row * length..row * length + own.len()].fill(1);
            }
            let rows = self
                .bert
                .embed(&ids, &mask, chunk.len(), length)
                .and_then(|t| t.to_vec2::<f32>())
                .map_err(|e| EmbedError::Inference(e.to_string()))?;
            for (&i, row) in chunk.iter().zip(rows) {
                vectors[i] = row;
            }
        }
        Ok(vectors)
    }

    /// The number of tokens `text` becomes (after truncation).
    pub fn token_count(&self, text: &str) -> usize {
        self.tokenizer
            .encode(text, true)
            .map_or(0, |e| e.get_ids().len())
    }
}

/// `max_seq_length` of `sentence_bert_config.json`, when the folder has one.
fn max_tokens(dir: &Path) -> usize {
    std::fs::read(dir.join("sentence_bert_config.json"))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .and_then(|v| v.get("max_seq_length")?.as_u64())
        .map_or(DEFAULT_MAX_TOKENS, |n| (n as usize).clamp(8, 8192))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The test model (`scripts/fetch-test-model.sh`), or None with the
    /// reason printed: a test that needs it then passes without running,
    /// unless `SKILLDEX_REQUIRE_MODEL` is set (as CI does), when it fails.
    #[allow(clippy::print_stderr)]
    pub(crate) fn test_model() -> Option<PathBuf> {
        let dir = std::env::var_os("SKILLDEX_TEST_MODEL")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-model"));
        if dir.join("model.safetensors").is_file() {
            return Some(dir);
        }
        assert!(
            std::env::var_os("SKILLDEX_REQUIRE_MODEL").is_none(),
            "SKILLDEX_REQUIRE_MODEL is set but {} has no model — run scripts/fetch-test-model.sh",
            dir.display()
        );
        eprintln!(
            "skipped: no test model in {} (run scripts/fetch-test-model.sh)",
            dir.display()
        );
        None
    }

    #[derive(serde::Deserialize)]
    struct Reference {
        sentences: Vec<Sentence>,
        cosines: Vec<Vec<f32>>,
    }

    #[derive(serde::Deserialize)]
    struct Sentence {
        text: String,
        tokens: usize,
        first: Vec<f32>,
    }

    fn reference() -> Reference {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/semantic/reference.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn vectors_match_the_reference_implementation() {
        let Some(dir) = test_model() else { return };
        let embedder = Embedder::load(&dir).unwrap();
        assert_eq!(embedder.dimension(), 384);
        let reference = reference();
        let texts: Vec<&str> = reference
            .sentences
            .iter()
            .map(|s| s.text.as_str())
            .collect();
        // One batch (padded, with a mask) and one text at a time agree.
        let batch = embedder.embed(&texts).unwrap();
        for (i, sentence) in reference.sentences.iter().enumerate() {
            // Padding off: a short text is as many tokens as it has, and a
            // long one is cut at 256.
            assert_eq!(
                embedder.token_count(&sentence.text),
                sentence.tokens,
                "{}",
                sentence.text
            );
            let alone = embedder.embed(&[sentence.text.as_str()]).unwrap().remove(0);
            let norm: f32 = alone.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
            for (j, (&got, &want)) in alone.iter().zip(&sentence.first).enumerate() {
                assert!(
                    (got - want).abs() < 2e-4,
                    "{:?}[{j}]: {got} vs {want}",
                    sentence.text
                );
            }
            assert!(
                crate::embed::cosine(&alone, &batch[i]) > 0.9999,
                "{}",
                sentence.text
            );
        }
        for (i, row) in reference.cosines.iter().enumerate() {
            for (j, &want) in row.iter().enumerate() {
                let got = crate::embed::cosine(&batch[i], &batch[j]);
                assert!((got - want).abs() < 1e-3, "cos({i},{j}) {got} vs {want}");
            }
        }
    }

    #[test]
    fn a_folder_that_is_not_a_bert_model_is_refused_by_file() {
        let dir = tempfile::tempdir().unwrap();
        for file in super::super::MODEL_FILES {
            std::fs::write(dir.path().join(file), "{").unwrap();
        }
        let message = Embedder::load(dir.path()).unwrap_err().to_string();
        assert!(message.contains("config.json:1:"), "{message}");
        std::fs::write(dir.path().join("config.json"), r#"{"model_type": "t5", "vocab_size": 1, "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 1, "intermediate_size": 8, "max_position_embeddings": 8}"#).unwrap();
        let message = Embedder::load(dir.path()).unwrap_err().to_string();
        assert!(message.contains("model_type is `t5`"), "{message}");
        let Some(model) = test_model() else { return };
        std::fs::copy(model.join("config.json"), dir.path().join("config.json")).unwrap();
        let message = Embedder::load(dir.path()).unwrap_err().to_string();
        assert!(
            message.contains("tokenizer.json") && message.contains("not a tokenizer"),
            "{message}"
        );
        std::fs::copy(
            model.join("tokenizer.json"),
            dir.path().join("tokenizer.json"),
        )
        .unwrap();
        let message = Embedder::load(dir.path()).unwrap_err().to_string();
        assert!(message.contains("model.safetensors"), "{message}");
    }
}
