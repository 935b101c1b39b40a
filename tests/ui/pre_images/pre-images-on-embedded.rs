// Pre-images are an option of a collection: a sub-document has none.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
#[document(pre_images)]
struct Address {
    city: String,
}

fn main() {}
