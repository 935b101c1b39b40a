//! Seed 004: polymorphic products in one collection (a book and a DVD
//! differ only in `details`, a Rust enum tagged by `type`); skus referenced
//! from the product; and the sku colors, which searches need, copied into
//! the product (the extended-reference pattern, `#[copy(from = skus, field =
//! color)]`), kept in sync with the skus in one transaction by
//! `Copies<Product>`. "Products with a white sku" is then one indexed query
//! on `products` instead of a scan of `skus` and an `$in`.
//!
//! `cargo run --example catalog` (uses `MONGODB_URI`, or starts a test server).

mod common;
mod models;

use common::{expect_plan, heading, show_plan, Result};
use models::catalog::{Details, Product, Sku};
use schema_core::bson::doc;
use schema_core::bson::oid::ObjectId;
use schema_core::prelude::*;
use schema_core::Copies;
use schema_core::{explain_find, FindShape, Schema};

const DATABASE: &str = "seed004_catalog";
/// Generated apparel products, besides the seed's three.
const GENERATED: usize = 500;
const PALETTE: [&str; 8] = [
    "black", "white", "red", "blue", "green", "grey", "navy", "yellow",
];
const SIZES: [&str; 3] = ["S", "M", "L"];

fn sku(size: &str, color: &str) -> Sku {
    Sku {
        id: ObjectId::new(),
        size: size.into(),
        color: color.into(),
    }
}

/// The distinct colors of `skus`, in sku order: what `colors` must hold.
fn colors_of(skus: &[Sku]) -> Vec<String> {
    let mut colors: Vec<String> = Vec::new();
    for s in skus {
        if !colors.contains(&s.color) {
            colors.push(s.color.clone());
        }
    }
    colors
}

fn product(name: &str, description: &str, price: f64, details: Details, skus: &[Sku]) -> Product {
    Product {
        id: ObjectId::new(),
        name: name.into(),
        description: description.into(),
        price,
        details,
        skus: skus.iter().map(|s| s.id).collect(),
        colors: colors_of(skus),
    }
}

/// Changes a sku's color, and the copies in its products in the same
/// transaction (`Copies::update`: the products are found on the `skus_1`
/// index the link declares).
async fn recolor(
    copies: &Copies<Product>,
    sku: &ObjectId,
    color: &str,
) -> schema_core::Result<bool> {
    let color = color.to_owned();
    copies
        .update::<Sku, _>(sku, || Sku::FIELDS.color.set(&color))
        .await
}

