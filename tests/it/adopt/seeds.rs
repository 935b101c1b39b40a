//! The seeds' databases, written with the raw driver as code that knew none
//! of the rules would have written them. Each builder writes into the
//! database it is given and returns nothing: the tests read back what they
//! need.
//!
//! - [`blog`] and [`school`]: seed 000's users and posts (an unindexed
//!   `authorId`), students and courses (id arrays on both sides, some links
//!   one-sided as a crash between the two writes leaves them).
//! - [`stuck_room`]: seed 000's chat room, 2,089 messages of 8,000 bytes,
//!   past the point where a push can succeed; [`long_room`], its lighter
//!   twin, past what the audit calls unbounded but far from 16 MiB.
//! - [`shop`]: seed 001's customers, products and orders (an unindexed
//!   `customer_id`, items referencing products with a price snapshot).
//! - [`library`]: seed 003's authors and books (an indexed `author_id`) and
//!   products with their reviews embedded.
//! - [`catalog`]: seed 004's items whose `type` decides the shape of
//!   `details`, products with sku ids and copied colors, and the skus.
//! - [`messy`]: one collection of mixed types, missing fields and deep
//!   nesting.
//! - [`helpdesk`]: agents and tickets whose numbers two versions of an
//!   application wrote as different BSON types (an int here, a long there,
//!   a double holding whole numbers as ints), the tickets indexed by
//!   assignee and date.

#![allow(dead_code)]

use mongodb::bson::{doc, oid::ObjectId, Bson, DateTime, Document};
use mongodb::{Database, IndexModel};

/// The first date the seeds use (2023-11-14), in milliseconds.
pub const EPOCH_MS: i64 = 1_700_000_000_000;

/// How many messages the stuck room holds: one more push fails (seed 000).
pub const STUCK_MESSAGES: i32 = 2089;

/// The text of one stuck-room message (seed 000's 8,000-byte pad).
pub fn pad() -> String {
    "x".repeat(8000)
}

async fn insert(db: &Database, name: &str, docs: Vec<Document>) {
    let coll = db.collection::<Document>(name);
    for chunk in docs.chunks(5_000) {
        coll.insert_many(chunk.to_vec()).await.unwrap();
    }
}

async fn index(db: &Database, name: &str, keys: Document) {
    db.collection::<Document>(name)
        .create_index(IndexModel::builder().keys(keys).build())
        .await
        .unwrap();
}

/// Seed 000's blog: `users` (1,000, a profile sub-document each) and
/// `posts` (`posts` of them, `authorId` naming a user, three tags, a date),
/// with no index on `authorId`.
pub async fn blog(db: &Database, posts: usize) {
    let users = (0..1000)
        .map(|i| {
            doc! {
                "_id": format!("user_{i}"),
                "email": format!("u{i}@example.test"),
                "profile": {
                    "displayName": format!("User {i}"),
                    "bio": "Writes algorithms.",
                    "joinedYear": 2020 + (i % 7),
                },
            }
        })
        .collect();
    insert(db, "users", users).await;
    let posts = (0..posts)
        .map(|i| {
            doc! {
                "_id": format!("post_{i}"),
                "authorId": format!("user_{}", i % 1000),
                "title": format!("Post {i}"),
                "tags": ["mongodb", "modeling", format!("tag{}", i % 5)],
                "at": DateTime::from_millis(EPOCH_MS + i as i64 * 60_000),
            }
        })
        .collect();
    insert(db, "posts", posts).await;
}

/// Seed 000's school: 40 `students` with `courseIds` and 8 `courses` with
/// `studentIds`, each student in two courses; the links of `one_sided`
/// students are written on the student's side only (as a crash between the
/// two writes leaves them).
pub async fn school(db: &Database, one_sided: usize) {
    let course_of = |s: usize, k: usize| format!("c_{}", (s + k * 3) % 8);
    let students = (0..40)
        .map(|s| {
            doc! {
                "_id": format!("student_{s}"),
                "name": format!("S{s}"),
                "courseIds": [course_of(s, 0), course_of(s, 1)],
            }
        })
        .collect();
    insert(db, "students", students).await;
    let courses = (0..8)
        .map(|c| {
            let id = format!("c_{c}");
            let ids: Vec<String> = (one_sided..40)
                .filter(|&s| course_of(s, 0) == id || course_of(s, 1) == id)
                .map(|s| format!("student_{s}"))
                .collect();
            doc! { "_id": id, "title": format!("Course {c}"), "studentIds": ids }
        })
        .collect();
    insert(db, "courses", courses).await;
}

