//! Versioned models (`#[document(migrate_from(..))]`, the schema versioning
//! pattern) on the test server: the validator accepts every version's whole
//! document and nothing else, a document at any version reads as the
//! current shape, new documents are written at the current version, and
//! `Repo::migrate` upgrades every earlier one in batches while another
//! writer replaces documents (none of its writes lost), stopping at a
//! document its step refuses with that document's `_id` and nothing of its
//! batch written; run again it finishes.

use crate::people;
use crate::support;

use bson::{doc, Document as BsonDocument};
use futures_util::TryStreamExt;
use people::Person;
use schema_core::prelude::*;
use schema_core::{Error, Schema};
use schema_core::{MigrateOptions, VERSION_FIELD};
use serde::{Deserialize, Serialize};

async fn stored(db: &mongodb::Database, id: &str) -> BsonDocument {
    db.collection::<BsonDocument>("people")
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test]
async fn every_version_reads_as_the_current_shape_and_is_accepted_whole() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "versions_read").await;
    Schema::new().with::<Person>().sync(&db).await.unwrap();
    let raw = db.collection::<BsonDocument>("people");
    // Written by the code of each version: version 1 knew nothing of
    // versions, version 2 documents carry theirs.
    raw.insert_one(doc! { "_id": "ada", "name": "Ada Lovelace" })
        .await
        .unwrap();
    raw.insert_one(doc! { "_id": "alan", "first": "Alan", "last": "Turing", VERSION_FIELD: 2 })
        .await
        .unwrap();
    // The validator: a whole document of one version, nothing else.
    for bad in [
        doc! { "_id": "x1", "first": "No", "last": "Version" },
        doc! { "_id": "x2", "name": "Two Shapes", VERSION_FIELD: 2 },
        doc! { "_id": "x3", "first": "A", "last": "B", "email": "a@b", VERSION_FIELD: 9 },
    ] {
        let err = raw.insert_one(bad.clone()).await.unwrap_err();
        assert!(err.to_string().contains("validation"), "{bad}: {err}");
    }

    let people = Repo::<Person>::new(&db);
    let ada = people.get(&"ada".to_owned()).await.unwrap().unwrap();
    assert_eq!(
        ada,
        Person {
            id: "ada".into(),
            first: "Ada".into(),
            last: "Lovelace".into(),
            email: "ada.lovelace@example.org".into(),
        }
    );
    let alan = people.get(&"alan".to_owned()).await.unwrap().unwrap();
    assert_eq!(alan.email, "alan.turing@example.org");
    // Reading writes nothing.
    assert!(stored(&db, "ada").await.get(VERSION_FIELD).is_none());

    // Written now: the current version.
    let grace = Person {
        id: "grace".into(),
        first: "Grace".into(),
        last: "Hopper".into(),
        email: "grace@example.org".into(),
    };
    people.insert(&grace).await.unwrap();
    assert_eq!(
        stored(&db, "grace").await.get_i32(VERSION_FIELD).unwrap(),
        3
    );
    // A replace stores the current shape whatever it replaces.
    let mut ada = ada;
    ada.email = "ada@example.org".into();
    assert!(people.replace(&ada).await.unwrap());
    let ada_stored = stored(&db, "ada").await;
    assert_eq!(ada_stored.get_i32(VERSION_FIELD).unwrap(), 3);
    assert!(ada_stored.get("name").is_none());
    // `upgrade` by id in a session's transaction, aborted: nothing stays.
    let mut session = client.start_session().await.unwrap();
    session.start_transaction().await.unwrap();
    assert!(people
        .upgrade(&"alan".to_owned())
        .session(&mut session)
        .await
        .unwrap());
    session.abort_transaction().await.unwrap();
    assert_eq!(stored(&db, "alan").await.get_i32(VERSION_FIELD).unwrap(), 2);
    // `upgrade` by id: Alan, once.
    assert!(people.upgrade(&"alan".to_owned()).await.unwrap());
    assert!(!people.upgrade(&"alan".to_owned()).await.unwrap());
    assert_eq!(stored(&db, "alan").await.get_i32(VERSION_FIELD).unwrap(), 3);

    // A document whose step refuses: the read names it, nothing written.
    raw.insert_one(doc! { "_id": "plato", "name": "Plato" })
        .await
        .unwrap();
    let err = people.get(&"plato".to_owned()).await.unwrap_err();
    match &err {
        Error::Upgrade {
            id, from, reason, ..
        } => {
            assert_eq!((id.as_str(), *from), ("plato", 1));
            assert!(reason.contains("no space"), "{reason}");
        }
        other => panic!("an upgrade error: {other}"),
    }
}

