//! Against a server started with `--auth`: SCRAM credentials in the URI work,
//! a wrong password fails without echoing the password, and a read-only user
//! gets a clear permission error from setup and from writes, through every
//! write helper (`Repo`, bounded push, two-sided link, cascading delete).

mod error_privacy;

use crate::models;

use bson::doc;
use schema_core::prelude::*;
use schema_core::Error;
use schema_core::Schema;
use schema_testkit::server::{Server, ServerOptions};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "notes")]
struct Note {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 3)]
    tags: Vec<String>,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "memos")]
struct Memo {
    #[serde(rename = "_id")]
    id: String,
}

const ADMIN_PASSWORD: &str = "s3cret-admin-pw";
const READER_PASSWORD: &str = "s3cret-reader-pw";
const WRONG_PASSWORD: &str = "wr0ng-pw-never-printed";

async fn client(uri: &str) -> mongodb::Client {
    mongodb::Client::with_uri_str(uri).await.unwrap()
}

/// A server started with `--auth`, with a `root` user `admin` and a user
/// `reader` who may only read the database `app`; and a client as `admin`.
async fn server_with_users() -> (Server, mongodb::Client) {
    let server = Server::start(ServerOptions {
        auth: true,
        ..Default::default()
    })
    .unwrap();

    // The first user is created through the localhost exception.
    let bootstrap = client(&server.uri()).await;
    bootstrap
        .database("admin")
        .run_command(doc! { "createUser": "admin", "pwd": ADMIN_PASSWORD, "roles": ["root"] })
        .await
        .unwrap();
    let admin = client(&server.uri_with_credentials("admin", ADMIN_PASSWORD)).await;
    admin
        .database("admin")
        .run_command(doc! {
            "createUser": "reader", "pwd": READER_PASSWORD,
            "roles": [{ "role": "read", "db": "app" }],
        })
        .await
        .unwrap();
    (server, admin)
}

/// A client that signs in as `user` with a wrong password.
async fn wrong_password_client(server: &Server, user: &str) -> mongodb::Client {
    let uri = format!(
        "mongodb://{user}:{WRONG_PASSWORD}@127.0.0.1:{}/?directConnection=true&authSource=admin&serverSelectionTimeoutMS=2000",
        server.port()
    );
    client(&uri).await
}

/// The error of a wrong password: about authentication, without the password.
fn assert_auth_error_without_password(err: &Error) {
    let message = format!("{err} {err:?}");
    assert!(
        matches!(err, Error::AuthenticationFailed { .. }),
        "{message}"
    );
    assert!(
        !message.contains(WRONG_PASSWORD),
        "the password leaked: {message}"
    );
    assert!(message.to_lowercase().contains("auth"), "{message}");
}

#[tokio::test]
async fn credentials_permissions_and_errors_without_secrets() {
    let (server, admin) = server_with_users().await;

    // SCRAM credentials in the URI work: setup and a round trip.
    let db = admin.database("app");
    Schema::new().with::<Note>().sync(&db).await.unwrap();
    let note = Note {
        id: "n1".into(),
        tags: vec!["a".into()],
    };
    db.collection::<Note>(Note::COLLECTION)
        .insert_one(&note)
        .await
        .unwrap();

    // A wrong password fails, and the error does not contain the password.
    let wrong = wrong_password_client(&server, "admin").await;
    let err = Schema::new()
        .with::<Note>()
        .plan(&wrong.database("app"))
        .await
        .unwrap_err();
    assert_auth_error_without_password(&err);

    // A read-only user: reads work; setup and writes get a permission error.
    let reader = client(&server.uri_with_credentials("reader", READER_PASSWORD)).await;
    let rdb = reader.database("app");
    let found = rdb
        .collection::<Note>(Note::COLLECTION)
        .find_one(doc! { "_id": "n1" })
        .await
        .unwrap();
    assert_eq!(found, Some(note));

    let err = Schema::new()
        .with::<Note>()
        .with::<Memo>()
        .sync(&rdb)
        .await
        .unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, Error::PermissionDenied { .. }), "{message}");
    assert!(
        message.contains("permission denied") && message.contains("memos"),
        "{message}"
    );
    assert!(!message.contains(READER_PASSWORD), "{message}");
}

