//! Setup against the real server: collections, validators and indexes are
//! created once; a second run writes nothing; drift is reported and left alone
//! unless dropping is asked; errors name what to fix.

use crate::support;

use bson::{doc, Document as BsonDocument};
use schema_core::code;
use schema_core::prelude::*;
use schema_core::Schema;
use schema_core::Step;
use schema_core::{Error, SyncOptions};
use schema_testkit::server::{Server, ServerOptions};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(
    collection = "users",
    index(keys(email = asc), unique, name = "email_unique"),
    index(keys(last_seen = asc), expire_after = 86400),
    index(keys(nickname = asc), sparse),
    index(keys(score = desc), partial(score(exists = true)))
)]
struct User {
    #[serde(rename = "_id")]
    id: String,
    email: String,
    last_seen: bson::DateTime,
    nickname: Option<String>,
    score: Option<i32>,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    #[reference(index, to = User, sort(at = desc))]
    author_id: String,
    title: String,
    #[embed(max = 3)]
    tags: Vec<String>,
    at: bson::DateTime,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(collection = "students")]
struct Student {
    #[serde(rename = "_id")]
    id: String,
    name: String,
    #[many_to_many(two_sided, to = Course, inverse = student_ids, max = 20)]
    course_ids: Vec<String>,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(collection = "courses")]
struct Course {
    #[serde(rename = "_id")]
    id: String,
    title: String,
    #[many_to_many(two_sided, to = Student, inverse = course_ids, max = 200)]
    student_ids: Vec<String>,
}

fn schema() -> Schema {
    Schema::new()
        .with::<User>()
        .with::<Post>()
        .with::<Student>()
        .with::<Course>()
}

const WRITES: [&str; 5] = ["create", "createIndexes", "collMod", "dropIndexes", "drop"];

async fn index_names(db: &mongodb::Database, collection: &str) -> Vec<String> {
    db.collection::<BsonDocument>(collection)
        .list_index_names()
        .await
        .unwrap()
}

#[tokio::test]
async fn setup_creates_everything_then_a_second_run_writes_nothing() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "setup_idem").await;

    let first = schema().plan(&db).await.unwrap();
    assert!(first
        .steps
        .iter()
        .any(|a| matches!(a, Step::CreateCollection { collection, .. } if collection == "posts")));
    println!("{first}");

    let report = schema().sync(&db).await.unwrap();
    assert!(report.left_alone.is_empty());
    let posts = index_names(&db, "posts").await;
    assert!(
        posts.contains(&"authorId_1_at_-1__id_-1".to_owned()),
        "{posts:?}"
    );
    let users = index_names(&db, "users").await;
    for name in ["email_unique", "lastSeen_1", "nickname_1", "score_-1"] {
        assert!(
            users.contains(&name.to_owned()),
            "{name} missing from {users:?}"
        );
    }
    assert!(index_names(&db, "students")
        .await
        .contains(&"courseIds_1".to_owned()));

    log.clear();
    let second = schema().sync(&db).await.unwrap();
    assert!(second.applied.is_empty(), "{:?}", second.applied);
    let sent = log.operations();
    let writes: Vec<_> = sent
        .iter()
        .filter(|c| WRITES.contains(&c.as_str()))
        .collect();
    assert!(writes.is_empty(), "second setup sent writes: {writes:?}");
    assert!(
        !sent.is_empty(),
        "the second setup must still read the server"
    );
    println!("second setup sent: {sent:?}");

    let plan = schema().plan(&db).await.unwrap();
    assert!(plan.is_empty(), "plan after setup: {plan}");
    assert_eq!(plan.to_string().trim(), "in sync: nothing to do");
}

#[tokio::test]
async fn a_hand_made_index_is_drift_left_alone_unless_dropping_is_asked() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "setup_drift").await;
    schema().sync(&db).await.unwrap();

    let posts = db.collection::<BsonDocument>("posts");
    posts
        .create_index(
            mongodb::IndexModel::builder()
                .keys(doc! { "title": 1 })
                .build(),
        )
        .await
        .unwrap();

    let plan = schema().plan(&db).await.unwrap();
    let drift: Vec<_> = plan.drift().collect();
    assert_eq!(drift.len(), 1, "{plan}");
    assert!(
        matches!(drift[0], Step::ExtraIndex { collection, index } if collection == "posts" && index.name == "title_1")
    );
    assert!(plan.to_string().contains("drift: extra index"), "{plan}");

    let report = schema().sync(&db).await.unwrap();
    assert_eq!(report.left_alone.len(), 1);
    assert!(
        index_names(&db, "posts")
            .await
            .contains(&"title_1".to_owned()),
        "left alone"
    );

    let options = SyncOptions {
        drop_extra_indexes: true,
        ..Default::default()
    };
    schema().sync_with(&db, options).await.unwrap();
    assert!(
        !index_names(&db, "posts")
            .await
            .contains(&"title_1".to_owned()),
        "dropped on request"
    );
    assert!(schema().plan(&db).await.unwrap().is_empty());
}

