//! The bounded form of a group that `$push` would grow past 16 MiB, run
//! on 1,000,000 documents: each player's five best scores (`$topN`), one
//! row per player, streamed with the client's peak resident memory
//! (`VmHWM`) growing by about one batch of rows, and by the whole result
//! when the same rows are collected into a `Vec`. Both figures are
//! printed; the measurement runs in a process of its own, as the find
//! stream's does (`find::stream_memory`).

use crate::support;

use futures_util::TryStreamExt;
use schema_core::prelude::*;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

const DOCS: i64 = 1_000_000;
const PLAYERS: i64 = 100_000;

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "scores")]
struct Score {
    #[serde(rename = "_id")]
    id: i64,
    player: i64,
    points: i32,
    title: String,
}

/// Each player's five best scores and their titles.
#[derive(Row, Deserialize, Debug)]
#[row(of = Score)]
struct Best {
    #[group(key = player)]
    player: i64,
    #[group(top = points, by(points = desc, id = asc), max = 5)]
    points: Vec<i32>,
    #[group(top = title, by(points = desc, id = asc), max = 5, bytes = 64)]
    titles: Vec<String>,
    #[group(count)]
    games: i64,
}

/// The same group with every title pushed: one row per player would hold
/// as many titles as the player has games, without bound.
#[allow(dead_code)]
#[derive(Row, Deserialize, Debug)]
#[row(of = Score)]
struct EveryTitle {
    #[group(key = player)]
    player: i64,
    #[group(push = title, max = 1_000_000, bytes = 64)]
    titles: Vec<String>,
}

const CHILD: &str = "AGGREGATE_TOP_N_MEMORY_CHILD";

#[test]
fn the_top_five_of_1m_documents_stream_with_flat_memory() {
    support::ran_alone(
        support::child_test(module_path!(), "measured_alone")
            .env(CHILD, "1")
            .env("MONGODB_URI", support::uri()),
    );
}

#[tokio::test]
#[ignore = "run by the_top_five_of_1m_documents_stream_with_flat_memory in a process of its own"]
async fn measured_alone() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let client = support::client().await;
    let db = support::fresh_db(&client, "agg_top_n_memory").await;
    Schema::new().with::<Score>().sync(&db).await.unwrap();
    let scores = Repo::<Score>::new(&db);
    let started = std::time::Instant::now();
    for start in (0..DOCS).step_by(10_000) {
        let batch: Vec<Score> = (start..start + 10_000)
            .map(|i| Score {
                id: i,
                player: i % PLAYERS,
                points: ((i * 7_919) % 10_007) as i32,
                title: format!("game {i:>12} of player {:>8}", i % PLAYERS),
            })
            .collect();
        scores.insert_many(&batch).await.unwrap();
    }
    println!("inserted {DOCS} documents in {:?}", started.elapsed());

    // The unbounded form is refused before sending, with the arithmetic.
    let err = scores
        .aggregate()
        .scan()
        .group::<EveryTitle>()
        .all()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::AggregateRefused { .. }), "{err}");
    assert!(err.to_string().contains("`titles`: 1000000 items"), "{err}");

    let best = || {
        scores
            .aggregate()
            .scan() // every score, on purpose
            .group::<Best>()
            .allow_disk_use()
    };
    // The code a stream runs is read in first (see `find::stream_memory`).
    let mut warm = scores
        .aggregate()
        .filter(Score::FIELDS.id.lt(&50))
        .group::<Best>()
        .batch_size(10)
        .await
        .unwrap();
    while warm.try_next().await.unwrap().is_some() {}
    drop(warm);

    let started = std::time::Instant::now();
    let before = support::peak_kib();
    let mut stream = best().await.unwrap();
    let (mut rows, mut games, mut players) = (0i64, 0i64, 0i64);
    while let Some(row) = stream.try_next().await.unwrap() {
        players += row.player;
        assert!(row.points.len() <= 5 && row.points.len() == row.titles.len());
        assert!(row.points.windows(2).all(|w| w[0] >= w[1]), "best first");
        rows += 1;
        games += row.games;
    }
    drop(stream);
    let streamed = support::peak_kib().saturating_sub(before);
    let took = started.elapsed();
    assert_eq!((rows, games), (PLAYERS, DOCS));
    assert_eq!(players, (0..PLAYERS).sum::<i64>(), "every player once");

    let before = support::peak_kib();
    let collected = best().all().await.unwrap();
    let in_vec = support::peak_kib().saturating_sub(before);
    assert_eq!(collected.len() as i64, PLAYERS);
    drop(collected);

    println!(
        "peak memory growth reading the {PLAYERS} rows of a top-5 group of {DOCS} documents \
         (the stream took {took:?}): streamed {streamed} KiB, collected into a Vec {in_vec} KiB"
    );
    assert!(in_vec > 40 * 1024, "the Vec holds the rows: {in_vec} KiB");
    assert!(
        streamed < 4 * 1024,
        "a stream holds about one batch of rows: {streamed} KiB"
    );
}
