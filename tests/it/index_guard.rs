//! The index guard against the real server: a query no declared index serves
//! is refused before anything is sent (0 commands, seen by command
//! monitoring), the queries it lets through are index scans (seen by
//! `explain`), and `.scan()` sends a collection scan on purpose.

use crate::support;

use bson::doc;
use futures_util::{StreamExt, TryStreamExt};
use schema_core::prelude::*;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Profile {
    display_name: String,
    city: String,
}

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Item {
    sku: String,
    qty: i32,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(
    collection = "articles",
    index(keys(slug = asc), unique),
    index(keys(status = asc, views = desc)),
    index(keys("profile.displayName" = asc)),
    index(keys("items.sku" = asc, "items.qty" = asc))
)]
struct Article {
    #[serde(rename = "_id")]
    id: String,
    #[reference(index, sort(at = desc))]
    author_id: String,
    slug: String,
    status: String,
    title: String,
    views: i64,
    at: i64,
    profile: Profile,
    #[embed(max = 5)]
    tags: Vec<String>,
    #[embed(max = 5)]
    items: Vec<Item>,
}

fn article(i: i64) -> Article {
    Article {
        id: format!("a{i:03}"),
        author_id: format!("u{}", i % 7),
        slug: format!("slug-{i}"),
        status: if i % 3 == 0 { "draft" } else { "live" }.to_owned(),
        title: format!("Title {}", i % 11),
        views: i * 13 % 101,
        at: i,
        profile: Profile {
            display_name: format!("Name {}", i % 5),
            city: format!("City {}", i % 4),
        },
        tags: vec![format!("t{}", i % 6)],
        items: vec![Item {
            sku: format!("sku{}", i % 9),
            qty: (i % 4) as i32,
        }],
    }
}

async fn setup(test: &str) -> (mongodb::Database, support::CommandLog) {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, test).await;
    Schema::new().with::<Article>().sync(&db).await.unwrap();
    let articles = Repo::<Article>::new(&db);
    let docs: Vec<Article> = (0..200).map(article).collect();
    articles.insert_many(&docs).await.unwrap();
    (db, log)
}

fn assert_unindexed(err: Error, fields: &[&str], attribute: Option<&str>) {
    let text = err.to_string();
    match &err {
        Error::Unindexed {
            model,
            query,
            index,
            ..
        } => {
            assert_eq!(*model, "Article", "{text}");
            let named: Vec<&String> = query
                .equality
                .iter()
                .chain(&query.sort)
                .chain(&query.range)
                .chain(&query.unindexable)
                .collect();
            for f in fields {
                assert!(named.iter().any(|n| n.contains(f)), "{f} in {text}");
                assert!(text.contains(f), "{f} in {text}");
            }
            assert_eq!(index.as_deref(), attribute, "{text}");
            if let Some(attribute) = attribute {
                assert!(text.contains(attribute), "{text}");
            }
            assert!(text.contains(".scan()"), "{text}");
        }
        other => panic!("expected Unindexed, got {other:?}"),
    }
}

