//! Moving an embedded array out into a collection of its own while the
//! application runs: each item of the array at a path of the parents
//! becomes one child document pointing at its parent, and the array leaves
//! the parent.
//!
//! See [`MoveOut`].

mod array;
mod batch;
mod item;
mod order;
mod read;

use std::marker::PhantomData;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::model::Document;
use crate::typed::field::RefField;

pub use read::MoveReads;

/// A move of the array stored at `path` in the parents `P` into children
/// `C`, each pointing at its parent through a `#[reference(index, to = P,
/// sort(..))]` field.
///
/// The move is declared on the models: the parent `P` (which no longer
/// declares the array), the child `C` (whose `#[reference(index, to = P,
/// sort(..))]` points at the parent and names the items' order) and the
/// stored path of the old array in the parent:
///
/// ```no_run
/// # use schema_core::prelude::*;
/// # use schema_core::bson::oid::ObjectId;
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Document, Serialize, Deserialize)]
/// # #[document(collection = "rooms")]
/// # struct Room { #[serde(rename = "_id")] id: String }
/// # #[derive(Document, Serialize, Deserialize)]
/// # #[document(collection = "messages")]
/// # struct Message {
/// #     #[serde(rename = "_id")]
/// #     id: ObjectId,
/// #     #[reference(index, to = Room, sort(n = desc))]
/// #     room: String,
/// #     n: i64,
/// #     text: String,
/// # }
/// # async fn demo(db: schema_core::mongodb::Database) -> schema_core::Result<()> {
/// use schema_core::{MoveOptions, MoveOut};
///
/// let messages = MoveOut::<Room, Message>::new("messages", Message::FIELDS.room);
/// let done = messages.run(&db, MoveOptions::default(), |_| {}).await?;
/// assert!(done.finished);
/// # Ok(())
/// # }
/// ```
///
/// [`MoveOut::run`] moves the items in batches, one transaction per
/// batch that inserts the batch's children and removes exactly those items
/// from the front of the parent's array (guarded by the array's length), so
/// that a kill at any point leaves every item exactly once, in the parent
/// or in the children; run it again to resume. [`MoveOut::reads`] reads a
/// parent's items from wherever they are, in one snapshot, in order, the
/// whole time; new items are plain inserts of `C`
/// ([`Repo::insert`](crate::Repo::insert)).
pub struct MoveOut<P: Document, C: Document> {
    path: &'static str,
    reference: RefField<C, P::Id, P>,
    _models: PhantomData<fn() -> (P, C)>,
}

impl<P: Document, C: Document> Clone for MoveOut<P, C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P: Document, C: Document> Copy for MoveOut<P, C> {}

impl<P: Document, C: Document> std::fmt::Debug for MoveOut<P, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "MoveOut({}.{} -> {}.{})",
            P::COLLECTION,
            self.path,
            C::COLLECTION,
            self.reference.name()
        )
    }
}

/// How [`MoveOut::run`] moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveOptions {
    /// The most items one batch moves (default 100; at least 1).
    pub batch_size: u32,
    /// The most bytes of children one batch inserts (default 4 MiB). A
    /// batch holds at least one item, whatever its size (an item stored in
    /// a parent is under 16 MiB).
    pub batch_bytes: usize,
    /// Stop after this many batches (default none: run to the end). Run
    /// again to go on.
    pub max_batches: Option<u64>,
    /// A pause after each batch, to bound the load (default none).
    pub pause: Option<Duration>,
}

impl Default for MoveOptions {
    fn default() -> Self {
        MoveOptions {
            batch_size: 100,
            batch_bytes: 4 * 1024 * 1024,
            max_batches: None,
            pause: None,
        }
    }
}

/// Where a move stands, after each batch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MoveProgress {
    /// Items this run moved into children so far.
    pub moved: u64,
    /// Batches this run committed (each one transaction).
    pub batches: u64,
    /// Parents this run left without the array.
    pub emptied: u64,
    /// Whether no parent holds the array any more: false while running,
    /// and at the end of a run stopped by
    /// [`max_batches`](MoveOptions::max_batches).
    pub finished: bool,
}

impl<P: Document, C: Document> MoveOut<P, C> {
    /// The move of the array stored at `path` (its stored name, or a
    /// dotted path) in `P`'s documents into `C`'s collection, each child
    /// pointing at its parent through `reference`, whose sort key is the
    /// items' order (`#[reference(index, to = P, sort(n = desc))]`).
    pub const fn new(path: &'static str, reference: RefField<C, P::Id, P>) -> Self {
        MoveOut {
            path,
            reference,
            _models: PhantomData,
        }
    }

    /// The stored path of the array in the parents.
    pub const fn path(&self) -> &'static str {
        self.path
    }

    /// The children's reference to their parent.
    pub const fn reference(&self) -> RefField<C, P::Id, P> {
        self.reference
    }

    /// The stored name of the items' order field (the reference's sort
    /// key), or why the move cannot keep the items' order.
    fn order_key(&self) -> Result<&'static str> {
        match self.reference.sort() {
            Some((key, _)) => Ok(key),
            None => Err(Error::Model(format!(
                "the reference `{}` of `{}` has no sort key, so the moved items would lose their order: declare it as `#[reference(index, to = {}, sort(<order field> = desc))]`",
                self.reference.name(),
                C::NAME,
                P::NAME
            ))),
        }
    }

    /// Refuses a declaration the move cannot keep its promises with: no
    /// order, or a parent model that still declares the array.
    fn check(&self) -> Result<()> {
        self.order_key()?;
        let top = self.path.split('.').next().unwrap_or(self.path);
        let declared = P::json_schema()
            .get_document("properties")
            .is_ok_and(|p| p.contains_key(top));
        if declared {
            return Err(Error::Model(format!(
                "`{}` still declares `{top}`: the parent model of a move no longer holds the array (its items live in `{}`, read them with `MoveOut::reads`)",
                P::NAME,
                C::COLLECTION
            )));
        }
        // The items are written as they were read, in clear: a child model
        // that encrypts fields takes them through a migration instead.
        if let Some(field) = crate::model::cache::sealed::<C>().first() {
            return Err(Error::Encryption {
                action: "move",
                model: Some(C::NAME),
                field: Some(field.path.clone()),
                key: field.key.clone(),
                reason: "the move writes the items as they are stored, in clear: move them \
                         into an earlier shape of the child without `#[encrypt]`, then \
                         encrypt them with a migration (`migrate_from`); nothing was sent"
                    .to_owned(),
            });
        }
        Ok(())
    }
}