#[tokio::test]
async fn a_migration_upgrades_each_document_once_loses_no_write_and_resumes() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "versions_migrate").await;
    Schema::new().with::<Person>().sync(&db).await.unwrap();
    let raw = db.collection::<BsonDocument>("people");
    let n: usize = 600;
    let docs: Vec<BsonDocument> = (0..n)
        .map(|i| {
            if i.is_multiple_of(2) {
                doc! { "_id": format!("p{i:04}"), "name": format!("First{i} Last{i}") }
            } else {
                doc! { "_id": format!("p{i:04}"), "first": format!("First{i}"), "last": format!("Last{i}"), VERSION_FIELD: 2 }
            }
        })
        .collect();
    raw.insert_many(docs).await.unwrap();
    // Sorted after every `p0..`: the last the migration reaches.
    raw.insert_one(doc! { "_id": "plato", "name": "Plato" })
        .await
        .unwrap();
    let plato_before = stored(&db, "plato").await;
    // The plan counts the documents per version, before.
    let schema = Schema::new().with::<Person>();
    let plan = schema.plan(&db).await.unwrap();
    assert_eq!(plan.versions[0].counts, [(1, 301), (2, 300)], "{plan}");
    assert_eq!(plan.versions[0].earlier(), 601);
    assert!(
        plan.to_string()
            .contains("versions: people: 301 at v1, 300 at v2\n"),
        "{plan}"
    );

    // Another writer replaces every tenth document while the migration runs.
    let writer = {
        let people = Repo::<Person>::new(&db);
        tokio::spawn(async move {
            for i in (0..n).step_by(10) {
                let person = Person {
                    id: format!("p{i:04}"),
                    first: "Written".into(),
                    last: "Meanwhile".into(),
                    email: format!("w{i}@example.org"),
                };
                assert!(people.replace(&person).await.unwrap());
                tokio::task::yield_now().await;
            }
        })
    };
    let people = Repo::<Person>::new(&db);
    let mut reports = Vec::new();
    let options = MigrateOptions {
        batch_size: 50,
        ..MigrateOptions::default()
    };
    let err = people
        .migrate(options, |p| reports.push(p.clone()))
        .await
        .unwrap_err();
    writer.await.unwrap();
    assert!(
        matches!(&err, Error::Upgrade { id, .. } if id == "plato"),
        "{err}"
    );
    assert_eq!(
        stored(&db, "plato").await,
        plato_before,
        "nothing of it written"
    );
    // After each batch of 50: what it upgraded or found upgraded by the
    // writer, and what was left before it, by version.
    let first = &reports[0];
    assert_eq!(first.upgraded + first.skipped, 50, "{first:?}");
    let left: u64 = first.left.iter().map(|(_, c)| c).sum();
    assert!(left <= n as u64 + 1 && left > n as u64 / 2, "{first:?}");
    assert_eq!(
        first.left.iter().map(|(v, _)| *v).collect::<Vec<_>>(),
        [1, 2]
    );
    for pair in reports.windows(2) {
        assert!(pair[1].upgraded >= pair[0].upgraded);
    }

    // Plato fixed by hand; run again, it finishes with Plato's batch,
    // nothing of which the first run wrote.
    raw.update_one(
        doc! { "_id": "plato" },
        doc! { "$set": { "name": "Plato Athens" } },
    )
    .await
    .unwrap();
    let done = people
        .migrate(MigrateOptions::default(), |_| {})
        .await
        .unwrap();
    assert!(done.upgraded >= 1 && done.upgraded <= 50, "{done:?}");
    assert_eq!(done.skipped, 0);
    assert_eq!(
        stored(&db, "plato").await.get_i32(VERSION_FIELD).unwrap(),
        3
    );
    // Every document: the current version, once; the writer's
    // replacements kept whole.
    let all: Vec<BsonDocument> = raw
        .find(doc! { "_id": { "$ne": "plato" } })
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(all.len(), n);
    for d in &all {
        assert_eq!(d.get_i32(VERSION_FIELD).unwrap(), 3, "{d}");
        let i: usize = d.get_str("_id").unwrap()[1..].parse().unwrap();
        if i.is_multiple_of(10) {
            assert_eq!(d.get_str("email").unwrap(), format!("w{i}@example.org"));
        } else {
            assert_eq!(
                d.get_str("email").unwrap(),
                format!("first{i}.last{i}@example.org")
            );
        }
    }

    let again = people
        .migrate(MigrateOptions::default(), |_| {})
        .await
        .unwrap();
    assert_eq!((again.upgraded, again.left.len()), (0, 0));
    // And after.
    let plan = schema.plan(&db).await.unwrap();
    assert_eq!(plan.versions[0].counts, [(3, 601)], "{plan}");
    assert_eq!(plan.versions[0].earlier(), 0);
    assert_eq!(
        plan.to_string(),
        "in sync: nothing to do\nversions: people: 601 at v3 (current)\n"
    );
}

