//! Collated indexes (`#[document(index(keys(email = asc), unique,
//! collation(locale = "en", strength = 2)))]`): setup creates the index
//! with its collation, the plan finds nothing to do the second time (the
//! server lists every option of the collation; only the declared ones are
//! compared), a second email differing only in case is refused as a
//! duplicate, the guard counts on the index only for queries sent with the
//! same collation (`Find::collation`; without it the server scans), and
//! the same keys without the collation, or with another strength, are drift.

use crate::support;

use bson::{doc, Document as BsonDocument};
use schema_core::prelude::*;
use schema_core::IndexCollation;
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

/// Members with badges: a collated email index and a bounded array, so a
/// push's guarded path (a `find`, then the update under the guard) runs.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(
    collection = "badge_holders",
    index(keys(email = asc), unique, collation(locale = "en", strength = 2))
)]
struct Holder {
    #[serde(rename = "_id")]
    id: String,
    email: String,
    #[embed(max = 2)]
    badges: Vec<String>,
    visits: i64,
}

/// Every command named `name` that `log` kept since it was last taken
/// carries the collation `{locale: en, strength: 2}`; returns how many.
fn collated_commands(sent: &[schema_testkit::Sent], name: &str) -> usize {
    let mine: Vec<_> = sent.iter().filter(|s| s.name == name).collect();
    for s in &mine {
        // Updates and deletes carry it per statement, the others at the top.
        let statements = ["updates", "deletes"]
            .iter()
            .find_map(|key| s.command.get_array(key).ok());
        let collations: Vec<&BsonDocument> = match statements {
            Some(statements) => statements
                .iter()
                .map(|st| st.as_document().unwrap().get_document("collation").unwrap())
                .collect(),
            None => vec![s.command.get_document("collation").unwrap()],
        };
        for c in collations {
            assert_eq!(c.get_str("locale").unwrap(), "en", "{:?}", s.command);
            assert_eq!(c.get_i32("strength").unwrap(), 2, "{:?}", s.command);
        }
    }
    mine.len()
}

/// Filtered writes take `.collation(..)` too: the guard counts on the
/// collated index for them, every command that reads the filter carries
/// the collation (the push's `find`, the guarded update, the read after a
/// full array), and they match whatever the case; without it they are
/// refused before anything is sent.
#[tokio::test]
async fn filtered_writes_carry_the_collation_of_the_index_they_ride() {
    let (client, log) = support::keeping_client().await;
    let db = support::fresh_db(&client, "collation_writes").await;
    Schema::new().with::<Holder>().sync(&db).await.unwrap();
    let holders = Repo::<Holder>::new(&db);
    let f = Holder::FIELDS;
    for (id, email) in [("h1", "Ann@Example.org"), ("h2", "Bob@Example.org")] {
        holders
            .insert(&Holder {
                id: id.into(),
                email: email.into(),
                badges: vec![],
                visits: 0,
            })
            .await
            .unwrap();
    }
    let en2 = || IndexCollation::new("en").strength(2);
    let ann = || f.email.eq(&"ANN@example.ORG".to_owned());
    let unindexed = |r: Result<(), Error>| {
        let err = r.unwrap_err();
        assert!(matches!(err, Error::Unindexed { .. }), "{err}");
    };

    // Without the collation: refused, nothing sent.
    log.take_sent();
    unindexed(holders.update_one(ann(), f.visits.inc(&1)).await.map(drop));
    unindexed(holders.update_many(ann(), f.visits.inc(&1)).await.map(drop));
    unindexed(
        holders
            .find_one_and_update(ann(), f.visits.inc(&1))
            .await
            .map(drop),
    );
    unindexed(holders.delete_many(ann()).await.map(drop));
    unindexed(holders.find_one_and_delete(ann()).await.map(drop));
    assert!(log.take_sent().is_empty(), "nothing sent");

    // With it: each matches Ann whatever the case, and says so on the wire.
    let r = holders
        .update_one(ann(), f.visits.inc(&1))
        .collation(en2())
        .await
        .unwrap();
    assert_eq!((r.matched, r.modified), (1, 1));
    let r = holders
        .update_many(ann(), f.visits.inc(&1))
        .collation(en2())
        .await
        .unwrap();
    assert_eq!(r.matched, 1);
    let after = holders
        .find_one_and_update(ann(), f.visits.inc(&1))
        .collation(en2())
        .return_document(schema_core::ReturnDocument::After)
        .await
        .unwrap()
        .expect("Ann found");
    assert_eq!((after.id.as_str(), after.visits), ("h1", 3));
    let sent = log.take_sent();
    assert_eq!(collated_commands(&sent, "update"), 2);
    assert_eq!(collated_commands(&sent, "findAndModify"), 1);

    // A bounded push: the pick and the guarded update carry it, and the
    // read that names a full array too.
    for badge in ["early", "kind"] {
        let r = holders
            .update_one(ann(), f.badges.push(&badge.to_owned()))
            .collation(en2())
            .await
            .unwrap();
        assert_eq!(r.modified, 1, "{badge} pushed");
    }
    let err = holders
        .update_one(ann(), f.badges.push(&"third".to_owned()))
        .collation(en2())
        .await
        .unwrap_err();
    assert!(matches!(err, Error::EmbedFull { .. }), "{err}");
    let full = holders
        .find_one_and_update(ann(), f.badges.push(&"third".to_owned()))
        .collation(en2())
        .await
        .unwrap_err();
    assert!(matches!(full, Error::EmbedFull { .. }), "{full}");
    let sent = log.take_sent();
    // Three picks and a read for `update_one`, a pick and a read for
    // `find_one_and_update`.
    assert_eq!(collated_commands(&sent, "find"), 4 + 2, "picks and reads");
    assert_eq!(collated_commands(&sent, "update"), 3);
    assert_eq!(collated_commands(&sent, "findAndModify"), 1);
    let stored = holders.get(&"h1".to_owned()).await.unwrap().unwrap();
    assert_eq!(stored.badges, ["early", "kind"], "nothing past the max");

    // Deletes: Ann by another case, then Bob by many.
    let gone = holders
        .find_one_and_delete(ann())
        .collation(en2())
        .await
        .unwrap()
        .expect("Ann deleted");
    assert_eq!(gone.id, "h1");
    let many = holders
        .delete_many(f.email.eq(&"bob@EXAMPLE.org".to_owned()))
        .collation(en2())
        .await
        .unwrap();
    assert_eq!(many, 1);
    let sent = log.take_sent();
    assert_eq!(collated_commands(&sent, "findAndModify"), 1);
    assert_eq!(collated_commands(&sent, "delete"), 1);
    let left = db
        .collection::<BsonDocument>("badge_holders")
        .count_documents(doc! {})
        .await
        .unwrap();
    assert_eq!(left, 0);
}
