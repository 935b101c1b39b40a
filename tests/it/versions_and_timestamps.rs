//! Optimistic concurrency (`#[document(version)]`) and timestamps
//! (`#[document(timestamps)]`) against the real server: eight racing
//! read-modify-replace writers, one winner per version; `if_version` on an
//! update; the version bumped by every update helper; the times set on
//! insert and upsert and bumped by updates, replaces and pushes; the
//! other side of a two-sided link stamped when a delete pulls from it.

use crate::support;

use std::sync::Arc;

use bson::{doc, DateTime, Document as BsonDocument};
use schema_core::prelude::*;
use schema_core::ReturnDocument;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "accounts", version, timestamps)]
struct Account {
    #[serde(rename = "_id")]
    id: String,
    balance: i64,
    #[embed(max = 5)]
    notes: Vec<String>,
    version: i64,
    created_at: DateTime,
    updated_at: DateTime,
}

/// A version under another name, as an `i32`.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "drafts", version = "rev")]
struct Draft {
    #[serde(rename = "_id")]
    id: String,
    text: String,
    rev: i32,
}

/// One side of a two-sided link whose other side keeps a version and
/// timestamps.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "members")]
struct Member {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(two_sided, to = Club, inverse = member_ids, max = 10)]
    club_ids: Vec<String>,
}

/// The side a cascading delete pulls from.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "clubs", version, timestamps)]
struct Club {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(two_sided, to = Member, inverse = club_ids, max = 10)]
    member_ids: Vec<String>,
    version: i64,
    created_at: DateTime,
    updated_at: DateTime,
}

fn account(id: &str) -> Account {
    Account {
        id: id.to_owned(),
        balance: 0,
        notes: vec![],
        version: 0,
        created_at: DateTime::from_millis(0),
        updated_at: DateTime::from_millis(0),
    }
}

fn s(v: &str) -> String {
    v.to_owned()
}

async fn setup(test: &str) -> (mongodb::Database, Repo<Account>) {
    let client = support::client().await;
    let db = support::fresh_db(&client, test).await;
    Schema::new()
        .with::<Account>()
        .with::<Draft>()
        .sync(&db)
        .await
        .unwrap();
    let repo = Repo::<Account>::new(&db);
    (db, repo)
}

async fn stored(db: &mongodb::Database, id: &str) -> BsonDocument {
    db.collection::<BsonDocument>("accounts")
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_racing_writers_one_wins_per_version() {
    const WRITERS: usize = 8;
    const ROUNDS: usize = 10;
    let (_db, accounts) = setup("racing_writers").await;
    accounts.insert(&account("a1")).await.unwrap();
    let accounts = Arc::new(accounts);
    let barrier = Arc::new(tokio::sync::Barrier::new(WRITERS));
    let mut tasks = Vec::new();
    for _ in 0..WRITERS {
        let (accounts, barrier) = (accounts.clone(), barrier.clone());
        tasks.push(tokio::spawn(async move {
            let mut outcomes = Vec::new();
            for _ in 0..ROUNDS {
                // Every writer reads the same version, then all replace.
                barrier.wait().await;
                let mut read = accounts.get(&s("a1")).await.unwrap().unwrap();
                barrier.wait().await;
                let version = read.version;
                read.balance += 1;
                outcomes.push((version, accounts.replace(&read).await));
            }
            outcomes
        }));
    }
    let mut wins_per_version = std::collections::BTreeMap::<i64, usize>::new();
    let (mut wins, mut conflicts) = (0, 0);
    for task in tasks {
        for (version, outcome) in task.await.unwrap() {
            match outcome {
                Ok(true) => {
                    wins += 1;
                    *wins_per_version.entry(version).or_default() += 1;
                }
                Err(Error::Conflict {
                    model,
                    id,
                    expected,
                    ..
                }) => {
                    assert_eq!((model, id.as_str(), expected), ("Account", "a1", version));
                    conflicts += 1;
                }
                other => panic!("neither a win nor a conflict: {other:?}"),
            }
        }
    }
    // Exactly one writer wins each version; the seven others conflict.
    assert_eq!(wins, ROUNDS);
    assert_eq!(conflicts, ROUNDS * (WRITERS - 1));
    assert!(
        wins_per_version.values().all(|n| *n == 1),
        "{wins_per_version:?}"
    );
    assert_eq!(
        wins_per_version.keys().copied().collect::<Vec<_>>(),
        (0..ROUNDS as i64).collect::<Vec<_>>()
    );
    // Nothing a loser wrote is kept: the balance counts the wins alone.
    let last = accounts.get(&s("a1")).await.unwrap().unwrap();
    assert_eq!(last.version, wins as i64);
    assert_eq!(last.balance, wins as i64);
}

#[tokio::test]
async fn every_update_helper_bumps_the_version_and_if_version_checks_it() {
    let (_db, accounts) = setup("version_updates").await;
    let f = Account::FIELDS;
    let id = s("a1");
    accounts.insert(&account("a1")).await.unwrap();
    let version = || async { accounts.get(&s("a1")).await.unwrap().unwrap().version };

    assert!(accounts.update(&id, f.balance.set(&5)).await.unwrap());
    assert_eq!(version().await, 1);
    accounts
        .embed(Account::FIELDS.notes)
        .push(&id, &s("n"))
        .await
        .unwrap();
    assert_eq!(version().await, 2);
    accounts
        .update_one(f.id.eq(&id), f.balance.inc(&1))
        .await
        .unwrap();
    accounts
        .update_many(f.balance.gte(&0), f.balance.inc(&1))
        .scan()
        .await
        .unwrap();
    let after = accounts
        .find_one_and_update(f.id.eq(&id), f.balance.inc(&1))
        .return_document(ReturnDocument::After)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((after.version, after.balance), (5, 8));

    // A stale version: refused, nothing written.
    let err = accounts
        .update(&id, f.balance.set(&100))
        .if_version(4)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Conflict { expected: 4, id, .. } if id == "a1"),
        "{err}"
    );
    assert_eq!(accounts.get(&id).await.unwrap().unwrap().balance, 8);
    assert!(accounts
        .update(&id, f.balance.set(&100))
        .if_version(5)
        .await
        .unwrap());
    assert_eq!(version().await, 6);
    // A missing document is not a conflict.
    assert!(!accounts
        .update(&s("nope"), f.balance.set(&1))
        .if_version(0)
        .await
        .unwrap());

    // The helpers keep the version: an update may not set it.
    let err = accounts.update(&id, f.version.set(&0)).await.unwrap_err();
    assert!(
        matches!(&err, Error::Model(m) if m.contains("`version`")),
        "{err}"
    );
    assert_eq!(version().await, 6);
    // A replace of a missing document is not a conflict either.
    assert!(!accounts.replace(&account("nope")).await.unwrap());
}

