//! The links of a schema as [`Schema::verify`] and [`Schema::repair`] see
//! them: each `#[many_to_many]` link once, with its two sides stamped as
//! their models stamp their updates.

use bson::Document as BsonDocument;

use crate::error::Result;
use crate::model::Relation;
use crate::relation::many_to_many::Side;
use crate::setup::schema::{ModelInfo, Schema};

/// One link of a schema as [`Schema::verify`] and [`Schema::repair`] see
/// it: its two sides (the right one for a two-sided link), each stamped
/// as its model stamps its updates.
pub(super) struct SchemaLink {
    pub(super) collection: &'static str,
    pub(super) field: &'static str,
    pub(super) target: &'static str,
    pub(super) inverse: Option<&'static str>,
    pub(super) left: Side,
    pub(super) right: Option<Side>,
    /// The two models, for a transaction's messages.
    pub(super) models: [&'static str; 2],
}

impl Schema {
    /// Every `#[many_to_many]` link of the models, a two-sided one once
    /// (from the side named first).
    pub(super) fn links(&self) -> Vec<SchemaLink> {
        let models = self.models();
        let mut links: Vec<SchemaLink> = Vec::new();
        for model in models {
            for relation in &model.relations {
                let Relation::ManyToMany {
                    stored,
                    target,
                    inverse,
                    max,
                    stamp,
                    ..
                } = *relation
                else {
                    continue;
                };
                let seen = links.iter().any(|l| {
                    l.target == model.collection && l.inverse == Some(stored)
                        || l.collection == model.collection && l.field == stored
                });
                if seen {
                    continue;
                }
                let left = Side {
                    collection: model.collection,
                    field: stored,
                    max,
                    stamp: stamp_of(models, model.collection),
                };
                let right = inverse.map(|field| Side {
                    collection: target,
                    field,
                    max: inverse_max(models, target, field),
                    stamp: stamp.update_fn(),
                });
                let target_name = models
                    .iter()
                    .find(|m| m.collection == target)
                    .map_or(target, |m| m.name);
                links.push(SchemaLink {
                    collection: model.collection,
                    field: stored,
                    target,
                    inverse,
                    left,
                    right,
                    models: [model.name, target_name],
                });
            }
        }
        links
    }
}

/// How a model stamps its updates, as the relations that point at its
/// collection carry it (none when no model of the schema links to it).
fn stamp_of(models: &[ModelInfo], collection: &str) -> fn(&mut BsonDocument, bool) -> Result<()> {
    models
        .iter()
        .flat_map(|m| &m.relations)
        .find_map(|r| match r {
            Relation::ManyToMany { target, stamp, .. } if *target == collection => {
                Some(stamp.update_fn())
            }
            _ => None,
        })
        .unwrap_or(Side::no_stamp)
}

/// The max of the inverse array `field` of `target`, as its model declares
/// it; no max (nothing reported over it) when the schema does not hold
/// that model.
fn inverse_max(models: &[ModelInfo], target: &str, field: &str) -> u32 {
    models
        .iter()
        .filter(|m| m.collection == target)
        .flat_map(|m| &m.relations)
        .find_map(|r| match *r {
            Relation::ManyToMany { stored, max, .. } if stored == field => Some(max),
            _ => None,
        })
        .unwrap_or(u32::MAX)
}
