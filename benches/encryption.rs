//! Encrypted fields through the repository against the same fields
//! encrypted by hand through the same libmongocrypt (`Encryption::encrypt`
//! and `decrypt`, the explicit API the repository drives, with the raw
//! driver), and against the same model without encryption, interleaved in
//! one run. Needs the `encryption` feature and libmongocrypt
//! (`scripts/install-mongocrypt.sh`; `MONGOCRYPT_LIB_DIR` and
//! `LD_LIBRARY_PATH`).
//!
//! - **insert**: `insert_many` of `BATCH` patients (a deterministic `ssn`, a
//!   random `diagnosis`, a plain `name`); by hand, each field encrypted
//!   with `Encryption::encrypt` and the documents sent with the driver's
//!   `insert_many`.
//! - **find_eq**: `LOOKUPS` patients found one by one by their `ssn`
//!   (`FIELDS.ssn.eq(..)`, the operand encrypted, on the index of `ssn`)
//!   and decrypted; by hand, the operand encrypted, `find_one` with the
//!   driver, both fields decrypted and the patient built.
//!
//! Both sides share one handle, so one cache of data keys. Each row prints
//! the median milliseconds of the repository, the hand-written and the
//! plain side, and the medians of the per-round ratios repository/hand
//! (target <= 1.05) and repository/plain, with their p10-p90.
//!
//! Run: `cargo bench --features encryption --bench encryption`.
//! `ROUNDS=N` (default 30), `BATCH=N` (default 200), `LOOKUPS=N` (default
//! 200).

use std::time::{Duration, Instant};

use bson::{doc, Bson, Document as BsonDocument};
use schema_core::crypt::{Algorithm, Encryption, LocalMasterKey};
use schema_core::prelude::*;
use schema_core::Schema;
use schema_testkit::stats::{median, Spread};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "patients", index(keys(ssn = asc)))]
struct Patient {
    #[serde(rename = "_id")]
    id: i64,
    name: String,
    #[encrypt(deterministic)]
    ssn: String,
    #[encrypt(random)]
    diagnosis: String,
}

/// The same shape, not encrypted.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "plain_patients", index(keys(ssn = asc)))]
struct PlainPatient {
    #[serde(rename = "_id")]
    id: i64,
    name: String,
    ssn: String,
    diagnosis: String,
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn patient(id: i64) -> Patient {
    Patient {
        id,
        name: format!("patient {id}"),
        ssn: format!("{:03}-{:02}-{:06}", id % 1000, id % 100, id),
        diagnosis: format!("diagnosis of patient {id}"),
    }
}

fn plain(p: &Patient) -> PlainPatient {
    PlainPatient {
        id: p.id,
        name: p.name.clone(),
        ssn: p.ssn.clone(),
        diagnosis: p.diagnosis.clone(),
    }
}

/// A patient's document with its fields encrypted by hand.
async fn by_hand(crypt: &Encryption, p: &Patient) -> BsonDocument {
    let ssn = crypt
        .encrypt(
            &Bson::from(p.ssn.as_str()),
            "patients.ssn",
            Algorithm::Deterministic,
        )
        .await
        .expect("encrypt ssn");
    let diagnosis = crypt
        .encrypt(
            &Bson::from(p.diagnosis.as_str()),
            "patients.diagnosis",
            Algorithm::Random,
        )
        .await
        .expect("encrypt diagnosis");
    doc! { "_id": p.id, "name": &p.name, "ssn": ssn, "diagnosis": diagnosis }
}

/// A stored document decrypted by hand into a patient.
async fn read_by_hand(crypt: &Encryption, d: &BsonDocument) -> Patient {
    let open = |key: &str| match d.get(key) {
        Some(Bson::Binary(b)) => b.clone(),
        _ => panic!("{key} is not encrypted"),
    };
    let ssn = crypt.decrypt(&open("ssn")).await.expect("decrypt ssn");
    let diagnosis = crypt
        .decrypt(&open("diagnosis"))
        .await
        .expect("decrypt diagnosis");
    Patient {
        id: d.get_i64("_id").expect("id"),
        name: d.get_str("name").expect("name").to_owned(),
        ssn: ssn.as_str().expect("ssn").to_owned(),
        diagnosis: diagnosis.as_str().expect("diagnosis").to_owned(),
    }
}

fn row(name: &str, repo: &[Duration], hand: &[Duration], plain: &[Duration]) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{name:<8} repository {:>8.2} ms   by hand {:>8.2} ms   plain {:>8.2} ms   repository/hand {}   repository/plain {}",
        ms(median(repo)),
        ms(median(hand)),
        ms(median(plain)),
        Spread::of_ratios(repo, hand),
        Spread::of_ratios(repo, plain),
    );
}