/// Runs a write helper as the read-only user: a `PermissionDenied` naming
/// the collection, without the password.
fn denied<T: std::fmt::Debug>(what: &str, result: schema_core::Result<T>, collection: &str) {
    let err = result.expect_err(what);
    let message = format!("{err} {err:?}");
    assert!(
        matches!(&err, Error::PermissionDenied { collection: c, .. } if c == collection),
        "{what}: {message}"
    );
    assert!(
        err.to_string().starts_with("permission denied: cannot "),
        "{what}: {err}"
    );
    assert!(!message.contains(READER_PASSWORD), "{what}: {message}");
    // The server echoes the command; the error keeps its name, not its body
    // (the data written, which belongs in no log).
    assert!(
        err.to_string().contains("to execute `") && !err.to_string().contains("lsid"),
        "{what}: {err}"
    );
    println!("{what}: {err}");
}

#[tokio::test]
async fn a_read_only_user_gets_a_permission_error_from_every_write_helper() {
    use models::{Course, Student};

    let (server, admin) = server_with_users().await;
    let db = admin.database("app");
    Schema::new()
        .with::<Note>()
        .with::<Student>()
        .with::<Course>()
        .sync(&db)
        .await
        .unwrap();
    let note = Note {
        id: "n1".into(),
        tags: vec!["a".into()],
    };
    Repo::<Note>::new(&db).insert(&note).await.unwrap();
    Repo::<Student>::new(&db)
        .insert(&Student::new("s1", "S"))
        .await
        .unwrap();
    Repo::<Course>::new(&db)
        .insert(&Course::new("c1", "C"))
        .await
        .unwrap();
    Links::new(&db, Student::FIELDS.course_ids)
        .link(&"s1".to_owned(), &"c1".to_owned())
        .await
        .unwrap();

    let reader = client(&server.uri_with_credentials("reader", READER_PASSWORD)).await;
    let rdb = reader.database("app");
    let notes = Repo::<Note>::new(&rdb);
    let students = Repo::<Student>::new(&rdb);
    let links = Links::new(&rdb, Student::FIELDS.course_ids);
    let (n1, s1, c1) = ("n1".to_owned(), "s1".to_owned(), "c1".to_owned());

    // Reads work.
    assert_eq!(notes.get(&n1).await.unwrap(), Some(note.clone()));
    assert!(links.verify().await.unwrap().is_consistent());

    // Every write is refused with a permission error naming the collection.
    let other = Note {
        id: "n2".into(),
        tags: Vec::new(),
    };
    denied("Repo::insert", notes.insert(&other).await, "notes");
    denied(
        "Repo::insert_many",
        notes.insert_many(std::slice::from_ref(&other)).await,
        "notes",
    );
    denied("Repo::replace", notes.replace(&note).await, "notes");
    denied(
        "Repo::update",
        notes.update(&n1, doc! { "$set": { "tags": ["b"] } }).await,
        "notes",
    );
    denied("Repo::delete", notes.delete(&n1).await, "notes");
    denied(
        "Embed::push",
        notes
            .embed(Note::FIELDS.tags)
            .push(&n1, &"b".to_owned())
            .await,
        "notes",
    );
    denied(
        "Links::link",
        links.link(&s1, &"c2".to_owned()).await,
        "students",
    );
    denied("Links::unlink", links.unlink(&s1, &c1).await, "students");
    denied(
        "Repo::delete (cascade)",
        students.delete(&s1).await,
        "courses",
    );

    // Nothing changed.
    let admin_notes = Repo::<Note>::new(&db);
    assert_eq!(admin_notes.get(&n1).await.unwrap(), Some(note));
    assert_eq!(admin_notes.count(doc! {}).scan().await.unwrap(), 1);
    let s = Repo::<Student>::new(&db).get(&s1).await.unwrap().unwrap();
    assert_eq!(s.course_ids, [c1]);
    assert!(Links::new(&db, Student::FIELDS.course_ids)
        .verify()
        .await
        .unwrap()
        .is_consistent());

    // A wrong password through a repository: an error without the password.
    let wrong = wrong_password_client(&server, "reader").await;
    let err = Repo::<Note>::new(&wrong.database("app"))
        .get(&n1)
        .await
        .unwrap_err();
    assert_auth_error_without_password(&err);
    println!("wrong password: {err}");
}
