//! `read NAME` while `skilldex watch` runs on the same roots: the watch
//! vouches for the name index, so reads skip its checks; a change made
//! before a read is seen by that read, whichever way it was made; a watch
//! that is stopped, killed or gone is not relied on.

use super::name_index::{catalog, read, settle};
use super::{line_channel, skilldex, write, Run};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// How long a watch may take to vouch (a whole scan, and the two seconds
/// an index waits after a change) on a slow machine.
const PATIENCE: Duration = Duration::from_secs(60);

/// What `watch -v` says each time it starts vouching.
const VOUCHING: &str = "reads by name need not check it";

/// A running `skilldex watch -v`, its stderr lines arriving on a channel.
struct Watch {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Watch {
    fn start(cache: &Path, root: &Path) -> Watch {
        Watch::start_in(Path::new("."), cache, root)
    }

    /// `watch` run from the folder `cwd` (`root` may be relative to it).
    fn start_in(cwd: &Path, cache: &Path, root: &Path) -> Watch {
        let mut child = skilldex()
            .current_dir(cwd)
            .env("SKILLDEX_CACHE_DIR", cache)
            .args(["watch", "-v", "--root"])
            .arg(root)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("skilldex watch starts");
        let lines = line_channel(child.stderr.take().unwrap());
        Watch {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Wait until the watch says it vouches (again).
    fn vouching(&mut self) {
        self.says(VOUCHING);
    }

    /// Wait until the watch says `what`.
    fn says(&mut self, what: &str) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.contains(what);
                    self.seen.push(line);
                    if done {
                        return;
                    }
                }
                Err(_) => panic!(
                    "the watch did not say {what:?}; it said:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// Ctrl-C, and wait for the exit.
    fn interrupt(mut self) {
        self.signal("-INT");
        let deadline = Instant::now() + PATIENCE;
        while self.child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "watch did not stop on Ctrl-C");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn signal(&self, signal: &str) {
        let status = std::process::Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_some() {
            return;
        }
        self.signal("-CONT");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A catalog to be indexed in `temp`: its root and cache folder.
fn indexed_catalog(temp: &Path) -> (PathBuf, PathBuf) {
    let (root, cache) = (temp.join("root"), temp.join("cache"));
    catalog(&root);
    (root, cache)
}

/// A watch on `root` that vouches for its index (once every file is old
/// enough to be indexed).
fn watching(cache: &Path, root: &Path) -> Watch {
    settle();
    let mut watch = Watch::start(cache, root);
    watch.vouching();
    watch
}

/// Whether a `read -v` took the watch's word for the index.
fn vouched(run: &Run) -> bool {
    run.stderr.contains("as a running `skilldex watch` vouches")
}

/// `read NAME -v` through the index, checked against a whole scan: the
/// same exit code and stdout.
fn read_name(cache: &Path, root: &Path, name: &str) -> Run {
    let indexed = read(cache, root, &["-v", "read", name]);
    let scanned = read(Path::new("off"), root, &["read", name]);
    assert_eq!(indexed.code, 0, "{indexed:?}");
    assert_eq!(indexed.code, scanned.code, "{indexed:?}\n{scanned:?}");
    assert_eq!(indexed.stdout, scanned.stdout, "{indexed:?}");
    indexed
}

fn read_goal(cache: &Path, root: &Path) -> Run {
    read_name(cache, root, "goal")
}

/// Write `content` into the file at `path` itself (no new file renamed
/// into place, as editors' atomic saves do).
fn write_in_place(path: &Path, content: &str) {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .unwrap();
    file.write_all(content.as_bytes()).unwrap();
}

/// The socket a watch answers at, in the cache folder.
fn socket(cache: &Path) -> Option<PathBuf> {
    std::fs::read_dir(cache)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "sock"))
}

#[test]
fn a_watch_vouches_for_the_index_and_a_change_before_a_read_is_seen_by_it() {
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = indexed_catalog(temp.path());
    let mut watch = watching(&cache, &root);
    let first = read_goal(&cache, &root);
    assert!(vouched(&first), "{first:?}");
    assert!(first.stdout.contains("from b/goal"), "{first:?}");

    // A file made beside the root (its folder is watched only for the
    // root's name) changes nothing.
    write(temp.path(), "unrelated.txt", "x");
    assert!(vouched(&read_goal(&cache, &root)));

    // An edit in place (the same file, no rename) gives `a/other`, which
    // comes first, the name: the very next read sees it.
    write_in_place(
        &root.join("a/other/SKILL.md"),
        "---\nname: goal\ndescription: Taken. Use when testing.\n---\n\nfrom a/other in place\n",
    );
    let taken = read_goal(&cache, &root);
    assert!(!vouched(&taken), "{taken:?}");
    assert!(taken.stdout.contains("from a/other in place"), "{taken:?}");

    // Once it is quiet the watch writes a new index and vouches for it.
    watch.vouching();
    let again = read_goal(&cache, &root);
    assert!(vouched(&again), "{again:?}");
    assert!(again.stdout.contains("from a/other in place"), "{again:?}");

    // A skill's folder removed: the watches on its paths are gone with it;
    // the watch checks, writes a new index and vouches for that.
    std::fs::remove_dir_all(root.join("filler/ns-7/filler-007")).unwrap();
    assert!(!vouched(&read_goal(&cache, &root)));
    watch.vouching();
    assert!(vouched(&read_goal(&cache, &root)));

    // A new folder whose skill comes before both (`0/` sorts before `a/`).
    write(
        &root,
        "0/goal/SKILL.md",
        "---\nname: goal\ndescription: New. Use when testing.\n---\n\nfrom 0/goal\n",
    );
    let new = read_goal(&cache, &root);
    assert!(!vouched(&new), "{new:?}");
    assert!(new.stdout.contains("from 0/goal"), "{new:?}");
}

#[test]
fn a_write_through_a_hard_link_outside_the_roots_is_seen() {
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = indexed_catalog(temp.path());
    // The same file as `a/other/SKILL.md`, by a name no watched folder holds.
    let alias = temp.path().join("alias.md");
    std::fs::hard_link(root.join("a/other/SKILL.md"), &alias).unwrap();
    let _watch = watching(&cache, &root);
    assert!(vouched(&read_goal(&cache, &root)));
    write_in_place(
        &alias,
        "---\nname: goal\ndescription: Taken. Use when testing.\n---\n\nfrom the alias\n",
    );
    let taken = read_goal(&cache, &root);
    assert!(!vouched(&taken), "{taken:?}");
    assert!(taken.stdout.contains("from the alias"), "{taken:?}");
}

#[test]
fn a_stopped_or_killed_watch_is_not_relied_on() {
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = indexed_catalog(temp.path());
    let mut watch = watching(&cache, &root);
    assert!(vouched(&read_goal(&cache, &root)));

    // Stopped (Ctrl-Z): the read gives up waiting and checks for itself,
    // and sees a change the stopped watch has not read.
    watch.signal("-STOP");
    write(
        &root,
        "0/goal/SKILL.md",
        "---\nname: goal\ndescription: New. Use when testing.\n---\n\nfrom 0/goal\n",
    );
    let stopped = read_goal(&cache, &root);
    assert!(!vouched(&stopped), "{stopped:?}");
    assert!(stopped.stdout.contains("from 0/goal"), "{stopped:?}");
    watch.signal("-CONT");
    watch.vouching();
    assert!(vouched(&read_goal(&cache, &root)));

    // Killed: its socket stays behind and nobody answers there.
    watch.signal("-KILL");
    let _ = watch.child.wait();
    let left = socket(&cache).expect("a killed watch leaves its socket");
    let unanswered = read_goal(&cache, &root);
    assert!(!vouched(&unanswered), "{unanswered:?}");
    assert!(
        unanswered.stderr.contains("paths unchanged"),
        "{unanswered:?}"
    );

    // A new watch takes the place of the dead one's socket.
    let mut next = Watch::start(&cache, &root);
    next.vouching();
    assert!(vouched(&read_goal(&cache, &root)));
    next.interrupt();
    assert!(!left.exists(), "a watch that stops removes its socket");
}

#[test]
fn a_symlinked_ignore_file_whose_target_is_pointed_elsewhere_is_seen() {
    use std::os::unix::fs::symlink;
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = indexed_catalog(temp.path());
    write(
        &root,
        "c/other/SKILL.md",
        "---\nname: other\ndescription: Twin. Use when testing.\n---\n\nfrom c/other\n",
    );
    // `a/.gitignore` leads, through `out/cur` (a link to `v1`), to a file
    // that hides `a/other` and itself (so the walk never reads it as a
    // link); `v2` hides only itself.
    let out = temp.path().join("out");
    write(&out, "v1/gi", ".gitignore\nother/\n");
    write(&out, "v2/gi", ".gitignore\n");
    symlink("v1", out.join("cur")).unwrap();
    symlink(out.join("cur/gi"), root.join("a/.gitignore")).unwrap();
    // A loop of links in the catalog too: its names are all watched.
    symlink("loop", root.join("filler/loop")).unwrap();
    let _watch = watching(&cache, &root);
    let hidden = read_name(&cache, &root, "other");
    assert!(vouched(&hidden), "{hidden:?}");
    assert!(hidden.stdout.contains("from c/other"), "{hidden:?}");
    // `out/cur` pointed at `v2`, as `ln -sfn` does: `a/other` is back.
    symlink("v2", out.join("cur.new")).unwrap();
    std::fs::rename(out.join("cur.new"), out.join("cur")).unwrap();
    let back = read_name(&cache, &root, "other");
    assert!(!vouched(&back), "{back:?}");
    assert!(back.stdout.contains("from a/other"), "{back:?}");
}

#[test]
fn every_change_gets_its_own_retry_so_the_watch_vouches_again_each_time() {
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = indexed_catalog(temp.path());
    let mut watch = watching(&cache, &root);
    // A file made and removed in a folder of the catalog: the folder's
    // stamp changes, no skill does. The first scan comes too early to be
    // indexed (under two seconds after the change) and is tried again.
    for round in 0..2 {
        let scratch = root.join(format!("filler/ns-1/scratch-{round}.txt"));
        std::fs::write(&scratch, "x").unwrap();
        std::fs::remove_file(&scratch).unwrap();
        watch.vouching();
        assert!(vouched(&read_goal(&cache, &root)), "round {round}");
    }
}

#[test]
fn a_watch_on_relative_roots_retires_when_its_folder_is_renamed() {
    let temp = tempfile::tempdir().unwrap();
    let (project, cache) = (temp.path().join("project"), temp.path().join("cache"));
    catalog(&project.join("root"));
    settle();
    let mut watch = Watch::start_in(&project, &cache, Path::new("root"));
    watch.vouching();
    // Reads from the renamed folder look for another index (the key holds
    // the current folder): the watch says so once, instead of writing
    // that index again and again.
    std::fs::rename(&project, temp.path().join("renamed")).unwrap();
    watch.says("the current folder was renamed");
}
