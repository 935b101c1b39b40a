//! `Schema::verify`: every model's links and copies checked at once, on the
//! examples' school (two-sided links) and catalog (a one-sided link and a
//! copy). A consistent database reports nothing; a half-written link, a
//! link to a missing document, an array over its max and a stale copy,
//! each written by hand around the helpers, are each reported once, and
//! nothing is written.

use crate::example_models;
use crate::support;

use bson::oid::ObjectId;
use bson::{doc, Document as BsonDocument};
use example_models::{catalog, school};
use schema_core::prelude::*;
use schema_core::Copies;
use schema_core::{AsymmetryKind, Links, Schema};

/// Every document of the four collections, in order.
async fn every_document(db: &mongodb::Database) -> Vec<BsonDocument> {
    use futures_util::TryStreamExt;
    let mut all = Vec::new();
    for name in ["students", "courses", "products", "skus"] {
        let docs: Vec<BsonDocument> = db
            .collection::<BsonDocument>(name)
            .find(doc! {})
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        all.extend(docs);
    }
    all
}

#[tokio::test]
async fn every_link_and_copy_is_checked_and_each_fault_reported_once() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "schema_verify").await;
    let schema = Schema::new()
        .with::<school::Student>()
        .with::<school::Course>()
        .with::<catalog::Product>()
        .with::<catalog::Sku>();
    schema.sync(&db).await.unwrap();

    // Consistent data, written by the helpers.
    let students = Repo::<school::Student>::new(&db);
    let courses = Repo::<school::Course>::new(&db);
    for id in ["s1", "s2"] {
        students
            .insert(&school::Student::new(id, id))
            .await
            .unwrap();
    }
    for id in ["c1", "c2"] {
        courses.insert(&school::Course::new(id, id)).await.unwrap();
    }
    let links = Links::new(&db, school::Student::FIELDS.course_ids);
    links.link(&"s1".into(), &"c1".into()).await.unwrap();
    links.link(&"s2".into(), &"c1".into()).await.unwrap();
    let sku = catalog::Sku {
        id: ObjectId::new(),
        size: "M".into(),
        color: "white".into(),
    };
    Repo::<catalog::Sku>::new(&db).insert(&sku).await.unwrap();
    let product = catalog::Product {
        id: ObjectId::new(),
        name: "shirt".into(),
        description: "a shirt".into(),
        price: 10.0,
        details: catalog::Details::Apparel {
            material: "cotton".into(),
        },
        skus: vec![sku.id],
        colors: vec!["white".into()],
    };
    Repo::<catalog::Product>::new(&db)
        .insert(&product)
        .await
        .unwrap();
    assert!(Copies::<catalog::Product>::new(&db)
        .verify()
        .await
        .unwrap()
        .is_consistent());

    let checked = schema.verify(&db).await.unwrap();
    assert!(checked.is_consistent(), "{checked}");
    // The two-sided link once (from students, the side named first), the
    // catalog's one-sided link, the catalog's copies.
    let names: Vec<String> = checked
        .links
        .iter()
        .map(|l| format!("{}.{}", l.collection, l.field))
        .collect();
    assert_eq!(names, ["students.courseIds", "products.skus"]);
    assert_eq!(checked.links[0].report.edges, 2);
    assert_eq!(checked.copies.len(), 1);
    assert_eq!(checked.copies[0].report.holders, 1);

    // Faults written around the helpers.
    let raw = |name: &str| db.collection::<BsonDocument>(name);
    raw("students")
        .update_one(
            doc! { "_id": "s2" },
            doc! { "$push": { "courseIds": "c2" } },
        )
        .await
        .unwrap();
    // An array over its max, written past the validator (which refuses it
    // otherwise).
    raw("courses")
        .update_one(
            doc! { "_id": "c2" },
            doc! { "$push": { "studentIds": { "$each": (0..501).map(|i| format!("x{i}")).collect::<Vec<_>>() } } },
        )
        .bypass_document_validation(true)
        .await
        .unwrap();
    raw("products")
        .update_one(
            doc! { "_id": product.id },
            doc! { "$set": { "colors": ["black"] }, "$push": { "skus": ObjectId::new() } },
        )
        .await
        .unwrap();
    let before = every_document(&db).await;

    let checked = schema.verify(&db).await.unwrap();
    assert!(!checked.is_consistent());
    let school = &checked.links[0].report;
    let of_kind = |kind| school.asymmetric.iter().filter(|a| a.kind == kind).count();
    assert_eq!(of_kind(AsymmetryKind::MissingOnRight), 1, "{checked}");
    assert_eq!(
        of_kind(AsymmetryKind::LeftMissing),
        501,
        "the students x0.. do not exist"
    );
    assert_eq!(school.asymmetric.len(), 502);
    let half = school
        .asymmetric
        .iter()
        .find(|a| a.kind == AsymmetryKind::MissingOnRight)
        .unwrap();
    assert_eq!(
        (half.left.as_str(), half.right.as_str()),
        (Some("s2"), Some("c2"))
    );
    assert_eq!(school.over_max.len(), 1, "{checked}");
    let over = &school.over_max[0];
    assert_eq!(
        (over.collection, over.field, over.len, over.max),
        ("courses", "studentIds", 501, 500)
    );
    let products = &checked.links[1].report;
    assert_eq!(products.asymmetric.len(), 1, "{checked}");
    assert_eq!(products.asymmetric[0].kind, AsymmetryKind::RightMissing);
    let copies = &checked.copies[0].report;
    assert_eq!(
        copies.out_of_sync,
        [(product.id.to_hex(), "colors")],
        "{checked}"
    );
    let text = checked.to_string();
    assert!(
        text.contains("links students.courseIds <-> courses.studentIds: FAILED (504 edges, 502 asymmetric, 1 over max)"),
        "{text}"
    );
    assert!(text.contains("  ... and 482 more\n"), "{text}");
    assert!(
        text.contains(
            "  `courses` c2 holds 501 ids in `studentIds`, over its max of 500: `repair` \
             leaves it (which ids to drop is yours to choose: unlink them)\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("copies in products: FAILED (1 holders, 1 out of sync)"),
        "{text}"
    );

    // Read only: every document as it was.
    let after = every_document(&db).await;
    assert_eq!(before, after);
}
