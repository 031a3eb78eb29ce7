//! Where there is no AMX tile unit to ask for (not x86-64 Linux): the
//! encoder keeps its f32 products. Same names as `amx.rs`.

pub(super) struct Packed;

impl Packed {
    pub(super) fn new(_weight: &[f32], _inputs: usize, _outputs: usize) -> Option<Packed> {
        None
    }
}

pub(super) fn available() -> bool {
    false
}

pub(super) fn product(_x: &[f32], _rows: usize, _w: &Packed, _out: &mut [f32]) {
    unreachable!("no tile product is ever packed on this platform")
}

pub(super) fn map_wide(_values: &mut [f32], _f: impl Fn(f32) -> f32) {
    unreachable!("no AVX-512 path is ever chosen on this platform")
}
