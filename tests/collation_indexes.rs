//! Collated indexes (`#[document(index(keys(email = asc), unique,
//! collation(locale = "en", strength = 2)))]`): setup creates the index
//! with its collation, the plan finds nothing to do the second time (the
//! server lists every option of the collation; only the declared ones are
//! compared), a second email differing only in case is refused as a
//! duplicate, the guard counts on the index only for queries sent with the
//! same collation (`Find::collation`; without it the server scans), and
//! the same keys without the collation, or with another strength, are drift.

mod support;

use bson::{doc, Document as BsonDocument};
use schema_core::collation::IndexCollation;
use schema_core::prelude::*;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

/// Emails unique whatever their case.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(
    collection = "members",
    index(keys(email = asc), unique, collation(locale = "en", strength = 2))
)]
struct Member {
    #[serde(rename = "_id")]
    id: String,
    email: String,
}

/// The same index, case counting (the default strength, 3).
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(
    collection = "members",
    index(keys(email = asc), unique, collation(locale = "en"))
)]
struct MemberCaseSensitive {
    #[serde(rename = "_id")]
    id: String,
    email: String,
}

/// The same keys with no collation.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "members", index(keys(email = asc), unique))]
struct MemberPlain {
    #[serde(rename = "_id")]
    id: String,
    email: String,
}

/// The guard refused the query: `Unindexed`, and nothing sent since `log`
/// was cleared.
fn refused<T: std::fmt::Debug>(log: &schema_testkit::CommandLog, result: Result<T, Error>) {
    let err = result.unwrap_err();
    assert!(matches!(err, Error::Unindexed { .. }), "{err}");
    assert_eq!(log.take().len(), 0, "nothing sent");
}

async fn listed_email_index(db: &mongodb::Database) -> BsonDocument {
    support::listed_index(db, "members", "email_1")
        .await
        .expect("email_1 listed")
}

#[tokio::test]
async fn a_collated_unique_index_is_created_kept_in_sync_and_enforced() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "collation_indexes").await;
    let schema = Schema::new().with::<Member>();
    let plan = schema.plan(&db).await.unwrap();
    assert!(
        plan.to_string()
            .contains("email_1 { \"email\": 1 } unique collation={locale: en, strength: 2}"),
        "{plan}"
    );
    schema.sync(&db).await.unwrap();
    let listed = listed_email_index(&db).await;
    let collation = listed.get_document("collation").expect("a collation");
    assert_eq!(collation.get_str("locale").unwrap(), "en");
    assert_eq!(collation.get_i32("strength").unwrap(), 2);
    let second = schema.plan(&db).await.unwrap();
    assert!(second.is_empty(), "in sync the second time: {second}");
    assert!(schema.sync(&db).await.unwrap().applied.is_empty());

    // Unique whatever the case: the second insert is refused, not stored.
    let members = Repo::<Member>::new(&db);
    members
        .insert(&Member {
            id: "m1".into(),
            email: "Ann@Example.org".into(),
        })
        .await
        .unwrap();
    let err = members
        .insert(&Member {
            id: "m2".into(),
            email: "ann@EXAMPLE.ORG".into(),
        })
        .await
        .unwrap_err();
    assert!(matches!(err, Error::DuplicateKey { .. }), "{err}");
    let stored = db
        .collection::<BsonDocument>("members")
        .count_documents(doc! {})
        .await
        .unwrap();
    assert_eq!(stored, 1);

    // The framework's queries carry no collation, so the index serves none
    // of them: the guard refuses before sending, and the server agrees it
    // would scan.
    log.clear();
    let ann = "Ann@Example.org".to_owned();
    refused(
        &log,
        members.find(Member::FIELDS.email.eq(&ann)).all().await,
    );
    let plan = members
        .find(Member::FIELDS.email.eq(&ann))
        .scan()
        .explain()
        .await
        .unwrap();
    assert!(plan.is_collscan(), "{plan}");

    // Sent with the index's collation, the same query rides it: the guard
    // lets it through, the server finds the one member whatever the case.
    let en2 = || IndexCollation::new("en").strength(2);
    let any_case = "ANN@example.ORG".to_owned();
    let found = members
        .find(Member::FIELDS.email.eq(&any_case))
        .collation(en2())
        .all()
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].id, "m1");
    let one = members
        .find_one(Member::FIELDS.email.eq(&any_case))
        .collation(en2())
        .await
        .unwrap();
    assert_eq!(one.map(|m| m.id).as_deref(), Some("m1"));
    let counted = members
        .count(Member::FIELDS.email.eq(&any_case))
        .collation(en2())
        .await
        .unwrap();
    assert_eq!(counted, 1, "counted whatever the case");
    log.clear();
    refused(
        &log,
        members.count(Member::FIELDS.email.eq(&any_case)).await,
    );
    let plan = members
        .find(Member::FIELDS.email.eq(&any_case))
        .collation(en2())
        .explain()
        .await
        .unwrap();
    assert!(
        plan.stages.iter().any(|s| s.ends_with("IXSCAN(email_1)")),
        "{plan}"
    );
    // (The test server's `explain` picks the index for a collated query but
    // reports `nReturned: 0` for it, where the query itself finds the
    // member: only the plan is read here.)
    // Another strength is another collation: refused, nothing sent.
    log.clear();
    refused(
        &log,
        members
            .find(Member::FIELDS.email.eq(&any_case))
            .collation(IndexCollation::new("en"))
            .all()
            .await,
    );
}

