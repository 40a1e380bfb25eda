//! Every crate of the workspace imports downwards only: within a crate no module
//! reaches, through its `crate::` imports, a module that reaches back to it; across
//! crates each depends only on the crates before it in [`ORDER`] (so no circle can
//! run through two crates either: a module of one crate reaches another crate's
//! modules only along that order).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The workspace's crates, each depending only on crates listed before it, with the
/// directory holding it.
const ORDER: [(&str, &str); 12] = [
    ("xai-core", "crates/xai-core"),
    ("xai-synth", "crates/xai-synth"),
    ("xai-models", "crates/xai-models"),
    ("xai-data", "crates/xai-data"),
    ("xai-results", "crates/xai-results"),
    ("xai-methods", "crates/xai-methods"),
    ("xai-checks", "crates/xai-checks"),
    ("xai-plots", "crates/xai-plots"),
    ("xai-bench", "crates/xai-bench"),
    ("xai-peers", "crates/xai-peers"),
    ("xai-python", "crates/xai-python"),
    ("xtask", "xtask"),
];

/// The workspace directory `dir` (e.g. `crates/xai-core`).
fn workspace_dir(dir: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(dir)
}

/// Top-level module of every source file of the crate in `crate_dir` (a workspace
/// directory), and the top-level modules its code (not its comments) names as
/// `crate::<module>` or, in a top-level module, `super::<module>`, alone or in a
/// `{...}` group (a submodule's imports count for its parent).
fn imports_of(crate_dir: &str) -> BTreeMap<String, BTreeSet<String>> {
    let src = workspace_dir(crate_dir).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in common::files_under(&src) {
        let rel = path.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if top == "lib" {
            continue;
        }
        // Code only: a doc comment's link to another module is not an import.
        let text: String = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        // In a top-level module `super::` is the crate root too.
        let top_level = rel.components().count() == 1;
        let used = graph.entry(top.clone()).or_default();
        for prefix in ["crate::", "super::"] {
            if prefix == "super::" && !top_level {
                continue;
            }
            for (i, _) in text.match_indices(prefix) {
                let before = text[..i].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                used.extend(first_segments(&text[i + prefix.len()..]));
            }
        }
        used.remove(&top);
    }
    // Only the crate's modules are nodes: an item of the root (`super::Method`) is not.
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for used in graph.values_mut() {
        used.retain(|m| modules.contains(m));
    }
    graph
}

/// The first path segments a path starts with: `pfi::X` → [pfi], `{pfi, ice::Y}` →
/// [pfi, ice].
fn first_segments(path: &str) -> Vec<String> {
    let word = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    match path.strip_prefix('{') {
        Some(group) => group
            .split('}')
            .next()
            .unwrap_or("")
            .split(',')
            .map(word)
            .filter(|w| !w.is_empty())
            .collect(),
        None => vec![word(path)],
    }
}

/// xai-bench's module graph.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    imports_of("crates/xai-bench")
}

/// The workspace crates `manifest_dir`'s Cargo.toml depends on (normal, dev and
/// build dependencies alike).
fn crate_deps(manifest_dir: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(workspace_dir(manifest_dir).join("Cargo.toml")).unwrap();
    text.lines()
        .filter_map(|l| {
            let name: String = l
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '-')
                .collect();
            ORDER.iter().any(|(c, _)| *c == name).then_some(name)
        })
        .collect()
}

