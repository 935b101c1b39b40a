//! What a user copies compiles in a crate that depends on `schema-core`
//! (and serde) alone: the examples, and the Rust snippets of the walkthrough,
//! name `bson` and `mongodb` through `schema_core::bson` and
//! `schema_core::mongodb`, never as crates of their own. (The examples'
//! models are also compiled in such a crate: `schema-bson3-check`.)

use std::path::{Path, PathBuf};

/// The `bson::` and `mongodb::` paths of `text` that do not go through
/// `schema_core::` (`schema_core::bson::oid`, `schema_core::mongodb::bson`
/// are fine), as `line: text`.
fn bare_paths(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for krate in ["bson::", "mongodb::"] {
            for (at, _) in line.match_indices(krate) {
                let before = &line[..at];
                let through = before.ends_with("schema_core::") || before.ends_with("mongodb::");
                // `my_bson::`, or a module of some path (`x::bson::`); a
                // leading `::bson::` is the crate.
                let in_a_name = match before.strip_suffix("::") {
                    Some(path) => path
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_'),
                    None => before
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_'),
                };
                if !through && !in_a_name {
                    found.push(format!("{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The Rust code blocks of a Markdown file.
fn rust_blocks(markdown: &str) -> String {
    let mut code = String::new();
    let mut in_rust = None;
    for line in markdown.lines() {
        if let Some(lang) = line.trim_start().strip_prefix("```") {
            in_rust = match in_rust {
                None => Some(lang.starts_with("rust")),
                Some(_) => None,
            };
            code.push('\n');
        } else if in_rust == Some(true) {
            code.push_str(line);
            code.push('\n');
        } else {
            code.push('\n');
        }
    }
    code
}

#[test]
fn examples_name_bson_and_mongodb_through_schema_core() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("examples"), &mut files);
    assert!(files.len() > 10, "the examples were not found: {files:?}");
    let mut bare = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for hit in bare_paths(&text) {
            bare.push(format!(
                "{}:{hit}",
                file.strip_prefix(root).unwrap().display()
            ));
        }
    }
    let walkthrough = std::fs::read_to_string(root.join("docs/walkthrough.md")).unwrap();
    for hit in bare_paths(&rust_blocks(&walkthrough)) {
        bare.push(format!("docs/walkthrough.md:{hit}"));
    }
    assert!(
        bare.is_empty(),
        "name them `schema_core::bson::...` / `schema_core::mongodb::...`: a user's crate may have no `bson` or `mongodb` of its own:\n{}",
        bare.join("\n")
    );
}

#[test]
fn the_scan_sees_bare_paths() {
    assert_eq!(
        bare_paths(
            "use bson::oid::ObjectId;\n    at: bson::DateTime,\nlet c: mongodb::Client;\nlet d = ::bson::doc! {};"
        ),
        [
            "1: use bson::oid::ObjectId;",
            "2: at: bson::DateTime,",
            "3: let c: mongodb::Client;",
            "4: let d = ::bson::doc! {};"
        ]
    );
    assert!(bare_paths(
        "use schema_core::bson::doc;\nschema_core::mongodb::bson::Document\nmy_bson::x\nraw_bson::y"
    )
    .is_empty());
    assert_eq!(
        rust_blocks("text bson::x\n```rust\nbson::y\n```\n").trim(),
        "bson::y"
    );
}
