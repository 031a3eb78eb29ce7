//! The embedding cache: one file per model, vectors keyed by the hash of
//! the text they embed.
//!
//! Never stale by construction: the file is named by the model's id (a
//! hash of its weights, config and tokenizer) and each vector by a 128-bit
//! hash of its text, so an edited skill simply misses and is embedded
//! again.
//!
//! **Incremental.** The file is a journal: a header, then blocks of
//! entries, each block with its own checksum. Saving appends one block
//! with the vectors embedded since the last save, so an edited skill
//! writes one entry (about 1.6 KB), not the whole catalog's vectors. The
//! file is rewritten (to a temporary file in the same folder, then
//! replaced in one rename) only when it is new, when part of it could not
//! be read, or when it would pass [`MAX_ENTRIES`].
//!
//! **One bad byte loses only its block.** Reading stops at the first block
//! that is cut short or fails its checksum (a partial write, a disk error,
//! another process's interleaved write), keeps the blocks before it, and
//! the next save rewrites the file. A wrong vector is never read.
//!
//! **Only its own model's.** The header holds the model's key (the
//! XXH3-128 of its id) beside the dimension: a file of another model put
//! under this one's name (a cache folder copied between machines, a hand
//! rename) is refused whole, never served.
//!
//! Layout (little-endian): `SKDXEMB4`, dimension u32, the model's key
//! (16 bytes); then blocks of
//! `count` u32, `count` entries (the 16-byte text key and `dimension`
//! f32), and a u64 checksum of the block's count and entries.

use crate::hash::StableHasher;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const MAGIC: &[u8; 8] = b"SKDXEMB4";
const HEADER: usize = 28;
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

/// The 128-bit key of a text (XXH3-128 of its bytes).
pub fn text_key(text: &str) -> u128 {
    let mut hash = StableHasher::new();
    hash.write(text.as_bytes());
    hash.finish128()
}

/// Vectors by text key, in memory, mirrored in a file when opened with
/// [`EmbeddingCache::open`].
#[derive(Debug)]
pub struct EmbeddingCache {
    path: Option<PathBuf>,
    dimension: usize,
    /// The model's key, in the file's header.
    model: u128,
    /// The vector and whether it was used (looked up or inserted) since
    /// the cache was opened.
    entries: HashMap<u128, (Arc<[f32]>, bool)>,
    /// Keys in the order they were first written (oldest first).
    order: Vec<u128>,
    /// Keys inserted since the last save (to append).
    fresh: Vec<u128>,
    /// Entries the file holds (duplicates counted): appending stops at
    /// [`MAX_ENTRIES`].
    in_file: usize,
    /// The file is whole and ours to append to (false: rewrite it).
    appendable: bool,
    /// Part or all of the file was ignored when it was opened.
    discarded: bool,
}

impl EmbeddingCache {
    /// A cache that lives in memory only.
    pub fn in_memory(dimension: usize) -> EmbeddingCache {
        EmbeddingCache {
            path: None,
            dimension,
            model: 0,
            entries: HashMap::new(),
            order: Vec::new(),
            fresh: Vec::new(),
            in_file: 0,
            appendable: false,
            discarded: false,
        }
    }

