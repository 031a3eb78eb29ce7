//! The BERT encoder of a sentence-transformers model (all-MiniLM-L6-v2 and
//! its kind), on candle's CPU tensors: embeddings, `num_hidden_layers`
//! post-norm transformer blocks, then mean pooling over the attention mask
//! and L2 normalisation, as sentence-transformers' `Transformer → Pooling →
//! Normalize` pipeline does.
//!
//! Our own ~150 lines rather than candle-transformers, which would build
//! hundreds of models to run one. Only the absolute position embeddings and
//! the GELU (erf) activation of BERT are supported; another `config.json`
//! is refused by name in [`BertConfig::check`].

use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{embedding, layer_norm, linear, Embedding, LayerNorm, Linear, VarBuilder};
use serde::Deserialize;

/// The keys of `config.json` the encoder reads.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct BertConfig {
    pub(super) vocab_size: usize,
    pub(super) hidden_size: usize,
    pub(super) num_hidden_layers: usize,
    pub(super) num_attention_heads: usize,
    pub(super) intermediate_size: usize,
    pub(super) max_position_embeddings: usize,
    #[serde(default = "type_vocab_size")]
    pub(super) type_vocab_size: usize,
    #[serde(default = "layer_norm_eps")]
    pub(super) layer_norm_eps: f64,
    #[serde(default = "hidden_act")]
    pub(super) hidden_act: String,
    #[serde(default = "position_embedding_type")]
    pub(super) position_embedding_type: String,
    #[serde(default)]
    pub(super) model_type: Option<String>,
}

fn type_vocab_size() -> usize {
    2
}
fn layer_norm_eps() -> f64 {
    1e-12
}
fn hidden_act() -> String {
    "gelu".to_string()
}
fn position_embedding_type() -> String {
    "absolute".to_string()
}

impl BertConfig {
    /// What this encoder cannot run, said so a user can pick another model.
    pub(super) fn check(&self) -> Result<(), String> {
        if let Some(kind) = self.model_type.as_deref().filter(|k| *k != "bert") {
            return Err(format!(
                "model_type is `{kind}`; skilldex runs BERT sentence encoders (such as sentence-transformers/all-MiniLM-L6-v2)"
            ));
        }
        if !matches!(
            self.hidden_act.as_str(),
            "gelu" | "gelu_new" | "gelu_python"
        ) {
            return Err(format!(
                "hidden_act is `{}`; only gelu is supported",
                self.hidden_act
            ));
        }
        if self.position_embedding_type != "absolute" {
            return Err(format!(
                "position_embedding_type is `{}`; only absolute is supported",
                self.position_embedding_type
            ));
        }
        if self.num_attention_heads == 0
            || !self.hidden_size.is_multiple_of(self.num_attention_heads)
        {
            return Err(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                self.hidden_size, self.num_attention_heads
            ));
        }
        Ok(())
    }
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

pub(super) struct Bert {
    words: Embedding,
    positions: Embedding,
    types: Embedding,
    embeddings_norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    head_size: usize,
    device: Device,
}

