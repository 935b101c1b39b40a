//! Joins in one round trip (seed 003's `$lookup`), on the indexes the model
//! declares: a page of children with the parent each references, and a
//! parent with its newest children.
//!
//! - [`Find::with_parents`]: a page of any guarded query of the children,
//!   each child paired with its parent (`None` where the parent does not
//!   exist). One `aggregate` instead of [`Find::page`] then
//!   [`Repo::parents_of`](crate::Repo::parents_of).
//! - [`Children::with_parent`]: a parent's children through its
//!   `#[reference(index)]`, newest first (the reference's order), with the
//!   parent: a [`Family`]. One `aggregate`; a parent with no children
//!   takes one more query, `_id` equality, to read the parent itself.
//!
//! **The index guard covers both sides.** The children's side is the
//! page's own query: the guard checks it as it checks [`Find::page`] (a
//! query no declared index serves is [`Error::Unindexed`],
//! nothing sent), and the server must list its index (the reference's, for
//! [`Children`]). The parents' side is an equality on the parent's `_id`,
//! which the `_id` index serves. [`WithParents::explain`] and
//! [`WithParent::explain`] show both plans (see [`JoinPlan`]).
//!
//! **Paging** is the page's own keyset: the [`Cursor`] returned continues
//! with [`Find::after`] (before `with_parents`) or [`Children::after`]
//! (before `with_parent`), exactly as the pages without the join.
//!
//! The pipeline sent, for a page of `n`:
//!
//! ```text
//! [{$match: <page filter>}, {$sort: <page order>}, {$limit: n},
//!  {$replaceRoot: {newRoot: {child: "$$ROOT"}}},
//!  {$lookup: {from: <parents>, localField: "child.<reference>",
//!             foreignField: "_id", as: "parent"}}]
//! ```
//!
//! The child travels under `child` (so a model that refuses unknown fields
//! still decodes) and its parent under `parent`; each result document can
//! reach a child's and a parent's size together, and the server refuses one
//! over 16 MiB. The form without a `pipeline` is used on purpose: on the
//! test server (and on MongoDB before 5.0) a `$lookup` with a `pipeline`
//! runs it over the whole foreign collection.
//!
//! ```no_run
//! # use schema_core::prelude::*;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Document, Serialize, Deserialize, Clone)]
//! # #[document(collection = "users")]
//! # struct User { #[serde(rename = "_id")] id: String, name: String }
//! # #[derive(Document, Serialize, Deserialize)]
//! # #[serde(rename_all = "camelCase")]
//! # #[document(collection = "posts")]
//! # struct Post {
//! #     #[serde(rename = "_id")]
//! #     id: String,
//! #     #[reference(index, to = User, sort(at = desc))]
//! #     author_id: String,
//! #     at: i64,
//! # }
//! # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
//! let posts = Repo::<Post>::new(&db);
//! let ada = "ada".to_owned();
//!
//! // A parent and its newest 10 children, one aggregate.
//! let family = posts.children(Post::FIELDS.author_id, &ada).page_size(10).with_parent().page().await?;
//! if let Some(user) = &family.parent {
//!     println!("{} wrote {} posts on this page", user.name, family.children.len());
//! }
//!
//! // A page of children, each with its parent, one aggregate.
//! let page = posts
//!     .find(Post::FIELDS.author_id.eq(&ada))
//!     .sort(Post::FIELDS.at.desc())
//!     .with_parents(Post::FIELDS.author_id)
//!     .page(20)
//!     .await?;
//! for (post, author) in &page.items {
//!     println!("{} by {:?}", post.id, author.as_ref().map(|u| &u.name));
//! }
//! # Ok(())
//! # }
//! ```

use std::marker::PhantomData;

use bson::{doc, RawDocument, RawDocumentBuf};
use mongodb::ClientSession;

