//! The name index behind `read NAME` on large catalogs: a hit answers
//! exactly as a whole scan does, and every change the answer depends on
//! (an edit in place, a new folder, an ignore file, a symlink pointed
//! elsewhere, a broken index file) sends the read back to a whole scan.

use super::{bounded, finish, skill_md, skilldex, write, Run};
use std::path::Path;
use std::time::Duration;

/// A catalog large enough to be indexed: 520 filler skills three folders
/// down, `a/other` and `b/goal` two folders down (so `a/...` wins a name
/// clash with `b/goal`).
pub(super) fn catalog(root: &Path) {
    for i in 0..520 {
        let name = format!("filler-{i:03}");
        write(
            root,
            &format!("filler/ns-{}/{name}/SKILL.md", i % 8),
            skill_md(&name, "Fills the catalog. Use when testing."),
        );
    }
    write(
        root,
        "a/other/SKILL.md",
        "---\nname: other\ndescription: Other. Use when testing.\n---\n\n# Other\n\n## Usage\n\nfrom a/other\n",
    );
    write(
        root,
        "b/goal/SKILL.md",
        "---\nname: goal\ndescription: Target. Use when testing.\n---\n\n# Target\n\n## Usage\n\nfrom b/goal\n\n## More\n\nA longer paragraph so that a small token cap cuts the read short and hints how to go on.\n",
    );
}

/// `skilldex ARGS --root ROOT` with the index kept in `cache` ("off" for
/// none).
pub(super) fn read(cache: &Path, root: &Path, args: &[&str]) -> Run {
    read_roots(cache, &[root], args)
}

/// `skilldex ARGS --root ROOT…`, one `--root` per root, in order.
fn read_roots(cache: &Path, roots: &[&Path], args: &[&str]) -> Run {
    let mut command = skilldex();
    command.env("SKILLDEX_CACHE_DIR", cache).args(args);
    for root in roots {
        command.arg("--root").arg(root);
    }
    finish(command.output().expect("the skilldex binary runs"))
}

/// Wait until what was just written is old enough to be indexed (an index
/// is written only when every path it stamps changed over two seconds
/// before the scan).
pub(super) fn settle() {
    std::thread::sleep(Duration::from_millis(2100));
}

/// Make sure a current index is in place: the first read writes it when
/// something changed since the last, the next is answered from it.
fn index(cache: &Path, root: &Path) {
    settle();
    let first = read(cache, root, &["-v", "read", "goal"]);
    if !first.stderr.contains("paths unchanged") {
        assert!(first.stderr.contains("name index written"), "{first:?}");
        let second = read(cache, root, &["-v", "read", "goal"]);
        assert!(second.stderr.contains("paths unchanged"), "{second:?}");
    }
}

/// The answer to `read goal`, through the index and without one: they
/// must agree. Returns stdout.
fn answer(cache: &Path, root: &Path) -> String {
    let indexed = read(cache, root, &["read", "goal"]);
    let scanned = read(Path::new("off"), root, &["read", "goal"]);
    assert_eq!(indexed.code, scanned.code, "{indexed:?}\n{scanned:?}");
    assert_eq!(indexed.stdout, scanned.stdout);
    assert_eq!(indexed.stderr, scanned.stderr);
    indexed.stdout
}

