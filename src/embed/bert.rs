//! The BERT encoder of a sentence-transformers model (all-MiniLM-L6-v2 and
//! its kind): embeddings, `num_hidden_layers` post-norm transformer blocks,
//! then mean pooling over each text's tokens and L2 normalisation, as
//! sentence-transformers' `Transformer → Pooling → Normalize` pipeline
//! does.
//!
//! The `safetensors` crate reads the weights file (`Weights`, below); the
//! forward pass is ours, over plain `f32` rows, with the `gemm` crate's
//! matrix products on the calling thread. A tensor library was measured
//! here before (docs/search.md): its ops spent a third of a query's time
//! outside the products and padded every text of a pass to the longest,
//! and it was the biggest part of the semantic build. Here the texts of a pass are
//! stacked without padding (the dense layers run over real tokens only;
//! attention runs per text over its own tokens), the bias, residual and
//! GELU are applied where the product is written, and nothing is shared
//! between threads.
//!
//! Only the absolute position embeddings and the two GELU activations of
//! BERT (`gelu`, with the error function, and `gelu_new`, its tanh
//! approximation) are supported; another `config.json` is refused by name
//! in [`BertConfig::check`].

use safetensors::{Dtype, SafeTensors};
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
        if Activation::named(&self.hidden_act).is_none() {
            return Err(format!(
                "hidden_act is `{}`; skilldex runs gelu (gelu_python) and gelu_new (gelu_pytorch_tanh)",
                self.hidden_act
            ));
        }
        if self.position_embedding_type != "absolute" {
            return Err(format!(
                "position_embedding_type is `{}`; only absolute is supported",
                self.position_embedding_type
            ));
        }
        // Sizes a sentence encoder has, with room: BERT-large is 1024 wide
        // and 24 deep, multilingual vocabularies are 250,000 tokens. Past
        // these a config.json is broken, and sizing buffers by it could
        // ask for terabytes before a tensor is looked at.
        for (key, value, most) in [
            ("vocab_size", self.vocab_size, 1_000_000),
            ("hidden_size", self.hidden_size, 8_192),
            ("num_hidden_layers", self.num_hidden_layers, 128),
            ("num_attention_heads", self.num_attention_heads, 256),
            ("intermediate_size", self.intermediate_size, 65_536),
            (
                "max_position_embeddings",
                self.max_position_embeddings,
                65_536,
            ),
            ("type_vocab_size", self.type_vocab_size, 1_024),
        ] {
            if value == 0 || value > most {
                return Err(format!(
                    "{key} is {value}; a sentence encoder has 1 to {most} — config.json is not the model's own (take it from the same model as the weights)"
                ));
            }
        }
        if !(self.layer_norm_eps.is_finite()
            && self.layer_norm_eps > 0.0
            && self.layer_norm_eps < 1.0)
        {
            return Err(format!(
                "layer_norm_eps is {}; it is a small positive number (1e-12 for BERT)",
                self.layer_norm_eps
            ));
        }
        if !self.hidden_size.is_multiple_of(self.num_attention_heads) {
            return Err(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                self.hidden_size, self.num_attention_heads
            ));
        }
        Ok(())
    }
}

/// The tensors of a safetensors file under a name prefix, read as `f32`
/// (stored `F32`, `F16` or `BF16`), each checked against the shape the
/// configuration implies.
pub(super) struct Weights<'a> {
    file: &'a SafeTensors<'a>,
    prefix: String,
}

impl<'a> Weights<'a> {
    pub(super) fn new(file: &'a SafeTensors<'a>) -> Self {
        Weights {
            file,
            prefix: String::new(),
        }
    }

