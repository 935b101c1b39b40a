use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
#[document(shard_key(room_id))]
struct Line {
    room_id: String,
}

fn main() {}