#[tokio::test]
async fn a_collated_query_needs_an_index_with_its_collation() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "collation_queries").await;
    Schema::new().with::<MemberPlain>().sync(&db).await.unwrap();
    let members = Repo::<MemberPlain>::new(&db);
    let ann = "ann@example.org".to_owned();
    // The plain index serves the plain query, and not a collated one:
    // the server would compare the strings by the collation, which the
    // index does not order by.
    assert!(members
        .find(MemberPlain::FIELDS.email.eq(&ann))
        .all()
        .await
        .is_ok());
    log.clear();
    refused(
        &log,
        members
            .find(MemberPlain::FIELDS.email.eq(&ann))
            .collation(IndexCollation::new("en").strength(2))
            .all()
            .await,
    );
    // `_id`'s index has no collation either.
    log.clear();
    refused(
        &log,
        members
            .find(MemberPlain::FIELDS.id.eq(&"m1".to_owned()))
            .collation(IndexCollation::new("en").strength(2))
            .all()
            .await,
    );
}

#[tokio::test]
async fn another_collation_on_the_same_keys_is_drift() {
    let (client, _log) = support::counting_client().await;
    let db = support::fresh_db(&client, "collation_drift").await;
    Schema::new().with::<Member>().sync(&db).await.unwrap();
    for plan in [
        Schema::new()
            .with::<MemberCaseSensitive>()
            .plan(&db)
            .await
            .unwrap(),
        Schema::new().with::<MemberPlain>().plan(&db).await.unwrap(),
    ] {
        assert!(!plan.is_empty(), "drift expected");
        assert!(
            plan.to_string()
                .contains("collation={locale: en, strength: 2}"),
            "the plan names the server's collation: {plan}"
        );
    }
    // Replaced on request; then a collation with no strength is in sync
    // with the server's listing of it (strength 3, every other option
    // filled in).
    let case_sensitive = Schema::new().with::<MemberCaseSensitive>();
    let options = schema_core::SyncOptions {
        replace_conflicting: true,
        ..Default::default()
    };
    case_sensitive.sync_with(&db, options).await.unwrap();
    let listed = listed_email_index(&db).await;
    assert_eq!(
        listed
            .get_document("collation")
            .unwrap()
            .get_i32("strength")
            .unwrap(),
        3
    );
    let again = case_sensitive.plan(&db).await.unwrap();
    assert!(again.is_empty(), "{again}");
}
