//! The live catalog, driven through the library: every scenario writes
//! files, syncs them, then waits (generously) until the live snapshot is
//! the one a fresh scan of the disk gives — same skills, same diagnostics,
//! same rendered bytes — and fails with what it saw when that never comes.

use super::*;
use skilldex::live::{Change, LiveCatalog, WatchOptions};
use skilldex::{query, Catalog, CatalogBuilder};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a scenario may take to show up. Generous: the machine may be
/// busy compiling.
const PATIENCE: Duration = Duration::from_secs(60);

pub struct Session {
    pub live: LiveCatalog,
    pub changes: Receiver<Arc<Change>>,
    pub seen: Vec<Arc<Change>>,
    pub builder: CatalogBuilder,
}

impl Session {
    pub fn start(roots: &[&Path]) -> Session {
        Session::with_options(roots, WatchOptions::default())
    }

    pub fn with_options(roots: &[&Path], options: WatchOptions) -> Session {
        let builder = CatalogBuilder::new(roots.iter().map(|r| r.to_path_buf()));
        let live = LiveCatalog::start(builder.clone(), options).expect("the live catalog starts");
        let changes = live.subscribe();
        Session {
            live,
            changes,
            seen: Vec::new(),
            builder,
        }
    }

    fn history(&self) -> String {
        let mut out = String::new();
        for change in &self.seen {
            out.push_str(&format!(
                "  {} added {:?} changed {:?} removed {:?} stale {:?} diagnostics {}\n",
                change.revision,
                change.added,
                change.changed,
                change.removed,
                change.stale,
                change.diagnostics.len()
            ));
        }
        out
    }

    /// Wait until `check` holds for the live snapshot.
    pub fn wait_until(
        &mut self,
        what: &str,
        check: impl Fn(&Catalog) -> Result<(), String>,
    ) -> Arc<Catalog> {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let snapshot = self.live.snapshot();
            let verdict = check(&snapshot);
            if verdict.is_ok() {
                return snapshot;
            }
            if Instant::now() > deadline {
                panic!(
                    "timed out after {PATIENCE:?} waiting for {what}: {}\nchanges seen:\n{}stats: {:?}\nlive skills: {:?}",
                    verdict.unwrap_err(),
                    self.history(),
                    self.live.stats(),
                    ids(&snapshot)
                );
            }
            if let Ok(change) = self.changes.recv_timeout(Duration::from_millis(100)) {
                self.seen.push(change);
            }
        }
    }

    /// Wait until no event has arrived for a while, then rebuild from
    /// what came: nothing is in flight afterwards.
    pub fn quiesce(&self) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let events = self.live.stats().events;
            std::thread::sleep(Duration::from_millis(300));
            if self.live.stats().events == events || Instant::now() > deadline {
                break;
            }
        }
        self.live.flush();
    }

    /// Wait until the live snapshot is what a fresh scan of the disk gives.
    pub fn settle(&mut self, what: &str) -> Arc<Catalog> {
        let builder = self.builder.clone();
        self.wait_until(what, |live| {
            let fresh = builder.build().map_err(|e| e.to_string())?;
            same(live, &fresh)
        })
    }
}

pub fn ids(catalog: &Catalog) -> Vec<String> {
    catalog.skills().iter().map(|s| s.id.clone()).collect()
}

/// The directory as an agent sees it.
pub fn rendered(catalog: &Catalog) -> String {
    query::render_directory(
        catalog,
        &query::RenderOptions {
            mode: query::Mode::Directory,
            ..Default::default()
        },
    )
    .text
}

/// `Ok` when `live` holds what `fresh` holds.
pub fn same(live: &Catalog, fresh: &Catalog) -> Result<(), String> {
    if ids(live) != ids(fresh) {
        return Err(format!(
            "skills differ: live {:?}, disk {:?}",
            ids(live),
            ids(fresh)
        ));
    }
    for (a, b) in live.skills().iter().zip(fresh.skills()) {
        if a != b {
            return Err(format!("skill {} differs:\nlive {a:?}\ndisk {b:?}", a.id));
        }
    }
    if live.namespaces() != fresh.namespaces() {
        return Err(format!(
            "namespaces differ:\nlive {:?}\ndisk {:?}",
            live.namespaces(),
            fresh.namespaces()
        ));
    }
    if live.diagnostics() != fresh.diagnostics() {
        return Err(format!(
            "diagnostics differ:\nlive {:?}\ndisk {:?}",
            live.diagnostics(),
            fresh.diagnostics()
        ));
    }
    if rendered(live) != rendered(fresh) {
        return Err("rendered directories differ".into());
    }
    if !live.stale().is_empty() {
        return Err(format!("stale skills: {:?}", live.stale()));
    }
    if live.revision() != fresh.revision() {
        return Err(format!(
            "revisions differ: live {}, disk {}",
            live.revision(),
            fresh.revision()
        ));
    }
    Ok(())
}

