//! The updates of an `#[embed(max = N)]` field: the bounded
//! [`push`](EmbedField::push) and [`push_all`](EmbedField::push_all), which
//! carry the guard of the bounded push, and the [`set`](EmbedField::set) of
//! the whole array, checked against its bound.

use bson::Bson;
use serde::Serialize;

use super::{Parts, Update};
use crate::error::{Error, Result};
use crate::model::bounded::{BoundedCollection, EmbedArray};
use crate::model::codec::value_to_bson;
use crate::model::Updatable;
use crate::typed::field::{EmbedField, Scope};
use crate::typed::path::{OutsideArrays, OutsideBuckets, OutsideVariants};
use crate::typed::push::BoundedPush;

impl<M: Scope, C, P> EmbedField<M, C, P>
where
    C: EmbedArray,
    C::Item: Serialize,
{
    /// Appends `item` only while the array holds fewer than `max` items: the
    /// update's filter gets the bounded push's guard (`{path.<max-1>:
    /// {$exists: false}}`; a set pushes with `$addToSet`, and counts only
    /// the items it does not hold yet). When the array is full the
    /// [`Repo`](crate::Repo) returns [`Error::EmbedFull`] and writes nothing
    /// (not even the rest of the update).
    ///
    /// ```
    /// use schema_core::prelude::*;
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Document, Serialize, Deserialize)]
    /// #[document(collection = "posts")]
    /// struct Post {
    ///     #[serde(rename = "_id")]
    ///     id: String,
    ///     #[embed(max = 10)]
    ///     tags: Vec<String>,
    ///     edits: i32,
    /// }
    ///
    /// let f = Post::FIELDS;
    /// let parts = (f.tags.push(&"rust".to_owned()) & f.edits.inc(&1)).into_parts()?;
    /// assert_eq!(parts.update, bson::doc! { "$inc": { "edits": 1 }, "$push": { "tags": "rust" } });
    /// assert_eq!(parts.guard, bson::doc! { "tags.9": { "$exists": false } });
    /// # Ok::<(), schema_core::Error>(())
    /// ```
    pub fn push(&self, item: &C::Item) -> Update<M>
    where
        P: OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        self.push_all(std::slice::from_ref(item))
    }

    /// Appends all of `items` or none (room for every one of them; on a set,
    /// for the ones it does not hold yet). More items than `max` is
    /// [`Error::EmbedFull`] before anything is sent. Two pushes into one
    /// array in one update are one push of both (one guard counts both).
    ///
    /// ```
    /// # use schema_core::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # use std::collections::BTreeSet;
    /// # #[derive(Document, Serialize, Deserialize)]
    /// # #[document(collection = "posts")]
    /// # struct Post {
    /// #     #[serde(rename = "_id")]
    /// #     id: String,
    /// #     #[embed(max = 10)]
    /// #     tags: Vec<String>,
    /// #     #[embed(max = 5)]
    /// #     labels: BTreeSet<String>,
    /// # }
    /// let f = Post::FIELDS;
    /// let two = f.tags.push_all(&["a".to_owned(), "b".to_owned()]).into_parts()?;
    /// assert_eq!(two.update, bson::doc! { "$push": { "tags": { "$each": ["a", "b"] } } });
    /// assert_eq!(two.guard, bson::doc! { "tags.8": { "$exists": false } });
    /// // A set: `$addToSet`, and a guard that counts only what it does not hold.
    /// let set = f.labels.push(&"x".to_owned()).into_parts()?;
    /// assert_eq!(set.update, bson::doc! { "$addToSet": { "labels": { "$each": ["x"] } } });
    /// assert!(set.guard.contains_key("$expr"));
    /// # Ok::<(), schema_core::Error>(())
    /// ```
    pub fn push_all(&self, items: &[C::Item]) -> Update<M>
    where
        P: OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        let items: Result<Vec<Bson>> = items
            .iter()
            .map(|item| value_to_bson(item, M::NAME, self.name()))
            .collect();
        let field = self.erase();
        let push = items.and_then(|items| {
            BoundedPush::new(&field, items)
                .map_err(|e| crate::model::codec::field_error(M::NAME, field.name(), e))
        });
        Update::from_parts(push.map(|push| Parts {
            pushes: if push.is_empty() {
                Vec::new()
            } else {
                vec![push]
            },
            ..Parts::default()
        }))
    }
}

impl<M, C, P> EmbedField<M, C, P>
where
    M: Scope,
    C: BoundedCollection,
{
    /// `{$set: {path: value}}` of the whole array (or map); more items than
    /// `max` is an [`Error::Model`] naming the field and its bound, before
    /// anything is sent.
    ///
    /// ```
    /// # use schema_core::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Document, Serialize, Deserialize)]
    /// # #[document(collection = "posts")]
    /// # struct Post {
    /// #     #[serde(rename = "_id")]
    /// #     id: String,
    /// #     #[embed(max = 2)]
    /// #     tags: Vec<String>,
    /// # }
    /// let f = Post::FIELDS;
    /// let two = f.tags.set(&vec!["a".to_owned(), "b".to_owned()]);
    /// assert_eq!(two.into_document()?, bson::doc! { "$set": { "tags": ["a", "b"] } });
    /// let three = f.tags.set(&vec!["a".to_owned(), "b".to_owned(), "c".to_owned()]);
    /// assert!(three.into_document().unwrap_err().to_string().contains("at most 2"));
    /// # Ok::<(), schema_core::Error>(())
    /// ```
    pub fn set(&self, value: &C) -> Update<M>
    where
        C: Serialize,
        P: OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        let name = self.name();
        let max = self.max();
        let value = value_to_bson(value, M::NAME, name).and_then(|value| {
            let len = match &value {
                Bson::Array(items) => items.len(),
                Bson::Document(map) => map.len(),
                _ => 0,
            };
            if len > max as usize {
                return Err(Error::Model(format!(
                    "`{}.{name}` holds at most {max} items; the update sets {len}",
                    M::NAME
                )));
            }
            Ok(value)
        });
        Update::op("$set", name, value)
    }
}
