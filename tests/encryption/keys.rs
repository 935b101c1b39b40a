//! The key vault: its unique partial index, one data key per name even
//! when many tasks ask for it at once.

use crate::support;

use bson::doc;
use schema_core::crypt::{Encryption, LocalMasterKey, KEY_ALT_NAMES_INDEX};

/// A handle whose key vault is in the test's own database.
pub(super) async fn handle(test: &str, master: u8) -> (mongodb::Database, Encryption) {
    let client = support::client().await;
    let db = support::fresh_db(&client, test).await;
    let crypt = Encryption::new(&client, LocalMasterKey::new([master; 96]))
        .expect("an encryption handle")
        .with_key_vault(&client, db.name(), "__keyVault");
    (db, crypt)
}

#[tokio::test]
async fn the_key_vault_gets_its_unique_partial_index_on_key_alt_names() {
    let (db, crypt) = handle("enc_vault_index", 1).await;
    crypt.setup_key_vault().await.unwrap();
    let index = support::listed_index(&db, "__keyVault", KEY_ALT_NAMES_INDEX)
        .await
        .expect("the index on keyAltNames");
    assert_eq!(
        index.get_document("key").unwrap(),
        &doc! { "keyAltNames": 1 }
    );
    assert!(index.get_bool("unique").unwrap());
    assert_eq!(
        index.get_document("partialFilterExpression").unwrap(),
        &doc! { "keyAltNames": { "$exists": true } }
    );
}

#[tokio::test]
async fn a_data_key_is_created_once_and_found_again_by_its_name() {
    let (db, crypt) = handle("enc_key_once", 2).await;
    let first = crypt.data_key("users.email").await.unwrap();
    assert_eq!(first.subtype, bson::spec::BinarySubtype::Uuid);
    assert_eq!(crypt.data_key("users.email").await.unwrap(), first);
    assert_eq!(crypt.find_key("users.email").await.unwrap(), Some(first));
    assert_eq!(crypt.find_key("users.phone").await.unwrap(), None);
    let vault = db.collection::<bson::Document>("__keyVault");
    let stored = vault.find_one(doc! {}).await.unwrap().unwrap();
    assert_eq!(
        stored.get_array("keyAltNames").unwrap(),
        &vec![bson::Bson::from("users.email")]
    );
    assert_eq!(
        stored.get_document("masterKey").unwrap(),
        &doc! { "provider": "local" }
    );
    // The key material is wrapped: 96 bytes of key in, more out, and not a
    // byte of the master key in the clear.
    let material = stored.get_binary_generic("keyMaterial").unwrap();
    assert!(material.len() > 96);
    assert!(!material.windows(8).any(|w| w == [2u8; 8]));
}

#[tokio::test]
async fn many_tasks_asking_for_a_new_key_at_once_get_one_key() {
    let (db, crypt) = handle("enc_key_race", 3).await;
    let tasks: Vec<_> = (0..12)
        .map(|_| {
            let crypt = crypt.clone();
            tokio::spawn(async move { crypt.data_key("orders.card").await })
        })
        .collect();
    let mut ids = Vec::new();
    for task in tasks {
        ids.push(task.await.unwrap().unwrap());
    }
    ids.dedup();
    assert_eq!(ids.len(), 1, "every task got the same key");
    let count = db
        .collection::<bson::Document>("__keyVault")
        .count_documents(doc! { "keyAltNames": "orders.card" })
        .await
        .unwrap();
    assert_eq!(count, 1);
}