/// Version 3 once no earlier version is left: `schema_version = 3` alone,
/// so typed updates compile again.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "people", schema_version = 3)]
struct PersonDone {
    #[serde(rename = "_id")]
    id: String,
    first: String,
    last: String,
    email: String,
}

/// Dropping the earlier shapes tightens the validator to the current
/// version through setup's tightening plan: refused while a document is
/// at an earlier version (counted, named), applied once `migrate` is done.
#[tokio::test]
async fn the_validator_is_tightened_to_the_current_version_once_none_is_older() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "versions_tighten").await;
    Schema::new().with::<Person>().sync(&db).await.unwrap();
    let raw = db.collection::<BsonDocument>("people");
    raw.insert_one(doc! { "_id": "ada", "name": "Ada Lovelace" })
        .await
        .unwrap();
    let done = Schema::new().with::<PersonDone>();
    let plan = done.plan(&db).await.unwrap();
    let violators = plan
        .steps
        .iter()
        .find_map(|a| match a {
            schema_core::Step::UpdateValidator { violators, .. } => Some(violators.clone()),
            _ => None,
        })
        .expect("the validator changes");
    assert_eq!(violators.count, 1, "{plan}");
    let err = done.sync(&db).await.unwrap_err();
    assert!(
        matches!(err, Error::ValidatorRejectsExisting { .. }),
        "{err}"
    );

    Repo::<Person>::new(&db)
        .migrate(MigrateOptions::default(), |_| {})
        .await
        .unwrap();
    done.sync(&db).await.unwrap();
    assert!(done.plan(&db).await.unwrap().is_empty());
    let people = Repo::<PersonDone>::new(&db);
    let f = PersonDone::FIELDS;
    people
        .update(&"ada".to_owned(), f.email.set("ada@example.org"))
        .await
        .unwrap();
    let ada = people.get(&"ada".to_owned()).await.unwrap().unwrap();
    assert_eq!(ada.email, "ada@example.org");
    assert_eq!(stored(&db, "ada").await.get_i32(VERSION_FIELD).unwrap(), 3);
    // A version-1 document written around the helpers is refused now.
    let err = raw
        .insert_one(doc! { "_id": "alan", "name": "Alan Turing" })
        .await
        .unwrap_err();
    assert!(err.to_string().contains("validation"), "{err}");
}

/// Version 2 of the next model, kept as it was once its own migration
/// finished: `schema_version = 2`, no earlier shapes named.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "cards", schema_version = 2)]
struct CardV2 {
    #[serde(rename = "_id")]
    id: String,
    holder: String,
}

/// Version 1 of it.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "cards")]
struct CardV1 {
    #[serde(rename = "_id")]
    id: String,
    name: String,
}

/// Version 3, current.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "cards", migrate_from(CardV1, CardV2))]
struct Card {
    #[serde(rename = "_id")]
    id: String,
    holder: String,
    limit: i64,
}

impl schema_core::Upgrade<CardV1> for CardV2 {
    fn upgrade(old: CardV1) -> Result<Self, String> {
        Ok(CardV2 {
            id: old.id,
            holder: old.name,
        })
    }
}

impl schema_core::Upgrade<CardV2> for Card {
    fn upgrade(old: CardV2) -> Result<Self, String> {
        Ok(Card {
            id: old.id,
            holder: old.holder,
            limit: 100,
        })
    }
}

