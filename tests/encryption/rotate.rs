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

/// The environment variable that makes [`rotated_by_the_command`] run.
const CHILD: &str = "ROTATE_COMMAND_CHILD";

/// `schema keys rotate`, in a process of its own whose environment holds
/// both master keys (as base64): the data keys are rewrapped, the command
/// prints how many and neither key, and a handle with the next key reads
/// what was written under the first.
#[tokio::test]
async fn the_command_rotates_with_keys_from_its_environment() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "crypt_rotate_command").await;
    let first = handle(&client, &db, 5);
    Schema::new()
        .with::<Patient>()
        .with_encryption(first.clone())
        .sync(&db)
        .await
        .unwrap();
    let ada = Patient {
        id: 1,
        name: "Ada".into(),
        ssn: "123-45-6789".into(),
        diagnosis: "flu".into(),
    };
    Repo::<Patient>::new(&db)
        .with_encryption(first)
        .insert(&ada)
        .await
        .unwrap();
    let printed = support::ran_alone(
        support::child_test(module_path!(), "rotated_by_the_command")
            .env(CHILD, format!("{}.__keyVault", db.name()))
            .env("MONGODB_URI", support::uri())
            .env(schema_core::cli::MASTER_KEY_ENV, b64(5))
            .env(schema_core::cli::NEXT_MASTER_KEY_ENV, b64(6)),
    );
    assert!(printed.contains("rewrapped 2 data keys of"), "{printed}");
    assert!(
        !printed.contains(&b64(5)) && !printed.contains(&b64(6)),
        "no key printed"
    );
    let read = Repo::<Patient>::new(&db)
        .with_encryption(handle(&client, &db, 6))
        .get(&1)
        .await
        .unwrap();
    assert_eq!(read, Some(ada));
}

/// Base64 of 96 bytes of `byte`.
fn b64(byte: u8) -> String {
    use std::fmt::Write;
    // RFC 4648 base64 of 96 equal bytes: every 3 bytes are 4 characters.
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for _ in 0..32 {
        let n = u32::from(byte) << 16 | u32::from(byte) << 8 | u32::from(byte);
        for shift in [18, 12, 6, 0] {
            let _ = out.write_char(ALPHABET[(n >> shift & 63) as usize] as char);
        }
    }
    out
}

/// The command, run by [`the_command_rotates_with_keys_from_its_environment`].
#[tokio::test]
#[ignore = "run by the_command_rotates_with_keys_from_its_environment in a process of its own"]
async fn rotated_by_the_command() {
    let Ok(vault) = std::env::var(CHILD) else {
        return;
    };
    let mut out = Vec::new();
    let outcome = schema_core::cli::run_with(
        &Schema::new(),
        ["schema", "keys", "rotate", "--key-vault", vault.as_str()],
        &mut out,
    )
    .await;
    print!("{}", String::from_utf8_lossy(&out));
    outcome.unwrap();
}
