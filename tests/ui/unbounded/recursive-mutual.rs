// Two sub-documents that hold each other: neither names itself, the walk
// through their fields finds the cycle.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
struct Folder {
    name: String,
    #[embed(max = 10)]
    files: Vec<File>,
}

#[derive(Embedded, Serialize, Deserialize)]
struct File {
    name: String,
    attachment: Option<Box<Folder>>,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "drives")]
struct Drive {
    #[serde(rename = "_id")]
    id: String,
    root: Folder,
}

fn main() {}
