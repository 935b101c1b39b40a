//! One-to-many by reference from the child: `#[reference(index, to = User,
//! sort(at = desc))]` on `Post::author_id`.
//!
//! [`Repo::children`] pages a parent's children on the index setup created
//! (`{authorId: 1, at: -1}`), newest first, by keyset: each page is one
//! `find` with the parent's id, the sort key bounded by the last one seen,
//! `sort: {at: -1}` and `limit`. That shape leaves the planner one index
//! that serves both the filter and the sort; the plan is
//! `LIMIT > FETCH > IXSCAN(authorId_1_at_-1)` with keys = docs = returned
//! (page 1), nothing is skipped. The first page of a [`Repo`] checks once
//! (`listIndexes`) that the index exists, and refuses with
//! [`Error::MissingIndex`](crate::Error::MissingIndex) rather than scan the collection.
//!
//! Ties on the sort key are broken without a `SORT` stage: sorting on
//! `{at: -1, _id: -1}` would need one (the index holds no `_id`), so the
//! page keeps the index order and the [`Cursor`] carries the `_id`s already
//! returned with the last sort value (usually just the last one), which the
//! next page excludes with `$nin`. Pages therefore never repeat nor skip a
//! child, even while children are inserted between reads.
//!
//! ```no_run
//! # use schema_core::prelude::*;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Document, Serialize, Deserialize, Clone)]
//! # #[document(collection = "users")]
//! # struct User { #[serde(rename = "_id")] id: String }
//! # #[derive(Document, Serialize, Deserialize)]
//! # #[serde(rename_all = "camelCase")]
//! # #[document(collection = "posts")]
//! # struct Post {
//! #     #[serde(rename = "_id")]
//! #     id: String,
//! #     #[reference(index, to = User, sort(at = desc))]
//! #     author_id: String,
//! #     at: bson::DateTime,
//! # }
//! # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
//! let posts = Repo::<Post>::new(&db);
//! let users = Repo::<User>::new(&db);
//! let author = "user_42".to_owned();
//! let mut page = posts.children(Post::FIELDS.author_id, &author).page_size(10).page().await?;
//! let authors = users.parents_of(Post::FIELDS.author_id, &page.items).await?; // one `$in`
//! while let Some(next) = page.next.take() {
//!     page = posts.children(Post::FIELDS.author_id, &author).page_size(10).after(next).page().await?;
//! }
//! # Ok(())
//! # }
//! ```

use bson::{doc, Bson, Document as BsonDocument, RawDocument, RawDocumentBuf};
use mongodb::options::Hint;
use mongodb::ClientSession;
use serde::{Deserialize, Serialize};

use crate::codec::{field_error, id_to_bson};
use crate::error::Result;
use crate::explain::{explain_find, FindShape, PlanSummary};
use crate::field::RefField;
use crate::index::Direction;
use crate::model::Document;
use crate::repo::Repo;

/// The default number of children per page.
pub const DEFAULT_PAGE_SIZE: u32 = 20;

/// One page of children and where the next one starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<M> {
    /// The children, in page order.
    pub items: Vec<M>,
    /// Where the next page starts; `None` when this page was not full (the
    /// last page may also be full, then the next one is empty).
    pub next: Option<Cursor>,
}

/// Where a page ended: the last sort value and `_id`, never an offset.
///
/// Serializable, so it can travel to a client and back (e.g. as extended
/// JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cursor {
    /// The sort key of the last child returned (its `_id` when the reference
    /// has no sort key).
    pub last: Bson,
    /// The `_id` of the last child returned.
    pub id: Bson,
    /// The `_id`s of earlier children returned with the same sort key as the
    /// last one (usually none).
    pub ties: Vec<Bson>,
}

