//! Index specifications generated from a model's attributes.

pub(crate) mod collation;
pub(crate) mod server;
pub(crate) mod text;

use std::fmt;
use std::time::Duration;

use bson::{Bson, Document};

use crate::model::index::collation::IndexCollation;
use crate::model::index::text::{TextOptions, TextShape};

/// The direction of one index key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Ascending (`1`).
    Asc,
    /// Descending (`-1`).
    Desc,
}

impl Direction {
    /// The value stored in the index's key document.
    pub fn as_i32(self) -> i32 {
        match self {
            Direction::Asc => 1,
            Direction::Desc => -1,
        }
    }
}

/// What an index holds of its keys. New kinds (text, 2dsphere) may come,
/// so a `match` needs a `_` arm.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IndexKind {
    /// Its keys in order, each ascending or descending (`{a: 1, b: -1}`):
    /// it serves equality, ranges and sorts.
    #[default]
    Ordered,
    /// One key stored as a hash of its value (`{a: "hashed"}`): it serves
    /// equality (and `$in`) on the key, never a range or a sort; it is what
    /// a hashed shard key needs. Never unique.
    Hashed,
    /// One key of GeoJSON (or legacy `[lng, lat]`) points on a sphere
    /// (`{a: "2dsphere"}`): it serves the geo operators on the key
    /// (`$near`, `$nearSphere`, `$geoWithin`, `$geoIntersects`), which no
    /// other index does (and `$near` needs).
    Sphere2d,
    /// Every key a text field (`{title: "text", body: "text"}`): the one
    /// text index of a collection, which `$text` searches need (see
    /// `text_index`).
    Text,
}

impl IndexKind {
    /// The value of a key of this kind in a key document (`None` for an
    /// ordered key, whose value is its direction).
    pub(crate) fn key_value(self) -> Option<&'static str> {
        match self {
            IndexKind::Ordered => None,
            IndexKind::Hashed => Some(HASHED),
            IndexKind::Sphere2d => Some(SPHERE_2D),
            IndexKind::Text => Some(crate::model::index::text::TEXT),
        }
    }
}

/// Where an index was declared, for error messages and plans. New
/// attributes that declare indexes may add kinds, so a `match` needs a `_` arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum IndexOrigin {
    /// `#[reference(index)]` on this field (Rust name).
    Reference(&'static str),
    /// A `#[many_to_many]` id array (Rust name).
    ManyToMany(&'static str),
    /// A container-level `#[document(index(...))]`.
    Declared,
    /// `#[document(bucket(...))]`: the parent and the bucket's place, unique.
    Bucket,
    /// `#[document(shard_key(...))]`: the index a shard key needs, when no
    /// other declared index starts with its fields (see
    /// `shard`).
    ShardKey,
    /// `#[document(migrate_from(...))]`: the version field's index, that
    /// [`Repo::migrate`](crate::Repo::migrate) finds the documents at an
    /// earlier version by (see `versions`).
    SchemaVersion,
}

/// One index as the model declares it. Built with [`IndexSpec::new`] and its
/// public fields; new index options may add fields.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct IndexSpec {
    /// Stored field names with their directions, in order (order matters).
    pub keys: Vec<(String, Direction)>,
    /// Ordered (the default) or hashed (its one key hashed; the direction
    /// is not used).
    pub kind: IndexKind,
    /// The name: given explicitly, or derived from the keys as the server does.
    pub name: String,
    /// `unique: true`.
    pub unique: bool,
    /// `sparse: true`.
    pub sparse: bool,
    /// TTL: `expireAfterSeconds`.
    pub expire_after: Option<Duration>,
    /// `partialFilterExpression`.
    pub partial_filter: Option<Document>,
    /// `hidden: true`: kept up to date by the server but not used by its
    /// planner (nor by the index guard), to try dropping it without losing
    /// it; `sync` hides or unhides an existing index in place (`collMod`).
    pub hidden: bool,
    /// The index's collation (`collation(locale = "en", strength = 2)`:
    /// a case-insensitive unique email). A query uses such an index only
    /// when it carries the same collation, so the index guard counts on it
    /// only for a query sent with it
    /// ([`Find::collation`](crate::query::Find::collation); see
    /// `collation`).
    pub collation: Option<IndexCollation>,
    /// A text index's weights and default language
    /// ([`IndexKind::Text`]).
    pub text: Option<TextOptions>,
    /// Which attribute declared it.
    pub origin: IndexOrigin,
}

impl IndexSpec {
    /// A plain index on `keys`, named as the server would name it.
    pub fn new(keys: Vec<(String, Direction)>, origin: IndexOrigin) -> Self {
        let name = default_name(&keys);
        IndexSpec {
            keys,
            kind: IndexKind::Ordered,
            name,
            unique: false,
            sparse: false,
            expire_after: None,
            partial_filter: None,
            hidden: false,
            collation: None,
            text: None,
            origin,
        }
    }

    /// A hashed index on one stored field (`{field: "hashed"}`), named as
    /// the server would name it (`field_hashed`).
    pub fn hashed(field: impl Into<String>, origin: IndexOrigin) -> Self {
        IndexSpec::new(vec![(field.into(), Direction::Asc)], origin).of_kind(IndexKind::Hashed)
    }

