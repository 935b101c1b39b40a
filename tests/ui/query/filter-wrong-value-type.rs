// A filter compares a field with a value of the field's type (or `T` for an
// `Option<T>` field): any other type does not compile, at every level.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
struct Profile {
    name: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "users")]
struct User {
    #[serde(rename = "_id")]
    id: String,
    age: i32,
    nick: Option<String>,
    profile: Profile,
}

fn main() {
    let f = User::FIELDS;
    let _ = f.age.eq("thirty");
    let _ = f.nick.gt(&3_i64);
    let _ = f.profile.name.is_in([&1_u8]);
}
