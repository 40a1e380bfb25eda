//! The modules of xai-bench import downwards only: no module reaches, through its
//! `crate::` imports, a module that reaches back to it.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level module of every source file, and the top-level modules it names as
/// `crate::<module>` (a submodule's imports count for its parent).
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
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
        let text = std::fs::read_to_string(&path).unwrap();
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

#[test]
fn no_module_imports_another_in_a_circle() {
    let graph = imports();
    assert!(graph.contains_key("run") && graph.contains_key("checks"));
    for module in graph.keys() {
        if let Some(c) = cycle(&graph, module) {
            panic!("modules import each other in a circle: {}", c.join(" -> "));
        }
    }
}

#[test]
fn the_cycle_finder_finds_a_planted_circle() {
    let mut graph = imports();
    graph.get_mut("table").unwrap().insert("commands".into());
    let c = cycle(&graph, "table").expect("table -> commands -> ... -> table");
    assert_eq!(c.first(), c.last());
}
