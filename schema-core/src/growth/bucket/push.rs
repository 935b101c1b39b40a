//! A push into the parent's newest bucket, opening the next bucket when it
//! is full or refused by size; the newest buckets remembered per parent.

use super::*;

impl<M: Bucket> Buckets<M> {
    /// Appends `item` to `parent`'s newest bucket, or to a new one when that
    /// one is full: usually one `update`. Returns the `seq` of the bucket
    /// that took it.
    pub fn push<'a>(&'a self, parent: &'a M::Parent, item: &'a M::Item) -> Action<'a, i64> {
        Action::new(M::COLLECTION, "bucket_push", (), move |s, ()| {
            self.push_opt(s, parent, item)
        })
    }

    async fn push_opt(
        &self,
        mut session: Option<&mut ClientSession>,
        parent: &M::Parent,
        item: &M::Item,
    ) -> Result<i64> {
        let spec = M::BUCKET;
        let parent = self.parent_bson(parent)?;
        let item = value_to_bson(item, M::NAME, spec.items)?;
        // The bucket this item would open, checked against 16 MiB before
        // anything is sent: an item that fits in no bucket is refused here.
        let mut fresh = doc! {
            "_id": ObjectId::new(),
            spec.parent: parent.clone(),
            spec.seq: spec.seq_value(0),
            spec.count: spec.count_value(1),
            spec.items: [item.clone()],
        };
        for field in spec.extras {
            fresh.insert(*field, Bson::Null);
        }
        let raw = bson::RawDocumentBuf::try_from(&fresh).map_err(|e| Error::Serialize {
            model: M::NAME,
            field: Some(spec.items.to_owned()),
            source: Box::new(e),
        })?;
        crate::model::codec::check_size(M::COLLECTION, &raw, || {
            fresh.get("_id").cloned().unwrap_or(Bson::Null)
        })?;
        drop(raw);
        self.require_index().await?;
        let key = crate::model::codec::value_key(&parent);
        let coll = self.repo.raw();
        let push =
            doc! { "$push": { spec.items: item }, "$inc": { spec.count: spec.count_value(1) } };
        let mut remembered = self.remembered(&key);
        // The bucket the server refused the item in by size (10334).
        let mut refused: Option<Bson> = None;
        for _ in 0..TRIES {
            // The remembered bucket, else the newest (and whether it is full).
            let (bucket, full) = match remembered.take() {
                Some(known) => (Some(known), false),
                None => match self.newest_bucket(session.as_deref_mut(), &parent).await? {
                    Some((known, count)) => (Some(known), count >= u64::from(spec.max)),
                    None => (None, true),
                },
            };
            let too_small = bucket
                .as_ref()
                .is_some_and(|b| refused.as_ref() == Some(&b.id));
            if let (Some(bucket), false, false) = (&bucket, full, too_small) {
                let update = coll.update_one(Self::room(&parent, bucket), push.clone());
                match with_session!(update, session.as_deref_mut()) {
                    Ok(done) if done.matched_count == 1 => {
                        self.remember(key, bucket.clone());
                        return Ok(bucket.seq);
                    }
                    // Full, gone or moved by a trim meanwhile: read the
                    // newest bucket.
                    Ok(_) => {}
                    // The item does not fit in what is left of it: read
                    // the newest bucket, and if this is still it, open the
                    // next.
                    Err(e) if crate::error::DriverErrorExt::code(&e) == Some(OBJECT_TOO_LARGE) => {
                        refused = Some(bucket.id.clone());
                    }
                    Err(e) => return Err(self.repo.err(e, "push into")),
                }
                continue;
            }
            // No bucket yet, or the newest is full: open the one after it.
            // Left by size, the newest still has room by count: the new
            // bucket takes the place after the next, and the newest moves up
            // into the next once it is open.
            let (next, close) = match &bucket {
                None => (0, None),
                Some(b) if too_small => (b.seq + 2, Some(b)),
                Some(b) => (b.seq + 1, None),
            };
            fresh.insert(spec.seq, spec.seq_value(next));
            if let Some(opened) = self
                .open(session.as_deref_mut(), &parent, &fresh, close)
                .await?
            {
                self.remember(key, opened.clone());
                return Ok(opened.seq);
            }
        }
        Err(Error::Model(format!(
            "a push into `{}` found no room after {TRIES} tries: other writers kept filling the newest bucket",
            M::COLLECTION
        )))
    }

    /// Inserts `bucket` (a new bucket of `parent` holding the item, at its
    /// `seq`), then moves `close` (the newest bucket, left by size) one
    /// place up, so that no handle that remembers it pushes into it again.
    /// `None` when another writer opened that bucket first, or when a newer
    /// bucket was found above it after the insert (its number was trimmed
    /// away and taken again after this push read the newest bucket): it is
    /// deleted again, as long as it holds only this item (no handle knows
    /// it), and the push starts over.
    async fn open(
        &self,
        mut session: Option<&mut ClientSession>,
        parent: &Bson,
        bucket: &BsonDocument,
        close: Option<&Known>,
    ) -> Result<Option<Known>> {
        let spec = M::BUCKET;
        let coll = self.repo.raw();
        let opened = Known {
            id: bucket.get("_id").cloned().unwrap_or(Bson::Null),
            seq: seq_of(bucket, spec.seq),
        };
        let insert = coll.insert_one(bucket);
        match with_session!(insert, session.as_deref_mut()) {
            Ok(_) => {}
            Err(e) if crate::error::DriverErrorExt::code(&e) == Some(code::DUPLICATE_KEY) => {
                return Ok(None)
            }
            Err(e) => return Err(self.repo.err(e, "push into")),
        }
        if let Some(closed) = close {
            let filter = doc! {
                "_id": closed.id.clone(),
                spec.parent: parent.clone(),
                spec.seq: spec.seq_value(closed.seq),
            };
            let up = doc! { "$set": { spec.seq: spec.seq_value(closed.seq + 1) } };
            for _ in 0..TRIES {
                let update = coll.update_one(filter.clone(), up.clone());
                match with_session!(update, session.as_deref_mut()) {
                    // Moved, or moved or deleted by another writer.
                    Ok(_) => break,
                    // A bucket opened there by a push that read long ago,
                    // which removes it again (it is below this one): again.
                    Err(e)
                        if crate::error::DriverErrorExt::code(&e) == Some(code::DUPLICATE_KEY) => {}
                    Err(e) => return Err(self.repo.err(e, "push into")),
                }
            }
        }
        let newest = self.newest_bucket(session.as_deref_mut(), parent).await?;
        if spec.max > 1 && newest.is_some_and(|(newest, _)| newest.seq > opened.seq) {
            let delete = coll.delete_one(doc! { "_id": opened.id.clone(), spec.count: 1 });
            let deleted =
                with_session!(delete, session).map_err(|e| self.repo.err(e, "push into"))?;
            if deleted.deleted_count == 1 {
                return Ok(None);
            }
        }
        Ok(Some(opened))
    }

    /// `parent`'s newest bucket and its count, `None` when it has none: one
    /// read on the `(parent, seq)` index.
    async fn newest_bucket(
        &self,
        session: Option<&mut ClientSession>,
        parent: &Bson,
    ) -> Result<Option<(Known, u64)>> {
        let spec = M::BUCKET;
        let coll = self.repo.raw();
        let find = coll
            .find_one(doc! { spec.parent: parent.clone() })
            .sort(doc! { spec.seq: -1 })
            .projection(doc! { "_id": 1, spec.seq: 1, spec.count: 1 });
        let found = with_session!(find, session).map_err(|e| self.repo.err(e, "find in"))?;
        Ok(found.and_then(|d| {
            let id = d.get("_id")?.clone();
            let known = Known {
                id,
                seq: seq_of(&d, spec.seq),
            };
            Some((known, count_of(&d, spec.count)))
        }))
    }

    /// The filter of a push into `bucket`: that document at that `seq`, with
    /// room (by count, and by the bounded-push guard).
    fn room(parent: &Bson, bucket: &Known) -> BsonDocument {
        let spec = M::BUCKET;
        let mut filter = doc! {
            "_id": bucket.id.clone(),
            spec.parent: parent.clone(),
            spec.seq: spec.seq_value(bucket.seq),
            spec.count: { "$lt": i64::from(spec.max) },
        };
        filter.insert(
            format!("{}.{}", spec.items, spec.max.saturating_sub(1)),
            doc! { "$exists": false },
        );
        filter
    }

    fn remembered(&self, key: &str) -> Option<Known> {
        self.newest.lock().ok()?.get(key).cloned()
    }

    fn remember(&self, key: String, bucket: Known) {
        if let Ok(mut newest) = self.newest.lock() {
            if newest.len() >= REMEMBERED && !newest.contains_key(&key) {
                newest.clear();
            }
            newest.insert(key, bucket);
        }
    }
}
