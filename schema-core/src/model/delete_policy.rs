//! Delete policies on references: what deleting a parent does to the
//! children that point at it, declared on the child's reference.
//!
//! ```text
//! #[reference(index, to = User, on_delete = "cascade")]    author_id: String,
//! #[reference(index, to = Post, on_delete = "restrict")]   post_id: String,
//! #[reference(index, to = Team, on_delete = "set_null")]   team_id: Option<String>,
//! #[reference(index, to = Team, on_delete = "unset")]      team_id: Option<String>,
//! ```
//!
//! - `restrict`: the parent is not deleted while a child references it:
//!   [`Error::Restricted`] carries the count,
//!   counted on the reference index.
//! - `cascade`: the children are deleted with the parent, each after what
//!   depends on it (by its own policies), the parent last.
//! - `set_null` / `unset`: the children's `Option` reference is set to null
//!   or removed (the derive refuses either on a field that is not an
//!   `Option`), with the child's version and `updated_at` stamped as any
//!   helper write.
//!
//! [`PolicyGraph`] is the graph of a [`Schema`](crate::Schema)'s policies:
//! [`Schema::check`](crate::Schema::check) (and so `plan` and `sync`)
//! refuses a cycle of cascades (a parent whose deletion would cascade back
//! to its own collection, itself included).
//! [`Schema::delete`](crate::Schema::delete) runs the policies, and pulls
//! the id of every document it deletes from the other side of its model's
//! two-sided links.

use std::any::TypeId;
use std::fmt;

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::{ClientSession, Database};

use crate::error::{Error, Result};
use crate::model::{Document, OnDelete, Relation, Stamp};

/// One model's delete policies toward one parent model, gathered at link
/// time from every `#[derive(Document)]` whose reference declares
/// `on_delete` (for generated code): deleting a parent by
/// [`Repo::delete`](crate::Repo::delete) or
/// [`Schema::delete`](crate::Schema::delete) runs the policies of every
/// model that declares one toward its type, registered in a schema or not.
#[doc(hidden)]
pub struct Dependent {
    parent: fn() -> TypeId,
    child: fn() -> TypeId,
    collection: &'static str,
    policies: fn() -> Vec<RefPolicy>,
    relations: fn() -> Vec<Relation>,
}

impl Dependent {
    /// The policies of `C` toward `P`.
    pub const fn of<C: Document, P: Document>() -> Self {
        Dependent {
            parent: TypeId::of::<P>,
            child: TypeId::of::<C>,
            collection: C::COLLECTION,
            policies: RefPolicy::of::<C>,
            relations: C::relations,
        }
    }
}

/// Every [`Dependent`] of the program.
#[doc(hidden)]
#[linkme::distributed_slice]
pub static DEPENDENTS: [Dependent];

/// The delete policies a delete of a `P` can reach, by type (the models
/// whose references declare `on_delete` toward `P`, toward the models a
/// cascade from `P` deletes, and so on), with the two-sided links of each
/// model it may delete; refuses a cycle of cascades. Walked once per model
/// (the entries are fixed at link time), not on every delete.
pub(crate) fn reach_of<P: Document>() -> Result<&'static PolicyGraph> {
    let (graph, cycle) =
        crate::model::cache::per_model::<P, (PolicyGraph, Option<Vec<&'static str>>)>(|| {
            let graph = reach::<P>();
            let cycle = graph.cascade_cycle();
            (graph, cycle)
        });
    match cycle {
        Some(cycle) => Err(Error::CascadeCycle {
            cycle: cycle.clone(),
        }),
        None => Ok(graph),
    }
}

