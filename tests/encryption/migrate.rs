//! Migrations over a model with encrypted fields: documents an old
//! application wrote in clear (version 1), and documents encrypted under
//! an earlier shape's key (version 2), read as the current shape in clear,
//! upgraded in place by `Repo::migrate`, by `upgrade` and by a read that
//! writes back, and stored afterwards with every declared field sealed
//! under the current shape's keys; equality then finds them through the
//! index.

use crate::fields::setup;

use bson::spec::BinarySubtype;
use bson::{doc, Bson, Document as BsonDocument, RawDocumentBuf};
use futures_util::TryStreamExt;
use schema_core::prelude::*;
use schema_core::{MigrateOptions, Schema, Upgrade, VERSION_FIELD};
use serde::{Deserialize, Serialize};

/// Version 1, as the old application wrote it: the tax id in clear.
#[derive(Document, Serialize, Deserialize, Debug)]
#[document(collection = "patients")]
pub struct PatientV1 {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    pub ssn: String,
}

/// Version 2: the tax id encrypted (under `patients.ssn`).
#[derive(Document, Serialize, Deserialize, Debug)]
#[document(collection = "patients", schema_version = 2)]
pub struct PatientV2 {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    #[encrypt(deterministic)]
    pub ssn: String,
}

/// Version 3, current: the tax id renamed (so under `patients.taxId`),
/// and a note, encrypted at random.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(
    collection = "patients",
    migrate_from(PatientV1, PatientV2),
    index(keys(tax_id = asc))
)]
pub struct Patient {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    #[serde(rename = "taxId")]
    #[encrypt(deterministic)]
    pub tax_id: String,
    #[encrypt(random)]
    pub note: Option<String>,
}

impl Upgrade<PatientV1> for PatientV2 {
    fn upgrade(old: PatientV1) -> Result<Self, String> {
        Ok(PatientV2 {
            id: old.id,
            name: old.name,
            ssn: old.ssn,
        })
    }
}

impl Upgrade<PatientV2> for Patient {
    fn upgrade(old: PatientV2) -> Result<Self, String> {
        let note = Some(format!("migrated secret {}", old.ssn.len()));
        Ok(Patient {
            id: old.id,
            name: old.name,
            tax_id: old.ssn,
            note,
        })
    }
}

fn ssn(i: usize) -> String {
    format!("900-{:02}-{:04}", i % 100, i)
}

