//! Setup of a 20-model schema that is already in sync, side by side with the
//! naive approach of sending `createIndexes` for every model on every start.
//! Prints round trips (commands sent) and median times, measured interleaved
//! in one run. Run: `cargo bench --bench setup`.

use std::time::{Duration, Instant};

use bson::Document as BsonDocument;
use schema_core::prelude::*;
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

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

#[tokio::main]
async fn main() {
    let (client, commands) = schema_testkit::counting_client()
        .await
        .expect("a server: set MONGODB_URI or install secantusd-rs");
    let db = client.database(&format!("bench_setup_{}", std::process::id()));
    db.drop().await.expect("drop");

    let schema = schema();
    schema.sync(&db).await.expect("first setup");
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

    let rounds = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(30);
    let (mut ours, mut naive) = (Vec::new(), Vec::new());
    let (mut ours_cmds, mut naive_cmds) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        commands.clear();
        let t = Instant::now();
        let report = schema.sync(&db).await.expect("setup");
        ours.push(t.elapsed());
        assert!(report.applied.is_empty());
        ours_cmds = commands.names();

        commands.clear();
        let t = Instant::now();
        for (collection, models) in &index_models {
            db.collection::<BsonDocument>(collection)
                .create_indexes(models.clone())
                .await
                .expect("createIndexes");
        }
        naive.push(t.elapsed());
        naive_cmds = commands.names();
    }

    let count = |cmds: &[String], name: &str| cmds.iter().filter(|c| *c == name).count();
    let writes = |cmds: &[String]| {
        cmds.iter()
            .filter(|c| {
                matches!(
                    c.as_str(),
                    "create" | "createIndexes" | "collMod" | "dropIndexes"
                )
            })
            .count()
    };
    let (m_ours, m_naive) = (median(&mut ours), median(&mut naive));
    println!("setup of a 20-model schema already in sync ({rounds} rounds, interleaved)");
    println!(
        "  schema.sync()               median {:>8.2} ms  round trips {:>3} ({} listCollections, {} listIndexes, {} hello)  writes {}",
        m_ours.as_secs_f64() * 1e3,
        ours_cmds.len(),
        count(&ours_cmds, "listCollections"),
        count(&ours_cmds, "listIndexes"),
        count(&ours_cmds, "hello"),
        writes(&ours_cmds)
    );
    println!(
        "  createIndexes every start   median {:>8.2} ms  round trips {:>3} ({} createIndexes)  writes {}",
        m_naive.as_secs_f64() * 1e3,
        naive_cmds.len(),
        count(&naive_cmds, "createIndexes"),
        writes(&naive_cmds)
    );
    println!(
        "  time ratio sync/naive: {:.2}",
        m_ours.as_secs_f64() / m_naive.as_secs_f64()
    );
    db.drop().await.expect("drop");
}