/// An earlier shape that declares its own `schema_version` (at its place
/// in `migrate_from`) is taken: its validator branch requires the field
/// once, version 1 still may lack it, and both read as the current shape.
#[tokio::test]
async fn an_earlier_shape_with_its_own_schema_version_is_one_version() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "versions_kept").await;
    Schema::new().with::<Card>().sync(&db).await.unwrap();
    let raw = db.collection::<BsonDocument>("cards");
    raw.insert_one(doc! { "_id": "a", "name": "Ada" })
        .await
        .unwrap();
    raw.insert_one(doc! { "_id": "b", "holder": "Bo", VERSION_FIELD: 2 })
        .await
        .unwrap();
    let err = raw
        .insert_one(doc! { "_id": "c", "holder": "Cy" })
        .await
        .unwrap_err();
    assert!(err.to_string().contains("validation"), "{err}");
    let cards = Repo::<Card>::new(&db);
    let b = cards.get(&"b".to_owned()).await.unwrap().unwrap();
    assert_eq!((b.holder.as_str(), b.limit), ("Bo", 100));
    let done = cards
        .migrate(MigrateOptions::default(), |_| {})
        .await
        .unwrap();
    assert_eq!(done.upgraded, 2);
    let a = cards.get(&"a".to_owned()).await.unwrap().unwrap();
    assert_eq!((a.holder.as_str(), a.limit), ("Ada", 100));
}

/// `write_back_upgrades`: a read by `_id` writes back each document it
/// upgrades (in the read's transaction when it has one), and a document at
/// the current version is read without a write.
#[tokio::test]
async fn reads_by_id_write_back_their_upgrades_when_asked() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "versions_write_back").await;
    Schema::new().with::<Person>().sync(&db).await.unwrap();
    let raw = db.collection::<BsonDocument>("people");
    raw.insert_many([
        doc! { "_id": "ada", "name": "Ada Lovelace" },
        doc! { "_id": "alan", "first": "Alan", "last": "Turing", VERSION_FIELD: 2 },
        doc! { "_id": "grace", "name": "Grace Hopper" },
    ])
    .await
    .unwrap();
    let people = Repo::<Person>::new(&db).write_back_upgrades();

    // In a transaction that aborts: the write-back goes with it.
    let mut session = client.start_session().await.unwrap();
    session.start_transaction().await.unwrap();
    let ada = people
        .get(&"ada".to_owned())
        .session(&mut session)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ada.email, "ada.lovelace@example.org");
    session.abort_transaction().await.unwrap();
    assert!(stored(&db, "ada").await.get(VERSION_FIELD).is_none());

    log.take_operations();
    let ada = people.get(&"ada".to_owned()).await.unwrap().unwrap();
    assert_eq!(ada.email, "ada.lovelace@example.org");
    assert_eq!(log.take_operations(), ["find", "update"]);
    let ada_stored = stored(&db, "ada").await;
    assert_eq!(ada_stored.get_i32(VERSION_FIELD).unwrap(), 3);
    assert_eq!(
        ada_stored.get_str("email").unwrap(),
        "ada.lovelace@example.org"
    );
    // At the current version now: read without a write.
    log.take_operations();
    assert_eq!(people.get(&"ada".to_owned()).await.unwrap().unwrap(), ada);
    assert_eq!(log.take_operations(), ["find"]);

    // `get_many`: both earlier ones in one `update`.
    log.take_operations();
    let ids = ["ada".to_owned(), "alan".to_owned(), "grace".to_owned()];
    let mut read = people.get_many(&ids).await.unwrap();
    read.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(read.len(), 3);
    assert_eq!(read[1].email, "alan.turing@example.org");
    assert_eq!(log.take_operations(), ["find", "update"]);
    assert_eq!(
        raw.count_documents(doc! { VERSION_FIELD: 3 })
            .await
            .unwrap(),
        3
    );
}

/// The parent of [`Note`] (not versioned).
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "authors")]
struct Author {
    #[serde(rename = "_id")]
    id: String,
    name: String,
}

/// A note's first shape: its text only.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(collection = "notes")]
struct NoteV1 {
    #[serde(rename = "_id")]
    id: String,
    author_id: String,
    text: String,
}

