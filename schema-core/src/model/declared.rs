//! What `#[derive(Document)]` declares, as constant tables: a model's
//! indexes, relationships and validator properties, read by the provided
//! methods of [`Document`](crate::Document) (`indexes()`, `relations()`,
//! `json_schema()`).
//!
//! The derive writes data, not function bodies: a model costs the compiler a
//! constant to type-check, and the code that turns the tables into index
//! specifications and schemas is compiled once, here, and instantiated only
//! where a program calls it (as serde's generic impls are). A hand-written
//! `Document` impl may still override the three methods instead.

use std::time::Duration;

use bson::{Bson, Document};

use crate::model::index::collation::CollationDef;
use crate::model::index::text::TextDef;
use crate::model::index::{Direction, IndexKind, IndexOrigin, IndexSpec};
use crate::model::validator::depth::schema_of;
use crate::model::validator::{object_schema, with_max_items, BsonSchema, Property};

/// The object schema of `properties`, closed (`additionalProperties:
/// false`) when `closed`: what the derive writes for a struct, a struct
/// variant and a tagged branch.
pub fn object_of(properties: &[PropertyDef], closed: bool) -> Document {
    object_schema(
        properties.iter().map(PropertyDef::property).collect(),
        closed,
    )
}

/// One declared index.
#[derive(Debug, Clone, Copy)]
pub struct IndexDef {
    /// Stored field names with their directions, in order.
    pub keys: &'static [(&'static str, Direction)],
    /// Which attribute declared it.
    pub origin: IndexOrigin,
    /// `name = "..."`; the server's default name otherwise.
    pub name: Option<&'static str>,
    /// `unique: true`.
    pub unique: bool,
    /// `sparse: true`.
    pub sparse: bool,
    /// `hidden: true`.
    pub hidden: bool,
    /// TTL, in seconds.
    pub expire_after: Option<u64>,
    /// `partialFilterExpression`, one condition per stored key.
    pub partial: &'static [(&'static str, PartialDef)],
    /// `collation(...)`.
    pub collation: Option<CollationDef>,
    /// `keys(field = hashed)`, `keys(field = "2dsphere")`: one key of
    /// that kind (`Ordered` otherwise).
    pub kind: IndexKind,
    /// A text index's `weights(...)` and `default_language`.
    pub text: Option<TextDef>,
}

impl IndexDef {
    /// A plain index on `keys`: no name, no option.
    pub const fn new(keys: &'static [(&'static str, Direction)], origin: IndexOrigin) -> Self {
        IndexDef {
            keys,
            origin,
            name: None,
            unique: false,
            sparse: false,
            hidden: false,
            expire_after: None,
            partial: &[],
            collation: None,
            kind: IndexKind::Ordered,
            text: None,
        }
    }

    /// The index specification.
    pub fn spec(&self) -> IndexSpec {
        let keys = self
            .keys
            .iter()
            .map(|(key, dir)| ((*key).to_owned(), *dir))
            .collect();
        let mut spec = IndexSpec::new(keys, self.origin);
        if self.kind != IndexKind::Ordered {
            spec = spec.of_kind(self.kind);
        }
        if let Some(name) = self.name {
            spec.name = name.to_owned();
        }
        spec.unique = self.unique;
        spec.sparse = self.sparse;
        spec.hidden = self.hidden;
        spec.collation = self.collation.as_ref().map(CollationDef::to_collation);
        spec.text = self.text.as_ref().map(TextDef::to_options);
        spec.expire_after = self.expire_after.map(Duration::from_secs);
        if !self.partial.is_empty() {
            let filter = self
                .partial
                .iter()
                .map(|(key, test)| ((*key).to_owned(), test.to_bson()))
                .collect();
            spec.partial_filter = Some(filter);
        }
        spec
    }
}

/// One condition of a partial index's filter.
#[derive(Debug, Clone, Copy)]
pub enum PartialDef {
    /// `key: value`.
    Equals(ConstBson),
    /// `key: {$op: value, ...}` (server operator names).
    Ops(&'static [(&'static str, ConstBson)]),
}

