//! Typed paths into tagged enums: each variant's fields and the tag are
//! field constants below the enum's field (`Recipe::FIELDS.kind.glass`,
//! `Recipe::FIELDS.kind.tag()`), stored names followed, that filter and
//! sort against the real server, are indexed by their Rust path
//! (`index(keys(kind.glass = asc))`), and that the index guard and
//! `explain` agree on; the validator is the one the enum had before.

use crate::support;

use bson::doc;
use schema_core::prelude::*;
use schema_core::{Direction, Error, Schema};
use serde::{Deserialize, Serialize};

/// Internally tagged; `glass` is declared by two variants with one type (one
/// path serves both), `strength` is stored as `abv`.
#[derive(Embedded, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Kind {
    Dish {
        serves: i32,
    },
    Drink {
        glass: String,
        #[serde(rename = "abv")]
        strength: f64,
    },
    Punch {
        glass: String,
        serves: i32,
    },
}

#[derive(Document, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[document(
    collection = "recipes",
    index(keys(kind.glass = asc, kind.strength = desc)),
    index(keys(kind.tag() = asc, name = asc))
)]
struct Recipe {
    #[serde(rename = "_id")]
    id: String,
    name: String,
    kind: Kind,
}

/// The same collection without the declared indexes: the guard's other side.
#[derive(Document, Serialize, Deserialize, Clone, Debug)]
#[document(collection = "recipes")]
struct Unindexed {
    #[serde(rename = "_id")]
    id: String,
    name: String,
    kind: Kind,
}

/// Adjacently tagged: the fields live under the content key.
#[derive(Embedded, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "t", content = "c", rename_all = "camelCase")]
enum Payment {
    Card {
        #[serde(rename = "last4")]
        last_four: String,
        amount: i64,
    },
    BankTransfer {
        iban: String,
        amount: i64,
    },
    Cash,
}

#[derive(Document, Serialize, Deserialize, Clone, Debug)]
#[document(collection = "orders", index(keys(payment.amount = desc)))]
struct Order {
    #[serde(rename = "_id")]
    id: String,
    payment: Option<Payment>,
}

fn recipes() -> Vec<Recipe> {
    let dish = |id: &str, name: &str, serves| Recipe {
        id: id.to_owned(),
        name: name.to_owned(),
        kind: Kind::Dish { serves },
    };
    let drink = |id: &str, name: &str, glass: &str, strength| Recipe {
        id: id.to_owned(),
        name: name.to_owned(),
        kind: Kind::Drink {
            glass: glass.to_owned(),
            strength,
        },
    };
    vec![
        dish("r1", "stew", 4),
        drink("r2", "daiquiri", "coupe", 0.2),
        drink("r3", "martini", "coupe", 0.3),
        drink("r4", "mojito", "highball", 0.1),
        dish("r5", "soup", 2),
        Recipe {
            id: "r6".to_owned(),
            name: "bowl".to_owned(),
            kind: Kind::Punch {
                glass: "coupe".to_owned(),
                serves: 10,
            },
        },
        drink("r7", "gimlet", "coupe", 0.25),
    ]
}

async fn recipes_db(test: &str) -> mongodb::Database {
    let client = support::client().await;
    let db = support::fresh_db(&client, test).await;
    Schema::new().with::<Recipe>().sync(&db).await.unwrap();
    Repo::<Recipe>::new(&db)
        .insert_many(&recipes())
        .await
        .unwrap();
    db
}

fn ids(found: &[Recipe]) -> Vec<&str> {
    found.iter().map(|r| r.id.as_str()).collect()
}

#[test]
fn paths_follow_serde_names() {
    let f = Recipe::FIELDS;
    assert_eq!(f.kind.glass.name(), "kind.glass");
    assert_eq!(f.kind.strength.name(), "kind.abv");
    assert_eq!(f.kind.serves.name(), "kind.serves");
    assert_eq!(f.kind.tag().name(), "kind.type");
    let o = Order::FIELDS;
    assert_eq!(o.payment.last_four.name(), "payment.c.last4");
    assert_eq!(o.payment.amount.name(), "payment.c.amount");
    assert_eq!(o.payment.tag().name(), "payment.t");
    // The declared indexes, by stored paths.
    let keys: Vec<Vec<(String, Direction)>> =
        Recipe::indexes().iter().map(|i| i.keys.clone()).collect();
    let key = |k: &str, d| (k.to_owned(), d);
    assert_eq!(
        keys,
        vec![
            vec![
                key("kind.glass", Direction::Asc),
                key("kind.abv", Direction::Desc)
            ],
            vec![
                key("kind.type", Direction::Asc),
                key("name", Direction::Asc)
            ],
        ]
    );
    assert_eq!(
        Order::indexes()[0].keys,
        vec![key("payment.c.amount", Direction::Desc)]
    );
}

