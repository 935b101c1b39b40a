use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// Stored as a string: there is no object for `open` to open.
#[derive(Embedded, Serialize, Deserialize)]
#[document(open)]
struct Email(String);

// Stored as a name.
#[derive(Embedded, Serialize, Deserialize)]
#[document(open)]
enum Status {
    Draft,
    Live,
}

// Stored as objects: `open` applies, no error.
#[derive(Embedded, Serialize, Deserialize)]
#[document(open)]
enum Shape {
    Empty,
    Circle { r: f64 },
}

fn main() {}
