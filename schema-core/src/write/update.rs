//! Typed updates of one document (by `_id` or by filter, with upsert) or of
//! many, and `find_one_and_update`; a bounded push carries its guard into
//! the filter.

use super::*;

impl<M: Document> Repo<M> {
    /// `update` taken apart, the values it writes into encrypted fields
    /// encrypted (or refused when the server would compute on them; see
    /// `crypt`).
    async fn parts(&self, update: Update<M>) -> Result<UpdateParts> {
        let mut parts = update.into_parts()?;
        parts.update = self.keys.seal_update::<M>(parts.update).await?;
        Ok(parts)
    }

    /// Applies `update` (a typed [`Update`], or a plain update document for
    /// raw access) to the document with this `_id`: one `update`. Returns
    /// whether it existed.
    ///
    /// A [`push`](crate::EmbedField::push) in the update brings its guard:
    /// when an array has no room the update matches nothing, writes nothing
    /// (none of its other parts either), and one more `find` returns
    /// [`Error::EmbedFull`] naming the array; an `Option` array stored as
    /// null is set to `[]` first (one more `update`), as by the bounded
    /// push. The collection's validator still applies to a raw document.
    ///
    /// On a `#[document(version)]` model it increments the version;
    /// `.if_version(v)` applies it only while the stored version is `v`
    /// ([`Error::Conflict`], nothing written, otherwise).
    pub fn update<'a>(
        &'a self,
        id: &'a M::Id,
        update: impl Into<Update<M>>,
    ) -> Action<'a, bool, UpdateByIdOptions>
    where
        M: Updatable,
    {
        let update = update.into();
        let options = UpdateByIdOptions::default();
        Action::new(M::COLLECTION, "update", options, move |s, o| async move {
            let (id, parts) = (id_to_bson::<M>(id)?, self.parts(update).await?);
            let r = self
                .update_guarded(s, &id, None, parts, o.if_version)
                .await?;
            Ok(r.matched > 0)
        })
    }

    /// Applies `update` to the first document `filter` matches: one
    /// `update` (and, given `.upsert(true)`, inserts one when none
    /// matches). An update that pushes into a bounded array first reads
    /// which document the filter picks (one `find`), then
    /// updates it under the push's guard ([`Error::EmbedFull`], nothing
    /// written, when it has no room).
    pub fn update_one(
        &self,
        filter: impl Into<Filter<M>>,
        update: impl Into<Update<M>>,
    ) -> Action<'_, UpdateResult, UpdateOptions>
    where
        M: Updatable,
    {
        let (filter, update) = (filter.into(), update.into());
        let options = UpdateOptions::default();
        Action::new(
            M::COLLECTION,
            "update_one",
            options,
            move |s, o| async move {
                let parts = self.parts(update).await?;
                refuse_guarded("update_one with upsert", o.upsert, &parts)?;
                let filter = self.query(filter, &o.filtered).await?;
                if !parts.has_guard() {
                    return self.update_plain(s, filter, parts, o.upsert, false).await;
                }
                let mut s = s;
                match self.pick(s.as_deref_mut(), &filter).await? {
                    Some(id) => self.update_guarded(s, &id, Some(filter), parts, None).await,
                    None => Ok(UpdateResult {
                        matched: 0,
                        modified: 0,
                        upserted_id: None,
                    }),
                }
            },
        )
    }

    /// Applies `update` to every document `filter` matches: one `update`
    /// with `multi` (and, given `.upsert(true)`, inserts one when none
    /// matches). An update that pushes into a bounded array is refused with
    /// [`Error::Model`] before anything is sent (the
    /// documents without room would be skipped): push per document with
    /// [`update`](Self::update) or [`update_one`](Self::update_one). So is
    /// an update that writes a field of the model's shard key (a sharded
    /// cluster changes it one document at a time only).
    pub fn update_many(
        &self,
        filter: impl Into<Filter<M>>,
        update: impl Into<Update<M>>,
    ) -> Action<'_, UpdateResult, UpdateOptions> {
        let (filter, update) = (filter.into(), update.into());
        let options = UpdateOptions::default();
        Action::new(
            M::COLLECTION,
            "update_many",
            options,
            move |s, o| async move {
                let parts = self.parts(update).await?;
                refuse_guarded("update_many", true, &parts)?;
                refuse_shard_key_change::<M>(&parts)?;
                let filter = self.query(filter, &o.filtered).await?;
                self.update_plain(s, filter, parts, o.upsert, true).await
            },
        )
    }

    /// Applies `update` to the first document `filter` matches and returns
    /// that document, as it was before the update (the default) or after it
    /// (`.return_document(ReturnDocument::After)`):
    /// one `findAndModify`; `None` when none matches (or, returning the
    /// document before, when an upsert inserted it). Bounded pushes as in
    /// [`update_one`](Self::update_one).
    pub fn find_one_and_update(
        &self,
        filter: impl Into<Filter<M>>,
        update: impl Into<Update<M>>,
    ) -> Action<'_, Option<M>, FindOneAndUpdateOptions>
    where
        M: Updatable,
    {
        let (filter, update) = (filter.into(), update.into());
        let options = FindOneAndUpdateOptions::default();
        Action::new(
            M::COLLECTION,
            "find_one_and_update",
            options,
            move |s, o| async move {
                let mut parts = self.parts(update).await?;
                refuse_guarded("find_one_and_update with upsert", o.upsert, &parts)?;
                let filter = self.query(filter, &o.filtered).await?;
                crate::model::stamp::updated::<M>(&mut parts.update, o.upsert)?;
                let which = match o.return_document {
                    ReturnDocument::Before => mongodb::options::ReturnDocument::Before,
                    ReturnDocument::After => mongodb::options::ReturnDocument::After,
                };
                if !parts.has_guard() {
                    let coll = self.raw_docs();
                    let action = coll
                        .find_one_and_update(filter.filter, parts.update)
                        .upsert(o.upsert)
                        .return_document(which);
                    let action = collated!(action, filter.collation);
                    let found = with_session!(action, s).map_err(|e| self.err(e, "update"))?;
                    return match found {
                        Some(raw) => self.open_one(raw).await.map(Some),
                        None => Ok(None),
                    };
                }
                let mut s = s;
                let Some(id) = self.pick(s.as_deref_mut(), &filter).await? else {
                    return Ok(None);
                };
                self.prepare_pushes(s.as_deref_mut(), &id, &parts).await?;
                let coll = self.raw_docs();
                let action = coll
                    .find_one_and_update(
                        guarded(&id, Some(&filter.filter), &parts.guard),
                        parts.update.clone(),
                    )
                    .return_document(which);
                let action = collated!(action, filter.collation.clone());
                let found =
                    with_session!(action, s.as_deref_mut()).map_err(|e| self.err(e, "update"))?;
                match found {
                    Some(raw) => self.open_one(raw).await.map(Some),
                    None => self
                        .full_or_gone(s, &id, Some(&filter), &parts, None)
                        .await
                        .map(|()| None),
                }
            },
        )
    }

    /// Before an update with bounded pushes: refuses a push that can never
    /// fit or whose items alone exceed 16 MiB (nothing sent), and sets an
    /// `Option` array stored as null to `[]`.
    async fn prepare_pushes(
        &self,
        mut session: Option<&mut ClientSession>,
        id: &Bson,
        parts: &UpdateParts,
    ) -> Result<()> {
        for push in &parts.pushes {
            if push.too_many() {
                return Err(push.full(M::COLLECTION, id));
            }
            push.check_size::<M>(id)?;
        }
        for push in parts.pushes.iter().filter(|p| p.nullable) {
            crate::write::embed::null_to_empty(self, session.as_deref_mut(), id, push.path).await?;
        }
        Ok(())
    }

    /// The update of the document `id` (that also matches `also`, and is at
    /// version `expected` when given) under the guards of its bounded
    /// pushes, with the version and timestamps the model keeps.
    async fn update_guarded(
        &self,
        mut session: Option<&mut ClientSession>,
        id: &Bson,
        also: Option<Matching>,
        mut parts: UpdateParts,
        expected: Option<i64>,
    ) -> Result<UpdateResult> {
        let version = match (expected, M::VERSION) {
            (Some(v), Some((name, _))) => Some((name, v)),
            (Some(_), None) => {
                return Err(Error::Model(format!(
                    "`if_version` needs a version: `{}` has no `#[document(version)]`; nothing was sent",
                    M::NAME
                )))
            }
            (None, _) => None,
        };
        crate::model::stamp::updated::<M>(&mut parts.update, false)?;
        self.prepare_pushes(session.as_deref_mut(), id, &parts)
            .await?;
        let mut filter = guarded(id, also.as_ref().map(|a| &a.filter), &parts.guard);
        if let Some((name, v)) = version {
            filter.insert(name, v);
        }
        let coll = self.raw();
        let action = coll.update_one(filter, std::mem::take(&mut parts.update));
        let action = collated!(action, also.as_ref().and_then(|a| a.collation.clone()));
        let r = with_session!(action, session.as_deref_mut()).map_err(|e| self.err(e, "update"))?;
        if r.matched_count == 0 && (parts.has_guard() || version.is_some()) {
            self.full_or_gone(session, id, also.as_ref(), &parts, version)
                .await?;
        }
        Ok(result(r))
    }

    /// An update with no bounded push (so no guard) of the first document
    /// `filter` matches, or of every one (`many`), with the version and
    /// timestamps the model keeps.
    async fn update_plain(
        &self,
        session: Option<&mut ClientSession>,
        filter: Matching,
        mut parts: UpdateParts,
        upsert: bool,
        many: bool,
    ) -> Result<UpdateResult> {
        crate::model::stamp::updated::<M>(&mut parts.update, upsert)?;
        let coll = self.raw();
        let action = if many {
            coll.update_many(filter.filter, parts.update)
        } else {
            coll.update_one(filter.filter, parts.update)
        };
        let action = collated!(action, filter.collation);
        let r = with_session!(action.upsert(upsert), session).map_err(|e| self.err(e, "update"))?;
        Ok(result(r))
    }

    /// After a guarded update matched nothing (one `find` of the version
    /// and the guarded arrays): [`Error::Conflict`] when the document is at
    /// another version than `version`'s, [`Error::EmbedFull`] when it is
    /// there and the update pushes, `Ok` when it is gone (or no longer
    /// matches `also`).
    async fn full_or_gone(
        &self,
        session: Option<&mut ClientSession>,
        id: &Bson,
        also: Option<&Matching>,
        parts: &UpdateParts,
        version: Option<(&'static str, i64)>,
    ) -> Result<()> {
        let mut projection = doc! { "_id": 1 };
        for path in parts.guarded_paths() {
            projection.insert(path, 1);
        }
        if let Some((name, _)) = version {
            projection.insert(name, 1);
        }
        let coll = self.raw();
        let find = coll
            .find_one(guarded(id, also.map(|a| &a.filter), &BsonDocument::new()))
            .projection(projection);
        let find = collated!(find, also.and_then(|a| a.collation.clone()));
        let stored = with_session!(find, session).map_err(|e| self.err(e, "find in"))?;
        let Some(stored) = stored else {
            return Ok(());
        };
        if let Some((name, expected)) = version {
            let at = match stored.get(name) {
                Some(Bson::Int32(n)) => Some(i64::from(*n)),
                Some(Bson::Int64(n)) => Some(*n),
                _ => None,
            };
            if at != Some(expected) {
                return Err(self.conflict(id, expected));
            }
        }
        if parts.has_guard() {
            return Err(parts.full_error(M::COLLECTION, id, &stored));
        }
        Ok(())
    }
}