#[test]
fn a_hit_answers_exactly_as_a_whole_scan() {
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("root"), temp.path().join("cache"));
    catalog(&root);
    // A file of `goal`, a skill nested in it, and a skill that loses the
    // name `other` (it is `c/deep/other`).
    write(
        &root,
        "b/goal/references/notes.md",
        "# Notes\n\nfrom the notes\n",
    );
    write(
        &root,
        "b/goal/inner/SKILL.md",
        skill_md("inner", "Inner. Use when testing."),
    );
    write(&root, "b/goal/inner/guide.md", "# Guide\n");
    write(
        &root,
        "c/deep/other/SKILL.md",
        "---\nname: other\ndescription: Twin. Use when testing.\n---\n\nfrom c/deep/other\n",
    );
    // Too fresh to index: the read still answers, and says why.
    let fresh = read(&cache, &root, &["-v", "read", "goal"]);
    assert_eq!(fresh.code, 0, "{fresh:?}");
    assert!(
        fresh
            .stderr
            .contains("changed less than 2 seconds before the scan"),
        "{fresh:?}"
    );
    index(&cache, &root);
    for args in [
        &["read", "goal"][..],
        &["read", "goal", "--section", "usage"],
        &["read", "goal", "--json"],
        &["read", "goal", "--raw"],
        &["read", "goal", "--lines", "2:4"],
        // The continuation hint names the skill, as a scan's does.
        &["read", "goal", "--max-tokens", "8"],
        &["read", "goal", "--section", "nope"],
        &["read", "filler-007"],
        // A namespace and name, files inside the skill.
        &["read", "b/goal"],
        &["read", "goal/references/notes.md"],
        &["read", "b/goal/references/notes.md", "--json"],
        &["read", "goal/SKILL.md", "--lines", "1:3"],
        &["read", "goal/missing.md"],
        &["read", "goal/../../a/other/SKILL.md"],
        &["read", "goal/references"],
        // Answered by a whole scan: a file of the nested skill, a skill
        // that lost its name, no skill.
        &["read", "goal/inner/guide.md"],
        &["read", "c/deep/other"],
        &["read", "gaol"],
        &["read", "gaol/x.md"],
        // `show` by a plain name.
        &["show", "goal"],
        &["show", "goal", "--json"],
        &["show", "filler-007"],
        &["show", "other"],
        &["show", "gaol"],
        &["show", "b/goal"],
    ] {
        let indexed = read(&cache, &root, args);
        let scanned = read(Path::new("off"), &root, args);
        assert_eq!(indexed.code, scanned.code, "{args:?}: {indexed:?}");
        assert_eq!(indexed.stdout, scanned.stdout, "{args:?}");
        assert_eq!(indexed.stderr, scanned.stderr, "{args:?}");
    }
    let hint = read(&cache, &root, &["read", "goal", "--max-tokens", "8"]);
    assert!(
        hint.stdout.contains("skilldex read goal --lines"),
        "{hint:?}"
    );
    // Misses say why; a plain name the index does not have is one. It is
    // answered by a whole scan, and the index, still current, is not
    // written again; nor for a name with a path after it.
    let index_file = std::fs::read_dir(&cache)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let written = std::fs::metadata(&index_file).unwrap().modified().unwrap();
    let miss = read(&cache, &root, &["-v", "read", "gaol"]);
    assert!(
        miss.stderr.contains("names no skill that keeps its name"),
        "{miss:?}"
    );
    assert_eq!(miss.code, 1);
    let show = read(&cache, &root, &["-v", "show", "goal"]);
    assert!(show.stderr.contains("paths unchanged"), "{show:?}");
    let nested = read(&cache, &root, &["-v", "read", "goal/inner/guide.md"]);
    assert!(nested.stderr.contains("nested skill"), "{nested:?}");
    // A path after the name: every path is checked (a new `ns/name`
    // anywhere could take the target).
    let sub = read(&cache, &root, &["-v", "read", "b/goal/references/notes.md"]);
    assert_eq!(sub.code, 0, "{sub:?}");
    let (some, all) = checked(&sub);
    assert_eq!(some, all, "{sub:?}");
    let now = std::fs::metadata(&index_file).unwrap().modified().unwrap();
    assert_eq!(written, now);
}

#[test]
fn names_in_the_configuration_are_checked_by_a_whole_scan() {
    // A name in `enabled` that matches no skill is warned about; only the
    // whole catalog can tell, so the index is not used.
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("root"), temp.path().join("cache"));
    catalog(&root);
    index(&cache, &root);
    let run = |cache: &Path| {
        finish(
            skilldex()
                .env("SKILLDEX_CACHE_DIR", cache)
                .env("SKILLDEX_ENABLED", "nosuch")
                .args(["read", "goal", "--root"])
                .arg(&root)
                .output()
                .unwrap(),
        )
    };
    let (indexed, scanned) = (run(&cache), run(Path::new("off")));
    assert!(scanned.stderr.contains("`nosuch`"), "{scanned:?}");
    assert_eq!(indexed.stderr, scanned.stderr);
    assert_eq!(indexed.stdout, scanned.stdout);
}