/// Write a file and push it to disk before anything waits for it.
pub fn put(root: &Path, relative: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let path = write(root, relative, content);
    std::fs::File::open(&path).unwrap().sync_all().unwrap();
    path
}

pub fn has<'a>(id: &'a str, description: &'a str) -> impl Fn(&Catalog) -> Result<(), String> + 'a {
    move |catalog| match catalog.get(id) {
        Some(skill) if skill.description == description => Ok(()),
        Some(skill) => Err(format!("{id} reads {:?}", skill.description)),
        None => Err(format!("{id} is missing")),
    }
}

fn temp_root() -> (tempfile::TempDir, PathBuf) {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    std::fs::create_dir_all(&root).unwrap();
    (temp, root)
}

#[test]
fn create_edit_rename_and_delete_a_skill() {
    let (_temp, root) = temp_root();
    put(
        &root,
        "docs/pdf/SKILL.md",
        skill_md("pdf", "Read PDFs. Use when a PDF is given."),
    );
    let mut session = Session::start(&[&root]);
    assert_eq!(ids(&session.live.snapshot()), ["pdf"]);

    put(
        &root,
        "ops/deploy/SKILL.md",
        skill_md("deploy", "Ship it. Use when deploying."),
    );
    session.wait_until(
        "the new skill",
        has("deploy", "Ship it. Use when deploying."),
    );
    session.settle("after the create");
    let added = session
        .seen
        .iter()
        .find(|c| c.added.contains(&"deploy".to_string()));
    assert!(
        added.is_some(),
        "no change added `deploy`: {}",
        session.history()
    );

    put(
        &root,
        "docs/pdf/SKILL.md",
        skill_md("pdf", "Read and fill PDFs. Use when a PDF is given."),
    );
    session.wait_until(
        "the edit",
        has("pdf", "Read and fill PDFs. Use when a PDF is given."),
    );
    session.settle("after the edit");
    assert!(
        session.seen.iter().any(|c| c.changed == ["pdf"]),
        "{}",
        session.history()
    );

    // A folder renamed: same name, new path.
    std::fs::rename(root.join("docs/pdf"), root.join("docs/pdf-tools")).unwrap();
    session.wait_until("the renamed folder", |c| match c.get("pdf") {
        Some(skill) if skill.path.ends_with("docs/pdf-tools/SKILL.md") => Ok(()),
        other => Err(format!("pdf is {other:?}")),
    });
    session.settle("after the rename");

    std::fs::remove_dir_all(root.join("ops")).unwrap();
    session.wait_until("the deletion", |c| match c.get("deploy") {
        None => Ok(()),
        Some(_) => Err("deploy is still there".into()),
    });
    session.settle("after the delete");
    assert!(
        session.seen.iter().any(|c| c.removed == ["deploy"]),
        "{}",
        session.history()
    );
    // Each of those was a small change: nothing walked everything.
    let stats = session.live.stats();
    assert_eq!(stats.full_rescans, 0, "{stats:?}");
    session.live.stop();
}

