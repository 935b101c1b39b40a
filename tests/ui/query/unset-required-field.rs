// `unset` removes a field, which only an `Option` field may lack: on a
// required field it does not exist.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "users")]
struct User {
    #[serde(rename = "_id")]
    id: String,
    name: String,
    nick: Option<String>,
}

fn main() {
    let _ok = User::FIELDS.nick.unset();
    let _ = User::FIELDS.name.unset();
}