#[test]
fn a_root_through_a_symlink_pointed_elsewhere_or_swapped_is_seen() {
    let temp = tempfile::tempdir().unwrap();
    let cache = temp.path().join("cache");
    let releases = temp.path().join("releases");
    for release in ["one", "two"] {
        let dir = releases.join(release).join("skills");
        catalog(&dir);
        write(
            &dir,
            "b/goal/SKILL.md",
            format!(
                "---\nname: goal\ndescription: Goal. Use when testing.\n---\n\nrelease {release}\n"
            ),
        );
    }
    // The root is a link to a release, pointed at the other one as
    // `ln -sfn` does it: a new link renamed over the old.
    let current = temp.path().join("current");
    std::os::unix::fs::symlink(releases.join("one/skills"), &current).unwrap();
    index(&cache, &current);
    assert!(answer(&cache, &current).contains("release one"));
    let next = temp.path().join("current.next");
    std::os::unix::fs::symlink(releases.join("two/skills"), &next).unwrap();
    std::fs::rename(&next, &current).unwrap();
    let moved = read(&cache, &current, &["-v", "read", "goal"]);
    assert!(moved.stderr.contains("changed"), "{moved:?}");
    assert!(answer(&cache, &current).contains("release two"));
    // A folder above the root swapped for another: the root's path reads
    // the same, its folders are others.
    let root = releases.join("live/skills");
    std::fs::rename(releases.join("one"), releases.join("live")).unwrap();
    index(&cache, &root);
    assert!(answer(&cache, &root).contains("release one"));
    std::fs::rename(releases.join("live"), releases.join("one")).unwrap();
    std::fs::rename(releases.join("two"), releases.join("live")).unwrap();
    let swapped = read(&cache, &root, &["-v", "read", "goal"]);
    assert!(swapped.stderr.contains("changed"), "{swapped:?}");
    assert!(answer(&cache, &root).contains("release two"));
}

#[test]
fn a_cache_folder_reached_from_inside_a_root_gets_no_index() {
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("root"), temp.path().join("cache"));
    catalog(&root);
    std::fs::create_dir_all(&cache).unwrap();
    std::os::unix::fs::symlink(&cache, root.join("cachelink")).unwrap();
    settle();
    let run = read(&cache, &root, &["-v", "read", "goal"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("is inside a root"), "{run:?}");
    assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 0);
}

#[test]
fn every_change_the_name_depends_on_sends_the_read_to_a_scan() {
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("root"), temp.path().join("cache"));
    catalog(&root);
    index(&cache, &root);
    assert!(answer(&cache, &root).contains("from b/goal"));

    // Another skill takes the name by an edit in place (same file, same
    // folder): it wins the clash, being first in path order.
    let other = root.join("a/other/SKILL.md");
    let text = std::fs::read_to_string(&other).unwrap();
    std::fs::write(&other, text.replace("name: other", "name: goal")).unwrap();
    let after = read(&cache, &root, &["-v", "read", "goal"]);
    assert!(
        after.stderr.contains("a/other/SKILL.md changed"),
        "{after:?}"
    );
    assert!(answer(&cache, &root).contains("from a/other"));

    // Given back in place: the skill is `b/goal` again.
    index(&cache, &root);
    std::fs::write(&other, text).unwrap();
    assert!(answer(&cache, &root).contains("from b/goal"));

    // A new folder with a skill of that name, earlier in path order.
    index(&cache, &root);
    write(
        &root,
        "a/new/SKILL.md",
        "---\nname: goal\ndescription: New. Use when testing.\n---\n\nfrom a/new\n",
    );
    assert!(answer(&cache, &root).contains("from a/new"));

    // An ignore file that leaves it out, then one edited in place that
    // lets it back in.
    index(&cache, &root);
    write(&root, "a/.gitignore", "new/\n");
    assert!(answer(&cache, &root).contains("from b/goal"));
    index(&cache, &root);
    std::fs::write(root.join("a/.gitignore"), "old/\n").unwrap();
    assert!(answer(&cache, &root).contains("from a/new"));
    std::fs::remove_dir_all(root.join("a/new")).unwrap();

    // The winner's own file renamed in place: the name is gone from it.
    index(&cache, &root);
    let target = root.join("b/goal/SKILL.md");
    let text = std::fs::read_to_string(&target).unwrap();
    std::fs::write(&target, text.replace("name: goal", "name: gaal")).unwrap();
    let gone = read(&cache, &root, &["read", "goal"]);
    assert_eq!(gone.code, 1, "{gone:?}");
    assert!(gone.stderr.contains("gaal"), "{gone:?}");
    std::fs::write(&target, text).unwrap();
    assert!(answer(&cache, &root).contains("from b/goal"));

    // A broken index file is no index.
    index(&cache, &root);
    for file in std::fs::read_dir(&cache).unwrap() {
        let file = file.unwrap().path();
        let mut bytes = std::fs::read(&file).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0xff;
        std::fs::write(&file, bytes).unwrap();
    }
    let broken = read(&cache, &root, &["-v", "read", "goal"]);
    assert!(broken.stderr.contains("damaged"), "{broken:?}");
    assert!(answer(&cache, &root).contains("from b/goal"));
}