/// A cycle through `start`, if any (depth-first search).
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    fn walk(
        graph: &BTreeMap<String, BTreeSet<String>>,
        start: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        let here = path.last().unwrap().clone();
        for next in graph.get(&here).into_iter().flatten() {
            if next == start {
                path.push(next.clone());
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(graph, start, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    walk(graph, start, &mut path, &mut BTreeSet::new()).then_some(path)
}

/// Panics with the first circle of `graph`, if any.
fn assert_no_circle(graph: &BTreeMap<String, BTreeSet<String>>) {
    for module in graph.keys() {
        if let Some(c) = cycle(graph, module) {
            panic!("modules import each other in a circle: {}", c.join(" -> "));
        }
    }
}

#[test]
fn no_module_imports_another_in_a_circle_in_any_crate() {
    let graph = imports();
    assert!(graph.contains_key("run") && graph.contains_key("plan"));
    for (_, dir) in ORDER {
        assert_no_circle(&imports_of(dir));
    }
}

/// The learner registry names every learner module; none names it back (the
/// `uncertainty` learner takes its stages through a trait, not the registry's type).
#[test]
fn no_learner_module_imports_another_in_a_circle() {
    let graph = imports_of("crates/xai-models");
    assert!(graph["registry"].contains("uncertainty"));
    assert!(!graph["uncertainty"].contains("registry"));
    assert_no_circle(&graph);
    // The same shape in the methods: the registry names each method, each method
    // imports the trait's module, which imports none of them.
    let methods = imports_of("crates/xai-methods");
    assert!(methods["registry"].contains("pfi"));
    assert!(methods["pfi"].contains("method"));
    assert!(methods["method"].is_empty(), "{:?}", methods["method"]);
    assert_no_circle(&methods);
}

/// The dependencies of each crate on crates after it in [`ORDER`], as
/// (crate, dependency) pairs, given each crate's dependencies.
fn upward(deps_of: impl Fn(&str) -> BTreeSet<String>) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (i, (name, dir)) in ORDER.iter().enumerate() {
        let below: BTreeSet<&str> = ORDER[..i].iter().map(|(c, _)| *c).collect();
        for d in deps_of(dir) {
            if d != *name && !below.contains(d.as_str()) {
                found.push((name.to_string(), d));
            }
        }
    }
    found
}

/// Each crate depends only on crates before it in [`ORDER`]: the checks and the
/// plots stand on a run's results and the data, never on the methods' learners nor
/// on the engine that runs them.
#[test]
fn crates_depend_only_on_crates_below_them() {
    for c in ["crates/xai-checks", "crates/xai-plots"] {
        let deps = crate_deps(c);
        assert!(deps.contains("xai-results"), "{c}: {deps:?}");
        assert!(
            !deps.contains("xai-methods") && !deps.contains("xai-models"),
            "{c}: {deps:?}"
        );
    }
    assert_eq!(upward(crate_deps), []);
    // A planted dependency of the plots on the engine is found.
    let planted = upward(|dir| {
        let mut deps = crate_deps(dir);
        if dir == "crates/xai-plots" {
            deps.insert("xai-bench".into());
        }
        deps
    });
    assert_eq!(
        planted,
        [("xai-plots".to_string(), "xai-bench".to_string())]
    );
}

/// The Python front end marshals: among the workspace's crates it depends on the
/// engine, whose API it calls (methods, learners and DGPs by their registries), and
/// on the core traits its foreign models implement, never on the methods, learners
/// or DGPs themselves.
#[test]
fn the_binding_depends_on_the_engine_and_the_core_traits_alone() {
    let allowed = |deps: &BTreeSet<String>| {
        deps.iter()
            .filter(|d| !["xai-bench", "xai-core"].contains(&d.as_str()))
            .cloned()
            .collect::<Vec<_>>()
    };
    let deps = crate_deps("crates/xai-python");
    assert!(deps.contains("xai-bench"), "{deps:?}");
    assert_eq!(allowed(&deps), Vec::<String>::new());
    let mut planted = deps.clone();
    planted.insert("xai-methods".into());
    assert_eq!(allowed(&planted), ["xai-methods"]);
}

#[test]
fn the_cycle_finder_finds_a_planted_circle() {
    let mut graph = imports();
    graph.get_mut("spec").unwrap().insert("commands".into());
    let c = cycle(&graph, "spec").expect("spec -> commands -> ... -> spec");
    assert_eq!(c.first(), c.last());
}
