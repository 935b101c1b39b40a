//! Hot documents: concurrent two-sided links into one document are combined
//! into one transaction (`Links`, on by default). Each caller gets its own
//! result, no bound is ever exceeded, and every acknowledged link is applied
//! exactly once: with more linkers than room, under transient write
//! conflicts, and when a combined transaction fails outright.

use crate::support;

use bson::doc;
use mongodb::Database;
use schema_core::prelude::*;
use schema_core::{Error, Schema};
use schema_testkit::failpoint::{self, FAILPOINT};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(collection = "members")]
struct Member {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(two_sided, to = Club, inverse = member_ids, max = 4)]
    club_ids: Vec<String>,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(collection = "clubs")]
struct Club {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(two_sided, to = Member, inverse = club_ids, max = 20)]
    member_ids: Vec<String>,
}

async fn seed(db: &Database, members: usize) {
    Schema::new()
        .with::<Member>()
        .with::<Club>()
        .sync(db)
        .await
        .unwrap();
    let all: Vec<Member> = (0..members)
        .map(|i| Member {
            id: format!("m{i:03}"),
            club_ids: vec![],
        })
        .collect();
    Repo::<Member>::new(db).insert_many(&all).await.unwrap();
    Repo::<Club>::new(db)
        .insert_many(&[
            Club {
                id: "hot".into(),
                member_ids: vec![],
            },
            Club {
                id: "warm".into(),
                member_ids: vec![],
            },
        ])
        .await
        .unwrap();
}

/// `tasks` tasks each linking its members to `club`; every result.
async fn race(
    links: &Links<Member, Vec<String>, Club>,
    tasks: usize,
    per_task: usize,
    club: &str,
) -> Vec<(String, schema_core::Result<()>)> {
    let mut handles = Vec::new();
    for t in 0..tasks {
        let links = links.clone();
        let club = club.to_owned();
        handles.push(tokio::spawn(async move {
            let mut out = Vec::new();
            for i in 0..per_task {
                let member = format!("m{:03}", t * per_task + i);
                let result = links.link(&member, &club).await;
                out.push((member, result));
            }
            out
        }));
    }
    let mut all = Vec::new();
    for h in handles {
        all.extend(h.await.unwrap());
    }
    all
}

async fn club(db: &Database, id: &str) -> Vec<String> {
    Repo::<Club>::new(db)
        .get(&id.to_owned())
        .await
        .unwrap()
        .unwrap()
        .member_ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_linkers_than_room_fill_the_club_exactly_and_the_rest_are_told_full() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "hot_full").await;
    seed(&db, 48).await;
    let links = Links::new(&db, Member::FIELDS.club_ids);
    log.clear();
    let results = race(&links, 16, 3, "hot").await;
    let ok: Vec<&String> = results
        .iter()
        .filter(|(_, r)| r.is_ok())
        .map(|(m, _)| m)
        .collect();
    let full = results
        .iter()
        .filter(|(_, r)| {
            matches!(
                r,
                Err(Error::LinkFull {
                    collection: "clubs",
                    max: 20,
                    ..
                })
            )
        })
        .count();
    println!(
        "{} linked, {full} told full; commands: {}",
        ok.len(),
        log.count()
    );
    assert_eq!((ok.len(), full), (20, 28), "{results:?}");
    let mut members = club(&db, "hot").await;
    members.sort();
    let mut expected: Vec<String> = ok.iter().map(|m| m.to_string()).collect();
    expected.sort();
    assert_eq!(
        members, expected,
        "exactly the acknowledged links, once each"
    );
    let report = links.verify().await.unwrap();
    assert!(report.is_consistent(), "{report:?}");
    assert_eq!(report.edges, 20);
    assert!(
        log.names().iter().any(|c| c == "find"),
        "some links were combined (a combined link reads the club first)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn combined_links_under_write_conflicts_are_applied_exactly_once() {
    let _turn = FAILPOINT.lock().await;
    let app = "hot_conflicts";
    let (client, log) = support::counting_client_with(|o| o.app_name = Some(app.to_owned())).await;
    let db = support::fresh_db(&client, "hot_conflicts").await;
    seed(&db, 32).await;
    let links = Links::new(&db, Member::FIELDS.club_ids);
    // The next 12 updates (of either side) fail with a transient write
    // conflict: whole combined transactions retry.
    failpoint::conflict(&client, app, 12, &["update"]).await;
    let results = race(&links, 16, 1, "warm").await;
    failpoint::off(&client).await;
    let failures = log.failures().len();
    println!(
        "{failures} commands failed with the injected conflict; retries {}",
        links.retries()
    );
    assert!(failures > 0, "the failpoint fired");
    for (member, result) in &results {
        assert!(result.is_ok(), "{member}: {result:?}");
    }
    let members = club(&db, "warm").await;
    assert_eq!(members.len(), 16, "{members:?}");
    let report = links.verify().await.unwrap();
    assert!(report.is_consistent(), "{report:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_combined_transaction_that_fails_leaves_each_link_to_run_alone() {
    let _turn = FAILPOINT.lock().await;
    let app = "hot_fallback";
    let (client, log) = support::counting_client_with(|o| o.app_name = Some(app.to_owned())).await;
    let db = support::fresh_db(&client, "hot_fallback").await;
    seed(&db, 16).await;
    let links = Links::new(&db, Member::FIELDS.club_ids);
    // The first combined transaction's read of the club fails outright (a
    // non-transient error): its leader reports the error, and the links it
    // had gathered each run alone.
    failpoint::arm(
        &client,
        app,
        doc! { "times": 1 },
        doc! { "failCommands": ["find"], "errorCode": 2 },
    )
    .await;
    let results = race(&links, 16, 1, "hot").await;
    failpoint::off(&client).await;
    let failed: Vec<&String> = results
        .iter()
        .filter(|(_, r)| r.is_err())
        .map(|(m, _)| m)
        .collect();
    println!("{} of 16 failed: {failed:?}", failed.len());
    assert!(
        failed.len() <= 1,
        "only the leader of the failed batch: {failed:?}"
    );
    assert_eq!(club(&db, "hot").await.len(), 16 - failed.len());
    let report = links.verify().await.unwrap();
    assert!(report.is_consistent(), "{report:?}");
    assert_eq!(
        report.edges,
        16 - failed.len(),
        "every acknowledged link, once"
    );
    let _ = log;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_combining_each_link_is_its_own_transaction() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "hot_alone").await;
    seed(&db, 16).await;
    let links = Links::new(&db, Member::FIELDS.club_ids).with_combining(false);
    log.clear();
    let results = race(&links, 8, 2, "hot").await;
    assert!(results.iter().all(|(_, r)| r.is_ok()));
    assert!(!log.names().iter().any(|c| c == "find"), "never combined");
    assert_eq!(club(&db, "hot").await.len(), 16);
    assert!(links.verify().await.unwrap().is_consistent());
}
