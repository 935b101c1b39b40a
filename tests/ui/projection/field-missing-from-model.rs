// Every field of a projection is a field of the model it views: a view
// naming a field the model lacks does not compile, spanned on that field.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    title: String,
}

#[derive(Projection, Deserialize)]
#[projection(of = Post)]
struct Headline {
    title: String,
    subtitle: String,
}

fn main() {}
