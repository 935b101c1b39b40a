//! The audit of a collection a registered model covers: the documents the
//! model cannot decode, that break its bound, or that fail its validator,
//! counted and named by `_id`, on a sample and on a full scan.

use mongodb::bson::{doc, Document};
use schema_core::prelude::*;
use schema_core::{audit_with, AuditOptions, AuditStage, Schema};
use serde::{Deserialize, Serialize};

use crate::support;

#[derive(Document, Serialize, Deserialize, Debug)]
#[document(collection = "notes")]
struct Note {
    #[serde(rename = "_id")]
    id: String,
    title: String,
    #[embed(max = 3)]
    tags: Vec<String>,
}

#[tokio::test]
async fn the_documents_a_declared_model_refuses_are_counted_and_named() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "audit_declared").await;
    // 20 notes as the model writes them, 2 without a title, 3 with five
    // tags (over the bound of 3); and a collection no model covers.
    let mut notes: Vec<Document> = (0..20)
        .map(|i| doc! { "_id": format!("ok_{i:02}"), "title": "t", "tags": ["a"] })
        .collect();
    notes.extend((0..2).map(|i| doc! { "_id": format!("untitled_{i}"), "tags": [] }));
    notes.extend((0..3).map(|i| {
        doc! { "_id": format!("tagged_{i}"), "title": "t", "tags": ["a", "b", "c", "d", "e"] }
    }));
    db.collection::<Document>("notes")
        .insert_many(notes)
        .await
        .unwrap();
    db.collection::<Document>("other")
        .insert_one(doc! { "_id": 1, "x": "y" })
        .await
        .unwrap();
    let schema = Schema::new().with::<Note>();
    for full_scan in [false, true] {
        let options = AuditOptions {
            full_scan,
            ..AuditOptions::default()
        };
        let mut stages = Vec::new();
        let report = audit_with(&db, &schema, &options, |p| {
            stages.push((p.stage, p.collection.to_owned(), p.read))
        })
        .await
        .unwrap();
        let declared: Vec<_> = report.declared().collect();
        assert_eq!(declared.len(), 1, "only notes has a model: {report}");
        let notes = declared[0];
        assert_eq!(
            (notes.model.as_str(), notes.collection.as_str()),
            ("Note", "notes")
        );
        assert_eq!(notes.checked, 25);
        let sorted = |ids: &[String]| {
            let mut ids = ids.to_vec();
            ids.sort();
            ids
        };
        assert_eq!(notes.undecodable.count, 2);
        assert_eq!(sorted(&notes.undecodable.ids), ["untitled_0", "untitled_1"]);
        assert_eq!(notes.over_bound.count, 3);
        assert_eq!(
            sorted(&notes.over_bound.ids),
            ["tagged_0", "tagged_1", "tagged_2"]
        );
        // The validator (`required: title`, `maxItems: 3`) refuses all five.
        assert_eq!(notes.validator.count, 5, "{report}");
        assert_eq!(
            notes.validator.ids,
            [
                "tagged_0",
                "tagged_1",
                "tagged_2",
                "untitled_0",
                "untitled_1"
            ]
        );
        assert!(notes.is_finding() && report.has_findings());
        let shown = report.to_string();
        assert!(
            shown.contains("Note (the model of notes): 25 documents checked, 2 cannot be decoded"),
            "{shown}"
        );
        assert_eq!(
            stages,
            [
                (AuditStage::Reading, "notes".to_owned(), 0),
                (AuditStage::Read, "notes".to_owned(), 25),
                (AuditStage::Reading, "other".to_owned(), 0),
                (AuditStage::Read, "other".to_owned(), 1),
                (AuditStage::References, String::new(), 0),
                (AuditStage::Validator, "notes".to_owned(), 25),
            ]
        );
    }
    // Fixed, nothing is found.
    let notes = db.collection::<Document>("notes");
    notes
        .delete_many(doc! { "_id": { "$not": { "$regex": "^ok_" } } })
        .await
        .unwrap();
    let report = audit_with(&db, &schema, &AuditOptions::default(), |_| {})
        .await
        .unwrap();
    assert!(!report.has_findings(), "{report}");
}

/// A room and its messages, moved out: the child declares its reference's
/// index, which `sync` has not created yet.
#[derive(Document, Serialize, Deserialize, Debug)]
#[document(collection = "rooms")]
struct Room {
    #[serde(rename = "_id")]
    id: String,
}

#[derive(Document, Serialize, Deserialize, Debug)]
#[document(collection = "messages")]
struct Message {
    #[serde(rename = "_id")]
    id: i64,
    #[reference(index, to = Room, sort(n = desc))]
    room: String,
    n: i32,
}

/// Between a move and the sync that creates the children's index, the
/// audit does not advise declaring what the registered model declares: it
/// says the index is declared and not yet created, and to run sync. Without
/// the model it advises declaring it, as before.
#[tokio::test]
async fn a_declared_index_not_yet_created_is_said_so() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "audit_declared_index").await;
    let rooms: Vec<Document> = (0..10)
        .map(|r| doc! { "_id": format!("room_{r}") })
        .collect();
    db.collection::<Document>("rooms")
        .insert_many(rooms)
        .await
        .unwrap();
    let messages: Vec<Document> = (0..200)
        .map(|i: i64| doc! { "_id": i, "room": format!("room_{}", i % 10), "n": i as i32 })
        .collect();
    db.collection::<Document>("messages")
        .insert_many(messages)
        .await
        .unwrap();
    let declared = Schema::new().with::<Room>().with::<Message>();
    let report = audit_with(&db, &declared, &AuditOptions::default(), |_| {})
        .await
        .unwrap();
    let reference = report
        .references()
        .find(|r| r.collection == "messages" && r.path == "room")
        .unwrap_or_else(|| panic!("messages.room found: {report}"));
    assert!(!reference.indexed && reference.is_finding(), "{report}");
    assert_eq!(reference.declared.as_deref(), Some("Message"));
    let advice = reference.advice().unwrap();
    assert!(
        advice.contains("`Message` declares one, not yet created: run sync")
            && !advice.contains("declare it `#[reference"),
        "{advice}"
    );
    // No model: the advice to declare it stands.
    let report = audit_with(&db, &Schema::new(), &AuditOptions::default(), |_| {})
        .await
        .unwrap();
    let reference = report.references().find(|r| r.path == "room").unwrap();
    assert_eq!(reference.declared, None);
    assert!(
        reference
            .advice()
            .unwrap()
            .contains("declare it `#[reference(index, to = ..)]`"),
        "{report}"
    );
    // Synced, it is indexed: no finding.
    declared.sync(&db).await.unwrap();
    let report = audit_with(&db, &declared, &AuditOptions::default(), |_| {})
        .await
        .unwrap();
    let reference = report.references().find(|r| r.path == "room").unwrap();
    assert!(reference.indexed && !reference.is_finding(), "{report}");
}
