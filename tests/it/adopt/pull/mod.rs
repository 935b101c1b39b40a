//! `pull` against the seeds' databases, written with the raw driver as old
//! code would have: the source it writes for each is kept as a golden file
//! in `tests/it/adopt/pulled/` and compiled here as a module of this binary
//! (so the source compiles as written); each test rebuilds the database,
//! pulls it with a full scan, checks the text is the golden file's byte for
//! byte, decodes every document of every collection with the golden models,
//! and plans them against the database: no index drift, no document the
//! validators refuse, and no index created on a key a server index already
//! leads with (the plan adds only what is missing). The stuck room's
//! models do not compile (its messages look unbounded, so they get no
//! bound): its golden file is text only here, and `tests/ui/adopt/` checks
//! the compile error.
//!
//! Refresh the golden files after a change of the output with
//! `PULL_OVERWRITE=1 cargo test --features tracing --test it -- adopt::pull::`
//! (then run it again: the new files are compiled), and read the diff.

use futures_util::TryStreamExt;
use mongodb::bson::{doc, Document as BsonDocument};
use mongodb::Database;
use schema_core::cli::{run_with, Outcome};
use schema_core::{pull, Document, PullOptions, Repo, Schema, Step};

use super::seeds;
use crate::support;

#[allow(dead_code)]
#[path = "../pulled/blog_school.rs"]
mod blog_school;
#[allow(dead_code)]
#[path = "../pulled/catalog.rs"]
mod catalog;
#[allow(dead_code)]
#[path = "../pulled/helpdesk.rs"]
mod helpdesk;
#[allow(dead_code)]
#[path = "../pulled/library.rs"]
mod library;
#[allow(dead_code)]
#[path = "../pulled/messy.rs"]
mod messy;
#[allow(dead_code)]
#[path = "../pulled/shop.rs"]
mod shop;

/// Pulls `db` whole and checks the source against `pulled/<seed>.rs`
/// (rewritten instead with `PULL_OVERWRITE=1`).
async fn pulled_as_golden(db: &Database, seed: &str) -> schema_core::Pulled {
    let options = PullOptions {
        full_scan: true,
        ..PullOptions::default()
    };
    let pulled = pull(db, &options).await.unwrap();
    let path = format!(
        "{}/tests/it/adopt/pulled/{seed}.rs",
        env!("CARGO_MANIFEST_DIR")
    );
    if std::env::var_os("PULL_OVERWRITE").is_some() {
        std::fs::write(&path, &pulled.source).unwrap();
        return pulled;
    }
    let golden = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        pulled.source == golden,
        "the source pulled from seed `{seed}` differs from {path}; if the change is meant, \
         refresh it with `PULL_OVERWRITE=1 cargo test --features tracing --test it -- \
         adopt::pull::`, run the tests again and read the diff.\n--- pulled:\n{}",
        pulled.source
    );
    pulled
}

/// Decodes every document of `M`'s collection as an `M`: returns how many.
async fn decode_all<M: Document>(db: &Database) -> u64 {
    let stored = db
        .collection::<BsonDocument>(M::COLLECTION)
        .count_documents(doc! {})
        .await
        .unwrap();
    let repo = Repo::<M>::new(db);
    let mut stream = repo.find(doc! {}).scan().stream();
    let mut decoded = 0u64;
    while let Some(_model) = stream.try_next().await.unwrap_or_else(|e| {
        panic!(
            "a `{}` document does not decode as {}: {e}",
            M::COLLECTION,
            M::NAME
        )
    }) {
        decoded += 1;
    }
    assert_eq!(decoded, stored, "{}", M::COLLECTION);
    decoded
}