#[test]
fn an_editor_save_through_a_temporary_file_and_backups() {
    let (_temp, root) = temp_root();
    put(
        &root,
        "pdf/SKILL.md",
        skill_md("pdf", "Version one. Use when one."),
    );
    let mut session = Session::start(&[&root]);

    // Atomic save: write a temporary file next to it, rename it over.
    put(
        &root,
        "pdf/.SKILL.md.tmp.1234",
        skill_md("pdf", "Version two. Use when two."),
    );
    std::fs::rename(
        root.join("pdf/.SKILL.md.tmp.1234"),
        root.join("pdf/SKILL.md"),
    )
    .unwrap();
    session.wait_until("the atomic save", has("pdf", "Version two. Use when two."));
    session.settle("after the atomic save");

    // vim with `backupcopy=no`: probe file 4913, swap file, the original
    // moved to a backup, the new text written, the backup deleted.
    put(&root, "pdf/.SKILL.md.swp", b"swap".as_slice());
    put(&root, "pdf/4913", b"".as_slice());
    std::fs::remove_file(root.join("pdf/4913")).unwrap();
    std::fs::rename(root.join("pdf/SKILL.md"), root.join("pdf/SKILL.md~")).unwrap();
    put(
        &root,
        "pdf/SKILL.md",
        skill_md("pdf", "Version three. Use when three."),
    );
    std::fs::remove_file(root.join("pdf/SKILL.md~")).unwrap();
    session.wait_until("the vim save", has("pdf", "Version three. Use when three."));
    session.settle("after the vim save");
    // The skill never went missing on the way.
    assert!(
        session.seen.iter().all(|c| c.removed.is_empty()),
        "{}",
        session.history()
    );

    // Swap and backup files alone cost no rebuild.
    session.quiesce();
    let before = session.live.stats();
    put(&root, "pdf/.SKILL.md.swp", b"swap again".as_slice());
    put(&root, "pdf/SKILL.md~", b"backup".as_slice());
    std::fs::remove_file(root.join("pdf/SKILL.md~")).unwrap();
    let deadline = Instant::now() + PATIENCE;
    while session.live.stats().events < before.events + 3 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    session.live.flush();
    let after = session.live.stats();
    assert!(after.events >= before.events + 3, "{before:?} {after:?}");
    assert_eq!(after.rebuilds, before.rebuilds, "{before:?} {after:?}");
}

#[test]
fn reading_the_catalog_wakes_nothing() {
    let (_temp, root) = temp_root();
    for n in 0..20 {
        put(
            &root,
            &format!("s{n}/SKILL.md"),
            skill_md(&format!("s{n}"), "Test. Use when testing."),
        );
        put(&root, &format!("s{n}/references/notes.md"), "# Notes\n");
    }
    let session = Session::start(&[&root]);
    session.quiesce();
    let before = session.live.stats();
    // Everything the engine does to files: scan, read bodies, grep.
    for _ in 0..3 {
        let catalog = session.builder.clone().check_bodies(true).build().unwrap();
        for skill in catalog.skills() {
            std::fs::read(&skill.path).unwrap();
        }
        let out = run_in(&root, &["grep", "Notes", "--root", root.to_str().unwrap()]);
        assert_eq!(out.code, 0, "{out:?}");
    }
    // Opens and reads arrive as events: wait for them, then look.
    let deadline = Instant::now() + PATIENCE;
    while session.live.stats().events == before.events && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    session.live.flush();
    let after = session.live.stats();
    assert_eq!(after.rebuilds, before.rebuilds, "{before:?} {after:?}");
    assert!(
        after.events > before.events,
        "no events seen at all: {after:?}"
    );
    assert!(session.changes.try_recv().is_err());
}

#[test]
fn a_burst_of_two_thousand_files() {
    let (_temp, root) = temp_root();
    put(
        &root,
        "seed/SKILL.md",
        skill_md("seed", "Seed. Use when seeding."),
    );
    let mut session = Session::start(&[&root]);
    for n in 0..2000 {
        write(
            &root,
            &format!("team{}/skill-{n}/SKILL.md", n % 20),
            skill_md(&format!("skill-{n}"), &format!("Skill {n}. Use when {n}.")),
        );
    }
    let catalog = session.settle("all 2,000 skills");
    assert_eq!(catalog.skills().len(), 2001);
    // Debounced into a few rebuilds, not thousands.
    let stats = session.live.stats();
    assert!(stats.rebuilds < 200, "{stats:?}");
}

