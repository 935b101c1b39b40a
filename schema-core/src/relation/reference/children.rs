//! The children of one parent through a reference: [`Children`], its
//! pages in the reference index's order, its count and its plan (see the
//! [module docs](super)), and [`Repo::children`] that starts it.

use bson::{doc, Bson, Document as BsonDocument, RawDocument};
use mongodb::options::Hint;
use mongodb::ClientSession;
use serde::Serialize;

use crate::error::Result;
use crate::exec::action::Action;
use crate::model::codec::field_error;
use crate::model::index::{Direction, IndexOrigin};
use crate::model::Document;
use crate::query::explain::{explain_find, FindShape, PlanSummary};
use crate::query::kept::Kept;
use crate::query::keyset::{may_be_null, Cursor, Keyset, Page};
use crate::query::lookup::{child_of, Lookup, PageStep};
use crate::repo::Repo;
use crate::typed::field::RefField;

/// The default number of children per page.
pub const DEFAULT_PAGE_SIZE: u32 = 20;

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
            parent: bson::serialize_to_bson(parent),
            size: DEFAULT_PAGE_SIZE,
            after: None,
            reversed: false,
            hinted: false,
        }
    }
}

/// The children of one parent (see the module docs).
pub struct Children<'r, C: Document, T, P> {
    repo: &'r Repo<C>,
    field: RefField<C, T, P>,
    /// The parent's id as BSON, or why it has none (returned by every query).
    parent: std::result::Result<Bson, bson::error::Error>,
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

impl<'r, C: Document, T, P> Children<'r, C, T, P> {
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
    /// (equality on the reference, sort on the index's other keys) already
    /// makes the planner pick it, the index's presence is checked once per
    /// repository, and some servers charge for resolving a hint.
    pub fn hinted(mut self) -> Self {
        self.hinted = true;
        self
    }

    /// The sort key and its direction for this page (`_id` when the
    /// reference has none), and whether `_id` orders its ties.
    fn order(&self) -> Order {
        let (key, dir) = self.field.sort().unwrap_or(("_id", Direction::Asc));
        let dir = match (dir, self.reversed) {
            (d, false) => d,
            (Direction::Asc, true) => Direction::Desc,
            (Direction::Desc, true) => Direction::Asc,
        };
        let tie_break = key != "_id" && self.index_ends_with_id();
        Order {
            key,
            dir,
            tie_break,
        }
    }

    /// The keys of the index the reference declared (as setup creates it),
    /// found among the model's indexes, else as the derive makes them:
    /// the reference, its sort key, then `_id` in the sort key's direction.
    fn index(&self) -> Vec<(String, Direction)> {
        let mut keys = vec![(self.field.name().to_owned(), Direction::Asc)];
        if let Some((sort, dir)) = self.field.sort() {
            keys.push((sort.to_owned(), dir));
        }
        let declared = crate::model::cache::indexes::<C>().iter().find(|spec| {
            matches!(spec.origin, IndexOrigin::Reference(_))
                && spec.keys.starts_with(&keys)
                && match &spec.keys[keys.len()..] {
                    [] => true,
                    [(id, _)] => id == "_id",
                    _ => false,
                }
        });
        match declared {
            Some(spec) => spec.keys.clone(),
            None => {
                if keys.iter().all(|(k, _)| k != "_id") {
                    let dir = keys.last().map_or(Direction::Asc, |(_, d)| *d);
                    keys.push(("_id".to_owned(), dir));
                }
                keys
            }
        }
    }

    /// Whether [`index`](Self::index) ends with `_id`, found without
    /// building it (a page asks on every call).
    fn index_ends_with_id(&self) -> bool {
        let sort = self.field.sort();
        let declared = crate::model::cache::indexes::<C>().iter().find(|spec| {
            let (first, rest) = match spec.keys.split_first() {
                Some(split) => split,
                None => return false,
            };
            let rest = match (sort, rest) {
                (Some((key, dir)), [(k, d), rest @ ..]) if k == key && *d == dir => rest,
                (Some(_), _) => return false,
                (None, rest) => rest,
            };
            matches!(spec.origin, IndexOrigin::Reference(_))
                && first.0 == self.field.name()
                && first.1 == Direction::Asc
                && matches!(rest, [] | [(_, _)] if rest.iter().all(|(id, _)| id == "_id"))
        });
        match declared {
            Some(spec) => spec.keys.last().is_some_and(|(k, _)| k == "_id"),
            // The derive's own: the reference, its sort key, then `_id`.
            None => true,
        }
    }

