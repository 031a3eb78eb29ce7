//! The extension's unit tests: names and URIs, manifests, what is served.

use super::index::valid_name;
use super::uri::{decode, encode_path, mime_type};
use super::*;
use crate::catalog::Catalog;
use crate::entry::Skill;
use rmcp::model::SkillResources;

#[test]
fn names_and_encoding() {
    assert!(valid_name("pdf-tools").is_ok());
    assert!(valid_name("PDF").is_err());
    assert!(valid_name("a--b").is_err());
    assert_eq!(encode_path("a b/.claude"), "a%20b/.claude");
    assert_eq!(decode("a%20b").as_deref(), Some("a b"));
    assert_eq!(decode("a%2"), None);
    assert_eq!(mime_type("x/y.MD"), "text/markdown");
    assert_eq!(check_canonical("skill://ns/a%20b/SKILL.md"), Ok(()));
    for (alias, meant) in [
        ("skill://ns/a/refs//g.md", "skill://ns/a/refs/g.md"),
        ("skill://ns/a/./refs/g.md", "skill://ns/a/refs/g.md"),
        ("skill://ns/a/refs/g.md/", "skill://ns/a/refs/g.md"),
        ("skill://ns/a/refs%2Fg.md", "skill://ns/a/refs/g.md"),
        ("skill://ns/a/refs/..", "skill://ns/a"),
        ("skill://ns/%61/SKILL.md", "skill://ns/a/SKILL.md"),
        ("skill://ns/a/SKILL.md?x=1", "skill://ns/a/SKILL.md"),
    ] {
        assert_eq!(
            check_canonical(alias),
            Err(Some(meant.to_string())),
            "{alias}"
        );
    }
    assert_eq!(check_canonical("skill://a/../.."), Err(None));
}

fn catalog_of(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Catalog) {
    let temp = tempfile::tempdir().unwrap();
    for (path, bytes) in files {
        let path = temp.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    let catalog = crate::CatalogBuilder::new([temp.path()]).build().unwrap();
    (temp, catalog)
}

#[test]
fn entries_follow_the_extension_rules() {
    let skill_md: &[u8] =
        b"---\nname: ok-skill\ndescription: Fine. Use when testing.\nlicense: MIT\n---\n# Ok\n";
    let big = vec![b'x'; 9 * 1024 * 1024];
    let (_temp, catalog) = catalog_of(&[
        ("ns/ok-skill/SKILL.md", skill_md),
        ("ns/ok-skill/refs/a b.md", b"# A\n"),
        (
            "ns/ok-skill/inner/SKILL.md",
            b"---\nname: inner\ndescription: Nested. Use when testing.\n---\n",
        ),
        (
            "ns/huge/SKILL.md",
            b"---\nname: huge\ndescription: Too big. Use when testing.\n---\n",
        ),
        ("ns/huge/one.bin", &big),
        ("ns/huge/two.bin", &big),
        (
            "ns/Upper/SKILL.md",
            b"---\nname: Upper\ndescription: Bad name. Use when testing.\n---\n",
        ),
    ]);
    let index = SkillIndex::new(&catalog);
    assert_eq!(index.left_out.len(), 1, "{:?}", index.left_out);
    assert!(index.left_out[0].contains("`Upper`"));
    let ok = catalog.get("ok-skill").unwrap();
    let entry = entry(&catalog, ok).unwrap();
    assert_eq!(entry.uri, "skill://ns/ok-skill/SKILL.md");
    assert_eq!(entry.frontmatter.extra["license"], "MIT");
    let SkillResources::Files(files) = &entry.resources else {
        panic!("a manifest")
    };
    let uris: Vec<&str> = files.iter().map(|f| f.uri.as_str()).collect();
    // Nested skills' files belong to the enclosing manifest too.
    assert_eq!(
        uris,
        [
            "skill://ns/ok-skill/SKILL.md",
            "skill://ns/ok-skill/inner/SKILL.md",
            "skill://ns/ok-skill/refs/a%20b.md"
        ]
    );
    let (owner, path) = index.locate("skill://ns/ok-skill/refs/a%20b.md").unwrap();
    assert_eq!(
        (catalog.skills()[owner].id.as_str(), path.as_str()),
        ("ok-skill", "refs/a b.md")
    );
    let (owner, _) = index.locate("skill://ns/ok-skill/inner/SKILL.md").unwrap();
    assert_eq!(catalog.skills()[owner].id, "inner");
    let huge = catalog.get("huge").unwrap();
    assert!(entry_error(&catalog, huge).contains("16 MiB"));
    assert!(read_file(&catalog, ok, "../huge/SKILL.md", "skill://x").is_err());
}

/// What the tree's ignore rules leave out of the catalog is neither in
/// a manifest, nor in a folder listing, nor readable.
#[test]
fn ignored_files_are_not_served() {
    let skill_md: &[u8] = b"---\nname: kept\ndescription: Fine. Use when testing.\n---\n";
    let (_temp, catalog) = catalog_of(&[
        (".gitignore", b"*.env\n/ns/kept/build/\n"),
        ("ns/kept/SKILL.md", skill_md),
        ("ns/kept/.ignore", b"!keep.env\n"),
        ("ns/kept/keep.env", b"A=1\n"),
        ("ns/kept/secret.env", b"B=2\n"),
        ("ns/kept/build/out.md", b"# Out\n"),
        ("ns/kept/refs/a.md", b"# A\n"),
    ]);
    let kept = catalog.get("kept").unwrap();
    let entry = entry(&catalog, kept).unwrap();
    let SkillResources::Files(files) = &entry.resources else {
        panic!("a manifest")
    };
    let uris: Vec<&str> = files.iter().map(|f| f.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "skill://ns/kept/.ignore",
            "skill://ns/kept/SKILL.md",
            "skill://ns/kept/keep.env",
            "skill://ns/kept/refs/a.md"
        ]
    );
    let listed: Vec<String> = read_directory(&catalog, kept, "", "skill://ns/kept")
        .unwrap()
        .into_iter()
        .map(|r| r.name.clone())
        .collect();
    assert_eq!(listed, [".ignore", "SKILL.md", "keep.env", "refs"]);
    let refused = read_file(&catalog, kept, "secret.env", "skill://ns/kept/secret.env");
    assert!(refused.unwrap_err().contains(".gitignore"));
    assert!(read_file(&catalog, kept, "build/out.md", "skill://x").is_err());
    assert!(read_file(&catalog, kept, "keep.env", "skill://x").is_ok());
}

