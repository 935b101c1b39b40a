//! Keyset pages through a long run of equal sort values: 5,000 posts of one
//! author at one instant (and 5,000 of another author at the same instant),
//! paged newest first, 10 per page. For page 1, 50 and 500 it prints the
//! median time of `Repo::children(..).after(cursor).page()`, what `explain`
//! says the page read (index keys, documents, finds) and the size of the
//! cursor that starts the page.
//!
//! For comparison, the same pages with the previous release's query,
//! written by hand on the index without `_id`: the cursor carries every
//! `_id` already returned with the current value
//! (`{authorId, at: {$lte: last}, _id: {$nin: [...]}}`, `sort: {at: -1}`).
//!
//! Each page's row ends with the median and p10-p90 of the per-round ratios
//! this/ids-cursor.
//!
//! Run: `cargo bench --bench paging_ties` (uses `MONGODB_URI` when set,
//! otherwise starts an embedded `secantusd-rs`). `ROUNDS=N` times each page
//! N times (default 20), interleaved.

use std::time::{Duration, Instant};

use bson::{doc, Bson, DateTime, Document as BsonDocument};
use futures_util::TryStreamExt;
use mongodb::options::{Hint, IndexOptions};
use mongodb::{Collection, IndexModel};
use schema_core::prelude::*;
use schema_core::Cursor;
use schema_core::Schema;
use schema_core::{explain_find, FindShape};
use schema_testkit::stats::{self, Spread};
use serde::{Deserialize, Serialize};

const RUN: usize = 5_000;
const PAGE: u32 = 10;
const PAGES: [usize; 3] = [1, 50, 500];
const AT_MS: i64 = 1_700_000_000_000;
/// The previous release's reference index.
const OLD_INDEX: &str = "authorId_1_at_-1";

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    #[reference(index, sort(at = desc))]
    author_id: String,
    title: String,
    at: DateTime,
}

fn median_us(times: &[Duration]) -> f64 {
    stats::median(times).as_secs_f64() * 1e6
}

fn bytes(doc: &BsonDocument) -> usize {
    bson::serialize_to_vec(doc).map_or(0, |v| v.len())
}

/// The previous release's page after `seen` (the `_id`s already returned
/// with the run's value; none on page 1).
fn old_shape(seen: &[String]) -> FindShape {
    let mut filter = doc! { "authorId": "ada" };
    if !seen.is_empty() {
        filter.insert("at", doc! { "$lte": DateTime::from_millis(AT_MS) });
        filter.insert("_id", doc! { "$nin": seen });
    }
    FindShape {
        filter,
        sort: Some(doc! { "at": -1 }),
        limit: Some(i64::from(PAGE)),
        projection: None,
        hint: Some(Bson::String(OLD_INDEX.to_owned())),
        collation: None,
    }
}

async fn old_page(raw: &Collection<Post>, shape: &FindShape) -> Vec<Post> {
    let mut find = raw
        .find(shape.filter.clone())
        .sort(shape.sort.clone().unwrap_or_default())
        .limit(i64::from(PAGE))
        .batch_size(PAGE);
    if let Some(Bson::String(name)) = &shape.hint {
        find = find.hint(Hint::Name(name.clone()));
    }
    find.await.expect("find").try_collect().await.expect("page")
}

