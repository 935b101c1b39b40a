//! Typed change streams across outages (`Repo::watch`): the server
//! restarted under a running stream (every change delivered once, in
//! order), and a resume token older than the server's history (a server
//! of the test's own keeping only `--oplog-max-entries 20`) handled by each
//! `OnLost` policy with one resume attempt, never a loop of them (the
//! `aggregate` commands counted).

use crate::support;

use std::time::Duration;

use futures_util::TryStreamExt;
use mongodb::change_stream::event::ResumeToken;
use mongodb::options::ClientOptions;
use mongodb::Client;
use schema_core::prelude::*;
use schema_core::{Change, ChangeError, ChangeStream, Error, Event, LostBecause, OnLost, Recovery};
use schema_testkit::command_log::CommandLog;
use schema_testkit::server::{Server, ServerOptions};
use serde::{Deserialize, Serialize};
use support::own_server::{start, DataDir};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "watched_orders")]
struct Order {
    #[serde(rename = "_id")]
    id: String,
    status: String,
}

fn order(i: usize) -> Order {
    Order {
        id: format!("o{i:04}"),
        status: "new".into(),
    }
}

/// The most any waiting step takes.
const STEP: Duration = Duration::from_secs(60);

/// A client of `uri` that gives up selecting a server after 1 s, so that
/// the stream's own recovery (not the driver's wait) rides the outage.
async fn client_of(uri: &str, log: Option<&CommandLog>) -> Client {
    let mut options = ClientOptions::parse(uri).await.unwrap();
    options.server_selection_timeout = Some(Duration::from_secs(1));
    if let Some(log) = log {
        log.record(&mut options);
    }
    Client::with_options(options).unwrap()
}

async fn next_event(stream: &mut ChangeStream<Order>) -> Event<Order> {
    match tokio::time::timeout(STEP, stream.try_next()).await {
        Ok(Ok(Some(event))) => event,
        other => panic!("no event: {other:?}"),
    }
}