#[test]
fn a_symlinked_folder_pointed_elsewhere_or_edited_behind_the_link_is_seen() {
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("root"), temp.path().join("cache"));
    catalog(&root);
    let skill = |body: &str| {
        format!("---\nname: linked\ndescription: Linked. Use when testing.\n---\n\n{body}\n")
    };
    let (one, two) = (temp.path().join("one"), temp.path().join("two"));
    write(&one, "SKILL.md", skill("from one"));
    write(&two, "SKILL.md", skill("from two"));
    std::os::unix::fs::symlink(&one, root.join("linked")).unwrap();
    let linked = |cache: &Path| read(cache, &root, &["read", "linked"]).stdout;
    index(&cache, &root);
    assert!(linked(&cache).contains("from one"));
    // The file behind the link, edited in place.
    index(&cache, &root);
    std::fs::write(one.join("SKILL.md"), skill("from one, edited")).unwrap();
    assert!(linked(&cache).contains("from one, edited"));
    assert_eq!(linked(&cache), linked(Path::new("off")));
    // The link pointed at another folder.
    index(&cache, &root);
    std::fs::remove_file(root.join("linked")).unwrap();
    std::os::unix::fs::symlink(&two, root.join("linked")).unwrap();
    assert!(linked(&cache).contains("from two"));
    assert_eq!(linked(&cache), linked(Path::new("off")));
}

#[test]
fn small_catalogs_and_off_write_no_index_and_old_ones_are_pruned() {
    let temp = tempfile::tempdir().unwrap();
    let cache = temp.path().join("cache");
    // The bundled catalog has 15 skills: a scan is as fast as an index.
    let bundled = super::repo().join("skills");
    let small = read(&cache, &bundled, &["-v", "read", "git-bisect"]);
    assert_eq!(small.code, 0, "{small:?}");
    assert!(small.stderr.contains("under 500"), "{small:?}");
    assert!(!cache.exists());
    // Turned off: nothing written, nothing said.
    let root = temp.path().join("root");
    catalog(&root);
    settle();
    let off = read(Path::new("off"), &root, &["-v", "read", "goal"]);
    assert_eq!(off.code, 0, "{off:?}");
    assert!(off.stderr.contains("no cache folder"), "{off:?}");
    // Eight index files are kept, the newest.
    std::fs::create_dir_all(&cache).unwrap();
    for i in 0..10 {
        write(&cache, &format!("names-{i:016x}.idx"), "old");
    }
    std::thread::sleep(Duration::from_millis(20));
    let written = read(&cache, &root, &["-v", "read", "goal"]);
    assert!(written.stderr.contains("name index written"), "{written:?}");
    let left = std::fs::read_dir(&cache).unwrap().count();
    assert_eq!(left, 8);
    let hit = read(&cache, &root, &["-v", "read", "goal"]);
    assert!(hit.stderr.contains("paths unchanged"), "{hit:?}");
}