/// The plan of `schema` against `db` adds only what is missing: no index
/// drift; no stored document fails a validator (the models accept the data
/// they decode); the only indexes to create are `creates` (`collection
/// name`), the indexes the pulled references and id arrays declare where
/// no index of the server leads with their key.
async fn plans_only_what_is_missing(schema: Schema, db: &Database, creates: &[&str]) {
    let plan = schema.plan(db).await.unwrap();
    let mut created = Vec::new();
    for step in &plan.steps {
        match step {
            Step::CreateIndex { collection, spec } => {
                created.push(format!("{collection} {}", spec.name));
                let first = &spec.keys[0].0;
                let cursor = db
                    .collection::<BsonDocument>(collection)
                    .list_indexes()
                    .await
                    .unwrap();
                let listed: Vec<mongodb::IndexModel> = cursor.try_collect().await.unwrap();
                let led = listed.iter().find(|i| i.keys.keys().next() == Some(first));
                assert!(
                    led.is_none(),
                    "`{collection}` already has {led:?} on `{first}`, and the plan creates \
                     {}\n{plan}",
                    spec.name
                );
            }
            Step::ConflictingIndex { .. } | Step::ExtraIndex { .. } => {
                panic!("index drift: {step:?}\n{plan}")
            }
            Step::IndexVisibility { .. } => panic!("index drift: {step:?}\n{plan}"),
            Step::UpdateValidator { violators, .. } | Step::ValidationLevel { violators, .. } => {
                assert!(violators.is_empty(), "violators: {step:?}\n{plan}")
            }
            _ => {}
        }
    }
    created.sort();
    assert_eq!(created, creates, "{plan}");
}

async fn database(name: &str) -> Database {
    let client = support::client().await;
    support::fresh_db(&client, name).await
}

#[tokio::test]
async fn blog_and_school() {
    let db = database("pull_blog").await;
    seeds::blog(&db, 500).await;
    seeds::school(&db, 4).await;
    let pulled = pulled_as_golden(&db, "blog_school").await;
    assert_eq!(pulled.unbounded().count(), 0);
    use blog_school::*;
    assert_eq!(decode_all::<User>(&db).await, 1000);
    assert_eq!(decode_all::<Post>(&db).await, 500);
    assert_eq!(decode_all::<Student>(&db).await, 40);
    assert_eq!(decode_all::<Course>(&db).await, 8);
    let schema = Schema::new()
        .with::<User>()
        .with::<Post>()
        .with::<Student>()
        .with::<Course>();
    plans_only_what_is_missing(
        schema,
        &db,
        &[
            "courses studentIds_1",
            "posts authorId_1__id_1",
            "students courseIds_1",
        ],
    )
    .await;
}

#[tokio::test]
async fn stuck_room() {
    let db = database("pull_stuck").await;
    seeds::stuck_room(&db, 30).await;
    let pulled = pulled_as_golden(&db, "stuck_room").await;
    assert_eq!(pulled.unbounded().collect::<Vec<_>>(), ["rooms.messages"]);
    assert!(
        pulled.source.contains("looks unbounded: 2,089 items")
            && !pulled
                .source
                .lines()
                .any(|l| l.trim_start().starts_with("#[embed("))
            && pulled.source.contains("pub messages: Vec<Message>,"),
        "{}",
        pulled.source
    );
}

#[tokio::test]
async fn shop() {
    let db = database("pull_shop").await;
    seeds::shop(&db, 200).await;
    pulled_as_golden(&db, "shop").await;
    use shop::*;
    assert_eq!(decode_all::<Customer>(&db).await, 50);
    assert_eq!(decode_all::<Product>(&db).await, 20);
    assert_eq!(decode_all::<Order>(&db).await, 200);
    let schema = Schema::new()
        .with::<Customer>()
        .with::<Product>()
        .with::<Order>();
    plans_only_what_is_missing(schema, &db, &["orders customer_id_1__id_1"]).await;
}

