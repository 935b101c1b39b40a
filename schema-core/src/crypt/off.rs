//! Without the `encryption` feature: no handle, and a model's declared
//! encrypted fields (which the derive refuses to declare without the
//! feature) are refused rather than written or read in plain text.

use bson::{Document as BsonDocument, RawDocumentBuf};

use crate::error::{Error, Result};
use crate::model::Document;

/// No encryption handle (see the `encryption` feature).
#[derive(Clone, Default, Debug)]
pub(crate) struct Keys(());

impl Keys {
    /// `raw`, or a refusal when `M` declares encrypted fields.
    pub(crate) async fn seal<M: Document>(&self, raw: RawDocumentBuf) -> Result<RawDocumentBuf> {
        refuse::<M>("encrypt").map(|()| raw)
    }

    /// `raw`, or a refusal when `M` declares encrypted fields.
    pub(crate) async fn unseal<M: Document>(&self, raw: RawDocumentBuf) -> Result<RawDocumentBuf> {
        refuse::<M>("decrypt").map(|()| raw)
    }

    /// `update`, or a refusal when `M` declares encrypted fields.
    pub(crate) async fn seal_update<M: Document>(
        &self,
        update: BsonDocument,
    ) -> Result<BsonDocument> {
        refuse::<M>("update").map(|()| update)
    }

    /// `event`, with the refusal when `M` declares encrypted fields.
    pub(crate) async fn unseal_change<M: Document>(
        &self,
        event: RawDocumentBuf,
    ) -> (RawDocumentBuf, Option<Error>) {
        let refused = refuse::<M>("decrypt").err();
        (event, refused)
    }

    /// Nothing to decrypt: `doc` as it is.
    pub(crate) async fn open_all(
        &self,
        _doc: &mut BsonDocument,
        _model: &'static str,
    ) -> Result<()> {
        Ok(())
    }

    /// `filter`, or a refusal when `M` declares encrypted fields.
    pub(crate) async fn seal_filter<M: Document>(
        &self,
        filter: BsonDocument,
    ) -> Result<BsonDocument> {
        refuse::<M>("query").map(|()| filter)
    }
}

impl Keys {
    /// Never called: no model declares encrypted fields without the feature.
    pub(crate) async fn missing_key(
        &self,
        model: &'static str,
        field: &str,
        key: &str,
    ) -> Result<Option<String>> {
        Err(off(model, field, key))
    }

    /// Never called: no plan has a data key to create without the feature.
    pub(crate) async fn create_key(&self, key: &str) -> Result<()> {
        Err(Error::Encryption {
            action: "create",
            model: None,
            field: None,
            key: key.to_owned(),
            reason: OFF.to_owned(),
        })
    }
}

const OFF: &str = "schema-core was built without its `encryption` feature";

fn off(model: &'static str, field: &str, key: &str) -> Error {
    Error::Encryption {
        action: "create",
        model: Some(model),
        field: Some(field.to_owned()),
        key: key.to_owned(),
        reason: OFF.to_owned(),
    }
}

/// `err` as it is: no field is ever decrypted. (Generic as the feature's
/// own, which reads `M`'s declaration.)
#[allow(clippy::extra_unused_type_parameters)]
pub(crate) fn redact<M: Document>(err: Error) -> Error {
    err
}

fn refuse<M: Document>(action: &'static str) -> Result<()> {
    match crate::model::cache::sealed::<M>().first() {
        None => Ok(()),
        Some(field) => Err(Error::Encryption {
            action,
            model: Some(M::NAME),
            field: Some(field.path.clone()),
            key: field.key.clone(),
            reason: OFF.to_owned(),
        }),
    }
}
