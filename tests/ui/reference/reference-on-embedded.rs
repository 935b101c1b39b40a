use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
struct LineItem {
    #[reference(index)]
    product_id: String,
    quantity: i32,
}

fn main() {}
