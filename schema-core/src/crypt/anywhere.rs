//! Ciphertexts found anywhere in a document, not where a model declares
//! them: in a document stored at an earlier version of a model (its shape
//! is an earlier one's, whose fields may have been encrypted elsewhere, or
//! not at all when this version encrypts a field the earlier one held in
//! clear; its upgrade is written back sealed as the current shape
//! declares, see `evolution::migrate`), and in the values a copy reads
//! from its sources and its holders (see `relation::copies`). Each is
//! decrypted by the data key whose id it carries; a value in clear is left
//! as it is.

use bson::spec::BinarySubtype;
use bson::{Bson, Document as BsonDocument, RawBsonRef, RawDocument, RawDocumentBuf};

use super::keys::Keys;
use super::subject::Subject;
use super::value::key_id_text;
use crate::error::Result;
use crate::model::schema_version::stored_version;
use crate::model::Document;

/// Whether `raw` is stored at an earlier version of `M` than its current.
pub(super) fn is_earlier<M: Document>(raw: &RawDocument) -> bool {
    M::VERSIONS.is_some_and(|v| stored_version(raw) != Some(v.current))
}

impl Keys {
    /// `raw` (a document of `M` stored at an earlier version) with every
    /// ciphertext it holds decrypted.
    pub(super) async fn unseal_earlier<M: Document>(
        &self,
        raw: RawDocumentBuf,
    ) -> Result<RawDocumentBuf> {
        if !holds_ciphertext(&raw) {
            return Ok(raw);
        }
        let invalid = || {
            Subject {
                model: Some(M::NAME),
                field: None,
                key: "",
            }
            .failed("decrypt", "the stored document is not valid BSON")
        };
        let mut doc = BsonDocument::try_from(raw.as_ref()).map_err(|_| invalid())?;
        self.open_all(&mut doc, M::NAME).await?;
        RawDocumentBuf::try_from(&doc).map_err(|_| invalid())
    }

    /// Every ciphertext of `doc` (read from `model`'s documents, as its
    /// errors name them), at any depth, decrypted in place.
    pub(crate) async fn open_all(&self, doc: &mut BsonDocument, model: &'static str) -> Result<()> {
        let mut values = Vec::new();
        ciphertexts(doc, "", &mut values);
        for (path, value) in values {
            let Bson::Binary(sealed) = &*value else {
                continue;
            };
            let key = key_id_text(sealed);
            let subject = Subject {
                model: Some(model),
                field: Some(&path),
                key: &key,
            };
            let crypt = self.handle_for(subject, "decrypt")?;
            *value = crypt.decrypt_as(sealed, subject).await?;
        }
        Ok(())
    }
}

/// Whether any value of `raw`, at any depth, is a ciphertext (read without
/// decoding the document).
fn holds_ciphertext(raw: &RawDocument) -> bool {
    raw.iter().flatten().any(|(_, value)| sealed_within(value))
}

fn sealed_within(value: RawBsonRef<'_>) -> bool {
    match value {
        RawBsonRef::Binary(bin) => bin.subtype == BinarySubtype::Encrypted,
        RawBsonRef::Document(inner) => holds_ciphertext(inner),
        RawBsonRef::Array(items) => items.into_iter().flatten().any(sealed_within),
        _ => false,
    }
}

/// Every ciphertext of `doc` with its dotted path (below `prefix`).
fn ciphertexts<'a>(doc: &'a mut BsonDocument, prefix: &str, out: &mut Vec<(String, &'a mut Bson)>) {
    for (key, value) in doc.iter_mut() {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        in_value(value, path, out);
    }
}

fn in_value<'a>(value: &'a mut Bson, path: String, out: &mut Vec<(String, &'a mut Bson)>) {
    match value {
        Bson::Binary(bin) if bin.subtype == BinarySubtype::Encrypted => out.push((path, value)),
        Bson::Document(inner) => ciphertexts(inner, &path, out),
        Bson::Array(items) => {
            for item in items {
                in_value(item, path.clone(), out);
            }
        }
        _ => {}
    }
}
