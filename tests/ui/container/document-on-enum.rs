use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "shapes")]
enum Shape {
    Circle { radius: f64 },
    Square { side: f64 },
}

fn main() {}
