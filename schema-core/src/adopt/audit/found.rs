//! What an audit found: per collection, its arrays, sizes, references,
//! polymorphic sub-documents and what a declared model makes of it.

use serde::Serialize;

use super::arrays::ArrayAudit;
use super::declared::DeclaredAudit;
use super::encrypted::EncryptedAudit;
use super::polymorphic::PolymorphicAudit;
use super::references::ReferenceAudit;
use super::sizes::SizeAudit;

/// What an audit found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Audit {
    /// Each collection read, by name (views and `system.*` left out).
    pub collections: Vec<CollectionAudit>,
}

/// What an audit found in one collection.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct CollectionAudit {
    /// The collection.
    pub name: String,
    /// How many documents were read.
    pub read: u64,
    /// Every array path seen, in path order.
    pub arrays: Vec<ArrayAudit>,
    /// The documents' sizes.
    pub sizes: SizeAudit,
    /// Its fields that hold `_id`s of a collection (itself included), in
    /// path order.
    pub references: Vec<ReferenceAudit>,
    /// Its sub-documents whose keys a string beside them decides.
    pub polymorphic: Vec<PolymorphicAudit>,
    /// Its fields encrypted on the client (binary subtype 6), in path
    /// order, with the values stored in clear beside them.
    pub encrypted: Vec<EncryptedAudit>,
    /// What the model registered on it makes of its documents, when one is
    /// ([`audit_with`](crate::audit_with)).
    pub declared: Option<DeclaredAudit>,
}

impl Audit {
    /// The array paths that look unbounded, in every collection.
    pub fn unbounded(&self) -> impl Iterator<Item = &ArrayAudit> {
        self.collections
            .iter()
            .flat_map(|c| c.arrays.iter())
            .filter(|a| a.unbounded.is_some())
    }

    /// The reference candidates found, in every collection.
    pub fn references(&self) -> impl Iterator<Item = &ReferenceAudit> {
        self.collections.iter().flat_map(|c| c.references.iter())
    }

    /// The polymorphic sub-documents, in every collection.
    pub fn polymorphic(&self) -> impl Iterator<Item = &PolymorphicAudit> {
        self.collections.iter().flat_map(|c| c.polymorphic.iter())
    }

    /// The fields encrypted on the client, in every collection.
    pub fn encrypted(&self) -> impl Iterator<Item = &EncryptedAudit> {
        self.collections.iter().flat_map(|c| c.encrypted.iter())
    }

    /// What the declared models make of their collections.
    pub fn declared(&self) -> impl Iterator<Item = &DeclaredAudit> {
        self.collections.iter().filter_map(|c| c.declared.as_ref())
    }
}
