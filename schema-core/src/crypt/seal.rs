//! A model's encrypted fields on their way to and from the server: a
//! document's declared fields encrypted before it is written and decrypted
//! when it is read, and the operands of a filter's equalities on them
//! encrypted before it is sent, so that a typed equality
//! (`Customer::FIELDS.ssn.eq(&ssn)`) finds the ciphertext the server holds.
//! The repository holds the handle ([`Keys`]); without one, a model with
//! encrypted fields is refused, never written or queried in plain text.

use bson::spec::BinarySubtype;
use bson::{Bson, Document as BsonDocument, RawBsonRef, RawDocument, RawDocumentBuf};

use super::handle::Algorithm;
use super::keys::Keys;
use super::subject::{subject, Subject};
use crate::error::{Error, Result};
use crate::model::cache::sealed;
use crate::model::encrypted::EncryptedSpec;
use crate::model::encrypted::{key_below, reach, Reach};
use crate::model::Document;

impl Keys {
    /// `raw` (a document of `M` as encoded) with each declared field
    /// encrypted, at every depth (in each item of an array); a `null` stays
    /// `null` (a `None`), an absent field absent.
    pub(crate) async fn seal<M: Document>(&self, raw: RawDocumentBuf) -> Result<RawDocumentBuf> {
        let fields = sealed::<M>();
        if fields.is_empty() {
            return Ok(raw);
        }
        let invalid =
            || subject::<M>(&fields[0]).failed("encrypt", "the document is not valid BSON");
        if fields.iter().all(|f| !f.path.contains('.')) {
            return self
                .seal_top::<M>(&raw, fields)
                .await
                .map_err(|e| e.unwrap_or_else(invalid));
        }
        let mut doc = BsonDocument::try_from(raw.as_ref()).map_err(|_| invalid())?;
        for field in fields {
            let mut values = Vec::new();
            slots(&mut doc, &field.path, &mut values);
            for value in values {
                if matches!(value, Bson::Null) || is_sealed(value) {
                    continue;
                }
                let crypt = self.handle::<M>("encrypt", field)?;
                let sealed = crypt
                    .encrypt_as(value, field.algorithm, subject::<M>(field))
                    .await?;
                *value = Bson::Binary(sealed);
            }
        }
        RawDocumentBuf::try_from(&doc).map_err(|_| invalid())
    }

    /// `raw` (a stored document of `M`, or a view of it) with each declared
    /// field decrypted; a stored value that is not a ciphertext is refused.
    /// A document stored at an earlier version has every ciphertext it
    /// holds decrypted, and its values in clear left for its upgrade (see
    /// `earlier`).
    pub(crate) async fn unseal<M: Document>(&self, raw: RawDocumentBuf) -> Result<RawDocumentBuf> {
        if super::anywhere::is_earlier::<M>(&raw) {
            return self.unseal_earlier::<M>(raw).await;
        }
        let fields = sealed::<M>();
        if fields.is_empty() {
            return Ok(raw);
        }
        let invalid =
            || subject::<M>(&fields[0]).failed("decrypt", "the stored document is not valid BSON");
        if fields.iter().all(|f| !f.path.contains('.')) {
            return self
                .unseal_top::<M>(&raw, fields)
                .await
                .map_err(|e| e.unwrap_or_else(invalid));
        }
        let mut doc = BsonDocument::try_from(raw.as_ref()).map_err(|_| invalid())?;
        for field in fields {
            let mut values = Vec::new();
            slots(&mut doc, &field.path, &mut values);
            for value in values {
                let sealed = match value {
                    Bson::Null => continue,
                    Bson::Binary(bin) if bin.subtype == BinarySubtype::Encrypted => bin,
                    _ => return Err(in_clear::<M>(field)),
                };
                let crypt = self.handle::<M>("decrypt", field)?;
                *value = crypt.decrypt_as(sealed, subject::<M>(field)).await?;
            }
        }
        RawDocumentBuf::try_from(&doc).map_err(|_| invalid())
    }

    /// [`seal`](Self::seal) of a model whose encrypted fields are all
    /// top-level: the document copied element by element, each encrypted
    /// one encrypted, without decoding the rest (`Err(None)`: not valid
    /// BSON).
    async fn seal_top<M: Document>(
        &self,
        raw: &RawDocument,
        fields: &'static [EncryptedSpec],
    ) -> std::result::Result<RawDocumentBuf, Option<Error>> {
        let mut out = RawDocumentBuf::new();
        for element in raw.iter() {
            let (key, value) = element.map_err(|_| None)?;
            let field = fields.iter().find(|f| f.path == key.as_str());
            let sealed =
                matches!(value, RawBsonRef::Binary(bin) if bin.subtype == BinarySubtype::Encrypted);
            match field {
                Some(field) if !sealed && !matches!(value, RawBsonRef::Null) => {
                    let crypt = self.handle::<M>("encrypt", field)?;
                    let subject = subject::<M>(field);
                    let binary = crypt
                        .encrypt_raw(bson::RawBson::from(value), field.algorithm, subject)
                        .await?;
                    out.append(key, bson::RawBson::Binary(binary));
                }
                _ => out.append(key, value),
            }
        }
        Ok(out)
    }

