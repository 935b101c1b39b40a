//! A typed filter and a typed update through the `Repo`, against the same
//! `doc!` documents sent with the raw `mongodb` driver, interleaved per round
//! in one run (the side that goes first alternates). Each round times
//! `BATCH` operations of each side: a `find_one` with a typed filter
//! (`category == c && stock == k && dims.weightGrams < 2000`: a nested
//! path, served by the declared index as the index guard requires) and an `update` of
//! one document by `_id` (`$inc` + `$set` + `$currentDate`). Prints the
//! median of the per-round ratios typed/raw with their p10-p90 spread, for
//! the filter, the update and both together, the commands each side sent
//! per operation, and what building the typed filter and update costs
//! against building the same `doc!`s (no server).
//!
//! Run: `cargo bench --bench typed_ops` (`ROUNDS=N`, default 200;
//! `BATCH=N`, default 5). `ONLY=typed` or `ONLY=raw` runs one side alone,
//! for an instruction count under callgrind; `ONLY=calibrate` runs the raw
//! side in both columns: the ratio the bench reports for two equal sides,
//! its own bias and noise.

use std::time::{Duration, Instant};

use bson::{doc, DateTime};
use mongodb::Collection;
use schema_core::prelude::*;
use schema_core::Schema;
use schema_testkit::stats::Spread;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
struct Dims {
    weight_grams: i32,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(
    collection = "items",
    index(keys(category = asc, stock = asc, "dims.weightGrams" = asc))
)]
struct Item {
    #[serde(rename = "_id")]
    id: String,
    category: String,
    stock: i32,
    price: f64,
    dims: Dims,
    seen_at: Option<DateTime>,
}

const ITEMS: usize = 200;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn report(name: &str, ratios: Vec<f64>, typed: Duration, raw: Duration, ops: usize) {
    let ratio = Spread::of(ratios);
    println!(
        "{:<16} {:>9.1} {:>9.1} {:>8.3} {:>8.3} {:>8.3}",
        name,
        typed.as_secs_f64() * 1e6 / ops as f64,
        raw.as_secs_f64() * 1e6 / ops as f64,
        ratio.median,
        ratio.p10,
        ratio.p90,
    );
}