/// A note now: its words counted, a child of its author.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "notes", migrate_from(NoteV1))]
struct Note {
    #[serde(rename = "_id")]
    id: String,
    #[reference(index, to = Author)]
    author_id: String,
    text: String,
    words: i32,
}

impl schema_core::Upgrade<NoteV1> for Note {
    fn upgrade(old: NoteV1) -> Result<Self, String> {
        let words =
            i32::try_from(old.text.split_whitespace().count()).map_err(|e| e.to_string())?;
        Ok(Note {
            id: old.id,
            author_id: old.author_id,
            text: old.text,
            words,
        })
    }
}

/// A view of a person: the email, which version 1 and 2 documents lack
/// (their upgrade makes it), and no `_id`.
#[derive(Projection, Deserialize, Debug, PartialEq)]
#[projection(of = Person)]
struct Contact {
    email: String,
}

/// A view of a note with its `_id`, refusing any other field.
#[derive(Projection, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[projection(of = Note)]
struct Counted {
    #[serde(rename = "_id")]
    id: String,
    words: i32,
}

#[tokio::test]
async fn every_read_path_upgrades_documents_of_every_version() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "versions_every_read").await;
    Schema::new()
        .with::<Person>()
        .with::<Author>()
        .with::<Note>()
        .sync(&db)
        .await
        .unwrap();
    let raw = db.collection::<BsonDocument>("people");
    // One person at each version, stored as that version's code wrote it.
    raw.insert_one(doc! { "_id": "p1", "name": "Ada Lovelace" })
        .await
        .unwrap();
    raw.insert_one(doc! { "_id": "p2", "first": "Alan", "last": "Turing", VERSION_FIELD: 2 })
        .await
        .unwrap();
    raw.insert_one(doc! {
        "_id": "p3", "first": "Grace", "last": "Hopper",
        "email": "grace.hopper@example.org", VERSION_FIELD: 3,
    })
    .await
    .unwrap();
    let expected = |id: &str, first: &str, last: &str| Person {
        id: id.into(),
        first: first.into(),
        last: last.into(),
        email: format!("{first}.{last}@example.org").to_lowercase(),
    };
    let all = vec![
        expected("p1", "Ada", "Lovelace"),
        expected("p2", "Alan", "Turing"),
        expected("p3", "Grace", "Hopper"),
    ];
    let emails: Vec<Contact> = all
        .iter()
        .map(|p| Contact {
            email: p.email.clone(),
        })
        .collect();
    let people = Repo::<Person>::new(&db);
    let ids: Vec<String> = all.iter().map(|p| p.id.clone()).collect();
    let by_ids = || Person::FIELDS.id.is_in(&ids);

    // By `_id`.
    for p in &all {
        assert_eq!(people.get(&p.id).await.unwrap().as_ref(), Some(p), "get");
    }
    let mut many = people.get_many(&ids).await.unwrap();
    many.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(many, all, "get_many");
    // `find`: awaited as a stream, `all`, `stream`, `page`, `find_one`.
    let streamed: Vec<Person> = people
        .find(by_ids())
        .sort(Person::FIELDS.id.asc())
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(streamed, all, "find awaited");
    let listed = people
        .find(by_ids())
        .sort(Person::FIELDS.id.asc())
        .all()
        .await
        .unwrap();
    assert_eq!(listed, all, "find().all()");
    let streamed: Vec<Person> = people
        .find(by_ids())
        .sort(Person::FIELDS.id.asc())
        .stream()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(streamed, all, "find().stream()");
    let mut paged = Vec::new();
    let mut page = people.find(by_ids()).page(2).await.unwrap();
    loop {
        paged.append(&mut page.items);
        let Some(next) = page.next.take() else { break };
        page = people.find(by_ids()).after(next).page(2).await.unwrap();
    }
    assert_eq!(paged, all, "find().page()");
    for p in &all {
        let one = people.find_one(Person::FIELDS.id.eq(&p.id)).await.unwrap();
        assert_eq!(one.as_ref(), Some(p), "find_one");
        // A view of the upgrade: the email exists only there for p1, p2.
        let view = people
            .find_one(Person::FIELDS.id.eq(&p.id))
            .projection::<Contact>()
            .await
            .unwrap();
        assert_eq!(
            view.map(|c| c.email),
            Some(p.email.clone()),
            "find_one view"
        );
    }
    // Views through every multi-document path.
    let views: Vec<Contact> = people
        .find(by_ids())
        .sort(Person::FIELDS.id.asc())
        .projection::<Contact>()
        .stream()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(views, emails, "find().projection().stream()");
    let page = people
        .find(by_ids())
        .projection::<Contact>()
        .page(3)
        .await
        .unwrap();
    assert_eq!(page.items, emails, "find().projection().page()");

    // Children, joins and `find_one_and_delete` on a versioned child.
    Repo::<Author>::new(&db)
        .insert(&Author {
            id: "ada".into(),
            name: "Ada".into(),
        })
        .await
        .unwrap();
    let raw_notes = db.collection::<BsonDocument>("notes");
    raw_notes
        .insert_one(doc! { "_id": "n1", "authorId": "ada", "text": "one two three" })
        .await
        .unwrap();
    raw_notes
        .insert_one(doc! {
            "_id": "n2", "authorId": "ada", "text": "four five", "words": 2, VERSION_FIELD: 2,
        })
        .await
        .unwrap();
    let notes = Repo::<Note>::new(&db);
    let note = |id: &str, text: &str, words: i32| Note {
        id: id.into(),
        author_id: "ada".into(),
        text: text.into(),
        words,
    };
    let both = vec![note("n1", "one two three", 3), note("n2", "four five", 2)];
    let children = notes
        .children(Note::FIELDS.author_id, &"ada".to_owned())
        .page()
        .await
        .unwrap();
    assert_eq!(children.items, both, "children");
    let family = notes
        .children(Note::FIELDS.author_id, &"ada".to_owned())
        .with_parent()
        .page()
        .await
        .unwrap();
    assert_eq!(family.children, both, "with_parent");
    let joined = notes
        .find(Note::FIELDS.author_id.eq("ada"))
        .with_parents(Note::FIELDS.author_id)
        .page(10)
        .await
        .unwrap();
    let joined: Vec<Note> = joined.items.into_iter().map(|(n, _)| n).collect();
    assert_eq!(joined, both, "with_parents");
    // A view with its `_id` that refuses unknown fields, of both versions.
    let counted: Vec<Counted> = notes
        .find(Note::FIELDS.author_id.eq("ada"))
        .projection::<Counted>()
        .all()
        .await
        .unwrap();
    assert_eq!(
        counted,
        vec![
            Counted {
                id: "n1".into(),
                words: 3
            },
            Counted {
                id: "n2".into(),
                words: 2
            }
        ]
    );
    let taken = notes
        .find_one_and_delete(Note::FIELDS.id.eq("n1"))
        .await
        .unwrap();
    assert_eq!(taken, Some(both[0].clone()), "find_one_and_delete");

    // A document whose upgrade is refused: every path names it.
    raw.insert_one(doc! { "_id": "p4", "name": "Plato" })
        .await
        .unwrap();
    let err = people
        .find(Person::FIELDS.id.eq("p4"))
        .projection::<Contact>()
        .all()
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Upgrade { id, .. } if id == "p4"),
        "{err}"
    );
    let err = people
        .find_one(Person::FIELDS.id.eq("p4"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Upgrade { id, .. } if id == "p4"),
        "{err}"
    );
}

