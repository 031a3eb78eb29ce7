//! The encoder's dense products on the AMX tile unit of recent Intel Xeons
//! (Sapphire Rapids and later), in bf16 with f32 sums.
//!
//! On the Xeon our figures come from, f32 FMA peaks at ~145 GFLOPS per
//! core and gemm reached about half of that on the encoder's shapes; the
//! tile unit's `tdpbf16ps` peaks at ~2,170 GFLOPS (`vdpbf16ps`, the
//! AVX-512 bf16 dot product, at ~78: no faster than f32, so not used).
//! A product's inputs are rounded to bf16 (8 significant bits) and summed
//! in f32: the sentence vectors stay within a cosine of 0.9999 or so of
//! the f32 ones (a test checks it, and docs/search.md has the dev-set
//! figures both ways).
//!
//! Whether the unit is there is asked once per process: the CPU
//! (`cpuid`) and then Linux, which hands out the tile registers' state
//! only to a process that asks (`arch_prctl(ARCH_REQ_XCOMP_PERM)`). When
//! either says no, [`available`] is false and the encoder keeps its f32
//! products. Every call configures the tiles, runs, and releases them, so
//! no tile state outlives a call or leaks between threads.
//!
//! This file holds one of the crate's `unsafe` exceptions (see Cargo.toml):
//! inline assembly, whose every memory access is checked in bounds before
//! the block that makes it.

use std::arch::asm;
use std::sync::OnceLock;

/// A tile holds 16 rows of 64 bytes: 32 bf16 of the left matrix's row,
/// or 16 columns × 2 consecutive rows (a "pair") of the right one.
const TILE_ROWS: usize = 16;
/// The left matrix's columns (the product's depth) one tile covers.
const DEPTH: usize = 32;
/// A tile of f32 sums: 16 × 16.
const TILE_SUMS: usize = TILE_ROWS * TILE_ROWS;
/// Each step computes 2 × 2 tiles of the result: 32 rows × 32 columns.
const BLOCK: usize = 2 * TILE_ROWS;

/// Whether this process can run [`product`] and [`map_wide`] (asked once).
pub(super) fn available() -> bool {
    static READY: OnceLock<bool> = OnceLock::new();
    *READY.get_or_init(|| {
        std::arch::is_x86_feature_detected!("avx512f") && cpu_has_tiles() && linux_grants_tiles()
    })
}

/// `values[i] = f(values[i])`, compiled for AVX-512 (every CPU with the
/// tile unit has it; the crate itself is built for baseline x86-64, where
/// this loop runs four lanes wide). For the encoder's GELU, a fifth of a
/// pass once the products run on tiles.
#[allow(unsafe_code)]
pub(super) fn map_wide(values: &mut [f32], f: impl Fn(f32) -> f32) {
    assert!(available(), "AVX-512 code without the tile unit's check");
    #[target_feature(enable = "avx512f")]
    fn wide(values: &mut [f32], f: impl Fn(f32) -> f32) {
        values.iter_mut().for_each(|v| *v = f(*v));
    }
    // SAFETY: `available` checked that the CPU runs AVX-512F.
    unsafe { wide(values, f) }
}

/// CPUID leaf 7: EDX bit 22 is AMX-BF16, bit 24 AMX-TILE.
fn cpu_has_tiles() -> bool {
    use std::arch::x86_64::{__cpuid, __cpuid_count};
    let (highest, leaf7) = (__cpuid(0).eax, __cpuid_count(7, 0));
    highest >= 7 && leaf7.edx & (1 << 22) != 0 && leaf7.edx & (1 << 24) != 0
}

