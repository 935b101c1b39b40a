// A projection names the model it views, and nothing else.
use schema_core::prelude::*;
use serde::Deserialize;

#[derive(Projection, Deserialize)]
struct Loose {
    title: String,
}

#[derive(Projection, Deserialize)]
#[projection(model = Post)]
struct Misspelt {
    title: String,
}

fn main() {}