#[test]
fn a_tag_takes_only_variant_names() {
    let tag = Recipe::FIELDS.kind.tag();
    assert_eq!(
        tag.is_in(["dish", "punch"]).into_document().unwrap(),
        doc! { "kind.type": { "$in": ["dish", "punch"] } }
    );
    for wrong in [
        tag.eq("Drink"),
        tag.ne("drinks"),
        tag.is_in(["dish", "soup"]),
    ] {
        let err = wrong.into_document().unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, Error::Model(_)), "{text}");
        assert!(text.contains("`Recipe.kind.type`"), "{text}");
        assert!(text.contains("`dish`, `drink`, `punch`"), "{text}");
        assert!(!text.contains("soup") && !text.contains("drinks"), "{text}");
    }
}

/// The validator is the one the enum had before it had paths: one closed
/// branch per variant, combined with `oneOf`.
#[test]
fn validator_is_unchanged() {
    let schema = Recipe::json_schema();
    let kind = schema
        .get_document("properties")
        .unwrap()
        .get_document("kind")
        .unwrap();
    let branch = |tag: &str, fields: bson::Document, required: Vec<&str>| {
        let mut properties = doc! { "type": { "enum": [tag] } };
        properties.extend(fields);
        doc! {
            "bsonType": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        }
    };
    let int = i32::bson_schema();
    let text = doc! { "bsonType": "string" };
    let expected = doc! {
        "oneOf": [
            branch("dish", doc! { "serves": int.clone() }, vec!["type", "serves"]),
            branch(
                "drink",
                doc! { "glass": text.clone(), "abv": f64::bson_schema() },
                vec!["type", "glass", "abv"],
            ),
            branch(
                "punch",
                doc! { "glass": text, "serves": int },
                vec!["type", "glass", "serves"],
            ),
        ]
    };
    assert_eq!(kind, &expected, "{kind}");
}

#[tokio::test]
async fn variant_paths_filter_and_sort() {
    let db = recipes_db("enum_paths_filter").await;
    let repo = Repo::<Recipe>::new(&db);
    let f = Recipe::FIELDS;
    let all = recipes();
    // One path serves the two variants that declare `glass`.
    let coupes = repo
        .find(f.kind.glass.eq("coupe"))
        .sort(f.kind.glass.asc().then(f.kind.strength.desc()))
        .all()
        .await
        .unwrap();
    // Descending `abv`: a document without it (the punch) sorts last.
    assert_eq!(ids(&coupes), ["r3", "r7", "r2", "r6"]);
    let strong = repo
        .find(f.kind.glass.eq("coupe") & f.kind.strength.gte(&0.25))
        .all()
        .await
        .unwrap();
    let mut strong = ids(&strong);
    strong.sort();
    assert_eq!(strong, ["r3", "r7"]);
    let in_glasses = repo
        .find(f.kind.glass.is_in(["highball", "flute"]))
        .all()
        .await
        .unwrap();
    assert_eq!(ids(&in_glasses), ["r4"]);
    // The tag, by the variants' stored names.
    let drinks = repo
        .find(f.kind.tag().eq("drink"))
        .sort(f.kind.tag().asc().then(f.name.asc()))
        .all()
        .await
        .unwrap();
    assert_eq!(ids(&drinks), ["r2", "r7", "r3", "r4"]);
    let not_drinks = repo
        .find(f.kind.tag().is_in(["dish", "punch"]))
        .sort(f.kind.tag().asc().then(f.name.asc()))
        .all()
        .await
        .unwrap();
    assert_eq!(ids(&not_drinks), ["r5", "r1", "r6"]);
    // What the server selected is what a Rust predicate over the same data
    // selects; a field of a variant serves every variant that has it.
    let big = repo
        .find(f.kind.serves.gt(&3))
        .scan()
        .sort(f.kind.serves.desc())
        .all()
        .await
        .unwrap();
    let mut expect: Vec<&Recipe> = all
        .iter()
        .filter(
            |r| matches!(r.kind, Kind::Dish { serves } | Kind::Punch { serves, .. } if serves > 3),
        )
        .collect();
    expect.sort_by_key(|r| match r.kind {
        Kind::Dish { serves } | Kind::Punch { serves, .. } => -serves,
        Kind::Drink { .. } => 0,
    });
    assert_eq!(big.iter().collect::<Vec<_>>(), expect);
    // The whole enum field takes a typed update; the paths see the change.
    repo.update(
        &"r1".to_owned(),
        f.kind.set(&Kind::Drink {
            glass: "flute".to_owned(),
            strength: 0.12,
        }),
    )
    .await
    .unwrap();
    let flutes = repo.find(f.kind.glass.eq("flute")).all().await.unwrap();
    assert_eq!(ids(&flutes), ["r1"]);
    assert_eq!(
        flutes[0].kind,
        Kind::Drink {
            glass: "flute".to_owned(),
            strength: 0.12
        }
    );
}

