//! Declared extended references (seed 004): a field that holds a copy of a
//! field of the documents it references, kept in sync with them.
//!
//! ```text
//! #[many_to_many(one_sided, to = Sku, max = 100)]
//! skus: Vec<ObjectId>,
//! #[embed(max = 100)]
//! #[copy(from = skus, field = color)]      // follows the skus' colors
//! colors: Vec<String>,
//!
//! #[snapshot(of = Product, field = current_price)]
//! unit_price: f64,                         // the price at the time of sale, never followed
//! ```
//!
//! **What the copy holds.** Through a `#[reference(index, to = T)]` (one
//! id): the referenced document's field, of the field's own type (or an
//! `Option` of it). Through a `#[many_to_many(to = T)]` link (many ids):
//! the distinct values of the referenced documents' field, in the order of
//! the ids, an `#[embed(max = N)]` array whose `max` is at least the link's
//! (so no copy can outgrow its bound). The compiler checks both types and
//! the bound; a `#[snapshot]` is only type-checked: its intent is in the
//! model, and nothing follows it.
//!
//! **Keeping it in sync.** [`Copies::update`] changes a source document
//! and, in the same transaction, every copy that holds from it: the holders
//! are found through the reference's (or link's) index (`{skus: id}`, the
//! index guard checks it), their sources read by `_id`, and only the copies
//! that changed are written (with the holder's version and `updatedAt`
//! stamped). Each transaction reads its own snapshot, so two concurrent
//! updates of two sources of one holder could each compute the copy from
//! the other's old value: after its commit, `update` reads its holders
//! again and rewrites any copy that is not what the committed sources say
//! (the later of the two sees both). In a caller's transaction
//! ([`session`](Action::session)) that check is the caller's: call
//! [`Copies::refresh`] after the commit where sources of one holder change
//! concurrently. [`Copies::refresh`] recomputes one holder (after its
//! references changed); [`Copies::verify`] reports the holders out of sync
//! and [`Copies::repair`] rewrites them, as [`Links`](crate::Links) does
//! for links.
//!
//! **Or after the commit.** Where a source has thousands of holders, that
//! transaction grows toward the server's limits (16 MiB of oplog, 60 s).
//! A copy declared `#[copy(from = skus, field = color, follow =
//! "consumer")]` is left out of [`Copies::update`]'s transaction (the
//! source alone changes), and a [`CopyFollower`](crate::CopyFollower), a
//! named consumer of the source's changes, refreshes its holders after the
//! commit in transactions of a bounded number of holders each. `verify`,
//! `repair` and `refresh` treat both modes alike.

use std::collections::BTreeMap;

use bson::{doc, Bson, Document as BsonDocument};
use futures_util::future::BoxFuture;
use mongodb::{ClientSession, Database};

use crate::error::{id_text, Error, Result};
use crate::exec::action::Action;
use crate::model::codec::value_key as key;
use crate::model::{CopyFollow, CopySpec, Document, Stamp, Updatable};
use crate::repo::Repo;
use crate::txn::with_session;
use crate::txn::{RetryPolicy, TxnConfig, TxnState};
use crate::typed::update::Update;

/// The copies of holder model `H` (see the module docs).
pub struct Copies<H: Document> {
    db: Database,
    specs: Vec<CopySpec>,
    stamp: Stamp,
    txn: TxnConfig,
    state: TxnState,
    keys: crate::crypt::Keys,
    _holder: std::marker::PhantomData<fn() -> H>,
}

/// What [`Copies::verify`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CopyReport {
    /// Holders read.
    pub holders: u64,
    /// The holders whose copy differs from their sources: `_id` as text
    /// and the copy's stored name.
    pub out_of_sync: Vec<(String, &'static str)>,
}

impl CopyReport {
    /// Every copy matches its sources.
    pub fn is_consistent(&self) -> bool {
        self.out_of_sync.is_empty()
    }
}

impl<H: Document> Copies<H> {
    /// The copies `H` declares, in `db`.
    pub fn new(db: &Database) -> Self {
        Copies {
            db: db.clone(),
            specs: H::copies(),
            stamp: Stamp::of::<H>(),
            txn: TxnConfig::default(),
            state: TxnState::default(),
            keys: crate::crypt::Keys::default(),
            _holder: std::marker::PhantomData,
        }
    }