impl<C: Document> Repo<C> {
    /// The children of `parent` through the reference `field`, to page,
    /// count or explain.
    pub fn children<T: Serialize, P>(
        &self,
        field: RefField<C, T, P>,
        parent: &T,
    ) -> Children<'_, C, T, P> {
        Children {
            repo: self,
            field,
            parent: bson::to_bson(parent),
            size: DEFAULT_PAGE_SIZE,
            after: None,
            reversed: false,
            hinted: false,
        }
    }

    /// The parent of each child, aligned with `children` (`None` where the
    /// parent does not exist): one `find` with `$in` on the distinct parent
    /// ids, never one query per child.
    pub async fn parents_of<M: Document, T>(
        &self,
        field: RefField<M, T, C>,
        children: &[M],
    ) -> Result<Vec<Option<C>>>
    where
        C: Clone,
    {
        self.parents_opt(None, field, children).await
    }

    /// [`parents_of`](Self::parents_of) in the caller's session.
    pub async fn parents_of_in<M: Document, T>(
        &self,
        session: &mut ClientSession,
        field: RefField<M, T, C>,
        children: &[M],
    ) -> Result<Vec<Option<C>>>
    where
        C: Clone,
    {
        self.parents_opt(Some(session), field, children).await
    }

    async fn parents_opt<M: Document, T>(
        &self,
        session: Option<&mut ClientSession>,
        field: RefField<M, T, C>,
        children: &[M],
    ) -> Result<Vec<Option<C>>>
    where
        C: Clone,
    {
        let mut refs = Vec::with_capacity(children.len());
        for child in children {
            let raw = bson::to_raw_document_buf(child)
                .map_err(|source| crate::codec::serialize_error(M::NAME, child, source))?;
            refs.push(raw_path(&raw, field.name()));
        }
        // Pages are small: linear scans beat hashing here.
        let mut distinct: Vec<&Bson> = Vec::new();
        for r in &refs {
            if !matches!(r, Bson::Null) && !distinct.contains(&r) {
                distinct.push(r);
            }
        }
        let parents = if distinct.is_empty() {
            Vec::new()
        } else {
            let ids: Vec<Bson> = distinct.into_iter().cloned().collect();
            self.find_opt(session, doc! { "_id": { "$in": ids } })
                .await?
        };
        let ids = parents
            .iter()
            .map(|p| id_to_bson::<C>(p.id()))
            .collect::<Result<Vec<Bson>>>()?;
        Ok(refs
            .iter()
            .map(|r| {
                ids.iter()
                    .position(|id| id == r)
                    .map(|i| parents[i].clone())
            })
            .collect())
    }
}

/// The value at a dotted path of a raw document.
fn raw_path(doc: &RawDocument, dotted: &str) -> Bson {
    let mut parts = dotted.split('.');
    let mut current = doc;
    let mut last = parts.next().unwrap_or("");
    for part in parts {
        match current.get_document(last) {
            Ok(inner) => current = inner,
            Err(_) => return Bson::Null,
        }
        last = part;
    }
    match current.get(last) {
        Ok(Some(value)) => Bson::try_from(value).unwrap_or(Bson::Null),
        _ => Bson::Null,
    }
}

/// Whether a stored `M` may lack `key` or hold null there, as its validator
/// says (not required, or typed null too, or not typed at all).
fn may_be_null<M: Document>(key: &str) -> bool {
    let schema = M::json_schema();
    let required = schema
        .get_array("required")
        .is_ok_and(|r| r.iter().any(|k| k.as_str() == Some(key)));
    let property = schema
        .get_document("properties")
        .ok()
        .and_then(|p| p.get_document(key).ok());
    let typed_not_null = match property.and_then(|p| p.get("bsonType")) {
        Some(Bson::String(t)) => t != "null",
        Some(Bson::Array(types)) => !types.iter().any(|t| t.as_str() == Some("null")),
        _ => false,
    };
    !(required && typed_not_null)
}

/// The children of one parent (see the module docs).
pub struct Children<'r, C: Document, T, P> {
    repo: &'r Repo<C>,
    field: RefField<C, T, P>,
    /// The parent's id as BSON, or why it has none (returned by every query).
    parent: std::result::Result<Bson, bson::ser::Error>,
    size: u32,
    after: Option<Cursor>,
    reversed: bool,
    hinted: bool,
}

