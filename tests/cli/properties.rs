//! Properties over arbitrary input: the parser never panics, and any
//! catalog renders deterministically and within the budget it was given.

use proptest::prelude::*;
use skilldex::query::{render_directory, Budget, Format, Mode, PathStyle, RenderOptions};
use skilldex::CatalogBuilder;

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic_the_parser(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let parsed = skilldex::parse::parse_bytes(&bytes);
        for finding in &parsed.findings {
            prop_assert!(finding.position.line >= 1 && finding.position.column >= 1);
        }
    }

    #[test]
    fn front_matter_shaped_text_never_panics(
        keys in proptest::collection::vec("[a-z_-]{1,8}", 0..6),
        values in proptest::collection::vec(".{0,40}", 0..6),
        body in ".{0,200}",
        crlf in any::<bool>(),
    ) {
        let mut text = String::from("---\n");
        for (key, value) in keys.iter().zip(&values) {
            text.push_str(&format!("{key}: {value}\n"));
        }
        text.push_str("---\n");
        text.push_str(&body);
        if crlf {
            text = text.replace('\n', "\r\n");
        }
        let parsed = skilldex::parse::parse_bytes(text.as_bytes());
        if let Some(fields) = parsed.fields {
            // A parsed header keeps its body position inside the text.
            prop_assert!(parsed.body_offset <= text.len());
            let _ = fields.description;
        }
    }
}

/// A catalog on disk from generated (namespace, name, description) triples.
fn write_catalog(skills: &[(u8, String, String)]) -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    for (i, (namespace, name, description)) in skills.iter().enumerate() {
        let folder = format!("{name}-{i}");
        let path = temp
            .path()
            .join(format!("ns{}/{folder}/SKILL.md", namespace % 5));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let yaml = serde_json::to_string(description).unwrap();
        std::fs::write(
            &path,
            format!("---\nname: {folder}\ndescription: {yaml}\n---\nbody\n"),
        )
        .unwrap();
    }
    temp
}

fn cost(budget: Budget, text: &str) -> usize {
    match budget {
        Budget::Tokens(_) => skilldex::tokens::count(text),
        Budget::Chars(_) => text.chars().count(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn any_catalog_renders_deterministically_within_budget(
        skills in proptest::collection::vec(
            (any::<u8>(), "[a-z]{1,10}", "\\PC{1,300}"),
            1..40,
        ),
        limit in 20usize..4000,
        tokens in any::<bool>(),
        format in prop_oneof![Just(Format::Markdown), Just(Format::Xml), Just(Format::AgentsMd)],
        mode in prop_oneof![Just(Mode::Auto), Just(Mode::Directory), Just(Mode::Namespaces)],
    ) {
        let temp = write_catalog(&skills);
        let catalog = CatalogBuilder::new([temp.path()]).build().unwrap();
        let budget = if tokens { Budget::Tokens(limit) } else { Budget::Chars(limit) };
        let options = RenderOptions {
            format,
            paths: PathStyle::Relative,
            mode,
            budget: Some(budget),
            base: temp.path().to_path_buf(),
            ..RenderOptions::default()
        };
        let first = render_directory(&catalog, &options);
        let again = render_directory(&CatalogBuilder::new([temp.path()]).build().unwrap(), &options);
        prop_assert_eq!(&first.text, &again.text);
        let measured = cost(budget, &first.text);
        prop_assert_eq!(measured, first.cost);
        if first.fits {
            prop_assert!(measured <= limit, "{} > {}", measured, limit);
        }
        // Every skill is listed or collapsed into a namespace, never lost.
        prop_assert_eq!(first.skills.len() + first.collapsed.len(), catalog.skills().len());
        prop_assert_eq!(first.listed_count, first.skills.len());
        prop_assert_eq!(first.collapsed_count, first.collapsed.len());
        // The budget is only unmet when even the shortest form exceeds it.
        if !first.fits {
            prop_assert!(first.skills.is_empty());
        }
    }
}