#[tokio::test]
async fn declared_index_serves_variant_paths() {
    let db = recipes_db("enum_paths_index").await;
    // Created under the server's name for the stored keys.
    let listed = support::listed_index(&db, "recipes", "kind.glass_1_kind.abv_-1")
        .await
        .expect("the index on kind.glass, kind.abv");
    assert_eq!(
        listed.get_document("key").unwrap(),
        &doc! { "kind.glass": 1, "kind.abv": -1 }
    );
    assert!(support::listed_index(&db, "recipes", "kind.type_1_name_1")
        .await
        .is_some());

    let repo = Repo::<Recipe>::new(&db);
    let f = Recipe::FIELDS;
    let plan = repo
        .find(f.kind.glass.eq("coupe"))
        .sort(f.kind.strength.desc())
        .explain()
        .await
        .unwrap();
    println!("kind.glass = coupe, sort kind.abv desc: {plan}");
    assert!(
        plan.stages
            .iter()
            .any(|s| s == "IXSCAN(kind.glass_1_kind.abv_-1)"),
        "{plan}"
    );
    assert!(!plan.is_collscan() && !plan.sorts_in_memory(), "{plan}");
    assert_eq!(plan.returned, 4, "{plan}");
    assert_eq!(plan.docs_examined, 4, "{plan}");

    let plan = repo
        .find(f.kind.tag().eq("dish"))
        .sort(f.kind.tag().asc().then(f.name.asc()))
        .explain()
        .await
        .unwrap();
    println!("kind.type = dish, sort kind.type, name: {plan}");
    assert!(
        plan.stages
            .iter()
            .any(|s| s == "IXSCAN(kind.type_1_name_1)"),
        "{plan}"
    );
    assert!(!plan.sorts_in_memory(), "{plan}");
    assert_eq!(plan.returned, 2, "{plan}");

    // A variant field no index starts with is refused before anything is sent.
    let err = repo.find(f.kind.serves.gt(&3)).all().await.unwrap_err();
    assert!(matches!(err, Error::Unindexed { .. }), "{err}");
    assert!(err.to_string().contains("kind.serves"), "{err}");
}

#[tokio::test]
async fn guard_refuses_variant_paths_without_the_index() {
    let db = recipes_db("enum_paths_guard").await;
    let repo = Repo::<Unindexed>::new(&db);
    let f = Unindexed::FIELDS;
    let queries = [
        ("kind.glass", f.kind.glass.eq("coupe")),
        ("kind.abv", f.kind.strength.lt(&0.2)),
        ("kind.type", f.kind.tag().eq("drink")),
    ];
    for (path, filter) in queries {
        let err = repo.find(filter).all().await.unwrap_err();
        let text = err.to_string();
        println!("{path}: {text}");
        match &err {
            Error::Unindexed { model, query, .. } => {
                assert_eq!(*model, "Unindexed", "{text}");
                assert!(
                    query.equality.iter().chain(&query.range).any(|q| q == path),
                    "{text}"
                );
            }
            other => panic!("expected Unindexed, got {other:?}"),
        }
        assert!(text.contains(path), "{text}");
    }
    // The same query on the model that declares the index is served.
    let found = Repo::<Recipe>::new(&db)
        .find(Recipe::FIELDS.kind.glass.eq("coupe"))
        .all()
        .await
        .unwrap();
    assert_eq!(found.len(), 4);
}

