//! Hashers every layer may use (a leaf module: it imports nothing of ours).
//!
//! - [`StableHasher`]: the same value on every platform and release, for
//!   content hashes that are compared across builds (a skill's version, a
//!   directory's digest).
//! - [`FastHasher`] / [`FastMap`]: for in-memory maps keyed by short
//!   strings (search vocabulary, grep's folder lookup); fast, not
//!   DoS-resistant — keys come from the catalog's own files and a query,
//!   and a slow map only makes one answer slower.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A small word-at-a-time hash (FxHash's multiply-rotate step over
/// little-endian 8-byte words): stable across platforms and releases, and
/// fast enough to hash every description on each build.
pub(crate) struct StableHasher(u64);

impl StableHasher {
    const K: u64 = 0x517c_c1b7_2722_0a95;

    pub(crate) fn new() -> Self {
        StableHasher(0xcbf2_9ce4_8422_2325)
    }

    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::K);
    }

    pub(crate) fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let mut tail = [0u8; 8];
        tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.add(u64::from_le_bytes(tail));
        // The length separates ("ab","c") from ("a","bc").
        self.add(bytes.len() as u64);
    }

    pub(crate) fn finish(&self) -> u64 {
        self.0
    }
}

/// A small, fast hasher for short keys (the multiply-rotate scheme of
/// rustc's FxHash). Not DoS-resistant: keys come from the catalog's own
/// files and the query, and a slow map only makes a search slower.
#[derive(Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.write(&[i]);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;