/// [`reach_of`]'s graph, walked from the entries.
fn reach<P: Document>() -> PolicyGraph {
    let mut edges: Vec<RefPolicy> = Vec::new();
    let mut links: Vec<(&'static str, InverseArray)> = inverse_arrays(&P::relations())
        .into_iter()
        .map(|link| (P::COLLECTION, link))
        .collect();
    let mut seen = vec![TypeId::of::<P>()];
    let mut todo = vec![(TypeId::of::<P>(), P::COLLECTION)];
    while let Some((parent, collection)) = todo.pop() {
        for dependent in DEPENDENTS.iter().filter(|d| (d.parent)() == parent) {
            let mut cascades = false;
            for policy in (dependent.policies)() {
                if policy.parent != collection || edges.contains(&policy) {
                    continue;
                }
                cascades |= policy.policy == OnDelete::Cascade;
                edges.push(policy);
            }
            let child = (dependent.child)();
            if cascades && !seen.contains(&child) {
                seen.push(child);
                todo.push((child, dependent.collection));
                for link in inverse_arrays(&(dependent.relations)()) {
                    if !links
                        .iter()
                        .any(|(c, l)| *c == dependent.collection && *l == link)
                    {
                        links.push((dependent.collection, link));
                    }
                }
            }
        }
    }
    // The link order of the entries is the linker's: a fixed order instead.
    edges.sort_by_key(|e| (e.parent, e.collection, e.field));
    PolicyGraph { edges, links }
}

/// The other side of one two-sided link (`#[many_to_many(two_sided)]`):
/// deleting a document of the model that declares it pulls the document's
/// id from this array of every target document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InverseArray {
    /// The target's collection.
    pub(crate) target: &'static str,
    /// The stored name of its inverse array.
    pub(crate) array: &'static str,
    /// The target model's version and timestamps.
    pub(crate) stamp: Stamp,
}

impl InverseArray {
    /// Pulls the ids `matcher` matches (an id, or `{$in: [..]}`) from the
    /// array of every target document that holds one, stamping them: one
    /// `update`.
    pub(crate) async fn pull(
        &self,
        db: &Database,
        session: Option<&mut ClientSession>,
        matcher: Bson,
    ) -> Result<()> {
        let other = db.collection::<BsonDocument>(self.target);
        let mut pull = doc! { "$pull": { self.array: matcher.clone() } };
        self.stamp.apply(&mut pull, false)?;
        crate::txn::with_session!(
            other.update_many(doc! { self.array: matcher }, pull),
            session
        )
        .map_err(|e| Error::from_server(e, "update", self.target))?;
        Ok(())
    }
}

/// The other side of every two-sided link among `relations`.
pub(crate) fn inverse_arrays(relations: &[Relation]) -> Vec<InverseArray> {
    relations
        .iter()
        .filter_map(|r| match *r {
            Relation::ManyToMany {
                target,
                inverse: Some(array),
                stamp,
                ..
            } => Some(InverseArray {
                target,
                array,
                stamp,
            }),
            _ => None,
        })
        .collect()
}

/// One declared policy: the child model's reference to its parent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefPolicy {
    /// The child model's Rust name.
    pub model: &'static str,
    /// The child's collection.
    pub collection: &'static str,
    /// The reference's stored name in the child.
    pub field: &'static str,
    /// The parent's collection.
    pub parent: &'static str,
    /// What deleting the parent does.
    pub policy: OnDelete,
    /// The child's version and `updated_at`, for `set_null` and `unset`.
    pub(crate) stamp: Stamp,
}

impl RefPolicy {
    /// The policies `M` declares on its references.
    pub fn of<M: Document>() -> Vec<RefPolicy> {
        M::relations()
            .into_iter()
            .filter_map(|relation| match relation {
                Relation::Reference {
                    stored,
                    target: Some(parent),
                    on_delete: Some(policy),
                    ..
                } => Some(RefPolicy {
                    model: M::NAME,
                    collection: M::COLLECTION,
                    field: stored,
                    parent,
                    policy,
                    stamp: Stamp::of::<M>(),
                }),
                _ => None,
            })
            .collect()
    }
}

impl fmt::Display for RefPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} -> {}.{}: {}",
            self.parent,
            self.collection,
            self.field,
            self.policy.name()
        )
    }
}

/// The delete policies of a schema, by parent collection, and the
/// two-sided links of its collections (whose ids a delete pulls from the
/// other side).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PolicyGraph {
    edges: Vec<RefPolicy>,
    links: Vec<(&'static str, InverseArray)>,
}

