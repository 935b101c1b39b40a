use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// A `.` in a stored key is read by the server as a step into a sub-document,
// a leading `$` as an operator: a push, a filter or an index on the key
// would address another field. Every such key is refused, wherever serde
// writes it: a field, a tag or content key, an externally tagged variant.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    #[serde(rename = "tag.list")]
    #[embed(max = 3)]
    tags: Vec<String>,
    #[serde(rename = "$score")]
    score: i32,
}

#[derive(Embedded, Serialize, Deserialize)]
#[serde(tag = "k.ind", content = "$c")]
enum Adjacent {
    A(i32),
}

#[derive(Embedded, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum External {
    #[serde(rename = "x.y")]
    Dotted(i32),
    // A unit variant is stored as a string value, not a key: allowed.
    #[serde(rename = "a.b")]
    Unit,
    Fine {
        #[serde(rename = "")]
        empty: i32,
    },
}

fn main() {}
