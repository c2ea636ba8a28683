//! The modules of `inspect` import one another without a circle: each top-level module (a file
//! or a directory under `src/`) names the others it uses (`crate::NAME`), and following those
//! names never leads back. Read from the sources, so that a new import that closes a circle
//! fails here, naming it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The top-level module each source file belongs to, and the other top-level modules it names.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut pending = vec![src.clone()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            if path.extension().is_none_or(|extension| extension != "rs") {
                continue;
            }
            let relative = path.strip_prefix(&src).unwrap();
            let first = relative.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
            let module = first.trim_end_matches(".rs").to_owned();
            if module == "main" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let named = graph.entry(module.clone()).or_default();
            for (at, _) in text.match_indices("crate::") {
                // Not `lowering_crate::`, not in a comment's prose either way: a path only.
                if at > 0 && text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let rest = &text[at + "crate::".len()..];
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                let line_start = text[..at].rfind('\n').map_or(0, |newline| newline + 1);
                if text[line_start..at].trim_start().starts_with("//") {
                    continue;
                }
                if !name.is_empty() && name != module {
                    named.insert(name);
                }
            }
        }
    }
    graph
}

#[test]
fn no_module_of_inspect_imports_one_that_imports_it_back() {
    let graph = imports();
    // Depth-first search for a path from each module back to itself.
    fn path_back(graph: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str, seen: &mut Vec<String>) -> bool {
        for next in graph.get(from).into_iter().flatten() {
            if next == to {
                seen.push(next.clone());
                return true;
            }
            if seen.contains(next) {
                continue;
            }
            seen.push(next.clone());
            if path_back(graph, next, to, seen) {
                return true;
            }
            seen.pop();
        }
        false
    }
    let mut circles = Vec::new();
    for module in graph.keys() {
        let mut seen = vec![module.clone()];
        if path_back(&graph, module, module, &mut seen) {
            circles.push(seen.join(" -> "));
        }
    }
    assert!(circles.is_empty(), "import circles among inspect's modules:\n{}", circles.join("\n"));
    // The graph was read: the report imports the facts, the page imports the crate command's results.
    assert!(graph["report"].contains("facts") || graph["report"].contains("builds"), "{graph:?}");
    assert!(graph["html"].contains("krate"), "{graph:?}");
}