    /// This index with its one key of `kind` (renamed as the server names
    /// it, `field_hashed`, `field_2dsphere`).
    pub(crate) fn of_kind(mut self, kind: IndexKind) -> Self {
        self.kind = kind;
        self.name = name_of_key_document(&self.key_document());
        self
    }

    /// A text index's shape as the plan compares it (`None` for another
    /// kind).
    pub(crate) fn text_shape(&self) -> Option<TextShape> {
        (self.kind == IndexKind::Text).then(|| {
            TextShape::declared(
                self.keys.iter().map(|(k, _)| k.as_str()),
                self.text.as_ref(),
            )
        })
    }

    /// The key document, e.g. `{authorId: 1, at: -1}` (`{authorId:
    /// "hashed"}` for a hashed index).
    pub fn key_document(&self) -> Document {
        self.keys
            .iter()
            .map(|(k, d)| {
                let value = match self.kind.key_value() {
                    Some(kind) => Bson::String(kind.to_owned()),
                    None => Bson::Int32(d.as_i32()),
                };
                (k.clone(), value)
            })
            .collect()
    }

    /// The `createIndexes` entry for this index.
    pub fn to_index_model(&self) -> mongodb::IndexModel {
        let options = mongodb::options::IndexOptions::builder()
            .name(self.name.clone())
            .unique(self.unique.then_some(true))
            .sparse(self.sparse.then_some(true))
            .expire_after(self.expire_after)
            .partial_filter_expression(self.partial_filter.clone())
            .hidden(self.hidden.then_some(true))
            .collation(self.collation.as_ref().map(IndexCollation::to_driver))
            .build();
        let mut options = options;
        if let Some(shape) = self.text_shape() {
            let (weights, language) = crate::model::index::text::index_options(&shape);
            options.weights = Some(weights);
            options.default_language = Some(language);
        }
        mongodb::IndexModel::builder()
            .keys(self.key_document())
            .options(options)
            .build()
    }
}

impl fmt::Display for IndexSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_index(
            f,
            &self.name,
            &self.key_document(),
            self.unique,
            self.sparse,
            self.expire_after,
            self.partial_filter.as_ref(),
        )?;
        if let Some(collation) = &self.collation {
            write!(f, " {collation}")?;
        }
        if let Some(shape) = self.text_shape() {
            write!(f, " {shape}")?;
        }
        if self.hidden {
            f.write_str(" hidden")?;
        }
        Ok(())
    }
}

/// Writes an index as messages and plans show it, a declared one and one the
/// server reports alike: `name {keys}`, then ` unique`, ` sparse`,
/// ` expireAfterSeconds=N` and ` partial={...}` when set.
pub(crate) fn write_index(
    f: &mut fmt::Formatter<'_>,
    name: &str,
    keys: &Document,
    unique: bool,
    sparse: bool,
    expire_after: Option<Duration>,
    partial: Option<&Document>,
) -> fmt::Result {
    write!(f, "{name} {keys}")?;
    if unique {
        f.write_str(" unique")?;
    }
    if sparse {
        f.write_str(" sparse")?;
    }
    if let Some(ttl) = expire_after {
        write!(f, " expireAfterSeconds={}", ttl.as_secs())?;
    }
    if let Some(p) = partial {
        write!(f, " partial={p}")?;
    }
    Ok(())
}

/// The server's default index name: `authorId_1_at_-1`.
pub(crate) fn default_name(keys: &[(String, Direction)]) -> String {
    let doc: Document = keys
        .iter()
        .map(|(k, d)| (k.clone(), Bson::Int32(d.as_i32())))
        .collect();
    name_of_key_document(&doc)
}

/// The value a hashed key holds in a key document.
pub(crate) const HASHED: &str = "hashed";
/// The value a 2dsphere key holds in a key document.
pub(crate) const SPHERE_2D: &str = "2dsphere";

/// [`default_name`] for a key document as the server stores it, whatever
/// numeric type holds each direction (a kind such as `"hashed"` is written
/// as it is: `roomId_hashed`).
pub(crate) fn name_of_key_document(keys: &Document) -> String {
    keys.iter()
        .map(|(k, v)| match v {
            Bson::String(kind) => format!("{k}_{kind}"),
            _ => format!("{k}_{}", direction_of(v)),
        })
        .collect::<Vec<_>>()
        .join("_")
}

fn direction_of(v: &Bson) -> i32 {
    match v {
        Bson::Int32(n) if *n < 0 => -1,
        Bson::Int64(n) if *n < 0 => -1,
        Bson::Double(n) if *n < 0.0 => -1,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_server_convention() {
        let spec = IndexSpec::new(
            vec![
                ("authorId".into(), Direction::Asc),
                ("at".into(), Direction::Desc),
            ],
            IndexOrigin::Reference("author_id"),
        );
        assert_eq!(spec.name, "authorId_1_at_-1");
        assert_eq!(spec.key_document(), bson::doc! { "authorId": 1, "at": -1 });
        let hashed = IndexSpec::hashed("roomId", IndexOrigin::ShardKey);
        assert_eq!(hashed.name, "roomId_hashed");
        assert_eq!(hashed.key_document(), bson::doc! { "roomId": "hashed" });
    }
}