/// Ask Linux for the tile data state (`XFEATURE_XTILEDATA`, 18) and check
/// that it was granted.
#[allow(unsafe_code)]
fn linux_grants_tiles() -> bool {
    const ARCH_GET_XCOMP_PERM: libc::c_long = 0x1022;
    const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
    const XFEATURE_XTILEDATA: libc::c_long = 18;
    let mut granted: u64 = 0;
    // SAFETY: arch_prctl with these codes reads an integer and writes one
    // u64 through the pointer given, which is a live local.
    unsafe {
        libc::syscall(
            libc::SYS_arch_prctl,
            ARCH_REQ_XCOMP_PERM,
            XFEATURE_XTILEDATA,
        ) == 0
            && libc::syscall(
                libc::SYS_arch_prctl,
                ARCH_GET_XCOMP_PERM,
                &mut granted as *mut u64,
            ) == 0
            && granted & (1 << XFEATURE_XTILEDATA) != 0
    }
}

/// f32 to bf16, rounding to nearest (ties to even). Inputs are finite
/// (layer activations and weights).
#[inline]
fn bf16(x: f32) -> u16 {
    let bits = x.to_bits();
    (bits.wrapping_add(0x7fff + ((bits >> 16) & 1)) >> 16) as u16
}

/// A dense layer's weight `[inputs, outputs]` in bf16, laid out tile by
/// tile the way `tdpbf16ps` reads its right operand: for each block of 16
/// output columns and 32 inputs, 16 rows of (column, pair) → 2 values.
pub(super) struct Packed {
    tiles: Vec<u16>,
    inputs: usize,
    outputs: usize,
}

impl Packed {
    /// `weight` row-major `[inputs, outputs]`; `None` when the shape does
    /// not fall into whole tiles (such a layer keeps the f32 product).
    pub(super) fn new(weight: &[f32], inputs: usize, outputs: usize) -> Option<Packed> {
        if inputs == 0
            || outputs == 0
            || !inputs.is_multiple_of(DEPTH)
            || !outputs.is_multiple_of(BLOCK)
            || weight.len() != inputs * outputs
        {
            return None;
        }
        let depth_blocks = inputs / DEPTH;
        let mut tiles = vec![0u16; inputs * outputs];
        for (t, tile) in tiles.chunks_exact_mut(TILE_ROWS * DEPTH).enumerate() {
            let (column_block, depth_block) = (t / depth_blocks, t % depth_blocks);
            for (pair, row) in tile.chunks_exact_mut(DEPTH).enumerate() {
                for (c, two) in row.chunks_exact_mut(2).enumerate() {
                    let column = column_block * TILE_ROWS + c;
                    for (j, value) in two.iter_mut().enumerate() {
                        let input = depth_block * DEPTH + 2 * pair + j;
                        *value = bf16(weight[input * outputs + column]);
                    }
                }
            }
        }
        Some(Packed {
            tiles,
            inputs,
            outputs,
        })
    }

    /// The tile of output columns `column_block` (16 wide) and inputs
    /// `depth_block` (32 deep), as an element offset into `tiles`.
    fn tile(&self, column_block: usize, depth_block: usize) -> usize {
        (column_block * (self.inputs / DEPTH) + depth_block) * TILE_ROWS * DEPTH
    }
}

/// The tile configuration: palette 1, all eight tiles 16 rows × 64 bytes.
#[repr(C, align(64))]
struct TileConfig([u8; 64]);

impl TileConfig {
    fn full() -> TileConfig {
        let mut bytes = [0u8; 64];
        bytes[0] = 1;
        for t in 0..8 {
            bytes[16 + 2 * t] = 64;
            bytes[48 + t] = TILE_ROWS as u8;
        }
        TileConfig(bytes)
    }
}

/// Four tiles of sums, stored for adding into the result.
#[repr(C, align(64))]
struct Sums([f32; 4 * TILE_SUMS]);

/// `out (rows × outputs) += x (rows × inputs) · W`, on this thread.
///
/// `x` is rounded to bf16 into a copy padded to whole blocks of 32 rows
/// (zeros, whose sums are dropped); each 32 × 32 block of the result is
/// summed in four tiles over the whole depth, then added into `out`.
#[allow(unsafe_code)]
pub(super) fn product(x: &[f32], rows: usize, w: &Packed, out: &mut [f32]) {
    assert!(
        available() && x.len() == rows * w.inputs && out.len() == rows * w.outputs,
        "a tile product without tiles or outside its buffers"
    );
    // SAFETY: checked just above: the tile unit and AVX-512F are there,
    // and the three buffers have the product's shape.
    unsafe { product_on_tiles(x, rows, w, out) }
}