/// A ship's first shape: its log.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "ships")]
struct ShipV1 {
    #[serde(rename = "_id")]
    id: String,
    #[serde(rename = "tenantId")]
    tenant: String,
    #[embed(max = 8)]
    log: Vec<String>,
}

/// A ship now: sharded on its tenant (stored renamed), and its upgrade
/// writes one more line to the log, which holds at most 8.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "ships", shard_key(tenant), migrate_from(ShipV1))]
struct Ship {
    #[serde(rename = "_id")]
    id: String,
    #[serde(rename = "tenantId")]
    tenant: String,
    #[embed(max = 8)]
    log: Vec<String>,
}

impl schema_core::Upgrade<ShipV1> for Ship {
    fn upgrade(old: ShipV1) -> Result<Self, String> {
        let mut log = old.log;
        log.push("upgraded".into());
        Ok(Ship {
            id: old.id,
            tenant: old.tenant,
            log,
        })
    }
}

async fn insert_ships(db: &mongodb::Database, lines: &[usize]) {
    let raw = db.collection::<BsonDocument>("ships");
    for (i, n) in lines.iter().enumerate() {
        let log: Vec<String> = (0..*n).map(|l| format!("line {l}")).collect();
        raw.insert_one(
            doc! { "_id": format!("s{i:02}"), "tenantId": format!("t{}", i % 3), "log": log },
        )
        .await
        .unwrap();
    }
}

