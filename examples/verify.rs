//! Checks the data the other examples left on the server given by
//! `MONGODB_URI` against the seeds' rules, and prints each check:
//! every model's validator and indexes are on the server, every bounded
//! array is within its `maxItems`, the two-sided links agree, the copied
//! colors match the skus, and `roomMessages` holds the room's 2,100
//! messages. `scripts/demo.sh` runs it last.
//!
//! `MONGODB_URI=... cargo run --example verify` (after the other examples).

mod common;
mod models;

use common::{heading, Result};
use futures_util::TryStreamExt;
use schema_core::bson::{doc, Bson, Document as BsonDocument};
use schema_core::mongodb::Database;
use schema_core::prelude::*;
use schema_core::Step;
use schema_core::{Relation, Schema};

/// The checks so far, and how many failed.
#[derive(Default)]
struct Checks {
    passed: usize,
    failed: usize,
}

impl Checks {
    fn check(&mut self, ok: bool, what: impl AsRef<str>) {
        println!("{} {}", if ok { "ok  " } else { "FAIL" }, what.as_ref());
        if ok {
            self.passed += 1;
        } else {
            self.failed += 1;
        }
    }
}

/// A number stored as any BSON numeric type.
fn number(value: Option<&Bson>) -> Option<i64> {
    match value? {
        Bson::Int32(n) => Some(i64::from(*n)),
        Bson::Int64(n) => Some(*n),
        Bson::Double(n) => Some(*n as i64),
        _ => None,
    }
}

/// The rules of one model, checked against its collection in `db`: the
/// validator is the model's, each bounded array has its `maxItems` in the
/// validator and no stored array exceeds it, and every declared index exists.
async fn model<M: Document>(checks: &mut Checks, db: &Database) -> Result {
    let name = format!("{}.{}", db.name(), M::COLLECTION);
    let specs: Vec<_> = db
        .list_collections()
        .filter(doc! { "name": M::COLLECTION })
        .await?
        .try_collect()
        .await?;
    let validator = specs.first().and_then(|s| s.options.validator.clone());
    // Setup's plan compares the server's validator with the model's.
    let plan = Schema::new().with::<M>().plan(db).await?;
    checks.check(
        !plan.steps.iter().any(|a| {
            matches!(
                a,
                Step::CreateCollection { .. } | Step::UpdateValidator { .. }
            )
        }),
        format!("{name}: the validator is the model's"),
    );
    let properties = validator
        .as_ref()
        .and_then(|v| v.get_document("$jsonSchema").ok())
        .and_then(|s| s.get_document("properties").ok());

    for relation in M::relations() {
        let (stored, max, what) = match relation {
            Relation::Embed { stored, max, .. } => (stored, max, "embed"),
            Relation::ManyToMany { stored, max, .. } => (stored, max, "many_to_many"),
            _ => continue,
        };
        let declared = properties
            .and_then(|p| p.get_document(stored).ok())
            .and_then(|f| number(f.get("maxItems")));
        checks.check(
            declared == Some(i64::from(max)),
            format!(
                "{name}.{stored} ({what}, max {max}): validator maxItems {}",
                declared.map_or("missing".to_owned(), |n| n.to_string())
            ),
        );
        let docs: Vec<BsonDocument> = db
            .collection::<BsonDocument>(M::COLLECTION)
            .find(doc! {})
            .projection(doc! { stored: 1 })
            .await?
            .try_collect()
            .await?;
        let largest = docs
            .iter()
            .filter_map(|d| d.get_array(stored).ok())
            .map(Vec::len)
            .max()
            .unwrap_or(0);
        checks.check(
            largest <= max as usize,
            format!(
                "{name}.{stored}: largest of {} stored arrays holds {largest} (max {max})",
                docs.len()
            ),
        );
    }

    let on_server = db
        .collection::<BsonDocument>(M::COLLECTION)
        .list_index_names()
        .await?;
    for spec in M::indexes() {
        checks.check(
            on_server.contains(&spec.name),
            format!("{name}: index {}", spec.name),
        );
    }
    Ok(())
}

async fn blog(checks: &mut Checks, db: &Database) -> Result {
    use models::blog::{Post, User};
    model::<User>(checks, db).await?;
    model::<Post>(checks, db).await?;
    let indexes = Repo::<Post>::new(db)
        .collection()
        .list_index_names()
        .await?;
    checks.check(
        indexes.iter().any(|i| i == "authorId_1_at_-1__id_-1"),
        "seed000_blog.posts has the index authorId_1_at_-1__id_-1",
    );
    let users = Repo::<User>::new(db).count(Filter::all()).scan().await?;
    let posts = Repo::<Post>::new(db).count(Filter::all()).scan().await?;
    checks.check(
        (users, posts) == (1000, 20_000),
        format!("seed000_blog: {users} users, {posts} posts"),
    );
    Ok(())
}