    /// The index's key document, e.g. `{authorId: 1, at: -1, _id: -1}`.
    fn index_keys(&self) -> BsonDocument {
        self.index()
            .iter()
            .map(|(k, d)| (k.clone(), Bson::Int32(d.as_i32())))
            .collect()
    }

    /// The filter of the parent's children (for counting); an
    /// [`Error::Serialize`](crate::Error::Serialize) when the parent's id has no BSON form.
    fn parent_filter(&self) -> Result<BsonDocument> {
        Ok(doc! { self.field.name(): self.parent_id()? })
    }

    /// A page query with `filter`: the order's sort, the page's limit (and
    /// the hint, if [`hinted`](Self::hinted)).
    fn find(&self, order: &Order, filter: BsonDocument) -> FindShape {
        let mut sort = doc! { order.key: order.dir.as_i32() };
        if order.tie_break {
            sort.insert("_id", order.dir.as_i32());
        }
        FindShape {
            filter,
            sort: Some(sort),
            limit: Some(i64::from(self.size)),
            projection: None,
            hint: self.hinted.then(|| Bson::Document(self.index_keys())),
            collation: None,
        }
    }

    /// The keyset order of this page (see [`keyset`](crate::query::keyset)).
    fn keyset(order: &Order) -> Keyset {
        let keys = if order.key == "_id" {
            Vec::new()
        } else {
            vec![(order.key.to_owned(), order.dir)]
        };
        Keyset {
            keys,
            id_dir: order.dir,
            tie_break: order.tie_break,
        }
    }

    /// The finds of this page, in page order: a page runs them one after the
    /// other until it is full (see the [module docs](super)).
    fn finds(&self) -> Result<Vec<FindShape>> {
        let order = self.order();
        Ok(self
            .filters(&Self::keyset(&order))?
            .into_iter()
            .map(|filter| self.find(&order, filter))
            .collect())
    }

    /// The filters of this page's finds in `keyset`'s order, in page order.
    fn filters(&self, keyset: &Keyset) -> Result<Vec<BsonDocument>> {
        let parent = self.parent_filter()?;
        Ok(keyset.filters(parent, self.after.as_ref(), may_be_null::<C>))
    }

    /// The page query (its first `find`, when it takes more; see the module
    /// docs): filter, sort, limit (and hint, if [`hinted`](Self::hinted));
    /// an [`Error::Serialize`](crate::Error::Serialize) naming the reference
    /// when the parent's id has no BSON form.
    pub fn shape(&self) -> Result<FindShape> {
        Ok(self.finds()?.swap_remove(0))
    }

    /// One page: usually one `find`; two or three when the page reaches the
    /// end of a run of equal sort values or the null sort keys (the driver
    /// adds no `getMore`: a page fits its first batch).
    pub fn page(&self) -> Action<'r, Page<C>>
    where
        T: 'r,
        P: 'r,
    {
        let this = self.clone();
        Action::new(C::COLLECTION, "page", (), move |s, ()| async move {
            this.page_opt(s).await
        })
    }

    async fn page_opt(&self, session: Option<&mut ClientSession>) -> Result<Page<C>> {
        let mut items = Kept::new(crate::model::cache::may_be_sealed::<C>());
        let next = self
            .page_each(session, None, |raw| {
                items.take(raw, crate::model::codec::decode::<C>)
            })
            .await?;
        let items = items
            .open(async |raw| self.repo.open_one(raw).await)
            .await?;
        Ok(Page { items, next })
    }