impl<C: Document, T, P> Clone for Children<'_, C, T, P> {
    fn clone(&self) -> Self {
        Children {
            repo: self.repo,
            field: self.field,
            parent: self.parent.clone(),
            size: self.size,
            after: self.after.clone(),
            reversed: self.reversed,
            hinted: self.hinted,
        }
    }
}

impl<C: Document, T, P> Children<'_, C, T, P> {
    /// Children per page (default [`DEFAULT_PAGE_SIZE`]; at least 1).
    pub fn page_size(mut self, size: u32) -> Self {
        self.size = size.max(1);
        self
    }

    /// Starts after the page that returned `cursor`.
    pub fn after(mut self, cursor: Cursor) -> Self {
        self.after = Some(cursor);
        self
    }

    /// Pages against the index's direction (oldest first for `sort(at = desc)`).
    /// Still an index scan, backwards.
    pub fn reversed(mut self) -> Self {
        self.reversed = !self.reversed;
        self
    }

    /// Also sends the index as a `hint`. Off by default: the query's shape
    /// (equality on the reference, sort on the index's second key) already
    /// makes the planner pick it, the index's presence is checked once per
    /// repository, and some servers charge for resolving a hint.
    pub fn hinted(mut self) -> Self {
        self.hinted = true;
        self
    }

    /// The sort key and its direction for this page; `_id` when the
    /// reference has none.
    fn order(&self) -> (&'static str, Direction) {
        let (key, dir) = self.field.sort().unwrap_or(("_id", Direction::Asc));
        let dir = match (dir, self.reversed) {
            (d, false) => d,
            (Direction::Asc, true) => Direction::Desc,
            (Direction::Desc, true) => Direction::Asc,
        };
        (key, dir)
    }

    /// The index the reference declared (as setup creates it): its key
    /// document, found among the model's indexes, else as the derive names it.
    fn index_keys(&self) -> BsonDocument {
        let mut keys = vec![(self.field.name().to_owned(), Direction::Asc)];
        if let Some((sort, dir)) = self.field.sort() {
            keys.push((sort.to_owned(), dir));
        }
        C::indexes()
            .into_iter()
            .find(|spec| spec.keys == keys)
            .map(|spec| spec.key_document())
            .unwrap_or_else(|| {
                keys.iter()
                    .map(|(k, d)| (k.clone(), Bson::Int32(d.as_i32())))
                    .collect()
            })
    }

    /// The filter of the parent's children (for counting); an
    /// [`Error::Serialize`](crate::Error::Serialize) when the parent's id has no BSON form.
    fn parent_filter(&self) -> Result<BsonDocument> {
        let parent = match &self.parent {
            Ok(parent) => parent.clone(),
            Err(e) => return Err(field_error(C::NAME, self.field.name(), e.clone())),
        };
        Ok(doc! { self.field.name(): parent })
    }

    /// The page query: filter, sort, limit (and hint, if
    /// [`hinted`](Self::hinted)); an [`Error::Serialize`](crate::Error::Serialize) naming the
    /// reference when the parent's id has no BSON form.
    pub fn shape(&self) -> Result<FindShape> {
        let (key, dir) = self.order();
        let mut filter = self.parent_filter()?;
        if let Some(cursor) = &self.after {
            // Children whose sort key is null or missing sort before every
            // value: last when newest first, first when oldest first. A
            // range on a value never matches them, so when the model lets
            // the key be null a descending page asks for "not greater" (null
            // included, still one index scan), and an ascending page after a
            // null asks for everything not yet seen.
            let last = cursor.last.clone();
            let bound = match (dir, key == "_id") {
                (Direction::Desc, true) => Some(doc! { "$lt": last }),
                (Direction::Asc, true) => Some(doc! { "$gt": last }),
                (Direction::Desc, false) if last != Bson::Null && may_be_null::<C>(key) => {
                    Some(doc! { "$not": { "$gt": last } })
                }
                (Direction::Desc, false) => Some(doc! { "$lte": last }),
                (Direction::Asc, false) if last == Bson::Null => None,
                (Direction::Asc, false) => Some(doc! { "$gte": last }),
            };
            if let Some(bound) = bound {
                filter.insert(key, bound);
            }
            if key != "_id" {
                let mut seen = cursor.ties.clone();
                seen.push(cursor.id.clone());
                filter.insert("_id", doc! { "$nin": seen });
            }
        }
        Ok(FindShape {
            filter,
            sort: Some(doc! { key: dir.as_i32() }),
            limit: Some(i64::from(self.size)),
            projection: None,
            hint: self.hinted.then(|| Bson::Document(self.index_keys())),
        })
    }

    /// One page: one `find` (the driver adds no `getMore`: the page fits its
    /// first batch).
    pub async fn page(&self) -> Result<Page<C>> {
        self.page_opt(None).await
    }

    /// [`page`](Self::page) in the caller's session.
    pub async fn page_in(&self, session: &mut ClientSession) -> Result<Page<C>> {
        self.page_opt(Some(session)).await
    }

    async fn page_opt(&self, session: Option<&mut ClientSession>) -> Result<Page<C>> {
        self.repo
            .require_index(
                (self.field.name(), self.field.sort().map(|(k, _)| k)),
                || self.index_keys(),
            )
            .await?;
        let shape = self.shape()?;
        let raw = self.repo.collection().clone_with_type::<RawDocumentBuf>();
        let mut action = raw
            .find(shape.filter)
            .sort(shape.sort.unwrap_or_default())
            .limit(i64::from(self.size))
            .batch_size(self.size);
        if self.hinted {
            action = action.hint(Hint::Keys(self.index_keys()));
        }
        let docs: Vec<RawDocumentBuf> = crate::cursor::collect(action, session)
            .await
            .map_err(|e| self.repo.err(e, "page through"))?;
        self.to_page(docs)
    }

    fn to_page(&self, docs: Vec<RawDocumentBuf>) -> Result<Page<C>> {
        let items = docs
            .iter()
            .map(|raw| crate::codec::decode::<C>(raw))
            .collect::<Result<Vec<C>>>()?;
        let next = if docs.len() >= self.size as usize {
            self.next_cursor(&docs)
        } else {
            None
        };
        Ok(Page { items, next })
    }

    /// The cursor after a full page: the last child's sort value and `_id`,
    /// and the `_id`s of the children before it with the same sort value
    /// (read from the end, so usually only the last child is looked at).
    fn next_cursor(&self, docs: &[RawDocumentBuf]) -> Option<Cursor> {
        let (key, _) = self.order();
        let last_doc = docs.last()?;
        let last = raw_path(last_doc, key);
        let id = raw_path(last_doc, "_id");
        if key == "_id" {
            return Some(Cursor {
                last,
                id,
                ties: Vec::new(),
            });
        }
        let mut ties = Vec::new();
        let mut whole_page_tied = true;
        for doc in docs.iter().rev().skip(1) {
            if raw_path(doc, key) != last {
                whole_page_tied = false;
                break;
            }
            ties.push(raw_path(doc, "_id"));
        }
        ties.reverse();
        // A run of equal sort values that started on an earlier page.
        if whole_page_tied {
            if let Some(prev) = self.after.as_ref().filter(|p| p.last == last) {
                let mut earlier = prev.ties.clone();
                earlier.push(prev.id.clone());
                earlier.extend(ties);
                ties = earlier;
            }
        }
        Some(Cursor { last, id, ties })
    }

    /// How many children the parent has: one `aggregate` (`countDocuments`),
    /// a `COUNT_SCAN` on the reference index.
    pub async fn count(&self) -> Result<u64> {
        self.repo.count_opt(None, self.parent_filter()?).await
    }

    /// [`count`](Self::count) in the caller's session.
    pub async fn count_in(&self, session: &mut ClientSession) -> Result<u64> {
        self.repo
            .count_opt(Some(session), self.parent_filter()?)
            .await
    }

    /// What the server does for this page: `explain` with `executionStats`.
    pub async fn explain(&self) -> Result<PlanSummary> {
        self.repo
            .require_index(
                (self.field.name(), self.field.sort().map(|(k, _)| k)),
                || self.index_keys(),
            )
            .await?;
        explain_find(self.repo.database(), C::COLLECTION, &self.shape()?).await
    }
}
