// A pipeline writes only into the model its row type is: `merge_into` of
// `Revenue` rows into `Order`'s collection does not compile, and the
// message names the row type to write.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "orders", index(keys(customer_id = asc)))]
struct Order {
    #[serde(rename = "_id")]
    id: String,
    customer_id: String,
    total: f64,
}

#[derive(Document, Row, Serialize, Deserialize)]
#[document(collection = "revenue")]
#[row(of = Order)]
struct Revenue {
    #[serde(rename = "_id")]
    #[group(key = customer_id)]
    id: String,
    #[group(sum = total)]
    total: f64,
}

async fn write(repo: &Repo<Order>) -> schema_core::Result<()> {
    repo.aggregate()
        .scan()
        .group::<Revenue>()
        .merge_into::<Order>()
        .await
}

fn main() {
    let _ = write;
}
