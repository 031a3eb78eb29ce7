//! The BERT encoder of a sentence-transformers model (all-MiniLM-L6-v2 and
//! its kind): embeddings, `num_hidden_layers` post-norm transformer blocks,
//! then mean pooling over each text's tokens and L2 normalisation, as
//! sentence-transformers' `Transformer → Pooling → Normalize` pipeline
//! does.
//!
//! candle loads the weights (`VarBuilder` over the safetensors file); the
//! forward pass is ours, over plain `f32` rows, with candle's own matrix
//! product crate (`gemm`) on the calling thread. Measured on 10,000 skills
//! (docs/search.md), candle's tensor ops spent a third of a query's time
//! outside the products — every product asked the system for the CPU
//! count, and above 64k elements its element-wise ops queued for one
//! process-wide pool, so two embedding workers took turns — and padded
//! every text of a pass to the longest. Here the texts of a pass are
//! stacked without padding (the dense layers run over real tokens only;
//! attention runs per text over its own tokens), the bias, residual and
//! GELU are applied where the product is written, and nothing is shared
//! between threads.
//!
//! Only the absolute position embeddings and the GELU (erf) activation of
//! BERT are supported; another `config.json` is refused by name in
//! [`BertConfig::check`].

use super::amx;
use candle_core::Tensor;
use candle_nn::VarBuilder;
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

/// A dense layer: the weight stored `[in, out]` row-major, and its bias;
/// also in bf16 tiles where the CPU has the AMX unit (see `amx.rs`).
struct Dense {
    weight: Vec<f32>,
    tiles: Option<amx::Packed>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

impl Dense {
    /// The layers `names` under `vb` (each `[out, in]` as PyTorch stores
    /// it) side by side in one product: `[in, Σ out]`.
    fn load(vb: &VarBuilder, names: &[&str], inputs: usize, outputs: usize) -> CandleResult<Dense> {
        let mut parts = Vec::with_capacity(names.len());
        let mut bias = Vec::with_capacity(outputs * names.len());
        for name in names {
            let l = vb.pp(*name);
            parts.push(l.get((outputs, inputs), "weight")?);
            bias.extend(l.get(outputs, "bias")?.to_vec1::<f32>()?);
        }
        let weight = Tensor::cat(&parts, 0)?
            .t()?
            .contiguous()?
            .flatten_all()?
            .to_vec1::<f32>()?;
        let outputs = outputs * names.len();
        let tiles = if amx::available() {
            amx::Packed::new(&weight, inputs, outputs)
        } else {
            None
        };
        Ok(Dense {
            weight,
            tiles,
            bias,
            inputs,
            outputs,
        })
    }

    /// `x · W + b` for the `rows` rows of `x`, plus `residual` (same shape
    /// as the result) when given; on the tile unit when `tiles` and the
    /// layer has them.
    fn forward(&self, x: &[f32], rows: usize, residual: Option<&[f32]>, tiles: bool) -> Vec<f32> {
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
        if let Some(packed) = self.tiles.as_ref().filter(|_| tiles) {
            amx::product(x, rows, packed, &mut out);
            return out;
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
    fn load(vb: VarBuilder, size: usize, eps: f64) -> CandleResult<Norm> {
        Ok(Norm {
            weight: vb.get(size, "weight")?.to_vec1::<f32>()?,
            bias: vb.get(size, "bias")?.to_vec1::<f32>()?,
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
    /// Whether the dense products run on the tile unit (bf16).
    tiles: bool,
}

type CandleResult<T> = candle_core::Result<T>;

impl Bert {
    /// The encoder's weights from `vb` (sentence-transformers names them
    /// without a prefix; a `transformers` checkpoint has `bert.`).
    pub(super) fn load(vb: VarBuilder, config: &BertConfig) -> CandleResult<Bert> {
        let vb = if vb.contains_tensor("bert.embeddings.word_embeddings.weight") {
            vb.pp("bert")
        } else {
            vb
        };
        let hidden = config.hidden_size;
        let eps = config.layer_norm_eps;
        let e = vb.pp("embeddings");
        let table = |name: &str, rows: usize| -> CandleResult<Vec<f32>> {
            e.pp(name)
                .get((rows, hidden), "weight")?
                .flatten_all()?
                .to_vec1::<f32>()
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
        let mut bert = Bert {
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
            tiles: false,
        };
        bert.use_tiles(true);
        Ok(bert)
    }

    /// Run the dense products in bf16 on the AMX tile unit (`true`, the
    /// default where the CPU and kernel have it) or in f32; returns whether
    /// the tile unit is now in use.
    pub(super) fn use_tiles(&mut self, on: bool) -> bool {
        self.tiles = on
            && self.layers.iter().all(|l| {
                [&l.qkv, &l.attention_out, &l.intermediate, &l.output]
                    .iter()
                    .all(|d| d.tiles.is_some())
            });
        self.tiles
    }

    pub(super) fn tiles(&self) -> bool {
        self.tiles
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
        let tiles = self.tiles;
        let qkv = layer.qkv.forward(x, rows, None, tiles);
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
        let mut attended = layer.attention_out.forward(&context, rows, Some(x), tiles);
        layer.attention_norm.apply(&mut attended);
        let mut inner = layer.intermediate.forward(&attended, rows, None, tiles);
        if tiles {
            amx::map_wide(&mut inner, gelu);
        } else {
            inner.iter_mut().for_each(|v| *v = gelu(*v));
        }
        let mut out = layer.output.forward(&inner, rows, Some(&attended), tiles);
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

    #[test]
    fn gelu_has_its_limits_far_out() {
        for x in [6.0f32, 10.0, 40.0, 1e4] {
            assert!((gelu(x) - x).abs() <= 1e-6 * x, "gelu({x})");
            assert!(gelu(-x).abs() < 1e-6, "gelu(-{x})");
        }
        assert_eq!(gelu(0.0), 0.0);
    }

    #[test]
    fn softmax_rows_sum_to_one_and_keep_their_order() {
        let mut row = [1.0f32, 3.0, 2.0, -50.0];
        softmax(&mut row);
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(row[1] > row[2] && row[2] > row[0] && row[3] < 1e-20);
    }
}
