//! Updates of a model with encrypted fields: a `$set` (or `$setOnInsert`)
//! of an encrypted field, or of a sub-document holding some, has its value
//! encrypted where the fields are; a `$push` (or `$addToSet`) of items
//! holding some has each item's encrypted; a `$unset` is left as it is.
//! Anything else that reaches an encrypted field (`$inc`, `$mul`, `$min`,
//! `$max`, `$pull`, a path below one, a push into an encrypted array) is
//! refused before anything is sent: the server would compute on the
//! ciphertext, or store the plain value.

use bson::{Bson, Document as BsonDocument};

use super::keys::Keys;
use super::seal::is_sealed;
use super::subject::subject;
use crate::error::Result;
use crate::model::cache::sealed;
use crate::model::encrypted::EncryptedSpec;
use crate::model::encrypted::{reach, Reach};
use crate::model::Document;

impl Keys {
    /// `update` (an update document of `M`) with the values it writes into
    /// encrypted fields encrypted; the refusal of what cannot be.
    pub(crate) async fn seal_update<M: Document>(
        &self,
        mut update: BsonDocument,
    ) -> Result<BsonDocument> {
        let fields = sealed::<M>();
        if fields.is_empty() {
            return Ok(update);
        }
        let mut values = Vec::new();
        for (op, paths) in update.iter_mut() {
            let Bson::Document(paths) = paths else {
                continue;
            };
            for (key, value) in paths.iter_mut() {
                written::<M>(op, key, value, fields, &mut values)?;
            }
        }
        for (field, value) in values {
            if matches!(value, Bson::Null) || is_sealed(value) {
                continue;
            }
            over_bound::<M>(field, value)?;
            let crypt = self.handle::<M>("encrypt", field)?;
            let sealed = crypt
                .encrypt_as(value, field.algorithm, subject::<M>(field))
                .await?;
            *value = Bson::Binary(sealed);
        }
        Ok(update)
    }
}

/// An array (or map) encrypted whole holds at most its `#[embed(max)]`
/// (the server sees one ciphertext, and cannot count its items).
fn over_bound<M: Document>(field: &'static EncryptedSpec, value: &Bson) -> Result<()> {
    let Some(max) = field.max else {
        return Ok(());
    };
    let len = match value {
        Bson::Array(items) => items.len(),
        Bson::Document(map) => map.len(),
        _ => return Ok(()),
    };
    if len <= max as usize {
        return Ok(());
    }
    Err(subject::<M>(field).failed(
        "update",
        format!(
            "`{}` would hold {len} items, over its bound of {max}, which the server cannot check \
             on its ciphertext; nothing was sent",
            field.path
        ),
    ))
}

/// The values `op` writes under `key` into encrypted fields, to encrypt in
/// place; the refusal of an operator that cannot write them so.
fn written<'a, M: Document>(
    op: &str,
    key: &str,
    value: &'a mut Bson,
    fields: &'static [EncryptedSpec],
    out: &mut Vec<(&'static EncryptedSpec, &'a mut Bson)>,
) -> Result<()> {
    let Some((first, how)) = reach(key, fields) else {
        return Ok(());
    };
    let refused = |why: String| {
        Err(subject::<M>(first).failed(
            "update",
            format!("`{op}` of `{key}` {why}; nothing was sent"),
        ))
    };
    match (op, how) {
        ("$unset", Reach::Is | Reach::Holds) => Ok(()),
        (_, Reach::Below) => refused(
            "writes below an encrypted field, which the server holds as one ciphertext: set the whole field".to_owned(),
        ),
        ("$set" | "$setOnInsert", Reach::Is) => {
            out.push((first, value));
            Ok(())
        }
        ("$set" | "$setOnInsert", Reach::Holds) => {
            held(key, value, fields, out);
            Ok(())
        }
        ("$push" | "$addToSet", Reach::Holds) => {
            // One item, or `{$each: [items], $slice: ..}`.
            let each = matches!(&*value, Bson::Document(d) if d.contains_key("$each"));
            if !each {
                held(key, value, fields, out);
            } else if let Bson::Document(d) = value {
                if let Some(items) = d.get_mut("$each") {
                    held(key, items, fields, out);
                }
            }
            Ok(())
        }
        _ => refused(
            "would have the server compute on an encrypted field or store it in plain text: set the whole field (`set`), or change the document and `replace` it".to_owned(),
        ),
    }
}

/// The slots of every encrypted field below `key` inside `value` (what is
/// written at `key`: a sub-document, an array of them, or items).
fn held<'a>(
    key: &str,
    value: &'a mut Bson,
    fields: &'static [EncryptedSpec],
    out: &mut Vec<(&'static EncryptedSpec, &'a mut Bson)>,
) {
    let inner: Vec<(&'static EncryptedSpec, &str)> = fields
        .iter()
        .filter_map(|f| {
            let rest = f.path.strip_prefix(key)?.strip_prefix('.')?;
            Some((f, rest))
        })
        .collect();
    collect(value, &inner, out);
}

/// The slots of each `(field, relative path)` inside `value`, in one walk
/// (no slot is reached by two paths: they are distinct fields).
fn collect<'a>(
    value: &'a mut Bson,
    paths: &[(&'static EncryptedSpec, &str)],
    out: &mut Vec<(&'static EncryptedSpec, &'a mut Bson)>,
) {
    match value {
        Bson::Array(items) => {
            for item in items {
                collect(item, paths, out);
            }
        }
        Bson::Document(doc) => {
            for (name, inner) in doc.iter_mut() {
                let here: Vec<(&'static EncryptedSpec, &str)> = paths
                    .iter()
                    .filter_map(|(f, p)| {
                        let (first, rest) = p.split_once('.').unwrap_or((p, ""));
                        (first == name).then_some((*f, rest))
                    })
                    .collect();
                if here.is_empty() {
                    continue;
                }
                if let Some((field, _)) = here.iter().find(|(_, rest)| rest.is_empty()) {
                    out.push((field, inner));
                } else {
                    collect(inner, &here, out);
                }
            }
        }
        _ => {}
    }
}