#[tokio::test]
async fn a_query_no_index_serves_is_refused_and_sends_nothing() {
    let (db, log) = setup("guard_refuses").await;
    let articles = Repo::<Article>::new(&db);
    let title = "Title 3".to_owned();

    log.clear();
    let err = articles
        .find(Article::FIELDS.title.eq(&title))
        .await
        .unwrap_err();
    assert_unindexed(
        err,
        &["title"],
        Some(r#"#[document(index(keys("title" = asc)))]"#),
    );
    let err = articles
        .count(Article::FIELDS.title.eq(&title))
        .await
        .unwrap_err();
    assert_unindexed(
        err,
        &["title"],
        Some(r#"#[document(index(keys("title" = asc)))]"#),
    );
    let err = articles
        .find_one(Article::FIELDS.title.eq(&title))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Unindexed { .. }), "{err}");

    // An index prefix that skips a key, a sort against the index, two
    // ranges, a sort on a key no index leads with, equality beyond an
    // index, a sub-document matched whole, a non-leading key.
    let refused = [
        (
            doc! { "views": { "$gt": 10 } },
            None,
            vec!["views"],
            Some(r#"#[document(index(keys("views" = asc)))]"#),
        ),
        (
            doc! { "status": "live" },
            Some(doc! { "views": 1, "at": 1 }),
            vec!["status", "views", "at"],
            Some(r#"#[document(index(keys("status" = asc, "views" = asc, "at" = asc)))]"#),
        ),
        (
            doc! { "status": { "$in": ["live"] }, "views": { "$gt": 1 }, "at": { "$lt": 5 } },
            None,
            vec!["views", "at"],
            None,
        ),
        (
            doc! {},
            Some(doc! { "at": -1 }),
            vec!["at"],
            Some(r#"#[document(index(keys("at" = desc)))]"#),
        ),
        (
            doc! { "authorId": "u1", "title": "Title 1" },
            None,
            vec!["authorId", "title"],
            Some(r#"#[document(index(keys("authorId" = asc, "title" = asc)))]"#),
        ),
        (
            doc! { "profile": { "displayName": "Name 1", "city": "City 1" } },
            None,
            vec!["profile"],
            Some(r#"#[document(index(keys("profile" = asc)))]"#),
        ),
        (
            doc! { "items.qty": 2 },
            None,
            vec!["items.qty"],
            Some(r#"#[document(index(keys("items.qty" = asc)))]"#),
        ),
        (
            doc! { "status": "live" },
            Some(doc! { "tags": 1 }),
            vec!["tags"],
            None,
        ),
    ];
    for (filter, sort, fields, attribute) in refused {
        let mut find = articles.find(filter.clone());
        if let Some(sort) = sort.clone() {
            find = find.sort(sort);
        }
        let err = find.await.unwrap_err();
        println!("refused {filter} sort {sort:?}: {err}");
        assert_unindexed(err, &fields, attribute);
    }

    // `$or`: one branch on no index is enough to refuse.
    let err = articles
        .find(doc! { "$or": [{ "slug": "slug-1" }, { "title": "Title 1" }] })
        .await
        .unwrap_err();
    assert_unindexed(
        err,
        &["title"],
        Some(r#"#[document(index(keys("title" = asc)))]"#),
    );
    // What no index bounds, and the whole collection.
    for filter in [
        doc! { "$where": "this.views > 3" },
        doc! { "$expr": { "$gt": ["$views", 3] } },
        doc! { "$nor": [{ "status": "live" }] },
        doc! { "authorId": "u1", "tags": { "$size": 1 } },
        doc! { "items": { "$elemMatch": { "sku": "sku4", "qty": 1 } } },
    ] {
        let err = articles.find(filter.clone()).await.unwrap_err();
        match &err {
            Error::Unindexed { query, index, .. } => {
                assert!(!query.unindexable.is_empty() && index.is_none(), "{err}")
            }
            other => panic!("{filter}: {other:?}"),
        }
    }
    let err = articles.count(doc! {}).await.unwrap_err();
    assert!(
        err.to_string().contains("no condition and no sort"),
        "{err}"
    );
    // A stream reports the refusal as its first item, also without sending.
    {
        use futures_util::StreamExt;
        let mut stream = articles.find(doc! { "title": "x" }).stream();
        let first = stream.next().await.unwrap();
        assert!(matches!(first, Err(Error::Unindexed { .. })));
    }

    assert_eq!(
        log.operations(),
        Vec::<String>::new(),
        "a refused query sends no command"
    );
}

#[tokio::test]
async fn the_queries_it_lets_through_are_index_scans() {
    let (db, log) = setup("guard_accepts").await;
    let articles = Repo::<Article>::new(&db);

    let accepted: Vec<(bson::Document, Option<bson::Document>)> = vec![
        (doc! { "_id": "a007" }, None),
        (doc! { "_id": "a007", "title": "anything" }, None),
        (doc! { "slug": { "$in": ["slug-1", "slug-2"] } }, None),
        (doc! { "authorId": "u3" }, Some(doc! { "at": -1 })),
        (doc! { "authorId": "u3" }, Some(doc! { "at": 1, "_id": 1 })),
        (
            doc! { "authorId": "u3", "at": { "$lt": 100 } },
            Some(doc! { "at": -1 }),
        ),
        (doc! { "status": "live", "views": { "$gte": 50 } }, None),
        (doc! { "status": "live" }, Some(doc! { "views": -1 })),
        (doc! { "status": "live" }, Some(doc! { "views": 1 })),
        (doc! { "profile.displayName": "Name 2" }, None),
        (
            doc! { "items.sku": "sku4", "items.qty": { "$gt": 1 } },
            None,
        ),
        (
            doc! { "items.sku": "sku4", "items": { "$elemMatch": { "sku": "sku4", "qty": 1 } } },
            None,
        ),
        (
            doc! { "$or": [{ "slug": "slug-1" }, { "authorId": "u2" }] },
            None,
        ),
        (
            doc! { "$and": [{ "status": "draft" }, { "views": { "$lt": 30 } }] },
            None,
        ),
        (doc! {}, Some(doc! { "_id": -1 })),
    ];
    for (filter, sort) in accepted {
        let find = |f: bson::Document| {
            let find = articles.find(f);
            match &sort {
                Some(sort) => find.sort(sort.clone()),
                None => find,
            }
        };
        let plan = find(filter.clone()).explain().await.unwrap();
        println!("{filter} sort {sort:?}: {plan}");
        assert!(!plan.is_collscan(), "{filter}: {plan}");
        assert!(
            plan.stages.iter().any(|s| s.starts_with("IXSCAN")
                || s.starts_with("IDHACK")
                || s.starts_with("EXPRESS")),
            "{filter}: {plan}"
        );
        assert!(!plan.sorts_in_memory(), "{filter}: {plan}");
        // And the query itself is sent and answered.
        log.clear();
        let found = find(filter.clone()).all().await.unwrap();
        // One `find`, after a `listIndexes` the first time a query rides
        // an index.
        let ops = log.operations();
        assert_eq!(ops.last().map(String::as_str), Some("find"), "{ops:?}");
        assert!(
            ops.iter().all(|o| o == "find" || o == "listIndexes"),
            "{ops:?}"
        );
        let raw = db
            .collection::<bson::Document>("articles")
            .count_documents(filter.clone())
            .await
            .unwrap();
        assert_eq!(found.len() as u64, raw, "{filter}");
    }

    // Typed filters pass the same guard.
    let u3 = "u3".to_owned();
    let n = articles
        .count(Article::FIELDS.author_id.eq(&u3))
        .await
        .unwrap();
    assert_eq!(n, 29);
}

#[tokio::test]
async fn scan_sends_a_collection_scan_on_purpose() {
    let (db, log) = setup("guard_scan").await;
    let articles = Repo::<Article>::new(&db);
    let title = "Title 3".to_owned();

    log.clear();
    let found = articles
        .find(Article::FIELDS.title.eq(&title))
        .scan()
        .all()
        .await
        .unwrap();
    assert_eq!(found.len(), 18);
    assert_eq!(log.operations(), ["find"]);
    let plan = articles
        .find(Article::FIELDS.title.eq(&title))
        .scan()
        .explain()
        .await
        .unwrap();
    assert!(plan.is_collscan(), "{plan}");
    assert_eq!(plan.docs_examined, 200, "{plan}");
    assert_eq!(articles.count(doc! {}).scan().await.unwrap(), 200);
    assert_eq!(
        articles
            .find_one(doc! { "$expr": { "$eq": ["$views", 13] } })
            .scan()
            .await
            .unwrap()
            .map(|a| a.id),
        Some("a001".to_owned())
    );
}

/// The shapes the guard serves by the rules of index bounds beyond the
/// equality-sort-range prefix: `$nor` and `$expr` beside an indexed
/// equality, ranges and `$exists` on a sparse index's key, conditions that
/// imply a partial index's filter, and equality after the range.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(
    collection = "vehicles",
    index(keys(depot = asc)),
    index(keys(nick = asc), sparse),
    index(keys(region = asc), partial(active = true, seats(gte = 4))),
    index(keys(status = asc, seats = asc, odo = asc))
)]
struct Vehicle {
    #[serde(rename = "_id")]
    id: i64,
    depot: String,
    status: String,
    nick: Option<String>,
    region: String,
    active: bool,
    seats: i32,
    odo: i64,
}

fn vehicle(i: i64) -> Vehicle {
    Vehicle {
        id: i,
        depot: ["north", "south", "east"][(i % 3) as usize].to_owned(),
        status: ["active", "idle", "repair", "sold"][(i % 4) as usize].to_owned(),
        nick: (i % 5 == 0).then(|| format!("n{i}")),
        region: ["eu", "us"][(i % 2) as usize].to_owned(),
        active: i % 7 != 0,
        seats: (i % 9) as i32,
        odo: i * 37 % 1000,
    }
}

#[tokio::test]
async fn shapes_served_by_the_rules_of_index_bounds_ride_an_index() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "guard_bounds").await;
    Schema::new().with::<Vehicle>().sync(&db).await.unwrap();
    let vehicles = Repo::<Vehicle>::new(&db);
    let docs: Vec<Vehicle> = (0..2000).map(vehicle).collect();
    vehicles.insert_many(&docs).await.unwrap();
    let f = Vehicle::FIELDS;
    let north = "north".to_owned();
    let shapes: Vec<(&str, bson::Document, &str)> = vec![
        (
            "! beside an indexed equality",
            (f.depot.eq(&north) & !f.status.eq(&"active".to_owned()))
                .into_document()
                .unwrap(),
            "depot_1",
        ),
        (
            "$expr beside an indexed equality",
            doc! { "depot": "north", "$expr": { "$gt": ["$odo", "$seats"] } },
            "depot_1",
        ),
        (
            "a range on a sparse key",
            doc! { "nick": { "$gt": "n5" } },
            "nick_1",
        ),
        (
            "$exists on a sparse key",
            doc! { "nick": { "$exists": true } },
            "nick_1",
        ),
        (
            "conditions implying a partial filter",
            doc! { "region": "eu", "active": true, "seats": { "$gt": 5 } },
            "region_1",
        ),
        (
            "equality, range, equality",
            doc! { "status": "idle", "seats": { "$gt": 2 }, "odo": 629 },
            "status_1_seats_1_odo_1",
        ),
    ];
    for (what, filter, index) in shapes {
        let plan = vehicles.find(filter.clone()).explain().await.unwrap();
        println!("{what}: {filter}: {plan}");
        assert!(!plan.is_collscan(), "{what}: {plan}");
        assert!(
            plan.stages.iter().any(|s| s.starts_with("IXSCAN")),
            "{what}: {plan}"
        );
        assert!(
            plan.to_string().contains(index),
            "{what} rides {index}: {plan}"
        );
        log.clear();
        let found = vehicles.find(filter.clone()).all().await.unwrap();
        // A `listIndexes` the first time a query rides an index, then one
        // `find` (and its `getMore`s).
        let mut ops = log.operations();
        ops.retain(|o| o != "listIndexes");
        assert_eq!(ops.first().map(String::as_str), Some("find"), "{what}");
        assert!(ops[1..].iter().all(|o| o == "getMore"), "{what}: {ops:?}");
        let raw = db
            .collection::<bson::Document>("vehicles")
            .count_documents(filter.clone())
            .await
            .unwrap();
        assert_eq!(found.len() as u64, raw, "{what}: {filter}");
        assert!(raw > 0, "{what}: the shape finds something");
    }
    // Still refused: what would match documents the index leaves out.
    for filter in [
        doc! { "nick": { "$ne": "n5" } },
        doc! { "nick": { "$exists": false } },
        doc! { "region": "eu", "seats": { "$gt": 5 } },
        doc! { "region": "eu", "active": true, "seats": { "$gt": 3 } },
        doc! { "odo": 629 },
        doc! { "$nor": [{ "depot": "north" }] },
    ] {
        log.clear();
        let err = vehicles.find(filter.clone()).all().await.unwrap_err();
        assert!(matches!(err, Error::Unindexed { .. }), "{filter}: {err:?}");
        assert!(log.operations().is_empty(), "{filter}: nothing sent");
    }
}

#[tokio::test]
async fn a_query_before_sync_or_after_a_dropped_index_scans_nothing() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "guard_on_server").await;
    // The collection, without the model's indexes (no `sync`).
    db.collection::<bson::Document>("vehicles")
        .insert_many((0..300).map(|i| bson::serialize_to_document(&vehicle(i)).unwrap()))
        .await
        .unwrap();
    let vehicles = Repo::<Vehicle>::new(&db);
    let north = "north".to_owned();
    let by_depot = || vehicles.find(Vehicle::FIELDS.depot.eq(&north));
    let missing = |err: Error, index: &str| match err {
        Error::MissingIndex { index: i, .. } => assert_eq!(i, index),
        other => panic!("expected MissingIndex on {index}, got {other:?}"),
    };

    // Every guarded query asks `listIndexes` first, and sends nothing more.
    for _ in 0..2 {
        log.clear();
        missing(by_depot().all().await.unwrap_err(), "depot_1");
        assert_eq!(log.operations(), ["listIndexes"], "nothing scanned");
    }
    log.clear();
    missing(
        vehicles
            .count(Vehicle::FIELDS.depot.eq(&north))
            .await
            .unwrap_err(),
        "depot_1",
    );
    missing(
        vehicles
            .find_one(Vehicle::FIELDS.depot.eq(&north))
            .await
            .unwrap_err(),
        "depot_1",
    );
    let err = vehicles
        .update_many(
            Vehicle::FIELDS.depot.eq(&north),
            Vehicle::FIELDS.odo.set(&1),
        )
        .await
        .unwrap_err();
    missing(err, "depot_1");
    assert_eq!(log.operations(), ["listIndexes"; 3]);

    // After sync: served, asked once per index and repository.
    Schema::new().with::<Vehicle>().sync(&db).await.unwrap();
    log.clear();
    assert_eq!(by_depot().all().await.unwrap().len(), 100);
    assert_eq!(log.take_operations(), ["listIndexes", "find"]);
    vehicles
        .update_many(
            Vehicle::FIELDS.depot.eq(&north),
            Vehicle::FIELDS.odo.set(&2),
        )
        .await
        .unwrap();
    assert_eq!(log.operations(), ["update"], "the index is known now");

    // Someone drops the index while a stream reads it: the server kills the
    // query (QueryPlanKilled), the stream says the index is gone, and the
    // repository asks again before its next query.
    let mut stream = by_depot().batch_size(10).await.unwrap();
    assert!(stream.try_next().await.unwrap().is_some());
    db.collection::<bson::Document>("vehicles")
        .drop_index("depot_1")
        .await
        .unwrap();
    let mut err = None;
    while let Some(item) = stream.next().await {
        if let Err(e) = item {
            err = Some(e);
            break;
        }
    }
    missing(err.expect("the stream stops with an error"), "depot_1");
    log.clear();
    missing(by_depot().all().await.unwrap_err(), "depot_1");
    assert_eq!(log.operations(), ["listIndexes"], "nothing scanned");
}
