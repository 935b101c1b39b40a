//! Seed 000's stuck room after its messages moved out: the room no longer
//! declares them, each message is a document of its own pointing at its
//! room, and [`MESSAGES`] is the move of the old embedded array. Shared by
//! the move's tests, its kill test and its benchmark.

use bson::oid::ObjectId;
use schema_core::{Document, MoveOut};
use serde::{Deserialize, Serialize};

/// A room, which no longer declares its messages.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "rooms")]
pub struct Room {
    #[serde(rename = "_id")]
    pub id: String,
}

/// A message in a collection of its own, pointing at its room; the index
/// `{room: 1, n: -1, _id: -1}` serves "the newest 20".
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "roomMessages")]
pub struct Message {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    #[reference(index, to = Room, sort(n = desc))]
    pub room: String,
    pub n: i32,
    pub text: String,
}

/// The move of the rooms' embedded `messages` into [`Message`]s.
pub const MESSAGES: MoveOut<Room, Message> = MoveOut::new("messages", Message::FIELDS.room);