#[test]
fn a_pipe_in_place_of_the_index_file_is_no_index_and_no_hang() {
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("root"), temp.path().join("cache"));
    catalog(&root);
    index(&cache, &root);
    let file = std::fs::read_dir(&cache)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::remove_file(&file).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&file)
        .status()
        .unwrap();
    assert!(made.success());
    let mut command = skilldex();
    command
        .env("SKILLDEX_CACHE_DIR", &cache)
        .args(["-v", "read", "goal", "--root"])
        .arg(&root);
    let run = bounded(command);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("damaged"), "{run:?}");
}

#[test]
fn a_name_added_since_the_index_was_written_refreshes_it() {
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("root"), temp.path().join("cache"));
    catalog(&root);
    index(&cache, &root);
    write(
        &root,
        "c/fresh/SKILL.md",
        skill_md("fresh", "Fresh. Use when testing."),
    );
    let first = read(&cache, &root, &["-v", "read", "fresh"]);
    assert_eq!(first.code, 0, "{first:?}");
    assert!(first.stderr.contains("changed"), "{first:?}");
    settle();
    let again = read(&cache, &root, &["-v", "read", "fresh"]);
    assert!(again.stderr.contains("name index written"), "{again:?}");
    let hit = read(&cache, &root, &["-v", "read", "fresh"]);
    assert!(hit.stderr.contains("paths unchanged"), "{hit:?}");
}

#[test]
fn a_scan_that_could_not_read_a_folder_writes_no_index() {
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("root"), temp.path().join("cache"));
    catalog(&root);
    let locked = root.join("locked");
    write(
        &locked,
        "hidden/SKILL.md",
        skill_md("hidden", "Hidden. Use when testing."),
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read_dir(&locked).is_ok() {
        // Running as root, permissions lock nothing out: nothing to check
        // here (this user cannot be refused a folder).
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
        return;
    }
    settle();
    let run = read(&cache, &root, &["-v", "read", "goal"]);
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("could not be read"), "{run:?}");
    assert!(!cache.exists() || std::fs::read_dir(&cache).unwrap().count() == 0);
}

/// (paths checked, paths in the index) of a read the index answered:
/// "N paths unchanged" when it checked them all, else "N paths unchanged
/// (of M; ...".
fn checked(run: &Run) -> (usize, usize) {
    let parsed = (|| {
        let text = run.stderr.split("name index: ").nth(1)?;
        let (checked, rest) = text.split_once(" paths unchanged")?;
        let checked = checked.parse::<usize>().ok()?;
        let of = match rest.strip_prefix(" (of ") {
            Some(rest) => rest.split_once(';')?.0.parse::<usize>().ok()?,
            None => checked,
        };
        Some((checked, of))
    })();
    parsed.unwrap_or_else(|| panic!("not answered by the index: {run:?}"))
}

