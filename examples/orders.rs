//! Seed 001, the order card: an order embeds its line items (read together,
//! at most 100) and references the products (shared, changing on their
//! own). Each line item keeps `unit_price`, the price at the time of sale,
//! while the product's `current_price` moves on. Pushing item 101 is refused
//! and changes nothing; the products of an order load in one query.
//!
//! `cargo run --example orders` (uses `MONGODB_URI`, or starts a test server).

mod common;
mod models;

use std::collections::HashMap;

use common::{heading, Result};
use models::orders::{Address, Customer, LineItem, Order, Product};
use schema_core::bson::oid::ObjectId;
use schema_core::bson::{doc, DateTime, Document as BsonDocument};
use schema_core::prelude::*;
use schema_core::transaction;
use schema_core::{Error, Schema};

const DATABASE: &str = "seed001_orders";
/// 2025-06-01T08:30:00Z, the seed order's `created_at`.
const CREATED_AT_MS: i64 = 1_748_766_600_000;

fn product(sku: &str, name: &str, price: f64, description: &str) -> Product {
    Product {
        id: ObjectId::new(),
        sku: sku.into(),
        name: name.into(),
        current_price: price,
        description: description.into(),
        category: "hardware".into(),
    }
}

fn alice() -> Customer {
    Customer {
        name: "Alice Chen".into(),
        email: "alice@example.com".into(),
        shipping_address: Address {
            street: "123 Main St".into(),
            city: "Taipei".into(),
            country: "TW".into(),
        },
    }
}

