//! Declared extended references (seed 004): `#[copy(from = ..., field =
//! ...)]` through a link (the product's colors of its skus) and through a
//! reference (a post's copy of its author's name), kept in sync by
//! `Copies::update` in one transaction, rolled back together, verified and
//! repaired.

use crate::support;

use bson::oid::ObjectId;
use bson::{doc, Document as BsonDocument};
use schema_core::prelude::*;
use schema_core::Copies;
use schema_core::{explain_find, FindShape, Schema};
use schema_testkit::failpoint::FAILPOINT;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "skus")]
struct Sku {
    #[serde(rename = "_id")]
    id: ObjectId,
    color: String,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "products", version, index(keys(colors = asc)))]
struct Product {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[many_to_many(one_sided, to = Sku, max = 20)]
    skus: Vec<ObjectId>,
    #[embed(max = 20)]
    #[copy(from = skus, field = color)]
    colors: Vec<String>,
    version: i64,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "authors")]
struct Author {
    #[serde(rename = "_id")]
    id: String,
    name: String,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    #[reference(index, to = Author)]
    author_id: String,
    #[copy(from = author_id, field = name)]
    author_name: Option<String>,
}

const COLORS: [&str; 4] = ["black", "white", "red", "blue"];

/// 200 products of 3 skus each, 600 skus; sku `i` has color `i % 4`, and
/// products share no sku but product 0 and 1 share sku 0.
async fn seed(db: &mongodb::Database) -> (Vec<Sku>, Vec<Product>) {
    Schema::new()
        .with::<Sku>()
        .with::<Product>()
        .with::<Author>()
        .with::<Post>()
        .sync(db)
        .await
        .unwrap();
    let skus: Vec<Sku> = (0..600)
        .map(|i| Sku {
            id: ObjectId::new(),
            color: COLORS[i % 4].into(),
        })
        .collect();
    let mut products: Vec<Product> = (0..200)
        .map(|p| {
            let own = &skus[p * 3..p * 3 + 3];
            Product {
                id: ObjectId::new(),
                skus: own.iter().map(|s| s.id).collect(),
                colors: Vec::new(),
                version: 0,
            }
        })
        .collect();
    products[1].skus.push(skus[0].id);
    for p in &mut products {
        let mut colors: Vec<String> = Vec::new();
        for id in &p.skus {
            let color = &skus.iter().find(|s| s.id == *id).unwrap().color;
            if !colors.contains(color) {
                colors.push(color.clone());
            }
        }
        p.colors = colors;
    }
    Repo::<Sku>::new(db).insert_many(&skus).await.unwrap();
    Repo::<Product>::new(db)
        .insert_many(&products)
        .await
        .unwrap();
    (skus, products)
}

async fn colors(db: &mongodb::Database, product: &ObjectId) -> Vec<String> {
    Repo::<Product>::new(db)
        .get(product)
        .await
        .unwrap()
        .unwrap()
        .colors
}

