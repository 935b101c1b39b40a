//! A group over an earlier group's rows (seed 001: each customer's three
//! products with the most spent on them), and a time series grouped by
//! its time field at its declared granularity (readings per device per
//! hour), each against the same pipeline sent raw.

use super::seeds::{orders, raw};
use crate::example_models::orders::Order;
use crate::support;

use bson::oid::ObjectId;
use bson::{doc, DateTime};
use schema_core::prelude::*;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

/// What each customer spent on each product.
#[derive(Row, Deserialize, Debug, PartialEq)]
#[row(of = Order)]
struct Spend {
    #[group(key = customer.email)]
    email: String,
    #[group(key = items.product_id)]
    product_id: ObjectId,
    #[group(sum = items.qty * items.unit_price)]
    spent: f64,
}

/// Each customer's three products with the most spent on them: a group of
/// the `Spend` rows.
#[derive(Row, Deserialize, Debug, PartialEq)]
#[row(of = Rows<Spend>)]
struct TopThree {
    #[group(key = email)]
    email: String,
    #[group(top = product_id, by(spent = desc, product_id = asc), max = 3)]
    products: Vec<ObjectId>,
    #[group(sum = spent)]
    spent: f64,
    #[group(count)]
    bought: i64,
}

#[tokio::test]
async fn the_top_three_products_per_customer_by_spend_match_a_raw_pipeline() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "agg_top3").await;
    Schema::new().with::<Order>().sync(&db).await.unwrap();
    let repo = Repo::<Order>::new(&db);
    repo.insert_many(&orders()).await.unwrap();

    let typed: Vec<TopThree> = repo
        .aggregate()
        .scan() // every order, on purpose
        .unwind(Order::FIELDS.items)
        .group::<Spend>()
        .filter(Spend::FIELDS.spent.gt(&0.0))
        .group::<TopThree>()
        .sort(TopThree::FIELDS.email.asc())
        .all()
        .await
        .unwrap();
    let by_hand: Vec<TopThree> = raw(
        &db,
        "orders",
        vec![
            doc! { "$unwind": "$items" },
            doc! { "$group": {
                "_id": { "email": "$customer.email", "product_id": "$items.product_id" },
                "spent": { "$sum": { "$multiply": ["$items.qty", "$items.unit_price"] } },
            } },
            doc! { "$match": { "spent": { "$gt": 0.0 } } },
            doc! { "$group": {
                "_id": "$_id.email",
                "products": { "$topN": {
                    "n": 3,
                    "sortBy": { "spent": -1, "_id.product_id": 1 },
                    "output": "$_id.product_id",
                } },
                "spent": { "$sum": "$spent" },
                "bought": { "$sum": 1 },
            } },
            doc! { "$project": { "_id": 0, "email": "$_id", "products": 1, "spent": 1, "bought": 1 } },
            doc! { "$sort": { "email": 1 } },
        ],
    )
    .await;
    assert_eq!(typed, by_hand);
    assert_eq!(typed.len(), 5);

    // Checked against the orders themselves, in Rust.
    for row in &typed {
        let mut spent: Vec<(ObjectId, f64)> = Vec::new();
        for order in orders().iter().filter(|o| o.customer.email == row.email) {
            for line in &order.items {
                let value = f64::from(line.qty) * line.unit_price;
                match spent.iter_mut().find(|(p, _)| *p == line.product_id) {
                    Some((_, s)) => *s += value,
                    None => spent.push((line.product_id, value)),
                }
            }
        }
        spent.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let top: Vec<ObjectId> = spent.iter().take(3).map(|(p, _)| *p).collect();
        assert_eq!(row.products, top, "{}", row.email);
        assert_eq!(row.bought, spent.len() as i64);
    }
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(
    collection = "device_readings",
    timeseries(time = at, meta = device, granularity = "hours")
)]
struct DeviceReading {
    #[serde(rename = "_id")]
    id: ObjectId,
    device: String,
    at: DateTime,
    watts: f64,
}

/// Readings per device per hour: the time truncated to the granularity
/// the time series declares (`trunc` with no unit).
#[derive(Row, Deserialize, Debug, PartialEq)]
#[row(of = DeviceReading)]
struct Hourly {
    #[group(key = device)]
    device: String,
    #[group(key = at, trunc)]
    hour: DateTime,
    #[group(count)]
    readings: i64,
    #[group(avg = watts)]
    watts: f64,
    #[group(max = watts)]
    peak: f64,
}

/// The same truncation on a plain model, which declares no granularity.
#[allow(dead_code)]
#[derive(Row, Deserialize, Debug)]
#[row(of = Order)]
struct OrdersPerPeriod {
    #[group(key = created_at, trunc)]
    period: DateTime,
    #[group(count)]
    orders: i64,
}

#[tokio::test]
async fn readings_per_device_per_hour_at_the_declared_granularity_match_a_raw_pipeline() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "agg_hourly").await;
    Schema::new()
        .with::<DeviceReading>()
        .sync(&db)
        .await
        .unwrap();
    let repo = Repo::<DeviceReading>::new(&db);
    let start = 1_796_000_000_000i64;
    let readings: Vec<DeviceReading> = (0..600i64)
        .map(|i| DeviceReading {
            id: ObjectId::new(),
            device: format!("d{}", i % 3),
            at: DateTime::from_millis(start + i * 7 * 60_000),
            watts: 100.0 + (i % 17) as f64,
        })
        .collect();
    repo.insert_many(&readings).await.unwrap();

    let device = "d1".to_owned();
    let typed: Vec<Hourly> = repo
        .aggregate()
        .filter(DeviceReading::FIELDS.device.eq(&device))
        .group::<Hourly>()
        .sort(Hourly::FIELDS.hour.asc())
        .all()
        .await
        .unwrap();
    let by_hand: Vec<Hourly> = raw(
        &db,
        "device_readings",
        vec![
            doc! { "$match": { "device": "d1" } },
            doc! { "$group": {
                "_id": {
                    "device": "$device",
                    "hour": { "$dateTrunc": { "date": "$at", "unit": "hour" } },
                },
                "readings": { "$sum": 1 },
                "watts": { "$avg": "$watts" },
                "peak": { "$max": "$watts" },
            } },
            doc! { "$project": { "_id": 0, "device": "$_id.device", "hour": "$_id.hour", "readings": 1, "watts": 1, "peak": 1 } },
            doc! { "$sort": { "hour": 1 } },
        ],
    )
    .await;
    assert_eq!(typed, by_hand);
    assert_eq!(typed.iter().map(|r| r.readings).sum::<i64>(), 200);
    assert!(typed
        .iter()
        .all(|r| r.hour.timestamp_millis() % 3_600_000 == 0));

    // On the server's meta-and-time index.
    let plan = repo
        .aggregate()
        .filter(DeviceReading::FIELDS.device.eq(&device))
        .group::<Hourly>()
        .explain()
        .await
        .unwrap();
    println!("hourly: {plan}");
    assert!(!plan.is_collscan(), "{plan}");

    // `trunc` with no unit on a model that is no time series: refused
    // before sending, the field named.
    let orders = Repo::<Order>::new(&db);
    log.clear();
    let err = orders
        .aggregate()
        .scan()
        .group::<OrdersPerPeriod>()
        .all()
        .await
        .unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::AggregateRefused { .. }), "{msg}");
    assert!(
        msg.contains("`period` truncates `created_at` to the declared granularity, and only a time series declares one"),
        "{msg}"
    );
    assert_eq!(log.operations(), Vec::<String>::new(), "nothing sent");
}
