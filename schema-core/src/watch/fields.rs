//! An update's fields named by the model's typed field paths:
//! [`Change::changed`] reads the new value of a field the update set (by
//! its own path, or inside a parent the update set whole), and
//! [`Change::removed`] tells whether it removed one.

use bson::{Bson, Document as BsonDocument};
use serde::de::DeserializeOwned;

use super::Change;
use crate::error::{ChangeError, Error, Result};
use crate::model::Document;
use crate::typed::field::{Field, Typed};

impl<M: Document> Change<M> {
    /// The new value of `field` when this change is an update that set it:
    /// by its stored path (`status`, `address.city`), or inside a parent
    /// the update set whole (`address` set: its `city` read from it).
    /// `None` when the update did not set it, when it set only a part of it
    /// (`items.3` of `items`: read the whole value from `full`), when the
    /// parent it set holds no such field ([`removed`](Self::removed) is
    /// then true), and for any other kind of change. A value that does not
    /// fit the field's type is [`ChangeError::Undecodable`] naming the
    /// `_id` and the field, never the value.
    ///
    /// ```
    /// # use schema_core::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Document, Serialize, Deserialize, Debug)]
    /// # #[document(collection = "orders")]
    /// # struct Order {
    /// #     #[serde(rename = "_id")]
    /// #     id: String,
    /// #     status: String,
    /// # }
    /// # fn demo(change: schema_core::Change<Order>) -> schema_core::Result<()> {
    /// if let Some(status) = change.changed(Order::FIELDS.status) {
    ///     println!("the status became {}", status?);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn changed<T: DeserializeOwned, P: Typed>(
        &self,
        field: Field<M, T, P>,
    ) -> Option<Result<T>> {
        let Change::Update { id, changed, .. } = self else {
            return None;
        };
        let path = field.name();
        let value = set_at(changed, path)?.ok()?;
        Some(
            bson::deserialize_from_bson::<T>(value.clone())
                .map_err(|_| does_not_fit::<M>(id, path)),
        )
    }

    /// Whether this change is an update that removed `field`: by its
    /// stored path or a parent's (`$unset`), or by setting a parent whole
    /// without it. False for any other kind of change.
    pub fn removed<T, P>(&self, field: Field<M, T, P>) -> bool {
        let Change::Update {
            changed, removed, ..
        } = self
        else {
            return false;
        };
        let path = field.name();
        removed.iter().any(|r| within(path, r)) || matches!(set_at(changed, path), Some(Err(())))
    }
}

/// Whether `path` is `parent` or a path inside it.
fn within(path: &str, parent: &str) -> bool {
    path == parent
        || path
            .strip_prefix(parent)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// What the update's set fields `changed` say of `path`: `None` when
/// neither it nor a parent of it was set, `Some(Ok(value))` its new value,
/// `Some(Err(()))` when a parent was set whole without it.
fn set_at<'a>(changed: &'a BsonDocument, path: &str) -> Option<std::result::Result<&'a Bson, ()>> {
    if let Some(value) = changed.get(path) {
        return Some(Ok(value));
    }
    let (parent, value) = changed
        .iter()
        .filter(|(key, _)| within(path, key))
        .max_by_key(|(key, _)| key.len())?;
    let rest = &path[parent.len() + 1..];
    Some(inside(value, rest).ok_or(()))
}

/// The value at the dotted path `rest` inside `value` (a number steps into
/// an array).
fn inside<'a>(value: &'a Bson, rest: &str) -> Option<&'a Bson> {
    rest.split('.').try_fold(value, |value, key| match value {
        Bson::Document(doc) => doc.get(key),
        Bson::Array(items) => items.get(key.parse::<usize>().ok()?),
        _ => None,
    })
}

/// [`ChangeError::Undecodable`] for the field `path` of the update of `id`.
fn does_not_fit<M: Document>(id: &M::Id, path: &str) -> Error {
    let id = crate::model::codec::id_to_bson::<M>(id)
        .map(|id| crate::error::id_text(&id))
        .unwrap_or_else(|_| "(unreadable)".to_owned());
    Error::Change(Box::new(ChangeError::Undecodable {
        model: M::NAME,
        collection: M::COLLECTION,
        id,
        operation: "update".to_owned(),
        why: format!("its field `{path}` does not fit the model"),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn a_path_is_read_where_it_was_set_or_inside_its_parent() {
        let changed =
            doc! { "status": "paid", "address": { "city": "Oslo" }, "lines": [{ "n": 1 }] };
        assert_eq!(set_at(&changed, "status"), Some(Ok(&Bson::from("paid"))));
        assert_eq!(
            set_at(&changed, "address.city"),
            Some(Ok(&Bson::from("Oslo")))
        );
        assert_eq!(set_at(&changed, "address.zip"), Some(Err(())));
        assert_eq!(set_at(&changed, "lines.0.n"), Some(Ok(&Bson::from(1))));
        assert_eq!(set_at(&changed, "statusCode"), None);
        assert_eq!(set_at(&doc! { "items.3": 1 }, "items"), None);
        assert!(within("a.b", "a") && within("a", "a") && !within("ab", "a"));
    }
}