/// Seed 000's stuck chat room `room1` ([`STUCK_MESSAGES`] messages
/// `{ n, text }` of [`pad`]; one more `$push` passes 16 MiB) and `rooms`
/// small rooms of at most 9 messages, in `rooms`.
pub async fn stuck_room(db: &Database, rooms: usize) {
    let message = |n: i32| doc! { "n": n, "text": pad() };
    let stuck = doc! {
        "_id": "room1",
        "messages": (0..STUCK_MESSAGES).map(message).collect::<Vec<Document>>(),
    };
    db.collection::<Document>("rooms")
        .insert_one(stuck)
        .await
        .unwrap();
    let small = (0..rooms)
        .map(|r| {
            let messages: Vec<Document> = (0..(r % 10) as i32)
                .map(|n| doc! { "n": n, "text": format!("hello {n}") })
                .collect();
            doc! { "_id": format!("room_{r}"), "messages": messages }
        })
        .collect();
    insert(db, "rooms", small).await;
}

/// A chat room `room1` whose `messages` grew past the 1,000 items the
/// audit calls unbounded (`messages` items `{ n, text }` of about 20 bytes,
/// pushed by old code), and `rooms` small rooms of at most 9 messages, in
/// `rooms`: the stuck room's shape at a fraction of its size.
pub async fn long_room(db: &Database, messages: i32, rooms: usize) {
    let message = |n: i32| doc! { "n": n, "text": format!("hello {n}") };
    let long = doc! {
        "_id": "room1",
        "messages": (0..messages).map(message).collect::<Vec<Document>>(),
    };
    db.collection::<Document>("rooms")
        .insert_one(long)
        .await
        .unwrap();
    let small = (0..rooms)
        .map(|r| {
            let messages: Vec<Document> = (0..(r % 10) as i32).map(message).collect();
            doc! { "_id": format!("room_{r}"), "messages": messages }
        })
        .collect();
    insert(db, "rooms", small).await;
}

/// Seed 001's shop: 50 `customers`, 20 `products` (`sku`, `name`,
/// `current_price`) and `orders` orders with `customer_id` (no index),
/// 1 to 4 `items` `{ product_id, qty, unit_price }` and the customer's
/// shipping address copied at the time of the order.
pub async fn shop(db: &Database, orders: usize) {
    let customers: Vec<ObjectId> = (0..50).map(|_| ObjectId::new()).collect();
    let products: Vec<ObjectId> = (0..20).map(|_| ObjectId::new()).collect();
    insert(
        db,
        "customers",
        customers
            .iter()
            .enumerate()
            .map(|(i, id)| doc! { "_id": id, "name": format!("Customer {i}"), "email": format!("c{i}@example.test") })
            .collect(),
    )
    .await;
    insert(
        db,
        "products",
        products
            .iter()
            .enumerate()
            .map(|(i, id)| {
                doc! {
                    "_id": id,
                    "sku": format!("W-{i:02}"),
                    "name": format!("Widget {i}"),
                    "current_price": 9.99 + i as f64,
                    "category": "hardware",
                }
            })
            .collect(),
    )
    .await;
    let orders = (0..orders)
        .map(|i| {
            let items: Vec<Document> = (0..1 + i % 4)
                .map(|k| {
                    doc! {
                        "product_id": products[(i + k) % products.len()],
                        "qty": (1 + k) as i32,
                        "unit_price": 9.99 + ((i + k) % 20) as f64,
                    }
                })
                .collect();
            doc! {
                "_id": ObjectId::new(),
                "order_number": format!("ORD-2025-{i:04}"),
                "status": if i % 3 == 0 { "shipped" } else { "pending" },
                "customer_id": customers[i % customers.len()],
                "shipping_address": { "street": "123 Main St", "city": "Taipei", "country": "TW" },
                "items": items,
                "total": 44.97,
                "created_at": DateTime::from_millis(EPOCH_MS + i as i64 * 3_600_000),
            }
        })
        .collect();
    insert(db, "orders", orders).await;
}

/// Seed 003's library: 30 `authors`, `books` with an indexed `author_id`,
/// and 25 `products` with 0 to 5 `reviews` embedded.
pub async fn library(db: &Database, books: usize) {
    let authors: Vec<ObjectId> = (0..30).map(|_| ObjectId::new()).collect();
    insert(
        db,
        "authors",
        authors
            .iter()
            .enumerate()
            .map(|(i, id)| doc! { "_id": id, "name": format!("Author {i}") })
            .collect(),
    )
    .await;
    let books = (0..books)
        .map(|i| {
            doc! {
                "_id": ObjectId::new(),
                "title": format!("Data Modeling {i}"),
                "author_id": authors[i % authors.len()],
            }
        })
        .collect();
    insert(db, "books", books).await;
    index(db, "books", doc! { "author_id": 1 }).await;
    let products = (0..25)
        .map(|i| {
            let reviews: Vec<Document> = (0..i % 6)
                .map(|r| doc! { "user": format!("User {r}"), "rating": 1 + r % 5, "comment": "Great value." })
                .collect();
            doc! { "_id": ObjectId::new(), "name": format!("SSD {i}"), "price": 129.99, "reviews": reviews }
        })
        .collect();
    insert(db, "products", products).await;
}