use crate::error::{Error, Result};
use crate::exec::action::Action;
use crate::model::codec::decode;
use crate::model::Document;
use crate::query::kept::Kept;
use crate::query::lookup::{child_of, parent_of, Lookup};
use crate::query::{Cursor, Find, Page};
use crate::relation::reference::Children;
use crate::repo::Repo;
use crate::typed::field::RefField;

pub use crate::query::lookup::JoinPlan;

/// The `$lookup` of a reference: its parents' collection, by `_id`.
fn lookup_of<C, T, P: Document>(field: &RefField<C, T, P>) -> Lookup {
    Lookup {
        from: P::COLLECTION,
        local: field.name(),
    }
}

/// Decodes a joined document into its (child, parent) pair.
fn pair<C: Document, P: Document>(joined: &RawDocument) -> Result<(C, Option<P>)> {
    let child = decode::<C>(child_of(joined)?)?;
    let parent = parent_of(joined)?.map(decode::<P>).transpose()?;
    Ok((child, parent))
}

/// Decodes a joined document's child alone (its parent already read).
fn child_alone<C: Document, P>(joined: &RawDocument) -> Result<(C, Option<P>)> {
    Ok((decode::<C>(child_of(joined)?)?, None))
}

/// Whether a joined document may hold ciphertext, on either side.
fn may_be_sealed<C: Document, P: Document>() -> bool {
    crate::model::cache::may_be_sealed::<C>() || crate::model::cache::may_be_sealed::<P>()
}

/// A joined document read into its (child, parent) pair, the encrypted
/// fields of both decrypted with the children's repository's handle.
/// With `parent` false, the child alone.
async fn open_pair<C: Document, P: Document>(
    repo: &Repo<C>,
    joined: RawDocumentBuf,
    parent: bool,
) -> Result<(C, Option<P>)> {
    let child = repo.open_as::<C>(child_of(&joined)?.to_owned()).await?;
    let parent = match parent_of(&joined)?.filter(|_| parent) {
        Some(parent) => Some(repo.open_as::<P>(parent.to_owned()).await?),
        None => None,
    };
    Ok((child, parent))
}

impl<'a, C: Document> Find<'a, C> {
    /// Joins each document of a page with the parent its reference `field`
    /// points at, in one `aggregate` (see the module docs).
    pub fn with_parents<T, P: Document>(self, field: RefField<C, T, P>) -> WithParents<'a, C, P> {
        WithParents {
            lookup: lookup_of(&field),
            find: self,
            _parent: PhantomData,
        }
    }
}

/// A page of children joined with their parents (see
/// [`Find::with_parents`]).
#[must_use = "a query does nothing until it is awaited"]
pub struct WithParents<'a, C: Document, P> {
    find: Find<'a, C>,
    lookup: Lookup,
    _parent: PhantomData<fn() -> P>,
}

impl<'a, C: Document, P: Document> WithParents<'a, C, P> {
    /// One page of at most `size` children in the query's order, each with
    /// its parent, and the [`Cursor`] the next page continues
    /// [`after`](Find::after): usually one `aggregate` (one per `find` the
    /// same page would send without the join; see
    /// `keyset`).
    pub fn page(self, size: u32) -> Action<'a, Page<(C, Option<P>)>> {
        let (mut find, lookup) = (self.find, self.lookup);
        let session = find.take_session();
        let action = Action::new(
            C::COLLECTION,
            "page_with_parents",
            (),
            move |s, ()| async move {
                let repo = find.repo();
                let mut items = Kept::new(may_be_sealed::<C, P>());
                let next = find
                    .page_each(s, size.max(1), Some(&lookup), |joined| {
                        items.take(joined, pair::<C, P>)
                    })
                    .await?;
                let items = items.open(|joined| open_pair(repo, joined, true)).await?;
                Ok(Page { items, next })
            },
        );
        crate::query::with_session(action, session)
    }

    /// What the server does for the first `aggregate` of a page of `size`
    /// (after the same index guard): both sides' plans (see [`JoinPlan`]).
    pub async fn explain(self, size: u32) -> Result<JoinPlan> {
        let (find, lookup) = (self.find, self.lookup);
        let db = find.database().clone();
        let step = find.first_step(size.max(1)).await?;
        lookup.explain(&db, C::COLLECTION, step).await
    }
}

