// An expression tree: every variant that holds an `Expr` makes it recursive.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
#[serde(tag = "op")]
enum Expr {
    Num { value: f64 },
    Add { left: Box<Expr>, right: Box<Expr> },
}

fn main() {}
