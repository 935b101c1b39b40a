//! Client-side field encryption (the `encryption` feature): values encrypted
//! in the application with libmongocrypt's explicit API, so the server only
//! ever holds ciphertext (BSON binary subtype 6), under data keys kept in a
//! key vault collection and wrapped by a master key the application holds.
//!
//! [`Encryption`] is the handle: a libmongocrypt handle, the local master
//! key that wraps the data keys, and the key vault (by default
//! `encryption.__keyVault`, with the unique partial index on `keyAltNames`
//! the specification asks for). A data key is named by its key alt name;
//! the convention is `"<collection>.<field>"` (the stored names), so two
//! models never share a key by accident and the name says what the key
//! protects. A model's `#[encrypt(...)]` fields are named so: field `ssn`
//! of a model on collection `customers` is encrypted under the key
//! `"customers.ssn"`, which `Schema::sync` creates (see the book's
//! "Encrypted fields" chapter).
//!
//! Two algorithms, the FLE1 ones ([`Algorithm`]): deterministic (the same
//! value under the same key gives the same bytes, so an equality query on
//! the encrypted bytes finds it) and random (no two encryptions alike, no
//! query). Queryable Encryption is not offered.
//!
//! libmongocrypt must be >= 1.18 (`scripts/install-mongocrypt.sh` finds or
//! fetches one). When it was built without native crypto (the pymongocrypt
//! wheel's build), the handle supplies AES-256-CBC, HMAC-SHA-256/512,
//! SHA-256 and randomness from the RustCrypto crates.
//!
//! ```no_run
//! # async fn demo(client: mongodb::Client) -> schema_core::Result<()> {
//! use schema_core::bson::Bson;
//! use schema_core::crypt::{Algorithm, Encryption, LocalMasterKey};
//!
//! let master = LocalMasterKey::new([7; 96]); // from the application's secret store
//! let crypt = Encryption::new(&client, master)?;
//! crypt.data_key("users.email").await?;
//! let sealed = crypt
//!     .encrypt(&Bson::from("ada@example.com"), "users.email", Algorithm::Deterministic)
//!     .await?;
//! assert_eq!(crypt.decrypt(&sealed).await?, Bson::from("ada@example.com"));
//! # Ok(())
//! # }
//! ```

mod anywhere;
mod handle;
mod hooks;
mod key_vault;
mod keys;
mod rotate;
mod seal;
mod subject;
mod update;
mod value;
mod widen;

pub(crate) use keys::Keys;
pub(crate) use seal::redact;

pub use handle::{Algorithm, Encryption, LocalMasterKey, DEFAULT_KEY_VAULT};
pub use key_vault::KEY_ALT_NAMES_INDEX;