#[tokio::main]
async fn main() {
    let rounds = env("ROUNDS", 30).max(1);
    let batch = env("BATCH", 200).max(1) as i64;
    let lookups = env("LOOKUPS", 200).max(1) as i64;
    let (client, _log) = schema_testkit::counting_client()
        .await
        .expect("a server: set MONGODB_URI or install secantusd-rs");
    let db = client.database("bench_encryption");
    db.drop().await.expect("drop");
    let crypt = Encryption::new(&client, LocalMasterKey::new([3; 96]))
        .expect("an encryption handle")
        .with_key_vault(&client, db.name(), "__keyVault");
    Schema::new()
        .with::<Patient>()
        .with::<PlainPatient>()
        .with_encryption(crypt.clone())
        .sync(&db)
        .await
        .expect("sync");
    // The hand-written side's collection: the same documents, the same index.
    let hand = db.collection::<BsonDocument>("hand_patients");
    hand.create_index(
        mongodb::IndexModel::builder()
            .keys(doc! { "ssn": 1 })
            .build(),
    )
    .await
    .expect("index");
    let repo = Repo::<Patient>::new(&db).with_encryption(crypt.clone());
    let plain_repo = Repo::<PlainPatient>::new(&db);
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        print!("load average {}; ", load.split(' ').next().unwrap_or("?"));
    }
    println!(
        "libmongocrypt {}; {rounds} interleaved rounds of {batch} inserts and {lookups} lookups; medians; ratios: median of the per-round ratios, p10-p90",
        Encryption::library_version()
    );

    let (mut ins, mut find) = ([vec![], vec![], vec![]], [vec![], vec![], vec![]]);
    for round in 0..rounds as i64 {
        let patients: Vec<Patient> = (0..batch).map(|i| patient(round * batch + i)).collect();
        let plains: Vec<PlainPatient> = patients.iter().map(plain).collect();
        // The side that goes first turns with the round.
        for side in (0..3).map(|k| (k + round as usize) % 3) {
            let start = Instant::now();
            match side {
                0 => {
                    repo.insert_many(&patients)
                        .await
                        .expect("repository insert");
                }
                1 => {
                    let mut docs = Vec::with_capacity(patients.len());
                    for p in &patients {
                        docs.push(by_hand(&crypt, p).await);
                    }
                    hand.insert_many(docs).await.expect("insert by hand");
                }
                _ => {
                    plain_repo.insert_many(&plains).await.expect("plain insert");
                }
            }
            ins[side].push(start.elapsed());
        }
        // Lookups of patients written so far, the same ones on each side.
        let wanted: Vec<Patient> = (0..lookups)
            .map(|i| patient((i * 7_919 + round) % ((round + 1) * batch)))
            .collect();
        for side in (0..3).map(|k| (k + round as usize) % 3) {
            let start = Instant::now();
            for want in &wanted {
                let found = match side {
                    0 => repo
                        .find_one(Patient::FIELDS.ssn.eq(&want.ssn))
                        .await
                        .expect("repository find"),
                    1 => {
                        let operand = crypt
                            .encrypt(
                                &Bson::from(want.ssn.as_str()),
                                "patients.ssn",
                                Algorithm::Deterministic,
                            )
                            .await
                            .expect("encrypt the operand");
                        match hand
                            .find_one(doc! { "ssn": operand })
                            .await
                            .expect("find by hand")
                        {
                            Some(d) => Some(read_by_hand(&crypt, &d).await),
                            None => None,
                        }
                    }
                    _ => plain_repo
                        .find_one(PlainPatient::FIELDS.ssn.eq(&want.ssn))
                        .await
                        .expect("plain find")
                        .map(|p| Patient {
                            id: p.id,
                            name: p.name,
                            ssn: p.ssn,
                            diagnosis: p.diagnosis,
                        }),
                };
                assert_eq!(found.as_ref(), Some(want), "side {side} found the patient");
            }
            find[side].push(start.elapsed());
        }
    }
    row("insert", &ins[0], &ins[1], &ins[2]);
    row("find_eq", &find[0], &find[1], &find[2]);
}