#[tokio::main]
async fn main() {
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20)
        .max(1);
    let db = schema_testkit::server::connect()
        .await
        .expect("a server: set MONGODB_URI or install secantusd-rs")
        .database("bench_paging_ties");
    db.drop().await.expect("drop");
    Schema::new().with::<Post>().sync(&db).await.expect("setup");
    let posts = Repo::<Post>::new(&db);
    let raw: Collection<Post> = db.collection("posts");
    raw.create_index(
        IndexModel::builder()
            .keys(doc! { "authorId": 1, "at": -1 })
            .options(IndexOptions::builder().name(OLD_INDEX.to_owned()).build())
            .build(),
    )
    .await
    .expect("old index");
    let all: Vec<Post> = (0..2 * RUN)
        .map(|i| Post {
            id: format!("post_{:05}", (i * 7919) % (2 * RUN)),
            author_id: if i % 2 == 0 { "ada" } else { "bob" }.into(),
            title: "t".into(),
            at: DateTime::from_millis(AT_MS),
        })
        .collect();
    for chunk in all.chunks(2000) {
        posts.insert_many(chunk).await.expect("seed");
    }

    // The cursor before each page (none before page 1), from one walk.
    let ada = "ada".to_owned();
    let children = posts.children(Post::FIELDS.author_id, &ada).page_size(PAGE);
    let mut cursors: Vec<Option<Cursor>> = vec![None];
    let mut ids: Vec<String> = Vec::new();
    let mut page = children.page().await.expect("page");
    while let Some(next) = page.next.take() {
        ids.extend(page.items.iter().map(|p| p.id.clone()));
        cursors.push(Some(next.clone()));
        page = children.clone().after(next).page().await.expect("page");
    }
    ids.extend(page.items.iter().map(|p| p.id.clone()));
    assert_eq!(ids.len(), RUN, "every post once");
    // The previous release's walk: its ties came in the old index's order.
    let mut old_ids: Vec<String> = Vec::new();
    for _ in 0..RUN / PAGE as usize {
        let page = old_page(&raw, &old_shape(&old_ids)).await;
        old_ids.extend(page.into_iter().map(|p| p.id));
    }

    println!(
        "{RUN} posts of one author at one instant (+{RUN} of another); page size {PAGE}; \
         medians of {rounds} rounds in microseconds; ratio: median of the per-round ratios \
         this/ids-cursor, with their p10-p90"
    );
    println!(
        "{:<6} {:>10} {:>5} {:>5} {:>6} {:>9} | {:>10} {:>5} {:>5} {:>9} | {:>6} {:>11}",
        "page",
        "this",
        "keys",
        "docs",
        "finds",
        "cursor B",
        "ids-cursor",
        "keys",
        "docs",
        "cursor B",
        "ratio",
        "p10-p90"
    );
    for k in PAGES {
        let cursor = cursors[k - 1].clone();
        let query = match &cursor {
            Some(c) => children.clone().after(c.clone()),
            None => children.clone(),
        };
        // The previous release's cursor: every `_id` of the run so far
        // (the whole page before is the same run).
        let seen = &old_ids[..(k - 1) * PAGE as usize];
        let old = old_shape(seen);
        let (mut new_times, mut old_times) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            for new_first in [round % 2 == 0, round % 2 != 0] {
                let start = Instant::now();
                if new_first {
                    let got = query.page().await.expect("page");
                    assert_eq!(got.items.len(), PAGE as usize);
                    new_times.push(start.elapsed());
                } else {
                    let got = old_page(&raw, &old).await;
                    assert_eq!(got.len(), PAGE as usize);
                    old_times.push(start.elapsed());
                }
            }
        }
        let ratio = Spread::of_ratios(&new_times, &old_times);
        let plan = query.explain().await.expect("explain");
        let old_plan = explain_find(&db, "posts", &old).await.expect("explain");
        assert!(
            plan.shape().ends_with("IXSCAN(authorId_1_at_-1__id_-1)"),
            "{plan}"
        );
        let cursor_bytes = cursor.as_ref().map_or(0, |c| {
            bytes(&bson::serialize_to_document(c).expect("cursor"))
        });
        let old_cursor_bytes = if k == 1 {
            0
        } else {
            let (last, ties) = seen.split_last().expect("a page before");
            bytes(&doc! { "last": DateTime::from_millis(AT_MS), "id": last, "ties": ties })
        };
        println!(
            "{k:<6} {:>10.0} {:>5} {:>5} {:>6} {:>9} | {:>10.0} {:>5} {:>5} {:>9} | {:>6.2} {:>11}",
            median_us(&new_times),
            plan.keys_examined,
            plan.docs_examined,
            plan.finds,
            cursor_bytes,
            median_us(&old_times),
            old_plan.keys_examined,
            old_plan.docs_examined,
            old_cursor_bytes,
            ratio.median,
            ratio.range(),
        );
        println!("       plan: {plan}");
        println!("       ids-cursor plan: {old_plan}");
    }
    db.drop().await.expect("drop");
}
