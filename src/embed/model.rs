//! [`Embedder`]: a model folder loaded for inference — its tokenizer with
//! padding and truncation set by us, its BERT encoder, and its id.

use super::bert::Weights;
use super::bert::{Bert, BertConfig};
use super::{check_model_dir, read_model_file, EmbedError};
use super::{MAX_CONFIG_BYTES, MAX_TOKENIZER_BYTES, MAX_WEIGHTS_BYTES};
use crate::hash::StableHasher;
use std::path::{Path, PathBuf};
use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

/// Texts are cut to this many tokens (sentence-transformers' `max_seq_length`
/// for all-MiniLM-L6-v2; `sentence_bert_config.json` may say otherwise).
const DEFAULT_MAX_TOKENS: usize = 256;

/// How a batch of texts is cut into forward passes and spread over cores.
///
/// Texts are sorted by length and grouped so that a pass holds at most
/// `batch_tokens` tokens and `max_rows` texts (texts are stacked without
/// padding, so the bound is on memory and cache, not on waste). The passes
/// are shared by `workers` threads; each pass runs on one thread, its
/// matrix products included, so two cores embed two passes at once. A
/// single text (a query) is embedded on the calling thread. The vectors
/// are the same whatever the plan (a test checks it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmbedPlan {
    pub batch_tokens: usize,
    pub max_rows: usize,
    pub workers: usize,
}

impl Default for EmbedPlan {
    fn default() -> Self {
        EmbedPlan {
            batch_tokens: DEFAULT_BATCH_TOKENS,
            max_rows: 32,
            workers: std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .min(MAX_WORKERS),
        }
    }
}

/// See [`EmbedPlan`]: chosen with `examples/semantic_bench.rs` on 10,000
/// skills (docs/search.md has the figures).
const DEFAULT_BATCH_TOKENS: usize = 2048;
/// More workers than this add memory, not speed, on a laptop.
const MAX_WORKERS: usize = 4;

/// A sentence encoder loaded from a model folder.
pub struct Embedder {
    tokenizer: Tokenizer,
    bert: Bert,
    id: String,
    dimension: usize,
    dir: PathBuf,
    plan: EmbedPlan,
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

impl Embedder {
    /// Load the model in `dir` (sentence-transformers layout).
    pub fn load(dir: &Path) -> Result<Embedder, EmbedError> {
        check_model_dir(dir)?;
        let config_path = dir.join("config.json");
        let config_bytes = read_model_file(&config_path, MAX_CONFIG_BYTES)?;
        let config: BertConfig =
            serde_json::from_slice(&config_bytes).map_err(|e| EmbedError::Invalid {
                at: format!("{}:{}:{}", config_path.display(), e.line(), e.column()),
                message: format!("{e} — config.json should be the model's own (a BERT config)"),
            })?;
        config.check().map_err(|m| invalid(&config_path, m))?;

        let tokenizer_path = dir.join("tokenizer.json");
        let tokenizer_bytes = read_model_file(&tokenizer_path, MAX_TOKENIZER_BYTES)?;
        let mut tokenizer = Tokenizer::from_bytes(&tokenizer_bytes)
            .map_err(|e| invalid(&tokenizer_path, format!("not a tokenizer: {e}")))?;
        // A token past the embeddings would fail every search that meets
        // it: the two files are of different models.
        let tokens = tokenizer.get_vocab_size(true);
        if tokens > config.vocab_size {
            return Err(invalid(
                &tokenizer_path,
                format!(
                    "it has {tokens} tokens, but config.json's vocab_size {} has embeddings for fewer — tokenizer.json and config.json are of different models; take both from the same one",
                    config.vocab_size
                ),
            ));
        }
        // The shipped tokenizer pads every text to 128 tokens: off, since a
        // batch is stacked by us without padding. Truncation at the
        // model's sequence length, never at the tokenizer's 128.
        let max_tokens = max_tokens(dir)?.min(config.max_position_embeddings);
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
        let weights = read_model_file(&weights_path, MAX_WEIGHTS_BYTES)?;
        // The id is of the files' contents (each with its length, so no
        // bytes can move from one file to the next unseen), never of
        // their paths: a copy elsewhere is the same model.
        let mut hasher = StableHasher::new();
        for part in [&config_bytes, &tokenizer_bytes, &weights] {
            hasher.write(&(part.len() as u64).to_le_bytes());
            hasher.write(part);
        }
        hasher.write(&(max_tokens as u64).to_le_bytes());
        let id = hasher.finish_hex();
        let file = safetensors::SafeTensors::deserialize(&weights)
            .map_err(|e| invalid(&weights_path, format!("not a safetensors file: {e}")))?;
        let bert = Bert::load(Weights::new(&file), &config).map_err(|e| {
            invalid(
                &weights_path,
                format!("the weights do not fit config.json: {e}"),
            )
        })?;
        let mut embedder = Embedder {
            tokenizer,
            bert,
            id,
            dimension: config.hidden_size,
            dir: dir.to_path_buf(),
            plan: EmbedPlan::default(),
        };
        embedder.set_plan(EmbedPlan::default());
        Ok(embedder)
    }