impl PolicyGraph {
    /// The graph of `policies` and `links` (a collection, the other side
    /// of one of its two-sided links); refuses a cycle of cascades.
    pub(crate) fn new(
        policies: impl IntoIterator<Item = RefPolicy>,
        links: Vec<(&'static str, InverseArray)>,
    ) -> Result<PolicyGraph> {
        let graph = PolicyGraph {
            edges: policies.into_iter().collect(),
            links,
        };
        if let Some(cycle) = graph.cascade_cycle() {
            return Err(Error::CascadeCycle { cycle });
        }
        Ok(graph)
    }

    /// Whether deleting a document of `collection` has more to do than the
    /// delete: dependents' policies, or two-sided links to pull.
    pub(crate) fn declares_for(&self, collection: &str) -> bool {
        self.has_dependents(collection) || self.links_of(collection).next().is_some()
    }

    /// Whether a policy points at `parent` (a collection).
    pub(crate) fn has_dependents(&self, parent: &str) -> bool {
        self.edges.iter().any(|e| e.parent == parent)
    }

    /// The other side of each two-sided link of `collection`'s model.
    pub(crate) fn links_of<'a>(
        &'a self,
        collection: &'a str,
    ) -> impl Iterator<Item = &'a InverseArray> + 'a {
        self.links
            .iter()
            .filter(move |(c, _)| *c == collection)
            .map(|(_, link)| link)
    }

    /// Every policy, in the order the models were added.
    pub fn policies(&self) -> &[RefPolicy] {
        &self.edges
    }

    /// The policies of the children of `parent` (a collection), restrict
    /// first (checked before anything is written).
    pub fn dependents(&self, parent: &str) -> Vec<&RefPolicy> {
        let mut out: Vec<&RefPolicy> = self.edges.iter().filter(|e| e.parent == parent).collect();
        out.sort_by_key(|e| e.policy != OnDelete::Restrict);
        out
    }

    /// A cycle of cascades, as the collections along it (first repeated
    /// last), if there is one.
    fn cascade_cycle(&self) -> Option<Vec<&'static str>> {
        let cascades: Vec<(&'static str, &'static str)> = self
            .edges
            .iter()
            .filter(|e| e.policy == OnDelete::Cascade)
            .map(|e| (e.parent, e.collection))
            .collect();
        fn walk(
            at: &'static str,
            path: &mut Vec<&'static str>,
            cascades: &[(&'static str, &'static str)],
            done: &mut Vec<&'static str>,
        ) -> Option<Vec<&'static str>> {
            if let Some(start) = path.iter().position(|c| *c == at) {
                let mut cycle = path[start..].to_vec();
                cycle.push(at);
                return Some(cycle);
            }
            if done.contains(&at) {
                return None;
            }
            path.push(at);
            for (_, child) in cascades.iter().filter(|(parent, _)| *parent == at) {
                if let Some(cycle) = walk(child, path, cascades, done) {
                    return Some(cycle);
                }
            }
            path.pop();
            done.push(at);
            None
        }
        let mut done = Vec::new();
        cascades
            .iter()
            .find_map(|(parent, _)| walk(parent, &mut Vec::new(), &cascades, &mut done))
    }
}

impl fmt::Display for PolicyGraph {
    /// One line per policy: `users -> posts.authorId: cascade`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for edge in &self.edges {
            writeln!(f, "{edge}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(parent: &'static str, child: &'static str, policy: OnDelete) -> RefPolicy {
        RefPolicy {
            model: child,
            collection: child,
            field: "ref",
            parent,
            policy,
            stamp: Stamp::none(),
        }
    }

    #[test]
    fn cascades_in_a_cycle_are_refused_and_others_are_not() {
        use OnDelete::*;
        let ok = [
            edge("a", "b", Cascade),
            edge("b", "c", Cascade),
            edge("c", "a", Restrict),
        ];
        assert!(PolicyGraph::new(ok, Vec::new()).is_ok());
        let cycle = [
            edge("a", "b", Cascade),
            edge("b", "c", Cascade),
            edge("c", "a", Cascade),
        ];
        match PolicyGraph::new(cycle, Vec::new()) {
            Err(Error::CascadeCycle { cycle }) => assert_eq!(cycle, ["a", "b", "c", "a"]),
            other => panic!("{other:?}"),
        }
        let itself = [edge("tree", "tree", Cascade)];
        assert!(matches!(
            PolicyGraph::new(itself, Vec::new()),
            Err(Error::CascadeCycle { .. })
        ));
        let set_null_back = [edge("a", "b", Cascade), edge("b", "a", SetNull)];
        assert!(PolicyGraph::new(set_null_back, Vec::new()).is_ok());
    }

    #[test]
    fn restrict_comes_first() {
        use OnDelete::*;
        let graph = PolicyGraph::new(
            [edge("a", "b", Cascade), edge("a", "c", Restrict)],
            Vec::new(),
        )
        .unwrap();
        let order: Vec<_> = graph.dependents("a").iter().map(|e| e.policy).collect();
        assert_eq!(order, [Restrict, Cascade]);
    }
}
