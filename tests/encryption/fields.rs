//! Encrypted fields declared on a model (`#[encrypt(...)]`): the repository
//! encrypts them on every write and decrypts them on every read, a typed
//! equality on a deterministic one finds it through its index, the
//! validator refuses their plain text, and a reader without the key (or
//! without a handle) gets an error naming the model, the field and the key,
//! never a value.

use crate::support;

use bson::spec::BinarySubtype;
use bson::{doc, Bson, RawDocumentBuf};
use futures_util::TryStreamExt;
use schema_core::crypt::{Encryption, LocalMasterKey};
use schema_core::prelude::*;
use schema_core::{Error, Schema, Step};
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Address {
    pub street: String,
    pub city: String,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "customers", index(keys(ssn = asc)))]
pub struct Customer {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    #[encrypt(deterministic)]
    pub ssn: String,
    #[serde(rename = "cardNumber")]
    #[encrypt(deterministic)]
    pub card: i64,
    #[encrypt(random)]
    pub notes: Option<String>,
    /// A whole sub-document, encrypted as one value.
    #[encrypt(random)]
    pub address: Address,
}

/// The same collection read with another Rust type for `ssn`: its decrypted
/// value does not fit.
#[derive(Document, Serialize, Deserialize, Debug)]
#[document(collection = "customers", open)]
pub struct CustomerSsnAsNumber {
    #[serde(rename = "_id")]
    pub id: String,
    #[encrypt(deterministic)]
    pub ssn: i64,
}

/// Every plaintext the tests write: none may be seen in a stored document,
/// an error or a span.
pub const SECRETS: &[&str] = &[
    "123-45-6789",
    "987-65-4321",
    "555-11-2222",
    "likes tea",
    "1 Secret Lane",
    "Hiddenville",
];

pub fn customer(id: &str, ssn: &str) -> Customer {
    Customer {
        id: id.to_owned(),
        name: format!("name of {id}"),
        ssn: ssn.to_owned(),
        card: 4_111_111_111_111_111,
        notes: Some("likes tea".to_owned()),
        address: Address {
            street: "1 Secret Lane".to_owned(),
            city: "Hiddenville".to_owned(),
        },
    }
}

/// A database of the test's own, its key vault in it, and a handle.
pub async fn setup(test: &str, master: u8) -> (mongodb::Client, mongodb::Database, Encryption) {
    let client = support::client().await;
    let db = support::fresh_db(&client, test).await;
    let crypt = handle(&client, &db, master);
    (client, db, crypt)
}

pub fn handle(client: &mongodb::Client, db: &mongodb::Database, master: u8) -> Encryption {
    Encryption::new(client, LocalMasterKey::new([master; 96]))
        .expect("an encryption handle")
        .with_key_vault(client, db.name(), "__keyVault")
}

/// The stored document, read with the raw driver.
async fn raw(db: &mongodb::Database, id: &str) -> RawDocumentBuf {
    db.collection::<RawDocumentBuf>("customers")
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
        .expect("the stored document")
}

/// Every declared field is a BSON binary of subtype 6, and no plaintext
/// is anywhere in the stored bytes.
fn assert_sealed(stored: &RawDocumentBuf) {
    for field in ["ssn", "cardNumber", "notes", "address"] {
        match stored.get(field).unwrap() {
            Some(bson::RawBsonRef::Binary(bin)) => {
                assert_eq!(bin.subtype, BinarySubtype::Encrypted, "{field}")
            }
            other => panic!("`{field}` is stored as {other:?}"),
        }
    }
    let bytes = stored.as_bytes();
    for secret in SECRETS {
        assert!(
            !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
            "the stored document shows {secret:?}"
        );
    }
    assert!(!bytes
        .windows(8)
        .any(|w| w == 4_111_111_111_111_111i64.to_le_bytes()));
}

/// The message and the `Debug` of `err`, checked to show no plaintext.
pub fn clean(err: &Error) -> String {
    let text = format!("{err} | {err:?}");
    for secret in SECRETS {
        assert!(!text.contains(secret), "the error shows {secret:?}: {text}");
    }
    text
}