async fn school(checks: &mut Checks, db: &Database) -> Result {
    use models::school::{Course, Student};
    model::<Student>(checks, db).await?;
    model::<Course>(checks, db).await?;
    let report = Links::new(db, Student::FIELDS.course_ids).verify().await?;
    checks.check(
        report.is_consistent() && report.edges > 0,
        format!(
            "seed000_school: every student's courseIds and every course's studentIds agree \
             ({} edges, {} asymmetric)",
            report.edges,
            report.asymmetric.len()
        ),
    );
    Ok(())
}

async fn chat(checks: &mut Checks, db: &Database) -> Result {
    use models::chat::{Room, RoomMessage};
    model::<Room>(checks, db).await?;
    model::<RoomMessage>(checks, db).await?;
    let room = "room2".to_owned();
    let stored = Repo::<RoomMessage>::new(db)
        .children(RoomMessage::FIELDS.room_id, &room)
        .count()
        .await?;
    checks.check(
        stored == 2100,
        format!("seed000_chat.roomMessages holds {stored} messages of room2 (2100 expected)"),
    );
    Ok(())
}

async fn orders(checks: &mut Checks, db: &Database) -> Result {
    use models::orders::{Order, Product};
    model::<Order>(checks, db).await?;
    model::<Product>(checks, db).await?;
    let orders = Repo::<Order>::new(db);
    let full = orders
        .find_one(Order::FIELDS.order_number.eq(&"ORD-2025-4822".to_owned()))
        .await?;
    let items = full.map_or(0, |o| o.items.len());
    checks.check(
        items == 100,
        format!("seed001_orders: ORD-2025-4822 holds {items} line items (item 101 was refused)"),
    );
    let first = orders
        .find_one(Order::FIELDS.order_number.eq(&"ORD-2025-4821".to_owned()))
        .await?
        .ok_or("ORD-2025-4821 is missing")?;
    let widget = Repo::<Product>::new(db)
        .find_one(Product::FIELDS.sku.eq(&"W-01".to_owned()))
        .await?
        .ok_or("W-01 is missing")?;
    let paid = first
        .items
        .iter()
        .find(|i| i.product_id == widget.id)
        .map(|i| i.unit_price);
    checks.check(
        paid == Some(9.99) && widget.current_price == 10.99,
        format!(
            "seed001_orders: W-01 sold at {} on ORD-2025-4821 (unit_price), current_price {}",
            paid.map_or("?".to_owned(), |p| p.to_string()),
            widget.current_price
        ),
    );
    Ok(())
}

async fn catalog(checks: &mut Checks, db: &Database) -> Result {
    use models::catalog::{Product, Sku};
    use schema_core::Copies;
    model::<Product>(checks, db).await?;
    model::<Sku>(checks, db).await?;
    let products = Repo::<Product>::new(db)
        .find(Filter::all())
        .scan()
        .all()
        .await?;
    let copies = Copies::<Product>::new(db).verify().await?;
    checks.check(
        copies.is_consistent() && !products.is_empty(),
        format!(
            "seed004_catalog: the colors of {} products match their skus (Copies::verify: {} differ)",
            copies.holders,
            copies.out_of_sync.len()
        ),
    );
    let report = Links::new(db, Product::FIELDS.skus).verify().await?;
    checks.check(
        report.is_consistent(),
        format!(
            "seed004_catalog: products.skus: {} links, {} dangling",
            report.edges,
            report.asymmetric.len()
        ),
    );
    Ok(())
}

#[tokio::main]
async fn main() -> Result {
    if schema_testkit::server::is_embedded() {
        eprintln!(
            "verify checks the data the examples left on a server: set MONGODB_URI to it \
             (scripts/demo.sh does)"
        );
        std::process::exit(2);
    }
    let client = schema_testkit::server::connect().await?;
    let mut checks = Checks::default();
    heading("seed000_blog");
    blog(&mut checks, &client.database("seed000_blog")).await?;
    heading("seed000_school");
    school(&mut checks, &client.database("seed000_school")).await?;
    heading("seed000_chat");
    chat(&mut checks, &client.database("seed000_chat")).await?;
    heading("seed001_orders");
    orders(&mut checks, &client.database("seed001_orders")).await?;
    heading("seed004_catalog");
    catalog(&mut checks, &client.database("seed004_catalog")).await?;
    println!();
    println!(
        "verify: {} checks passed, {} failed",
        checks.passed, checks.failed
    );
    if checks.failed > 0 {
        std::process::exit(1);
    }
    Ok(())
}
