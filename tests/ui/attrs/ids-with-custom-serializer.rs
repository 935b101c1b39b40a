use bson::oid::ObjectId;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "users")]
struct User {
    // Stored as a hex string: `get(&id)` looks for an ObjectId and finds nothing.
    #[serde(
        rename = "_id",
        serialize_with = "bson::serde_helpers::object_id::AsHexString::serialize"
    )]
    id: ObjectId,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "courses")]
struct Course {
    #[serde(rename = "_id")]
    id: ObjectId,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    // Stored as a hex string: `parents_of` looks for an ObjectId.
    #[serde(serialize_with = "bson::serde_helpers::object_id::AsHexString::serialize")]
    #[reference(index, to = Course)]
    course: ObjectId,
    #[serde(with = "ids_as_strings")]
    #[many_to_many(one_sided, to = Course, max = 5)]
    courses: Vec<ObjectId>,
    // Reading another form is fine: what is stored is still an ObjectId.
    #[serde(deserialize_with = "ObjectId::deserialize")]
    #[reference(index, to = Course)]
    other: ObjectId,
}

mod ids_as_strings {
    use bson::oid::ObjectId;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(ids: &[ObjectId], s: S) -> Result<S::Ok, S::Error> {
        let hex: Vec<String> = ids.iter().map(|id| id.to_hex()).collect();
        hex.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<ObjectId>, D::Error> {
        Vec::<ObjectId>::deserialize(d)
    }
}

fn main() {}
