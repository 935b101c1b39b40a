//! Setup of a 20-model schema that is already in sync, side by side with the
//! naive approach of sending `createIndexes` for every model on every start.
//! Prints every command each sends (none left out by name), the median
//! times, and the median and p10-p90 of the per-round ratios, measured
//! interleaved in one run; and, on its own line, what the first setup of an
//! empty database sends. Run: `cargo bench --bench setup` (`ROUNDS=N`,
//! default 30).

use std::time::{Duration, Instant};

use bson::Document as BsonDocument;
use schema_core::prelude::*;
use schema_core::{IndexSpec, Schema};
use schema_testkit::stats::{self, Spread};
use schema_testkit::tally;
use serde::{Deserialize, Serialize};

macro_rules! models {
    ($($name:ident => $coll:literal),* $(,)?) => {
        $(
            #[derive(Document, Serialize, Deserialize)]
            #[serde(rename_all = "camelCase")]
            #[document(collection = $coll, index(keys(title = asc, at = desc)))]
            #[allow(dead_code)]
            struct $name {
                #[serde(rename = "_id")]
                id: String,
                #[reference(index, sort(at = desc))]
                owner_id: String,
                title: String,
                at: bson::DateTime,
                #[embed(max = 10)]
                tags: Vec<String>,
            }
        )*
        fn schema() -> Schema {
            Schema::new()$(.with::<$name>())*
        }
    };
}

models!(
    M01 => "m01", M02 => "m02", M03 => "m03", M04 => "m04", M05 => "m05",
    M06 => "m06", M07 => "m07", M08 => "m08", M09 => "m09", M10 => "m10",
    M11 => "m11", M12 => "m12", M13 => "m13", M14 => "m14", M15 => "m15",
    M16 => "m16", M17 => "m17", M18 => "m18", M19 => "m19", M20 => "m20",
);

/// The commands that create or change something on the server.
fn writes(cmds: &[String]) -> usize {
    cmds.iter()
        .filter(|c| {
            matches!(
                c.as_str(),
                "create" | "createIndexes" | "collMod" | "dropIndexes"
            )
        })
        .count()
}

/// The commands of every round, when every round sent the same ones.
fn same_every_round(rounds: &[Vec<String>]) -> String {
    match rounds.split_first() {
        Some((first, rest)) if rest.iter().all(|r| r == first) => format!(
            "{} commands ({}), {} writes",
            first.len(),
            tally(first),
            writes(first)
        ),
        _ => format!(
            "commands differ between rounds: {}",
            rounds
                .iter()
                .map(|r| tally(r))
                .collect::<Vec<_>>()
                .join(" / ")
        ),
    }
}

#[tokio::main]
async fn main() {
    let (client, commands) = schema_testkit::counting_client()
        .await
        .expect("a server: set MONGODB_URI or install secantusd-rs");
    let db = client.database(&format!("bench_setup_{}", std::process::id()));
    db.drop().await.expect("drop");

    let schema = schema();
    commands.clear();
    let t = Instant::now();
    schema.sync(&db).await.expect("first setup");
    let first = t.elapsed();
    let first_cmds = commands.take();
    let index_models: Vec<(&str, Vec<mongodb::IndexModel>)> = schema
        .models()
        .iter()
        .map(|m| {
            (
                m.collection,
                m.indexes.iter().map(IndexSpec::to_index_model).collect(),
            )
        })
        .collect();

    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(30)
        .max(1);
    let (mut ours, mut naive) = (Vec::new(), Vec::new());
    let (mut ours_cmds, mut naive_cmds) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        for ours_turn in [round % 2 == 0, round % 2 != 0] {
            commands.clear();
            let t = Instant::now();
            if ours_turn {
                let report = schema.sync(&db).await.expect("setup");
                ours.push(t.elapsed());
                assert!(report.applied.is_empty());
                ours_cmds.push(commands.take());
            } else {
                for (collection, models) in &index_models {
                    db.collection::<BsonDocument>(collection)
                        .create_indexes(models.clone())
                        .await
                        .expect("createIndexes");
                }
                naive.push(t.elapsed());
                naive_cmds.push(commands.take());
            }
        }
    }

    let ms = |times: &[Duration]| stats::median(times).as_secs_f64() * 1e3;
    println!(
        "first setup of the 20-model schema on an empty database: {:.2} ms, {}",
        first.as_secs_f64() * 1e3,
        same_every_round(&[first_cmds])
    );
    println!(
        "setup of the schema already in sync ({rounds} rounds, interleaved, the order alternating); every command counted"
    );
    println!(
        "  schema.sync()               median {:>8.2} ms  {}",
        ms(&ours),
        same_every_round(&ours_cmds)
    );
    println!(
        "  createIndexes every start   median {:>8.2} ms  {}",
        ms(&naive),
        same_every_round(&naive_cmds)
    );
    println!(
        "  ratio sync/naive: median of the per-round ratios {}",
        Spread::of_ratios(&ours, &naive)
    );
    db.drop().await.expect("drop");
}
