//! Hashers every layer may use (a leaf module: it imports nothing of ours).
//!
//! - [`StableHasher`]: XXH3's 128-bit hash (`xxhash-rust`), the same value
//!   on every platform and release, for content keys compared across
//!   builds and runs: a skill's version, a directory's revision, the
//!   embedding cache's text keys and model id. 128 bits, so a collision —
//!   which would serve one text's vector for another — is not a practical
//!   event for any catalog.
//! - [`FastMap`]: for in-memory maps keyed by short strings (search
//!   vocabulary, grep's folder lookup): `rustc-hash`'s FxHash, fast and
//!   deterministic, not DoS-resistant — keys come from the catalog's own
//!   files and a query, and a slow map only makes one answer slower.

use xxhash_rust::xxh3::Xxh3;

/// A streaming content hash; each [`write`](Self::write) is followed by its
/// length, so `("ab", "c")` and `("a", "bc")` differ.
pub(crate) struct StableHasher(Xxh3);

impl StableHasher {
    pub(crate) fn new() -> Self {
        StableHasher(Xxh3::new())
    }

    pub(crate) fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
        self.0.update(&(bytes.len() as u64).to_le_bytes());
    }

    /// The full 128-bit hash.
    pub(crate) fn finish128(&self) -> u128 {
        self.0.digest128()
    }

    /// The low 64 bits, where a short tag is enough (a revision shown to a
    /// client, a name suffix).
    pub(crate) fn finish(&self) -> u64 {
        self.finish128() as u64
    }

    /// The 128-bit hash as 32 hex digits.
    pub(crate) fn finish_hex(&self) -> String {
        format!("{:032x}", self.finish128())
    }
}

pub(crate) use rustc_hash::FxHashMap as FastMap;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stable_hash_is_fixed_and_separates_its_parts() {
        let of = |parts: &[&[u8]]| {
            let mut h = StableHasher::new();
            parts.iter().for_each(|p| h.write(p));
            h.finish128()
        };
        assert_eq!(of(&[b"ab", b"c"]), of(&[b"ab", b"c"]));
        assert_ne!(of(&[b"ab", b"c"]), of(&[b"a", b"bc"]));
        assert_ne!(of(&[b""]), of(&[]));
        // Pinned: a change of algorithm or framing is a change of every
        // cache key and revision, and should be made on purpose.
        assert_eq!(
            StableHasher::new().finish_hex(),
            format!("{:032x}", xxhash_rust::xxh3::xxh3_128(b""))
        );
        let mut h = StableHasher::new();
        h.write(b"skill");
        let mut framed = b"skill".to_vec();
        framed.extend_from_slice(&5u64.to_le_bytes());
        assert_eq!(h.finish128(), xxhash_rust::xxh3::xxh3_128(&framed));
    }
}