#[tokio::test]
async fn a_renamed_i32_version_is_checked_and_bumped() {
    let (db, _accounts) = setup("version_rev").await;
    let drafts = Repo::<Draft>::new(&db);
    let mut draft = Draft {
        id: s("d1"),
        text: s("one"),
        rev: 7,
    };
    drafts.insert(&draft).await.unwrap();
    draft.text = s("two");
    assert!(drafts.replace(&draft).await.unwrap());
    let raw = db
        .collection::<BsonDocument>("drafts")
        .find_one(doc! { "_id": "d1" })
        .await
        .unwrap()
        .unwrap();
    // Stored as an `int`, as the validator wants.
    assert_eq!(raw.get("rev"), Some(&bson::Bson::Int32(8)));
    // `draft` still says 7: replacing it again is a lost race.
    let err = drafts.replace(&draft).await.unwrap_err();
    assert!(
        matches!(
            &err,
            Error::Conflict {
                model: "Draft",
                expected: 7,
                ..
            }
        ),
        "{err}"
    );
    drafts
        .update(&s("d1"), Draft::FIELDS.text.set("three"))
        .await
        .unwrap();
    let now = drafts.get(&s("d1")).await.unwrap().unwrap();
    assert_eq!((now.rev, now.text.as_str()), (9, "three"));
}

#[tokio::test]
async fn timestamps_are_set_on_insert_and_bumped_by_every_write() {
    let (db, accounts) = setup("timestamps").await;
    let f = Account::FIELDS;
    let id = s("a1");
    let before = DateTime::now();
    accounts.insert(&account("a1")).await.unwrap();
    let raw = stored(&db, "a1").await;
    let created = raw.get_datetime("createdAt").unwrap().to_owned();
    let updated = raw.get_datetime("updatedAt").unwrap().to_owned();
    assert!(created >= before, "createdAt {created} is before {before}");
    assert_eq!(created, updated);

    // Each write moves updatedAt on and leaves createdAt.
    let mut last = updated;
    let mut check = |raw: BsonDocument, what: &str| {
        let now = *raw.get_datetime("updatedAt").unwrap();
        assert!(now > last, "{what}: updatedAt {now} not after {last}");
        assert_eq!(*raw.get_datetime("createdAt").unwrap(), created, "{what}");
        last = now;
    };
    let pause = || tokio::time::sleep(std::time::Duration::from_millis(5));
    pause().await;
    accounts.update(&id, f.balance.set(&1)).await.unwrap();
    check(stored(&db, "a1").await, "update");
    pause().await;
    let mut read = accounts.get(&id).await.unwrap().unwrap();
    read.balance = 2;
    accounts.replace(&read).await.unwrap();
    check(stored(&db, "a1").await, "replace");
    pause().await;
    accounts
        .embed(Account::FIELDS.notes)
        .push(&id, &s("n"))
        .await
        .unwrap();
    check(stored(&db, "a1").await, "push");
    pause().await;
    accounts
        .update_many(f.id.eq(&id), f.balance.inc(&1))
        .await
        .unwrap();
    check(stored(&db, "a1").await, "update_many");

    // An upsert that inserts sets both; insert_many too.
    let r = accounts
        .update_one(
            f.id.eq("a2"),
            f.balance.set(&0) & f.notes.set(&vec![]) & f.version.max(&0),
        )
        .upsert(true)
        .await;
    // The version is the helpers' to keep, even on an upsert.
    assert!(matches!(r, Err(Error::Model(_))), "{r:?}");
    accounts
        .update_one(f.id.eq("a2"), f.balance.set(&0) & f.notes.set(&vec![]))
        .upsert(true)
        .await
        .unwrap();
    let a2 = stored(&db, "a2").await;
    assert_eq!(
        a2.get_datetime("createdAt").ok(),
        a2.get_datetime("updatedAt").ok()
    );
    assert!(*a2.get_datetime("createdAt").unwrap() >= before);
    assert_eq!(accounts.get(&s("a2")).await.unwrap().unwrap().version, 1);
    accounts
        .insert_many(&[account("a3"), account("a4")])
        .await
        .unwrap();
    for id in ["a3", "a4"] {
        let raw = stored(&db, id).await;
        assert!(*raw.get_datetime("createdAt").unwrap() >= before, "{id}");
        assert_eq!(
            raw.get_datetime("createdAt").ok(),
            raw.get_datetime("updatedAt").ok()
        );
    }
}