#[tokio::main]
async fn main() -> Result {
    let (client, db) = common::fresh_database(DATABASE).await?;
    common::setup(&db, &Schema::new().with::<Product>().with::<Sku>()).await?;
    let products = Repo::<Product>::new(&db);
    let skus = Repo::<Sku>::new(&db);

    heading("Polymorphic products in one collection: `details` differs by `type`");
    let book = product(
        "New Book",
        "A new book",
        48.99,
        Details::Book {
            isbn: "978-4-00-000000-0".into(),
            author: "Jane Writer".into(),
            size: "Paperback".into(),
        },
        &[],
    );
    let dvd = product(
        "New DVD",
        "A new DVD",
        60.99,
        Details::Dvd {
            director: "John Director".into(),
            actor: "Ann Actor".into(),
            media: "dvd".into(),
        },
        &[],
    );
    let shirt_skus = vec![sku("S", "black"), sku("M", "white")];
    let shirt = product(
        "New T-shirts",
        "A new T-shirt",
        19.99,
        Details::Apparel {
            material: "cotton".into(),
        },
        &shirt_skus,
    );
    skus.insert_many(&shirt_skus).await?;
    products
        .insert_many(&[book.clone(), dvd.clone(), shirt.clone()])
        .await?;
    for p in [&book, &dvd] {
        let stored = products.get(&p.id).await?.ok_or("missing product")?;
        let doc = schema_core::bson::serialize_to_document(&stored)?;
        println!(
            "{:8} price {:.2}  details: {}",
            stored.name,
            stored.price,
            doc.get_document("details")?
        );
        assert_eq!(&stored, p);
    }
    for kind in ["book", "dvd"] {
        // Two products: a scan on purpose (`details.type` has no index).
        let n = products.count(doc! { "details.type": kind }).scan().await?;
        println!("products with details.type = {kind:?}: {n}");
        assert_eq!(n, 1);
    }
    // The validator knows the tag: a product of an unknown type is refused.
    let mut stray = schema_core::bson::serialize_to_document(&book)?;
    stray.insert("_id", ObjectId::new());
    stray.insert("details", doc! { "type": "vinyl" });
    let refused = db
        .collection::<schema_core::bson::Document>(Product::COLLECTION)
        .insert_one(stray)
        .await
        .is_err();
    println!("a product with details.type \"vinyl\" (plain driver insert): refused by the validator: {refused}");
    assert!(refused);

    heading("Skus referenced from the product, their colors copied into it");
    let stored = products.get(&shirt.id).await?.ok_or("missing shirt")?;
    let listed = skus.get_many(&stored.skus).await?;
    for s in &listed {
        println!("  sku {} {:5}", s.size, s.color);
    }
    println!(
        "{}: skus {} ids, colors {:?}",
        stored.name,
        stored.skus.len(),
        stored.colors
    );
    assert_eq!(stored.colors, ["black", "white"]);

    // More apparel, deterministic: 1 to 3 skus each, colors from the palette.
    let mut all_skus = Vec::new();
    let mut generated = Vec::new();
    for i in 0..GENERATED {
        let own: Vec<Sku> = (0..1 + i % 3)
            .map(|k| sku(SIZES[k], PALETTE[(i * 5 + k * 3) % PALETTE.len()]))
            .collect();
        generated.push(product(
            &format!("T-shirt {i}"),
            "More apparel",
            9.99 + (i % 20) as f64,
            Details::Apparel {
                material: "cotton".into(),
            },
            &own,
        ));
        all_skus.extend(own);
    }
    skus.insert_many(&all_skus).await?;
    products.insert_many(&generated).await?;
    let (n_products, n_skus) = (
        products.count(Filter::all()).scan().await?,
        skus.count(Filter::all()).scan().await?,
    );
    println!("catalog: {n_products} products, {n_skus} skus");

    heading("Products with a white sku");
    let white = "white".to_owned();
    let expected = products
        .count(Product::FIELDS.colors.contains(&white))
        .await?;
    // The seed's reference-only way: the skus first, then the products.
    let sku_scan = explain_find(
        &db,
        Sku::COLLECTION,
        &FindShape {
            filter: Sku::FIELDS.color.eq(&white).into_document()?,
            ..FindShape::default()
        },
    )
    .await?;
    const W: usize = 63;
    show_plan(
        "reference only, 1 of 2: skus.find({color: \"white\"})",
        W,
        &sku_scan,
    );
    assert!(sku_scan.is_collscan(), "{sku_scan}");
    assert_eq!(sku_scan.docs_examined, n_skus);
    let white_skus: Vec<ObjectId> = skus
        .find(Sku::FIELDS.color.eq(&white))
        .scan() // the scan this comparison measures
        .all()
        .await?
        .into_iter()
        .map(|s| s.id)
        .collect();
    let by_ids = explain_find(
        &db,
        Product::COLLECTION,
        &FindShape {
            filter: doc! { Product::FIELDS.skus.name(): { "$in": &white_skus } },
            ..FindShape::default()
        },
    )
    .await?;
    show_plan(
        &format!(
            "reference only, 2 of 2: products.find({{skus: {{$in: [{} ids]}}}})",
            white_skus.len()
        ),
        W,
        &by_ids,
    );
    // The extended reference: one query on the product, on the `colors_1` index.
    let plan = explain_find(
        &db,
        Product::COLLECTION,
        &FindShape {
            filter: Product::FIELDS.colors.contains(&white).into_document()?,
            ..FindShape::default()
        },
    )
    .await?;
    show_plan(
        "extended reference, 1 query: products.find({colors: \"white\"})",
        W,
        &plan,
    );
    expect_plan(
        &plan,
        &["FETCH", "IXSCAN(colors_1)"],
        expected,
        expected,
        expected,
    );
    assert!(expected > 0);

    heading("A sku changes color: the copy follows, in one transaction");
    let copies = Copies::<Product>::new(&db);
    let m_white = shirt_skus[1].id;
    // In a transaction of ours that we abort: both writes go back.
    let mut session = client.start_session().await?;
    session.start_transaction().await?;
    let red = "red".to_owned();
    copies
        .update::<Sku, _>(&m_white, || Sku::FIELDS.color.set(&red))
        .session(&mut session)
        .await?;
    session.abort_transaction().await?;
    let sku_now = skus.get(&m_white).await?.ok_or("missing sku")?;
    let shirt_now = products.get(&shirt.id).await?.ok_or("missing shirt")?;
    println!(
        "recolor M white -> red in a transaction, then abort it:\n  sku M: {} | product colors: {:?} <- both rolled back, in sync",
        sku_now.color, shirt_now.colors
    );
    assert_eq!(sku_now.color, "white");
    assert_eq!(shirt_now.colors, ["black", "white"]);

    assert!(recolor(&copies, &m_white, "red").await?);
    let sku_now = skus.get(&m_white).await?.ok_or("missing sku")?;
    let shirt_now = products.get(&shirt.id).await?.ok_or("missing shirt")?;
    println!(
        "recolor M white -> red: sku M: {} | product colors: {:?}",
        sku_now.color, shirt_now.colors
    );
    assert_eq!(sku_now.color, "red");
    assert_eq!(shirt_now.colors, ["black", "red"]);
    let white_now = products
        .count(Product::FIELDS.colors.contains(&white))
        .await?;
    let red_shirt = products
        .count(
            Product::FIELDS.id.eq(&shirt.id) & Product::FIELDS.colors.contains(&"red".to_owned()),
        )
        .await?;
    println!(
        "products with a white sku: {expected} -> {white_now}; New T-shirts found by \"red\": {}",
        red_shirt == 1
    );
    assert_eq!((white_now, red_shirt), (expected - 1, 1));

    heading("Every product's colors match its skus");
    let report = copies.verify().await?;
    println!(
        "Copies::verify (products.colors from skus.color): {} products, {} out of sync",
        report.holders,
        report.out_of_sync.len()
    );
    assert!(report.is_consistent(), "{report:?}");
    // A copy broken behind the framework's back: verify finds it, repair fixes it.
    db.collection::<schema_core::bson::Document>(Product::COLLECTION)
        .update_one(
            doc! { "_id": shirt.id },
            doc! { "$set": { "colors": ["purple"] } },
        )
        .await?;
    let broken = copies.verify().await?;
    let fixed = copies.repair().await?;
    let after = copies.verify().await?;
    println!(
        "after a raw write of colors [\"purple\"]: verify finds {} out of sync; repair rewrites {fixed}; verify then finds {}",
        broken.out_of_sync.len(),
        after.out_of_sync.len()
    );
    assert_eq!(
        (broken.out_of_sync.len(), fixed, after.out_of_sync.len()),
        (1, 1, 0)
    );
    let report = Links::new(&db, Product::FIELDS.skus).verify().await?;
    println!(
        "Links::verify (products.skus): {} links, {} dangling, {} over the max",
        report.edges,
        report.asymmetric.len(),
        report.over_max.len()
    );
    assert!(report.is_consistent(), "{report:?}");
    println!("\ncatalog: ok");
    Ok(())
}