#[tokio::test]
async fn a_source_change_updates_every_holder_through_the_link_index() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "copies_sync").await;
    let (skus, products) = seed(&db).await;
    let copies = Copies::<Product>::new(&db);
    assert!(copies.verify().await.unwrap().is_consistent());

    // sku 0 is black and in products 0 and 1: make it green.
    log.clear();
    let green = "green".to_owned();
    let matched = copies
        .update::<Sku, _>(&skus[0].id, || Sku::FIELDS.color.set(&green))
        .await
        .unwrap();
    assert!(matched);
    let sent = log.take();
    println!("{sent:?}");
    let commit = sent
        .iter()
        .position(|c| c == "commitTransaction")
        .expect("a commit");
    assert_eq!(
        sent[..commit].iter().filter(|c| *c == "update").count(),
        3,
        "the sku and the two products that hold its color: {sent:?}"
    );
    assert!(
        !sent[commit..].iter().any(|c| c == "update"),
        "the check after the commit finds the copies right: {sent:?}"
    );
    assert_eq!(
        colors(&db, &products[0].id).await,
        ["green", "white", "red"]
    );
    assert_eq!(
        colors(&db, &products[1].id).await,
        ["blue", "black", "white", "green"]
    );
    let p0 = Repo::<Product>::new(&db)
        .get(&products[0].id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(p0.version, 1, "the holder's version is stamped");
    assert_eq!(colors(&db, &products[2].id).await, colors_of_seed(2));
    assert!(copies.verify().await.unwrap().is_consistent());

    // The holders are found on the link's index, not by a scan.
    let plan = explain_find(
        &db,
        "products",
        &FindShape {
            filter: doc! { "skus": skus[0].id },
            ..FindShape::default()
        },
    )
    .await
    .unwrap();
    println!("holders of a sku: {plan}");
    assert_eq!(plan.stages, ["FETCH", "IXSCAN(skus_1)"], "{plan}");
    assert_eq!(plan.returned, 2);

    // A change that leaves the copies as they are writes nothing but the
    // source (sku 5 keeps its color).
    log.clear();
    let same = skus[5].color.clone();
    copies
        .update::<Sku, _>(&skus[5].id, || Sku::FIELDS.color.set(&same))
        .await
        .unwrap();
    assert_eq!(log.take().iter().filter(|c| *c == "update").count(), 1);
}

#[tokio::test]
async fn a_failure_between_the_two_writes_rolls_both_back() {
    let _turn = FAILPOINT.lock().await;
    let app = "copies_rollback";
    let (client, _) = support::counting_client_with(|o| o.app_name = Some(app.into())).await;
    let db = support::fresh_db(&client, "copies_rollback").await;
    let (skus, products) = seed(&db).await;
    // The sku's update goes through; the product's (the second update)
    // fails, with a non-transient error.
    schema_testkit::failpoint::arm(
        &client,
        app,
        doc! { "skip": 1, "times": 1 },
        doc! { "failCommands": ["update"], "errorCode": 2, "appName": app },
    )
    .await;
    let copies = Copies::<Product>::new(&db);
    let err = copies
        .update::<Sku, _>(&skus[0].id, || Sku::FIELDS.color.set(&"green".to_owned()))
        .await;
    schema_testkit::failpoint::off(&client).await;
    assert!(err.is_err(), "{err:?}");
    let sku = Repo::<Sku>::new(&db)
        .get(&skus[0].id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(sku.color, "black", "the source's write is rolled back too");
    assert_eq!(
        colors(&db, &products[0].id).await,
        ["black", "white", "red"]
    );
    assert!(copies.verify().await.unwrap().is_consistent());
}

#[tokio::test]
async fn verify_finds_broken_copies_and_repair_fixes_exactly_those() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "copies_repair").await;
    let (_, products) = seed(&db).await;
    let raw = db.collection::<BsonDocument>("products");
    // Three copies broken behind the framework's back: wrong, empty, stale order.
    for (i, broken) in [
        (3usize, vec!["purple"]),
        (4, vec![]),
        (5, vec!["red", "white"]),
    ] {
        raw.update_one(
            doc! { "_id": products[i].id },
            doc! { "$set": { "colors": broken } },
        )
        .await
        .unwrap();
    }
    let copies = Copies::<Product>::new(&db);
    let report = copies.verify().await.unwrap();
    assert_eq!(report.holders, 200);
    let mut bad: Vec<String> = report
        .out_of_sync
        .iter()
        .map(|(id, _)| id.clone())
        .collect();
    bad.sort();
    let mut expected: Vec<String> = [3, 4, 5].iter().map(|&i| products[i].id.to_hex()).collect();
    expected.sort();
    assert_eq!(bad, expected);
    assert_eq!(copies.repair().await.unwrap(), 3);
    assert!(copies.verify().await.unwrap().is_consistent());
    assert_eq!(colors(&db, &products[3].id).await, colors_of_seed(3));
    assert_eq!(copies.repair().await.unwrap(), 0, "nothing left to fix");
}

fn colors_of_seed(p: usize) -> Vec<String> {
    (p * 3..p * 3 + 3)
        .map(|i| COLORS[i % 4].to_owned())
        .collect()
}