#[tokio::test]
async fn an_index_with_the_same_name_and_other_keys_is_refused_with_both_specs() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "setup_conflict").await;
    let posts = db.collection::<BsonDocument>("posts");
    let options = mongodb::options::IndexOptions::builder()
        .name("authorId_1_at_-1__id_-1".to_owned())
        .build();
    posts
        .create_index(
            mongodb::IndexModel::builder()
                .keys(doc! { "authorId": 1 })
                .options(options)
                .build(),
        )
        .await
        .unwrap();

    let err = schema().sync(&db).await.unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, Error::IndexConflict { .. }), "{message}");
    assert!(message.contains("posts"), "{message}");
    assert!(
        message.contains("\"authorId\": 1 }") && message.contains("\"at\": -1"),
        "{message}"
    );
    // Refused before writing anything: no other collection was created.
    let names = db.list_collection_names().await.unwrap();
    assert_eq!(names, vec!["posts".to_owned()], "nothing else written");

    let replace = SyncOptions {
        replace_conflicting: true,
        ..Default::default()
    };
    schema().sync_with(&db, replace).await.unwrap();
    assert!(schema().plan(&db).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_changed_validator_is_updated_with_coll_mod() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "setup_validator").await;
    db.create_collection("posts")
        .validator(doc! { "title": { "$type": "string" } })
        .await
        .unwrap();

    let plan = schema().plan(&db).await.unwrap();
    assert!(plan.steps.iter().any(|a| matches!(a, Step::UpdateValidator { collection, current: Some(_), .. } if collection == "posts")), "{plan}");
    schema().sync(&db).await.unwrap();
    assert!(schema().plan(&db).await.unwrap().is_empty());
}

#[tokio::test]
async fn the_validator_rejects_raw_writes_that_break_the_model() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "setup_enforce").await;
    schema().sync(&db).await.unwrap();

    // Bypass the framework: the raw driver, as another program would.
    let posts = db.collection::<BsonDocument>("posts");
    let at = bson::DateTime::now();
    posts
        .insert_one(
            doc! { "_id": "p1", "authorId": "u1", "title": "t", "tags": ["a", "b", "c"], "at": at },
        )
        .await
        .unwrap();
    let err = posts
        .update_one(doc! { "_id": "p1" }, doc! { "$push": { "tags": "d" } })
        .await
        .unwrap_err();
    assert_eq!(
        Error::from(err).code(),
        Some(code::DOCUMENT_VALIDATION_FAILURE),
        "document validation failure"
    );
    let stored = posts.find_one(doc! { "_id": "p1" }).await.unwrap().unwrap();
    assert_eq!(stored.get_array("tags").unwrap().len(), 3, "unchanged");

    let missing = posts
        .insert_one(doc! { "_id": "p2", "authorId": "u1", "tags": [], "at": at })
        .await;
    assert_eq!(
        Error::from(missing.unwrap_err()).code(),
        Some(code::DOCUMENT_VALIDATION_FAILURE),
        "title is required"
    );
    assert_eq!(posts.count_documents(doc! {}).await.unwrap(), 1);
}

#[tokio::test]
async fn an_unreachable_server_is_named_without_credentials() {
    let uri = "mongodb://admin:hunter2secret@127.0.0.1:1/?serverSelectionTimeoutMS=300&connectTimeoutMS=300";
    let client = mongodb::Client::with_uri_str(uri).await.unwrap();
    let err = schema().sync(&client.database("x")).await.unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, Error::Unreachable { .. }), "{message}");
    assert!(message.contains("127.0.0.1:1"), "{message}");
    assert!(!message.contains("hunter2secret"), "{message}");
}