    /// Embed with another [`EmbedPlan`] (the vectors are the same; only
    /// the time differs).
    pub fn set_plan(&mut self, plan: EmbedPlan) {
        self.plan = EmbedPlan {
            batch_tokens: plan.batch_tokens.max(1),
            max_rows: plan.max_rows.max(1),
            workers: plan.workers.max(1),
        };
    }

    pub fn plan(&self) -> EmbedPlan {
        self.plan
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
        let encodings = match texts {
            [one] => vec![self
                .tokenizer
                .encode(*one, true)
                .map_err(|e| EmbedError::Inference(format!("tokenizing failed: {e}")))?],
            _ => self
                .tokenizer
                .encode_batch(texts.to_vec(), true)
                .map_err(|e| EmbedError::Inference(format!("tokenizing failed: {e}")))?,
        };
        let ids: Vec<&[u32]> = encodings.iter().map(|e| e.get_ids()).collect();
        let passes = passes(&ids, self.plan.batch_tokens, self.plan.max_rows);
        let mut vectors = vec![Vec::new(); texts.len()];
        let run = |pass: &[usize]| self.pass(&ids, pass);
        let workers = self.plan.workers.min(passes.len());
        if workers <= 1 {
            for pass in &passes {
                place(&mut vectors, pass, run(pass)?);
            }
            return Ok(vectors);
        }
        // Workers take the next pass until none is left; the longest
        // passes go first, so no worker is left with a long one at the end.
        let next = std::sync::atomic::AtomicUsize::new(0);
        let results: Vec<Result<Vec<PassRows>, EmbedError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    let (next, passes, run) = (&next, &passes, &run);
                    std::thread::Builder::new()
                        .name("skilldex-embed".to_string())
                        .spawn_scoped(scope, move || {
                            let mut done = Vec::new();
                            loop {
                                let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                let Some(pass) = passes.len().checked_sub(at + 1) else {
                                    return Ok(done);
                                };
                                done.push((pass, run(&passes[pass])?));
                            }
                        })
                })
                .collect();
            handles
                .into_iter()
                .map(|spawned| match spawned {
                    Ok(handle) => handle.join().unwrap_or_else(|_| {
                        Err(EmbedError::Inference("an embedding worker panicked".into()))
                    }),
                    Err(e) => Err(EmbedError::Inference(format!(
                        "no thread for embedding: {e}"
                    ))),
                })
                .collect()
        });
        for result in results {
            for (pass, rows) in result? {
                place(&mut vectors, &passes[pass], rows);
            }
        }
        Ok(vectors)
    }

    /// One forward pass over the texts `pass` (indices into `ids`).
    fn pass(&self, ids: &[&[u32]], pass: &[usize]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let texts: Vec<&[u32]> = pass.iter().map(|&i| ids[i]).collect();
        self.bert.embed(&texts).map_err(EmbedError::Inference)
    }

    /// The number of tokens `text` becomes (after truncation).
    pub fn token_count(&self, text: &str) -> usize {
        self.tokenizer
            .encode(text, true)
            .map_or(0, |e| e.get_ids().len())
    }
}

/// The texts (by index) of each forward pass: sorted by length, shortest
/// first, each pass as many as fit `batch_tokens` tokens counted as rows ×
/// the longest (at least
/// one) and `max_rows`.
fn passes(ids: &[&[u32]], batch_tokens: usize, max_rows: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_by_key(|&i| ids[i].len());
    let mut passes: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    for i in order {
        // Sorted: this text is the longest of the pass so far.
        let length = ids[i].len().max(1);
        if !current.is_empty()
            && ((current.len() + 1) * length > batch_tokens || current.len() >= max_rows)
        {
            passes.push(std::mem::take(&mut current));
        }
        current.push(i);
    }
    if !current.is_empty() {
        passes.push(current);
    }
    passes
}

/// A pass (its index) and its rows' vectors.
type PassRows = (usize, Vec<Vec<f32>>);

fn place(vectors: &mut [Vec<f32>], pass: &[usize], rows: Vec<Vec<f32>>) {
    for (&i, row) in pass.iter().zip(rows) {
        vectors[i] = row;
    }
}

