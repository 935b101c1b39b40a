//! Upgrading stored documents in place: one by `_id`
//! ([`Repo::upgrade`]), or every document at an earlier version, in
//! batches ([`Repo::migrate`]).
//!
//! Each document is read, upgraded by the model's steps, and replaced
//! whole at the current version under a guard: the replace applies only
//! while the document is still at the version it was read at (and, for a
//! `#[document(version)]` model, at the same optimistic version). A writer
//! that replaced it meanwhile (with the current shape) wins, and nothing of
//! its write is lost; the document is not written twice. A migration that
//! stops (an error, a crash, `kill -9`) is resumed by running it again: it
//! reads only the documents still at an earlier version.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use bson::{doc, Bson, Document as BsonDocument, RawDocument, RawDocumentBuf};
use mongodb::ClientSession;

use crate::error::{Error, Result};
use crate::exec::action::Action;
use crate::model::codec;
use crate::model::schema_version::{count_per_version, stored_version, VERSION_FIELD};
use crate::model::Document;
use crate::repo::Repo;
use crate::txn::with_session;

/// How [`Repo::migrate`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MigrateOptions {
    /// Documents read per batch (default 500).
    pub batch_size: u32,
    /// A pause after each batch, to bound the load (default none).
    pub pause: Option<Duration>,
}

impl Default for MigrateOptions {
    fn default() -> Self {
        MigrateOptions {
            batch_size: 500,
            pause: None,
        }
    }
}

/// Where a migration stands, after each batch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Progress {
    /// Documents this run upgraded so far.
    pub upgraded: u64,
    /// Documents it found already upgraded by another writer.
    pub skipped: u64,
    /// Documents still at each earlier version (version, count), oldest
    /// first, versions with none left out: counted when the run starts and at the end of each pass over
    /// the collection, less the documents done since.
    pub left: Vec<(u32, u64)>,
}

/// A model's [`Repo::migrate`] with the model's type erased, as a
/// [`Schema`](crate::Schema) keeps it for the models that name earlier
/// shapes.
pub(crate) type Migration =
    for<'a> fn(
        &'a mongodb::Database,
        &'a crate::crypt::Keys,
        MigrateOptions,
        &'a mut (dyn FnMut(&Progress) + Send),
    ) -> Pin<Box<dyn Future<Output = Result<Progress>> + Send + 'a>>;

/// The [`Migration`] of `M`, with the schema's encryption handle (its
/// encrypted fields are read and written back sealed).
pub(crate) fn migration<M: Document>() -> Migration {
    |db, keys, options, progress| {
        Box::pin(async move {
            let mut repo = Repo::<M>::new(db);
            repo.keys = keys.clone();
            repo.migrate(options, progress).await
        })
    }
}

/// The replacements one `update` command of a migration carries at most,
/// in bytes (the server takes commands up to 16 MiB).
const COMMAND_BYTES: usize = 8 * 1024 * 1024;

// A model that names earlier shapes is never a time series, so whole
// replaces are always its to make (`Replaceable` is not asked, and a
// `Schema` runs `migrate` for any model it holds).
impl<M: Document> Repo<M> {
    /// Makes the reads by `_id` (`get`, `get_many`, and the children a
    /// reference reads by id) write back each document they find at an
    /// earlier version: replaced by its upgrade under the migration's guard
    /// (only while it is still at the version read, so a concurrent
    /// writer's newer document is never overwritten), in one `update`
    /// command after the read, in the read's session when it has one. Off
    /// by default: a read writes nothing. `find`, pages and streams never
    /// write back; [`migrate`](Self::migrate) upgrades the rest.
    pub fn write_back_upgrades(mut self) -> Self {
        self.write_back = true;
        self
    }

    /// Upgrades the document `id` in place when it is stored at an earlier
    /// version (see `versions`); whether this call wrote it.
    /// A model without earlier shapes named has nothing to upgrade.
    pub fn upgrade<'a>(&'a self, id: &'a M::Id) -> Action<'a, bool> {
        self.action("upgrade", move |mut session| async move {
            let id = codec::id_to_bson::<M>(id)?;
            let Some(versions) = M::VERSIONS.filter(|v| !v.older.is_empty()) else {
                return Ok(false);
            };
            let coll = self.raw_docs();
            let find = coll.find_one(doc! { "_id": id });
            let found =
                with_session!(find, session.as_deref_mut()).map_err(|e| self.err(e, "find in"))?;
            let Some(raw) = found.filter(|raw| stored_version(raw) != Some(versions.current))
            else {
                return Ok(false);
            };
            let raw = self.keys.unseal::<M>(raw).await?;
            let (_, filter, doc) = self.upgraded(&raw)?;
            let doc = self.keys.seal::<M>(doc).await?;
            let replace = coll.replace_one(filter, doc);
            let r = with_session!(replace, session).map_err(|e| self.err(e, "replace in"))?;
            Ok(r.matched_count > 0)
        })
    }