#[tokio::test]
async fn a_copy_through_a_reference_follows_its_parent_and_refresh_recomputes_one_holder() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "copies_reference").await;
    seed(&db).await;
    let authors = Repo::<Author>::new(&db);
    let posts = Repo::<Post>::new(&db);
    authors
        .insert(&Author {
            id: "ada".into(),
            name: "Ada".into(),
        })
        .await
        .unwrap();
    let new_post = |i: usize| Post {
        id: format!("p{i}"),
        author_id: "ada".into(),
        author_name: None,
    };
    posts
        .insert_many(&(0..50).map(new_post).collect::<Vec<_>>())
        .await
        .unwrap();
    let copies = Copies::<Post>::new(&db);
    // Inserted without the copy: verify says so, refresh fills one, repair the rest.
    assert_eq!(copies.verify().await.unwrap().out_of_sync.len(), 50);
    assert!(copies.refresh(&"p0".to_owned()).await.unwrap());
    assert!(
        !copies.refresh(&"p0".to_owned()).await.unwrap(),
        "already in sync"
    );
    assert_eq!(copies.repair().await.unwrap(), 49);

    copies
        .update::<Author, _>(&"ada".to_owned(), || {
            Author::FIELDS.name.set(&"Ada Lovelace".to_owned())
        })
        .await
        .unwrap();
    let names: Vec<Option<String>> = posts
        .find(Post::FIELDS.author_id.eq(&"ada".to_owned()))
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.author_name)
        .collect();
    assert_eq!(names.len(), 50);
    assert!(names.iter().all(|n| n.as_deref() == Some("Ada Lovelace")));

    // A model that holds no copy of `Sku`'s fields says so, nothing sent.
    let err = copies
        .update::<Sku, _>(&ObjectId::new(), || Sku::FIELDS.color.set(&"x".to_owned()))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("holds no copy"), "{err}");
}

#[tokio::test]
async fn concurrent_updates_of_two_sources_in_callers_transactions_are_found_and_refreshed() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "copies_skew").await;
    seed(&db).await;
    // One product over three skus: red, red, blue.
    let (c, a, b) = (ObjectId::new(), ObjectId::new(), ObjectId::new());
    let sku = |id, color: &str| Sku {
        id,
        color: color.into(),
    };
    Repo::<Sku>::new(&db)
        .insert_many(&[sku(c, "red"), sku(a, "red"), sku(b, "blue")])
        .await
        .unwrap();
    let product = Product {
        id: ObjectId::new(),
        skus: vec![c, a, b],
        colors: vec!["red".into(), "blue".into()],
        version: 0,
    };
    Repo::<Product>::new(&db).insert(&product).await.unwrap();
    let copies = Copies::<Product>::new(&db);

    // Two transactions of the caller's, interleaved: the first recolors `a`
    // blue (the copy stays [red, blue] in its snapshot, so it writes no
    // product), the second recolors `b` green, seeing `a` still red.
    let mut first = client.start_session().await.unwrap();
    let mut second = client.start_session().await.unwrap();
    first.start_transaction().await.unwrap();
    second.start_transaction().await.unwrap();
    let (blue, green) = ("blue".to_owned(), "green".to_owned());
    copies
        .update::<Sku, _>(&a, || Sku::FIELDS.color.set(&blue))
        .session(&mut first)
        .await
        .unwrap();
    copies
        .update::<Sku, _>(&b, || Sku::FIELDS.color.set(&green))
        .session(&mut second)
        .await
        .unwrap();
    first.commit_transaction().await.unwrap();
    second.commit_transaction().await.unwrap();
    assert_eq!(
        colors(&db, &product.id).await,
        ["red", "green"],
        "each saw its own snapshot"
    );

    // verify finds it, refresh (the caller's part after such commits) fixes it.
    let report = copies.verify().await.unwrap();
    assert_eq!(report.out_of_sync, [(product.id.to_hex(), "colors")]);
    assert!(copies.refresh(&product.id).await.unwrap());
    assert_eq!(colors(&db, &product.id).await, ["red", "blue", "green"]);
}
