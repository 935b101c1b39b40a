//! Rotating the local master key (`Encryption::rotate_master_key`): 10,000
//! documents written under data keys wrapped by the first master key are
//! all read, and found by equality, through a handle opened with the next
//! one, their stored bytes untouched; the first key no longer reads them;
//! a rotation given the wrong current key fails naming it and leaves every
//! data key as it was.

use crate::support;

use bson::{doc, Document as BsonDocument};
use futures_util::TryStreamExt;
use schema_core::crypt::{Encryption, LocalMasterKey};
use schema_core::prelude::*;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "patients", index(keys(ssn = asc)))]
struct Patient {
    #[serde(rename = "_id")]
    id: i32,
    name: String,
    #[encrypt(deterministic)]
    ssn: String,
    #[encrypt(random)]
    diagnosis: String,
}

const DOCS: i32 = 10_000;

fn handle(client: &mongodb::Client, db: &mongodb::Database, master: u8) -> Encryption {
    Encryption::new(client, LocalMasterKey::new([master; 96]))
        .expect("an encryption handle")
        .with_key_vault(client, db.name(), "__keyVault")
}

async fn read_all(db: &mongodb::Database, crypt: Encryption) -> schema_core::Result<Vec<Patient>> {
    Repo::<Patient>::new(db)
        .with_encryption(crypt)
        .find(Patient::FIELDS.id.gte(&0))
        .sort(Patient::FIELDS.id.asc())
        .await?
        .try_collect()
        .await
}

#[tokio::test]
async fn rotation_keeps_10000_documents_readable_under_the_next_master_key() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "crypt_rotate").await;
    let first = handle(&client, &db, 1);
    Schema::new()
        .with::<Patient>()
        .with_encryption(first.clone())
        .sync(&db)
        .await
        .unwrap();
    let repo = Repo::<Patient>::new(&db).with_encryption(first.clone());
    let patients: Vec<Patient> = (0..DOCS)
        .map(|i| Patient {
            id: i,
            name: format!("patient {i}"),
            ssn: format!("{:03}-{:02}-{:04}", i % 1000, i % 100, i),
            diagnosis: format!("diagnosis {i}"),
        })
        .collect();
    for chunk in patients.chunks(1_000) {
        repo.insert_many(chunk).await.unwrap();
    }
    let raw = db.collection::<BsonDocument>("patients");
    let stored_before: Vec<BsonDocument> = raw
        .find(doc! {})
        .sort(doc! { "_id": 1 })
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let vault = db.collection::<BsonDocument>("__keyVault");
    let keys_before: Vec<BsonDocument> = vault
        .find(doc! {})
        .sort(doc! { "_id": 1 })
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(keys_before.len(), 2, "a data key per encrypted field");

    // The wrong current key: refused, nothing written.
    let err = first
        .rotate_master_key(&LocalMasterKey::new([9; 96]), &LocalMasterKey::new([2; 96]))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Encryption { .. }), "{err}");
    println!("{err}");
    let keys_after_refusal: Vec<BsonDocument> = vault
        .find(doc! {})
        .sort(doc! { "_id": 1 })
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(keys_after_refusal, keys_before);

    let rotated = first
        .rotate_master_key(&LocalMasterKey::new([1; 96]), &LocalMasterKey::new([2; 96]))
        .await
        .unwrap();
    assert_eq!(rotated, 2);
    let keys_after: Vec<BsonDocument> = vault
        .find(doc! {})
        .sort(doc! { "_id": 1 })
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    for (before, after) in keys_before.iter().zip(&keys_after) {
        assert_eq!(before.get("_id"), after.get("_id"), "the same data keys");
        assert_ne!(
            before.get("keyMaterial"),
            after.get("keyMaterial"),
            "rewrapped"
        );
        assert_eq!(
            after.get_document("masterKey").unwrap(),
            &doc! { "provider": "local" }
        );
    }
    let stored_after: Vec<BsonDocument> = raw
        .find(doc! {})
        .sort(doc! { "_id": 1 })
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert!(stored_after == stored_before, "no document rewritten");

    // Every document read, and found by equality, with the next master key
    // (a handle opened fresh: no data key cached from before).
    let next = handle(&client, &db, 2);
    let read = read_all(&db, next.clone()).await.unwrap();
    assert!(read == patients, "all {DOCS} read back as written");
    let ssn = patients[4_321].ssn.clone();
    let found = Repo::<Patient>::new(&db)
        .with_encryption(next)
        .find_one(Patient::FIELDS.ssn.eq(&ssn))
        .await
        .unwrap();
    assert_eq!(found.as_ref(), Some(&patients[4_321]));

    // The first master key reads nothing any more.
    let err = read_all(&db, handle(&client, &db, 1)).await.unwrap_err();
    assert!(matches!(err, Error::Encryption { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        !msg.contains("diagnosis 0") && !msg.contains("patient 0"),
        "{msg}"
    );
}
