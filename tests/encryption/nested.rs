//! Encrypted fields of sub-documents (`#[encrypt]` on a field of a
//! `#[derive(Embedded)]` struct): reached from the document's root through
//! sub-documents, `Option`s and arrays, each under the key
//! `"<collection>.<stored path>"`; written as ciphertext, read back in
//! plain text, found by equality through an index on the nested path;
//! updates that write them (a sub-document set whole, an item pushed) have
//! their values encrypted, and those the server would compute on are
//! refused.

use bson::spec::BinarySubtype;
use bson::{doc, Bson, RawDocumentBuf};
use schema_core::prelude::*;
use schema_core::{Algorithm, Error, Schema};
use serde::{Deserialize, Serialize};

use super::fields::{clean, setup};

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Card {
    #[encrypt(deterministic)]
    pub number: String,
    pub holder: String,
}

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    #[encrypt(deterministic)]
    pub tax_id: String,
    #[encrypt(random)]
    pub diagnosis: Option<String>,
    pub card: Card,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "members", index(keys("profile.taxId" = asc)))]
pub struct Member {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    pub profile: Profile,
    #[embed(max = 5)]
    pub cards: Vec<Card>,
    pub backup: Option<Card>,
}

const SECRETS: &[&str] = &[
    "TAX-0005",
    "4000-9999",
    "4000-7777",
    "TAX-0001",
    "TAX-0002",
    "asthma",
    "4000-1111",
    "4000-2222",
    "4000-3333",
];

fn member(id: &str, tax: &str) -> Member {
    Member {
        id: id.to_owned(),
        name: format!("member {id}"),
        profile: Profile {
            tax_id: tax.to_owned(),
            diagnosis: Some("asthma".to_owned()),
            card: Card {
                number: "4000-1111".to_owned(),
                holder: "A".to_owned(),
            },
        },
        cards: vec![
            Card {
                number: "4000-2222".to_owned(),
                holder: "B".to_owned(),
            },
            Card {
                number: "4000-3333".to_owned(),
                holder: "C".to_owned(),
            },
        ],
        backup: None,
    }
}

/// The stored value at a dotted path (through arrays: every item's).
fn at<'a>(doc: &'a bson::Document, path: &str) -> Vec<&'a Bson> {
    let (first, rest) = match path.split_once('.') {
        Some((f, r)) => (f, Some(r)),
        None => (path, None),
    };
    let Some(value) = doc.get(first) else {
        return Vec::new();
    };
    match (value, rest) {
        (value, None) => vec![value],
        (Bson::Document(inner), Some(rest)) => at(inner, rest),
        (Bson::Array(items), Some(rest)) => items
            .iter()
            .filter_map(|i| i.as_document())
            .flat_map(|i| at(i, rest))
            .collect(),
        _ => Vec::new(),
    }
}

#[test]
fn the_model_lists_every_encrypted_path_with_its_key() {
    let encrypted = Member::encrypted();
    let listed: Vec<(&str, &str, Algorithm)> = encrypted
        .iter()
        .map(|f| (f.path.as_str(), f.key.as_str(), f.algorithm))
        .collect();
    assert_eq!(
        listed,
        [
            (
                "profile.taxId",
                "members.profile.taxId",
                Algorithm::Deterministic
            ),
            (
                "profile.diagnosis",
                "members.profile.diagnosis",
                Algorithm::Random
            ),
            (
                "profile.card.number",
                "members.profile.card.number",
                Algorithm::Deterministic
            ),
            (
                "cards.number",
                "members.cards.number",
                Algorithm::Deterministic
            ),
            (
                "backup.number",
                "members.backup.number",
                Algorithm::Deterministic
            ),
        ]
    );
    // The sub-document's validator declares the ciphertext.
    let schema = Member::json_schema();
    let profile = schema
        .get_document("properties")
        .unwrap()
        .get_document("profile")
        .unwrap();
    let tax = profile
        .get_document("properties")
        .unwrap()
        .get_document("taxId")
        .unwrap();
    assert_eq!(tax, &doc! { "bsonType": "binData" });
}

