//! Encrypting and decrypting one value: a libmongocrypt context driven to
//! its end, the key vault read on its way when the data key is not cached.

use bson::spec::BinarySubtype;
use bson::{Binary, Bson, RawBson, RawDocumentBuf};
use futures_util::TryStreamExt;
use mongocrypt::ctx::{Ctx, State};

use super::handle::{Algorithm, Encryption};
use super::subject::{reason, Subject};
use crate::error::Result;

impl Encryption {
    /// `value` encrypted under the data key named `key` (its key alt name):
    /// a BSON binary of subtype 6. The key must exist
    /// ([`data_key`](Self::data_key) creates it). Deterministic encryption
    /// refuses documents, arrays, booleans, doubles and decimals, as
    /// libmongocrypt does (they leak too much or compare loosely).
    pub async fn encrypt(&self, value: &Bson, key: &str, algorithm: Algorithm) -> Result<Binary> {
        let subject = Subject {
            model: None,
            field: None,
            key,
        };
        self.encrypt_as(value, algorithm, subject).await
    }

    /// The value a subtype-6 binary holds. Its data key is found by the id
    /// the ciphertext carries; a ciphertext changed by one byte, or wrapped
    /// by another master key, fails (`HMAC validation failure`).
    pub async fn decrypt(&self, value: &Binary) -> Result<Bson> {
        let key = key_id_text(value);
        let subject = Subject {
            model: None,
            field: None,
            key: &key,
        };
        self.decrypt_as(value, subject).await
    }

    pub(crate) async fn encrypt_as(
        &self,
        value: &Bson,
        algorithm: Algorithm,
        subject: Subject<'_>,
    ) -> Result<Binary> {
        let raw = RawBson::try_from(value.clone())
            .map_err(|_| subject.failed("encrypt", "the value cannot be held in BSON"))?;
        self.encrypt_raw(raw, algorithm, subject).await
    }

    /// [`encrypt_as`](Self::encrypt_as) of a raw value.
    pub(crate) async fn encrypt_raw(
        &self,
        raw: RawBson,
        algorithm: Algorithm,
        subject: Subject<'_>,
    ) -> Result<Binary> {
        let failed = |err: mongocrypt::error::Error| subject.failed("encrypt", reason(&err));
        let ctx = self
            .crypt
            .ctx_builder()
            .key_alt_name(subject.key)
            .and_then(|b| b.algorithm(super::handle::native(algorithm)))
            .and_then(|b| b.build_explicit_encrypt(raw))
            .map_err(failed)?;
        let out = self.run(ctx, "encrypt", subject).await?;
        match out.get("v") {
            Ok(Some(bson::RawBsonRef::Binary(bin))) if bin.subtype == BinarySubtype::Encrypted => {
                Ok(bin.to_binary())
            }
            _ => Err(subject.failed("encrypt", "libmongocrypt returned no ciphertext")),
        }
    }

    pub(crate) async fn decrypt_as(&self, value: &Binary, subject: Subject<'_>) -> Result<Bson> {
        if value.subtype != BinarySubtype::Encrypted {
            return Err(subject.failed(
                "decrypt",
                "the stored value is not encrypted (BSON binary subtype 6 expected)",
            ));
        }
        Bson::try_from(self.decrypt_raw(&value.bytes, subject).await?)
            .map_err(|_| subject.failed("decrypt", "the decrypted value is not valid BSON"))
    }

    /// The value the ciphertext `bytes` (a subtype-6 binary's) holds, as
    /// raw BSON.
    pub(crate) async fn decrypt_raw(&self, bytes: &[u8], subject: Subject<'_>) -> Result<RawBson> {
        let ctx = self
            .crypt
            .ctx_builder()
            .build_explicit_decrypt(bytes)
            .map_err(|err| subject.failed("decrypt", reason(&err)))?;
        let out = self.run(ctx, "decrypt", subject).await?;
        match out.get("v") {
            Ok(Some(v)) => Ok(RawBson::from(v)),
            _ => Err(subject.failed("decrypt", "libmongocrypt returned no value")),
        }
    }

    /// Drives `ctx` to its result: the key vault read when libmongocrypt asks
    /// for keys, then the result.
    pub(super) async fn run(
        &self,
        mut ctx: Ctx,
        action: &'static str,
        subject: Subject<'_>,
    ) -> Result<RawDocumentBuf> {
        let failed = |err: mongocrypt::error::Error| subject.failed(action, reason(&err));
        loop {
            match ctx.state().map_err(failed)? {
                State::NeedMongoKeys => {
                    let filter = bson::Document::try_from(ctx.mongo_op().map_err(failed)?)
                        .map_err(|_| subject.failed(action, "libmongocrypt's key filter"))?;
                    let keys: Vec<RawDocumentBuf> =
                        self.vault.find(filter).await?.try_collect().await?;
                    if keys.is_empty() {
                        return Err(subject.failed(
                            action,
                            format!(
                                "no such data key in the key vault `{}`: create it first \
                                 (`Encryption::data_key`)",
                                self.vault.namespace()
                            ),
                        ));
                    }
                    for key in &keys {
                        ctx.mongo_feed(key).map_err(failed)?;
                    }
                    ctx.mongo_done().map_err(failed)?;
                }
                State::Ready => return Ok(ctx.finalize().map_err(failed)?.to_owned()),
                other => {
                    return Err(subject.failed(
                        action,
                        format!(
                        "libmongocrypt asked for what a local master key never needs ({other:?})"
                    ),
                    ))
                }
            }
        }
    }
}

/// The data key id a ciphertext carries (FLE1: a subtype byte, then the
/// key's UUID), as text; never a byte of the value.
pub(crate) fn key_id_text(value: &Binary) -> String {
    match value
        .bytes
        .get(1..17)
        .and_then(|id| <[u8; 16]>::try_from(id).ok())
    {
        Some(id) => format!("id {}", bson::Uuid::from_bytes(id)),
        None => "unknown (the ciphertext is too short)".to_owned(),
    }
}