    /// Reads and writes encrypted copies with `crypt`: a copy of an
    /// encrypted field (declared `#[encrypt(..)]` too, which the compiler
    /// checks) is computed from its sources' decrypted values, compared in
    /// clear and written encrypted under the holder's key; the source's
    /// `update` goes through a repository with the same handle.
    #[cfg(feature = "encryption")]
    pub fn with_encryption(mut self, crypt: crate::crypt::Encryption) -> Self {
        self.keys = crate::crypt::Keys::new(crypt);
        self
    }

    /// The encryption handle (see `with_encryption`), for the follower.
    #[cfg(feature = "encryption")]
    pub(crate) fn set_keys(&mut self, keys: crate::crypt::Keys) {
        self.keys = keys;
    }

    /// The retry policy of its transactions (the helpers' default otherwise).
    pub fn with_retry(mut self, policy: RetryPolicy) -> Self {
        self.txn.policy = policy;
        self
    }

    /// The copies declared.
    pub fn specs(&self) -> &[CopySpec] {
        &self.specs
    }

    /// Updates the source document `id` of `S` with `update()` (called
    /// once per attempt) and every copy of `H` that holds from it, in one
    /// transaction (with `.session(&mut s)`, in the caller's); whether the
    /// source matched. A copy declared `follow = "consumer"` is not
    /// written here: its [`CopyFollower`](crate::CopyFollower) refreshes it
    /// after the commit.
    pub fn update<'a, S, U>(
        &'a self,
        id: &'a S::Id,
        update: impl Fn() -> U + Send + Sync + 'a,
    ) -> Action<'a, bool>
    where
        S: Document + Updatable,
        U: Into<Update<S>> + 'a,
    {
        Action::new(
            H::COLLECTION,
            "update_copies",
            (),
            move |session, ()| async move {
                let mut specs: Vec<CopySpec> = self
                    .specs
                    .iter()
                    .copied()
                    .filter(|s| s.source == S::COLLECTION)
                    .collect();
                if specs.is_empty() {
                    return Err(Error::Model(format!(
                    "`{}` holds no copy of a field of `{}`: declare one with `#[copy(from = ..., field = ...)]`",
                    H::NAME,
                    S::NAME
                )));
                }
                // A copy a consumer follows is refreshed after the commit
                // (`CopyFollower`): the transaction changes the source only.
                specs.retain(|s| s.follow == CopyFollow::Transaction);
                let mut source = Repo::<S>::new(&self.db);
                source.keys = self.keys.clone();
                let key = crate::model::codec::id_to_bson::<S>(id)?;
                let own = session.is_none();
                let context = (self, &source, id, &update, specs.clone(), key.clone());
                let matched = crate::txn::transact(
                    &self.state,
                    &[H::NAME, S::NAME],
                    self.db.client(),
                    session,
                    &self.txn,
                    context,
                    attempt_update::<H, S, U, _>,
                )
                .await?;
                if own {
                    // After the commit: a concurrent update of another
                    // source of the same holder may have computed its copy
                    // from this source's old value (each transaction reads
                    // its own snapshot). Whichever commits last sees both.
                    for spec in &specs {
                        let holders = self
                            .reader()
                            .holders(None, doc! { spec.from: key.clone() })
                            .await?;
                        self.resync(None, spec, &holders).await?;
                    }
                }
                Ok(matched)
            },
        )
    }

    /// Recomputes the copies of the holder `id` from its sources now (after
    /// its references changed); whether any copy changed.
    pub fn refresh<'a>(&'a self, id: &'a H::Id) -> Action<'a, bool> {
        Action::new(
            H::COLLECTION,
            "refresh_copies",
            (),
            move |mut session, ()| async move {
                let key = crate::model::codec::id_to_bson::<H>(id)?;
                let filter = doc! { "_id": key };
                let holders = self
                    .reader()
                    .holders(session.as_deref_mut(), filter)
                    .await?;
                let mut changed = false;
                for spec in &self.specs {
                    changed |= self.resync(session.as_deref_mut(), spec, &holders).await? > 0;
                }
                Ok(changed)
            },
        )
    }

    /// Reads every holder (a collection scan, on purpose) and reports the
    /// copies that differ from their sources.
    pub fn verify(&self) -> Action<'_, CopyReport> {
        Action::new(
            H::COLLECTION,
            "verify_copies",
            (),
            move |session, ()| async move { self.reader().report(session).await },
        )
    }

    /// The reads of its copies.
    fn reader(&self) -> CopyReader<'_> {
        CopyReader {
            db: &self.db,
            holder: H::COLLECTION,
            specs: &self.specs,
            keys: &self.keys,
        }
    }

    /// Rewrites every copy that differs from its sources; how many.
    pub fn repair(&self) -> Action<'_, u64> {
        Action::new(
            H::COLLECTION,
            "repair_copies",
            (),
            move |mut session, ()| async move {
                let holders = self
                    .reader()
                    .holders(session.as_deref_mut(), BsonDocument::new())
                    .await?;
                let mut fixed = 0;
                for spec in &self.specs {
                    fixed += self.resync(session.as_deref_mut(), spec, &holders).await?;
                }
                Ok(fixed)
            },
        )
    }

    /// The next `batch` `_id`s (ascending, after `after`) of the holders
    /// whose `spec.from` holds `key`, read outside any transaction (for
    /// [`CopyFollower`](crate::CopyFollower)): a page by `_id`, so that the
    /// holders' own writes between two pages neither repeat nor skip one.
    pub(crate) async fn holder_ids(
        &self,
        spec: &CopySpec,
        key: &Bson,
        after: Option<&Bson>,
        batch: usize,
    ) -> Result<Vec<Bson>> {
        let mut filter = doc! { spec.from: key.clone() };
        crate::query::check::<H>(&filter, None)?;
        if let Some(after) = after {
            filter.insert("_id", doc! { "$gt": after.clone() });
        }
        let coll = self.db.collection::<BsonDocument>(H::COLLECTION);
        let find = coll
            .find(filter)
            .projection(doc! { "_id": 1 })
            .sort(doc! { "_id": 1 })
            .limit(i64::try_from(batch).unwrap_or(i64::MAX));
        let found = crate::exec::cursor::collect(find, None)
            .await
            .map_err(|e| Error::from_server(e, "find in", H::COLLECTION))?;
        Ok(found
            .into_iter()
            .filter_map(|mut h| h.remove("_id"))
            .collect())
    }

    /// Recomputes the copy `spec` of the holders `ids` from their sources
    /// as `session` reads them, writing those that differ: (holders read,
    /// copies written).
    pub(crate) async fn refresh_ids(
        &self,
        session: &mut ClientSession,
        spec: &CopySpec,
        ids: Vec<Bson>,
    ) -> Result<(u64, u64)> {
        let filter = doc! { "_id": { "$in": ids } };
        let holders = self.reader().holders(Some(&mut *session), filter).await?;
        let written = self.resync(Some(session), spec, &holders).await?;
        Ok((holders.len() as u64, written))
    }

    /// Writes the copies of `holders` that differ from what their sources
    /// say; how many were written.
    async fn resync(
        &self,
        mut session: Option<&mut ClientSession>,
        spec: &CopySpec,
        holders: &[BsonDocument],
    ) -> Result<u64> {
        let wanted = self
            .reader()
            .wanted(session.as_deref_mut(), spec, holders)
            .await?;
        let coll = self.db.collection::<BsonDocument>(H::COLLECTION);
        let mut written = 0;
        for (holder, want) in holders.iter().zip(wanted) {
            let (Some(want), Some(id)) = (want, holder.get("_id")) else {
                continue;
            };
            if holder.get(spec.field) == Some(&want) {
                continue;
            }
            let update = doc! { "$set": { spec.field: want } };
            let mut update = self.keys.seal_update::<H>(update).await?;
            self.stamp.apply(&mut update, false)?;
            let filter = doc! { "_id": id.clone() };
            with_session!(coll.update_one(filter, update), session.as_deref_mut())
                .map_err(|e| Error::from_server(e, "update", H::COLLECTION))?;
            written += 1;
        }
        Ok(written)
    }
}

