// A variant's field, or the tag, takes no typed update: on a document of
// another variant it would store a field that variant does not have. The
// whole enum field takes one; a variant's bounded array takes no push either.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Kind {
    Dish { serves: i32 },
    Drink {
        glass: String,
        #[serde(rename = "abv")]
        strength: f64,
        #[embed(max = 3)]
        garnishes: Vec<String>,
    },
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "recipes")]
struct Recipe {
    #[serde(rename = "_id")]
    id: String,
    kind: Kind,
}

fn main() {
    let f = Recipe::FIELDS;
    let _ok = f.kind.set(&Kind::Dish { serves: 2 });
    let _ = f.kind.glass.set("flute");
    let _ = f.kind.serves.inc(&1);
    let _ = f.kind.tag().set("dish");
    let _ = f.kind.garnishes.push(&"lime".to_owned());
}