    /// The tensors under `name.` (as `VarBuilder::pp` in PyTorch ports).
    fn pp(&self, name: impl AsRef<str>) -> Weights<'a> {
        Weights {
            file: self.file,
            prefix: self.full(name.as_ref()),
        }
    }

    fn full(&self, name: &str) -> String {
        if self.prefix.is_empty() {
            name.to_string()
        } else {
            format!("{}.{name}", self.prefix)
        }
    }

    fn contains(&self, name: &str) -> bool {
        self.file.tensor(&self.full(name)).is_ok()
    }

    /// Tensor `name`, row-major, which must have `shape`.
    fn get(&self, shape: &[usize], name: &str) -> Result<Vec<f32>, String> {
        let full = self.full(name);
        let view = self
            .file
            .tensor(&full)
            .map_err(|_| format!("no tensor `{full}`"))?;
        if view.shape() != shape {
            return Err(format!(
                "tensor `{full}` has shape {:?}, config.json implies {shape:?}",
                view.shape()
            ));
        }
        let data = view.data();
        let values: Vec<f32> = match view.dtype() {
            Dtype::F32 => data
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            Dtype::BF16 => data
                .chunks_exact(2)
                .map(|b| f32::from_bits(u32::from(u16::from_le_bytes([b[0], b[1]])) << 16))
                .collect(),
            Dtype::F16 => data
                .chunks_exact(2)
                .map(|b| half::f16::from_bits(u16::from_le_bytes([b[0], b[1]])).to_f32())
                .collect(),
            other => {
                return Err(format!(
                    "tensor `{full}` is {other:?}; skilldex reads F32, F16 and BF16"
                ))
            }
        };
        if values.len() != shape.iter().product::<usize>() {
            return Err(format!("tensor `{full}` holds fewer values than its shape"));
        }
        Ok(values)
    }
}

/// A dense layer: the weight stored `[in, out]` row-major, and its bias.
struct Dense {
    weight: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

impl Dense {
    /// The layers `names` under `w` (each `[out, in]` as PyTorch stores
    /// it) side by side in one product: `[in, Σ out]`.
    fn load(w: &Weights, names: &[&str], inputs: usize, outputs: usize) -> Result<Dense, String> {
        // Every part read (and its shape checked) before the product's
        // buffer is sized by them.
        let mut parts = Vec::with_capacity(names.len());
        for name in names {
            let l = w.pp(name);
            parts.push((
                l.get(&[outputs, inputs], "weight")?,
                l.get(&[outputs], "bias")?,
            ));
        }
        let total = outputs * names.len();
        let mut weight = vec![0.0f32; inputs * total];
        let mut bias = Vec::with_capacity(total);
        for (part, (stored, part_bias)) in parts.into_iter().enumerate() {
            // Transposed into this part's columns.
            for (o, row) in stored.chunks_exact(inputs).enumerate() {
                let column = part * outputs + o;
                for (i, &v) in row.iter().enumerate() {
                    weight[i * total + column] = v;
                }
            }
            bias.extend(part_bias);
        }
        Ok(Dense {
            weight,
            bias,
            inputs,
            outputs: total,
        })
    }

    /// `x · W + b` for the `rows` rows of `x`, plus `residual` (same shape
    /// as the result) when given.
    fn forward(&self, x: &[f32], rows: usize, residual: Option<&[f32]>) -> Vec<f32> {
        debug_assert_eq!(x.len(), rows * self.inputs);
        let mut out = Vec::with_capacity(rows * self.outputs);
        match residual {
            Some(r) => {
                for row in r.chunks_exact(self.outputs) {
                    out.extend(row.iter().zip(&self.bias).map(|(a, b)| a + b));
                }
            }
            None => {
                for _ in 0..rows {
                    out.extend_from_slice(&self.bias);
                }
            }
        }
        product(
            (rows, self.outputs, self.inputs),
            &mut out,
            0,
            self.outputs,
            true,
            View {
                data: x,
                start: 0,
                column_step: 1,
                row_step: self.inputs,
            },
            View {
                data: &self.weight,
                start: 0,
                column_step: 1,
                row_step: self.outputs,
            },
            1.0,
        );
        out
    }
}

/// A matrix inside a slice: where its first element is, and the distance
/// between neighbours across a row (`column_step`) and down a column
/// (`row_step`).
#[derive(Clone, Copy)]
struct View<'a> {
    data: &'a [f32],
    start: usize,
    column_step: usize,
    row_step: usize,
}

