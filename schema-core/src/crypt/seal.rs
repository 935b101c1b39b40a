//! A model's encrypted fields on their way to and from the server: a
//! document's declared fields encrypted before it is written and decrypted
//! when it is read, and the operands of a filter's equalities on them
//! encrypted before it is sent, so that a typed equality
//! (`Customer::FIELDS.ssn.eq(&ssn)`) finds the ciphertext the server holds.
//! The repository holds the handle ([`Keys`]); without one, a model with
//! encrypted fields is refused, never written or queried in plain text.

use bson::spec::BinarySubtype;
use bson::{Bson, Document as BsonDocument, RawDocumentBuf};

use super::handle::{Algorithm, Encryption};
use super::subject::Subject;
use crate::error::{Error, Result};
use crate::model::encrypted::EncryptedDef;
use crate::model::Document;

/// The encryption handle a repository holds, if any.
#[derive(Clone, Default)]
pub(crate) struct Keys(Option<Encryption>);

impl Keys {
    /// A repository's keys: `crypt`'s.
    pub(crate) fn new(crypt: Encryption) -> Self {
        Keys(Some(crypt))
    }

    /// The handle, or the error of `action` on `field` of `M` without one.
    fn handle<M: Document>(
        &self,
        action: &'static str,
        field: &EncryptedDef,
    ) -> Result<&Encryption> {
        self.0.as_ref().ok_or_else(|| {
            subject::<M>(field).failed(
                action,
                "the repository has no encryption handle: give it one with \
                 `Repo::with_encryption(..)`; nothing was sent",
            )
        })
    }

    /// `raw` (a document of `M` as encoded) with each declared field
    /// encrypted; a `null` stays `null` (a `None`), an absent field absent.
    pub(crate) async fn seal<M: Document>(&self, raw: RawDocumentBuf) -> Result<RawDocumentBuf> {
        let fields = M::TABLES.encrypted;
        if fields.is_empty() {
            return Ok(raw);
        }
        let mut doc = BsonDocument::try_from(raw.as_ref()).map_err(|_| {
            subject::<M>(&fields[0]).failed("encrypt", "the document is not valid BSON")
        })?;
        for field in fields {
            let Some(value) = doc.get_mut(field.path) else {
                continue;
            };
            if matches!(value, Bson::Null) || is_sealed(value) {
                continue;
            }
            let crypt = self.handle::<M>("encrypt", field)?;
            let sealed = crypt
                .encrypt_as(value, field.algorithm, subject::<M>(field))
                .await?;
            *value = Bson::Binary(sealed);
        }
        RawDocumentBuf::try_from(&doc).map_err(|_| {
            subject::<M>(&fields[0]).failed("encrypt", "the document is not valid BSON")
        })
    }

    /// `raw` (a stored document of `M`, or a view of it) with each declared
    /// field decrypted; a stored value that is not a ciphertext is refused.
    pub(crate) async fn unseal<M: Document>(&self, raw: RawDocumentBuf) -> Result<RawDocumentBuf> {
        let fields = M::TABLES.encrypted;
        if fields.is_empty() {
            return Ok(raw);
        }
        let mut doc = BsonDocument::try_from(raw.as_ref()).map_err(|_| {
            subject::<M>(&fields[0]).failed("decrypt", "the stored document is not valid BSON")
        })?;
        for field in fields {
            let Some(value) = doc.get_mut(field.path) else {
                continue;
            };
            let sealed = match value {
                Bson::Null => continue,
                Bson::Binary(bin) if bin.subtype == BinarySubtype::Encrypted => bin,
                _ => {
                    return Err(subject::<M>(field).failed(
                        "decrypt",
                        "the stored value is not encrypted (BSON binary subtype 6 expected): \
                         it was written without the encryption",
                    ))
                }
            };
            let crypt = self.handle::<M>("decrypt", field)?;
            *value = crypt.decrypt_as(sealed, subject::<M>(field)).await?;
        }
        RawDocumentBuf::try_from(&doc).map_err(|_| {
            subject::<M>(&fields[0]).failed("decrypt", "the decrypted document is not valid BSON")
        })
    }

    /// `filter` with the operand of every equality on a deterministic
    /// field encrypted (`{f: v}`, `$eq`, `$ne`, `$in`, `$nin`, also inside
    /// `$and`, `$or` and `$nor`); any other condition on an encrypted field
    /// (a range, a regex, a path below it, any condition on a random one)
    /// is refused: the server holds ciphertext, on which it would mean
    /// nothing.
    pub(crate) async fn seal_filter<M: Document>(
        &self,
        mut filter: BsonDocument,
    ) -> Result<BsonDocument> {
        let fields = M::TABLES.encrypted;
        if fields.is_empty() {
            return Ok(filter);
        }
        let mut operands = Vec::new();
        operands_of::<M>(&mut filter, fields, &mut operands)?;
        for (field, value) in operands {
            if matches!(value, Bson::Null) || is_sealed(value) {
                continue;
            }
            let crypt = self.handle::<M>("encrypt", field)?;
            let sealed = crypt
                .encrypt_as(value, Algorithm::Deterministic, subject::<M>(field))
                .await?;
            *value = Bson::Binary(sealed);
        }
        Ok(filter)
    }
}