/// Seed 004's catalog: `items` whose `type` (`book` or `dvd`) decides the
/// fields of `details`; `skus` (`size`, `color`); and `products` holding
/// the ids of their skus and the skus' colors copied (an extended
/// reference).
pub async fn catalog(db: &Database, items: usize) {
    let items = (0..items)
        .map(|i| {
            let (kind, details) = if i % 2 == 0 {
                ("book", doc! { "isbn": format!("978-{i:06}"), "author": "Jane Doe", "size": "Paperback" })
            } else {
                ("dvd", doc! { "director": "Ann Lee", "actor": "Bo Chen", "media": "dvd" })
            };
            doc! {
                "_id": ObjectId::new(),
                "type": kind,
                "name": format!("Item {i}"),
                "description": "............",
                "price": 48.99,
                "details": details,
            }
        })
        .collect();
    insert(db, "items", items).await;
    let colors = ["black", "white", "red"];
    let sizes = ["S", "M", "L"];
    let skus: Vec<(ObjectId, &str, &str)> = (0..60)
        .map(|i| (ObjectId::new(), sizes[i % 3], colors[(i / 3) % 3]))
        .collect();
    insert(
        db,
        "skus",
        skus.iter()
            .map(|(id, size, color)| doc! { "_id": id, "size": *size, "color": *color })
            .collect(),
    )
    .await;
    let products = (0..20)
        .map(|p| {
            let mine = &skus[p * 3..p * 3 + 3];
            let mut colors: Vec<&str> = mine.iter().map(|s| s.2).collect();
            colors.dedup();
            doc! {
                "_id": ObjectId::new(),
                "name": format!("T-shirt {p}"),
                "skus": mine.iter().map(|s| s.0).collect::<Vec<ObjectId>>(),
                "colors": colors,
            }
        })
        .collect();
    insert(db, "products", products).await;
}

/// One collection `messy` of `count` documents: `n` an int, a long, a
/// double or a string by turn; `name` missing from every seventh; `tags` an
/// array, null or missing; `meta` nested four deep; `extra` present in one
/// document in a hundred with a type of its own.
pub async fn messy(db: &Database, count: usize) {
    let docs = (0..count)
        .map(|i| {
            let n = match i % 4 {
                0 => Bson::Int32(i as i32),
                1 => Bson::Int64(i as i64),
                2 => Bson::Double(i as f64 / 2.0),
                _ => Bson::String(i.to_string()),
            };
            let mut d = doc! { "_id": i as i64, "n": n };
            if i % 7 != 0 {
                d.insert("name", format!("thing {i}"));
            }
            match i % 3 {
                0 => {
                    d.insert("tags", vec![Bson::String("a".into()); i % 5]);
                }
                1 => {
                    d.insert("tags", Bson::Null);
                }
                _ => {}
            }
            d.insert(
                "meta",
                doc! { "a": { "b": { "c": { "d": i as i32, "when": DateTime::from_millis(EPOCH_MS + i as i64) } } } },
            );
            if i % 100 == 0 {
                d.insert("extra", doc! { "flag": i % 200 == 0 });
            }
            d
        })
        .collect();
    insert(db, "messy", docs).await;
}

/// A helpdesk two versions of an application wrote: 20 `agents` (`level`
/// an int, a long from the sixth on) and `tickets` tickets: `assignee_id`
/// an agent's id, indexed as the application lists an agent's newest
/// tickets (`{assignee_id: 1, created: -1}`); `priority` an int in the
/// first version's tickets, a long in the second's, missing in every tenth;
/// `hours` a double, or an int when whole; `created` a date.
pub async fn helpdesk(db: &Database, tickets: usize) {
    let agents: Vec<ObjectId> = (0..20).map(|_| ObjectId::new()).collect();
    insert(
        db,
        "agents",
        agents
            .iter()
            .enumerate()
            .map(|(i, id)| {
                let level = if i < 5 {
                    Bson::Int32(1 + i as i32 % 3)
                } else {
                    Bson::Int64(1 + i as i64 % 3)
                };
                doc! { "_id": id, "name": format!("Agent {i}"), "level": level }
            })
            .collect(),
    )
    .await;
    let tickets = (0..tickets)
        .map(|i| {
            let mut d = doc! {
                "_id": ObjectId::new(),
                "subject": format!("Ticket {i}"),
                "assignee_id": agents[i % agents.len()],
                "created": DateTime::from_millis(EPOCH_MS + i as i64 * 60_000),
            };
            if i % 10 != 9 {
                let priority = 1 + (i % 4) as i32;
                let priority = if i % 2 == 0 {
                    Bson::Int32(priority)
                } else {
                    Bson::Int64(i64::from(priority))
                };
                d.insert("priority", priority);
            }
            let hours = if i % 3 == 0 {
                Bson::Int32((i % 8) as i32)
            } else {
                Bson::Double((i % 8) as f64 + 0.5)
            };
            d.insert("hours", hours);
            d
        })
        .collect();
    insert(db, "tickets", tickets).await;
    index(db, "tickets", doc! { "assignee_id": 1, "created": -1 }).await;
}