impl View<'_> {
    /// Whether a `rows × columns` matrix laid out so is inside `len`
    /// elements.
    fn fits(
        start: usize,
        rows: usize,
        columns: usize,
        row_step: usize,
        column_step: usize,
        len: usize,
    ) -> bool {
        if rows == 0 || columns == 0 {
            return true;
        }
        (rows - 1)
            .checked_mul(row_step)
            .and_then(|a| {
                (columns - 1)
                    .checked_mul(column_step)
                    .and_then(|b| a.checked_add(b))
            })
            .and_then(|last| last.checked_add(start))
            .is_some_and(|last| last < len)
    }
}

/// `dst (m × n) = [dst +] scale · lhs (m × k) · rhs (k × n)`, on this
/// thread. `dst` is row-major from `dst_start` with rows `dst_row_step`
/// apart.
///
/// The crate's one unsafe block: gemm takes raw pointers and strides, so
/// every matrix is checked to lie inside its slice first (a failed check
/// is a bug in this file, and panics rather than reading out of bounds);
/// `dst` is borrowed mutably, so it cannot overlap `lhs` or `rhs`.
#[allow(unsafe_code)]
#[allow(clippy::too_many_arguments)]
fn product(
    (m, n, k): (usize, usize, usize),
    dst: &mut [f32],
    dst_start: usize,
    dst_row_step: usize,
    accumulate: bool,
    lhs: View,
    rhs: View,
    scale: f32,
) {
    assert!(
        View::fits(dst_start, m, n, dst_row_step, 1, dst.len())
            && View::fits(
                lhs.start,
                m,
                k,
                lhs.row_step,
                lhs.column_step,
                lhs.data.len()
            )
            && View::fits(
                rhs.start,
                k,
                n,
                rhs.row_step,
                rhs.column_step,
                rhs.data.len()
            ),
        "a matrix product outside its buffers"
    );
    if m == 0 || n == 0 {
        return;
    }
    let step = |s: usize| s as isize;
    // SAFETY: checked above: each matrix's every element is inside its
    // slice (so the pointer offsets stay in bounds), and `dst` is an
    // exclusive borrow distinct from the two shared ones.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr().add(dst_start),
            1,
            step(dst_row_step),
            accumulate,
            lhs.data.as_ptr().add(lhs.start),
            step(lhs.column_step),
            step(lhs.row_step),
            rhs.data.as_ptr().add(rhs.start),
            step(rhs.column_step),
            step(rhs.row_step),
            1.0,
            scale,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// Layer normalisation's scale and shift.
struct Norm {
    weight: Vec<f32>,
    bias: Vec<f32>,
    eps: f32,
}

impl Norm {
    fn load(w: Weights, size: usize, eps: f64) -> Result<Norm, String> {
        Ok(Norm {
            weight: w.get(&[size], "weight")?,
            bias: w.get(&[size], "bias")?,
            eps: eps as f32,
        })
    }

    /// Normalise each row of `x` in place.
    fn apply(&self, x: &mut [f32]) {
        let size = self.weight.len();
        for row in x.chunks_exact_mut(size) {
            let mean = row.iter().sum::<f32>() / size as f32;
            let variance = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / size as f32;
            let inverse = 1.0 / (variance + self.eps).sqrt();
            for ((v, w), b) in row.iter_mut().zip(&self.weight).zip(&self.bias) {
                *v = (*v - mean) * inverse * w + b;
            }
        }
    }
}

struct Layer {
    /// Query, key and value in one product (`[hidden, 3 × hidden]`).
    qkv: Dense,
    attention_out: Dense,
    attention_norm: Norm,
    intermediate: Dense,
    output: Dense,
    output_norm: Norm,
}

pub(super) struct Bert {
    words: Vec<f32>,
    positions: Vec<f32>,
    /// Token type 0's embedding (every text is one segment).
    segment: Vec<f32>,
    embeddings_norm: Norm,
    layers: Vec<Layer>,
    vocab: usize,
    max_positions: usize,
    hidden: usize,
    heads: usize,
    head_size: usize,
    activation: Activation,
}

impl Bert {
    /// The encoder's weights from `w` (sentence-transformers names them
    /// without a prefix; a `transformers` checkpoint has `bert.`).
    pub(super) fn load(w: Weights, config: &BertConfig) -> Result<Bert, String> {
        let vb = if w.contains("bert.embeddings.word_embeddings.weight") {
            w.pp("bert")
        } else {
            w
        };
        let activation = Activation::named(&config.hidden_act)
            .ok_or_else(|| format!("hidden_act `{}` is not supported", config.hidden_act))?;
        let hidden = config.hidden_size;
        let eps = config.layer_norm_eps;
        let e = vb.pp("embeddings");
        let table = |name: &str, rows: usize| -> Result<Vec<f32>, String> {
            e.pp(name).get(&[rows, hidden], "weight")
        };
        let words = table("word_embeddings", config.vocab_size)?;
        let positions = table("position_embeddings", config.max_position_embeddings)?;
        let mut segment = table("token_type_embeddings", config.type_vocab_size.max(1))?;
        segment.truncate(hidden);
        let embeddings_norm = Norm::load(e.pp("LayerNorm"), hidden, eps)?;
        let inner = config.intermediate_size;
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for i in 0..config.num_hidden_layers {
            let l = vb.pp(format!("encoder.layer.{i}"));
            let a = l.pp("attention");
            layers.push(Layer {
                qkv: Dense::load(
                    &a,
                    &["self.query", "self.key", "self.value"],
                    hidden,
                    hidden,
                )?,
                attention_out: Dense::load(&a, &["output.dense"], hidden, hidden)?,
                attention_norm: Norm::load(a.pp("output.LayerNorm"), hidden, eps)?,
                intermediate: Dense::load(&l, &["intermediate.dense"], hidden, inner)?,
                output: Dense::load(&l, &["output.dense"], inner, hidden)?,
                output_norm: Norm::load(l.pp("output.LayerNorm"), hidden, eps)?,
            });
        }
        Ok(Bert {
            words,
            positions,
            segment,
            embeddings_norm,
            layers,
            vocab: config.vocab_size,
            max_positions: config.max_position_embeddings,
            hidden,
            heads: config.num_attention_heads,
            head_size: hidden / config.num_attention_heads,
            activation,
        })
    }

    /// The sentence vector of each token sequence: the mean of its tokens'
    /// last hidden states, L2-normalised.
    pub(super) fn embed(&self, texts: &[&[u32]]) -> Result<Vec<Vec<f32>>, String> {
        let h = self.hidden;
        let lengths: Vec<usize> = texts.iter().map(|t| t.len()).collect();
        let rows: usize = lengths.iter().sum();
        let mut x = Vec::with_capacity(rows * h);
        for text in texts {
            if text.len() > self.max_positions {
                return Err(format!(
                    "a text of {} tokens is longer than the model's {} positions",
                    text.len(),
                    self.max_positions
                ));
            }
            for (position, &id) in text.iter().enumerate() {
                let id = id as usize;
                if id >= self.vocab {
                    return Err(format!(
                        "token id {id} is outside the model's vocabulary of {}",
                        self.vocab
                    ));
                }
                let word = &self.words[id * h..(id + 1) * h];
                let place = &self.positions[position * h..(position + 1) * h];
                x.extend(
                    word.iter()
                        .zip(place)
                        .zip(&self.segment)
                        .map(|((w, p), s)| w + p + s),
                );
            }
        }
        self.embeddings_norm.apply(&mut x);
        for layer in &self.layers {
            x = self.layer(layer, &x, &lengths);
        }
        let mut vectors = Vec::with_capacity(texts.len());
        let mut start = 0;
        for &length in &lengths {
            let mut mean = vec![0.0f32; h];
            for row in x[start * h..(start + length) * h].chunks_exact(h) {
                for (m, v) in mean.iter_mut().zip(row) {
                    *m += v;
                }
            }
            let norm = mean.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
            mean.iter_mut().for_each(|v| *v /= norm);
            vectors.push(mean);
            start += length;
        }
        Ok(vectors)
    }

    /// One transformer block over the stacked tokens `x` of texts of
    /// `lengths` tokens.
    fn layer(&self, layer: &Layer, x: &[f32], lengths: &[usize]) -> Vec<f32> {
        let (h, d) = (self.hidden, self.head_size);
        let rows = x.len() / h;
        let qkv = layer.qkv.forward(x, rows, None);
        let mut context = vec![0.0f32; rows * h];
        let longest = lengths.iter().copied().max().unwrap_or(0);
        let mut scores = vec![0.0f32; longest * longest];
        let scale = 1.0 / (d as f32).sqrt();
        let mut start = 0;
        for &n in lengths {
            for head in 0..self.heads {
                let q = start * 3 * h + head * d;
                let (k, v) = (q + h, q + 2 * h);
                let column = |start: usize| View {
                    data: &qkv,
                    start,
                    column_step: 1,
                    row_step: 3 * h,
                };
                // scores = scale · q · kᵀ (kᵀ: k read down its rows).
                product(
                    (n, n, d),
                    &mut scores,
                    0,
                    n,
                    false,
                    column(q),
                    View {
                        data: &qkv,
                        start: k,
                        column_step: 3 * h,
                        row_step: 1,
                    },
                    scale,
                );
                for row in scores[..n * n].chunks_exact_mut(n) {
                    softmax(row);
                }
                // context = scores · v, into this head's columns.
                product(
                    (n, d, n),
                    &mut context,
                    start * h + head * d,
                    h,
                    false,
                    View {
                        data: &scores,
                        start: 0,
                        column_step: 1,
                        row_step: n,
                    },
                    column(v),
                    1.0,
                );
            }
            start += n;
        }
        let mut attended = layer.attention_out.forward(&context, rows, Some(x));
        layer.attention_norm.apply(&mut attended);
        let mut inner = layer.intermediate.forward(&attended, rows, None);
        match self.activation {
            Activation::Gelu => inner.iter_mut().for_each(|v| *v = gelu(*v)),
            Activation::GeluTanh => inner.iter_mut().for_each(|v| *v = gelu_tanh(*v)),
        }
        let mut out = layer.output.forward(&inner, rows, Some(&attended));
        layer.output_norm.apply(&mut out);
        out
    }
}

fn softmax(row: &mut [f32]) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    // Three passes, so the middle one (the exponentials) is a vector loop
    // and the sum runs in eight lanes.
    row.iter_mut().for_each(|v| *v = exp(*v - max));
    let mut lanes = [0.0f32; 8];
    let mut chunks = row.chunks_exact(8);
    for chunk in &mut chunks {
        lanes.iter_mut().zip(chunk).for_each(|(l, v)| *l += v);
    }
    let sum = lanes.iter().sum::<f32>() + chunks.remainder().iter().sum::<f32>();
    let inverse = 1.0 / sum;
    row.iter_mut().for_each(|v| *v *= inverse);
}

