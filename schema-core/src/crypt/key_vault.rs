//! The key vault: the data keys, each wrapped by the master key and named by
//! its key alt names, with the unique partial index on `keyAltNames` that
//! keeps one key per name.

use bson::{doc, Binary, RawDocumentBuf};
use mongodb::options::IndexOptions;
use mongodb::IndexModel;

use super::handle::Encryption;
use super::subject::{reason, Subject};
use crate::error::{code, Error, Result};

/// The key vault index's name (the one the drivers create).
pub const KEY_ALT_NAMES_INDEX: &str = "keyAltNames_1";

impl Encryption {
    /// Makes sure the key vault has its unique partial index on
    /// `keyAltNames` (one key per name); the first call of a handle sends
    /// it, later ones return at once.
    pub async fn setup_key_vault(&self) -> Result<()> {
        self.vault_ready
            .get_or_try_init(|| async {
                let index = IndexModel::builder()
                    .keys(doc! { "keyAltNames": 1 })
                    .options(
                        IndexOptions::builder()
                            .name(KEY_ALT_NAMES_INDEX.to_owned())
                            .unique(true)
                            .partial_filter_expression(doc! { "keyAltNames": { "$exists": true } })
                            .build(),
                    )
                    .build();
                self.vault.create_index(index).await.map(|_| ())
            })
            .await?;
        Ok(())
    }

    /// The id of the data key named `name`, created (wrapped by the master
    /// key, stored in the key vault) when there is none. Two callers racing
    /// to create it get the same key: the vault's unique index keeps one.
    pub async fn data_key(&self, name: &str) -> Result<Binary> {
        self.setup_key_vault().await?;
        if let Some(id) = self.find_key(name).await? {
            return Ok(id);
        }
        let subject = Subject {
            model: None,
            field: None,
            key: name,
        };
        let ctx = self
            .crypt
            .ctx_builder()
            .key_encryption_key(&doc! { "provider": "local" })
            .and_then(|b| b.key_alt_name(name))
            .and_then(|b| b.build_datakey())
            .map_err(|err| subject.failed("create", reason(&err)))?;
        let key = self.run(ctx, "create", subject).await?;
        let id = key_id(&key).ok_or_else(|| subject.failed("create", "the new key has no id"))?;
        match self.vault.insert_one(&key).await {
            Ok(_) => Ok(id),
            Err(err) if Error::from(err.clone()).code() == Some(code::DUPLICATE_KEY) => self
                .find_key(name)
                .await?
                .ok_or_else(|| subject.failed("create", "another key has this name")),
            Err(err) => Err(err.into()),
        }
    }

    /// The id of the data key named `name`, if the vault holds one.
    pub async fn find_key(&self, name: &str) -> Result<Option<Binary>> {
        let found = self.vault.find_one(doc! { "keyAltNames": name }).await?;
        Ok(found.as_ref().and_then(key_id))
    }
}

fn key_id(key: &RawDocumentBuf) -> Option<Binary> {
    key.get_binary("_id").ok().map(|id| id.to_binary())
}
