//! Seed 000, the unbounded array and its fix: a room's messages have no
//! natural maximum, so they cannot be embedded (that does not compile; see
//! `tests/ui/unbounded/chat-room-messages.rs`). Each message is a document
//! of its own that points at its room.

use schema_core::bson::oid::ObjectId;
use schema_core::Document;
use serde::{Deserialize, Serialize};

/// `rooms`: the room keeps only metadata and a counter, so it stays tiny.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "rooms")]
pub struct Room {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    pub last_active: i32,
    pub message_count: i64,
}

/// `roomMessages`: one document per message, indexed `{roomId: 1, n: -1, _id: -1}`
/// so "the last 20 messages" reads 20 index keys.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "roomMessages")]
pub struct RoomMessage {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    #[reference(index, to = Room, sort(n = desc))]
    pub room_id: String,
    pub n: i64,
    pub text: String,
}
