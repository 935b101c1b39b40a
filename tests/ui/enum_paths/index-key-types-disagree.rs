// Two variants declare `size` with different types: no path serves both
// (a value of one type would silently match nothing in the other), so an
// index naming it is refused with what the variants hold.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Kind {
    Dish { serves: i32, size: i32 },
    Drink { glass: String, size: String },
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "recipes", index(keys(kind.serves = asc)), index(keys(kind.size = asc)))]
struct Recipe {
    #[serde(rename = "_id")]
    id: String,
    kind: Kind,
}

fn main() {
    let _ok = Recipe::FIELDS.kind.serves.eq(&2);
}
