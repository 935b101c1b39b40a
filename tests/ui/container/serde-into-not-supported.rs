use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// Serde stores the `Vec<String>`, not `{a: ...}`: the validator would refuse
// every insert (code 121) and the bound rule would check the wrong type.
#[derive(Embedded, Serialize, Deserialize, Clone)]
#[serde(into = "Vec<String>", from = "Vec<String>")]
struct Csv {
    a: String,
}

impl From<Csv> for Vec<String> {
    fn from(csv: Csv) -> Self {
        csv.a.split(',').map(str::to_owned).collect()
    }
}

impl From<Vec<String>> for Csv {
    fn from(parts: Vec<String>) -> Self {
        Csv { a: parts.join(",") }
    }
}

#[derive(Document, Serialize, Deserialize, Clone)]
#[serde(into = "Csv", from = "Csv")]
#[document(collection = "rows")]
struct Row {
    #[serde(rename = "_id")]
    id: String,
}

impl From<Row> for Csv {
    fn from(row: Row) -> Self {
        Csv { a: row.id }
    }
}

impl From<Csv> for Row {
    fn from(csv: Csv) -> Self {
        Row { id: csv.a }
    }
}

fn main() {}
