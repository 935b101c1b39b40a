//! Against a server started with `--auth`: SCRAM credentials in the URI work,
//! a wrong password fails without echoing the password, and a read-only user
//! gets a clear permission error from setup and from writes.

mod support;

use bson::doc;
use schema_core::prelude::*;
use schema_core::server::{Server, ServerOptions};
use schema_core::Error;
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

#[tokio::test]
async fn credentials_permissions_and_errors_without_secrets() {
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
    let wrong_uri = format!(
        "mongodb://admin:{WRONG_PASSWORD}@127.0.0.1:{}/?directConnection=true&authSource=admin&serverSelectionTimeoutMS=2000",
        server.port()
    );
    let wrong = client(&wrong_uri).await;
    let err = Schema::new()
        .with::<Note>()
        .plan(&wrong.database("app"))
        .await
        .unwrap_err();
    let message = format!("{err} {err:?}");
    assert!(
        !message.contains(WRONG_PASSWORD),
        "the password leaked: {message}"
    );
    assert!(message.to_lowercase().contains("auth"), "{message}");

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
