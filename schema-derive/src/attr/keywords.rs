//! The derive's keywords: one constant per attribute name, key, operator and
//! written value, the keys each attribute accepts (for "did you mean"
//! hints), and the test that tells the derive's attributes from others.

use syn::ext::IdentExt;
use syn::Attribute;

use crate::suggest;

// Attribute names.
pub const DOCUMENT: &str = "document";
pub const EMBED: &str = "embed";
pub const REFERENCE: &str = "reference";
pub const MANY_TO_MANY: &str = "many_to_many";
pub const COPY: &str = "copy";
pub const SNAPSHOT: &str = "snapshot";
pub const ENCRYPT: &str = "encrypt";

// `#[encrypt(...)]` algorithms.
pub const DETERMINISTIC: &str = "deterministic";
pub const RANDOM: &str = "random";

// `#[copy(...)]` and `#[snapshot(...)]` keys.
pub const FROM: &str = "from";
pub const FOLLOW: &str = "follow";
pub const FIELD: &str = "field";
pub const OF: &str = "of";

// `#[document(...)]` keys.
pub const COLLECTION: &str = "collection";
pub const CRATE: &str = "crate";
pub const INDEX: &str = "index";
pub const OPEN: &str = "open";
pub const VERSION: &str = "version";
pub const TIMESTAMPS: &str = "timestamps";
pub const BUCKET: &str = "bucket";
pub const TIMESERIES: &str = "timeseries";
pub const SHARD_KEY: &str = "shard_key";
pub const MIGRATE_FROM: &str = "migrate_from";
pub const SCHEMA_VERSION: &str = "schema_version";
pub const PRE_IMAGES: &str = "pre_images";

// `shard_key(hashed(field))`, and an index key's kind (`keys(field = hashed)`).
pub const HASHED: &str = "hashed";
// `keys(field = "2dsphere")`, `keys(field = "text")`.
pub const SPHERE_2D: &str = "2dsphere";
pub const TEXT: &str = "text";

// `timeseries(...)` keys (with `expire_after`).
pub const TIME: &str = "time";
pub const META: &str = "meta";
pub const GRANULARITY: &str = "granularity";
pub const SPAN: &str = "span";

// `bucket(...)` keys.
pub const PARENT: &str = "parent";
pub const ITEMS: &str = "items";
pub const COUNT: &str = "count";
pub const SEQ: &str = "seq";

// `index(...)` keys.
pub const KEYS: &str = "keys";
pub const NAME: &str = "name";
pub const UNIQUE: &str = "unique";
pub const SPARSE: &str = "sparse";
pub const HIDDEN: &str = "hidden";
pub const EXPIRE_AFTER: &str = "expire_after";
pub const PARTIAL: &str = "partial";
pub const COLLATION: &str = "collation";
pub const WEIGHTS: &str = "weights";
pub const DEFAULT_LANGUAGE: &str = "default_language";

// `collation(...)` keys.
pub const LOCALE: &str = "locale";
pub const STRENGTH: &str = "strength";

// `partial(field(op = value))` operators.
pub const EXISTS: &str = "exists";
pub const EQ: &str = "eq";
pub const GT: &str = "gt";
pub const GTE: &str = "gte";
pub const LT: &str = "lt";
pub const LTE: &str = "lte";
pub const TYPE: &str = "type";

// `#[embed(...)]` keys.
pub const MAX: &str = "max";
pub const KEEP: &str = "keep";
pub const HISTORY: &str = "history";
pub const UNBOUNDED: &str = "unbounded";

// `#[reference(...)]` keys (with `index`, `unique`).
pub const TO: &str = "to";
pub const SORT: &str = "sort";
pub const ON_DELETE: &str = "on_delete";

// `on_delete = "..."` values.
pub const RESTRICT: &str = "restrict";
pub const CASCADE: &str = "cascade";
pub const SET_NULL: &str = "set_null";
pub const UNSET: &str = "unset";

// `follow = "..."` values (`#[copy]`).
pub const TRANSACTION: &str = "transaction";
pub const CONSUMER: &str = "consumer";

// `#[many_to_many(...)]` keys (with `to`, `max`).
pub const TWO_SIDED: &str = "two_sided";
pub const ONE_SIDED: &str = "one_sided";
pub const INVERSE: &str = "inverse";

// Index directions.
pub const ASC: &str = "asc";
pub const DESC: &str = "desc";

// `keep = "..."` values.
pub const NEWEST: &str = "newest";
pub const OLDEST: &str = "oldest";

// The keys each attribute (and `index(...)`, `partial(...)`) accepts.
pub(super) const DOCUMENT_KEYS: &[&str] = &[
    COLLECTION,
    CRATE,
    INDEX,
    OPEN,
    VERSION,
    TIMESTAMPS,
    BUCKET,
    TIMESERIES,
    SHARD_KEY,
    MIGRATE_FROM,
    SCHEMA_VERSION,
    PRE_IMAGES,
];
pub(super) const TIMESERIES_KEYS: &[&str] = &[TIME, META, GRANULARITY, SPAN, EXPIRE_AFTER];
pub(super) const BUCKET_KEYS: &[&str] = &[PARENT, ITEMS, COUNT, SEQ];
pub(super) const INDEX_KEYS: &[&str] = &[
    KEYS,
    NAME,
    UNIQUE,
    SPARSE,
    HIDDEN,
    EXPIRE_AFTER,
    PARTIAL,
    COLLATION,
    WEIGHTS,
    DEFAULT_LANGUAGE,
];
pub(super) const COLLATION_KEYS: &[&str] = &[LOCALE, STRENGTH];
pub(super) const PARTIAL_OPS: &[&str] = &[EXISTS, EQ, GT, GTE, LT, LTE, TYPE];
pub(super) const EMBED_KEYS: &[&str] = &[MAX, KEEP, HISTORY, UNBOUNDED];
pub(super) const REFERENCE_KEYS: &[&str] = &[INDEX, UNIQUE, TO, SORT, ON_DELETE];
pub(super) const COPY_KEYS: &[&str] = &[FROM, FIELD, FOLLOW];
pub(super) const SNAPSHOT_KEYS: &[&str] = &[OF, FIELD];
pub(super) const ENCRYPT_KEYS: &[&str] = &[DETERMINISTIC, RANDOM];
pub(super) const MANY_TO_MANY_KEYS: &[&str] = &[TWO_SIDED, ONE_SIDED, TO, INVERSE, MAX];

/// Whether `attr` is one of the derive's own attributes.
pub(super) fn is_ours(attr: &Attribute) -> bool {
    [DOCUMENT, EMBED, REFERENCE, MANY_TO_MANY]
        .iter()
        .any(|name| attr.path().is_ident(name))
}

/// The attribute this one misspells, when its name is one or two edits from
/// `serde` or one of the derive's own (`#[embd]`, `#[sered]`): the compiler
/// reports it as unknown, and the derive's messages can say what was meant.
pub fn misspelt(attr: &Attribute) -> Option<&'static str> {
    let ident = attr.path().get_ident()?;
    let name = ident.unraw().to_string();
    let known = [
        "serde",
        DOCUMENT,
        EMBED,
        REFERENCE,
        MANY_TO_MANY,
        COPY,
        SNAPSHOT,
        ENCRYPT,
    ];
    if known.contains(&name.as_str()) {
        return None;
    }
    let meant = suggest::closest(&name, known)?;
    // `serde_as` (serde_with) is three edits from `serde`, and not a typo.
    (suggest::distance(&name, meant) <= 2).then_some(meant)
}
