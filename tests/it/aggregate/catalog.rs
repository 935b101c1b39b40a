//! Seed 004's catalog, whose products differ by `details` (an internally
//! tagged enum): products counted by kind and their average price per
//! kind, grouped on the enum's tag (`details.tag()`), against the same
//! pipeline sent raw.

use super::seeds::raw;
use crate::example_models::catalog::{Details, Product, Sku};
use crate::support;

use bson::doc;
use bson::oid::ObjectId;
use schema_core::prelude::*;
use schema_core::Schema;
use serde::Deserialize;

#[derive(Row, Deserialize, Debug, PartialEq)]
#[row(of = Product)]
struct PerKind {
    #[group(key = details.tag())]
    kind: String,
    #[group(count)]
    products: i64,
    #[group(avg = price)]
    average_price: f64,
    #[group(max = price)]
    dearest: f64,
}

fn products() -> Vec<Product> {
    (0..90u32)
        .map(|i| Product {
            id: ObjectId::new(),
            name: format!("product {i}"),
            description: String::new(),
            price: 1.5 * f64::from(1 + i % 13),
            details: match i % 3 {
                0 => Details::Book {
                    isbn: format!("isbn-{i}"),
                    author: "Ada".into(),
                    size: "A5".into(),
                },
                1 => Details::Dvd {
                    director: "Bo".into(),
                    actor: "Cy".into(),
                    media: "dvd".into(),
                },
                _ => Details::Apparel {
                    material: "cotton".into(),
                },
            },
            skus: vec![],
            colors: vec![],
        })
        .filter(|p| p.details.kind() != "apparel" || p.price > 6.0)
        .collect()
}

#[tokio::test]
async fn products_per_kind_and_their_average_price_match_a_raw_pipeline() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "agg_catalog").await;
    Schema::new()
        .with::<Product>()
        .with::<Sku>()
        .sync(&db)
        .await
        .unwrap();
    let repo = Repo::<Product>::new(&db);
    let all = products();
    repo.insert_many(&all).await.unwrap();

    let typed: Vec<PerKind> = repo
        .aggregate()
        .scan() // every product, on purpose
        .group::<PerKind>()
        .sort(PerKind::FIELDS.kind.asc())
        .all()
        .await
        .unwrap();
    let by_hand: Vec<PerKind> = raw(
        &db,
        "products",
        vec![
            doc! { "$group": {
                "_id": "$details.type",
                "products": { "$sum": 1 },
                "average_price": { "$avg": "$price" },
                "dearest": { "$max": "$price" },
            } },
            doc! { "$project": { "_id": 0, "kind": "$_id", "products": 1, "average_price": 1, "dearest": 1 } },
            doc! { "$sort": { "kind": 1 } },
        ],
    )
    .await;
    assert_eq!(typed, by_hand);
    let kinds: Vec<&str> = typed.iter().map(|r| r.kind.as_str()).collect();
    assert_eq!(kinds, ["apparel", "book", "dvd"]);
    for row in &typed {
        let of_kind: Vec<&Product> = all
            .iter()
            .filter(|p| p.details.kind() == row.kind)
            .collect();
        assert_eq!(row.products, of_kind.len() as i64);
        let average = of_kind.iter().map(|p| p.price).sum::<f64>() / of_kind.len() as f64;
        assert!((row.average_price - average).abs() < 1e-9, "{row:?}");
    }

    // Only one kind: a filter on the tag before the group.
    let books = repo
        .aggregate()
        .scan()
        .filter(Product::FIELDS.details.tag().eq("book"))
        .group::<PerKind>()
        .all()
        .await
        .unwrap();
    assert_eq!(books.len(), 1);
    assert_eq!(books[0], typed[1]);
}
