//! Byte for byte against libmongocrypt builds with native crypto: the
//! client-side encryption specification's corpus (mongodb/specifications,
//! `source/client-side-encryption/corpus/`, commit 92b3c0b9) holds a local
//! data key wrapped by the specification's local master key and the
//! deterministic ciphertexts the drivers' native-crypto builds produce with
//! it. Encrypted here through the RustCrypto hooks (the pymongocrypt build
//! has no crypto of its own), the same values give the same bytes, and the
//! corpus's random ciphertexts decrypt to its values. No native build is on
//! this machine; these recorded bytes stand for it.

use crate::support;

use bson::oid::ObjectId;
use bson::spec::BinarySubtype;
use bson::{doc, Binary, Bson, DateTime};
use schema_core::crypt::{Algorithm, Encryption, LocalMasterKey};

/// The specification's local master key (base64 of its 96 bytes).
const MASTER: &str = "Mng0NCt4ZHVUYUJCa1kxNkVyNUR1QURhZ2h2UzR2d2RrZzh0cFBwM3R6NmdWMDFBMUN3YkQ5aXRRMkhGRGdQV09wOGVNYUMxT2k3NjZKelhaQmRCZGJkTXVyZG9uSjFk";

/// `corpus-key-local.json`: the data key, named `local`.
const KEY_ID: &str = "LOCALAAAAAAAAAAAAAAAAA==";
const KEY_MATERIAL: &str = "Ce9HSz/HKKGkIt4uyy+jDuKGA+rLC2cycykMo6vc8jXxqa1UVDYHWq1r+vZKbnnSRBfB981akzRKZCFpC05CTyFqDhXv6OnMjpG97OZEREGIsHEYiJkBW0jJJvfLLgeLsEpBzsro9FztGGXASxyxFRZFhXvHxyiLOKrdWfs7X1O/iK3pEoHMx6uSNSfUOgbebLfIqW7TO++iQS5g1xovXA==";

fn binary(base64: &str, subtype: BinarySubtype) -> Binary {
    Binary::from_base64(base64, subtype).expect("base64")
}

/// `corpus.json`'s values and `corpus-encrypted.json`'s deterministic
/// ciphertexts of them (`local_<type>_det_explicit_altname`).
fn deterministic() -> Vec<(&'static str, Bson, &'static str)> {
    vec![
        ("string", Bson::from("mongodb"), "ASzggCwAAAAAAAAAAAAAAAACW0cZMYWOY3eoqQQkSdBtS9iHC4CSQA27dy6XJGcmTV8EDuhGNnPmbx0EKFTDb0PCSyCjMyuE4nsgmNYgjTaSuw=="),
        ("int", Bson::Int32(123), "ASzggCwAAAAAAAAAAAAAAAAQIxWjLBromNUgiOoeoZ4RUJUYIfhfOmab0sa4qYlS9bgYI41FU6BtzaOevR16O9i+uACbiHL0X6FMXKjOmiRAug=="),
        ("long", Bson::Int64(456), "ASzggCwAAAAAAAAAAAAAAAASQk372m/hW3WX82/GH+ikPv3QUwK7Hh/RBpAguiNxMdNhkgA/y2gznVNm17t6djyub7+d5zN4P5PLS/EOm2kjtw=="),
        ("objectId", Bson::ObjectId(ObjectId::parse_str("01234567890abcdef0123456").unwrap()), "ASzggCwAAAAAAAAAAAAAAAAH4ElF4AvQ+kkGfhadgKNy3GcYrDZPN6RpzaMYIhcCGDvC9W+cIS9dH1aJbPU7vTPmEZnnynPTDWjw3rAj2+9mOA=="),
        ("date", Bson::DateTime(DateTime::from_millis(12345)), "ASzggCwAAAAAAAAAAAAAAAAJ1GMYQTruoKr6fv9XCbcVkx/3yivymPSMEkPCRDYxQv45w4TqBKMDfpRd1TOLOv1qvcb+gjH+z5IfVBMp2IpG/Q=="),
    ]
}

/// Random ciphertexts of the corpus (`local_<type>_rand_explicit_altname`).
fn random() -> Vec<(&'static str, Bson, &'static str)> {
    vec![
        ("string", Bson::from("mongodb"), "AizggCwAAAAAAAAAAAAAAAACZfoO2LjY+IB31FZ1Tq7pHr0DCFKGJqWcXcOrnZ7bV9Euc9f101motJc31sp8nF5CTCfd83VQE0319eQrxDDaSw=="),
        ("int", Bson::Int32(123), "AizggCwAAAAAAAAAAAAAAAAQLCHLru//++QSoWVEyw2v6TUfCnlrPJXrpLLezWf16vK85jTfm8vJbb2X2UzX04wGzVL9tCFFsWX6Z5gHXhgSBg=="),
    ]
}

#[tokio::test]
async fn deterministic_ciphertexts_match_the_specifications_corpus_byte_for_byte() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "enc_corpus").await;
    let master = binary(MASTER, BinarySubtype::Generic).bytes;
    let master: [u8; 96] = master.try_into().expect("96 bytes");
    let crypt = Encryption::new(&client, LocalMasterKey::new(master))
        .expect("an encryption handle")
        .with_key_vault(&client, db.name(), "__keyVault");
    db.collection::<bson::Document>("__keyVault")
        .insert_one(doc! {
            "_id": binary(KEY_ID, BinarySubtype::Uuid),
            "keyMaterial": binary(KEY_MATERIAL, BinarySubtype::Generic),
            "masterKey": { "provider": "local" },
            "status": 1,
            "creationDate": DateTime::from_millis(1_557_827_033_449),
            "updateDate": DateTime::from_millis(1_557_827_033_449),
            "keyAltNames": ["local"],
        })
        .await
        .unwrap();
    println!("libmongocrypt {}", Encryption::library_version());
    for (kind, value, expected) in deterministic() {
        let sealed = crypt
            .encrypt(&value, "local", Algorithm::Deterministic)
            .await
            .unwrap();
        assert_eq!(
            sealed,
            binary(expected, BinarySubtype::Encrypted),
            "{kind}: the bytes of a native-crypto build"
        );
        assert_eq!(crypt.decrypt(&sealed).await.unwrap(), value, "{kind}");
    }
    for (kind, value, recorded) in random() {
        let recorded = binary(recorded, BinarySubtype::Encrypted);
        assert_eq!(crypt.decrypt(&recorded).await.unwrap(), value, "{kind}");
    }
}
