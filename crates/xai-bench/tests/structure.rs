//! The modules of xai-bench and of xai-models import downwards only: no module
//! reaches, through its `crate::` imports, a module that reaches back to it. (Crates
//! cannot import each other in a circle: cargo refuses a cyclic dependency graph.)

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level module of every source file of the crate `crate_dir` (under the
/// workspace's `crates/`), and the top-level modules its code (not its comments)
/// names as `crate::<module>` (a submodule's imports count for its parent).
fn imports_of(crate_dir: &str) -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(crate_dir)
        .join("src");
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
        let used = graph.entry(top.clone()).or_default();
        for part in text.split("crate::").skip(1) {
            let name: String = part
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && name != top {
                used.insert(name);
            }
        }
    }
    graph
}

/// xai-bench's module graph.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    imports_of("xai-bench")
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
fn no_module_imports_another_in_a_circle() {
    let graph = imports();
    assert!(graph.contains_key("run") && graph.contains_key("checks"));
    assert_no_circle(&graph);
}

/// The learner registry names every learner module; none names it back (the
/// `uncertainty` learner takes its stages through a trait, not the registry's type).
#[test]
fn no_learner_module_imports_another_in_a_circle() {
    let graph = imports_of("xai-models");
    assert!(graph["registry"].contains("uncertainty"));
    assert_no_circle(&graph);
}

#[test]
fn the_cycle_finder_finds_a_planted_circle() {
    let mut graph = imports();
    graph.get_mut("table").unwrap().insert("commands".into());
    let c = cycle(&graph, "table").expect("table -> commands -> ... -> table");
    assert_eq!(c.first(), c.last());
}
