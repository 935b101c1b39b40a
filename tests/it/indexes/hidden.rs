//! Hidden indexes (`#[document(index(keys(...), hidden))]`): setup creates
//! them hidden, the guard does not count on them (nor does the server's
//! planner), and `sync` hides or unhides an existing index in place
//! (`collMod`), the plan saying which, with nothing to do the second time.

use crate::support;

use bson::doc;
use schema_core::prelude::*;
use schema_core::Step;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

/// The index on `status` about to be dropped: hidden, to see what suffers.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "tasks", index(keys(status = asc), hidden))]
struct Task {
    #[serde(rename = "_id")]
    id: String,
    status: String,
}

/// The same collection, the index visible again.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "tasks", index(keys(status = asc)))]
struct TaskVisible {
    #[serde(rename = "_id")]
    id: String,
    status: String,
}

async fn hidden_on_server(db: &mongodb::Database) -> Option<bool> {
    let status = support::listed_index(db, "tasks", "status_1").await?;
    Some(status.get_bool("hidden").unwrap_or(false))
}

#[tokio::test]
async fn a_hidden_index_is_created_hidden_refused_by_the_guard_and_unhidden_in_place() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "hidden_indexes").await;
    let hidden = Schema::new().with::<Task>();
    let plan = hidden.plan(&db).await.unwrap();
    println!("{plan}");
    assert!(
        plan.to_string()
            .contains("status_1 { \"status\": 1 } hidden"),
        "{plan}"
    );
    hidden.sync(&db).await.unwrap();
    assert_eq!(hidden_on_server(&db).await, Some(true));
    assert!(
        hidden.plan(&db).await.unwrap().is_empty(),
        "in sync the second time"
    );
    let tasks = Repo::<Task>::new(&db);
    tasks
        .insert_many(
            &(0..200)
                .map(|i| Task {
                    id: format!("t{i:03}"),
                    status: if i % 10 == 0 { "open" } else { "done" }.into(),
                })
                .collect::<Vec<_>>(),
        )
        .await
        .unwrap();

    // The guard refuses, nothing sent; the server agrees it would scan.
    log.clear();
    let open = "open".to_owned();
    let err = tasks
        .find(Task::FIELDS.status.eq(&open))
        .all()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Unindexed { .. }), "{err}");
    assert_eq!(log.count(), 0);
    let plan = tasks
        .find(Task::FIELDS.status.eq(&open))
        .scan()
        .explain()
        .await
        .unwrap();
    assert!(
        plan.is_collscan(),
        "the server's planner ignores it too: {plan}"
    );

    // Visible again: the plan unhides it in place, sync does it once.
    let visible = Schema::new().with::<TaskVisible>();
    let plan = visible.plan(&db).await.unwrap();
    println!("{plan}");
    assert!(
        matches!(&plan.steps[..], [Step::IndexVisibility { hidden: false, name, .. }] if name == "status_1"),
        "{plan}"
    );
    assert!(plan.to_string().contains("unhide index"), "{plan}");
    let report = visible.sync(&db).await.unwrap();
    assert_eq!(report.applied.len(), 1);
    assert_eq!(hidden_on_server(&db).await, Some(false));
    assert!(visible.plan(&db).await.unwrap().is_empty());
    let found = Repo::<TaskVisible>::new(&db)
        .find(TaskVisible::FIELDS.status.eq(&open))
        .all()
        .await
        .unwrap();
    assert_eq!(found.len(), 20);
    let plan = Repo::<TaskVisible>::new(&db)
        .find(TaskVisible::FIELDS.status.eq(&open))
        .explain()
        .await
        .unwrap();
    assert!(
        plan.stages.iter().any(|s| s == "IXSCAN(status_1)"),
        "{plan}"
    );

    // And hidden again, through the other model.
    assert!(matches!(
        &hidden.plan(&db).await.unwrap().steps[..],
        [Step::IndexVisibility { hidden: true, .. }]
    ));
    hidden.sync(&db).await.unwrap();
    assert_eq!(hidden_on_server(&db).await, Some(true));
}