/// The feed-forward activation `config.json` names in `hidden_act`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Activation {
    /// `gelu` (and `gelu_python`): `x · Φ(x)` with the error function.
    Gelu,
    /// `gelu_new` (and `gelu_pytorch_tanh`): the tanh approximation.
    GeluTanh,
}

impl Activation {
    fn named(name: &str) -> Option<Activation> {
        match name {
            "gelu" | "gelu_python" => Some(Activation::Gelu),
            "gelu_new" | "gelu_pytorch_tanh" => Some(Activation::GeluTanh),
            _ => None,
        }
    }
}

/// GELU's tanh form, `½x(1 + tanh(√(2/π)(x + 0.044715x³)))`, with
/// `tanh(u) = 1 − 2/(e^{2u} + 1)` on the branch-free `exp` below.
#[inline]
fn gelu_tanh(x: f32) -> f32 {
    const SQRT_2_OVER_PI: f32 = 0.797_884_6;
    let u = SQRT_2_OVER_PI * (x + 0.044_715 * x * x * x);
    let tanh = 1.0 - 2.0 / (exp(2.0 * u) + 1.0);
    0.5 * x * (1.0 + tanh)
}

/// BERT's GELU: `x · Φ(x)` with the error function. Branch-free f32, so
/// a loop over a row compiles to vector instructions (libm's `exp`, one
/// call per element, was a fifth of a pass).
#[inline]
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// The error function to within 3e-7 (Abramowitz and Stegun 7.1.26 in
/// f32), without branches.
#[inline]
fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly = t
        * (0.254_829_6
            + t * (-0.284_496_74 + t * (1.421_413_8 + t * (-1.453_152 + t * 1.061_405_4))));
    (1.0 - poly * exp(-a * a)).copysign(x)
}

