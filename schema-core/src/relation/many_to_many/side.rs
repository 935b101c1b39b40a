//! One side of a link ([`Side`]: a collection, its id array, the array's
//! max and how its model stamps an update) and the writes and reads of one
//! id in one document's array: the bounded `$addToSet`, the `$pull`, and
//! whether the array holds an id.

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::{ClientSession, Database};

use crate::error::{id_text, Error, Result};
use crate::txn::with_session;

/// One side of a link: a collection, its id array and the array's max.
#[derive(Clone, Copy)]
pub(crate) struct Side {
    pub(crate) collection: &'static str,
    pub(crate) field: &'static str,
    pub(crate) max: u32,
    /// Adds the version and timestamps its model keeps to an update.
    pub(crate) stamp: fn(&mut BsonDocument, bool) -> Result<()>,
}

impl Side {
    /// For a side that is only read: no stamp.
    pub(crate) fn no_stamp(_update: &mut BsonDocument, _upsert: bool) -> Result<()> {
        Ok(())
    }

    /// The condition that the array has room for `k` more ids (it holds at
    /// most `max - k`: no element at that index); `None` when `k` is over
    /// the max.
    pub(super) fn room_for(&self, k: usize) -> Option<BsonDocument> {
        let last = (self.max as usize).checked_sub(k)?;
        let mut room = BsonDocument::new();
        room.insert(format!("{}.{last}", self.field), doc! { "$exists": false });
        Some(room)
    }
}

/// `$addToSet` of `value` to the array of `side` in the document `id`, if
/// the array has room or already holds it, stamped as the side's model
/// stamps its updates: [`Error::LinkFull`] when it is full,
/// [`Error::NotFound`] when the document is missing.
pub(crate) async fn add_to(
    db: &Database,
    mut session: Option<&mut ClientSession>,
    side: Side,
    id: &Bson,
    value: &Bson,
) -> Result<()> {
    let room = match side.room_for(1) {
        None => doc! { side.field: value.clone() },
        Some(room) => doc! { "$or": [ { side.field: value.clone() }, room ] },
    };
    let mut filter = doc! { "_id": id.clone() };
    filter.extend(room);
    let coll = db.collection::<BsonDocument>(side.collection);
    let mut update = doc! { "$addToSet": { side.field: value.clone() } };
    (side.stamp)(&mut update, false)?;
    let r = with_session!(coll.update_one(filter, update), session.as_deref_mut())
        .map_err(|e| Error::from_server(e, "link in", side.collection))?;
    if r.matched_count > 0 {
        return Ok(());
    }
    let exists = with_session!(
        coll.find_one(doc! { "_id": id.clone() })
            .projection(doc! { "_id": 1 }),
        session
    )
    .map_err(|e| Error::from_server(e, "find in", side.collection))?;
    Err(match exists {
        Some(_) => Error::LinkFull {
            collection: side.collection,
            id: id_text(id),
            field: side.field,
            max: side.max,
        },
        None => Error::NotFound {
            collection: side.collection,
            id: id_text(id),
        },
    })
}

/// `$pull` of `value` from the array of `side` in the document `id`,
/// stamped as the side's model stamps its updates.
pub(crate) async fn pull_from(
    db: &Database,
    session: Option<&mut ClientSession>,
    side: Side,
    id: &Bson,
    value: &Bson,
) -> Result<()> {
    let coll = db.collection::<BsonDocument>(side.collection);
    let mut update = doc! { "$pull": { side.field: value.clone() } };
    (side.stamp)(&mut update, false)?;
    with_session!(coll.update_one(doc! { "_id": id.clone() }, update), session)
        .map_err(|e| Error::from_server(e, "unlink in", side.collection))?;
    Ok(())
}

/// Whether the document `id` of `side` exists, and whether its array
/// holds `value`.
pub(crate) async fn holds(
    db: &Database,
    session: Option<&mut ClientSession>,
    side: Side,
    id: &Bson,
    value: &Bson,
) -> Result<(bool, bool)> {
    let found = with_session!(
        db.collection::<BsonDocument>(side.collection)
            .find_one(doc! { "_id": id.clone() })
            .projection(doc! { side.field: 1 }),
        session
    )
    .map_err(|e| Error::from_server(e, "find in", side.collection))?;
    Ok(match found {
        None => (false, false),
        Some(doc) => (
            true,
            doc.get_array(side.field)
                .map(|a| a.contains(value))
                .unwrap_or(false),
        ),
    })
}
