// A field with `#[serde(with)]` stores what its serializer writes, not what
// its type's own `Serialize` would: a typed value (serialized as the type)
// could silently match nothing, so the field takes none.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "accounts")]
struct Account {
    #[serde(rename = "_id")]
    id: String,
    #[serde(with = "bson::serde_helpers::object_id::FromHexString")]
    owner: String,
}

fn main() {
    let _ok = Account::FIELDS.owner.exists(true);
    let _ = Account::FIELDS.owner.eq(&"65f1c0ffee65f1c0ffee65f1".to_owned());
}
