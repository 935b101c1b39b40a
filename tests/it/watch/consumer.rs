//! Named consumers (`Consumer`): the position kept in `schema_consumers`
//! and resumed after a restart of the consumer, the handler's writes and
//! the position's move in one transaction (a handler that fails mid-way
//! leaves neither), the at-least-once mode, and the lease (a stopped
//! holder's work taken over, a holder whose lease was taken handling
//! nothing more). The kills are in `tests/reliability/watch_consumer.rs`.

use std::future::Future;
use std::time::Duration;

use bson::{doc, Document as BsonDocument};
use mongodb::{Collection, Database};
use schema_core::prelude::*;
use schema_core::{Change, Consumer, Error, Lease, Ran, CONSUMERS};

use super::{order, Order};
use crate::support;

/// The most a test waits for the consumer to catch up: long, because the
/// test server's change streams fall far behind while the rest of the
/// suite writes (5 changes took 50 s to arrive in one full run of the
/// binary, beside the adoption tests' 16 MiB documents and their moves;
/// under a second alone).
const CATCH_UP: Duration = Duration::from_secs(120);

/// A short lease, so that a takeover is quick.
fn short_lease() -> Lease {
    Lease::default()
        .duration(Duration::from_millis(800))
        .renew_every(Duration::from_millis(200))
        .poll_every(Duration::from_millis(100))
}

/// The position document of consumer `name`.
async fn position(db: &Database, name: &str) -> Option<BsonDocument> {
    db.collection::<BsonDocument>(CONSUMERS)
        .find_one(doc! { "_id": name })
        .await
        .unwrap()
}

