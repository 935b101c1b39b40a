//! The crates' modules form layers, read from their sources: every file is a
//! module (`model/validator/depth.rs` is `model::validator::depth`, a
//! folder's `mod.rs` is the folder), and every path in code that names
//! another module (`crate::a::b`, `super::c`, a child's `d::`, a name that a
//! `pub use` re-exports counted as the module that defines it) is an arrow.
//! Comments, `#[cfg(test)]` code and a folder's own `mod`/`pub use` lines (its
//! face, not a use) are left out.
//!
//! The rules: a top folder of `schema-core` uses only the folders below it in
//! [`CORE_LAYERS`]; no module reaches itself through others (no circle, inside
//! folders too); no file is longer than [`MAX_LINES`] lines of code.
//!
//! `cargo test --test it -- layers:: --nocapture` prints the structure:
//! each module with its lines and what it uses.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// `schema-core`'s top folders, lowest first: each uses only those before it
/// (`lib.rs`, the crate's face, may use them all).
const CORE_LAYERS: &[&str] = &[
    "error",
    "exec",
    "txn",
    "model",
    "crypt",
    "typed",
    "repo",
    "query",
    "aggregate",
    "evolution",
    "setup",
    "growth",
    "relation",
    "write",
    "watch",
    "adopt",
    "cli",
];

/// The longest a file may be, in lines of code before its unit tests.
const MAX_LINES: usize = 500;

/// Files still longer than [`MAX_LINES`], to be split.
const KNOWN_LONG: &[&str] = &[];

/// One file of a crate: its module path and its code.
struct Module {
    name: String,
    code: String,
    lines: usize,
}