#[test]
fn a_git_checkout_that_swaps_hundreds_of_files() {
    let (_temp, root) = temp_root();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(&root)
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    for n in 0..300 {
        put(
            &root,
            &format!("area{}/s{n}/SKILL.md", n % 10),
            skill_md(&format!("s{n}"), &format!("Main {n}. Use when main.")),
        );
    }
    git(&["init", "-q", "-b", "main"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "main"]);
    git(&["checkout", "-q", "-b", "other"]);
    for n in 0..300 {
        let path = format!("area{}/s{n}/SKILL.md", n % 10);
        if n % 3 == 0 {
            std::fs::remove_file(root.join(&path)).unwrap();
        } else {
            put(
                &root,
                &path,
                skill_md(&format!("s{n}"), &format!("Other {n}. Use when other.")),
            );
        }
    }
    for n in 300..400 {
        put(
            &root,
            &format!("new/s{n}/SKILL.md"),
            skill_md(&format!("s{n}"), &format!("New {n}. Use when new.")),
        );
    }
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "other"]);
    git(&["checkout", "-q", "main"]);

    let mut session = Session::start(&[&root]);
    assert_eq!(session.live.snapshot().skills().len(), 300);
    git(&["checkout", "-q", "other"]);
    let catalog = session.settle("the other branch");
    assert_eq!(catalog.skills().len(), 300);
    assert!(catalog.get("s300").is_some() && catalog.get("s0").is_none());
    git(&["checkout", "-q", "main"]);
    let catalog = session.settle("back on main");
    assert_eq!(catalog.skills().len(), 300);
}

#[test]
fn a_root_created_after_the_start() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("later/skills");
    let mut session = Session::start(&[&root]);
    assert!(session.live.snapshot().skills().is_empty());

    put(
        &root,
        "pdf/SKILL.md",
        skill_md("pdf", "Read PDFs. Use when a PDF is given."),
    );
    session.wait_until(
        "the root's first skill",
        has("pdf", "Read PDFs. Use when a PDF is given."),
    );
    session.settle("after the root appeared");
    // Watched from then on.
    put(
        &root,
        "csv/SKILL.md",
        skill_md("csv", "Read CSV. Use when a CSV is given."),
    );
    session.settle("a second skill in the new root");

    // The root goes away, and comes back.
    std::fs::remove_dir_all(temp.path().join("later")).unwrap();
    session.wait_until("the root gone", |c| {
        if c.skills().is_empty() {
            Ok(())
        } else {
            Err(format!("{:?}", ids(c)))
        }
    });
    put(
        &root,
        "pdf/SKILL.md",
        skill_md("pdf", "Back again. Use when back."),
    );
    session.wait_until("the root back", has("pdf", "Back again. Use when back."));
    session.settle("after the root came back");
}

#[test]
fn a_broken_edit_keeps_the_last_good_version_until_fixed() {
    let (_temp, root) = temp_root();
    put(
        &root,
        "pdf/SKILL.md",
        skill_md("pdf", "Good. Use when good."),
    );
    put(
        &root,
        "csv/SKILL.md",
        skill_md("csv", "Fine. Use when fine."),
    );
    let mut session = Session::start(&[&root]);

    // Broken: the description is gone, so the file cannot load.
    put(&root, "pdf/SKILL.md", "---\nname: pdf\n---\n\n# pdf\n");
    let catalog = session.wait_until("the stale mark", |c| {
        let reported = c
            .diagnostics()
            .iter()
            .any(|d| d.code == skilldex::Code::DescriptionMissing);
        if c.is_stale("pdf") && reported {
            Ok(())
        } else {
            Err(format!("stale: {:?}, {:?}", c.stale(), c.diagnostics()))
        }
    });
    let pdf = catalog
        .get("pdf")
        .expect("the last good version is still served");
    assert_eq!(pdf.description, "Good. Use when good.");
    assert!(
        catalog
            .diagnostics()
            .iter()
            .any(|d| d.path.ends_with("pdf/SKILL.md") && d.severity == skilldex::Severity::Error),
        "{:?}",
        catalog.diagnostics()
    );
    // Everything else is what the disk says; only pdf differs.
    let fresh = session.builder.build().unwrap();
    assert!(fresh.get("pdf").is_none());
    assert_eq!(catalog.get("csv"), fresh.get("csv"));
    assert_eq!(catalog.diagnostics(), fresh.diagnostics());
    let change = session
        .seen
        .last()
        .cloned()
        .or_else(|| session.changes.recv_timeout(PATIENCE).ok());
    let change = change.expect("a change was sent");
    assert!(change.skills_unchanged(), "{change:?}");
    assert_eq!(change.stale, ["pdf"]);
    assert!(!change.diagnostics.is_empty());
    // Reading it says the file is broken and that the listing keeps the
    // last good version; other skills read without a note.
    let request = |target: &str| skilldex::query::ReadRequest {
        target: target.to_string(),
        raw: false,
        section: None,
        lines: None,
        max_tokens: 0,
        path: None,
    };
    let read = skilldex::query::read(&catalog, &request("pdf")).unwrap();
    let note = read.note.expect("a note on the broken file");
    assert!(
        note.contains("broken on disk") && note.contains("description-missing"),
        "{note}"
    );
    assert!(read.content.contains("# pdf"), "{}", read.content);
    let csv = skilldex::query::read(&catalog, &request("csv")).unwrap();
    assert_eq!(csv.note, None);

    // Half-written (empty) and then an unreadable file: still the last good one.
    // Wait until the empty file is seen (its own diagnostic replaces the
    // missing description's), then check the listing kept the good one.
    put(&root, "pdf/SKILL.md", "");
    let catalog = session.wait_until("the empty file's diagnostic", |c| {
        let empty = c
            .diagnostics()
            .iter()
            .any(|d| d.code == skilldex::Code::FrontmatterMissing);
        if empty && c.is_stale("pdf") {
            Ok(())
        } else {
            Err(format!("stale: {:?}, {:?}", c.stale(), c.diagnostics()))
        }
    });
    assert_eq!(
        catalog.get("pdf").unwrap().description,
        "Good. Use when good."
    );

    // The fix replaces it.
    put(
        &root,
        "pdf/SKILL.md",
        skill_md("pdf", "Fixed. Use when fixed."),
    );
    session.wait_until("the fix", has("pdf", "Fixed. Use when fixed."));
    session.settle("after the fix");

    // Broken again, then deleted: gone.
    put(
        &root,
        "pdf/SKILL.md",
        "---\nname: pdf\ndescription: [unclosed\n---\n",
    );
    session.wait_until("stale again", |c| {
        if c.is_stale("pdf") {
            Ok(())
        } else {
            Err(format!("stale: {:?}", c.stale()))
        }
    });
    std::fs::remove_dir_all(root.join("pdf")).unwrap();
    session.settle("after the delete");
}

