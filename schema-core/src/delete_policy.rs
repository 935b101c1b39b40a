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
//! to its own collection, itself included), and a cascade into a model
//! with two-sided links (whose inverse arrays a cascade does not pull).
//! [`Schema::delete`](crate::Schema::delete) runs the policies.

use std::fmt;

use crate::error::{Error, Result};
use crate::model::{Document, OnDelete, Relation, Stamp};

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

/// The delete policies of a schema, by parent collection.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PolicyGraph {
    edges: Vec<RefPolicy>,
}

impl PolicyGraph {
    /// The graph of `policies`; refuses a cycle of cascades, and a cascade
    /// into a collection of `linked` (models with two-sided links).
    pub(crate) fn new(
        policies: impl IntoIterator<Item = RefPolicy>,
        linked: &[&'static str],
    ) -> Result<PolicyGraph> {
        let graph = PolicyGraph {
            edges: policies.into_iter().collect(),
        };
        if let Some(edge) = graph
            .edges
            .iter()
            .find(|e| e.policy == OnDelete::Cascade && linked.contains(&e.collection))
        {
            return Err(Error::Model(format!(
                "`{}.{}` cascades deletes into `{}`, whose model has two-sided links: a cascade deletes with `deleteMany` and would leave its ids in the other side's arrays; use \"restrict\" and delete those documents with `Repo::delete`",
                edge.collection, edge.field, edge.collection
            )));
        }
        if let Some(cycle) = graph.cascade_cycle() {
            return Err(Error::CascadeCycle { cycle });
        }
        Ok(graph)
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
        assert!(PolicyGraph::new(ok, &[]).is_ok());
        let cycle = [
            edge("a", "b", Cascade),
            edge("b", "c", Cascade),
            edge("c", "a", Cascade),
        ];
        match PolicyGraph::new(cycle, &[]) {
            Err(Error::CascadeCycle { cycle }) => assert_eq!(cycle, ["a", "b", "c", "a"]),
            other => panic!("{other:?}"),
        }
        let itself = [edge("tree", "tree", Cascade)];
        assert!(matches!(
            PolicyGraph::new(itself, &[]),
            Err(Error::CascadeCycle { .. })
        ));
        let set_null_back = [edge("a", "b", Cascade), edge("b", "a", SetNull)];
        assert!(PolicyGraph::new(set_null_back, &[]).is_ok());
        let linked = [edge("a", "b", Cascade)];
        assert!(PolicyGraph::new(linked, &["b"]).is_err());
    }

    #[test]
    fn restrict_comes_first() {
        use OnDelete::*;
        let graph =
            PolicyGraph::new([edge("a", "b", Cascade), edge("a", "c", Restrict)], &[]).unwrap();
        let order: Vec<_> = graph.dependents("a").iter().map(|e| e.policy).collect();
        assert_eq!(order, [Restrict, Cascade]);
    }
}
