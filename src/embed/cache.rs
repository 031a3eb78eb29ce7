//! The embedding cache: one file per model, vectors keyed by the hash of
//! the text they embed.
//!
//! Never stale by construction: the file is named by the model's id (a
//! hash of its weights, config and tokenizer) and each vector by a 128-bit
//! hash of its text, so an edited skill simply misses and is embedded
//! again. One bad byte (a partial write, a disk error, another version's
//! format) makes the whole file be ignored, never an error: the checksum
//! at its end covers everything before it. Writes go to a temporary file in
//! the same folder, then replace the old file in one rename.
//!
//! Layout (little-endian): `SKDXEMB1`, dimension u32, count u64, then per
//! entry the 16-byte text key and `dimension` f32, then a u64 checksum.

use crate::hash::StableHasher;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"SKDXEMB1";
/// At most this many vectors are kept in a file: the ones used since it was
/// opened, then the most recently written others (other catalogs sharing
/// the model), about 75 MB at 384 dimensions.
const MAX_ENTRIES: usize = 50_000;

/// The folder for caches: `SKILLDEX_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/skilldex`, else `~/.cache/skilldex`.
pub fn cache_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("SKILLDEX_CACHE_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = var("XDG_CACHE_HOME") {
        return Some(PathBuf::from(dir).join("skilldex"));
    }
    var("HOME").map(|home| PathBuf::from(home).join(".cache").join("skilldex"))
}

/// The 128-bit key of a text: two differently seeded stable hashes.
pub fn text_key(text: &str) -> u128 {
    let mut a = StableHasher::new();
    a.write(text.as_bytes());
    let mut b = StableHasher::new();
    b.write(b"skilldex embedding key");
    b.write(text.as_bytes());
    (u128::from(a.finish()) << 64) | u128::from(b.finish())
}

/// Vectors of one model, in memory, with the file they came from.
#[derive(Debug)]
pub struct EmbeddingCache {
    path: Option<PathBuf>,
    dimension: usize,
    /// key → (vector, used since opened).
    entries: HashMap<u128, (Box<[f32]>, bool)>,
    /// Keys in file order (oldest first), then those added since.
    order: Vec<u128>,
    dirty: bool,
    discarded: bool,
}

impl EmbeddingCache {
    /// An empty cache that is never written.
    pub fn in_memory(dimension: usize) -> EmbeddingCache {
        EmbeddingCache {
            path: None,
            dimension,
            entries: HashMap::new(),
            order: Vec::new(),
            dirty: false,
            discarded: false,
        }
    }

