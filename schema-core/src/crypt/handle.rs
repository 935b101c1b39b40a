//! The encryption handle: libmongocrypt's handle with the local master key
//! (and the crypto hooks when the library has no crypto of its own), and
//! the key vault it reads data keys from.

use std::sync::Arc;

use bson::{doc, Binary, RawDocumentBuf};
use mongodb::options::{CollectionOptions, ReadConcern, WriteConcern};
use mongodb::{Client, Collection};

use super::hooks;
use super::subject::reason;
use crate::error::{Error, Result};

/// The key vault's database and collection when none is given.
pub const DEFAULT_KEY_VAULT: (&str, &str) = ("encryption", "__keyVault");

pub use crate::model::encrypted::Algorithm;

/// libmongocrypt's name of an algorithm.
pub(super) fn native(algorithm: Algorithm) -> mongocrypt::ctx::Algorithm {
    match algorithm {
        Algorithm::Deterministic => mongocrypt::ctx::Algorithm::Deterministic,
        Algorithm::Random => mongocrypt::ctx::Algorithm::Random,
    }
}

/// The local KMS provider's master key: 96 bytes that wrap every data key.
/// Keep it out of the database (a secret store, an environment variable);
/// losing it loses every value encrypted under its data keys. Its `Debug`
/// shows no byte of it.
#[derive(Clone)]
pub struct LocalMasterKey(Box<[u8; 96]>);

impl LocalMasterKey {
    /// The key from its 96 bytes.
    pub fn new(bytes: [u8; 96]) -> Self {
        LocalMasterKey(Box::new(bytes))
    }

    /// A fresh random key (from the operating system's secure source), for
    /// an application to store the first time it runs.
    pub fn generate() -> Result<Self> {
        let mut bytes = [0u8; 96];
        getrandom::fill(&mut bytes).map_err(|_| Error::Encryption {
            action: "generate",
            model: None,
            field: None,
            key: "the local master key".to_owned(),
            reason: "the system's random source failed".to_owned(),
        })?;
        Ok(LocalMasterKey::new(bytes))
    }

    /// Its bytes.
    pub fn bytes(&self) -> &[u8; 96] {
        &self.0
    }
}

impl std::fmt::Debug for LocalMasterKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LocalMasterKey(..)")
    }
}

/// The encryption handle: cheap to clone, safe to share between tasks.
#[derive(Clone)]
pub struct Encryption {
    pub(super) crypt: Arc<mongocrypt::Crypt>,
    pub(super) vault: Collection<RawDocumentBuf>,
    /// Whether this handle has made sure of the key vault's index.
    pub(super) vault_ready: Arc<tokio::sync::OnceCell<()>>,
}

impl std::fmt::Debug for Encryption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Encryption(key vault {})", self.vault.namespace())
    }
}

impl Encryption {
    /// A handle whose data keys are wrapped by `master` (the local KMS
    /// provider) and kept in `encryption.__keyVault` through `client`
    /// (another vault: [`with_key_vault`](Self::with_key_vault)).
    pub fn new(client: &Client, master: LocalMasterKey) -> Result<Self> {
        let failed = |err: mongocrypt::error::Error| Error::Encryption {
            action: "start",
            model: None,
            field: None,
            key: "the local master key".to_owned(),
            reason: reason(&err),
        };
        let providers = doc! {
            "local": { "key": Binary {
                subtype: bson::spec::BinarySubtype::Generic,
                bytes: master.bytes().to_vec(),
            } }
        };
        let crypt = crypt_with(&providers).map_err(failed)?;
        let (db, coll) = DEFAULT_KEY_VAULT;
        Ok(Encryption {
            crypt: Arc::new(crypt),
            vault: vault(client, db, coll),
            vault_ready: Arc::default(),
        })
    }

    /// The same handle with its key vault in `db.coll`.
    pub fn with_key_vault(self, client: &Client, db: &str, coll: &str) -> Self {
        Encryption {
            vault: vault(client, db, coll),
            vault_ready: Arc::default(),
            ..self
        }
    }

    /// The key vault collection's namespace (`encryption.__keyVault`).
    pub fn key_vault(&self) -> mongodb::Namespace {
        self.vault.namespace()
    }

    /// The libmongocrypt version in use.
    pub fn library_version() -> &'static str {
        mongocrypt::version()
    }
}

/// A libmongocrypt handle with these KMS providers, for explicit
/// encryption only (no query analysis), with the crypto hooks when the
/// library has no crypto of its own.
pub(super) fn crypt_with(
    providers: &bson::Document,
) -> std::result::Result<mongocrypt::Crypt, mongocrypt::error::Error> {
    let mut builder = mongocrypt::Crypt::builder()
        .kms_providers(providers)?
        .bypass_query_analysis();
    if !mongocrypt::is_crypto_available() {
        builder = hooks::install(builder)?;
    }
    builder.build()
}

/// The key vault, read and written with majority concern (the
/// specification's: a data key read must not be rolled back).
fn vault(client: &Client, db: &str, coll: &str) -> Collection<RawDocumentBuf> {
    let options = CollectionOptions::builder()
        .read_concern(ReadConcern::majority())
        .write_concern(WriteConcern::majority())
        .build();
    client.database(db).collection_with_options(coll, options)
}
