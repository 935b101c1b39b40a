//! Seed 001's orders (revenue per product, top products per customer) and
//! seed 000's posts (posts per author, the newest titles of each), through
//! `Repo::aggregate` and through the raw driver.

use crate::example_models::blog::Post;
use crate::example_models::orders::{Address, Customer, LineItem, Order};
use crate::support;

use bson::oid::ObjectId;
use bson::{doc, Document as BsonDocument};
use futures_util::TryStreamExt;
use schema_core::prelude::*;
use schema_core::{Error, Schema};
use serde::Deserialize;

/// Revenue per product: every line item's `qty * unit_price`, summed.
#[derive(Row, Deserialize, Debug, PartialEq)]
#[row(of = Order)]
struct Revenue {
    #[group(key = items.product_id)]
    product_id: ObjectId,
    #[group(sum = items.qty * items.unit_price)]
    revenue: f64,
    #[group(sum = items.qty)]
    units: i64,
    #[group(count)]
    lines: i64,
}

/// Each customer's three largest line items by quantity: their products.
#[derive(Row, Deserialize, Debug, PartialEq)]
#[row(of = Order)]
struct TopProducts {
    #[group(key = customer.email)]
    email: String,
    #[group(top = items.product_id, by(items.qty = desc, items.product_id = asc), max = 3)]
    products: Vec<ObjectId>,
    #[group(max = items.qty)]
    largest: i32,
    #[group(avg = total)]
    average_order: f64,
}

/// Posts per author, with the newest five titles.
#[derive(Row, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[row(of = Post)]
struct ByAuthor {
    #[group(key = author_id)]
    author_id: String,
    #[group(count)]
    posts: i64,
    #[group(push = title, max = 5, bytes = 200)]
    newest_titles: Vec<String>,
    #[group(first = at)]
    latest: bson::DateTime,
}

/// The same titles chosen by a sort inside the group (`$topN`).
#[derive(Row, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[row(of = Post)]
struct NewestByAuthor {
    #[group(key = author_id)]
    author_id: String,
    #[group(top = title, by(at = desc), max = 5, bytes = 200)]
    newest_titles: Vec<String>,
}

/// A row whose dates could hold more than a document may (never read:
/// refused before sending).
#[allow(dead_code)]
#[derive(Row, Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
#[row(of = Post)]
struct EveryDate {
    #[group(key = author_id)]
    author_id: String,
    #[group(push = at, max = 2_000_000)]
    dates: Vec<bson::DateTime>,
}

pub(super) fn product_ids() -> Vec<ObjectId> {
    (0..6u8)
        .map(|i| ObjectId::from_bytes([i + 1; 12]))
        .collect()
}

pub(super) fn orders() -> Vec<Order> {
    let products = product_ids();
    (0..60u32)
        .map(|i| {
            let lines = 1 + (i % 4) as usize;
            let items: Vec<LineItem> = (0..lines)
                .map(|l| LineItem {
                    product_id: products[(i as usize * 7 + l * 3) % products.len()],
                    qty: 1 + ((i + l as u32 * 5) % 9) as i32,
                    unit_price: 2.5 * f64::from(1 + (i + l as u32) % 7),
                })
                .collect();
            let total = items.iter().map(|l| f64::from(l.qty) * l.unit_price).sum();
            Order {
                id: ObjectId::from_bytes({
                    let mut b = [0u8; 12];
                    b[8..].copy_from_slice(&i.to_be_bytes());
                    b
                }),
                order_number: format!("A-{i:04}"),
                status: "paid".to_owned(),
                customer: Customer {
                    name: format!("customer {}", i % 5),
                    email: format!("c{}@example.com", i % 5),
                    shipping_address: Address {
                        street: "1 Main St".to_owned(),
                        city: "Bangkok".to_owned(),
                        country: "TH".to_owned(),
                    },
                },
                items,
                total,
                created_at: bson::DateTime::from_millis(
                    1_700_000_000_000 + i64::from(i) * 3_600_000,
                ),
            }
        })
        .collect()
}

fn posts() -> Vec<Post> {
    (0..200i64)
        .map(|i| Post {
            id: format!("p{i:03}"),
            author_id: format!("u{}", i % 7),
            title: format!("title {i}"),
            tags: vec![],
            at: bson::DateTime::from_millis(1_700_000_000_000 + (i * 7_919) % 200 * 60_000),
        })
        .collect()
}

