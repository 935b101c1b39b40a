//! `Repo::find` as a builder against the real server: keyset pages over a
//! sort on two keys (ties, nulls, both directions) that never repeat nor
//! skip a document and ride the index; `after` on a stream; projections
//! sending their projection document and yielding the view.

use crate::support;

use std::collections::HashSet;

use bson::doc;
use futures_util::TryStreamExt;
use schema_core::prelude::*;
use schema_core::Cursor;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(
    collection = "scores",
    index(keys(board = asc, points = desc, level = asc, id = asc))
)]
struct Score {
    #[serde(rename = "_id")]
    id: i32,
    board: String,
    points: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    level: Option<i32>,
    player_name: String,
    notes: String,
}

#[derive(Projection, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[projection(of = Score)]
struct Line {
    player_name: String,
    points: i64,
}

fn score(i: i32) -> Score {
    Score {
        id: i,
        board: if i % 5 == 0 { "b" } else { "a" }.to_owned(),
        // Few distinct values: long runs of ties on both keys.
        points: i64::from(i % 4),
        level: (i % 3 != 0).then_some(i % 2),
        player_name: format!("player {i}"),
        notes: "x".repeat(200),
    }
}

/// The order the query promises, computed in Rust: points desc, level asc
/// (null first), `_id` asc (the last key's direction).
fn expected(board: &str) -> Vec<i32> {
    let mut all: Vec<Score> = (0..300).map(score).filter(|s| s.board == board).collect();
    all.sort_by(|x, y| {
        y.points
            .cmp(&x.points)
            .then(x.level.cmp(&y.level))
            .then(x.id.cmp(&y.id))
    });
    all.into_iter().map(|s| s.id).collect()
}

#[tokio::test]
async fn keyset_pages_on_two_sort_keys_follow_the_index_order() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "find_pages").await;
    Schema::new().with::<Score>().sync(&db).await.unwrap();
    let scores = Repo::<Score>::new(&db);
    let docs: Vec<Score> = (0..300).map(score).collect();
    scores.insert_many(&docs).await.unwrap();
    let f = Score::FIELDS;
    let query = || {
        scores
            .find(f.board.eq("a"))
            .sort(f.points.desc())
            .sort(f.level.asc())
    };

    for size in [1, 7, 60, 500] {
        let mut seen: Vec<i32> = Vec::new();
        let mut page = query().page(size).await.unwrap();
        let mut finds = 0;
        loop {
            seen.extend(page.items.iter().map(|s| s.id));
            let Some(next) = page.next.take() else { break };
            let next = roundtrip(&next);
            log.clear();
            page = query().after(next).page(size).await.unwrap();
            finds = finds.max(log.operations().len());
        }
        assert_eq!(seen, expected("a"), "page size {size}");
        // 240 documents on board "a": every page after the first is one find.
        let pages_after_first = usize::from(size < 240);
        assert_eq!(finds, pages_after_first, "one find per page (size {size})");
    }

    // The page query rides the index: no in-memory sort, no scan.
    let first = query().page(7).await.unwrap();
    let plan = query()
        .after(first.next.clone().unwrap())
        .limit(7)
        .explain()
        .await
        .unwrap();
    println!("page 2 (stream form): {plan}");
    assert!(!plan.is_collscan() && !plan.sorts_in_memory(), "{plan}");

    // A stream after a cursor yields the rest, in order.
    let rest: Vec<i32> = query()
        .after(first.next.unwrap())
        .await
        .unwrap()
        .map_ok(|s| s.id)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(rest, expected("a")[7..]);

    // The exact reverse of the index order, `_id` named by the sort.
    let by_points: Vec<i32> = {
        let mut ids = Vec::new();
        let q = || {
            scores
                .find(f.board.eq("b"))
                .sort(doc! { "points": 1, "level": -1, "_id": -1 })
        };
        let mut page = q().page(4).await.unwrap();
        loop {
            ids.extend(page.items.iter().map(|s| s.id));
            let Some(next) = page.next.take() else { break };
            page = q().after(next).page(4).await.unwrap();
        }
        ids
    };
    let mut want = expected("b");
    want.reverse();
    assert_eq!(by_points, want);
    assert_eq!(by_points.iter().collect::<HashSet<_>>().len(), 60);

    // A page needs the `_id` tie-break in the index: a sort the index ends
    // without is refused, naming the index to declare.
    let err = scores
        .find(f.board.eq("a"))
        .sort(f.points.desc())
        .sort(f.level.asc())
        .sort(doc! { "_id": -1 })
        .page(5)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Unindexed { .. }), "{err}");
}

