// An index names a variant's field by its Rust path: a name no variant has
// is refused.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Kind {
    Dish { serves: i32 },
    Drink { glass: String, #[serde(rename = "abv")] strength: f64 },
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "recipes", index(keys(kind.colour = asc)))]
struct Recipe {
    #[serde(rename = "_id")]
    id: String,
    kind: Kind,
}

fn main() {}