/// The rows of a raw pipeline, read as `T`.
pub(super) async fn raw<T: serde::de::DeserializeOwned>(
    db: &mongodb::Database,
    collection: &str,
    pipeline: Vec<BsonDocument>,
) -> Vec<T> {
    let docs: Vec<BsonDocument> = db
        .collection::<BsonDocument>(collection)
        .aggregate(pipeline)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    docs.into_iter()
        .map(|d| bson::deserialize_from_document(d).unwrap())
        .collect()
}

#[tokio::test]
async fn revenue_per_product_and_top_products_match_raw_pipelines() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "agg_orders").await;
    Schema::new().with::<Order>().sync(&db).await.unwrap();
    let repo = Repo::<Order>::new(&db);
    repo.insert_many(&orders()).await.unwrap();
    let f = Order::FIELDS;

    let typed: Vec<Revenue> = repo
        .aggregate()
        .scan() // every order, on purpose
        .unwind(f.items)
        .group::<Revenue>()
        .sort(Revenue::FIELDS.revenue.desc())
        .sort(Revenue::FIELDS.product_id.asc())
        .all()
        .await
        .unwrap();
    let by_hand: Vec<Revenue> = raw(
        &db,
        "orders",
        vec![
            doc! { "$unwind": "$items" },
            doc! { "$group": {
                "_id": "$items.product_id",
                "revenue": { "$sum": { "$multiply": ["$items.qty", "$items.unit_price"] } },
                "units": { "$sum": "$items.qty" },
                "lines": { "$sum": 1 },
            } },
            doc! { "$project": { "_id": 0, "product_id": "$_id", "revenue": 1, "units": 1, "lines": 1 } },
            doc! { "$sort": { "revenue": -1, "product_id": 1 } },
        ],
    )
    .await;
    assert_eq!(typed, by_hand);
    assert_eq!(typed.len(), product_ids().len());
    let total: f64 = orders().iter().map(|o| o.total).sum();
    let summed: f64 = typed.iter().map(|r| r.revenue).sum();
    assert!((total - summed).abs() < 1e-6, "{total} vs {summed}");

    let typed: Vec<TopProducts> = repo
        .aggregate()
        .scan()
        .unwind(f.items)
        .group::<TopProducts>()
        .sort(TopProducts::FIELDS.email.asc())
        .all()
        .await
        .unwrap();
    let by_hand: Vec<TopProducts> = raw(
        &db,
        "orders",
        vec![
            doc! { "$unwind": "$items" },
            doc! { "$group": {
                "_id": "$customer.email",
                "products": { "$topN": {
                    "n": 3,
                    "sortBy": { "items.qty": -1, "items.product_id": 1 },
                    "output": "$items.product_id",
                } },
                "largest": { "$max": "$items.qty" },
                "average_order": { "$avg": "$total" },
            } },
            doc! { "$project": { "_id": 0, "email": "$_id", "products": 1, "largest": 1, "average_order": 1 } },
            doc! { "$sort": { "email": 1 } },
        ],
    )
    .await;
    assert_eq!(typed, by_hand);
    assert_eq!(typed.len(), 5);
    assert!(typed.iter().all(|r| r.products.len() == 3));

    // A filter on the rows' own fields, and `count`.
    let big = repo
        .aggregate()
        .scan()
        .unwind(f.items)
        .group::<Revenue>()
        .filter(Revenue::FIELDS.units.gte(&40))
        .count()
        .await
        .unwrap();
    let expected = by_hand_units(&orders())
        .iter()
        .filter(|u| **u >= 40)
        .count();
    assert_eq!(big, expected as u64);
}

fn by_hand_units(orders: &[Order]) -> Vec<i64> {
    product_ids()
        .iter()
        .map(|p| {
            orders
                .iter()
                .flat_map(|o| &o.items)
                .filter(|l| l.product_id == *p)
                .map(|l| i64::from(l.qty))
                .sum()
        })
        .collect()
}