impl<'r, C: Document, T, P: Document> Children<'r, C, T, P> {
    /// This page of children with their parent, in one `aggregate` (see the
    /// module docs).
    pub fn with_parent(self) -> WithParent<'r, C, T, P> {
        WithParent { children: self }
    }
}

/// A parent with a page of its children (see [`Children::with_parent`]).
#[must_use = "a query does nothing until it is awaited"]
pub struct WithParent<'r, C: Document, T, P> {
    children: Children<'r, C, T, P>,
}

/// A parent and a page of its children (see [`Children::with_parent`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Family<P, C> {
    /// The parent; `None` when no document of its collection has the id.
    pub parent: Option<P>,
    /// The children, in the reference's order (newest first for
    /// `sort(at = desc)`), at most the page size.
    pub children: Vec<C>,
    /// Where the next page of children starts
    /// ([`Children::after`]); `None` when this page was not full.
    pub next: Option<Cursor>,
}

impl<'r, C: Document, T: 'r, P: Document> WithParent<'r, C, T, P> {
    /// The parent and one page of its children: one `aggregate`, and a
    /// second query (the parent by `_id`) only when the page has no
    /// children.
    pub fn page(self) -> Action<'r, Family<P, C>> {
        let children = self.children;
        Action::new(C::COLLECTION, "page_with_parent", (), move |s, ()| {
            children.family(s)
        })
    }

    /// What the server does for the page's first `aggregate`: both sides'
    /// plans (see [`JoinPlan`]).
    pub async fn explain(self) -> Result<JoinPlan> {
        let children = self.children;
        children.require_index().await?;
        let step = children.first_step()?;
        let lookup = children.lookup();
        lookup
            .explain(children.repo().database(), C::COLLECTION, step)
            .await
    }
}

impl<'r, C: Document, T, P: Document> Children<'r, C, T, P> {
    fn lookup(&self) -> Lookup {
        lookup_of(&self.field())
    }

    async fn family(self, mut session: Option<&mut ClientSession>) -> Result<Family<P, C>> {
        let lookup = self.lookup();
        // The parent is read from the first joined document (every one
        // holds it).
        let mut pairs = Kept::new(may_be_sealed::<C, P>());
        let mut first = true;
        let next = self
            .page_each(session.as_deref_mut(), Some(&lookup), |joined| {
                let read = if std::mem::take(&mut first) {
                    pair::<C, P>
                } else {
                    child_alone::<C, P>
                };
                pairs.take(joined, read)
            })
            .await?;
        let (repo, mut first) = (self.repo(), true);
        let pairs = pairs
            .open(|joined| open_pair(repo, joined, std::mem::take(&mut first)))
            .await?;
        let mut parent = None;
        let mut children = Vec::with_capacity(pairs.len());
        for (child, its_parent) in pairs {
            children.push(child);
            parent = parent.or(its_parent);
        }
        if children.is_empty() {
            parent = self.parent_alone(session).await?;
        }
        Ok(Family {
            parent,
            children,
            next,
        })
    }

    /// The parent by `_id`, for a page without children.
    async fn parent_alone(&self, session: Option<&mut ClientSession>) -> Result<Option<P>> {
        let id = self.parent_id()?;
        let parents = self
            .repo()
            .database()
            .collection::<RawDocumentBuf>(P::COLLECTION);
        let find = parents.find_one(doc! { "_id": id });
        let found = crate::txn::with_session!(find, session)
            .map_err(|e| Error::from_server(e, "find in", P::COLLECTION))?;
        match found {
            Some(raw) => self.repo().open_as::<P>(raw).await.map(Some),
            None => Ok(None),
        }
    }
}
