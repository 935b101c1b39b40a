//! Reading a parent's items: the newest `k`, and pages of them newest first
//! ([`BucketItems`], a [`Page`](crate::Page) of items, [`BucketCursor`]).

use super::*;

impl<M: Bucket> Buckets<M> {
    /// The items of `parent`, paged (newest first unless told
    /// [`oldest_first`](BucketItems::oldest_first)).
    pub fn items<'a>(&'a self, parent: &'a M::Parent) -> BucketItems<'a, M> {
        BucketItems {
            buckets: self,
            parent,
            order: Order::NewestFirst,
            after: None,
        }
    }

    /// The newest `k` items of `parent`, newest first: one `find` of
    /// `ceil(k / max) + 1` buckets on the `(parent, seq)` index.
    pub fn newest<'a>(&'a self, parent: &'a M::Parent, k: u32) -> Action<'a, Vec<M::Item>> {
        Action::new(
            M::COLLECTION,
            "bucket_newest",
            (),
            move |s, ()| async move {
                let page = self.items(parent).page_opt(s, k).await?;
                Ok(page.items)
            },
        )
    }
}

/// Where a page of items ended: the bucket's `seq` and the item's place in
/// it (0 for its oldest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BucketCursor {
    /// The bucket of the page's last item.
    pub seq: i64,
    /// The item's place in that bucket's array.
    pub index: u32,
}

/// A page of a parent's items (see [`Buckets::items`]).
#[must_use = "a query does nothing until it is awaited"]
pub struct BucketItems<'a, M: Bucket> {
    buckets: &'a Buckets<M>,
    parent: &'a M::Parent,
    order: Order,
    after: Option<BucketCursor>,
}

impl<'a, M: Bucket> BucketItems<'a, M> {
    /// Oldest items first (the default is newest first).
    pub fn oldest_first(mut self) -> Self {
        self.order = Order::OldestFirst;
        self
    }

    /// The items after `cursor` (the `next` of the page before, in the same
    /// order).
    pub fn after(mut self, cursor: BucketCursor) -> Self {
        self.after = Some(cursor);
        self
    }

    /// One page of at most `size` items: one `find` of `ceil(size / max) + 1`
    /// buckets on the `(parent, seq)` index (more only when buckets hold
    /// fewer items than `max`, after a trim).
    pub fn page(self, size: u32) -> Action<'a, Page<M::Item, BucketCursor>> {
        Action::new(M::COLLECTION, "bucket_page", (), move |s, ()| {
            self.page_opt(s, size)
        })
    }

    /// What the server does for the page's first `find` (`explain` with
    /// `executionStats`): the buckets it reads, on the `(parent, seq)` index.
    pub async fn explain(self, size: u32) -> Result<PlanSummary> {
        let spec = M::BUCKET;
        let parent = self.buckets.parent_bson(self.parent)?;
        let (dir, from) = match self.order {
            Order::NewestFirst => (-1, "$lte"),
            Order::OldestFirst => (1, "$gte"),
        };
        let mut filter = doc! { spec.parent: parent };
        if let Some(at) = self.after {
            filter.insert(spec.seq, doc! { from: spec.seq_value(at.seq) });
        }
        let shape = FindShape {
            filter,
            sort: Some(doc! { spec.seq: dir }),
            limit: Some(i64::from(size.div_ceil(spec.max.max(1)).saturating_add(1))),
            projection: Some(doc! { spec.seq: 1, spec.items: 1, "_id": 0 }),
            hint: None,
            collation: None,
        };
        explain_find(self.buckets.repo.database(), M::COLLECTION, &shape).await
    }

    async fn page_opt(
        self,
        mut session: Option<&mut ClientSession>,
        size: u32,
    ) -> Result<Page<M::Item, BucketCursor>> {
        let spec = M::BUCKET;
        let parent = self.buckets.parent_bson(self.parent)?;
        self.buckets.require_index().await?;
        let coll = self.buckets.repo.raw();
        let newest_first = self.order == Order::NewestFirst;
        let (dir, from, past) = if newest_first {
            (-1, "$lte", "$lt")
        } else {
            (1, "$gte", "$gt")
        };
        let per_find = i64::from(size.div_ceil(spec.max.max(1)).saturating_add(1));
        let wanted = size as usize;
        let mut items: Vec<(i64, u32, Bson)> = Vec::new();
        // Strictly past this bucket, once a find ran out before the page
        // was full; else from the cursor's bucket (its items past the
        // cursor's place).
        let mut beyond: Option<i64> = None;
        while items.len() < wanted {
            let mut filter = doc! { spec.parent: parent.clone() };
            match (beyond, self.after) {
                (Some(seq), _) => {
                    filter.insert(spec.seq, doc! { past: spec.seq_value(seq) });
                }
                (None, Some(at)) => {
                    filter.insert(spec.seq, doc! { from: spec.seq_value(at.seq) });
                }
                (None, None) => {}
            }
            let find = coll
                .find(filter)
                .sort(doc! { spec.seq: dir })
                .limit(per_find)
                .projection(doc! { spec.seq: 1, spec.items: 1, "_id": 0 });
            let buckets = crate::exec::cursor::collect(find, session.as_deref_mut())
                .await
                .map_err(|e| self.buckets.repo.err(e, "page through"))?;
            let fetched = buckets.len() as i64;
            for bucket in buckets {
                let seq = seq_of(&bucket, spec.seq);
                beyond = Some(seq);
                let Some(Bson::Array(list)) = bucket.get(spec.items) else {
                    continue;
                };
                let places = (0..list.len() as u32).zip(list.iter());
                let places: Vec<(u32, &Bson)> = if newest_first {
                    places.rev().collect()
                } else {
                    places.collect()
                };
                for (index, item) in places {
                    let after_cursor = match self.after {
                        Some(at) if at.seq == seq && newest_first => index < at.index,
                        Some(at) if at.seq == seq => index > at.index,
                        _ => true,
                    };
                    if after_cursor && items.len() < wanted {
                        items.push((seq, index, item.clone()));
                    }
                }
            }
            if fetched < per_find {
                break;
            }
        }
        let next = (wanted > 0 && items.len() >= wanted).then(|| {
            let (seq, index, _) = items[items.len() - 1];
            BucketCursor { seq, index }
        });
        let items = items
            .into_iter()
            .map(|(_, _, item)| {
                bson::deserialize_from_bson::<M::Item>(item).map_err(|source| Error::Decode {
                    model: M::NAME,
                    collection: M::COLLECTION,
                    id: "(a bucket item)".to_owned(),
                    field: Some(spec.items.to_owned()),
                    source: Box::new(source),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Page { items, next })
    }
}