/// Inserts `o`, again until acknowledged (or found there: an insert whose
/// answer was lost) while the server comes back.
async fn insert_until_acked(orders: &Repo<Order>, o: &Order) {
    let deadline = tokio::time::Instant::now() + STEP;
    loop {
        match orders.insert(o).await {
            Ok(()) | Err(Error::DuplicateKey { .. }) => return,
            Err(e) if tokio::time::Instant::now() < deadline => {
                eprintln!("insert {}: {e}; again", o.id);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("insert {}: {e}", o.id),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_restart_under_a_running_stream_loses_and_repeats_no_change() {
    const HALF: usize = 100;
    let dir = DataDir::new("watch-restart");
    let mut server = start(&dir, None);
    let port = server.port();
    let client = client_of(&server.uri(), None).await;
    let orders = Repo::<Order>::new(&client.database("watch_restart"));
    let mut changes = orders
        .watch()
        .max_await_time(Duration::from_millis(200))
        .recovery(
            Recovery::default()
                .attempts(40)
                .delays(Duration::from_millis(100), Duration::from_secs(1)),
        )
        .await
        .unwrap();

    // A consumer slower than the writer, so that changes acknowledged
    // before the stop are still to be delivered when it comes.
    let consumer = tokio::spawn(async move {
        let mut seen = Vec::new();
        while seen.len() < 2 * HALF {
            match next_event(&mut changes).await.change {
                Change::Insert(o) => seen.push(o.id),
                other => panic!("{other:?}"),
            }
            if seen.len() < HALF {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
        (seen, changes.opens())
    });
    for i in 0..HALF {
        orders.insert(&order(i)).await.unwrap();
    }
    let stopped = std::time::Instant::now();
    server.stop();
    // Down for longer than the driver's one resume waits (its server
    // selection gives up after 1 s): the stream's own recovery rides it.
    std::thread::sleep(Duration::from_secs(3));
    let server = start(&dir, Some(port));
    eprintln!("the server was down for {:?}", stopped.elapsed());
    for i in HALF..2 * HALF {
        insert_until_acked(&orders, &order(i)).await;
    }
    let (seen, opens) = tokio::time::timeout(STEP, consumer)
        .await
        .expect("the consumer saw every change")
        .unwrap();
    let expected: Vec<String> = (0..2 * HALF).map(|i| order(i).id).collect();
    assert_eq!(seen, expected, "every change once, in order");
    assert!(opens > 1, "it opened again after the restart: {opens}");
    eprintln!("opened {opens} times");
    drop(server);
}

/// A server keeping only the last 20 oplog entries, and a token of a
/// change 1,100 changes before: older than its history.
async fn lost_token() -> (
    Server,
    Client,
    CommandLog,
    Repo<Order>,
    mongodb::change_stream::event::ResumeToken,
) {
    let server = Server::start(ServerOptions {
        extra_args: vec!["--oplog-max-entries".into(), "20".into()],
        ..Default::default()
    })
    .unwrap();
    let log = CommandLog::default();
    let client = client_of(&server.uri(), Some(&log)).await;
    let orders = Repo::<Order>::new(&client.database("watch_lost"));
    let mut changes = orders.watch().await.unwrap();
    orders.insert(&order(0)).await.unwrap();
    let token = next_event(&mut changes).await.token;
    drop(changes);
    // Writes until the server's history no longer reaches the token, as
    // the driver's own resume from it says (code 286), however long the
    // server takes to prune (it prunes every 1,000 entries written, at its
    // own pace on a loaded machine): waiting for the condition, not a count.
    let raw = client
        .database("watch_lost")
        .collection::<bson::Document>(Order::COLLECTION);
    let mut next = 1;
    while !history_lost(&raw, &token).await {
        assert!(
            next < 100_000,
            "the history still reaches the token after {next} writes"
        );
        let more: Vec<Order> = (next..next + 100).map(order).collect();
        orders.insert_many(&more).await.unwrap();
        next += 100;
    }
    log.clear();
    (server, client, log, orders, token)
}

/// Whether the driver's raw change stream, resumed after `token`, fails
/// with code 286 (`ChangeStreamHistoryLost`), at its opening or its first
/// `getMore`.
async fn history_lost(
    raw: &mongodb::Collection<bson::Document>,
    token: &mongodb::change_stream::event::ResumeToken,
) -> bool {
    const HISTORY_LOST: i32 = 286;
    let code = |e: &mongodb::error::Error| match &*e.kind {
        mongodb::error::ErrorKind::Command(c) => Some(c.code),
        _ => None,
    };
    match raw.watch().resume_after(token.clone()).await {
        Err(e) => code(&e) == Some(HISTORY_LOST),
        Ok(mut stream) => match stream.next_if_any().await {
            Err(e) => code(&e) == Some(HISTORY_LOST),
            Ok(_) => false,
        },
    }
}

fn aggregates(log: &CommandLog) -> usize {
    log.names().iter().filter(|n| *n == "aggregate").count()
}

#[tokio::test]
async fn a_token_older_than_the_history_stops_with_a_clear_error_after_one_attempt() {
    let (_server, _client, log, orders, token) = lost_token().await;
    let err = orders.watch().resume_after(token).await.unwrap_err();
    match &err {
        Error::Change(e) => match &**e {
            ChangeError::Lost { because, last, .. } => {
                assert_eq!(*because, LostBecause::HistoryLost);
                assert!(last.is_none());
            }
            other => panic!("{other:?}"),
        },
        other => panic!("{other}"),
    }
    assert!(err.to_string().contains("code 286"), "{err}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(aggregates(&log), 1, "one attempt: {:?}", log.names());
}

#[tokio::test]
async fn a_token_older_than_the_history_restarts_from_now_reporting_the_gap() {
    let (_server, _client, log, orders, token) = lost_token().await;
    let before = bson::DateTime::now();
    let mut changes = orders
        .watch()
        .resume_after(token)
        .on_lost(OnLost::RestartFromNow)
        .max_await_time(Duration::from_millis(100))
        .await
        .unwrap();
    match next_event(&mut changes).await.change {
        Change::Gap(gap) => {
            assert_eq!(gap.because, LostBecause::HistoryLost);
            assert_eq!(gap.from, None, "nothing delivered before it");
            assert!(gap.to >= before, "{gap:?}");
        }
        other => panic!("{other:?}"),
    }
    orders.insert(&order(5000)).await.unwrap();
    match next_event(&mut changes).await.change {
        Change::Insert(o) => assert_eq!(o, order(5000)),
        other => panic!("{other:?}"),
    }
    // Waiting on (empty `getMore`s every 100 ms) opens nothing more.
    let idle = tokio::time::timeout(Duration::from_millis(800), changes.try_next()).await;
    assert!(idle.is_err(), "no change: {idle:?}");
    assert_eq!(changes.opens(), 2);
    assert_eq!(
        aggregates(&log),
        2,
        "the lost one, then from now: {:?}",
        log.names()
    );
}

/// Saved positions of consumers, read back as the resume token they hold.
async fn saved_token(db: &mongodb::Database, name: &str) -> Option<ResumeToken> {
    let position = db
        .collection::<bson::Document>(schema_core::CONSUMERS)
        .find_one(bson::doc! { "_id": name })
        .await
        .unwrap()?;
    bson::deserialize_from_bson(position.get("token")?.clone()).ok()
}

/// Starts `run`, waits until consumer `name` saved where it starts, and
/// stops it with `stop`.
async fn start_once(
    db: &mongodb::Database,
    name: &str,
    run: impl std::future::Future<Output = schema_core::Result<schema_core::Ran>>,
    stop: schema_core::Stopper,
) {
    let (ran, ()) = tokio::join!(run, async {
        let deadline = tokio::time::Instant::now() + STEP;
        while saved_token(db, name).await.is_none() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "{name} never started"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        stop.stop();
    });
    ran.unwrap();
}

#[tokio::test]
async fn consumers_past_a_lost_history_stop_naming_themselves_or_repair_the_gap() {
    use crate::dead_holder::{Product, Sku};
    use bson::oid::ObjectId;
    use schema_core::{Consumer, Copies, CopyFollower, Lease, Schema};

    let server = Server::start(ServerOptions {
        extra_args: vec!["--oplog-max-entries".into(), "20".into()],
        ..Default::default()
    })
    .unwrap();
    let client = client_of(&server.uri(), None).await;
    let db = client.database("consumers_lost");
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
    let skus = Repo::<Sku>::new(&db);
    skus.insert(&sku).await.unwrap();
    let products: Vec<Product> = (0..50)
        .map(|_| Product {
            id: ObjectId::new(),
            skus: vec![sku.id],
            colors: vec!["black".into()],
            version: 0,
        })
        .collect();
    Repo::<Product>::new(&db)
        .insert_many(&products)
        .await
        .unwrap();
    let quick = Lease::default().poll_every(Duration::from_millis(50));

    // Both start once and save where they are, then stop.
    let strict = Consumer::new("strict", &skus).lease(quick);
    start_once(
        &db,
        "strict",
        strict.run_at_least_once((), |_, _| Box::pin(async { Ok(()) })),
        strict.stopper(),
    )
    .await;
    let follower = CopyFollower::<Product, Sku>::new("colors", &db)
        .on_lost(OnLost::RestartFromNow)
        .lease(quick);
    start_once(&db, "colors", follower.run(), follower.stopper()).await;

    // While neither runs, the source changes and the server's history moves
    // past both positions.
    Copies::<Product>::new(&db)
        .update::<Sku, _>(&sku.id, || Sku::FIELDS.color.set(&"navy".to_owned()))
        .await
        .unwrap();
    let token = saved_token(&db, "colors").await.unwrap();
    let raw = db.collection::<bson::Document>(Sku::COLLECTION);
    let filler = db.collection::<bson::Document>("filler");
    let mut written = 0;
    while !history_lost(&raw, &token).await {
        assert!(written < 100_000, "the history still reaches the token");
        let batch: Vec<bson::Document> =
            (0..100).map(|i| bson::doc! { "i": written + i }).collect();
        filler.insert_many(batch).await.unwrap();
        written += 100;
    }

    // The default policy stops, with an error that names the consumer.
    let err = Consumer::new("strict", &skus)
        .lease(quick)
        .run_at_least_once((), |_, _| Box::pin(async { Ok(()) }))
        .await
        .unwrap_err();
    match &err {
        Error::Consumer { name, source } => {
            assert_eq!(name, "strict");
            assert!(
                matches!(&**source, Error::Change(c) if matches!(**c, ChangeError::Lost { because: LostBecause::HistoryLost, .. })),
                "{source:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("consumer `strict`"), "{err}");

    // The follower told to go on gets the gap and repairs every holder:
    // the change it never saw is in every copy.
    let follower = CopyFollower::<Product, Sku>::new("colors", &db)
        .on_lost(OnLost::RestartFromNow)
        .lease(quick);
    let stop = follower.stopper();
    let holders = db.collection::<bson::Document>(Product::COLLECTION);
    let (ran, ()) = tokio::join!(follower.run(), async {
        let deadline = tokio::time::Instant::now() + STEP;
        while holders
            .count_documents(bson::doc! { "colors": "navy" })
            .await
            .unwrap()
            < 50
        {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the gap never repaired"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        stop.stop();
    });
    assert_eq!(ran.unwrap().handled, 1, "the gap, handled as a change");
    assert!(Copies::<Product>::new(&db)
        .verify()
        .await
        .unwrap()
        .is_consistent());
}
