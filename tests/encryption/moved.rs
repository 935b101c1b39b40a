//! The live move of an embedded array into a child collection
//! (`MoveOut`) writes the items as they are stored, in clear: into a child
//! model with encrypted fields it is refused before anything is sent,
//! naming the model, the field and the way (move into an earlier shape,
//! then encrypt with a migration). The parent keeps every item.

use crate::fields::setup;

use bson::oid::ObjectId;
use bson::{doc, Document as BsonDocument};
use schema_core::prelude::*;
use schema_core::{Error, MoveOptions, MoveOut};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "wards")]
pub struct Ward {
    #[serde(rename = "_id")]
    pub id: String,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "notes")]
pub struct Note {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    #[reference(index, to = Ward, sort(n = desc))]
    pub ward: String,
    pub n: i32,
    #[encrypt(random)]
    pub text: String,
}

const NOTES: MoveOut<Ward, Note> = MoveOut::new("notes", Note::FIELDS.ward);

#[tokio::test]
async fn a_move_into_an_encrypted_child_is_refused_before_sending() {
    let (_client, db, _crypt) = setup("enc_move", 91).await;
    let wards = db.collection::<BsonDocument>("wards");
    let notes: Vec<BsonDocument> = (0..5)
        .map(|n| doc! { "n": n, "text": format!("secret note {n}") })
        .collect();
    wards
        .insert_one(doc! { "_id": "w1", "notes": notes })
        .await
        .unwrap();
    let err = NOTES
        .run(&db, MoveOptions::default(), |_| {})
        .await
        .unwrap_err();
    match &err {
        Error::Encryption {
            action,
            model,
            field,
            ..
        } => {
            assert_eq!(*action, "move");
            assert_eq!(*model, Some("Note"));
            assert_eq!(field.as_deref(), Some("text"));
        }
        other => panic!("not the refusal: {other:?}"),
    }
    let text = format!("{err} {err:?}");
    assert!(
        text.contains("migration") && !text.contains("secret note"),
        "{text}"
    );
    let ward = wards.find_one(doc! { "_id": "w1" }).await.unwrap().unwrap();
    assert_eq!(ward.get_array("notes").unwrap().len(), 5);
    assert_eq!(
        db.collection::<BsonDocument>("notes")
            .count_documents(doc! {})
            .await
            .unwrap(),
        0
    );
}
