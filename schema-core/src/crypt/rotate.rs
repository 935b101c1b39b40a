//! Rotating the local master key: every data key of the key vault
//! unwrapped with the current master key and wrapped with the next one, by
//! libmongocrypt's rewrap context (`rewrapManyDataKey`), and written back
//! in one transaction. The data keys themselves do not change, so no
//! document is rewritten: every value stays readable, by a handle opened
//! with the next master key.
//!
//! libmongocrypt knows one key per provider name, so the rewrap runs on a
//! handle of its own that knows both, the current one as `local` and the
//! next as `local:next`; each rewrapped key is stored back under the plain
//! `local` (the wrapping carries no provider name: a local key's material
//! is the data key encrypted with the master key alone).

use std::sync::Arc;

use bson::{doc, Binary, Bson, RawBsonRef};

use super::handle::{crypt_with, Encryption, LocalMasterKey};
use super::subject::{reason, Subject};
use crate::error::{Error, Result};
use crate::txn::{helper_options, transaction};

/// The provider name the next master key has during a rotation.
const NEXT: &str = "local:next";

fn key_bytes(master: &LocalMasterKey) -> Bson {
    Bson::Binary(Binary {
        subtype: bson::spec::BinarySubtype::Generic,
        bytes: master.bytes().to_vec(),
    })
}

impl Encryption {
    /// Rewraps every data key of the key vault under `next` (which the
    /// application stores in place of `current` once this returns): the
    /// keys are unwrapped with `current`, wrapped with `next` and written
    /// back in one transaction, so a failure leaves every key as it was.
    /// Documents are not touched and stay readable through a handle opened
    /// with `next`; `current` no longer unwraps any key. Returns how many
    /// keys were rewrapped. A key `current` does not unwrap fails the whole
    /// rotation (`Error::Encryption` naming the key's id, nothing written).
    pub async fn rotate_master_key(
        &self,
        current: &LocalMasterKey,
        next: &LocalMasterKey,
    ) -> Result<u64> {
        let every = format!("every data key of {}", self.vault.namespace());
        let subject = Subject {
            model: None,
            field: None,
            key: &every,
        };
        let failed = |err: mongocrypt::error::Error| subject.failed("rotate", reason(&err));
        let providers = doc! {
            "local": { "key": key_bytes(current) },
            NEXT: { "key": key_bytes(next) },
        };
        let both = Encryption {
            crypt: Arc::new(crypt_with(&providers).map_err(failed)?),
            ..self.clone()
        };
        let ctx = both
            .crypt
            .ctx_builder()
            .key_encryption_key(&doc! { "provider": NEXT })
            .and_then(|b| b.build_rewrap_many_datakey(&bson::rawdoc! {}))
            .map_err(failed)?;
        let rewrapped = both
            .run(ctx, "rotate", subject)
            .await
            .map_err(|err| match err {
                Error::Encryption { reason, .. } if reason.contains("HMAC") => subject.failed(
                    "rotate",
                    format!("the current master key given does not unwrap them ({reason}); no key was written"),
                ),
                Error::Encryption { reason, .. } => {
                    subject.failed("rotate", format!("{reason}; no key was written"))
                }
                other => other,
            })?;
        let keys = match rewrapped.get("v") {
            Ok(Some(RawBsonRef::Array(keys))) => keys.to_owned(),
            // An empty vault: nothing to rewrap.
            _ => return Ok(0),
        };
        let mut updates = Vec::new();
        for key in keys.into_iter() {
            let Ok(RawBsonRef::Document(key)) = key else {
                return Err(
                    subject.failed("rotate", "libmongocrypt returned a key that is no document")
                );
            };
            let (Ok(id), Ok(material)) = (key.get_binary("_id"), key.get_binary("keyMaterial"))
            else {
                return Err(subject.failed("rotate", "a rewrapped key without its id or material"));
            };
            updates.push((id.to_binary(), material.to_binary()));
        }
        // One transaction, run and retried as every transaction of the
        // framework is (the drivers' convenient-transactions contract).
        let client = self.vault.client().clone();
        let now = bson::DateTime::now();
        transaction(&client)
            .options(helper_options())
            .run_with((&self.vault, &updates), move |s, (vault, updates)| {
                Box::pin(async move {
                    for (id, material) in updates.iter() {
                        vault
                            .update_one(
                                doc! { "_id": Bson::Binary(id.clone()) },
                                doc! { "$set": {
                                    "keyMaterial": Bson::Binary(material.clone()),
                                    "masterKey": { "provider": "local" },
                                    "updateDate": now,
                                } },
                            )
                            .session(&mut *s)
                            .await?;
                    }
                    Ok(())
                })
            })
            .await?;
        Ok(updates.len() as u64)
    }
}
