//! A holder killed (SIGKILL) inside a transaction of its own: a consumer's
//! handler, and a copy follower's page. The transaction stays open on the
//! server until it aborts it (`transactionLifetimeLimitSeconds`, left at
//! its default of 60 s here), holding its writes; the instance that takes
//! the expired lease ends the dead holder's session (`killSessions`), so
//! the takeover stays within the lease's duration plus its poll interval.
//!
//! The children are this test binary again: the consumer of
//! `watch_consumer` (its handler waiting inside its transaction), and
//! [`following_child`] here.

use std::time::{Duration, Instant};

use bson::oid::ObjectId;
use bson::{doc, Document as BsonDocument};
use mongodb::{Client, Database};
use schema_core::prelude::*;
use schema_core::{Copies, CopyFollower, Schema, CONSUMERS};
use serde::{Deserialize, Serialize};

use crate::support;
use crate::support::own_server::{self, DataDir};
use crate::watch_consumer::{kill, lease, start_child_of, start_stalling_child, LEASE_MS, STEP};

/// The environment variable that makes the test binary a following child.
const FOLLOWER: &str = "FOLLOWER_CHILD_DB";
/// Holders of the sku, all in one page of the follower.
const HOLDERS: usize = 4_000;
/// The lease of these tests, in milliseconds (polled every 100 ms).
const LEASE: u64 = 2_000;

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "skus")]
pub(crate) struct Sku {
    #[serde(rename = "_id")]
    pub(crate) id: ObjectId,
    pub(crate) color: String,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "products", version, index(keys(colors = asc)))]
pub(crate) struct Product {
    #[serde(rename = "_id")]
    pub(crate) id: ObjectId,
    #[many_to_many(one_sided, to = Sku, max = 20)]
    pub(crate) skus: Vec<ObjectId>,
    #[embed(max = 20)]
    #[copy(from = skus, field = color, follow = "consumer")]
    pub(crate) colors: Vec<String>,
    pub(crate) version: i64,
}

/// A server of the test's own, transactions left to the default lifetime.
async fn own_server(what: &str) -> (DataDir, schema_testkit::server::Server, Client) {
    let dir = DataDir::new(what);
    let server = own_server::start(&dir, None);
    let client = Client::with_uri_str(server.uri()).await.unwrap();
    (dir, server, client)
}

/// Transactions open on the server (`serverStatus`).
async fn open_transactions(client: &Client) -> i64 {
    let status = client
        .database("admin")
        .run_command(doc! { "serverStatus": 1 })
        .await
        .unwrap();
    status
        .get_document("transactions")
        .ok()
        .and_then(|t| t.get_i64("currentOpen").ok())
        .unwrap_or(0)
}

/// Updates the server ran (`serverStatus`'s `opcounters.update`).
async fn updates(client: &Client) -> i64 {
    let status = client
        .database("admin")
        .run_command(doc! { "serverStatus": 1 })
        .await
        .unwrap();
    let counters = status.get_document("opcounters").unwrap();
    counters
        .get_i64("update")
        .or_else(|_| counters.get_i32("update").map(i64::from))
        .unwrap_or(0)
}