/// `(version, createdAt, updatedAt, memberIds)` of a club as stored.
async fn club(db: &mongodb::Database, id: &str) -> (i64, DateTime, DateTime, Vec<String>) {
    let raw = db
        .collection::<BsonDocument>("clubs")
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
        .unwrap();
    let members = raw
        .get_array("memberIds")
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_owned())
        .collect();
    (
        raw.get_i64("version").unwrap(),
        *raw.get_datetime("createdAt").unwrap(),
        *raw.get_datetime("updatedAt").unwrap(),
        members,
    )
}

#[tokio::test]
async fn a_cascading_delete_stamps_the_documents_it_pulls_from() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "cascade_stamps").await;
    Schema::new()
        .with::<Member>()
        .with::<Club>()
        .sync(&db)
        .await
        .unwrap();
    let (members, clubs) = (Repo::<Member>::new(&db), Repo::<Club>::new(&db));
    let links = Links::new(&db, Member::FIELDS.club_ids);
    for id in ["m1", "m2", "m3", "m4"] {
        let member = Member {
            id: s(id),
            club_ids: vec![],
        };
        members.insert(&member).await.unwrap();
    }
    for id in ["c1", "c2", "c3"] {
        let club = Club {
            id: s(id),
            member_ids: vec![],
            version: 0,
            created_at: DateTime::from_millis(0),
            updated_at: DateTime::from_millis(0),
        };
        clubs.insert(&club).await.unwrap();
    }
    // c1 holds every member, c2 only m4, c3 none.
    for (m, c) in [
        ("m1", "c1"),
        ("m2", "c1"),
        ("m3", "c1"),
        ("m4", "c1"),
        ("m4", "c2"),
    ] {
        links.link(&s(m), &s(c)).await.unwrap();
    }
    // Each link stamped its club too.
    assert_eq!((club(&db, "c1").await.0, club(&db, "c2").await.0), (4, 1));
    let unlinked = club(&db, "c3").await;
    assert_eq!(unlinked.0, 0);

    // Each delete: the clubs it pulls from are at their version plus one
    // (one write each, however many ids it pulls) with a later updatedAt;
    // the others are untouched.
    let pause = || tokio::time::sleep(std::time::Duration::from_millis(5));
    let f = Member::FIELDS;
    let deletes: [(&str, &[&str]); 3] = [
        ("delete", &["c1"]),
        ("delete_many", &["c1"]),
        ("find_one_and_delete", &["c1", "c2"]),
    ];
    for (what, pulled) in deletes {
        let mut before = Vec::new();
        for id in ["c1", "c2", "c3"] {
            before.push((id, club(&db, id).await));
        }
        pause().await;
        match what {
            "delete" => assert!(members.delete(&s("m1")).await.unwrap()),
            "delete_many" => {
                let ids = [s("m2"), s("m3")];
                assert_eq!(members.delete_many(f.id.is_in(&ids)).await.unwrap(), 2);
            }
            _ => assert!(members
                .find_one_and_delete(f.id.eq("m4"))
                .await
                .unwrap()
                .is_some()),
        }
        for (id, (version, created, updated, held)) in before {
            let now = club(&db, id).await;
            assert_eq!(now.1, created, "{what}: {id}'s createdAt");
            if pulled.contains(&id) {
                assert_eq!(now.0, version + 1, "{what}: {id}'s version");
                assert!(
                    now.2 > updated,
                    "{what}: {id}'s updatedAt {} not after {updated}",
                    now.2
                );
                assert!(
                    now.3.len() < held.len(),
                    "{what}: {id} still holds {:?}",
                    now.3
                );
            } else {
                assert_eq!(
                    (now.0, now.2, &now.3),
                    (version, updated, &held),
                    "{what}: {id}"
                );
            }
        }
    }
    // Every link is gone; c3 never changed.
    for id in ["c1", "c2"] {
        assert!(club(&db, id).await.3.is_empty(), "{id}");
    }
    assert_eq!(club(&db, "c3").await, unlinked);
}
