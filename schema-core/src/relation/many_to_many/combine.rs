//! Hot documents: concurrent two-sided links into one document, combined
//! into one transaction.
//!
//! When many tasks link into one document at once (16 students joining one
//! of two courses), one transaction per link makes them conflict on that
//! document and retry. A [`Links`] (and its clones) instead lets one link
//! per target document run at a time, and gathers the links that arrive
//! meanwhile: the next one to run takes all of them, as one transaction:
//!
//! 1. reads the target's id array (in the transaction's snapshot);
//! 2. adds the target to each linker's own array (each with its own bounded
//!    guard, as a single link does; a linker that is full or missing gets
//!    its own [`Error::LinkFull`] or [`Error::NotFound`], the others go on);
//! 3. adds every linker that fits to the target with one `$addToSet: {$each:
//!    [...]}`, guarded so that the array cannot exceed its `max`; the
//!    linkers past the room left get [`Error::LinkFull`] for the target
//!    (and their own side is not written);
//! 4. commits, then gives each caller its own result: no link is reported
//!    done before the commit that wrote it.
//!
//! A link with none waiting behind it runs as it would alone (`update`,
//! `update`, `commitTransaction`): combining costs nothing uncontended.
//!
//! If the combined transaction fails as a whole, each caller runs its own
//! link alone (links are idempotent). A caller that stops waiting (its
//! future dropped) leaves the others unharmed. The target's version and
//! `updatedAt` are stamped once per combined write.
//!
//! Only links without a caller's session are combined (a link in the
//! caller's transaction belongs to it); `unlink` is not.
//! [`Links::with_combining(false)`](Links::with_combining) turns it off.

use std::collections::VecDeque;

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::ClientSession;
use tokio::sync::oneshot;

use super::queue::{HandOver, Turn, Waiter};
use super::side::Side;
use super::Links;
use crate::error::{id_text, Error, Result};
use crate::model::codec::value_key;
use crate::model::Document;
use crate::txn::with_session;

impl<M: Document, C, R: Document> Links<M, C, R> {
    /// Links `left` to `right`, combined with the links into `right` that
    /// arrive while another is being written (see the [module docs](self)).
    pub(super) async fn link_combined(&self, left: Bson, right: Bson) -> Result<()> {
        let key = value_key(&right);
        let waiting = {
            let mut queues = self.combiner().lock();
            match queues.get_mut(&key) {
                Some(queue) => {
                    let (turn, wait) = oneshot::channel();
                    queue.push_back(Waiter {
                        left: left.clone(),
                        turn,
                    });
                    Some(wait)
                }
                None => {
                    queues.insert(key.clone(), VecDeque::new());
                    None
                }
            }
        };
        let others = match waiting {
            None => Vec::new(),
            Some(wait) => match wait.await {
                Ok(Turn::Done(result)) => return result,
                Ok(Turn::Lead(others)) => others,
                Ok(Turn::Alone) | Err(_) => return self.link_alone(left, right).await,
            },
        };
        let _hand_over = HandOver {
            combiner: self.combiner(),
            key,
        };
        if others.is_empty() {
            // Nobody to combine with: the plain link's three commands.
            return self.link_alone(left, right).await;
        }
        let mut lefts = vec![left];
        lefts.extend(others.iter().map(|w| w.left.clone()));
        match self.write_combined(&right, &lefts).await {
            Ok(mut results) => {
                let own = results.remove(0);
                for (waiter, result) in others.into_iter().zip(results) {
                    let _ = waiter.turn.send(Turn::Done(result));
                }
                own
            }
            Err(e) => {
                for waiter in others {
                    let _ = waiter.turn.send(Turn::Alone);
                }
                Err(e)
            }
        }
    }

    /// One transaction linking every one of `lefts` to `right`; each
    /// link's own result.
    async fn write_combined(&self, right: &Bson, lefts: &[Bson]) -> Result<Vec<Result<()>>> {
        crate::txn::transact(
            self.support(),
            &[M::NAME, R::NAME],
            self.database().client(),
            None,
            self.txn_config(),
            (self, right, lefts),
            |s, ctx| {
                let (this, right, lefts) = *ctx;
                Box::pin(async move { this.apply_combined(s, right, lefts).await })
            },
        )
        .await
    }

    /// The writes of a combined link (see the [module docs](self)).
    async fn apply_combined(
        &self,
        session: &mut ClientSession,
        right: &Bson,
        lefts: &[Bson],
    ) -> Result<Vec<Result<()>>> {
        let (left_side, right_side) = (self.left(), self.right_side_or_err()?);
        let target = self
            .database()
            .collection::<BsonDocument>(right_side.collection);
        let found = target
            .find_one(doc! { "_id": right.clone() })
            .projection(doc! { right_side.field: 1 })
            .session(&mut *session)
            .await
            .map_err(|e| Error::from_server(e, "find in", right_side.collection))?;
        let Some(found) = found else {
            return Ok(lefts
                .iter()
                .map(|_| {
                    Err(Error::NotFound {
                        collection: right_side.collection,
                        id: id_text(right),
                    })
                })
                .collect());
        };
        let present: Vec<Bson> = match found.get(right_side.field) {
            Some(Bson::Array(ids)) => ids.clone(),
            _ => Vec::new(),
        };
        let mut room = (right_side.max as usize).saturating_sub(present.len());
        let mut adding: Vec<Bson> = Vec::new();
        let mut results = Vec::with_capacity(lefts.len());
        for left in lefts {
            let already = present.contains(left) || adding.contains(left);
            if !already && room == 0 {
                results.push(Err(full(right_side, right)));
                continue;
            }
            match self.add(Some(&mut *session), left_side, left, right).await {
                Ok(()) => {
                    if !already {
                        adding.push(left.clone());
                        room -= 1;
                    }
                    results.push(Ok(()));
                }
                Err(e @ (Error::LinkFull { .. } | Error::NotFound { .. })) => results.push(Err(e)),
                Err(e) => return Err(e),
            }
        }
        if !adding.is_empty() {
            let mut filter = doc! { "_id": right.clone() };
            // After adding them, the array holds at most `max` ids (the
            // room counted above leaves `adding` within it).
            let room = right_side.room_for(adding.len()).ok_or_else(|| {
                Error::Model("a combined link counted more ids than the max".into())
            })?;
            filter.extend(room);
            let mut update = doc! { "$addToSet": { right_side.field: { "$each": adding } } };
            (right_side.stamp)(&mut update, false)?;
            let written = with_session!(target.update_one(filter, update), Some(&mut *session))
                .map_err(|e| Error::from_server(e, "link in", right_side.collection))?;
            if written.matched_count == 0 {
                // Not possible in the snapshot read above, unless the
                // server does not isolate: write nothing.
                return Err(Error::Model(format!(
                    "the id array `{}` of `{}` changed during a combined link; nothing was written",
                    right_side.field, right_side.collection
                )));
            }
        }
        Ok(results)
    }
}

/// [`Error::LinkFull`] for the target side.
fn full(side: Side, id: &Bson) -> Error {
    Error::LinkFull {
        collection: side.collection,
        id: id_text(id),
        field: side.field,
        max: side.max,
    }
}