#[tokio::test]
async fn nested_fields_are_written_encrypted_and_read_back() {
    let (_client, db, crypt) = setup("enc_nested_rw", 31).await;
    let report = Schema::new()
        .with::<Member>()
        .with_encryption(crypt.clone())
        .sync(&db)
        .await
        .unwrap();
    let keys = report
        .applied
        .iter()
        .filter(|s| matches!(s, schema_core::Step::CreateDataKey { .. }))
        .count();
    assert_eq!(keys, 5);
    let repo = Repo::<Member>::new(&db).with_encryption(crypt);
    let mut ada = member("ada", "TAX-0001");
    ada.backup = Some(Card {
        number: "4000-1111".to_owned(),
        holder: "D".to_owned(),
    });
    repo.insert(&ada).await.unwrap();
    repo.insert_many(&[member("bob", "TAX-0002")])
        .await
        .unwrap();

    let raw = db
        .collection::<RawDocumentBuf>("members")
        .find_one(doc! { "_id": "ada" })
        .await
        .unwrap()
        .unwrap();
    let stored = bson::Document::try_from(raw.as_ref()).unwrap();
    for path in [
        "profile.taxId",
        "profile.diagnosis",
        "profile.card.number",
        "cards.number",
        "backup.number",
    ] {
        let values = at(&stored, path);
        assert!(!values.is_empty(), "{path} is stored");
        for value in values {
            assert!(
                matches!(value, Bson::Binary(b) if b.subtype == BinarySubtype::Encrypted),
                "{path}: {value:?}"
            );
        }
    }
    assert_eq!(
        at(&stored, "cards.holder"),
        [&Bson::from("B"), &Bson::from("C")],
        "plain fields stay plain"
    );
    for secret in SECRETS {
        assert!(
            !raw.as_bytes()
                .windows(secret.len())
                .any(|w| w == secret.as_bytes()),
            "{secret}"
        );
    }
    assert_eq!(
        repo.get(&"ada".to_owned()).await.unwrap(),
        Some(ada.clone())
    );

    // Equality on a nested deterministic path, through its index.
    let f = Member::FIELDS;
    let found = repo
        .find_one(f.profile.tax_id.eq("TAX-0002"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.id, "bob");
    let plan = repo
        .find(f.profile.tax_id.eq("TAX-0001"))
        .explain()
        .await
        .unwrap();
    assert!(
        plan.shape().contains("IXSCAN(profile.taxId_1)"),
        "{}",
        plan.shape()
    );
    // An array item's field, by the same dotted path.
    let both = repo
        .find(f.cards.number.eq("4000-3333"))
        .scan()
        .all()
        .await
        .unwrap();
    assert_eq!(both.len(), 2);

    // Updates that write encrypted fields have their values encrypted: a
    // sub-document set whole, an item pushed, a raw `$set` of the path.
    let mut profile = ada.profile.clone();
    profile.tax_id = "TAX-0005".to_owned();
    assert!(repo
        .update(&"ada".to_owned(), f.profile.set(&profile))
        .await
        .unwrap());
    let card = Card {
        number: "4000-9999".to_owned(),
        holder: "E".to_owned(),
    };
    assert!(repo
        .update(&"ada".to_owned(), f.cards.push(&card))
        .await
        .unwrap());
    repo.embed(f.cards)
        .push(&"ada".to_owned(), &card)
        .await
        .unwrap();
    repo.update(
        &"bob".to_owned(),
        doc! { "$set": { "profile.card.number": "4000-7777" } },
    )
    .await
    .unwrap();
    for id in ["ada", "bob"] {
        let raw = db
            .collection::<RawDocumentBuf>("members")
            .find_one(doc! { "_id": id })
            .await
            .unwrap()
            .unwrap();
        for secret in ["TAX-0005", "4000-9999", "4000-7777"] {
            assert!(
                !raw.as_bytes()
                    .windows(secret.len())
                    .any(|w| w == secret.as_bytes()),
                "{id} shows {secret}"
            );
        }
        let stored = bson::Document::try_from(raw.as_ref()).unwrap();
        for value in at(&stored, "cards.number")
            .into_iter()
            .chain(at(&stored, "profile.taxId"))
        {
            assert!(
                matches!(value, Bson::Binary(b) if b.subtype == BinarySubtype::Encrypted),
                "{id}: {value:?}"
            );
        }
    }
    let read = repo.get(&"ada".to_owned()).await.unwrap().unwrap();
    assert_eq!(read.profile.tax_id, "TAX-0005");
    assert_eq!(read.cards.len(), 4);
    assert_eq!(read.cards[3], card);
    assert_eq!(
        repo.find_one(f.profile.tax_id.eq("TAX-0005"))
            .await
            .unwrap()
            .map(|m| m.id),
        Some("ada".to_owned())
    );
    let bob = repo.get(&"bob".to_owned()).await.unwrap().unwrap();
    assert_eq!(bob.profile.card.number, "4000-7777");

    // What the server would compute on, or a path below an encrypted
    // field, is refused before anything is sent.
    for update in [
        doc! { "$inc": { "profile.taxId": 1 } },
        doc! { "$set": { "profile.taxId.part": "TAX" } },
        doc! { "$pull": { "cards": { "number": "4000-9999" } } },
        doc! { "$min": { "profile.card": { "number": "0" } } },
    ] {
        let err = repo
            .update(&"ada".to_owned(), update.clone())
            .await
            .unwrap_err();
        let text = clean_nested(&err);
        assert!(
            matches!(
                err,
                Error::Encryption {
                    action: "update",
                    ..
                }
            ),
            "{update}: {err:?}"
        );
        assert!(text.contains("nothing was sent"), "{text}");
    }
    // A plain field beside them is updated as usual.
    assert!(repo
        .update(&"ada".to_owned(), f.name.set("Ada"))
        .await
        .unwrap());
    // A filter on the sub-document that holds one is refused.
    let err = repo
        .find(f.profile.eq(&ada.profile))
        .scan()
        .all()
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Encryption {
                action: "query",
                ..
            }
        ),
        "{err:?}"
    );
    clean(&err);
    // The replacement is encrypted.
    let mut changed = repo.get(&"ada".to_owned()).await.unwrap().unwrap();
    changed.profile.tax_id = "TAX-0009".to_owned();
    assert!(repo.replace(&changed).await.unwrap());
    assert_eq!(
        repo.find_one(f.profile.tax_id.eq("TAX-0009"))
            .await
            .unwrap(),
        Some(changed)
    );
}

fn clean_nested(err: &Error) -> String {
    let text = format!("{err} | {err:?}");
    for secret in SECRETS {
        assert!(!text.contains(secret), "the error shows {secret:?}: {text}");
    }
    text
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "charts", index(keys("profile.diagnosis" = asc)))]
pub struct Chart {
    #[serde(rename = "_id")]
    pub id: String,
    pub profile: Profile,
}

#[test]
fn an_index_into_a_random_field_of_a_sub_document_is_refused_by_setup() {
    let err = Schema::new().with::<Chart>().check().unwrap_err();
    let text = clean_nested(&err);
    assert!(
        matches!(&err, Error::Encryption { action: "index", field: Some(f), .. } if f == "profile.diagnosis"),
        "{err:?}"
    );
    assert!(
        text.contains("profile.diagnosis_1") && text.contains("charts.profile.diagnosis"),
        "{text}"
    );
}