    /// The cache of model `model_id` in `dir` (`dir/embeddings/ID.bin`),
    /// read now; a missing file is an empty cache and an unreadable part
    /// is ignored ([`EmbeddingCache::discarded`]).
    pub fn open(dir: &Path, model_id: &str, dimension: usize) -> EmbeddingCache {
        let path = dir.join("embeddings").join(format!("{model_id}.bin"));
        let mut cache = EmbeddingCache::in_memory(dimension);
        cache.model = text_key(model_id);
        // Only a regular file of a size this cache can have is read, opened
        // without blocking and checked on its descriptor: a pipe or a
        // device in its place would block or never end.
        let largest = (HEADER + MAX_ENTRIES * (16 + 4 * dimension) + 12 * MAX_ENTRIES) as u64;
        let read = crate::contain::read_regular(&path, largest);
        match read {
            Ok(bytes) => {
                cache.appendable = cache.read(&bytes);
                cache.discarded = !cache.appendable;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => cache.discarded = true,
        }
        cache.path = Some(path);
        cache
    }

    /// Whether part or all of the file was ignored when it was opened (it
    /// is rewritten at the next save).
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

    /// The vector of `key`, if cached (and mark it used).
    pub fn get(&mut self, key: u128) -> Option<&[f32]> {
        let (vector, used) = self.entries.get_mut(&key)?;
        *used = true;
        Some(vector)
    }

    /// The vector of `key` as a shared row (and mark it used).
    pub fn shared(&mut self, key: u128) -> Option<Arc<[f32]>> {
        let (vector, used) = self.entries.get_mut(&key)?;
        *used = true;
        Some(vector.clone())
    }

    pub fn insert(&mut self, key: u128, vector: Vec<f32>) {
        debug_assert_eq!(vector.len(), self.dimension);
        if self.entries.insert(key, (vector.into(), true)).is_none() {
            self.order.push(key);
        }
        self.fresh.push(key);
    }

    /// Whether there are vectors the file does not have yet.
    pub fn is_dirty(&self) -> bool {
        !self.fresh.is_empty()
    }

    /// Read the file's blocks into memory; false when part of it was
    /// ignored (a bad header, or a block cut short or failing its
    /// checksum: the blocks before it are kept).
    fn read(&mut self, bytes: &[u8]) -> bool {
        if bytes.len() < HEADER
            || &bytes[..8] != MAGIC
            || u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize
                != self.dimension
            || bytes[12..HEADER] != self.model.to_le_bytes()
        {
            return false;
        }
        let record = 16 + 4 * self.dimension;
        let mut rest = &bytes[HEADER..];
        while !rest.is_empty() {
            let Some(block) = block_len(rest, record) else {
                return false;
            };
            let (body, sum) = rest[..block].split_at(block - 8);
            let mut hasher = StableHasher::new();
            hasher.write(body);
            if sum != hasher.finish().to_le_bytes() {
                return false;
            }
            for chunk in body[4..].chunks_exact(record) {
                let key = u128::from_le_bytes(chunk[..16].try_into().unwrap_or_default());
                let vector: Arc<[f32]> = chunk[16..]
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes(c.try_into().unwrap_or_default()))
                    .collect();
                if self.entries.insert(key, (vector, false)).is_none() {
                    self.order.push(key);
                }
                self.in_file += 1;
            }
            rest = &rest[block..];
        }
        true
    }

    /// Write what the file lacks: one block appended, or the whole file
    /// rewritten (see the module docs). Nothing to do when nothing was
    /// inserted since the last save, or for an in-memory cache.
    pub fn save(&mut self) -> std::io::Result<()> {
        let Some(path) = self.path.clone().filter(|_| self.is_dirty()) else {
            return Ok(());
        };
        let mut fresh = std::mem::take(&mut self.fresh);
        fresh.sort_unstable();
        fresh.dedup();
        let written = if self.appendable && self.in_file + fresh.len() <= MAX_ENTRIES {
            // A file removed or made unwritable under us is written anew.
            self.append(&path, &fresh).or_else(|_| self.rewrite(&path))
        } else {
            self.rewrite(&path)
        };
        if written.is_err() {
            // Tried again at the next save, as a whole new file.
            self.fresh = fresh;
            self.appendable = false;
        }
        written
    }

    fn append(&mut self, path: &Path, keys: &[u128]) -> std::io::Result<()> {
        let mut bytes = Vec::new();
        self.push_block(&mut bytes, keys);
        let mut file = std::fs::OpenOptions::new().append(true).open(path)?;
        // One write: other processes appending to the same file do not
        // cut into the block.
        file.write_all(&bytes)?;
        self.in_file += keys.len();
        Ok(())
    }