#[cfg(unix)]
#[test]
fn symlinked_skill_folders() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    let outside = temp.path().join("outside");
    put(
        &root,
        "local/SKILL.md",
        skill_md("local", "Local. Use when local."),
    );
    put(
        &outside,
        "shared/SKILL.md",
        skill_md("shared", "Shared. Use when shared."),
    );
    put(
        &root,
        "real/inner/SKILL.md",
        skill_md("inner", "Inner. Use when inner."),
    );
    std::os::unix::fs::symlink(outside.join("shared"), root.join("shared")).unwrap();
    // The same folder twice: through its real path and through a link.
    std::os::unix::fs::symlink(root.join("real"), root.join("alias")).unwrap();
    let mut session = Session::start(&[&root]);
    session.settle("the start");

    // An edit in the linked folder, made at its real path outside the root.
    put(
        &outside,
        "shared/SKILL.md",
        skill_md("shared", "Shared, edited. Use when shared."),
    );
    session.wait_until(
        "the edit behind the link",
        has("shared", "Shared, edited. Use when shared."),
    );
    session.settle("after the edit behind the link");

    // An edit in the folder reached twice.
    put(
        &root,
        "real/inner/SKILL.md",
        skill_md("inner", "Inner, edited. Use when inner."),
    );
    session.wait_until(
        "the edit of the aliased folder",
        has("inner", "Inner, edited. Use when inner."),
    );
    session.settle("after the aliased edit");

    // A link made after the start, then edited behind it, then removed.
    put(
        &outside,
        "late/SKILL.md",
        skill_md("late", "Late. Use when late."),
    );
    std::os::unix::fs::symlink(outside.join("late"), root.join("late")).unwrap();
    session.wait_until("the new link", has("late", "Late. Use when late."));
    session.settle("after the new link");
    put(
        &outside,
        "late/SKILL.md",
        skill_md("late", "Late, edited. Use when late."),
    );
    session.wait_until(
        "the edit behind the new link",
        has("late", "Late, edited. Use when late."),
    );
    std::fs::remove_file(root.join("late")).unwrap();
    session.settle("after the link was removed");
}

