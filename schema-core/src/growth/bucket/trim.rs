//! Trimming a parent's buckets to the newest items it keeps.

use super::*;

impl<M: Bucket> Buckets<M> {
    /// Keeps `parent`'s newest `keep` items and removes the older ones, the
    /// counts kept exact: whole older buckets are deleted, and the bucket at
    /// the boundary keeps its newest items (`$push` of nothing with
    /// `$slice`, its count set to match, guarded on the count it was read
    /// with). Returns how many items were removed. The boundary is written
    /// before the older buckets are deleted, so an interrupted trim leaves
    /// more items than asked, never fewer.
    pub fn trim<'a>(&'a self, parent: &'a M::Parent, keep: u64) -> Action<'a, u64> {
        Action::new(M::COLLECTION, "bucket_trim", (), move |s, ()| {
            self.trim_opt(s, parent, keep)
        })
    }

    async fn trim_opt(
        &self,
        mut session: Option<&mut ClientSession>,
        parent: &M::Parent,
        keep: u64,
    ) -> Result<u64> {
        let spec = M::BUCKET;
        let parent = self.parent_bson(parent)?;
        self.require_index().await?;
        let coll = self.repo.raw();
        let older = |below: i64| {
            doc! {
                spec.parent: parent.clone(),
                spec.seq: { "$lt": spec.seq_value(below) },
            }
        };
        for _ in 0..TRIES {
            let find = coll
                .find(doc! { spec.parent: parent.clone() })
                .sort(doc! { spec.seq: -1 })
                .projection(doc! { "_id": 1, spec.seq: 1, spec.count: 1 });
            let buckets = crate::exec::cursor::collect(find, session.as_deref_mut())
                .await
                .map_err(|e| self.repo.err(e, "trim"))?;
            let mut kept = 0u64;
            let mut boundary = None;
            for bucket in &buckets {
                let count = count_of(bucket, spec.count);
                if kept + count >= keep {
                    let id = bucket.get("_id").cloned().unwrap_or(Bson::Null);
                    boundary = Some((id, seq_of(bucket, spec.seq), count, keep - kept));
                    break;
                }
                kept += count;
            }
            let Some((id, seq, count, stays)) = boundary else {
                return Ok(0);
            };
            let total: u64 = buckets.iter().map(|b| count_of(b, spec.count)).sum();
            // The older buckets are those below this one.
            let mut below = seq;
            if stays < count {
                let filter = doc! {
                    "_id": id,
                    spec.parent: parent.clone(),
                    spec.seq: spec.seq_value(seq),
                    spec.count: count as i64,
                };
                let mut slice = doc! {
                    "$push": { spec.items: { "$each": [], "$slice": -(stays as i64) } },
                    "$set": { spec.count: spec.count_value(stays as i64) },
                };
                let result = if stays == 0 {
                    let delete = coll.delete_one(filter);
                    with_session!(delete, session.as_deref_mut()).map(|d| d.deleted_count)
                } else if count < u64::from(spec.max) {
                    let update = coll.update_one(filter, slice);
                    with_session!(update, session.as_deref_mut()).map(|u| u.matched_count)
                } else {
                    // A full bucket given room would take the push of a
                    // handle that remembers it, below the newer buckets: it
                    // moves one place down, where no handle knows it, once
                    // the older buckets are gone.
                    let delete = coll.delete_many(older(seq));
                    with_session!(delete, session.as_deref_mut())
                        .map_err(|e| self.repo.err(e, "trim"))?;
                    below = seq - 1;
                    if let Ok(set) = slice.get_document_mut("$set") {
                        set.insert(spec.seq, spec.seq_value(below));
                    }
                    let update = coll.update_one(filter, slice);
                    match with_session!(update, session.as_deref_mut()) {
                        Ok(u) => Ok(u.matched_count),
                        // An opener that read long ago took that place.
                        Err(e)
                            if crate::error::DriverErrorExt::code(&e)
                                == Some(code::DUPLICATE_KEY) =>
                        {
                            Ok(0)
                        }
                        Err(e) => Err(e),
                    }
                };
                // A push or another trim changed the boundary bucket
                // meanwhile: again.
                if result.map_err(|e| self.repo.err(e, "trim"))? == 0 {
                    continue;
                }
            }
            let delete = coll.delete_many(older(below));
            with_session!(delete, session.as_deref_mut()).map_err(|e| self.repo.err(e, "trim"))?;
            return Ok(total - keep.min(total));
        }
        Err(Error::Model(format!(
            "a trim of `{}` kept meeting concurrent pushes at its boundary",
            M::COLLECTION
        )))
    }
}