    /// The cache of model `model_id` under `dir` (`dir/embeddings/ID.bin`).
    /// A missing, partial or corrupt file gives an empty cache.
    pub fn open(dir: &Path, model_id: &str, dimension: usize) -> EmbeddingCache {
        let path = dir.join("embeddings").join(format!("{model_id}.bin"));
        let mut cache = EmbeddingCache::in_memory(dimension);
        match std::fs::read(&path) {
            Ok(bytes) => {
                if !cache.read(&bytes) {
                    cache.entries.clear();
                    cache.order.clear();
                    cache.discarded = true;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => cache.discarded = true,
        }
        cache.path = Some(path);
        cache
    }

    /// True when a file was there but could not be used (it will be
    /// replaced on the next save).
    pub fn discarded(&self) -> bool {
        self.discarded
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The vector of the text with key `key`, marked as used.
    pub fn get(&mut self, key: u128) -> Option<&[f32]> {
        let (vector, used) = self.entries.get_mut(&key)?;
        *used = true;
        Some(vector)
    }

    pub fn insert(&mut self, key: u128, vector: Vec<f32>) {
        debug_assert_eq!(vector.len(), self.dimension);
        if self
            .entries
            .insert(key, (vector.into_boxed_slice(), true))
            .is_none()
        {
            self.order.push(key);
        }
        self.dirty = true;
    }

    /// Whether vectors were added since the file was read or written.
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    fn read(&mut self, bytes: &[u8]) -> bool {
        let Some(body_len) = bytes.len().checked_sub(8) else {
            return false;
        };
        let (body, sum) = bytes.split_at(body_len);
        let mut hasher = StableHasher::new();
        hasher.write(body);
        if sum != hasher.finish().to_le_bytes() || body.len() < 20 || &body[..8] != MAGIC {
            return false;
        }
        let dimension = u32::from_le_bytes(body[8..12].try_into().unwrap_or_default()) as usize;
        let count = u64::from_le_bytes(body[12..20].try_into().unwrap_or_default()) as usize;
        let record = 16 + 4 * dimension;
        if dimension != self.dimension || Some(body.len() - 20) != count.checked_mul(record) {
            return false;
        }
        for chunk in body[20..].chunks_exact(record) {
            let key = u128::from_le_bytes(chunk[..16].try_into().unwrap_or_default());
            let vector: Box<[f32]> = chunk[16..]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap_or_default()))
                .collect();
            if self.entries.insert(key, (vector, false)).is_none() {
                self.order.push(key);
            }
        }
        true
    }

    /// Write the file if vectors were added: the ones used since it was
    /// opened first, then the newest others up to [`MAX_ENTRIES`].
    pub fn save(&mut self) -> std::io::Result<()> {
        let Some(path) = self.path.clone().filter(|_| self.dirty) else {
            return Ok(());
        };
        let used: Vec<u128> = self
            .order
            .iter()
            .copied()
            .filter(|k| self.entries[k].1)
            .collect();
        let room = MAX_ENTRIES.saturating_sub(used.len());
        let unused: Vec<u128> = self
            .order
            .iter()
            .copied()
            .filter(|k| !self.entries[k].1)
            .collect();
        let kept_unused = &unused[unused.len().saturating_sub(room)..];
        // Oldest first, so the next trim drops the oldest.
        let keys: Vec<u128> = kept_unused.iter().chain(&used).copied().collect();
        let mut bytes = Vec::with_capacity(28 + keys.len() * (16 + 4 * self.dimension));
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&(self.dimension as u32).to_le_bytes());
        bytes.extend_from_slice(&(keys.len() as u64).to_le_bytes());
        for key in &keys {
            bytes.extend_from_slice(&key.to_le_bytes());
            for x in self.entries[key].0.iter() {
                bytes.extend_from_slice(&x.to_le_bytes());
            }
        }
        let mut hasher = StableHasher::new();
        hasher.write(&bytes);
        bytes.extend_from_slice(&hasher.finish().to_le_bytes());
        let folder = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(folder)?;
        let temporary = folder.join(format!(
            ".{}.{}.tmp",
            path.file_name().and_then(|n| n.to_str()).unwrap_or("cache"),
            std::process::id()
        ));
        let written = std::fs::File::create(&temporary)
            .and_then(|mut file| file.write_all(&bytes))
            .and_then(|()| std::fs::rename(&temporary, &path));
        if written.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        written?;
        self.order = keys;
        self.dirty = false;
        self.discarded = false;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(seed: f32) -> Vec<f32> {
        (0..4).map(|i| seed + i as f32).collect()
    }

    #[test]
    fn vectors_survive_a_save_and_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = EmbeddingCache::open(dir.path(), "m1", 4);
        assert!(cache.is_empty() && !cache.discarded());
        cache.insert(text_key("a"), vector(1.0));
        cache.insert(text_key("b"), vector(2.0));
        cache.save().unwrap();
        let mut again = EmbeddingCache::open(dir.path(), "m1", 4);
        assert_eq!(again.len(), 2);
        assert_eq!(again.get(text_key("b")), Some(&vector(2.0)[..]));
        assert_eq!(again.get(text_key("c")), None);
        // Another model has its own file.
        assert!(EmbeddingCache::open(dir.path(), "m2", 4).is_empty());
        // A different dimension is another format: ignored.
        assert!(EmbeddingCache::open(dir.path(), "m1", 8).is_empty());
    }

    #[test]
    fn a_corrupt_or_partial_file_is_ignored_and_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = EmbeddingCache::open(dir.path(), "m", 4);
        cache.insert(text_key("a"), vector(1.0));
        cache.save().unwrap();
        let path = cache.path().unwrap().to_path_buf();
        let good = std::fs::read(&path).unwrap();
        for bad in [
            good[..good.len() - 3].to_vec(),
            {
                let mut b = good.clone();
                b[30] ^= 1;
                b
            },
            b"garbage".to_vec(),
            Vec::new(),
        ] {
            std::fs::write(&path, &bad).unwrap();
            let mut cache = EmbeddingCache::open(dir.path(), "m", 4);
            assert!(cache.is_empty());
            assert!(cache.discarded());
            cache.insert(text_key("z"), vector(9.0));
            cache.save().unwrap();
            assert_eq!(EmbeddingCache::open(dir.path(), "m", 4).len(), 1);
        }
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn text_keys_differ_for_different_texts() {
        assert_ne!(text_key("ab"), text_key("ba"));
        assert_ne!(text_key(""), text_key(" "));
        assert_eq!(text_key("same"), text_key("same"));
    }
}
