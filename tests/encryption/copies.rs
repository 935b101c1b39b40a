//! Copies of encrypted fields (seed 004's extended reference, with a
//! secret): the copy is declared `#[encrypt(..)]` too (a copy in clear
//! does not compile, `ui/copy-in-clear.rs`), computed from its sources'
//! decrypted values, compared in clear (so a random ciphertext is not
//! "out of sync" every time) and written encrypted under the holder's key:
//! by `Copies::refresh`, `update` (in the source's transaction), `repair`,
//! and checked by `verify` and `Schema::verify`.

use crate::fields::setup;

use bson::spec::BinarySubtype;
use bson::{doc, Bson, Document as BsonDocument};
use schema_core::prelude::*;
use schema_core::{Copies, Schema};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "doctors", index(keys(license = asc)))]
pub struct Doctor {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    #[encrypt(deterministic)]
    pub license: String,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "appointments")]
pub struct Appointment {
    #[serde(rename = "_id")]
    pub id: String,
    #[reference(index, to = Doctor)]
    pub doctor: String,
    #[serde(rename = "doctorLicense")]
    #[copy(from = doctor, field = license)]
    #[encrypt(random)]
    pub doctor_license: Option<String>,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "teams")]
pub struct Team {
    #[serde(rename = "_id")]
    pub id: String,
    #[many_to_many(one_sided, to = Doctor, max = 5)]
    pub doctors: Vec<String>,
    #[embed(max = 5)]
    #[copy(from = doctors, field = license)]
    #[encrypt(random)]
    pub licenses: Vec<String>,
}

fn doctor(i: usize) -> Doctor {
    Doctor {
        id: format!("d{i}"),
        name: format!("doctor {i}"),
        license: format!("LIC-{i:04}"),
    }
}

/// The stored `field` of `id` in `collection` is a ciphertext.
async fn assert_sealed(db: &mongodb::Database, collection: &str, id: &str, field: &str) {
    let stored = db
        .collection::<BsonDocument>(collection)
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
        .unwrap();
    match stored.get(field) {
        Some(Bson::Binary(bin)) => assert_eq!(bin.subtype, BinarySubtype::Encrypted),
        other => panic!("{collection}.{field} of {id} stored as {other:?}"),
    }
    assert!(!stored.to_string().contains("LIC-"), "{stored}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn copies_of_encrypted_fields_are_read_in_clear_and_written_sealed() {
    let (_client, db, crypt) = setup("enc_copies", 71).await;
    let schema = Schema::new()
        .with::<Doctor>()
        .with::<Appointment>()
        .with::<Team>()
        .with_encryption(crypt.clone());
    schema.sync(&db).await.unwrap();
    let doctors = Repo::<Doctor>::new(&db).with_encryption(crypt.clone());
    let appointments = Repo::<Appointment>::new(&db).with_encryption(crypt.clone());
    let teams = Repo::<Team>::new(&db).with_encryption(crypt.clone());
    doctors
        .insert_many(&(0..3).map(doctor).collect::<Vec<_>>())
        .await
        .unwrap();
    appointments
        .insert(&Appointment {
            id: "a1".into(),
            doctor: "d1".into(),
            doctor_license: None,
        })
        .await
        .unwrap();
    teams
        .insert(&Team {
            id: "t1".into(),
            doctors: vec!["d0".into(), "d2".into()],
            licenses: vec![],
        })
        .await
        .unwrap();

    // The bound of an array encrypted whole is checked before sending
    // (the server sees one ciphertext).
    let err = teams
        .insert(&Team {
            id: "t2".into(),
            doctors: vec![],
            licenses: (0..6).map(|i| format!("LIC-{i}")).collect(),
        })
        .await
        .unwrap_err();
    assert!(
        matches!(&err, schema_core::Error::OverBound { .. })
            && err.to_string().contains("licenses"),
        "{err:?}"
    );
    assert!(!err.to_string().contains("LIC-"), "{err}");
    let six: Vec<String> = (0..6).map(|i| format!("LIC-{i}")).collect();
    let err = teams
        .update(&"t1".to_owned(), Team::FIELDS.licenses.set(&six))
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("bound of 5") && !text.contains("LIC-"),
        "{text}"
    );

    // Refreshed from the sources: written sealed, read in clear.
    let copies = Copies::<Appointment>::new(&db).with_encryption(crypt.clone());
    assert!(copies.refresh(&"a1".to_owned()).await.unwrap());
    assert_sealed(&db, "appointments", "a1", "doctorLicense").await;
    let a1 = appointments.get(&"a1".to_owned()).await.unwrap().unwrap();
    assert_eq!(a1.doctor_license.as_deref(), Some("LIC-0001"));
    // Compared in clear: in sync, and a second refresh writes nothing.
    assert!(copies.verify().await.unwrap().is_consistent());
    assert!(!copies.refresh(&"a1".to_owned()).await.unwrap());
    let team_copies = Copies::<Team>::new(&db).with_encryption(crypt.clone());
    assert!(team_copies.refresh(&"t1".to_owned()).await.unwrap());
    assert_sealed(&db, "teams", "t1", "licenses").await;
    let t1 = teams.get(&"t1".to_owned()).await.unwrap().unwrap();
    assert_eq!(t1.licenses, ["LIC-0000", "LIC-0002"]);

    // The source changes, its copy with it, in one transaction.
    let renewed = "LIC-9001".to_owned();
    assert!(copies
        .update::<Doctor, _>(&"d1".to_owned(), || Doctor::FIELDS.license.set(&renewed))
        .await
        .unwrap());
    let a1 = appointments.get(&"a1".to_owned()).await.unwrap().unwrap();
    assert_eq!(a1.doctor_license.as_deref(), Some("LIC-9001"));
    assert_sealed(&db, "appointments", "a1", "doctorLicense").await;
    assert_sealed(&db, "doctors", "d1", "license").await;
    let found = doctors
        .find_one(Doctor::FIELDS.license.eq(&renewed))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.id, "d1");

    // A copy gone stale behind the helpers' back: found in clear, repaired
    // sealed.
    let stale = crypt
        .encrypt(
            &Bson::from("LIC-0000"),
            "teams.licenses",
            schema_core::crypt::Algorithm::Random,
        )
        .await
        .unwrap();
    db.collection::<BsonDocument>("teams")
        .update_one(doc! { "_id": "t1" }, doc! { "$set": { "licenses": stale } })
        .await
        .unwrap();
    let check = schema.verify(&db).await.unwrap();
    let teams_check = check
        .copies
        .iter()
        .find(|c| c.collection == "teams")
        .unwrap();
    assert_eq!(
        teams_check.report.out_of_sync,
        [("t1".to_owned(), "licenses")]
    );
    assert!(check
        .copies
        .iter()
        .filter(|c| c.collection != "teams")
        .all(|c| c.report.is_consistent()));
    assert_eq!(team_copies.repair().await.unwrap(), 1);
    assert_sealed(&db, "teams", "t1", "licenses").await;
    let t1 = teams.get(&"t1".to_owned()).await.unwrap().unwrap();
    assert_eq!(t1.licenses, ["LIC-0000", "LIC-0002"]);

    // Without the handle, the copies are refused, never compared or
    // written as ciphertext.
    let err = Copies::<Appointment>::new(&db)
        .refresh(&"a1".to_owned())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("encryption handle"), "{err}");
}

