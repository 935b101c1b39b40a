//! Tightening a rule must not break a running system silently: before setup
//! changes a validator, the plan counts the existing documents that fail the
//! new one and names the first by `_id`; `sync` refuses the change unless
//! told how (`OnViolations`), changing nothing; `ValidateModerate` applies it
//! with `validationLevel: "moderate"` so the old documents stay writable, and
//! setup restores `strict` once the data is fixed.

use crate::support;

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::Database;
use schema_core::code;
use schema_core::prelude::*;
use schema_core::Step;
use schema_core::{Error, Plan, Schema, SyncOptions};
use schema_core::{OnViolations, Violators};
use serde::{Deserialize, Serialize};

/// The model as first deployed: up to 10 items.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "carts")]
struct CartV1 {
    #[serde(rename = "_id")]
    id: String,
    note: String,
    #[embed(max = 10)]
    items: Vec<String>,
}

/// The next release: `max` lowered to 5.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "carts")]
struct CartV2 {
    #[serde(rename = "_id")]
    id: String,
    note: String,
    #[embed(max = 5)]
    items: Vec<String>,
}

fn cart(id: &str, items: usize) -> CartV1 {
    CartV1 {
        id: id.to_owned(),
        note: String::new(),
        items: (0..items).map(|i| format!("i{i}")).collect(),
    }
}

/// Carts c1 and c4 hold 8 items; c2 holds 3 and c3 holds 5 (both fine under
/// the new max).
async fn deployed_v1(db: &Database) {
    Schema::new().with::<CartV1>().sync(db).await.unwrap();
    let carts = Repo::<CartV1>::new(db);
    for (id, n) in [("c4", 8), ("c2", 3), ("c1", 8), ("c3", 5)] {
        carts.insert(&cart(id, n)).await.unwrap();
    }
}

fn v2() -> Schema {
    Schema::new().with::<CartV2>()
}

/// The validator and the validation level the server holds for `carts`.
async fn on_server(db: &Database) -> (BsonDocument, String) {
    let specs = db
        .run_command(doc! { "listCollections": 1, "filter": { "name": "carts" } })
        .await
        .unwrap();
    let options = specs
        .get_document("cursor")
        .unwrap()
        .get_array("firstBatch")
        .unwrap()[0]
        .as_document()
        .unwrap()
        .get_document("options")
        .unwrap()
        .clone();
    let validator = options.get_document("validator").unwrap().clone();
    let level = options
        .get_str("validationLevel")
        .unwrap_or("strict")
        .to_owned();
    (validator, level)
}

/// Whether the server holds `CartV2`'s validator: setup's plan (which
/// compares it, numbers normalized) would neither create nor change it.
async fn holds_v2(db: &Database) -> bool {
    let plan = v2().plan(db).await.unwrap();
    !plan.steps.iter().any(|a| {
        matches!(
            a,
            Step::CreateCollection { .. } | Step::UpdateValidator { .. }
        )
    })
}

/// A raw `$set` of an unrelated field, as any program (or `Repo::update`)
/// would send: its error code, if refused.
async fn set_note(db: &Database, id: &str) -> Option<i32> {
    let result = db
        .collection::<BsonDocument>("carts")
        .update_one(doc! { "_id": id }, doc! { "$set": { "note": "gift" } })
        .await;
    match result {
        Ok(r) => {
            assert_eq!(r.matched_count, 1);
            None
        }
        Err(e) => match *e.kind {
            mongodb::error::ErrorKind::Write(mongodb::error::WriteFailure::WriteError(w)) => {
                Some(w.code)
            }
            other => panic!("{other:?}"),
        },
    }
}

fn violators_of(plan: &Plan) -> Option<&Violators> {
    plan.steps.iter().find_map(|a| match a {
        Step::UpdateValidator { violators, .. } | Step::ValidationLevel { violators, .. } => {
            Some(violators)
        }
        _ => None,
    })
}

