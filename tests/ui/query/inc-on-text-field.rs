// `inc` and `mul` apply to numeric fields, with a number of the field's type.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "users")]
struct User {
    #[serde(rename = "_id")]
    id: String,
    name: String,
    age: i32,
}

fn main() {
    let _ok = User::FIELDS.age.inc(&1);
    let _ = User::FIELDS.name.inc(&"x".to_owned());
    let _ = User::FIELDS.age.mul(&1.5);
}