/// `{_id: id}`, with `also` and `guard` (the conditions of an update's
/// bounded pushes).
fn guarded(id: &Bson, also: Option<&BsonDocument>, guard: &BsonDocument) -> BsonDocument {
    let mut filter = doc! { "_id": id.clone() };
    let mut rest: Vec<Bson> = Vec::new();
    if let Some(also) = also.filter(|a| !a.is_empty()) {
        rest.push(Bson::Document(also.clone()));
    }
    // The guard's keys (`tags.9`, `$expr`) cannot clash with `_id`.
    filter.extend(guard.clone());
    if !rest.is_empty() {
        filter.insert("$and", rest);
    }
    filter
}

/// Refuses an update that pushes into a bounded array where its guard
/// cannot hold (`refuse`), naming the array: nothing is sent.
fn refuse_guarded(what: &str, refuse: bool, parts: &UpdateParts) -> Result<()> {
    match parts.guarded_paths().next() {
        Some(path) if refuse => Err(Error::Model(format!(
            "{what} cannot push into the bounded array `{path}`: the guard that keeps it within \
             its max holds for one existing document; push with `update` or `update_one` (no \
             upsert); nothing was sent"
        ))),
        _ => Ok(()),
    }
}

/// Refuses a multi-document update that writes a field of the model's
/// shard key, naming it: a sharded cluster changes a shard key's value one
/// document at a time only. Nothing is sent.
fn refuse_shard_key_change<M: Document>(parts: &UpdateParts) -> Result<()> {
    match M::SHARD_KEY.and_then(|key| key.written_by(&parts.update)) {
        Some(field) => Err(Error::Model(format!(
            "update_many cannot write `{field}`, a field of `{}`'s shard key: a sharded cluster \
             changes a shard key's value one document at a time only (`update`, `update_one` \
             or `replace`); nothing was sent",
            M::NAME
        ))),
        None => Ok(()),
    }
}

fn result(r: mongodb::results::UpdateResult) -> UpdateResult {
    UpdateResult {
        matched: r.matched_count,
        modified: r.modified_count,
        upserted_id: r.upserted_id,
    }
}