#[tokio::test]
async fn library() {
    let db = database("pull_library").await;
    seeds::library(&db, 100).await;
    pulled_as_golden(&db, "library").await;
    use library::*;
    assert_eq!(decode_all::<Author>(&db).await, 30);
    assert_eq!(decode_all::<Book>(&db).await, 100);
    assert_eq!(decode_all::<Product>(&db).await, 25);
    let schema = Schema::new()
        .with::<Author>()
        .with::<Book>()
        .with::<Product>();
    // The server's `{author_id: 1}` is declared as it is, and the reference
    // left to a comment: the derive takes no index on a reference's own key
    // beside the reference's.
    plans_only_what_is_missing(schema, &db, &[]).await;
}

#[tokio::test]
async fn catalog() {
    let db = database("pull_catalog").await;
    seeds::catalog(&db, 40).await;
    let pulled = pulled_as_golden(&db, "catalog").await;
    assert!(pulled.source.contains("pub enum"), "{}", pulled.source);
    use catalog::*;
    assert_eq!(decode_all::<Item>(&db).await, 40);
    assert_eq!(decode_all::<Sku>(&db).await, 60);
    assert_eq!(decode_all::<Product>(&db).await, 20);
    // Each item's `details` decoded as the variant its `type` names.
    let items = Repo::<Item>::new(&db)
        .find(doc! {})
        .scan()
        .all()
        .await
        .unwrap();
    for item in &items {
        let matches = matches!(
            (item.type_.as_str(), &item.details),
            ("book", Details::Book { .. }) | ("dvd", Details::Dvd { .. })
        );
        assert!(matches, "{item:?}");
    }
    let schema = Schema::new().with::<Item>().with::<Sku>().with::<Product>();
    plans_only_what_is_missing(schema, &db, &["products skus_1"]).await;
}

#[tokio::test]
async fn messy() {
    let db = database("pull_messy").await;
    seeds::messy(&db, 100_000).await;
    pulled_as_golden(&db, "messy").await;
    assert_eq!(decode_all::<messy::Messy>(&db).await, 100_000);
    plans_only_what_is_missing(Schema::new().with::<messy::Messy>(), &db, &[]).await;
}

/// Numbers two versions of an application wrote as different BSON types,
/// and an index on the reference and a date: the models decode every
/// document, their validators accept every one (`priority`, ints and
/// longs, pulled as `Option<i64>`; `hours`, doubles and ints, as `f64`),
/// and the plan creates no second index for `assignee_id`, which the
/// server's `{assignee_id: 1, created: -1}` leads: the reference is left
/// to a comment saying how to declare it.
#[tokio::test]
async fn helpdesk() {
    let db = database("pull_helpdesk").await;
    seeds::helpdesk(&db, 300).await;
    let pulled = pulled_as_golden(&db, "helpdesk").await;
    assert!(
        pulled.source.contains("pub priority: Option<i64>,")
            && pulled.source.contains("pub hours: f64,")
            && pulled.source.contains("pub level: i64,")
            && pulled
                .source
                .contains("index(keys(assignee_id = asc, created = desc))")
            && pulled
                .source
                .contains("sort(created = desc))]`, whose index")
            && !pulled
                .source
                .lines()
                .any(|l| l.trim_start().starts_with("#[reference(")),
        "{}",
        pulled.source
    );
    use helpdesk::*;
    assert_eq!(decode_all::<Agent>(&db).await, 20);
    assert_eq!(decode_all::<Ticket>(&db).await, 300);
    plans_only_what_is_missing(schema(), &db, &[]).await;
    // Synced as they are: every stored document passes the validators, and
    // the application's old writes still do.
    schema().sync(&db).await.unwrap();
    let tickets = db.collection::<BsonDocument>("tickets");
    tickets
        .insert_one(doc! {
            "_id": mongodb::bson::oid::ObjectId::new(),
            "subject": "old code",
            "assignee_id": mongodb::bson::oid::ObjectId::new(),
            "created": mongodb::bson::DateTime::now(),
            "priority": 2_i32,
            "hours": 3_i32,
        })
        .await
        .unwrap();
    let refused = tickets
        .insert_one(doc! {
            "_id": mongodb::bson::oid::ObjectId::new(),
            "subject": "a double no i64 decodes",
            "assignee_id": mongodb::bson::oid::ObjectId::new(),
            "created": mongodb::bson::DateTime::now(),
            "priority": 2.5,
            "hours": 1.0,
        })
        .await;
    assert!(refused.is_err(), "a priority of 2.5 is refused");
    assert_eq!(decode_all::<Ticket>(&db).await, 301);
}

