// An enum variant's field is not encrypted on its own: the document encrypts the whole value.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
enum Contact {
    Phone {
        #[encrypt(random)]
        number: String,
    },
    Email(String),
}

fn main() {}
