//! Many-to-many with no bound on either side: one edge document per pair in
//! its own collection, indexed in both directions; listings read the index
//! alone and page by keyset.

use crate::support;

use bson::doc;
use schema_core::prelude::*;
use schema_core::Schema;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "users")]
struct Member {
    #[serde(rename = "_id")]
    id: String,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "groups")]
struct Group {
    #[serde(rename = "_id")]
    id: String,
}

fn s(v: &str) -> String {
    v.to_owned()
}

#[tokio::test]
async fn edges_link_once_list_both_ways_by_keyset_and_unlink() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "through").await;
    let members = Through::<Member, Group>::new(&db, "memberships", "userId", "groupId");
    let mut schema = Schema::new().with::<Member>().with::<Group>();
    schema = schema.with_info(members.model_info());
    schema.sync(&db).await.unwrap();

    let names: Vec<String> = db
        .collection::<bson::Document>("memberships")
        .list_index_names()
        .await
        .unwrap();
    assert!(names.contains(&s("userId_1_groupId_1")), "{names:?}");
    assert!(names.contains(&s("groupId_1_userId_1")), "{names:?}");

    log.clear();
    members.link(&s("u1"), &s("g1")).await.unwrap();
    assert_eq!(log.operations(), ["update"], "one command, no transaction");
    members.link(&s("u1"), &s("g1")).await.unwrap(); // idempotent
    for g in 0..25 {
        members.link(&s("u1"), &format!("g{g:02}")).await.unwrap();
        members.link(&format!("u{g:02}"), &s("g00")).await.unwrap();
    }
    assert_eq!(members.count_rights(&s("u1")).await.unwrap(), 26);
    assert_eq!(
        members.count_lefts(&s("g00")).await.unwrap(),
        26,
        "u00..u24 and u1"
    );
    assert!(members.contains(&s("u1"), &s("g1")).await.unwrap());

    // Keyset pages of 10 over the user's 26 groups.
    let mut all = Vec::new();
    let mut after: Option<String> = None;
    loop {
        log.clear();
        let page = members
            .rights_of(&s("u1"), after.as_ref(), 10)
            .await
            .unwrap();
        assert_eq!(log.operations(), ["find"]);
        all.extend(page.iter().cloned());
        if page.len() < 10 {
            break;
        }
        after = page.last().cloned();
    }
    let mut expected: Vec<String> = (0..25).map(|g| format!("g{g:02}")).collect();
    expected.push(s("g1"));
    expected.sort();
    assert_eq!(all, expected);
    let lefts = members.lefts_of(&s("g00"), None, 100).await.unwrap();
    assert_eq!(lefts.len(), 26);

    // The listing reads the index alone.
    let plan = members.explain_rights_of(&db, &s("u1"), 10).await.unwrap();
    println!("rights of u1: {plan}");
    assert_eq!(plan.docs_examined, 0, "{plan}");
    assert_eq!(plan.returned, 10, "{plan}");
    assert!(
        plan.stages.last().unwrap() == "IXSCAN(userId_1_groupId_1)",
        "{plan}"
    );

    assert!(members.unlink(&s("u1"), &s("g1")).await.unwrap());
    assert!(!members.unlink(&s("u1"), &s("g1")).await.unwrap());
    assert_eq!(members.remove_right(&s("g00")).await.unwrap(), 26);
    assert_eq!(members.remove_left(&s("u1")).await.unwrap(), 24);
    assert_eq!(
        db.collection::<bson::Document>("memberships")
            .count_documents(doc! {})
            .await
            .unwrap(),
        0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_links_of_one_pair_store_one_edge() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "through_race").await;
    let members = Through::<Member, Group>::new(&db, "memberships", "userId", "groupId");
    let mut schema = Schema::new();
    schema = schema.with_info(members.model_info());
    schema.sync(&db).await.unwrap();
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let members = members.clone();
            tokio::spawn(async move {
                for _ in 0..20 {
                    members.link(&s("u1"), &s("g1")).await.unwrap();
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(members.count_rights(&s("u1")).await.unwrap(), 1);
}