/// The cursor stored as a document and read back (as a client would keep it).
fn roundtrip(cursor: &Cursor) -> Cursor {
    let doc = bson::serialize_to_document(cursor).unwrap();
    bson::deserialize_from_document(doc).unwrap()
}

#[tokio::test]
async fn a_projection_sends_its_fields_and_yields_the_view() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "find_projection").await;
    Schema::new().with::<Score>().sync(&db).await.unwrap();
    let scores = Repo::<Score>::new(&db);
    let docs: Vec<Score> = (0..20).map(score).collect();
    scores.insert_many(&docs).await.unwrap();
    let f = Score::FIELDS;

    assert_eq!(
        <Line as Projection<Score>>::projection(),
        Some(doc! { "playerName": 1, "points": 1, "_id": 0 })
    );
    log.clear();
    let lines: Vec<Line> = scores
        .find(f.board.eq("b"))
        .sort(f.points.desc())
        .projection::<Line>()
        .all()
        .await
        .unwrap();
    // The first query on the `board` index asks once that the server has it.
    assert_eq!(log.operations(), ["listIndexes", "find"]);
    assert_eq!(
        lines,
        [
            Line {
                player_name: "player 15".into(),
                points: 3
            },
            Line {
                player_name: "player 10".into(),
                points: 2
            },
            Line {
                player_name: "player 5".into(),
                points: 1
            },
            Line {
                player_name: "player 0".into(),
                points: 0
            },
        ]
    );
    // Pages of a view: the sort keys and `_id` are read for the cursor.
    let q = || {
        scores
            .find(f.board.eq("a"))
            .sort(f.points.desc())
            .sort(f.level.asc())
            .projection::<Line>()
    };
    let first = q().page(10).await.unwrap();
    let second = q().after(first.next.unwrap()).page(10).await.unwrap();
    let names: Vec<&str> = first
        .items
        .iter()
        .chain(&second.items)
        .map(|l| l.player_name.as_str())
        .collect();
    let want: Vec<String> = expected_of(&docs, "a");
    assert_eq!(names, want.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(second.next.is_none());
    // One document, as a view.
    let one = scores
        .find_one(f.id.eq(&7))
        .projection::<Line>()
        .await
        .unwrap();
    assert_eq!(one.map(|l| l.points), Some(3));

    // A stored document the view cannot read (written around the model):
    // the error names it, though the view leaves `_id` out.
    db.collection::<bson::Document>("scores")
        .update_one(doc! { "_id": 7 }, doc! { "$unset": { "playerName": "" } })
        .bypass_document_validation(true)
        .await
        .unwrap();
    let err = scores
        .find_one(f.id.eq(&7))
        .projection::<Line>()
        .await
        .unwrap_err();
    match &err {
        schema_core::Error::Decode { id, field, .. } => {
            assert_eq!((id.as_str(), field.as_deref()), ("7", Some("playerName")));
        }
        other => panic!("a decode error naming the document, not {other}"),
    }
}

fn expected_of(docs: &[Score], board: &str) -> Vec<String> {
    let mut all: Vec<&Score> = docs.iter().filter(|s| s.board == board).collect();
    all.sort_by(|x, y| {
        y.points
            .cmp(&x.points)
            .then(x.level.cmp(&y.level))
            .then(x.id.cmp(&y.id))
    });
    all.into_iter().map(|s| s.player_name.clone()).collect()
}