    /// The file anew: the vectors used since it was opened, then as many
    /// of the others as fit, the most recently written first.
    fn rewrite(&mut self, path: &Path) -> std::io::Result<()> {
        let used = |k: &u128| self.entries[k].1;
        let kept_used: Vec<u128> = self.order.iter().copied().filter(used).collect();
        let room = MAX_ENTRIES.saturating_sub(kept_used.len());
        let unused: Vec<u128> = self.order.iter().copied().filter(|k| !used(k)).collect();
        let kept_unused = &unused[unused.len().saturating_sub(room)..];
        let keys: Vec<u128> = kept_unused.iter().chain(&kept_used).copied().collect();
        let mut bytes = Vec::with_capacity(HEADER + 12 + keys.len() * (16 + 4 * self.dimension));
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&(self.dimension as u32).to_le_bytes());
        bytes.extend_from_slice(&self.model.to_le_bytes());
        self.push_block(&mut bytes, &keys);
        let folder = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(folder)?;
        let temporary = crate::paths::temporary_beside(path);
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)
            .and_then(|mut file| file.write_all(&bytes))
            .and_then(|()| std::fs::rename(&temporary, path));
        if written.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        written?;
        let kept: std::collections::HashSet<u128> = keys.iter().copied().collect();
        self.entries.retain(|k, _| kept.contains(k));
        self.order = keys;
        self.in_file = self.order.len();
        self.appendable = true;
        self.discarded = false;
        Ok(())
    }

    /// One block of `keys`' entries, checksummed, onto `bytes`.
    fn push_block(&self, bytes: &mut Vec<u8>, keys: &[u128]) {
        let start = bytes.len();
        bytes.reserve(12 + keys.len() * (16 + 4 * self.dimension));
        bytes.extend_from_slice(&(keys.len() as u32).to_le_bytes());
        for key in keys {
            bytes.extend_from_slice(&key.to_le_bytes());
            for x in self.entries[key].0.iter() {
                bytes.extend_from_slice(&x.to_le_bytes());
            }
        }
        let mut hasher = StableHasher::new();
        hasher.write(&bytes[start..]);
        bytes.extend_from_slice(&hasher.finish().to_le_bytes());
    }
}