impl Keys {
    /// The key vault's namespace when the data key `key` (of `field` of
    /// `model`) is missing from it; `None` when it is there. Without a
    /// handle, [`Error::Encryption`] says to give one.
    pub(crate) async fn missing_key(
        &self,
        model: &'static str,
        field: &str,
        key: &str,
    ) -> Result<Option<String>> {
        let subject = Subject {
            model: Some(model),
            field: Some(field),
            key,
        };
        let crypt = self.0.as_ref().ok_or_else(|| {
            subject.failed(
                "create",
                "the schema has no encryption handle to keep its data keys: give it one with \
                 `Schema::with_encryption(..)`",
            )
        })?;
        Ok(match crypt.find_key(key).await? {
            Some(_) => None,
            None => Some(crypt.key_vault().to_string()),
        })
    }

    /// Creates the data key `key` (and the key vault's index), unless it
    /// exists.
    pub(crate) async fn create_key(&self, key: &str) -> Result<()> {
        let crypt = self.0.as_ref().ok_or_else(|| Error::Encryption {
            action: "create",
            model: None,
            field: None,
            key: key.to_owned(),
            reason: "the schema has no encryption handle: `Schema::with_encryption(..)`".to_owned(),
        })?;
        crypt.data_key(key).await.map(|_| ())
    }
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(crypt) => write!(f, "{crypt:?}"),
            None => f.write_str("no encryption"),
        }
    }
}

/// What an operation on `field` of `M` is about.
fn subject<M: Document>(field: &EncryptedDef) -> Subject<'static> {
    Subject {
        model: Some(M::NAME),
        field: Some(field.path),
        key: field.key,
    }
}

fn is_sealed(value: &Bson) -> bool {
    matches!(value, Bson::Binary(bin) if bin.subtype == BinarySubtype::Encrypted)
}

/// The operands of `filter`'s equalities on encrypted fields, to encrypt
/// in place; the refusal of any other condition on them.
fn operands_of<'a, M: Document>(
    filter: &'a mut BsonDocument,
    fields: &'static [EncryptedDef],
    out: &mut Vec<(&'static EncryptedDef, &'a mut Bson)>,
) -> Result<()> {
    for (key, value) in filter.iter_mut() {
        if matches!(key.as_str(), "$and" | "$or" | "$nor") {
            if let Bson::Array(items) = value {
                for item in items {
                    if let Bson::Document(inner) = item {
                        operands_of::<M>(inner, fields, out)?;
                    }
                }
            }
            continue;
        }
        let refused = |field: &EncryptedDef, what: String| {
            Err(subject::<M>(field).failed("query", format!("{what}; nothing was sent")))
        };
        if let Some(field) = fields.iter().find(|f| key_below(key, f.path)) {
            return refused(
                field,
                format!("`{key}` is a path below an encrypted field, which the server holds as one ciphertext"),
            );
        }
        let Some(field) = fields.iter().find(|f| f.path == key) else {
            continue;
        };
        if field.algorithm == Algorithm::Random {
            return refused(
                field,
                "a random-encrypted field cannot be filtered on (its ciphertexts differ every time)".to_owned(),
            );
        }
        let operators =
            matches!(&*value, Bson::Document(ops) if ops.keys().any(|k| k.starts_with('$')));
        if !operators {
            out.push((field, value));
            continue;
        }
        if let Bson::Document(ops) = value {
            for (op, operand) in ops.iter_mut() {
                match (op.as_str(), operand) {
                        ("$eq" | "$ne", operand) => out.push((field, operand)),
                        ("$in" | "$nin", Bson::Array(items)) => {
                            out.extend(items.iter_mut().map(|item| (field, item)));
                        }
                        ("$exists", _) => {}
                        (op, _) => {
                            return refused(
                                field,
                                format!("`{op}` on a deterministic-encrypted field: only equality (`eq`, `ne`, `is_in`) is meaningful on its ciphertext"),
                            )
                        }
                    }
            }
        }
    }
    Ok(())
}

/// Whether `key` is a dotted path below `path` (`ssn.x`, `card.0`).
fn key_below(key: &str, path: &str) -> bool {
    key.strip_prefix(path)
        .is_some_and(|rest| rest.starts_with('.'))
}

/// `err`, a decode error of a stored document of `M` after its fields were
/// decrypted: when it is about an encrypted field, the deserializer's
/// account (which may quote the decrypted value) gives way to one that
/// names the field and its key only.
pub(crate) fn redact<M: Document>(err: Error) -> Error {
    let Error::Decode {
        field: Some(path), ..
    } = &err
    else {
        return err;
    };
    let declared = M::TABLES.encrypted.iter().find(|f| {
        path == f.path
            || key_below(path, f.path)
            || path
                .strip_prefix(f.path)
                .is_some_and(|r| r.starts_with('['))
    });
    match declared {
        Some(field) => subject::<M>(field).failed(
            "decrypt",
            "the decrypted value does not fit the field's Rust type (the value is not shown)",
        ),
        None => err,
    }
}