/// Reads the copies of one holder collection: [`Copies`]'s reads, and the
/// check of every model's copies ([`Schema::verify`](crate::Schema::verify)).
pub(crate) struct CopyReader<'a> {
    pub(crate) db: &'a Database,
    /// The holders' collection.
    pub(crate) holder: &'static str,
    pub(crate) specs: &'a [CopySpec],
    /// Decrypts the encrypted copies and sources it reads.
    pub(crate) keys: &'a crate::crypt::Keys,
}

impl CopyReader<'_> {
    /// Reads every holder (a collection scan, on purpose) and reports the
    /// copies that differ from their sources.
    pub(crate) async fn report(
        &self,
        mut session: Option<&mut ClientSession>,
    ) -> Result<CopyReport> {
        let holders = self
            .holders(session.as_deref_mut(), BsonDocument::new())
            .await?;
        let mut report = CopyReport {
            holders: holders.len() as u64,
            ..CopyReport::default()
        };
        for spec in self.specs {
            let wanted = self.wanted(session.as_deref_mut(), spec, &holders).await?;
            for (holder, want) in holders.iter().zip(wanted) {
                if want.is_some_and(|want| holder.get(spec.field) != Some(&want)) {
                    let id = holder.get("_id").map_or_else(String::new, id_text);
                    report.out_of_sync.push((id, spec.field));
                }
            }
        }
        Ok(report)
    }

    /// The holders matching `filter`, with their `_id`, references and
    /// copies only.
    async fn holders(
        &self,
        session: Option<&mut ClientSession>,
        filter: BsonDocument,
    ) -> Result<Vec<BsonDocument>> {
        let mut projection = doc! { "_id": 1 };
        for spec in self.specs {
            projection.insert(spec.from, 1);
            projection.insert(spec.field, 1);
        }
        let coll = self.db.collection::<BsonDocument>(self.holder);
        let find = coll.find(filter).projection(projection);
        let mut holders = crate::exec::cursor::collect(find, session)
            .await
            .map_err(|e| Error::from_server(e, "find in", self.holder))?;
        for holder in &mut holders {
            self.keys.open_all(holder, self.holder).await?;
        }
        Ok(holders)
    }

    /// What each holder's copy should be (`None`: leave it, its source is
    /// gone).
    async fn wanted(
        &self,
        mut session: Option<&mut ClientSession>,
        spec: &CopySpec,
        holders: &[BsonDocument],
    ) -> Result<Vec<Option<Bson>>> {
        let refs = |h: &BsonDocument| -> Vec<Bson> {
            match h.get(spec.from) {
                Some(Bson::Array(ids)) => ids.clone(),
                Some(Bson::Null) | None => Vec::new(),
                Some(id) => vec![id.clone()],
            }
        };
        let mut ids: Vec<Bson> = Vec::new();
        for holder in holders {
            for id in refs(holder) {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
        }
        let mut values: BTreeMap<String, Bson> = BTreeMap::new();
        for chunk in ids.chunks(1000) {
            let coll = self.db.collection::<BsonDocument>(spec.source);
            let find = coll
                .find(doc! { "_id": { "$in": chunk.to_vec() } })
                .projection(doc! { spec.source_field: 1 });
            let found = crate::exec::cursor::collect(find, session.as_deref_mut())
                .await
                .map_err(|e| Error::from_server(e, "find in", spec.source))?;
            for mut source in found {
                self.keys.open_all(&mut source, spec.source).await?;
                let value = source.get(spec.source_field).cloned().unwrap_or(Bson::Null);
                if let Some(id) = source.get("_id") {
                    values.insert(key(id), value);
                }
            }
        }
        Ok(holders
            .iter()
            .map(|holder| {
                let ids = refs(holder);
                if spec.many {
                    let mut copy: Vec<Bson> = Vec::new();
                    for value in ids.iter().filter_map(|id| values.get(&key(id))) {
                        if !matches!(value, Bson::Null) && !copy.contains(value) {
                            copy.push(value.clone());
                        }
                    }
                    Some(Bson::Array(copy))
                } else {
                    ids.first().and_then(|id| values.get(&key(id))).cloned()
                }
            })
            .collect())
    }
}

/// The context of one [`Copies::update`] transaction.
type UpdateContext<'c, H, S, F> = (
    &'c Copies<H>,
    &'c Repo<S>,
    &'c <S as Document>::Id,
    &'c F,
    Vec<CopySpec>,
    Bson,
);

/// One attempt of [`Copies::update`]: the source, then its holders' copies.
fn attempt_update<'s, H, S, U, F>(
    session: &'s mut ClientSession,
    (copies, source, id, update, specs, key): &'s mut UpdateContext<'_, H, S, F>,
) -> BoxFuture<'s, Result<bool>>
where
    H: Document,
    S: Document + Updatable,
    U: Into<Update<S>>,
    F: Fn() -> U + Send + Sync,
{
    Box::pin(async move {
        let matched = source.update(id, update()).session(&mut *session).await?;
        for spec in specs.iter() {
            let filter = doc! { spec.from: key.clone() };
            crate::query::check::<H>(&filter, None)?;
            let holders = copies.reader().holders(Some(&mut *session), filter).await?;
            copies.resync(Some(&mut *session), spec, &holders).await?;
        }
        Ok(matched)
    })
}