#[test]
fn a_read_checks_only_what_could_change_its_answer() {
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("root"), temp.path().join("cache"));
    catalog(&root);
    // Empty folders: one before `b/goal` in path order, one after, one
    // shallower.
    for folder in ["a/spare", "c/spare", "zz"] {
        std::fs::create_dir_all(root.join(folder)).unwrap();
    }
    index(&cache, &root);
    let hit = read(&cache, &root, &["-v", "read", "goal"]);
    let (some, all) = checked(&hit);
    assert!(some < all / 10, "{hit:?}");

    // Changes that cannot change what `goal` reads are not looked at; the
    // answer is still the whole scan's.
    let unchanged = |what: &str| {
        let run = read(&cache, &root, &["-v", "read", "goal"]);
        assert!(run.stderr.contains("paths unchanged"), "{what}: {run:?}");
        assert!(answer(&cache, &root).contains("from b/goal"), "{what}");
    };
    // A deeper skill takes the name (it loses the clash).
    let filler = root.join("filler/ns-0/filler-000/SKILL.md");
    let text = std::fs::read_to_string(&filler).unwrap();
    std::fs::write(&filler, text.replace("name: filler-000", "name: goal")).unwrap();
    unchanged("a deeper skill named goal");
    // A new skill of that name as deep but later in path order.
    write(
        &root,
        "c/spare/SKILL.md",
        "---\nname: goal\ndescription: Later. Use when testing.\n---\n\nfrom c/spare\n",
    );
    unchanged("a later skill named goal");
    // A skill nested in a deeper one.
    write(
        &root,
        "filler/ns-1/filler-001/sub/SKILL.md",
        "---\nname: goal\ndescription: Nested. Use when testing.\n---\n\nfrom filler-001/sub\n",
    );
    unchanged("a nested skill named goal");

    // Changes that can are seen: a new skill earlier in path order, in a
    // folder that was there...
    write(
        &root,
        "a/spare/SKILL.md",
        "---\nname: goal\ndescription: Earlier. Use when testing.\n---\n\nfrom a/spare\n",
    );
    let seen = read(&cache, &root, &["-v", "read", "goal"]);
    assert!(seen.stderr.contains("a/spare changed"), "{seen:?}");
    assert!(answer(&cache, &root).contains("from a/spare"));
    std::fs::remove_file(root.join("a/spare/SKILL.md")).unwrap();
    // ...a `skill.md` beside an earlier `SKILL.md`, once a new ignore file
    // leaves the `SKILL.md` out...
    write(
        &root,
        "a/other/skill.md",
        "---\nname: goal\ndescription: Beside. Use when testing.\n---\n\nfrom a/other/skill.md\n",
    );
    index(&cache, &root);
    assert!(answer(&cache, &root).contains("from b/goal"));
    write(&root, "a/other/.gitignore", "SKILL.md\n");
    let seen = read(&cache, &root, &["-v", "read", "goal"]);
    assert!(seen.stderr.contains("a/other changed"), "{seen:?}");
    assert!(answer(&cache, &root).contains("from a/other/skill.md"));
    std::fs::remove_file(root.join("a/other/skill.md")).unwrap();
    std::fs::remove_file(root.join("a/other/.gitignore")).unwrap();
    // ...and one shallower but later in path order.
    index(&cache, &root);
    assert!(answer(&cache, &root).contains("from b/goal"));
    write(
        &root,
        "zz/SKILL.md",
        "---\nname: goal\ndescription: Shallow. Use when testing.\n---\n\nfrom zz\n",
    );
    let seen = read(&cache, &root, &["-v", "read", "goal"]);
    assert!(seen.stderr.contains("zz changed"), "{seen:?}");
    assert!(answer(&cache, &root).contains("from zz"));
    std::fs::remove_file(root.join("zz/SKILL.md")).unwrap();

    // For a deeper skill, a skill nested in an earlier one comes first.
    std::fs::remove_dir_all(root.join("filler/ns-1/filler-001/sub")).unwrap();
    index(&cache, &root);
    let deep = |cache: &Path| read(cache, &root, &["read", "filler-001"]);
    assert_eq!(deep(&cache).stdout, deep(Path::new("off")).stdout);
    write(
        &root,
        "b/goal/sub/SKILL.md",
        "---\nname: filler-001\ndescription: Nested. Use when testing.\n---\n\nfrom b/goal/sub\n",
    );
    let seen = read(&cache, &root, &["-v", "read", "filler-001"]);
    assert!(seen.stderr.contains("b/goal changed"), "{seen:?}");
    assert!(deep(&cache).stdout.contains("from b/goal/sub"));
    assert_eq!(deep(&cache).stdout, deep(Path::new("off")).stdout);
}

