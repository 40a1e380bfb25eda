//! CONTRIBUTING.md names every kind an experiment file can name (methods, assertion
//! kinds, plot kinds), as its registry lists them.

use xai_bench::catalog::{kinds, undocumented};
use xai_bench::workspace::workspace_root;

#[test]
fn contributing_names_every_method_assertion_and_plot_kind() {
    let doc = std::fs::read_to_string(workspace_root().join("CONTRIBUTING.md")).unwrap();
    for (section, names) in kinds() {
        assert!(!names.is_empty(), "the {section} registry is empty");
        let missing = undocumented(&doc, names);
        assert!(
            missing.is_empty(),
            "CONTRIBUTING.md does not name these {section} kinds: {missing:?}"
        );
    }
}

#[test]
fn a_kind_the_docs_never_name_is_found() {
    let doc = "Methods: `pfi` and `ice`; pfi_extra is not code.";
    assert_eq!(undocumented(doc, &["pfi", "ice", "cid"]), ["cid"]);
    assert_eq!(undocumented(doc, &["pfi_extra"]), ["pfi_extra"]);
}