/// Waits until `check` holds.
async fn until<F: Future<Output = bool>>(what: &str, mut check: impl FnMut() -> F) {
    let deadline = tokio::time::Instant::now() + CATCH_UP;
    while !check().await {
        assert!(tokio::time::Instant::now() < deadline, "waited for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until the consumer `name` holds a position (it saved where it
/// started), held by `holder`.
async fn started(db: &Database, name: &str, holder: &str) {
    until("the consumer's start", || async {
        position(db, name).await.is_some_and(|p| {
            p.get_str("holder").ok() == Some(holder) && p.get_document("token").is_ok()
        })
    })
    .await;
}

async fn count(coll: &Collection<BsonDocument>, filter: BsonDocument) -> u64 {
    coll.count_documents(filter).await.unwrap()
}

/// The exactly-once handler of these tests: counts each insert with
/// `$inc` and logs it with a row of its own (neither idempotent).
async fn count_insert(
    db: &Database,
    s: &mut mongodb::ClientSession,
    change: &Change<Order>,
) -> schema_core::Result<()> {
    if let Change::Insert(o) = change {
        db.collection::<BsonDocument>("counts")
            .update_one(doc! { "_id": "orders" }, doc! { "$inc": { "n": 1 } })
            .upsert(true)
            .session(&mut *s)
            .await?;
        db.collection::<BsonDocument>("log")
            .insert_one(doc! { "order": &o.id })
            .session(&mut *s)
            .await?;
    }
    Ok(())
}

async fn counted(db: &Database) -> i32 {
    db.collection::<BsonDocument>("counts")
        .find_one(doc! { "_id": "orders" })
        .await
        .unwrap()
        .and_then(|d| d.get_i32("n").ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn a_consumer_resumes_from_its_saved_position_after_a_restart() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "consumer_resume").await;
    let orders = Repo::<Order>::new(&db);

    let first = Consumer::new("counter", &orders);
    let stop = first.stopper();
    let (ran, ()) = tokio::join!(
        first.run(&db, |s, db, e| Box::pin(count_insert(db, s, &e.change))),
        async {
            started(&db, "counter", first.holder()).await;
            for i in 0..5 {
                orders
                    .insert(&order(&format!("a{i}"), "new", 1))
                    .await
                    .unwrap();
            }
            until("5 handled", || async { counted(&db).await == 5 }).await;
            stop.stop();
        }
    );
    let ran = ran.unwrap();
    assert_eq!((ran.handled, ran.leases_taken), (5, 1), "{ran:?}");
    let saved = position(&db, "counter").await.unwrap();
    assert_eq!(saved.get_i64("handled").ok(), Some(5));
    assert!(saved.get_timestamp("clusterTime").is_ok());
    assert_eq!(saved.get("holder"), Some(&bson::Bson::Null), "released");

    // Changes while no instance runs: the next one resumes after the
    // saved position, so it sees them, and nothing it handled before.
    for i in 0..3 {
        orders
            .insert(&order(&format!("b{i}"), "new", 1))
            .await
            .unwrap();
    }
    let second = Consumer::new("counter", &orders);
    let stop = second.stopper();
    let (ran, ()) = tokio::join!(
        second.run(&db, |s, db, e| Box::pin(count_insert(db, s, &e.change))),
        async {
            until("8 handled", || async { counted(&db).await == 8 }).await;
            stop.stop();
        }
    );
    assert_eq!(ran.unwrap().handled, 3);
    let log = db.collection::<BsonDocument>("log");
    assert_eq!(count(&log, doc! {}).await, 8, "one row per change");
    assert_eq!(counted(&db).await, 8);
}

#[tokio::test]
async fn a_handler_failing_mid_way_leaves_neither_its_writes_nor_the_position() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "consumer_fail").await;
    let orders = Repo::<Order>::new(&db);
    let log = db.collection::<BsonDocument>("log");

    let failing = Consumer::new("logger", &orders);
    let (ran, ()) = tokio::join!(
        failing.run(&db, |s, db, e| Box::pin(async move {
            count_insert(db, s, &e.change).await?;
            match &e.change {
                // Its writes are done: the failure comes after them.
                Change::Insert(o) if o.id == "bad" => Err(Error::Model("refused".into())),
                _ => Ok(()),
            }
        })),
        async {
            started(&db, "logger", failing.holder()).await;
            for id in ["ok1", "bad", "ok2"] {
                orders.insert(&order(id, "new", 1)).await.unwrap();
            }
        }
    );
    // The error names the consumer, around the handler's own.
    match &ran {
        Err(Error::Consumer { name, source }) => {
            assert_eq!(name, "logger");
            assert!(
                matches!(&**source, Error::Model(m) if m == "refused"),
                "{source:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    let shown = ran.unwrap_err().to_string();
    assert!(shown.starts_with("consumer `logger` stopped: "), "{shown}");
    assert_eq!(
        count(&log, doc! { "order": "bad" }).await,
        0,
        "no write kept"
    );
    assert_eq!(counted(&db).await, 1);
    let saved = position(&db, "logger").await.unwrap();
    assert_eq!(
        saved.get_i64("handled").ok(),
        Some(1),
        "the position before `bad`"
    );
    assert_eq!(saved.get("holder"), Some(&bson::Bson::Null), "released");

    // Fixed and run again: `bad` and `ok2`, each once.
    let fixed = Consumer::new("logger", &orders);
    let stop = fixed.stopper();
    let (ran, ()) = tokio::join!(
        fixed.run(&db, |s, db, e| Box::pin(count_insert(db, s, &e.change))),
        async {
            until("3 handled", || async { counted(&db).await == 3 }).await;
            stop.stop();
        }
    );
    assert_eq!(ran.unwrap().handled, 2);
    for id in ["ok1", "bad", "ok2"] {
        assert_eq!(count(&log, doc! { "order": id }).await, 1, "{id}");
    }
}

#[tokio::test]
async fn at_least_once_saves_the_position_after_the_handler() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "consumer_at_least_once").await;
    let orders = Repo::<Order>::new(&db);
    let mut seen: Vec<String> = Vec::new();

    // The handler fails on its first sight of `o2`: the position stays
    // before it, and the next run hands it over again.
    let first = Consumer::new("mailer", &orders);
    let (ran, ()) = tokio::join!(
        first.run_at_least_once(&mut seen, |seen, e| Box::pin(async move {
            if let Change::Insert(o) = &e.change {
                seen.push(o.id.clone());
                if o.id == "o2" {
                    return Err(Error::Model("mail server down".into()));
                }
            }
            Ok(())
        })),
        async {
            started(&db, "mailer", first.holder()).await;
            for i in 1..=3 {
                orders
                    .insert(&order(&format!("o{i}"), "new", 1))
                    .await
                    .unwrap();
            }
        }
    );
    assert!(ran.is_err());
    assert_eq!(seen, ["o1", "o2"]);
    assert_eq!(
        position(&db, "mailer")
            .await
            .unwrap()
            .get_i64("handled")
            .ok(),
        Some(1)
    );

    let second = Consumer::new("mailer", &orders);
    let stop = second.stopper();
    let ran = second
        .run_at_least_once((&mut seen, &stop), |(seen, stop), e| {
            Box::pin(async move {
                if let Change::Insert(o) = &e.change {
                    seen.push(o.id.clone());
                    if o.id == "o3" {
                        stop.stop();
                    }
                }
                Ok(())
            })
        })
        .await
        .unwrap();
    assert_eq!(ran.handled, 2);
    assert_eq!(seen, ["o1", "o2", "o2", "o3"], "o2 twice: at least once");
}

#[tokio::test]
async fn the_lease_moves_to_a_waiting_instance_and_a_holder_that_lost_it_handles_nothing() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "consumer_lease").await;
    let orders = Repo::<Order>::new(&db);
    let positions = db.collection::<BsonDocument>(CONSUMERS);
    let log = db.collection::<BsonDocument>("log");

    let a = Consumer::new("shared", &orders).lease(short_lease());
    let b = Consumer::new("shared", &orders).lease(short_lease());
    let (stop_a, stop_b) = (a.stopper(), b.stopper());
    let by = |holder: &str| doc! { "by": holder.to_owned() };
    // A handler may be a function: it logs each insert with its holder.
    fn logger<'a>(
        s: &'a mut mongodb::ClientSession,
        (db, holder): &'a mut (&Database, String),
        e: &'a schema_core::Event<Order>,
    ) -> schema_core::BoxFuture<'a, schema_core::Result<()>> {
        Box::pin(async move {
            if let Change::Insert(o) = &e.change {
                db.collection::<BsonDocument>("log")
                    .insert_one(doc! { "order": &o.id, "by": &*holder })
                    .session(&mut *s)
                    .await?;
            }
            Ok(())
        })
    }
    let (ran_a, ran_b, ()) = tokio::join!(
        a.run((&db, a.holder().to_owned()), logger),
        async {
            // B starts once A holds the lease.
            started(&db, "shared", a.holder()).await;
            b.run((&db, b.holder().to_owned()), logger).await
        },
        async {
            started(&db, "shared", a.holder()).await;
            for i in 0..5 {
                orders
                    .insert(&order(&format!("a{i}"), "new", 1))
                    .await
                    .unwrap();
            }
            until("A handled 5", || async {
                count(&log, by(a.holder())).await == 5
            })
            .await;

            // Another instance took A's lease (as when A was paused past its
            // expiry), for a minute: A's next transaction finds the lease
            // gone and handles nothing, however slow the machine.
            let in_a_minute =
                bson::DateTime::from_millis(bson::DateTime::now().timestamp_millis() + 60_000);
            positions
                .update_one(
                    doc! { "_id": "shared" },
                    doc! { "$set": { "holder": "someone-else", "leaseUntil": in_a_minute } },
                )
                .await
                .unwrap();
            orders.insert(&order("during", "new", 1)).await.unwrap();
            tokio::time::sleep(Duration::from_millis(600)).await;
            assert_eq!(count(&log, doc! { "order": "during" }).await, 0);

            // Once that lease is given up, A or B takes it and handles
            // `during` once; then A stops and B takes over the rest.
            positions
                .update_one(
                    doc! { "_id": "shared", "holder": "someone-else" },
                    doc! { "$set": { "holder": bson::Bson::Null } },
                )
                .await
                .unwrap();
            until("`during` handled", || async {
                count(&log, doc! { "order": "during" }).await == 1
            })
            .await;
            stop_a.stop();
            until("B holds the lease", || async {
                position(&db, "shared")
                    .await
                    .unwrap()
                    .get_str("holder")
                    .ok()
                    == Some(b.holder())
            })
            .await;
            for i in 0..5 {
                orders
                    .insert(&order(&format!("b{i}"), "new", 1))
                    .await
                    .unwrap();
            }
            until("B handled the rest", || async {
                count(&log, doc! { "order": { "$regex": "^b" } }).await == 5
            })
            .await;
            stop_b.stop();
        }
    );
    let (ran_a, ran_b): (Ran, Ran) = (ran_a.unwrap(), ran_b.unwrap());
    assert!(ran_a.leases_lost >= 1, "{ran_a:?}");
    assert_eq!(ran_a.handled + ran_b.handled, 11, "{ran_a:?} {ran_b:?}");
    assert_eq!(count(&log, doc! {}).await, 11, "each change once");
    for i in 0..5 {
        assert_eq!(
            count(&log, doc! { "order": format!("b{i}"), "by": b.holder() }).await,
            1
        );
    }
}

