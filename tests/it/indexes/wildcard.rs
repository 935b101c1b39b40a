//! Wildcard indexes (`#[document(index(keys("attrs.$**" = asc)))]`): setup
//! creates the index and finds nothing to do the second time, and the index
//! guard does not count on it: a query on a field under it is refused
//! unless another index serves it, as the test server's planner agrees
//! (it never plans a wildcard index: explain shows a collection scan). On
//! mongod a wildcard index does serve a one-field query; the guard stays
//! on the safe side of both.

use crate::support;

use std::collections::BTreeMap;

use bson::doc;
use schema_core::prelude::*;
use schema_core::{Error, Filter, Schema};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "products", index(keys("attrs.$**" = asc)))]
struct Product {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 20)]
    attrs: BTreeMap<String, String>,
}

#[tokio::test]
async fn a_wildcard_index_is_synced_and_not_counted_on() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "wildcard_indexes").await;
    let schema = Schema::new().with::<Product>();
    assert_eq!(Product::indexes()[0].name, "attrs.$**_1");
    schema.sync(&db).await.unwrap();
    let listed = support::listed_index(&db, "products", "attrs.$**_1")
        .await
        .expect("the wildcard index listed");
    assert_eq!(
        listed.get_document("key").unwrap(),
        &doc! { "attrs.$**": 1 }
    );
    let plan = schema.plan(&db).await.unwrap();
    assert!(plan.is_empty(), "in sync the second time: {plan}");
    assert!(schema.sync(&db).await.unwrap().applied.is_empty());

    let products = Repo::<Product>::new(&db);
    let attrs = BTreeMap::from([("color".to_owned(), "red".to_owned())]);
    products
        .insert(&Product {
            id: "p1".into(),
            attrs,
        })
        .await
        .unwrap();
    log.clear();
    let red = doc! { "attrs.color": "red" };
    let err = products
        .find(Filter::from(red.clone()))
        .all()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Unindexed { .. }), "{err}");
    assert!(log.take().is_empty(), "nothing sent");
    let plan = products
        .find(Filter::from(red))
        .scan()
        .explain()
        .await
        .unwrap();
    assert!(plan.is_collscan(), "the test server scans: {plan}");
}