/// Every stored patient is at version 3 with `taxId` and `note` sealed and
/// no tax id anywhere in its bytes.
async fn assert_all_sealed(db: &mongodb::Database, n: usize) {
    let stored: Vec<RawDocumentBuf> = db
        .collection::<RawDocumentBuf>("patients")
        .find(doc! {})
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(stored.len(), n);
    for raw in &stored {
        assert_eq!(
            raw.get_i32(VERSION_FIELD).unwrap(),
            3,
            "{:?}",
            raw.get("_id")
        );
        for field in ["taxId", "note"] {
            match raw.get(field).unwrap() {
                Some(bson::RawBsonRef::Binary(bin)) => {
                    assert_eq!(bin.subtype, BinarySubtype::Encrypted)
                }
                other => panic!("`{field}` stored as {other:?}"),
            }
        }
        assert!(raw.get("ssn").unwrap().is_none());
        let bytes = raw.as_bytes();
        for i in 0..n {
            let plain = ssn(i);
            assert!(
                !bytes.windows(plain.len()).any(|w| w == plain.as_bytes()),
                "a tax id in clear"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn clear_and_earlier_encrypted_documents_migrate_to_the_current_keys() {
    let (_client, db, crypt) = setup("enc_migrate", 51).await;
    Schema::new()
        .with::<Patient>()
        .with_encryption(crypt.clone())
        .sync(&db)
        .await
        .unwrap();
    // The key of version 2's field, which version 2's setup had made.
    crypt.data_key("patients.ssn").await.unwrap();

    // 120 written in clear by the old application, with the raw driver.
    let raw = db.collection::<BsonDocument>("patients");
    let old: Vec<BsonDocument> = (0..120)
        .map(|i| doc! { "_id": format!("p{i:03}"), "name": format!("patient {i}"), "ssn": ssn(i) })
        .collect();
    raw.insert_many(old).await.unwrap();
    // 80 written by version 2's code, encrypted under `patients.ssn`.
    let v2 = Repo::<PatientV2>::new(&db).with_encryption(crypt.clone());
    let written: Vec<PatientV2> = (120..200)
        .map(|i| PatientV2 {
            id: format!("p{i:03}"),
            name: format!("patient {i}"),
            ssn: ssn(i),
        })
        .collect();
    v2.insert_many(&written).await.unwrap();
    let stored_v2 = raw.find_one(doc! { "_id": "p150" }).await.unwrap().unwrap();
    assert!(
        matches!(stored_v2.get("ssn"), Some(Bson::Binary(b)) if b.subtype == BinarySubtype::Encrypted)
    );

    // Read as the current shape, in clear, before any migration.
    let patients = Repo::<Patient>::new(&db).with_encryption(crypt.clone());
    for i in [7, 150] {
        let p = patients.get(&format!("p{i:03}")).await.unwrap().unwrap();
        assert_eq!(p.tax_id, ssn(i));
        assert_eq!(p.note.as_deref(), Some("migrated secret 11"));
    }
    let all: Vec<Patient> = patients.find(doc! {}).scan().all().await.unwrap();
    assert_eq!(all.len(), 200);

    // Upgraded one by one: a clear one by `upgrade`, an encrypted one by a
    // read that writes back.
    assert!(patients.upgrade(&"p007".to_owned()).await.unwrap());
    let writing = Repo::<Patient>::new(&db)
        .with_encryption(crypt.clone())
        .write_back_upgrades();
    assert_eq!(
        writing
            .get(&"p150".to_owned())
            .await
            .unwrap()
            .unwrap()
            .tax_id,
        ssn(150)
    );
    for id in ["p007", "p150"] {
        let stored = raw.find_one(doc! { "_id": id }).await.unwrap().unwrap();
        assert_eq!(stored.get_i32(VERSION_FIELD).unwrap(), 3);
        assert!(
            matches!(stored.get("taxId"), Some(Bson::Binary(b)) if b.subtype == BinarySubtype::Encrypted)
        );
    }

    // The rest in batches, as `schema migrate` runs them: with the
    // schema's handle.
    let schema = Schema::new()
        .with::<Patient>()
        .with_encryption(crypt.clone());
    let options = MigrateOptions {
        batch_size: 50,
        pause: None,
    };
    let done = schema.migrate(&db, options, |_, _| {}).await.unwrap();
    let (_, progress) = &done[0];
    assert_eq!(progress.upgraded, 198);
    assert!(progress.left.is_empty());
    assert_all_sealed(&db, 200).await;

    // Read back in clear; found by equality on the index.
    for i in [0, 7, 119, 120, 150, 199] {
        let found = patients
            .find_one(Patient::FIELDS.tax_id.eq(&ssn(i)))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(found.id, format!("p{i:03}"));
        assert_eq!(found.tax_id, ssn(i));
    }
    let plan = patients
        .find(Patient::FIELDS.tax_id.eq(&ssn(42)))
        .explain()
        .await
        .unwrap();
    assert!(format!("{plan:?}").contains("taxId_1"), "{plan:?}");

    // Without the handle, an earlier document holding ciphertext is
    // refused with the model and the path named, never a value.
    v2.insert(&PatientV2 {
        id: "late".into(),
        name: "late".into(),
        ssn: ssn(1234),
    })
    .await
    .unwrap();
    let err = Repo::<Patient>::new(&db)
        .get(&"late".to_owned())
        .await
        .unwrap_err();
    let text = format!("{err} {err:?}");
    assert!(text.contains("Patient") && text.contains("ssn"), "{text}");
    assert!(!text.contains(&ssn(1234)), "{text}");
}