    /// Upgrades every document stored at an earlier version, in batches
    /// ordered by `_id`, calling `progress` after each batch. Each batch is
    /// upgraded first, then its replaces are sent in one `update` command
    /// of many statements (one per 8 MiB). Stops at
    /// the first document an upgrade step refuses
    /// ([`Error::Upgrade`] naming it): nothing of
    /// its batch is written, the batches before are.
    /// Run again to resume. Sends per batch one `find` (on the index of the
    /// version field and `_id`, which setup creates, from where the last
    /// batch ended) and one `update` command for the batch; at the start and at the
    /// end of each pass one `aggregate` counting the documents left per
    /// version.
    pub async fn migrate(
        &self,
        options: MigrateOptions,
        mut progress: impl FnMut(&Progress) + Send,
    ) -> Result<Progress> {
        let mut state = Progress::default();
        let Some(versions) = M::VERSIONS.filter(|v| !v.older.is_empty()) else {
            return Ok(state);
        };
        // Version 1 is also a document without the field (`null` matches it).
        let earlier: Vec<Bson> = (versions.first == 1)
            .then_some(Bson::Null)
            .into_iter()
            .chain((versions.first..versions.current).map(|v| Bson::Int32(v as i32)))
            .collect();
        let mut after: Option<Bson> = None;
        let mut pass_did_something = false;
        state.left = self.left_per_version(versions.current).await?;
        loop {
            let mut filter = doc! { VERSION_FIELD: { "$in": earlier.clone() } };
            if let Some(last) = &after {
                filter.insert("_id", doc! { "$gt": last.clone() });
            }
            let batch: Vec<RawDocumentBuf> = crate::exec::cursor::collect(
                self.raw_docs()
                    .find(filter)
                    .sort(doc! { "_id": 1 })
                    .limit(i64::from(options.batch_size.max(1))),
                None,
            )
            .await
            .map_err(|e| self.err(e, "find in"))?;
            // Read in clear, upgraded, and written back sealed as `M`
            // declares (see `crypt`).
            let batch = self.unseal_all(batch).await?;
            if batch.is_empty() {
                // The end of a pass: documents an older writer inserted
                // behind it are read by another pass, if this one did
                // anything.
                state.left = self.left_per_version(versions.current).await?;
                if state.left.is_empty() || !pass_did_something {
                    progress(&state);
                    return Ok(state);
                }
                (after, pass_did_something) = (None, false);
                continue;
            }
            // Every document of the batch upgraded first (no I/O): a step
            // that refuses one stops the run before any of the batch is
            // written.
            let mut replaces = Vec::with_capacity(batch.len());
            for raw in &batch {
                let replace = self.upgraded(raw)?;
                after = replace.1.get("_id").cloned();
                replaces.push(replace);
            }
            pass_did_something = true;
            for (at, _, _) in &replaces {
                if let Some(left) = state.left.iter_mut().find(|(v, _)| v == at) {
                    left.1 = left.1.saturating_sub(1);
                }
            }
            state.left.retain(|(_, n)| *n > 0);
            let count = replaces.len() as u64;
            let applied = self.replace_all(None, replaces).await?;
            state.upgraded += applied;
            state.skipped += count.saturating_sub(applied);
            progress(&state);
            if let Some(pause) = options.pause {
                tokio::time::sleep(pause).await;
            }
        }
    }

    /// How many documents are at each earlier version: one `aggregate`.
    async fn left_per_version(&self, current: u32) -> Result<Vec<(u32, u64)>> {
        count_per_version(self.database(), M::COLLECTION, Some(current))
            .await
            .map_err(|e| self.err(e, "count versions in"))
    }