/// [`product`] once its checks passed (the rounding and the adding run
/// sixteen lanes wide).
#[allow(unsafe_code)]
#[target_feature(enable = "avx512f")]
unsafe fn product_on_tiles(x: &[f32], rows: usize, w: &Packed, out: &mut [f32]) {
    let (inputs, outputs) = (w.inputs, w.outputs);
    if rows == 0 {
        return;
    }
    let padded = rows.div_ceil(BLOCK) * BLOCK;
    let mut left = vec![0u16; padded * inputs];
    for (to, from) in left.iter_mut().zip(x) {
        *to = bf16(*from);
    }
    let left_stride = inputs * 2;
    let config = TileConfig::full();
    let mut sums = Sums([0.0; 4 * TILE_SUMS]);
    // SAFETY: the tile unit is granted to this process (`available`) and
    // configured first; every block below leaves the stack alone. Reads:
    // a left tile at (row r, depth d) touches rows r..r+16 of `left`,
    // elements d..d+32 of each, with r + 32 ≤ padded and d + 32 ≤ inputs,
    // so inside `left` (padded × inputs); a right tile is 512 contiguous
    // elements at `w.tile(..)`, inside `w.tiles` (inputs × outputs, one
    // 512-element tile per column block of 16 and depth block of 32).
    // Writes: four 16 × 16 tiles, 64 bytes apart row to row, fill `sums`
    // exactly. The tiles are released before returning, and nothing in
    // between can panic.
    unsafe {
        asm!("ldtilecfg [{}]", in(reg) config.0.as_ptr(), options(nostack, readonly));
        for row in (0..padded).step_by(BLOCK) {
            for column in (0..outputs).step_by(BLOCK) {
                asm!(
                    "tilezero tmm0",
                    "tilezero tmm1",
                    "tilezero tmm2",
                    "tilezero tmm3",
                    options(nostack, nomem)
                );
                let block = column / TILE_ROWS;
                for depth in 0..inputs / DEPTH {
                    let upper = left.as_ptr().add(row * inputs + depth * DEPTH);
                    let lower = upper.add(TILE_ROWS * inputs);
                    let first = w.tiles.as_ptr().add(w.tile(block, depth));
                    let second = w.tiles.as_ptr().add(w.tile(block + 1, depth));
                    asm!(
                        "tileloadd tmm4, [{upper} + {stride}*1]",
                        "tileloadd tmm5, [{lower} + {stride}*1]",
                        "tileloadd tmm6, [{first} + {sixty_four}*1]",
                        "tileloadd tmm7, [{second} + {sixty_four}*1]",
                        "tdpbf16ps tmm0, tmm4, tmm6",
                        "tdpbf16ps tmm1, tmm4, tmm7",
                        "tdpbf16ps tmm2, tmm5, tmm6",
                        "tdpbf16ps tmm3, tmm5, tmm7",
                        upper = in(reg) upper,
                        lower = in(reg) lower,
                        first = in(reg) first,
                        second = in(reg) second,
                        stride = in(reg) left_stride,
                        sixty_four = in(reg) 64usize,
                        options(nostack, readonly)
                    );
                }
                let to = sums.0.as_mut_ptr();
                asm!(
                    "tilestored [{a} + {sixty_four}*1], tmm0",
                    "tilestored [{b} + {sixty_four}*1], tmm1",
                    "tilestored [{c} + {sixty_four}*1], tmm2",
                    "tilestored [{d} + {sixty_four}*1], tmm3",
                    a = in(reg) to,
                    b = in(reg) to.add(TILE_SUMS),
                    c = in(reg) to.add(2 * TILE_SUMS),
                    d = in(reg) to.add(3 * TILE_SUMS),
                    sixty_four = in(reg) 64usize,
                    options(nostack)
                );
                add_block(&sums, out, rows, outputs, row, column);
            }
        }
        asm!("tilerelease", options(nostack, nomem));
    }
}