#[tokio::test]
async fn adjacently_tagged_paths() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "enum_paths_adjacent").await;
    Schema::new().with::<Order>().sync(&db).await.unwrap();
    let repo = Repo::<Order>::new(&db);
    let order = |id: &str, payment| Order {
        id: id.to_owned(),
        payment,
    };
    repo.insert_many(&[
        order(
            "o1",
            Some(Payment::Card {
                last_four: "4242".to_owned(),
                amount: 1200,
            }),
        ),
        order(
            "o2",
            Some(Payment::BankTransfer {
                iban: "DE00".to_owned(),
                amount: 50_000,
            }),
        ),
        order("o3", Some(Payment::Cash)),
        order("o4", None),
        order(
            "o5",
            Some(Payment::Card {
                last_four: "0001".to_owned(),
                amount: 300,
            }),
        ),
    ])
    .await
    .unwrap();
    let f = Order::FIELDS;
    // `amount` is declared by two variants with one type: one path, indexed.
    let big = repo
        .find(f.payment.amount.gte(&1000))
        .sort(f.payment.amount.desc())
        .all()
        .await
        .unwrap();
    assert_eq!(
        big.iter().map(|o| o.id.as_str()).collect::<Vec<_>>(),
        ["o2", "o1"]
    );
    let plan = repo
        .find(f.payment.amount.gte(&1000))
        .sort(f.payment.amount.desc())
        .explain()
        .await
        .unwrap();
    println!("payment.c.amount >= 1000: {plan}");
    assert!(
        plan.stages
            .iter()
            .any(|s| s == "IXSCAN(payment.c.amount_-1)"),
        "{plan}"
    );
    let cards = repo
        .find(f.payment.tag().eq("card") & f.payment.last_four.eq("0001"))
        .scan()
        .all()
        .await
        .unwrap();
    assert_eq!(
        cards.iter().map(|o| o.id.as_str()).collect::<Vec<_>>(),
        ["o5"]
    );
    let cash = repo
        .find(f.payment.tag().eq("cash"))
        .scan()
        .all()
        .await
        .unwrap();
    assert_eq!(
        cash.iter().map(|o| o.id.as_str()).collect::<Vec<_>>(),
        ["o3"]
    );
    // The unit variant is stored by its tag alone; a tag name serde would
    // not write is refused before anything is sent.
    let err = repo
        .find(f.payment.tag().eq("Cash"))
        .scan()
        .all()
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("`card`, `bankTransfer`, `cash`"),
        "{err}"
    );
}

#[derive(Embedded, Serialize, Deserialize)]
struct Dims {
    #[serde(rename = "w")]
    width: i32,
}

#[derive(Embedded, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Item {
    stock_code: String,
    dims: Option<Dims>,
}

#[derive(Document, Serialize, Deserialize)]
#[document(
    collection = "shelves",
    index(keys(item.stock_code = asc, item.dims.width = desc))
)]
struct Shelf {
    #[serde(rename = "_id")]
    id: String,
    #[serde(rename = "it")]
    item: Item,
}

/// A struct sub-document's fields are indexed by their Rust path too, at
/// any depth, with every rename on the way followed.
#[test]
fn struct_paths_are_indexed_by_rust_path() {
    let keys = &Shelf::indexes()[0].keys;
    assert_eq!(
        keys,
        &vec![
            ("it.stockCode".to_owned(), Direction::Asc),
            ("it.dims.w".to_owned(), Direction::Desc),
        ]
    );
    assert_eq!(Shelf::indexes()[0].name, "it.stockCode_1_it.dims.w_-1");
}

#[derive(Embedded, Serialize, Deserialize)]
struct Note {
    text: String,
}

/// Generic, with a unit variant and a newtype variant: the struct variants'
/// fields have paths, the others only their tag.
#[derive(Embedded, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Event<T: Clone> {
    Started { at: T },
    Noted(Note),
    Stopped,
}

/// Unit variants only: the tag alone.
#[derive(Embedded, Serialize, Deserialize)]
#[serde(tag = "state")]
enum Phase {
    Open,
    Closed,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "logs", index(keys(event.at = asc)), index(keys(phase.tag() = asc)))]
struct Log {
    #[serde(rename = "_id")]
    id: String,
    event: Event<i64>,
    phase: Option<Phase>,
}

#[test]
fn generic_unit_and_newtype_variants() {
    let f = Log::FIELDS;
    assert_eq!(f.event.at.name(), "event.at");
    assert_eq!(f.event.tag().name(), "event.kind");
    assert_eq!(f.phase.tag().name(), "phase.state");
    assert_eq!(
        f.event
            .tag()
            .is_in(["started", "noted", "stopped"])
            .into_document()
            .unwrap(),
        doc! { "event.kind": { "$in": ["started", "noted", "stopped"] } }
    );
    assert!(f.phase.tag().eq("open").into_document().is_err());
    let keys: Vec<_> = Log::indexes().iter().map(|i| i.keys[0].0.clone()).collect();
    assert_eq!(keys, ["event.at", "phase.state"]);
}