#[tokio::main]
async fn main() {
    let rounds = env("ROUNDS", 200).max(1);
    let batch = env("BATCH", 5).max(1);
    let (client, log) = schema_testkit::counting_client()
        .await
        .expect("a server: set MONGODB_URI or install secantusd-rs");
    let db = client.database("bench_typed_ops");
    db.drop().await.expect("drop");
    Schema::new().with::<Item>().sync(&db).await.expect("sync");
    let repo = Repo::<Item>::new(&db);
    let raw: Collection<Item> = db.collection("items");
    let items: Vec<Item> = (0..ITEMS)
        .map(|i| Item {
            id: format!("i{i}"),
            category: format!("c{}", i % 10),
            stock: (i % 50) as i32,
            price: 1.0 + i as f64,
            dims: Dims {
                weight_grams: (i * 7 % 1000) as i32,
            },
            seen_at: None,
        })
        .collect();
    repo.insert_many(&items).await.expect("seed");
    let f = Item::FIELDS;

    let typed_find = |i: usize| {
        let category = format!("c{}", i % 10);
        let repo = &repo;
        async move {
            let filter = f.category.eq(&category)
                & f.stock.eq(&((i % 50) as i32))
                & f.dims.weight_grams.lt(&2000);
            repo.find_one(filter).await.expect("typed find_one")
        }
    };
    let raw_find = |i: usize| {
        let category = format!("c{}", i % 10);
        let raw = &raw;
        async move {
            let filter = doc! {
                "category": category,
                "stock": (i % 50) as i32,
                "dims.weightGrams": { "$lt": 2000 },
            };
            raw.find_one(filter).await.expect("raw find_one")
        }
    };
    let typed_update = |i: usize| {
        let id = format!("i{}", i % ITEMS);
        let repo = &repo;
        async move {
            let update = f.stock.inc(&1) & f.price.set(&(i as f64)) & f.seen_at.current_date();
            assert!(repo.update(&id, update).await.expect("typed update"));
        }
    };
    let raw_update = |i: usize| {
        let id = format!("i{}", i % ITEMS);
        let raw = &raw;
        async move {
            let update = doc! {
                "$inc": { "stock": 1 },
                "$set": { "price": i as f64 },
                "$currentDate": { "seenAt": { "$type": "date" } },
            };
            let r = raw
                .update_one(doc! { "_id": id }, update)
                .await
                .expect("raw update");
            assert_eq!(r.matched_count, 1);
        }
    };

    // `ONLY=typed` or `ONLY=raw`: that side alone, `ROUNDS * BATCH` times
    // each operation, and nothing printed but a line: for counting the
    // client's own instructions per side (`valgrind --tool=callgrind`, whose
    // count does not depend on the machine's load), as BENCHMARKS.md does.
    // `ONLY=calibrate`: the raw side in both columns, the ratio the bench
    // reports for two equal sides (its own bias and noise).
    let calibrate = std::env::var("ONLY").is_ok_and(|side| side == "calibrate");
    if let Some(side) = std::env::var("ONLY").ok().filter(|_| !calibrate) {
        let n = rounds * batch;
        for i in 0..20 + n {
            if side == "typed" {
                typed_find(i).await;
                typed_update(i).await;
            } else {
                raw_find(i).await;
                raw_update(i).await;
            }
        }
        println!("{side}: {n} find_one and {n} update, after 20 of each to warm up");
        return;
    }

    // Warm both sides (connections, the first-use costs).
    for i in 0..20 {
        typed_find(i).await;
        raw_find(i).await;
        typed_update(i).await;
        raw_update(i).await;
    }

    let (mut find_ratios, mut update_ratios, mut both_ratios) = (vec![], vec![], vec![]);
    let (mut typed_find_total, mut raw_find_total) = (Duration::ZERO, Duration::ZERO);
    let (mut typed_update_total, mut raw_update_total) = (Duration::ZERO, Duration::ZERO);
    let (mut typed_commands, mut raw_commands) = (0usize, 0usize);
    for round in 0..rounds {
        let base = round * batch;
        let mut times = [Duration::ZERO; 4]; // typed find, raw find, typed update, raw update
        for typed_first in [round % 2 == 0, round % 2 == 1] {
            if typed_first {
                log.clear();
                let t = Instant::now();
                for i in base..base + batch {
                    if calibrate {
                        raw_find(i).await;
                    } else {
                        typed_find(i).await;
                    }
                }
                times[0] = t.elapsed();
                let t = Instant::now();
                for i in base..base + batch {
                    if calibrate {
                        raw_update(i).await;
                    } else {
                        typed_update(i).await;
                    }
                }
                times[2] = t.elapsed();
                typed_commands += log.count();
            } else {
                log.clear();
                let t = Instant::now();
                for i in base..base + batch {
                    raw_find(i).await;
                }
                times[1] = t.elapsed();
                let t = Instant::now();
                for i in base..base + batch {
                    raw_update(i).await;
                }
                times[3] = t.elapsed();
                raw_commands += log.count();
            }
        }
        find_ratios.push(times[0].as_secs_f64() / times[1].as_secs_f64());
        update_ratios.push(times[2].as_secs_f64() / times[3].as_secs_f64());
        both_ratios.push((times[0] + times[2]).as_secs_f64() / (times[1] + times[3]).as_secs_f64());
        typed_find_total += times[0];
        raw_find_total += times[1];
        typed_update_total += times[2];
        raw_update_total += times[3];
    }

    // The builders alone, no server: a typed filter and update built and
    // rendered to their documents, against the same `doc!`s built by hand.
    let build_rounds: usize = 20_000;
    let t = Instant::now();
    for i in 0..build_rounds {
        let category = format!("c{}", i % 10);
        let filter = f.category.eq(&category)
            & f.stock.eq(&((i % 50) as i32))
            & f.dims.weight_grams.lt(&2000);
        let update = f.stock.inc(&1) & f.price.set(&(i as f64)) & f.seen_at.current_date();
        std::hint::black_box((
            filter.into_document().expect("filter"),
            update.into_parts().expect("update"),
        ));
    }
    let typed_build = t.elapsed();
    let t = Instant::now();
    for i in 0..build_rounds {
        let category = format!("c{}", i % 10);
        let filter = doc! {
            "category": category,
            "stock": (i % 50) as i32,
            "dims.weightGrams": { "$lt": 2000 },
        };
        let update = doc! {
            "$inc": { "stock": 1 },
            "$set": { "price": i as f64 },
            "$currentDate": { "seenAt": { "$type": "date" } },
        };
        std::hint::black_box((filter, update));
    }
    let raw_build = t.elapsed();

    let ops = rounds * batch;
    println!(
        "{rounds} rounds of {batch} operations per side, interleaved (alternating first); \
         mean microseconds per operation; ratio typed/raw per round: median, p10, p90"
    );
    println!(
        "{:<16} {:>9} {:>9} {:>8} {:>8} {:>8}",
        "operation", "typed", "raw", "median", "p10", "p90"
    );
    report(
        "find_one filter",
        find_ratios,
        typed_find_total,
        raw_find_total,
        ops,
    );
    report(
        "update",
        update_ratios,
        typed_update_total,
        raw_update_total,
        ops,
    );
    report(
        "both",
        both_ratios,
        typed_find_total + typed_update_total,
        raw_find_total + raw_update_total,
        2 * ops,
    );
    println!(
        "commands per operation (all counted): typed {:.2}, raw {:.2}",
        typed_commands as f64 / (2 * ops) as f64,
        raw_commands as f64 / (2 * ops) as f64
    );
    println!(
        "building the filter and the update (no server), microseconds per pair: typed {:.2}, doc! {:.2}",
        typed_build.as_secs_f64() * 1e6 / build_rounds as f64,
        raw_build.as_secs_f64() * 1e6 / build_rounds as f64
    );
    db.drop().await.expect("drop");
}