/// Add the four tiles of `sums` (upper left, upper right, lower left,
/// lower right) into `out` at (`row`, `column`), rows past `rows` dropped.
#[inline(always)]
fn add_block(sums: &Sums, out: &mut [f32], rows: usize, outputs: usize, row: usize, column: usize) {
    for (t, tile) in sums.0.chunks_exact(TILE_SUMS).enumerate() {
        let top = row + TILE_ROWS * (t / 2);
        let left = column + TILE_ROWS * (t % 2);
        for (r, line) in tile.chunks_exact(TILE_ROWS).enumerate() {
            let at = top + r;
            if at >= rows {
                break;
            }
            let target = &mut out[at * outputs + left..at * outputs + left + TILE_ROWS];
            target.iter_mut().zip(line).for_each(|(o, s)| *o += s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reproducible spread of values in [-1, 1).
    fn values(n: usize, seed: u64) -> Vec<f32> {
        let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
            })
            .collect()
    }

    #[test]
    fn bf16_rounds_to_nearest_even() {
        assert_eq!(bf16(1.0), 0x3f80);
        assert_eq!(bf16(-2.0), 0xc000);
        // 1 + 2⁻⁸ is halfway between 1 and 1 + 2⁻⁷: to even (1).
        assert_eq!(bf16(1.0 + 1.0 / 256.0), 0x3f80);
        // 1 + 3·2⁻⁸ is halfway between 1 + 2⁻⁷ and 1 + 2⁻⁶: to even.
        assert_eq!(bf16(1.0 + 3.0 / 256.0), 0x3f82);
        assert_eq!(bf16(1.0 + 1.5 / 256.0), 0x3f81);
    }

    #[test]
    fn shapes_off_the_tiles_are_refused() {
        assert!(Packed::new(&[0.0; 32 * 32], 32, 32).is_some());
        assert!(Packed::new(&[0.0; 16 * 32], 16, 32).is_none());
        assert!(Packed::new(&[0.0; 32 * 48], 32, 48).is_none());
        assert!(Packed::new(&[0.0; 10], 32, 32).is_none());
    }

    /// The tile product against a plain f64 one of the same bf16-rounded
    /// inputs, for row counts around the 32-row blocks. Runs where the
    /// CPU and kernel have the tile unit; elsewhere it says so and checks
    /// only that the unit is reported missing consistently.
    #[test]
    fn tile_product_matches_a_plain_one() {
        if !available() {
            // No AMX tile unit here: the tile product cannot run.
            return;
        }
        let (inputs, outputs) = (96, 64);
        let weight = values(inputs * outputs, 7);
        let packed = Packed::new(&weight, inputs, outputs).unwrap();
        let round = |v: f32| f32::from_bits(u32::from(bf16(v)) << 16);
        for rows in [1usize, 15, 16, 17, 31, 32, 33, 70] {
            let x = values(rows * inputs, rows as u64);
            let start = values(rows * outputs, 99);
            let mut out = start.clone();
            product(&x, rows, &packed, &mut out);
            for r in 0..rows {
                for c in 0..outputs {
                    let want = f64::from(start[r * outputs + c])
                        + (0..inputs)
                            .map(|k| {
                                f64::from(round(x[r * inputs + k]))
                                    * f64::from(round(weight[k * outputs + c]))
                            })
                            .sum::<f64>();
                    let got = f64::from(out[r * outputs + c]);
                    assert!(
                        (got - want).abs() < 1e-4 * (1.0 + want.abs()),
                        "rows {rows}, ({r}, {c}): {got} vs {want}"
                    );
                }
            }
        }
    }
}