#[test]
fn a_skill_its_file_could_be_taken_from_checks_every_path() {
    // A skill in a folder not named after it gives its file up to another
    // path to the file in a folder that is, anywhere in the catalog: every
    // path is checked for it.
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("root"), temp.path().join("cache"));
    catalog(&root);
    write(
        &root,
        "b/wrong-folder/SKILL.md",
        "---\nname: stray\ndescription: Stray. Use when testing.\n---\n\nstray body\n",
    );
    std::fs::create_dir_all(root.join("y/deep/deeper")).unwrap();
    index(&cache, &root);
    let run = read(&cache, &root, &["-v", "read", "stray"]);
    let (some, all) = checked(&run);
    assert_eq!(some, all, "{run:?}");
    let stray = |cache: &Path| read(cache, &root, &["read", "stray"]);
    assert!(stray(&cache).stdout.contains("b/wrong-folder"));
    // A link to its folder, deep and late in path order, named after it.
    std::os::unix::fs::symlink(
        root.join("b/wrong-folder"),
        root.join("y/deep/deeper/stray"),
    )
    .unwrap();
    let seen = read(&cache, &root, &["-v", "read", "stray"]);
    assert!(seen.stderr.contains("y/deep/deeper changed"), "{seen:?}");
    let (indexed, scanned) = (stray(&cache), stray(Path::new("off")));
    assert!(
        scanned.stdout.contains("y/deep/deeper/stray"),
        "{scanned:?}"
    );
    assert_eq!(indexed.stdout, scanned.stdout);
    assert_eq!(indexed.stderr, scanned.stderr);

    // (No other path to a file from here on: that alone checks every path.)
    std::fs::remove_file(root.join("y/deep/deeper/stray")).unwrap();
    // The folder is named after the name as read (`hidden`), not as
    // written (with an invisible character the name drops): the catalog
    // judges by the written name, so a link named that way takes the file.
    write(
        &root,
        "b/hidden/SKILL.md",
        "---\nname: \"hidden\\u2069\"\ndescription: Hidden. Use when testing.\n---\n\nhidden body\n",
    );
    index(&cache, &root);
    let hidden = |cache: &Path| read(cache, &root, &["read", "hidden"]);
    assert!(hidden(&cache).stdout.contains("b/hidden"));
    let run = read(&cache, &root, &["-v", "read", "hidden"]);
    let (some, all) = checked(&run);
    assert_eq!(some, all, "{run:?}");
    std::os::unix::fs::symlink(
        root.join("b/hidden"),
        root.join("y/deep/deeper/hidden\u{2069}"),
    )
    .unwrap();
    let (indexed, scanned) = (hidden(&cache), hidden(Path::new("off")));
    assert!(scanned.stdout.contains("deeper/hidden"), "{scanned:?}");
    assert_eq!(indexed.stdout, scanned.stdout);
}

#[test]
fn an_earlier_root_is_checked_and_a_later_one_is_not() {
    let temp = tempfile::tempdir().unwrap();
    let (first, second, cache) = (
        temp.path().join("first"),
        temp.path().join("second"),
        temp.path().join("cache"),
    );
    catalog(&first);
    write(
        &second,
        "late/SKILL.md",
        "---\nname: late\ndescription: Late. Use when testing.\n---\n\nfrom second\n",
    );
    let run =
        |cache: &Path, name: &str| read_roots(cache, &[&first, &second], &["-v", "read", name]);
    let fresh_index = || {
        settle();
        let wrote = run(&cache, "late");
        assert!(wrote.stderr.contains("name index written"), "{wrote:?}");
    };
    fresh_index();
    // Every path of the first root can change what `late` reads.
    let late = run(&cache, "late");
    let (some, all) = checked(&late);
    assert_eq!(some, all, "{late:?}");
    let goal = run(&cache, "goal");
    assert!(checked(&goal).0 < all / 10, "{goal:?}");

    // A deep skill of the first root takes the name `late`: it wins.
    let filler = first.join("filler/ns-3/filler-003/SKILL.md");
    let text = std::fs::read_to_string(&filler).unwrap();
    std::fs::write(&filler, text.replace("name: filler-003", "name: late")).unwrap();
    let late = run(&cache, "late");
    assert!(
        late.stderr.contains("filler-003/SKILL.md changed"),
        "{late:?}"
    );
    assert!(!late.stdout.contains("from second"), "{late:?}");
    assert_eq!(late.stdout, run(Path::new("off"), "late").stdout);
    std::fs::write(&filler, text).unwrap();

    // The second root's skill takes the name `goal`: the first root's
    // still wins, and the second root is not looked at.
    fresh_index();
    std::fs::write(
        second.join("late/SKILL.md"),
        "---\nname: goal\ndescription: Late. Use when testing.\n---\n\nfrom second\n",
    )
    .unwrap();
    let goal = run(&cache, "goal");
    assert!(goal.stderr.contains("paths unchanged"), "{goal:?}");
    assert!(goal.stdout.contains("from b/goal"), "{goal:?}");
    assert_eq!(goal.stdout, run(Path::new("off"), "goal").stdout);
}

