use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts\0")]
struct Post {
    #[serde(rename = "_id")]
    id: String,

}

fn main() {}
