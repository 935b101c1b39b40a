//! From outside: an application's own models and flow, as a user writes
//! them, on a multi-threaded runtime: a master key generated once, the
//! schema synced with the handle, many tasks registering patients at once
//! through one shared repository, then each found again by its
//! deterministic-encrypted national id, while the raw collection holds only
//! ciphertext.

use std::sync::Arc;

use futures_util::TryStreamExt;

use schema_core::bson::{doc, oid::ObjectId, RawDocumentBuf};
use schema_core::crypt::{Encryption, LocalMasterKey};
use schema_core::prelude::*;
use schema_core::Schema;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Diagnosis {
    code: String,
    note: String,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "patients", index(keys(national_id = asc), unique))]
struct Patient {
    #[serde(rename = "_id")]
    id: ObjectId,
    display_name: String,
    #[encrypt(deterministic)]
    national_id: String,
    #[encrypt(random)]
    diagnosis: Option<Diagnosis>,
    ward: u32,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_application_registers_and_finds_patients_from_many_tasks() {
    let client = crate::support::client().await;
    let db = crate::support::fresh_db(&client, "enc_outside").await;
    // The application's secret: generated once, kept out of the database.
    let master = LocalMasterKey::generate().unwrap();
    let crypt =
        Encryption::new(&client, master)
            .unwrap()
            .with_key_vault(&client, db.name(), "__keyVault");
    let report = Schema::new()
        .with::<Patient>()
        .with_encryption(crypt.clone())
        .sync(&db)
        .await
        .unwrap();
    let keys = report
        .applied
        .iter()
        .filter(|step| matches!(step, schema_core::Step::CreateDataKey { .. }))
        .count();
    assert_eq!(keys, 2, "a data key per encrypted field");
    let patients = Arc::new(Repo::<Patient>::new(&db).with_encryption(crypt));

    let tasks: Vec<_> = (0..48)
        .map(|i| {
            let patients = patients.clone();
            tokio::spawn(async move {
                let patient = Patient {
                    id: ObjectId::new(),
                    display_name: format!("Patient {i}"),
                    national_id: format!("NI-{i:05}"),
                    diagnosis: (i % 3 != 0).then(|| Diagnosis {
                        code: format!("D{i}"),
                        note: format!("confidential note {i}"),
                    }),
                    ward: i % 4,
                };
                patients.insert(&patient).await.unwrap();
                let found = patients
                    .find_one(Patient::FIELDS.national_id.eq(&patient.national_id))
                    .await
                    .unwrap();
                assert_eq!(found.as_ref(), Some(&patient));
                patient
            })
        })
        .collect();
    let mut written = Vec::new();
    for task in tasks {
        written.push(task.await.unwrap());
    }

    // The raw collection: ciphertext only.
    let raw: Vec<RawDocumentBuf> = db
        .collection::<RawDocumentBuf>("patients")
        .find(doc! {})
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(raw.len(), 48);
    for doc in &raw {
        let bytes = doc.as_bytes();
        assert!(
            !bytes.windows(3).any(|w| w == b"NI-"),
            "a national id in clear"
        );
        assert!(
            !bytes.windows(12).any(|w| w == b"confidential"),
            "a note in clear"
        );
    }
    // A unique index on the deterministic ciphertext still refuses a
    // second patient with the same national id.
    let mut twin = written[5].clone();
    twin.id = ObjectId::new();
    let err = patients.insert(&twin).await.unwrap_err();
    assert_eq!(err.code(), Some(11000), "{err}");
    // Every patient of a ward, decrypted on the way.
    let ward: Vec<Patient> = patients
        .find(doc! { "ward": 2 })
        .scan()
        .all()
        .await
        .unwrap();
    assert_eq!(ward.len(), 12);
    assert!(ward.iter().all(|p| p.national_id.starts_with("NI-")));
}