    /// Reads one page, handing each document to `each` as it comes (where
    /// it lies in its batch), and returns the cursor after it: each `find`
    /// of the page, or, with `lookup`, each as an `aggregate` joining the
    /// children with their parent (see [`lookup`](crate::query::lookup)).
    pub(crate) async fn page_each(
        &self,
        mut session: Option<&mut ClientSession>,
        lookup: Option<&Lookup>,
        mut each: impl FnMut(&RawDocument) -> Result<()>,
    ) -> Result<Option<Cursor>> {
        self.require_index().await?;
        let order = self.order();
        let keyset = Self::keyset(&order);
        let mut tail = keyset.tail(self.size);
        for filter in self.filters(&keyset)? {
            let short = tail.short();
            if short == 0 {
                break;
            }
            let limit = u32::try_from(short).unwrap_or(self.size);
            let find = self.find(&order, filter);
            self.run(session.as_deref_mut(), find, limit, lookup, |raw| {
                tail.note(lookup.map_or(Ok(raw), |_| child_of(raw))?);
                each(raw)
            })
            .await?;
        }
        Ok(tail.cursor(self.after.as_ref()))
    }

    /// The reference.
    pub(crate) fn field(&self) -> RefField<C, T, P> {
        self.field
    }

    /// The children's repository.
    pub(crate) fn repo(&self) -> &'r Repo<C> {
        self.repo
    }

    /// The parent's id as BSON.
    pub(crate) fn parent_id(&self) -> Result<Bson> {
        match &self.parent {
            Ok(parent) => Ok(parent.clone()),
            Err(e) => Err(field_error(C::NAME, self.field.name(), e.clone())),
        }
    }

    /// The first step of the page (its first `find`, limited to the page
    /// size).
    pub(crate) fn first_step(&self) -> Result<PageStep> {
        Ok(PageStep::of(self.shape()?, self.size))
    }

    pub(crate) async fn require_index(&self) -> Result<()> {
        self.repo
            .require_index(
                (self.field.name(), self.field.sort().map(|(k, _)| k)),
                || self.index_keys(),
            )
            .await
    }

    /// Runs one find of the page with at most `limit` children (joined
    /// with their parent, with `lookup`), handing each to `each`.
    async fn run(
        &self,
        session: Option<&mut ClientSession>,
        shape: FindShape,
        limit: u32,
        lookup: Option<&Lookup>,
        mut each: impl FnMut(&RawDocument) -> Result<()>,
    ) -> Result<()> {
        let raw = self.repo.raw_docs();
        let driver = |e| self.repo.err(e, "page through");
        match lookup {
            Some(lookup) => {
                let step = PageStep::of(shape, limit);
                let joined = lookup.run(&raw, session, step).await.map_err(driver)?;
                joined.iter().try_for_each(|doc| each(doc))
            }
            None => {
                let mut action = raw
                    .find(shape.filter)
                    .sort(shape.sort.unwrap_or_default())
                    .limit(i64::from(limit))
                    .batch_size(limit);
                if let Some(Bson::Document(hint)) = shape.hint {
                    action = action.hint(Hint::Keys(hint));
                }
                crate::exec::cursor::each_raw(action, session, each, driver).await
            }
        }
    }

    /// How many children the parent has: one `aggregate` (`countDocuments`),
    /// a `COUNT_SCAN` on the reference index.
    pub fn count(&self) -> Action<'r, u64> {
        let (repo, filter) = (self.repo, self.parent_filter());
        Action::new(
            C::COLLECTION,
            "count_children",
            (),
            move |s, ()| async move {
                repo.count_opt(s, filter?, None, |e| repo.err(e, "count in"))
                    .await
            },
        )
    }

    /// What the server does for this page: `explain` with `executionStats`
    /// of its find, or of each find the page runs, summed (see
    /// [`PlanSummary::then`]).
    pub async fn explain(&self) -> Result<PlanSummary> {
        self.require_index().await?;
        let db = self.repo.database();
        let mut finds = self.finds()?.into_iter();
        let first = finds.next().unwrap_or_default();
        let mut summary = explain_find(db, C::COLLECTION, &first).await?;
        for mut find in finds {
            let short = u64::from(self.size).saturating_sub(summary.returned);
            if short == 0 {
                break;
            }
            find.limit = Some(i64::try_from(short).unwrap_or(i64::MAX));
            summary = summary.then(explain_find(db, C::COLLECTION, &find).await?);
        }
        Ok(summary)
    }
}

/// How a page orders children (see the [module docs](super)).
struct Order {
    /// The sort key, `_id` when the reference has none.
    key: &'static str,
    /// The page's direction.
    dir: Direction,
    /// `_id` follows the key in the index and in the sort.
    tie_break: bool,
}
