//! Which of the files of one name wins.

/// A file found in a root that others of the same name may shadow (a
/// skill, a tool catalog), ordered by one precedence: earlier root, then
/// a file in plain folders before a copy under a hidden one (`.gemini/`,
/// `.cursor/`: tool-specific stubs), then shallower path, then path
/// order. Paths under one root share its prefix, so comparing whole paths
/// orders them as their paths inside the root.
pub(crate) trait Found {
    /// (root, hidden, depth, path): what orders it.
    fn place(&self) -> (usize, bool, usize, &std::path::Path);
}

/// Sort `found` by precedence (see [`Found`]), the winner first.
pub(crate) fn by_precedence<T: Found>(found: &mut [&T]) {
    found.sort_by(|a, b| {
        let (ra, ha, da, pa) = a.place();
        let (rb, hb, db, pb) = b.place();
        (ra, ha, da, pa.as_os_str().as_encoded_bytes()).cmp(&(
            rb,
            hb,
            db,
            pb.as_os_str().as_encoded_bytes(),
        ))
    });
}

impl Found for super::FoundSkill {
    fn place(&self) -> (usize, bool, usize, &std::path::Path) {
        (self.root, self.hidden, self.depth, &self.path)
    }
}
