//! Change streams over a model with encrypted fields: the events' documents
//! arrive decrypted (the stream decrypts them as a read does) while the
//! server's oplog and collection hold ciphertext; a typed filter on a
//! deterministic field encrypts its operand, so it matches; and a consumer
//! handles the plaintext.

use crate::fields::{customer, setup, Customer};

use bson::doc;
use futures_util::TryStreamExt;
use schema_core::prelude::*;
use schema_core::{Change, Consumer, Schema};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

#[tokio::test]
async fn a_watch_and_a_consumer_see_encrypted_fields_in_clear() {
    let (_client, db, crypt) = setup("enc_changes", 41).await;
    Schema::new()
        .with::<Customer>()
        .with_encryption(crypt.clone())
        .sync(&db)
        .await
        .unwrap();
    let repo = Repo::<Customer>::new(&db).with_encryption(crypt);

    // A stream filtered on the deterministic `ssn`: only Ada's changes.
    let ada_ssn = "123-45-6789".to_owned();
    let mut changes = repo
        .watch()
        .filter(Customer::FIELDS.ssn.eq(&ada_ssn))
        .full_document_on_update()
        .await
        .unwrap();
    repo.insert(&customer("bo", "987-65-4321")).await.unwrap();
    repo.insert(&customer("ada", &ada_ssn)).await.unwrap();
    let mut ada = customer("ada", &ada_ssn);
    ada.notes = Some("moved".into());
    repo.replace(&ada).await.unwrap();
    let first = changes.try_next().await.unwrap().unwrap();
    match &first.change {
        Change::Insert(c) => assert_eq!(c, &customer("ada", &ada_ssn)),
        other => panic!("an insert of Ada, not {other:?}"),
    }
    let second = changes.try_next().await.unwrap().unwrap();
    match &second.change {
        Change::Replace(c) => assert_eq!(c, &ada),
        other => panic!("a replace of Ada, not {other:?}"),
    }
    // The stored documents are ciphertext.
    let stored = db
        .collection::<bson::Document>("customers")
        .find_one(doc! { "_id": "ada" })
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(stored.get("ssn"), Some(bson::Bson::Binary(_))));

    // A consumer over the same model: each insert's `ssn` in clear.
    let consumer = Consumer::new("enc-consumer", &repo);
    let stop = consumer.stopper();
    let done = AtomicBool::new(false);
    let mut seen: Vec<(String, String)> = Vec::new();
    let (ran, ()) = tokio::join!(
        consumer.run_at_least_once((&mut seen, &stop, &done), |(seen, stop, done), e| {
            Box::pin(async move {
                if let Change::Insert(c) = &e.change {
                    seen.push((c.id.clone(), c.ssn.clone()));
                    if seen.len() == 3 {
                        done.store(true, Ordering::SeqCst);
                        stop.stop();
                    }
                }
                Ok(())
            })
        }),
        async {
            // Inserted until the consumer, started meanwhile, saw three.
            for i in 0..200 {
                if done.load(Ordering::SeqCst) {
                    break;
                }
                let ssn = format!("555-00-{i:04}");
                repo.insert(&customer(&format!("c{i}"), &ssn))
                    .await
                    .unwrap();
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    );
    ran.unwrap();
    assert_eq!(seen.len(), 3, "{seen:?}");
    for (id, ssn) in &seen {
        let i: usize = id[1..].parse().unwrap();
        assert_eq!(ssn, &format!("555-00-{i:04}"));
    }
}
