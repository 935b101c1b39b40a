//! The parents of a page of children: [`Repo::parents_of`], one `find`
//! with `$in` on their distinct parent ids.

use bson::{doc, Bson};
use mongodb::ClientSession;

use crate::error::Result;
use crate::exec::action::Action;
use crate::model::codec::id_to_bson;
use crate::model::Document;
use crate::query::keyset::raw_path;
use crate::repo::Repo;
use crate::typed::field::RefField;

impl<C: Document> Repo<C> {
    /// The parent of each child, aligned with `children` (`None` where the
    /// parent does not exist): one `find` with `$in` on the distinct parent
    /// ids, never one query per child.
    pub fn parents_of<'a, M: Document, T>(
        &'a self,
        field: RefField<M, T, C>,
        children: &'a [M],
    ) -> Action<'a, Vec<Option<C>>>
    where
        C: Clone,
    {
        let name = field.name();
        self.action("parents_of", move |s| self.parents_opt(s, name, children))
    }

    async fn parents_opt<M: Document>(
        &self,
        session: Option<&mut ClientSession>,
        field: &'static str,
        children: &[M],
    ) -> Result<Vec<Option<C>>>
    where
        C: Clone,
    {
        let mut refs = Vec::with_capacity(children.len());
        for child in children {
            let raw = bson::serialize_to_raw_document_buf(child)
                .map_err(|source| crate::model::codec::serialize_error(M::NAME, child, source))?;
            refs.push(raw_path(&raw, field));
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