#[test]
fn a_file_reached_by_two_paths_checks_every_path() {
    // The catalog keeps one path per file, by rules that look at every
    // path to it: a change anywhere can make an earlier one count.
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("root"), temp.path().join("cache"));
    catalog(&root);
    // One file, two names for its folder: `z/y/goal` (named after the
    // skill, so kept, and after `b/goal`) and `a/bar` (a hard link, before
    // `b/goal`).
    let later = write(
        &root,
        "z/y/goal/SKILL.md",
        "---\nname: goal\ndescription: Linked. Use when testing.\n---\n\nfrom the hard link\n",
    );
    std::fs::create_dir_all(root.join("a/bar")).unwrap();
    std::fs::hard_link(&later, root.join("a/bar/SKILL.md")).unwrap();
    index(&cache, &root);
    let hit = read(&cache, &root, &["-v", "read", "goal"]);
    let (some, all) = checked(&hit);
    assert_eq!(some, all, "{hit:?}");
    assert!(answer(&cache, &root).contains("from b/goal"));
    // The kept path renamed: the earlier one is the skill now, and wins.
    std::fs::rename(root.join("z/y/goal"), root.join("z/y/moved")).unwrap();
    let seen = read(&cache, &root, &["-v", "read", "goal"]);
    assert!(seen.stderr.contains("z/y changed"), "{seen:?}");
    assert!(answer(&cache, &root).contains("from the hard link"));
}

#[test]
fn a_root_written_with_extra_slashes_or_a_dot_is_indexed_all_the_same() {
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("root"), temp.path().join("cache"));
    catalog(&root);
    settle();
    for spelling in ["//", "/.", "/"] {
        let given = format!("{}{spelling}", root.display());
        let run = |cache: &Path| read(cache, Path::new(&given), &["-v", "read", "goal"]);
        let first = run(&cache);
        assert!(
            first.stderr.contains("name index written"),
            "{spelling}: {first:?}"
        );
        let hit = run(&cache);
        let (some, all) = checked(&hit);
        assert!(some < all / 10, "{spelling}: {hit:?}");
        assert_eq!(hit.stdout, run(Path::new("off")).stdout);
    }
}

#[test]
fn a_path_after_a_name_is_read_through_the_index_until_another_skill_takes_it() {
    // `goal/x/y/z/notes.md` is a file of `goal`, until a skill `z` in the
    // namespace `goal/x/y` appears: `goal/x/y/z` is then the longer id.
    // That skill may appear anywhere, so every path is checked.
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("root"), temp.path().join("cache"));
    catalog(&root);
    write(&root, "b/goal/x/y/z/notes.md", "from the notes of goal\n");
    std::fs::create_dir_all(root.join("goal/x/y")).unwrap();
    index(&cache, &root);
    let notes = |cache: &Path| read(cache, &root, &["-v", "read", "goal/x/y/z/notes.md"]);
    let hit = notes(&cache);
    assert!(hit.stdout.contains("from the notes of goal"), "{hit:?}");
    assert!(hit.stderr.contains("paths unchanged"), "{hit:?}");
    write(
        &root,
        "goal/x/y/z/SKILL.md",
        skill_md("z", "Zed. Use when testing."),
    );
    write(&root, "goal/x/y/z/notes.md", "from the notes of z\n");
    let seen = notes(&cache);
    assert!(seen.stderr.contains("goal/x/y changed"), "{seen:?}");
    assert!(seen.stdout.contains("from the notes of z"), "{seen:?}");
    assert_eq!(seen.stdout, notes(Path::new("off")).stdout);
}