/// A copy a consumer follows (`follow = "consumer"`), of an encrypted field.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "rosters")]
pub struct Roster {
    #[serde(rename = "_id")]
    pub id: String,
    #[reference(index, to = Doctor)]
    pub doctor: String,
    #[copy(from = doctor, field = license, follow = "consumer")]
    #[encrypt(random)]
    pub license: Option<String>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_follower_spawned_keeps_an_encrypted_copy_after_the_commit() {
    use schema_core::{CopyFollower, CONSUMERS};
    use std::time::{Duration, Instant};

    let (_client, db, crypt) = setup("enc_follow", 72).await;
    Schema::new()
        .with::<Doctor>()
        .with::<Roster>()
        .with_encryption(crypt.clone())
        .sync(&db)
        .await
        .unwrap();
    let doctors = Repo::<Doctor>::new(&db).with_encryption(crypt.clone());
    let rosters = Repo::<Roster>::new(&db).with_encryption(crypt.clone());
    doctors.insert(&doctor(5)).await.unwrap();
    rosters
        .insert(&Roster {
            id: "r1".into(),
            doctor: "d5".into(),
            license: Some("LIC-0005".into()),
        })
        .await
        .unwrap();

    let follower =
        CopyFollower::<Roster, Doctor>::new("roster-licenses", &db).with_encryption(crypt.clone());
    let stop = follower.stopper();
    let task = tokio::spawn(async move { follower.run().await });
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let position = db
            .collection::<BsonDocument>(CONSUMERS)
            .find_one(doc! { "_id": "roster-licenses" })
            .await
            .unwrap();
        if position.is_some_and(|p| p.get_document("token").is_ok()) {
            break;
        }
        assert!(Instant::now() < deadline, "the follower never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // The source alone changes in its transaction; the follower follows.
    let renewed = "LIC-7777".to_owned();
    Copies::<Roster>::new(&db)
        .with_encryption(crypt.clone())
        .update::<Doctor, _>(&"d5".to_owned(), || Doctor::FIELDS.license.set(&renewed))
        .await
        .unwrap();
    loop {
        let r1 = rosters.get(&"r1".to_owned()).await.unwrap().unwrap();
        if r1.license.as_deref() == Some("LIC-7777") {
            break;
        }
        assert!(Instant::now() < deadline, "the copy was never followed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_sealed(&db, "rosters", "r1", "license").await;
    stop.stop();
    task.await.unwrap().unwrap();
}
