//! Errors never carry the user's data: a duplicate key, a validator's
//! refusal and a write conflict get their own variants, whose messages name
//! the collection, the index or rule and the `_id`, but neither the values
//! written nor the server's raw reply (which the driver shows as hex).

use crate::support;

use bson::doc;
use schema_core::code;
use schema_core::label::TRANSIENT_TRANSACTION_ERROR;
use schema_core::prelude::*;
use schema_core::transaction;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(
    collection = "accounts",
    index(keys(email = asc), unique, name = "email_unique")
)]
struct Account {
    #[serde(rename = "_id")]
    id: String,
    email: String,
    #[embed(max = 2)]
    notes: Vec<String>,
}

/// In every value written by the failing operations; in no message.
const SECRET: &str = "s3cret-7f2a";

fn account(id: &str, email: &str) -> Account {
    Account {
        id: id.to_owned(),
        email: email.to_owned(),
        notes: Vec::new(),
    }
}

/// Neither the message nor the debug form holds the secret or a hex dump.
fn assert_private(err: &Error) {
    println!("{err}");
    for shown in [err.to_string(), format!("{err:?}")] {
        assert!(!shown.contains(SECRET), "the value leaks: {shown}");
        // The secret as the hex of the server's raw reply.
        let hex: String = SECRET.bytes().map(|b| format!("{b:02x}")).collect();
        assert!(!shown.contains(&hex), "the raw reply leaks: {shown}");
        assert!(!shown.contains("server response"), "{shown}");
    }
}

fn assert_duplicate(err: &Error, index: &str) {
    match err {
        Error::DuplicateKey {
            collection,
            index: i,
        } => assert_eq!((collection.as_str(), i.as_str()), ("accounts", index)),
        other => panic!("expected DuplicateKey on `{index}`, got {other:?}"),
    }
    assert_eq!(err.code(), Some(code::DUPLICATE_KEY));
    let message = err.to_string();
    assert!(message.contains("`accounts`"), "{message}");
    assert!(message.contains(&format!("`{index}`")), "{message}");
    assert_private(err);
}

#[tokio::test]
async fn a_duplicate_key_names_the_collection_and_the_index_not_the_value() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "dup").await;
    Schema::new().with::<Account>().sync(&db).await.unwrap();
    let accounts = Repo::<Account>::new(&db);
    let taken = format!("{SECRET}@example.com");
    accounts.insert(&account("a1", &taken)).await.unwrap();
    accounts.insert(&account("a2", "free")).await.unwrap();

    let err = accounts.insert(&account("a3", &taken)).await.unwrap_err();
    assert_duplicate(&err, "email_unique");
    // Several documents: each refused one is reported with its own reason.
    let err = accounts
        .insert_many(&[account("a4", &taken)])
        .await
        .unwrap_err();
    assert_private(&err);
    match &err {
        Error::InsertMany(failure) => {
            assert_eq!(failure.failed.len(), 1, "{err:?}");
            assert_duplicate(&failure.failed[0].reason, "email_unique");
        }
        other => panic!("expected InsertMany, got {other:?}"),
    }
    let err = accounts.replace(&account("a2", &taken)).await.unwrap_err();
    assert_duplicate(&err, "email_unique");
    let err = accounts
        .update(&"a2".to_owned(), Account::FIELDS.email.set(&taken))
        .await
        .unwrap_err();
    assert_duplicate(&err, "email_unique");
    // The `_id` itself: its index is named.
    let err = accounts
        .insert(&account("a1", &format!("other-{SECRET}")))
        .await
        .unwrap_err();
    assert_duplicate(&err, "_id_");
    // Inside a transaction: not transient, returned as it is.
    let err = transaction(&client)
        .run(async |s| accounts.insert(&account("a5", &taken)).session(s).await)
        .await
        .unwrap_err();
    assert_duplicate(&err, "email_unique");

    // Nothing was written.
    assert_eq!(accounts.count(doc! {}).scan().await.unwrap(), 2);
    assert_eq!(
        accounts.get(&"a2".to_owned()).await.unwrap().unwrap().email,
        "free"
    );
}

