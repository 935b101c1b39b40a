//! Encrypted fields, as a model declares them (`#[encrypt(deterministic)]`,
//! `#[encrypt(random)]`, with the `encryption` feature): which stored paths
//! hold ciphertext, under which algorithm and which data key. The
//! encryption itself is `crypt`'s; this is the declaration, read by setup
//! (a data key per field, `bsonType: "binData"` in the validator) and by
//! the repository (what to encrypt on a write and decrypt on a read).

use bson::{doc, Document};

use crate::model::validator::BsonSchema;

/// How a value is encrypted (the FLE1 algorithms,
/// `AEAD_AES_256_CBC_HMAC_SHA_512-*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// The same value under the same key gives the same ciphertext: equality
    /// queries work, and so does telling equal values apart from different
    /// ones. For values with many distinct values (an email, a number).
    Deterministic,
    /// Every encryption differs: nothing can be queried, nothing is leaked.
    Random,
}

impl Algorithm {
    /// The value as written in the attribute (`deterministic`, `random`).
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Deterministic => "deterministic",
            Algorithm::Random => "random",
        }
    }
}

/// One encrypted field of a model: `#[encrypt(...)]` on a field of a
/// `#[derive(Document)]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncryptedDef {
    /// The field's Rust name.
    pub field: &'static str,
    /// Its stored name (the top-level key of the stored document).
    pub path: &'static str,
    /// The data key's alt name: `"<collection>.<stored path>"`.
    pub key: &'static str,
    /// How its values are encrypted.
    pub algorithm: Algorithm,
}

/// The validator's schema of an encrypted field holding a `T`: a BSON
/// binary (the ciphertext, subtype 6), or `null` when `T` may be absent (a
/// `None` is stored as `null`, not encrypted), so that a write of the
/// plain value is refused by the server too.
pub(crate) fn schema_of<T: BsonSchema + ?Sized>() -> Document {
    if T::optional() {
        doc! { "bsonType": ["binData", "null"] }
    } else {
        doc! { "bsonType": "binData" }
    }
}
