//! `Schema::verify` over encrypted fields: documents the repository wrote
//! are ciphertext and pass; one an older writer left in clear (written by
//! the raw driver past the validator) is a fault named by its `_id`, and
//! the report quotes no stored value. The check needs no key: a schema
//! without a handle runs it too.

use crate::fields::{customer, setup, Customer, SECRETS};

use bson::doc;
use schema_core::prelude::*;
use schema_core::Schema;

#[tokio::test]
async fn verify_names_the_documents_holding_an_encrypted_field_in_clear() {
    let (_client, db, crypt) = setup("enc_verify", 31).await;
    let schema = Schema::new()
        .with::<Customer>()
        .with_encryption(crypt.clone());
    schema.sync(&db).await.unwrap();
    let repo = Repo::<Customer>::new(&db).with_encryption(crypt);
    repo.insert_many(&[customer("a", "123-45-6789"), customer("b", "987-65-4321")])
        .await
        .unwrap();
    let clean = Schema::new().with::<Customer>().verify(&db).await.unwrap();
    assert!(clean.is_consistent(), "{clean}");

    db.collection::<bson::Document>("customers")
        .insert_one(doc! {
            "_id": "old", "name": "written in clear", "ssn": "555-11-2222",
            "cardNumber": 4_111_i64, "notes": null,
            "address": { "street": "1 Secret Lane", "city": "Hiddenville" },
        })
        .bypass_document_validation(true)
        .await
        .unwrap();
    let check = Schema::new().with::<Customer>().verify(&db).await.unwrap();
    let text = check.to_string();
    println!("{text}");
    assert!(!check.is_consistent());
    let faulty: Vec<(&str, usize)> = check
        .encrypted
        .iter()
        .map(|e| (e.path.as_str(), e.in_clear.len()))
        .collect();
    assert_eq!(
        faulty,
        [("ssn", 1), ("cardNumber", 1), ("notes", 0), ("address", 1)]
    );
    assert!(
        text.contains("encrypted customers.ssn: FAILED (3 documents hold it, 1 in clear)"),
        "{text}"
    );
    assert!(
        text.contains("`customers` old: `ssn` is stored in clear: replace the document"),
        "{text}"
    );
    for secret in SECRETS {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
}
