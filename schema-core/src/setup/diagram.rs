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

use crate::model::index::IndexOrigin;
use crate::model::Relation;
use crate::setup::schema::{ModelInfo, Schema};

impl Schema {
    /// The models as a Mermaid flowchart (see the module docs).
    pub fn diagram(&self) -> String {
        let models = self.models();
        let mut nodes = Nodes::new(models);
        let mut out = String::from("flowchart LR\n");
        for model in models {
            let _ = writeln!(
                out,
                "  {}[\"{} ({})\"]",
                nodes.collection(model.collection),
                model.collection,
                model.name
            );
        }
        for model in models {
            edges(&mut out, model, models, &mut nodes);
        }
        out
    }
}

/// A Mermaid node id for a name: letters, digits and `_` only (any other
/// character becomes `_`).
fn plain(name: &str) -> String {
    let id: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    // `end` closes a subgraph in Mermaid's grammar: never a node's id.
    if id.eq_ignore_ascii_case("end") {
        format!("{id}_")
    } else {
        id
    }
}

/// What a node stands for: a collection, or an embedded field of one.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    Collection(String),
    Embed(String, String),
}

/// The node ids of one diagram, one per collection and per embedded field,
/// never two alike: names that differ only in characters an id cannot hold
/// (`order-items`, `order_items`), or a collection named like another's
/// embedded field (`posts_tags`), get `_2`, `_3`... The models' collections
/// are given theirs first, those whose name is an id already before the
/// others, so that adding a model never renames a node of another.
struct Nodes {
    ids: Vec<(Node, String)>,
}

impl Nodes {
    fn new(models: &[ModelInfo]) -> Self {
        let mut nodes = Nodes { ids: Vec::new() };
        let (exact, other): (Vec<&ModelInfo>, Vec<&ModelInfo>) = models
            .iter()
            .partition(|m| plain(m.collection) == m.collection);
        for model in exact.into_iter().chain(other) {
            nodes.collection(model.collection);
        }
        nodes
    }

    /// The id of `node`, given on first use.
    fn id(&mut self, node: Node, plain_id: String) -> String {
        if let Some((_, id)) = self.ids.iter().find(|(n, _)| *n == node) {
            return id.clone();
        }
        let taken = |id: &str, ids: &[(Node, String)]| ids.iter().any(|(_, i)| i == id);
        let mut id = plain_id.clone();
        let mut n = 2;
        while taken(&id, &self.ids) {
            id = format!("{plain_id}_{n}");
            n += 1;
        }
        self.ids.push((node, id.clone()));
        id
    }

    fn collection(&mut self, collection: &str) -> String {
        self.id(Node::Collection(collection.to_owned()), plain(collection))
    }

    fn embed(&mut self, collection: &str, field: &str) -> String {
        let owner = self.collection(collection);
        self.id(
            Node::Embed(collection.to_owned(), field.to_owned()),
            format!("{owner}_{}", plain(field)),
        )
    }
}

/// Whether a collection is one of the schema's models (an arrow to one
/// that is not draws its node as well, named by the collection alone).
fn known(models: &[ModelInfo], collection: &str) -> bool {
    models.iter().any(|m| m.collection == collection)
}

fn edges(out: &mut String, model: &ModelInfo, models: &[ModelInfo], nodes: &mut Nodes) {
    let from = nodes.collection(model.collection);
    for relation in &model.relations {
        match relation {
            Relation::Embed { stored, max, .. } => {
                let sub = nodes.embed(model.collection, stored);
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
                let to = nodes.collection(target);
                if !known(models, target) {
                    let _ = writeln!(out, "  {to}[\"{target}\"]");
                }
                let _ = writeln!(out, "  {from} -->|\"{stored}{index}{policy}\"| {to}");
            }
            Relation::ManyToMany {
                stored,
                target,
                inverse,
                max,
                ..
            } => {
                let to = nodes.collection(target);
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
        let to = nodes.collection(copy.source);
        let _ = writeln!(
            out,
            "  {from} -.->|\"{} copies {}.{}\"| {to}",
            copy.field, copy.source, copy.source_field,
        );
    }
}
