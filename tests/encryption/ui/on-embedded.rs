// A sub-document's own fields are not encrypted on their own: the parent encrypts it whole.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
struct Address {
    #[encrypt(random)]
    city: String,
}

fn main() {}