impl PartialDef {
    fn to_bson(self) -> Bson {
        match self {
            PartialDef::Equals(value) => value.to_bson(),
            PartialDef::Ops(ops) => Bson::Document(
                ops.iter()
                    .map(|(op, value)| ((*op).to_owned(), value.to_bson()))
                    .collect(),
            ),
        }
    }
}

/// A BSON scalar written in an attribute.
#[derive(Debug, Clone, Copy)]
pub enum ConstBson {
    /// A string.
    Str(&'static str),
    /// A boolean.
    Bool(bool),
    /// An integer that fits 32 bits.
    Int32(i32),
    /// A larger integer.
    Int64(i64),
    /// A double.
    Double(f64),
}

impl ConstBson {
    fn to_bson(self) -> Bson {
        match self {
            ConstBson::Str(s) => Bson::String(s.to_owned()),
            ConstBson::Bool(b) => Bson::Boolean(b),
            ConstBson::Int32(n) => Bson::Int32(n),
            ConstBson::Int64(n) => Bson::Int64(n),
            ConstBson::Double(f) => Bson::Double(f),
        }
    }
}

/// One property of the validator.
#[derive(Debug, Clone, Copy)]
pub struct PropertyDef {
    /// The stored (serde) name.
    pub name: &'static str,
    /// Its schema (the field type's `BsonSchema`, through the depth guard).
    pub schema: fn() -> Document,
    /// `maxItems` (`maxProperties` on a map) from the attribute's `max`.
    pub max_items: Option<u32>,
    /// Whether every stored document holds it.
    pub required: Required,
}

impl PropertyDef {
    /// The property `name` of type `T`: `T`'s schema (through the depth
    /// guard), required unless `T` may be absent. What the derive writes for
    /// most fields, one generic call instead of a struct literal each.
    pub const fn of<T: BsonSchema + ?Sized>(name: &'static str) -> Self {
        PropertyDef {
            name,
            schema: schema_of::<T>,
            max_items: None,
            required: Required::UnlessOptional(T::optional),
        }
    }

    /// The property `name` of an encrypted field holding a `T`: a BSON
    /// binary (`null` too when `T` may be absent), required unless `T` may
    /// be absent.
    pub const fn encrypted<T: BsonSchema + ?Sized>(name: &'static str) -> Self {
        PropertyDef {
            name,
            schema: encrypted_schema::<T>,
            max_items: None,
            required: Required::UnlessOptional(T::optional),
        }
    }

    /// The same property with `maxItems` (`maxProperties` on a map) `max`.
    pub const fn max(self, max: u32) -> Self {
        PropertyDef {
            max_items: Some(max),
            ..self
        }
    }

    fn property(&self) -> Property {
        let schema = (self.schema)();
        Property {
            name: self.name,
            schema: match self.max_items {
                Some(max) => with_max_items(schema, max),
                None => schema,
            },
            required: match self.required {
                Required::Always => true,
                Required::Never => false,
                Required::UnlessOptional(optional) => !optional(),
            },
        }
    }
}

/// Whether a property is required.
#[derive(Debug, Clone, Copy)]
pub enum Required {
    /// Always written.
    Always,
    /// Serde may leave it out (`default`, `skip_serializing_if`).
    Never,
    /// Unless the type may be absent (`BsonSchema::optional`, e.g. `Option`).
    UnlessOptional(fn() -> bool),
}

/// The validator's schema of an encrypted field holding a `T`: a BSON
/// binary (the ciphertext, subtype 6), or `null` when `T` may be absent (a
/// `None` is stored as `null`, not encrypted), so that a write of the
/// plain value is refused by the server too.
fn encrypted_schema<T: BsonSchema + ?Sized>() -> Document {
    if T::optional() {
        bson::doc! { "bsonType": ["binData", "null"] }
    } else {
        bson::doc! { "bsonType": "binData" }
    }
}