#[tokio::test]
async fn posts_per_author_ride_the_index_and_match_raw_pipelines() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "agg_posts").await;
    Schema::new().with::<Post>().sync(&db).await.unwrap();
    let repo = Repo::<Post>::new(&db);
    repo.insert_many(&posts()).await.unwrap();
    let f = Post::FIELDS;

    // Sorted on the index {authorId: 1, at: -1, _id: -1}: the first five
    // titles each author reaches the group with are the newest.
    let newest_first = || {
        repo.aggregate()
            .sort(f.author_id.asc())
            .sort(f.at.desc())
            .sort(f.id.desc())
    };
    let typed: Vec<ByAuthor> = newest_first()
        .group::<ByAuthor>()
        .sort(ByAuthor::FIELDS.latest.desc())
        .all()
        .await
        .unwrap();
    let by_hand: Vec<ByAuthor> = raw(
        &db,
        "posts",
        vec![
            doc! { "$sort": { "authorId": 1, "at": -1, "_id": -1 } },
            doc! { "$group": {
                "_id": "$authorId",
                "posts": { "$sum": 1 },
                "newestTitles": { "$firstN": { "input": "$title", "n": 5 } },
                "latest": { "$first": "$at" },
            } },
            doc! { "$project": { "_id": 0, "authorId": "$_id", "posts": 1, "newestTitles": 1, "latest": 1 } },
            doc! { "$sort": { "latest": -1 } },
        ],
    )
    .await;
    assert_eq!(typed, by_hand);
    assert_eq!(typed.len(), 7);
    assert_eq!(typed.iter().map(|r| r.posts).sum::<i64>(), 200);

    // The same titles by a sort inside the group, for one author on the index.
    let ada = "u3".to_owned();
    let topped: Vec<NewestByAuthor> = repo
        .aggregate()
        .filter(f.author_id.eq(&ada))
        .group::<NewestByAuthor>()
        .all()
        .await
        .unwrap();
    let of_ada = typed.iter().find(|r| r.author_id == ada).unwrap();
    assert_eq!(topped.len(), 1);
    assert_eq!(topped[0].newest_titles, of_ada.newest_titles);

    // An explain per guarded shape shows the index.
    let sorted = newest_first().group::<ByAuthor>().explain().await.unwrap();
    println!("sorted: {sorted}");
    assert!(
        sorted.shape().contains("IXSCAN(authorId_1_at_-1__id_-1)"),
        "{sorted}"
    );
    let matched = repo
        .aggregate()
        .filter(f.author_id.eq(&ada))
        .group::<NewestByAuthor>()
        .explain()
        .await
        .unwrap();
    println!("matched: {matched}");
    assert!(
        matched.shape().contains("IXSCAN(authorId_1_at_-1__id_-1)"),
        "{matched}"
    );
    assert!(!matched.is_collscan());

    // Refused by the guard with nothing sent: a leading match no index serves,
    // and a group with no leading stage at all.
    log.clear();
    let err = repo
        .aggregate()
        .filter(f.title.eq("title 3"))
        .group::<ByAuthor>()
        .all()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Unindexed { .. }), "{err}");
    assert!(
        err.to_string().contains(r#"index(keys("title" = asc))"#),
        "{err}"
    );
    let err = repo
        .aggregate()
        .group::<ByAuthor>()
        .all()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Unindexed { .. }), "{err}");
    let err = repo
        .aggregate()
        .sort(f.title.asc())
        .explain()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Unindexed { .. }), "{err}");
    assert_eq!(log.operations(), Vec::<String>::new(), "nothing sent");

    // A `$push` whose rows could pass 16 MiB: refused before sending, with
    // the arithmetic.
    let err = newest_first().group::<EveryDate>().all().await.unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::AggregateRefused { .. }), "{msg}");
    assert!(
        msg.contains("`dates`: 2000000 items of at most 8 bytes"),
        "{msg}"
    );
    assert!(msg.contains("over the 16777216 bytes"), "{msg}");
    assert_eq!(log.operations(), Vec::<String>::new(), "nothing sent");

    // The rows of a group are streamed as `find` streams documents.
    let mut stream = newest_first()
        .group::<ByAuthor>()
        .batch_size(2)
        .await
        .unwrap();
    let mut seen = 0;
    while let Some(row) = stream.try_next().await.unwrap() {
        assert!(row.newest_titles.len() <= 5);
        seen += 1;
    }
    assert_eq!(seen, 7);
}

#[tokio::test]
async fn a_path_through_an_array_not_unwound_is_refused_before_sending() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "agg_unwind").await;
    let repo = Repo::<Order>::new(&db);
    log.clear();
    let err = repo
        .aggregate()
        .scan()
        .group::<Revenue>()
        .all()
        .await
        .unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::AggregateRefused { .. }), "{msg}");
    assert!(msg.contains("through the array `items`: unwind"), "{msg}");
    assert_eq!(log.operations(), Vec::<String>::new(), "nothing sent");
}
