use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts",
    index(keys(status = asc), partial(status(exist = true))))]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    status: String,
}

fn main() {}