/// An upgrade that would hold more than a bound allows is refused like a
/// step that refuses: a read names the document and the bound, and a
/// migration stops before sending any of that document's batch.
#[tokio::test]
async fn an_upgrade_over_a_bound_is_refused_before_anything_of_its_batch_is_sent() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "versions_bound").await;
    Schema::new().with::<Ship>().sync(&db).await.unwrap();
    // Nine ships: the sixth holds a full log, which its upgrade overfills.
    insert_ships(&db, &[0, 1, 2, 3, 4, 8, 6, 7, 5]).await;
    let ships = Repo::<Ship>::new(&db);
    let err = ships.get(&"s05".to_owned()).await.unwrap_err();
    match &err {
        Error::Upgrade {
            id, from, reason, ..
        } => {
            assert_eq!((id.as_str(), *from), ("s05", 1));
            assert!(
                reason.contains("9 items in `log`, over its bound of 8"),
                "{reason}"
            );
        }
        other => panic!("an upgrade error, not {other}"),
    }
    let err = ships
        .find(Ship::FIELDS.id.eq("s05"))
        .all()
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Upgrade { id, .. } if id == "s05"),
        "{err}"
    );
    assert_eq!(
        ships
            .get(&"s04".to_owned())
            .await
            .unwrap()
            .unwrap()
            .log
            .len(),
        5
    );
    // In one batch nothing is written; in batches of 4, the batch before
    // the refused one is.
    for (batch_size, written) in [(500, 0), (4, 4)] {
        let options = MigrateOptions {
            batch_size,
            ..MigrateOptions::default()
        };
        let err = ships.migrate(options, |_| {}).await.unwrap_err();
        assert!(
            matches!(&err, Error::Upgrade { id, .. } if id == "s05"),
            "{err}"
        );
        let upgraded = db
            .collection::<BsonDocument>("ships")
            .count_documents(doc! { VERSION_FIELD: 2 })
            .await
            .unwrap();
        assert_eq!(upgraded, written, "batches of {batch_size}");
    }
}

/// On a model sharded on other fields than `_id`, every replace a
/// migration sends (`migrate`, `upgrade`, reads that write back) carries
/// the shard key's values as stored, so that a mongos sends it to one
/// shard, as `replace` does.
#[tokio::test]
async fn migration_writes_carry_the_shard_key() {
    let (client, log) = support::keeping_client().await;
    let db = support::fresh_db(&client, "versions_sharded").await;
    Schema::new().with::<Ship>().sync(&db).await.unwrap();
    insert_ships(&db, &[1, 2, 3, 4, 5, 6]).await;
    let filters = |log: &schema_testkit::CommandLog| -> Vec<BsonDocument> {
        log.take_sent()
            .into_iter()
            .filter(|s| s.name == "update")
            .flat_map(|s| s.command.get_array("updates").unwrap().clone())
            .map(|u| u.as_document().unwrap().get_document("q").unwrap().clone())
            .collect()
    };
    let ships = Repo::<Ship>::new(&db);
    log.take_sent();
    assert!(ships.upgrade(&"s00".to_owned()).await.unwrap());
    let sent = filters(&log);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].get_str("tenantId").unwrap(), "t0", "{:?}", sent[0]);
    let writing = Repo::<Ship>::new(&db).write_back_upgrades();
    assert_eq!(
        writing
            .get(&"s01".to_owned())
            .await
            .unwrap()
            .unwrap()
            .log
            .len(),
        3
    );
    let sent = filters(&log);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].get_str("tenantId").unwrap(), "t1", "{:?}", sent[0]);
    let done = ships
        .migrate(MigrateOptions::default(), |_| {})
        .await
        .unwrap();
    assert_eq!(done.upgraded, 4);
    let sent = filters(&log);
    assert_eq!(sent.len(), 4);
    for q in &sent {
        let id = q.get_str("_id").unwrap();
        let n: usize = id[1..].parse().unwrap();
        assert_eq!(
            q.get_str("tenantId").unwrap(),
            format!("t{}", n % 3),
            "{q:?}"
        );
    }
}
