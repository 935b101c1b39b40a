//! The models of a [`Schema`] as a Mermaid flowchart, drawn like the
//! seeds' own: one node per collection, the bounded embedded arrays and maps
//! hanging off it with their `max`, references from the child to its parent
//! with the index they ride, id-array links (two-sided ones both ways, with
//! each side's `max`), copies of a referenced field (dotted), and the delete
//! policies on the reference arrows.
//!
//! ```
//! use schema_core::prelude::*;
//! use schema_core::Schema;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Document, Serialize, Deserialize)]
//! #[document(collection = "users")]
//! struct User {
//!     #[serde(rename = "_id")]
//!     id: String,
//! }
//!
//! #[derive(Document, Serialize, Deserialize)]
//! #[serde(rename_all = "camelCase")]
//! #[document(collection = "posts")]
//! struct Post {
//!     #[serde(rename = "_id")]
//!     id: String,
//!     #[reference(index, to = User, sort(at = desc), on_delete = "cascade")]
//!     author_id: String,
//!     #[embed(max = 10)]
//!     tags: Vec<String>,
//!     at: i64,
//! }
//!
//! let diagram = Schema::new().with::<User>().with::<Post>().diagram();
//! assert_eq!(
//!     diagram,
//!     "flowchart LR\n\
//!     \x20 users[\"users (User)\"]\n\
//!     \x20 posts[\"posts (Post)\"]\n\
//!     \x20 posts -->|\"authorId, index authorId_1_at_-1__id_-1, on delete: cascade\"| users\n\
//!     \x20 posts_tags([\"tags: embedded, max 10\"])\n\
//!     \x20 posts --- posts_tags\n"
//! );
//! ```

use std::fmt::Write;

use crate::index::IndexOrigin;
use crate::model::Relation;
use crate::schema::{ModelInfo, Schema};

impl Schema {
    /// The models as a Mermaid flowchart (see the [module docs](self)).
    pub fn diagram(&self) -> String {
        let models = self.models();
        let mut out = String::from("flowchart LR\n");
        for model in models {
            let _ = writeln!(
                out,
                "  {}[\"{} ({})\"]",
                node(model.collection),
                model.collection,
                model.name
            );
        }
        for model in models {
            edges(&mut out, model, models);
        }
        out
    }
}

/// A Mermaid node id for a collection (letters, digits and `_` only).
fn node(collection: &str) -> String {
    collection
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Whether a collection is one of the schema's models (an arrow to one
/// that is not draws its node as well, named by the collection alone).
fn known(models: &[ModelInfo], collection: &str) -> bool {
    models.iter().any(|m| m.collection == collection)
}

fn edges(out: &mut String, model: &ModelInfo, models: &[ModelInfo]) {
    let from = node(model.collection);
    for relation in &model.relations {
        match relation {
            Relation::Embed { stored, max, .. } => {
                let sub = format!("{from}_{}", node(stored));
                let _ = writeln!(out, "  {sub}([\"{stored}: embedded, max {max}\"])");
                let _ = writeln!(out, "  {from} --- {sub}");
            }
            Relation::Reference {
                stored,
                target,
                on_delete,
                ..
            } => {
                let Some(target) = target else { continue };
                let index = model
                    .indexes
                    .iter()
                    .find(|i| {
                        matches!(i.origin, IndexOrigin::Reference(_))
                            && i.keys.first().is_some_and(|(k, _)| k == stored)
                    })
                    .map(|i| format!(", index {}", i.name))
                    .unwrap_or_default();
                let policy = on_delete
                    .map(|p| format!(", on delete: {}", p.name()))
                    .unwrap_or_default();
                if !known(models, target) {
                    let _ = writeln!(out, "  {}[\"{target}\"]", node(target));
                }
                let _ = writeln!(
                    out,
                    "  {from} -->|\"{stored}{index}{policy}\"| {}",
                    node(target)
                );
            }
            Relation::ManyToMany {
                stored,
                target,
                inverse,
                max,
                ..
            } => {
                let to = node(target);
                match inverse {
                    // Drawn once, from the side whose collection sorts first.
                    Some(inverse) if model.collection <= *target => {
                        let back = models
                            .iter()
                            .find(|m| m.collection == *target)
                            .and_then(|m| {
                                m.relations.iter().find_map(|r| match r {
                                    Relation::ManyToMany { stored: s, max, .. } if s == inverse => {
                                        Some(*max)
                                    }
                                    _ => None,
                                })
                            });
                        let back = back.map_or_else(String::new, |m| format!(" / max {m}"));
                        let _ = writeln!(
                            out,
                            "  {from} <-->|\"{stored} / {inverse}: two-sided, max {max}{back}\"| {to}"
                        );
                    }
                    Some(_) => {}
                    None => {
                        if !known(models, target) {
                            let _ = writeln!(out, "  {to}[\"{target}\"]");
                        }
                        let _ = writeln!(out, "  {from} -->|\"{stored}: ids, max {max}\"| {to}");
                    }
                }
            }
        }
    }
    for copy in &model.copies {
        let _ = writeln!(
            out,
            "  {from} -.->|\"{} copies {}.{}\"| {}",
            copy.field,
            copy.source,
            copy.source_field,
            node(copy.source)
        );
    }
}