impl Bert {
    /// The encoder's weights from `vb` (sentence-transformers names them
    /// without a prefix; a `transformers` checkpoint has `bert.`).
    pub(super) fn load(vb: VarBuilder, config: &BertConfig) -> candle_core::Result<Bert> {
        let vb = if vb.contains_tensor("bert.embeddings.word_embeddings.weight") {
            vb.pp("bert")
        } else {
            vb
        };
        let hidden = config.hidden_size;
        let eps = config.layer_norm_eps;
        let e = vb.pp("embeddings");
        let words = embedding(config.vocab_size, hidden, e.pp("word_embeddings"))?;
        let positions = embedding(
            config.max_position_embeddings,
            hidden,
            e.pp("position_embeddings"),
        )?;
        let types = embedding(
            config.type_vocab_size,
            hidden,
            e.pp("token_type_embeddings"),
        )?;
        let embeddings_norm = layer_norm(hidden, eps, e.pp("LayerNorm"))?;
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for i in 0..config.num_hidden_layers {
            let l = vb.pp(format!("encoder.layer.{i}"));
            let a = l.pp("attention");
            layers.push(Layer {
                query: linear(hidden, hidden, a.pp("self.query"))?,
                key: linear(hidden, hidden, a.pp("self.key"))?,
                value: linear(hidden, hidden, a.pp("self.value"))?,
                attention_out: linear(hidden, hidden, a.pp("output.dense"))?,
                attention_norm: layer_norm(hidden, eps, a.pp("output.LayerNorm"))?,
                intermediate: linear(hidden, config.intermediate_size, l.pp("intermediate.dense"))?,
                output: linear(config.intermediate_size, hidden, l.pp("output.dense"))?,
                output_norm: layer_norm(hidden, eps, l.pp("output.LayerNorm"))?,
            });
        }
        Ok(Bert {
            words,
            positions,
            types,
            embeddings_norm,
            layers,
            heads: config.num_attention_heads,
            head_size: hidden / config.num_attention_heads,
            device: vb.device().clone(),
        })
    }

    /// Sentence vectors for a batch of token ids, each row padded to the
    /// batch's longest with `mask` 0 (1 for a real token): mean of the
    /// real tokens' last hidden states, L2-normalised. `[batch, hidden]`.
    pub(super) fn embed(
        &self,
        ids: &[u32],
        mask: &[u32],
        batch: usize,
        length: usize,
    ) -> candle_core::Result<Tensor> {
        let device = &self.device;
        let ids = Tensor::from_slice(ids, (batch, length), device)?;
        let mask = Tensor::from_slice(mask, (batch, length), device)?.to_dtype(DType::F32)?;
        let positions = Tensor::arange(0u32, length as u32, device)?.unsqueeze(0)?;
        let types = ids.zeros_like()?;
        let x = self
            .words
            .forward(&ids)?
            .broadcast_add(&self.positions.forward(&positions)?)?
            .broadcast_add(&self.types.forward(&types)?)?;
        let mut x = self.embeddings_norm.forward(&x)?;
        // Padded keys get a large negative score before the softmax.
        let bias = ((mask.clone() - 1.0)? * 1e9)?
            .reshape((batch, 1, 1, length))?
            .contiguous()?;
        let scale = 1.0 / (self.head_size as f64).sqrt();
        for layer in &self.layers {
            let heads = |t: Tensor| -> candle_core::Result<Tensor> {
                t.reshape((batch, length, self.heads, self.head_size))?
                    .transpose(1, 2)?
                    .contiguous()
            };
            let q = heads(layer.query.forward(&x)?)?;
            let k = heads(layer.key.forward(&x)?)?;
            let v = heads(layer.value.forward(&x)?)?;
            let scores = (q.matmul(&k.t()?.contiguous()?)? * scale)?.broadcast_add(&bias)?;
            let weights = candle_nn::ops::softmax_last_dim(&scores)?;
            let context = weights
                .matmul(&v)?
                .transpose(1, 2)?
                .contiguous()?
                .reshape((batch, length, self.heads * self.head_size))?;
            let attended = layer
                .attention_norm
                .forward(&(layer.attention_out.forward(&context)? + &x)?)?;
            let inner = layer.intermediate.forward(&attended)?.gelu_erf()?;
            x = layer
                .output_norm
                .forward(&(layer.output.forward(&inner)? + attended)?)?;
        }
        // Mean over the real tokens, then unit length.
        let weights = mask.unsqueeze(2)?;
        let sum = x.broadcast_mul(&weights)?.sum(1)?;
        let count = weights.sum(1)?.clamp(1.0, f64::MAX)?;
        let mean = sum.broadcast_div(&count)?;
        let norm = mean.sqr()?.sum_keepdim(1)?.sqrt()?.clamp(1e-12, f64::MAX)?;
        mean.broadcast_div(&norm)
    }
}
