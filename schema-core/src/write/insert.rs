//! `insert_many`, ordered or not, naming every document the server refused.

use super::*;

impl<M: Document> Repo<M> {
    /// Inserts documents in one `insert` (split by the driver when they are
    /// many); none when `docs` is empty. Every document is encoded, and
    /// checked against the 16 MiB limit, before anything is sent.
    ///
    /// When the server refuses some of them (a duplicate key, the
    /// validator), [`Error::InsertMany`] names each refused document (index,
    /// `_id`, why) and the documents inserted: ordered (the default; see
    /// `.ordered(false)`), those before
    /// the first refusal; unordered, all the others.
    pub fn insert_many<'a>(&'a self, docs: &'a [M]) -> Action<'a, (), InsertManyOptions> {
        let options = InsertManyOptions::default();
        Action::new(M::COLLECTION, "insert_many", options, move |s, o| {
            self.insert_many_opt(s, docs, o.ordered)
        })
    }

    async fn insert_many_opt(
        &self,
        session: Option<&mut ClientSession>,
        docs: &[M],
        ordered: bool,
    ) -> Result<()> {
        if docs.is_empty() {
            return Ok(());
        }
        let raws = docs
            .iter()
            .map(|doc| codec::encode(doc).and_then(crate::model::stamp::inserted::<M>))
            .collect::<Result<Vec<_>>>()?;
        let mut sealed = Vec::with_capacity(raws.len());
        for raw in raws {
            sealed.push(self.keys.seal::<M>(raw).await?);
        }
        let raws = sealed;
        match with_session!(self.raw_docs().insert_many(raws).ordered(ordered), session) {
            Ok(_) => Ok(()),
            Err(e) => Err(self.insert_many_error(e, docs, ordered)),
        }
    }

    /// [`Error::InsertMany`] when the server refused documents one by one;
    /// any other error as it is classified.
    fn insert_many_error(&self, e: mongodb::error::Error, docs: &[M], ordered: bool) -> Error {
        let write_errors = match e.kind.as_ref() {
            ErrorKind::InsertMany(m) if m.write_concern_error.is_none() => m.write_errors.as_ref(),
            _ => None,
        };
        let Some(write_errors) = write_errors.filter(|w| !w.is_empty()) else {
            return self.err(e, "insert into");
        };
        let mut failed: Vec<FailedInsert> = write_errors
            .iter()
            .map(|w| FailedInsert {
                index: w.index,
                id: docs
                    .get(w.index)
                    .and_then(|d| id_to_bson::<M>(d.id()).ok())
                    .map_or_else(|| "(unknown)".to_owned(), |id| id_text(&id)),
                reason: Error::from_write_error(
                    w.code,
                    w.code_name.as_deref(),
                    &w.message,
                    w.details.as_ref(),
                    M::COLLECTION,
                ),
            })
            .collect();
        failed.sort_by_key(|f| f.index);
        let first = failed.first().map_or(docs.len(), |f| f.index);
        let inserted = (0..docs.len())
            .filter(|i| !failed.iter().any(|f| f.index == *i) && (!ordered || *i < first))
            .collect();
        Error::InsertMany(Box::new(InsertManyFailure {
            collection: M::COLLECTION,
            ordered,
            total: docs.len(),
            inserted,
            failed,
        }))
    }
}