/// A disabled skill nested in another is not served through it: not
/// in its manifest, not in a folder listing, not readable by URI.
#[test]
fn a_disabled_nested_skill_is_not_served_through_its_parent() {
    let temp = tempfile::tempdir().unwrap();
    let files: [(&str, &[u8]); 3] = [
        (
            "outer/SKILL.md",
            b"---\nname: outer\ndescription: Outer. Use when testing.\n---\n",
        ),
        (
            "outer/inner/SKILL.md",
            b"---\nname: inner\ndescription: Inner. Use when testing.\n---\n",
        ),
        ("outer/inner/refs/a.md", b"# A\n"),
    ];
    for (path, bytes) in files {
        let path = temp.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("inner", temp.path().join("outer/alias")).unwrap();
        std::fs::create_dir_all(temp.path().join("outer/refs")).unwrap();
        std::os::unix::fs::symlink("../inner/refs/a.md", temp.path().join("outer/refs/link.md"))
            .unwrap();
    }
    let builder = crate::CatalogBuilder::new([temp.path()]);
    for (disabled, served) in [(false, true), (true, false)] {
        let names: &[&str] = if disabled { &["inner"] } else { &[] };
        let catalog = builder
            .clone()
            .disabled(names.iter().copied())
            .build()
            .unwrap();
        let outer = catalog.get("outer").unwrap();
        let SkillResources::Files(files) = &entry(&catalog, outer).unwrap().resources else {
            panic!("a manifest")
        };
        let uris: Vec<&str> = files.iter().map(|f| f.uri.as_str()).collect();
        assert_eq!(
            uris.contains(&"skill://outer/inner/refs/a.md"),
            served,
            "{uris:?}"
        );
        let read = read_file(
            &catalog,
            outer,
            "inner/refs/a.md",
            "skill://outer/inner/refs/a.md",
        );
        assert_eq!(read.is_ok(), served, "{:?}", read.err());
        let listed: Vec<String> = read_directory(&catalog, outer, "", "skill://outer")
            .unwrap()
            .into_iter()
            .map(|r| r.name.clone())
            .collect();
        assert_eq!(listed.contains(&"inner".to_string()), served, "{listed:?}");
        assert_eq!(
            read_directory(&catalog, outer, "inner", "skill://outer/inner").is_ok(),
            served
        );
        // Nor through a symlink inside the parent.
        #[cfg(unix)]
        for (path, uri) in [
            ("alias/refs/a.md", "skill://outer/alias/refs/a.md"),
            ("refs/link.md", "skill://outer/refs/link.md"),
        ] {
            let read = read_file(&catalog, outer, path, uri);
            assert_eq!(read.is_ok(), served, "{path}: {:?}", read.err());
        }
        // Symlinked folders are not entered; a linked file is listed
        // only when it may be read.
        #[cfg(unix)]
        assert_eq!(
            uris.contains(&"skill://outer/refs/link.md"),
            served,
            "{uris:?}"
        );
        #[cfg(unix)]
        assert_eq!(
            read_directory(&catalog, outer, "alias", "skill://outer/alias").is_ok(),
            served
        );
    }
}

fn entry_error(catalog: &Catalog, skill: &Skill) -> String {
    entry(catalog, skill).unwrap_err()
}