/// `e^x` in f32 to within a few ulp, without branches or calls: `2^n ·
/// e^r` with `n` the nearest integer to `x·log2 e`, `r = x - n·ln 2`
/// taken in two parts so it stays exact (Cody and Waite), `e^r` its
/// Taylor polynomial to degree 7 on `|r| ≤ ½ ln 2`, and `2^n` written
/// into the exponent bits. Inputs are held to [-87, 88]: below, the result
/// is the smallest normal, which softmax and GELU cannot tell from 0.
#[inline]
fn exp(x: f32) -> f32 {
    // Adding 1.5·2²³ rounds to the nearest integer, which then sits in
    // the low bits of the sum (`ROUND`'s bits plus n): no float-to-int
    // conversion, whose saturation keeps the loop from vectorising.
    const ROUND: f32 = 12_582_912.0;
    const LN2_HIGH: f32 = 0.693_145_75; // ln 2's first 16 bits: n·LN2_HIGH is exact
    const LN2_LOW: f32 = 1.428_606_8e-6;
    let x = x.clamp(-87.0, 88.0);
    let rounded = x * std::f32::consts::LOG2_E + ROUND;
    let n = rounded - ROUND;
    let r = (x - n * LN2_HIGH) - n * LN2_LOW;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0
                    + r * (1.0 / 24.0
                        + r * (1.0 / 120.0 + r * (1.0 / 720.0 + r * (1.0 / 5040.0)))))));
    let biased = rounded
        .to_bits()
        .wrapping_sub(ROUND.to_bits())
        .wrapping_add(127);
    p * f32::from_bits(biased << 23)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_is_close_to_its_known_values() {
        for (x, want) in [
            (0.0f32, 0.0f64),
            (0.5, 0.520_499_877_8),
            (1.0, 0.842_700_792_9),
            (-1.0, -0.842_700_792_9),
            (2.0, 0.995_322_265_0),
            (-3.5, -0.999_999_256_9),
        ] {
            assert!((f64::from(erf(x)) - want).abs() < 3e-7, "erf({x})");
        }
    }

    #[test]
    fn exp_is_within_a_few_ulp_of_libm() {
        let mut x = -87.0f32;
        while x < 88.0 {
            let (got, want) = (exp(x), f64::from(x).exp());
            assert!(
                ((f64::from(got) - want) / want).abs() < 4e-7,
                "exp({x}) = {got}, want {want}"
            );
            x += 0.013;
        }
        assert_eq!(exp(-200.0), exp(-87.0));
        assert!(exp(-87.0) < 2e-38 && exp(f32::NEG_INFINITY) < 2e-38);
    }

    #[test]
    fn gelu_matches_its_definition() {
        for i in -400..=400 {
            let x = i as f32 / 100.0;
            let want = 0.5 * f64::from(x) * (1.0 + libm_erf(f64::from(x) / 2f64.sqrt()));
            assert!(
                (f64::from(gelu(x)) - want).abs() < 1e-6 * (1.0 + want.abs()),
                "gelu({x})"
            );
        }
    }

    /// erf by its series / continued fraction in f64, as the check.
    fn libm_erf(x: f64) -> f64 {
        // Σ (-1)^n x^(2n+1) / (n! (2n+1)) · 2/√π: exact enough in f64 for
        // |x| ≤ 3 (its largest term is about e^9).
        let (mut term, mut sum, mut n) = (x, x, 0.0f64);
        while term.abs() > 1e-17 * sum.abs().max(1e-300) && n < 400.0 {
            n += 1.0;
            term *= -x * x / n;
            sum += term / (2.0 * n + 1.0);
        }
        (sum * 2.0 / std::f64::consts::PI.sqrt()).clamp(-1.0, 1.0)
    }

    /// `½x(1 + tanh(√(2/π)(x + 0.044715x³)))` and `½x(1 + erf(x/√2))`,
    /// computed in f64 outside this crate (Python's `math`), at a few points.
    const GELU_REFERENCE: [(f32, f64, f64); 8] = [
        (
            -3.0,
            -0.003_637_392_081_772_994_3,
            -0.004_049_694_094_890_31,
        ),
        (-1.5, -0.100_428_423_019_767_07, -0.100_210_801_903_287_13),
        (-0.5, -0.154_285_990_174_856_06, -0.154_268_769_362_993_44),
        (0.0, 0.0, 0.0),
        (0.3, 0.185_370_923_542_759_22, 0.185_373_426_656_685_77),
        (1.0, 0.841_191_990_608_276_8, 0.841_344_746_068_542_9),
        (2.0, 1.954_597_694_087_775, 1.954_499_736_103_641_6),
        (4.0, 3.999_929_754_051_807_5, 3.999_873_315_032_667_5),
    ];

    #[test]
    fn both_gelus_match_reference_values_and_differ_from_each_other() {
        for (x, tanh_form, erf_form) in GELU_REFERENCE {
            assert!(
                (f64::from(gelu_tanh(x)) - tanh_form).abs() < 2e-6,
                "gelu_new({x})"
            );
            assert!((f64::from(gelu(x)) - erf_form).abs() < 2e-6, "gelu({x})");
        }
        // The forms differ by more than the tolerance where it matters, so
        // a config naming one is not served the other.
        assert!((gelu_tanh(1.0) - gelu(1.0)).abs() > 1e-4);
        assert_eq!(Activation::named("gelu_new"), Some(Activation::GeluTanh));
        assert_eq!(Activation::named("gelu"), Some(Activation::Gelu));
        assert_eq!(Activation::named("relu"), None);
        for x in [10.0f32, 40.0, 1e4] {
            assert!((gelu_tanh(x) - x).abs() <= 1e-6 * x && gelu_tanh(-x).abs() < 1e-6);
        }
    }

    #[test]
    fn gelu_has_its_limits_far_out() {
        for x in [6.0f32, 10.0, 40.0, 1e4] {
            assert!((gelu(x) - x).abs() <= 1e-6 * x, "gelu({x})");
            assert!(gelu(-x).abs() < 1e-6, "gelu(-{x})");
        }
        assert_eq!(gelu(0.0), 0.0);
    }

    /// The one `unsafe` call (gemm) against a plain triple loop, with a
    /// transposed (column-stepped) right side, an offset destination and
    /// accumulation.
    #[test]
    fn the_product_matches_a_plain_loop_on_strided_views() {
        let (m, n, k) = (3, 4, 5);
        let lhs: Vec<f32> = (0..m * k).map(|i| i as f32 * 0.5 - 3.0).collect();
        // rhs stored transposed: element (r, c) at c * k + r.
        let rhs: Vec<f32> = (0..n * k).map(|i| (i % 7) as f32 - 2.0).collect();
        let row_step = n + 2;
        let mut dst = vec![1.0f32; 1 + m * row_step];
        fn view(data: &[f32], column_step: usize, row_step: usize) -> View<'_> {
            View {
                data,
                start: 0,
                column_step,
                row_step,
            }
        }
        product(
            (m, n, k),
            &mut dst,
            1,
            row_step,
            true,
            view(&lhs, 1, k),
            view(&rhs, k, 1),
            2.0,
        );
        for i in 0..m {
            for j in 0..n {
                let want: f32 =
                    1.0 + 2.0 * (0..k).map(|t| lhs[i * k + t] * rhs[j * k + t]).sum::<f32>();
                let got = dst[1 + i * row_step + j];
                assert!((got - want).abs() < 1e-4, "({i},{j}): {got} vs {want}");
            }
        }
        assert_eq!(
            dst[0], 1.0,
            "nothing before the destination's start is written"
        );
    }

    #[test]
    #[should_panic(expected = "a matrix product outside its buffers")]
    fn a_product_that_would_read_outside_its_slice_panics_first() {
        let small = [1.0f32; 4];
        let mut dst = [0.0f32; 4];
        let view = View {
            data: &small,
            start: 0,
            column_step: 1,
            row_step: 2,
        };
        // 3 × 2 from a 4-element slice: the check refuses before gemm runs.
        product((3, 2, 2), &mut dst, 0, 2, false, view, view, 1.0);
    }

    #[test]
    fn softmax_rows_sum_to_one_and_keep_their_order() {
        let mut row = [1.0f32, 3.0, 2.0, -50.0];
        softmax(&mut row);
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(row[1] > row[2] && row[2] > row[0] && row[3] < 1e-20);
    }
}