/// `max_seq_length` of `sentence_bert_config.json`, when the folder has
/// one (read as the other files are: a pipe or a device there is refused).
fn max_tokens(dir: &Path) -> Result<usize, EmbedError> {
    let path = dir.join("sentence_bert_config.json");
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(DEFAULT_MAX_TOKENS);
    }
    let bytes = read_model_file(&path, MAX_CONFIG_BYTES)?;
    let value: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| EmbedError::Invalid {
            at: format!("{}:{}:{}", path.display(), e.line(), e.column()),
            message: format!(
                "{e} — sentence_bert_config.json should be the model's own, or absent"
            ),
        })?;
    Ok(value
        .get("max_seq_length")
        .and_then(serde_json::Value::as_u64)
        .map_or(DEFAULT_MAX_TOKENS, |n| (n as usize).clamp(8, 8192)))
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
        check_against_reference(&embedder, 2e-4, 1e-3);
    }

    /// Checks `embedder` against the reference vectors (each element within
    /// `element`, each pair's cosine within `cosine`).
    fn check_against_reference(embedder: &Embedder, element: f32, cosine: f32) {
        let reference = reference();
        let texts: Vec<&str> = reference
            .sentences
            .iter()
            .map(|s| s.text.as_str())
            .collect();
        // One batch (texts of many lengths stacked) and one text at a time agree.
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
                    (got - want).abs() < element,
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
                assert!((got - want).abs() < cosine, "cos({i},{j}) {got} vs {want}");
            }
        }
    }

    #[test]
    fn passes_hold_texts_of_similar_length_within_the_token_budget() {
        let texts: Vec<Vec<u32>> = [5usize, 40, 6, 300, 7, 41]
            .iter()
            .map(|&n| vec![1; n])
            .collect();
        let ids: Vec<&[u32]> = texts.iter().map(Vec::as_slice).collect();
        let found = passes(&ids, 100, 32);
        // Shortest first; rows × the longest within 100 tokens;
        // a text longer than the budget is a pass of its own.
        assert_eq!(found, vec![vec![0, 2, 4], vec![1, 5], vec![3]]);
        for pass in &found {
            let longest = pass.iter().map(|&i| ids[i].len()).max().unwrap();
            assert!(pass.len() == 1 || pass.len() * longest <= 100, "{pass:?}");
        }
        assert_eq!(passes(&ids, 10_000, 2).iter().map(Vec::len).max(), Some(2));
        assert!(passes(&[], 100, 32).is_empty());
    }

    #[test]
    fn every_plan_gives_the_same_vectors() {
        let Some(dir) = test_model() else { return };
        let mut embedder = Embedder::load(&dir).unwrap();
        let texts: Vec<String> = (0..9)
            .map(|i| format!("text {i}: {}", "a few words more ".repeat(i * 3)))
            .collect();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let reference = embedder.embed(&texts).unwrap();
        for plan in [
            EmbedPlan {
                batch_tokens: 1,
                max_rows: 1,
                workers: 1,
            },
            EmbedPlan {
                batch_tokens: 64,
                max_rows: 4,
                workers: 3,
            },
            EmbedPlan {
                batch_tokens: 10_000,
                max_rows: 32,
                workers: 1,
            },
        ] {
            embedder.set_plan(plan);
            let got = embedder.embed(&texts).unwrap();
            for (a, b) in got.iter().zip(&reference) {
                assert!(crate::embed::cosine(a, b) > 0.9999, "{plan:?}");
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
        // Real weights under a config that implies other shapes: the
        // tensor and both shapes are named.
        std::fs::copy(
            model.join("model.safetensors"),
            dir.path().join("model.safetensors"),
        )
        .unwrap();
        let config = std::fs::read_to_string(model.join("config.json")).unwrap();
        let wider = config.replace("\"hidden_size\": 384", "\"hidden_size\": 396");
        assert_ne!(wider, config, "the test model's config.json changed shape");
        std::fs::write(dir.path().join("config.json"), wider).unwrap();
        let message = Embedder::load(dir.path()).unwrap_err().to_string();
        assert!(
            message.contains("do not fit config.json")
                && message.contains("word_embeddings.weight")
                && message.contains("396"),
            "{message}"
        );
        let relu = config.replace("\"gelu\"", "\"relu\"");
        assert_ne!(relu, config);
        std::fs::write(dir.path().join("config.json"), relu).unwrap();
        let message = Embedder::load(dir.path()).unwrap_err().to_string();
        assert!(message.contains("hidden_act is `relu`"), "{message}");
    }
}
