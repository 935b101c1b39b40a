//! Encrypted fields, as a model declares them (`#[encrypt(deterministic)]`,
//! `#[encrypt(random)]`, with the `encryption` feature): which stored paths
//! hold ciphertext, under which algorithm and which data key. The
//! encryption itself is `crypt`'s; this is the declaration, read by setup
//! (a data key per field, `bsonType: "binData"` in the validator) and by
//! the repository (what to encrypt on a write and decrypt on a read).

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
    /// An array's (or map's) `#[embed(max = N)]`, encrypted whole: the
    /// server sees one ciphertext, so the repository checks it.
    pub max: Option<u32>,
}

/// An encrypted field below a sub-document field: its path relative to
/// the sub-document's type (see `BsonSchema::encrypted_paths`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncryptedPath {
    /// The dotted stored path below the type (`ssn`, `card.number`).
    pub path: String,
    /// How its values are encrypted.
    pub algorithm: Algorithm,
    /// Its bound, when it is an array or map (see [`EncryptedDef::max`]).
    pub max: Option<u32>,
}

impl EncryptedPath {
    /// The field `path` of a sub-document type, its bound `max` (generated
    /// code).
    pub fn new(path: &str, algorithm: Algorithm, max: Option<u32>) -> Self {
        EncryptedPath {
            path: path.to_owned(),
            algorithm,
            max,
        }
    }
}

/// Adds `below`, the encrypted paths of the sub-document stored under
/// `field`, to `out` (generated code).
pub fn nest(out: &mut Vec<EncryptedPath>, field: &str, below: Vec<EncryptedPath>) {
    out.extend(below.into_iter().map(|e| EncryptedPath {
        path: format!("{field}.{}", e.path),
        algorithm: e.algorithm,
        max: e.max,
    }));
}

/// One encrypted field of a model, at any depth, with its data key: what
/// setup creates a key for and the repository encrypts and decrypts
/// ([`Document::encrypted`](crate::Document::encrypted)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncryptedSpec {
    /// The dotted stored path from the document's root (an array's items
    /// are reached through it: `items.card` is each item's `card`).
    pub path: String,
    /// The data key's alt name: `"<collection>.<path>"`.
    pub key: String,
    /// How its values are encrypted.
    pub algorithm: Algorithm,
    /// Its bound, when it is an array or map (see [`EncryptedDef::max`]).
    pub max: Option<u32>,
}

/// A model's encrypted fields: its own (`own`), then those inside its
/// sub-documents (`nested`), each with its key in `collection`.
pub(crate) fn specs(
    collection: &str,
    own: &[EncryptedDef],
    nested: Vec<EncryptedPath>,
) -> Vec<EncryptedSpec> {
    let own = own.iter().map(|f| EncryptedSpec {
        path: f.path.to_owned(),
        key: f.key.to_owned(),
        algorithm: f.algorithm,
        max: f.max,
    });
    let nested = nested.into_iter().map(|e| EncryptedSpec {
        key: format!("{collection}.{}", e.path),
        path: e.path,
        algorithm: e.algorithm,
        max: e.max,
    });
    own.chain(nested).collect()
}

/// How a filter's or an update's key stands to an encrypted field.
pub(crate) enum Reach {
    /// The field itself.
    Is,
    /// A path below it (inside its ciphertext).
    Below,
    /// A sub-document (or array) that holds it.
    Holds,
}

/// The first encrypted field `key` (a dotted path) reaches, and how.
pub(crate) fn reach(
    key: &str,
    fields: &'static [EncryptedSpec],
) -> Option<(&'static EncryptedSpec, Reach)> {
    fields.iter().find_map(|f| {
        if key == f.path {
            Some((f, Reach::Is))
        } else if key_below(key, &f.path) {
            Some((f, Reach::Below))
        } else if key_below(&f.path, key) {
            Some((f, Reach::Holds))
        } else {
            None
        }
    })
}

/// Whether `key` is a dotted path below `path` (`ssn.x`, `card.0`).
pub(crate) fn key_below(key: &str, path: &str) -> bool {
    key.strip_prefix(path)
        .is_some_and(|rest| rest.starts_with('.'))
}

/// The rule of `#[encrypt(deterministic)]` on a field's type: a value whose
/// equal values have one BSON form (a string, an integer, an `ObjectId`, a
/// date, a UUID or a binary, or an `Option` of one). libmongocrypt refuses
/// the others deterministically encrypted: a document, an array or a
/// boolean would leak too much (a boolean has two ciphertexts), and doubles
/// and decimals compare loosely.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be encrypted deterministically: equal values must have one BSON form, and a `{Self}` leaks too much or compares loosely",
    label = "a `#[encrypt(deterministic)]` field of this type",
    note = "deterministic encryption takes a string, an integer, an `ObjectId`, a `DateTime`, a `Uuid` or a `Binary` (or an `Option` of one); encrypt this field with `#[encrypt(random)]` (nothing to filter on), or store a value of one of those types"
)]
pub trait DeterministicValue {}

macro_rules! deterministic {
    ($($t:ty),*) => { $(impl DeterministicValue for $t {})* };
}
deterministic!(
    String,
    str,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    bson::oid::ObjectId,
    bson::DateTime,
    bson::Uuid,
    bson::Binary
);
impl<T: DeterministicValue> DeterministicValue for Option<T> {}
impl<T: DeterministicValue + ?Sized> DeterministicValue for Box<T> {}

/// Checks the rule above for a field's type (called by generated code).
pub const fn assert_deterministic<T: DeterministicValue + ?Sized>() {}

/// The rule of `#[encrypt(...)]` on the build: schema-core's `encryption`
/// feature is on (the derive cannot see the features of the crate it
/// expands for; this trait is implemented only with it).
#[diagnostic::on_unimplemented(
    message = "`#[encrypt(...)]` needs schema-core's `encryption` feature",
    label = "an encrypted field, in a build without the feature",
    note = "turn it on: `schema-core = {{ version = \"0.1\", features = [\"encryption\"] }}`; it links libmongocrypt >= 1.18 (see the book's \"Encrypted fields\" chapter)"
)]
pub trait EncryptionFeature {}

/// What the derive probes [`EncryptionFeature`] on.
#[derive(Debug)]
pub struct FeatureProbe;

#[cfg(feature = "encryption")]
impl EncryptionFeature for FeatureProbe {}

/// Checks the rule above (called by generated code).
pub const fn assert_feature<T: EncryptionFeature>() {}
