// A tagged enum's paths are its variants' fields: a name no variant has is
// no path. The compiler's own message lists the paths there are.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Kind {
    Dish { serves: i32 },
    Drink { glass: String, #[serde(rename = "abv")] strength: f64 },
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "recipes")]
struct Recipe {
    #[serde(rename = "_id")]
    id: String,
    kind: Kind,
}

fn main() {
    let _ok = Recipe::FIELDS.kind.glass.eq("coupe") & Recipe::FIELDS.kind.tag().eq("drink");
    let _ = Recipe::FIELDS.kind.colour.eq("red");
}