#[tokio::test]
async fn a_validator_refusal_names_the_id_and_the_rule_not_the_values() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "invalid").await;
    Schema::new().with::<Account>().sync(&db).await.unwrap();
    let accounts = Repo::<Account>::new(&db);
    accounts
        .insert(&account("a1", "a@example.com"))
        .await
        .unwrap();

    // Three notes where the model allows two, and a number for the email.
    let secret = format!("note {SECRET}");
    let err = accounts
        .update(
            &"a1".to_owned(),
            doc! { "$set": { "notes": [&secret, &secret, &secret], "email": 42 } },
        )
        .await
        .unwrap_err();
    match &err {
        Error::ValidationFailed {
            collection,
            id,
            rules,
        } => {
            assert_eq!((collection.as_str(), id.as_str()), ("accounts", "a1"));
            assert!(rules.iter().any(|r| r == "notes: maxItems 2"), "{rules:?}");
            assert!(rules.iter().any(|r| r == "email: bsonType"), "{rules:?}");
        }
        other => panic!("expected ValidationFailed, got {other:?}"),
    }
    assert_eq!(err.code(), Some(code::DOCUMENT_VALIDATION_FAILURE));
    let message = err.to_string();
    for part in ["`accounts`", "_id `a1`", "notes: maxItems 2"] {
        assert!(message.contains(part), "{part} in {message}");
    }
    assert_private(&err);
    assert!(!message.contains("42"), "{message}");

    // Nothing was written.
    let stored = accounts.get(&"a1".to_owned()).await.unwrap().unwrap();
    assert_eq!(stored, account("a1", "a@example.com"));
}

#[tokio::test]
async fn a_write_conflict_names_the_collection_and_keeps_its_label() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "conflict").await;
    Schema::new().with::<Account>().sync(&db).await.unwrap();
    let accounts = Repo::<Account>::new(&db);
    accounts
        .insert(&account("a1", "a@example.com"))
        .await
        .unwrap();

    // One transaction holds the document; another writes it too.
    let mut holder = client.start_session().await.unwrap();
    holder.start_transaction().await.unwrap();
    accounts
        .update(
            &"a1".to_owned(),
            Account::FIELDS.email.set(&"held@example.com".to_owned()),
        )
        .session(&mut holder)
        .await
        .unwrap();
    let mut other = client.start_session().await.unwrap();
    other.start_transaction().await.unwrap();
    let err = accounts
        .update(
            &"a1".to_owned(),
            Account::FIELDS.email.set(&format!("{SECRET}@example.com")),
        )
        .session(&mut other)
        .await
        .unwrap_err();
    let _ = other.abort_transaction().await;
    holder.abort_transaction().await.unwrap();
    match &err {
        Error::WriteConflict { collection, .. } => assert_eq!(collection, "accounts"),
        other => panic!("expected WriteConflict, got {other:?}"),
    }
    assert!(err.has_label(TRANSIENT_TRANSACTION_ERROR), "{err:?}");
    assert_eq!(err.code(), Some(code::WRITE_CONFLICT));
    assert!(err.to_string().contains("`accounts`"), "{err}");
    assert_private(&err);

    let stored = accounts.get(&"a1".to_owned()).await.unwrap().unwrap();
    assert_eq!(stored.email, "a@example.com");
}

/// A trip of a vehicle: an array of sub-documents, the shape whose dotted
/// update the server refuses while quoting the stored items.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Trip {
    #[serde(rename = "driverCode")]
    driver_code: String,
    km: i32,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "vehicles")]
struct Vehicle {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 4)]
    trips: Vec<Trip>,
}

#[tokio::test]
async fn a_server_message_quoting_stored_data_is_shown_without_it() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "quoted").await;
    Schema::new().with::<Vehicle>().sync(&db).await.unwrap();
    let vehicles = Repo::<Vehicle>::new(&db);
    let trip = Trip {
        driver_code: SECRET.to_owned(),
        km: 381,
    };
    vehicles
        .insert(&Vehicle {
            id: "v1".to_owned(),
            trips: vec![trip.clone()],
        })
        .await
        .unwrap();
    // What a typed `trips.km` set would send (it no longer compiles, see
    // tests/ui/query/set-through-array-of-sub-documents.rs): the server
    // refuses it (code 28) and quotes the stored trips in its message.
    let err = vehicles
        .update(&"v1".to_owned(), doc! { "$set": { "trips.km": 5 } })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(28), "{err:?}");
    let Error::Driver(driver) = &err else {
        panic!("expected Driver, got {err:?}")
    };
    // The driver's own error does quote it: this is what is kept out.
    assert!(driver.get_ref().to_string().contains(SECRET));
    assert_private(&err);
    assert!(
        std::error::Error::source(&err).is_none(),
        "no source to print the driver's message through"
    );
    assert!(err.to_string().contains("'km'"), "{err}");
    // Nothing was written.
    let stored = vehicles.get(&"v1".to_owned()).await.unwrap().unwrap();
    assert_eq!(stored.trips, [trip]);
}