#[tokio::test]
async fn a_standalone_server_is_refused_at_setup_when_the_schema_needs_transactions() {
    let server = Server::start(ServerOptions {
        standalone: true,
        ..Default::default()
    })
    .unwrap();
    let client = mongodb::Client::with_uri_str(server.uri()).await.unwrap();
    let db = client.database("standalone");

    let err = schema().sync(&db).await.unwrap_err();
    let message = err.to_string();
    assert!(
        matches!(err, Error::TransactionsUnsupported { .. }),
        "{message}"
    );
    assert!(
        message.contains("Student") && message.contains("replica set"),
        "{message}"
    );
    assert!(
        db.list_collection_names().await.unwrap().is_empty(),
        "nothing written"
    );

    // A schema without two-sided links sets up fine on a standalone.
    Schema::new().with::<Post>().sync(&db).await.unwrap();
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(
    collection = "tickets",
    index(keys(a = asc)),
    index(keys(c = asc))
)]
struct Ticket {
    #[serde(rename = "_id")]
    id: String,
    a: i32,
    b: i32,
    c: i32,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(
    collection = "members",
    index(keys(name = asc)),
    index(keys(email = asc), unique, name = "email_unique")
)]
struct Member {
    #[serde(rename = "_id")]
    id: String,
    name: String,
    email: String,
}

#[tokio::test]
async fn an_index_the_server_refuses_is_named_with_its_keys_and_what_was_done_before_it() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "setup_refused_index").await;
    // Between the two declared indexes, one the server refuses (code 67,
    // CannotCreateIndex): a TTL on two keys (the derive refuses it; a model
    // described by hand does not).
    let mut ticket = schema_core::ModelInfo::of::<Ticket>();
    let mut ttl = schema_core::IndexSpec::new(
        vec![
            ("a".to_owned(), schema_core::Direction::Asc),
            ("b".to_owned(), schema_core::Direction::Asc),
        ],
        schema_core::IndexOrigin::Declared,
    );
    ttl.name = "ttl_ab".to_owned();
    ttl.expire_after = Some(std::time::Duration::from_secs(60));
    ticket.indexes.insert(1, ttl);
    let tickets = Schema::new().with_info(ticket);

    let err = tickets.sync(&db).await.unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, Error::SetupRefused { .. }), "{message}");
    assert_eq!(err.code(), Some(67), "{message}");
    for words in [
        "setup stopped at `tickets`",
        "create index ttl_ab { \"a\": 1, \"b\": 1 } expireAfterSeconds=60",
        "code 67 (CannotCreateIndex)",
        "the collection `tickets` was created",
        "the index `a_1` of `tickets` was built",
        "run `plan` to see what is left",
    ] {
        assert!(message.contains(words), "{words:?} in {message}");
    }
    // As it says: the collection and the index before it, nothing after.
    assert_eq!(index_names(&db, "tickets").await, ["_id_", "a_1"]);
    let plan = tickets.plan(&db).await.unwrap();
    let left: Vec<&str> = plan
        .steps
        .iter()
        .map(|a| match a {
            Step::CreateIndex { spec, .. } => spec.name.as_str(),
            other => panic!("only indexes are left: {other:?}"),
        })
        .collect();
    assert_eq!(left, ["ttl_ab", "c_1"]);
}

#[tokio::test]
async fn a_unique_index_over_stored_duplicates_is_named_without_the_duplicated_value() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "setup_refused_unique").await;
    let members = db.collection::<BsonDocument>("members");
    members
        .insert_many([
            doc! { "_id": "m1", "name": "Ann", "email": "twice@example.org" },
            doc! { "_id": "m2", "name": "Bob", "email": "twice@example.org" },
        ])
        .await
        .unwrap();

    let schema = Schema::new().with::<Member>();
    let err = schema.sync(&db).await.unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, Error::SetupRefused { .. }), "{message}");
    assert_eq!(err.code(), Some(code::DUPLICATE_KEY), "{message}");
    for words in [
        "setup stopped at `members`",
        "create index email_unique { \"email\": 1 } unique",
        "code 11000",
        "make their keys unique",
        "the validator of `members` was updated",
        "the index `name_1` of `members` was built",
    ] {
        assert!(message.contains(words), "{words:?} in {message}");
    }
    assert!(!message.contains("twice@example.org"), "{message}");
    assert_eq!(index_names(&db, "members").await, ["_id_", "name_1"]);

    // The duplicate fixed, setup finishes.
    members
        .update_one(
            doc! { "_id": "m2" },
            doc! { "$set": { "email": "bob@example.org" } },
        )
        .await
        .unwrap();
    schema.sync(&db).await.unwrap();
    assert!(schema.plan(&db).await.unwrap().is_empty());
}
