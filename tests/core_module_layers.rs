//! schema-core's modules form layers: a module never uses one that uses it
//! back. Read from the sources: every `crate::` path in code (comments and
//! `#[cfg(test)]` modules left out), a name the crate root re-exports
//! (`crate::Repo`) counted as the module it comes from, a folder module
//! (`relation/`) as one module.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// Cycles that are known and not yet broken, each as its sorted modules.
const KNOWN_CYCLES: &[&[&str]] = &[&["schema_depth", "validator"]];

/// The code of a file: comments cut, and everything from the first
/// `#[cfg(test)]` on (unit tests sit at the end of a file).
fn code_of(path: &Path) -> String {
    let text = fs::read_to_string(path).expect("read a source file");
    let text = match text.find("#[cfg(test)]") {
        Some(at) => &text[..at],
        None => &text[..],
    };
    text.lines()
        .map(|line| line.find("//").map_or(line, |at| &line[..at]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segment of every `crate::` path, `crate::{a, b::c}` expanded.
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let end = group
                .char_indices()
                .find(|&(_, c)| {
                    depth += match c {
                        '{' => 1,
                        '}' => -1,
                        _ => 0,
                    };
                    depth == 0
                })
                .map_or(group.len(), |(i, _)| i);
            let (mut depth, mut part) = (0, String::new());
            for c in group[..end].chars().chain([',']) {
                match c {
                    ',' if depth == 0 => out.push(std::mem::take(&mut part)),
                    '{' | '}' => {
                        depth += if c == '{' { 1 } else { -1 };
                        part.push(c);
                    }
                    _ => part.push(c),
                }
            }
        } else {
            out.push(rest.to_owned());
        }
    }
    out.iter()
        .map(|path| {
            path.trim()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect::<String>()
        })
        .filter(|name| !name.is_empty())
        .collect()
}

/// Names the crate root re-exports (`pub use repo::Repo;`), by module.
fn root_reexports(lib: &str) -> BTreeMap<String, String> {
    let lib = lib.split("pub mod prelude").next().unwrap_or(lib);
    let mut names = BTreeMap::new();
    for item in lib.split(';') {
        let Some(path) = item.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, rest)) = path.split_once("::") else {
            continue;
        };
        for name in rest.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if !name.is_empty() {
                names.insert(name.to_owned(), module.to_owned());
            }
        }
    }
    names
}

fn module_graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema-core/src");
    let mut files: BTreeMap<String, Vec<_>> = BTreeMap::new();
    let mut pending = vec![src.clone()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).expect("list schema-core/src") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let rel = path.strip_prefix(&src).expect("under src");
            let top = rel.components().next().expect("a first component");
            let module = top.as_os_str().to_string_lossy().replace(".rs", "");
            if path.extension().is_some_and(|e| e == "rs") && module != "lib" {
                files.entry(module).or_default().push(path);
            }
        }
    }
    let reexports = root_reexports(&code_of(&src.join("lib.rs")));
    let mut graph = Graph::new();
    for (module, paths) in &files {
        let uses = graph.entry(module.clone()).or_default();
        for path in paths {
            for name in crate_paths(&code_of(path)) {
                let used = reexports.get(&name).cloned().unwrap_or(name);
                if files.contains_key(&used) && &used != module {
                    uses.insert(used);
                }
            }
        }
    }
    graph
}

fn reaches(graph: &Graph, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut pending = vec![from];
    while let Some(module) = pending.pop() {
        if module == to {
            return true;
        }
        if seen.insert(module) {
            pending.extend(graph[module].iter().map(String::as_str));
        }
    }
    false
}

/// The modules on a cycle, grouped: two modules share a group when each
/// reaches the other.
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    let mut groups: Vec<Vec<String>> = Vec::new();
    for module in graph.keys() {
        if groups.iter().any(|g| g.contains(module)) {
            continue;
        }
        let group: Vec<String> = graph
            .keys()
            .filter(|other| {
                *other == module || (reaches(graph, module, other) && reaches(graph, other, module))
            })
            .cloned()
            .collect();
        if group.len() > 1 {
            groups.push(group);
        }
    }
    groups
}

#[test]
fn lower_modules_do_not_use_the_ones_above() {
    let graph = module_graph();
    for (lower, upper) in [
        ("error", "txn"),
        ("index", "plan"),
        ("repo", "embed"),
        ("repo", "relation"),
        ("model", "relation"),
    ] {
        assert!(
            !graph[lower].contains(upper),
            "`{lower}` uses `{upper}`, which uses it back: {graph:#?}"
        );
    }
}

#[test]
fn no_module_cycle_but_the_known_ones() {
    let graph = module_graph();
    // The reader sees through `use crate::{...}` and root re-exports.
    assert!(graph["repo"].contains("txn") && graph["relation"].contains("repo"));
    for cycle in cycles(&graph) {
        assert!(
            KNOWN_CYCLES.iter().any(|known| known == &cycle),
            "modules that use each other: {cycle:?}"
        );
    }
}