#[tokio::test]
async fn sync_creates_a_data_key_per_field_and_a_validator_of_binaries() {
    let (_client, db, crypt) = setup("enc_fields_sync", 21).await;
    let schema = Schema::new()
        .with::<Customer>()
        .with_encryption(crypt.clone());
    let plan = schema.plan(&db).await.unwrap();
    let keys: Vec<&str> = plan
        .steps
        .iter()
        .filter_map(|step| match step {
            Step::CreateDataKey { key, .. } => Some(key.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        keys,
        [
            "customers.ssn",
            "customers.cardNumber",
            "customers.notes",
            "customers.address"
        ]
    );
    assert!(plan.to_string().contains("create data key"), "{plan}");
    schema.sync(&db).await.unwrap();
    for key in &keys {
        assert!(crypt.find_key(key).await.unwrap().is_some(), "{key}");
    }
    let again = schema.plan(&db).await.unwrap();
    assert!(again.is_empty(), "in sync: {again}");

    let properties = Customer::json_schema();
    let properties = properties.get_document("properties").unwrap();
    assert_eq!(
        properties.get_document("ssn").unwrap(),
        &doc! { "bsonType": "binData" }
    );
    assert_eq!(
        properties.get_document("notes").unwrap(),
        &doc! { "bsonType": ["binData", "null"] }
    );
    // The server refuses the plain text too (code 121).
    let err = db
        .collection::<bson::Document>("customers")
        .insert_one(doc! { "_id": "plain", "name": "x", "ssn": "123-45-6789", "cardNumber": 1i64, "notes": null, "address": { "street": "a", "city": "b" } })
        .await
        .unwrap_err();
    assert_eq!(Error::from(err).code(), Some(121));

    // Without a handle, the schema cannot keep its keys.
    let err = Schema::new()
        .with::<Customer>()
        .plan(&db)
        .await
        .unwrap_err();
    let text = clean(&err);
    assert!(
        text.contains("`ssn` of `Customer`")
            && text.contains("customers.ssn")
            && text.contains("with_encryption"),
        "{text}"
    );
}

#[tokio::test]
async fn every_write_stores_ciphertext_and_every_read_returns_the_plaintext() {
    let (_client, db, crypt) = setup("enc_fields_rw", 22).await;
    Schema::new()
        .with::<Customer>()
        .with_encryption(crypt.clone())
        .sync(&db)
        .await
        .unwrap();
    let repo = Repo::<Customer>::new(&db).with_encryption(crypt);

    // insert
    let ada = customer("ada", "123-45-6789");
    repo.insert(&ada).await.unwrap();
    assert_sealed(&raw(&db, "ada").await);
    assert_eq!(
        repo.get(&"ada".to_owned()).await.unwrap(),
        Some(ada.clone())
    );

    // insert_many
    let many = [
        customer("bob", "987-65-4321"),
        customer("cy", "555-11-2222"),
    ];
    repo.insert_many(&many).await.unwrap();
    for c in &many {
        assert_sealed(&raw(&db, &c.id).await);
    }
    let mut got = repo
        .get_many([&"bob".to_owned(), &"cy".to_owned()])
        .await
        .unwrap();
    got.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(got, many);

    // replace
    let mut changed = ada.clone();
    changed.notes = None;
    changed.address.city = "Hiddenville".to_owned();
    changed.name = "Ada L.".to_owned();
    assert!(repo.replace(&changed).await.unwrap());
    let stored = raw(&db, "ada").await;
    assert_eq!(
        stored.get("notes").unwrap(),
        Some(bson::RawBsonRef::Null),
        "a None stays null"
    );
    let mut stored_doc = bson::Document::try_from(stored.as_ref()).unwrap();
    stored_doc.insert(
        "notes",
        Bson::Binary(bson::Binary {
            subtype: BinarySubtype::Encrypted,
            bytes: vec![0],
        }),
    );
    assert_sealed(&RawDocumentBuf::try_from(&stored_doc).unwrap());
    assert_eq!(
        repo.get(&"ada".to_owned()).await.unwrap(),
        Some(changed.clone())
    );

    // find, find_one and a stream, by a deterministic equality
    let f = Customer::FIELDS;
    let found = repo.find_one(f.ssn.eq("987-65-4321")).await.unwrap();
    assert_eq!(found, Some(many[0].clone()));
    let mut stream = repo
        .find(f.ssn.is_in(["123-45-6789", "555-11-2222"]))
        .await
        .unwrap();
    let mut ids = Vec::new();
    while let Some(c) = stream.try_next().await.unwrap() {
        assert!(c.address.street == "1 Secret Lane");
        ids.push(c.id);
    }
    ids.sort();
    assert_eq!(ids, ["ada", "cy"]);
    let all = repo.find(doc! {}).scan().all().await.unwrap();
    assert_eq!(all.len(), 3);
    assert_eq!(
        repo.count(f.card.eq(&4_111_111_111_111_111i64))
            .scan()
            .await
            .unwrap(),
        3
    );
    assert_eq!(repo.count(f.ssn.ne("123-45-6789")).scan().await.unwrap(), 2);
    // A typed `set` encrypts its value; an `Option` field is `unset`.
    let f = Customer::FIELDS;
    assert!(repo
        .update(&"cy".to_owned(), f.ssn.set("555-11-2222"))
        .await
        .unwrap());
    assert!(repo
        .update(&"cy".to_owned(), f.notes.set("likes tea"))
        .await
        .unwrap());
    assert_sealed(&raw(&db, "cy").await);
    assert!(repo
        .update(&"cy".to_owned(), f.notes.unset())
        .await
        .unwrap());
    let cy = repo
        .find_one(f.ssn.eq("555-11-2222"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((cy.id.as_str(), cy.notes), ("cy", None));
    assert!(repo
        .update(&"cy".to_owned(), f.notes.set("likes tea"))
        .await
        .unwrap());
    // In a session too (the session's cursor).
    let mut session = db.client().start_session().await.unwrap();
    let in_session = repo
        .find(f.ssn.eq("555-11-2222"))
        .session(&mut session)
        .all()
        .await
        .unwrap();
    assert_eq!(in_session, vec![many[1].clone()]);
}

#[tokio::test]
async fn deterministic_equality_rides_the_fields_index() {
    let (_client, db, crypt) = setup("enc_fields_index", 23).await;
    Schema::new()
        .with::<Customer>()
        .with_encryption(crypt.clone())
        .sync(&db)
        .await
        .unwrap();
    let repo = Repo::<Customer>::new(&db).with_encryption(crypt);
    let customers: Vec<Customer> = (0..40)
        .map(|i| customer(&format!("c{i}"), &format!("{i:03}-00-0000")))
        .collect();
    repo.insert_many(&customers).await.unwrap();
    let f = Customer::FIELDS;
    let plan = repo.find(f.ssn.eq("017-00-0000")).explain().await.unwrap();
    assert!(plan.shape().contains("IXSCAN(ssn_1)"), "{}", plan.shape());
    assert_eq!(
        (plan.returned, plan.keys_examined, plan.docs_examined),
        (1, 1, 1)
    );
    let found = repo
        .find_one(f.ssn.eq("017-00-0000"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.id, "c17");
}

#[tokio::test]
async fn a_reader_without_the_key_gets_an_error_naming_model_field_and_key() {
    let (client, db, crypt) = setup("enc_fields_nokey", 24).await;
    Schema::new()
        .with::<Customer>()
        .with_encryption(crypt.clone())
        .sync(&db)
        .await
        .unwrap();
    let repo = Repo::<Customer>::new(&db).with_encryption(crypt);
    repo.insert(&customer("ada", "123-45-6789")).await.unwrap();

    // Another master key: the data keys do not unwrap.
    let stranger = Repo::<Customer>::new(&db).with_encryption(handle(&client, &db, 99));
    let err = stranger.get(&"ada".to_owned()).await.unwrap_err();
    let text = clean(&err);
    assert!(
        matches!(&err, Error::Encryption { action: "decrypt", model: Some("Customer"), field: Some(f), key, .. } if f == "ssn" && key == "customers.ssn"),
        "{err:?}"
    );
    assert!(
        text.contains("field `ssn` of `Customer`") && text.contains("`customers.ssn`"),
        "{text}"
    );
    let err = stranger
        .find_one(Customer::FIELDS.ssn.eq("123-45-6789"))
        .await
        .unwrap_err();
    clean(&err);
    assert!(
        matches!(
            err,
            Error::Encryption {
                action: "encrypt",
                ..
            }
        ),
        "{err:?}"
    );

    // An empty key vault: the key is not found.
    let empty = Encryption::new(&client, LocalMasterKey::new([24; 96]))
        .unwrap()
        .with_key_vault(&client, db.name(), "__noKeys");
    let err = Repo::<Customer>::new(&db)
        .with_encryption(empty)
        .get(&"ada".to_owned())
        .await
        .unwrap_err();
    let text = clean(&err);
    assert!(
        text.contains("`Customer`") && text.contains("no such data key"),
        "{text}"
    );

    // No handle at all: nothing is written, nothing is read, nothing is
    // filtered in plain text.
    let bare = Repo::<Customer>::new(&db);
    let err = bare
        .insert(&customer("eve", "987-65-4321"))
        .await
        .unwrap_err();
    let text = clean(&err);
    assert!(
        text.contains("field `ssn` of `Customer`")
            && text.contains("with_encryption")
            && text.contains("`customers.ssn`"),
        "{text}"
    );
    assert!(raw_count(&db, "eve").await == 0, "nothing was written");
    assert!(bare
        .insert_many(&[customer("eve", "987-65-4321")])
        .await
        .is_err());
    assert!(bare.replace(&customer("ada", "987-65-4321")).await.is_err());
    let err = bare.get(&"ada".to_owned()).await.unwrap_err();
    assert!(clean(&err).contains("with_encryption"));
    let err = bare
        .find(Customer::FIELDS.ssn.eq("123-45-6789"))
        .all()
        .await
        .unwrap_err();
    assert!(clean(&err).contains("with_encryption"));
    assert_sealed(&raw(&db, "ada").await);
}

async fn raw_count(db: &mongodb::Database, id: &str) -> u64 {
    db.collection::<bson::Document>("customers")
        .count_documents(doc! { "_id": id })
        .await
        .unwrap()
}

#[tokio::test]
async fn errors_never_show_a_decrypted_value() {
    let (_client, db, crypt) = setup("enc_fields_leak", 25).await;
    Schema::new()
        .with::<Customer>()
        .with_encryption(crypt.clone())
        .sync(&db)
        .await
        .unwrap();
    Repo::<Customer>::new(&db)
        .with_encryption(crypt.clone())
        .insert(&customer("ada", "123-45-6789"))
        .await
        .unwrap();
    // Decrypted, the value does not fit the reader's type: the error names
    // the field and the key, not the value.
    let other = Repo::<CustomerSsnAsNumber>::new(&db).with_encryption(crypt.clone());
    let err = other.get(&"ada".to_owned()).await.unwrap_err();
    let text = clean(&err);
    assert!(
        text.contains("does not fit") && text.contains("`customers.ssn`"),
        "{text}"
    );
    let err = other.find(doc! {}).scan().all().await.unwrap_err();
    clean(&err);

    // Conditions that mean nothing on ciphertext are refused before sending.
    let repo = Repo::<Customer>::new(&db).with_encryption(crypt);
    for filter in [
        doc! { "ssn": { "$gt": "123-45-6789" } },
        doc! { "ssn": { "$regex": "^123" } },
        doc! { "notes": "likes tea" },
        doc! { "address.city": "Hiddenville" },
        doc! { "$or": [ { "name": "x" }, { "ssn": { "$lt": "555-11-2222" } } ] },
    ] {
        let err = repo.find(filter.clone()).scan().all().await.unwrap_err();
        let text = clean(&err);
        assert!(
            matches!(
                err,
                Error::Encryption {
                    action: "query",
                    ..
                }
            ),
            "{filter}: {err:?}"
        );
        assert!(text.contains("nothing was sent"), "{text}");
    }
}

/// The spans of the helper calls (the `tracing` feature) show no value:
/// checked in a process of its own, whose only subscriber is the check's
/// (a subscriber set for one thread of a test binary whose other tests run
/// alongside may miss spans whose interest another thread cached first).
#[cfg(feature = "tracing")]
#[test]
fn tracing_spans_never_show_a_value() {
    let status = support::child_test(module_path!(), "spans_child")
        .env("MONGODB_URI", support::uri())
        .status()
        .expect("start the child");
    assert!(status.success(), "the child failed: {status}");
}

#[cfg(feature = "tracing")]
#[test]
#[ignore = "run by tracing_spans_never_show_a_value, in a process of its own"]
fn spans_child() {
    use std::sync::{Arc, Mutex};
    use tracing_subscriber::fmt::format::FmtSpan;

    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let buffer = Buffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_span_events(FmtSpan::CLOSE)
        .with_max_level(tracing::Level::TRACE)
        .finish();
    tracing::subscriber::set_global_default(subscriber).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (_client, db, crypt) = setup("enc_fields_spans", 26).await;
        Schema::new()
            .with::<Customer>()
            .with_encryption(crypt.clone())
            .sync(&db)
            .await
            .unwrap();
        let repo = Repo::<Customer>::new(&db).with_encryption(crypt.clone());
        repo.insert(&customer("ada", "123-45-6789")).await.unwrap();
        repo.find_one(Customer::FIELDS.ssn.eq("123-45-6789"))
            .await
            .unwrap()
            .unwrap();
        // Failures are recorded in the spans: none shows a value.
        let err = Repo::<CustomerSsnAsNumber>::new(&db)
            .with_encryption(crypt)
            .get(&"ada".to_owned())
            .await
            .unwrap_err();
        clean(&err);
        let err = Repo::<Customer>::new(&db)
            .insert(&customer("eve", "987-65-4321"))
            .await
            .unwrap_err();
        clean(&err);
    });
    let seen = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    assert!(seen.contains("find_one"), "spans were recorded: {seen}");
    assert!(
        seen.contains("does not fit"),
        "the failure was recorded: {seen}"
    );
    for secret in SECRETS {
        assert!(!seen.contains(secret), "a span shows {secret:?}: {seen}");
    }
}