/// The length of the block at the start of `rest` (count, entries,
/// checksum), if it is all there.
fn block_len(rest: &[u8], record: usize) -> Option<usize> {
    let count = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
    let block = count.checked_mul(record)?.checked_add(12)?;
    (block <= rest.len()).then_some(block)
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
    fn another_models_file_under_this_name_is_not_served() {
        let dir = tempfile::tempdir().unwrap();
        let mut theirs = EmbeddingCache::open(dir.path(), "m1", 4);
        theirs.insert(text_key("a"), vector(1.0));
        theirs.save().unwrap();
        let ours = dir.path().join("embeddings").join("m2.bin");
        std::fs::copy(theirs.path().unwrap(), &ours).unwrap();
        let mut cache = EmbeddingCache::open(dir.path(), "m2", 4);
        assert!(cache.is_empty() && cache.discarded());
        assert_eq!(cache.get(text_key("a")), None);
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
    fn a_save_appends_only_what_is_new() {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = EmbeddingCache::open(dir.path(), "m", 4);
        for i in 0..100 {
            cache.insert(text_key(&format!("t{i}")), vector(i as f32));
        }
        cache.save().unwrap();
        let path = cache.path().unwrap().to_path_buf();
        let first = std::fs::read(&path).unwrap();
        // Saving again with nothing new writes nothing.
        cache.save().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), first);
        // Reopened (as a new process would) and one vector added: the
        // file keeps its bytes and grows by one block of one entry.
        let mut again = EmbeddingCache::open(dir.path(), "m", 4);
        assert!(!again.discarded());
        assert_eq!(again.get(text_key("t7")), Some(&vector(7.0)[..]));
        again.insert(text_key("new"), vector(50.0));
        again.save().unwrap();
        let grown = std::fs::read(&path).unwrap();
        assert_eq!(&grown[..first.len()], &first[..]);
        assert_eq!(grown.len(), first.len() + 4 + 16 + 4 * 4 + 8);
        let mut third = EmbeddingCache::open(dir.path(), "m", 4);
        assert_eq!(third.len(), 101);
        assert_eq!(third.get(text_key("new")), Some(&vector(50.0)[..]));
        assert!(!third.discarded());
    }

    #[test]
    fn a_torn_last_block_loses_only_itself_and_the_file_is_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = EmbeddingCache::open(dir.path(), "m", 4);
        cache.insert(text_key("a"), vector(1.0));
        cache.save().unwrap();
        cache.insert(text_key("b"), vector(2.0));
        cache.save().unwrap();
        let path = cache.path().unwrap().to_path_buf();
        let whole = std::fs::read(&path).unwrap();
        for torn in [whole.len() - 1, whole.len() - 20] {
            std::fs::write(&path, &whole[..torn]).unwrap();
            let mut reopened = EmbeddingCache::open(dir.path(), "m", 4);
            assert!(reopened.discarded());
            assert_eq!(reopened.len(), 1);
            assert_eq!(reopened.get(text_key("a")), Some(&vector(1.0)[..]));
            assert_eq!(reopened.get(text_key("b")), None);
            // Its next save writes a whole file again, not after the tear.
            reopened.insert(text_key("c"), vector(3.0));
            reopened.save().unwrap();
            let mut healed = EmbeddingCache::open(dir.path(), "m", 4);
            assert!(!healed.discarded());
            assert_eq!(healed.len(), 2);
            assert_eq!(healed.get(text_key("c")), Some(&vector(3.0)[..]));
        }
    }

    #[test]
    fn two_processes_appending_keep_both_vectors() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = EmbeddingCache::open(dir.path(), "m", 4);
        first.insert(text_key("base"), vector(0.0));
        first.save().unwrap();
        let mut one = EmbeddingCache::open(dir.path(), "m", 4);
        let mut two = EmbeddingCache::open(dir.path(), "m", 4);
        one.insert(text_key("one"), vector(1.0));
        two.insert(text_key("two"), vector(2.0));
        one.save().unwrap();
        two.save().unwrap();
        let mut merged = EmbeddingCache::open(dir.path(), "m", 4);
        assert_eq!(merged.len(), 3);
        assert_eq!(merged.get(text_key("two")), Some(&vector(2.0)[..]));
        assert_eq!(merged.get(text_key("one")), Some(&vector(1.0)[..]));
    }

    #[test]
    fn a_full_file_is_rewritten_with_the_vectors_in_use_first() {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = EmbeddingCache::open(dir.path(), "m", 4);
        for i in 0..MAX_ENTRIES {
            cache.insert(i as u128, vector(1.0));
        }
        cache.save().unwrap();
        // A later process uses three of them and adds ten: the file would
        // pass the bound, so it is rewritten, keeping what is in use.
        let mut later = EmbeddingCache::open(dir.path(), "m", 4);
        for key in [0u128, 1, 2] {
            assert!(later.get(key).is_some());
        }
        for i in 0..10u128 {
            later.insert(1_000_000 + i, vector(2.0));
        }
        later.save().unwrap();
        let mut reread = EmbeddingCache::open(dir.path(), "m", 4);
        assert_eq!(reread.len(), MAX_ENTRIES);
        for key in [0u128, 1, 2, 1_000_009] {
            assert!(reread.get(key).is_some(), "{key}");
        }
        // The oldest unused ones made room.
        assert!(reread.get(3).is_none());
        let size = std::fs::metadata(reread.path().unwrap()).unwrap().len() as usize;
        assert_eq!(size, HEADER + 12 + MAX_ENTRIES * (16 + 16));
    }

    #[cfg(unix)]
    #[test]
    fn a_pipe_in_place_of_the_file_is_not_read_and_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("embeddings");
        std::fs::create_dir_all(&folder).unwrap();
        let path = folder.join("m.bin");
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(made.success());
        // Reading it would block forever; it is passed over.
        let mut cache = EmbeddingCache::open(dir.path(), "m", 4);
        assert!(cache.is_empty() && cache.discarded());
        cache.insert(text_key("a"), vector(1.0));
        cache.save().unwrap();
        assert!(std::fs::metadata(&path).unwrap().is_file());
        assert_eq!(EmbeddingCache::open(dir.path(), "m", 4).len(), 1);
    }

    #[test]
    fn text_keys_differ_for_different_texts() {
        assert_ne!(text_key("ab"), text_key("ba"));
        assert_ne!(text_key(""), text_key(" "));
        assert_eq!(text_key("same"), text_key("same"));
    }
}