#[test]
fn ignore_files_and_skipped_folders() {
    let (_temp, root) = temp_root();
    put(
        &root,
        "keep/SKILL.md",
        skill_md("keep", "Keep. Use when keeping."),
    );
    put(
        &root,
        "drafts/wip/SKILL.md",
        skill_md("wip", "Draft. Use when drafting."),
    );
    let mut session = Session::start(&[&root]);
    assert_eq!(ids(&session.live.snapshot()), ["keep", "wip"]);

    put(&root, ".gitignore", "drafts/\n");
    session.wait_until("the ignored folder gone", |c| match c.get("wip") {
        None => Ok(()),
        Some(_) => Err("wip is still there".into()),
    });
    session.settle("after the ignore file");
    // Writes inside an ignored folder or node_modules change nothing.
    put(
        &root,
        "drafts/more/SKILL.md",
        skill_md("more", "More. Use when more."),
    );
    put(
        &root,
        "node_modules/x/SKILL.md",
        skill_md("x", "X. Use when x."),
    );
    session.settle("after writes in ignored folders");

    std::fs::remove_file(root.join(".gitignore")).unwrap();
    session.wait_until("the folder back", has("more", "More. Use when more."));
    session.settle("after the ignore file went");
}

#[test]
fn name_clashes_and_namespace_descriptions_follow() {
    let (_temp, root) = temp_root();
    put(&root, "a/pdf/SKILL.md", skill_md("pdf", "A. Use when a."));
    put(&root, "a/README.md", "---\ndescription: Tools of A.\n---\n");
    let mut session = Session::start(&[&root]);

    // A second `pdf`, deeper: it gets a qualified id.
    put(&root, "b/c/pdf/SKILL.md", skill_md("pdf", "C. Use when c."));
    let catalog = session.settle("the clash");
    assert!(catalog.get("b/c/pdf").is_some(), "{:?}", ids(&catalog));
    // A shallower one takes the plain name.
    put(&root, "pdf/SKILL.md", skill_md("pdf", "Top. Use when top."));
    session.wait_until("the new winner", has("pdf", "Top. Use when top."));
    session.settle("after the new winner");

    put(
        &root,
        "a/README.md",
        "---\ndescription: Better tools of A.\n---\n",
    );
    let catalog = session.settle("the namespace description");
    assert_eq!(
        catalog.namespace("a").unwrap().description,
        "Better tools of A."
    );
    std::fs::remove_file(root.join("pdf/SKILL.md")).unwrap();
    session.settle("after the winner went");
}

#[test]
fn flush_rebuilds_without_waiting_for_quiet() {
    let (_temp, root) = temp_root();
    let options = WatchOptions {
        debounce: Duration::from_secs(3600),
        max_delay: Duration::from_secs(3600),
        ..WatchOptions::default()
    };
    let mut session = Session::with_options(&[&root], options);
    put(&root, "pdf/SKILL.md", skill_md("pdf", "Now. Use when now."));
    // Wait until the events are in, then flush: the snapshot is new at once.
    let deadline = Instant::now() + PATIENCE;
    while session.live.stats().events == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    session.live.flush();
    has("pdf", "Now. Use when now.")(&session.live.snapshot()).unwrap();
    session.settle("after the flush");
    let changes = session.changes;
    session.live.stop();
    // Stopping closes the subscribers' channels.
    while changes.recv_timeout(PATIENCE).is_ok() {}
}

#[test]
fn polling_finds_changes_too() {
    let (_temp, root) = temp_root();
    let options = WatchOptions {
        poll: true,
        poll_interval: Duration::from_millis(100),
        ..WatchOptions::default()
    };
    let mut session = Session::with_options(&[&root], options);
    put(
        &root,
        "pdf/SKILL.md",
        skill_md("pdf", "Polled. Use when polled."),
    );
    session.wait_until("the polled skill", has("pdf", "Polled. Use when polled."));
    put(
        &root,
        "pdf/SKILL.md",
        skill_md("pdf", "Polled twice. Use when polled."),
    );
    session.wait_until(
        "the polled edit",
        has("pdf", "Polled twice. Use when polled."),
    );
    session.settle("after polling");
}

#[test]
fn a_root_that_is_a_file_is_an_error() {
    let temp = tempfile::tempdir().unwrap();
    let file = put(temp.path(), "file.md", "x");
    let error = LiveCatalog::start(CatalogBuilder::new([&file]), WatchOptions::default())
        .expect_err("a file is not a root");
    assert!(error.to_string().contains("is not a folder"), "{error}");
}
