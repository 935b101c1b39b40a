//! Data an older application encrypted by hand, the way its driver typed
//! it: small integers as BSON `int`, where the model says `i64`. A
//! deterministic ciphertext carries the value's type, so the repository
//! asks an integer equality in both widths: typed `eq`, `is_in`, `ne` and
//! `count` find the old documents and the new ones alike, through the
//! field's index, and the old values read back as `i64`.

use crate::fields::setup;

use bson::{doc, Bson, Document as BsonDocument};
use schema_core::crypt::Algorithm;
use schema_core::prelude::*;
use schema_core::Schema;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "members", index(keys(pin = asc)))]
pub struct Member {
    #[serde(rename = "_id")]
    pub id: String,
    #[encrypt(deterministic)]
    pub pin: i64,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn integers_encrypted_as_int_by_an_older_application_are_found_as_i64() {
    let (_client, db, crypt) = setup("enc_legacy", 81).await;
    Schema::new()
        .with::<Member>()
        .with_encryption(crypt.clone())
        .sync(&db)
        .await
        .unwrap();
    // The old application: pins as `int`, encrypted by hand.
    let raw = db.collection::<BsonDocument>("members");
    for (id, pin) in [("old1", 1234_i32), ("old2", 5678), ("old3", 1234)] {
        let sealed = crypt
            .encrypt(&Bson::Int32(pin), "members.pin", Algorithm::Deterministic)
            .await
            .unwrap();
        raw.insert_one(doc! { "_id": id, "pin": sealed })
            .await
            .unwrap();
    }
    // The new one, through the repository: `long`.
    let members = Repo::<Member>::new(&db).with_encryption(crypt.clone());
    let new = |id: &str, pin: i64| Member { id: id.into(), pin };
    members
        .insert_many(&[
            new("new1", 1234),
            new("new2", 99),
            new("big", 5_000_000_000),
        ])
        .await
        .unwrap();

    let ids = |found: Vec<Member>| {
        let mut ids: Vec<String> = found.into_iter().map(|m| m.id).collect();
        ids.sort();
        ids
    };
    let found = members
        .find(Member::FIELDS.pin.eq(&1234))
        .all()
        .await
        .unwrap();
    assert!(found.iter().all(|m| m.pin == 1234));
    assert_eq!(ids(found), ["new1", "old1", "old3"]);
    let found = members
        .find(Member::FIELDS.pin.is_in(&[5678, 99, 5_000_000_000]))
        .all()
        .await
        .unwrap();
    assert_eq!(ids(found), ["big", "new2", "old2"]);
    assert_eq!(
        members.count(Member::FIELDS.pin.eq(&5678)).await.unwrap(),
        1
    );
    let one = members
        .find_one(Member::FIELDS.pin.eq(&5_000_000_000))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(one.id, "big");
    // `ne` leaves out both widths (with a condition the index serves).
    let others = members
        .find(Member::FIELDS.pin.is_in(&[1234, 5678]) & Member::FIELDS.pin.ne(&1234))
        .all()
        .await
        .unwrap();
    assert_eq!(ids(others), ["old2"]);
    // Through the index.
    let plan = members
        .find(Member::FIELDS.pin.eq(&1234))
        .explain()
        .await
        .unwrap();
    assert!(format!("{plan:?}").contains("pin_1"), "{plan:?}");
}