#[tokio::test]
async fn a_lowered_max_is_planned_with_its_violators_refused_then_applied_moderate() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "tighten").await;
    deployed_v1(&db).await;
    let (v1_validator, _) = on_server(&db).await;

    // The plan counts the documents the new validator refuses, and names them.
    let plan = v2().plan(&db).await.unwrap();
    assert!(
        matches!(&plan.steps[..], [Step::UpdateValidator { collection, .. }] if collection == "carts"),
        "{plan}"
    );
    let violators = violators_of(&plan).unwrap();
    assert_eq!(violators.count, 2);
    assert_eq!(violators.ids, [Bson::from("c1"), Bson::from("c4")]);
    let table = plan.to_string();
    println!("{table}");
    assert!(
        table.contains("2 existing documents fail it (_id c1, c4)"),
        "{table}"
    );

    // sync refuses with a typed error, before writing anything.
    log.clear();
    let err = v2().sync(&db).await.unwrap_err();
    match &err {
        Error::ValidatorRejectsExisting {
            collection,
            count,
            ids,
        } => {
            assert_eq!((collection.as_str(), *count), ("carts", 2));
            assert_eq!(ids, &["c1", "c4"]);
        }
        other => panic!("{other:?}"),
    }
    let message = err.to_string();
    println!("{message}");
    for part in [
        "2 existing documents of `carts` fail the model's validator (_id c1, c4)",
        "code 121",
        "OnViolations::ValidateModerate",
        "nothing was changed",
    ] {
        assert!(message.contains(part), "{part:?} in {message}");
    }
    let sent = log.operations();
    assert!(
        !sent.iter().any(|c| c == "collMod" || c == "createIndexes"),
        "{sent:?}"
    );
    assert_eq!(on_server(&db).await, (v1_validator, "strict".to_owned()));
    assert_eq!(set_note(&db, "c1").await, None, "still writable");

    // The moderate choice applies the new validator; the old documents stay
    // writable, new and valid ones are held to it.
    let moderate = SyncOptions {
        on_violations: OnViolations::ValidateModerate,
        ..Default::default()
    };
    let report = v2().sync_with(&db, moderate).await.unwrap();
    assert_eq!(report.applied.len(), 1, "{:?}", report.applied);
    assert_eq!(on_server(&db).await.1, "moderate");
    assert!(holds_v2(&db).await);
    assert_eq!(
        set_note(&db, "c1").await,
        None,
        "an old document is updated"
    );
    assert_eq!(set_note(&db, "c4").await, None);
    let carts = Repo::<CartV2>::new(&db);
    let err = carts
        .insert(&CartV2 {
            id: "c5".into(),
            note: String::new(),
            items: (0..8).map(|i| i.to_string()).collect(),
        })
        .await
        .unwrap_err();
    // Refused before it is sent, as the validator would refuse it.
    assert!(
        matches!(err, Error::OverBound { len: 8, max: 5, .. }),
        "{err:?}"
    );
    let raw = db.collection::<BsonDocument>("carts");
    let err = raw
        .update_one(doc! { "_id": "c3" }, doc! { "$push": { "items": "sixth" } })
        .await
        .unwrap_err();
    assert!(
        format!("{err:?}").contains("121"),
        "a valid document stays valid: {err:?}"
    );

    // While documents still fail, the level is reported and left alone.
    let plan = v2().plan(&db).await.unwrap();
    assert!(
        matches!(&plan.steps[..], [Step::ValidationLevel { current, .. }] if current == "moderate"),
        "{plan}"
    );
    assert_eq!(violators_of(&plan).unwrap().count, 2);
    let report = v2().sync(&db).await.unwrap();
    assert!(report.applied.is_empty(), "{report:?}");
    assert_eq!(report.left_alone.len(), 1);
    assert_eq!(on_server(&db).await.1, "moderate");

    // Fix the data: setup restores strict by itself, then nothing is left.
    for id in ["c1", "c4"] {
        raw.update_one(
            doc! { "_id": id },
            doc! { "$push": { "items": { "$each": [], "$slice": 5 } } },
        )
        .await
        .unwrap();
    }
    let plan = v2().plan(&db).await.unwrap();
    assert_eq!(violators_of(&plan).unwrap().count, 0, "{plan}");
    assert!(plan.to_string().contains("moderate -> strict"), "{plan}");
    let report = v2().sync(&db).await.unwrap();
    assert_eq!(report.applied.len(), 1, "{report:?}");
    assert_eq!(on_server(&db).await.1, "strict");
    assert!(v2().plan(&db).await.unwrap().is_empty());
}

#[tokio::test]
async fn apply_makes_every_write_to_a_failing_document_refused_and_fixed_data_needs_no_choice() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "tighten_apply").await;
    deployed_v1(&db).await;

    // `Apply` does what the error warned of: an unrelated `$set` on a
    // document that fails the new validator is refused.
    let apply = SyncOptions {
        on_violations: OnViolations::Apply,
        ..Default::default()
    };
    v2().sync_with(&db, apply).await.unwrap();
    assert_eq!(on_server(&db).await.1, "strict");
    assert!(holds_v2(&db).await);
    assert_eq!(
        set_note(&db, "c1").await,
        Some(code::DOCUMENT_VALIDATION_FAILURE)
    );
    assert_eq!(set_note(&db, "c2").await, None, "a valid one is fine");

    // Loosening back (or any change that no document fails) needs no choice.
    let plan = Schema::new().with::<CartV1>().plan(&db).await.unwrap();
    assert_eq!(violators_of(&plan).unwrap().count, 0, "{plan}");
    Schema::new().with::<CartV1>().sync(&db).await.unwrap();
    assert_eq!(set_note(&db, "c1").await, None);
}

#[tokio::test]
async fn a_collection_without_validator_is_checked_too() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "tighten_none").await;
    let raw = db.collection::<BsonDocument>("carts");
    raw.insert_many([
        doc! { "_id": "ok", "note": "", "items": ["a"] },
        doc! { "_id": "bad", "note": 3, "items": ["a"] },
    ])
    .await
    .unwrap();
    let plan = v2().plan(&db).await.unwrap();
    assert!(
        matches!(
            &plan.steps[..],
            [Step::UpdateValidator { current: None, .. }]
        ),
        "{plan}"
    );
    let violators = violators_of(&plan).unwrap();
    assert_eq!(
        (violators.count, &violators.ids[..]),
        (1, &[Bson::from("bad")][..])
    );
    assert!(matches!(
        v2().sync(&db).await,
        Err(Error::ValidatorRejectsExisting { count: 1, .. })
    ));
}
