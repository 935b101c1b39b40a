//! Explicit encryption and decryption of single values: deterministic (same
//! bytes twice, found by an equality query), random, and the failures (a
//! tampered ciphertext, another master key, a missing key), whose messages
//! name the key and never the value.

use super::keys::handle;

use bson::spec::BinarySubtype;
use bson::{doc, Bson};
use schema_core::crypt::{Algorithm, Encryption, LocalMasterKey};
use schema_core::Error;

const SECRET: &str = "ada@example.com";

#[tokio::test]
async fn deterministic_gives_the_same_bytes_and_an_equality_query_finds_them() {
    let (db, crypt) = handle("enc_deterministic", 4).await;
    crypt.data_key("users.email").await.unwrap();
    let value = Bson::from(SECRET);
    let once = crypt
        .encrypt(&value, "users.email", Algorithm::Deterministic)
        .await
        .unwrap();
    let twice = crypt
        .encrypt(&value, "users.email", Algorithm::Deterministic)
        .await
        .unwrap();
    assert_eq!(once.subtype, BinarySubtype::Encrypted);
    assert_eq!(once, twice);
    assert!(!once
        .bytes
        .windows(SECRET.len())
        .any(|w| w == SECRET.as_bytes()));

    let users = db.collection::<bson::Document>("users");
    users
        .insert_one(doc! { "_id": 1, "email": once.clone() })
        .await
        .unwrap();
    users.insert_one(doc! { "_id": 2, "email": crypt.encrypt(&Bson::from("bob@example.com"), "users.email", Algorithm::Deterministic).await.unwrap() }).await.unwrap();
    let probe = crypt
        .encrypt(&value, "users.email", Algorithm::Deterministic)
        .await
        .unwrap();
    let found = users
        .find_one(doc! { "email": probe })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.get_i32("_id").unwrap(), 1);
    let stored = found.get("email").unwrap();
    let Bson::Binary(stored) = stored else {
        panic!("stored as binary: {stored:?}")
    };
    assert_eq!(stored.subtype, BinarySubtype::Encrypted);
    assert_eq!(crypt.decrypt(stored).await.unwrap(), value);
}

#[tokio::test]
async fn random_differs_every_time_and_reads_back() {
    let (_db, crypt) = handle("enc_random", 5).await;
    crypt.data_key("notes.body").await.unwrap();
    for value in [
        Bson::from(SECRET),
        Bson::Int64(42),
        Bson::from(doc! { "street": "1 Main St", "zip": "12345" }),
        Bson::Array(vec![Bson::from("a"), Bson::Boolean(true)]),
        Bson::Double(2.5),
    ] {
        let a = crypt
            .encrypt(&value, "notes.body", Algorithm::Random)
            .await
            .unwrap();
        let b = crypt
            .encrypt(&value, "notes.body", Algorithm::Random)
            .await
            .unwrap();
        assert_ne!(a, b, "random encryption of {value:?}");
        assert_eq!(crypt.decrypt(&a).await.unwrap(), value);
        assert_eq!(crypt.decrypt(&b).await.unwrap(), value);
    }
}

/// An error's message, checked to hold no plaintext.
fn message(err: &Error) -> String {
    let text = err.to_string();
    assert!(
        !text.contains(SECRET),
        "the message shows the value: {text}"
    );
    text
}

#[tokio::test]
async fn a_tampered_ciphertext_fails_its_hmac_and_names_the_key() {
    let (_db, crypt) = handle("enc_tamper", 6).await;
    let id = crypt.data_key("users.email").await.unwrap();
    let mut sealed = crypt
        .encrypt(&Bson::from(SECRET), "users.email", Algorithm::Deterministic)
        .await
        .unwrap();
    let last = sealed.bytes.len() - 1;
    sealed.bytes[last] ^= 1;
    let err = crypt.decrypt(&sealed).await.unwrap_err();
    let text = message(&err);
    assert!(
        matches!(
            err,
            Error::Encryption {
                action: "decrypt",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(text.contains("HMAC validation failure"), "{text}");
    let uuid = bson::Uuid::from_bytes(id.bytes.try_into().unwrap());
    assert!(
        text.contains(&uuid.to_string()),
        "names the key's id: {text}"
    );

    // Not encrypted at all: refused before libmongocrypt sees it.
    let plain = bson::Binary {
        subtype: BinarySubtype::Generic,
        bytes: SECRET.as_bytes().to_vec(),
    };
    let text = message(&crypt.decrypt(&plain).await.unwrap_err());
    assert!(text.contains("not encrypted"), "{text}");
}

#[tokio::test]
async fn another_master_key_cannot_unwrap_the_data_key() {
    let (db, crypt) = handle("enc_wrong_master", 7).await;
    crypt.data_key("users.email").await.unwrap();
    let sealed = crypt
        .encrypt(&Bson::from(SECRET), "users.email", Algorithm::Random)
        .await
        .unwrap();
    let client = crate::support::client().await;
    let other = Encryption::new(&client, LocalMasterKey::new([8; 96]))
        .unwrap()
        .with_key_vault(&client, db.name(), "__keyVault");
    let err = other.decrypt(&sealed).await.unwrap_err();
    let text = message(&err);
    assert!(
        matches!(
            err,
            Error::Encryption {
                action: "decrypt",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(text.to_lowercase().contains("hmac"), "{text}");
    let err = other
        .encrypt(&Bson::from(SECRET), "users.email", Algorithm::Random)
        .await
        .unwrap_err();
    assert!(message(&err).contains("`users.email`"), "{err}");
}

#[tokio::test]
async fn a_missing_key_or_a_refused_type_names_the_key_not_the_value() {
    let (_db, crypt) = handle("enc_missing", 9).await;
    let err = crypt
        .encrypt(&Bson::from(SECRET), "users.nope", Algorithm::Deterministic)
        .await
        .unwrap_err();
    let text = message(&err);
    assert!(
        text.contains("`users.nope`") && text.contains("create it first"),
        "{text}"
    );

    crypt.data_key("users.profile").await.unwrap();
    let value = Bson::from(doc! { "email": SECRET });
    let err = crypt
        .encrypt(&value, "users.profile", Algorithm::Deterministic)
        .await
        .unwrap_err();
    let text = message(&err);
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
    assert!(text.contains("`users.profile`"), "{text}");
}

#[tokio::test]
async fn one_handle_serves_many_tasks_at_once() {
    let (_db, crypt) = handle("enc_concurrent", 10).await;
    crypt.data_key("a.x").await.unwrap();
    crypt.data_key("a.y").await.unwrap();
    let tasks: Vec<_> = (0..64)
        .map(|i| {
            let crypt = crypt.clone();
            tokio::spawn(async move {
                let key = if i % 2 == 0 { "a.x" } else { "a.y" };
                let algorithm = if i % 3 == 0 {
                    Algorithm::Random
                } else {
                    Algorithm::Deterministic
                };
                let value = Bson::from(format!("value {i}"));
                let sealed = crypt.encrypt(&value, key, algorithm).await.unwrap();
                assert_eq!(crypt.decrypt(&sealed).await.unwrap(), value);
                sealed
            })
        })
        .collect();
    let mut seen = std::collections::HashSet::new();
    for task in tasks {
        assert!(
            seen.insert(task.await.unwrap().bytes),
            "distinct values, distinct ciphertexts"
        );
    }
}
