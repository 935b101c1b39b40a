//! Time-series models against the real server: setup creates the collection
//! as a time series with the model's options (and no validator, which the
//! server refuses there), a second sync finds nothing to do (the server's
//! own meta-and-time index is not drift), a plain collection of that name is
//! reported and left alone, queries on the meta and time ride the server's
//! own index, and the index guard refuses the rest.

use crate::support;

use bson::oid::ObjectId;
use bson::{doc, DateTime, Document as BsonDocument};
use schema_core::prelude::*;
use schema_core::{Error, Schema, Step};
use schema_core::{Granularity, TimeSeriesSpec};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(
    collection = "readings",
    timeseries(time = at, meta = sensor, granularity = "minutes", expire_after = 86400),
    index(keys(celsius = asc))
)]
struct Reading {
    #[serde(rename = "_id")]
    id: ObjectId,
    sensor: String,
    at: DateTime,
    celsius: f64,
}

fn reading(sensor: &str, minute: i64, celsius: f64) -> Reading {
    Reading {
        id: ObjectId::new(),
        sensor: sensor.to_owned(),
        at: DateTime::from_millis(1_796_000_000_000 + minute * 60_000),
        celsius,
    }
}

/// The server's `listCollections` entry of `name`.
async fn listed(db: &mongodb::Database, name: &str) -> BsonDocument {
    let reply = db
        .run_command(doc! { "listCollections": 1, "filter": { "name": name } })
        .await
        .unwrap();
    reply
        .get_document("cursor")
        .unwrap()
        .get_array("firstBatch")
        .unwrap()[0]
        .as_document()
        .unwrap()
        .clone()
}

#[tokio::test]
async fn setup_creates_a_time_series_and_a_second_sync_does_nothing() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "ts_setup").await;
    let schema = Schema::new().with::<Reading>();
    assert_eq!(
        Reading::TIMESERIES,
        Some(TimeSeriesSpec {
            time: "at",
            meta: Some("sensor"),
            granularity: Some(Granularity::Minutes),
            span_seconds: None,
            expire_after_seconds: Some(86400),
        })
    );
    let plan = schema.plan(&db).await.unwrap();
    println!("{plan}");
    assert!(
        matches!(&plan.steps[0], Step::CreateTimeSeries { collection, timeseries }
            if collection == "readings" && timeseries.meta == Some("sensor")),
        "{plan}"
    );
    assert!(plan.to_string().contains("no validator"), "{plan}");
    let report = schema.sync(&db).await.unwrap();
    assert_eq!(report.applied.len(), 2, "{report:?}"); // the collection, its index
    let entry = listed(&db, "readings").await;
    assert_eq!(entry.get_str("type").unwrap(), "timeseries", "{entry}");
    let options = entry.get_document("options").unwrap();
    let ts = options.get_document("timeseries").unwrap();
    assert_eq!(ts.get_str("timeField").unwrap(), "at");
    assert_eq!(ts.get_str("metaField").unwrap(), "sensor");
    assert_eq!(ts.get_str("granularity").unwrap(), "minutes");
    assert!(!options.contains_key("validator"), "{entry}");
    // Nothing to do the second time: its own meta-and-time index is no drift.
    let again = schema.plan(&db).await.unwrap();
    assert!(again.steps.is_empty(), "{again}");
    assert!(schema.sync(&db).await.unwrap().applied.is_empty());
}

#[tokio::test]
async fn a_plain_collection_of_that_name_is_reported_and_left_alone() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "ts_drift").await;
    db.create_collection("readings").await.unwrap();
    let schema = Schema::new().with::<Reading>();
    let plan = schema.plan(&db).await.unwrap();
    println!("{plan}");
    let drift = plan
        .steps
        .iter()
        .find(|a| matches!(a, Step::TimeSeriesDiffers { .. }))
        .expect("drift reported");
    assert!(drift.is_drift());
    assert_eq!(
        plan.steps.len(),
        1,
        "no index on a collection of another kind: {plan}"
    );
    let text = plan.to_string();
    assert!(
        text.contains("a plain collection") && text.contains("$out"),
        "{text}"
    );
    let report = schema.sync(&db).await.unwrap();
    assert!(
        report
            .left_alone
            .iter()
            .any(|a| matches!(a, Step::TimeSeriesDiffers { .. })),
        "{report:?}"
    );
    assert_eq!(
        listed(&db, "readings").await.get_str("type").unwrap(),
        "collection",
        "not converted"
    );

    // A time series with other options: drift too.
    let other = support::fresh_db(&client, "ts_drift_options").await;
    other
        .run_command(doc! {
            "create": "readings",
            "timeseries": { "timeField": "at", "metaField": "sensor", "granularity": "hours" },
            "expireAfterSeconds": 86400,
        })
        .await
        .unwrap();
    let plan = schema.plan(&other).await.unwrap();
    assert!(
        plan.steps
            .iter()
            .any(|a| matches!(a, Step::TimeSeriesDiffers { server, .. } if server.contains("granularity hours"))),
        "{plan}"
    );
}

#[tokio::test]
async fn queries_on_the_meta_and_time_ride_the_servers_own_index() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "ts_queries").await;
    Schema::new().with::<Reading>().sync(&db).await.unwrap();
    let readings = Repo::<Reading>::new(&db);
    let all: Vec<Reading> = (0..300)
        .map(|i| reading(&format!("s{}", i % 3), i, 20.0 + (i % 7) as f64))
        .collect();
    readings.insert_many(&all).await.unwrap();

    let f = Reading::FIELDS;
    let s1 = "s1".to_owned();
    let since = DateTime::from_millis(1_796_000_000_000 + 200 * 60_000);
    let newest = readings
        .find(f.sensor.eq(&s1) & f.at.gte(&since))
        .sort(f.at.desc())
        .limit(5)
        .all()
        .await
        .unwrap();
    let expected: Vec<i64> = (200..300).filter(|i| i % 3 == 1).rev().take(5).collect();
    let minutes: Vec<i64> = newest
        .iter()
        .map(|r| (r.at.timestamp_millis() - 1_796_000_000_000) / 60_000)
        .collect();
    assert_eq!(minutes, expected);
    let plan = readings
        .find(f.sensor.eq(&s1))
        .sort(f.at.desc())
        .limit(5)
        .explain()
        .await
        .unwrap();
    println!("meta + time: {plan}");
    assert!(!plan.is_collscan(), "{plan}");
    // A measurement field with no index: refused, nothing sent.
    log.clear();
    let err = readings
        .find(f.sensor.eq(&s1) & f.at.gte(&since))
        .sort(f.celsius.desc())
        .all()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Unindexed { .. }), "{err:?}");
    assert!(log.operations().is_empty());
    // The declared secondary index serves its field.
    assert_eq!(
        readings.count(f.celsius.gte(&26.0)).await.unwrap(),
        all.iter().filter(|r| r.celsius >= 26.0).count() as u64
    );
    // Deletes work on any field.
    let gone = readings.delete_many(f.sensor.eq(&s1)).await.unwrap();
    assert_eq!(gone, 100);
    assert_eq!(readings.count(f.sensor.eq(&s1)).await.unwrap(), 0);
}