/// Waits until a transaction is open on the server.
async fn until_in_transaction(client: &Client) {
    let deadline = Instant::now() + STEP;
    while open_transactions(client).await < 1 {
        assert!(Instant::now() < deadline, "no transaction opened");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

async fn holder_of(db: &Database, name: &str) -> Option<String> {
    db.collection::<BsonDocument>(CONSUMERS)
        .find_one(doc! { "_id": name })
        .await
        .unwrap()
        .and_then(|p| p.get_str("holder").ok().map(str::to_owned))
}

/// Waits until `name`'s position is held by `holder` with a token saved.
async fn started(db: &Database, name: &str, holder: &str) {
    let deadline = Instant::now() + STEP;
    loop {
        let p = db
            .collection::<BsonDocument>(CONSUMERS)
            .find_one(doc! { "_id": name })
            .await
            .unwrap()
            .unwrap_or_default();
        if p.get_str("holder").ok() == Some(holder) && p.get_document("token").is_ok() {
            return;
        }
        assert!(Instant::now() < deadline, "{name} did not start");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until `check` holds, and says how long after `since`.
async fn taken<F: std::future::Future<Output = bool>>(
    since: Instant,
    what: &str,
    mut check: impl FnMut() -> F,
) -> Duration {
    while !check().await {
        assert!(since.elapsed() < STEP, "{what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    since.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_consumer_killed_inside_its_handlers_transaction_is_taken_over_within_the_bound() {
    let (_dir, server, client) = own_server("dead-handler").await;
    let (uri, db) = (server.uri(), client.database("dead_handler"));
    let bound = lease(LEASE).takeover_bound();

    // A's handler waits 30 s inside its transaction: the kill lands there.
    let (a, holder_a) = start_stalling_child(&uri, db.name(), LEASE, Some(30_000));
    started(&db, "counter", &holder_a).await;
    let (b, holder_b) = start_stalling_child(&uri, db.name(), LEASE, None);
    let orders = db.collection::<BsonDocument>("consumed_orders");
    orders
        .insert_one(doc! { "_id": "o00000", "status": "new" })
        .await
        .unwrap();
    until_in_transaction(&client).await;
    let killed = Instant::now();
    kill(a);
    let took = taken(killed, "B never took the lease", || async {
        holder_of(&db, "counter").await.as_deref() == Some(&*holder_b)
    })
    .await;
    // B handles the change A died in, once.
    let rows = db.collection::<BsonDocument>("rows");
    let handled = taken(killed, "B never handled the change", || async {
        rows.count_documents(doc! {}).await.unwrap() == 1
    })
    .await;
    kill(b);
    assert_eq!(
        rows.count_documents(doc! { "by": &holder_b })
            .await
            .unwrap(),
        1
    );
    println!(
        "killed inside the handler's transaction: lease taken {:.2} s after the kill, the \
         change handled {:.2} s after it (bound {:.1} s + 1 s; the server's lifetime 60 s)",
        took.as_secs_f64(),
        handled.as_secs_f64(),
        bound.as_secs_f64()
    );
    assert!(took <= bound + Duration::from_secs(1), "takeover {took:?}");
    assert!(
        handled <= bound + Duration::from_secs(1),
        "handled {handled:?}"
    );
}

/// The following child: runs only when the parent starts it. Prints its
/// holder id, then follows `Product`'s colors in pages of every holder.
#[tokio::test]
#[ignore = "the child process of the dead holder tests, killed with SIGKILL"]
async fn following_child() {
    let Ok(db_name) = std::env::var(FOLLOWER) else {
        return;
    };
    let lease_ms: u64 = std::env::var(LEASE_MS).unwrap().parse().unwrap();
    let client = support::client().await;
    let db = client.database(&db_name);
    let follower = CopyFollower::<Product, Sku>::new("colors", &db)
        .batch(HOLDERS)
        .lease(lease(lease_ms));
    println!("holder {}", follower.holder());
    follower.run().await.expect("the follower's run");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_follower_killed_inside_a_page_is_taken_over_within_the_bound() {
    let (_dir, server, client) = own_server("dead-page").await;
    let (uri, db) = (server.uri(), client.database("dead_page"));
    let bound = lease(LEASE).takeover_bound();
    Schema::new()
        .with::<Sku>()
        .with::<Product>()
        .sync(&db)
        .await
        .unwrap();
    let sku = Sku {
        id: ObjectId::new(),
        color: "black".into(),
    };
    Repo::<Sku>::new(&db).insert(&sku).await.unwrap();
    let products: Vec<Product> = (0..HOLDERS)
        .map(|_| Product {
            id: ObjectId::new(),
            skus: vec![sku.id],
            colors: vec!["black".into()],
            version: 0,
        })
        .collect();
    for chunk in products.chunks(1_000) {
        Repo::<Product>::new(&db).insert_many(chunk).await.unwrap();
    }
    let start = |module: &str| {
        start_child_of(
            module,
            "following_child",
            &[(FOLLOWER, db.name())],
            &uri,
            LEASE,
        )
    };
    let (a, holder_a) = start(module_path!());
    started(&db, "colors", &holder_a).await;
    let (b, holder_b) = start(module_path!());

    Copies::<Product>::new(&db)
        .update::<Sku, _>(&sku.id, || Sku::FIELDS.color.set(&"navy".to_owned()))
        .await
        .unwrap();
    // A reads the page's ids, opens its transaction, reads the holders and
    // writes them: killed once its writes began (the server counts them),
    // before its commit.
    let before = updates(&client).await;
    until_in_transaction(&client).await;
    let deadline = Instant::now() + STEP;
    while updates(&client).await == before {
        assert!(Instant::now() < deadline, "A never wrote");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let killed = Instant::now();
    kill(a);
    let took = taken(killed, "B never took the lease", || async {
        holder_of(&db, "colors").await.as_deref() == Some(&*holder_b)
    })
    .await;
    let products = db.collection::<BsonDocument>("products");
    let current = taken(killed, "B never refreshed the copies", || async {
        products
            .count_documents(doc! { "colors": "navy" })
            .await
            .unwrap()
            == HOLDERS as u64
    })
    .await;
    kill(b);
    println!(
        "killed inside a page of {HOLDERS} holders: lease taken {:.2} s after the kill, every \
         copy current {:.2} s after it (bound {:.1} s + 1 s, then the page's own time; the \
         server's lifetime 60 s)",
        took.as_secs_f64(),
        current.as_secs_f64(),
        bound.as_secs_f64()
    );
    assert!(took <= bound + Duration::from_secs(1), "takeover {took:?}");
    assert!(
        current < Duration::from_secs(30),
        "the dead page's transaction was waited for: {current:?}"
    );
}