/// Rounds to cents (sums of prices in binary floating point drift).
fn cents(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// A line item at the product's price now: the price of the sale.
fn line(product: &Product, qty: i32) -> LineItem {
    LineItem {
        product_id: product.id,
        qty,
        unit_price: product.current_price,
    }
}

/// Adds a line item and its amount to the total, both or neither: the
/// bounded push and the `$inc` in one transaction.
async fn add_item(
    client: &schema_core::mongodb::Client,
    orders: &Repo<Order>,
    id: &ObjectId,
    item: &LineItem,
) -> schema_core::Result<()> {
    let amount = item.unit_price * f64::from(item.qty);
    transaction(client)
        .run(async |s| {
            orders
                .embed(Order::FIELDS.items)
                .push(id, item)
                .session(&mut *s)
                .await?;
            orders
                .update(id, Order::FIELDS.total.inc(&amount))
                .session(s)
                .await?;
            Ok(())
        })
        .await
}

#[tokio::main]
async fn main() -> Result {
    let (client, db) = common::fresh_database(DATABASE).await?;
    common::setup(&db, &Schema::new().with::<Order>().with::<Product>()).await?;
    let orders = Repo::<Order>::new(&db);
    let products = Repo::<Product>::new(&db);

    heading("Products (shared, referenced by id)");
    let mut catalog = vec![
        product("W-01", "Widget", 9.99, "A high-quality widget"),
        product("G-01", "Gadget", 24.99, "A handy gadget"),
    ];
    catalog.extend((3..=101).map(|i| {
        product(
            &format!("P-{i:03}"),
            &format!("Part {i}"),
            i as f64 + 0.5,
            "A spare part",
        )
    }));
    products.insert_many(&catalog).await?;
    let by_sku: HashMap<&str, &Product> = catalog.iter().map(|p| (p.sku.as_str(), p)).collect();
    for p in &catalog[..2] {
        println!(
            "{} {:7} current_price {:.2}",
            p.sku, p.name, p.current_price
        );
    }
    println!(
        "... {} products in all",
        products.count(Filter::all()).scan().await?
    );

    heading("An order embeds its line items: one read returns the whole order");
    let (widget, gadget) = (by_sku["W-01"], by_sku["G-01"]);
    let items = vec![line(widget, 2), line(gadget, 1)];
    let total = cents(items.iter().map(|i| i.unit_price * f64::from(i.qty)).sum());
    let order = Order {
        id: ObjectId::new(),
        order_number: "ORD-2025-4821".into(),
        status: "shipped".into(),
        customer: alice(),
        items,
        total,
        created_at: DateTime::from_millis(CREATED_AT_MS),
    };
    orders.insert(&order).await?;
    let stored = orders.get(&order.id).await?.ok_or("no order")?;
    println!(
        "{}: {} line items, customer {} ({}), total {:.2}",
        stored.order_number,
        stored.items.len(),
        stored.customer.name,
        stored.customer.shipping_address.city,
        stored.total
    );
    assert_eq!(stored, order);
    assert_eq!(stored.total, 44.97);

    heading("The product's price changes; the line item keeps the price of the sale");
    products
        .update(&widget.id, Product::FIELDS.current_price.set(&10.99))
        .await?;
    println!("W-01 current_price: 9.99 -> 10.99");

    heading("The products of an order: one query");
    let (counting, log) = common::counting_client().await?;
    let counted = Repo::<Product>::new(&counting.database(DATABASE));
    let order = orders.get(&order.id).await?.ok_or("no order")?;
    log.clear();
    let loaded = counted
        .get_many(order.items.iter().map(|i| &i.product_id))
        .await?;
    let sent = log.operations();
    println!(
        "{}: {} products loaded with {sent:?}",
        order.order_number,
        loaded.len()
    );
    assert_eq!(sent, ["find"]);
    let now: HashMap<ObjectId, &Product> = loaded.iter().map(|p| (p.id, p)).collect();
    for item in &order.items {
        let p = now[&item.product_id];
        println!(
            "  {} x {:7} paid {:.2} (line item unit_price) | now {:.2} (product current_price)",
            item.qty, p.name, item.unit_price, p.current_price
        );
    }
    assert_eq!(order.items[0].unit_price, 9.99);
    assert_eq!(now[&widget.id].current_price, 10.99);
    assert_eq!(order.total, 44.97, "the order's total is history too");

    heading("At most 100 line items: the bounded push");
    let big = Order {
        id: ObjectId::new(),
        order_number: "ORD-2025-4822".into(),
        status: "pending".into(),
        customer: alice(),
        items: Vec::new(),
        total: 0.0,
        created_at: DateTime::from_millis(CREATED_AT_MS + 3_600_000),
    };
    orders.insert(&big).await?;
    for p in &catalog[..100] {
        add_item(&client, &orders, &big.id, &line(p, 1)).await?;
    }
    let before = orders.get(&big.id).await?.ok_or("no order")?;
    println!(
        "{}: {} line items pushed (each push and its total in one transaction), total {:.2}",
        before.order_number,
        before.items.len(),
        before.total
    );
    assert_eq!(before.items.len(), Order::FIELDS.items.max() as usize);

    let raw = orders.collection().clone_with_type::<BsonDocument>();
    let raw_before = raw.find_one(doc! { "_id": big.id }).await?;
    let item101 = line(by_sku["P-101"], 1);
    let err = add_item(&client, &orders, &big.id, &item101)
        .await
        .err()
        .ok_or("item 101 must be refused")?;
    println!("push of item 101: {err}");
    assert!(
        matches!(
            err,
            Error::EmbedFull {
                collection: "orders",
                field: "items",
                max: 100,
                ..
            }
        ),
        "{err:?}"
    );
    let raw_after = raw.find_one(doc! { "_id": big.id }).await?;
    assert_eq!(raw_after, raw_before, "the order must be unchanged");
    let after = orders.get(&big.id).await?.ok_or("no order")?;
    println!(
        "  order unchanged: {} line items, total {:.2}",
        after.items.len(),
        after.total
    );

    // A write that bypasses the helper meets the collection's validator.
    let bypass = raw
        .update_one(
            doc! { "_id": big.id },
            doc! { "$push": { "items": schema_core::bson::serialize_to_bson(&item101)? } },
        )
        .await
        .err()
        .ok_or("the validator must refuse a 101st item")?;
    let code = match bypass.kind.as_ref() {
        schema_core::mongodb::error::ErrorKind::Write(
            schema_core::mongodb::error::WriteFailure::WriteError(w),
        ) => w.code,
        schema_core::mongodb::error::ErrorKind::Command(c) => c.code,
        _ => 0,
    };
    println!(
        "  a plain driver $push of item 101: refused by the validator (maxItems 100), code {code}"
    );
    assert_eq!(code, 121, "DocumentValidationFailure: {bypass}");
    assert_eq!(raw.find_one(doc! { "_id": big.id }).await?, raw_before);

    log.clear();
    let loaded = counted
        .get_many(after.items.iter().map(|i| &i.product_id))
        .await?;
    let sent = log.operations();
    println!("  its {} products loaded with {sent:?}", loaded.len());
    assert_eq!((loaded.len(), sent), (100, vec!["find".to_owned()]));
    println!("\norders: ok");
    Ok(())
}
