//! 2dsphere indexes (`#[document(index(keys(location = "2dsphere")))]`):
//! setup creates the index and finds nothing to do the second time (the
//! server lists its `2dsphereIndexVersion`, an option the plan does not
//! compare), the index guard lets a geo query through only on a 2dsphere
//! index of its field (the server's `$near` needs one: without it the
//! server refuses the query), and refuses the same query on a model with an
//! ordered index there, naming the index to declare, with nothing sent.

use crate::support;

use bson::doc;
use schema_core::prelude::*;
use schema_core::{Error, Filter, IndexKind, Schema};
use serde::{Deserialize, Serialize};

/// A GeoJSON point.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Point {
    #[serde(rename = "type")]
    kind: String,
    /// Longitude, latitude.
    coordinates: [f64; 2],
}

impl Point {
    fn at(lng: f64, lat: f64) -> Point {
        Point {
            kind: "Point".into(),
            coordinates: [lng, lat],
        }
    }
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "places", index(keys(location = "2dsphere")))]
struct Place {
    #[serde(rename = "_id")]
    id: String,
    name: String,
    #[serde(rename = "loc")]
    location: Point,
}

/// The same collection with an ordered index on the points.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "places", index(keys(location = asc)))]
struct PlaceOrdered {
    #[serde(rename = "_id")]
    id: String,
    name: String,
    #[serde(rename = "loc")]
    location: Point,
}

/// Within `meters` of (lng, lat), nearest first.
fn near(lng: f64, lat: f64, meters: f64) -> bson::Document {
    doc! { "loc": { "$near": {
        "$geometry": { "type": "Point", "coordinates": [lng, lat] },
        "$maxDistance": meters,
    } } }
}

#[tokio::test]
async fn a_2dsphere_index_is_synced_and_serves_geo_queries_only() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "geo_indexes").await;
    assert_eq!(Place::indexes()[0].name, "loc_2dsphere");
    assert_eq!(Place::indexes()[0].kind, IndexKind::Sphere2d);
    let schema = Schema::new().with::<Place>();
    schema.sync(&db).await.unwrap();
    let listed = support::listed_index(&db, "places", "loc_2dsphere")
        .await
        .expect("loc_2dsphere listed");
    assert_eq!(
        listed.get_document("key").unwrap(),
        &doc! { "loc": "2dsphere" }
    );
    let plan = schema.plan(&db).await.unwrap();
    assert!(plan.is_empty(), "in sync the second time: {plan}");
    assert!(schema.sync(&db).await.unwrap().applied.is_empty());

    let places = Repo::<Place>::new(&db);
    let place = |id: &str, lng: f64, lat: f64| Place {
        id: id.into(),
        name: id.to_uppercase(),
        location: Point::at(lng, lat),
    };
    // Paris, a point 1.1 km east of it, London.
    places
        .insert_many(&[
            place("east", 2.3675, 48.8566),
            place("paris", 2.3522, 48.8566),
            place("london", -0.1276, 51.5072),
        ])
        .await
        .unwrap();

    let found = places
        .find(Filter::from(near(2.3522, 48.8566, 5_000.0)))
        .all()
        .await
        .unwrap();
    let ids: Vec<&str> = found.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["paris", "east"], "nearest first, London too far");
    // (The test server's `explain` reports this `$near` as a `COLLSCAN` of
    // the three documents, yet refuses `$near` on a collection without a
    // 2dsphere index, as mongod does: the second test shows it. So what
    // shows the index at work here is that the query runs at all.)

    let europe_west = doc! { "loc": { "$geoWithin": { "$box": [[-1.0, 48.0], [3.0, 52.0]] } } };
    let within = places.find(Filter::from(europe_west)).all().await.unwrap();
    assert_eq!(within.len(), 3);

    // Not a geo test: the 2dsphere index bounds nothing else.
    log.clear();
    let name = "PARIS".to_owned();
    refused(
        &log,
        places.find(Place::FIELDS.name.eq(&name)).all().await,
        None,
    );
    // `$near` orders by distance: no other sort beside it.
    let sorted = places
        .find(Filter::from(near(2.3522, 48.8566, 5_000.0)))
        .sort(Place::FIELDS.name.asc())
        .all()
        .await;
    refused(&log, sorted, None);
}

#[tokio::test]
async fn a_geo_query_on_an_ordered_index_is_refused_with_the_index_to_declare() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "geo_ordered").await;
    Schema::new()
        .with::<PlaceOrdered>()
        .sync(&db)
        .await
        .unwrap();
    let places = Repo::<PlaceOrdered>::new(&db);
    log.clear();
    let result = places
        .find(Filter::from(near(2.3522, 48.8566, 5_000.0)))
        .all()
        .await;
    refused(
        &log,
        result,
        Some(r#"#[document(index(keys("loc" = "2dsphere")))]"#),
    );
    // The server agrees: without a 2dsphere index it cannot run `$near`.
    let raw = db
        .collection::<bson::Document>("places")
        .find(near(2.3522, 48.8566, 5_000.0))
        .await;
    let unplanned = match raw {
        Err(e) => Some(e),
        Ok(mut cursor) => cursor.advance().await.err(),
    };
    assert!(
        unplanned.is_some(),
        "the server refuses `$near` without the index"
    );
}

/// The guard refused the query (`Unindexed`, suggesting `index` when
/// given), and nothing was sent since `log` was last cleared.
fn refused<T: std::fmt::Debug>(
    log: &schema_testkit::CommandLog,
    result: Result<T, Error>,
    index: Option<&str>,
) {
    let err = result.unwrap_err();
    let Error::Unindexed {
        index: suggested, ..
    } = &err
    else {
        panic!("not refused by the guard: {err}");
    };
    if let Some(index) = index {
        assert_eq!(suggested.as_deref(), Some(index), "{err}");
    }
    assert!(log.take().is_empty(), "nothing sent");
}