/// The code of a file: comments cut, and its unit tests (a top-level
/// `#[cfg(test)] mod tests { ... }`, which sits at the end of a file) left out.
fn code_of(path: &Path) -> String {
    let text = fs::read_to_string(path).expect("read a source file");
    let text = match text.find("\n#[cfg(test)]\nmod tests {") {
        Some(at) => &text[..at],
        None => &text[..],
    };
    text.lines()
        .map(|line| line.find("//").map_or(line, |at| &line[..at]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module path of a file under `src` (`lib` for the crate root).
fn module_name(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" {
        parts.push(stem.to_owned());
    }
    if parts.is_empty() || parts == ["lib"] {
        "lib".to_owned()
    } else {
        parts.join("::")
    }
}

fn modules(src: &Path) -> Vec<Module> {
    let mut out = Vec::new();
    let mut pending: Vec<PathBuf> = vec![src.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).expect("list a source folder") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                // A binary (`src/bin/`) is no module of the library: it
                // uses the crate by its name, as any user does.
                if path.file_name().is_some_and(|n| n == "bin") && path.parent() == Some(src) {
                    continue;
                }
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let code = code_of(&path);
                // A unit-test file (`mod tests;` beside it) is test code.
                if path.file_stem().is_some_and(|s| s == "tests") {
                    continue;
                }
                out.push(Module {
                    name: module_name(src, &path),
                    lines: code.lines().count(),
                    code,
                });
            }
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// A module's code split into its face (`mod x;` and `pub use ...;` lines:
/// a folder naming and re-exporting its parts) and the rest.
fn split_faces(code: &str) -> (Vec<String>, String) {
    let (mut faces, mut body) = (Vec::new(), String::new());
    let mut lines = code.lines();
    while let Some(line) = lines.next() {
        let s = line.trim_start();
        let s = s
            .strip_prefix("pub(crate) ")
            .or_else(|| s.strip_prefix("pub(super) "))
            .or_else(|| s.strip_prefix("pub "))
            .map(|rest| (true, rest))
            .unwrap_or((false, s));
        let face = s.1.starts_with("mod ") && s.1.trim_end().ends_with(';')
            || s.0 && s.1.starts_with("use ");
        if !face {
            body.push_str(line);
            body.push('\n');
            continue;
        }
        let mut statement = s.1.to_owned();
        while !statement.contains(';') {
            match lines.next() {
                Some(more) => statement.push_str(more),
                None => break,
            }
        }
        faces.push(statement);
    }
    (faces, body)
}

/// Every path of the code as segments, `a::{b, c::d}` expanded.
fn paths(code: &str) -> Vec<Vec<String>> {
    fn expand(prefix: &[String], text: &str, out: &mut Vec<Vec<String>>) {
        let mut depth = 0;
        let mut part = String::new();
        for c in text.chars().chain([',']) {
            match c {
                ',' if depth == 0 => {
                    one(prefix, part.trim(), out);
                    part.clear();
                }
                '{' => {
                    depth += 1;
                    part.push(c);
                }
                '}' => {
                    depth -= 1;
                    part.push(c);
                }
                _ => part.push(c),
            }
        }
    }
    fn one(prefix: &[String], text: &str, out: &mut Vec<Vec<String>>) {
        let mut segs = prefix.to_vec();
        let mut rest = text;
        loop {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() {
                break;
            }
            segs.push(name.clone());
            rest = &rest[name.len()..];
            if let Some(after) = rest.strip_prefix("::") {
                if let Some(group) = after.strip_prefix('{') {
                    let end = group.rfind('}').unwrap_or(group.len());
                    expand(&segs, &group[..end], out);
                    return;
                }
                rest = after;
            } else {
                break;
            }
        }
        if segs.len() > prefix.len() {
            out.push(segs);
        }
    }
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut at = 0;
    while at < code.len() {
        let starts = at == 0
            || !(bytes[at - 1].is_ascii_alphanumeric()
                || bytes[at - 1] == b'_'
                || bytes[at - 1] == b'$'
                || bytes[at - 1] == b':');
        let c = bytes[at];
        if starts && (c.is_ascii_alphabetic() || c == b'_') {
            let end = code[at..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map_or(code.len(), |e| at + e);
            if code[end..].starts_with("::") {
                let stop = path_end(&code[at..]);
                one(&[], &code[at..at + stop], &mut out);
                at += stop.max(1);
                continue;
            }
            at = end;
            continue;
        }
        at += 1;
    }
    out
}

/// Where a path starting at the beginning of `text` ends (braces balanced).
fn path_end(text: &str) -> usize {
    let mut depth = 0i32;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth > 0 => depth -= 1,
            c if depth == 0 && !(c.is_alphanumeric() || c == '_' || c == ':') => return i,
            _ => {}
        }
    }
    text.len()
}

/// The crate's graph of modules: for each module, those its code uses.
fn graph(src: &Path) -> (Graph, BTreeMap<String, usize>) {
    let modules = modules(src);
    let names: BTreeSet<String> = modules.iter().map(|m| m.name.clone()).collect();
    // What each module re-exports (`pub use a::b::C;` and `pub use a::b;`):
    // (module, name) -> the full path it stands for.
    let mut reexports: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for module in &modules {
        for statement in split_faces(&module.code).0 {
            let Some(rest) = statement.strip_prefix("use ") else {
                continue;
            };
            let rest = rest.trim_end_matches(';');
            for path in paths(rest) {
                let mut path = path;
                let last = path.last().cloned().unwrap_or_default();
                let alias = rest
                    .split(" as ")
                    .nth(1)
                    .filter(|_| !rest.contains('{'))
                    .map(|a| a.trim().to_owned());
                if path
                    .first()
                    .is_some_and(|p| p != "crate" && p != "super" && p != "self")
                {
                    let mut here: Vec<String> = if module.name == "lib" {
                        vec![]
                    } else {
                        module.name.split("::").map(str::to_owned).collect()
                    };
                    here.append(&mut path);
                    path = here;
                }
                reexports.insert((module.name.clone(), alias.unwrap_or(last)), path);
            }
        }
    }
    let mut graph = Graph::new();
    let mut lines = BTreeMap::new();
    for module in &modules {
        lines.insert(module.name.clone(), module.lines);
        let uses = graph.entry(module.name.clone()).or_default();
        let here: Vec<String> = if module.name == "lib" {
            vec![]
        } else {
            module.name.split("::").map(str::to_owned).collect()
        };
        for path in paths(&split_faces(&module.code).1) {
            if let Some(target) = resolve(&here, &path, &names, &reexports, 0) {
                if target != module.name {
                    uses.insert(target);
                }
            }
        }
    }
    (graph, lines)
}

/// The module a path names, if it names one of the crate's.
fn resolve(
    here: &[String],
    path: &[String],
    names: &BTreeSet<String>,
    reexports: &BTreeMap<(String, String), Vec<String>>,
    depth: usize,
) -> Option<String> {
    let mut full: Vec<String> = match path.first().map(String::as_str) {
        Some("crate") => path[1..].to_vec(),
        Some("super") => {
            let mut base = here.to_vec();
            let mut rest = path;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            base.extend_from_slice(rest);
            base
        }
        Some("self") => [here, &path[1..]].concat(),
        Some(_) => {
            // A child module of this one (`find::Find` in `query`).
            let child = [here, &path[..1]].concat().join("::");
            if names.contains(&child) {
                [here, path].concat()
            } else {
                return None;
            }
        }
        None => return None,
    };
    // The longest prefix that is a module, then a re-export it holds.
    while !full.is_empty() {
        for take in (1..=full.len()).rev() {
            let name = full[..take].join("::");
            if names.contains(&name) {
                if take < full.len() && depth < 8 {
                    if let Some(to) = reexports.get(&(name.clone(), full[take].clone())) {
                        let mut next = to.clone();
                        next.extend_from_slice(&full[take + 1..]);
                        let module: Vec<String> = name.split("::").map(str::to_owned).collect();
                        return resolve(
                            &module,
                            &[&["crate".to_owned()][..], &next].concat(),
                            names,
                            reexports,
                            depth + 1,
                        )
                        .or(Some(name));
                    }
                }
                return Some(name);
            }
        }
        // A name the crate root re-exports (`crate::Repo`).
        if let Some(to) = reexports.get(&("lib".to_owned(), full[0].clone())) {
            if depth < 8 {
                let mut next = to.clone();
                next.extend_from_slice(&full[1..]);
                return resolve(
                    &[],
                    &[&["crate".to_owned()][..], &next].concat(),
                    names,
                    reexports,
                    depth + 1,
                );
            }
        }
        full.clear();
    }
    None
}

fn reaches(graph: &Graph, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut pending = vec![from];
    while let Some(module) = pending.pop() {
        if seen.insert(module) {
            for next in &graph[module] {
                if next == to {
                    return true;
                }
                pending.push(next);
            }
        }
    }
    false
}

/// The modules on a circle, grouped: two modules share a group when each
/// reaches the other.
fn circles(graph: &Graph) -> Vec<Vec<String>> {
    let mut groups: Vec<Vec<String>> = Vec::new();
    for module in graph.keys() {
        if groups.iter().any(|g| g.contains(module)) || !reaches(graph, module, module) {
            continue;
        }
        groups.push(
            graph
                .keys()
                .filter(|other| {
                    *other == module
                        || (reaches(graph, module, other) && reaches(graph, other, module))
                })
                .cloned()
                .collect(),
        );
    }
    groups
}

/// The top folder of a module (`model` for `model::validator::depth`).
fn top(module: &str) -> &str {
    module.split("::").next().unwrap_or(module)
}

fn src(krate: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(krate)
        .join("src")
}

fn print(krate: &str, graph: &Graph, lines: &BTreeMap<String, usize>) {
    let arrows: usize = graph.values().map(BTreeSet::len).sum();
    let folders: BTreeSet<(&str, &str)> = graph
        .iter()
        .flat_map(|(m, uses)| uses.iter().map(move |u| (top(m), top(u))))
        .filter(|(a, b)| a != b)
        .collect();
    let rooms: BTreeSet<&str> = graph.keys().map(|m| top(m)).collect();
    println!(
        "{krate}: {} modules, {arrows} arrows; {} top folders, {} arrows between them",
        graph.len(),
        rooms.len(),
        folders.len()
    );
    for (module, uses) in graph {
        let uses: Vec<&str> = uses.iter().map(String::as_str).collect();
        println!("  {module} ({} lines): {}", lines[module], uses.join(" "));
    }
}

#[test]
fn core_folders_use_only_the_layers_below_them() {
    let (graph, lines) = graph(&src("schema-core"));
    print("schema-core", &graph, &lines);
    let rank = |module: &str| CORE_LAYERS.iter().position(|l| *l == top(module));
    let mut up = Vec::new();
    for (module, uses) in &graph {
        if module == "lib" {
            continue;
        }
        let from =
            rank(module).unwrap_or_else(|| panic!("`{module}` is in no layer of CORE_LAYERS"));
        for used in uses {
            let to = rank(used).unwrap_or(usize::MAX);
            if top(used) != top(module) && to > from {
                up.push(format!("{module} -> {used}"));
            }
        }
    }
    assert!(up.is_empty(), "imports that run up a layer: {up:#?}");
    // The reader sees through paths, groups and re-exports.
    assert!(graph["relation::many_to_many"].contains("txn"));
    assert!(graph["write"].iter().any(|m| m.starts_with("model")));
}

#[test]
fn no_module_reaches_itself() {
    for krate in ["schema-core", "schema-derive"] {
        let (graph, _) = graph(&src(krate));
        let circles = circles(&graph);
        assert!(
            circles.is_empty(),
            "{krate}: modules that use each other: {circles:?}"
        );
    }
}

#[test]
fn no_file_is_longer_than_the_limit() {
    for krate in ["schema-core", "schema-derive"] {
        let (graph, lines) = graph(&src(krate));
        if krate == "schema-derive" {
            print(krate, &graph, &lines);
        }
        let long: Vec<String> = lines
            .iter()
            .filter(|(m, n)| {
                **n > MAX_LINES && !KNOWN_LONG.contains(&format!("{krate}/{m}").as_str())
            })
            .map(|(m, n)| format!("{krate}/{m} ({n} lines)"))
            .collect();
        assert!(
            long.is_empty(),
            "files over {MAX_LINES} lines of code: {long:#?}"
        );
    }
}