    /// Sends the guarded replaces of a batch as `update` commands of many
    /// statements, unordered (one command per 8 MiB of replacements); how
    /// many applied. A statement the server refuses fails the batch with
    /// the `_id` and the server's code, never the document.
    async fn replace_all(
        &self,
        mut session: Option<&mut ClientSession>,
        replaces: Vec<(u32, BsonDocument, RawDocumentBuf)>,
    ) -> Result<u64> {
        let mut applied = 0;
        let mut statements: Vec<BsonDocument> = Vec::new();
        let mut size = 0;
        let mut rest = replaces.into_iter().peekable();
        while let Some((_, filter, doc)) = rest.next() {
            let doc = self.keys.seal::<M>(doc).await?;
            size += doc.as_bytes().len();
            let u = BsonDocument::try_from(doc.as_ref()).map_err(|e| {
                Error::Model(format!(
                    "an upgraded `{}` document could not be sent: {e}",
                    M::NAME
                ))
            })?;
            statements.push(doc! { "q": filter, "u": u, "multi": false, "upsert": false });
            if size < COMMAND_BYTES && rest.peek().is_some() {
                continue;
            }
            let sent = std::mem::take(&mut statements);
            size = 0;
            let ids: Vec<Bson> = sent
                .iter()
                .map(|st| {
                    st.get_document("q")
                        .ok()
                        .and_then(|q| q.get("_id").cloned())
                        .unwrap_or(Bson::Null)
                })
                .collect();
            let command = self
                .database()
                .run_command(doc! { "update": M::COLLECTION, "updates": sent, "ordered": false });
            let reply = with_session!(command, session.as_deref_mut())
                .map_err(|e| self.err(e, "replace in"))?;
            if let Ok(errors) = reply.get_array("writeErrors") {
                if let Some(Bson::Document(first)) = errors.first() {
                    let index = first.get_i32("index").unwrap_or(0);
                    let id = usize::try_from(index)
                        .ok()
                        .and_then(|i| ids.get(i))
                        .map_or_else(String::new, crate::error::id_text);
                    return Err(Error::Model(format!(
                        "the server refused {} upgraded `{}` document(s) of `{}`, the first {id} (code {}); nothing else of it was refused",
                        errors.len(),
                        M::NAME,
                        M::COLLECTION,
                        first.get_i32("code").unwrap_or(0)
                    )));
                }
            }
            applied += crate::exec::reply::count(&reply, "n");
        }
        Ok(applied)
    }

    /// The stored documents `raws` read as `M`. On a repository that
    /// [writes back upgrades](Repo::write_back_upgrades), those at an
    /// earlier version are replaced by their upgrade under the migration's
    /// guard, in one `update` command (in `session` when there is one).
    pub(crate) async fn read_back(
        &self,
        session: Option<&mut ClientSession>,
        raws: Vec<RawDocumentBuf>,
    ) -> Result<Vec<M>> {
        let raws = self.unseal_all(raws).await?;
        let current = M::VERSIONS
            .filter(|v| self.write_back && !v.older.is_empty())
            .map(|v| v.current);
        let Some(current) = current else {
            return raws
                .iter()
                .map(|raw| codec::decode(raw).map_err(crate::crypt::redact::<M>))
                .collect();
        };
        let mut read = Vec::with_capacity(raws.len());
        let mut replaces = Vec::new();
        for raw in &raws {
            if stored_version(raw) == Some(current) {
                read.push(codec::decode(raw)?);
                continue;
            }
            let replace = self.upgraded(raw)?;
            read.push(codec::decode(&replace.2)?);
            replaces.push(replace);
        }
        if !replaces.is_empty() {
            self.replace_all(session, replaces).await?;
        }
        Ok(read)
    }

    /// One stored document upgraded: its version, the guarded filter of
    /// its replace (its `_id` at that version, and its optimistic version
    /// when the model keeps one) and the replacement.
    fn upgraded(&self, raw: &RawDocument) -> Result<(u32, BsonDocument, RawDocumentBuf)> {
        let unknown = || Error::unknown_version(M::NAME, M::COLLECTION, raw, M::VERSIONS);
        let at = stored_version(raw).ok_or_else(unknown)?;
        let id = raw
            .get("_id")
            .ok()
            .flatten()
            .and_then(|id| Bson::try_from(id).ok())
            .unwrap_or(Bson::Null);
        // Upgraded and serialized once: `encode` checks the bounds (an
        // upgrade that breaks one is refused as its step's refusal is).
        let upgraded = M::upgrade_stored(at, raw)?;
        let encoded =
            codec::encode(&upgraded).map_err(|e| codec::refused_upgrade::<M>(at, raw, e))?;
        let (new_raw, expected) = crate::model::stamp::replaced(&upgraded, encoded)?;
        let mut filter = doc! { "_id": id };
        if at == 1 {
            filter.insert(VERSION_FIELD, doc! { "$in": [Bson::Null, 1] });
        } else {
            filter.insert(VERSION_FIELD, i32::try_from(at).map_err(|_| unknown())?);
        }
        if let Some((name, version)) = expected {
            filter.insert(name, version);
        }
        // On a cluster the shard key's values, as stored, send the replace
        // to the one shard that holds the document (as `replace` does).
        let filter = crate::repo::shard_targeted::<M>(&filter, raw).unwrap_or(filter);
        Ok((at, filter, new_raw))
    }
}