#[tokio::test]
async fn the_schema_command_pulls_into_a_file() {
    let db = database("pull_command").await;
    seeds::library(&db, 10).await;
    let out = std::env::temp_dir().join(format!("{}.rs", db.name()));
    let argv = [
        "schema".to_owned(),
        "--uri".to_owned(),
        support::uri(),
        "--db".to_owned(),
        db.name().to_owned(),
        "pull".to_owned(),
        "--full".to_owned(),
        "--headroom".to_owned(),
        "50".to_owned(),
        "--out".to_owned(),
        out.display().to_string(),
    ];
    let mut printed = Vec::new();
    let outcome = run_with(&Schema::new(), argv, &mut printed).await.unwrap();
    let printed = String::from_utf8(printed).unwrap();
    assert_eq!(outcome, Outcome::Done, "{printed}");
    let written = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    let options = PullOptions {
        full_scan: true,
        headroom: 50,
        ..PullOptions::default()
    };
    assert_eq!(written, pull(&db, &options).await.unwrap().source);
    assert!(
        written.contains("--headroom 50") && written.contains("#[embed(max = 10)]"),
        "{written}"
    );
    assert!(
        printed.contains("3 models") && printed.contains(&out.display().to_string()),
        "{printed}"
    );
}

/// A collection whose fields another application encrypted on the client
/// (BSON binary subtype 6, in the FLE1 form its specification gives: the
/// algorithm's byte, the data key's UUID, the original type's byte, then
/// the ciphertext): `pull` declares them `#[encrypt(..)]` with the
/// algorithm and the type they held, and says which key reads them.
#[tokio::test]
async fn encrypted_fields_are_declared_with_their_algorithm_and_type() {
    let db = database("pull_encrypted").await;
    let sealed = |algorithm: u8, original: u8, i: u8| {
        let mut bytes = vec![algorithm];
        bytes.extend([0x5a; 16]); // the data key's UUID
        bytes.push(original);
        bytes.extend((0..48).map(|b| b ^ i)); // the ciphertext, as opaque here
        mongodb::bson::Binary {
            subtype: mongodb::bson::spec::BinarySubtype::Encrypted,
            bytes,
        }
    };
    let patients = db.collection::<BsonDocument>("patients");
    for i in 0..20u8 {
        patients
            .insert_one(doc! {
                "_id": i32::from(i),
                "name": format!("patient {i}"),
                "ssn": sealed(1, 0x02, i),
                "visits": sealed(2, 0x10, i),
                "notes": sealed(2, 0x03, i),
            })
            .await
            .unwrap();
    }
    let pulled = pull(&db, &PullOptions::default()).await.unwrap();
    let source = &pulled.source;
    println!("{source}");
    for (attr, field) in [
        ("#[encrypt(deterministic)]", "pub ssn: String,"),
        ("#[encrypt(random)]", "pub visits: i32,"),
        ("#[encrypt(random)]", "pub notes: Bson,"),
    ] {
        let at = source.find(field).unwrap_or_else(|| panic!("{field}"));
        let before = &source[..at];
        let attr_at = before.rfind(attr).unwrap_or_else(|| panic!("{attr}"));
        assert!(
            !source[attr_at..at].contains("pub "),
            "{attr} is on {field}"
        );
    }
    assert!(
        source.contains("encrypted on the client (deterministic"),
        "{source}"
    );
    assert!(source.contains("holding `string` values"), "{source}");
    assert!(source.contains("holding sub-documents"), "{source}");
}