    /// [`unseal`](Self::unseal) of a model whose encrypted fields are all
    /// top-level: the document copied element by element, each encrypted
    /// one decrypted, without decoding the rest (`Err(None)`: not valid
    /// BSON).
    async fn unseal_top<M: Document>(
        &self,
        raw: &RawDocument,
        fields: &'static [EncryptedSpec],
    ) -> std::result::Result<RawDocumentBuf, Option<Error>> {
        let mut out = RawDocumentBuf::new();
        for element in raw.iter() {
            let (key, value) = element.map_err(|_| None)?;
            let Some(field) = fields.iter().find(|f| f.path == key.as_str()) else {
                out.append(key, value);
                continue;
            };
            match value {
                RawBsonRef::Null => out.append(key, value),
                RawBsonRef::Binary(bin) if bin.subtype == BinarySubtype::Encrypted => {
                    let crypt = self.handle::<M>("decrypt", field)?;
                    let open = crypt.decrypt_raw(bin.bytes, subject::<M>(field)).await?;
                    out.append(key, open);
                }
                _ => return Err(Some(in_clear::<M>(field))),
            }
        }
        Ok(out)
    }

    /// A change stream's event of `M` with its documents (`fullDocument`,
    /// `fullDocumentBeforeChange`) decrypted as a read decrypts them; the
    /// event as it came, and the error, when one cannot be.
    pub(crate) async fn unseal_change<M: Document>(
        &self,
        event: RawDocumentBuf,
    ) -> (RawDocumentBuf, Option<Error>) {
        let fields = sealed::<M>();
        if fields.is_empty() {
            return (event, None);
        }
        let invalid = || subject::<M>(&fields[0]).failed("decrypt", "the change is not valid BSON");
        let mut doc = match BsonDocument::try_from(event.as_ref()) {
            Ok(doc) => doc,
            Err(_) => return (event, Some(invalid())),
        };
        for key in ["fullDocument", "fullDocumentBeforeChange"] {
            let Some(Bson::Document(full)) = doc.get(key) else {
                continue;
            };
            let opened = match RawDocumentBuf::try_from(full) {
                Ok(raw) => self.unseal::<M>(raw).await,
                Err(_) => Err(invalid()),
            };
            match opened.and_then(|raw| BsonDocument::try_from(raw.as_ref()).map_err(|_| invalid()))
            {
                Ok(open) => {
                    doc.insert(key, open);
                }
                Err(e) => return (event, Some(e)),
            }
        }
        match RawDocumentBuf::try_from(&doc) {
            Ok(open) => (open, None),
            Err(_) => (event, Some(invalid())),
        }
    }

    /// `filter` with the operand of every equality on a deterministic
    /// field encrypted (`{f: v}`, `$eq`, `$ne`, `$in`, `$nin`, also inside
    /// `$and`, `$or` and `$nor`); any other condition on an encrypted field
    /// (a range, a regex, a path below it, a sub-document holding it, any
    /// condition on a random one) is refused: the server holds ciphertext,
    /// on which it would mean nothing.
    pub(crate) async fn seal_filter<M: Document>(
        &self,
        mut filter: BsonDocument,
    ) -> Result<BsonDocument> {
        let fields = sealed::<M>();
        if fields.is_empty() {
            return Ok(filter);
        }
        super::widen::widen(&mut filter, fields);
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

/// The refusal of `field` of `M` stored in clear.
fn in_clear<M: Document>(field: &'static EncryptedSpec) -> Error {
    subject::<M>(field).failed(
        "decrypt",
        "the stored value is not encrypted (BSON binary subtype 6 expected): it was written \
         without the encryption",
    )
}

pub(super) fn is_sealed(value: &Bson) -> bool {
    matches!(value, Bson::Binary(bin) if bin.subtype == BinarySubtype::Encrypted)
}

/// The values stored at the dotted `path` of `doc`: through
/// sub-documents, and in each item of an array on the way.
fn slots<'a>(doc: &'a mut BsonDocument, path: &str, out: &mut Vec<&'a mut Bson>) {
    let (first, rest) = match path.split_once('.') {
        Some((first, rest)) => (first, Some(rest)),
        None => (path, None),
    };
    let Some(value) = doc.get_mut(first) else {
        return;
    };
    match rest {
        None => out.push(value),
        Some(rest) => below(value, rest, out),
    }
}

fn below<'a>(value: &'a mut Bson, rest: &str, out: &mut Vec<&'a mut Bson>) {
    match value {
        Bson::Document(inner) => slots(inner, rest, out),
        Bson::Array(items) => {
            for item in items {
                below(item, rest, out);
            }
        }
        _ => {}
    }
}

/// The operands of `filter`'s equalities on encrypted fields, to encrypt
/// in place; the refusal of any other condition on them.
fn operands_of<'a, M: Document>(
    filter: &'a mut BsonDocument,
    fields: &'static [EncryptedSpec],
    out: &mut Vec<(&'static EncryptedSpec, &'a mut Bson)>,
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
        let refused = |field: &'static EncryptedSpec, what: String| {
            Err(subject::<M>(field).failed("query", format!("{what}; nothing was sent")))
        };
        let field = match reach(key, fields) {
            None => continue,
            Some((field, Reach::Is)) => field,
            Some((field, Reach::Below)) => {
                return refused(
                    field,
                    format!("`{key}` is a path below an encrypted field, which the server holds as one ciphertext"),
                )
            }
            Some((field, Reach::Holds)) => {
                return refused(
                    field,
                    format!("`{key}` holds an encrypted field: compare its fields one by one (equality on the encrypted one)"),
                )
            }
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
    // serde's path names an array item `items[2].card`: compare dotted.
    let dotted = dotted(path);
    let declared = sealed::<M>()
        .iter()
        .find(|f| dotted == f.path || key_below(&dotted, &f.path));
    match declared {
        Some(field) => subject::<M>(field).failed(
            "decrypt",
            "the decrypted value does not fit the field's Rust type (the value is not shown)",
        ),
        None => err,
    }
}

/// serde's path (`items[2].card`) as a stored path (`items.card`).
fn dotted(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_index = false;
    for c in path.chars() {
        match c {
            '[' => in_index = true,
            ']' => in_index = false,
            c if !in_index => out.push(c),
            _ => {}
        }
    }
    out
}