#[tokio::test]
async fn a_consumer_skips_a_change_it_cannot_read_only_when_told_to() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "consumer_skip").await;
    let orders = Repo::<Order>::new(&db);
    let raw = db.collection::<BsonDocument>(<Order as schema_core::Document>::COLLECTION);
    // As an old application wrote it: the item count as a string.
    let write = async |prefix: &str| {
        orders
            .insert(&order(&format!("{prefix}1"), "new", 1))
            .await
            .unwrap();
        raw.insert_one(doc! { "_id": format!("{prefix}bad"), "status": "new", "itemCount": "two" })
            .await
            .unwrap();
        orders
            .insert(&order(&format!("{prefix}2"), "new", 1))
            .await
            .unwrap();
    };

    let strict = Consumer::new("strict", &orders);
    let (ran, ()) = tokio::join!(
        strict.run(&db, |s, db, e| Box::pin(count_insert(db, s, &e.change))),
        async {
            started(&db, "strict", strict.holder()).await;
            write("a").await;
        }
    );
    match ran {
        Err(Error::Consumer { name, source }) => {
            assert_eq!(name, "strict");
            let shown = source.to_string();
            assert!(shown.contains("abad") && !shown.contains("two"), "{shown}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(counted(&db).await, 1, "stopped at the bad one");

    let lenient = Consumer::new("lenient", &orders).skip_undecodable();
    let stop = lenient.stopper();
    let (ran, ()) = tokio::join!(
        lenient.run(&db, |s, db, e| Box::pin(count_insert(db, s, &e.change))),
        async {
            started(&db, "lenient", lenient.holder()).await;
            write("b").await;
            until("b1 and b2", || async { counted(&db).await == 3 }).await;
            stop.stop();
        }
    );
    let ran = ran.unwrap();
    assert_eq!((ran.handled, ran.skipped), (2, 1), "{ran:?}");
}
