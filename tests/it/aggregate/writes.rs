//! A pipeline's rows written into a model's collection (`merge_into`,
//! `out`) when the row type is that model, read back through the model's
//! own `Repo`; and pipelines on a versioned model, sent only once no
//! document of an earlier version is stored.

use super::seeds::{orders, raw};
use crate::example_models::orders::Order;
use crate::support;

use bson::oid::ObjectId;
use bson::{doc, Document as BsonDocument};
use futures_util::TryStreamExt;
use schema_core::prelude::*;
use schema_core::Schema;
use serde::{Deserialize, Serialize};

/// Revenue per product, kept in its own collection: a model and a row.
#[derive(Document, Row, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "product_revenue")]
#[row(of = Order)]
struct ProductRevenue {
    #[serde(rename = "_id")]
    #[group(key = items.product_id)]
    id: ObjectId,
    #[group(sum = items.qty * items.unit_price)]
    revenue: f64,
    #[group(sum = items.qty)]
    units: i64,
    #[embed(max = 5)]
    #[group(top = items.qty, by(items.qty = desc), max = 5)]
    largest_lines: Vec<i32>,
}

fn revenue_by_hand() -> Vec<BsonDocument> {
    vec![
        doc! { "$unwind": "$items" },
        doc! { "$group": {
            "_id": "$items.product_id",
            "revenue": { "$sum": { "$multiply": ["$items.qty", "$items.unit_price"] } },
            "units": { "$sum": "$items.qty" },
            "largest_lines": { "$topN": { "n": 5, "sortBy": { "items.qty": -1 }, "output": "$items.qty" } },
        } },
        doc! { "$sort": { "_id": 1 } },
    ]
}

async fn stored(repo: &Repo<ProductRevenue>) -> Vec<ProductRevenue> {
    repo.find(
        ProductRevenue::FIELDS
            .id
            .gte(&ObjectId::from_bytes([0; 12])),
    )
    .sort(ProductRevenue::FIELDS.id.asc())
    .await
    .unwrap()
    .try_collect()
    .await
    .unwrap()
}

#[tokio::test]
async fn rows_merged_into_their_model_equal_the_raw_pipeline_and_read_back() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "agg_merge").await;
    let schema = Schema::new().with::<Order>().with::<ProductRevenue>();
    schema.sync(&db).await.unwrap();
    let repo = Repo::<Order>::new(&db);
    repo.insert_many(&orders()).await.unwrap();
    let target = Repo::<ProductRevenue>::new(&db);

    // A row of an earlier run, which the merge replaces.
    let stale = ProductRevenue {
        id: super::seeds::product_ids()[0],
        revenue: -1.0,
        units: -1,
        largest_lines: vec![],
    };
    target.insert(&stale).await.unwrap();
    let merge = || {
        repo.aggregate()
            .scan()
            .unwind(Order::FIELDS.items)
            .group::<ProductRevenue>()
    };
    merge().merge_into::<ProductRevenue>().await.unwrap();
    let by_hand: Vec<ProductRevenue> = raw(&db, "orders", revenue_by_hand()).await;
    assert_eq!(stored(&target).await, by_hand);
    assert!(by_hand.iter().all(|r| r.revenue > 0.0));
    // Run again: the same rows, none doubled.
    merge().merge_into::<ProductRevenue>().await.unwrap();
    assert_eq!(stored(&target).await, by_hand);

    // `$out` replaces the collection; its declared indexes stay.
    target
        .insert(&ProductRevenue {
            id: ObjectId::new(),
            ..stale.clone()
        })
        .await
        .unwrap();
    merge().out::<ProductRevenue>().await.unwrap();
    assert_eq!(stored(&target).await, by_hand);
    let plan = schema.plan(&db).await.unwrap();
    assert!(plan.is_empty(), "{plan}");
}

#[tokio::test]
async fn a_row_that_breaks_its_models_validator_is_refused_by_the_server() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "agg_merge_refused").await;
    Schema::new()
        .with::<Order>()
        .with::<ProductRevenue>()
        .sync(&db)
        .await
        .unwrap();
    // An order line whose quantity an old application stored as a double,
    // past the validator: the group sums it into a double and `$topN`
    // keeps it, and the validator of `product_revenue` refuses the row.
    db.collection::<BsonDocument>("orders")
        .insert_one(doc! {
            "_id": ObjectId::new(), "order_number": "X", "status": "paid",
            "customer": { "name": "x", "email": "x@example.com",
                "shipping_address": { "street": "s", "city": "c", "country": "TH" } },
            "items": [ { "product_id": ObjectId::new(), "qty": 2.5, "unit_price": 1.0 } ],
            "total": 3.0, "created_at": bson::DateTime::now(),
        })
        .bypass_document_validation(true)
        .await
        .unwrap();
    let err = Repo::<Order>::new(&db)
        .aggregate()
        .scan()
        .unwind(Order::FIELDS.items)
        .group::<ProductRevenue>()
        .merge_into::<ProductRevenue>()
        .await
        .unwrap_err();
    let msg = err.to_string();
    println!("{msg}");
    assert!(
        matches!(err, schema_core::Error::ValidationFailed { .. }),
        "{msg}"
    );
    assert!(msg.contains("the `product_revenue` document"), "{msg}");
    let written = db
        .collection::<BsonDocument>("product_revenue")
        .count_documents(doc! {})
        .await
        .unwrap();
    assert_eq!(written, 0);
}
