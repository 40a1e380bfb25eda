//! CONTRIBUTING.md's recipe for each kind of extension lists every kind its registry
//! holds (DGPs, learners, methods, assertion kinds, plot kinds).

use xai_bench::kinds::{kinds_markdown, one_line, undocumented, vocabulary};
use xai_bench::workspace::workspace_root;

/// The text of the section `## <heading>` of `doc`, up to the next `## `.
fn section<'a>(doc: &'a str, heading: &str) -> &'a str {
    let start = doc
        .find(&format!("## {heading}\n"))
        .unwrap_or_else(|| panic!("CONTRIBUTING.md has no section `## {heading}`"));
    let rest = &doc[start + 3..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

#[test]
fn each_recipe_lists_every_kind_of_its_registry() {
    let doc = std::fs::read_to_string(workspace_root().join("CONTRIBUTING.md")).unwrap();
    for k in vocabulary().registries {
        let (registry, names) = (k.section, k.names);
        let heading = match registry {
            "dgp" => "Add a DGP",
            "models" => "Add a learner",
            "methods" => "Add a method",
            "assert" => "Add an assertion",
            "plots" => "Add a plot",
            other => panic!("no recipe for the {other} registry"),
        };
        assert!(!names.is_empty(), "the {registry} registry is empty");
        let missing = undocumented(section(&doc, heading), names);
        assert!(
            missing.is_empty(),
            "CONTRIBUTING.md's `## {heading}` does not list these kinds: {missing:?}"
        );
    }
}

#[test]
fn a_kind_the_docs_never_name_is_found() {
    let doc = "## Add a method\nMethods: `pfi` and `ice`.\n## Add a plot\n`cid`, pfi_extra.";
    let methods = section(doc, "Add a method");
    assert_eq!(undocumented(methods, &["pfi", "ice", "cid"]), ["cid"]);
    assert_eq!(undocumented(doc, &["pfi_extra"]), ["pfi_extra"]);
}

/// Every kind has a doc comment, and docs/kinds.md is what the registries say now.
#[test]
fn docs_kinds_md_is_generated_from_the_registries() {
    for r in vocabulary().registries {
        let schema_names: Vec<&str> = r.kinds.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(r.names, schema_names, "{}", r.section);
        for k in &r.kinds {
            assert!(
                !one_line(&k.doc).is_empty(),
                "{} `{}` has no doc comment",
                r.section,
                k.name
            );
        }
    }
    let path = workspace_root().join("docs/kinds.md");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == kinds_markdown(),
        "{} is stale: regenerate it with `cargo xtask kinds --markdown > docs/kinds.md`",
        path.display()
    );
}

#[test]
fn a_doc_comment_s_first_paragraph_is_its_line() {
    let doc = " Perturbation × statistics × mean difference ([`pfi`]),\n over rows.\n\n More.\n";
    assert_eq!(
        one_line(doc),
        "Perturbation × statistics × mean difference (`pfi`), over rows."
    );
}

/// Every setting a node may leave out shows its default, and every setting has a doc
/// comment, in every registry and every type their settings use.
#[test]
fn every_optional_setting_shows_its_default() {
    let v = vocabulary();
    let mut missing = Vec::new();
    for r in &v.registries {
        missing.extend(xai_core::settings::undocumented(&r.kinds));
    }
    for t in &v.types {
        missing.extend(xai_core::settings::undocumented(&t.kinds));
    }
    assert!(missing.is_empty(), "{missing:#?}");
}

/// A kind is found by name, with its section; a name two registries share needs the
/// section, and an unknown one is refused listing the kinds.
#[test]
fn a_kind_is_found_by_name_and_section() {
    let v = vocabulary();
    let pfi = v.find("pfi", None).unwrap();
    assert_eq!(pfi.section, "methods");
    assert!(pfi.kind.settings.iter().any(|s| s.name == "statistics"));
    let grid = v.find("GridSpec", None).unwrap();
    assert!(grid.kind.settings.iter().any(|s| s.name == "points"));
    assert_eq!(
        v.find("permutation", None).unwrap().section,
        "PerturbationSpec"
    );
    let refused = |r: xai_bench::error::Result<_>| match r {
        Err(xai_bench::BenchError::Setting { field, message }) => (field, message),
        other => panic!("{other:?}"),
    };
    let (field, message) = refused(v.find("permutation_map", None));
    assert_eq!(field, "kind");
    assert!(message.contains("methods, plots"), "{message}");
    assert_eq!(
        v.find("permutation_map", Some("plots")).unwrap().section,
        "plots"
    );
    let (_, message) = refused(v.find("pfj", None));
    assert!(
        message.contains("no kind `pfj`") && message.contains("pfi"),
        "{message}"
    );
}
